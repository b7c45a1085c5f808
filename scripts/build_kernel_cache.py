"""Rebuild the compiled kernels' cache that ships with the package (``sslviz/_kernel_cache``).

Run after any change to ``sslviz/_kernels.py`` (``tests/unit/test_kernel_cache.py`` fails
until then): ``python scripts/build_kernel_cache.py``. It empties the directory, then, once
for each CPU of ``sslviz._kernels.PORTABLE_CPUS`` (x86-64-v3, generic x86-64), runs every
kernel on the signatures the package calls them with: :func:`sslviz._kernels.warm_up` and
a small run of each CLI command over the graph families, labelings, solvers and modes.
A plain ``pip install`` then starts without Numba's compiler (``benchmarks/first_sweep.py``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def workload(out: Path) -> None:
    """Every kernel, through the package's own calls (Numba caches each signature)."""
    import numpy as np

    from sslviz._kernels import warm_up
    from sslviz.cli import main

    warm_up()
    rng = np.random.default_rng(0)
    for i, n in enumerate((80, 700)):  # 700: above the NumPy neighbour search's size
        y = np.repeat([0, 1], n // 2)
        X = rng.normal(size=(n, 5)) + 2.0 * y[:, None]
        labeled = np.zeros(n, bool)
        labeled[[0, 1, 2, 3, n - 1, n - 2, n - 3, n - 4]] = True
        np.savez(out / f"instance{i}.npz", X=X, y=y, labeled=labeled)
    n = 240  # three classes, 231 unlabeled: the Chebyshev search of the class gaps
    y = np.repeat([0, 1, 2], n // 3)
    X = rng.normal(size=(n, 5)) + 2.0 * np.eye(3, 5)[y]
    labeled = np.zeros(n, bool)
    labeled[[0, 1, 2, 80, 81, 82, 160, 161, 162]] = True
    np.savez(out / "instance2.npz", X=X, y=y, labeled=labeled)
    three = ["--data-file", str(out / "instance2.npz"), "--classes", "0", "1", "2", "--pca", "0"]
    small = ["--data-file", str(out / "instance0.npz"), "--classes", "0", "1", "--pca", "0"]
    large = ["--data-file", str(out / "instance1.npz"), "--classes", "0", "1", "--pca", "0"]
    rng_args = ["--sigma-min", "0.5", "--sigma-max", "4"]
    runs: list[list[str]] = []
    for family in ("complete", "knn", "mutual-knn", "threshold"):
        gaussian = family != "threshold"  # the threshold family: a harmonic loss only
        for labeling in ("harmonic", "delalleau") if gaussian else ("harmonic",):
            graph = [*small, "--family", family, "--k", "6", "--labeling", labeling]
            if labeling == "delalleau":
                graph += ["--subset", "20"]
            runs.append(["loss", *graph, *rng_args])
            if not gaussian:
                continue
            runs.append(["condition", *graph, *rng_args])
            for solver in ("cg", "pcg", "exact", "inverse"):
                runs.append(["intervals", *graph, *rng_args, "--solver", solver, "--score"])
            runs.append(["intervals", *graph, *rng_args, "--certify", "--score"])
            paper = ["--sigma-min", "1", "--sigma-max", "1.2", "--mode", "paper"]
            runs.append(["intervals", *graph, *paper])
    runs.append(["loss", *large, "--family", "knn", "--k", "6", *rng_args])
    runs.append(["intervals", *large, "--family", "knn", "--k", "6", *rng_args])
    for family in ("complete", "knn"):  # the one-vs-all scores' kernels
        graph = [*three, "--family", family, "--k", "6", *rng_args]
        runs.append(["loss", *graph])
        for solver in ("cg", "pcg"):
            runs.append(["intervals", *graph, "--solver", solver, "--score"])
        runs.append(["intervals", *graph, "--certify"])
    drawn = [*"--dataset digits --n 60 --classes 0 1 --family knn --k 6".split(), *rng_args]
    runs.append(["regret", *drawn, "--rounds", "10", "--repeats", "2"])
    runs.append(["learn", *drawn, "--instances", "4", "--test-instances", "2", "--jobs", "1"])
    for args in runs:
        t0 = time.perf_counter()
        code = main([*args, "--out", str(out / "out.json")])
        print(f"{time.perf_counter() - t0:6.1f} s  {' '.join(args[:1] + args[5:])}", flush=True)
        if code:
            raise SystemExit(f"failed ({code}): sslviz {' '.join(args)}")


def build() -> None:
    from sslviz._kernels import CACHE_DIR, PORTABLE_CPUS

    CACHE_DIR.mkdir(exist_ok=True)
    for f in CACHE_DIR.iterdir():
        if f.suffix in (".nbi", ".nbc"):
            f.unlink()
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    for cpu in PORTABLE_CPUS:
        print(f"== kernels for {cpu}", flush=True)
        cpu_env = {**env, "NUMBA_CPU_NAME": cpu, "NUMBA_CPU_FEATURES": ""}
        subprocess.run([sys.executable, __file__, "--workload"], env=cpu_env, check=True)
    files = sorted(CACHE_DIR.glob("*.nb?"))
    size = sum(f.stat().st_size for f in files)
    print(f"{len(files)} files, {size / 1e6:.1f} MB in {CACHE_DIR}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--workload"]:
        with tempfile.TemporaryDirectory() as tmp:
            workload(Path(tmp))
    else:
        build()
