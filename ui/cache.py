"""Cached wrappers over sslviz computations for the Streamlit app.

Keys are the frozen settings of :mod:`sslviz.specs` plus floats and ints, so a revisit
with the same settings is instant. ``st.cache_resource`` holds only built problems
(instance, graph, model: read-only after construction, shared by all sessions); datasets
live in :mod:`sslviz.datasets`' own cache; everything a page draws comes from ``st.cache_data``
(copied per caller). The online experiment, which reports progress while it runs, is
memoised here without Streamlit (a cached function may not draw into an element made
outside it: a rerun would fail to replay that).

Progress: cached functions take the page's ``tick(fraction, message)`` (from
``ui.progress.progress``) as ``_progress`` (underscore: not part of the cache key) and hand
it to the computation through :func:`ui.compat.unrecorded`, so the bar's updates are not recorded
for replay. A cache hit returns at once and draws nothing.

Stop (``ui.progress.progress``): a click interrupts the computation at its next progress
update by an exception, so nothing partial is cached: ``st.cache_data`` stores only returned
values, and the memos of whole runs (:data:`REGRET_RUNS`, ``ui.player.record``'s) are
written only when they finish. A regret stream (:func:`regret_stream`) keeps what arrived
apart, in :data:`REGRET_PARTS`: the page shows it after a stop, said as partial.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import numpy as np
import streamlit as st

from sslviz import animation, costs, export
from sslviz._memo import Memo
from sslviz.class_trust import ClassTrustCurve, class_trust_curve
from sslviz.conditioning import ConditionCurve, TrustCurve, condition_curve, trust_curve
from sslviz.convergence import convergence
from sslviz.datasets import Dataset, load_dataset, load_file
from sslviz.intervals import Score, Sweep, node_trace, score
from sslviz.problem import Problem, build_problem, loss_curve, problem_sweep, suggest_sigma_range
from sslviz.settings import Spec
from sslviz.specs import (
    ConditionSettings,
    LearnSettings,
    ProblemSpec,
    RegretSettings,
    ScoreSettings,
    SweepSettings,
)
from sslviz.truth import CurvePart, LossCurve
from ui import views
from ui.compat import Tick, unrecorded


def _spec_classes(cls: type = Spec) -> list[type]:
    """``cls`` and every class derived from it (the settings classes, the pages' views)."""
    return [cls, *(c for sub in cls.__subclasses__() for c in _spec_classes(sub))]


SPEC_HASH = {cls: repr for cls in _spec_classes()}
"""How a cache key's settings objects are hashed: by their ``repr``, every field's value
written exactly (a frozen dataclass's own repr; floats round-trip), where Streamlit's
generic hash of a dataclass walks it field by field; every run hashes a few dozen keys
(``benchmarks/control_reruns.py`` times the runs)."""


def cached(max_entries: int) -> Callable:
    """``st.cache_data`` as this module uses it: at most ``max_entries`` results, no
    spinner (pages draw their own progress), settings hashed by :data:`SPEC_HASH`."""
    return st.cache_data(max_entries=max_entries, show_spinner=False, hash_funcs=SPEC_HASH)


def scaled(tick: Tick | None, start: float, stop: float, prefix: str = "") -> Tick | None:
    """``tick`` for one part of a longer computation: its fractions [0, 1] map to
    [start, stop] of the whole, its messages get ``prefix``."""
    if tick is None:
        return None

    def part(fraction: float, message: str = "") -> None:
        tick(start + (stop - start) * min(max(float(fraction), 0.0), 1.0), f"{prefix}{message}")

    return part


def dataset(name: str, data_file: str | None) -> Dataset:
    """The named dataset or a user file (from sslviz.datasets' cache; read-only)."""
    return load_file(data_file) if data_file else load_dataset(name)


@st.cache_resource(
    max_entries=16, show_spinner="Building the instance, graph and model…", hash_funcs=SPEC_HASH
)
def problem(spec: ProblemSpec) -> Problem:
    """Instance, graph and labeling model (read-only; shared)."""
    return build_problem(spec)


@cached(64)
def suggested_range(spec: ProblemSpec) -> tuple[float, float]:
    return suggest_sigma_range(problem(spec))


@cached(32)
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


@cached(16)
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


@cached(32)
def truth(
    spec: ProblemSpec,
    lo: float,
    hi: float,
    _progress: Tick | None = None,
    _part: Callable[[CurvePart], None] | None = None,
) -> LossCurve:
    """The exact loss curve l(σ) on [lo, hi] (exact solver). A large graph's curve as far
    as it is known while it is computed (:class:`sslviz.truth.CurvePart`, in σ order) is
    handed to ``_part`` and kept in :data:`TRUTH_PARTS` (a stop draws it)."""
    key, drawn = (spec, lo, hi), unrecorded(_part)

    def arrived(part: CurvePart) -> None:
        TRUTH_PARTS.put(key, part)
        if drawn is not None:
            drawn(part)

    curve = loss_curve(problem(spec), lo, hi, progress=unrecorded(_progress), on_part=arrived)
    TRUTHS_DONE.put(key, True)
    return curve


TRUTH_PARTS = Memo(16)
"""The last part of each exact curve computed on this server (:func:`truth`), by
``(spec, lo, hi)``: what a stop keeps."""

TRUTHS_DONE = Memo(64)
"""The exact curves computed on this server (:func:`truth`), by ``(spec, lo, hi)``."""


def truth_done(spec: ProblemSpec, lo: float, hi: float) -> bool:
    """Whether :func:`truth` of this range has been computed on this server."""
    return TRUTHS_DONE.get((spec, lo, hi)) is not None


def truth_figure(spec: ProblemSpec, part: CurvePart) -> Any:
    """The loss chart of a part of an exact curve: the exact loss found so far on the whole
    σ range (growing to the right, :func:`sslviz.plots.loss_part_figure`), its title saying
    how far ("σ up to 1.6 of [0.93, 4.7] so far"), the place of the trust panel under it."""
    from sslviz import plots

    p = problem(spec)
    rows = p.rows(range(p.model.n_unlabeled))
    pending = "Algorithm 4's intervals and the trust panel follow once the exact loss is computed."
    return titled(plots.loss_part_figure(part, rows=rows, trust_pending=pending), part.status())


def intervals(
    spec: ProblemSpec,
    lo: float,
    hi: float,
    settings: SweepSettings,
    _progress: Tick | None = None,
) -> Sweep:
    """Estimated constant-loss intervals (Algorithm 4, paper or fast mode), computed once
    per :meth:`~sslviz.specs.SweepSettings.effective` settings (a fast-mode change of η,
    say, computes nothing), returned with ``settings`` as given."""
    return replace(
        _intervals(spec, lo, hi, settings.effective(), _progress=_progress), settings=settings
    )


@cached(32)
def _intervals(
    spec: ProblemSpec,
    lo: float,
    hi: float,
    settings: SweepSettings,
    _progress: Tick | None = None,
) -> Sweep:
    key = paper_key(spec, lo, hi, settings)
    done = PAPER_RUNS.get(key)  # streamed by the loss page
    if done is not None:
        return done
    res = problem_sweep(problem(spec), lo, hi, settings, progress=unrecorded(_progress))
    if settings.mode == "paper":  # computed at once (a comparison, the Speed page): the
        PAPER_RUNS.put(key, res)  # loss page in paper mode does not stream it again
    return res


PAPER_RUNS = Memo(16)
"""The paper-mode sweeps of this server that a stream (:func:`paper_stream`) finished, by
:func:`paper_key`: :func:`intervals` returns them without computing them again."""

PAPER_PARTS = Memo(16)
"""What has arrived of the paper-mode sweeps of this server (one stopped, interrupted by a
change, or finished): the last :class:`sslviz.algorithm4.PaperPart` of each, by
:func:`paper_key`; the next stream of the same sweep goes on from it."""


def paper_key(spec: ProblemSpec, lo: float, hi: float, settings: SweepSettings) -> tuple:
    """The key of a paper-mode sweep in :data:`PAPER_RUNS` and :data:`PAPER_PARTS`: the
    settings as the sweep reads them (:meth:`~sslviz.specs.SweepSettings.effective`)."""
    return (spec, lo, hi, settings.effective())


def paper_done(spec: ProblemSpec, lo: float, hi: float, settings: SweepSettings) -> bool:
    """Whether a stream of this paper-mode sweep has finished on this server."""
    return PAPER_RUNS.get(paper_key(spec, lo, hi, settings)) is not None


def paper_stream(spec: ProblemSpec, lo: float, hi: float, settings: SweepSettings) -> Iterator:
    """Paper mode's intervals as they arrive, in σ order
    (:func:`sslviz.algorithm4.paper_stream`; more than two classes one-vs-all), going on
    from what a stopped or interrupted stream of the same sweep kept (:data:`PAPER_PARTS`).
    Each part is kept in :data:`PAPER_PARTS` (the last, complete one too: what a stop of
    the page's later steps shows); the finished sweep goes to :data:`PAPER_RUNS`, where
    :func:`intervals` finds it (bit for bit the sweep it computes at once)."""
    from sslviz.algorithm4 import paper_stream as stream

    key = paper_key(spec, lo, hi, settings)
    p = problem(spec)
    inst = p.instance
    y, classes = (inst.y, inst.classes) if inst.n_classes > 2 else (p.y_unlabeled, None)
    for part in stream(p.model, y, lo, hi, key[-1], classes=classes, resume=PAPER_PARTS.get(key)):
        if part.complete:
            PAPER_RUNS.put(key, part.sweep)
        PAPER_PARTS.put(key, part)
        yield part


def paper_figure(spec: ProblemSpec, truth: LossCurve, part: Any) -> Any:
    """The loss chart of a part of a paper-mode sweep: the exact loss over the whole range
    and the intervals found so far (growing left to right), its title saying how far
    ("σ up to 1.82 of [0.7, 3.1] so far"), the trust panel's place under it saying it
    follows (the finished chart's height: the page does not jump when it arrives)."""
    from sslviz import plots

    p = problem(spec)
    rows = p.rows(range(p.model.n_unlabeled))
    pending = (
        f"The trust panel (where t = {part.sweep.settings.cg_iters} can be trusted) is "
        "computed once the sweep is complete."
    )
    fig = plots.loss_intervals_figure(truth, part.sweep, rows=rows, trust_pending=pending)
    return titled(fig, part.status())


def many_classes(spec: ProblemSpec) -> bool:
    """Whether ``spec`` asks for more than two classes (one-vs-all, docs/method.md §13;
    no classes named: every class of its dataset)."""
    return len(spec.classes or dataset(spec.dataset, spec.data_file).classes) > 2


def scored(
    spec: ProblemSpec,
    lo: float,
    hi: float,
    settings: SweepSettings,
    max_attributed: int | None = None,
    _progress: Tick | None = None,
) -> Score:
    """The score of :func:`intervals` against :func:`truth`, every miss's cause looked for
    (at ``max_attributed`` of them at most); once per effective settings, as there."""
    return replace(
        _scored(spec, lo, hi, settings.effective(), max_attributed, _progress=_progress),
        settings=settings,
    )


@cached(32)
def _scored(
    spec: ProblemSpec,
    lo: float,
    hi: float,
    settings: SweepSettings,
    max_attributed: int | None = None,
    _progress: Tick | None = None,
) -> Score:
    p = problem(spec)
    return score(
        intervals(spec, lo, hi, settings),
        truth(spec, lo, hi),
        model=p.model,
        max_attributed=max_attributed,
        progress=unrecorded(_progress),
        **({"y": p.instance.y} if p.instance.n_classes > 2 else {}),
    )


ATTRIBUTION_SECONDS = 20.0
"""The estimated time the loss page spends looking for the causes of misses: past it, the
causes of an evenly spread sample are looked for (:func:`sslviz.intervals.score`'s
``max_attributed``): each miss costs exact solves of the whole system, and on large graphs
CG-20 misses thousands."""


def scoring(spec: ProblemSpec, settings: SweepSettings, n_breakpoints: int) -> ScoreSettings:
    """The page's scoring: every miss attributed, unless the estimated cost of attributing
    ``n_breakpoints`` misses is over :data:`ATTRIBUTION_SECONDS` (then at most what fits)."""
    fits = costs.attributed_misses(spec, settings, ATTRIBUTION_SECONDS)
    return ScoreSettings(score=True, max_attributed=fits if n_breakpoints > fits else None)


def node_curves(
    spec: ProblemSpec,
    lo: float,
    hi: float,
    settings: SweepSettings,
    u: int,
    n_grid: int = 120,
    _progress: Tick | None = None,
) -> dict:
    """f_u(σ) on a grid from the chosen solver and from the exact solver, and the chosen
    solver's name (``'CG-20'``). Each is cached by what it depends on: a change of
    Algorithm 4's search settings recomputes neither, a change of t only the first."""
    f = _node_curve(
        spec,
        lo,
        hi,
        settings.solver,
        settings.cg_iters,
        u,
        n_grid,
        _progress=scaled(_progress, 0.0, 0.5),
    )
    fe = _node_curve(spec, lo, hi, "exact", 1, u, n_grid, _progress=scaled(_progress, 0.5, 1.0))
    return {"sigma": np.linspace(lo, hi, n_grid), "f": f, "f_exact": fe, "label": settings.label}


@cached(64)
def _node_curve(
    spec: ProblemSpec,
    lo: float,
    hi: float,
    solver: str,
    cg_iters: int,
    u: int,
    n_grid: int,
    _progress: Tick | None = None,
) -> np.ndarray:
    """f_u(σ) of ``solver`` (``cg_iters`` iterations where iterative) on an even grid."""
    model = problem(spec).model

    def solve(part: np.ndarray) -> list:
        sls = model.soft_labels_many(part, solver=solver, cg_iters=cg_iters, derivative=False)
        return [sl.f[u] for sl in sls]

    return np.array(_on_grid(lo, hi, n_grid, unrecorded(_progress), solve))


NODE_CHUNK = 10
"""σ per progress step of :func:`node_curves`."""


def _on_grid(lo: float, hi: float, n_grid: int, tick: Tick | None, solve: Callable) -> list:
    """``solve(σ's)`` over an even grid of ``n_grid`` σ on [lo, hi], :data:`NODE_CHUNK` σ
    per call and progress step: the values of every call, in grid order."""
    grid = np.linspace(lo, hi, n_grid)
    out: list = []
    for i in range(0, n_grid, NODE_CHUNK):
        if tick is not None:
            tick(i / n_grid, f"σ {i + 1}–{min(i + NODE_CHUNK, n_grid)} of {n_grid}")
        out += solve(grid[i : i + NODE_CHUNK])
    return out


def class_node_curves(
    spec: ProblemSpec,
    lo: float,
    hi: float,
    settings: SweepSettings,
    u: int,
    n_grid: int = 120,
    _progress: Tick | None = None,
) -> dict:
    """:func:`node_curves` of more than two classes: node u's C scores F_uc(σ) on a grid,
    ``F`` from the chosen solver and ``F_exact`` (each of shape (n_grid, C)), the solver's
    name, the class labels and the node's true class (its label)."""
    F = _class_node_curve(
        spec,
        lo,
        hi,
        settings.solver,
        settings.cg_iters,
        u,
        n_grid,
        _progress=scaled(_progress, 0, 0.5),
    )
    Fe = _class_node_curve(spec, lo, hi, "exact", 1, u, n_grid, _progress=scaled(_progress, 0.5, 1))
    inst = problem(spec).instance
    return {
        "sigma": np.linspace(lo, hi, n_grid),
        "F": F,
        "F_exact": Fe,
        "label": settings.label,
        "classes": inst.classes,
        "true_class": inst.classes[int(problem(spec).y_unlabeled[u])],
    }


@cached(64)
def _class_node_curve(
    spec: ProblemSpec,
    lo: float,
    hi: float,
    solver: str,
    cg_iters: int,
    u: int,
    n_grid: int,
    _progress: Tick | None = None,
) -> np.ndarray:
    """F_u·(σ) of ``solver`` on an even grid, shape (n_grid, C)."""
    p = problem(spec)
    y, C = p.instance.y, p.instance.n_classes

    def solve(part: np.ndarray) -> list:
        scs = p.model.scores(part, y, C, solver=solver, cg_iters=cg_iters, derivative=False)
        return [sc.F[u] for sc in scs]

    return np.array(_on_grid(lo, hi, n_grid, unrecorded(_progress), solve))


@cached(64)
def node_traces(
    spec: ProblemSpec,
    lo: float,
    hi: float,
    settings: SweepSettings,
    u: int,
    sigma0: float,
    _progress: Tick | None = None,
) -> dict:
    """Iterates of Algorithm 4 for node u from σ0 under each step rule (Figure 2)."""
    p = problem(spec)
    tick = unrecorded(_progress)
    s = replace(settings, mode="paper")
    out = {}
    for i, rule in enumerate(("gradient", "newton", "hybrid")):
        if tick is not None:
            tick(i / 3, f"the {rule} rule's iterates")
        out[rule] = node_trace(p.model, u, sigma0, lo, hi, s, rule=rule)
    return out


@cached(32)
def conditioning(
    spec: ProblemSpec,
    lo: float,
    hi: float,
    settings: ConditionSettings,
    _progress: Tick | None = None,
) -> tuple[ConditionCurve, float]:
    """κ, CG iterations needed and t-iteration CG error on a σ grid, and the seconds taken."""
    t0 = time.perf_counter()
    p = problem(spec)
    curve = condition_curve(
        p.model,
        np.linspace(lo, hi, settings.points),
        solver=settings.solver,
        cg_iters=settings.cg_iters,
        rtol=settings.rtol,
        progress=unrecorded(_progress),
        y=p.instance.y,
        classes=p.instance.classes,
    )
    return curve, time.perf_counter() - t0


@cached(32)
def trust(
    spec: ProblemSpec,
    lo: float,
    hi: float,
    solver: str,
    cg_iters: int,
    points: int,
    _progress: Tick | None = None,
) -> TrustCurve:
    """Where ``solver`` with ``cg_iters`` iterations can be trusted, on ``points`` evenly
    spaced σ over [lo, hi] (error against margin, t needed by CG and PCG). The t needed
    come from :func:`_trust_base`: a change of t or of CG/PCG does not search them again."""
    if many_classes(spec):
        return _class_trust(spec, lo, hi, solver, cg_iters, points, _progress=_progress)
    base = _trust_base(spec, lo, hi, points, _progress=_progress)
    if (solver, cg_iters) == (base.solver, base.cg_iters):
        return base
    return trust_curve(
        problem(spec).model,
        np.linspace(lo, hi, points),
        solver=solver,
        cg_iters=cg_iters,
        reuse=base,
    )


@cached(32)
def _class_trust(
    spec: ProblemSpec,
    lo: float,
    hi: float,
    solver: str,
    cg_iters: int,
    points: int,
    _progress: Tick | None = None,
) -> ClassTrustCurve:
    """The trust panel of more than two classes (:func:`sslviz.class_trust.class_trust_curve`)."""
    p = problem(spec)
    return class_trust_curve(
        p.model,
        p.instance.y,
        p.instance.classes,
        np.linspace(lo, hi, points),
        solver=solver,
        cg_iters=cg_iters,
        progress=unrecorded(_progress),
    )


@cached(32)
def _trust_base(
    spec: ProblemSpec, lo: float, hi: float, points: int, _progress: Tick | None = None
) -> TrustCurve:
    """The trust curve of CG with the default t on the grid: its t needed serve every t."""
    return trust_curve(
        problem(spec).model,
        np.linspace(lo, hi, points),
        solver="cg",
        progress=unrecorded(_progress),
    )


@cached(16)
def _convergence(spec: ProblemSpec, lo: float, hi: float, iterations: int) -> dict:
    """:func:`sslviz.convergence.convergence` against :func:`truth` (``result``) and its
    download (``document``, no timings): one run per σ gives every t, so a change of the
    opening t reads them here."""
    p = problem(spec)
    result = convergence(p.model, p.y_unlabeled, truth(spec, lo, hi), iterations=iterations)
    doc = export.without_timings(export.convergence_document(p, result, (lo, hi)))
    return {"result": result, "document": doc}


@cached(16)
def class_convergence(
    spec: ProblemSpec,
    lo: float,
    hi: float,
    settings: SweepSettings,
    iterations: int,
    _progress: Tick | None = None,
) -> dict:
    """The CG-iterations page for more than two classes: ``result``
    (:func:`sslviz.animation.class_convergence` at the t of
    :func:`sslviz.animation.class_steps`, against :func:`truth`) and ``figure`` (its
    scrubber's dict, opening at the sidebar's t)."""
    p = problem(spec)
    steps = animation.class_steps(iterations, settings.cg_iters)
    result = animation.class_convergence(
        p.model,
        p.instance.y,
        p.instance.classes,
        truth(spec, lo, hi),
        settings,
        steps,
        score=score,
        progress=unrecorded(_progress),
    )
    start = settings.cg_iters if settings.cg_iters in steps else steps[-1]
    return {
        "result": result,
        "figure": animation.class_convergence_figure(result, start=start, as_dict=True),
        "start": start,
    }


@cached(16)
def convergence_view(spec: ProblemSpec, lo: float, hi: float, iterations: int, t: int) -> dict:
    """The CG-iterations page: ``result`` (:class:`sslviz.convergence.Convergence` against
    :func:`truth`), ``figure`` (the t-scrubber's dict, opening at ``start``: t, or T when t
    is past it) and ``document`` (its download, no timings). Every t is in the figure's
    frames: scrubbing reruns nothing."""
    start = min(t, iterations)
    base = _convergence(spec, lo, hi, iterations)
    fig = animation.convergence_figure(base["result"], start=start, as_dict=True)
    return {**base, "figure": fig, "start": start}


def figure(key: tuple, build: Callable[[], Any]) -> dict:
    """The dict of the figure ``build()`` returns (``to_dict()``), cached by ``key``: the
    settings it is a function of (a page's key names every one of them); every run gets
    its own copy. Plotly validated the figure once, when it was built; :func:`ui.widgets.chart`
    draws the dict as it is, where a figure made from it would be copied twice and walked
    again on every run, and unpickling a cached figure validates it again
    (``benchmarks/figure_build.py``). The same figure on every run, the first included."""
    return _figure_dict(key, build)


@cached(64)
def _figure_dict(key: tuple, _build: Callable[[], Any]) -> dict:
    return _build().to_dict()


def trust_solver(settings: SweepSettings) -> str:
    """The iterative solver a trust panel describes: the sweep's, or CG for exact solvers."""
    return settings.solver if settings.solver in ("cg", "pcg") else "cg"


# -- page helpers of the loss page (plain functions: cheap, nothing cached) --------------------


def comparison(settings: SweepSettings, choice: str) -> SweepSettings | None:
    """The settings the "compare with" ``choice`` runs (None: no comparison). 'other mode'
    is the other of fast and paper mode; a change the certified search cannot take (paper
    mode, an exact solver) compares with the uncertified search."""
    change = views.COMPARISON_CHANGES[choice]
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
    behind missed breakpoints first, in σ order, starting with breakpoints at least 5 % of
    the range inside it (the first option is the default node: one whose breakpoint sits
    on the range's edge shows nothing of Algorithm 4's iterations)."""
    rows = p.rows(range(p.model.n_unlabeled))
    lo, hi = score.sigma_min, score.sigma_max
    margin = 0.05 * (hi - lo) if np.isfinite(hi - lo) else 0.0
    inside = sorted(score.misses, key=lambda m: not lo + margin <= m[0] <= hi - margin)
    missed = [r for _, nd in inside for r in p.rows(nd)]
    return list(dict.fromkeys(missed + rows)), missed


def default_sigma0(breakpoints: list[float], lo: float, hi: float) -> float:
    """A node's default start σ0: a quarter of the range left of its first true crossing
    (a quarter into the range when it has none), to 4 significant digits."""
    bps = list(breakpoints)
    start = max(lo, bps[0] - 0.25 * (hi - lo)) if bps else lo + 0.25 * (hi - lo)
    return float(f"{start:.4g}")


REGRET_RUNS = Memo(16)
"""The finished regret experiments of this server, by :func:`regret_key`."""


def regret_key(
    spec: ProblemSpec,
    lo: float,
    hi: float,
    settings: SweepSettings,
    regret_settings: RegretSettings,
) -> tuple:
    """The key of an experiment in :data:`REGRET_RUNS`: the sweep's settings as it reads
    them (:meth:`~sslviz.specs.SweepSettings.effective`; in fast mode a change of η, say,
    gives the same experiment, bit for bit, and computes nothing)."""
    return (spec, lo, hi, settings.effective(), regret_settings)


REGRET_PARTS = Memo(16)
"""What has arrived of the regret experiments of this server that have not finished (one
stopped, or interrupted by a change): the last :class:`sslviz.experiment.RegretPart` of
each, by :func:`regret_key`."""


def regret_stream(
    spec: ProblemSpec,
    lo: float,
    hi: float,
    settings: SweepSettings,
    regret_settings: RegretSettings,
) -> Iterator:
    """Online regret experiment (Algorithm 1) as its rounds arrive
    (:func:`sslviz.experiment.view_regret_stream`): its parts, the last one complete. The
    instances go to the server's worker processes (:data:`sslviz._threads.WORKERS`, kept
    warm between runs, as the learning page's) once they are up, else they are computed
    here (a fresh server's first seconds); the numbers are the same either way. Each part
    is kept in :data:`REGRET_PARTS` as it arrives (a stop keeps it); the finished experiment
    goes to :data:`REGRET_RUNS`."""
    from sslviz._threads import WORKERS, workers_warm
    from sslviz.experiment import view_regret_stream
    from sslviz.problem import GraphRounds

    key = regret_key(spec, lo, hi, settings, regret_settings)
    jobs = WORKERS if workers_warm() else 1
    rounds = GraphRounds(spec, lo, hi, settings)
    for part in view_regret_stream(rounds, regret_settings, seed=spec.seed, n_jobs=jobs):
        if part.complete:
            REGRET_RUNS.put(key, part.experiment)
        else:
            REGRET_PARTS.put(key, part)
        yield part


def partial_figure(part) -> Any:
    """The regret chart of a part of an experiment (:func:`sslviz.plots.regret_figure` of
    the rounds so far) on the x range of all its rounds, so that it grows to the right as
    rounds arrive; its title says how many have."""
    from sslviz import plots

    fig = plots.regret_figure(part.experiment)
    fig.update_xaxes(range=[0.5, part.rounds + 0.5])
    return titled(fig, part.status())


LEARN_RUNS = Memo(16)
"""The finished learning runs of this server, by ``(spec, lo, hi, settings, approx)``."""


LEARN_PARTS = Memo(16)
"""What has arrived of the learning runs of this server that have not finished: the last
:class:`sslviz.learn.LearnPart` of each, by the key of :data:`LEARN_RUNS`."""


def learn_stream(
    spec: ProblemSpec,
    lo: float,
    hi: float,
    settings: LearnSettings,
    approx: tuple[SweepSettings, ...],
    progress: Tick | None = None,
) -> Iterator:
    """σ (and k) learned from instances drawn from ``spec``'s dataset as its training
    instances arrive (:func:`sslviz.learn.learn_stream`: exact ERM on the first 2, 4, 8…,
    then :func:`sslviz.learn.learn`'s whole result), the instances on the server's worker
    processes (:data:`sslviz.learn.WORKERS`, kept warm between runs; the first part here
    while they are still starting). Each part is kept in
    :data:`LEARN_PARTS` as it arrives, the whole result in :data:`LEARN_RUNS`.
    ``progress(fraction, message)`` hears each instance of the whole result's run."""
    from sslviz._threads import workers_warm
    from sslviz.learn import WORKERS, drawn_instances
    from sslviz.learn import learn_stream as stream

    key = (spec, lo, hi, settings, approx)
    train, test, pools = drawn_instances(
        spec, settings.instances, settings.test_instances, settings.curve, settings.repeats
    )
    for part in stream(
        train,
        test,
        (lo, hi),
        k_values=settings.k_values,
        approx=approx,
        curve_sizes=settings.curve if pools else (),
        curve_pools=pools,
        n_jobs=WORKERS,
        first_jobs=WORKERS if workers_warm() else 1,  # a fresh server: the first ones here
        progress=progress,
    ):
        if part.complete:
            LEARN_RUNS.put(key, part.result)
        else:
            LEARN_PARTS.put(key, part)
        yield part


def titled(fig: Any, status: str) -> Any:
    """``fig`` (a figure of a partial result) with ``status`` ("rounds 1–7 of 20 so far")
    after its title."""
    fig.update_layout(title_text=f"{fig.layout.title.text}: {status}")
    return fig


@cached(64)
def speed_row(
    spec: ProblemSpec,
    lo: float,
    hi: float,
    settings: SweepSettings,
    _progress: Tick | None = None,
) -> dict:
    """One row of the live Table 1: M, work counts and the robust timing of one configuration
    (:func:`sweep_timing`), taken when it was first computed on this server."""
    res = intervals(spec, lo, hi, settings, _progress=_progress)
    return export.speed_row(problem(spec), res, sweep_timing(spec, lo, hi, settings))


SPEED_PARTS = Memo(16)
"""What has arrived of the Speed page's grids that have not finished (one stopped, or
interrupted by a change): the last :class:`sslviz.speed.SpeedPart` of each, by the page's
key of the grid."""


def speed_stream(key: Any, configs: list[tuple], row: Callable) -> Iterator:
    """The Speed page's grid as its configurations arrive (:func:`sslviz.speed.speed_stream`
    with the page's ``row(i, config)``, which reads :func:`speed_row`: a configuration timed
    before is not timed again); each part not yet complete is kept in :data:`SPEED_PARTS`
    by ``key`` (a stop keeps it)."""
    from sslviz.speed import speed_stream as stream

    for part in stream(configs, row):
        if not part.complete:
            SPEED_PARTS.put(key, part)
        yield part


def sweep_timing(spec: ProblemSpec, lo: float, hi: float, settings: SweepSettings):
    """The robust timing of a sweep (:func:`sslviz.measure.timed`): the minimum CPU time of
    :data:`TIMING_RUNS` runs, fewer when they would exceed :data:`SPEED_BUDGET` seconds;
    memoised in :data:`TIMINGS`. One timing serves the loss page and the Speed page, and
    every settings with the same :meth:`~sslviz.specs.SweepSettings.effective` ones (a
    setting the sweep does not read changes no time)."""
    from sslviz.measure import timed

    effective = settings.effective()

    def take():
        p = problem(spec)
        return timed(
            lambda: problem_sweep(p, lo, hi, effective),
            budget=SPEED_BUDGET,
            min_repeats=TIMING_RUNS,
            max_repeats=TIMING_RUNS,
        )[1]

    return TIMINGS.get_or_compute((spec, lo, hi, effective), take)


def sweep_timing_taken(spec: ProblemSpec, lo: float, hi: float, settings: SweepSettings):
    """The timing of :func:`sweep_timing` if this server has taken it, else None (nothing
    is run: the loss page takes it after it is drawn)."""
    return TIMINGS.get((spec, lo, hi, settings.effective()))


TIMINGS = Memo(32)
"""Robust sweep timings (:func:`sweep_timing`), by problem, σ range and effective settings."""


def timing_seconds(spec: ProblemSpec, lo: float, hi: float, settings: SweepSettings) -> float:
    """Estimated wall time of :func:`sweep_timing`: its runs go on until :data:`TIMING_RUNS`
    or until they have spent :data:`SPEED_BUDGET` seconds."""
    one = costs.sweep(spec, lo, hi, settings).seconds - costs.build(spec).seconds
    return one * min(TIMING_RUNS, int(SPEED_BUDGET / max(one, 1e-9)) + 1)


TIMING_RUNS = 3
"""Runs of a sweep behind a displayed time (bounded: the loss page's first view pays them)."""
SPEED_BUDGET = 1.5
"""Seconds the timing runs of one sweep may take (a longer run is timed once)."""


@cached(32)
def loss_json(spec: ProblemSpec, lo: float, hi: float) -> str:
    """The ``sslviz loss`` document of this view."""
    return export.download_text(export.loss_document(problem(spec), truth(spec, lo, hi), (lo, hi)))


@cached(32)
def intervals_json(
    spec: ProblemSpec, lo: float, hi: float, settings: SweepSettings, scoring: ScoreSettings
) -> str:
    """The ``sslviz intervals --score`` document of this view."""
    return export.download_text(
        export.intervals_document(
            problem(spec),
            intervals(spec, lo, hi, settings),
            settings,
            scored(spec, lo, hi, settings, scoring.max_attributed),
            scoring,
        )
    )


# -- what runs by itself on a first visit (estimates of sslviz.costs; plain functions) -------

AUTO_SECONDS = 20.0
"""A computation estimated to take at most this long (or no longer than the default view's)
runs by itself when a page opens; a longer one waits for its Run button."""


def regret_seconds(
    spec: ProblemSpec,
    settings: SweepSettings,
    regret: RegretSettings,
    sigma: tuple[float, float] | None = None,
    ref: tuple[float, float] | None = None,
) -> float:
    """Estimated wall time of an online experiment (:func:`sslviz.costs.regret`) on the σ
    range ``sigma`` relative to the suggested range ``ref`` (both None: the suggested
    range itself)."""
    lo, hi = sigma or (0.0, 1.0)
    return costs.regret(spec, lo, hi, settings, regret, ref if sigma else None).seconds


def regret_autoruns(
    spec: ProblemSpec,
    settings: SweepSettings,
    regret: RegretSettings,
    sigma: tuple[float, float] | None = None,
    ref: tuple[float, float] | None = None,
) -> bool:
    """Whether the regret page runs this experiment by itself: when it costs at most
    :data:`AUTO_SECONDS`, or no more than the default view (which thus always runs)."""
    budget = max(AUTO_SECONDS, regret_seconds(ProblemSpec(), SweepSettings(), RegretSettings()))
    return regret_seconds(spec, settings, regret, sigma, ref) <= budget * 1.001


def speed_spec(spec: ProblemSpec, n: int, family: str) -> ProblemSpec:
    """The Speed page's instance of size ``n`` on ``family`` (else the sidebar's)."""
    return spec.replace(
        n=n, family=family, n_labeled=min(spec.n_labeled, n - 1), k=min(spec.k, n - 1)
    )


def speed_seconds(
    n: int,
    family: str,
    solver: str,
    settings: SweepSettings,
    spec: ProblemSpec | None = None,
    sigma: tuple[float, float] | None = None,
    ref: tuple[float, float] | None = None,
) -> float:
    """Estimated wall time of one speed configuration (:func:`sslviz.costs.speed_config`)."""
    lo, hi = sigma or (0.0, 1.0)
    spec_i = speed_spec(spec or ProblemSpec(), n, family)
    return costs.speed_config(
        spec_i, lo, hi, settings.with_solver(solver), ref if sigma else None
    ).seconds


def speed_autorun(
    configs: list[tuple],
    settings: SweepSettings,
    spec: ProblemSpec | None = None,
    sigma: tuple[float, float] | None = None,
    ref: tuple[float, float] | None = None,
) -> list[tuple]:
    """The configurations ``(n, family, solver)`` the speed page times by itself: all when
    they fit the budget (:data:`AUTO_SECONDS`, or the default grid's cost if larger),
    else the cheapest ones that fit, smallest n first (at least one)."""
    grid = views.SpeedGrid()
    default = sum(
        speed_seconds(n, f, sv, SweepSettings())
        for n in grid.sizes
        for f in grid.families
        for sv in grid.solvers
    )
    budget = max(AUTO_SECONDS, default) * 1.001

    def cost(c: tuple) -> float:
        return speed_seconds(*c, settings, spec, sigma, ref)

    out, total = [], 0.0
    for c in sorted(configs, key=lambda c: (c[0], cost(c))):
        if out and total + cost(c) > budget:
            continue
        out.append(c)
        total += cost(c)
    return [c for c in configs if c in out]


@cached(16)
def cv_search(spec: ProblemSpec, lo: float, hi: float, folds: int) -> Any:
    """The exact cross-validated accuracy over γ of the instance's labeled points on σ in
    [lo, hi] with ``folds`` folds (:func:`sslviz.api.problem_search`)."""
    from sslviz import api

    return api.problem_search(problem(spec), folds, (lo, hi))
