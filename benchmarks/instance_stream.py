"""What a new instance stream costs per instance (the regret and learning
pages' changes of n, seed, σ range or classes compute every instance again): the exact loss
curve of each instance of the regret page's default stream, and the trust curve of
Delalleau's model on the conditioning page's default view, old tree against new in one
run, bits compared.

    python benchmarks/instance_stream.py [--old 7ff2b12] [--rounds 3]
    # writes benchmarks/results/instance_stream.{json,md}

Each tree runs in fresh processes (PYTHONPATH on it, one BLAS thread), rounds alternating:

- **exact curves**: the default view's spec (digits 2 vs 3, n = 100, |L| = 10, PCA 45,
  complete graph, harmonic labels) with round seeds 1..20, σ ∈ [0.58, 3.3] (the regret
  page's default range); the time of all 20 curves after one warm-up curve, and a hash of
  every breakpoint and loss;
- **Delalleau's trust**: :func:`sslviz.conditioning.trust_curve` of the same spec with
  Delalleau's labels (|Ũ| = 50) on 15 and 40 σ over that range, complete and kNN-6 graphs;
  its t needed, errors and wrong counts hashed.

Per tree the smallest time over the rounds (the machine is shared).
"""

from __future__ import annotations

import argparse
import os
import sys

from _common import ROOT, last_json, machine, old_tree, write

PROCESS = r"""
import dataclasses, hashlib, json, sys, time
import numpy as np
from sslviz.conditioning import trust_curve
from sslviz.problem import build_problem, loss_curve
from sslviz.specs import ProblemSpec
lo, hi = 0.58, 3.3
spec = ProblemSpec()
out = {}
problems = [build_problem(spec.with_seed(s)) for s in range(21)]
loss_curve(problems[0], lo, hi)
t0 = time.perf_counter()
curves = [loss_curve(p, lo, hi).loss for p in problems[1:]]
out["exact"] = time.perf_counter() - t0
out["exact bits"] = hashlib.sha256(
    b"".join(c.breakpoints.tobytes() + np.asarray(c.values).tobytes() for c in curves)
).hexdigest()[:16]
for family in ("complete", "knn"):
    m = build_problem(dataclasses.replace(spec, labeling="delalleau", family=family)).model
    for points in (15, 40):
        sig = np.linspace(lo, hi, points)
        trust_curve(m, sig[:2])
        t0 = time.perf_counter()
        tc = trust_curve(m, sig)
        out[f"trust {family} {points}"] = time.perf_counter() - t0
        out[f"trust {family} {points} bits"] = hashlib.sha256(
            tc.t_needed_cg.tobytes() + tc.t_needed_pcg.tobytes() + tc.error.tobytes()
            + tc.wrong.tobytes()
        ).hexdigest()[:16]
print(json.dumps(out))
"""


def run(tree) -> dict:
    env = os.environ | {"PYTHONPATH": str(tree), "OMP_NUM_THREADS": "1"}
    env["OPENBLAS_NUM_THREADS"] = "1"
    if tree != ROOT:  # the old tree's kernels compile into their own cache
        env["NUMBA_CACHE_DIR"] = str(tree / ".numba_cache")
    return last_json([sys.executable, "-W", "ignore", "-c", PROCESS], tree, env)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", default="7ff2b12", help="the older tree's commit")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    trees = {"old": old_tree(a.old), "new": ROOT}
    runs: dict[str, list[dict]] = {name: [] for name in trees}
    for r in range(a.rounds):
        for name, tree in trees.items():
            runs[name].append(run(tree))
            print(f"round {r + 1} {name}: {runs[name][-1]}", flush=True)
    timed = [k for k in runs["new"][0] if not k.endswith("bits")]
    best = {name: {k: min(x[k] for x in rs) for k in timed} for name, rs in runs.items()}
    same = {k: runs["old"][0][k] == runs["new"][0][k] for k in runs["new"][0] if k.endswith("bits")}
    rows = [
        "| what | old (s) | new (s) | old / new | same bits |",
        "|---|---|---|---|---|",
    ]
    for k in timed:
        o, n = best["old"][k], best["new"][k]
        label = "20 exact loss curves" if k == "exact" else f"Delalleau's {k} σ"
        rows.append(f"| {label} | {o:.3f} | {n:.3f} | {o / n:.2f}× | {same[k + ' bits']} |")
    md = "\n".join(
        [
            "# A new instance stream, per instance: exact curves and Delalleau's trust",
            "",
            f"`python benchmarks/instance_stream.py --old {a.old} --rounds {a.rounds}` (old = "
            f"{a.old}, new = the working tree); the smallest of {a.rounds} rounds, trees "
            f"alternating, fresh processes, one thread; {os.cpu_count()} CPUs. Digits 2 vs 3, "
            "n = 100, |L| = 10, PCA 45, σ ∈ [0.58, 3.3]: the exact curves of round seeds "
            "1..20 (complete graph); the trust curve of Delalleau's labels (|Ũ| = 50) on "
            "15 and 40 σ.",
            "",
            *rows,
            "",
        ]
    )
    write("instance_stream", {"machine": machine(), "old": a.old, "runs": runs}, md)


if __name__ == "__main__":
    main()
