"""Harmonic and Delalleau soft labels and σ-derivatives (docs/method.md §3) against dense closed
forms, finite differences and scikit-learn, all written independently in this file."""

import warnings

import numpy as np
import pytest
from reference import instance as _instance
from reference import mask as _mask
from reference import sqdist as _sqdist
from reference import weights as _weights
from scipy.special import logsumexp

from sslviz._validation import InvalidParameterError
from sslviz.delalleau import DelalleauModel
from sslviz.graphs import build_graph
from sslviz.labeling import HarmonicModel
from sslviz.problem import make_model
from sslviz.specs import GraphSpec, LabelingSpec

# --------------------------------------------------------------------------- helpers


def _reaches(P, targets):
    """Nodes with a directed path i → … → target along P[i, j] > 0 (BFS, written here)."""
    n = P.shape[0]
    ok = np.zeros(n, bool)
    ok[targets] = True
    frontier = list(np.flatnonzero(ok))
    while frontier:
        j = frontier.pop()
        for i in np.flatnonzero(P[:, j] > 0):
            if not ok[i]:
                ok[i] = True
                frontier.append(i)
    return ok


def _harmonic_from_P(P, labeled, y):
    """(I − P_KK)⁻¹ (P_KL y_L + ½ P_K,Z 1) with Z the nodes that cannot reach L (f_Z = ½)."""
    U, L = np.flatnonzero(~labeled), np.flatnonzero(labeled)
    anch = _reaches(P, L)[U]
    K, Z = U[anch], U[~anch]
    f = np.full(U.size, 0.5)
    if K.size:
        M = np.eye(K.size) - P[np.ix_(K, K)]
        rhs = P[np.ix_(K, L)] @ y[L].astype(float) + 0.5 * P[np.ix_(K, Z)].sum(1)
        f[anch] = np.linalg.solve(M, rhs)
    return f, ~anch


def _harmonic_ref(W, labeled, y):
    s = W.sum(1, keepdims=True)
    P = np.divide(W, s, out=np.zeros_like(W), where=s > 0)
    return _harmonic_from_P(P, labeled, y)


def _relerr(a, b):
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


def _fd(model, sigma, rel_h=1e-5):
    h = rel_h * sigma
    fp = model.soft_labels(sigma + h, solver="exact", derivative=False).f
    fm = model.soft_labels(sigma - h, solver="exact", derivative=False).f
    return (fp - fm) / (2 * h)


# --------------------------------------------------------------------------- harmonic


@pytest.mark.parametrize("family", ["complete", "knn", "mutual-knn"])
@pytest.mark.parametrize("sigma", [0.4, 1.0, 3.0])
@pytest.mark.parametrize("solver", ["exact", "inverse"])
def test_harmonic_matches_dense_closed_form(family, sigma, solver):
    X, labeled, y = _instance(1)
    k = 4
    model = make_model(X, labeled, y, GraphSpec(family, k), LabelingSpec("harmonic"))
    assert isinstance(model, HarmonicModel)
    out = model.soft_labels(sigma, solver=solver, derivative=False)
    ref, deg = _harmonic_ref(_weights(X, sigma, family, k), labeled, y)
    np.testing.assert_array_equal(out.degenerate, deg)
    np.testing.assert_allclose(out.f, ref, rtol=0, atol=1e-10)
    np.testing.assert_array_equal(model.unlabeled_idx, np.flatnonzero(~labeled))
    assert out.df is None and out.status == "ok"


@pytest.mark.parametrize("k", [3, 6])
def test_threshold_family_matches_dense_closed_form(k):
    X, labeled, y = _instance(2)
    model = make_model(X, labeled, y, GraphSpec("threshold", k))
    d2 = _sqdist(X)
    mask = _mask(d2, "mutual-knn", k)
    d = np.sqrt(d2)
    lengths = np.unique(d[np.triu(mask)])
    radii = [*(0.5 * (lengths[:-1] + lengths[1:]))[:: max(1, lengths.size // 6)], 2 * lengths[-1]]
    for r in radii:
        out = model.soft_labels_at_radius(r)
        ref, deg = _harmonic_ref((mask & (d <= r)).astype(float), labeled, y)
        np.testing.assert_array_equal(out.degenerate, deg)
        np.testing.assert_allclose(out.f, ref, rtol=0, atol=1e-10)
        assert np.isfinite(out.f).all()


def test_harmonic_equals_sklearn_label_propagation_complete_graph():
    from sklearn.semi_supervised import LabelPropagation

    X, labeled, y = _instance(3, n=40)
    sigma = 0.8
    model = make_model(X, labeled, y, GraphSpec("complete"))
    f = model.soft_labels(sigma, solver="exact", derivative=False).f
    lp = LabelPropagation(kernel="rbf", gamma=1.0 / sigma**2, max_iter=100000, tol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a ConvergenceWarning would fail the test
        lp.fit(X, np.where(labeled, y, -1))
    assert lp.n_iter_ < 100000
    np.testing.assert_array_equal(lp.classes_, [0, 1])
    U = np.flatnonzero(~labeled)
    np.testing.assert_allclose(lp.label_distributions_[U, 1], f, rtol=0, atol=1e-6)
    # sklearn keeps the self-loop w_ii = 1; with clamping the fixed point is the same:
    # f_u = Σ_j P_uj f_j (j = u included) ⇔ (1 − P_uu) f_u = Σ_{j≠u} P_uj f_j.
    d2 = _sqdist(X)
    W1 = np.exp(-d2 / sigma**2)  # diagonal 1
    P1 = W1 / W1.sum(1, keepdims=True)
    L = np.flatnonzero(labeled)
    f_loop = np.linalg.solve(np.eye(U.size) - P1[np.ix_(U, U)], P1[np.ix_(U, L)] @ y[L])
    np.testing.assert_allclose(f_loop, f, rtol=0, atol=1e-12)


def _harmonic_derivative_ref(X, labeled, y, sigma, family, k):
    """f'_U = L_UU⁻¹ (W'_UL y_L − L'_UU f_U), dense (eq. (2))."""
    d2 = _sqdist(X)
    mask = _mask(d2, family, k)
    W = np.where(mask, np.exp(-d2 / sigma**2), 0.0)
    dW = np.where(mask, 2 * W * d2 / sigma**3, 0.0)
    U, L = np.flatnonzero(~labeled), np.flatnonzero(labeled)
    Lap = np.diag(W.sum(1)) - W
    dLap = np.diag(dW.sum(1)) - dW
    f = np.linalg.solve(Lap[np.ix_(U, U)], W[np.ix_(U, L)] @ y[L])
    df = np.linalg.solve(Lap[np.ix_(U, U)], dW[np.ix_(U, L)] @ y[L] - dLap[np.ix_(U, U)] @ f)
    return f, df


@pytest.mark.parametrize("family", ["complete", "knn"])
@pytest.mark.parametrize("sigma", [1.0, 2.0, 4.0])
@pytest.mark.parametrize("solver", ["exact", "inverse"])
def test_harmonic_derivative_vs_finite_differences(family, sigma, solver):
    X, labeled, y = _instance(4)
    model = make_model(X, labeled, y, GraphSpec(family, 6))
    out = model.soft_labels(sigma, solver=solver)
    assert not out.degenerate.any()
    fd = _fd(model, sigma)
    assert _relerr(out.df, fd) < 1e-5
    f_ref, df_ref = _harmonic_derivative_ref(X, labeled, y, sigma, family, 6)
    np.testing.assert_allclose(out.f, f_ref, rtol=0, atol=1e-10)
    assert _relerr(out.df, df_ref) < 1e-9


@pytest.mark.parametrize("solver", ["cg", "pcg"])
@pytest.mark.parametrize("family", ["complete", "knn"])
def test_harmonic_derivative_cg_converged_vs_finite_differences(solver, family):
    X, labeled, y = _instance(5)
    model = make_model(X, labeled, y, GraphSpec(family, 6))
    for sigma in (1.0, 2.0):
        out = model.soft_labels(sigma, solver=solver, cg_iters=500)
        assert _relerr(out.df, _fd(model, sigma)) < 1e-5


# --------------------------------------------------------------------------- Delalleau


def _delalleau_ref(X, labeled, y, nodes, sigma, family, k, lam):
    """Dense A f = λy on S = nodes, A f' = −A' f, and the extension (both signs)."""
    n_l = int(labeled.sum())
    XS = X[nodes]
    d2 = _sqdist(XS)
    mask = _mask(d2, family, k)
    W = np.where(mask, np.exp(-d2 / sigma**2), 0.0)
    dW = np.where(mask, 2 * W * d2 / sigma**3, 0.0)
    is_l = np.arange(nodes.size) < n_l
    A = lam * np.diag(is_l.astype(float)) + np.diag(W.sum(1)) - W
    dA = np.diag(dW.sum(1)) - dW
    ys = np.where(is_l, y[nodes], 0.0).astype(float)
    anch = _reaches(W, np.flatnonzero(is_l))
    f = np.full(nodes.size, 0.5)
    df = np.zeros(nodes.size)
    K = np.flatnonzero(anch)
    f[K] = np.linalg.solve(A[np.ix_(K, K)], lam * ys[K])
    df[K] = np.linalg.solve(A[np.ix_(K, K)], -(dA @ f)[K])
    # extension from S to every unlabeled node (itself excluded; kNN: its k nearest in S)
    U = np.flatnonzero(~labeled)
    E = np.zeros((U.size, nodes.size))
    DE = _sqdist(np.vstack([X[U], XS]))[: U.size, U.size :]
    for a, u in enumerate(U):
        cand = np.flatnonzero(nodes != u)
        if family != "complete":
            cand = cand[np.argsort(DE[a, cand], kind="stable")[:k]]
        E[a, cand] = np.exp(-DE[a, cand] / sigma**2)
    dE = 2 * E * DE / sigma**3
    s = E.sum(1)
    ft = E @ f / s
    minus = (dE @ f + E @ df - ft * dE.sum(1)) / s
    plus = (dE @ f + E @ df + ft * dE.sum(1)) / s
    return f, df, ft, minus, plus, ~anch


def _delalleau_instance(seed=6):
    X, labeled, y = _instance(seed, n=60)
    return X, labeled, y, LabelingSpec("delalleau", subset=20, lam=1.4, seed=seed)


@pytest.mark.parametrize("family", ["complete", "knn", "mutual-knn"])
@pytest.mark.parametrize("sigma", [0.5, 1.0, 3.0])
def test_delalleau_matches_dense_closed_form(family, sigma):
    X, labeled, y, spec = _delalleau_instance()
    model = make_model(X, labeled, y, GraphSpec(family, 5), spec)
    assert isinstance(model, DelalleauModel)
    # the subset: L first, then 20 distinct unlabeled nodes
    L = np.flatnonzero(labeled)
    np.testing.assert_array_equal(model.nodes[: L.size], L)
    sub = model.nodes[L.size :]
    assert sub.size == 20 and np.unique(sub).size == 20 and not labeled[sub].any()
    out = model.soft_labels(sigma, solver="exact")
    f, df, ft, minus, _, deg_s = _delalleau_ref(X, labeled, y, model.nodes, sigma, family, 5, 1.4)
    np.testing.assert_allclose(out.subset_f, f, rtol=0, atol=1e-10)
    np.testing.assert_allclose(out.f, ft, rtol=0, atol=1e-10)
    assert _relerr(out.df, minus) < 1e-9
    assert not out.degenerate.any() or deg_s.any()
    assert np.isfinite(out.f).all() and np.isfinite(out.df).all()


@pytest.mark.parametrize("family", ["complete", "knn"])
@pytest.mark.parametrize("sigma", [1.0, 2.0, 4.0])
def test_delalleau_derivative_minus_sign_vs_finite_differences(family, sigma):
    X, labeled, y, spec = _delalleau_instance(7)
    model = make_model(X, labeled, y, GraphSpec(family, 5), spec)
    out = model.soft_labels(sigma, solver="exact")
    fd = _fd(model, sigma)
    assert _relerr(out.df, fd) < 1e-5
    _, _, _, minus, plus, _ = _delalleau_ref(X, labeled, y, model.nodes, sigma, family, 5, 1.4)
    assert _relerr(minus, fd) < 1e-5
    # the paper's printed "+ f̃ Σ ∂W" is a typo: it does not match the finite differences
    assert _relerr(plus, fd) > 1e-2
    # the subset derivative too
    fS = []
    h = 1e-5 * sigma
    for s in (sigma + h, sigma - h):
        sl = model.soft_labels(s, solver="exact", derivative=False)
        assert sl.subset_df is None
        fS.append(sl.subset_f)
    assert _relerr(out.subset_df, (fS[0] - fS[1]) / (2 * h)) < 1e-5


@pytest.mark.parametrize("solver", ["inverse", "cg", "pcg"])
def test_delalleau_solvers_agree_with_exact(solver):
    X, labeled, y, spec = _delalleau_instance(8)
    model = make_model(X, labeled, y, GraphSpec("knn", 5), spec)
    ex = model.soft_labels(1.0, solver="exact")
    other = model.soft_labels(1.0, solver=solver, cg_iters=500)
    np.testing.assert_allclose(other.f, ex.f, rtol=0, atol=1e-8)
    np.testing.assert_allclose(other.df, ex.df, rtol=0, atol=1e-8)


def test_delalleau_validation():
    X, labeled, y = _instance(9, n=30)
    n_u = int((~labeled).sum())
    with pytest.raises(InvalidParameterError, match="delalleau"):
        make_model(X, labeled, y, GraphSpec("threshold", 3), LabelingSpec("delalleau", 5))
    with pytest.raises(InvalidParameterError, match="subset"):
        make_model(X, labeled, y, GraphSpec("knn", 3), LabelingSpec("delalleau", n_u + 1))
    with pytest.raises(InvalidParameterError, match="'k'"):
        make_model(X, labeled, y, GraphSpec("knn", 10), LabelingSpec("delalleau", 3))


# --------------------------------------------------------------------------- degenerate


def _two_clusters(seed=10):
    """Cluster A (20 points, both classes labeled) and cluster B (12 points, none labeled)
    far apart: a kNN graph (k < 12) has no edge between them."""
    rng = np.random.default_rng(seed)
    XA = 0.4 * rng.normal(size=(20, 4))
    XB = 0.4 * rng.normal(size=(12, 4)) + 50.0
    X = np.vstack([XA, XB])
    y = np.r_[np.arange(20) % 2, np.arange(12) % 2]
    labeled = np.zeros(32, bool)
    labeled[[0, 1, 2, 3]] = True
    return X, labeled, y


@pytest.mark.parametrize("family", ["knn", "mutual-knn"])
@pytest.mark.parametrize("solver", ["exact", "inverse", "cg", "pcg"])
def test_component_without_labels_gets_one_half(family, solver):
    X, labeled, y = _two_clusters()
    model = make_model(X, labeled, y, GraphSpec(family, 4))
    U = np.flatnonzero(~labeled)
    in_b = U >= 20
    for sigma in (0.3, 1.0, 3.0):
        out = model.soft_labels(sigma, solver=solver, cg_iters=300)
        assert np.isfinite(out.f).all() and np.isfinite(out.df).all()
        ref, deg = _harmonic_ref(_weights(X, sigma, family, 4), labeled, y)
        assert deg[in_b].all()
        np.testing.assert_array_equal(out.degenerate, deg)
        assert np.all(out.f[in_b] == 0.5)
        assert np.all(out.df[in_b] == 0.0)
        np.testing.assert_allclose(out.f, ref, rtol=0, atol=1e-8)
        fd = _fd(model, sigma)
        assert np.all(fd[in_b] == 0.0)
        np.testing.assert_allclose(out.df, fd, rtol=0, atol=1e-5 * np.abs(fd).max())


def test_unanchored_dense_and_sparse_agree_with_brute_force():
    """The nodes that cannot reach a labeled node: small blocks (dense or CSR) grow the
    reached set edge by edge, larger ones run SciPy's BFS; each equals a brute-force
    transitive closure on random directed graphs (isolated nodes, no anchors, all anchors,
    one-way edges, stored zeros)."""
    import scipy.sparse as sp

    from sslviz.systems import DENSE_MAX, unanchored

    rng = np.random.default_rng(0)
    sizes = [*rng.integers(1, 40, 400), *rng.integers(DENSE_MAX + 1, DENSE_MAX + 60, 6)]
    for m in map(int, sizes):
        W = (rng.random((m, m)) < min(0.15, 4 / m) * rng.random()) * rng.random((m, m))
        np.fill_diagonal(W, 0.0)
        anchor = rng.random(m) < 0.4 * rng.random()
        R = (W > 0) | np.eye(m, dtype=bool)  # reach in any number of steps
        while True:  # squaring: paths up to twice as long each time
            grown = R | ((R.astype(np.float32) @ R.astype(np.float32)) > 0)
            if np.array_equal(grown, R):
                break
            R = grown
        want = ~(R[:, anchor].any(axis=1))
        stored_zeros = sp.csr_matrix(W)
        stored_zeros.data[::5] = 0.0  # an edge of weight 0 (an underflow) is no edge
        assert np.array_equal(
            unanchored(stored_zeros, anchor), unanchored(stored_zeros.toarray(), anchor)
        )
        np.testing.assert_array_equal(unanchored(W, anchor), want)
        np.testing.assert_array_equal(unanchored(sp.csr_matrix(W), anchor), want)


def test_component_without_labels_threshold_and_complete():
    X, labeled, y = _two_clusters()
    m = make_model(X, labeled, y, GraphSpec("threshold", 4))
    out = m.soft_labels_at_radius(5.0)
    U = np.flatnonzero(~labeled)
    d2 = _sqdist(X)
    ref, deg = _harmonic_ref((_mask(d2, "mutual-knn", 4) & (d2 <= 25.0)).astype(float), labeled, y)
    assert deg[U >= 20].all()
    np.testing.assert_array_equal(out.degenerate, deg)
    np.testing.assert_allclose(out.f, ref, rtol=0, atol=1e-10)
    assert np.all(out.f[U >= 20] == 0.5) and np.isfinite(out.f).all()
    # the complete graph at σ = 1: exp(-2500) underflows, so cluster B is cut off numerically
    mc = make_model(X, labeled, y, GraphSpec("complete"))
    for solver in ("exact", "cg"):
        oc = mc.soft_labels(1.0, solver=solver, cg_iters=200)
        assert np.isfinite(oc.f).all() and np.isfinite(oc.df).all()
        np.testing.assert_array_equal(oc.degenerate, U >= 20)
        assert np.all(oc.f[U >= 20] == 0.5)


def _gth_solve(P, labeled, y):
    """Subtraction-free (Grassmann–Taksar–Heyman) elimination for the harmonic system
    (I − P_KK) f = P_KL y_L + ½ P_KZ 1: every pivot is a sum of non-negative outflows,
    so nothing cancels however close to 1 a transition probability is."""
    U, L = np.flatnonzero(~labeled), np.flatnonzero(labeled)
    anch = _reaches(P, L)[U]
    K, Z = U[anch], U[~anch]
    N = P[np.ix_(K, K)].copy()
    np.fill_diagonal(N, 0.0)
    leak = P[np.ix_(K, L)].sum(1) + P[np.ix_(K, Z)].sum(1)
    rhs = P[np.ix_(K, L)] @ y[L].astype(float) + 0.5 * P[np.ix_(K, Z)].sum(1)
    m = K.size
    piv = np.zeros(m)
    for p in range(m):
        rest = np.arange(p + 1, m)
        piv[p] = N[p, rest].sum() + leak[p]
        c = N[rest, p] / piv[p]
        N[np.ix_(rest, rest)] += np.outer(c, N[p, rest])
        leak[rest] += c * leak[p]
        rhs[rest] += c * rhs[p]
    f = np.zeros(m)
    for p in range(m - 1, -1, -1):
        f[p] = (rhs[p] + N[p, p + 1 :] @ f[p + 1 :]) / piv[p]
    out = np.full(U.size, 0.5)
    out[anch] = f
    return out, ~anch


def test_gth_reference_agrees_with_dense_solve_at_moderate_sigma():
    X, labeled, y = _instance(11)
    for family in ("complete", "knn"):
        W = _weights(X, 0.5, family, 5)
        P = W / W.sum(1, keepdims=True)
        a, da = _gth_solve(P, labeled, y)
        b, db = _harmonic_from_P(P, labeled, y)
        np.testing.assert_array_equal(da, db)
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)


@pytest.mark.parametrize("family", ["complete", "knn"])
@pytest.mark.parametrize("sigma", [0.003, 0.02, 0.05])
@pytest.mark.parametrize("solver", ["exact", "inverse"])
def test_small_sigma_exact_is_finite_and_matches_subtraction_free_elimination(
    family, sigma, solver
):
    """docs/method.md §4.3: at small σ the direct solvers must neither fail nor return NaN or
    garbage; they agree with a subtraction-free elimination (claimed there to 1e-12)."""
    X, labeled, y = _instance(11)
    k = 5
    d2 = _sqdist(X)
    mask = _mask(d2, family, k)
    model = make_model(X, labeled, y, GraphSpec(family, k))
    # P = D⁻¹W row by row in the log domain (the row sum never underflows)
    logW = np.where(mask, -d2 / sigma**2, -np.inf)
    P = np.exp(logW - logsumexp(logW, axis=1, keepdims=True))
    ref, deg = _gth_solve(P, labeled, y)
    with np.errstate(over="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = model.soft_labels(sigma, solver=solver)
    assert np.isfinite(out.f).all() and np.isfinite(out.df).all()
    assert np.all((out.f >= -1e-12) & (out.f <= 1 + 1e-12))
    np.testing.assert_array_equal(out.degenerate, deg)
    np.testing.assert_allclose(out.f, ref, rtol=0, atol=1e-8)


@pytest.mark.parametrize("family", ["complete", "knn"])
@pytest.mark.parametrize("sigma", [0.003, 0.02, 0.05])
@pytest.mark.parametrize("solver", ["cg", "pcg"])
def test_small_sigma_cg_reports_underflow_and_stays_finite(family, sigma, solver):
    X, labeled, y = _instance(11)
    d2 = _sqdist(X)
    U = np.flatnonzero(~labeled)
    rowsum = np.where(_mask(d2, family, 5), np.exp(-d2 / sigma**2), 0.0).sum(1)[U]
    model = make_model(X, labeled, y, GraphSpec(family, 5))
    with np.errstate(over="ignore"):
        out = model.soft_labels(sigma, solver=solver, cg_iters=50)
    # the unscaled symmetric system cannot represent rows below 1e-290: said, not noise
    assert out.status == ("underflow" if (rowsum < 1e-290).any() else "ok")
    assert out.degenerate[rowsum < 1e-290].all()
    assert np.all(out.f[out.degenerate] == 0.5)
    assert np.isfinite(out.f).all() and np.isfinite(out.df).all()


# --------------------------------------------------------------------------- CG


@pytest.mark.parametrize("family", ["complete", "knn"])
@pytest.mark.parametrize("solver", ["cg", "pcg"])
def test_cg_many_iterations_matches_exact(family, solver):
    X, labeled, y = _instance(12)
    model = make_model(X, labeled, y, GraphSpec(family, 6))
    for sigma in (0.5, 1.0, 3.0):
        ex = model.soft_labels(sigma, solver="exact")
        it = model.soft_labels(sigma, solver=solver, cg_iters=500)
        np.testing.assert_allclose(it.f, ex.f, rtol=0, atol=1e-8)
        np.testing.assert_allclose(it.df, ex.df, rtol=0, atol=1e-8 * max(1, np.abs(ex.df).max()))
        assert it.solves == 2 and it.factorizations == 0 and it.matvecs > 0
        assert ex.solves == 2 and ex.factorizations == 1 and ex.matvecs == 0


@pytest.mark.parametrize("family", ["complete", "knn"])
@pytest.mark.parametrize("solver", ["cg", "pcg"])
def test_cg_error_in_A_norm_is_monotone_in_t(family, solver):
    X, labeled, y = _instance(13, n=80)
    k = 6
    sigma = 0.6
    W = _weights(X, sigma, family, k)
    U, L = np.flatnonzero(~labeled), np.flatnonzero(labeled)
    A = (np.diag(W.sum(1)) - W)[np.ix_(U, U)]
    fstar = np.linalg.solve(A, W[np.ix_(U, L)] @ y[L])
    model = make_model(X, labeled, y, GraphSpec(family, k))
    ts = [1, 2, 3, 5, 10, 20, 50, 100]
    errs = []
    for t in ts:
        out = model.soft_labels(sigma, solver=solver, cg_iters=t, derivative=False)
        assert out.matvecs <= t
        e = out.f - fstar
        errs.append(float(np.sqrt(e @ A @ e)))
    errs = np.array(errs)
    # (P)CG minimises the A-norm error over a growing Krylov space: non-increasing in t
    assert np.all(np.diff(errs) <= 1e-12 * errs[0]), errs
    assert errs[-1] < 1e-6 * errs[0]
    assert errs[ts.index(20)] < errs[ts.index(5)] < errs[0]


def test_inverse_matches_exact():
    X, labeled, y = _instance(14)
    for family in ("complete", "knn", "mutual-knn"):
        model = make_model(X, labeled, y, GraphSpec(family, 5))
        for sigma in (0.3, 1.0, 2.5):
            a = model.soft_labels(sigma, solver="exact")
            b = model.soft_labels(sigma, solver="inverse")
            np.testing.assert_allclose(b.f, a.f, rtol=0, atol=1e-10)
            np.testing.assert_allclose(b.df, a.df, rtol=0, atol=1e-9 * max(1, abs(a.df).max()))
            np.testing.assert_array_equal(b.degenerate, a.degenerate)


def test_warm_start_is_used_and_not_mutated():
    X, labeled, y = _instance(15)
    model = make_model(X, labeled, y, GraphSpec("knn", 6))
    ex = model.soft_labels(1.0, solver="exact")
    x0 = (ex.f.copy(), ex.df.copy())
    keep = (x0[0].copy(), x0[1].copy())
    warm = model.soft_labels(1.0, solver="cg", cg_iters=1, x0=x0)
    cold = model.soft_labels(1.0, solver="cg", cg_iters=1)
    np.testing.assert_array_equal(x0[0], keep[0])
    np.testing.assert_array_equal(x0[1], keep[1])
    assert np.abs(warm.f - ex.f).max() < 1e-8 < np.abs(cold.f - ex.f).max()


# --------------------------------------------------------------------------- inputs


@pytest.mark.parametrize(
    "family,method",
    [
        ("complete", "harmonic"),
        ("knn", "harmonic"),
        ("threshold", "harmonic"),
        ("complete", "delalleau"),
        ("knn", "delalleau"),
    ],
)
def test_inputs_never_mutated(family, method):
    X, labeled, y = _instance(16, n=50)
    X0, l0, y0 = X.copy(), labeled.copy(), y.copy()
    spec = LabelingSpec(method, subset=15)
    model = make_model(X, labeled, y, GraphSpec(family, 4), spec)
    for solver in ("exact", "inverse", "cg", "pcg"):
        if family == "threshold":
            model.soft_labels_at_radius(1.0, solver=solver)
        else:
            model.soft_labels(1.0, solver=solver)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(labeled, l0)
    np.testing.assert_array_equal(y, y0)
    # a prebuilt graph is not changed either
    g = build_graph(X, GraphSpec("knn", 4))
    D0 = g.sqdist.copy()
    make_model(X, labeled, y, g).soft_labels(0.7)
    assert (g.sqdist != D0).nnz == 0


def test_labeling_validation():
    with pytest.raises(InvalidParameterError, match="^labeling must"):
        LabelingSpec("spectral")
    with pytest.raises(InvalidParameterError, match=r"^m = \|Ũ\| must"):
        LabelingSpec("delalleau", subset=0)
    with pytest.raises(InvalidParameterError, match="^λ must"):
        LabelingSpec("delalleau", lam=0.0)
    X, labeled, y = _instance(17, n=20)
    model = make_model(X, labeled, y, GraphSpec("knn", 4))
    for bad in (0.0, -1.0, np.inf, np.nan):
        with pytest.raises(InvalidParameterError, match="sigma"):
            model.soft_labels(bad)
    with pytest.raises(InvalidParameterError, match="solver"):
        model.soft_labels(1.0, solver="lu")


# ------------------------------------------------------------------- many σ in one call


def _cg_reference(X, labeled, y, sigma, family, k, t, precondition):
    """t iterations of SciPy's CG on L_KK f = W_KL y + ½ W_K,Z 1 (K: nodes reaching L,
    Z: the rest, held at ½), and on the derivative system (2) — from dense weights."""
    import scipy.sparse.linalg as spla

    d2 = _sqdist(X)
    M = _mask(d2, family, k)
    W = np.where(M, np.exp(-d2 / sigma**2), 0.0)
    dW = np.where(M, 2 * W * d2 / sigma**3, 0.0)
    U, L = np.flatnonzero(~labeled), np.flatnonzero(labeled)
    anch = _reaches(W / np.maximum(W.sum(1, keepdims=True), 1e-300), L)[U]
    K, Z = U[anch], U[~anch]
    deg = W[K].sum(1)
    A = np.diag(deg) - W[np.ix_(K, K)]
    Minv = spla.LinearOperator(A.shape, matvec=lambda v: v.ravel() / deg) if precondition else None

    def cg(b):
        return spla.cg(A, b, maxiter=t, rtol=0.0, M=Minv)[0]

    f = np.full(U.size, 0.5)
    f[anch] = cg(W[np.ix_(K, L)] @ y[L] + 0.5 * W[np.ix_(K, Z)].sum(1))
    fu = np.zeros(X.shape[0])
    fu[U], fu[L] = f, y[L]
    rhs = dW[K] @ fu - dW[K].sum(1) * f[anch]
    df = np.zeros(U.size)
    df[anch] = cg(rhs)
    return f, df


@pytest.mark.dispatch
@pytest.mark.parametrize("family", ["knn", "mutual-knn"])
@pytest.mark.parametrize("solver", ["cg", "pcg"])
@pytest.mark.parametrize("two_clusters", [False, True])
def test_soft_labels_many_is_soft_labels_at_each_sigma(family, solver, two_clusters):
    """Solving many σ at once gives each σ's soft labels bit for bit, whatever shares the
    batch; σ where weights underflow fall back to the one-σ path; and every value is
    t-iteration CG on the harmonic system (SciPy's CG on dense blocks, written here)."""
    X, labeled, y = _two_clusters() if two_clusters else _instance(13, n=60)
    model = make_model(X, labeled, y, GraphSpec(family, 5))
    assert model.batches(solver) and not model.batches("exact")
    sigmas = [0.01, 0.5, 1.0, 1.7, 3.0, 6.0]
    many = model.soft_labels_many(sigmas, solver=solver, cg_iters=20)
    shuffled = model.soft_labels_many(sigmas[::-1][:4], solver=solver, cg_iters=20)
    for sl, sigma in zip(many, sigmas, strict=True):
        one = model.soft_labels(sigma, solver=solver, cg_iters=20)
        assert sl.sigma == sigma and sl.status == one.status
        for a, b in ((sl.f, one.f), (sl.df, one.df), (sl.degenerate, one.degenerate)):
            assert np.array_equal(a, b)
        assert (sl.solves, sl.matvecs) == (one.solves, one.matvecs)
    for sl, sigma in zip(shuffled, sigmas[::-1][:4], strict=True):
        assert np.array_equal(sl.f, model.soft_labels(sigma, solver=solver, cg_iters=20).f)
    assert many[0].status == "underflow"  # σ = 0.01: rows below 1e-290, solved singly
    for sl, sigma in zip(many[1:], sigmas[1:], strict=True):
        f, df = _cg_reference(X, labeled, y, sigma, family, 5, 20, solver == "pcg")
        np.testing.assert_allclose(sl.f, f, rtol=0, atol=1e-9)
        np.testing.assert_allclose(sl.df, df, rtol=0, atol=1e-9 * max(1.0, np.abs(df).max()))


def test_soft_labels_many_without_batching_and_validation():
    X, labeled, y = _instance(14)
    dense = make_model(X, labeled, y, GraphSpec("complete"))
    assert not dense.batches("cg")  # dense graphs: one σ at a time is faster
    out = dense.soft_labels_many([1.0, 2.0], solver="cg")
    assert np.array_equal(out[1].f, dense.soft_labels(2.0, solver="cg").f)
    knn = make_model(X, labeled, y, GraphSpec("knn", 5))
    ex = knn.soft_labels_many([1.0], solver="exact", derivative=False)[0]
    assert ex.df is None and np.array_equal(ex.f, knn.soft_labels(1.0, derivative=False).f)
    with pytest.raises(InvalidParameterError, match="sigma"):
        knn.soft_labels_many([1.0, -2.0], solver="cg")
    with pytest.raises(InvalidParameterError, match="solver"):
        knn.soft_labels_many([1.0], solver="lu")
    assert knn.soft_labels_many([], solver="cg") == []


# ------------------------------------------------------- one model shared between threads


def _attributes(model) -> dict:
    return {name: id(value) for name, value in vars(model).items()}


@pytest.mark.dispatch
@pytest.mark.parametrize(
    "family, method, n",
    [
        ("knn", "harmonic", 450),  # sparse blocks, batched CG
        ("knn", "harmonic", 120),  # small graph solved dense, batched CG
        ("complete", "harmonic", 120),  # dense, one σ at a time
        ("knn", "delalleau", 120),
    ],
)
@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_one_model_shared_by_four_threads(family, method, n):
    """Models are shared between app sessions (st.cache_resource): soft labels from 4
    threads at once are bit for bit the single-threaded ones, and the model is unchanged."""
    from concurrent.futures import ThreadPoolExecutor

    X, labeled, y = _instance(18, n=n)
    model = make_model(X, labeled, y, GraphSpec(family, 6), LabelingSpec(method, subset=30))
    before = _attributes(model)
    arrays = [v for v in vars(model).values() if isinstance(v, np.ndarray)]
    assert arrays and not any(a.flags.writeable for a in arrays)  # read-only once built
    calls = [
        (sigma, solver, many)
        for sigma in (0.05, 0.4, 1.0, 2.5)
        for solver in ("exact", "cg", "pcg")
        for many in (False, True)
    ]

    def call(key):
        sigma, solver, many = key
        if many:  # the batched path where the model has one
            return model.soft_labels_many([sigma, 2 * sigma], solver=solver, cg_iters=15)[0]
        return model.soft_labels(sigma, solver=solver, cg_iters=15)

    single = {key: call(key) for key in calls}
    jobs = calls * 6
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(call, jobs))
    for key, sl in zip(jobs, results, strict=True):
        ref = single[key]
        for a, b in (
            (sl.f, ref.f),
            (sl.df, ref.df),
            (sl.degenerate, ref.degenerate),
            (sl.subset_f, ref.subset_f),
            (sl.subset_df, ref.subset_df),
        ):
            assert (a is None and b is None) or np.array_equal(a, b)
        assert (sl.solves, sl.matvecs, sl.factorizations, sl.status) == (
            ref.solves,
            ref.matvecs,
            ref.factorizations,
            ref.status,
        )
    assert _attributes(model) == before
