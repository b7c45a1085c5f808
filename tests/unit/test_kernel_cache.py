"""The compiled kernels' cache shipped with the package: current, complete, and
what a fresh process loads instead of compiling."""

import os
import pickle
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from sslviz import _kernels

ROOT = Path(__file__).resolve().parents[2]


def _index(name: str) -> tuple[str, str, dict]:
    """Numba's index of one kernel in the shipped cache: (Numba version, source stamp,
    overloads by key)."""
    from numba.core import caching

    py_func = _kernels._PYTHON[name][0]
    base = caching.CompileResultCacheImpl(py_func).filename_base
    with open(_kernels.CACHE_DIR / f"{base}.nbi", "rb") as f:
        version = pickle.load(f)
        stamp, overloads = pickle.loads(f.read())
    return version, stamp, overloads


def test_every_kernel_is_shipped_for_every_portable_cpu():
    """Rebuild with ``python scripts/build_kernel_cache.py`` after changing _kernels.py."""
    import numba

    _kernels._compile_all()
    stale = []
    for name in _kernels._PYTHON:
        try:
            version, stamp, overloads = _index(name)
        except FileNotFoundError:
            stale.append(f"{name}: not in the cache")
            continue
        cpus = {key[1][1] for key in overloads}  # key: (signature, magic tuple, hashes)
        if version != numba.__version__ or stamp != _kernels._source_stamp():
            stale.append(f"{name}: built for another Numba or another _kernels.py")
        elif not set(_kernels.PORTABLE_CPUS) <= cpus:
            stale.append(f"{name}: compiled for {sorted(cpus)} only")
    assert not stale, stale


def test_portable_cpu_is_one_the_cache_holds():
    cpu = _kernels.portable_cpu()
    if platform.machine().lower() in ("x86_64", "amd64"):
        assert cpu in _kernels.PORTABLE_CPUS
    else:
        assert cpu is None


@pytest.mark.skipif(
    _kernels.portable_cpu() is None, reason="kernels are shipped compiled for x86-64 only"
)
def test_a_fresh_process_loads_the_kernels_instead_of_compiling(tmp_path):
    """The first sweeps of a new process (complete and kNN, CG and exact) load every kernel
    from the shipped cache: nothing compiled, nothing written to it."""
    script = (
        "from sslviz.problem import build_problem\n"
        "from sslviz.specs import ProblemSpec, SweepSettings\n"
        "from sslviz.algorithm4 import sweep\n"
        "for family in ('complete', 'knn'):\n"
        "    p = build_problem(ProblemSpec(classes=(0, 1), n=60, family=family))\n"
        "    for solver in ('cg', 'exact'):\n"
        "        sweep(p.model, p.y_unlabeled, 1.0, 4.0, SweepSettings(solver=solver))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    before = {f: f.stat().st_mtime_ns for f in _kernels.CACHE_DIR.iterdir()}
    out = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={**env, "NUMBA_DEBUG_CACHE": "1"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    loaded = [line for line in out.splitlines() if "data loaded from" in line]
    assert loaded and all(str(_kernels.CACHE_DIR) in line for line in loaded), out
    assert "data saved to" not in out, out
    assert {f: f.stat().st_mtime_ns for f in _kernels.CACHE_DIR.iterdir()} == before
