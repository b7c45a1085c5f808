"""Time per interval of Algorithm 4 in paper mode, by start σ0 (one feedback set each).

    python benchmarks/paper_mode_tpi.py   # writes benchmarks/results/paper_mode_tpi.{json,md}

Fashion-MNIST T-shirt vs Trouser (digits 0 vs 1 when absent), n = 500, |L| = 10, kNN-6,
CG-20, ε = 1e-4, η = 1, range [1, 7]. Table 1's paper-mode rows stop at a time budget and
so only see the first intervals; this shows how the cost grows with σ0.
"""

from __future__ import annotations

import time

from _common import fashion_or_digits, machine, write

from sslviz.intervals import SweepSettings, feedback_set
from sslviz.problem import ProblemSpec, build_problem

STARTS = (1.5, 2.0, 3.0, 4.5, 6.0)


def main() -> None:
    dataset = fashion_or_digits()
    n = 500 if dataset != "digits" else 300
    p = build_problem(ProblemSpec(dataset=dataset, n=n, n_labeled=10, family="knn", k=6))
    s = SweepSettings(solver="cg", cg_iters=20, mode="paper")
    rows = []
    for x in STARTS:
        t0 = time.perf_counter()
        iv = feedback_set(p.model, p.y_unlabeled, x, 1.0, 7.0, s)
        rows.append(
            {
                "sigma0": x,
                "seconds": time.perf_counter() - t0,
                "lo": iv.lo,
                "hi": iv.hi,
                "solves": iv.solves,
                "matvecs": iv.matvecs,
            }
        )
        print(rows[-1], flush=True)
    md = [
        f"# Paper-mode time per interval by σ0 ({dataset}, n = {n}, kNN-6, CG-20)",
        "",
        "Command: `python benchmarks/paper_mode_tpi.py`",
        "",
        "| σ0 | seconds | interval | solves |",
        "|---|---|---|---|",
    ]
    md += [
        f"| {r['sigma0']} | {r['seconds']:.2f} | [{r['lo']:.4f}, {r['hi']:.4f}] | {r['solves']} |"
        for r in rows
    ]
    write(
        "paper_mode_tpi",
        {"dataset": dataset, "n": n, "machine": machine(), "rows": rows},
        "\n".join(md) + "\n",
    )


if __name__ == "__main__":
    main()
