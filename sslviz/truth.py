"""The exact loss curve l(σ) and its breakpoints (docs/method.md §5).

l(σ) — the fraction of unlabeled nodes misclassified by 1[f_u(σ) > 1/2] — changes only
where some f_u(σ) = 1/2 (or where a node's link to the labeled set underflows, §4.3).
:func:`true_loss_curve` finds every such σ on [σ_min, σ_max]:

1. exact soft labels and derivatives (row-scaled LU, eqs. (1)–(2)) on a geometric grid
   with ratio ``grid_ratio`` between neighbours;
2. each grid interval is split while some node's cubic Hermite interpolant of
   h_u = f_u − 1/2 (built from values and exact derivatives at both ends) has a sign
   pattern the end values do not explain, or dips towards zero inside the interval — this is
   what catches a pair of crossings between two grid points;
3. every sign change is refined by safeguarded Newton (exact derivative, bisection
   fallback) until the bracket or the Newton step is below ``rtol``·σ.

Residual risk: a pair of crossings closer together than the Hermite test can see (the
cubic misses a dip narrower than the grid interval and deeper than ``touch``) is not
found. The loss on every piece is checked against every grid evaluation; disagreements
are counted in ``LossCurve.inconsistent`` (0 on every instance we have run).

The same search runs on any solver (:attr:`LossCurve.solver`): with CG/PCG it finds every
crossing of the *approximate* f_u − 1/2, the fast mode of Algorithm 4, and the result is an
approximate curve (``LossCurve.exact`` False).

For the ``threshold`` family l(r) changes only at edge lengths, which are enumerated. The
searches themselves are :mod:`sslviz.crossings`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from sslviz._threads import map_tasks, one_thread
from sslviz._validation import check_int, check_real, check_sigma_range
from sslviz.crossings import (
    MIN_WIDTH,
    SearchProgress,
    chebyshev_pays,
    chebyshev_pays_gaps,
    chebyshev_search,
    compiled_search,
    hermite_grid,
    needs_split,
    refine_degenerate,
    refine_roots,
)
from sslviz.labeling import SoftLabelModel, stack_scores
from sslviz.oracle import GapOracle, LabelOracle, true_class_pairs
from sslviz.piecewise import PiecewiseLoss
from sslviz.specs import CG_ITERS
from sslviz.words import range_missing, range_so_far


@dataclass(frozen=True, eq=False)
class Certificates:
    """What a certified search proved (docs/method.md §8), per σ it evaluated (sorted).

    Attributes
    ----------
    sigma : ndarray of shape (n_eval,)
    iterations : ndarray of int, shape (n_eval,)
        CG/PCG iterations of f at that σ (before any fallback).
    certified : ndarray of bool, shape (n_eval,)
        Every node's side of 1/2 proven by the iterative solve; False: the σ fell back to
        an exact solve (the certificate failed within the cap, or a weight underflows).
    """

    sigma: np.ndarray
    iterations: np.ndarray
    certified: np.ndarray

    @property
    def exact_fallbacks(self) -> int:
        return int(np.count_nonzero(~self.certified))


@dataclass(frozen=True, eq=False)
class LossCurve:
    """A piecewise-constant loss on [σ_min, σ_max], exact or from an approximate solver.

    Attributes
    ----------
    loss : PiecewiseLoss
        Pieces between consecutive breakpoints and their loss (fraction of U wrong).
    nodes : list of ndarray
        For each breakpoint, the unlabeled nodes that crossed 1/2 (or changed
        degenerate status) there, as indices into ``model.unlabeled_idx``.
    wrong_at_start : ndarray of shape (n_unlabeled,), bool
        Which nodes are misclassified on the first piece.
    degenerate_ranges : list of (lo, hi, count)
        σ ranges where ``count`` > 0 unlabeled nodes had no path to a labeled node.
    evaluations : ndarray of shape (n_eval,)
        Every σ where soft labels were computed (sorted).
    solves, matvecs, factorizations : int
        Work of the search (see :class:`sslviz.oracle.LabelOracle`).
    seconds : float
    solver : {'exact', 'inverse', 'cg', 'pcg'}
        The solver of every soft label the curve was built from: 'exact'/'inverse' give the
        true loss l(σ); 'cg'/'pcg' (t iterations) the approximate loss of the fast mode.
    inconsistent : int
        Grid evaluations whose misclassified set disagrees with the pieces (0 when the
        curve is complete).
    parameter : {'sigma', 'r'}
    complete : bool
        False when the evaluation budget stopped the search for hidden crossing pairs.
    certificates : Certificates or None
        What a certified search proved (None otherwise).
    classes : tuple of int or None
        More than two classes (docs/method.md §13): the original class labels, class index
        i ↦ ``classes[i]``; None for the binary problem.
    against : list of ndarray or None
        More than two classes: for each breakpoint, parallel to ``nodes``, the class index
        each node wins or loses against there (−1 where its link to L changes); None for
        the binary problem.
    """

    loss: PiecewiseLoss
    nodes: list
    wrong_at_start: np.ndarray
    degenerate_ranges: list
    evaluations: np.ndarray
    solves: int
    matvecs: int
    factorizations: int
    seconds: float
    solver: str
    inconsistent: int = 0
    parameter: str = "sigma"
    complete: bool = True
    certificates: Certificates | None = None
    classes: tuple[int, ...] | None = None
    against: list | None = None

    @property
    def exact(self) -> bool:
        """True when the curve is the true loss (built from exact or inverse solves)."""
        return self.solver in ("exact", "inverse")

    @property
    def breakpoints(self) -> np.ndarray:
        return self.loss.breakpoints

    def best(self) -> tuple[float, float, float]:
        """``(loss, lo, hi)``: smallest loss and the widest σ range achieving it."""
        return self.loss.minimum()


class _Watched(LabelOracle):
    """A :class:`LabelOracle` that reports every σ it evaluates (search event log)."""

    def __init__(self, *args, on_event: Callable, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.on_event = on_event
        self.context = "grid"  # what the search is doing: grid, split, degenerate, refine
        self.cell = (np.nan, np.nan)

    def prefetch(self, sigmas) -> None:
        before = len(self.cache)
        super().prefetch(sigmas)
        if self.context == "refine":  # _refine_roots reports its own steps
            return
        for x in list(self.cache)[before:]:
            h, _, deg = self.cache[x]
            near = np.argsort(np.where(deg, np.inf, np.abs(h)), kind="stable")[:_NEAR]
            near = near[~deg[near]]
            self.on_event(
                self.context,
                at=x,
                bracket=self.cell,
                nodes=near,
                f=h[near] + 0.5,
                loss=float(self.wrong(x).mean()) if h.size else 0.0,
                degenerate=int(deg.sum()),
            )


_NEAR = 24
"""Evaluation events list the nodes nearest to 1/2 there, at most this many."""


@one_thread
def true_loss_curve(
    model: SoftLabelModel,
    y_unlabeled: np.ndarray,
    sigma_min: float,
    sigma_max: float,
    *,
    rtol: float = 1e-9,
    grid_ratio: float = 1.05,
    touch: float = 0.05,
    solver: str = "exact",
    cg_iters: int = CG_ITERS,
    certify_cap: int | None = None,
    max_evaluations: int = 4000,
    progress: Callable[[float, str], None] | None = None,
    on_event: Callable[..., None] | None = None,
    on_part: Callable[[CurvePart], None] | None = None,
) -> LossCurve:
    """Exact piecewise-constant loss l(σ) with every breakpoint located to ``rtol``.

    With ``solver='cg'`` or ``'pcg'`` the same search runs on the t-iteration CG soft
    labels instead: that is the fast mode of Algorithm 4 (docs/method.md §6.2), which finds every
    crossing of the *approximate* f_u − 1/2 while sharing each solve across all nodes; the
    result is then an approximate curve (``solver`` 'cg'/'pcg', ``exact`` False).

    Parameters
    ----------
    model : SoftLabelModel
    y_unlabeled : ndarray of shape (n_unlabeled,)
        True binary labels of the unlabeled nodes (``model.unlabeled_idx`` order).
    sigma_min, sigma_max : float
        The σ range, 0 < σ_min < σ_max (PCA-space distance units).
    rtol : float, default=1e-9
        Relative location tolerance of each breakpoint.
    grid_ratio : float, default=1.05
        Largest ratio between neighbouring σ of the starting grid.
    touch : float, default=0.05
        Split an interval where some node's interpolant of |f_u − 1/2| dips inside it to
        below ``touch`` and below half its smaller end value.
    solver : {'exact', 'inverse', 'cg', 'pcg'}, default='exact'
    cg_iters : int, default=20
    certify_cap : int, optional
        CG/PCG only: the certified search. Every σ's soft labels come from
        :meth:`SoftLabelModel.certified_labels` (each node's side of 1/2 proven, or an exact
        fallback), so the curve has the exact curve's pieces; ``certificates`` says where
        the proofs held.
    max_evaluations : int, default=4000
        Budget for the search of hidden pairs of crossings (interval splitting). Past it,
        only sign changes between evaluated σ are refined and ``complete`` is False —
        this happens at very small σ, where derivatives lose accuracy.
    progress : callable, optional
        ``progress(fraction_done, message)``: fraction of the σ range searched (log scale;
        non-decreasing, 0 first and 1 last, about every 1 %), message such as
        "σ 412 of ~900 evaluated, 37 breakpoints".
    on_event : callable, optional
        The search's event log (:func:`sslviz.intervals.sweep` with ``record=True`` builds
        :class:`sslviz.intervals.Event` from it): ``on_event(kind, **fields)`` in the order
        things happen. ``kind`` 'grid' (a σ of the starting grid evaluated), 'split' (a
        midpoint the Hermite test asked for), 'degenerate' (a σ evaluated to locate a change
        of the degenerate set): fields ``at`` (σ), ``bracket`` (the σ cell searched, NaN for
        the grid), ``loss`` (the curve's loss at σ), ``degenerate`` (count), ``nodes`` (up
        to 24 nodes nearest to 1/2 there) and ``f`` (their soft labels); 'refine' (one step
        of the crossing search): ``at``, ``node`` (whose proposal was evaluated),
        ``bracket`` (that node's before the step), ``rule`` ('Hermite-cubic root', 'Newton',
        'bisection', 'secant (Illinois)'), ``nodes`` (all nodes refined in the cell), ``f``
        (theirs at σ), ``cell``, ``loss``; 'breakpoint' (a node's crossing located):
        ``at``, ``node``, ``bracket``, ``cell``, ``nodes``, ``f``. Neither argument changes
        the result.
    on_part : callable, optional
        ``on_part(part)``: a :class:`CurvePart`, the curve as far as it is known while the
        search runs (large graphs, where the Chebyshev search of docs/method.md §5.3
        pays): the curve on [σ_min, s], every breakpoint below s found, s growing as the
        search's cells are resolved in σ order; its pieces are those of the result below
        s. It changes no number; it is not called where the search has no such parts.

    Returns
    -------
    LossCurve
        With ``solver`` as given.
    """
    t0 = time.perf_counter()
    caller = "true_loss_curve"
    lo, hi = check_sigma_range(sigma_min, sigma_max, caller)
    rtol = check_real("rtol", rtol, caller, low=1e-15, high=1e-3)
    grid_ratio = check_real("grid_ratio", grid_ratio, caller, low=1.0, closed="neither")
    y_u = np.asarray(y_unlabeled)
    if on_event is None:
        ev = LabelOracle(model, y_u, solver, cg_iters, certify_cap)
    else:
        ev = _Watched(model, y_u, solver, cg_iters, certify_cap, on_event=on_event)
    tick = SearchProgress(progress, lo, hi) if progress is not None else None
    roots: list[tuple[float, int]] = []
    rest = [(lo, hi)]
    if chebyshev_pays(model, solver, certify_cap, on_event):
        reached = _parts(
            on_part, hi, lambda s, r: _assemble(ev, lo, s, r, [], y_u, t0, rtol, partial=True)
        )
        roots, rest = chebyshev_search(ev, lo, hi, rtol, max_evaluations, tick, reached)
    elif on_event is None:
        found = compiled_search(ev, lo, hi, grid_ratio, rtol, touch, max_evaluations, tick)
        if found is not None:
            curve = _assemble(ev, lo, hi, found, [], y_u, t0, rtol)
            if tick is not None:
                tick(hi, len(ev.cache), curve.breakpoints.size, final=True)
            return replace(curve, complete=len(ev.cache) < max_evaluations)
    deg_changes = _hermite_search(
        ev, rest, roots, grid_ratio, rtol, touch, max_evaluations, tick, on_event
    )
    if on_event is not None:
        ev.context, ev.cell = "degenerate", (lo, hi)  # _assemble reads right of a change
    curve = _assemble(ev, lo, hi, roots, deg_changes, y_u, t0, rtol)
    if tick is not None:
        tick(hi, len(ev.cache), curve.breakpoints.size, final=True)
    certs = _certificates(ev, curve.evaluations)
    return replace(curve, complete=len(ev.cache) < max_evaluations, certificates=certs)


@dataclass(frozen=True, eq=False)
class CurvePart:
    """What the search of an exact curve has found so far (``on_part`` of
    :func:`true_loss_curve` and :func:`multiclass_loss_curve`).

    Attributes
    ----------
    curve : LossCurve
        The curve on [σ_min, ``reached``]: every breakpoint below ``reached`` found, its
        pieces those of the whole curve (the last one cut at ``reached``); ``complete``
        False.
    sigma_max : float
        The end of the range searched.
    """

    curve: LossCurve
    sigma_max: float
    complete = False

    @property
    def reached(self) -> float:
        """The σ up to which every breakpoint is found."""
        return float(self.curve.loss.edges[-1])

    @property
    def fraction(self) -> float:
        """The share of [σ_min, σ_max] searched (log scale, as the search's progress)."""
        lo = float(self.curve.loss.edges[0])
        return float(np.log(self.reached / lo) / np.log(self.sigma_max / lo))

    def status(self) -> str:
        """How far it is, in words: "σ up to 1.82 of [0.7, 3.1] so far"."""
        return range_so_far(self.reached, float(self.curve.loss.edges[0]), self.sigma_max)

    def missing(self) -> str:
        """What is missing, in words: "37 breakpoints found, σ from 0.7 to 1.82; σ from
        1.82 to 3.1 is missing."."""
        m, lo = self.curve.breakpoints.size, float(self.curve.loss.edges[0])
        found = f"{m} breakpoint{'s' * (m != 1)} found, σ from {lo:g} to {self.reached:.4g}"
        return range_missing(found, self.reached, self.sigma_max)


def _parts(
    on_part: Callable[[CurvePart], None] | None,
    hi: float,
    assemble: Callable[[float, list], LossCurve],
) -> Callable[[float, list], None] | None:
    """The ``reached(s, roots)`` of :func:`sslviz.crossings.chebyshev_search` that hands
    ``on_part`` the curve on [σ_min, s] (``assemble(s, roots)``) while s < ``hi``: the
    whole curve is the search's result."""
    if on_part is None:
        return None

    def reached(s: float, roots: list) -> None:
        if s < hi:
            on_part(CurvePart(replace(assemble(s, list(roots)), complete=False), hi))

    return reached


def _hermite_search(
    ev: LabelOracle, rest, roots, grid_ratio, rtol, touch, max_evaluations, tick, on_event
) -> list[float]:
    """The Hermite search (docs/method.md §5.2) of the σ intervals ``rest``: every crossing
    of 0 of the oracle's functions appended to ``roots`` as ``(σ, index)``; returns the σ
    where the degenerate set changes."""
    stack = []
    for a0, b0 in rest:
        grid = hermite_grid(a0, b0, grid_ratio)
        ev.prefetch(grid)  # one batched call where the model solves many σ at once
        stack.extend((grid[i], grid[i + 1]) for i in range(grid.size - 1))
    stack.reverse()
    deg_changes: list[float] = []
    while stack:
        a, b = stack.pop()
        if on_event is not None:
            ev.context = "split"  # a new σ here is the midpoint of the last split, ev.cell
        ea, eb = ev(a), ev(b)
        if tick is not None:
            tick(a, len(ev.cache), len(roots))
        if not np.array_equal(ea[2], eb[2]):
            if on_event is not None:
                ev.context, ev.cell = "degenerate", (a, b)
            cuts = refine_degenerate(ev, a, b, rtol)
            deg_changes.extend(cuts)
            pts = [a, *cuts, b]
            # Search crossings on each side, just off the change points.
            for p, q in zip(pts[:-1], pts[1:], strict=True):
                p2 = p if p == a else p * (1 + rtol)
                q2 = q if q == b else q * (1 - rtol)
                if q2 > p2 and np.array_equal(ev(p2)[2], ev(q2)[2]):
                    stack.append((p2, q2))
            continue
        if (
            (b - a) > MIN_WIDTH * a
            and len(ev.cache) < max_evaluations
            and needs_split(a, b, ea, eb, touch)
        ):
            m = 0.5 * (a + b)
            stack.extend([(m, b), (a, m)])
            if on_event is not None:
                ev.cell = (a, b)
            continue
        ok = ~(ea[2] | eb[2])
        # A root exactly at a is counted by the interval ending at a.
        crossing = np.flatnonzero(ok & (np.sign(ea[0]) != np.sign(eb[0])) & (ea[0] != 0))
        if crossing.size:
            if on_event is not None:
                ev.context = "refine"
            idle = ev.idle(crossing, ea, eb)
            if idle.any():  # roots that change no node's loss: anywhere in the cell will do
                x = a - ea[0][crossing[idle]] * (b - a) / (eb[0] - ea[0])[crossing[idle]]
                roots.extend(zip(x.tolist(), crossing[idle].tolist(), strict=True))
                crossing = crossing[~idle]
            found = refine_roots(ev, crossing, a, b, rtol, on_event) if crossing.size else []
            roots.extend(zip(np.asarray(found).tolist(), crossing.tolist(), strict=True))
    return deg_changes


def _assemble(
    ev: LabelOracle,
    lo,
    hi,
    roots,
    deg_changes,
    y_u,
    t0,
    rtol,
    parameter: str = "sigma",
    partial: bool = False,
) -> LossCurve:
    """The curve on [lo, hi] from the roots and the changes of the degenerate set found in
    it; ``partial``: [lo, hi] is the start of a range still being searched (the evaluations
    past ``hi`` are left out)."""
    groups = _event_groups(lo, hi, roots, deg_changes, rtol)
    wrong = ev.wrong(lo).copy()
    start = wrong.copy()
    n_u = y_u.size
    edges, values, nodes = [lo], [wrong.mean() if n_u else 0.0], []
    for g in groups:
        x = g[-1][0]
        changed = np.zeros(n_u, bool)
        for _, u in g:
            if u >= 0:
                changed[u] ^= True
        if any(u < 0 for _, u in g):  # degenerate-set change: read the right side
            after = ev.wrong(x * (1 + rtol))
            changed = after != wrong
        if not changed.any():
            continue
        wrong = wrong ^ changed
        edges.append(float(g[len(g) // 2][0]))  # an event value, not an average
        values.append(wrong.mean())
        nodes.append(np.flatnonzero(changed))
    edges.append(hi)
    loss = PiecewiseLoss(np.array(edges), np.array(values))
    # Check every evaluation against the pieces (evaluations at a breakpoint excluded).
    sig = _evaluated(ev.cache, hi, partial)
    piece_wrong = [start]
    for nd in nodes:
        w = piece_wrong[-1].copy()
        w[nd] ^= True
        piece_wrong.append(w)
    n_degenerate = lambda a: int(ev.cache[a][2].sum())  # noqa: E731
    return _curve(
        ev, loss, nodes, start, piece_wrong, sig, n_degenerate, t0, rtol, n_u, parameter=parameter
    )


@one_thread
def threshold_loss_curve(
    model: SoftLabelModel, y_unlabeled: np.ndarray, r_min: float, r_max: float
) -> LossCurve:
    """Exact l(r) of the thresholded mutual-kNN family on [r_min, r_max].

    The graph 1[d_ij ≤ r] only changes at edge lengths, so l(r) is evaluated once per
    distinct edge length in the range (right-continuous pieces: an edge of length d is
    present from r = d on).
    """
    t0 = time.perf_counter()
    lo, hi = check_sigma_range(r_min, r_max, "threshold_loss_curve")
    y_u = np.asarray(y_unlabeled)
    lengths = model.graph.edge_lengths()
    cuts = lengths[(lengths > lo) & (lengths < hi)]

    class _R(LabelOracle):
        def __call__(self, r):
            hit = self.cache.get(r)
            if hit is None:
                sl = self.model.soft_labels_at_radius(r)
                self.solves += sl.solves
                self.factorizations += sl.factorizations
                hit = self.cache[r] = (sl.f - 0.5, np.zeros_like(sl.f), sl.degenerate)
            return hit

    ev = _R(model, y_u)
    prev = ev.wrong(lo)
    roots = []
    for c in cuts:
        w = ev.wrong(c)
        roots.extend((float(c), int(u)) for u in np.flatnonzero(w != prev))
        prev = w
    return _assemble(ev, lo, hi, roots, [], y_u, t0, 1e-12, parameter="r")


@one_thread
def multiclass_threshold_loss_curve(
    model: SoftLabelModel, y: np.ndarray, classes: tuple[int, ...], r_min: float, r_max: float
) -> LossCurve:
    """Exact l(r) of the thresholded mutual-kNN family for C ≥ 3 classes one-vs-all
    (docs/method.md §5.5, §13): as :func:`threshold_loss_curve`, the scores (one column
    per class, the model relabeled one-hot) evaluated once per distinct edge length in the
    range, a node wrong where its argmax is not its class or it is cut off from L. Each
    breakpoint's rival (``against``) is the best other class on the side where the node is
    wrong (−1 where its link to L changes).

    Parameters
    ----------
    model : SoftLabelModel
        With :meth:`SoftLabelModel.relabeled` and :meth:`SoftLabelModel.soft_labels_at_radius`.
    y : ndarray of shape (n,)
        Class indices in {0, …, C − 1} of every point.
    classes : tuple of int
        The original labels (C of them), kept in the curve.
    r_min, r_max : float
    """
    t0 = time.perf_counter()
    lo, hi = check_sigma_range(r_min, r_max, "multiclass_threshold_loss_curve")
    y = np.asarray(y)
    y_u = y[model.unlabeled_idx]
    columns = [model.relabeled((y == c).astype(float)) for c in range(len(classes))]
    lengths = model.graph.edge_lengths()
    cuts = lengths[(lengths > lo) & (lengths < hi)]
    rows = np.arange(y_u.size)
    scores: dict[float, tuple[np.ndarray, np.ndarray]] = {}  # r → (F, F with τ(u) at −∞)

    class _R(LabelOracle):
        def __call__(self, r):
            hit = self.cache.get(r)
            if hit is None:
                sc = stack_scores([m.soft_labels_at_radius(r) for m in columns])
                self.solves += sc.solves
                self.factorizations += sc.factorizations
                others = sc.F.copy()
                others[rows, y_u] = -np.inf
                margin = sc.F[rows, y_u] - others.max(axis=1)
                hit = self.cache[r] = (margin, np.zeros_like(margin), sc.degenerate)
                scores[r] = (sc.F, others)
            return hit

        def wrong(self, r):  # argmax: the first of equal scores
            deg = self(r)[2]
            return deg | (np.argmax(scores[r][0], axis=1) != self.y_u)

    ev = _R(model, y_u)
    prev_r, prev = lo, ev.wrong(lo)
    roots, rival = [], {}
    for c in cuts:
        w = ev.wrong(c)
        for u in np.flatnonzero(w != prev).tolist():
            roots.append((float(c), u))
            side = c if w[u] else prev_r  # the best other class where u is wrong
            deg = ev(side)[2][u]
            rival[(float(c), u)] = -1 if deg else int(np.argmax(scores[side][1][u]))
        prev_r, prev = c, w
    curve = _assemble(ev, lo, hi, roots, [], y_u, t0, 1e-12, parameter="r")
    against = [
        np.array([rival.get((float(b), int(u)), -1) for u in nd], np.int64)
        for b, nd in zip(curve.breakpoints, curve.nodes, strict=True)
    ]
    return replace(curve, classes=tuple(classes), against=against)


@one_thread
def multiclass_loss_curve(
    model: SoftLabelModel,
    y: np.ndarray,
    classes: tuple[int, ...],
    sigma_min: float,
    sigma_max: float,
    *,
    rtol: float = 1e-9,
    grid_ratio: float = 1.05,
    touch: float = 0.05,
    solver: str = "exact",
    cg_iters: int = CG_ITERS,
    certify_cap: int | None = None,
    max_evaluations: int = 4000,
    progress: Callable[[float, str], None] | None = None,
    on_part: Callable[[CurvePart], None] | None = None,
) -> LossCurve:
    """The loss of C ≥ 2 classes one-vs-all (argmax of the scores), every breakpoint
    located to ``rtol`` (docs/method.md §13).

    The searches of :func:`true_loss_curve` run on the gaps g = F_uτ − F_uc between each
    node's true class τ and every other class c, which are smooth in σ (the margin
    F_uτ − max_c F_uc has kinks where the rival changes); a node is right where all its
    gaps are positive. Where :func:`sslviz.crossings.chebyshev_pays_gaps` (the harmonic
    model on large graphs, exact or fixed-t scores) every gap on a cell is interpolated
    from one set of σ (the Chebyshev search), elsewhere the Hermite search runs.
    Assembled by each node's count of negative gaps: a root moves the count by one, a
    breakpoint is where some count moves between 0 and 1, and the other roots are
    dropped. Cut-off nodes count as wrong. With ``solver`` 'cg'/'pcg' it runs on the
    t-iteration scores (Algorithm 4's fast mode one-vs-all), and with ``certify_cap`` too
    on certified scores (every node's top class proven, §13), which give the exact
    curve's pieces.

    Parameters
    ----------
    model : SoftLabelModel
        With :meth:`SoftLabelModel.scores`.
    y : ndarray of shape (n,)
        Class indices in {0, …, C − 1} of every point (the instance's ``y``).
    classes : tuple of int
        The original labels (C of them), kept in the curve.
    sigma_min, sigma_max, rtol, grid_ratio, touch, solver, cg_iters, certify_cap,
    max_evaluations, progress, on_part
        As :func:`true_loss_curve`.

    Returns
    -------
    LossCurve
        With ``classes`` and ``against`` set.
    """
    t0 = time.perf_counter()
    caller = "multiclass_loss_curve"
    lo, hi = check_sigma_range(sigma_min, sigma_max, caller)
    rtol = check_real("rtol", rtol, caller, low=1e-15, high=1e-3)
    grid_ratio = check_real("grid_ratio", grid_ratio, caller, low=1.0, closed="neither")
    y = np.asarray(y)
    C = len(classes)
    pairs = true_class_pairs(y[model.unlabeled_idx], C)
    ev = GapOracle(model, y, C, pairs, solver, cg_iters, certify_cap)
    tick = SearchProgress(progress, lo, hi) if progress is not None else None
    roots: list[tuple[float, int]] = []
    rest = [(lo, hi)]
    if chebyshev_pays_gaps(model, solver, certify_cap):
        # Every gap on a cell from one set of solves: the σ are shared by all the pairs.
        reached = _parts(
            on_part,
            hi,
            lambda s, r: replace(
                _assemble_classes(ev, lo, s, r, [], t0, rtol, partial=True),
                classes=tuple(classes),
            ),
        )
        roots, rest = chebyshev_search(ev, lo, hi, rtol, max_evaluations, tick, reached)
    deg_changes = _hermite_search(
        ev, rest, roots, grid_ratio, rtol, touch, max_evaluations, tick, None
    )
    curve = _assemble_classes(ev, lo, hi, roots, deg_changes, t0, rtol)
    if tick is not None:
        tick(hi, len(ev.cache), curve.breakpoints.size, final=True)
    return replace(
        curve,
        complete=len(ev.cache) < max_evaluations,
        classes=tuple(classes),
        certificates=_certificates(ev, curve.evaluations),
    )


def split_loss_curve(
    model: SoftLabelModel,
    y: np.ndarray,
    classes: tuple[int, ...],
    sigma_min: float,
    sigma_max: float,
    parts: int,
    *,
    n_jobs: int = 1,
    dask: str | None = None,
    **options,
) -> LossCurve:
    """:func:`multiclass_loss_curve` searched on ``parts`` σ sub-ranges (geometric, equal
    ratios) as independent tasks, then joined (:func:`join_curves`): on ``n_jobs`` local
    processes or, with ``dask`` (a scheduler address), on a Dask cluster
    (:func:`sslviz._threads.map_tasks`). Each task's arithmetic is its own, so the result
    is the same bits however the tasks run; against one search of the whole range the
    breakpoints agree to the location tolerance (the sub-ranges evaluate other σ).
    ``options``: those of :func:`multiclass_loss_curve` (no ``progress``)."""
    lo, hi = check_sigma_range(sigma_min, sigma_max, "split_loss_curve")
    parts = check_int("parts", parts, "split_loss_curve", low=1)
    cuts = np.geomspace(lo, hi, parts + 1)
    cuts[0], cuts[-1] = lo, hi
    tasks = [
        (model, np.asarray(y), tuple(classes), float(a), float(b), options)
        for a, b in zip(cuts[:-1], cuts[1:], strict=True)
    ]
    return join_curves(map_tasks(_curve_task, tasks, n_jobs=n_jobs, dask=dask))


def _curve_task(task) -> LossCurve:
    model, y, classes, a, b, options = task
    return multiclass_loss_curve(model, y, classes, a, b, **options)


def join_curves(curves: list[LossCurve]) -> LossCurve:
    """One :class:`LossCurve` from curves on adjacent ranges (each starting where the last
    ends): the pieces, breakpoints and work in order; where the misclassified set at the
    start of a range differs from the one at the end of the range before, the joint is a
    breakpoint of the nodes that differ (rival −1: not located by a search)."""
    first = curves[0]
    edges, values = [first.loss.edges[:-1]], [first.loss.values]
    nodes, against = list(first.nodes), list(first.against or [[] for _ in first.nodes])
    wrong = _wrong_at_end(first)
    for c in curves[1:]:
        changed = np.flatnonzero(c.wrong_at_start != wrong)
        if changed.size:  # a breakpoint at the joint
            edges.append(c.loss.edges[:-1])
            values.append(c.loss.values)
            nodes.append(changed)
            against.append(np.full(changed.size, -1, np.int64))
        else:  # the first piece continues the last one
            edges.append(c.loss.edges[1:-1])
            values.append(c.loss.values[1:])
        nodes += list(c.nodes)
        against += list(c.against or [[] for _ in c.nodes])
        wrong = _wrong_at_end(c)
    edges.append(curves[-1].loss.edges[-1:])
    certs = [c.certificates for c in curves]
    return replace(
        first,
        loss=PiecewiseLoss(np.concatenate(edges), np.concatenate(values)),
        nodes=nodes,
        degenerate_ranges=[r for c in curves for r in c.degenerate_ranges],
        evaluations=np.unique(np.concatenate([c.evaluations for c in curves])),
        solves=sum(c.solves for c in curves),
        matvecs=sum(c.matvecs for c in curves),
        factorizations=sum(c.factorizations for c in curves),
        seconds=sum(c.seconds for c in curves),
        inconsistent=sum(c.inconsistent for c in curves),
        complete=all(c.complete for c in curves),
        certificates=None if any(x is None for x in certs) else _joined_certificates(certs),
        against=against if first.against is not None else None,
    )


def _wrong_at_end(curve: LossCurve) -> np.ndarray:
    """The misclassified set on a curve's last piece."""
    wrong = curve.wrong_at_start.copy()
    for nd in curve.nodes:
        wrong[nd] ^= True
    return wrong


def _joined_certificates(certs: list[Certificates]) -> Certificates:
    sigma, at = np.unique(np.concatenate([c.sigma for c in certs]), return_index=True)
    iterations = np.concatenate([c.iterations for c in certs])[at]
    certified = np.concatenate([c.certified for c in certs])[at]
    return Certificates(sigma, iterations, certified)


def _certificates(ev: LabelOracle, evaluations: np.ndarray) -> Certificates | None:
    """What a certified search proved at each σ it evaluated (None: not certified)."""
    if ev.certify_cap is None:
        return None
    fallback = set(ev.fallbacks)
    return Certificates(
        evaluations,
        np.array([ev.iterations[s] for s in evaluations], int),
        np.array([s not in fallback for s in evaluations], bool),
    )


def _assemble_classes(
    ev: GapOracle, lo, hi, roots, deg_changes, t0, rtol, partial: bool = False
) -> LossCurve:
    """:func:`_assemble` for the true-class gaps of :class:`GapOracle`: a node is right
    while none of its gaps is negative; the breakpoints are the events that flip some
    node's rightness, the other roots are dropped."""
    groups = _event_groups(lo, hi, roots, deg_changes, rtol)
    n_u = ev.y_u.size
    per_node = ev.n_classes - 1

    def positive(sigma: float) -> np.ndarray:  # (n_u, C − 1): which gaps are positive
        return (ev(sigma)[0] > 0).reshape(n_u, per_node)

    signs = positive(lo).copy()
    deg = ev.scores[lo][1].copy()
    wrong = deg | ~signs.all(axis=1)
    start = wrong.copy()
    edges, values, nodes, against = [lo], [wrong.mean() if n_u else 0.0], [], []
    piece_wrong = [start]
    for g in groups:
        x = g[-1][0]
        rival: dict[int, int] = {}
        for _, p in g:
            if p >= 0:
                u, k = divmod(p, per_node)
                signs[u, k] ^= True
                rival[u] = int(ev.b[p])
        if any(p < 0 for _, p in g):  # degenerate-set change: read the right side
            right = x * (1 + rtol)
            signs, deg = positive(right).copy(), ev.scores[right][1].copy()
        count = (~signs).sum(axis=1)
        after = deg | (count > 0)
        changed = after != wrong
        wrong = after
        if not changed.any():
            continue
        moved = np.flatnonzero(changed)
        edges.append(float(g[len(g) // 2][0]))  # an event value, not an average
        values.append(wrong.mean())
        nodes.append(moved)
        against.append(np.array([rival.get(int(u), -1) for u in moved], np.int64))
        piece_wrong.append(wrong.copy())
    edges.append(hi)
    loss = PiecewiseLoss(np.array(edges), np.array(values))
    sig = _evaluated(ev.cache, hi, partial)
    n_degenerate = lambda a: int(ev.scores[a][1].sum())  # noqa: E731
    return _curve(
        ev, loss, nodes, start, piece_wrong, sig, n_degenerate, t0, rtol, n_u, against=against
    )


def _evaluated(cache, hi: float, partial: bool) -> np.ndarray:
    """The σ evaluated (an oracle's ``cache``), sorted; ``partial``: those up to ``hi``."""
    return np.array(sorted(cache if not partial else (s for s in cache if s <= hi)))


def _curve(ev, loss, nodes, start, piece_wrong, sig, n_degenerate, t0, rtol, n_u, **more):
    """The :class:`LossCurve` both assemblies end with: the pieces, every evaluation at
    ``sig`` checked against them, the degenerate ranges (``n_degenerate(σ)`` cut-off nodes)
    and the oracle's counts; ``more``: ``parameter`` or ``against``."""
    inconsistent = _inconsistent(loss, piece_wrong, sig, rtol, ev.wrong, n_u)
    deg_ranges = _degenerate_ranges(sig, n_degenerate)
    return LossCurve(
        loss,
        nodes,
        start,
        deg_ranges,
        sig,
        ev.solves,
        ev.matvecs,
        ev.factorizations,
        time.perf_counter() - t0,
        ev.solver,
        inconsistent,
        **more,
    )


def _event_groups(lo, hi, roots, deg_changes, rtol) -> list[list[tuple[float, int]]]:
    """The roots ``(σ, index)`` and the changes of the degenerate set ``(σ, −1)`` inside
    (lo, hi), sorted, events closer than the location tolerance merged into one group."""
    events = sorted(
        [(r, u) for r, u in roots if lo < r < hi] + [(c, -1) for c in deg_changes if lo < c < hi]
    )
    groups: list[list[tuple[float, int]]] = []
    for e in events:
        if groups and e[0] - groups[-1][-1][0] <= 2 * rtol * e[0]:
            groups[-1].append(e)
        else:
            groups.append([e])
    return groups


def _inconsistent(loss, piece_wrong, sig, rtol, wrong_at, n_u) -> int:
    """Evaluated σ (away from every breakpoint) whose misclassified set is not its piece's."""
    if not sig.size:
        return 0
    brk = loss.breakpoints
    near = np.zeros(sig.size, bool)
    if brk.size:
        at = np.searchsorted(brk, sig)
        below = np.abs(brk[np.maximum(at - 1, 0)] - sig)
        above = np.abs(brk[np.minimum(at, brk.size - 1)] - sig)
        near = np.minimum(below, above) <= 4 * rtol * sig
    check = np.flatnonzero(~near)
    seen = np.array([wrong_at(s) for s in sig[check]]).reshape(check.size, n_u)
    expected = np.array(piece_wrong)[loss.piece_index(sig[check])].reshape(check.size, n_u)
    return int(np.count_nonzero((seen != expected).any(axis=1)))


def _degenerate_ranges(sig, count) -> list:
    """Runs of evaluated σ with the same positive number ``count(σ)`` of cut-off nodes."""
    out = []
    for a, b in zip(sig[:-1], sig[1:], strict=True):
        c = count(a)
        if c:
            if out and out[-1][1] == a and out[-1][2] == c:
                out[-1] = (out[-1][0], b, c)
            else:
                out.append((a, b, c))
    return out
