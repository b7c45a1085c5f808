"""The online learner of σ: Approximate Continuous Exp3-Set (Algorithm 1, Theorem 3.1).

Holds its exact weights, step size and rate, the exact best fixed σ and regret, the
:class:`RoundProvider` protocol (with :class:`SyntheticRounds`) and one run, :func:`run_learner`.
Repetitions and backends: :mod:`sslviz.experiment`; graph rounds: ``sslviz.problem.GraphRounds``.

Rounds ``t = 1..T`` each bring a fresh problem instance whose loss ``l_t(σ)`` is piecewise
constant in σ (PCA-space distance units). The learner keeps a piecewise-constant weight
function over ``[sigma_min, sigma_max]``, samples ``σ_t`` from it, suffers the *true* loss
``l_t(σ_t)`` and updates its weights from the feedback it observes (docs/method.md §9;
Algorithm 1 and Theorem 3.1 of the paper). Four feedback models are compared:

``'approx'``
    Approximate semi-bandit feedback: the approximate feedback set ``Ã_t ∋ σ_t`` and the
    approximate loss on it (Algorithm 4 with a fixed number of CG iterations).
``'exact'``
    Exact semi-bandit feedback: the true constant piece ``A_t ∋ σ_t`` and its loss.
``'full'``
    Full information (system size ``M = 1``): the whole approximate loss function; the update
    is Hedge / Exp3 with no importance weighting.
``'uniform'``
    Baseline: σ_t uniform on the range, no learning.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from sslviz._validation import (
    InvalidParameterError,
    check_int,
    check_option,
    check_real,
    check_sigma_range,
)
from sslviz.piecewise import PiecewiseLoss, sum_piecewise
from sslviz.specs import FEEDBACK_MODELS

__all__ = [
    "FEEDBACK_MODELS",
    "Exp3SetWeights",
    "LearnerRun",
    "LearnerSteps",
    "RoundProvider",
    "SyntheticRounds",
    "best_fixed",
    "check_provider",
    "cumulative_regret",
    "n_pieces",
    "regret_rate",
    "run_learner",
    "theorem_step_size",
]

# A cell whose log-weight falls more than this many nats below the largest one is held there.
# Its probability (< e^-10000) is already 0.0 in float64, so sampling, density() and
# probability() are unaffected; the floor only keeps the log-weights finite.
_LOG_FLOOR_GAP = 1.0e4
# Cuts closer than this fraction of the σ range to an existing cut are snapped onto it.
_CUT_RTOL = 1.0e-12
# Number of σ grid points of the density snapshots, and the most snapshots kept per run.
_SNAPSHOT_GRID = 200
_MAX_SNAPSHOTS = 50


def _logsumexp(a: np.ndarray) -> float:
    """``log(sum(exp(a)))`` without overflow; ``-inf`` for an empty or all ``-inf`` input."""
    if a.size == 0:
        return -math.inf
    m = float(np.max(a))
    if not math.isfinite(m):
        return m
    return m + math.log(float(np.sum(np.exp(a - m))))


# --------------------------------------------------------------------------------------------
# The weight function of Algorithm 1
# --------------------------------------------------------------------------------------------


class Exp3SetWeights:
    """Exact piecewise-constant weights ``w_t(σ)`` of Approximate Continuous Exp3-Set.

    The weight function is kept as cut points and one *log*-weight per cell, normalised so that
    the log-weights are the log-density ``log p_t`` (``logsumexp(log w + log width) = 0``).
    Because the feedback sets are intervals, every update only cuts cells and shifts
    log-weights, so sampling (inverse CDF), ``p_t(A)`` and the update are all exact.

    Parameters
    ----------
    sigma_min, sigma_max : float
        The σ range (PCA-space distance units), ``0 < sigma_min < sigma_max``.

    Attributes
    ----------
    edges : ndarray of shape (n_cells + 1,), dtype float64
        Cut points, strictly increasing, from ``sigma_min`` to ``sigma_max`` (a copy).
    log_weights : ndarray of shape (n_cells,), dtype float64
        ``log p_t`` on each cell (a copy).

    Notes
    -----
    Algorithm 1 (Approximate Continuous Exp3-Set): ``w_1 = 1``;
    ``w_{t+1}(σ) = w_t(σ) exp(-λ l̂_t(σ))`` with
    ``l̂_t(σ) = 1[σ ∈ Ã_t] l̃_t / p_t(Ã_t)``. Neighbouring cells with identical log-weights
    are merged, so the number of cells is at most one more than the number of distinct cut
    points ever used and never holds duplicates; cuts closer than ``1e-12 × (range width)`` to
    an existing cut are snapped onto it. A cell more than ``1e4`` nats below the heaviest cell
    is held at that floor (its probability is already 0.0 in float64), so long runs with
    large ``λ l̂`` never produce ``-inf`` or NaN.

    Examples
    --------
    >>> w = Exp3SetWeights(0.5, 1.5)
    >>> w.probability(0.5, 1.0)
    0.5
    >>> w.update(0.5, 1.0, loss=1.0, lr=0.5)
    >>> round(w.probability(0.5, 1.0), 6)  # e^-1 / (e^-1 + 1)
    0.268941
    >>> sigma = w.sample(np.random.default_rng(0))
    >>> 0.5 <= sigma <= 1.5
    True
    """

    def __init__(self, sigma_min: float, sigma_max: float) -> None:
        lo, hi = check_sigma_range(sigma_min, sigma_max, "Exp3SetWeights")
        self._edges = np.array([lo, hi])
        self._logw = np.array([-math.log(hi - lo)])
        self._tol = _CUT_RTOL * (hi - lo)

    # -- read-only views ---------------------------------------------------------------------

    @property
    def sigma_min(self) -> float:
        return float(self._edges[0])

    @property
    def sigma_max(self) -> float:
        return float(self._edges[-1])

    @property
    def edges(self) -> np.ndarray:
        return self._edges.copy()

    @property
    def log_weights(self) -> np.ndarray:
        return self._logw.copy()

    @property
    def n_cells(self) -> int:
        return int(self._logw.size)

    def __repr__(self) -> str:
        return (
            f"Exp3SetWeights(sigma_min={self.sigma_min:g}, sigma_max={self.sigma_max:g}, "
            f"n_cells={self.n_cells})"
        )

    # -- queries -----------------------------------------------------------------------------

    def _log_masses(self) -> np.ndarray:
        return self._logw + np.log(np.diff(self._edges))

    def density(self) -> PiecewiseLoss:
        """The sampling density ``p_t`` as a piecewise-constant function.

        Returns
        -------
        PiecewiseLoss
            ``p_t`` on ``[sigma_min, sigma_max]``; it integrates to 1 (units 1/σ).
        """
        return PiecewiseLoss(self._edges.copy(), np.exp(self._logw))

    def probability(self, lo: float, hi: float) -> float:
        """Exact ``∫_lo^hi p_t(σ) dσ``.

        Parameters
        ----------
        lo, hi : float
            Ends of the interval, ``lo <= hi``; parts outside the σ range have probability 0.

        Returns
        -------
        float
            The probability that a draw of :meth:`sample` falls in ``[lo, hi]``.
        """
        lo = check_real("lo", lo, "Exp3SetWeights.probability")
        hi = check_real("hi", hi, "Exp3SetWeights.probability")
        _check_order(lo, hi, "Exp3SetWeights.probability")
        left = np.maximum(self._edges[:-1], lo)
        right = np.minimum(self._edges[1:], hi)
        overlap = right - left
        keep = overlap > 0
        if not np.any(keep):
            return 0.0
        return min(1.0, math.exp(_logsumexp(self._logw[keep] + np.log(overlap[keep]))))

    def sample(self, rng: np.random.Generator) -> float:
        """Draw ``σ ~ p_t`` by the exact inverse CDF.

        One uniform ``u`` picks the cell whose cumulative mass first exceeds ``u`` and the
        position inside that cell (where the CDF is linear).

        Parameters
        ----------
        rng : numpy.random.Generator
            The only source of randomness.

        Returns
        -------
        float
            A σ in ``[sigma_min, sigma_max]``.
        """
        if not isinstance(rng, np.random.Generator):
            raise TypeError(
                "The 'rng' parameter of Exp3SetWeights.sample must be a numpy.random.Generator. "
                f"Got {rng!r} ({type(rng).__name__}) instead."
            )
        masses = np.exp(self._log_masses())
        cdf = np.cumsum(masses)
        v = rng.random() * cdf[-1]
        i = int(np.searchsorted(cdf, v, side="right"))
        positive = np.flatnonzero(masses > 0)
        i = min(i, int(positive[-1]))
        start = cdf[i - 1] if i > 0 else 0.0
        frac = min(max((v - start) / masses[i], 0.0), 1.0)
        a, b = self._edges[i], self._edges[i + 1]
        return float(min(max(a + frac * (b - a), a), b))

    # -- updates -----------------------------------------------------------------------------

    def _cut(self, points: np.ndarray) -> None:
        """Add cut points (snapping those within the tolerance of an existing cut)."""
        e = self._edges
        pts = np.unique(np.asarray(points, dtype=float))
        pts = pts[(pts > e[0] + self._tol) & (pts < e[-1] - self._tol)]
        if pts.size == 0:
            return
        j = np.clip(np.searchsorted(e, pts), 1, e.size - 1)
        near = np.minimum(np.abs(pts - e[j - 1]), np.abs(e[j] - pts))
        pts = pts[near > self._tol]
        if pts.size > 1:
            pts = pts[np.r_[True, np.diff(pts) > self._tol]]
        if pts.size == 0:
            return
        new_edges = np.sort(np.concatenate([e, pts]))
        mids = 0.5 * (new_edges[:-1] + new_edges[1:])
        cell = np.clip(np.searchsorted(e, mids, side="right") - 1, 0, self._logw.size - 1)
        self._edges = new_edges
        self._logw = self._logw[cell]

    def _edge_index(self, x: float) -> int:
        return int(np.argmin(np.abs(self._edges - x)))

    def _finish(self, logw: np.ndarray) -> None:
        """Floor, renormalise and merge equal neighbours."""
        logw = np.maximum(logw, np.max(logw) - _LOG_FLOOR_GAP)
        logw = logw - _logsumexp(logw + np.log(np.diff(self._edges)))
        keep = np.r_[True, logw[1:] != logw[:-1]]
        self._edges = np.r_[self._edges[:-1][keep], self._edges[-1]]
        self._logw = logw[keep]

    def update(self, lo: float, hi: float, loss: float, lr: float) -> None:
        """Semi-bandit update of Algorithm 1 on the feedback set ``[lo, hi]``.

        ``w ← w · exp(-λ l̂)`` with ``l̂(σ) = 1[σ ∈ [lo, hi]] · loss / p_t([lo, hi])``; the
        cells are first cut at ``lo`` and ``hi``.

        Parameters
        ----------
        lo, hi : float
            The observed (approximate) feedback set, ``lo < hi``, clipped to the σ range.
        loss : float
            The observed (approximate) loss on it, ``>= 0`` (the paper's losses are in [0, 1]).
        lr : float
            Step size ``λ > 0`` (Algorithm 1 takes ``λ ∈ [0, 1]``).
        """
        caller = "Exp3SetWeights.update"
        lo = check_real("lo", lo, caller)
        hi = check_real("hi", hi, caller)
        loss = check_real("loss", loss, caller, low=0.0)
        lr = check_real("lr", lr, caller, low=0.0, closed="neither")
        _check_order(lo, hi, caller, strict=True)
        lo, hi = max(lo, self.sigma_min), min(hi, self.sigma_max)
        if not lo < hi:
            raise InvalidParameterError(
                f"The feedback set [{lo!r}, {hi!r}] passed to {caller} does not overlap the σ "
                f"range [{self.sigma_min!r}, {self.sigma_max!r}]."
            )
        if loss == 0.0:
            return
        self._cut(np.array([lo, hi]))
        i, j = self._edge_index(lo), self._edge_index(hi)
        if i >= j:  # the set is narrower than the cut tolerance
            return
        log_p = _logsumexp(self._log_masses()[i:j])
        # Decrements beyond 2·gap land on the floor anyway; capping avoids overflow.
        log_dec = math.log(lr) + math.log(loss) - log_p
        dec = math.exp(min(log_dec, math.log(2.0 * _LOG_FLOOR_GAP)))
        logw = self._logw.copy()
        logw[i:j] -= dec
        self._finish(logw)

    def update_full(self, loss_fn: PiecewiseLoss, lr: float) -> None:
        """Full-information update (Hedge / Exp3 with ``M = 1``): ``w ← w · exp(-λ l)``.

        Parameters
        ----------
        loss_fn : PiecewiseLoss
            The whole (approximate) loss function of the round, on the same σ range.
        lr : float
            Step size ``λ > 0``.
        """
        caller = "Exp3SetWeights.update_full"
        if not isinstance(loss_fn, PiecewiseLoss):
            raise TypeError(
                f"The 'loss_fn' parameter of {caller} must be a PiecewiseLoss. "
                f"Got {type(loss_fn).__name__} instead."
            )
        lr = check_real("lr", lr, caller, low=0.0, closed="neither")
        _check_same_range(loss_fn, self.sigma_min, self.sigma_max, caller)
        if not np.all(np.isfinite(loss_fn.values)):
            raise InvalidParameterError(f"The 'loss_fn' values passed to {caller} must be finite.")
        self._cut(loss_fn.breakpoints)
        mids = 0.5 * (self._edges[:-1] + self._edges[1:])
        with np.errstate(over="ignore"):
            dec = lr * np.asarray(loss_fn(mids), dtype=float)
            dec = np.minimum(dec - np.min(dec), 2.0 * _LOG_FLOOR_GAP)  # shift-invariant
        self._finish(self._logw - dec)


def _check_order(lo: float, hi: float, caller: str, *, strict: bool = False) -> None:
    if hi < lo or (strict and hi == lo):
        rel = "smaller than" if strict else "at most"
        raise InvalidParameterError(
            f"The 'lo' parameter of {caller} must be {rel} 'hi'. Got lo={lo!r} and hi={hi!r} "
            "instead."
        )


def _check_same_range(f: PiecewiseLoss, lo: float, hi: float, caller: str) -> None:
    tol = 1e-9 * (hi - lo)
    if abs(f.lo - lo) > tol or abs(f.hi - hi) > tol:
        raise InvalidParameterError(
            f"The loss function passed to {caller} must span the σ range [{lo!r}, {hi!r}]. "
            f"Got [{f.lo!r}, {f.hi!r}] instead."
        )


# --------------------------------------------------------------------------------------------
# Theory: step size and rate
# --------------------------------------------------------------------------------------------


def _log_term(R: float, T: int) -> float:
    return max(math.log(R * T), 1.0)


def _check_theory_args(
    T: object, M: object, R: object, d: object, caller: str
) -> tuple[int, float, float, int]:
    T = check_int("T", T, caller, low=1)
    M = check_real("M", M, caller, low=1.0)
    R = check_real("R", R, caller, low=0.0, closed="neither")
    d = check_int("d", d, caller, low=1)
    return T, M, R, d


def theorem_step_size(T: int, M: float, R: float, d: int = 1) -> float:
    """Step size λ of the proof of Theorem 3.1.

    ``λ = min(1, sqrt(2 · d · L / (T · M)))`` with ``L = max(log(R · T), 1)``.

    Parameters
    ----------
    T : int
        Horizon (number of rounds), ``>= 1``.
    M : float
        System size: the number of pieces of the feedback partition (``M = 1`` for full
        information), ``>= 1``. May be a measured mean, so not necessarily an integer.
    R : float
        Radius of a ball containing the parameter domain, ``> 0``; for σ in
        ``[sigma_min, sigma_max]`` use ``(sigma_max - sigma_min) / 2`` (σ units).
    d : int, default=1
        Dimension of the parameter domain (1 for σ).

    Returns
    -------
    float
        λ in ``(0, 1]``.

    Notes
    -----
    Appendix "Proof of Theorem 3.1" (app:proof of approx feedback), last step: with
    ``r = T^-β`` it sets ``η = sqrt(2 d log(R T^β) / (T M))``, which balances
    ``(d/η) log(R/r) + η M T / 2``. We take ``β = 1``, giving the theorem's ``log(R T)``. The
    logarithm is floored at 1 so λ stays positive when ``R · T <= e`` (the proof assumes the
    ball of radius ``r = 1/T`` fits in the domain), and λ is clipped to 1 because Algorithm 1
    takes ``λ ∈ [0, 1]``.

    Examples
    --------
    >>> round(theorem_step_size(T=100, M=4, R=0.5), 4)
    0.1399
    """
    T, M, R, d = _check_theory_args(T, M, R, d, "theorem_step_size")
    return min(1.0, math.sqrt(2.0 * d * _log_term(R, T) / (T * M)))


def regret_rate(T: int, M: float, R: float, d: int = 1) -> np.ndarray:
    """Reference regret curve ``sqrt(t · M · d · log(R · t))`` for ``t = 1..T``.

    Parameters
    ----------
    T : int
        Number of rounds, ``>= 1``.
    M : float
        System size (``1`` for full information), ``>= 1``.
    R : float
        Radius of the domain, ``(sigma_max - sigma_min) / 2`` for σ (σ units), ``> 0``.
    d : int, default=1
        Dimension of the domain.

    Returns
    -------
    ndarray of shape (T,), dtype float64
        The rate of Theorem 3.1 without its constant (the proof's leading term is
        ``sqrt(2)`` times this); ``log(R · t)`` is floored at 1 as in
        :func:`theorem_step_size`.
    """
    T, M, R, d = _check_theory_args(T, M, R, d, "regret_rate")
    t = np.arange(1, T + 1, dtype=float)
    return np.sqrt(t * M * d * np.maximum(np.log(R * t), 1.0))


# --------------------------------------------------------------------------------------------
# Best fixed σ and regret
# --------------------------------------------------------------------------------------------


def _check_losses(losses: object, caller: str) -> list[PiecewiseLoss]:
    if isinstance(losses, PiecewiseLoss) or not isinstance(losses, Iterable):
        raise TypeError(
            f"The 'losses' parameter of {caller} must be a sequence of PiecewiseLoss. "
            f"Got {type(losses).__name__} instead."
        )
    out = list(losses)
    if not out:
        raise InvalidParameterError(
            f"The 'losses' parameter of {caller} must hold at least one loss. Got 0 instead."
        )
    for f in out:
        if not isinstance(f, PiecewiseLoss):
            raise TypeError(
                f"The 'losses' parameter of {caller} must hold PiecewiseLoss objects. "
                f"Got {type(f).__name__} instead."
            )
    return out


def best_fixed(losses: Sequence[PiecewiseLoss]) -> tuple[float, float, float]:
    """Exact ``min_σ Σ_t l_t(σ)`` over piecewise-constant losses.

    Parameters
    ----------
    losses : sequence of PiecewiseLoss
        The losses ``l_1..l_T``, all on the same σ range.

    Returns
    -------
    value : float
        The minimum of the summed loss.
    lo, hi : float
        The widest σ range (PCA-space distance units) on which the sum attains it.

    Examples
    --------
    >>> f = PiecewiseLoss([0.0, 1.0, 2.0], [1.0, 0.0])
    >>> g = PiecewiseLoss([0.0, 1.5, 2.0], [0.0, 1.0])
    >>> best_fixed([f, g])
    (0.0, 1.0, 1.5)
    """
    fs = _check_losses(losses, "best_fixed")
    return sum_piecewise(fs).minimum()


def _regret_and_best(
    played: np.ndarray, losses: list[PiecewiseLoss]
) -> tuple[np.ndarray, float, float, float]:
    running = losses[0]
    best = np.empty(len(losses))
    best[0] = running.minimum()[0]
    for t in range(1, len(losses)):
        running = sum_piecewise([running, losses[t]]).merged()
        best[t] = float(running.values.min())
    value, lo, hi = running.minimum()
    return np.cumsum(played) - best, value, lo, hi


def cumulative_regret(
    played_losses: np.ndarray, true_losses: Sequence[PiecewiseLoss]
) -> np.ndarray:
    """Regret of every prefix: ``R_t = Σ_{s≤t} l_s(σ_s) − min_σ Σ_{s≤t} l_s(σ)``.

    Parameters
    ----------
    played_losses : array_like of shape (T,)
        The losses suffered, ``l_t(σ_t)``.
    true_losses : sequence of PiecewiseLoss, length T
        The true losses ``l_t``, on one σ range.

    Returns
    -------
    ndarray of shape (T,), dtype float64
        ``R_1..R_T``; the minimum is recomputed exactly for each prefix from a running
        piecewise-constant sum (docs/method.md §9).

    Examples
    --------
    >>> f = PiecewiseLoss([0.0, 1.0, 2.0], [1.0, 0.0])
    >>> cumulative_regret([1.0, 0.0], [f, f]).tolist()
    [1.0, 1.0]
    """
    caller = "cumulative_regret"
    fs = _check_losses(true_losses, caller)
    played = np.asarray(played_losses, dtype=float)
    if played.shape != (len(fs),):
        raise InvalidParameterError(
            f"The 'played_losses' parameter of {caller} must have shape ({len(fs)},) to match "
            f"true_losses. Got shape {played.shape} instead."
        )
    return _regret_and_best(played, fs)[0]


# --------------------------------------------------------------------------------------------
# Round providers
# --------------------------------------------------------------------------------------------


class RoundProvider(Protocol):
    """Source of the rounds of an online experiment; the learner needs nothing else.

    Implementations must be picklable (joblib and Dask ship them to workers) and
    deterministic in ``round_seed``: every method called with the same seed describes the
    same instance.

    Attributes
    ----------
    sigma_min, sigma_max : float
        The σ range (PCA-space distance units).
    """

    sigma_min: float
    sigma_max: float

    def true_loss(self, round_seed: int) -> PiecewiseLoss:
        """The exact loss ``l_t`` of the round, on ``[sigma_min, sigma_max]``."""
        ...

    def approx_feedback(self, round_seed: int, sigma: float) -> tuple[float, float, float]:
        """``(lo, hi, est_loss)``: the approximate feedback set ``Ã_t ∋ sigma`` and loss."""
        ...

    def exact_feedback(self, round_seed: int, sigma: float) -> tuple[float, float, float]:
        """``(lo, hi, loss)``: the true constant piece holding ``sigma``."""
        return self.true_loss(round_seed).piece(sigma)

    def approx_loss(self, round_seed: int) -> PiecewiseLoss:
        """The whole approximate loss function ``l̃_t`` (full information)."""
        ...


@dataclass(frozen=True)
class SyntheticRounds(RoundProvider):
    """Random piecewise-constant losses in [0, 1] with a known good σ.

    Each round draws ``n_breaks`` uniform breakpoints, adds the two ends of the good interval
    ``[sigma_star − good_width/2, sigma_star + good_width/2]``, and draws each piece's loss
    uniformly from ``[0, 1]``, or from ``[0, 1 − advantage]`` on the good interval, so the
    best fixed σ lies in the good interval on average. The approximate loss shifts every
    breakpoint by at most ``eps`` and every value by at most ``gamma`` (clipped to [0, 1]):
    ``(ε, γ)``-approximate feedback in the sense of the paper's Definition def:fb, with ``ε`` about
    ``eps × (number of breakpoints)``. All draws come from
    ``np.random.default_rng(round_seed)``.

    Parameters
    ----------
    sigma_min, sigma_max : float, default=0.1, 1.1
        σ range (PCA-space distance units).
    sigma_star : float, default=0.7
        Centre of the good interval.
    good_width : float, default=0.2
        Width of the good interval.
    advantage : float, default=0.5
        How much lower the loss bound is on the good interval, in ``[0, 1]``.
    n_breaks : int, default=4
        Random breakpoints per round (so about ``n_breaks + 3`` pieces).
    eps : float, default=0.01
        Largest breakpoint shift of the approximate loss (σ units).
    gamma : float, default=0.02
        Largest value perturbation of the approximate loss.

    Examples
    --------
    >>> p = SyntheticRounds()
    >>> f = p.true_loss(3)
    >>> (f.lo, f.hi)
    (0.1, 1.1)
    >>> lo, hi, loss = p.approx_feedback(3, 0.7)
    >>> lo <= 0.7 <= hi and 0.0 <= loss <= 1.0
    True
    """

    sigma_min: float = 0.1
    sigma_max: float = 1.1
    sigma_star: float = 0.7
    good_width: float = 0.2
    advantage: float = 0.5
    n_breaks: int = 4
    eps: float = 0.01
    gamma: float = 0.02

    def __post_init__(self) -> None:
        caller = "SyntheticRounds"
        lo, hi = check_sigma_range(self.sigma_min, self.sigma_max, caller)
        check_real("sigma_star", self.sigma_star, caller, low=lo, high=hi)
        check_real("good_width", self.good_width, caller, low=0.0, high=hi - lo, closed="right")
        check_real("advantage", self.advantage, caller, low=0.0, high=1.0)
        check_int("n_breaks", self.n_breaks, caller, low=0)
        check_real("eps", self.eps, caller, low=0.0)
        check_real("gamma", self.gamma, caller, low=0.0, high=1.0)

    def _draw(self, round_seed: int) -> tuple[PiecewiseLoss, PiecewiseLoss]:
        seed = check_int("round_seed", round_seed, "SyntheticRounds", low=0)
        rng = np.random.default_rng(seed)
        lo, hi = float(self.sigma_min), float(self.sigma_max)
        g0 = max(lo, self.sigma_star - self.good_width / 2)
        g1 = min(hi, self.sigma_star + self.good_width / 2)
        inner = np.unique(np.r_[rng.uniform(lo, hi, self.n_breaks), g0, g1])
        inner = inner[(inner > lo) & (inner < hi)]
        edges = np.r_[lo, inner, hi]
        mids = 0.5 * (edges[:-1] + edges[1:])
        scale = np.where((mids >= g0) & (mids <= g1), 1.0 - self.advantage, 1.0)
        values = rng.random(mids.size) * scale
        shifts = rng.uniform(-self.eps, self.eps, inner.size)
        noise = rng.uniform(-self.gamma, self.gamma, mids.size)
        a_edges = np.r_[lo, np.sort(np.clip(inner + shifts, lo, hi)), hi]
        keep = np.diff(a_edges) > 1e-12 * (hi - lo)
        a_edges = np.r_[a_edges[:-1][keep], hi]
        a_values = np.clip(values + noise, 0.0, 1.0)[keep]
        return PiecewiseLoss(edges, values), PiecewiseLoss(a_edges, a_values)

    def true_loss(self, round_seed: int) -> PiecewiseLoss:
        """The exact loss of the round (see the class docstring)."""
        return self._draw(round_seed)[0]

    def approx_loss(self, round_seed: int) -> PiecewiseLoss:
        """The perturbed loss of the round (see the class docstring)."""
        return self._draw(round_seed)[1]

    def approx_feedback(self, round_seed: int, sigma: float) -> tuple[float, float, float]:
        """``(lo, hi, loss)`` of the approximate piece holding ``sigma``."""
        return self.approx_loss(round_seed).piece(sigma)


# --------------------------------------------------------------------------------------------
# One learner run
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class LearnerRun:
    """One run of the learner over ``T`` rounds.

    Attributes
    ----------
    feedback : {'approx', 'exact', 'full', 'uniform'}
        Feedback model.
    lr : float or None
        Step size λ used (``None`` for ``'uniform'``).
    seed : int
        Seed of the learner's ``np.random.default_rng``.
    sigmas : ndarray of shape (T,), dtype float64
        σ_t played (PCA-space distance units).
    losses_played : ndarray of shape (T,), dtype float64
        True losses suffered, ``l_t(σ_t)``.
    regret : ndarray of shape (T,), dtype float64
        Cumulative regret ``R_t`` (see :func:`cumulative_regret`).
    best_sigma : tuple of float
        ``(lo, hi)``: widest σ range minimising ``Σ_t l_t``.
    best_value : float
        ``min_σ Σ_t l_t(σ)``.
    density_grid : ndarray of shape (G,), dtype float64
        σ grid (cell midpoints of a uniform grid) on which the snapshots are evaluated.
    snapshot_rounds : ndarray of shape (S,), dtype int64
        0-based rounds of the snapshots (``S <= 50``, evenly spaced, first and last included).
    density_snapshots : ndarray of shape (S, G), dtype float64
        ``p_t`` on ``density_grid`` at each snapshot round, before that round's draw.
    seconds : float
        Wall time of the run.
    n_feedback_calls : int
        Calls to the provider's feedback methods (``approx_feedback``, ``exact_feedback`` or
        ``approx_loss``); 0 for ``'uniform'``.
    mean_M : float
        Mean number of pieces (equal neighbours merged) of the *true* losses of the run.
    n_cells : int
        Number of cells of the final weight function.
    """

    feedback: str
    lr: float | None
    seed: int
    sigmas: np.ndarray
    losses_played: np.ndarray
    regret: np.ndarray
    best_sigma: tuple[float, float]
    best_value: float
    density_grid: np.ndarray
    snapshot_rounds: np.ndarray
    density_snapshots: np.ndarray
    seconds: float
    n_feedback_calls: int
    mean_M: float
    n_cells: int


def check_provider(provider: object, caller: str) -> tuple[float, float]:
    """Check that ``provider`` follows :class:`RoundProvider`; return its σ range.

    Parameters
    ----------
    provider : object
        Should have ``sigma_min``, ``sigma_max`` and ``true_loss``.
    caller : str
        Named in the error messages.

    Returns
    -------
    (sigma_min, sigma_max) : tuple of float
        The checked σ range (PCA-space distance units).
    """
    for name in ("sigma_min", "sigma_max", "true_loss"):
        if not hasattr(provider, name):
            raise TypeError(
                f"The 'provider' parameter of {caller} must follow the RoundProvider protocol; "
                f"{type(provider).__name__} has no {name!r}."
            )
    return check_sigma_range(provider.sigma_min, provider.sigma_max, caller)


def _check_feedback_set(lo: float, hi: float, sigma: float, width: float, what: str) -> None:
    tol = 1e-9 * width
    if not (lo - tol <= sigma <= hi + tol and lo < hi):
        raise ValueError(
            f"The provider's {what} returned the set [{lo!r}, {hi!r}], which does not contain "
            f"the played sigma={sigma!r}."
        )


def n_pieces(f: PiecewiseLoss) -> int:
    """Number of pieces of ``f`` once equal neighbours are merged: the system size ``M`` of
    Theorem 3.1 for a true loss."""
    return int(f.merged().values.size)


def run_learner(
    provider: RoundProvider,
    feedback: str,
    *,
    rounds: int,
    lr: float | None,
    seed: int,
    round_seeds: Sequence[int],
) -> LearnerRun:
    """Run Approximate Continuous Exp3-Set (or a baseline) for ``rounds`` rounds.

    Parameters
    ----------
    provider : RoundProvider
        Gives the true loss and the feedback of each round.
    feedback : {'approx', 'exact', 'full', 'uniform'}
        ``'approx'`` updates from ``provider.approx_feedback(seed_t, σ_t)``, ``'exact'`` from
        ``provider.exact_feedback``, ``'full'`` from the whole ``provider.approx_loss`` (Hedge,
        no importance weighting), ``'uniform'`` samples σ uniformly and never updates.
    rounds : int
        ``T >= 1``.
    lr : float or None
        Step size ``λ > 0``; ``None`` uses :func:`theorem_step_size` with
        ``R = (sigma_max − sigma_min)/2``, ``M = 1`` for ``'full'`` and otherwise the number
        of pieces of the first round's true loss. Ignored for ``'uniform'``.
    seed : int
        Seed (``>= 0``) of ``np.random.default_rng``, the only randomness of the learner.
    round_seeds : sequence of int, length ``rounds``
        Seeds of the round instances passed to the provider.

    Returns
    -------
    LearnerRun
        The loss suffered is always the *true* loss ``l_t(σ_t)``, whatever the feedback.

    Notes
    -----
    Algorithm 1 of the paper; docs/method.md §9. Regret is exact: see :func:`cumulative_regret`.

    Examples
    --------
    >>> run = run_learner(SyntheticRounds(), "exact", rounds=20, lr=0.2, seed=0,
    ...                   round_seeds=range(20))
    >>> run.regret.shape, run.n_feedback_calls
    ((20,), 20)
    """
    steps = LearnerSteps(
        provider, feedback, rounds=rounds, lr=lr, seed=seed, round_seeds=round_seeds
    )
    while not steps.finished:
        steps.step()
    return steps.run()


class LearnerSteps:
    """:func:`run_learner` one round at a time: :meth:`step` plays the next round,
    :meth:`run` is the run over the rounds played so far.

    The arithmetic is :func:`run_learner`'s, in the same order (that function is a loop
    over :meth:`step`), so the run after the last round is the same to the bit; the run
    after ``t`` rounds is its prefix: the same σ_t, losses and regret ``R_1..R_t``
    (the regret of a prefix is against the best fixed σ of that prefix, docs/method.md §9),
    with the snapshots taken so far. Parameters as :func:`run_learner`'s.

    Examples
    --------
    >>> steps = LearnerSteps(SyntheticRounds(), "exact", rounds=20, lr=0.2, seed=0,
    ...                      round_seeds=range(20))
    >>> for _ in range(5):
    ...     steps.step()
    >>> steps.done, steps.run().regret.shape
    (5, (5,))
    """

    def __init__(
        self,
        provider: RoundProvider,
        feedback: str,
        *,
        rounds: int,
        lr: float | None,
        seed: int,
        round_seeds: Sequence[int],
    ) -> None:
        caller = "run_learner"
        self._range = check_provider(provider, caller)
        self.provider = provider
        self.feedback = check_option("feedback", feedback, caller, FEEDBACK_MODELS)
        self.rounds = check_int("rounds", rounds, caller, low=1)
        if lr is not None:
            lr = check_real("lr", lr, caller, low=0.0, closed="neither")
        self.lr = lr
        self.seed = check_int("seed", seed, caller, low=0)
        self.seeds = [check_int("round_seeds", s, caller, low=0) for s in round_seeds]
        if len(self.seeds) != self.rounds:
            raise InvalidParameterError(
                f"The 'round_seeds' parameter of {caller} must have length "
                f"rounds={self.rounds}. Got length {len(self.seeds)} instead."
            )
        lo_s, hi_s = self._range
        width = hi_s - lo_s
        self.rng = np.random.default_rng(self.seed)
        self.weights = Exp3SetWeights(lo_s, hi_s)
        self.grid = lo_s + (np.arange(_SNAPSHOT_GRID) + 0.5) * width / _SNAPSHOT_GRID
        snap = np.unique(np.linspace(0, rounds - 1, min(_MAX_SNAPSHOTS, rounds)).round())
        self.snap_rounds = snap.astype(np.int64)
        self._snap = {int(r): k for k, r in enumerate(self.snap_rounds)}
        self.snapshots = np.empty((self.snap_rounds.size, self.grid.size))
        self.sigmas = np.empty(rounds)
        self.played = np.empty(rounds)
        self.best = np.empty(rounds)
        self.pieces: list[int] = []
        self.running: PiecewiseLoss | None = None
        self.n_calls = 0
        self.done = 0
        self.seconds = 0.0

    @property
    def finished(self) -> bool:
        """Whether every round has been played."""
        return self.done == self.rounds

    def step(self, provider: RoundProvider | None = None) -> None:
        """Play round ``done + 1``: draw σ_t, suffer ``l_t(σ_t)``, update on the feedback.
        ``provider`` (default: the one given) answers this round: one with the same
        answers, e.g. the rounds precomputed by workers (``precompute``)."""
        if self.finished:
            raise InvalidParameterError(
                f"All {self.rounds} rounds of this learner have been played; start a new one."
            )
        start = time.perf_counter()
        caller = "run_learner"
        provider = self.provider if provider is None else provider
        lo_s, hi_s = self._range
        width = hi_s - lo_s
        t, rs, feedback, weights = self.done, self.seeds[self.done], self.feedback, self.weights
        true_t = provider.true_loss(rs)
        _check_same_range(true_t, lo_s, hi_s, f"{caller} (provider.true_loss)")
        self.pieces.append(n_pieces(true_t))
        if feedback != "uniform" and self.lr is None:
            m = 1.0 if feedback == "full" else float(n_pieces(true_t))
            self.lr = theorem_step_size(self.rounds, m, width / 2)
        lr = self.lr
        if t in self._snap:
            self.snapshots[self._snap[t]] = weights.density()(self.grid)
        if feedback != "uniform":
            sigma = weights.sample(self.rng)
        else:
            sigma = lo_s + self.rng.random() * width
        self.sigmas[t] = sigma
        self.played[t] = float(true_t(sigma))
        if feedback == "approx":
            a, b, est = provider.approx_feedback(rs, sigma)
            self.n_calls += 1
            _check_feedback_set(a, b, sigma, width, "approx_feedback")
            weights.update(a, b, est, lr)
        elif feedback == "exact":
            exact = getattr(provider, "exact_feedback", None)  # protocol default if absent
            a, b, est = exact(rs, sigma) if exact is not None else true_t.piece(sigma)
            self.n_calls += 1
            _check_feedback_set(a, b, sigma, width, "exact_feedback")
            weights.update(a, b, est, lr)
        elif feedback == "full":
            weights.update_full(provider.approx_loss(rs), lr)
            self.n_calls += 1
        # the running sum of the true losses and its minimum (as _regret_and_best)
        if self.running is None:
            self.running = true_t
            self.best[0] = true_t.minimum()[0]
        else:
            self.running = sum_piecewise([self.running, true_t]).merged()
            self.best[t] = float(self.running.values.min())
        self.done += 1
        self.seconds += time.perf_counter() - start

    def run(self) -> LearnerRun:
        """The run over the rounds played so far (all of them: :func:`run_learner`'s)."""
        t = self.done
        if t == 0:
            raise InvalidParameterError("No round of this learner has been played yet.")
        best_value, best_lo, best_hi = self.running.minimum()
        kept = self.snap_rounds < t
        return LearnerRun(
            feedback=self.feedback,
            lr=None if self.feedback == "uniform" else float(self.lr),
            seed=self.seed,
            sigmas=self.sigmas[:t].copy(),
            losses_played=self.played[:t].copy(),
            regret=np.cumsum(self.played[:t]) - self.best[:t],
            best_sigma=(best_lo, best_hi),
            best_value=best_value,
            density_grid=self.grid,
            snapshot_rounds=self.snap_rounds[kept],
            density_snapshots=self.snapshots[kept],
            seconds=self.seconds,
            n_feedback_calls=self.n_calls,
            mean_M=float(np.mean(self.pieces)),
            n_cells=self.weights.n_cells,
        )
