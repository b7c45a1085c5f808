"""Condition numbers across σ (DESIGN §6; the paper's Figure 5, Theorems 5.1–5.3).

For the harmonic objective κ(I − P_UU) = λ_max/λ_min of the symmetric
S = D_UU^{-1/2} L_UU D_UU^{-1/2} (same spectrum, built in the log domain so small σ does
not underflow); for Delalleau κ(A), A = λΔ_L + diag(W1) − W. Dense ``eigvalsh`` up to
``dense_max`` unknowns, else ARPACK extreme eigenvalues (shift-invert at 0 for λ_min).

Beside κ: the CG (or Jacobi-PCG) iterations the solver actually needs to reach ``rtol``
on the system it runs on, and the error of t-iteration CG against the exact solve.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from sslviz._validation import check_int, check_option, check_real
from sslviz.labeling import DelalleauModel, HarmonicModel
from sslviz.solvers import jacobi, solve_cg
from sslviz.specs import CG_ITERS, ConditionSettings, default


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
        Iterations of ``solver`` to reach ‖r‖ ≤ rtol‖b‖ (capped at 10·m; -1 when the
        unscaled system is not representable at that σ).
    cg_error : ndarray
        max_u |f_u(t-iteration solver) − f_u(exact)|.
    degenerate : ndarray of int
        Unlabeled nodes cut off from the labeled set at that σ (excluded from κ).
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


def _system(model, sigma: float):
    """(matrix whose κ is reported, matrix CG runs on, rhs, degenerate count)."""
    if isinstance(model, HarmonicModel):
        S, deg = model.system(sigma)
        M, b = model.laplacian_system(sigma)
        keep = ~deg
        M = M[np.ix_(keep, keep)] if isinstance(M, np.ndarray) else M[keep][:, keep]
        return S, M, b[keep], int(deg.sum())
    A, _, deg = model.matrix(sigma)
    keep = ~deg
    A = A[np.ix_(keep, keep)] if isinstance(A, np.ndarray) else A[keep][:, keep]
    return A, A, (model.lam * model.y_s)[keep], int(deg.sum())


def condition_curve(
    model: HarmonicModel | DelalleauModel,
    sigmas: np.ndarray,
    *,
    solver: str = "cg",
    cg_iters: int = CG_ITERS,
    rtol: float = default(ConditionSettings, "rtol"),
    dense_max: int = 2000,
) -> ConditionCurve:
    """κ, CG iterations needed and t-iteration CG error at each σ in ``sigmas``.

    Parameters
    ----------
    model : HarmonicModel or DelalleauModel
    sigmas : array-like of shape (n_sigma,)
        Positive bandwidths (PCA-space distance units).
    solver : {'cg', 'pcg'}, default='cg'
    cg_iters : int, default=20
    rtol : float, default=1e-6
    dense_max : int, default=2000
    """
    caller = "condition_curve"
    sig = np.asarray(sigmas, float).ravel()
    if sig.size == 0 or np.any(~np.isfinite(sig)) or np.any(sig <= 0):
        raise ValueError(f"The 'sigmas' parameter of {caller} must be positive finite values.")
    check_option("solver", solver, caller, ("cg", "pcg"))
    cg_iters = check_int("cg_iters", cg_iters, caller, low=1)
    rtol = check_real("rtol", rtol, caller, low=0.0, closed="neither")
    out = {k: np.zeros(sig.size) for k in ("kappa", "lmin", "lmax", "err")}
    iters = np.zeros(sig.size, int)
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
            r = solve_cg(M, b, rtol=rtol, M=pre)
            iters[i] = r.iterations
        exact = model.soft_labels(float(s), solver="exact", derivative=False).f
        approx = model.soft_labels(float(s), solver=solver, cg_iters=cg_iters, derivative=False).f
        out["err"][i] = float(np.max(np.abs(approx - exact))) if exact.size else 0.0
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
    )
