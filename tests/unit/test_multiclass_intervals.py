"""Algorithm 4 one-vs-all (docs/method.md §13): the fast mode on CG-t/PCG-t scores, the
certified mode (per-column M-matrix bounds against the top-two margins), the score and
the attribution of every miss with its pair of classes."""

import json

import numpy as np
import pytest

from sslviz.algorithm4 import sweep_classes
from sslviz.attribution import CAUSES
from sslviz.cli import main
from sslviz.problem import build_problem, loss_curve
from sslviz.scoring import score
from sslviz.solvers import solve_cg, top_class_certificate
from sslviz.specs import ProblemSpec, SweepSettings

LO, HI = 1.5, 8.0


def problem(classes=(3, 5, 8), family="complete", n=70, labeled=6, seed=0):
    spec = ProblemSpec(
        dataset="digits",
        classes=classes,
        n=n,
        n_labeled=labeled,
        seed=seed,
        family=family,
        k=6,
    )
    return build_problem(spec)


def run(p, **settings):
    s = SweepSettings(**settings)
    return sweep_classes(p.model, p.instance.y, p.instance.classes, LO, HI, s)


def test_fast_mode_with_the_exact_solver_is_the_exact_curve():
    p = problem()
    truth = loss_curve(p, LO, HI)
    res = run(p, solver="exact")
    ends = np.array([iv.lo for iv in res.intervals[1:]])
    assert ends.size == truth.breakpoints.size
    assert np.allclose(ends, truth.breakpoints, rtol=1e-3 / HI)
    assert score(res, truth, model=p.model, y=p.instance.y).missed == 0


def cg_scores(p, x, solver, t):
    """F at σ = x by ``solve_cg`` per class column (t iterations from zero)."""
    C = p.instance.n_classes
    Y = (p.instance.y[p.model.labeled_idx, None] == np.arange(C)).astype(float)
    A, _ = p.model.laplacian_system(x)
    W = p.model.blocks(x, row_scaled=False)[1]
    M = None
    if solver == "pcg":
        from sslviz.solvers import jacobi

        M = jacobi(A)
    return np.column_stack([solve_cg(A, W @ Y[:, c], maxiter=t, rtol=0.0, M=M).x for c in range(C)])


@pytest.fixture(params=["hermite", "chebyshev"])
def search(request, monkeypatch):
    """The Hermite search, or the Chebyshev search (large graphs only in the app) forced."""
    if request.param == "chebyshev":
        from sslviz import crossings

        monkeypatch.setattr(crossings, "_CHEB_MIN_UNLABELED", 0)
        monkeypatch.setattr(crossings, "_CHEB_MIN_UNLABELED_SPARSE", 0)
    return request.param


@pytest.mark.parametrize("solver", ["cg", "pcg"])
def test_each_interval_loss_is_the_cg_t_argmax_loss(solver, search):
    p = problem(family="knn")
    t = 5
    res = run(p, solver=solver, cg_iters=t)
    assert res.intervals[0].lo == LO and res.intervals[-1].hi == HI
    y_u = p.y_unlabeled
    for iv in res.intervals:
        F = cg_scores(p, 0.5 * (iv.lo + iv.hi), solver, t)
        assert iv.loss == pytest.approx(np.mean(np.argmax(F, axis=1) != y_u), abs=1e-12)


@pytest.mark.parametrize("family", ["complete", "knn"])
def test_fast_mode_edges_are_the_cg_t_argmax_flips(family, search):
    """Every interval edge of the CG-t fast mode is where some node's CG-t argmax starts or
    stops being its class, and none is missed: a brute force on a grid of 1,601 σ with
    ``solve_cg`` per column, each flip bisected."""
    p = problem(family=family, n=60)
    t = 6
    res = run(p, solver="cg", cg_iters=t)
    y_u = p.y_unlabeled

    def right(x):
        return np.argmax(cg_scores(p, x, "cg", t), axis=1) == y_u

    grid = np.geomspace(LO, HI, 1601)
    sides = np.array([right(x) for x in grid])
    ref = []
    for i in np.flatnonzero((sides[1:] != sides[:-1]).any(axis=1)):
        for u in np.flatnonzero(sides[i + 1] != sides[i]):
            a, b = grid[i], grid[i + 1]
            while b - a > 1e-11 * a:
                m = 0.5 * (a + b)
                a, b = (m, b) if right(m)[u] == sides[i, u] else (a, m)
            ref.append((0.5 * (a + b), int(u)))
    got = sorted(
        (float(x), int(u))
        for x, nd in zip(res.curve.breakpoints, res.curve.nodes, strict=True)
        for u in nd
    )
    ref.sort()
    assert len(ref) >= 2 and [u for _, u in got] == [u for _, u in ref]
    # located to the fast mode's rtol, min(1e-3, ε / σ_max)
    assert np.allclose([x for x, _ in got], [x for x, _ in ref], rtol=3e-4 / HI, atol=0)


def test_top_class_bound_never_fails_on_random_m_matrices():
    rng = np.random.default_rng(0)
    proven = 0
    for _ in range(300):
        n, C = int(rng.integers(3, 30)), int(rng.integers(3, 6))
        W = rng.random((n, n)) * (rng.random((n, n)) < 0.4)
        W = np.triu(W, 1) + np.triu(W, 1).T
        A = np.diag(W.sum(1) + rng.random(n) * rng.choice([1e-3, 1.0], n)) - W
        B = rng.random((n, C))
        exact = np.linalg.solve(A, B)
        X = np.column_stack(
            [
                solve_cg(A, B[:, c], maxiter=int(rng.integers(1, 2 * n)), rtol=0.0).x
                for c in range(C)
            ]
        )
        h = solve_cg(A, np.ones(n), maxiter=int(rng.integers(1, n + 1)), rtol=0.0).x
        cert = top_class_certificate(A, B, X, h)
        if not cert.valid:
            continue
        assert np.all(np.abs(exact - X) <= cert.bound)
        ok = cert.certified
        assert np.array_equal(np.argmax(exact[ok], axis=1), np.argmax(X[ok], axis=1))
        proven += int(ok.sum())
    assert proven > 500


@pytest.mark.parametrize(
    "family, n, solver",
    [
        ("complete", 80, "cg"),
        ("complete", 80, "pcg"),
        pytest.param("knn", 450, "cg", marks=pytest.mark.slow),  # sparse: the cap is 400
        pytest.param("knn", 450, "pcg", marks=pytest.mark.slow),
    ],
)
def test_certified_mode_misses_nothing(family, n, solver):
    p = problem(family=family, n=n, labeled=6 if n < 100 else 10)
    truth = loss_curve(p, LO, HI)
    plain = score(run(p, solver=solver, cg_iters=3), truth)
    res = run(p, solver=solver, cg_iters=3, certify=True)
    sc = score(res, truth)
    assert truth.breakpoints.size > 0 and sc.missed == 0 and sc.eps_volume < 1e-8  # rtol 1e-9
    assert plain.missed > 0 or plain.eps_volume > 0  # CG-3 alone gets some of it wrong
    certs = res.certificates
    assert certs is not None and certs.sigma.size == res.curve.evaluations.size
    assert certs.certified.any()


def test_certified_scores_prove_the_exact_top_class():
    p = problem(family="knn")
    y, m = p.instance.y, p.model
    for x in np.geomspace(LO, HI, 9):
        sc = m.certified_scores(x, y, 3, solver="cg", cg_iters=2, cap=400)
        (ex,) = m.scores([x], y, 3)
        assert sc.status in ("certified", "fallback")
        assert np.array_equal(np.argmax(sc.F, axis=1), np.argmax(ex.F, axis=1))
        if sc.status == "certified":
            assert np.max(np.abs(sc.dF - ex.dF)) < 1e-5 * max(1, np.abs(ex.dF).max())


def test_every_miss_names_its_pair_of_classes():
    p = problem(family="complete", n=80)
    truth = loss_curve(p, LO, HI)
    res = run(p, solver="cg", cg_iters=2)
    sc = score(res, truth, model=p.model, y=p.instance.y)
    assert sc.missed > 0
    assert sum(sc.causes.values()) == sc.missed + sc.spurious
    labels = p.instance.classes
    for m in sc.miss_records:
        assert m.cause in CAUSES
        own, rival = m.evidence["classes"]
        u = m.evidence["node"]
        assert own == labels[p.y_unlabeled[u]] and rival in labels and rival != own
        assert f"its class {own} against class {rival}" in m.detail
        assert "1/2" not in m.detail and "soft label" not in m.detail
    solver_misses = [m for m in sc.miss_records if m.cause == "solver"]
    assert all(m.evidence["error"] >= 0 and "approx_margin" in m.evidence for m in solver_misses)


def test_cli_intervals_certify_score(tmp_path):
    out = tmp_path / "o.json"
    args = ["intervals", "--dataset", "digits", "--classes", "3", "5", "8", "--n", "70"]
    args += ["--labeled", "6", "--family", "knn", "--k", "6", "--sigma-min", "1.5"]
    args += ["--sigma-max", "8", "--solver", "cg", "--cg-iters", "3", "--out", str(out)]
    assert main([*args, "--certify", "--score"]) == 0
    d = json.loads(out.read_text())
    assert d["score"]["missed"] == 0 and d["intervals"] and "certify" in d
    assert main([*args, "--score"]) == 0
    d = json.loads(out.read_text())
    assert all(m["classes"][0] in (3, 5, 8) for m in d["score"]["misses"])
