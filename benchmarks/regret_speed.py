"""Time the online Exp3-Set experiment: digits 3 vs 8 (0 vs 1 is separable at every σ),
n = 100, |L| = 10, kNN-6, CG-20,
T = 100 rounds, R = 5 repetitions, all four feedback models, local joblib workers.

    python benchmarks/regret_speed.py    # writes benchmarks/results/regret.{json,md}
"""

from __future__ import annotations

import time

from _common import machine, write

from sslviz import export
from sslviz.experiment import regret_experiment
from sslviz.problem import GraphRounds
from sslviz.specs import ProblemSpec, SweepSettings


def main() -> None:
    spec = ProblemSpec(dataset="digits", classes=(3, 8), n=100, n_labeled=10, family="knn", k=6)
    provider = GraphRounds(spec, 0.5, 5.0, SweepSettings(solver="cg", cg_iters=20))
    t0 = time.perf_counter()
    exp = regret_experiment(provider, rounds=100, repeats=5, n_jobs=-1)
    wall = time.perf_counter() - t0
    d = export.to_dict(exp)
    md = [
        "# Online regret experiment (digits 3 vs 8, n = 100, |L| = 10, kNN-6, CG-20, "
        "σ ∈ [0.5, 5], T = 100, R = 5)",
        "",
        "Command: `python benchmarks/regret_speed.py`",
        "",
        f"Wall time, all four models, {machine()['cpus']} local cores: **{wall:.1f} s**.",
        "",
        "| model | R_T mean | 95% band | R_T/T | best σ range (rep. 0) |",
        "|---|---|---|---|---|",
    ]
    for name, m in d["models"].items():
        md.append(
            f"| {name} | {m['regret_mean'][-1]:.2f} | [{m['regret_low'][-1]:.2f}, "
            f"{m['regret_high'][-1]:.2f}] | {m['regret_mean'][-1] / 100:.3f} | "
            f"[{m['best_sigma'][0]:.3f}, {m['best_sigma'][1]:.3f}] |"
        )
    md.append(f"\nλ = {d['lr']:.4f} (Theorem 3.1, M = {d['M']:.1f} measured).")
    write(
        "regret",
        {"machine": machine(), "wall_seconds": wall, "experiment": d},
        "\n".join(md) + "\n",
    )


if __name__ == "__main__":
    main()
