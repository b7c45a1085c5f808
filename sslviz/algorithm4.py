"""Algorithm 4: constant-loss intervals, as in the paper (paper mode) and in one search
(fast mode).

Paper mode (Algorithm 4 with Appendix E.1–E.2): from a start σ0, every unlabeled node u
runs its own hybrid iteration on g_u(σ) = (f_u(σ) − 1/2)², g'_u = 2(f_u − 1/2) f'_u,
stepping by the smaller (in magnitude) of the gradient step ξ_GD = η g'_u (with
Nesterov momentum) and the Newton step ξ_N = 2 g_u / g'_u. It stops when both |Δσ| and
|Δf_u| fall below ε, when it leaves the current bracket [σ_l, σ_h], or after
``max_iter`` steps. A converged root right of σ0 lowers σ_h, one left of σ0 raises σ_l.
The sweep starts at σ_min and restarts at σ_h + step. The nodes are iterated side by
side, so one batched solve serves every running node (:func:`_bracket` says why the
result is still exactly that of the paper's loop over u one node at a time).

Fast mode (docs/method.md §6.2): one search for every crossing of the approximate
f_u(σ) − 1/2 over the whole range, each solve serving all nodes at once (the adaptive
Hermite grid and safeguarded Newton of :mod:`sslviz.truth`, run on the chosen solver).
Its intervals are the pieces between consecutive approximate crossings.

Event log: ``sweep(..., record=True)`` keeps what the sweep did, step by step, in
``Sweep.events`` (a list of :class:`Event`; the player page and
:mod:`sslviz.animation` replay it). Recording only reads: the intervals are the same, bit
for bit, as without it.

Scoring the intervals against the exact curve: :mod:`sslviz.scoring`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from sslviz import _kernels
from sslviz._threads import one_thread
from sslviz._validation import (
    InvalidParameterError,
    check_int,
    check_option,
    check_real,
    check_sigma_range,
)
from sslviz.labeling import SoftLabelModel
from sslviz.oracle import LabelOracle
from sslviz.piecewise import PiecewiseLoss
from sslviz.specs import SweepSettings
from sslviz.truth import Certificates, LossCurve, multiclass_loss_curve, true_loss_curve
from sslviz.words import range_missing, range_so_far

STEP_RULES = ("hybrid", "gradient", "newton")
_RULES = {rule: i for i, rule in enumerate(STEP_RULES)}  # sslviz._kernels.paper_step's codes
EVENT_KINDS = (
    "start",
    "step",
    "bracket",
    "interval",
    "grid",
    "split",
    "degenerate",
    "refine",
    "breakpoint",
)
"""Kinds of :class:`Event`: paper mode 'start' (an interval's search begins at σ0), 'step'
(the running nodes took one step), 'bracket' (a step in which [σ_l, σ_h] moved),
'interval'; fast mode 'grid', 'split', 'degenerate' (a σ evaluated: on the starting grid,
at a midpoint the Hermite test asked for, locating a change of the degenerate set),
'refine' (one step of the crossing search), 'breakpoint' (a crossing located),
'interval' (the pieces between the crossings, at the end)."""


@dataclass(frozen=True)
class Interval:
    """An estimated constant-loss interval.

    ``lo_node``/``hi_node`` are the unlabeled nodes (indices into
    ``model.unlabeled_idx``) whose roots set each endpoint, or -1 for a range end.
    """

    lo: float
    hi: float
    loss: float
    sigma0: float
    lo_node: int = -1
    hi_node: int = -1
    solves: int = 0
    matvecs: int = 0
    seconds: float = 0.0
    factorizations: int = 0


@dataclass(frozen=True)
class Iterate:
    """One step of a node's iteration (for the paper's Figure 2)."""

    sigma: float
    f: float
    g: float
    step: str  # the step taken from here: 'gradient' | 'newton' | 'end'


@dataclass(frozen=True, eq=False)
class Event:
    """One step of a recorded sweep (``sweep(..., record=True)``; kinds in
    :data:`EVENT_KINDS`).

    Attributes
    ----------
    step : int
        Position in the log, 0-based (the player shows ``step + 1`` of ``len(events)``).
    kind : str
    sigma0 : float
        Paper mode: the start σ0 of the interval being searched; fast mode: NaN.
    bracket : (float, float)
        Paper mode: the current [σ_l, σ_h]; fast mode: the σ cell being searched ('grid':
        NaN), for 'refine' and 'breakpoint' the node's own bracket of its crossing.
    nodes : ndarray of int, shape (k,)
        Paper mode: the nodes still running (indices into ``model.unlabeled_idx``); fast
        mode: the nodes refined in the cell ('refine'), the node found ('breakpoint'), the
        nodes nearest to 1/2 at the evaluated σ (evaluations).
    sigma, f : ndarray of shape (k,)
        Their current σ (iterate) and soft label there.
    node : int
        The node the step is about (-1: none).
    at : float
        σ of what happened: the evaluated σ, the root, the breakpoint (NaN: none).
    loss : float
        Fast mode: the approximate loss at ``at`` (evaluations and 'refine'); an
        'interval' event: the interval's loss.
    interval : Interval or None
        The interval an 'interval' event adds.
    text : str
        The caption with its nodes as ``{0}``, ``{1}``… placeholders for ``names`` (see
        :meth:`describe`); :attr:`caption` names them "node u".
    names : tuple of int
        Nodes named in ``text``.
    """

    step: int
    kind: str
    sigma0: float
    bracket: tuple[float, float]
    nodes: np.ndarray
    sigma: np.ndarray
    f: np.ndarray
    node: int = -1
    at: float = math.nan
    loss: float = math.nan
    interval: Interval | None = None
    text: str = ""
    names: tuple[int, ...] = ()

    @property
    def g(self) -> np.ndarray:
        """g_u = (f_u − 1/2)² of the nodes, shape (k,)."""
        return (self.f - 0.5) ** 2

    @property
    def caption(self) -> str:
        """One line saying what happened, nodes named "node u" (unlabeled index)."""
        return self.describe()

    def describe(self, rows: Sequence[int] | None = None) -> str:
        """The caption with each node named "row r" (``rows[u]``, its instance row) when
        ``rows`` is given, else "node u"."""
        return self.text.format(
            *(f"row {rows[u]}" if rows is not None else f"node {u}" for u in self.names)
        )


def _g(x: float) -> str:
    return f"{x:.4g}"


class _Recorder:
    """Builds a sweep's :class:`Event` list (paper mode from :func:`_bracket`, fast mode
    from :func:`sslviz.truth.true_loss_curve`'s ``on_event``)."""

    def __init__(self, y_u: np.ndarray, gap: bool = False) -> None:
        self.y_u = y_u
        self.gap = gap  # C ≥ 3 paper mode: the nodes' f is ½ + their top-two gap (TopTwo)
        self.events: list[Event] = []
        self.sigma0 = math.nan
        self.intervals = 0

    def emit(
        self,
        kind: str,
        *,
        bracket,
        nodes=(),
        sigma=None,
        f=(),
        node=-1,
        at=math.nan,
        loss=math.nan,
        interval=None,
        text="",
        names=(),
    ) -> None:
        nodes = np.array(nodes, dtype=int)
        f = np.array(f, dtype=float)
        sigma = np.full(nodes.size, at, float) if sigma is None else np.array(sigma, float)
        for a in (nodes, sigma, f):
            a.setflags(write=False)
        self.events.append(
            Event(
                len(self.events),
                kind,
                float(self.sigma0),
                (float(bracket[0]), float(bracket[1])),
                nodes,
                sigma,
                f,
                int(node),
                float(at),
                float(loss),
                interval,
                text,
                tuple(int(u) for u in names),
            )
        )

    # -- paper mode ---------------------------------------------------------------------

    def start(self, sigma0: float, lo: float, hi: float, run, n: int, loss: float) -> None:
        self.sigma0 = sigma0
        self.intervals += 1
        k = run.u.size
        who = (
            f"{{0}} starts from σ0 (the {n} nodes run one at a time)"
            if k == 1
            else f"all {n} nodes start from σ0, side by side"
            if k == n
            else f"the first {k} of {n} nodes start from σ0, side by side"
        )
        self.emit(
            "start",
            bracket=(lo, hi),
            nodes=run.u,
            sigma=run.sigma,
            f=run.f,
            at=sigma0,
            loss=loss,
            names=run.u[:1] if k == 1 else (),
            text=f"interval {self.intervals}: σ0 = {_g(sigma0)}, l̃(σ0) = {loss:.3g}; "
            f"{who} · bracket [{_g(lo)}, {_g(hi)}]",
        )

    def step(self, run, stepped: int, notes: list, before, lo: float, hi: float) -> None:
        moved = (lo, hi) != before
        # a root superseded by a later, tighter one in the same pass: counted, not named
        last = {t[0]: t for t in notes if t[0] in ("hi", "lo")}
        extra = sum(t[0] in ("hi", "lo") for t in notes) - len(last)
        notes = [t for t in notes if t[0] not in ("hi", "lo") or last[t[0]] is t]
        order = {"hi": 0, "lo": 0, "left": 1, "ignored": 2}
        notes = sorted(notes, key=lambda t: order.get(t[0], 3))
        names, parts = [], []
        for what, u, x, *how in notes[:2]:
            i = "{" + str(len(names)) + "}"
            names.append(u)
            rule = how[0] if how else ""
            parts.append(
                {
                    "hi": f"{i}'s root lowers σ_h to {_g(x)}",
                    "lo": f"{i}'s root raises σ_l to {_g(x)}",
                    "left": f"{i}'s {rule} step left the bracket (to σ = {_g(x)})"
                    if rule != "parked"
                    else f"{i}'s waiting iterate σ = {_g(x)} is outside the bracket",
                    "ignored": f"{i}'s root at σ = {_g(x)} does not count (not inside the "
                    "bracket, or its iterates left it)",
                    "stalled": f"{i} stalled at σ = {_g(x)}, away from "
                    + ("a root of its top-two gap" if self.gap else "1/2"),
                    "cap": f"{i} hit the iteration cap at σ = {_g(x)}",
                    "flat": f"{i} stopped at σ = {_g(x)}: g' = 0",
                    "degenerate": f"{i} is cut off from L",
                }[what]
            )
        if len(notes) + extra > 2:
            parts.append(f"{len(notes) + extra - 2} more stopped or settled")
        if stepped == 1 and run.u.size == 1 and not notes:
            names.append(run.u[0])
            f0 = float(run.f[0]) - 0.5 * self.gap
            f0 = f0 if abs(f0) >= 5e-5 else 0.0
            said = "F_ua − F_ub" if self.gap else "f"
            head = f"{{{len(names) - 1}}} steps to σ = {_g(run.sigma[0])} ({said} = {f0:.4f})"
        else:
            head = (
                f"{stepped} nodes step"
                if stepped > 1
                else "1 node steps"
                if stepped
                else "settling"
            )
        text = head + (": " + "; ".join(parts) if parts else "")
        text += f" · bracket [{_g(lo)}, {_g(hi)}]"
        self.emit(
            "bracket" if moved else "step",
            bracket=(lo, hi),
            nodes=run.u,
            sigma=run.sigma,
            f=run.f,
            node=notes[0][1] if notes else -1,
            at=notes[0][2] if notes else math.nan,
            names=names,
            text=text,
        )

    def interval(self, iv: Interval, index: int) -> None:
        names, ends = [], []
        for side, u in (("σ_l", iv.lo_node), ("σ_h", iv.hi_node)):
            if u >= 0:
                ends.append(f"{side} set by {{{len(names)}}}")
                names.append(u)
            else:
                ends.append(f"{side} by the range end")
        self.emit(
            "interval",
            bracket=(iv.lo, iv.hi),
            at=iv.sigma0,
            loss=iv.loss,
            interval=iv,
            node=iv.hi_node,
            names=names,
            text=f"interval {index} found: [{_g(iv.lo)}, {_g(iv.hi)}], l̃ = "
            f"{iv.loss:.3g}; " + ", ".join(ends),
        )

    # -- fast mode ----------------------------------------------------------------------

    def fast(
        self,
        kind: str,
        *,
        at,
        bracket=(math.nan, math.nan),
        nodes=(),
        f=(),
        node=-1,
        loss=math.nan,
        rule="",
        cell=None,
        degenerate=0,
    ) -> None:
        a, b = bracket
        if kind == "grid":
            text = f"σ = {_g(at)} evaluated on the starting grid: loss {loss:.3g}"
        elif kind == "split":
            text = (
                f"the Hermite test split [{_g(a)}, {_g(b)}] (a pair of crossings may hide "
                f"there): σ = {_g(at)} evaluated, loss {loss:.3g}"
            )
        elif kind == "degenerate":
            text = (
                f"σ = {_g(at)} evaluated to locate where nodes get cut off from L "
                f"({degenerate} cut off): loss {loss:.3g}"
            )
        elif kind == "refine":
            text = (
                f"{rule} step for {{0}}'s crossing: σ = {_g(at)} in [{_g(a)}, {_g(b)}], "
                f"f = {float(f[list(nodes).index(node)]):.4f}"
            )
        else:
            text = f"breakpoint: {{0}} crosses 1/2 at σ = {_g(at)}"
        self.emit(
            kind,
            bracket=bracket,
            nodes=nodes,
            f=f,
            node=node,
            at=at,
            loss=loss,
            names=(node,) if node >= 0 else (),
            text=text,
        )


@dataclass(frozen=True, eq=False)
class Sweep:
    """Intervals covering (part of) [σ_min, σ_max] and the work they took.

    ``certificates`` (certified fast mode only): the :class:`sslviz.truth.Certificates` of
    every σ the search evaluated. ``curve`` (fast mode only): the approximate loss curve
    the intervals are the pieces of (its ``evaluations`` are the σ the search solved at).
    ``events`` (``sweep(..., record=True)`` only): the event log, a list of :class:`Event`.
    """

    intervals: list[Interval]
    sigma_min: float
    sigma_max: float
    settings: SweepSettings
    solves: int
    matvecs: int
    seconds: float
    complete: bool = True
    certificates: Certificates | None = None
    curve: LossCurve | None = None
    events: list[Event] | None = None
    factorizations: int = 0  # LU factorisations or inverses (direct solvers)

    @property
    def time_per_interval(self) -> float:
        return self.seconds / max(len(self.intervals), 1)

    def estimated_loss(self) -> PiecewiseLoss:
        """l̃ over the range; σ covered by no interval gets NaN (first interval wins)."""
        cuts = np.unique(
            np.r_[
                [self.sigma_min, self.sigma_max],
                [iv.lo for iv in self.intervals],
                [iv.hi for iv in self.intervals],
            ]
        )
        cuts = cuts[(cuts >= self.sigma_min) & (cuts <= self.sigma_max)]
        mids = 0.5 * (cuts[:-1] + cuts[1:])
        vals = np.full(mids.size, np.nan)
        for iv in reversed(self.intervals):
            vals[(mids >= iv.lo) & (mids <= iv.hi)] = iv.loss
        return PiecewiseLoss(cuts, vals)


def _oracle(model, settings: SweepSettings) -> LabelOracle:
    """Counted, uncached soft labels from the settings' solver (``.labels(σ)``)."""
    return LabelOracle(model, None, settings.solver, settings.cg_iters)


def _wrong_fraction(sl, y_u: np.ndarray) -> float:
    if isinstance(sl, TopTwo):
        wrong = sl.degenerate | (sl.top != y_u)
    else:
        wrong = sl.degenerate | ((sl.f > 0.5) != (y_u == 1))
    return float(wrong.mean()) if wrong.size else 0.0


class TopTwo(NamedTuple):
    """Paper mode's reading of C ≥ 3 one-vs-all scores at one σ (docs/method.md §13.8), one
    entry per unlabeled node: ``f`` = ½ + (F_ua − F_ub), a the top class and b the
    runner-up at that σ, so (f − ½)² = g_u; ``df`` = F'_ua − F'_ub; ``top`` = a (the
    prediction); ``runner_up`` = b; ``degenerate`` as the scores'."""

    f: np.ndarray
    df: np.ndarray
    degenerate: np.ndarray
    top: np.ndarray
    runner_up: np.ndarray


def top_two(scores) -> TopTwo:
    """:class:`TopTwo` of one σ's :class:`sslviz.labeling.Scores` (ties: the first of equal
    scores wins, as the argmax; a cut-off node's gap is 0)."""
    F, dF = scores.F, scores.dF
    order = np.argsort(-F, axis=1, kind="stable")
    a, b = order[:, 0], order[:, 1]
    rows = np.arange(F.shape[0])
    gap = F[rows, a] - F[rows, b]
    dgap = dF[rows, a] - dF[rows, b]
    return TopTwo(0.5 + gap, dgap, scores.degenerate, a, b)


class _TopTwoOracle:
    """Algorithm 4's paper-mode oracle for C ≥ 3 classes: the one-vs-all scores of
    ``settings``' solver (t iterations per column for CG/PCG) read as :class:`TopTwo`, so the
    binary iteration runs on g_u = (F_ua − F_ub)² unchanged, the runner-up re-read at every
    σ; the work counted as :class:`sslviz.oracle.LabelOracle` counts it."""

    def __init__(self, model, y: np.ndarray, n_classes: int, settings: SweepSettings) -> None:
        self.model, self.y, self.n_classes, self.s = model, np.asarray(y), n_classes, settings
        self.solves = self.matvecs = self.factorizations = 0

    def labels_many(self, sigmas) -> list[TopTwo]:
        out = []
        for sc in self.model.scores(
            np.atleast_1d(np.asarray(sigmas, float)),
            self.y,
            self.n_classes,
            solver=self.s.solver,
            cg_iters=self.s.cg_iters,
            derivative=True,
        ):
            self.solves += sc.solves
            self.matvecs += sc.matvecs
            self.factorizations += sc.factorizations
            out.append(top_two(sc))
        return out

    def labels(self, sigma: float) -> TopTwo:
        return self.labels_many([sigma])[0]


class _NodeIterations:
    """Algorithm 4's inner loop for a set of nodes at once (one array entry per node).

    Each node's iterates are exactly those of the per-node loop: from σ0 it takes the
    smaller in magnitude of ξ_GD = η g'_u (with Nesterov momentum) and ξ_N = 2 g_u / g'_u,
    and stops when both |Δσ| and |Δf_u| fall below ε (a root if |f_u − 1/2| ≤ root_tol),
    when g'_u = 0, when it leaves the bracket, or after ``max_iter`` points. Running nodes
    side by side only lets one solve call serve all of them.
    """

    _PER_NODE = (
        "u",
        "sigma",
        "y_prev",
        "lam",
        "f_prev",
        "step",
        "it",
        "tmin",
        "tmax",
        "f",
        "df",
        "deg",
    )

    def __init__(self, nodes: np.ndarray, sigma0: float, first, settings: SweepSettings, rule):
        k = nodes.size
        self.s, self.rule = settings, rule
        self.u = nodes
        self.sigma = np.full(k, sigma0)
        self.y_prev = np.full(k, sigma0)
        self.lam = np.ones(k)
        self.f_prev = np.full(k, np.nan)
        self.step = np.full(k, np.inf)
        self.it = np.zeros(k, int)
        self.tmin, self.tmax = np.full(k, np.inf), np.full(k, -np.inf)  # iterates' extent
        self.f, self.df, self.deg = first.f[nodes], first.df[nodes], first.degenerate[nodes]
        self.stop = ("running", float("nan"))  # set by advance() when it records a trace

    def advance(
        self, lo: float, hi: float, trace: list | None = None, *, inner=None, explain: bool = False
    ):
        """One step of every node from its current point (soft labels known there).

        A node whose next point leaves [lo, hi] stops. ``inner`` = (lo_u, hi_u), per-node
        sub-brackets: a node whose next point leaves its own (but not [lo, hi]) moves
        there and is *parked*, to be fed only if that point turns out to be in its bracket.
        ``explain``: also set ``self.why`` = (stop reason per node, as
        :func:`_stop_reason`; next point; 'gradient' or 'Newton', the step taken).

        Returns ``(finished, root, parked)``: which nodes stopped (root NaN when not at a
        root) and which were parked; the rest moved to ``self.sigma`` and need soft labels
        there (:meth:`feed`). The step runs compiled (:func:`sslviz._kernels.paper_step`),
        the state arrays updated in place.
        """
        s = self.s
        f = self.f  # only read by the step; σ and the count move in place: keep them first
        if trace is not None or explain:
            sigma, capped = self.sigma.copy(), self.it + 1 >= s.max_iter
        bounds = [lo, hi, s.epsilon, s.root_tol, s.eta, s.max_iter]
        if inner is not None:
            bounds = np.concatenate([bounds, inner[0], inner[1]])
        out = _kernels.paper_step(
            self.sigma,
            self.f_prev,
            self.step,
            self.lam,
            self.y_prev,
            self.it,
            self.tmin,
            self.tmax,
            self.f,
            self.df,
            self.deg,
            np.asarray(bounds, float),
            _RULES[self.rule],
        )
        finished, parked, use_gd, converged, near, flat, outside = (
            out[i].astype(bool) for i in (0, 2, 4, 5, 6, 7, 8)
        )
        root, new = out[1], out[3]
        if trace is not None and not self.deg[0]:
            stopped = converged[0] or flat[0]  # before leaving the bracket or the cap
            kind = "end" if stopped else ("gradient" if use_gd[0] else "newton")
            h0 = f[0] - 0.5
            trace.append(Iterate(float(sigma[0]), float(f[0]), float(h0 * h0), kind))
        if trace is not None:  # one node: why it stops, and where it would have gone
            why = _stop_reason(
                self.deg[0], converged[0], near[0], flat[0], f[0] - 0.5, outside[0], capped[0]
            )
            self.stop = (why, float(new[0]))
        if explain:
            conds = [
                self.deg,
                converged & near,
                converged,
                flat & (f - 0.5 == 0.0),
                flat,
                outside,
                capped,
            ]
            why = np.select(
                conds, ["degenerate", "root", "stalled", "root", "flat", "left", "cap"], "running"
            )
            self.why = (why, new.copy(), np.where(use_gd, "gradient", "Newton"))
        return finished, root, parked

    def take(self, mask: np.ndarray) -> _NodeIterations:
        """Remove the nodes in ``mask`` and return them as their own set."""
        out = object.__new__(_NodeIterations)
        out.s, out.rule = self.s, self.rule
        for name in self._PER_NODE:
            v = getattr(self, name)
            setattr(out, name, v[mask])
            setattr(self, name, v[~mask])
        return out

    def extend(self, other: _NodeIterations) -> None:
        """Append the nodes of ``other``."""
        for name in self._PER_NODE:
            setattr(self, name, np.concatenate([getattr(self, name), getattr(other, name)]))

    def feed(self, labels: list, mask: np.ndarray | None = None) -> None:
        """Soft labels at the new σ of the nodes in ``mask`` (all by default), in order."""
        idx = np.arange(self.u.size) if mask is None else np.flatnonzero(mask)
        for i, sl in zip(idx.tolist(), labels, strict=True):
            u = self.u[i]
            self.f[i], self.df[i], self.deg[i] = sl.f[u], sl.df[u], sl.degenerate[u]


def _bracket(
    oracle,
    sigma0: float,
    lo: float,
    hi: float,
    s: SweepSettings,
    first,
    *,
    window: int,
    rec: _Recorder | None = None,
) -> tuple[float, float, int, int]:
    """Algorithm 4's loop over u ∈ U in order: ``(σ_l, σ_h, lo_node, hi_node)``.

    The result is that of running the nodes one by one, node u inside the bracket B_u
    left by nodes 0..u−1, but up to ``window`` consecutive nodes run side by side so one
    batched solve serves them all. What makes that exact:

    * every running node u stays inside the bracket of the nodes already settled (a
      superset of B_u): leaving it means leaving B_u, so it stops;
    * it is parked when its next point leaves the tighter bracket that the finished but
      unsettled nodes below u would give — it resumes if that point turns out inside B_u;
    * nodes are settled in order: a root counts only if all the node's iterates lay
      inside B_u, which is then known exactly.

    ``rec`` records one event per pass of the loop (what stepped, stopped, settled).
    """
    n = oracle.model.n_unlabeled
    root = np.full(n, np.nan)
    tmin, tmax = np.full(n, np.inf), np.full(n, -np.inf)
    done = np.zeros(n, bool)
    lo_node = hi_node = -1
    settled = admitted = 0
    run = _NodeIterations(np.zeros(0, int), sigma0, first, s, "hybrid")
    parked = run.take(np.zeros(0, bool))
    stale = np.zeros(0, bool)  # run nodes whose soft labels are not yet known
    passes = 0
    while settled < n:
        if rec is not None:
            notes: list[tuple] = []  # (what, node, σ[, step rule]) for the caption
            before, stepped = (lo, hi), 0
        if run.u.size and not stale.any():
            inner = None  # with no finished node waiting to settle, it is [lo, hi]
            if done[settled:admitted].any():
                inner = _inner_brackets(run.u, settled, sigma0, lo, hi, done, root, tmin, tmax)
            finished, r, park = run.advance(lo, hi, inner=inner, explain=rec is not None)
            if rec is not None:
                stepped = run.u.size
                why, nxt, rule = run.why
                for i in np.flatnonzero(finished & (why != "root")):
                    x = nxt[i] if why[i] == "left" else run.sigma[i]
                    notes.append((str(why[i]), int(run.u[i]), float(x), str(rule[i])))
            if finished.any():
                ids = run.u[finished]
                root[ids], tmin[ids] = r[finished], run.tmin[finished]
                tmax[ids] = run.tmax[finished]
                done[ids] = True
                run.take(finished)
                park = park[~finished]
            if park.any():
                parked.extend(run.take(park))
            stale = np.ones(run.u.size, bool)
        while settled < n and done[settled]:
            x = root[settled]
            if rec is not None:
                was = (lo, hi)
            if np.isfinite(x) and lo <= tmin[settled] and tmax[settled] <= hi:
                if sigma0 < x < hi:
                    hi, hi_node = float(x), settled
                elif lo < x < sigma0:
                    lo, lo_node = float(x), settled
            if rec is not None and np.isfinite(x):
                what = "hi" if hi != was[1] else "lo" if lo != was[0] else "ignored"
                notes.append((what, settled, float(x)))
            settled += 1
        # Keep about ``window`` nodes running: admit the next ones in order.
        top = min(n, max(settled, admitted + window - run.u.size))
        if admitted < top:
            run.extend(_NodeIterations(np.arange(admitted, top), sigma0, first, s, "hybrid"))
            stale = np.concatenate([stale, np.zeros(top - admitted, bool)])
            admitted = top
        if parked.u.size:
            lo_u, hi_u = _inner_brackets(parked.u, settled, sigma0, lo, hi, done, root, tmin, tmax)
            x = parked.sigma
            gone = ~((lo <= x) & (x <= hi))  # left the settled bracket: no root
            done[parked.u[gone]] = True
            if rec is not None:
                notes += [
                    ("left", int(u), float(v), "parked")
                    for u, v in zip(parked.u[gone], x[gone], strict=True)
                ]
            back = ~gone & (lo_u <= x) & (x <= hi_u)
            parked.take(gone)
            resumed = parked.take(back[~gone])
            run.extend(resumed)
            stale = np.concatenate([stale, np.ones(resumed.u.size, bool)])
        if stale.any():
            if stale.size == 1:
                run.feed(oracle.labels_many(run.sigma), stale)
            else:
                points, where = np.unique(run.sigma[stale], return_inverse=True)
                labels = oracle.labels_many(points)
                run.feed([labels[i] for i in where], stale)
            stale[:] = False
        if rec is not None:
            if passes == 0:
                rec.start(sigma0, lo, hi, run, n, _wrong_fraction(first, rec.y_u))
            elif stepped or notes:
                rec.step(run, stepped, notes, before, lo, hi)
        passes += 1
    return lo, hi, lo_node, hi_node


def _inner_brackets(nodes, settled, sigma0, lo, hi, done, root, tmin, tmax):
    """Per node u, the bracket that the finished, unsettled nodes below u would leave
    if their roots all count (those whose iterates stayed inside [lo, hi])."""
    top = int(nodes.max()) + 1 if nodes.size else settled
    seg = slice(settled, top)
    r = root[seg]
    ok = done[seg] & np.isfinite(r) & (lo <= tmin[seg]) & (tmax[seg] <= hi)
    left = np.where(ok & (r < sigma0), r, -np.inf)
    right = np.where(ok & (r > sigma0), r, np.inf)
    # Exclusive running max / min: node u sees only the nodes below it.
    lo_u = np.maximum.accumulate(np.concatenate([[lo], left[:-1]]))
    hi_u = np.minimum.accumulate(np.concatenate([[hi], right[:-1]]))
    k = nodes - settled
    return lo_u[k], hi_u[k]


_WINDOW = 64  # nodes kept running side by side when the solver batches


@one_thread
def feedback_set(
    model: SoftLabelModel,
    y_unlabeled: np.ndarray,
    sigma0: float,
    sigma_min: float,
    sigma_max: float,
    settings: SweepSettings | None = None,
) -> Interval:
    """Algorithm 4 (paper mode): the approximate constant-loss interval holding σ0.

    Parameters
    ----------
    model : SoftLabelModel
    y_unlabeled : ndarray of shape (n_unlabeled,)
    sigma0 : float
        Start σ, inside [σ_min, σ_max].
    sigma_min, sigma_max : float
        The search range; the interval is clipped to it.
    settings : SweepSettings, default=SweepSettings(mode='paper')

    Returns
    -------
    Interval
        With the estimated loss l̃ = fraction of U misclassified by f_ε(σ0).
    """
    return _feedback_set(model, y_unlabeled, sigma0, sigma_min, sigma_max, settings)


@one_thread
def feedback_set_classes(
    model: SoftLabelModel,
    y: np.ndarray,
    classes: tuple[int, ...],
    sigma0: float,
    sigma_min: float,
    sigma_max: float,
    settings: SweepSettings | None = None,
) -> Interval:
    """:func:`feedback_set` for C ≥ 3 classes (docs/method.md §13.8): every node iterates on
    g_u = (F_ua − F_ub)², a its top class and b the runner-up at the current σ
    (:class:`TopTwo`); l̃ is the share of U whose argmax at σ0 is not its class.

    Parameters
    ----------
    model : SoftLabelModel
    y : ndarray of shape (n,)
        Class indices of every point (the instance's ``y``).
    classes : tuple of int
    sigma0, sigma_min, sigma_max, settings
        As :func:`feedback_set`.
    """
    y = np.asarray(y)
    classes_ = (y, len(classes))
    return _feedback_set(
        model, y[model.unlabeled_idx], sigma0, sigma_min, sigma_max, settings, None, classes_
    )


def _feedback_set(
    model, y_unlabeled, sigma0, sigma_min, sigma_max, settings, rec=None, classes=None
):
    """:func:`feedback_set`, its steps recorded by ``rec`` when given; ``classes`` = (y of
    every point, C) for C ≥ 3 one-vs-all (:class:`_TopTwoOracle`)."""
    t0 = time.perf_counter()
    s = SweepSettings(mode="paper") if settings is None else settings
    lo, hi = check_sigma_range(sigma_min, sigma_max, "feedback_set")
    sigma0 = check_real("sigma0", sigma0, "feedback_set", low=lo, high=hi)
    oracle = _oracle(model, s) if classes is None else _TopTwoOracle(model, *classes, s)
    first = oracle.labels(sigma0)
    window = _WINDOW if model.batches(s.solver) else 1
    lo, hi, lo_node, hi_node = _bracket(oracle, sigma0, lo, hi, s, first, window=window, rec=rec)
    return Interval(
        lo,
        hi,
        _wrong_fraction(first, np.asarray(y_unlabeled)),
        sigma0,
        lo_node,
        hi_node,
        oracle.solves,
        oracle.matvecs,
        time.perf_counter() - t0,
        oracle.factorizations,
    )


@one_thread
def sweep(
    model: SoftLabelModel,
    y_unlabeled: np.ndarray,
    sigma_min: float,
    sigma_max: float,
    settings: SweepSettings | None = None,
    *,
    progress: Callable[[float, str], None] | None = None,
    max_seconds: float | None = None,
    record: bool = False,
) -> Sweep:
    """Estimated constant-loss intervals over [σ_min, σ_max] (paper or fast mode).

    Parameters
    ----------
    model : SoftLabelModel
    y_unlabeled : ndarray of shape (n_unlabeled,)
    sigma_min, sigma_max : float
        The range (PCA-space distance units).
    settings : SweepSettings, default=SweepSettings()
    progress : callable, optional
        ``progress(fraction_done, message)`` called as the sweep advances, fractions
        non-decreasing in [0, 1]: paper mode after each interval (the range covered), fast
        mode as the search moves along σ (see :func:`sslviz.truth.true_loss_curve`).
    max_seconds : float, optional
        Paper mode only: stop starting new intervals after this long. The result then
        covers [σ_min, last hi] and ``Sweep.complete`` is False (time per interval is still
        measured; M and scores are not comparable).
    record : bool, default=False
        Keep the event log in ``Sweep.events`` (:class:`Event`, kinds in
        :data:`EVENT_KINDS`). Paper mode: one event per step of the running nodes (their
        iterates, the bracket, who stopped or settled), one when each interval's search
        starts and one per interval found; fast mode: every σ evaluated, every step of the
        crossing search, every crossing, then one event per interval. The intervals are
        the same as without recording (only their measured ``seconds`` differ).
    """
    s = SweepSettings() if settings is None else settings
    lo, hi = check_sigma_range(sigma_min, sigma_max, "sweep")
    y_u = np.asarray(y_unlabeled)
    t0 = time.perf_counter()
    rec = _Recorder(y_u) if record else None
    if s.mode == "fast":
        # Certified: breakpoints located as tightly as the exact curve's (the default rtol).
        rtol = {"rtol": min(1e-3, s.epsilon / hi)} if not s.certify else {}
        curve = true_loss_curve(
            model,
            y_u,
            lo,
            hi,
            solver=s.solver,
            cg_iters=s.cg_iters,
            certify_cap=s.certify_cap if s.certify else None,
            progress=progress,
            on_event=rec.fast if rec is not None else None,
            **rtol,
        )
        return _sweep_from_curve(curve, lo, hi, s, t0, rec)
    return _paper_sweep(model, y_u, lo, hi, s, t0, progress, max_seconds, rec)


def _paper_sweep(model, y_u, lo, hi, s, t0, progress, max_seconds, rec, classes=None) -> Sweep:
    """Paper mode's intervals from σ_min, each restarting at the last σ_h + step
    (``classes``: as :func:`_feedback_set`'s)."""
    intervals: list[Interval] = []
    sigma0 = lo
    complete = True
    if progress is not None:
        progress(0.0, "interval 1")
    while sigma0 <= hi:
        if max_seconds is not None and time.perf_counter() - t0 > max_seconds:
            complete = False
            break
        iv = _feedback_set(model, y_u, sigma0, lo, hi, s, rec, classes)
        intervals.append(iv)
        if rec is not None:
            rec.interval(iv, len(intervals))
        if progress is not None:
            progress(min((iv.hi - lo) / (hi - lo), 1.0), f"interval {len(intervals)}")
        sigma0 = iv.hi + s.step
    return Sweep(
        intervals,
        lo,
        hi,
        s,
        sum(i.solves for i in intervals),
        sum(i.matvecs for i in intervals),
        time.perf_counter() - t0,
        complete=complete,
        events=rec.events if rec is not None else None,
        factorizations=sum(i.factorizations for i in intervals),
    )


@dataclass(frozen=True, eq=False)
class PaperPart:
    """What a paper-mode stream (:func:`paper_stream`) has found so far.

    Attributes
    ----------
    sweep : Sweep
        The intervals found so far, in σ order (``Sweep.complete`` False until the last
        part); the last part's is the one :func:`sweep` computes at once, bit for bit (its
        measured ``seconds`` apart).
    reached : float
        The σ the intervals cover up to: the last one's σ_h (σ_min before the first).
    next_sigma0 : float
        Where the next interval's search starts: σ_h + step (σ_min before the first).
    complete : bool
        Whether the sweep has reached σ_max.
    """

    sweep: Sweep
    reached: float
    next_sigma0: float
    complete: bool

    @property
    def fraction(self) -> float:
        """The share of [σ_min, σ_max] covered."""
        s = self.sweep
        if self.complete:
            return 1.0
        return min(max((self.reached - s.sigma_min) / (s.sigma_max - s.sigma_min), 0.0), 1.0)

    def status(self) -> str:
        """How far it is, in words: "σ up to 1.82 of [0.7, 3.1] so far" (or "σ over all of
        [0.7, 3.1]")."""
        s = self.sweep
        return range_so_far(self.reached, s.sigma_min, s.sigma_max, self.complete)

    def missing(self) -> str:
        """What is missing, in words: "3 intervals found, σ from 0.7 to 1.82; σ from 1.82
        to 3.1 is missing." (nothing when complete)."""
        if self.complete:
            return ""
        s, m = self.sweep, len(self.sweep.intervals)
        found = (
            f"{m} interval{'s' * (m != 1)} found, σ from {s.sigma_min:g} to {self.reached:.4g}"
            if m
            else "No interval found yet"
        )
        return range_missing(found, self.reached, s.sigma_max)


def paper_stream(
    model: SoftLabelModel,
    y: np.ndarray,
    sigma_min: float,
    sigma_max: float,
    settings: SweepSettings,
    *,
    classes: tuple[int, ...] | None = None,
    resume: PaperPart | None = None,
):
    """Paper mode's sweep (:func:`sweep`, or :func:`sweep_classes` with ``classes``) as its
    intervals arrive, in σ order: one :class:`PaperPart` per interval found, the last one
    ``complete``, its ``sweep`` the one computed at once, bit for bit (each interval is a
    function of its start σ0 alone, so the parts are the prefixes of the whole).

    Parameters
    ----------
    model : SoftLabelModel
    y : ndarray
        As :func:`sweep`'s ``y_unlabeled`` (shape (n_unlabeled,)); with ``classes``, as
        :func:`sweep_classes`'s ``y`` (shape (n,), every point's class index).
    sigma_min, sigma_max : float
    settings : SweepSettings
        Paper mode (``settings.mode == 'paper'``).
    classes : tuple of int, optional
        Three classes or more: one-vs-all, as :func:`sweep_classes`.
    resume : PaperPart, optional
        A part of this same stream (one stopped): the stream goes on from it (its
        intervals are kept, not computed again; ``seconds`` adds up).
    """
    s = settings
    if s.mode != "paper":
        raise InvalidParameterError(
            f"The 'settings' parameter of paper_stream must be in paper mode. Got {s.mode!r}."
        )
    lo, hi = check_sigma_range(sigma_min, sigma_max, "paper_stream")
    y = np.asarray(y)
    if classes is None:
        y_u, cls = y, None
    else:
        y_u, cls = y[model.unlabeled_idx], (y, len(classes))
    intervals: list[Interval] = list(resume.sweep.intervals) if resume is not None else []
    sigma0 = resume.next_sigma0 if resume is not None else lo
    before = resume.sweep.seconds if resume is not None else 0.0
    t0 = time.perf_counter()
    solve = one_thread(_feedback_set)

    def part(done: bool) -> PaperPart:
        return PaperPart(
            Sweep(
                list(intervals),
                lo,
                hi,
                s,
                sum(i.solves for i in intervals),
                sum(i.matvecs for i in intervals),
                before + time.perf_counter() - t0,
                complete=done,
                factorizations=sum(i.factorizations for i in intervals),
            ),
            intervals[-1].hi if intervals else lo,
            sigma0,
            done,
        )

    while sigma0 <= hi:
        iv = solve(model, y_u, sigma0, lo, hi, s, None, cls)
        intervals.append(iv)
        sigma0 = iv.hi + s.step
        if sigma0 <= hi:
            yield part(False)
    yield part(True)


def sweep_classes(
    model: SoftLabelModel,
    y: np.ndarray,
    classes: tuple[int, ...],
    sigma_min: float,
    sigma_max: float,
    settings: SweepSettings | None = None,
    *,
    progress: Callable[[float, str], None] | None = None,
    record: bool = False,
) -> Sweep:
    """Algorithm 4 one-vs-all for C ≥ 3 classes (docs/method.md §13): the fast mode's shared
    search (:func:`sslviz.truth.multiclass_loss_curve`) on the chosen solver's scores, CG-t
    or PCG-t per column, or certified scores (``settings.certify``: every node's top class
    proven at every σ evaluated, so nothing the exact search finds is missed); the intervals
    are the pieces between consecutive approximate breakpoints, each with its l̃ (the share
    of U whose argmax of the scores is not its class). Paper mode (docs/method.md §13.8):
    Algorithm 4's per-node iteration on g_u = (F_ua − F_ub)², a the top class and b the
    runner-up at the current σ (:class:`TopTwo`), restarted at σ_h + step.

    Parameters
    ----------
    model : SoftLabelModel
    y : ndarray of shape (n,)
        Class indices of every point (the instance's ``y``).
    classes : tuple of int
    sigma_min, sigma_max : float
    settings : SweepSettings, default=SweepSettings()
    progress : callable, optional
        As :func:`sweep`.
    record : bool, default=False
        Paper mode only: keep the event log, as :func:`sweep` does; each node's ``f`` in it
        is ½ + its top-two gap (:class:`TopTwo`).
    """
    s = SweepSettings() if settings is None else settings
    lo, hi = check_sigma_range(sigma_min, sigma_max, "sweep_classes")
    t0 = time.perf_counter()
    if s.mode == "paper":
        y = np.asarray(y)
        y_u = y[model.unlabeled_idx]
        rec = _Recorder(y_u, gap=True) if record else None
        return _paper_sweep(model, y_u, lo, hi, s, t0, progress, None, rec, (y, len(classes)))
    if record:
        raise InvalidParameterError(
            "The fast mode's replay handles two classes yet: record the paper mode for more."
        )
    rtol = {"rtol": min(1e-3, s.epsilon / hi)} if not s.certify else {}
    curve = multiclass_loss_curve(
        model,
        y,
        classes,
        lo,
        hi,
        solver=s.solver,
        cg_iters=s.cg_iters,
        certify_cap=s.certify_cap if s.certify else None,
        progress=progress,
        **rtol,
    )
    return _sweep_from_curve(curve, lo, hi, s, t0)


def _sweep_from_curve(curve: LossCurve, lo, hi, s: SweepSettings, t0, rec=None) -> Sweep:
    e, v = curve.loss.edges, curve.loss.values
    node_at = [-1, *[int(nd[0]) for nd in curve.nodes], -1]
    ivs = [
        Interval(
            float(e[i]),
            float(e[i + 1]),
            float(v[i]),
            float(0.5 * (e[i] + e[i + 1])),
            node_at[i],
            node_at[i + 1],
        )
        for i in range(v.size)
    ]
    for i, iv in enumerate(ivs if rec is not None else ()):
        rec.interval(iv, i + 1)
    return Sweep(
        ivs,
        lo,
        hi,
        s,
        curve.solves,
        curve.matvecs,
        time.perf_counter() - t0,
        certificates=curve.certificates,
        curve=curve,
        events=rec.events if rec is not None else None,
        factorizations=curve.factorizations,
    )


@one_thread
def node_trace(
    model: SoftLabelModel,
    u: int,
    sigma0: float,
    sigma_min: float,
    sigma_max: float,
    settings: SweepSettings | None = None,
    *,
    rule: str = "hybrid",
) -> tuple[list[Iterate], float | None]:
    """The iterates of Algorithm 4 for one node (Figure 2): ``(iterates, root)``.

    ``rule`` is 'hybrid' (the paper's), 'gradient' (Nesterov gradient only) or
    'newton' (Newton only).
    """
    s = SweepSettings(mode="paper") if settings is None else settings
    check_option("rule", rule, "node_trace", STEP_RULES)
    lo, hi = check_sigma_range(sigma_min, sigma_max, "node_trace")
    check_int("u", u, "node_trace", low=0, high=model.n_unlabeled - 1)
    sigma0 = check_real("sigma0", sigma0, "node_trace", low=lo, high=hi)
    trace, root, _ = unchecked_trace(model, u, sigma0, lo, hi, s, rule)
    return trace, root


def unchecked_trace(model, u, sigma0, lo, hi, s, rule) -> tuple[list[Iterate], float | None, tuple]:
    """:func:`node_trace` without the checks, plus ``(stop reason, next σ)``: the reason is
    'root', 'stalled' (converged away from 1/2), 'flat' (g' = 0), 'left' (the next point,
    given, leaves [lo, hi]), 'cap' (``max_iter`` points) or 'degenerate'."""
    oracle = _oracle(model, s)
    run = _NodeIterations(np.array([u]), sigma0, oracle.labels(sigma0), s, rule)
    trace: list[Iterate] = []
    while True:
        finished, root, _ = run.advance(lo, hi, trace)
        if finished[0]:
            return trace, (float(root[0]) if np.isfinite(root[0]) else None), run.stop
        run.feed(oracle.labels_many(run.sigma))


def _stop_reason(deg, converged, near, flat, h, outside, capped) -> str:
    if deg:
        return "degenerate"
    if converged:
        return "root" if near else "stalled"
    if flat:
        return "root" if h == 0.0 else "flat"
    return "left" if outside else ("cap" if capped else "running")
