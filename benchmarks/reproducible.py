"""One BLAS thread vs two inside computations: time and bits.

Runs the app's default views (exact loss curve, CG-20 fast sweep, conditioning curve) in
fresh processes with ``SSLVIZ_THREADS=1`` and ``SSLVIZ_THREADS=2``, alternating, and
reports for each the minimum wall time over ``--reps`` runs, the ratio, and whether the
results are identical to the bit (SHA-256 of the result arrays) within a thread count and
across the two. Also runs two copies at once (two users on a 2-core server).

Run: ``python benchmarks/reproducible.py [--reps 3]``; writes
``benchmarks/results/reproducible.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from _common import machine, write

CHILD = r"""
import hashlib, json, time
import numpy as np
from sslviz.conditioning import condition_curve
from sslviz.intervals import sweep
from sslviz.problem import build_problem, loss_curve, suggest_sigma_range
from sslviz.specs import ProblemSpec, SweepSettings
spec = ProblemSpec(**json.loads(SPEC))
p = build_problem(spec)
lo, hi = suggest_sigma_range(p)
t0 = time.perf_counter()
curve = loss_curve(p, lo, hi)
res = sweep(p.model, p.y_unlabeled, lo, hi, SweepSettings())
cond = condition_curve(p.model, np.linspace(lo, hi, 13))
seconds = time.perf_counter() - t0
h = hashlib.sha256()
for a in (curve.breakpoints, [(iv.lo, iv.hi, iv.loss) for iv in res.intervals],
          cond.kappa, cond.iterations_needed, cond.cg_error):
    h.update(np.asarray(a, float).tobytes())
print(json.dumps({"seconds": seconds, "sha": h.hexdigest()[:16]}))
"""

CASES = {
    "default (digits 2 v 3, n = 100, complete)": {},
    "digits 3 v 8, n = 350, complete": {"classes": [3, 8], "n": 350, "n_labeled": 20},
    "digits 3 v 8, n = 350, kNN-6": {"classes": [3, 8], "n": 350, "n_labeled": 20, "family": "knn"},
}


def child(spec: dict, threads: int, copies: int = 1) -> list[dict]:
    env = os.environ | {"SSLVIZ_THREADS": str(threads)}
    code = CHILD.replace("SPEC", repr(json.dumps(spec)))
    procs = [
        subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(copies)
    ]
    return [json.loads(p.communicate(timeout=900)[0].strip().splitlines()[-1]) for p in procs]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    rows = []
    for name, spec in CASES.items():
        runs: dict[int, list[dict]] = {1: [], 2: []}
        pair: dict[int, list[dict]] = {}
        for _ in range(args.reps):
            for th in (1, 2):
                runs[th] += child(spec, th)
        t0 = time.perf_counter()
        for th in (1, 2):
            pair[th] = child(spec, th, copies=2)
        row = {
            "case": name,
            "min_s_1": min(r["seconds"] for r in runs[1]),
            "min_s_2": min(r["seconds"] for r in runs[2]),
            "pair_max_s_1": max(r["seconds"] for r in pair[1]),
            "pair_max_s_2": max(r["seconds"] for r in pair[2]),
            "bits_same_within_1": len({r["sha"] for r in runs[1] + pair[1]}) == 1,
            "bits_same_within_2": len({r["sha"] for r in runs[2] + pair[2]}) == 1,
            "bits_same_1_vs_2": runs[1][0]["sha"] == runs[2][0]["sha"],
            "wall_s": round(time.perf_counter() - t0, 1),
        }
        row["ratio_2_over_1"] = row["min_s_2"] / row["min_s_1"]
        rows.append(row)
        print(row, flush=True)
    md = [
        "# One BLAS thread vs two (`python benchmarks/reproducible.py`)",
        "",
        f"Minimum of {args.reps} fresh processes each; 'two at once' = two processes "
        "started together (two users), slowest of the two. Machine: " + json.dumps(machine()),
        "",
        "| case | 1 thread (s) | 2 threads (s) | 2 ÷ 1 | two at once, 1 thread | two at once, "
        "2 threads | same bits (1 / 2 / 1 vs 2) |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        yn = lambda b: "yes" if b else "NO"  # noqa: E731
        md.append(
            f"| {r['case']} | {r['min_s_1']:.3f} | {r['min_s_2']:.3f} | "
            f"{r['ratio_2_over_1']:.2f} | {r['pair_max_s_1']:.3f} | {r['pair_max_s_2']:.3f} "
            f"| {yn(r['bits_same_within_1'])} / {yn(r['bits_same_within_2'])} / "
            f"{yn(r['bits_same_1_vs_2'])} |"
        )
    write("reproducible", {"machine": machine(), "rows": rows}, "\n".join(md) + "\n")


if __name__ == "__main__":
    main()
