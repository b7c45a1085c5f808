"""Cached wrappers over sslviz computations for the Streamlit app.

Keys are the frozen configs (``ProblemSpec``, ``SweepSettings``) plus floats and ints, so a
revisit with the same settings is instant. ``st.cache_resource`` holds only the loaded
datasets and built problems (read-only objects shared by all sessions); everything a page
draws comes from ``st.cache_data`` (copied per caller). Arguments starting with ``_`` (a
progress callback) are not part of the key.
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np
import streamlit as st

from sslviz.conditioning import ConditionCurve, condition_curve
from sslviz.data import Dataset, load_dataset, load_file
from sslviz.intervals import Score, Sweep, SweepSettings, node_trace, score, sweep
from sslviz.problem import Problem, ProblemSpec, build_problem, loss_curve, suggest_sigma_range
from sslviz.truth import TrueLossCurve


@st.cache_resource(max_entries=8, show_spinner="Loading the dataset…")
def dataset(name: str, data_file: str | None) -> Dataset:
    """The named dataset, or a user file (the path includes a hash of its content)."""
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
def truth(spec: ProblemSpec, lo: float, hi: float) -> TrueLossCurve:
    """The exact loss curve l(σ) on [lo, hi] (exact solver)."""
    return loss_curve(problem(spec), lo, hi)


@st.cache_data(max_entries=32, show_spinner=False)
def intervals(spec: ProblemSpec, lo: float, hi: float, settings: SweepSettings) -> Sweep:
    """Estimated constant-loss intervals (Algorithm 4, paper or fast mode)."""
    p = problem(spec)
    return sweep(p.model, p.y_unlabeled, lo, hi, settings)


@st.cache_data(max_entries=32, show_spinner=False)
def scored(spec: ProblemSpec, lo: float, hi: float, settings: SweepSettings) -> Score:
    return score(intervals(spec, lo, hi, settings), truth(spec, lo, hi))


@st.cache_data(max_entries=32, show_spinner=False)
def node_curves(
    spec: ProblemSpec, lo: float, hi: float, settings: SweepSettings, u: int, n_grid: int = 120
) -> dict:
    """f_u(σ) on a grid from the chosen solver and from the exact solver."""
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
    return {"sigma": grid, "f": f, "f_exact": fe}


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
    spec: ProblemSpec, lo: float, hi: float, n_sigma: int, solver: str, cg_iters: int
) -> ConditionCurve:
    """κ, CG iterations needed and t-iteration CG error on a σ grid."""
    return condition_curve(
        problem(spec).model, np.linspace(lo, hi, n_sigma), solver=solver, cg_iters=cg_iters
    )


@st.cache_data(max_entries=16, show_spinner=False)
def regret(
    spec: ProblemSpec,
    lo: float,
    hi: float,
    settings: SweepSettings,
    rounds: int,
    repeats: int,
    feedback: tuple[str, ...],
    seed: int,
    _progress=None,
):
    """Online regret experiment (Algorithm 1), sequential inside the app."""
    from sslviz.online import GraphRounds, regret_experiment

    return regret_experiment(
        GraphRounds(spec, lo, hi, settings),
        rounds=rounds,
        repeats=repeats,
        feedback=list(feedback),
        seed=seed,
        n_jobs=1,
        progress=_progress,
    )


@st.cache_data(max_entries=64, show_spinner=False)
def speed_row(spec: ProblemSpec, lo: float, hi: float, settings: SweepSettings) -> dict:
    """One row of the live Table 1: time per interval and M of one configuration."""
    t0 = time.perf_counter()
    res = intervals(spec, lo, hi, settings)
    return {
        "n": spec.n,
        "family": spec.family,
        "solver": settings.solver,
        "M": len(res.intervals),
        "seconds": res.seconds,
        "time_per_interval": res.time_per_interval,
        "solves": res.solves,
        "wall": time.perf_counter() - t0,
    }


@st.cache_data(max_entries=32, show_spinner=False)
def interval_tables(spec: ProblemSpec, lo: float, hi: float, settings: SweepSettings | None):
    """Tables and downloads of the loss-intervals page: ``{name: DataFrame}`` and JSON texts.

    ``settings=None`` (threshold family) gives the true loss only.
    """
    import json

    import pandas as pd

    from sslviz.problem import curve_to_dict

    tl = truth(spec, lo, hi)
    e, v = tl.loss.edges, tl.loss.values
    out = {"true loss": pd.DataFrame({"lo": e[:-1], "hi": e[1:], "loss": v})}
    out["true_loss.json"] = json.dumps(curve_to_dict(problem(spec), tl), indent=1)
    res = intervals(spec, lo, hi, settings) if settings is not None else None
    sc = scored(spec, lo, hi, settings) if settings is not None else None
    out["intervals"] = pd.DataFrame(
        [
            {"lo": iv.lo, "hi": iv.hi, "estimated loss": iv.loss,
             "true loss at midpoint": float(tl.loss(0.5 * (iv.lo + iv.hi))),
             "left node": iv.lo_node, "right node": iv.hi_node}
            | ({"solves": iv.solves} if settings.mode == "paper" else {})
            for iv in (res.intervals if res else [])
        ]
    )  # fmt: skip
    out["misses"] = pd.DataFrame(
        [{"σ": b, "nodes": ", ".join(map(str, nd))} for b, nd in (sc.misses if sc else [])]
    )
    out["intervals.json"] = json.dumps(
        {"intervals": out["intervals"].to_dict("records"), "score": sc.to_dict() if sc else None},
        indent=1,
    )
    return out
