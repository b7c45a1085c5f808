"""Record, or check byte for byte, the ``--no-timings`` JSON of a set of ``sslviz`` commands
that covers every subcommand, graph family, labeling, mode and solver.

A change that should not change behaviour (a refactor, a move, formatting) must leave every
output identical: record before it, check after it.

    python benchmarks/cli_outputs.py --record   # writes benchmarks/results/cli/*.json
    python benchmarks/cli_outputs.py            # checks them: exit 1 and a list if any differs

Bits are promised on one machine (README, Reproducibility): check on the machine that
recorded.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "results" / "cli"
INPUTS = OUT / "inputs"
D = "--dataset digits"

COMMANDS = {
    "loss_knn": f"loss {D} --classes 0 1 --n 100 --family knn --k 6 --sigma-min 1 --sigma-max 7",
    "loss_complete": f"loss {D} --classes 2 3 --n 100 --family complete",
    "loss_mutual": f"loss {D} --classes 4 9 --n 150 --family mutual-knn --k 8",
    "loss_threshold": f"loss {D} --classes 3 8 --n 80 --family threshold --k 6",
    "loss_delalleau": f"loss {D} --classes 3 8 --n 80 --family knn --labeling delalleau "
    "--subset 30",
    "loss_file": "loss --data-file {npz} --classes 0 1 --pca 0 --family knn --k 6 "
    "--sigma-min 1 --sigma-max 7",
    "condition_trust": f"condition {D} --family knn --k 6 --sigmas 1:7:9 --trust",
    "intervals_fast_cg": f"intervals {D} --classes 2 3 --n 100 --family complete --solver cg "
    "--cg-iters 20 --mode fast --score",
    "intervals_paper": f"intervals {D} --classes 0 1 --n 60 --family knn --k 6 --mode paper "
    "--sigma-min 1 --sigma-max 4 --score",
    "intervals_pcg": f"intervals {D} --classes 4 9 --n 150 --family mutual-knn --k 8 "
    "--solver pcg --cg-iters 5 --score",
    "intervals_exact": f"intervals {D} --classes 3 8 --n 100 --family knn --solver exact",
    "intervals_inverse": f"intervals {D} --classes 3 8 --n 60 --family complete "
    "--solver inverse --mode paper --sigma-min 0.8 --sigma-max 2",
    "intervals_certify": f"intervals {D} --classes 3 8 --n 60 --family complete --cg-iters 3 "
    "--certify --score",
    "regret": f"regret {D} --n 60 --labeled 10 --family knn --k 6 --sigma-min 0.5 "
    "--sigma-max 5 --rounds 8 --repeats 2 --feedback approx,exact,full,uniform --jobs 1",
    "learn_drawn": f"learn {D} --classes 3 8 --n 60 --labeled 6 --family knn --k-range 3:5 "
    "--instances 4 --test-instances 3 --curve 1,2,4 --repeats 2 --solver cg --cg-iters 10 "
    "--jobs 1",
    "learn_files": "learn --data-file {npz} --data-file {npz2} --test-file {npz3} --classes 0 1 "
    "--pca 0 --family knn --k 6 --sigma-min 1 --sigma-max 7 --jobs 1",
}
"""Name → the command after ``sslviz`` (``{npz}``, ``{npz2}``, ``{npz3}``: the instance files
written under ``results/cli/inputs``)."""


def _instances() -> dict[str, str]:
    """Three small two-cluster instances with fixed labeled sets (written once, then kept)."""
    INPUTS.mkdir(parents=True, exist_ok=True)
    paths = {}
    for key, seed in (("npz", 0), ("npz2", 1), ("npz3", 2)):
        path = INPUTS / f"instance{seed}.npz"
        if not path.exists():
            rng = np.random.default_rng(seed)
            y = np.repeat([0, 1], 40)
            X = rng.normal(size=(80, 5)) + 2.0 * y[:, None]
            labeled = np.zeros(80, bool)
            labeled[[0, 1, 2, 3, 40, 41, 42, 43]] = True
            np.savez(path, X=X, y=y, labeled=labeled)
        paths[key] = str(path.relative_to(OUT.parents[2]))
    return paths


def run(name: str, files: dict[str, str]) -> bytes:
    """The ``--no-timings`` JSON of command ``name``, as bytes."""
    root = OUT.parents[2]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        args = shlex.split(COMMANDS[name].format(**files))
        cmd = [sys.executable, "-m", "sslviz.cli", *args, "--no-timings", "--out", str(out)]
        done = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
        if done.returncode:
            raise SystemExit(f"{name}: exit {done.returncode}: {done.stderr.strip()[-300:]}")
        return out.read_bytes()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--record", action="store_true", help="write the outputs")
    ap.add_argument("--only", nargs="*", choices=sorted(COMMANDS), help="these commands only")
    args = ap.parse_args()
    files = _instances()
    differ = []
    for name in args.only or COMMANDS:
        text = run(name, files)
        path = OUT / f"{name}.json"
        if args.record:
            path.write_bytes(text)
            print(f"recorded {name}: {len(text):,} bytes")
        elif not path.exists() or path.read_bytes() != text:
            differ.append(name)
            print(f"DIFFERS {name}")
        else:
            print(f"same {name}")
    if differ:
        print(f"{len(differ)} of {len(args.only or COMMANDS)} outputs differ: {', '.join(differ)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
