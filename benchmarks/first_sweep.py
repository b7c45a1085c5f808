"""The first sweep after a plain ``pip install``: the shipped kernel cache
against none, in one run.

Installs the package with ``pip install --no-deps --target DIR .`` (the wheel a user gets,
no install script, no warm-up), then times fresh processes on that install (cwd and
PYTHONPATH on DIR only, no ``NUMBA_CACHE_DIR``):

- **shipped cache**: the install as it is (``sslviz/_kernel_cache`` in the wheel);
- **no cache**: the same install with the cache's files deleted before every process, as a
  plain install was before the cache shipped: Numba compiles the kernels the sweep calls.

Each process builds one instance (digits 0 vs 1, n = 100, |L| = 10; the embedded stand-in
for Table 1's MNIST 0 vs 1), then times its first fast CG-20 sweep on σ ∈ [1, 7] and a
second, identical one (all kernels loaded: the difference is Numba's import and load).
Complete and kNN-6 graphs, separate processes; rounds interleave the two installs.

Run: ``python benchmarks/first_sweep.py [--rounds 3]``; writes
``benchmarks/results/first_sweep.{json,md}``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import ROOT, last_json, machine, write

PROCESS = """
import json, sys, time
t0 = time.perf_counter()
from sslviz.algorithm4 import sweep
from sslviz.problem import build_problem
from sslviz.specs import ProblemSpec, SweepSettings
p = build_problem(ProblemSpec(dataset="digits", classes=(0, 1), n=100, family=sys.argv[1]))
t1 = time.perf_counter()
first = sweep(p.model, p.y_unlabeled, 1.0, 7.0, SweepSettings())
t2 = time.perf_counter()
second = sweep(p.model, p.y_unlabeled, 1.0, 7.0, SweepSettings())
t3 = time.perf_counter()
assert [(i.lo, i.hi, i.loss) for i in first.intervals] == [
    (i.lo, i.hi, i.loss) for i in second.intervals
]
import sslviz
print(json.dumps({"import and instance": t1 - t0, "first sweep": t2 - t1,
                  "second sweep": t3 - t2, "intervals": len(first.intervals),
                  "package": sslviz.__file__}))
"""
FAMILIES = ("complete", "knn")


def install(target: Path) -> None:
    """``pip install`` of a copy of the package's files, tracked or new, as they are in this
    tree (setuptools would also pack whatever an earlier build left in its ``build/``)."""
    source = target.with_name(target.name + "_source")
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "--cached", "--others", "--exclude-standard"]
        + ["pyproject.toml", "README.md", "sslviz"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    for name in filter(lambda name: (ROOT / name).is_file(), listed):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target)]
        + [str(source)],
        check=True,
    )


def run(target: Path, family: str, cache: bool) -> dict:
    shipped = target / "sslviz" / "_kernel_cache"
    if not cache:
        for f in shipped.glob("*.nb?"):
            f.unlink()
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")}
    env["PYTHONPATH"] = str(target)
    result = last_json([sys.executable, "-c", PROCESS, family], target, env)
    assert result["package"].startswith(str(target)), result["package"]
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    rounds = ap.parse_args().rounds
    runs: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        with_cache, without = Path(tmp) / "shipped", Path(tmp) / "none"
        install(with_cache)
        install(without)
        files = sorted((with_cache / "sslviz" / "_kernel_cache").glob("*.nb?"))
        size_mb = sum(f.stat().st_size for f in files) / 1e6
        for r in range(rounds):
            for family in FAMILIES:
                for name, target, cache in (
                    ("shipped cache", with_cache, True),
                    ("no cache", without, False),
                ):
                    res = run(target, family, cache)
                    res["load_1min"] = round(os.getloadavg()[0], 2)
                    runs.setdefault(f"{family} / {name}", []).append(res)
                    print(
                        f"round {r + 1}: {family:8s} {name:13s} first sweep "
                        f"{res['first sweep']:.2f} s, second {res['second sweep']:.3f} s",
                        flush=True,
                    )
    med = {
        key: {k: statistics.median(x[k] for x in rs) for k in ("first sweep", "second sweep")}
        for key, rs in runs.items()
    }
    lines = [
        "# The first sweep after a plain `pip install`: shipped kernel cache against none",
        "",
        f"Command: `python benchmarks/first_sweep.py --rounds {rounds}`. "
        f"The wheel holds {len(files)} cache files, "
        f"{size_mb:.1f} MB (x86-64-v3 and generic). "
        "Digits 0 vs 1, n = 100, |L| = 10, fast CG-20 sweep on σ ∈ [1, 7]; each row a "
        "fresh process on a `pip install --no-deps --target` of this tree; median of "
        f"{rounds} rounds (every run in the JSON, with the load average).",
        "",
        "| graph | install | first sweep (s) | second sweep (s) | no cache ÷ shipped |",
        "|---|---|---|---|---|",
    ]
    for family in FAMILIES:
        a, b = med[f"{family} / shipped cache"], med[f"{family} / no cache"]
        ratio = b["first sweep"] / a["first sweep"]
        lines.append(
            f"| {family} | shipped cache | {a['first sweep']:.2f} | "
            f"{a['second sweep']:.3f} | {ratio:.1f}× |"
        )
        lines.append(
            f"| {family} | no cache | {b['first sweep']:.2f} | {b['second sweep']:.3f} | |"
        )
    lines += [
        "",
        "The first sweep's excess over the second is Numba's import and its loading of the "
        "kernels (shipped cache) or its compiling them (no cache).",
        "",
    ]
    write("first_sweep", {"machine": machine(), "rounds": rounds, "runs": runs}, "\n".join(lines))


if __name__ == "__main__":
    main()
