"""The exact loss curve against brute force: dense closed forms, fine grids, bisection."""

import numpy as np
import pytest
from reference import weights

from sslviz.graphs import build_graph
from sslviz.labeling import HarmonicModel
from sslviz.problem import make_model
from sslviz.specs import GraphSpec, LabelingSpec
from sslviz.truth import threshold_loss_curve, true_loss_curve


def _instance(seed=0, n=60, offset=1.0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, 4)) + offset * y[:, None]
    labeled = np.zeros(n, bool)
    labeled[[0, 1, 2, n // 2, n // 2 + 1, n // 2 + 2]] = True
    return X, labeled, y


def _dense_f(X, labeled, y, sigma, family, k):
    """(I − P_UU)⁻¹ P_UL y_L, P = D⁻¹W; nodes with no path to L get 1/2."""
    W = weights(X, sigma, family, k)
    U, L = np.flatnonzero(~labeled), np.flatnonzero(labeled)
    P = W / np.maximum(W.sum(1, keepdims=True), 1e-300)
    A = np.eye(U.size) - P[np.ix_(U, U)]
    return np.linalg.solve(A, P[np.ix_(U, L)] @ y[L])


def _brute_roots(fun, lo, hi, n_grid=4001):
    """Sign changes of fun(σ) − 1/2 on a fine grid, bisected to 1e-13."""
    s = np.linspace(lo, hi, n_grid)
    H = np.array([fun(x) for x in s]) - 0.5
    roots = []
    for i in range(n_grid - 1):
        for u in np.flatnonzero(np.sign(H[i]) != np.sign(H[i + 1])):
            a, b, ha = s[i], s[i + 1], H[i, u]
            while b - a > 1e-13 * b:
                m = 0.5 * (a + b)
                hm = fun(m)[u] - 0.5
                if np.sign(hm) == np.sign(ha):
                    a, ha = m, hm
                else:
                    b = m
            roots.append((0.5 * (a + b), u))
    return sorted(roots)


@pytest.mark.parametrize("family", ["complete", "knn"])
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.slow  # over 2 s: outside the quick run
def test_breakpoints_match_brute_force(family, seed):
    X, labeled, y = _instance(seed)
    model = make_model(X, labeled, y, GraphSpec(family, 5))
    y_u = y[model.unlabeled_idx]
    curve = true_loss_curve(model, y_u, 0.6, 6.0)
    brute = _brute_roots(lambda s: _dense_f(X, labeled, y, s, family, 5), 0.6, 6.0)
    assert len(brute) > 3, "the instance should have crossings"
    found = curve.breakpoints
    for r, u in brute:
        i = np.argmin(np.abs(found - r))
        assert abs(found[i] - r) <= 1e-7 * r
        assert u in curve.nodes[i]
    # Every breakpoint found is a genuine crossing of the dense solution.
    for b, nodes in zip(found, curve.nodes, strict=True):
        left = _dense_f(X, labeled, y, b * (1 - 1e-6), family, 5)[nodes] - 0.5
        right = _dense_f(X, labeled, y, b * (1 + 1e-6), family, 5)[nodes] - 0.5
        assert np.all(np.sign(left) != np.sign(right))
    assert curve.inconsistent == 0


@pytest.mark.parametrize("family", ["complete", "knn"])
def test_loss_constant_between_breakpoints(family):
    X, labeled, y = _instance(3)
    model = make_model(X, labeled, y, GraphSpec(family, 5))
    y_u = y[model.unlabeled_idx]
    curve = true_loss_curve(model, y_u, 0.6, 6.0)
    rng = np.random.default_rng(0)
    e = curve.loss.edges
    for i in range(e.size - 1):
        for s in rng.uniform(e[i], e[i + 1], size=3):
            f = _dense_f(X, labeled, y, s, family, 5)
            assert np.mean((f > 0.5) != (y_u == 1)) == pytest.approx(curve.loss.values[i])


def test_coarse_grid_still_finds_every_breakpoint():
    """The Hermite test, not grid density, is what finds crossings."""
    X, labeled, y = _instance(1)
    model = make_model(X, labeled, y, GraphSpec("complete"))
    y_u = y[model.unlabeled_idx]
    fine = true_loss_curve(model, y_u, 0.6, 6.0, grid_ratio=1.01)
    coarse = true_loss_curve(model, y_u, 0.6, 6.0, grid_ratio=1.6)
    np.testing.assert_allclose(coarse.breakpoints, fine.breakpoints, rtol=1e-8)
    np.testing.assert_array_equal(coarse.loss.values, fine.loss.values)


@pytest.mark.slow  # over 2 s: outside the quick run
def test_delalleau_curve_matches_grid():
    X, labeled, y = _instance(2, n=80)
    model = make_model(X, labeled, y, GraphSpec("knn", 5), LabelingSpec("delalleau", 30))
    y_u = y[model.unlabeled_idx]
    curve = true_loss_curve(model, y_u, 0.6, 6.0)
    s = np.linspace(0.6, 6.0, 1500)
    for x in s:
        sl = model.soft_labels(x, derivative=False)
        wrong = sl.degenerate | ((sl.f > 0.5) != (y_u == 1))
        if np.min(np.abs(curve.breakpoints - x), initial=np.inf) > 1e-9:
            assert curve.loss(x) == pytest.approx(wrong.mean())


def test_degenerate_component_counted_wrong_and_reported():
    """A cluster far from every labeled node: mutual kNN cuts it off entirely."""
    X, labeled, y = _instance(4)
    X = np.vstack([X, 100.0 + np.random.default_rng(0).normal(size=(6, 4))])
    labeled = np.r_[labeled, np.zeros(6, bool)]
    y = np.r_[y, np.zeros(6, int)]
    model = make_model(X, labeled, y, GraphSpec("mutual-knn", 3))
    y_u = y[model.unlabeled_idx]
    curve = true_loss_curve(model, y_u, 0.6, 6.0)
    assert curve.degenerate_ranges and all(c >= 6 for _, _, c in curve.degenerate_ranges)
    sl = model.soft_labels(2.0)
    assert np.all(sl.f[-6:] == 0.5) and np.all(sl.degenerate[-6:])
    assert np.all(curve.loss.values >= 6 / y_u.size)
    assert np.all(np.isfinite(curve.loss.values))


def test_threshold_curve_matches_brute_force():
    X, labeled, y = _instance(5)
    graph = build_graph(X, GraphSpec("threshold", 6))
    model = HarmonicModel(graph, labeled, y)
    y_u = y[model.unlabeled_idx]
    lengths = graph.edge_lengths()
    lo, hi = float(lengths[3]) * 0.99, float(lengths[-1])
    curve = threshold_loss_curve(model, y_u, lo, hi)
    # Breakpoints are edge lengths; between them, the loss of the unweighted graph.
    assert np.all(np.isin(curve.breakpoints, lengths))
    for r in np.linspace(lo, hi, 400):
        sl = model.soft_labels_at_radius(r)
        wrong = sl.degenerate | ((sl.f > 0.5) != (y_u == 1))
        assert curve.loss(r) == pytest.approx(wrong.mean())


def test_curve_says_which_solver_built_it():
    """Only exact or inverse solves give the true loss; a CG curve is approximate."""
    X, labeled, y = _instance(6)
    model = make_model(X, labeled, y, GraphSpec("knn", 5))
    y_u = y[model.unlabeled_idx]
    for solver, exact in (("exact", True), ("inverse", True), ("cg", False), ("pcg", False)):
        curve = true_loss_curve(model, y_u, 0.6, 6.0, solver=solver, cg_iters=5)
        assert curve.solver == solver and curve.exact is exact
    graph = build_graph(X, GraphSpec("threshold", 6))
    curve = threshold_loss_curve(HarmonicModel(graph, labeled, y), y_u, 1.0, 2.0)
    assert curve.solver == "exact" and curve.exact


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(sigma_min=0.0, sigma_max=1.0), "sigma_min"),
        (dict(sigma_min=2.0, sigma_max=1.0), "smaller than 'sigma_max'"),
        (dict(sigma_min=1.0, sigma_max=2.0, rtol=0.1), "rtol"),
        (dict(sigma_min=1.0, sigma_max=2.0, grid_ratio=1.0), "grid_ratio"),
    ],
)
def test_bad_parameters(kwargs, match):
    X, labeled, y = _instance()
    model = make_model(X, labeled, y, GraphSpec("knn", 5))
    with pytest.raises(ValueError, match=match):
        true_loss_curve(model, y[model.unlabeled_idx], **kwargs)
