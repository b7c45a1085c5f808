"""Certified fast mode: the M-matrix side certificate of docs/method.md §8 and the
search that uses it. The bound is checked against exact solves (it must never fail), and
the certified search against the exact loss curve (it must miss nothing)."""

import json

import numpy as np
import pytest
import scipy.sparse as sp

from sslviz._validation import InvalidParameterError
from sslviz.cli import main
from sslviz.intervals import sweep
from sslviz.problem import build_problem, loss_curve
from sslviz.solvers import positive_supersolution, side_certificate, solve_cg
from sslviz.specs import ProblemSpec, SweepSettings
from sslviz.truth import true_loss_curve


def _random_m_matrix(rng, n):
    """L_UU of a random connected weighted graph with some edges to L (an M-matrix)."""
    W = rng.random((n, n)) * (rng.random((n, n)) < 0.3)
    W = np.triu(W, 1)
    for i in range(n - 1):  # a path keeps it irreducible
        W[i, i + 1] = max(W[i, i + 1], 1e-3)
    W = W + W.T
    to_l = rng.random(n) * (rng.random(n) < 0.4)
    to_l[rng.integers(n)] += 0.1
    scale = 10.0 ** rng.uniform(-8, 3)  # weights of any scale (small σ: tiny weights)
    A = np.diag((W.sum(1) + to_l) * scale) - W * scale
    b = to_l * scale * (rng.random(n) < 0.5)  # W_UL f_L with binary labels
    return A, b


def test_bound_never_fails_on_random_m_matrices():
    """|x* − x| ≤ g on every entry, for random M-matrices, CG at random t, h of random
    accuracy, dense and sparse (2,000 systems, ~60,000 entries)."""
    rng = np.random.default_rng(0)
    checked = certified = 0
    for trial in range(2000):
        n = int(rng.integers(5, 60))
        A, b = _random_m_matrix(rng, n)
        exact = np.linalg.solve(A, b)
        x = solve_cg(A, b, maxiter=int(rng.integers(1, 30)), rtol=0.0).x
        h, _ = positive_supersolution(A, maxiter=int(rng.integers(1, 200)))
        cert = side_certificate(sp.csr_matrix(A) if trial % 2 else A, b, x, h)
        if not cert.valid:
            continue
        assert np.all(np.abs(exact - x) <= cert.bound)
        assert not np.any(cert.certified & ((exact > 0.5) != (x > 0.5)))
        checked += n
        certified += int(cert.certified.sum())
    assert checked > 30_000 and certified > checked // 3  # the test is not vacuous


@pytest.mark.parametrize("family", ["knn", "complete"])
def test_bound_never_fails_on_real_instances(family):
    p = build_problem(ProblemSpec(classes=(3, 8), n=120, n_labeled=10, family=family))
    m, keep = p.model, ~p.model._structural
    cases = 0
    for sigma in np.geomspace(0.8, 6.0, 15):
        A, b = m.laplacian_system(sigma)
        A = A[np.ix_(keep, keep)] if isinstance(A, np.ndarray) else A[keep][:, keep]
        exact = m.soft_labels(sigma, solver="exact", derivative=False).f[keep]
        h, _ = positive_supersolution(A, maxiter=500)
        for t in (1, 3, 10, 30, 100):
            x = solve_cg(A, b[keep], maxiter=t, rtol=0.0).x
            cert = side_certificate(A, b[keep], x, h)
            assert cert.valid
            assert np.all(np.abs(exact - x) <= cert.bound)
            cases += x.size
    assert cases > 5000


def test_invalid_supersolution_certifies_nothing():
    A = np.array([[2.0, -1.0], [-1.0, 2.0]])
    cert = side_certificate(A, np.array([1.0, 0.0]), np.zeros(2), np.array([1.0, -5.0]))
    assert not cert.valid and not cert.certified.any() and np.all(np.isinf(cert.bound))


@pytest.mark.parametrize(
    "classes, family, n, t",
    [
        ((3, 8), "complete", 80, 3),
        ((3, 8), "knn", 120, 5),
        ((1, 7), "mutual-knn", 100, 2),
        ((0, 1), "complete", 60, 1),
    ],
)
def test_certified_search_finds_every_breakpoint(classes, family, n, t):
    p = build_problem(ProblemSpec(classes=classes, n=n, n_labeled=8, family=family))
    lo, hi = 0.5, 6.0
    truth = loss_curve(p, lo, hi)
    for solver in ("cg", "pcg"):
        cert = true_loss_curve(
            p.model, p.y_unlabeled, lo, hi, solver=solver, cg_iters=t, certify_cap=200
        )
        assert cert.breakpoints.size == truth.breakpoints.size
        np.testing.assert_allclose(cert.breakpoints, truth.breakpoints, rtol=1e-8)
        np.testing.assert_array_equal(cert.loss.values, truth.loss.values)
        c = cert.certificates
        assert c.sigma.size == cert.evaluations.size and c.iterations.min() >= 0
        assert 0 <= c.exact_fallbacks <= c.sigma.size


def test_certified_labels_match_exact_sides_or_fall_back():
    p = build_problem(ProblemSpec(classes=(3, 8), n=100, n_labeled=10, family="knn"))
    for sigma in (0.7, 1.5, 3.0):
        sl = p.model.certified_labels(sigma, cg_iters=5, cap=300)
        exact = p.model.soft_labels(sigma, solver="exact")
        assert sl.status in ("certified", "fallback")
        np.testing.assert_array_equal(sl.f > 0.5, exact.f > 0.5)
        if sl.status == "certified":
            assert sl.iterations >= 5 and sl.factorizations == 0
            np.testing.assert_allclose(sl.df, exact.df, rtol=1e-4, atol=1e-6)


def test_delalleau_always_falls_back_to_exact():
    spec = ProblemSpec(n=60, n_labeled=6, labeling="delalleau", subset=20)
    p = build_problem(spec)
    sl = p.model.certified_labels(1.5)
    assert sl.status == "fallback"
    np.testing.assert_array_equal(sl.f, p.model.soft_labels(1.5, solver="exact").f)


def test_settings_refuse_certify_where_it_means_nothing():
    with pytest.raises(InvalidParameterError, match="certify every side.*set mode to fast"):
        SweepSettings(certify=True, mode="paper")
    with pytest.raises(
        InvalidParameterError, match="certify every side.*the exact solver is exact already"
    ):
        SweepSettings(certify=True, solver="exact")


def test_sweep_and_cli_report_the_certificates(tmp_path):
    p = build_problem(ProblemSpec(classes=(3, 8), n=60, n_labeled=6, family="complete"))
    res = sweep(p.model, p.y_unlabeled, 0.5, 5.0, SweepSettings(cg_iters=3, certify=True))
    assert res.certificates is not None and res.matvecs > 0
    out = tmp_path / "c.json"
    args = [
        "intervals",
        "--classes",
        "3",
        "8",
        "--n",
        "60",
        "--labeled",
        "6",
        "--family",
        "complete",
        "--sigma-min",
        "0.5",
        "--sigma-max",
        "5",
        "--cg-iters",
        "3",
        "--certify",
        "--score",
        "--out",
        str(out),
    ]
    assert main(args) == 0
    d = json.loads(out.read_text())
    c = d["certify"]
    assert d["score"]["missed"] == 0
    assert c["certified_sigmas"] + c["exact_fallbacks"] == c["evaluations"] == len(c["per_sigma"])
    assert d["settings"]["certify"] is True
