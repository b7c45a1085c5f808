"""Linear solvers behind the soft labels: fixed-t CG / Jacobi-PCG, exact, matrix inverse.

All return a :class:`SolveResult` with the work done (matrix-vector products, iterations),
so interval sweeps can report what Table 1 of the paper reports.

========== ===================================================================
solver     what it does
========== ===================================================================
``cg``     ``t`` iterations of conjugate gradients from ``x0`` (as SciPy's ``cg``)
``pcg``    ``t`` iterations of Jacobi-preconditioned CG (M = diag(A)⁻¹)
``exact``  LU factorisation (dense LAPACK, or SuperLU for sparse matrices)
``inverse`` the explicit dense inverse (the paper's "MI" baseline)
========== ===================================================================

CG/PCG need a symmetric positive definite matrix; ``exact`` and ``inverse`` also take
the row-scaled (non-symmetric) systems of docs/method.md §4.3. Fixed-t CG is *expected* not to
converge: that is reported in the result, never as a warning or an exception.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from sslviz import _kernels
from sslviz._validation import check_int, check_option, check_real
from sslviz.specs import CG_ITERS, SOLVERS

_TINY = float(np.finfo(float).tiny)
_EPS = float(np.finfo(float).eps)


@dataclass(frozen=True)
class SolveResult:
    """Solution of A x = b and the work it took.

    Attributes
    ----------
    x : ndarray of shape (n,)
    iterations : int
        CG iterations run (0 for direct solves).
    matvecs : int
        Products with A (for CG: one per iteration, plus one for a nonzero x0).
    residual_norm : float
        ‖b − A x‖₂, computed once after the solve.
    status : {'converged', 'maxiter', 'direct'}
        'converged' when ‖b − A x‖ ≤ max(rtol‖b‖, atol) was reached by CG, 'maxiter' when
        CG stopped at its iteration budget, 'direct' for exact/inverse.
    """

    x: np.ndarray
    iterations: int
    matvecs: int
    residual_norm: float
    status: str

    @property
    def converged(self) -> bool:
        return self.status in ("converged", "direct")


def _as_apply(M):
    """``x -> M x`` for an ndarray, sparse matrix, LinearOperator or None (identity)."""
    if M is None:
        return None
    if isinstance(M, spla.LinearOperator):
        return M.matvec
    return lambda x: M @ x


_PATH_MAX = 1 << 22
"""Iterates (maxiter × n entries) a compiled run with a ``callback`` records at most (32 MB);
a longer run with a callback takes :func:`solve_cg`'s loop in NumPy."""


def solve_cg(
    A: np.ndarray | sp.spmatrix | spla.LinearOperator,
    b: np.ndarray,
    x0: np.ndarray | None = None,
    *,
    maxiter: int | None = None,
    rtol: float = 1e-5,
    atol: float = 0.0,
    M: np.ndarray | sp.spmatrix | spla.LinearOperator | None = None,
    callback: Callable[[np.ndarray], None] | None = None,
) -> SolveResult:
    """Conjugate gradients on a symmetric positive definite ``A``, counted: the one CG entry
    of sslviz.

    The same iteration as SciPy's ``scipy.sparse.linalg.cg`` (the tests check the iterates
    agree), written out so a fixed budget of t iterations costs t products and nothing
    more — the sweeps call it tens of thousands of times. A dense ``A`` (C-ordered floats)
    with no preconditioner or :func:`jacobi`'s runs compiled
    (:func:`sslviz._kernels.cg_dense`: the same operations in the same order, the products
    by the same BLAS routines, through SciPy's build rather than NumPy's: the same bits
    where the two builds round alike); any other ``A`` or ``M`` runs that loop in NumPy.

    Parameters
    ----------
    A : {ndarray, sparse matrix, LinearOperator} of shape (n, n)
    b : ndarray of shape (n,)
    x0 : ndarray of shape (n,), optional
        Start (zero by default); never modified.
    maxiter : int, optional
        Iteration budget; ``None`` means 10·n. For "CG with t iterations" pass
        ``maxiter=t, rtol=0``: exactly t iterations run unless the residual collapses to
        rounding noise (below 1e-30·‖b‖) first.
    rtol, atol : float
        Stop when ‖b − A x‖ < max(rtol·‖b‖, atol) (the recursively updated residual).
    M : {ndarray, sparse matrix, LinearOperator}, optional
        Preconditioner approximating A⁻¹.
    callback : callable, optional
        ``callback(xk)`` after each iteration (on the compiled path, once the run is done,
        with each iterate in turn).

    Returns
    -------
    SolveResult
        ``residual_norm`` is the recursively updated residual.
    """
    b = np.asarray(b, dtype=float)
    n = b.shape[0]
    if b.ndim != 1 or A.shape != (n, n):
        raise ValueError(f"shapes of A {A.shape} and b {b.shape} are incompatible")
    rtol = check_real("rtol", rtol, "solve_cg", low=0.0)
    atol = check_real("atol", atol, "solve_cg", low=0.0)
    maxiter = 10 * n if maxiter is None else check_int("maxiter", maxiter, "solve_cg", low=0)
    start = None if x0 is None or not np.any(x0) else np.array(x0, dtype=float)
    diag_inv = _compiled_preconditioner(A, M)
    if diag_inv is not None and (callback is None or maxiter * n <= _PATH_MAX):
        path = np.empty((maxiter if callback is not None else 0, n))
        x, it, matvecs, rr, bnorm = _kernels.cg_dense(
            A,
            np.ascontiguousarray(b),
            _kernels.NO_X0 if start is None else start,
            maxiter,
            atol,
            rtol,
            diag_inv,
            _kernels.NO_TRACE_ONE,
            path if callback is not None else _kernels.NO_PATH,
        )
        for k in range(it if callback is not None else 0):
            callback(path[k])
        return _cg_result(x, it, matvecs, rr, bnorm, rtol, atol)
    return _solve_cg_numpy(A, b, start, maxiter, rtol, atol, M, callback)


def _compiled_preconditioner(A, M) -> np.ndarray | None:
    """``diag_inv`` for :func:`sslviz._kernels.cg_dense` (empty: no preconditioner) where
    :func:`solve_cg` runs compiled; None where it runs in NumPy."""
    if not (isinstance(A, np.ndarray) and A.dtype == np.float64 and A.flags.c_contiguous):
        return None
    if M is None:
        return np.empty(0)
    return M.inverse_diagonal if isinstance(M, JacobiPreconditioner) else None


def _cg_result(x, it, matvecs, rr, bnorm, rtol, atol) -> SolveResult:
    """:func:`solve_cg`'s result from the final x, the counts, ‖r‖² and ‖b‖."""
    rnorm = float(np.sqrt(rr))
    if bnorm == 0.0:  # as SciPy: the solution of A x = 0 is 0
        return SolveResult(x, 0, 0, 0.0, "converged")
    status = "converged" if rnorm < max(atol, rtol * bnorm) else "maxiter"
    return SolveResult(x, int(it), int(matvecs), rnorm, status)


def _solve_cg_numpy(A, b, x, maxiter, rtol, atol, M, callback) -> SolveResult:
    """:func:`solve_cg`'s loop in NumPy, for any operator ``A`` and preconditioner ``M``
    (``x``: the start, None for zero)."""
    n = b.shape[0]
    matvec = _as_apply(A)
    psolve = _as_apply(M)
    bnorm = float(np.linalg.norm(b))
    # A floor far below rounding level stops CG once the residual has collapsed to
    # (sub)normal noise, where the next step would divide 0 by 0.
    stop = max(atol, rtol * bnorm, 1e-30 * bnorm, _TINY)
    matvecs = 0
    if bnorm == 0.0:
        return _cg_result(np.zeros(n), 0, 0, 0.0, bnorm, rtol, atol)
    if x is None:
        x = np.zeros(n)
        r = b.copy()
    else:
        r = b - matvec(x)
        matvecs += 1
    rr = float(r @ r)
    stop2 = stop * stop
    it = 0
    rho_prev = 0.0
    p = None
    while it < maxiter and rr >= stop2:
        z = r if psolve is None else psolve(r)
        rho = rr if psolve is None else float(r @ z)
        p = z.copy() if p is None else z + (rho / rho_prev) * p
        q = matvec(p)
        matvecs += 1
        pq = float(p @ q)
        if not pq > 0.0:  # breakdown: A not positive definite on p, or p = 0
            break
        alpha = rho / pq
        x += alpha * p
        r -= alpha * q
        rho_prev = rho
        rr = float(r @ r)
        it += 1
        if callback is not None:
            callback(x)
    return _cg_result(x, it, matvecs, rr, bnorm, rtol, atol)


_getrf, _getrs = la.get_lapack_funcs(("getrf", "getrs"), (np.zeros((1, 1)),))


def lu_dense(A: np.ndarray):
    """LAPACK ``getrf`` of a dense ``A`` (overwritten when Fortran-ordered), as
    :class:`Factorization` runs it through ``scipy.linalg.lu_factor`` (same routine, same
    bits) without its wrappers. Returns ``(lu, piv, min_pivot)``; ``min_pivot`` 0 when a
    pivot is exactly zero (no warning: the caller falls back)."""
    lu, piv, info = _getrf(A, overwrite_a=True)
    if info < 0:
        raise ValueError(f"illegal value in argument {-info} of getrf")
    return lu, piv, float(np.abs(np.diag(lu)).min()) if info == 0 else 0.0


def lu_dense_solve(lu: np.ndarray, piv: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``scipy.linalg.lu_solve((lu, piv), b)`` by LAPACK ``getrs`` directly (same bits)."""
    x, info = _getrs(lu, piv, b, trans=0, overwrite_b=False)
    if info != 0:
        raise ValueError(f"illegal value in argument {-info} of getrs")
    return x


_potrf, _potrs = la.get_lapack_funcs(("potrf", "potrs"), (np.zeros((1, 1)),))


def cholesky_dense(A: np.ndarray):
    """LAPACK ``potrf`` (lower) of a symmetric positive definite ``A`` (its lower triangle
    read, overwritten when Fortran-ordered): ``(c, min_pivot)``, the factor and the
    smallest pivot c_kk²; ``min_pivot`` 0 when ``A`` is not numerically positive definite."""
    c, info = _potrf(A, lower=1, overwrite_a=True, clean=0)
    if info < 0:
        raise ValueError(f"illegal value in argument {-info} of potrf")
    return c, float(np.diag(c).min() ** 2) if info == 0 else 0.0


def cholesky_dense_solve(c: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Solve with a :func:`cholesky_dense` factor (LAPACK ``potrs``)."""
    x, info = _potrs(c, b, lower=1, overwrite_b=False)
    if info != 0:
        raise ValueError(f"illegal value in argument {-info} of potrs")
    return x


class Factorization:
    """A reusable direct solve of A x = b (LU, or the explicit inverse).

    ``Factorization(A, method='exact')`` factorises once; ``solve(b)`` is then cheap.
    Dense ``A`` uses LAPACK ``getrf``; sparse ``A`` uses SuperLU. ``method='inverse'``
    forms A⁻¹ densely (the paper's MI baseline) and multiplies. ``dominant=True`` says
    A is diagonally dominant by rows (the row-scaled harmonic systems, docs/method.md §4.3): a
    sparse A then keeps its diagonal pivots (stable without row exchanges) and is ordered
    by minimum degree on A + Aᵀ (less fill than SuperLU's defaults on kNN graphs), or by
    ``order`` (:func:`nested_dissection`, less fill again on large kNN graphs;
    ``benchmarks/exact_knn.py`` compares them).
    """

    def __init__(
        self,
        A: np.ndarray | sp.spmatrix,
        method: str = "exact",
        *,
        dominant: bool = False,
        order: np.ndarray | None = None,
    ) -> None:
        check_option("method", method, "Factorization", ("exact", "inverse"))
        self.shape = A.shape
        self.A = A
        self.method = method
        self.min_pivot = 1.0
        if A.shape[0] == 0:
            self._solve = lambda b: np.zeros(0)
            return
        try:
            if sp.issparse(A) and method == "exact":
                if dominant and order is not None:
                    lu = _ordered_splu(A, order)
                    inv = np.argsort(order)
                    self._solve = lambda b: lu.solve(b[order])[inv]
                else:
                    lu = spla.splu(sp.csc_matrix(A), **(_DOMINANT_SPLU if dominant else {}))
                    self._solve = lu.solve
                self.min_pivot = float(np.abs(lu.U.diagonal()).min())
                return
            # getrf/getrs as scipy.linalg.lu_factor/lu_solve run them (same bits), without
            # their LinAlgWarning on an exactly zero pivot (min_pivot 0 says so): a warning
            # filter set around them would not be thread-safe.
            Ad = np.array(A.toarray() if sp.issparse(A) else A, dtype=float, order="F")
            with np.errstate(all="ignore"):
                lu, piv, self.min_pivot = lu_dense(Ad)
            if method == "inverse":
                inv = lu_dense_solve(lu, piv, np.eye(Ad.shape[0]))
                self._solve = lambda b: inv @ b
            else:
                self._solve = lambda b: lu_dense_solve(lu, piv, b)
        except (RuntimeError, np.linalg.LinAlgError, ValueError):
            self.min_pivot = 0.0  # exactly singular in floating point
            self._solve = lambda b: np.full(np.shape(b), np.nan)

    def solve(self, b: np.ndarray) -> SolveResult:
        with np.errstate(all="ignore"):
            x = np.asarray(self._solve(np.asarray(b, dtype=float)), dtype=float)
        return SolveResult(x, 0, 0, float("nan"), "direct")


_DOMINANT_SPLU = {
    "permc_spec": "MMD_AT_PLUS_A",
    "diag_pivot_thresh": 0.0,
    "options": {"SymmetricMode": True},
}  # SuperLU on a matrix diagonally dominant by rows: diagonal pivots, symmetric ordering


def _ordered_splu(A: sp.spmatrix, order: np.ndarray):
    """SuperLU of A[order][:, order] as it stands (diagonal pivots, no reordering), for a
    matrix diagonally dominant by rows; the elimination order is ``order``."""
    A = sp.csr_matrix(A)[order][:, order]
    lu = spla.splu(
        sp.csc_matrix(A),
        permc_spec="NATURAL",
        diag_pivot_thresh=0.0,
        options={"SymmetricMode": True},
    )
    if not (np.array_equal(lu.perm_r, lu.perm_c) and np.all(lu.perm_c == np.arange(A.shape[0]))):
        raise RuntimeError("SuperLU reordered a diagonally dominant matrix")  # pragma: no cover
    return lu


def nested_dissection(pattern: sp.spmatrix) -> np.ndarray:
    """A fill-reducing elimination order of a sparse matrix's symmetrised pattern by METIS
    nested dissection (Karypis & Kumar; through pymetis): ``order[k]`` is the node
    eliminated k-th. Deterministic (METIS's fixed seed). For :class:`Factorization` and
    :class:`SparseGTHFactorization` of the harmonic systems, whose pattern is the same at
    every σ: computed once per model."""
    G = sp.csr_matrix(pattern, dtype=float)
    n = G.shape[0]
    rows = np.repeat(np.arange(n), np.diff(G.indptr))
    off = G.indices != rows
    G = sp.csr_matrix((np.ones(off.sum()), (rows[off], G.indices[off])), G.shape)
    G = (G + G.T).tocsr()
    G.sort_indices()
    if n < 3 or G.nnz == 0:
        return np.arange(n)
    import pymetis  # only sparse exact solves need it

    adjacency = pymetis.CSRAdjacency(
        adj_starts=G.indptr.astype(np.int32), adjacent=G.indices.astype(np.int32)
    )
    order, _ = pymetis.nested_dissection(adjacency)
    return np.asarray(order, dtype=np.int64)


class GTHFactorization:
    """Subtraction-free elimination (Grassmann–Taksar–Heyman) of a grounded Laplacian.

    Solves (diag(W1 + s) − W) x = b for non-negative off-diagonal weights ``W`` (m, m)
    and non-negative leaks ``s`` (m,) — the weight of each row to the grounded (labeled)
    nodes. Every pivot is a *sum* of the remaining outflow of its row, so nothing cancels
    however close a row's weight is to a single neighbour (docs/method.md §4.3). O(m³), dense,
    compiled (:func:`sslviz._kernels.gth_dense_factor`): the exact solve of dense systems
    of up to 400 unknowns, and the redo of larger ones whose LU pivots show cancellation.
    """

    def __init__(self, W: np.ndarray | sp.spmatrix, leak: np.ndarray) -> None:
        A = W.toarray() if sp.issparse(W) else np.array(W, dtype=float)
        np.fill_diagonal(A, 0.0)
        s = np.array(leak, dtype=float)
        # A pivot can only vanish by underflow: that node's link to the grounded set is not
        # representable. It is then held at 1/2 (a boundary node) and reported in ``cut``.
        self._piv, self.cut = _kernels.gth_dense_factor(A, s)
        self._A = A

    def solve(self, b: np.ndarray) -> SolveResult:
        x = _kernels.gth_dense_solve(self._A, self._piv, self.cut, np.asarray(b, dtype=float))
        return SolveResult(x, 0, 0, float("nan"), "direct")


class SparseGTHFactorization:
    """:class:`GTHFactorization` of a sparse ``W``: the same subtraction-free elimination
    in a fill-reducing order, on the LU structure SuperLU finds for that order
    (:func:`sslviz._kernels.gth_sparse_factor`). Memory O(fill) instead of O(m²); on a
    kNN-6 graph of 4,000 unlabeled nodes a fraction of a second instead of minutes.

    Parameters
    ----------
    W : sparse matrix of shape (m, m)
        Non-negative off-diagonal weights (the diagonal is ignored).
    leak : ndarray of shape (m,)
        Non-negative weight of each row to the grounded nodes.
    order : ndarray of shape (m,), optional
        Elimination order (:func:`nested_dissection`); default: SuperLU's minimum degree.

    Attributes
    ----------
    cut : ndarray of shape (m,), bool
        Nodes whose pivot underflowed (held at 1/2), as in :class:`GTHFactorization`.
    """

    def __init__(self, W: sp.spmatrix, leak: np.ndarray, order: np.ndarray | None = None) -> None:
        W = sp.csr_matrix(W, dtype=float)
        m = W.shape[0]
        self._m = m
        self.cut = np.zeros(m, bool)
        if m == 0:
            return
        # An M-matrix with W's structure and no cancellation anywhere: its LU has the fill
        # of W's elimination in SuperLU's order (diagonal pivots: perm_r = perm_c).
        rows = np.repeat(np.arange(m), np.diff(W.indptr))
        off = W.indices != rows
        pattern = sp.csr_matrix((np.ones(off.sum()), (rows[off], W.indices[off])), W.shape)
        M = sp.diags(np.asarray(pattern.sum(axis=1)).ravel() + 1.0) - pattern
        if order is None:
            lu = spla.splu(sp.csc_matrix(M), **_DOMINANT_SPLU)
            if not np.array_equal(lu.perm_r, lu.perm_c):  # pragma: no cover - SuperLU contract
                raise RuntimeError("SuperLU exchanged rows of a diagonally dominant matrix")
            order = np.argsort(lu.perm_c)
        else:
            lu = _ordered_splu(M, order)
        # order[k]: the node eliminated k-th; self._order[i]: node i's position
        self._order, self._inv = np.argsort(order), np.asarray(order)
        lower = sp.csr_matrix(sp.tril(lu.L, -1))
        upper = sp.csr_matrix(sp.triu(lu.U, 1))
        lower.sort_indices()
        upper.sort_indices()
        Wp = W[self._inv][:, self._inv]
        self._lower = (lower.indptr.astype(np.int64), lower.indices.astype(np.int64))
        self._upper = (upper.indptr.astype(np.int64), upper.indices.astype(np.int64))
        leak = np.asarray(leak, dtype=float)[self._inv]
        self._piv, self._lval, self._uval, cut = _kernels.gth_sparse_factor(
            Wp.indptr.astype(np.int64),
            Wp.indices.astype(np.int64),
            Wp.data,
            leak,
            *self._lower,
            *self._upper,
        )
        self.cut = cut[order]
        self._cut = cut

    def solve(self, b: np.ndarray) -> SolveResult:
        if self._m == 0:
            return SolveResult(np.zeros(0), 0, 0, float("nan"), "direct")
        bp = np.asarray(b, dtype=float)[self._inv]
        y = _kernels.gth_sparse_solve(
            *self._lower, self._lval, *self._upper, self._uval, self._piv, self._cut, bp
        )
        return SolveResult(y[self._order], 0, 0, float("nan"), "direct")


@dataclass(frozen=True)
class SideCertificate:
    """Entrywise error bound of an approximate solution and the sides it proves (docs/method.md §8).

    Attributes
    ----------
    bound : ndarray of shape (n,)
        g with |x* − x| ≤ g entrywise, x* the exact solution (``inf`` when ``valid`` is
        False).
    certified : ndarray of shape (n,), bool
        |x − center| > g: x* lies on the same side of ``center`` as x.
    valid : bool
        False when ``h`` is not a positive supersolution (A h > 0 failed after rounding).
    """

    bound: np.ndarray
    certified: np.ndarray
    valid: bool

    @property
    def all(self) -> bool:
        return bool(self.valid and self.certified.all())


def side_certificate(
    A: np.ndarray | sp.spmatrix,
    b: np.ndarray,
    x: np.ndarray,
    h: np.ndarray,
    *,
    center: float = 0.5,
) -> SideCertificate:
    """Prove on which side of ``center`` each entry of the solution of A x* = b lies.

    For a nonsingular M-matrix A (A⁻¹ ≥ 0 entrywise: e.g. L_UU when every unlabeled
    component touches L), with r = b − A x: if A g ≥ |r| entrywise then
    |x* − x| = |A⁻¹ r| ≤ A⁻¹ |r| ≤ g. With any h such that A h > 0,
    g = h · max_u |r_u| / (A h)_u satisfies A g ≥ |r|. Rounding in r and A h is bounded
    by the standard γ_k (|A| |v| + |b|) with k the largest row length, and taken against
    the certificate (|r| enlarged, A h reduced).

    Parameters
    ----------
    A : ndarray or sparse matrix of shape (n, n)
        A nonsingular M-matrix (not checked: the caller's structure guarantees it).
    b, x : ndarray of shape (n,)
        Right-hand side and the approximate solution (any solver, any accuracy).
    h : ndarray of shape (n,)
        Any vector with A h > 0, e.g. a few CG iterations on A h = 1.
    center : float, default=0.5

    Returns
    -------
    SideCertificate
    """
    sparse = sp.issparse(A)
    absA = abs(A) if sparse else np.abs(A)
    row_len = int(np.diff(A.indptr).max()) if sparse and A.shape[0] else A.shape[1]
    k = row_len + 2
    gamma = 2.0 * k * _EPS / (1.0 - k * _EPS)
    r = b - A @ x
    r_hi = np.abs(r) + gamma * (absA @ np.abs(x) + np.abs(b))
    Ah = A @ h
    Ah_lo = Ah - gamma * (absA @ np.abs(h))
    if not (h.size == 0 or (np.all(h >= 0) and np.all(Ah_lo > 0))):
        n = x.shape[0]
        return SideCertificate(np.full(n, np.inf), np.zeros(n, bool), False)
    scale = float(np.max(r_hi / Ah_lo)) if h.size else 0.0
    g = h * (scale * (1.0 + 4.0 * _EPS))
    dist = np.abs(x - center)
    return SideCertificate(g, dist > g + 4.0 * _EPS * np.maximum(dist, 1.0), True)


def top_class_certificate(
    A: np.ndarray | sp.spmatrix, B: np.ndarray, X: np.ndarray, h: np.ndarray
) -> SideCertificate:
    """Prove each row's largest entry of the solution of A X* = B, column by column
    (docs/method.md §13): with the bound g_c of :func:`side_certificate` for column c
    (|X*_uc − X_uc| ≤ g_uc, one supersolution ``h`` for every column), row u's top column a
    is certified when X_ua − X_ub > g_ua + g_ub (+ a rounding margin of 4ε·max(gap, 1))
    for every other column b.

    Parameters
    ----------
    A : ndarray or sparse matrix of shape (n, n)
        A nonsingular M-matrix.
    B, X : ndarray of shape (n, C)
        Right-hand sides and approximate solutions, C ≥ 2 columns.
    h : ndarray of shape (n,)
        Any vector with A h > 0.

    Returns
    -------
    SideCertificate
        ``bound`` of shape (n, C); ``certified`` of shape (n,): the row's top column proven.
    """
    cols = [side_certificate(A, B[:, c], X[:, c], h) for c in range(X.shape[1])]
    g = np.column_stack([cert.bound for cert in cols]) if cols else np.zeros(X.shape)
    valid = all(cert.valid for cert in cols)
    n = X.shape[0]
    if not valid or n == 0:
        return SideCertificate(g, np.zeros(n, bool) if not valid else np.ones(0, bool), valid)
    rows = np.arange(n)
    a = np.argmax(X, axis=1)
    gap = X[rows, a][:, None] - X
    need = g[rows, a][:, None] + g + 4.0 * _EPS * np.maximum(np.abs(gap), 1.0)
    ok = gap > need
    ok[rows, a] = True
    return SideCertificate(g, ok.all(axis=1), True)


def positive_supersolution(
    A: np.ndarray | sp.spmatrix, *, maxiter: int, M=None
) -> tuple[np.ndarray, int]:
    """An h with A h ≈ 1, close enough that A h ≥ 1/2 > 0 (CG to ‖1 − A h‖₂ ≤ ½, which
    bounds every entry of the residual by ½); and the products it took."""
    n = A.shape[0]
    if n == 0:
        return np.zeros(0), 0
    res = solve_cg(A, np.ones(n), maxiter=maxiter, rtol=0.5 / np.sqrt(n), M=M)
    return res.x, res.matvecs


class JacobiPreconditioner(spla.LinearOperator):
    """The Jacobi preconditioner diag(A)⁻¹ (z = ``inverse_diagonal`` · r), a LinearOperator
    that :func:`solve_cg` also runs inside its compiled loop.

    Parameters
    ----------
    inverse_diagonal : ndarray of shape (n,)
        1 / diag(A).
    """

    def __init__(self, inverse_diagonal: np.ndarray) -> None:
        self.inverse_diagonal = inverse_diagonal
        n = inverse_diagonal.shape[0]
        super().__init__(float, (n, n))

    def _matvec(self, x: np.ndarray) -> np.ndarray:
        return self.inverse_diagonal * x.ravel()


def jacobi(A: np.ndarray | sp.spmatrix) -> JacobiPreconditioner:
    """Jacobi preconditioner diag(A)⁻¹ as a LinearOperator."""
    d = A.diagonal() if sp.issparse(A) else np.diag(A)
    return JacobiPreconditioner(1.0 / d)


class LinearSolver:
    """Solve with one matrix several times by the named method (``SOLVERS``).

    Parameters
    ----------
    A : ndarray or sparse matrix of shape (n, n)
        For ``cg``/``pcg`` it must be symmetric positive definite.
    method : {'cg', 'pcg', 'exact', 'inverse'}
    cg_iters : int
        t, the fixed CG iteration budget.
    dominant : bool, default=False
        A is diagonally dominant by rows (see :class:`Factorization`).
    order : ndarray, optional
        Elimination order of a sparse dominant A (see :class:`Factorization`).

    Attributes
    ----------
    solves, matvecs, factorizations : int
        Work done so far.
    """

    def __init__(
        self,
        A,
        method: str,
        *,
        cg_iters: int = CG_ITERS,
        dominant: bool = False,
        order: np.ndarray | None = None,
    ) -> None:
        self.method = check_option("solver", method, "LinearSolver", SOLVERS)
        self.dominant = dominant
        self.order = order
        self.cg_iters = check_int("cg_iters", cg_iters, "LinearSolver", low=1)
        self.A = A
        self.solves = 0
        self.matvecs = 0
        self.factorizations = 0
        self._direct: Factorization | None = None
        self.min_pivot = 1.0
        self._M = jacobi(A) if method == "pcg" and A.shape[0] else None

    def solve(
        self, b: np.ndarray, x0: np.ndarray | None = None, callback: Callable | None = None
    ) -> np.ndarray:
        """x with A x ≈ b; ``callback(x)`` after each CG iteration (iterative methods)."""
        self.solves += 1
        if self.method in ("exact", "inverse"):
            if self._direct is None:
                self._direct = Factorization(
                    self.A, self.method, dominant=self.dominant, order=self.order
                )
                self.factorizations += 1
                self.min_pivot = self._direct.min_pivot
            return self._direct.solve(b).x
        if self.A.shape[0] == 0:
            return np.zeros(0)
        r = solve_cg(self.A, b, x0, maxiter=self.cg_iters, rtol=0.0, M=self._M, callback=callback)
        self.matvecs += r.matvecs
        return r.x
