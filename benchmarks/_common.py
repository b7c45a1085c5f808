"""Shared helpers of the benchmark scripts: dataset choice, machine facts, result files."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
ROOT = RESULTS.parents[1]
# the app (ui) and the tests' helpers, after PYTHONPATH: an old tree given there stays first
sys.path += [str(ROOT), str(ROOT / "tests")]
# a server as the browser tests start one
from browser_helpers import free_port, start_server, stop_server  # noqa: E402, F401


def old_tree(commit: str) -> Path:
    """A git worktree of ``commit`` under the system's temporary directory (made when
    missing): the "old" side of an old-against-new benchmark, run with PYTHONPATH on it."""
    path = Path(tempfile.gettempdir()) / f"sslviz_old_{commit}"
    if not (path / "sslviz").is_dir():
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), commit],
            check=True,
        )
    return path


def available(dataset: str) -> bool:
    """Whether ``dataset`` can be loaded offline here."""
    from sslviz.datasets import DatasetUnavailableError, load_dataset

    try:
        load_dataset(dataset)
        return True
    except (DatasetUnavailableError, ImportError):
        return False


def fashion_or_digits() -> str:
    """Fashion-MNIST when it can be loaded offline here, else the embedded digits."""
    return "fashion-mnist" if available("fashion-mnist") else "digits"


def last_json(argv: list[str], cwd: Path, env: dict[str, str]) -> dict:
    """Run ``argv`` in ``cwd`` with the environment ``env``; the JSON object on the last line
    it prints (a benchmark's measurement in a fresh process)."""
    out = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def machine() -> dict:
    return {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }


def write(name: str, payload: dict, markdown: str) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(payload, indent=1))
    (RESULTS / f"{name}.md").write_text(markdown)
    print(markdown)
