"""Graph families (docs/method.md §2.3) against brute-force O(n²) constructions written here."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse as sp

from sslviz._validation import InvalidParameterError
from sslviz.graphs import build_graph
from sslviz.specs import GraphSpec

FAMILIES_SPARSE = ("knn", "mutual-knn", "threshold")


def _points(seed=0, n=40, p=5, offset=1.5, scale=1.0):
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.arange(n) % 2)
    X = scale * (rng.normal(size=(n, p)) + offset * y[:, None])
    return X, y


def _brute_sqdist(X):
    n = X.shape[0]
    d2 = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            d2[i, j] = float(np.sum((X[i] - X[j]) ** 2))
    return d2


def _brute_knn(d2, k):
    """Directed kNN: A[i, j] iff j is among the k nearest of i, i itself excluded."""
    n = d2.shape[0]
    A = np.zeros((n, n), bool)
    for i in range(n):
        others = [j for j in range(n) if j != i]
        others.sort(key=lambda j: d2[i, j])
        for j in others[:k]:
            A[i, j] = True
    return A


def _mask(d2, family, k):
    n = d2.shape[0]
    if family == "complete":
        return ~np.eye(n, dtype=bool)
    A = _brute_knn(d2, k)
    return (A | A.T) if family == "knn" else (A & A.T)


def _pattern(M):
    """Boolean pattern of the stored entries (explicit zeros included)."""
    C = sp.coo_matrix(M)
    P = np.zeros(M.shape, bool)
    P[C.row, C.col] = True
    return P


def _dense(M):
    return M.toarray() if sp.issparse(M) else np.asarray(M)


# --------------------------------------------------------------------------- patterns


@pytest.mark.parametrize("k", [1, 3, 6])
@pytest.mark.parametrize("seed", [0, 1])
def test_knn_patterns_match_brute_force(k, seed):
    X, _ = _points(seed)
    d2 = _brute_sqdist(X)
    A = _brute_knn(d2, k)
    pats = {}
    for family in FAMILIES_SPARSE:
        g = build_graph(X, GraphSpec(family, k))
        assert not g.is_dense
        P = _pattern(g.sqdist)
        np.testing.assert_array_equal(P, _mask(d2, family, k), err_msg=family)
        assert not P.diagonal().any(), "self excluded"
        np.testing.assert_array_equal(P, P.T)
        assert g.n_edges == P.sum() // 2
        np.testing.assert_array_equal(g.degrees(), P.sum(axis=1))
        pats[family] = P
    # mutual ⊂ or-kNN, 'or' is exactly the union of the directed relation and its transpose
    assert not (pats["mutual-knn"] & ~pats["knn"]).any()
    np.testing.assert_array_equal(pats["knn"], A | A.T)
    np.testing.assert_array_equal(pats["mutual-knn"], A & A.T)
    np.testing.assert_array_equal(pats["threshold"], pats["mutual-knn"])
    # every node has at least k neighbours in the 'or' graph, at most k in the mutual one
    assert (pats["knn"].sum(1) >= k).all()
    assert (pats["mutual-knn"].sum(1) <= k).all()


@pytest.mark.parametrize("family", FAMILIES_SPARSE)
def test_squared_distances_on_pattern(family):
    X, _ = _points(2)
    d2 = _brute_sqdist(X)
    g = build_graph(X, GraphSpec(family, 4))
    C = sp.coo_matrix(g.sqdist)
    np.testing.assert_allclose(C.data, d2[C.row, C.col], rtol=1e-12, atol=1e-12)


def test_complete_graph_dense():
    X, _ = _points(3, n=25)
    d2 = _brute_sqdist(X)
    g = build_graph(X, GraphSpec("complete"))
    assert g.is_dense and isinstance(g.sqdist, np.ndarray)
    assert g.sqdist.shape == (25, 25)
    np.testing.assert_allclose(g.sqdist, d2, rtol=1e-12, atol=1e-12)
    assert g.n_edges == 25 * 24 // 2
    np.testing.assert_array_equal(g.degrees(), np.full(25, 24))
    assert g.n_components() == 1
    W = g.kernel(1.3)
    assert isinstance(W, np.ndarray)
    np.testing.assert_array_equal(np.diag(W), 0.0)


# --------------------------------------------------------------------------- kernels


@pytest.mark.parametrize("family", ["complete", "knn", "mutual-knn"])
@pytest.mark.parametrize("sigma", [0.7, 2.0, 5.0])
def test_kernel_formula(family, sigma):
    X, _ = _points(4)
    d2 = _brute_sqdist(X)
    mask = _mask(d2, family, 5)
    g = build_graph(X, GraphSpec(family, 5))
    ref = np.where(mask, np.exp(-d2 / sigma**2), 0.0)
    W = g.kernel(sigma)
    np.testing.assert_allclose(_dense(W), ref, rtol=1e-12, atol=1e-300)
    if sp.issparse(W):
        np.testing.assert_array_equal(_pattern(W), mask)


@pytest.mark.parametrize("family", ["complete", "knn", "mutual-knn"])
@pytest.mark.parametrize("sigma", [0.8, 1.5, 3.0])
@pytest.mark.parametrize("row_scaled", [False, True])
def test_kernel_derivative_formula_and_finite_differences(family, sigma, row_scaled):
    X, _ = _points(5)
    d2 = _brute_sqdist(X)
    mask = _mask(d2, family, 5)
    g = build_graph(X, GraphSpec(family, 5))
    W, dW = g.kernel_and_derivative(sigma, row_scaled=row_scaled)
    W, dW = _dense(W), _dense(dW)
    # closed form 2·W·d²/σ³ on the pattern (for the scaled kernel: the row factor held fixed)
    np.testing.assert_allclose(dW, np.where(mask, 2.0 * W * d2 / sigma**3, 0.0), rtol=1e-12)
    if not row_scaled:
        h = 1e-5 * sigma
        fd = (_dense(g.kernel(sigma + h)) - _dense(g.kernel(sigma - h))) / (2 * h)
        np.testing.assert_allclose(dW, fd, rtol=1e-7, atol=1e-10 * np.abs(fd).max())
        np.testing.assert_allclose(
            dW, np.where(mask, 2.0 * np.exp(-d2 / sigma**2) * d2 / sigma**3, 0.0), rtol=1e-12
        )


@pytest.mark.parametrize("family", ["complete", "knn", "mutual-knn"])
@pytest.mark.parametrize("sigma", [0.05, 1.0])
def test_row_scaled_kernel(family, sigma):
    X, _ = _points(6)
    d2 = _brute_sqdist(X)
    mask = _mask(d2, family, 4)
    g = build_graph(X, GraphSpec(family, 4))
    Ws = _dense(g.kernel(sigma, row_scaled=True))
    has = mask.any(1)
    np.testing.assert_allclose(Ws[has].max(axis=1), 1.0, rtol=0, atol=1e-15)
    assert np.isfinite(Ws).all()
    # W_scaled = diag(exp(min_j d²_ij/σ²)) W, computed in the exponent
    m = np.where(mask, d2, np.inf).min(1)
    with np.errstate(over="ignore"):  # the diagonal (d² = 0) overflows; masked out
        ref = np.where(mask, np.exp(-(d2 - m[:, None]) / sigma**2), 0.0)
    np.testing.assert_allclose(Ws, ref, rtol=1e-10, atol=1e-300)
    np.testing.assert_allclose(g.row_min_sqdist()[has], m[has], rtol=1e-12)
    if sigma == 0.05:
        # the unscaled kernel underflows row-wide here; the scaled one keeps every row alive
        assert (_dense(g.kernel(sigma))[has].max(axis=1) == 0).any()


@pytest.mark.parametrize("k", [2, 5])
def test_threshold_adjacency(k):
    X, _ = _points(7)
    d2 = _brute_sqdist(X)
    mask = _mask(d2, "mutual-knn", k)
    g = build_graph(X, GraphSpec("threshold", k))
    d = np.sqrt(d2)
    lengths = np.unique(d[np.triu(mask)])
    # radii strictly between edge lengths: independent of rounding at the boundary
    for r in [0.5 * lengths[0], *(0.5 * (lengths[:-1] + lengths[1:]))[::3], 2 * lengths[-1]]:
        T = g.threshold(r)
        ref = (mask & (d <= r)).astype(float)
        np.testing.assert_array_equal(_dense(T), ref)
        assert set(np.unique(_dense(T))) <= {0.0, 1.0}
    # r exactly an edge length includes that edge: j+1 edges at the (j+1)-th distinct length
    el = g.edge_lengths()
    for j in range(0, el.size, 4):
        T = g.threshold(el[j])
        assert int(_dense(T).sum()) // 2 == j + 1


@pytest.mark.parametrize("family", ["complete", "knn", "mutual-knn", "threshold"])
def test_edge_lengths_sorted_distinct(family):
    X, _ = _points(8, n=30)
    d2 = _brute_sqdist(X)
    mask = _mask(d2, family, 3)
    g = build_graph(X, GraphSpec(family, 3))
    el = g.edge_lengths()
    assert np.all(np.diff(el) > 0)
    ref = np.unique(np.sqrt(d2[np.triu(mask)]))
    assert el.size == ref.size
    np.testing.assert_allclose(el, ref, rtol=1e-12)


# --------------------------------------------------------------------------- duplicates


@pytest.mark.parametrize("family", ["knn", "mutual-knn", "threshold", "complete"])
def test_duplicate_points_stay_edges(family):
    X, _ = _points(9, n=20)
    X = np.vstack([X, X[:3]])  # nodes 20, 21, 22 duplicate 0, 1, 2
    g = build_graph(X, GraphSpec(family, 2))
    P = _pattern(g.sqdist) if not g.is_dense else ~np.eye(23, dtype=bool)
    for a, b in [(0, 20), (1, 21), (2, 22)]:
        assert P[a, b] and P[b, a], (family, a, b)
        assert _dense(g.sqdist)[a, b] == 0.0
        assert _dense(g.kernel(0.5))[a, b] == 1.0
        assert _dense(g.kernel_and_derivative(0.5)[1])[a, b] == 0.0
        assert _dense(g.threshold(0.0))[a, b] == 1.0
    assert g.edge_lengths()[0] == 0.0
    if not g.is_dense:
        # the zero-distance edges are stored (explicit zeros), so nnz counts them
        assert g.sqdist.nnz == P.sum()
        assert g.n_edges == P.sum() // 2
        assert (sp.csr_matrix(g.threshold(0.0)).sum()) == 6


# --------------------------------------------------------------------------- validation


def test_graphspec_validation():
    with pytest.raises(InvalidParameterError, match="family"):
        GraphSpec("bogus", 3)
    with pytest.raises(ValueError, match="^k must"):
        GraphSpec("knn", 0)
    with pytest.raises(ValueError, match="^k must"):
        GraphSpec("mutual-knn", -2)
    with pytest.raises(TypeError, match="^k must"):
        GraphSpec("knn", 2.5)
    with pytest.raises(TypeError, match="^k must"):
        GraphSpec("knn", True)
    assert GraphSpec().family == "complete" and GraphSpec().k == 6
    assert GraphSpec("complete").sparse is False and GraphSpec("knn").sparse is True


@pytest.mark.parametrize("family", FAMILIES_SPARSE)
def test_build_graph_k_at_least_n_raises(family):
    X, _ = _points(10, n=10)
    with pytest.raises(InvalidParameterError, match="'k'"):
        build_graph(X, GraphSpec(family, 10))
    with pytest.raises(InvalidParameterError, match="'k'"):
        build_graph(X, GraphSpec(family, 25))
    g = build_graph(X, GraphSpec(family, 9))  # k = n − 1: every other point
    P = _pattern(g.sqdist)
    np.testing.assert_array_equal(P, ~np.eye(10, dtype=bool))
    # complete ignores k
    assert build_graph(X, GraphSpec("complete", 50)).is_dense


def test_build_graph_does_not_mutate_input():
    X, _ = _points(11)
    X0 = X.copy()
    for family in ("complete", "knn", "mutual-knn", "threshold"):
        build_graph(X, GraphSpec(family, 4))
    np.testing.assert_array_equal(X, X0)


# --------------------------------------------------------------------------- imports


def test_import_does_not_pull_streamlit_or_torch():
    code = textwrap.dedent(
        """
        import importlib, pkgutil, sys
        import sslviz
        names = [m.name for m in pkgutil.iter_modules(sslviz.__path__)]
        assert names, "no submodules found"
        for name in names:
            if name != "cli":
                importlib.import_module("sslviz." + name)
        bad = sorted(m for m in sys.modules
                     if m.split(".")[0] in ("streamlit", "torch"))
        print(",".join(names))
        if bad:
            print("LOADED:", bad)
            sys.exit(1)
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for name in ("graphs", "labeling", "solvers", "conditioning"):
        assert name in proc.stdout


@pytest.mark.dispatch
def test_neighbours_equal_scikit_learns_search():
    """The exhaustive search (NumPy at these sizes; the compiled one gives the same arrays:
    the next test) against ``NearestNeighbors(algorithm="ball_tree")``: the same distances
    bit for bit, and the same indices where distances differ; with duplicate points (equal
    distances) the neighbours are a valid choice, equal distances in index order, never the
    point itself."""
    from sklearn.neighbors import NearestNeighbors

    from sslviz.graphs import neighbours

    rng = np.random.default_rng(0)
    clouds = {
        "distinct": rng.normal(size=(120, 8)),
        "grid": rng.integers(0, 3, (150, 4)).astype(float),
        "repeated": np.repeat(rng.random((40, 3)), 3, axis=0),
    }
    for name, X in clouds.items():
        for k in (1, 5, 9):
            nn = NearestNeighbors(n_neighbors=k, algorithm="ball_tree").fit(X)
            for query in (None, X[:17] + 0.01):
                ref = nn.kneighbors(query, n_neighbors=k)
                dist, ind = neighbours(X, k, query)
                assert dist.tobytes() == ref[0].tobytes()
                if name == "distinct":
                    assert np.array_equal(ind, ref[1])
                Q = X if query is None else query
                d2 = np.zeros(ind.shape)
                for f in range(X.shape[1]):  # in feature order, as both searches sum
                    d2 += (Q[:, None, f] - X[ind][..., f]) ** 2
                assert np.array_equal(np.sqrt(d2), dist)
                tie = dist[:, 1:] == dist[:, :-1]
                assert (ind[:, 1:][tie] > ind[:, :-1][tie]).all()
                if query is None:
                    assert not (ind == np.arange(X.shape[0])[:, None]).any()


@pytest.mark.parametrize("k, query", [(0, None), (120, None), (121, "q")])
def test_neighbours_rejects_an_impossible_k(k, query):
    from sslviz.graphs import neighbours

    X = np.random.default_rng(1).normal(size=(120, 3))
    with pytest.raises(ValueError, match="n_neighbors"):
        neighbours(X, k, None if query is None else X[:4])


@pytest.mark.dispatch
def test_neighbours_numpy_and_compiled_searches_agree(monkeypatch):
    """Below ``_NUMPY_MAX`` points NumPy, above it the compiled kernel: the same arrays,
    bit for bit, ties (equal distances in index order) included."""
    import sslviz.graphs as graphs

    rng = np.random.default_rng(2)
    clouds = [
        rng.normal(size=(90, 6)),
        rng.integers(0, 3, (130, 3)).astype(float),
        np.repeat(rng.random((30, 2)), 4, axis=0),
    ]
    for X in clouds:
        for k in (1, 4, 11):
            for query in (None, X[::7] + 0.05, X[::5]):
                numpy_side = graphs.neighbours(X, k, query)
                with monkeypatch.context() as m:
                    m.setattr(graphs, "_NUMPY_MAX", 0)
                    compiled = graphs.neighbours(X, k, query)
                for a, b in zip(numpy_side, compiled, strict=True):
                    assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
