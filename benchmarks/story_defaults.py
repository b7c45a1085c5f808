"""Choose the app's default view by measurement: scan candidate instances on the
embedded digits and report, for each, what the first view of the loss page would show.

The default must tell the paper's story offline and fast: the exact loss l(σ) has at least
10 breakpoints, the CG-20 estimate (fast mode, the default) misses some of them, and the
whole loss page (exact curve, sweep, scoring with attribution, trust panel) computes in
under 3 s. The σ range of a candidate is the one the app suggests for its data (the app
moves there when the data change), so the default needs no range of its own.

For the candidates that pass, the regret page's default run (RegretSettings' rounds and
repeats, four feedback models) is timed, and it is reported whether the learners differ
and beat the uniform baseline.

Run: ``python benchmarks/story_defaults.py [--quick]``; writes
``benchmarks/results/story_defaults.{json,md}``.
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
from _common import machine, write

from sslviz import specs
from sslviz.conditioning import trust_curve
from sslviz.intervals import score, sweep
from sslviz.problem import build_problem, loss_curve, run_regret, suggest_sigma_range
from sslviz.specs import ProblemSpec, RegretSettings, SweepSettings

PAIRS = [(3, 8), (1, 7), (4, 9), (5, 8), (2, 3), (7, 9), (1, 8), (3, 5)]
SIZES = [100, 150, 200]
LABELED = [10, 20]
GRAPHS = [("knn", 6), ("knn", 10), ("complete", 6)]


def loss_page(spec: ProblemSpec) -> dict:
    """What the loss page computes for ``spec`` at its suggested range, timed."""
    t0 = time.perf_counter()
    p = build_problem(spec)
    lo, hi = suggest_sigma_range(p)
    settings = SweepSettings()
    truth = loss_curve(p, lo, hi)
    res = sweep(p.model, p.y_unlabeled, lo, hi, settings)
    sc = score(res, truth, model=p.model)
    grid = np.linspace(lo, hi, specs.default(specs.ConditionSettings, "points"))
    trust_curve(p.model, grid, solver=settings.solver, cg_iters=settings.cg_iters)
    seconds = time.perf_counter() - t0
    values = truth.loss.values
    return {
        "classes": list(spec.classes),
        "n": spec.n,
        "labeled": spec.n_labeled,
        "family": spec.family,
        "k": spec.k,
        "sigma": [lo, hi],
        "breakpoints": len(truth.breakpoints),
        "missed": sc.missed,
        "spurious": sc.spurious,
        "loss_range": [float(np.nanmin(values)), float(np.nanmax(values))],
        "causes": sc.cause_counts(),
        "seconds": round(seconds, 2),
    }


def regret_run(spec: ProblemSpec, lo: float, hi: float) -> dict:
    """The regret page's default run for ``spec``: final mean regret per model, timed."""
    regret = RegretSettings(jobs=1)
    t0 = time.perf_counter()
    exp = run_regret(spec, (lo, hi), SweepSettings(), regret, n_jobs=1)
    final = {m: float(r.regret_mean[-1]) for m, r in exp.models.items()}
    learners = {m: v for m, v in final.items() if m != "uniform"}
    return {
        "rounds": regret.rounds,
        "repeats": regret.repeats,
        "final_regret": final,
        "learners_differ": len(set(np.round(list(learners.values()), 12))) > 1,
        "beat_uniform": all(v < final["uniform"] for v in learners.values()),
        "seconds": round(time.perf_counter() - t0, 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a few candidates only")
    ap.add_argument(
        "--regret-top",
        type=int,
        default=6,
        help="time the regret run for this many passing candidates",
    )
    args = ap.parse_args()
    pairs, sizes = (PAIRS[:3], SIZES[:2]) if args.quick else (PAIRS, SIZES)
    rows = []
    for pair, n, n_l, (family, k) in itertools.product(pairs, sizes, LABELED, GRAPHS):
        spec = ProblemSpec(dataset="digits", classes=pair, n=n, n_labeled=n_l, family=family, k=k)
        row = loss_page(spec)
        row["passes"] = row["breakpoints"] >= 10 and row["missed"] >= 1 and row["seconds"] < 3
        rows.append(row)
        print(row, flush=True)
    passing = sorted((r for r in rows if r["passes"]), key=lambda r: (r["seconds"], -r["missed"]))
    default = ProblemSpec()  # the app's default instance: always timed
    chosen = passing[: args.regret_top] + [
        r
        for r in passing[args.regret_top :]
        if (tuple(r["classes"]), r["n"], r["labeled"], r["family"], r["k"])
        == (default.classes, default.n, default.n_labeled, default.family, default.k)
    ]
    for row in chosen:
        spec = ProblemSpec(
            dataset="digits",
            classes=tuple(row["classes"]),
            n=row["n"],
            n_labeled=row["labeled"],
            family=row["family"],
            k=row["k"],
        )
        row["regret"] = regret_run(spec, *row["sigma"])
        print(
            "regret",
            row["classes"],
            row["n"],
            row["labeled"],
            row["family"],
            row["regret"],
            flush=True,
        )
    md = [
        "# Default view scan",
        "",
        "`python benchmarks/story_defaults.py` — digits, suggested σ range, CG-20 fast mode; "
        "seconds = the loss page's work (exact curve, sweep, scoring with attribution, trust "
        "panel) from a cold instance build. Passes: ≥ 10 breakpoints, ≥ 1 missed, < 3 s.",
        "",
        "| classes | n | L | graph | σ range | breakpoints | missed | spurious | s | passes "
        "| regret (T×R) final mean per model | regret s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        g = f"{r['family']}" + (f"-{r['k']}" if r["family"] != "complete" else "")
        reg = r.get("regret")
        reg_txt = (
            "" if reg is None else ", ".join(f"{m} {v:.3f}" for m, v in reg["final_regret"].items())
        )
        md.append(
            f"| {r['classes'][0]} v {r['classes'][1]} | {r['n']} | {r['labeled']} | {g} | "
            f"[{r['sigma'][0]:g}, {r['sigma'][1]:g}] | {r['breakpoints']} | {r['missed']} | "
            f"{r['spurious']} | {r['seconds']:.2f} | {'yes' if r['passes'] else ''} | {reg_txt} "
            f"| {'' if reg is None else reg['seconds']} |"
        )
    md += ["", f"Machine: {machine()}", ""]
    write("story_defaults", {"machine": machine(), "rows": rows}, "\n".join(md))


if __name__ == "__main__":
    main()
