"""Installing plug-ins of sslviz for a test: a distribution's metadata (a ``*.dist-info``
folder with its ``entry_points.txt``, what pip writes) in a temporary folder put on
``sys.path`` (or ``PYTHONPATH`` for a subprocess), beside the plug-ins' packages in
``tests/plugins``. ``importlib.metadata`` finds the entry points there as it finds an
installed distribution's."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLUGINS = ROOT / "tests" / "plugins"
"""The plug-ins' packages: ``sslviz_toy`` (its pyproject.toml declares its entry points)
and ``sslviz_bad`` (three plug-ins that are wrong, each in its own way)."""

TOY_FAMILY, TOY_MODEL = "eps-ball", "row-normalised"


def install(site: Path, name: str, version: str, entry_points: dict[str, dict[str, str]]):
    """Write the metadata of distribution ``name`` with ``entry_points`` (group → entry
    point name → ``"module:attribute"``) into the folder ``site``."""
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    lines = []
    for group, points in entry_points.items():
        lines += [f"[{group}]", *(f"{k} = {v}" for k, v in points.items()), ""]
    (info / "entry_points.txt").write_text("\n".join(lines))


def install_toy(site: Path) -> None:
    """The toy distribution, with the entry points its pyproject.toml declares."""
    project = tomllib.loads((PLUGINS / "pyproject.toml").read_text())["project"]
    install(site, project["name"], project["version"], project["entry-points"])


BAD = {
    "sslviz.families": {
        "broken": "sslviz_bad.broken:Family",  # its module fails to import
        "knn-again": "sslviz_bad.clash:KNNAgain",  # takes the name 'knn'
    },
    "sslviz.models": {"lacking": "sslviz_bad.lacking:NoSoftLabels"},  # lacks soft_labels
}
"""The three bad plug-ins, as the distribution ``sslviz-bad`` declares them."""


def install_bad(site: Path) -> None:
    install(site, "sslviz-bad", "0.1", BAD)


@contextlib.contextmanager
def installed(site: Path):
    """The plug-ins whose metadata is in ``site`` installed in this process while the block
    runs (the registries filled again on entry and on exit)."""
    from sslviz import registry

    paths = [str(PLUGINS), str(site)]
    sys.path[:0] = paths
    registry.reset()
    try:
        yield
    finally:
        for p in paths:
            sys.path.remove(p)
        for module in [m for m in sys.modules if m.split(".")[0] in ("sslviz_toy", "sslviz_bad")]:
            del sys.modules[module]
        registry.reset()


def run_sslviz(site: Path, *args: str) -> subprocess.CompletedProcess:
    """``python -m sslviz.cli ARGS`` in a subprocess with the plug-ins of ``site`` installed
    (``PYTHONPATH``), from the repository's root; its output as text."""
    path = os.pathsep.join([str(ROOT), str(PLUGINS), str(site)])
    env = os.environ | {"PYTHONPATH": path}
    return subprocess.run(
        [sys.executable, "-m", "sslviz.cli", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
