"""Exact loss curves on complete graphs: the Chebyshev search against the Hermite search.

    python benchmarks/exact_complete.py                      # n = 500, 1000, 2000
    python benchmarks/exact_complete.py --sizes 2000 --old-max 0 --name exact_complete_new
    python benchmarks/exact_complete.py --scan   # 14 instances, digits and Fashion-MNIST

Fashion-MNIST T-shirt vs Trouser (the datasets offline here; MNIST 0 vs 1 where
torchvision has it: ``--dataset mnist``), |L| = 10, σ ∈ [1, 7], complete graph, harmonic
labels. For each n, in one run: the exact curve by the Chebyshev search (the default), then
by the Hermite grid search it replaced, on the model's own soft labels (the tests'
``reference.PythonSearch``), up to ``--old-max``; prints seconds, σ evaluations (each one
dense LU), breakpoints, the largest relative difference between the two sets of
breakpoints and whether the piece losses are equal. Writes
benchmarks/results/exact_complete.{json,md}.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
from _common import fashion_or_digits, machine, write

from sslviz._threads import WORKERS
from sslviz.problem import build_problem
from sslviz.specs import ProblemSpec
from sslviz.truth import true_loss_curve

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from reference import PythonSearch  # noqa: E402  (the tests' reference of the searches)


def run(problem, chebyshev: bool, sigma: tuple[float, float] = (1.0, 7.0)) -> dict:
    """The exact curve by the Chebyshev search (``chebyshev``) or by the Hermite search."""
    model = problem.model if chebyshev else PythonSearch(problem.model)
    t0, c0 = time.perf_counter(), time.process_time()
    curve = true_loss_curve(model, problem.y_unlabeled, *sigma)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {
        "curve": curve,
        "seconds": wall,
        "cpu_seconds": cpu,
        "evaluations": int(curve.evaluations.size),
        "factorizations": curve.factorizations,
        "breakpoints": int(curve.breakpoints.size),
        "inconsistent": curve.inconsistent,
        "complete": curve.complete,
    }


def compare(new, old) -> dict:
    """Whether two curves have the same breakpoints (count, largest relative difference;
    None when the counts differ) and the same piece losses."""
    same = new.breakpoints.size == old.breakpoints.size
    diff = np.abs(new.breakpoints - old.breakpoints) / old.breakpoints if same else None
    return {
        "same_count": same,
        "max_rel_diff": float(np.max(diff, initial=0.0)) if same else None,
        "losses_equal": same and bool(np.array_equal(new.loss.values, old.loss.values)),
    }


SCAN = [
    ("digits", (0, 1), 300),
    ("digits", (3, 8), 300),
    ("digits", (4, 9), 300),
    ("digits", (1, 7), 340),
    ("fashion-mnist", (2, 4), 400),
    ("fashion-mnist", (0, 6), 400),
    ("fashion-mnist", (5, 7), 250),
]


def scan() -> None:
    """Both searches on 14 instances at the app's suggested σ range (seeds 0 and 1)."""
    from sslviz.problem import suggest_sigma_range

    rows = []
    for dataset, classes, n in SCAN:
        for seed in (0, 1):
            spec = ProblemSpec(
                dataset=dataset, classes=classes, n=n, n_labeled=10, seed=seed, family="complete"
            )
            problem = build_problem(spec)
            lo, hi = suggest_sigma_range(problem)
            new, old = (run(problem, flag, (lo, hi)) for flag in (True, False))
            same = compare(new.pop("curve"), old.pop("curve"))
            rows.append(
                {
                    "dataset": dataset,
                    "classes": list(classes),
                    "n": n,
                    "seed": seed,
                    "sigma": [lo, hi],
                    "new": new,
                    "old": old,
                    **same,
                }
            )
            print(rows[-1], flush=True)
    md = [
        "# Exact curves on complete graphs: Chebyshev vs Hermite search at the suggested σ",
        "",
        "Command: `python benchmarks/exact_complete.py --scan`",
        "",
        f"Machine: {machine()}. |L| = 10, complete graph, σ range suggested by the data.",
        "",
        "| dataset | classes | n | seed | σ range | breakpoints (new / old) | max rel. diff "
        "| same losses | evaluations (new / old) | new s | old s |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    md += [
        f"| {r['dataset']} | {r['classes'][0]} v {r['classes'][1]} | {r['n']} | {r['seed']} "
        f"| [{r['sigma'][0]:.2f}, {r['sigma'][1]:.2f}] "
        f"| {r['new']['breakpoints']} / {r['old']['breakpoints']} "
        f"| {r['max_rel_diff'] if r['max_rel_diff'] is None else format(r['max_rel_diff'], '.1e')} "
        f"| {'yes' if r['losses_equal'] else 'NO'} "
        f"| {r['new']['evaluations']} / {r['old']['evaluations']} "
        f"| {r['new']['seconds']:.2f} | {r['old']['seconds']:.2f} |"
        for r in rows
    ]
    write("exact_complete_scan", {"machine": machine(), "rows": rows}, "\n".join(md) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[500, 1000, 2000])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dataset", default=None, help="default: fashion-mnist, else digits")
    ap.add_argument("--old-max", type=int, default=2000, help="largest n for the old method")
    ap.add_argument("--name", default="exact_complete", help="results file name")
    ap.add_argument("--scan", action="store_true", help="14 instances at the suggested σ")
    args = ap.parse_args()
    if args.scan:
        scan()
        return
    dataset = args.dataset or fashion_or_digits()
    rows = []
    for n in args.sizes:
        spec = ProblemSpec(dataset=dataset, n=n, n_labeled=10, seed=args.seed, family="complete")
        problem = build_problem(spec)
        new = run(problem, True)
        row = {"n": n, "new": {k: v for k, v in new.items() if k != "curve"}}
        if n <= args.old_max:
            old = run(problem, False)
            row["old"] = {k: v for k, v in old.items() if k != "curve"}
            row["ratio"] = old["seconds"] / new["seconds"]
            row.update(compare(new["curve"], old["curve"]))
        rows.append(row)
        print(row, flush=True)
    md = [
        f"# Exact loss curves on complete graphs ({dataset}, |L| = 10, σ ∈ [1, 7], "
        f"seed {args.seed})",
        "",
        f"Command: `python benchmarks/exact_complete.py --sizes {' '.join(map(str, args.sizes))}"
        f" --old-max {args.old_max}"
        + (f" --name {args.name}`" if args.name != "exact_complete" else "`"),
        "",
        f"Machine: {machine()}; {WORKERS} worker threads, one BLAS thread each "
        f"(load average at the end: {os.getloadavg()[0]:.1f}). New = Chebyshev search, "
        "old = the Hermite grid search it replaced, run right after on the same instance. "
        "An evaluation is one exact solve of every soft label at one σ (one dense "
        "factorisation: Cholesky in the new search, LU in the old).",
        "",
        "| n | new s | new evaluations | old s | old evaluations | old ÷ new | breakpoints "
        "| same breakpoints (max rel. diff) | same losses |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        o = r.get("old")
        md.append(
            f"| {r['n']} | {r['new']['seconds']:.2f} | {r['new']['evaluations']} "
            + (
                f"| {o['seconds']:.1f} | {o['evaluations']} | {r['ratio']:.1f}× "
                if o
                else "| – | – | – "
            )
            + f"| {r['new']['breakpoints']} "
            + (
                f"| {'yes' if r['same_count'] else 'NO'} ({r['max_rel_diff']:.1e}) "
                f"| {'yes' if r['losses_equal'] else 'NO'} |"
                if o and r["max_rel_diff"] is not None
                else "| – | – |"
            )
        )
    write(
        args.name,
        {"dataset": dataset, "seed": args.seed, "machine": machine(), "rows": rows},
        "\n".join(md) + "\n",
    )


if __name__ == "__main__":
    main()
