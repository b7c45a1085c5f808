"""The Chebyshev search of exact curves on complete graphs finds the same breakpoints as the
Hermite grid search (a model's soft labels through :class:`reference.PythonSearch`)."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.polynomial import chebyshev as C
from reference import PythonSearch

import sslviz.crossings as crossings
import sslviz.truth as truth
from sslviz.problem import build_problem, loss_curve, make_model
from sslviz.specs import GraphSpec, ProblemSpec


@pytest.fixture(autouse=True)
def _chebyshev_from_n_100(monkeypatch):
    """The app uses Chebyshev from 200 unlabeled nodes on; check it on smaller ones too."""
    monkeypatch.setattr(crossings, "_CHEB_MIN_UNLABELED", 50)


def _both(model, y_u, lo, hi, **kwargs):
    """The exact curve on [lo, hi] by the Hermite search, then by the Chebyshev search."""
    ref = truth.true_loss_curve(PythonSearch(model), y_u, lo, hi, **kwargs)
    return ref, truth.true_loss_curve(model, y_u, lo, hi, **kwargs)


def _assert_same_curve(ref, new):
    assert ref.complete and new.complete
    assert ref.inconsistent == 0 and new.inconsistent == 0
    assert new.breakpoints.size == ref.breakpoints.size
    np.testing.assert_allclose(new.breakpoints, ref.breakpoints, rtol=1e-8, atol=0)
    assert np.array_equal(new.loss.values, ref.loss.values)
    assert np.array_equal(new.wrong_at_start, ref.wrong_at_start)
    for a, b in zip(new.nodes, ref.nodes, strict=True):
        assert np.array_equal(a, b)


CASES = [
    ("digits", 100, 0, (0.3, 3.0)),
    ("digits", 100, 1, (0.3, 3.0)),
    ("digits", 100, 2, (0.3, 3.0)),
    ("digits", 300, 0, (0.3, 3.0)),
    ("digits", 300, 1, (0.3, 3.0)),
    ("fashion-mnist", 300, 1, (1.0, 7.0)),
    ("fashion-mnist", 500, 0, (1.0, 7.0)),
    ("fashion-mnist", 500, 1, (1.0, 7.0)),
]


@pytest.mark.dispatch
@pytest.mark.parametrize(("dataset", "n", "seed", "sigma"), CASES)
@pytest.mark.slow  # over 2 s: outside the quick run
def test_same_breakpoints_as_the_hermite_search(dataset, n, seed, sigma):
    problem = build_problem(
        ProblemSpec(dataset=dataset, n=n, n_labeled=10, seed=seed, family="complete")
    )
    ref, new = _both(problem.model, problem.y_unlabeled, *sigma)
    assert ref.breakpoints.size >= 20, "a complete graph here has many breakpoints"
    _assert_same_curve(ref, new)
    # One set of solves serves every node: fewer σ evaluated (each an LU).
    assert new.evaluations.size < ref.evaluations.size


@pytest.mark.dispatch
def test_cells_whose_degenerate_set_changes_are_searched_as_before():
    """A far, unlabeled cluster loses its link to L at small σ (its weights to L
    underflow): cells where the degenerate set changes go to the Hermite search, and the
    curve is the Hermite search's (breakpoints and degenerate ranges)."""
    rng = np.random.default_rng(5)
    y = np.repeat([0, 1, 1], 20)
    X = 0.3 * rng.normal(size=(60, 3)) + np.repeat([[0, 0, 0], [1.5, 0, 0], [10, 0, 0]], 20, 0)
    labeled = np.zeros(60, bool)
    labeled[[0, 1, 2, 20, 21, 22]] = True
    model = make_model(X, labeled, y, GraphSpec("complete"))
    y_u = y[model.unlabeled_idx]
    with np.errstate(all="ignore"):
        ref, new = _both(model, y_u, 0.2, 2.0, max_evaluations=800)
    assert ref.degenerate_ranges[0][2] == 20, "the far cluster is cut off at small σ"
    np.testing.assert_allclose(new.breakpoints, ref.breakpoints, rtol=1e-8, atol=0)
    assert np.array_equal(new.loss.values, ref.loss.values)
    assert [r[2] for r in new.degenerate_ranges] == [r[2] for r in ref.degenerate_ranges]


def test_coefficients_are_the_interpolant():
    rng = np.random.default_rng(0)
    for N in (4, 16, 33):
        x = np.cos(np.pi * np.arange(N + 1) / N)
        vals = rng.normal(size=(N + 1, 3))
        c = crossings._cheb_coefficients(vals)
        for j in range(3):
            np.testing.assert_allclose(C.chebval(x, c[:, j]), vals[:, j], atol=1e-13)
            np.testing.assert_allclose(c[:, j], C.chebfit(x, vals[:, j], N), atol=1e-12)


def _columns(*polys, N=16):
    """Chebyshev coefficients (N + 1, q) of power-basis polynomials (highest degree first)."""
    out = np.zeros((N + 1, len(polys)))
    for j, p in enumerate(polys):
        c = C.poly2cheb(np.asarray(p, float)[::-1])
        out[: c.size, j] = c
    return out


def test_roots_plain_hidden_pair_and_touch():
    """A single root; two roots 1e-4 apart (inside one grid step, both ends of it
    positive: only the dip bound finds them); a dip to 1e-8 that does not cross (no
    root); a constant. (Pairs whose dip is shallower than about 1e-12 — below the
    interpolation error — are not looked for.)"""
    r, d = 0.3141, 1e-4
    polys = [
        np.poly([r]),
        np.poly([r, r + d]),
        np.polyadd(np.poly([r, r]), [1e-8]),
        [0.2],
    ]
    c = _columns(*polys)
    ends = (C.chebval(1.0, c), C.chebval(-1.0, c))
    theta, cols, _ = crossings._cheb_roots(c, ends)
    found = sorted(zip(cols.tolist(), np.cos(theta).tolist(), strict=True))
    assert [u for u, _ in found] == [0, 1, 1]
    np.testing.assert_allclose(found[0][1], r, atol=1e-14)
    np.testing.assert_allclose([found[1][1], found[2][1]], [r, r + d], atol=1e-12)


@pytest.mark.dispatch
def test_cholesky_solves_agree_with_the_lu_solves():
    """The Chebyshev search's exact solves (Cholesky of the symmetrically scaled system)
    give the LU solves' soft labels and derivatives to rounding; on a sparse kNN graph
    they are the LU solves themselves."""
    problem = build_problem(ProblemSpec(dataset="digits", n=300, family="complete"))
    sig = [0.5, 0.8, 1.3, 2.1, 3.0]
    for ch, lu in zip(
        problem.model.exact_cholesky_many(sig), problem.model.soft_labels_many(sig), strict=True
    ):
        assert ch.factorizations == 1 and ch.status == "ok"
        np.testing.assert_allclose(ch.f, lu.f, rtol=0, atol=1e-11)
        np.testing.assert_allclose(ch.df, lu.df, rtol=0, atol=1e-9 * np.abs(lu.df).max())
    knn = build_problem(ProblemSpec(dataset="fashion-mnist", n=500, family="knn", k=6)).model
    for ch, lu in zip(knn.exact_cholesky_many(sig), knn.soft_labels_many(sig), strict=True):
        assert np.array_equal(ch.f, lu.f) and np.array_equal(ch.df, lu.df)


def test_the_same_bits_on_one_or_two_worker_threads(monkeypatch):
    import sslviz._threads as threads

    problem = build_problem(ProblemSpec(dataset="digits", n=300, family="complete"))
    curves = []
    for workers in (1, 2):
        monkeypatch.setattr(threads, "WORKERS", workers)
        curves.append(loss_curve(problem, 0.5, 3.0))
    assert np.array_equal(curves[0].breakpoints, curves[1].breakpoints)
    assert np.array_equal(curves[0].evaluations, curves[1].evaluations)


def test_progress_inside_a_cell_changes_no_number(monkeypatch):
    """A cell's 33 solves run in steps of 8 under a progress callback, each step noting the
    count (at most every 0.5 s: here the clock jumps 1 s a call); the curve is the one
    computed without a callback, in one batch per cell."""
    p = build_problem(ProblemSpec(classes=(3, 8), n=300, family="complete"))
    plain = loss_curve(p, 1.0, 4.0)
    clock = iter(range(10**6))
    monkeypatch.setattr(truth.time, "monotonic", lambda: float(next(clock)))
    seen = []
    noted = loss_curve(p, 1.0, 4.0, progress=lambda f, m="": seen.append((f, m)))
    np.testing.assert_array_equal(noted.breakpoints, plain.breakpoints)
    np.testing.assert_array_equal(noted.loss.values, plain.loss.values)
    assert "σ 8 evaluated, 0 breakpoints" in [m for _, m in seen] and [
        f for f, _ in seen
    ] == sorted(f for f, _ in seen)
