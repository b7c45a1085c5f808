"""Constant-loss intervals: Algorithm 4 as in the paper, a fast mode, and scoring.

Paper mode (Algorithm 4 with Appendix E.1–E.2): from a start σ0, every unlabeled node u
runs its own hybrid iteration on g_u(σ) = (f_u(σ) − 1/2)², g'_u = 2(f_u − 1/2) f'_u,
stepping by the smaller (in magnitude) of the gradient step ξ_GD = η g'_u (with
Nesterov momentum) and the Newton step ξ_N = 2 g_u / g'_u. It stops when both |Δσ| and
|Δf_u| fall below ε, when it leaves the current bracket [σ_l, σ_h], or after
``max_iter`` steps. A converged root right of σ0 lowers σ_h, one left of σ0 raises σ_l.
The sweep starts at σ_min and restarts at σ_h + step.

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
from sslviz.labeling import DelalleauModel, HarmonicModel
from sslviz.piecewise import PiecewiseLoss
from sslviz.solvers import SOLVERS
from sslviz.truth import TrueLossCurve, _Evaluator, true_loss_curve

MODES = ("fast", "paper")
STEP_RULES = ("hybrid", "gradient", "newton")


@dataclass(frozen=True)
class SweepSettings:
    """Settings of Algorithm 4 and its sweep (paper defaults: ε = 1e-4, η = 1, step 0.05).

    Parameters
    ----------
    solver : {'cg', 'pcg', 'exact', 'inverse'}, default='cg'
    cg_iters : int, default=20
        t, CG iterations per solve.
    epsilon : float, default=1e-4
        ε: stop a node's iteration when |Δσ| < ε and |Δf_u| < ε.
    eta : float, default=1.0
        η, the gradient step size.
    step : float, default=0.05
        The sweep restarts at σ_h + step.
    max_iter : int, default=100
        Iteration cap per node.
    root_tol : float, default=1e-2
        A converged iterate counts as a root only if |f_u − 1/2| ≤ root_tol.
    mode : {'fast', 'paper'}, default='fast'
    """

    solver: str = "cg"
    cg_iters: int = 20
    epsilon: float = 1e-4
    eta: float = 1.0
    step: float = 0.05
    max_iter: int = 100
    root_tol: float = 1e-2
    mode: str = "fast"

    def __post_init__(self) -> None:
        name = "SweepSettings"
        check_option("solver", self.solver, name, SOLVERS)
        check_int("cg_iters", self.cg_iters, name, low=1)
        check_real("epsilon", self.epsilon, name, low=0.0, closed="neither")
        check_real("eta", self.eta, name, low=0.0, closed="neither")
        check_real("step", self.step, name, low=0.0, closed="neither")
        check_int("max_iter", self.max_iter, name, low=1)
        check_real("root_tol", self.root_tol, name, low=0.0, high=0.5, closed="right")
        check_option("mode", self.mode, name, MODES)


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


def _oracle(model, settings: SweepSettings):
    """Counted, uncached soft labels from the settings' solver (``.labels(σ)``)."""
    return _Evaluator(model, None, settings.solver, settings.cg_iters)


def _wrong_fraction(sl, y_u: np.ndarray) -> float:
    wrong = sl.degenerate | ((sl.f > 0.5) != (y_u == 1))
    return float(wrong.mean()) if wrong.size else 0.0


def node_iteration(
    oracle,
    u: int,
    sigma0: float,
    lo: float,
    hi: float,
    settings: SweepSettings,
    *,
    rule: str = "hybrid",
    first=None,
    trace: list | None = None,
) -> float | None:
    """Algorithm 4's inner loop for node ``u``; the root it converged to, or None.

    ``first`` is the soft labels at σ0 if already computed (shared by all nodes).
    """
    s = settings
    sigma, y_prev, lam = sigma0, sigma0, 1.0
    sl = first if first is not None else oracle.labels(sigma)
    f_prev, step = None, np.inf
    for _ in range(s.max_iter):
        if sl.degenerate[u]:
            return None
        f, df = float(sl.f[u]), float(sl.df[u])
        h = f - 0.5
        g, dg = h * h, 2.0 * h * df
        if trace is not None:
            trace.append(Iterate(sigma, f, g, "end"))
        if f_prev is not None and abs(f - f_prev) < s.epsilon and abs(step) < s.epsilon:
            return sigma if abs(h) <= s.root_tol else None
        if dg == 0.0:
            return sigma if h == 0.0 else None
        xi_gd, xi_n = s.eta * dg, 2.0 * g / dg
        use_gd = rule == "gradient" or (rule == "hybrid" and abs(xi_gd) < abs(xi_n))
        y_next = sigma - (xi_gd if use_gd else xi_n)
        if use_gd:
            lam_next = (1.0 + np.sqrt(1.0 + 4.0 * lam * lam)) / 2.0
            gamma = (1.0 - lam) / lam_next
            new = (1.0 - gamma) * y_next + gamma * y_prev
            lam = lam_next
        else:
            new = y_next
        if trace is not None:
            trace[-1] = Iterate(sigma, f, g, "gradient" if use_gd else "newton")
        y_prev = y_next
        step = new - sigma
        if not (lo <= new <= hi) or not np.isfinite(new):
            return None
        f_prev, sigma = f, new
        sl = oracle.labels(sigma)
    return None


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
    lo_node = hi_node = -1
    for u in range(model.n_unlabeled):
        root = node_iteration(oracle, u, sigma0, lo, hi, s, first=first)
        if root is None:
            continue
        if root > sigma0 and root < hi:
            hi, hi_node = root, u
        elif root < sigma0 and root > lo:
            lo, lo_node = root, u
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


def _sweep_from_curve(curve: TrueLossCurve, lo, hi, s: SweepSettings, t0) -> Sweep:
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
    trace: list[Iterate] = []
    root = node_iteration(_oracle(model, s), u, sigma0, lo, hi, s, rule=rule, trace=trace)
    return trace, root


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

    def to_dict(self) -> dict:
        return {
            "M": self.M,
            "true_breakpoints": self.true_breakpoints,
            "missed": self.missed,
            "spurious": self.spurious,
            "eps_volume": self.eps_volume,
            "uncovered": self.uncovered,
            "misses": [{"sigma": s, "nodes": [int(x) for x in nd]} for s, nd in self.misses],
            "spurious_endpoints": list(self.spurious_endpoints),
        }


def score(
    result: Sweep, truth: TrueLossCurve, *, tol: float = 1e-3, gamma: float | None = None
) -> Score:
    """Score estimated intervals against the exact curve.

    Parameters
    ----------
    result : Sweep
    truth : TrueLossCurve
        On the same range.
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
