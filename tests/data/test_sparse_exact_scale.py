"""Issue 12 §2: exact curves of full class pools — a nested-dissection elimination order,
iterative refinement of every LU/Cholesky solve (residuals summed edge by edge), and the
Chebyshev search on large sparse graphs — against SuperLU's own order, the subtraction-free
(GTH) elimination and the Hermite search."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from reference import NumpyHarmonic, PythonSearch

import sslviz.crossings as crossings
import sslviz.exact_solves as exact_solves
from sslviz.exact_solves import refine
from sslviz.problem import build_problem
from sslviz.solvers import (
    Factorization,
    GTHFactorization,
    LinearSolver,
    SparseGTHFactorization,
    nested_dissection,
)
from sslviz.specs import ProblemSpec
from sslviz.systems import edge_flux
from sslviz.truth import true_loss_curve


def _knn_pattern(m: int, k: int, rng: np.random.Generator) -> sp.csr_matrix:
    """Symmetrised kNN pattern of random points in the plane, weights in (0, 1]."""
    from sklearn.neighbors import kneighbors_graph

    G = kneighbors_graph(rng.random((m, 2)), k, mode="connectivity")
    G = sp.csr_matrix(G + G.T)
    G.data = rng.uniform(0.01, 1.0, G.nnz)
    G = sp.csr_matrix(sp.triu(G, 1))
    return sp.csr_matrix(G + G.T)


def test_nested_dissection_is_a_deterministic_permutation():
    rng = np.random.default_rng(0)
    W = _knn_pattern(500, 6, rng)
    order = nested_dissection(W)
    assert np.array_equal(np.sort(order), np.arange(500))
    assert np.array_equal(order, nested_dissection(W.copy()))
    assert np.array_equal(nested_dissection(sp.csr_matrix((2, 2))), [0, 1])  # no edges


def test_ordered_factorisations_match_the_default_ones():
    """LU (diagonal pivots) and sparse GTH in nested-dissection order against SuperLU's
    defaults and the dense GTH elimination."""
    rng = np.random.default_rng(1)
    for m in (3, 40, 300):
        W = _knn_pattern(m, min(6, m - 1), rng)
        leak = np.where(rng.random(m) < 0.1, rng.random(m), 0.0)
        leak[0] = 0.5
        M = sp.diags(np.asarray(W.sum(axis=1)).ravel() + leak) - W
        M = sp.csr_matrix(M.multiply(1.0 / M.diagonal()[:, None]))  # rows scaled
        order = nested_dissection(W)
        b = rng.random(m)
        x_ref = Factorization(M).solve(b).x
        x_nd = Factorization(M, dominant=True, order=order).solve(b).x
        np.testing.assert_allclose(x_nd, x_ref, rtol=1e-11)
        lin = LinearSolver(M, "exact", dominant=True, order=order)
        assert np.array_equal(lin.solve(b), x_nd) and lin.factorizations == 1
        c = leak * rng.random(m)
        np.testing.assert_allclose(
            SparseGTHFactorization(W, leak, order).solve(c).x,
            GTHFactorization(W, leak).solve(c).x,
            rtol=1e-11,
            atol=1e-15,
        )


def test_refinement_recovers_what_the_assembled_diagonal_lost():
    """A cluster of 40 nodes joined by weights ~1 that leaks 3e-9 in all to L: the LU
    pivots pass the 1e-10 test, but the row sums on the diagonal lose digits of the leak
    and f is off by more than 1e-11. Refinement (residuals summed edge by edge)
    brings f to the GTH solution within 1e-13."""
    rng = np.random.default_rng(2)
    m = 40
    W = sp.csr_matrix(sp.triu(sp.random(m, m, density=0.3, random_state=3), 1))
    W.data = rng.uniform(0.5, 1.0, W.nnz)
    W = sp.csr_matrix(W + W.T + sp.diags(np.ones(m - 1), 1) + sp.diags(np.ones(m - 1), -1))
    W.data = np.minimum(W.data, 1.0)
    W_UL = sp.lil_matrix((m, 2))
    W_UL[0, 0], W_UL[m - 1, 1] = 1e-9, 2e-9  # label 0 at one end, label 1 at the other
    W_UL = sp.csr_matrix(W_UL)
    y_l = np.array([0.0, 1.0])
    to_l = np.asarray(W_UL.sum(axis=1)).ravel()
    M = sp.csr_matrix(sp.diags(np.asarray(W.sum(axis=1)).ravel() + to_l) - W)
    b = W_UL @ y_l
    ref = GTHFactorization(W, to_l).solve(b).x
    lin = LinearSolver(M, "exact", dominant=True, order=nested_dissection(W))
    f = lin.solve(b)
    assert lin.min_pivot >= exact_solves.PIVOT_TOL  # the pivot test sees nothing
    assert np.abs(f - ref).max() > 1e-11
    keep = np.ones(m, bool)
    assert refine(f, keep, lin.solve, W, W_UL, y_l=y_l)
    assert np.abs(f - ref).max() < 1e-13
    # the edge sum is b − M f, without the row sums
    np.testing.assert_allclose(edge_flux(W, W_UL, y_l, ref), b - M @ ref, atol=1e-12)


@pytest.fixture
def fashion_knn():
    try:
        return build_problem(
            ProblemSpec(
                dataset="fashion-mnist", classes=(0, 1), n=700, n_labeled=10, seed=1, family="knn"
            )
        )
    except FileNotFoundError:  # pragma: no cover - CI installs Debian's Fashion-MNIST
        pytest.skip("Fashion-MNIST is not installed")


@pytest.mark.dispatch
def test_chebyshev_search_on_a_sparse_graph_matches_the_hermite_search(fashion_knn, monkeypatch):
    """The Chebyshev search runs on kNN graphs from 1,500 unlabeled nodes on; here on 690
    (threshold lowered): the same breakpoints (1e-8), nodes and losses as the Hermite
    search."""
    p = fashion_knn
    assert not isinstance(p.model._D2_UU, np.ndarray)  # the sparse path
    monkeypatch.setattr(crossings, "_CHEB_MIN_UNLABELED_SPARSE", 100)
    ref = true_loss_curve(PythonSearch(p.model), p.y_unlabeled, 1.0, 7.0)
    new = true_loss_curve(p.model, p.y_unlabeled, 1.0, 7.0)
    assert ref.breakpoints.size >= 5 and ref.inconsistent == new.inconsistent == 0
    assert new.breakpoints.size == ref.breakpoints.size
    np.testing.assert_allclose(new.breakpoints, ref.breakpoints, rtol=1e-8, atol=0)
    assert np.array_equal(new.loss.values, ref.loss.values)
    for a, b in zip(new.nodes, ref.nodes, strict=True):
        assert np.array_equal(a, b)


@pytest.mark.dispatch
def test_sparse_exact_curve_same_as_the_numpy_gth(fashion_knn):
    """The sparse exact path (nested-dissection order, diagonal pivots, sparse GTH redos)
    against the GTH elimination in NumPy at every σ (:class:`reference.NumpyHarmonic`):
    the same curve."""
    p = fashion_knn
    new = true_loss_curve(p.model, p.y_unlabeled, 0.8, 5.0)
    old = true_loss_curve(NumpyHarmonic(p.model), p.y_unlabeled, 0.8, 5.0)
    assert new.breakpoints.size == old.breakpoints.size > 0
    np.testing.assert_allclose(new.breakpoints, old.breakpoints, rtol=1e-8, atol=0)
    assert np.array_equal(new.loss.values, old.loss.values)
