"""Cached wrappers over sslviz computations for the Streamlit app.

Keys are the frozen settings of :mod:`sslviz.specs` plus floats and ints, so a revisit
with the same settings is instant. ``st.cache_resource`` holds only built problems
(instance, graph, model: read-only after construction, shared by all sessions); datasets
live in :mod:`sslviz.data`'s own cache; everything a page draws comes from ``st.cache_data``
(copied per caller). The online experiment, which reports progress while it runs, is
memoised here without Streamlit (a cached function may not draw into an element made
outside it: a rerun would fail to replay that).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import replace

import numpy as np
import streamlit as st

from sslviz import export, specs
from sslviz.conditioning import ConditionCurve, TrustCurve, condition_curve, trust_curve
from sslviz.data import Dataset, load_dataset, load_file
from sslviz.intervals import Score, Sweep, node_trace, score, sweep
from sslviz.problem import Problem, build_problem, loss_curve, suggest_sigma_range
from sslviz.specs import ConditionSettings, ProblemSpec, RegretSettings, SweepSettings
from sslviz.truth import LossCurve


def dataset(name: str, data_file: str | None) -> Dataset:
    """The named dataset or a user file (from sslviz.data's cache; read-only)."""
    return load_file(data_file) if data_file else load_dataset(name)


@st.cache_resource(max_entries=16, show_spinner="Building the instance, graph and model…")
def problem(spec: ProblemSpec) -> Problem:
    """Instance, graph and labeling model (read-only; shared)."""
    return build_problem(spec)


@st.cache_data(max_entries=64, show_spinner=False)
def suggested_range(spec: ProblemSpec) -> tuple[float, float]:
    return suggest_sigma_range(problem(spec))


@st.cache_data(max_entries=32, show_spinner=False)
def summary(spec: ProblemSpec) -> dict:
    """Instance summary for the home page."""
    p = problem(spec)
    g, inst = p.graph, p.instance
    deg = g.degrees()
    y_l = inst.y_labeled
    return {
        "n": inst.n,
        "labeled": inst.n_labeled,
        "unlabeled": inst.n - inst.n_labeled,
        "class1_fraction": float(np.mean(inst.y)),
        "labeled_class1": int(np.sum(y_l)),
        "labeled_class0": int(y_l.size - np.sum(y_l)),
        "edges": g.n_edges,
        "degree_min": int(deg.min()),
        "degree_max": int(deg.max()),
        "components": g.n_components(),
        "features": int(inst.X.shape[1]),
        "X2": np.array(inst.X[:, :2]),
        "y": np.array(inst.y),
        "is_labeled": np.array(inst.labeled),
    }


@st.cache_data(max_entries=16, show_spinner=False)
def samples(
    name: str, data_file: str | None, classes: tuple[int, int], per_class: int = 8, seed: int = 0
) -> list[np.ndarray]:
    """``per_class`` images of each class (flattened), class c0 first."""
    ds = dataset(name, data_file)
    rng = np.random.default_rng(seed)
    out = []
    for c in classes:
        rows = np.flatnonzero(ds.y == c)
        pick = rng.choice(rows, size=min(per_class, rows.size), replace=False)
        out += [np.array(ds.X[r]) for r in pick]
    return out


@st.cache_data(max_entries=32, show_spinner=False)
def truth(spec: ProblemSpec, lo: float, hi: float) -> LossCurve:
    """The exact loss curve l(σ) on [lo, hi] (exact solver)."""
    return loss_curve(problem(spec), lo, hi)


@st.cache_data(max_entries=32, show_spinner=False)
def intervals(spec: ProblemSpec, lo: float, hi: float, settings: SweepSettings) -> Sweep:
    """Estimated constant-loss intervals (Algorithm 4, paper or fast mode)."""
    p = problem(spec)
    return sweep(p.model, p.y_unlabeled, lo, hi, settings)


@st.cache_data(max_entries=32, show_spinner=False)
def scored(spec: ProblemSpec, lo: float, hi: float, settings: SweepSettings) -> Score:
    return score(intervals(spec, lo, hi, settings), truth(spec, lo, hi), model=problem(spec).model)


@st.cache_data(max_entries=32, show_spinner=False)
def node_curves(
    spec: ProblemSpec, lo: float, hi: float, settings: SweepSettings, u: int, n_grid: int = 120
) -> dict:
    """f_u(σ) on a grid from the chosen solver and from the exact solver, and the chosen
    solver's name (``'CG-20'``)."""
    p = problem(spec)
    grid = np.linspace(lo, hi, n_grid)
    f = np.array(
        [
            p.model.soft_labels(
                s, solver=settings.solver, cg_iters=settings.cg_iters, derivative=False
            ).f[u]
            for s in grid
        ]
    )
    fe = np.array([p.model.soft_labels(s, solver="exact", derivative=False).f[u] for s in grid])
    iterative = settings.solver in ("cg", "pcg")
    label = f"{settings.solver.upper()}-{settings.cg_iters}" if iterative else settings.solver
    return {"sigma": grid, "f": f, "f_exact": fe, "label": label}


@st.cache_data(max_entries=64, show_spinner=False)
def node_traces(
    spec: ProblemSpec, lo: float, hi: float, settings: SweepSettings, u: int, sigma0: float
) -> dict:
    """Iterates of Algorithm 4 for node u from σ0 under each step rule (Figure 2)."""
    p = problem(spec)
    s = replace(settings, mode="paper")
    return {
        rule: node_trace(p.model, u, sigma0, lo, hi, s, rule=rule)
        for rule in ("gradient", "newton", "hybrid")
    }


@st.cache_data(max_entries=32, show_spinner=False)
def conditioning(
    spec: ProblemSpec, lo: float, hi: float, settings: ConditionSettings
) -> tuple[ConditionCurve, float]:
    """κ, CG iterations needed and t-iteration CG error on a σ grid, and the seconds taken."""
    import time

    t0 = time.perf_counter()
    curve = condition_curve(
        problem(spec).model, np.linspace(lo, hi, settings.points), solver=settings.solver,
        cg_iters=settings.cg_iters, rtol=settings.rtol,
    )  # fmt: skip
    return curve, time.perf_counter() - t0


@st.cache_data(max_entries=32, show_spinner=False)
def trust(
    spec: ProblemSpec, lo: float, hi: float, solver: str, cg_iters: int, points: int
) -> TrustCurve:
    """Where ``solver`` with ``cg_iters`` iterations can be trusted, on ``points`` evenly
    spaced σ over [lo, hi] (error against margin, t needed by CG and PCG)."""
    return trust_curve(
        problem(spec).model, np.linspace(lo, hi, points), solver=solver, cg_iters=cg_iters
    )


def trust_solver(settings: SweepSettings) -> str:
    """The iterative solver a trust panel describes: the sweep's, or CG for exact solvers."""
    return settings.solver if settings.solver in ("cg", "pcg") else "cg"


# -- page helpers of the loss page (plain functions: cheap, nothing cached) --------------------


COMPARISONS = dict(zip(specs.COMPARISONS, (
    None, dict(solver="cg", cg_iters=5), dict(solver="cg", cg_iters=50), "mode",
    dict(solver="exact"),
), strict=True))  # fmt: skip
"""The loss page's "compare with" choices (LossView.compare, labels from its table row) →
the changes they make, in the row's order."""


def comparison(settings: SweepSettings, choice: str) -> SweepSettings | None:
    """The settings the "compare with" ``choice`` runs (None: no comparison). 'other mode'
    is the other of fast and paper mode; a change the certified search cannot take (paper
    mode, an exact solver) compares with the uncertified search."""
    change = COMPARISONS[choice]
    if change is None:
        return None
    if change == "mode":
        change = {"mode": "paper" if settings.mode == "fast" else "fast"}
    try:
        return replace(settings, **change)
    except ValueError:
        return replace(settings, certify=False, **change)


def drill_down_nodes(p: Problem, score: Score) -> tuple[list[int], list[int]]:
    """``(options, missed rows)`` of the drill-down's node selector: instance rows, those
    behind missed breakpoints first."""
    rows = p.rows(range(p.model.n_unlabeled))
    missed = [r for _, nd in score.misses for r in p.rows(nd)]
    return list(dict.fromkeys(missed + rows)), missed


def default_sigma0(breakpoints: list[float], lo: float, hi: float) -> float:
    """A node's default start σ0: a quarter of the range left of its first true crossing
    (a quarter into the range when it has none), to 4 significant digits."""
    bps = list(breakpoints)
    start = max(lo, bps[0] - 0.25 * (hi - lo)) if bps else lo + 0.25 * (hi - lo)
    return float(f"{start:.4g}")


_REGRET: OrderedDict = OrderedDict()
_REGRET_LOCK = threading.Lock()
_REGRET_ENTRIES = 16


def regret_cached(key: tuple):
    """The finished experiment of ``key`` if one is memoised, else None."""
    with _REGRET_LOCK:
        return _REGRET.get(key)


def regret(spec: ProblemSpec, lo: float, hi: float, settings: SweepSettings,
           regret_settings: RegretSettings, progress=None):  # fmt: skip
    """Online regret experiment (Algorithm 1), sequential inside the app; memoised by its
    settings (results are identical for identical settings)."""
    from sslviz.problem import run_regret

    key = (spec, lo, hi, settings, regret_settings)
    found = regret_cached(key)
    if found is not None:
        return found
    exp = run_regret(spec, (lo, hi), settings, regret_settings, progress=progress, n_jobs=1)
    with _REGRET_LOCK:
        _REGRET[key] = exp
        while len(_REGRET) > _REGRET_ENTRIES:
            _REGRET.popitem(last=False)
    return exp


@st.cache_data(max_entries=64, show_spinner=False)
def speed_row(spec: ProblemSpec, lo: float, hi: float, settings: SweepSettings) -> dict:
    """One row of the live Table 1: time per interval and M of one configuration."""
    return export.speed_row(problem(spec), intervals(spec, lo, hi, settings))


@st.cache_data(max_entries=32, show_spinner=False)
def loss_json(spec: ProblemSpec, lo: float, hi: float) -> str:
    """The ``sslviz loss`` document of this view."""
    return export.dumps(export.loss_document(problem(spec), truth(spec, lo, hi), (lo, hi)))


@st.cache_data(max_entries=32, show_spinner=False)
def intervals_json(spec: ProblemSpec, lo: float, hi: float, settings: SweepSettings) -> str:
    """The ``sslviz intervals --score`` document of this view."""
    from sslviz.specs import ScoreSettings

    return export.dumps(export.intervals_document(
        problem(spec), intervals(spec, lo, hi, settings), settings,
        scored(spec, lo, hi, settings), ScoreSettings(score=True),
    ))  # fmt: skip
