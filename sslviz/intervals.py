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
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from sslviz._validation import check_int, check_option, check_real, check_sigma_range
from sslviz.labeling import DelalleauModel, HarmonicModel, LabelOracle
from sslviz.piecewise import PiecewiseLoss
from sslviz.specs import ScoreSettings, SweepSettings, default
from sslviz.truth import LossCurve, true_loss_curve

STEP_RULES = ("hybrid", "gradient", "newton")


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


@dataclass(frozen=True)
class Iterate:
    """One step of a node's iteration (for the paper's Figure 2)."""

    sigma: float
    f: float
    g: float
    step: str  # the step taken from here: 'gradient' | 'newton' | 'end'


@dataclass(frozen=True, eq=False)
class Sweep:
    """Intervals covering (part of) [σ_min, σ_max] and the work they took."""

    intervals: list[Interval]
    sigma_min: float
    sigma_max: float
    settings: SweepSettings
    solves: int
    matvecs: int
    seconds: float
    complete: bool = True

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

    def advance(self, lo: float, hi: float, trace: list | None = None, *, inner=None):
        """One step of every node from its current point (soft labels known there).

        A node whose next point leaves [lo, hi] stops. ``inner`` = (lo_u, hi_u), per-node
        sub-brackets: a node whose next point leaves its own (but not [lo, hi]) moves
        there and is *parked*, to be fed only if that point turns out to be in its bracket.

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
    oracle, sigma0: float, lo: float, hi: float, s: SweepSettings, first, *, window: int
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
    while settled < n:
        if run.u.size and not stale.any():
            inner = None  # with no finished node waiting to settle, it is [lo, hi]
            if done[settled:admitted].any():
                inner = _inner_brackets(run.u, settled, sigma0, lo, hi, done, root, tmin, tmax)
            finished, r, park = run.advance(lo, hi, inner=inner)
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
            if np.isfinite(x) and lo <= tmin[settled] and tmax[settled] <= hi:
                if sigma0 < x < hi:
                    hi, hi_node = float(x), settled
                elif lo < x < sigma0:
                    lo, lo_node = float(x), settled
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
    t0 = time.perf_counter()
    s = SweepSettings(mode="paper") if settings is None else settings
    lo, hi = check_sigma_range(sigma_min, sigma_max, "feedback_set")
    sigma0 = check_real("sigma0", sigma0, "feedback_set", low=lo, high=hi)
    oracle = _oracle(model, s)
    first = oracle.labels(sigma0)
    window = _WINDOW if model.batches(s.solver) else 1
    lo, hi, lo_node, hi_node = _bracket(oracle, sigma0, lo, hi, s, first, window=window)
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
    )


def sweep(
    model: HarmonicModel | DelalleauModel,
    y_unlabeled: np.ndarray,
    sigma_min: float,
    sigma_max: float,
    settings: SweepSettings | None = None,
    *,
    progress=None,
    max_seconds: float | None = None,
) -> Sweep:
    """Estimated constant-loss intervals over [σ_min, σ_max] (paper or fast mode).

    Parameters
    ----------
    progress : callable, optional
        ``progress(fraction_done, message)`` called as the sweep advances.
    max_seconds : float, optional
        Paper mode only: stop starting new intervals after this long. The result then
        covers [σ_min, last hi] and ``Sweep.complete`` is False (time per interval is still
        measured; M and scores are not comparable).
    """
    s = SweepSettings() if settings is None else settings
    lo, hi = check_sigma_range(sigma_min, sigma_max, "sweep")
    y_u = np.asarray(y_unlabeled)
    t0 = time.perf_counter()
    if s.mode == "fast":
        curve = true_loss_curve(
            model, y_u, lo, hi, solver=s.solver, cg_iters=s.cg_iters, rtol=min(1e-3, s.epsilon / hi)
        )
        return _sweep_from_curve(curve, lo, hi, s, t0)
    intervals: list[Interval] = []
    sigma0 = lo
    complete = True
    while sigma0 <= hi:
        if max_seconds is not None and time.perf_counter() - t0 > max_seconds:
            complete = False
            break
        iv = feedback_set(model, y_u, sigma0, lo, hi, s)
        intervals.append(iv)
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
    )


def _sweep_from_curve(curve: LossCurve, lo, hi, s: SweepSettings, t0) -> Sweep:
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
    return Sweep(ivs, lo, hi, s, curve.solves, curve.matvecs, time.perf_counter() - t0)


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
    oracle = _oracle(model, s)
    run = _NodeIterations(np.array([u]), sigma0, oracle.labels(sigma0), s, rule)
    trace: list[Iterate] = []
    while True:
        finished, root, _ = run.advance(lo, hi, trace)
        if finished[0]:
            return trace, (float(root[0]) if np.isfinite(root[0]) else None)
        run.feed(oracle.labels_many(run.sigma))


@dataclass(frozen=True)
class Score:
    """An estimate measured against the truth (DESIGN §5.3)."""

    M: int
    true_breakpoints: int
    missed: int
    spurious: int
    eps_volume: float
    uncovered: float
    misses: list  # [(sigma, nodes)]
    spurious_endpoints: list


def score(
    result: Sweep,
    truth: LossCurve,
    *,
    tol: float = default(ScoreSettings, "tol"),
    gamma: float | None = None,
) -> Score:
    """Score estimated intervals against the exact curve.

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
    """
    tol = check_real("tol", tol, "score", low=0.0)
    n_u = truth.wrong_at_start.size
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
    misses = [(float(b), list(truth.nodes[i])) for i, b in enumerate(tb) if not found[i]]
    spur = [float(x) for x in ends if tb.size == 0 or np.min(np.abs(tb - x)) > tol]
    est = result.estimated_loss()
    cuts = np.unique(np.r_[est.edges, truth.loss.edges])
    mids = 0.5 * (cuts[:-1] + cuts[1:])
    width = np.diff(cuts)
    le, lt = est(mids), truth.loss(mids)
    bad = np.isnan(le) | (np.abs(np.nan_to_num(le) - lt) > gamma)
    return Score(
        len(result.intervals),
        int(tb.size),
        len(misses),
        len(spur),
        float(width[bad].sum()),
        float(width[np.isnan(le)].sum()),
        misses,
        spur,
    )
