"""Time the exact loss curve (`sslviz loss`): n ∈ {100, 300, 500, 2000}, complete and kNN-6.

    python benchmarks/loss_speed.py            # writes benchmarks/results/loss_speed.{json,md}

Fashion-MNIST T-shirt vs Trouser (digits 0 vs 1 when absent; digits has 360 such rows, so
larger n are skipped there), |L| = 10, PCA 45, σ ∈ [1, 7], harmonic labels. kNN here
excludes the point itself: k = 6 is the paper's public code's "k = 7". The complete graph
is run up to n = 500 (see COMPLETE_MAX).
"""

from __future__ import annotations

import time

from _common import fashion_or_digits, machine, write

from sslviz.problem import build_problem, loss_curve
from sslviz.specs import ProblemSpec

SIZES = (100, 300, 500, 2000)
# The complete graph at n = 2000 has on the order of a thousand breakpoints, each needing
# dense 2000 x 2000 LU solves (~0.2 s each here): it ran past 8 minutes and was stopped.
COMPLETE_MAX = 500


def main() -> None:
    dataset = fashion_or_digits()
    rows = []
    for family in ("knn", "complete"):
        for n in SIZES:
            if (dataset == "digits" and n > 360) or (family == "complete" and n > COMPLETE_MAX):
                continue
            spec = ProblemSpec(dataset=dataset, n=n, n_labeled=10, seed=0, family=family, k=6)
            t0 = time.perf_counter()
            problem = build_problem(spec)
            build = time.perf_counter() - t0
            curve = loss_curve(problem, 1.0, 7.0)
            rows.append(
                {
                    "family": family,
                    "n": n,
                    "build_seconds": build,
                    "curve_seconds": curve.seconds,
                    "breakpoints": int(curve.breakpoints.size),
                    "solves": curve.solves,
                    "evaluations": int(curve.evaluations.size),
                    "inconsistent": curve.inconsistent,
                    "best_accuracy": 1 - curve.best()[0],
                }
            )
            print(rows[-1], flush=True)
    md = [
        f"# Exact loss curve speed ({dataset}, |L| = 10, σ ∈ [1, 7])",
        "",
        "Command: `python benchmarks/loss_speed.py`",
        "",
        "| family | n | curve s | build s | breakpoints | solves | best acc. |",
        "|---|---|---|---|---|---|---|",
    ]
    md += [
        f"| {r['family']} | {r['n']} | {r['curve_seconds']:.2f} | {r['build_seconds']:.2f} "
        f"| {r['breakpoints']} | {r['solves']} | {r['best_accuracy']:.3f} |"
        for r in rows
    ]
    write(
        "loss_speed", {"dataset": dataset, "machine": machine(), "rows": rows}, "\n".join(md) + "\n"
    )


if __name__ == "__main__":
    main()
