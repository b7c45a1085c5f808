"""Constant-loss intervals: Algorithm 4 as in the paper, a fast mode, and scoring.

Paper mode (Algorithm 4 with Appendix E.1–E.2): from a start σ0, every unlabeled node u
runs its own hybrid iteration on g_u(σ) = (f_u(σ) − 1/2)², g'_u = 2(f_u − 1/2) f'_u,
stepping by the smaller (in magnitude) of the gradient step ξ_GD = η g'_u (with
Nesterov momentum) and the Newton step ξ_N = 2 g_u / g'_u. It stops when both |Δσ| and
|Δf_u| fall below ε, when it leaves the current bracket [σ_l, σ_h], or after
``max_iter`` steps. A converged root right of σ0 lowers σ_h, one left of σ0 raises σ_l.
The sweep starts at σ_min and restarts at σ_h + step. The nodes are iterated side by
side, so one batched solve serves every running node (:func:`_bracket` says why the
result is still exactly that of the paper's loop over u one node at a time).

Fast mode (DESIGN §5.4): one search for every crossing of the approximate
f_u(σ) − 1/2 over the whole range, each solve serving all nodes at once (the adaptive
Hermite grid and safeguarded Newton of :mod:`sslviz.truth`, run on the chosen solver).
Its intervals are the pieces between consecutive approximate crossings.

Event log: ``sweep(..., record=True)`` keeps what the sweep did, step by step, in
``Sweep.events`` (a list of :class:`Event`; the player page and
:mod:`sslviz.animation` replay it). Recording only reads: the intervals are the same, bit
for bit, as without it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from sslviz._threads import one_thread
from sslviz._validation import check_int, check_option, check_real, check_sigma_range
from sslviz.labeling import DelalleauModel, HarmonicModel, LabelOracle
from sslviz.piecewise import PiecewiseLoss
from sslviz.specs import ScoreSettings, SweepSettings, default
from sslviz.truth import Certificates, LossCurve, true_loss_curve

STEP_RULES = ("hybrid", "gradient", "newton")
EVENT_KINDS = ("start", "step", "bracket", "interval", "grid", "split", "degenerate",
               "refine", "breakpoint")  # fmt: skip
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

    def __init__(self, y_u: np.ndarray) -> None:
        self.y_u = y_u
        self.events: list[Event] = []
        self.sigma0 = math.nan
        self.intervals = 0

    def emit(self, kind: str, *, bracket, nodes=(), sigma=None, f=(), node=-1, at=math.nan,
             loss=math.nan, interval=None, text="", names=()) -> None:  # fmt: skip
        nodes = np.array(nodes, dtype=int)
        f = np.array(f, dtype=float)
        sigma = np.full(nodes.size, at, float) if sigma is None else np.array(sigma, float)
        for a in (nodes, sigma, f):
            a.setflags(write=False)
        self.events.append(Event(
            len(self.events), kind, float(self.sigma0), (float(bracket[0]), float(bracket[1])),
            nodes, sigma, f, int(node), float(at), float(loss), interval, text,
            tuple(int(u) for u in names),
        ))  # fmt: skip

    # -- paper mode ---------------------------------------------------------------------

    def start(self, sigma0: float, lo: float, hi: float, run, n: int, loss: float) -> None:
        self.sigma0 = sigma0
        self.intervals += 1
        k = run.u.size
        who = (f"{{0}} starts from σ0 (the {n} nodes run one at a time)" if k == 1 else
               f"all {n} nodes start from σ0, side by side" if k == n else
               f"the first {k} of {n} nodes start from σ0, side by side")  # fmt: skip
        self.emit("start", bracket=(lo, hi), nodes=run.u, sigma=run.sigma, f=run.f,
                  at=sigma0, loss=loss, names=run.u[:1] if k == 1 else (),
                  text=f"interval {self.intervals}: σ0 = {_g(sigma0)}, l̃(σ0) = {loss:.3g}; "
                       f"{who} · bracket [{_g(lo)}, {_g(hi)}]")  # fmt: skip

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
            parts.append({
                "hi": f"{i}'s root lowers σ_h to {_g(x)}",
                "lo": f"{i}'s root raises σ_l to {_g(x)}",
                "left": f"{i}'s {rule} step left the bracket (to σ = {_g(x)})"
                        if rule != "parked" else
                        f"{i}'s waiting iterate σ = {_g(x)} is outside the bracket",
                "ignored": f"{i}'s root at σ = {_g(x)} does not count (not inside the "
                           "bracket, or its iterates left it)",
                "stalled": f"{i} stalled at σ = {_g(x)}, away from 1/2",
                "cap": f"{i} hit the iteration cap at σ = {_g(x)}",
                "flat": f"{i} stopped at σ = {_g(x)}: g' = 0",
                "degenerate": f"{i} is cut off from L",
            }[what])  # fmt: skip
        if len(notes) + extra > 2:
            parts.append(f"{len(notes) + extra - 2} more stopped or settled")
        if stepped == 1 and run.u.size == 1 and not notes:
            names.append(run.u[0])
            f0 = float(run.f[0]) if abs(run.f[0]) >= 5e-5 else 0.0
            head = f"{{{len(names) - 1}}} steps to σ = {_g(run.sigma[0])} (f = {f0:.4f})"
        else:
            head = (f"{stepped} nodes step" if stepped > 1 else "1 node steps" if stepped
                    else "settling")  # fmt: skip
        text = head + (": " + "; ".join(parts) if parts else "")
        text += f" · bracket [{_g(lo)}, {_g(hi)}]"
        self.emit("bracket" if moved else "step", bracket=(lo, hi), nodes=run.u,
                  sigma=run.sigma, f=run.f, node=notes[0][1] if notes else -1,
                  at=notes[0][2] if notes else math.nan, names=names, text=text)  # fmt: skip

    def interval(self, iv: Interval, index: int) -> None:
        names, ends = [], []
        for side, u in (("σ_l", iv.lo_node), ("σ_h", iv.hi_node)):
            if u >= 0:
                ends.append(f"{side} set by {{{len(names)}}}")
                names.append(u)
            else:
                ends.append(f"{side} by the range end")
        self.emit("interval", bracket=(iv.lo, iv.hi), at=iv.sigma0, loss=iv.loss,
                  interval=iv, node=iv.hi_node, names=names,
                  text=f"interval {index} found: [{_g(iv.lo)}, {_g(iv.hi)}], l̃ = "
                       f"{iv.loss:.3g}; " + ", ".join(ends))  # fmt: skip

    # -- fast mode ----------------------------------------------------------------------

    def fast(self, kind: str, *, at, bracket=(math.nan, math.nan), nodes=(), f=(), node=-1,
             loss=math.nan, rule="", cell=None, degenerate=0) -> None:  # fmt: skip
        a, b = bracket
        if kind == "grid":
            text = f"σ = {_g(at)} evaluated on the starting grid: loss {loss:.3g}"
        elif kind == "split":
            text = (f"the Hermite test split [{_g(a)}, {_g(b)}] (a pair of crossings may hide "
                    f"there): σ = {_g(at)} evaluated, loss {loss:.3g}")  # fmt: skip
        elif kind == "degenerate":
            text = (f"σ = {_g(at)} evaluated to locate where nodes get cut off from L "
                    f"({degenerate} cut off): loss {loss:.3g}")  # fmt: skip
        elif kind == "refine":
            text = (f"{rule} step for {{0}}'s crossing: σ = {_g(at)} in [{_g(a)}, {_g(b)}], "
                    f"f = {float(f[list(nodes).index(node)]):.4f}")  # fmt: skip
        else:
            text = f"breakpoint: {{0}} crosses 1/2 at σ = {_g(at)}"
        self.emit(kind, bracket=bracket, nodes=nodes, f=f, node=node, at=at, loss=loss,
                  names=(node,) if node >= 0 else (), text=text)  # fmt: skip


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
    wrong = sl.degenerate | ((sl.f > 0.5) != (y_u == 1))
    return float(wrong.mean()) if wrong.size else 0.0


class _NodeIterations:
    """Algorithm 4's inner loop for a set of nodes at once (one array entry per node).

    Each node's iterates are exactly those of the per-node loop: from σ0 it takes the
    smaller in magnitude of ξ_GD = η g'_u (with Nesterov momentum) and ξ_N = 2 g_u / g'_u,
    and stops when both |Δσ| and |Δf_u| fall below ε (a root if |f_u − 1/2| ≤ root_tol),
    when g'_u = 0, when it leaves the bracket, or after ``max_iter`` points. Running nodes
    side by side only lets one solve call serve all of them.
    """

    _PER_NODE = ("u", "sigma", "y_prev", "lam", "f_prev", "step", "it", "tmin", "tmax",
                 "f", "df", "deg")  # fmt: skip

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

    def advance(self, lo: float, hi: float, trace: list | None = None, *, inner=None,
                explain: bool = False):  # fmt: skip
        """One step of every node from its current point (soft labels known there).

        A node whose next point leaves [lo, hi] stops. ``inner`` = (lo_u, hi_u), per-node
        sub-brackets: a node whose next point leaves its own (but not [lo, hi]) moves
        there and is *parked*, to be fed only if that point turns out to be in its bracket.
        ``explain``: also set ``self.why`` = (stop reason per node, as
        :func:`_stop_reason`; next point; 'gradient' or 'Newton', the step taken).

        Returns ``(finished, root, parked)``: which nodes stopped (root NaN when not at a
        root) and which were parked; the rest moved to ``self.sigma`` and need soft labels
        there (:meth:`feed`).
        """
        s = self.s
        f, df, sigma = self.f, self.df, self.sigma
        h = f - 0.5
        g = h * h
        dg = 2.0 * h * df
        root = np.full(f.size, np.nan)
        near = np.abs(h) <= s.root_tol
        converged = (
            ~self.deg & (np.abs(f - self.f_prev) < s.epsilon) & (np.abs(self.step) < s.epsilon)
        )
        root[converged & near] = sigma[converged & near]
        flat = ~self.deg & ~converged & (dg == 0.0)
        root[flat & (h == 0.0)] = sigma[flat & (h == 0.0)]
        finished = self.deg | converged | flat
        with np.errstate(divide="ignore", invalid="ignore"):
            xi_gd, xi_n = s.eta * dg, 2.0 * g / dg
        if self.rule == "gradient":
            use_gd = np.ones(f.size, bool)
        elif self.rule == "newton":
            use_gd = np.zeros(f.size, bool)
        else:
            use_gd = np.abs(xi_gd) < np.abs(xi_n)
        y_next = sigma - np.where(use_gd, xi_gd, xi_n)
        lam_next = (1.0 + np.sqrt(1.0 + 4.0 * self.lam * self.lam)) / 2.0
        gamma = (1.0 - self.lam) / lam_next
        new = np.where(use_gd, (1.0 - gamma) * y_next + gamma * self.y_prev, y_next)
        if trace is not None and not self.deg[0]:
            kind = "end" if finished[0] else ("gradient" if use_gd[0] else "newton")
            trace.append(Iterate(float(sigma[0]), float(f[0]), float(g[0]), kind))
        with np.errstate(invalid="ignore"):
            outside = ~((lo <= new) & (new <= hi))  # NaN counts as outside
        if trace is not None:  # one node: why it stops, and where it would have gone
            capped = self.it[0] + 1 >= s.max_iter
            why = _stop_reason(
                self.deg[0], converged[0], near[0], flat[0], h[0], outside[0], capped
            )
            self.stop = (why, float(new[0]))
        if explain:
            capped = self.it + 1 >= s.max_iter
            conds = [self.deg, converged & near, converged, flat & (h == 0.0), flat, outside,
                     capped]  # fmt: skip
            why = np.select(conds, ["degenerate", "root", "stalled", "root", "flat", "left",
                                    "cap"], "running")  # fmt: skip
            self.why = (why, new.copy(), np.where(use_gd, "gradient", "Newton"))
        # Leaving the bracket, or the last point of the budget, ends without a root.
        finished |= outside | (self.it + 1 >= s.max_iter)
        go = ~finished
        parked = np.zeros(f.size, bool)
        if inner is not None:
            parked = go & ~((inner[0] <= new) & (new <= inner[1]))
        self.lam = np.where(use_gd & go, lam_next, self.lam)
        self.y_prev = np.where(go, y_next, self.y_prev)
        self.step = np.where(go, new - sigma, self.step)
        self.f_prev = np.where(go, f, self.f_prev)
        self.sigma = np.where(go, new, sigma)
        self.tmin = np.where(go, np.minimum(self.tmin, new), self.tmin)
        self.tmax = np.where(go, np.maximum(self.tmax, new), self.tmax)
        self.it = self.it + go
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
    model: HarmonicModel | DelalleauModel,
    y_unlabeled: np.ndarray,
    sigma0: float,
    sigma_min: float,
    sigma_max: float,
    settings: SweepSettings | None = None,
) -> Interval:
    """Algorithm 4 (paper mode): the approximate constant-loss interval holding σ0.

    Parameters
    ----------
    model : HarmonicModel or DelalleauModel
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


def _feedback_set(model, y_unlabeled, sigma0, sigma_min, sigma_max, settings, rec=None):
    """:func:`feedback_set`, its steps recorded by ``rec`` when given."""
    t0 = time.perf_counter()
    s = SweepSettings(mode="paper") if settings is None else settings
    lo, hi = check_sigma_range(sigma_min, sigma_max, "feedback_set")
    sigma0 = check_real("sigma0", sigma0, "feedback_set", low=lo, high=hi)
    oracle = _oracle(model, s)
    first = oracle.labels(sigma0)
    window = _WINDOW if model.batches(s.solver) else 1
    lo, hi, lo_node, hi_node = _bracket(oracle, sigma0, lo, hi, s, first, window=window,
                                        rec=rec)  # fmt: skip
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
    model: HarmonicModel | DelalleauModel,
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
    model : HarmonicModel or DelalleauModel
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
            model, y_u, lo, hi, solver=s.solver, cg_iters=s.cg_iters,
            certify_cap=s.certify_cap if s.certify else None, progress=progress,
            on_event=rec.fast if rec is not None else None, **rtol,
        )  # fmt: skip
        return _sweep_from_curve(curve, lo, hi, s, t0, rec)
    intervals: list[Interval] = []
    sigma0 = lo
    complete = True
    if progress is not None:
        progress(0.0, "interval 1")
    while sigma0 <= hi:
        if max_seconds is not None and time.perf_counter() - t0 > max_seconds:
            complete = False
            break
        iv = _feedback_set(model, y_u, sigma0, lo, hi, s, rec)
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
    return Sweep(ivs, lo, hi, s, curve.solves, curve.matvecs, time.perf_counter() - t0,
                 certificates=curve.certificates, curve=curve,
                 events=rec.events if rec is not None else None,
                 factorizations=curve.factorizations)  # fmt: skip


@one_thread
def node_trace(
    model: HarmonicModel | DelalleauModel,
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
    trace, root, _ = _trace(model, u, sigma0, lo, hi, s, rule)
    return trace, root


def _trace(model, u, sigma0, lo, hi, s, rule) -> tuple[list[Iterate], float | None, tuple]:
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


# -- scoring and miss attribution ----------------------------------------------------------

MISS_CAUSES = ("degenerate", "solver", "close pair", "search")
"""Causes of a missed true breakpoint, in their order of precedence (see :func:`score`)."""
SPURIOUS_CAUSES = ("solver", "search")
"""Causes of a spurious endpoint, in their order of precedence."""
UNATTRIBUTED = "unattributed"
"""The cause given when :func:`score` ran without the model (nothing solved)."""
CAUSES = (*MISS_CAUSES, UNATTRIBUTED)
"""The keys of :attr:`Score.causes`, in order."""
T_CAP = 1024
"""Default cap of the search for the t that fixes a solver miss (``score(..., t_cap=)``)."""
PROBE = tuple(10.0**-k for k in range(7))
"""Offsets (× tol) on each side of a σ where :func:`score` compares soft labels: a side of
1/2 "changes within tol" of σ when it differs between any two of σ ± tol·PROBE and σ (a
t-iteration CG's f_t can flip within 1e-6 of σ at small σ)."""


@dataclass(frozen=True)
class Miss:
    """A missed true breakpoint, its cause and the evidence (:func:`score` lists the keys).

    ``nodes`` are the unlabeled nodes (indices into ``model.unlabeled_idx``) that change
    side at ``sigma``; ``evidence["node"]`` is the one the evidence is about; ``detail``
    says it in one sentence.
    """

    sigma: float
    nodes: tuple[int, ...]
    cause: str
    detail: str
    evidence: dict = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class SpuriousEndpoint:
    """An estimated endpoint with no true breakpoint within the tolerance, and why.

    ``node`` set the endpoint (-1 when unknown).
    """

    sigma: float
    node: int
    cause: str
    detail: str
    evidence: dict = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Score:
    """An estimate measured against the truth (DESIGN §5.3), with every miss explained.

    ``misses`` ([(σ, nodes)]) and ``spurious_endpoints`` ([σ]) are the plain lists;
    ``miss_records`` / ``spurious_records`` hold the same items in the same order with their
    cause and evidence; ``causes`` counts the causes of both (every key of :data:`CAUSES`,
    zeros included), so its values add up to ``missed + spurious``.
    """

    M: int
    true_breakpoints: int
    missed: int
    spurious: int
    eps_volume: float
    uncovered: float
    misses: list  # [(sigma, nodes)]
    spurious_endpoints: list  # [sigma]
    causes: dict = field(default_factory=dict)
    miss_records: list = field(default_factory=list)  # [Miss]
    spurious_records: list = field(default_factory=list)  # [SpuriousEndpoint]
    tol: float = default(ScoreSettings, "tol")
    sigma_min: float = float("nan")
    sigma_max: float = float("nan")
    settings: SweepSettings | None = None
    attributed: bool = False  # False: scored without the model (see score())

    def cause_counts(self, kind: str = "all") -> dict[str, int]:
        """Counts per cause of ``kind`` 'miss', 'spurious' or 'all' (= :attr:`causes`)."""
        check_option("kind", kind, "Score.cause_counts", ("all", "miss", "spurious"))
        recs = {"miss": self.miss_records, "spurious": self.spurious_records,
                "all": self.miss_records + self.spurious_records}[kind]  # fmt: skip
        keys = CAUSES if kind != "spurious" else (*SPURIOUS_CAUSES, UNATTRIBUTED)
        out = dict.fromkeys(keys, 0)
        for r in recs:
            out[r.cause] += 1
        return out

    def record_at(self, u: int, sigma: float) -> Miss | SpuriousEndpoint | None:
        """The miss or spurious endpoint at ``sigma`` whose node is unlabeled node ``u``
        (what a click on its marker selects), else None."""
        for r in self.miss_records:
            if r.sigma == sigma and u in (r.evidence.get("node"), *r.nodes):
                return r
        for r in self.spurious_records:
            if r.sigma == sigma and r.node == u:
                return r
        return None

    def solver_misses(self) -> tuple[list[float], list[int]]:
        """The σ of the breakpoints missed (and endpoints invented) for want of solver
        accuracy (cause 'solver'), and the t needed of those misses whose t is known: what
        :meth:`sslviz.conditioning.TrustCurve.bands` marks as not trusted."""
        misses = [r for r in self.miss_records if r.cause == "solver"]
        invented = [r for r in self.spurious_records if r.cause == "solver"]
        known = [r.evidence.get("t_needed") for r in misses]
        return ([float(r.sigma) for r in misses + invented],
                [int(t) for t in known if t is not None])  # fmt: skip


@one_thread
def score(
    result: Sweep,
    truth: LossCurve,
    *,
    tol: float = default(ScoreSettings, "tol"),
    gamma: float | None = None,
    model: HarmonicModel | DelalleauModel | None = None,
    t_cap: int = T_CAP,
    max_attributed: int | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> Score:
    """Score estimated intervals against the exact curve, and say why each miss happened.

    Parameters
    ----------
    result : Sweep
    truth : LossCurve
        The exact curve (``truth.exact``; :func:`sslviz.truth.true_loss_curve`) on the same
        range.
    tol : float, default=1e-3
        A true breakpoint is *found* when an estimated endpoint lies within ``tol`` of it
        (σ units); an endpoint is *spurious* when no true breakpoint lies within ``tol``.
    gamma : float, optional
        ε-volume threshold of Definition 3.1: the total σ length where
        |l̃(σ) − l(σ)| > γ. Default: half of one node's share, 0.5/|U|, so any
        disagreement counts. σ covered by no interval counts too (reported also as
        ``uncovered``).
    model : HarmonicModel or DelalleauModel, optional
        The model ``result`` was computed on. Needed to attribute misses (it re-solves
        around each one with the sweep's solver and exactly). Without it nothing is solved:
        a miss at an end of one of ``truth.degenerate_ranges`` is 'degenerate', every other
        miss and every spurious endpoint is 'unattributed' (the causes' precedence puts
        'solver' before the others, and telling it apart needs the solver).
    t_cap : int, default=1024
        Largest t tried when searching the iterations a solver miss needed.
    max_attributed : int, optional
        Look for the causes of at most this many misses, spread evenly over the missed
        breakpoints in σ order; the others are 'unattributed' ("not examined"). Each
        attribution costs exact solves of the whole system (see Cost below): on
        Fashion-MNIST kNN-6 with 12,000 points, 1.4 s per miss, and CG-20 misses thousands
        of its 3,575 breakpoints. Default: every miss.
    progress : callable, optional
        ``progress(fraction_done, message)`` called as the attribution advances (the
        probes, each examined miss's exact solves, the search of the t a solver miss
        needed); an exception raised there stops the scoring.

    Returns
    -------
    Score

    Notes
    -----
    Every missed breakpoint σ* (nodes N changing side there) gets the first cause that
    applies, in this order; "within tol" means at σ* and σ* ± tol·:data:`PROBE` (15 points
    from tol down to 1e-6·tol on each side), the approximate soft labels f_t coming from the
    sweep's solver and t (certified labels when ``settings.certify``):

    1. ``degenerate`` — a node of N is cut off from every labeled node within tol of σ*:
       in the exact graph (σ* is where the degenerate set changes, ``exact_degenerate``,
       judged at σ* and σ* ± tol) or for the sweep's solver at some probe point (weights
       not representable unscaled, ``approx_degenerate``).
    2. ``solver`` — no node of N has an approximate side of 1/2 that changes within tol.
       Evidence: ``approx_value`` f_t,u(σ*), ``exact_value`` f_u(σ*), ``error``
       |f_t,u − f_u| at σ*, ``margin`` min |f_u − ½| at σ* ± tol (what the error had to
       stay below), ``t_needed`` the smallest t putting f_t,u on the exact side at both
       σ* ± tol (doubling from t, then bisecting between the last failing and the first
       working t; CG's side need not be monotone in t; None: more than ``t_cap``, or not
       an iterative solver), ``t_cap``.
    3. ``close pair`` — the approximate side does change within tol, but another true
       crossing is closer than the search separates. Paper mode: σ* lies in a restart gap
       (σ_h, σ_h + step] together with another true breakpoint farther than tol from σ_h
       (the sweep jumps from σ_h to σ_h + step, whose search places one lower end in the
       gap, at the largest root it finds: one of the two is lost). Fast
       mode: the node's approximate crossings lie between two evaluated σ with the same
       side (the Hermite test did not split there) and the node's other true crossing lies
       between them too. Evidence: ``partner`` (its σ), ``distance``, ``separation`` (the
       restart step; the evaluated σ's spacing).
    4. ``search`` — otherwise: the approximate side changes within tol and nothing was
       placed. Evidence ``how``: paper mode 'restart' (σ* lies in a restart gap alone),
       'cap' (the node's iteration from the interval's σ0 hit ``max_iter``), 'root_tol'
       (it stopped short of σ*, farther than tol, at a point where |f − ½| ≤ root_tol
       counted as the root), 'iterates' (it converged to another root, stalled, left the
       range, or reached σ* only through iterates outside the bracket, or another root
       nearer σ0 set the end), 'unswept' (the sweep stopped before σ*); with ``sigma0``,
       ``stop`` (root, stalled, left, flat, cap), ``end`` (last iterate), ``root``,
       ``iterations``, ``extent_lo``/``extent_hi`` and ``found_by`` (step rules whose
       iteration from σ0 does converge within tol of σ*), all from re-running the node's
       iteration from σ0 over the whole range (as :func:`node_trace`); fast mode 'grid' (a
       pair of approximate crossings between the evaluated σ ``grid_lo`` and ``grid_hi``),
       'budget' (the same, with the search's evaluation budget spent) or 'refine' (a sign
       change was bracketed but refined to another crossing).

    Every miss record has ``node``, ``nearest_endpoint`` (distance to the nearest
    estimated endpoint, None when there is none) and ``estimated_endpoint`` (its σ). A
    spurious endpoint x (set by node u) is ``solver`` when the approximate side of u
    changes within tol of x (the exact one does not: no true breakpoint is that close, so
    nothing exact is solved), else ``search`` (an
    endpoint at no crossing of the approximate soft labels, e.g. a paper-mode iterate
    accepted as a root because |f − ½| ≤ root_tol: evidence ``root_tol``); evidence
    ``node``, ``approx_value`` (f_t,u(x)), ``nearest_breakpoint``.

    Cost: the approximate soft labels at 3 σ per item (15 where those 3 show no change),
    batched; 3 exact solves per miss; the t search for solver misses; paper mode re-runs
    the node's iteration (three step rules) for each search or close-pair miss; fast mode
    re-runs its search once if a miss needs its evaluated σ.
    """
    tol = check_real("tol", tol, "score", low=0.0)
    t_cap = check_int("t_cap", t_cap, "score", low=1)
    if max_attributed is not None:
        max_attributed = check_int("max_attributed", max_attributed, "score", low=0)
    n_u = truth.wrong_at_start.size
    if model is not None and model.n_unlabeled != n_u:
        raise ValueError(
            f"score: the model has {model.n_unlabeled} unlabeled nodes but the truth has "
            f"{n_u}; pass the model both were computed on"
        )
    gamma = 0.5 / max(n_u, 1) if gamma is None else check_real("gamma", gamma, "score", low=0.0)
    tb = truth.breakpoints
    ends = np.unique(
        [
            x
            for iv in result.intervals
            for x in (iv.lo, iv.hi)
            if result.sigma_min < x < result.sigma_max
        ]
    )
    found = np.array([ends.size > 0 and np.min(np.abs(ends - b)) <= tol for b in tb], bool)
    missed_idx = [i for i in range(tb.size) if not found[i]]
    misses = [(float(tb[i]), list(truth.nodes[i])) for i in missed_idx]
    spur = [float(x) for x in ends if tb.size == 0 or np.min(np.abs(tb - x)) > tol]
    est = result.estimated_loss()
    cuts = np.unique(np.r_[est.edges, truth.loss.edges])
    mids = 0.5 * (cuts[:-1] + cuts[1:])
    width = np.diff(cuts)
    le, lt = est(mids), truth.loss(mids)
    bad = np.isnan(le) | (np.abs(np.nan_to_num(le) - lt) > gamma)
    att = _Attribution(result, truth, tol, model, t_cap, ends)
    k = len(missed_idx)
    examined = list(range(k))
    if model is not None and max_attributed is not None and k > max_attributed:
        spread = np.linspace(0, k - 1, max_attributed).round()
        examined = sorted({int(j) for j in spread})
    probes: dict = {}
    if model is not None:
        items = [(float(tb[missed_idx[j]]), np.asarray(truth.nodes[missed_idx[j]], int))
                 for j in examined]  # fmt: skip
        every = np.arange(n_u)
        for x in spur:
            u = att.end_node.get(x, -1)
            items.append((x, np.array([u]) if u >= 0 else every))
        if progress is not None:
            progress(0.0, f"the sweep's solver around {len(items):,} σ")
        found_probes = att.probe(items)
        probes = dict(zip([*examined, *range(k, k + len(spur))], found_probes, strict=True))
    chosen = set(examined)
    miss_records, done = [], 0
    for j, i in enumerate(missed_idx):
        if j not in chosen:
            miss_records.append(att.unexamined(float(tb[i]), truth.nodes[i], len(examined), k))
            continue
        if progress is not None:
            progress(
                0.3 + 0.4 * done / len(examined),
                f"miss {done + 1:,} of {len(examined):,} (exact solves)",
            )
        miss_records.append(att.miss(float(tb[i]), truth.nodes[i], probes.get(j)))
        done += 1
    spurious_records = [att.spurious(x, probes.get(k + j)) for j, x in enumerate(spur)]
    miss_records = att.fill_t_needed(
        miss_records, None if progress is None else lambda message: progress(0.7, message)
    )
    sc = Score(
        M=len(result.intervals),
        true_breakpoints=int(tb.size),
        missed=len(misses),
        spurious=len(spur),
        eps_volume=float(width[bad].sum()),
        uncovered=float(width[np.isnan(le)].sum()),
        misses=misses,
        spurious_endpoints=spur,
        miss_records=miss_records,
        spurious_records=spurious_records,
        tol=float(tol),
        sigma_min=float(result.sigma_min),
        sigma_max=float(result.sigma_max),
        settings=result.settings,
        attributed=model is not None,
    )
    return replace(sc, causes=sc.cause_counts("all"))


def _num(x) -> float | None:
    """A plain float for the evidence (None for NaN/inf: the JSON has no NaN)."""
    x = float(x)
    return x if np.isfinite(x) else None


def _up(sl: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Side of 1/2 per node: True above (degenerate nodes sit at 1/2: not above)."""
    f, deg = sl
    return (f > 0.5) & ~deg


class _Attribution:
    """Re-solves around misses and spurious endpoints and assigns each its cause.

    The approximate soft labels around every item are computed first, all at once
    (:meth:`probe`: σ and σ ± tol, then the finer offsets of :data:`PROBE` only where
    those three show no change of side), keeping only the few nodes each item is about.
    """

    def __init__(self, result: Sweep, truth: LossCurve, tol, model, t_cap, ends) -> None:
        self.res, self.truth, self.tol, self.model = result, truth, tol, model
        self.s = result.settings
        self.lo, self.hi = result.sigma_min, result.sigma_max
        self.tb = truth.breakpoints
        self.ends = ends
        self.t_cap = t_cap
        self._curve: LossCurve | None = None
        self.end_node: dict[float, int] = {}
        for iv in result.intervals:
            for x, u in ((iv.lo, iv.lo_node), (iv.hi, iv.hi_node)):
                if self.end_node.get(x, -1) < 0:
                    self.end_node[x] = u
        self.iterative = self.s.solver in ("cg", "pcg") and not self.s.certify

    # -- soft labels ---------------------------------------------------------------------

    def _clip(self, pts) -> list[float]:
        return np.clip(np.asarray(pts, float), self.lo, self.hi).tolist()

    def exact(self, sigmas) -> list[tuple]:
        """``(f, degenerate)`` of the exact solve at each σ."""
        sls = self.model.soft_labels_many(list(sigmas), solver="exact", derivative=False)
        return [(sl.f, sl.degenerate) for sl in sls]

    def approx(self, sigmas, t: int | None = None) -> list[tuple]:
        """``(f, degenerate)`` from the sweep's solver at each σ (``t`` iterations, default
        the sweep's; certified labels when the sweep certifies)."""
        s, sigmas = self.s, list(sigmas)
        if s.solver == "exact" and not s.certify:
            return self.exact(sigmas)
        if s.certify and t is None:
            sls = [self.model.certified_labels(x, solver=s.solver, cg_iters=s.cg_iters,
                                               cap=s.certify_cap, derivative=False)
                   for x in sigmas]  # fmt: skip
        else:
            it = s.cg_iters if t is None else t
            sls = self.model.soft_labels_many(sigmas, solver=s.solver, cg_iters=it,
                                              derivative=False)  # fmt: skip
        return [(sl.f, sl.degenerate) for sl in sls]

    def probe(self, items: list) -> list[dict]:
        """For each ``(x, nodes)``: the approximate side (``up``), degenerate flags and f_t
        of ``nodes`` at the probe points around x, and whether the side changes there."""
        out = [{"pts": self._clip([x - self.tol, x, x + self.tol])} for x, _ in items]
        self._fill(items, out, range(len(items)))
        d = self.tol * np.asarray(PROBE[1:])
        fine = [i for i, o in enumerate(out) if not o["changes"].any()]
        for i in fine:
            x = items[i][0]
            out[i]["pts"] = self._clip(np.r_[x - self.tol, x - d[::-1], x, x + d, x + self.tol])
        self._fill(items, out, fine)
        return out

    def _fill(self, items, out, which, chunk: int = 256) -> None:
        which = list(which)
        need: dict[float, list[int]] = {}
        for i in which:
            for x in out[i]["pts"]:
                need.setdefault(x, []).append(i)
        got: dict[tuple[int, float], tuple] = {}
        keys = list(need)
        for k in range(0, len(keys), chunk):
            part = keys[k : k + chunk]
            for x, (f, deg) in zip(part, self.approx(part), strict=True):
                for i in need[x]:
                    idx = items[i][1]
                    got[(i, x)] = (f[idx], deg[idx])
        for i in which:
            o, x = out[i], items[i][0]
            vals = [got[(i, p)] for p in o["pts"]]
            o["f"] = np.array([v[0] for v in vals])  # (points, nodes)
            o["deg"] = np.array([v[1] for v in vals])
            o["up"] = (o["f"] > 0.5) & ~o["deg"]
            o["changes"] = (o["up"] != o["up"][0]).any(axis=0)
            o["f_x"] = got[(i, float(np.clip(x, self.lo, self.hi)))][0]

    def _label(self) -> str:
        s = self.s
        name = {"cg": "CG", "pcg": "PCG"}.get(s.solver)
        if name is None:
            return f"the {s.solver} solver"
        return f"certified {name}" if s.certify else f"{name}-{s.cg_iters}"

    # -- misses ----------------------------------------------------------------------------

    def _near(self, x: float) -> dict:
        """``nearest_endpoint`` (its distance to ``x``) and ``estimated_endpoint`` (its σ)."""
        if not self.ends.size:
            return {"nearest_endpoint": None, "estimated_endpoint": None}
        e = float(self.ends[np.argmin(np.abs(self.ends - x))])
        return {"nearest_endpoint": abs(e - x), "estimated_endpoint": e}

    def miss(self, b: float, nodes, pr: dict | None) -> Miss:
        nd = tuple(int(u) for u in np.atleast_1d(nodes))
        ev: dict = {"node": nd[0] if nd else -1, **self._near(b)}
        if self.model is None:
            return self._miss_unsolved(b, nd, ev)
        ends = self._clip([b - self.tol, b + self.tol])
        ex = self.exact([ends[0], b, ends[1]])
        idx = np.array(nd, int)
        ex_deg = np.any([d[idx] for _, d in ex], axis=0) if nd else np.zeros(0, bool)
        ap_deg = pr["deg"].any(axis=0) if nd else np.zeros(0, bool)
        if ex_deg.any() or ap_deg.any():
            j = int(np.argmax(ex_deg | ap_deg))
            ev |= {"node": nd[j], "exact_degenerate": bool(ex_deg[j]),
                   "approx_degenerate": bool(ap_deg[j])}  # fmt: skip
            where = ("in the exact graph" if ex_deg[j] else
                     f"for {self._label()} (its weights underflow unscaled)")  # fmt: skip
            return Miss(b, nd, "degenerate",
                        f"the node is cut off from every labeled node within tol of "
                        f"σ = {b:.5g} {where}", ev)  # fmt: skip
        if not nd:  # a breakpoint no node explains (cannot happen on a complete curve)
            return Miss(b, nd, "search", "no node changes side here", ev | {"how": "unknown"})
        crosses = pr["changes"]
        j = int(np.argmax(crosses)) if crosses.any() else 0
        u = nd[j]
        f_t, f = float(pr["f_x"][j]), float(ex[1][0][u])  # at σ*
        margin = min(abs(ex[0][0][u] - 0.5), abs(ex[-1][0][u] - 0.5))
        ev |= {"node": u, "approx_value": f_t, "exact_value": f, "error": abs(f_t - f),
               "margin": float(margin)}  # fmt: skip
        if not crosses.any():
            ev |= {"t_needed": None, "t_cap": self.t_cap if self.iterative else None}
            want = np.array([_up(e)[idx] for e in (ex[0], ex[-1])])
            ev["_target"] = (ends, idx, want)
            return Miss(b, nd, "solver",
                        f"the node's soft label from {self._label()} does not cross 1/2 within "
                        f"{self.tol:.2g} of σ = {b:.5g}: error |f_t − f| = {abs(f_t - f):.2g} "
                        f"against a margin |f − ½| = {margin:.2g}", ev)  # fmt: skip
        if self.s.mode == "paper":
            return self._paper_search(b, nd, u, ev)
        return self._fast_search(b, nd, u, ev)

    def _miss_unsolved(self, b, nd, ev, why: str = "scored without the model") -> Miss:
        for a, c, count in self.truth.degenerate_ranges:
            for e in (a, c):
                if self.lo < e < self.hi and abs(e - b) <= self.tol:
                    ev |= {"range_lo": float(a), "range_hi": float(c), "count": int(count)}
                    return Miss(b, nd, "degenerate",
                                f"{count} nodes are cut off from L on [{a:.4g}, {c:.4g}]; the "
                                f"degenerate set changes at σ = {b:.5g}", ev)  # fmt: skip
        return Miss(b, nd, UNATTRIBUTED, f"{why}: nothing re-solved", ev)

    def unexamined(self, b: float, nodes, examined: int, missed: int) -> Miss:
        """A miss left out by ``max_attributed``: only what needs no solve (a change of
        the exact curve's degenerate set), else 'unattributed'."""
        nd = tuple(int(u) for u in np.atleast_1d(nodes))
        ev: dict = {"node": nd[0] if nd else -1, **self._near(b),
                    "examined": examined}  # fmt: skip
        why = f"not examined (causes looked for at {examined} of the {missed} misses)"
        return self._miss_unsolved(b, nd, ev, why)

    def _true_partner(self, b: float, lo: float, hi: float, node: int | None = None):
        """The nearest other true breakpoint in [lo, hi] (of ``node`` when given)."""
        best = None
        for x, nodes in zip(self.tb, self.truth.nodes, strict=True):
            if x == b or not lo <= x <= hi or (node is not None and node not in set(nodes)):
                continue
            if best is None or abs(x - b) < abs(best - b):
                best = float(x)
        return best

    def _paper_search(self, b, nd, u, ev) -> Miss:
        s, ivs = self.s, self.res.intervals
        for k, iv in enumerate(ivs):
            start = ivs[k + 1].sigma0 if k + 1 < len(ivs) else iv.hi + s.step
            if not (iv.hi < b < start and iv.hi < self.hi):
                continue
            gap = {"restart_from": iv.hi, "restart_to": start}
            # Only one lower end falls in the gap: a pair there cannot both be found.
            partner = self._true_partner(b, np.nextafter(iv.hi + self.tol, np.inf), start)
            left = ""
            if start <= self.hi:  # the next interval's search from σ0 looks left too
                ev |= self._iteration(b, u, start)
                nxt_lo = ivs[k + 1].lo if k + 1 < len(ivs) else None
                left = f"; from there the node's iteration {self._classify(b, u, ev, nxt_lo)[1]}"
            if partner is not None:
                ev |= gap | {"partner": partner, "distance": abs(b - partner),
                             "separation": s.step}  # fmt: skip
                return Miss(b, nd, "close pair",
                            f"another true breakpoint at σ = {partner:.5g} is "
                            f"{abs(b - partner):.2g} away, inside the restart gap "
                            f"({iv.hi:.5g}, {start:.5g}] of step {s.step:g}{left}", ev)  # fmt: skip
            ev |= gap | {"how": "restart"}
            return Miss(b, nd, "search",
                        f"the sweep restarted at σ_h + step = {start:.5g} after the endpoint "
                        f"{iv.hi:.5g}, jumping over it{left}", ev)  # fmt: skip
        for iv in ivs:
            if iv.lo < b < iv.hi:
                ev |= self._iteration(b, u, iv.sigma0)
                how, text = self._classify(b, u, ev)
                ev["how"] = how
                return Miss(b, nd, "search",
                            f"from σ0 = {iv.sigma0:.5g} the node's hybrid iteration {text}",
                            ev)  # fmt: skip
        ev["how"] = "unswept"
        return Miss(b, nd, "search", "the sweep stopped before reaching it (time budget)", ev)

    def _iteration(self, b, u, sigma0) -> dict:
        """Node u's iteration from σ0 over the whole range, for each step rule."""
        out: dict = {"sigma0": float(sigma0), "found_by": []}
        for rule in ("hybrid", "newton", "gradient"):
            trace, root, (stop, nxt) = _trace(self.model, u, sigma0, self.lo, self.hi, self.s,
                                              rule)  # fmt: skip
            if root is not None and abs(root - b) <= self.tol:
                out["found_by"].append(rule)
            if rule == "hybrid":
                sig = [it.sigma for it in trace] or [sigma0]
                out |= {"stop": stop, "root": root, "end": float(sig[-1]),
                        "next": _num(nxt) if stop == "left" else None,
                        "iterations": len(trace), "extent_lo": float(min(sig)),
                        "extent_hi": float(max(sig)),
                        "end_value": float(trace[-1].f) if trace else None}  # fmt: skip
        return out

    def _short_of(self, b: float, u: int, r: float) -> bool:
        """Whether the accepted root r of node u is this crossing located loosely: no other
        true crossing of u between them and the approximate side at r is that of b's
        side facing r."""
        if self._true_partner(b, min(r, b), max(r, b), node=u) is not None:
            return False
        q = min(self.hi, max(self.lo, b + np.copysign(self.tol, r - b)))
        ur, uq = (_up(x)[u] for x in self.approx([r, q]))
        return bool(ur == uq)

    def _classify(self, b, u, ev, next_lo=None) -> tuple[str, str]:
        """``(how, text)`` of a paper-mode search miss from the node's re-run iteration."""
        stop, end, r = ev["stop"], ev["end"], ev["root"]
        if stop == "cap":
            how, text = "cap", f"hit the iteration cap ({self.s.max_iter}) at σ = {end:.5g}"
        elif stop == "root" and abs(r - b) <= self.tol:
            how = "iterates"
            if next_lo is not None and next_lo > b:
                text = (f"reaches it, but a root nearer σ0 set that interval's lower end "
                        f"at {next_lo:.5g}")  # fmt: skip
            else:
                text = (f"reaches it, but only through iterates in [{ev['extent_lo']:.5g}, "
                        f"{ev['extent_hi']:.5g}], outside the bracket left by the nodes "
                        f"before it")  # fmt: skip
        elif stop == "root" and self._short_of(b, u, r):
            how = "root_tol"
            text = (f"stopped {abs(r - b):.2g} short of it, at σ = {r:.5g} where |f − ½| = "
                    f"{abs(ev['end_value'] - 0.5):.2g} ≤ root_tol {self.s.root_tol:g} was "
                    f"taken for the root")  # fmt: skip
        elif stop == "root":
            how, text = "iterates", f"converged to another root, σ = {r:.5g}"
        elif stop == "stalled":
            how = "iterates"
            text = (f"stalled at σ = {end:.5g} with |f − ½| = {abs(ev['end_value'] - 0.5):.2g}"
                    f" > root_tol (a minimum of g, not a root)")  # fmt: skip
        elif stop == "left":
            how, text = "iterates", f"stepped out of the range from σ = {end:.5g}"
        elif stop == "flat":
            how, text = "iterates", f"stopped at σ = {end:.5g} where g' = 0"
        else:
            how, text = "iterates", f"stopped at σ = {end:.5g} ({stop})"
        other = [x for x in ev["found_by"] if x != "hybrid"]
        if not other or "hybrid" in ev["found_by"]:
            return how, text
        return how, text + f"; the {' and '.join(other)} rule would find it"

    def _fast_curve(self) -> LossCurve:
        """The fast mode's search (kept on the sweep; re-run as :func:`sweep` runs it for a
        sweep that did not keep it)."""
        if self._curve is None and self.res.curve is not None:
            self._curve = self.res.curve
        if self._curve is None:
            s = self.s
            rtol = {"rtol": min(1e-3, s.epsilon / self.hi)} if not s.certify else {}
            self._curve = true_loss_curve(
                self.model, np.zeros(self.model.n_unlabeled), self.lo, self.hi,
                solver=s.solver, cg_iters=s.cg_iters,
                certify_cap=s.certify_cap if s.certify else None, **rtol,
            )  # fmt: skip
        return self._curve

    def _fast_search(self, b, nd, u, ev) -> Miss:
        curve = self._fast_curve()
        e = curve.evaluations
        a = float(e[e <= b].max()) if np.any(e <= b) else self.lo
        c = float(e[e >= b].min()) if np.any(e >= b) else self.hi
        ua, uc = (_up(x)[u] for x in self.approx([a, c]))
        ev |= {"grid_lo": a, "grid_hi": c}
        if ua == uc:
            partner = self._true_partner(b, a, c, node=u)
            if partner is not None:
                ev |= {"partner": partner, "distance": abs(b - partner), "separation": c - a}
                return Miss(b, nd, "close pair",
                            f"the node crosses again at σ = {partner:.5g} ({abs(b - partner):.2g} "
                            f"away); both crossings lie between the evaluated σ {a:.5g} and "
                            f"{c:.5g}, where its approximate side is the same", ev)  # fmt: skip
            how = "grid" if curve.complete else "budget"
            why = ("the Hermite test did not split there" if curve.complete else
                   "the search's evaluation budget was spent")  # fmt: skip
            ev["how"] = how
            return Miss(b, nd, "search",
                        f"the node's soft label from {self._label()} crosses 1/2 twice between the "
                        f"evaluated σ {a:.5g} and {c:.5g}: {why}", ev)  # fmt: skip
        ev["how"] = "refine"
        return Miss(b, nd, "search",
                    f"the search bracketed the node's sign change in [{a:.5g}, {c:.5g}] but "
                    f"refined it to another crossing", ev)  # fmt: skip

    # -- spurious endpoints ------------------------------------------------------------------

    def spurious(self, x: float, pr: dict | None) -> SpuriousEndpoint:
        u = int(self.end_node.get(x, -1))
        near = float(np.min(np.abs(self.tb - x))) if self.tb.size else None
        ev: dict = {"node": u, "nearest_breakpoint": near}
        if self.model is None:
            return SpuriousEndpoint(x, u, UNATTRIBUTED, "scored without the model", ev)
        crosses = pr["changes"]
        j = int(np.argmax(crosses)) if u < 0 and crosses.any() else 0
        if u < 0 and crosses.any():
            u = ev["node"] = j  # no node recorded: the probe ran on every node
        if u >= 0:
            ev["approx_value"] = float(pr["f_x"][j])
        if crosses.any():
            # No true breakpoint within tol: the exact side does not change there.
            detail = (f"the node's soft label from {self._label()} crosses 1/2 within tol of "
                      f"this endpoint; the exact one does not")  # fmt: skip
            return SpuriousEndpoint(x, u, "solver", detail, ev)
        if self.s.mode == "paper" and u >= 0:
            ev["root_tol"] = self.s.root_tol
            detail = (f"the node's iteration stopped here with |f_t − ½| = "
                      f"{abs(ev['approx_value'] - 0.5):.2g} ≤ root_tol {self.s.root_tol:g} and "
                      f"was taken for a root, but f_t does not cross 1/2 within tol")  # fmt: skip
        else:
            detail = "no approximate soft label crosses 1/2 within tol of this endpoint"
        return SpuriousEndpoint(x, u, "search", detail, ev)

    # -- the iterations a solver record needed -------------------------------------------------

    def _right(self, targets, t: int) -> list[bool]:
        """Whether t iterations put f_t on the wanted side at every point of each target,
        for some node of it (one batched solve per call)."""
        pts = list(dict.fromkeys(x for p, _, _ in targets for x in p))
        labels = dict(zip(pts, self.approx(pts, t), strict=True))
        out = []
        for p, idx, want in targets:
            got = np.array([_up(labels[x])[idx] for x in p])
            out.append(bool(np.any(np.all(got == want, axis=0))))
        return out

    def fill_t_needed(self, misses: list, say: Callable[[str], None] | None = None) -> list:
        """``t_needed`` of every solver miss: doubling from the sweep's t until it works (or
        ``t_cap``), then bisecting between the last failing and the first working t until
        they are 1 apart, or 1/16 of t apart above t = 16 (all misses solved together).
        ``say(message)``, if given, hears each batched step before it runs."""

        def trying(t: int, count: int) -> None:
            if say is not None:
                say(f"the iterations each solver miss needed: trying t = {t} at {count:,} of them")

        recs = [r for r in misses if "_target" in r.evidence]
        need: dict[int, int | None] = {}
        if self.iterative and recs:
            targets = [r.evidence["_target"] for r in recs]
            lo = [self.s.cg_iters] * len(recs)  # fails
            hi: list[int | None] = [None] * len(recs)  # works
            t, todo = self.s.cg_iters, list(range(len(recs)))
            while todo and t < self.t_cap:  # doubling
                t = min(2 * t, self.t_cap)
                trying(t, len(todo))
                for i, ok in zip(todo, self._right([targets[i] for i in todo], t), strict=True):
                    if ok:
                        hi[i] = t
                    else:
                        lo[i] = t
                todo = [i for i in todo if hi[i] is None]

            def open_(i):
                return hi[i] is not None and hi[i] - lo[i] > max(1, lo[i] // 16)

            todo = [i for i in range(len(recs)) if open_(i)]
            while todo:  # bisection
                by_t: dict[int, list[int]] = {}
                for i in todo:
                    by_t.setdefault((lo[i] + hi[i]) // 2, []).append(i)
                for m, ids in by_t.items():
                    trying(m, len(ids))
                    for i, ok in zip(ids, self._right([targets[i] for i in ids], m), strict=True):
                        if ok:
                            hi[i] = m
                        else:
                            lo[i] = m
                todo = [i for i in todo if open_(i)]
            need = {id(r): h for r, h in zip(recs, hi, strict=True)}

        def done(r):
            if "_target" not in r.evidence:
                return r
            ev = {k: v for k, v in r.evidence.items() if k != "_target"}
            ev["t_needed"] = need.get(id(r))
            return replace(r, evidence=ev)

        return [done(r) for r in misses]


# -- the one-line verdict ------------------------------------------------------------------------

_HOW = {
    "restart": "the restart step {step:g} jumped over them",
    "cap": "the iteration cap ({max_iter}) stopped the node's iteration",
    "root_tol": "the node's iteration stopped short, at |f − ½| ≤ root_tol {root_tol:g}",
    "iterates": "the node's iteration from σ0 went elsewhere",
    "grid": "a pair of crossings fell between two evaluated σ",
    "budget": "the search's evaluation budget ran out",
    "refine": "the root refinement went to another crossing",
    "unswept": "the sweep stopped before reaching them",
    "unknown": "no node explains them",
}


def _where(sigmas: list[float], lo: float, hi: float) -> str:
    a, b = min(sigmas), max(sigmas)
    span = hi - lo if np.isfinite(hi - lo) else 0.0
    if a == b:
        return f"σ = {a:.3g}"
    if span and b >= hi - 0.1 * span and a > lo + 0.1 * span:
        return f"σ ≥ {a:.3g}"
    if span and a <= lo + 0.1 * span and b < hi - 0.1 * span:
        return f"σ ≤ {b:.3g}"
    return f"σ in [{a:.3g}, {b:.3g}]"


CAUSE_WORDS = {
    "solver": "too few iterations",
    "search": "stepped over by the search",
    "close pair": "two crossings too close",
    "degenerate": "cut off from the labels",
    UNATTRIBUTED: "unexplained",
}
"""Each cause of :data:`CAUSES` in plain words, as the pages and :func:`verdict` say it (an
exact solver's "solver" misses: :func:`cause_words`)."""


def cause_words(cause: str, settings: SweepSettings | None = None) -> str:
    """:data:`CAUSE_WORDS` of ``cause``; a direct or certified solver has no iterations to
    be too few of: its "solver" misses are "solver error"."""
    s = settings or SweepSettings()
    if cause == "solver" and (s.solver not in ("cg", "pcg") or s.certify):
        return "solver error"
    return CAUSE_WORDS.get(cause, cause)


def explain_miss(record: Miss | SpuriousEndpoint, score: Score, rows=None) -> str:
    """What happened at one miss (or spurious endpoint), in words with its numbers: the
    node (instance row, from ``rows``), the true crossing, the nearest estimated endpoint
    against the tolerance, the solver's error against the margin, and the t that fixes it.
    """
    s = score.settings or SweepSettings()
    ev = record.evidence
    u = ev.get("node", getattr(record, "node", -1))
    node = f"node {rows[u]}" if rows is not None and u is not None and u >= 0 else "no node"
    words = cause_words(record.cause, s)
    if isinstance(record, SpuriousEndpoint):
        return (f"Spurious endpoint at σ = {record.sigma:.5g} ({node}): no true breakpoint "
                f"within the tolerance {score.tol:g}. Cause: {words}: "
                f"{record.detail}.")  # fmt: skip
    near = ev.get("estimated_endpoint")
    est = ("no estimated endpoint" if near is None else
           f"{s.label}'s nearest estimated endpoint is at σ = {near:.5g}, "
           f"{abs(near - record.sigma):.2g} away (the tolerance is {score.tol:g})")  # fmt: skip
    out = (f"Missed breakpoint of {node}: its exact soft label crosses ½ at σ = "
           f"{record.sigma:.5g}; {est}.")  # fmt: skip
    if "error" in ev:
        out += (f" There {s.label} gives f = {ev['approx_value']:.4g} against the exact "
                f"{ev['exact_value']:.4g}: an error of {ev['error']:.2g} against a margin "
                f"|f − ½| of {ev['margin']:.2g}.")  # fmt: skip
    out += f" Cause: {words}"
    t = ev.get("t_needed")
    if record.cause == "solver" and t is not None:
        out += f"; with t = {t} iterations {s.label.split('-')[0]} puts it on its right side."
    elif record.cause == "solver" and ev.get("t_cap"):
        out += f"; even t = {ev['t_cap']} iterations do not put it on its right side."
    else:
        out += f": {record.detail}."
    return out


def verdict(score: Score, settings: SweepSettings | None = None, trust=None) -> str:
    """One line saying how many true breakpoints were missed and why, by cause.

    E.g. "30 of 45 true breakpoints missed: 28 too few iterations — CG-20 is too few
    iterations for σ ≥ 3.1 (up to t = 160 needed); 2 stepped over by the search — the
    restart step 0.05 jumped over them. 3 spurious endpoints: 3 too few iterations." (causes
    in :func:`cause_words`). ``settings`` defaults to the scored sweep's. With
    ``trust`` (the sweep's :class:`~sslviz.conditioning.TrustCurve`), the solver's misses
    are placed where the trust panel says CG-t cannot be trusted (the same bands).
    """
    s = settings or score.settings or SweepSettings()
    name = {"cg": "CG", "pcg": "PCG"}.get(s.solver)
    label = f"{name}-{s.cg_iters}" if name and not s.certify else (
        f"certified {name}" if name else f"the {s.solver} solver")  # fmt: skip
    if score.missed == 0:
        head = (f"No true breakpoint missed (of {score.true_breakpoints:,})."
                if score.true_breakpoints else "No true breakpoint in the range.")  # fmt: skip
    else:
        parts = []
        by: dict[str, list] = {}
        for r in score.miss_records:
            by.setdefault(r.cause, []).append(r)
        for cause in CAUSES:
            recs = by.get(cause)
            if not recs:
                continue
            k = len(recs)
            if cause == "solver":
                where = _where([r.sigma for r in recs], score.sigma_min, score.sigma_max)
                if name and not s.certify:
                    need = [r.evidence.get("t_needed") for r in recs]
                    known = [t for t in need if t is not None]
                    cap = recs[0].evidence.get("t_cap")
                    extra = (f" (up to t = {max(known)} needed)" if known and len(known) == k
                             else f" (some need more than t = {cap})" if cap else "")  # fmt: skip
                    if trust is not None:
                        where = trust.where_untrusted(trust.missed_by(score)[0])
                        note = f"; {extra[2:-1]}" if extra else ""
                        why = f"they lie where {label} cannot be trusted ({where}{note})"
                    else:
                        why = f"{label} is too few iterations for {where}{extra}"
                else:
                    why = f"{label}'s soft labels are on the wrong side at {where}"
            elif cause == "search":
                hows: dict[str, int] = {}
                for r in recs:
                    how = r.evidence.get("how", "unknown")
                    hows[how] = hows.get(how, 0) + 1
                ranked = sorted(hows.items(), key=lambda kv: -kv[1])
                texts = [
                    _HOW.get(h, h).format(step=s.step, max_iter=s.max_iter, root_tol=s.root_tol)
                    for h, _ in ranked
                ]
                why = texts[0] if len(texts) == 1 else ", ".join(
                    f"{c}: {t}" for (_, c), t in zip(ranked, texts, strict=True))  # fmt: skip
            elif cause == "close pair":
                why = (f"closer than the restart step {s.step:g} to another true breakpoint, "
                       f"in one restart gap" if s.mode == "paper" else
                       "two crossings of one node between the same two evaluated σ")  # fmt: skip
            elif cause == "degenerate":
                why = "their nodes are cut off from every labeled node there"
            elif "examined" in recs[0].evidence:
                why = "not examined"
            else:
                why = "scored without the model"
            parts.append(f"{k:,} {cause_words(cause, s)} — {why}")
        seen = [r.evidence["examined"] for r in score.miss_records if "examined" in r.evidence]
        sample = f" (causes looked for at {seen[0]:,} of them, spread over σ)" if seen else ""
        head = (f"{score.missed:,} of {score.true_breakpoints:,} true breakpoints missed"
                f"{sample}: " + "; ".join(parts) + ".")  # fmt: skip
    if score.spurious:
        sp = score.cause_counts("spurious")
        head += (
            f" {score.spurious:,} spurious endpoint{'s' * (score.spurious > 1)}: "
            + ", ".join(f"{c:,} {cause_words(k, s)}" for k, c in sp.items() if c)
            + "."
        )
    return head
