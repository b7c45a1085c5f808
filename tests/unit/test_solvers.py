"""CG / Jacobi-PCG, direct factorisations and the counted LinearSolver (sslviz.solvers),
against SciPy's cg iterate by iterate and dense numpy solves."""

import functools

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from reference import RTOL_ITERATE

from sslviz import _kernels
from sslviz._validation import InvalidParameterError
from sslviz.solvers import Factorization, LinearSolver, _solve_cg_numpy, jacobi, solve_cg


def _spd(n=30, seed=0, cond=1e3, sparse=False):
    """Random SPD matrix with a prescribed condition number and a non-constant diagonal."""
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    ev = np.logspace(0, np.log10(cond), n)
    A = (Q * ev) @ Q.T
    A = 0.5 * (A + A.T)
    D = np.diag(rng.uniform(0.5, 5.0, size=n))
    A = D @ A @ D  # badly scaled rows: Jacobi helps
    return sp.csr_matrix(A) if sparse else A


def _counting(A):
    count = {"n": 0}

    def mv(x):
        count["n"] += 1
        return A @ np.ravel(x)

    return spla.LinearOperator(A.shape, matvec=mv, dtype=float), count


def _diag_inv_operator(A):
    d = np.diag(A) if not sp.issparse(A) else A.diagonal()
    inv = 1.0 / d
    return spla.LinearOperator(A.shape, matvec=lambda x: inv * np.ravel(x), dtype=float)


# --------------------------------------------------------------------------- CG vs SciPy


@pytest.mark.parametrize("precondition", [False, True])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("x0_kind", ["none", "random"])
def test_solve_cg_matches_scipy_iterate_by_iterate(precondition, sparse, x0_kind):
    A = _spd(40, seed=1, sparse=sparse)
    rng = np.random.default_rng(2)
    b = rng.normal(size=40)
    x0 = None if x0_kind == "none" else rng.normal(size=40)
    ours, theirs = [], []
    # one preconditioner object for both, so the comparison is of the iteration alone
    M_ref = _diag_inv_operator(A) if precondition else None
    res = solve_cg(
        A, b, x0, maxiter=60, rtol=1e-10, M=M_ref, callback=lambda xk: ours.append(xk.copy())
    )
    x_ref, info = spla.cg(
        A,
        b,
        x0=None if x0 is None else x0.copy(),
        maxiter=60,
        rtol=1e-10,
        M=M_ref,
        callback=lambda xk: theirs.append(xk.copy()),
    )
    assert len(ours) == len(theirs) > 5
    for k, (a, c) in enumerate(zip(ours, theirs, strict=True)):
        np.testing.assert_allclose(a, c, rtol=1e-13, atol=1e-14 * np.abs(c).max(), err_msg=k)
    np.testing.assert_allclose(res.x, x_ref, rtol=1e-10, atol=1e-14)
    assert res.iterations == len(ours)
    assert (info == 0) == (res.status == "converged")
    # the recursively updated residual is close to the true one at convergence
    true_r = np.linalg.norm(b - A @ res.x)
    if res.status == "converged":
        assert true_r <= 1e-8 * np.linalg.norm(b)


def test_jacobi_preconditioner_is_diag_inverse():
    A = _spd(20, seed=3)
    x = np.random.default_rng(4).normal(size=20)
    np.testing.assert_allclose(jacobi(A).matvec(x), x / np.diag(A), rtol=1e-15)
    np.testing.assert_allclose(jacobi(sp.csr_matrix(A)).matvec(x), x / np.diag(A), rtol=1e-15)
    # and solve_cg with it runs the same iteration as SciPy with it
    b = np.random.default_rng(5).normal(size=20)
    ours, theirs = [], []
    solve_cg(A, b, maxiter=30, rtol=1e-10, M=jacobi(A), callback=lambda v: ours.append(v.copy()))
    spla.cg(A, b, maxiter=30, rtol=1e-10, M=jacobi(A), callback=lambda v: theirs.append(v.copy()))
    assert len(ours) == len(theirs)
    for a, c in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, c, rtol=1e-13, atol=1e-14 * np.abs(c).max())


def test_pcg_needs_fewer_iterations_on_badly_scaled_matrix():
    A = _spd(60, seed=5, cond=10.0)
    rng = np.random.default_rng(6)
    D = np.diag(10.0 ** rng.uniform(-3, 3, size=60))
    A = D @ A @ D
    b = rng.normal(size=60)
    plain = solve_cg(A, b, rtol=1e-8, maxiter=5000)
    pre = solve_cg(A, b, rtol=1e-8, maxiter=5000, M=jacobi(A))
    assert pre.status == "converged"
    assert pre.iterations < plain.iterations


def test_maxiter_one():
    A = _spd(25, seed=7)
    b = np.random.default_rng(8).normal(size=25)
    calls = []
    res = solve_cg(A, b, maxiter=1, rtol=1e-12, callback=lambda xk: calls.append(xk.copy()))
    assert len(calls) == 1
    assert res.iterations == 1 and res.matvecs == 1
    assert res.status == "maxiter" and not res.converged
    # one CG step from 0: x = (rᵀr / rᵀAr) r with r = b
    np.testing.assert_allclose(res.x, (b @ b) / (b @ A @ b) * b, rtol=1e-12)
    np.testing.assert_allclose(res.residual_norm, np.linalg.norm(b - A @ res.x), rtol=1e-8)


@pytest.mark.parametrize("t", [1, 3, 10, 25])
def test_matvecs_counted(t):
    A = _spd(30, seed=9)
    b = np.random.default_rng(10).normal(size=30)
    op, count = _counting(A)
    res = solve_cg(op, b, maxiter=t, rtol=0.0)
    assert res.iterations == t
    assert res.matvecs == count["n"] == t
    # a nonzero start costs one more product (the initial residual)
    op, count = _counting(A)
    x0 = np.ones(30)
    res = solve_cg(op, b, x0, maxiter=t, rtol=0.0)
    assert res.matvecs == count["n"] == t + 1
    # a zero x0 is the same as none
    op, count = _counting(A)
    res = solve_cg(op, b, np.zeros(30), maxiter=t, rtol=0.0)
    assert res.matvecs == count["n"] == t


def test_matvecs_counted_when_converging_early():
    A = _spd(30, seed=11, cond=10.0)
    b = np.random.default_rng(12).normal(size=30)
    op, count = _counting(A)
    res = solve_cg(op, b, rtol=1e-8)
    assert res.status == "converged" and 0 < res.iterations < 300
    assert res.matvecs == count["n"] == res.iterations
    assert np.linalg.norm(b - A @ res.x) <= 1e-7 * np.linalg.norm(b)


def test_x0_not_modified():
    A = _spd(20, seed=13)
    rng = np.random.default_rng(14)
    b = rng.normal(size=20)
    x0 = rng.normal(size=20)
    keep = x0.copy()
    b_keep = b.copy()
    res = solve_cg(A, b, x0, maxiter=50, rtol=1e-10)
    np.testing.assert_array_equal(x0, keep)
    np.testing.assert_array_equal(b, b_keep)
    assert res.x is not x0
    np.testing.assert_allclose(res.x, np.linalg.solve(A, b), rtol=1e-6)


def test_zero_rhs():
    A = _spd(15, seed=15)
    res = solve_cg(A, np.zeros(15))
    np.testing.assert_array_equal(res.x, 0.0)
    assert res.iterations == 0 and res.matvecs == 0
    assert res.status == "converged" and res.residual_norm == 0.0
    x, info = spla.cg(A, np.zeros(15))
    np.testing.assert_array_equal(x, 0.0)


def test_zero_rhs_with_nonzero_start_reports_status_consistently():
    """With b = 0 and x0 ≠ 0, one CG step does not reach A x = 0; 'converged' is only
    right when the residual actually meets the tolerance (SolveResult docstring)."""
    A = _spd(15, seed=16)
    x0 = np.ones(15)
    res = solve_cg(A, np.zeros(15), x0, maxiter=1, rtol=1e-5)
    r = float(np.linalg.norm(A @ res.x))
    # either SciPy's answer (b = 0 ⇒ x = 0, converged) or an honest 'maxiter'
    if res.status == "converged":
        assert r == 0.0 and res.residual_norm == 0.0, (res.status, r, res.residual_norm)
    else:
        assert res.status == "maxiter"
        np.testing.assert_allclose(res.residual_norm, r, rtol=1e-8)


def test_shape_mismatch_message_shows_shapes():
    A = _spd(5, seed=17)
    with pytest.raises(ValueError) as ei:
        solve_cg(A, np.ones(4))
    assert "(5, 5)" in str(ei.value) and "(4,)" in str(ei.value)
    with pytest.raises(ValueError) as ei:
        solve_cg(A, np.ones((5, 2)))
    assert "(5, 2)" in str(ei.value)
    with pytest.raises(ValueError) as ei:
        solve_cg(np.ones((5, 4)), np.ones(5))
    assert "(5, 4)" in str(ei.value)


def test_options_are_keyword_only():
    A = _spd(5, seed=18)
    b = np.ones(5)
    with pytest.raises(TypeError):
        solve_cg(A, b, None, 5)
    with pytest.raises(TypeError):
        solve_cg(A, b, None, 5, 1e-5)


@pytest.mark.parametrize(
    "name,kwargs",
    [("rtol", {"rtol": -1e-3}), ("atol", {"atol": -1.0}), ("maxiter", {"maxiter": -1})],
)
def test_negative_options_raise_naming_the_option(name, kwargs):
    A = _spd(5, seed=19)
    with pytest.raises(InvalidParameterError, match=f"'{name}'"):
        solve_cg(A, np.ones(5), **kwargs)


def test_rtol_nan_raises():
    A = _spd(5, seed=20)
    with pytest.raises(InvalidParameterError, match="'rtol'"):
        solve_cg(A, np.ones(5), rtol=float("nan"))


def test_maxiter_zero_returns_start():
    A = _spd(5, seed=21)
    x0 = np.arange(5.0)
    res = solve_cg(A, np.ones(5), x0, maxiter=0)
    np.testing.assert_array_equal(res.x, x0)
    assert res.iterations == 0 and res.status == "maxiter"


# --------------------------------------------------------------------------- direct


@pytest.mark.parametrize("method", ["exact", "inverse"])
@pytest.mark.parametrize("sparse", [False, True])
def test_factorization_solves_nonsymmetric_systems(method, sparse):
    rng = np.random.default_rng(22)
    A = rng.normal(size=(25, 25)) + 6 * np.eye(25)
    A[rng.random((25, 25)) < 0.6] = 0.0
    np.fill_diagonal(A, 6.0 + rng.random(25))
    Am = sp.csr_matrix(A) if sparse else A.copy()
    F = Factorization(Am, method)
    for seed in (0, 1):
        b = np.random.default_rng(seed).normal(size=25)
        r = F.solve(b)
        np.testing.assert_allclose(r.x, np.linalg.solve(A, b), rtol=1e-10, atol=1e-12)
        assert r.status == "direct" and r.converged and r.iterations == 0 and r.matvecs == 0
    if not sparse:
        np.testing.assert_array_equal(Am, A)  # not overwritten by LAPACK


def test_factorization_validation_and_empty():
    with pytest.raises(InvalidParameterError, match="method"):
        Factorization(np.eye(3), "cholesky")
    assert Factorization(np.zeros((0, 0))).solve(np.zeros(0)).x.shape == (0,)


@pytest.mark.parametrize("method", ["exact", "inverse"])
def test_linear_solver_counts_direct(method):
    A = _spd(20, seed=23)
    lin = LinearSolver(A, method)
    rng = np.random.default_rng(24)
    for i in range(3):
        b = rng.normal(size=20)
        np.testing.assert_allclose(lin.solve(b), np.linalg.solve(A, b), rtol=1e-8, atol=1e-12)
        assert lin.solves == i + 1
        assert lin.factorizations == 1
        assert lin.matvecs == 0


@pytest.mark.parametrize("method", ["cg", "pcg"])
def test_linear_solver_counts_cg(method):
    A = _spd(30, seed=25)
    op, count = _counting(A)
    rng = np.random.default_rng(26)
    lin = LinearSolver(A, method, cg_iters=7)
    b1, b2 = rng.normal(size=30), rng.normal(size=30)
    x1 = lin.solve(b1)
    x2 = lin.solve(b2, x0=np.ones(30))
    assert lin.solves == 2 and lin.factorizations == 0
    assert lin.matvecs == 7 + 8
    # the same 7-iteration answer as an independent SciPy run
    M = _diag_inv_operator(A) if method == "pcg" else None
    ref1, _ = spla.cg(A, b1, maxiter=7, rtol=0.0, atol=0.0, M=M)
    ref2, _ = spla.cg(A, b2, x0=np.ones(30), maxiter=7, rtol=0.0, atol=0.0, M=M)
    np.testing.assert_allclose(x1, ref1, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(x2, ref2, rtol=1e-10, atol=1e-12)
    # with a budget large enough it solves the system
    big = LinearSolver(A, method, cg_iters=2000)
    np.testing.assert_allclose(big.solve(b1), np.linalg.solve(A, b1), rtol=1e-8, atol=1e-10)
    del op, count


def test_linear_solver_validation():
    with pytest.raises(InvalidParameterError, match="solver"):
        LinearSolver(np.eye(3), "gmres")
    with pytest.raises(InvalidParameterError, match="cg_iters"):
        LinearSolver(np.eye(3), "cg", cg_iters=0)
    with pytest.raises(TypeError):
        LinearSolver(np.eye(3), "cg", 5)
    lin = LinearSolver(np.zeros((0, 0)), "pcg")
    assert lin.solve(np.zeros(0)).shape == (0,)


# ------------------------------------------------- many systems sharing one sparsity pattern


def _shared_pattern_systems(m=6, n=25, seed=4):
    """m SPD matrices with one CSR pattern (random weights on a fixed graph Laplacian
    plus a grounded diagonal), their stored values as columns, and right-hand sides."""
    rng = np.random.default_rng(seed)
    G = sp.random(n, n, density=0.15, random_state=seed)
    G = ((G + G.T) > 0).astype(float).tocsr()
    G.setdiag(0.0)
    G.eliminate_zeros()
    mats = []
    for _ in range(m):
        Wj = G.copy()
        Wj.data = rng.uniform(0.1, 1.1, Wj.nnz)
        Wj = ((Wj + Wj.T) / 2).tocsr()
        shift = rng.uniform(0.05, 1.0, n)
        mats.append(sp.csr_matrix(sp.diags(np.asarray(Wj.sum(axis=1)).ravel() + shift) - Wj))
    for A in mats:
        A.sort_indices()
        assert np.array_equal(A.indices, mats[0].indices)  # one pattern for all
    indptr, indices = mats[0].indptr, mats[0].indices
    values = np.column_stack([A.data for A in mats])
    B = rng.normal(size=(n, m))
    return mats, indptr, indices, values, B


@functools.cache
def _csr_loop():
    """:func:`sslviz._kernels.cg_csr` called from compiled code, as the harmonic batches
    call it (they never call it from Python)."""
    import numba

    _kernels._compile_all()
    loop = _kernels.cg_csr

    @numba.njit
    def run(ptr, idx, values, B, t, diag_inv, precondition, trace):
        return loop(ptr, idx, values, B, t, diag_inv, precondition, trace)

    return run


def _cg_csr(indptr, indices, values, B, t, diag_inv=None):
    """:func:`sslviz._kernels.cg_csr` (no trace) on the shared pattern (unsigned indices, as
    the harmonic batches pass them)."""
    ptr, idx = (np.asarray(a).astype(np.uint64) for a in (indptr, indices))
    pre = diag_inv is not None
    d = np.ascontiguousarray(diag_inv) if pre else np.zeros((0, 0))
    values = np.ascontiguousarray(values)
    return _csr_loop()(ptr, idx, values, np.ascontiguousarray(B), t, d, pre, _kernels.NO_TRACE)


@pytest.mark.parametrize("precondition", [False, True])
@pytest.mark.parametrize("t", [1, 7, 20])
def test_csr_kernel_matches_solve_cg_column_by_column(precondition, t):
    """Column j of the CSR kernel is :func:`solve_cg` on A_j (dot products in index order
    there, by BLAS here: to rounding)."""
    mats, indptr, indices, values, B = _shared_pattern_systems()
    diag_inv = np.column_stack([1.0 / A.diagonal() for A in mats]) if precondition else None
    X, mv = _cg_csr(indptr, indices, values, B, t, diag_inv)
    for j, A in enumerate(mats):
        ref = solve_cg(A, B[:, j], maxiter=t, rtol=0.0, M=jacobi(A) if precondition else None)
        np.testing.assert_allclose(X[:, j], ref.x, rtol=1e-12, atol=1e-14)
        assert mv[j] == ref.matvecs


@pytest.mark.dispatch
def test_csr_kernel_each_system_independent_of_the_batch():
    """A system's result is bit-for-bit the same alone or among others (the paper-mode
    sweep depends on this: a node's iterates must not depend on who shares its solve)."""
    mats, indptr, indices, values, B = _shared_pattern_systems(m=9)
    X, _ = _cg_csr(indptr, indices, values, B, 20)
    for j in (0, 4, 8):
        Xj, _ = _cg_csr(indptr, indices, values[:, j : j + 1], B[:, j : j + 1].copy(), 20)
        assert np.array_equal(Xj[:, 0], X[:, j])
    X2, _ = _cg_csr(indptr, indices, values[:, 3:7], B[:, 3:7].copy(), 20)
    assert np.array_equal(X2, X[:, 3:7])


def test_csr_kernel_zero_rhs_and_early_convergence():
    mats, indptr, indices, values, B = _shared_pattern_systems(m=3, n=12)
    B[:, 1] = 0.0
    X, mv = _cg_csr(indptr, indices, values, B, 200)  # n = 12: exact long before 200
    assert np.all(X[:, 1] == 0.0) and mv[1] == 0
    for j in (0, 2):
        np.testing.assert_allclose(mats[j] @ X[:, j], B[:, j], rtol=1e-9, atol=1e-12)
        assert mv[j] < 200  # stopped once the residual collapsed to rounding noise


@pytest.mark.dispatch
@pytest.mark.parametrize("precondition", [False, True])
def test_compiled_dense_cg_is_the_numpy_loop(precondition):
    """A dense system runs compiled (:func:`sslviz._kernels.cg_dense`): the bits, counts,
    residual and status of :func:`solve_cg`'s loop in NumPy, from zero and from x0, to a
    fixed t and to a tolerance, with the iterates a callback sees; the loop in NumPy runs
    for any other operator (a LinearOperator here) with the same bits again."""
    rng = np.random.default_rng(7)
    for _ in range(25):
        n = int(rng.integers(2, 120))
        X = rng.random((n, n))
        A = X @ X.T + np.diag(rng.random(n) * n)
        b = rng.random(n)
        M = jacobi(A) if precondition else None
        for x0, maxiter, rtol in ((None, 7, 0.0), (None, 60, 0.0), (rng.random(n), 60, 1e-6)):
            got, want, via_operator = [], [], []

            def copies(out):
                return lambda v: out.append(v.copy())

            res = solve_cg(A, b, x0, maxiter=maxiter, rtol=rtol, M=M, callback=got.append)
            start = None if x0 is None else x0.copy()
            ref = _solve_cg_numpy(A, b, start, maxiter, rtol, 0.0, M, copies(want))
            op = spla.aslinearoperator(A)
            other = solve_cg(
                op, b, x0, maxiter=maxiter, rtol=rtol, M=M, callback=copies(via_operator)
            )
            for r in (ref, other):
                assert np.linalg.norm(res.x - r.x) <= RTOL_ITERATE * np.linalg.norm(r.x)
                counts = (res.iterations, res.matvecs, res.status)
                assert counts == (r.iterations, r.matvecs, r.status)
            assert len(got) == len(want) == len(via_operator) == res.iterations
            for iterates in (want, via_operator):
                for g, w in zip(got, iterates, strict=True):
                    assert np.linalg.norm(g - w) <= RTOL_ITERATE * np.linalg.norm(w)
