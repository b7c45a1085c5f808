"""Time per interval (TpI) of Algorithm 4 in paper mode: whole sweeps and single starts.

    python benchmarks/paper_mode_tpi.py   # writes benchmarks/results/paper_mode_tpi.{json,md}

Fashion-MNIST T-shirt vs Trouser (digits 0 vs 1 when absent), n = 500, |L| = 10, kNN-6,
CG-20, ε = 1e-4, η = 1, step 0.05, range [1, 7] — the issue's target setting. TpI is
Table 1's: a sweep's seconds over its number of intervals. Each run is compared, in the
same process, with the nodes iterated one at a time (one solve per call, the paper's
loop): the intervals must be identical, and the ratio of times is reported.
"""

from __future__ import annotations

from _common import fashion_or_digits, machine, write

import sslviz.algorithm4 as algorithm4
from sslviz.algorithm4 import feedback_set, sweep
from sslviz.problem import build_problem
from sslviz.specs import ProblemSpec, SweepSettings

STARTS = (1.0, 1.5, 2.0, 3.0, 4.5, 6.0)
SEEDS = (0, 1, 2)


def node_by_node(fn, *args):
    """Run ``fn`` with Algorithm 4's nodes one at a time (window 1: no batched solves)."""
    window = algorithm4._WINDOW
    algorithm4._WINDOW = 1
    try:
        return fn(*args)
    finally:
        algorithm4._WINDOW = window


def main() -> None:
    dataset = fashion_or_digits()
    n = 500 if dataset != "digits" else 300
    s = SweepSettings(solver="cg", cg_iters=20, mode="paper")
    sweeps = []
    for seed in SEEDS:
        spec = ProblemSpec(dataset=dataset, n=n, n_labeled=10, family="knn", k=6, seed=seed)
        p = build_problem(spec)
        sw = sweep(p.model, p.y_unlabeled, 1.0, 7.0, s)
        row = {
            "seed": seed,
            "M": len(sw.intervals),
            "seconds": sw.seconds,
            "tpi": sw.time_per_interval,
            "slowest_interval": max(iv.seconds for iv in sw.intervals),
            "solves": sw.solves,
        }
        if seed == SEEDS[0]:
            base = node_by_node(sweep, p.model, p.y_unlabeled, 1.0, 7.0, s)
            row["node_by_node_seconds"] = base.seconds
            row["same_intervals"] = [(a.lo, a.hi) for a in sw.intervals] == [
                (b.lo, b.hi) for b in base.intervals
            ]
        sweeps.append(row)
        print(row, flush=True)
    p = build_problem(ProblemSpec(dataset=dataset, n=n, n_labeled=10, family="knn", k=6))
    starts = []
    for x in STARTS:
        iv = feedback_set(p.model, p.y_unlabeled, x, 1.0, 7.0, s)
        ref = node_by_node(feedback_set, p.model, p.y_unlabeled, x, 1.0, 7.0, s)
        starts.append(
            {
                "sigma0": x,
                "seconds": iv.seconds,
                "node_by_node_seconds": ref.seconds,
                "lo": iv.lo,
                "hi": iv.hi,
                "same": (iv.lo, iv.hi) == (ref.lo, ref.hi),
                "solves": iv.solves,
                "node_by_node_solves": ref.solves,
            }
        )
        print(starts[-1], flush=True)
    md = [
        f"# Paper-mode time per interval ({dataset}, n = {n}, |L| = 10, kNN-6, CG-20, σ ∈ [1, 7])",
        "",
        "Command: `python benchmarks/paper_mode_tpi.py`",
        "",
        "Whole sweeps (TpI = sweep seconds / M). 'node by node' runs the same Algorithm 4",
        "with one solve per call, as the paper's loop does; its intervals are identical.",
        "",
        "| seed | M | sweep s | TpI s | slowest interval s | solves | node by node s | speed-up |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in sweeps:
        nb = r.get("node_by_node_seconds")
        md.append(
            f"| {r['seed']} | {r['M']} | {r['seconds']:.2f} | {r['tpi']:.3f} | "
            f"{r['slowest_interval']:.2f} | {r['solves']} | "
            + (f"{nb:.2f} | {nb / r['seconds']:.1f}× |" if nb else "– | – |")
        )
    md += [
        "",
        "One feedback set per start σ0 (seed 0):",
        "",
        "| σ0 | interval | seconds | node by node s | speed-up | solves (node by node) |",
        "|---|---|---|---|---|---|",
    ]
    md += [
        f"| {r['sigma0']} | [{r['lo']:.4f}, {r['hi']:.4f}] | {r['seconds']:.2f} | "
        f"{r['node_by_node_seconds']:.2f} | {r['node_by_node_seconds'] / r['seconds']:.1f}× | "
        f"{r['solves']} ({r['node_by_node_solves']}) |"
        for r in starts
    ]
    write(
        "paper_mode_tpi",
        {"dataset": dataset, "n": n, "machine": machine(), "sweeps": sweeps, "starts": starts},
        "\n".join(md) + "\n",
    )


if __name__ == "__main__":
    main()
