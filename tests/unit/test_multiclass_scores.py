"""One-vs-all scores F_U(σ), one column per class (docs/method.md §13), against dense numpy
solves, finite differences, the binary model and scikit-learn."""

import numpy as np
import pytest

from sslviz.problem import build_problem
from sslviz.solvers import solve_cg
from sslviz.specs import ProblemSpec


def problem(classes=(0, 1, 2), family="complete", labeling="harmonic", n=60, labeled=8):
    spec = ProblemSpec(
        dataset="digits",
        classes=classes,
        n=n,
        n_labeled=labeled,
        seed=1,
        family=family,
        k=6,
        labeling=labeling,
        subset=20,
    )
    return build_problem(spec)


def onehot(p):
    C = p.instance.n_classes
    return (p.instance.y[:, None] == np.arange(C)[None, :]).astype(float)


def dense_harmonic(p, sigma):
    """F_U = L_UU⁻¹ W_UL Y_L by numpy on the dense weights of the graph."""
    D2 = p.graph.sqdist
    D2 = D2.toarray() if hasattr(D2, "toarray") else np.asarray(D2)
    if hasattr(p.graph.sqdist, "toarray"):  # sparse: only the stored entries are edges
        mask = p.graph.sqdist.toarray() != 0
        mask |= p.graph.sqdist.copy().astype(bool).toarray()
        W = np.where(mask, np.exp(-D2 / sigma**2), 0.0)
    else:
        W = np.exp(-D2 / sigma**2)
    np.fill_diagonal(W, 0.0)
    U, L = p.model.unlabeled_idx, p.model.labeled_idx
    Lap = np.diag(W.sum(axis=1)) - W
    Y = onehot(p)[L]
    return np.linalg.solve(Lap[np.ix_(U, U)], W[np.ix_(U, L)] @ Y)


@pytest.mark.parametrize("family", ["complete", "knn"])
@pytest.mark.parametrize("classes", [(0, 1, 2), tuple(range(10))])
def test_harmonic_scores_match_a_dense_solve(family, classes):
    p = problem(classes, family, n=80, labeled=max(10, len(classes)))
    for sigma in (2.0, 4.0, 7.0):
        (sc,) = p.model.scores([sigma], p.instance.y, len(classes))
        ref = dense_harmonic(p, sigma)
        assert sc.F.shape == (p.model.n_unlabeled, len(classes))
        assert np.max(np.abs(sc.F - ref)) < 1e-10
        assert np.allclose(sc.F.sum(axis=1), 1.0, atol=1e-10)
        assert not sc.degenerate.any()


@pytest.mark.parametrize("labeling", ["harmonic", "delalleau"])
@pytest.mark.parametrize("family", ["complete", "knn"])
def test_score_derivatives_match_finite_differences(labeling, family):
    p = problem((0, 1, 2), family, labeling)
    for sigma in (2.5, 5.0):
        h = 1e-5 * sigma
        (sc,) = p.model.scores([sigma], p.instance.y, 3)
        up, down = p.model.scores([sigma + h, sigma - h], p.instance.y, 3, derivative=False)
        fd = (up.F - down.F) / (2 * h)
        assert np.max(np.abs(sc.dF - fd)) < 1e-6 * max(1.0, np.abs(fd).max())


def test_delalleau_scores_match_a_dense_solve():
    p = problem((0, 1, 2), "complete", "delalleau")
    m = p.model
    sigma = 3.0
    (sc,) = m.scores([sigma], p.instance.y, 3)
    X = p.instance.X
    XS = X[m.nodes]
    D2 = ((XS[:, None, :] - XS[None, :, :]) ** 2).sum(-1)
    W = np.exp(-D2 / sigma**2)
    np.fill_diagonal(W, 0.0)
    n_l = m.labeled_idx.size
    A = np.diag(W.sum(axis=1)) - W
    A[np.arange(n_l), np.arange(n_l)] += m.lam
    Y = np.zeros((m.nodes.size, 3))
    Y[:n_l] = onehot(p)[m.labeled_idx]
    Fs = np.linalg.solve(A, m.lam * Y)
    XU = X[m.unlabeled_idx]
    E = np.exp(-((XU[:, None, :] - XS[None, :, :]) ** 2).sum(-1) / sigma**2)
    E[np.equal.outer(m.unlabeled_idx, m.nodes)] = 0.0  # a node is not its own neighbour
    ref = (E @ Fs) / E.sum(axis=1, keepdims=True)
    assert np.max(np.abs(sc.F - ref)) < 1e-10
    assert np.allclose(sc.F.sum(axis=1), 1.0, atol=1e-10)


@pytest.mark.parametrize("labeling", ["harmonic", "delalleau"])
@pytest.mark.parametrize("solver", ["exact", "cg"])
def test_two_classes_are_one_minus_f_and_f(labeling, solver):
    p = problem((2, 3), "knn", labeling)
    for sigma in (1.5, 4.0):
        sl = p.model.soft_labels(sigma, solver=solver, cg_iters=10)
        (sc,) = p.model.scores([sigma], p.instance.y, 2, solver=solver, cg_iters=10)
        assert np.array_equal(sc.F[:, 1], sl.f) and np.array_equal(sc.dF[:, 1], sl.df)
        if solver == "exact":  # t iterations of CG per column do not add up to 1
            assert np.max(np.abs(sc.F[:, 0] - (1 - sl.f))) < 1e-12
            assert np.max(np.abs(sc.dF[:, 0] + sl.df)) < 1e-9 * max(1, np.abs(sl.df).max())


@pytest.mark.parametrize("family", ["complete", "knn"])
def test_cg_columns_are_t_iterations_of_cg_per_class(family):
    p = problem((0, 1, 2), family)
    sigma, t = 3.0, 7
    (sc,) = p.model.scores([sigma], p.instance.y, 3, solver="cg", cg_iters=t, derivative=False)
    L_uu, _ = p.model.laplacian_system(sigma)
    W = p.model.blocks(sigma, row_scaled=False)[1]
    Y = onehot(p)[p.model.labeled_idx]
    for c in range(3):
        ref = solve_cg(L_uu, W @ Y[:, c], maxiter=t, rtol=0.0).x
        assert np.max(np.abs(sc.F[:, c] - ref)) < 1e-12
    assert sc.matvecs == 3 * t


def test_predictions_equal_scikit_learns_label_propagation():
    from sklearn.semi_supervised import LabelPropagation

    p = problem((0, 1, 2), "complete", n=60, labeled=9)
    X, y = p.instance.X, p.instance.y
    yy = np.where(p.instance.labeled, y, -1)
    for sigma in (3.0, 5.0):
        (sc,) = p.model.scores([sigma], y, 3)
        top2 = np.sort(sc.F, axis=1)[:, -2:]
        clear = top2[:, 1] - top2[:, 0] > 1e-6  # away from a tie
        lp = LabelPropagation(kernel="rbf", gamma=1 / sigma**2, max_iter=100000, tol=1e-12)
        pred = lp.fit(X, yy).transduction_[p.model.unlabeled_idx]
        assert clear.mean() > 0.9
        assert np.array_equal(pred[clear], np.argmax(sc.F, axis=1)[clear])


@pytest.mark.parametrize("family", ["complete", "knn"])
@pytest.mark.parametrize("solver", ["exact", "cg", "pcg"])
def test_shared_work_scores_are_each_columns_own_solve_bit_for_bit(family, solver):
    """Scores with the work of a σ shared by all columns (one GTH factorisation; CG-t's
    weights and L_UU formed once) are the bits of each column's own solve (the model
    relabeled one-hot, ``soft_labels``)."""
    p = problem(tuple(range(10)), family, n=90, labeled=15)
    y = p.instance.y
    for sigma in (0.8, 2.5, 6.0):
        (sc,) = p.model.scores([sigma], y, 10, solver=solver, cg_iters=9)
        for c in range(10):
            sl = p.model.relabeled((y == c).astype(float)).soft_labels(
                sigma, solver=solver, cg_iters=9
            )
            assert np.array_equal(sc.F[:, c], sl.f) and np.array_equal(sc.dF[:, c], sl.df)
            assert np.array_equal(sc.degenerate, sl.degenerate)
        assert sc.solves == 20 and sc.matvecs == (0 if solver == "exact" else 10 * 2 * 9)
        if solver == "exact" and family == "complete":  # one factorisation for all columns
            assert sc.factorizations == 1


def test_sparse_exact_scores_share_one_factorisation_bit_for_bit():
    """On a sparse graph (more than 400 nodes: stored sparse) the exact scores come from one
    LU factorisation per σ for every column, each column the bits of its own solve."""
    p = problem(tuple(range(10)), "knn", n=520, labeled=20)
    y = p.instance.y
    for sigma in (1.0, 4.0):
        (sc,) = p.model.scores([sigma], y, 10)
        assert sc.factorizations == 1 and sc.solves >= 20
        for c in range(10):
            sl = p.model.relabeled((y == c).astype(float)).soft_labels(sigma)
            assert np.array_equal(sc.F[:, c], sl.f) and np.array_equal(sc.dF[:, c], sl.df)
