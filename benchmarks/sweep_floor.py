"""The fast CG-20 sweep against its floor, and against an older tree in one run.

The instance of the paper's Table 1 is MNIST 0 vs 1, n = 100, |L| = 10, σ ∈ [1, 7]. MNIST is
not on this machine, so the sweep runs on what is: the embedded digits 0 vs 1 (its
stand-in) and Fashion-MNIST T-shirt vs Trouser, plus MNIST 0 vs 1 wherever torchvision finds
it. Complete and kNN-6 graphs, fast mode, CG-20 (Algorithm 4's default settings).

Each (tree, dataset, graph) runs in a fresh process, rounds interleaving the trees: one
sweep to load the kernels, then ``--reps`` timed sweeps (one thread; the median and the
smallest are reported; the bits of every sweep are compared across the trees).

The floor, from the sweep's own work counts (machine-independent) and this CPU:

- **flops**: 2 flops per multiply-add of the CG products (``matvecs`` × the nonzeros of
  L_UU) at 16 double flops per cycle (AVX2: two 4-wide FMA units) on one core at the
  clock of ``/proc/cpuinfo``: the search is sequential in σ, so one core;
- **bytes**: the matrix read once per product (8 bytes per nonzero, 16 on sparse storage
  with its column index) at 32 bytes per cycle from L2 (every matrix here fits in L2);
- **exponentials**: one libm ``exp`` per weight (each symmetric pair once) and σ, at the
  cost per call measured in the same process on the graph's own squared distances at σ = 2
  (NumPy's and the kernels' ``exp`` on an AVX2 CPU; the bits forbid a vectorised one).

Run: ``python benchmarks/sweep_floor.py [--old REV] [--rounds 3] [--reps 7]``; writes
``benchmarks/results/sweep_floor.{json,md}``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys

from _common import ROOT, available, last_json, machine, old_tree, write

PROCESS = r"""
import hashlib, json, sys, time
import numpy as np
from sslviz.algorithm4 import sweep
from sslviz.problem import build_problem
from sslviz.specs import ProblemSpec, SweepSettings
dataset, family, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
p = build_problem(ProblemSpec(dataset=dataset, classes=(0, 1), n=100, n_labeled=10,
                              family=family, k=6))
m = p.model
first = sweep(m, p.y_unlabeled, 1.0, 7.0, SweepSettings())
times = []
for _ in range(reps):
    t0 = time.perf_counter()
    s = sweep(m, p.y_unlabeled, 1.0, 7.0, SweepSettings())
    times.append(time.perf_counter() - t0)
bits = hashlib.sha256(repr([(i.lo, i.hi, i.loss) for i in s.intervals]).encode()).hexdigest()
# libm's exp per call, on this graph's own edges (a compiled loop: no interpreter in it)
import numba
@numba.njit(cache=False)
def exps(d, s2, reps):
    acc = 0.0
    for _ in range(reps):
        for x in d:
            acc += np.exp(-x / s2)
    return acc
S = m.graph.sqdist
d = (S if isinstance(S, np.ndarray) else S.data).ravel()
d = d[np.isfinite(d) & (d > 0)]
exps(d, 4.0, 1)
t0 = time.perf_counter()
exps(d, 4.0, 200)
ns_exp = (time.perf_counter() - t0) / (200 * d.size) * 1e9
edges = m._n_edges
print(json.dumps({
    "times": times, "intervals": len(s.intervals), "bits": bits,
    "evaluations": int(s.curve.evaluations.size), "solves": s.solves, "matvecs": s.matvecs,
    "nonzeros": int(m.graph_nonzeros), "dense": bool(isinstance(m._D2_UU, np.ndarray)),
    "weights": int(edges[0] // 2 + edges[1]),  # each symmetric pair's weight once
    "ns_per_exp": ns_exp,
}))
"""

DATASETS = ("digits", "fashion-mnist", "mnist")
FAMILIES = ("complete", "knn")


def run(tree, dataset: str, family: str, reps: int) -> dict:
    env = os.environ | {"PYTHONPATH": str(tree), "OMP_NUM_THREADS": "1"}
    env["OPENBLAS_NUM_THREADS"] = "1"
    if tree != ROOT:  # the old tree's kernels compile into their own cache
        env["NUMBA_CACHE_DIR"] = str(tree / ".numba_cache")
    return last_json([sys.executable, "-c", PROCESS, dataset, family, str(reps)], tree, env)


def clock_ghz() -> float:
    with open("/proc/cpuinfo") as f:
        mhz = [float(line.split(":")[1]) for line in f if line.startswith("cpu MHz")]
    return statistics.median(mhz) / 1e3


def floor_ms(r: dict, ghz: float) -> dict:
    """The three floors of a sweep, in ms (see the module docstring)."""
    madds = r["matvecs"] * r["nonzeros"]
    byte_per_nz = 8 if r["dense"] else 16
    exps = r["weights"] * r["evaluations"]
    return {
        "flop": 2 * madds / (16 * ghz * 1e9) * 1e3,
        "byte": madds * byte_per_nz / (32 * ghz * 1e9) * 1e3,
        "exp": exps * r["ns_per_exp"] * 1e-6,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", default="ebdcb13", help="the older tree's commit")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=7)
    a = ap.parse_args()
    trees = {"old": old_tree(a.old), "new": ROOT}
    sets = [d for d in DATASETS if available(d)]
    runs: dict[tuple, list[dict]] = {}
    for r in range(a.rounds):
        for dataset in sets:
            for family in FAMILIES:
                for name, tree in trees.items():
                    res = run(tree, dataset, family, a.reps)
                    runs.setdefault((dataset, family, name), []).append(res)
                    print(
                        f"round {r + 1}: {dataset:13s} {family:8s} {name}: median "
                        f"{1e3 * statistics.median(res['times']):.1f} ms",
                        flush=True,
                    )
    ghz = clock_ghz()
    rows = []
    for dataset in sets:
        for family in FAMILIES:
            old, new = runs[(dataset, family, "old")], runs[(dataset, family, "new")]
            t_old = [t for x in old for t in x["times"]]
            t_new = [t for x in new for t in x["times"]]
            same = {x["bits"] for x in old} == {x["bits"] for x in new} and len(
                {x["bits"] for x in new}
            ) == 1
            work = {**new[0], "ns_per_exp": statistics.median(x["ns_per_exp"] for x in new)}
            fl = floor_ms(work, ghz)
            rows.append(
                {
                    "dataset": dataset,
                    "family": family,
                    "old_ms": 1e3 * statistics.median(t_old),
                    "new_ms": 1e3 * statistics.median(t_new),
                    "new_min_ms": 1e3 * min(t_new),
                    "same_bits": same,
                    "floor_ms": fl,
                    **{k: work[k] for k in ("evaluations", "matvecs", "nonzeros", "weights")},
                    "ns_per_exp": work["ns_per_exp"],
                    "intervals": work["intervals"],
                }
            )
    lines = [
        "# The fast CG-20 sweep against its floor",
        "",
        f"Command: `python benchmarks/sweep_floor.py --old {a.old} --rounds {a.rounds} "
        f"--reps {a.reps}`. n = 100, |L| = 10, classes 0 vs 1, σ ∈ [1, 7], fast mode CG-20, "
        f"one thread; the median (and smallest) of {a.rounds} × {a.reps} sweeps per tree, in "
        f"processes that alternate. The floors assume {ghz:.2f} GHz (`/proc/cpuinfo`), one "
        "core (the search is sequential in σ), 16 flops and 32 bytes from L2 per cycle; the "
        "exponentials at libm's measured cost per call.",
        "",
        "| data | graph | old (ms) | new (ms) | old ÷ new | same bits | σ evaluated | "
        "products | nonzeros | flop floor (ms) | byte floor (ms) | exp floor (ms) | "
        "floor (ms) | new ÷ floor |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for x in rows:
        fl = x["floor_ms"]
        total = fl["exp"] + max(fl["flop"], fl["byte"])
        lines.append(
            f"| {x['dataset']} | {x['family']} | {x['old_ms']:.1f} | {x['new_ms']:.1f} "
            f"(min {x['new_min_ms']:.1f}) | {x['old_ms'] / x['new_ms']:.1f} | "
            f"{'yes' if x['same_bits'] else 'NO'} | {x['evaluations']} | {x['matvecs']} | "
            f"{x['nonzeros']} | {fl['flop']:.2f} | {fl['byte']:.2f} | {fl['exp']:.2f} "
            f"({x['ns_per_exp']:.1f} ns each) | {total:.1f} | {x['new_ms'] / total:.1f} |"
        )
    lines += [
        "",
        "The floor is the exponentials' plus the larger of the flop and byte floors "
        "(products limited by one of the two, the exponentials scalar calls beside them).",
        "",
        "What is left between the floor and the time. Complete graphs: the CG products go "
        "through BLAS `dgemv` one at a time (a call, an allocation and a pass over L_UU "
        "each; a solve's t products depend on one another and cannot be fused, and f's and "
        "f''s solves in one `dgemm` would round differently), the updates of x, r and p are "
        "element loops, and the search's own steps (split tests, root steps) run between "
        "the solves. kNN-6 (under 800 nonzeros): a σ is a few microseconds of arithmetic; "
        "each CSR row's sum is one chain of dependent additions in a fixed order (the bits), "
        "and the Python around the compiled search (assembling the curve from the stored σ) "
        "takes about a quarter of the sweep (cProfile of 5 Fashion-MNIST kNN-6 sweeps: "
        "36 of 60 ms in `cg_search`, 15 ms in `truth._assemble`).",
    ]
    payload = {
        "machine": machine(),
        "ghz": ghz,
        "old": a.old,
        "rows": rows,
        "runs": {"/".join(k): v for k, v in runs.items()},
        "sha": hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()[:12],
    }
    write("sweep_floor", payload, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
