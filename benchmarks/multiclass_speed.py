"""Time the multi-class exact curve and the fast CG-20 sweep against binary problems on the
same points, with a profile of where the 10-class exact curve's σ and time go.

    python benchmarks/multiclass_speed.py      # writes results/multiclass_speed.{json,md}

Digits, all 10 classes, n = 300, |L| = 30 (stratified), complete graph, PCA 45, harmonic
labels, σ ∈ [2, 8]. "Binary on the same points": the same model (graph, labeled set)
relabeled even digit against odd (``HarmonicModel.relabeled``), and the 2 vs 3 instance of
the same size (a different pool). Every configuration runs once to load the kernels, then
``REPEATS`` times; the medians are reported, all in one process, so the ratios compare
like with like on the shared machine.

The profile counts, for the 10-class curve, the σ the search evaluated by phase (starting
grid, Hermite splits, root refinement, Chebyshev cells), the solves per σ, the seconds in
the one-vs-all solves against the rest (the search's per-pair work and Python), and the
pairs (node, rival class) the gap search carries. The search before this branch (the
Hermite grid search) is the same code with the Chebyshev search switched off
(``crossings._CHEB_MIN_UNLABELED`` raised), so both run in this one process.
"""

from __future__ import annotations

import os
import statistics
import time
from contextlib import contextmanager

import numpy as np
from _common import machine, write

from sslviz import algorithm4, crossings, oracle, truth
from sslviz.problem import build_problem, loss_curve
from sslviz.specs import ProblemSpec, SweepSettings

LO, HI = 2.0, 8.0
REPEATS = 3
SPEC = dict(dataset="digits", n=300, n_labeled=30, seed=0, family="complete")


class _Profiled(oracle.GapOracle):
    """The gap oracle with the seconds of its solves and the phase of every σ recorded."""

    phase = "grid"
    log: list = []

    def labels_many(self, sigmas):
        t0 = time.perf_counter()
        out = super().labels_many(sigmas)
        _Profiled.log.append((_Profiled.phase, len(out), time.perf_counter() - t0))
        return out


@contextmanager
def _profiling():
    """Route the multi-class curve through :class:`_Profiled`, phases set by the search's
    functions (refinement, Chebyshev cells, splits after the starting grid)."""
    saved = (truth.GapOracle, truth.refine_roots, crossings._chebyshev_cells, truth.needs_split)
    _Profiled.log = []
    _Profiled.phase = "grid"

    def phased(name, func):
        def run(*args, **kwargs):
            before, _Profiled.phase = _Profiled.phase, name
            try:
                return func(*args, **kwargs)
            finally:
                _Profiled.phase = before

        return run

    def split(*args, **kwargs):
        _Profiled.phase = "split"  # every σ after the first test of a cell is a split's
        return saved[3](*args, **kwargs)

    truth.GapOracle = _Profiled
    truth.refine_roots = phased("refine", saved[1])
    crossings._chebyshev_cells = phased("chebyshev", saved[2])
    truth.needs_split = split
    try:
        yield _Profiled.log
    finally:
        truth.GapOracle, truth.refine_roots, crossings._chebyshev_cells, truth.needs_split = saved


@contextmanager
def _hermite_only():
    saved = crossings._CHEB_MIN_UNLABELED, crossings._CHEB_MIN_UNLABELED_SPARSE
    crossings._CHEB_MIN_UNLABELED = crossings._CHEB_MIN_UNLABELED_SPARSE = 10**9
    try:
        yield
    finally:
        crossings._CHEB_MIN_UNLABELED, crossings._CHEB_MIN_UNLABELED_SPARSE = saved


def _median_time(run, repeats=REPEATS):
    run()  # kernels loaded, caches warm
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def profile(problem) -> dict:
    """Where the 10-class exact curve's σ and seconds go (one run, instrumented)."""
    with _profiling() as log:
        t0 = time.perf_counter()
        curve = loss_curve(problem, LO, HI)
        total = time.perf_counter() - t0
    by_phase: dict = {}
    for phase, count, secs in log:
        p = by_phase.setdefault(phase, {"sigma": 0, "calls": 0, "seconds": 0.0})
        p["sigma"] += count
        p["calls"] += 1
        p["seconds"] += secs
    solve_s = sum(s for _, _, s in log)
    n_u = problem.model.n_unlabeled
    C = problem.instance.n_classes
    return {
        "seconds": total,
        "sigma_evaluated": int(curve.evaluations.size),
        "breakpoints": int(curve.breakpoints.size),
        "solves": curve.solves,
        "solves_per_sigma": curve.solves / max(curve.evaluations.size, 1),
        "factorizations": curve.factorizations,
        "solve_seconds": solve_s,
        "seconds_per_sigma": solve_s / max(curve.evaluations.size, 1),
        "search_seconds": total - solve_s,
        "pairs": n_u * (C - 1),
        "unlabeled": n_u,
        "by_phase": by_phase,
    }


def _exact_row(secs: float, curve) -> dict:
    return {
        "seconds": secs,
        "breakpoints": int(curve.breakpoints.size),
        "sigma_evaluated": int(curve.evaluations.size),
        "solves": curve.solves,
        "seconds_per_breakpoint": secs / max(curve.breakpoints.size, 1),
        "inconsistent": curve.inconsistent,
    }


def _binary(problem):
    """The same model relabeled even digit (0) against odd (1), and its unlabeled labels."""
    y = problem.instance.y % 2
    return problem.model.relabeled(y.astype(float)), y[problem.model.unlabeled_idx]


def main() -> None:
    load_before = os.getloadavg()[0]
    ten = build_problem(ProblemSpec(classes=tuple(range(10)), **SPEC))
    two_three = build_problem(ProblemSpec(classes=(2, 3), **SPEC))
    model_b, y_b = _binary(ten)
    m10, y10 = ten.model, ten.instance.y
    classes = ten.instance.classes
    cg = SweepSettings(solver="cg", cg_iters=20, mode="fast")

    runs = {
        "10 classes": lambda: loss_curve(ten, LO, HI),
        "even vs odd (same points)": lambda: truth.true_loss_curve(model_b, y_b, LO, HI),
        "2 vs 3 (n = 300)": lambda: loss_curve(two_three, LO, HI),
    }
    exact = {}
    for name, run in runs.items():
        secs, curve = _median_time(run)
        exact[name] = _exact_row(secs, curve)
        print(name, exact[name], flush=True)
    with _hermite_only():
        secs, curve = _median_time(runs["10 classes"], repeats=1)
    exact["10 classes, Hermite search (before)"] = _exact_row(secs, curve)
    print(exact["10 classes, Hermite search (before)"], flush=True)
    hermite_bp = curve.breakpoints
    new_bp = runs["10 classes"]().breakpoints
    same_count = hermite_bp.size == new_bp.size
    agreement = (
        float(np.max(np.abs(hermite_bp - new_bp) / new_bp)) if same_count and new_bp.size else None
    )

    prof = profile(ten)
    with _hermite_only():
        prof_before = profile(ten)
    print("profile", prof, "\nbefore", prof_before, flush=True)

    sweeps = {}
    sweep_runs = {
        "10 classes": lambda: algorithm4.sweep_classes(m10, y10, classes, LO, HI, cg),
        "even vs odd (same points)": lambda: algorithm4.sweep(model_b, y_b, LO, HI, cg),
    }
    for name, run in sweep_runs.items():
        secs, sw = _median_time(run)
        sweeps[name] = {
            "seconds": secs,
            "intervals": len(sw.intervals),
            "solves": sw.solves,
            "matvecs": sw.matvecs,
        }
        print("sweep", name, sweeps[name], flush=True)

    e10, eb = exact["10 classes"], exact["even vs odd (same points)"]
    ratios = {
        "exact_per_breakpoint_10_vs_binary": e10["seconds_per_breakpoint"]
        / eb["seconds_per_breakpoint"],
        "sweep_10_vs_binary": sweeps["10 classes"]["seconds"]
        / sweeps["even vs odd (same points)"]["seconds"],
    }
    payload = {
        "machine": machine(),
        "load_average": [load_before, os.getloadavg()[0]],
        "sigma_range": [LO, HI],
        "exact": exact,
        "hermite_vs_new_max_relative_breakpoint_difference": agreement,
        "profile": prof,
        "profile_before": prof_before,
        "sweeps": sweeps,
        "ratios": ratios,
    }
    write("multiclass_speed", payload, _markdown(payload))


def _phase_rows(prof: dict) -> list[str]:
    return [
        f"| {name} | {p['sigma']} | {p['calls']} | {p['seconds']:.2f} |"
        for name, p in prof["by_phase"].items()
    ]


def _profile_md(title: str, prof: dict) -> list[str]:
    return [
        f"### {title}",
        "",
        f"{prof['seconds']:.2f} s; {prof['sigma_evaluated']} σ evaluated, "
        f"{prof['breakpoints']} breakpoints; {prof['solves']} solves "
        f"({prof['solves_per_sigma']:.0f} per σ: F and ∂F/∂σ for each class), "
        f"{prof['factorizations']} factorisations; {prof['solve_seconds']:.2f} s in the "
        f"one-vs-all solves ({1000 * prof['seconds_per_sigma']:.1f} ms per σ), "
        f"{prof['search_seconds']:.2f} s in the search itself (split tests, root proposals "
        f"and steps over {prof['pairs']} pairs (node, rival class), assembly, Python).",
        "",
        "| phase | σ evaluated | calls | solve seconds |",
        "|---|---|---|---|",
        *_phase_rows(prof),
        "",
    ]


def _markdown(p: dict) -> str:
    md = [
        "# Multi-class speed: 10 digits against binary problems on the same points",
        "",
        "Command: `python benchmarks/multiclass_speed.py` (medians of "
        f"{REPEATS} after a warm-up run, one process, 2 shared cores). Digits, n = 300, "
        f"|L| = 30, complete, PCA 45, σ ∈ [{LO:g}, {HI:g}]. Load average (1 min) "
        f"{p['load_average'][0]:.1f} at the start, {p['load_average'][1]:.1f} at the end.",
        "",
        "## Exact curve",
        "",
        "| problem | seconds | breakpoints | σ evaluated | solves | s per breakpoint | "
        "inconsistent |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, e in p["exact"].items():
        md.append(
            f"| {name} | {e['seconds']:.2f} | {e['breakpoints']} | {e['sigma_evaluated']} | "
            f"{e['solves']} | {1000 * e['seconds_per_breakpoint']:.1f} ms | "
            f"{e['inconsistent']} |"
        )
    r = p["ratios"]
    agree = p["hermite_vs_new_max_relative_breakpoint_difference"]
    md += [
        "",
        f"Cost per breakpoint, 10 classes ÷ even vs odd: "
        f"**{r['exact_per_breakpoint_10_vs_binary']:.2f}×**. Breakpoints of the Hermite "
        "search against this branch's: "
        + (f"the same count, within {agree:.1e} relative" if agree is not None else "counts differ")
        + ".",
        "",
        "## Profile of the 10-class exact curve",
        "",
        *_profile_md("This branch", p["profile"]),
        *_profile_md("The Hermite grid search (before)", p["profile_before"]),
        "## Fast CG-20 sweep",
        "",
        "| problem | seconds | intervals | solves | matrix–vector products |",
        "|---|---|---|---|---|",
    ]
    for name, s in p["sweeps"].items():
        md.append(
            f"| {name} | {s['seconds']:.3f} | {s['intervals']} | {s['solves']} | {s['matvecs']} |"
        )
    md += ["", f"10 classes ÷ even vs odd: **{r['sweep_10_vs_binary']:.2f}×**.", ""]
    return "\n".join(md)


if __name__ == "__main__":
    main()
