"""Condition numbers and CG behaviour across σ (docs/method.md §7) against dense eigenvalue
computations and SciPy's CG, written independently here."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from reference import cut_off_model
from reference import instance as _instance
from reference import weights as _weights

from sslviz import export
from sslviz._validation import InvalidParameterError
from sslviz.conditioning import condition_curve, extreme_eigenvalues, trust_curve
from sslviz.problem import make_model
from sslviz.specs import GraphSpec, LabelingSpec


def _harmonic_blocks(X, labeled, y, sigma, family, k):
    W = _weights(X, sigma, family, k)
    U, L = np.flatnonzero(~labeled), np.flatnonzero(labeled)
    Lap = np.diag(W.sum(1)) - W
    P = W / W.sum(1, keepdims=True)
    return (
        Lap[np.ix_(U, U)],
        W[np.ix_(U, L)] @ y[L].astype(float),
        np.eye(U.size) - P[np.ix_(U, U)],
        W,
    )


# --------------------------------------------------------------------------- κ


@pytest.mark.parametrize("family", ["complete", "knn"])
def test_kappa_is_eigenvalue_ratio_of_I_minus_P_UU(family):
    X, labeled, y = _instance(1)
    k = 6
    sigmas = np.array([0.3, 0.7, 1.5, 4.0])
    model = make_model(X, labeled, y, GraphSpec(family, k))
    curve = condition_curve(model, sigmas)
    np.testing.assert_array_equal(curve.sigma, sigmas)
    for i, s in enumerate(sigmas):
        _, _, IP, _ = _harmonic_blocks(X, labeled, y, s, family, k)
        ev = np.linalg.eigvals(IP)
        assert np.abs(ev.imag).max() < 1e-8  # similar to a symmetric matrix: real spectrum
        ev = np.sort(ev.real)
        np.testing.assert_allclose(curve.lambda_min[i], ev[0], rtol=1e-7)
        np.testing.assert_allclose(curve.lambda_max[i], ev[-1], rtol=1e-9)
        np.testing.assert_allclose(curve.kappa[i], ev[-1] / ev[0], rtol=1e-7)
        assert curve.degenerate[i] == 0
    assert np.all(curve.kappa >= 1.0)
    d = export.to_dict(curve)
    np.testing.assert_allclose(d["sqrt_kappa"], np.sqrt(curve.kappa))
    assert d["solver"] == "cg" and d["cg_iters"] == 20


@pytest.mark.parametrize("family", ["complete", "knn"])
def test_system_matrix_is_symmetrically_scaled_laplacian(family):
    X, labeled, y = _instance(2)
    model = make_model(X, labeled, y, GraphSpec(family, 5))
    for s in (0.4, 1.0, 3.0):
        LUU, _, IP, W = _harmonic_blocks(X, labeled, y, s, family, 5)
        dU = W.sum(1)[~labeled]
        S_ref = LUU / np.sqrt(np.outer(dU, dU))
        S, deg = model.system(s)
        assert not deg.any()
        S = S.toarray() if sp.issparse(S) else S
        np.testing.assert_allclose(S, S_ref, rtol=1e-10, atol=1e-13)
        np.testing.assert_allclose(S, S.T, atol=1e-15)
        np.testing.assert_allclose(
            np.linalg.eigvalsh(S_ref), np.sort(np.linalg.eigvals(IP).real), rtol=1e-8, atol=1e-12
        )


@pytest.mark.parametrize("family", ["complete", "knn"])
def test_laplacian_system_is_equation_1_unscaled(family):
    """The system CG runs on: L_UU f_U = W_UL y_L, eq. (1), from dense weights."""
    X, labeled, y = _instance(2, n=500 if family == "knn" else 40)  # > 400: sparse blocks
    model = make_model(X, labeled, y, GraphSpec(family, 5))
    for s in (0.4, 1.0, 3.0):
        LUU_ref, b_ref, _, _ = _harmonic_blocks(X, labeled, y, s, family, 5)
        LUU, b = model.laplacian_system(s)
        assert sp.issparse(LUU) == (family == "knn")
        LUU = LUU.toarray() if sp.issparse(LUU) else LUU
        np.testing.assert_allclose(LUU, LUU_ref, rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(b, b_ref, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("family", ["complete", "knn"])
def test_delalleau_kappa_of_A(family):
    X, labeled, y = _instance(3, n=60)
    lam, k = 1.4, 5
    spec = LabelingSpec("delalleau", subset=20, lam=lam, seed=3)
    model = make_model(X, labeled, y, GraphSpec(family, k), spec)
    nodes = model.nodes
    n_l = int(labeled.sum())
    sigmas = [0.5, 1.0, 2.5]
    curve = condition_curve(model, sigmas)
    for i, s in enumerate(sigmas):
        W = _weights(X[nodes], s, family, k)
        A = lam * np.diag((np.arange(nodes.size) < n_l).astype(float)) + np.diag(W.sum(1)) - W
        ev = np.linalg.eigvalsh(A)
        np.testing.assert_allclose(curve.lambda_min[i], ev[0], rtol=1e-9)
        np.testing.assert_allclose(curve.lambda_max[i], ev[-1], rtol=1e-12)
        np.testing.assert_allclose(curve.kappa[i], ev[-1] / ev[0], rtol=1e-9)


@pytest.mark.parametrize("family", ["complete", "knn"])
def test_arpack_path_agrees_with_dense(family):
    X, labeled, y = _instance(4, n=160, n_lab=5)
    model = make_model(X, labeled, y, GraphSpec(family, 8))
    for s in (0.5, 1.5):
        S, _ = model.system(s)
        Sd = S.toarray() if sp.issparse(S) else S
        ev = np.linalg.eigvalsh(Sd)
        lo, hi = extreme_eigenvalues(S, dense_max=0)
        np.testing.assert_allclose(lo, ev[0], rtol=1e-6)
        np.testing.assert_allclose(hi, ev[-1], rtol=1e-6)
        lo_d, hi_d = extreme_eigenvalues(S)
        np.testing.assert_allclose([lo_d, hi_d], [ev[0], ev[-1]], rtol=1e-12)
    c_sparse = condition_curve(model, [0.5, 1.5], dense_max=0)
    c_dense = condition_curve(model, [0.5, 1.5])
    np.testing.assert_allclose(c_sparse.kappa, c_dense.kappa, rtol=1e-6)


def test_extreme_eigenvalues_random_spd():
    rng = np.random.default_rng(5)
    n = 120
    B = sp.random(n, n, density=0.05, random_state=np.random.RandomState(5))
    A = (B @ B.T + sp.diags(rng.uniform(0.1, 1.0, n))).tocsr()
    ev = np.linalg.eigvalsh(A.toarray())
    lo, hi = extreme_eigenvalues(A, dense_max=0)
    np.testing.assert_allclose([lo, hi], [ev[0], ev[-1]], rtol=1e-6)
    assert extreme_eigenvalues(np.zeros((0, 0))) == (1.0, 1.0)


# --------------------------------------------------------------------------- CG behaviour


def _scipy_iterations(A, b, rtol, M=None):
    count = [0]
    spla.cg(
        A,
        b,
        rtol=rtol,
        atol=0.0,
        maxiter=10 * b.size,
        M=M,
        callback=lambda _: count.__setitem__(0, count[0] + 1),
    )
    return count[0]


@pytest.mark.parametrize("family", ["complete", "knn"])
@pytest.mark.parametrize("solver", ["cg", "pcg"])
def test_iterations_needed_and_cg_error(family, solver):
    X, labeled, y = _instance(6, n=60)
    k = 6
    sigmas = np.array([0.4, 1.0, 2.5])
    model = make_model(X, labeled, y, GraphSpec(family, k))
    m = int((~labeled).sum())
    for t in (1, 5, 20):
        curve = condition_curve(model, sigmas, solver=solver, cg_iters=t, rtol=1e-6)
        assert np.all(curve.iterations_needed >= 1)
        assert np.all(curve.iterations_needed <= 10 * m)
        np.testing.assert_array_equal(curve.iteration_cap, 10 * m)  # no node cut off here
        # not reached: stopped at the cap (a lower bound); below the cap: reached
        assert np.all(curve.reached | (curve.iterations_needed == curve.iteration_cap))
        assert np.all(curve.reached[curve.iterations_needed < curve.iteration_cap])
        for i, s in enumerate(sigmas):
            LUU, b, _, _ = _harmonic_blocks(X, labeled, y, s, family, k)
            inv = 1.0 / np.diag(LUU)
            M = (
                spla.LinearOperator(LUU.shape, matvec=lambda v, w=inv: w * np.ravel(v))
                if solver == "pcg"
                else None
            )
            assert abs(curve.iterations_needed[i] - _scipy_iterations(LUU, b, 1e-6, M)) <= 1
            fstar = np.linalg.solve(LUU, b)
            ft, _ = spla.cg(LUU, b, maxiter=t, rtol=0.0, atol=0.0, M=M)
            ref = np.abs(ft - fstar).max()
            np.testing.assert_allclose(curve.cg_error[i], ref, rtol=1e-6, atol=1e-13)


@pytest.mark.parametrize("solver", ["cg", "pcg"])
def test_cg_error_shrinks_with_cg_iters(solver):
    X, labeled, y = _instance(7, n=60)
    model = make_model(X, labeled, y, GraphSpec("knn", 6))
    sig = [0.5, 1.0, 2.0]
    errs = np.array(
        [condition_curve(model, sig, solver=solver, cg_iters=t).cg_error for t in (1, 5, 20, 100)]
    )
    assert np.all(errs[-1] < 1e-8)
    assert np.all(errs[2] < errs[0]) and np.all(errs[1] < errs[0])
    assert np.all(errs[3] <= errs[2])


def test_degenerate_nodes_excluded_from_kappa():
    model, X, labeled = cut_off_model()
    sigmas = [0.5, 1.0]
    curve = condition_curve(model, sigmas)
    np.testing.assert_array_equal(curve.degenerate, [12, 12])
    for i, s in enumerate(sigmas):
        W = _weights(X, s, "knn", 4)
        K = np.flatnonzero(~labeled)[:16]  # cluster A's unlabeled nodes
        P = W / W.sum(1, keepdims=True)
        ev = np.sort(np.linalg.eigvals(np.eye(K.size) - P[np.ix_(K, K)]).real)
        np.testing.assert_allclose(curve.kappa[i], ev[-1] / ev[0], rtol=1e-7)
    assert np.isfinite(curve.kappa).all() and np.isfinite(curve.cg_error).all()


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize("bad", [[], [0.0], [-1.0], [1.0, np.nan], [np.inf], [1.0, -2.0]])
def test_bad_sigmas_raise(bad):
    X, labeled, y = _instance(9, n=20)
    model = make_model(X, labeled, y, GraphSpec("knn", 4))
    with pytest.raises(ValueError, match="sigmas"):
        condition_curve(model, bad)


def test_bad_options_raise():
    X, labeled, y = _instance(10, n=20)
    model = make_model(X, labeled, y, GraphSpec("knn", 4))
    with pytest.raises(InvalidParameterError, match="solver"):
        condition_curve(model, [1.0], solver="exact")
    with pytest.raises(InvalidParameterError, match="cg_iters"):
        condition_curve(model, [1.0], cg_iters=0)
    with pytest.raises(InvalidParameterError, match="rtol"):
        condition_curve(model, [1.0], rtol=0.0)
    with pytest.raises(TypeError):
        condition_curve(model, [1.0], "cg")


def _monotone_in_unit(calls: list) -> None:
    fractions = [f for f, _ in calls]
    assert fractions and all(0.0 <= f <= 1.0 for f in fractions)
    assert all(a <= b for a, b in zip(fractions, fractions[1:], strict=False))
    assert fractions[-1] == 1.0 and all(isinstance(m, str) for _, m in calls)


def test_progress_is_monotone_and_changes_no_number():
    """condition_curve: one call per σ ("σ 3 of 5"); trust_curve: solves, then the t
    searches of CG and PCG. Fractions in [0, 1], non-decreasing, ending at 1."""
    from sslviz.problem import build_problem
    from sslviz.specs import ProblemSpec

    p = build_problem(ProblemSpec(n=40, n_labeled=6, classes=(3, 8), family="complete"))
    grid = np.linspace(0.8, 3.0, 5)
    calls = []
    a = condition_curve(p.model, grid, cg_iters=5, progress=lambda f, m: calls.append((f, m)))
    _monotone_in_unit(calls)
    assert len(calls) == 5 and calls[2][1] == "σ 3 of 5"
    b = condition_curve(p.model, grid, cg_iters=5)
    for name in ("kappa", "iterations_needed", "cg_error", "degenerate"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    calls = []
    a = trust_curve(p.model, grid, cg_iters=5, t_max=64, progress=lambda f, m: calls.append((f, m)))
    _monotone_in_unit(calls)
    assert any(m.startswith("t needed, PCG") for _, m in calls)
    assert "exact soft labels: σ 0 of 5" in [m for _, m in calls]
    # a long doubling step says which t it is trying (at 12,000 points one takes seconds)
    assert any(m.startswith("t needed, CG: σ 0 of 5 (trying t = 1 at 5 σ)") for _, m in calls)
    b = trust_curve(p.model, grid, cg_iters=5, t_max=64)
    for name in ("error", "margin", "wrong", "t_needed_cg", "t_needed_pcg"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    with pytest.raises(TypeError, match="progress"):
        condition_curve(p.model, grid, progress=3)
