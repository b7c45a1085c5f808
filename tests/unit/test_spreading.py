"""LabelSpreading (docs/method.md §3.4): the closed form, scikit-learn's own LabelSpreading
and LabelPropagation, derivatives, the exact curve against brute force, the certificate,
Algorithm 4, conditioning, the settings row α and the command line."""

import json
import subprocess
import sys
import warnings

import numpy as np
import pytest
from reference import instance, weights
from sklearn.semi_supervised import LabelPropagation, LabelSpreading
from test_truth import _brute_roots

from sslviz import registry
from sslviz.algorithm4 import sweep
from sslviz.checks import check_model
from sslviz.conditioning import condition_curve
from sslviz.problem import make_model
from sslviz.scoring import score
from sslviz.specs import GraphSpec, LabelingSpec, ProblemSpec, SweepSettings, to_query
from sslviz.spreading import SpreadingModel
from sslviz.truth import true_loss_curve


def _model(X, labeled, y, family="knn", k=5, alpha=0.2):
    return make_model(X, labeled, y, GraphSpec(family, k), LabelingSpec("spreading", alpha=alpha))


def _closed_form(X, labeled, y, sigma, family, k, alpha):
    """F = (I − αS)⁻¹ Y with S = D^-½ W D^-½, dense; the normalised class-1 score."""
    W = weights(X, sigma, family, k)
    d = W.sum(1)
    S = W / np.sqrt(np.outer(d, d))
    Y = np.zeros((X.shape[0], 2))
    Y[labeled, y[labeled]] = 1.0
    F = np.linalg.solve(np.eye(X.shape[0]) - alpha * S, Y)
    return (F[:, 1] / F.sum(1))[~labeled]


def _sklearn(X, labeled, y, sigma, family, k, alpha):
    """scikit-learn's LabelSpreading, converged: rbf γ = 1/σ², or a callable kernel that
    gives sslviz's kNN weights."""
    kernel = "rbf" if family == "complete" else (lambda A, B: weights(A, sigma, family, k))
    ls = LabelSpreading(kernel=kernel, gamma=1.0 / sigma**2, alpha=alpha, max_iter=100_000)
    ls.tol = 1e-15
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a ConvergenceWarning fails the test
        ls.fit(X, np.where(labeled, y, -1))
    assert ls.n_iter_ < 100_000
    return ls.label_distributions_[~labeled, 1], ls.transduction_[~labeled]


@pytest.mark.parametrize("family", ["complete", "knn"])
@pytest.mark.parametrize("alpha", [0.2, 0.8])
def test_soft_labels_equal_closed_form_and_scikit_learn(family, alpha):
    X, labeled, y = instance(seed=4, n=50)
    model = _model(X, labeled, y, family, alpha=alpha)
    for sigma in (0.3, 0.6, 1.2, 2.5):
        f = model.soft_labels(sigma, solver="exact").f
        np.testing.assert_allclose(
            f, _closed_form(X, labeled, y, sigma, family, 5, alpha), atol=1e-12
        )
        dist, predicted = _sklearn(X, labeled, y, sigma, family, 5, alpha)
        np.testing.assert_allclose(f, dist, atol=1e-8)
        np.testing.assert_array_equal(predicted, (f > 0.5).astype(int))


def test_scikit_learn_label_propagation_is_the_harmonic_model():
    """Hard clamping: scikit-learn's self-loops w_ii = 1 do not change the solution, on the
    complete graph (rbf) and on the kNN graph (a callable kernel, its diagonal 1)."""
    X, labeled, y = instance(seed=7, n=40)
    for family in ("complete", "knn"):
        harmonic = make_model(X, labeled, y, GraphSpec(family, 5))
        for sigma in (0.4, 0.9, 2.0):

            def kernel(A, B, sigma=sigma, family=family):
                return weights(A, sigma, family, 5) + np.eye(A.shape[0])  # the self-loop

            lp = LabelPropagation(
                kernel="rbf" if family == "complete" else kernel,
                gamma=1.0 / sigma**2,
                max_iter=200_000,
                tol=1e-13,
            )
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                lp.fit(X, np.where(labeled, y, -1))
            f = harmonic.soft_labels(sigma, solver="exact", derivative=False).f
            np.testing.assert_allclose(lp.label_distributions_[~labeled, 1], f, atol=1e-6)


@pytest.mark.parametrize("family", ["complete", "knn"])
def test_derivative_matches_finite_differences(family):
    X, labeled, y = instance(seed=2, n=40)
    model = _model(X, labeled, y, family)
    for sigma in (0.3, 0.8, 2.0):
        sl = model.soft_labels(sigma, solver="exact")
        h = 1e-5 * sigma
        up, down = (model.soft_labels(sigma + s, solver="exact").f for s in (h, -h))
        np.testing.assert_allclose(sl.df, (up - down) / (2 * h), rtol=1e-5, atol=1e-8)
        for solver in ("cg", "pcg"):
            cg = model.soft_labels(sigma, solver=solver, cg_iters=60)
            np.testing.assert_allclose(cg.f, sl.f, atol=1e-12)
            np.testing.assert_allclose(cg.df, sl.df, rtol=1e-7, atol=1e-10)
        inverse = model.soft_labels(sigma, solver="inverse")
        np.testing.assert_allclose(inverse.f, sl.f, atol=1e-13)


@pytest.mark.slow  # about 10 s: every solver on every Gaussian family
def test_check_model_passes():
    check_model(SpreadingModel)


@pytest.mark.parametrize("family", ["complete", "knn"])
@pytest.mark.slow  # a 4,001-point grid of dense closed forms
def test_exact_curve_matches_brute_force(family):
    X, labeled, y = instance(seed=1, n=40, offset=0.8)
    model = _model(X, labeled, y, family)
    y_u = y[~labeled]
    lo, hi = 0.15, 2.0
    curve = true_loss_curve(model, y_u, lo, hi)
    roots = _brute_roots(lambda s: _closed_form(X, labeled, y, s, family, 5, 0.2), lo, hi)
    brute = np.array([r for r, _ in roots])
    assert brute.size >= 2, "the instance should have crossings"
    np.testing.assert_allclose(curve.breakpoints, brute, rtol=1e-8)
    for sigma in np.linspace(lo, hi, 37):
        f = _closed_form(X, labeled, y, sigma, family, 5, 0.2)
        assert curve.loss(sigma) == pytest.approx(np.mean((f > 0.5) != y_u), abs=1e-12)


def _problem_model(seed=3, n=80, family="knn"):
    X, labeled, y = instance(seed=seed, n=n, offset=0.6, n_lab=4)
    return _model(X, labeled, y, family), y[~labeled]


@pytest.mark.parametrize("family", ["complete", "knn"])
@pytest.mark.slow  # two certified curves and a sweep: about 2 s
def test_certified_search_misses_nothing(family):
    model, y_u = _problem_model(family=family)
    truth = true_loss_curve(model, y_u, 0.1, 2.0)
    assert truth.breakpoints.size >= 2
    for solver in ("cg", "pcg"):
        cert = true_loss_curve(model, y_u, 0.1, 2.0, solver=solver, cg_iters=2, certify_cap=200)
        np.testing.assert_allclose(cert.breakpoints, truth.breakpoints, rtol=1e-8)
        np.testing.assert_array_equal(cert.loss.values, truth.loss.values)
        c = cert.certificates  # scores far below rounding level cannot be proven: exact there
        assert 0 <= c.exact_fallbacks < c.sigma.size
    s = sweep(model, y_u, 0.1, 2.0, SweepSettings(cg_iters=2, certify=True))
    assert score(s, truth).missed == 0


@pytest.mark.slow  # about 3 s
def test_algorithm_4_fast_mode_with_cg_is_scored():
    model, y_u = _problem_model()
    truth = true_loss_curve(model, y_u, 0.1, 2.0)
    missed = []
    for t in (1, 20):
        sc = score(sweep(model, y_u, 0.1, 2.0, SweepSettings(cg_iters=t)), truth)
        assert 0 <= sc.missed <= truth.breakpoints.size and sc.eps_volume >= 0
        missed.append(sc.missed)
    assert missed[-1] == 0  # κ ≤ 1.5: 20 iterations give the exact sides here


@pytest.mark.slow  # paper mode: Algorithm 4 node by node
def test_algorithm_4_paper_mode_with_cg_is_scored():
    model, y_u = _problem_model(n=40)
    truth = true_loss_curve(model, y_u, 0.1, 2.0)
    s = sweep(model, y_u, 0.1, 2.0, SweepSettings(cg_iters=5, mode="paper"))
    sc = score(s, truth)
    assert len(s.intervals) >= 1 and 0 <= sc.missed <= truth.breakpoints.size


def test_sides_by_t_are_the_solves_with_each_t():
    model, _ = _problem_model(n=60)
    sides, degenerate = model.sides_by_t([0.2, 0.7], solver="pcg", iterations=6)
    for j, sigma in enumerate((0.2, 0.7)):
        for t in range(1, 7):
            f = model.soft_labels(sigma, solver="pcg", cg_iters=t, derivative=False).f
            np.testing.assert_array_equal(sides[j, t - 1], f > 0.5)
    assert not degenerate.any()


def test_condition_number_within_the_bound():
    model, _ = _problem_model(n=50, family="complete")
    sigmas = np.array([0.2, 0.6, 2.0])
    curve = condition_curve(model, sigmas)
    for sigma, k in zip(sigmas, curve.kappa, strict=True):
        A, M, b, cut = model.condition_system(sigma)
        ev = np.linalg.eigvalsh(A)
        assert cut == 0 and ev.min() > 0 and M is A
        assert k == pytest.approx(ev.max() / ev.min(), rel=1e-8)
        assert k <= model.kappa_bound() * (1 + 1e-12)


def test_cut_off_nodes_are_held_at_half_and_reported():
    rng = np.random.default_rng(8)
    X = np.vstack([0.4 * rng.normal(size=(20, 4)), 0.4 * rng.normal(size=(12, 4)) + 50.0])
    y = np.r_[np.arange(20) % 2, np.arange(12) % 2]
    labeled = np.zeros(32, bool)
    labeled[:4] = True
    model = _model(X, labeled, y, "knn", k=4)
    for solver in ("exact", "cg"):
        sl = model.soft_labels(0.7, solver=solver)
        far = model.unlabeled_idx >= 20
        np.testing.assert_array_equal(sl.degenerate, far)
        assert np.all(sl.f[far] == 0.5) and np.all(sl.df[far] == 0.0)


def test_alpha_is_a_setting_of_this_model_only():
    assert "spreading" in registry.MODELS.names()
    spec = ProblemSpec(labeling="spreading", alpha=0.5)
    assert spec.labeling_spec.alpha == 0.5
    assert "alpha" in spec.to_dict() and "alpha" not in ProblemSpec().to_dict()
    assert to_query(ProblemSpec(alpha=0.5)).get("alpha") is None
    assert to_query(spec)["alpha"] == "0.5"
    for bad in (0.0, 1.0, -0.2, 1.5):
        with pytest.raises(ValueError, match="greater than 0 and smaller than 1"):
            ProblemSpec(labeling="spreading", alpha=bad)


def _cli(*args):
    """``sslviz`` run in a subprocess: the finished process, its output as text."""
    return subprocess.run(
        [sys.executable, "-m", "sslviz.cli", *args], capture_output=True, text=True
    )


@pytest.mark.slow  # subprocesses
def test_command_line_loss_writes_the_usual_json(tmp_path):
    out = tmp_path / "loss.json"
    args = ["loss", "--dataset", "digits", "--classes", "3", "8", "--n", "60", "--family"]
    args += ["knn", "--labeling", "spreading", "--alpha", "0.2", "--no-timings"]
    run = _cli(*args, "--out", str(out))
    assert run.returncode == 0, run.stderr
    d = json.loads(out.read_text())
    assert {"breakpoints", "nodes", "pieces", "best", "degenerate"} <= set(d)
    assert d["settings"]["labeling"] == "spreading" and d["settings"]["alpha"] == 0.2
    assert "spreading labeling (α = 0.2)" in run.stdout
    bad = _cli(*args[:-3], "--alpha", "1")
    assert bad.returncode == 2 and "--alpha must be a number greater than 0" in bad.stderr


# --------------------------------------------------------------------------------------
# More than two classes (one-vs-all through SpreadingModel.relabeled; docs/method.md §3.4)
# --------------------------------------------------------------------------------------


def _three_classes(seed=2, n=60):
    """Three Gaussian blobs in 5 dimensions, two labeled points per class."""
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.arange(n) % 3)
    X = 0.35 * (rng.normal(size=(n, 5)) + 1.2 * np.eye(5)[y])
    labeled = np.zeros(n, bool)
    for c in range(3):
        labeled[rng.choice(np.flatnonzero(y == c), 2, replace=False)] = True
    return X, labeled, y


@pytest.mark.parametrize("family", ["complete", "knn"])
def test_three_class_scores_equal_scikit_learn(family):
    X, labeled, y = _three_classes()
    model = _model(X, labeled, y, family)
    kernel = "rbf" if family == "complete" else None
    for sigma in (0.4, 0.8, 1.6):
        (sc,) = model.scores([sigma], y, 3, solver="exact")
        k = kernel or (lambda A, B, s=sigma: weights(A, s, family, 5))
        ls = LabelSpreading(kernel=k, gamma=1.0 / sigma**2, alpha=0.2, max_iter=100_000)
        ls.tol = 1e-15
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a ConvergenceWarning fails the test
            ls.fit(X, np.where(labeled, y, -1))
        np.testing.assert_allclose(sc.F, ls.label_distributions_[~labeled], atol=1e-8)
        np.testing.assert_allclose(sc.F.sum(1), 1.0, atol=1e-12)
        np.testing.assert_array_equal(np.argmax(sc.F, 1), ls.transduction_[~labeled])


@pytest.mark.parametrize(
    ("family", "classes", "labeled", "pieces"),
    [("complete", (1, 7, 9), 9, 16), ("knn", (3, 5, 8), 6, 3)],
)
def test_three_class_exact_curve_matches_brute_force(family, classes, labeled, pieces):
    from test_multiclass_truth import check_against_brute_force, problem

    p = problem(classes, family, "spreading", labeled=labeled, alpha=0.8)
    assert check_against_brute_force(p).breakpoints.size + 1 >= pieces


def test_three_class_certified_scores_are_the_exact_top_class():
    X, labeled, y = _three_classes()
    model = _model(X, labeled, y)
    for sigma in (0.5, 1.0):
        cert = model.certified_scores(sigma, y, 3)
        (exact,) = model.scores([sigma], y, 3)
        np.testing.assert_array_equal(np.argmax(cert.F, 1), np.argmax(exact.F, 1))


@pytest.mark.slow  # a subprocess
def test_command_line_three_classes(tmp_path):
    out = tmp_path / "intervals.json"
    args = ["intervals", "--dataset", "digits", "--classes", "0", "1", "2", "--n", "60"]
    args += ["--labeling", "spreading", "--certify", "--score", "--no-timings"]
    run = _cli(*args, "--out", str(out))
    assert run.returncode == 0, run.stderr
    d = json.loads(out.read_text())
    assert d["settings"]["labeling"] == "spreading" and d["settings"]["classes"] == [0, 1, 2]
    assert d["score"]["missed"] == 0 and d["intervals"]


@pytest.mark.parametrize("solver", ["exact", "inverse"])
@pytest.mark.parametrize("family", ["complete", "knn"])
def test_three_class_scores_share_one_factorisation_per_sigma(solver, family):
    """The direct path (one factorisation for all columns) is the one-vs-all columns of
    SpreadingModel.relabeled, F and F', to rounding."""
    from sslviz.labeling import SoftLabelModel

    X, labeled, y = _three_classes()
    model = _model(X, labeled, y, family)
    sigmas = [0.4, 0.9, 1.7]
    fast = model.scores(sigmas, y, 3, solver=solver)
    columns = SoftLabelModel.scores(model, sigmas, y, 3, solver=solver)
    for a, b in zip(fast, columns, strict=True):
        assert a.factorizations == 1 and b.factorizations == 3
        np.testing.assert_allclose(a.F, b.F, atol=1e-12)
        np.testing.assert_allclose(a.dF, b.dF, atol=1e-10, rtol=1e-9)
        np.testing.assert_array_equal(a.degenerate, b.degenerate)


def _three_class_problem(family):
    from test_multiclass_truth import problem

    return problem((3, 5, 8), family, "spreading", labeled=6, alpha=0.8)


@pytest.mark.parametrize("family", ["complete", "knn"])
@pytest.mark.parametrize("solver", ["cg", "pcg"])
def test_three_class_certified_mode_misses_nothing(family, solver):
    """CG-2 with the top-class certificate of I − αS (docs/method.md §3.4, §13.5) finds the
    exact curve; most evaluated σ are proven, the rest solved exactly."""
    from test_multiclass_truth import HI, LO

    from sslviz.algorithm4 import sweep_classes
    from sslviz.problem import loss_curve

    p = _three_class_problem(family)
    truth = loss_curve(p, LO, HI)
    y, classes = p.instance.y, p.instance.classes
    plain = sweep_classes(p.model, y, classes, LO, HI, SweepSettings(solver=solver, cg_iters=2))
    assert score(plain, truth).missed > 0  # CG-2 alone misses
    settings = SweepSettings(solver=solver, cg_iters=2, certify=True)
    res = sweep_classes(p.model, y, classes, LO, HI, settings)
    sc = score(res, truth)
    assert truth.breakpoints.size > 0 and sc.missed == 0 and sc.eps_volume < 1e-8
    certs = res.certificates
    assert certs.sigma.size == res.curve.evaluations.size
    assert certs.certified.sum() > certs.exact_fallbacks


@pytest.mark.parametrize("family", ["complete", "knn"])
def test_three_class_certified_top_class_is_the_dense_argmax(family):
    """Every certified σ's top class is the argmax of a dense numpy solve of (9) from the
    points alone; ∂F/∂σ is within the order of F's own error (F is the CG iterate, only its
    argmax is proven); the two-class call is the exact fallback."""
    from test_multiclass_truth import HI, LO, Dense

    p = _three_class_problem(family)
    y, m, dense = p.instance.y, p.model, Dense(p)
    statuses = []
    for x in np.geomspace(LO, HI, 12):
        sc = m.certified_scores(x, y, 3, solver="cg", cg_iters=2, cap=400)
        statuses.append(sc.status)
        if sc.status != "certified":
            continue
        np.testing.assert_array_equal(np.argmax(sc.F, 1), np.argmax(dense.scores(x), 1))
        (ex,) = m.scores([x], y, 3)
        error = np.abs(sc.F - ex.F).max()
        assert np.abs(sc.dF - ex.dF).max() <= 10.0 * error + 1e-8
        assert sc.iterations >= 2 and sc.supersolution is not None
    assert statuses.count("certified") > statuses.count("fallback")
    binary = m.certified_scores(2.0, (y == 3).astype(int), 2)
    assert binary.status == "fallback"
