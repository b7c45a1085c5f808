"""Condition numbers across σ (docs/method.md §7; the paper's Figure 5, Theorems 5.1–5.3).

For the harmonic objective κ(I − P_UU) = λ_max/λ_min of the symmetric
S = D_UU^{-1/2} L_UU D_UU^{-1/2} (same spectrum, built in the log domain so small σ does
not underflow); for Delalleau κ(A), A = λΔ_L + diag(W1) − W. Dense ``eigvalsh`` up to
``dense_max`` unknowns, else ARPACK extreme eigenvalues (shift-invert at 0 for λ_min).

Beside κ: the CG (or Jacobi-PCG) iterations the solver actually needs to reach ``rtol``
on the system it runs on, and the error of t-iteration CG against the exact solve.

Where t-iteration CG can be trusted (:func:`trust_curve`, docs/method.md §1.3): the loss only
depends on which side of 1/2 each soft label lies, so what matters is not the error of
CG-t alone but the error against the smallest margin min_u |f_u − 1/2|: where the error
reaches the margin some node *may* change side, and the t that puts every node on its
exact side ("t needed", for CG and for Jacobi-PCG) says how many iterations would do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from sslviz._threads import one_thread
from sslviz._validation import InvalidParameterError, check_int, check_option, check_real
from sslviz.labeling import SoftLabelModel
from sslviz.solvers import jacobi, solve_cg
from sslviz.specs import CG_ITERS, ConditionSettings, default, solver_label

T_MAX = 1024
"""Default cap of the search for the t needed (:func:`trust_curve`)."""


@dataclass(frozen=True, eq=False)
class ConditionCurve:
    """Condition numbers and CG behaviour on a σ grid; arrays of shape (n_sigma,).

    Attributes
    ----------
    sigma : ndarray
    kappa : ndarray
        κ(I − P_UU) (harmonic) or κ(A) (Delalleau), ≥ 1.
    lambda_min, lambda_max : ndarray
    iterations_needed : ndarray of int
        Iterations of ``solver`` to reach ‖r‖ ≤ rtol‖b‖, or its cap 10·m where it does not
        reach it by then (see ``reached``); -1 when the unscaled system is not
        representable at that σ.
    cg_error : ndarray
        max_u |f_u(t-iteration solver) − f_u(exact)|.
    degenerate : ndarray of int
        Unlabeled nodes cut off from the labeled set at that σ (excluded from κ).
    reached : ndarray of bool
        Where ``solver`` reached the tolerance within its cap: elsewhere
        ``iterations_needed`` is the cap, a lower bound ("> cap"), not a measurement.
    iteration_cap : ndarray of int
        The cap 10·m of that σ's solve (m: the unknowns, cut-off nodes excluded).
    classes : tuple of int or None
        More than two classes (docs/method.md §13.8): their labels; ``iterations_needed``,
        ``reached`` and ``cg_error`` are then the worst of the one-vs-all columns. None for
        the binary problem.
    """

    sigma: np.ndarray
    kappa: np.ndarray
    lambda_min: np.ndarray
    lambda_max: np.ndarray
    iterations_needed: np.ndarray
    cg_error: np.ndarray
    degenerate: np.ndarray
    solver: str
    cg_iters: int
    rtol: float
    reached: np.ndarray | None = None
    iteration_cap: np.ndarray | None = None
    classes: tuple[int, ...] | None = None

    def iterations_words(self, i: int) -> str:
        """The iterations needed at grid point ``i`` in words: "412"; "more than 900" where
        the solver stopped at its cap (10 per unknown) without reaching the tolerance; "no
        count" where the unscaled system is not representable."""
        t = int(self.iterations_needed[i])
        if t < 0:
            return "no count"
        if self.reached is not None and not self.reached[i]:
            return f"more than {t:,}"
        return f"{t:,}"


@one_thread
def extreme_eigenvalues(
    S: np.ndarray | sp.spmatrix, *, dense_max: int = 2000
) -> tuple[float, float]:
    """``(λ_min, λ_max)`` of a symmetric positive (semi)definite matrix."""
    m = S.shape[0]
    if m == 0:
        return 1.0, 1.0
    if m <= dense_max:
        Sd = S.toarray() if sp.issparse(S) else S
        ev = np.linalg.eigvalsh(0.5 * (Sd + Sd.T))
        return float(ev[0]), float(ev[-1])
    S = sp.csc_matrix(S)
    lmax = spla.eigsh(S, k=1, which="LA", return_eigenvectors=False)[0]
    lmin = spla.eigsh(S, k=1, sigma=0.0, which="LM", return_eigenvectors=False)[0]
    return float(lmin), float(lmax)


def _system(model: SoftLabelModel, sigma: float):
    """(matrix whose κ is reported, matrix CG runs on, rhs, degenerate count): the model's
    :meth:`~sslviz.labeling.SoftLabelModel.condition_system`, refused in words when it
    states none."""
    system = model.condition_system(sigma)
    if system is None:
        raise InvalidParameterError(
            f"The {model.label} labeling states no symmetric system to condition: the "
            "conditioning views need one (pick another labeling)."
        )
    return system


Progress = Callable[[float, str], None]
"""``progress(fraction, message)``: how far a computation is (fraction in [0, 1])."""


def _reporter(progress: Progress | None, caller: str) -> Progress:
    """``progress`` made safe to call: checked, fractions clipped to [0, 1] and never
    decreasing; a no-op when None."""
    if progress is None:
        return lambda fraction, message="": None
    if not callable(progress):
        raise TypeError(
            f"The 'progress' parameter of {caller} must be callable or None. "
            f"Got {progress!r} instead."
        )
    last = [0.0]

    def report(fraction: float, message: str = "") -> None:
        last[0] = max(last[0], min(max(float(fraction), 0.0), 1.0))
        progress(last[0], message)

    return report


def _check_grid(sigmas, solver: str, cg_iters: int, caller: str) -> tuple[np.ndarray, int]:
    """The σ grid as a flat float array (each σ positive and finite), and the checked t."""
    sig = np.asarray(sigmas, float).ravel()
    if sig.size == 0 or np.any(~np.isfinite(sig)) or np.any(sig <= 0):
        raise ValueError(f"The 'sigmas' parameter of {caller} must be positive finite values.")
    check_option("solver", solver, caller, ("cg", "pcg"))
    return sig, check_int("cg_iters", cg_iters, caller, low=1)


@one_thread
def condition_curve(
    model: SoftLabelModel,
    sigmas: np.ndarray,
    *,
    solver: str = "cg",
    cg_iters: int = CG_ITERS,
    rtol: float = default(ConditionSettings, "rtol"),
    dense_max: int = 2000,
    progress: Progress | None = None,
    y: np.ndarray | None = None,
    classes: Sequence[int] | None = None,
) -> ConditionCurve:
    """κ, CG iterations needed and t-iteration CG error at each σ in ``sigmas``.

    Parameters
    ----------
    model : SoftLabelModel
    sigmas : array-like of shape (n_sigma,)
        Positive bandwidths (PCA-space distance units).
    solver : {'cg', 'pcg'}, default='cg'
    cg_iters : int, default=20
    rtol : float, default=1e-6
    dense_max : int, default=2000
    progress : callable, optional
        ``progress(fraction, message)`` after each σ ("σ 3 of 40"): fractions in [0, 1],
        non-decreasing, the last 1. Changes no number.
    y : ndarray of shape (n,), optional
        Class indices in {0, …, C − 1} (only the labeled entries are read); with
        ``classes``.
    classes : sequence of int, optional
        More than two class labels (docs/method.md §13.8): κ and its eigenvalues are the
        same (the matrix does not read the labels); the iterations needed and the CG-t
        error are measured on each one-vs-all column (the labels 1[y = c] on L) and the
        worst is reported. None, or two classes: the model's own labels, as always.
    """
    caller = "condition_curve"
    sig, cg_iters = _check_grid(sigmas, solver, cg_iters, caller)
    columns = [model]
    if classes is not None and len(classes) > 2:
        if y is None:
            raise ValueError(f"{caller}: more than two classes need y, the class of each point.")
        y = np.asarray(y)
        columns = [model.relabeled((y == c).astype(float)) for c in range(len(classes))]
    rtol = check_real("rtol", rtol, caller, low=0.0, closed="neither")
    report = _reporter(progress, caller)
    out = {k: np.zeros(sig.size) for k in ("kappa", "lmin", "lmax", "err")}
    iters = np.zeros(sig.size, int)
    reached = np.ones(sig.size, bool)
    caps = np.zeros(sig.size, int)
    degen = np.zeros(sig.size, int)
    for i, s in enumerate(sig):
        S, M, b, degen[i] = _system(model, float(s))
        lmin, lmax = extreme_eigenvalues(S, dense_max=dense_max)
        lmin = max(lmin, np.finfo(float).tiny)
        out["lmin"][i], out["lmax"][i] = lmin, lmax
        out["kappa"][i] = max(lmax / lmin, 1.0)
        diag = M.diagonal() if sp.issparse(M) else np.diag(M)
        if M.shape[0] == 0 or np.any(diag < 1e-290):
            iters[i] = -1
        else:
            pre = jacobi(M) if solver == "pcg" else None
            for col in columns:  # the same M: only the right-hand side reads the labels
                b = b if col is model else _system(col, float(s))[2]
                r = solve_cg(M, b, rtol=rtol, M=pre)
                iters[i] = max(iters[i], r.iterations)
                reached[i] &= r.converged
            caps[i] = 10 * M.shape[0]
        for col in columns:
            exact = col.soft_labels(float(s), solver="exact", derivative=False).f
            approx = col.soft_labels(float(s), solver=solver, cg_iters=cg_iters, derivative=False)
            err = float(np.max(np.abs(approx.f - exact))) if exact.size else 0.0
            out["err"][i] = max(out["err"][i], err)
        report((i + 1) / sig.size, f"σ {i + 1} of {sig.size}")
    return ConditionCurve(
        sig,
        out["kappa"],
        out["lmin"],
        out["lmax"],
        iters,
        out["err"],
        degen,
        solver,
        cg_iters,
        rtol,
        reached,
        caps,
        None if len(columns) == 1 else tuple(int(c) for c in classes),
    )


def classes_words(curve: ConditionCurve) -> str | None:
    """The one line the conditioning views add for more than two classes (docs/method.md
    §13.8): what the labels change in ``curve`` and how its trust panel reads them (§13.9);
    None for the binary problem."""
    if curve.classes is None:
        return None
    return (
        f"{len(curve.classes)} classes: κ and its eigenvalues do not depend on the labels or "
        "the number of classes (the system's matrix is the same); the iterations needed and "
        f"{solver_label(curve.solver, curve.cg_iters)}'s error are the worst of the "
        f"{len(curve.classes)} one-vs-all columns, and where CG-t can be trusted puts its "
        "largest score error against half the smallest top-two margin."
    )


# -- where t-iteration CG can be trusted --------------------------------------------------


@dataclass(frozen=True, eq=False)
class TrustCurve:
    """Error of t-iteration CG against the margin of the exact soft labels, and the t
    that puts every node on its exact side of 1/2, on a σ grid (:func:`trust_curve`).

    Arrays have shape (n_sigma,); soft labels and margins are in the units of f (the
    probability of class 1, in [0, 1]); σ in PCA-space distance units.

    Attributes
    ----------
    sigma : ndarray of float
    error : ndarray of float
        max_u |f_t,u − f_u|: ``solver`` with ``cg_iters`` iterations against the exact
        solve, over the nodes not cut off from L in the exact graph (0 when there is none).
    margin : ndarray of float
        min_u |f_u − 1/2| over the same nodes (+inf when there is none).
    may_flip : ndarray of bool
        ``error >= margin``: the error is large enough for some node to be on the wrong
        side. A necessary condition for a wrong side, not a sufficient one (``wrong`` counts
        the nodes actually on the wrong side at ``cg_iters``).
    wrong : ndarray of int
        Nodes on the wrong side of 1/2 at ``cg_iters`` iterations (see *right side* in
        :func:`trust_curve`).
    t_needed_cg, t_needed_pcg : ndarray of int
        The t for CG and for Jacobi-PCG (see :func:`trust_curve`); ``t_max + 1`` means
        "more than ``t_max``" (not reached); 0 when no node is to be decided.
    degenerate : ndarray of int
        Nodes cut off from L in the exact graph (excluded from everything above).
    underflow : ndarray of int
        Nodes whose unscaled weights underflow for the iterative solver (CG/PCG cannot
        represent them: no t puts them right, so t needed is not reached there).
    solver : {'cg', 'pcg'}
        The solver of ``error``, ``may_flip`` and ``wrong``.
    cg_iters : int
    t_max : int
    """

    sigma: np.ndarray
    error: np.ndarray
    margin: np.ndarray
    may_flip: np.ndarray
    wrong: np.ndarray
    t_needed_cg: np.ndarray
    t_needed_pcg: np.ndarray
    degenerate: np.ndarray
    underflow: np.ndarray
    solver: str
    cg_iters: int
    t_max: int

    @property
    def label(self) -> str:
        """The solver as the paper writes it, e.g. ``'CG-20'``."""
        return solver_label(self.solver, self.cg_iters)

    def t_needed(self, solver: str) -> np.ndarray:
        """``t_needed_cg`` or ``t_needed_pcg``."""
        check_option("solver", solver, "TrustCurve.t_needed", ("cg", "pcg"))
        return self.t_needed_cg if solver == "cg" else self.t_needed_pcg

    def reached(self, solver: str) -> np.ndarray:
        """Where the search for the t needed by ``solver`` succeeded (t ≤ ``t_max``)."""
        return self.t_needed(solver) <= self.t_max

    @property
    def untrusted(self) -> np.ndarray:
        """Grid σ where ``label`` cannot be trusted (:data:`TRUST_RULE`): its error reaches
        the margin, some node is on the wrong side, or the t needed is more than t."""
        return (
            np.asarray(self.may_flip, bool)
            | (np.asarray(self.wrong) > 0)
            | (self.t_needed(self.solver) > self.cg_iters)
        )

    def bands(self, missed: Sequence[float] = ()) -> list[tuple[float, float]]:
        """The σ bands where ``label`` cannot be trusted (:data:`TRUST_RULE`), as
        ``[(lo, hi), ...]`` in increasing order, disjoint.

        Each run of :attr:`untrusted` grid points is widened halfway to its trusted
        neighbours (to the range ends at the ends); each σ in ``missed`` (breakpoints this
        solver missed or invented, from Algorithm 4's score) adds the grid step around it.
        """
        s, flag = self.sigma, self.untrusted
        n = s.size
        out: list[tuple[float, float]] = []
        i = 0
        while i < n:
            if not flag[i]:
                i += 1
                continue
            j = i
            while j + 1 < n and flag[j + 1]:
                j += 1
            lo = s[0] if i == 0 else 0.5 * (s[i - 1] + s[i])
            hi = s[-1] if j == n - 1 else 0.5 * (s[j] + s[j + 1])
            if lo == hi:  # a single grid point: a sliver around it
                w = 0.005 * (s[-1] - s[0]) if n > 1 else 0.005 * s[0]
                lo, hi = lo - w, hi + w
            out.append((float(lo), float(hi)))
            i = j + 1
        for x in missed:
            k = int(np.searchsorted(s, x))
            out.append((float(s[max(k - 1, 0)]), float(s[min(k, n - 1)])))
        out.sort()
        merged: list[tuple[float, float]] = []
        for lo, hi in out:
            if merged and lo <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
            else:
                merged.append((lo, hi))
        return merged

    def missed_by(self, score) -> tuple[list[float], list[int]]:
        """``score.solver_misses()`` (:class:`sslviz.intervals.Score`) when ``score`` is of
        this curve's solver (same solver and t, not certified), else nothing: the σ
        :meth:`bands` marks as not trusted, and the t those misses need."""
        s = getattr(score, "settings", None)
        if s is None or s.certify or (s.solver, s.cg_iters) != (self.solver, self.cg_iters):
            return [], []
        return score.solver_misses()

    def _shape(self, bands: list[tuple[float, float]]) -> str:
        """Where ``bands`` lie in the range: 'none', 'all', 'low' (one band from the range
        start), 'high' (one band to the range end) or 'several'."""
        if not bands:
            return "none"
        first, last = float(self.sigma[0]), float(self.sigma[-1])
        if len(bands) == 1:
            lo, hi = bands[0]
            if lo <= first and hi >= last:
                return "all"
            if lo <= first:
                return "low"
            if hi >= last:
                return "high"
        return "several"

    def where_untrusted(self, missed: Sequence[float] = ()) -> str | None:
        """The bands of :meth:`bands` in words ("σ < 1.17", "σ > 3.1", "σ in [a, b] and
        [c, d]", "the whole range"), None when there is none."""
        return self._where(self.bands(missed))

    def _where(self, bands: list[tuple[float, float]]) -> str | None:
        shape = self._shape(bands)
        if shape == "none":
            return None
        if shape == "all":
            return "the whole range"
        if shape == "low":
            return f"σ < {bands[0][1]:.3g}"
        if shape == "high":
            return f"σ > {bands[0][0]:.3g}"
        return "σ in " + ", ".join(f"[{lo:.3g}, {hi:.3g}]" for lo, hi in bands)

    def reading(self, missed: Sequence[float] = (), missed_t: Sequence[int] = ()) -> str:
        """Where ``label`` can be trusted, in one sentence (:meth:`where_untrusted`), with the
        t the untrusted grid σ need for CG and PCG (and ``missed_t``: the t the missed
        breakpoints need, when known), e.g. "CG-20 can be trusted from σ ≈ 1.17 on; below,
        CG needs up to t = 125 at the grid σ, PCG up to t = 30."."""
        bands = self.bands(missed)
        shape = self._shape(bands)
        if shape == "none":
            first, last = float(self.sigma[0]), float(self.sigma[-1])
            return f"{self.label} can be trusted on the whole range, σ {first:.3g} to {last:.3g}."
        inside = np.zeros(self.sigma.size, bool)
        for lo, hi in bands:
            inside |= (self.sigma >= lo) & (self.sigma <= hi)
        bad = inside & self.untrusted

        def need(t: np.ndarray) -> str:
            return (
                f"more than t = {self.t_max}"
                if np.any(t > self.t_max)
                else f"up to t = {int(t.max())}"
            )

        fix = []
        if bad.any():
            fix.append(
                f"CG needs {need(self.t_needed_cg[bad])} at the grid σ, PCG "
                f"{need(self.t_needed_pcg[bad])}"
            )
        if len(missed_t):
            fix.append(f"the breakpoints {self.label} misses need up to t = {max(missed_t)}")
        fix_text = "; ".join(fix) if fix else "its misses lie there"
        if shape == "all":
            return f"{self.label} cannot be trusted anywhere on this range: {fix_text}."
        if shape == "low":
            return f"{self.label} can be trusted from σ ≈ {bands[0][1]:.3g} on; below, {fix_text}."
        if shape == "high":
            return f"{self.label} can be trusted up to σ ≈ {bands[0][0]:.3g}; above, {fix_text}."
        return f"{self.label} cannot be trusted at {self._where(bands)}; there {fix_text}."

    def grid_words(self) -> str:
        """The grid the curve was computed on, in words: "on 40 σ evenly spaced over [0.6,
        3.4]" (every page that states where CG-t can be trusted names its grid with it)."""
        lo, hi = float(self.sigma[0]), float(self.sigma[-1])
        if self.sigma.size == 1:
            return f"at σ = {lo:g}"
        return f"on {self.sigma.size} σ evenly spaced over [{lo:g}, {hi:g}]"

    def stated(self) -> str:
        """:meth:`reading` with the grid it was read on (:meth:`grid_words`): what every page
        says of where ``label`` can be trusted."""
        return f"{self.reading()[:-1]} ({self.grid_words()})."

    def most_needed(self, solver: str) -> tuple[int, bool]:
        """``(t, capped)``: the largest t needed by ``solver`` ('cg' or 'pcg') at a σ of the
        grid, and whether it is the cap (``capped``: some σ needs more than ``t_max``; then
        ``t`` is ``t_max``, a lower bound)."""
        t = self.t_needed(solver)
        if t.size == 0:
            return 0, False
        capped = bool(np.any(t > self.t_max))
        return (self.t_max if capped else int(t.max())), capped

    def needed_words(self, solver: str) -> str:
        """:meth:`most_needed` in words: "up to t = 48" or "more than t = 1024"."""
        t, capped = self.most_needed(solver)
        return f"more than t = {t}" if capped else f"up to t = {t}"

    def trusted_from(self, missed: Sequence[float] = ()) -> float | None:
        """The σ from which ``label`` can be trusted to the range's end: the top of the
        last band of :meth:`bands` (the range start when there is none; None when the last
        band reaches the range end)."""
        bands = self.bands(missed)
        if not bands:
            return float(self.sigma[0])
        return None if bands[-1][1] >= self.sigma[-1] else bands[-1][1]


TRUST_RULE = (
    "{label} can be trusted at a σ of the grid when its largest soft-label error is below "
    "the smallest margin |f_u − ½| (so no label can be on the wrong side of ½), no node is "
    "on the wrong side there and the t needed there is at most {t}. Shaded: where it cannot "
    "be trusted, each run of such grid σ widened halfway to its trusted neighbours. The "
    "Loss and Conditioning pages use this rule on the same grid (the σ grid points, evenly "
    "spaced over the σ range), so they give the same boundary for the same settings."
)
"""The one definition of "CG-t can be trusted" (:meth:`TrustCurve.bands`), in words for the
page (format with ``label`` and ``t``)."""


_EXACT_STEP = 8
"""σ of the trust curve's exact solves between two progress reports (on large graphs
each solve is a full factorisation, so a report after every few keeps the bar moving)."""


@one_thread
def trust_curve(
    model: SoftLabelModel,
    sigmas,
    *,
    solver: str = "cg",
    cg_iters: int = CG_ITERS,
    t_max: int = T_MAX,
    progress: Progress | None = None,
    reuse: TrustCurve | None = None,
) -> TrustCurve:
    """Where t-iteration CG can be trusted: its error against the margin, and the t needed.

    Parameters
    ----------
    model : SoftLabelModel
    sigmas : array-like of shape (n_sigma,)
        Positive bandwidths (PCA-space distance units).
    solver : {'cg', 'pcg'}, default='cg'
        The iterative solver whose error, flip flag and wrong sides are reported (the t
        needed is reported for both).
    cg_iters : int, default=20
        t, the iterations of ``solver`` (from zero, as every sweep runs them).
    t_max : int, default=1024
        Cap of the search for the t needed.
    progress : callable, optional
        ``progress(fraction, message)`` as the work advances: the exact and t-iteration
        solves at every σ, then, for CG and for PCG, each σ whose t needed is settled
        ("t needed, CG: σ 12 of 40"). Fractions in [0, 1], non-decreasing, the last 1.
        Changes no number.
    reuse : TrustCurve, optional
        A trust curve of the same model on the same σ grid and ``t_max``: its t needed are
        taken, not searched again (they depend on neither ``cg_iters`` nor ``solver``), so
        a change of t costs the exact and t-iteration solves only.

    Returns
    -------
    TrustCurve

    Notes
    -----
    Nodes cut off from L in the exact graph (``degenerate``) are left out everywhere. A
    node is on its *right side* at t when the solver represents it (its weights do not
    underflow unscaled) and f_t,u > 1/2 exactly when f_u > 1/2.

    *t needed* at σ: the t at which every node is on its right side, searched per σ by
    doubling t = 1, 2, 4, ... until every node is right (or t_max fails: then the value is
    ``t_max + 1``, "more than t_max"), then bisecting between the last failing and the first
    working t. The result is right at t and not at t − 1; it is the *smallest* such t
    whenever, once every side is right, more iterations keep it so (not guaranteed for CG,
    whose soft labels need not converge monotonically; tests/unit/test_trust.py scans every t on
    small instances). The harmonic model answers each step from recorded runs (one run of
    16, 128 or 1024 iterations per σ gives every t up to it: :class:`_RecordedRuns`);
    otherwise all σ that need the same t are solved in one call of
    ``model.soft_labels_many``. A σ where some node underflows for the solver skips the
    search (no t can help).
    """
    caller = "trust_curve"
    sig, cg_iters = _check_grid(sigmas, solver, cg_iters, caller)
    t_max = check_int("t_max", t_max, caller, low=1)
    report = _reporter(progress, caller)
    n = sig.size
    exact = []
    for i in range(0, n, _EXACT_STEP):  # independent σ: the same numbers in any grouping
        report(0.2 * i / n, f"exact soft labels: σ {i} of {n}")
        exact += model.soft_labels_many(sig[i : i + _EXACT_STEP], solver="exact", derivative=False)
    report(0.2, f"{solver_label(solver, cg_iters)} soft labels at {n} σ")
    keeps = [~sl.degenerate for sl in exact]
    want = [(sl.f > 0.5)[k] for sl, k in zip(exact, keeps, strict=True)]

    def right(which: str):
        if model.nested_iterates:
            return _RecordedRuns(model, sig, which, keeps, want, t_max)

        def check(idx: list[int], t: int) -> list[bool]:
            sls = model.soft_labels_many(sig[idx], solver=which, cg_iters=t, derivative=False)
            return [
                bool(
                    np.all((sl.f[keeps[i]] > 0.5) == want[i]) and not sl.degenerate[keeps[i]].any()
                )
                for i, sl in zip(idx, sls, strict=True)
            ]

        return check

    approx = model.soft_labels_many(sig, solver=solver, cg_iters=cg_iters, derivative=False)
    error, margin = np.zeros(n), np.full(n, np.inf)
    wrong, under = np.zeros(n, int), np.zeros(n, int)
    for i, (ex, ap, k) in enumerate(zip(exact, approx, keeps, strict=True)):
        if k.any():
            error[i] = float(np.max(np.abs(ap.f[k] - ex.f[k])))
            margin[i] = float(np.min(np.abs(ex.f[k] - 0.5)))
        under[i] = int(np.sum(ap.degenerate[k]))
        up = (ap.f[k] > 0.5) & ~ap.degenerate[k]
        wrong[i] = int(np.sum((up != want[i]) | ap.degenerate[k]))
    report(0.3, "t needed, CG")
    needed = {}
    if reuse is not None:
        if not (np.array_equal(reuse.sigma, sig) and reuse.t_max == t_max):
            raise ValueError(
                f"{caller}: reuse must be a trust curve on the same σ grid and "
                "t_max; compute it afresh instead."
            )
        needed = {"cg": reuse.t_needed_cg.copy(), "pcg": reuse.t_needed_pcg.copy()}
    for j, w in enumerate(w for w in ("cg", "pcg") if w not in needed):
        base = 0.3 + 0.35 * j

        def settled(k: int, trying: tuple[int, int] | None = None, base=base, w=w) -> None:
            report(
                base + 0.35 * k / n,
                f"t needed, {w.upper()}: σ {k} of {n}"
                + (f" (trying t = {trying[0]} at {trying[1]} σ)" if trying else ""),
            )

        needed[w] = _search_t(n, keeps, under, t_max, right(w), settled)
    report(1.0, "done")
    return TrustCurve(
        sig,
        error,
        margin,
        error >= margin,
        wrong,
        needed["cg"],
        needed["pcg"],
        np.array([int((~k).sum()) for k in keeps]),
        under,
        solver,
        cg_iters,
        t_max,
    )


_FIRST_RUN = 16
"""Iterations of the first recorded run per σ (:class:`_RecordedRuns`); each later one is
8 times longer, up to t_max."""

_TRACE_BYTES = 1 << 26
"""Most bytes of sides one recorded run holds (σ, t, node): longer runs take fewer σ."""


class _RecordedRuns:
    """``right(idx, t)`` of :func:`_search_t` read off recorded runs: CG's iterates are
    nested, so one run of T iterations per σ (:meth:`HarmonicModel.sides_by_t`, the bits of
    T separate t-iteration solves) answers every t ≤ T. A σ asked a t beyond its run is run
    again, 8 times longer: the doubling and bisection then ask nothing new, and the runs
    cost at most about what the doubling alone did. Same answers as solving at each t."""

    def __init__(self, model, sig, solver, keeps, want, t_max: int) -> None:
        self.model, self.sig, self.solver, self.t_max = model, sig, solver, t_max
        self.keeps, self.want = keeps, want
        self.right = [np.zeros(0, bool) for _ in keeps]  # [i][t − 1]: every side right

    def __call__(self, idx: list[int], t: int) -> list[bool]:
        short = [i for i in idx if self.right[i].size < t]
        if short:
            runs = _FIRST_RUN
            while runs < t:
                runs *= 8
            runs = min(runs, self.t_max)
            per = max(1, _TRACE_BYTES // (runs * max(1, self.model.n_unlabeled)))
            for c in range(0, len(short), per):
                part = short[c : c + per]
                sides, degenerate = self.model.sides_by_t(
                    self.sig[part], solver=self.solver, iterations=runs
                )
                for j, i in enumerate(part):
                    k = self.keeps[i]
                    same = np.all(sides[j][:, k] == self.want[i], axis=1)
                    self.right[i] = same & ~degenerate[j][k].any()
        return [bool(self.right[i][t - 1]) for i in idx]


def _search_t(n: int, keeps, under, t_max: int, right, settled=None) -> np.ndarray:
    """Doubling then bisection per σ (see :func:`trust_curve`); ``right(idx, t)`` says for
    each σ index of ``idx`` whether t iterations put every node right (one batched call);
    ``settled(k, trying)``, if given, hears how many σ have their final t before and after
    each call (``trying``: (t, number of σ) of the call about to run; None after it)."""

    def tell(final: np.ndarray, trying: tuple[int, int] | None = None) -> None:
        if settled is not None:
            settled(int(np.sum(final)), trying)

    def is_final() -> np.ndarray:
        return (hi > t_max) | (hi - lo <= 1)

    lo = np.zeros(n, int)  # largest t known to fail (0: none tried)
    hi = np.full(n, t_max + 1)  # smallest t known to work (t_max + 1: none)
    done = np.zeros(n, bool)
    for i in range(n):
        if not keeps[i].any():  # nothing to decide
            hi[i], done[i] = 0, True
        elif under[i]:  # nodes the solver cannot represent: no t helps
            lo[i], done[i] = t_max, True
    t = 1
    while not done.all():  # doubling
        idx = [int(i) for i in np.flatnonzero(~done)]
        tell(done & is_final(), (t, len(idx)))
        for i, ok in zip(idx, right(idx, t), strict=True):
            if ok:
                hi[i], done[i] = t, True
            else:
                lo[i] = t
        tell(done & is_final())
        if t >= t_max:
            break
        t = min(2 * t, t_max)
    while True:  # bisection between the last failing and the first working t
        todo = [int(i) for i in np.flatnonzero(~is_final())]
        if not todo:
            break
        by_t: dict[int, list[int]] = {}
        for i in todo:
            by_t.setdefault((lo[i] + hi[i]) // 2, []).append(i)
        for m, idx in sorted(by_t.items()):
            tell(is_final(), (m, len(idx)))
            for i, ok in zip(idx, right(idx, m), strict=True):
                if ok:
                    hi[i] = m
                else:
                    lo[i] = m
            tell(is_final())
    tell(np.ones(n, bool))
    return hi
