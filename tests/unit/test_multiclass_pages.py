"""More than two classes on the other views (docs/method.md §13.8): conditioning, the
CG-iterations scrubber, regret and learning, each checked against the same numbers
computed directly on the 3-class instance."""

import itertools
import json

import numpy as np
import pytest
from reference import algorithm4

from sslviz import export
from sslviz._validation import InvalidParameterError
from sslviz.algorithm4 import feedback_set_classes, sweep, sweep_classes, top_two
from sslviz.animation import (
    class_convergence,
    class_convergence_figure,
    class_steps,
    class_steps_words,
    player_figure,
)
from sslviz.class_trust import class_trust_curve
from sslviz.cli import main
from sslviz.conditioning import classes_words, condition_curve
from sslviz.experiment import _repetition_seeds, view_regret_stream
from sslviz.learn import clear_instance_memo, drawn_instances, learn
from sslviz.problem import (
    GraphRounds,
    build_problem,
    clear_round_memo,
    loss_curve,
    make_model,
    run_regret,
)
from sslviz.scoring import score
from sslviz.specs import ProblemSpec, RegretSettings, SweepSettings
from sslviz.truth import multiclass_loss_curve

CLASSES = (3, 5, 8)


def problem(classes=CLASSES, family="complete", n=70, labeled=6, seed=0):
    spec = ProblemSpec(
        dataset="digits", classes=classes, n=n, n_labeled=labeled, seed=seed, family=family, k=6
    )
    return build_problem(spec)


def cli_json(args: list[str], capsys) -> dict:
    assert main([*args, "--json", "--no-timings"]) == 0
    return json.loads(capsys.readouterr().out)


def cli_error(args: list[str], capsys) -> str:
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith("sslviz: error: ")
    return err


# -- conditioning ---------------------------------------------------------------------------


@pytest.mark.parametrize("family", ["complete", "knn"])
def test_condition_numbers_are_the_matrix_and_the_worst_column(family):
    p = problem(family=family)
    inst, sig = p.instance, np.linspace(1.0, 6.0, 5)
    curve = condition_curve(p.model, sig, cg_iters=4, y=inst.y, classes=inst.classes)
    assert curve.classes == CLASSES
    # κ: the matrix of the same points and labeled set with any binary labels
    binary = make_model(inst.X, inst.labeled, inst.y == 0, p.spec.graph_spec)
    direct = condition_curve(binary, sig, cg_iters=4)
    assert np.array_equal(curve.kappa, direct.kappa)
    assert np.array_equal(curve.lambda_min, direct.lambda_min)
    # iterations needed and CG-4's error: the worst of the three one-vs-all columns
    cols = [
        condition_curve(
            make_model(inst.X, inst.labeled, inst.y == c, p.spec.graph_spec), sig, cg_iters=4
        )
        for c in range(3)
    ]
    assert np.array_equal(curve.iterations_needed, np.max([c.iterations_needed for c in cols], 0))
    assert np.array_equal(curve.cg_error, np.max([c.cg_error for c in cols], 0))
    assert np.array_equal(curve.reached, np.all([c.reached for c in cols], 0))
    # and each column's error is that of a dense solve of L_UU f = W_UL 1[y = c]
    U, L = p.model.unlabeled_idx, p.model.labeled_idx
    for x, err in zip(sig, curve.cg_error, strict=True):
        W = p.graph.kernel(x)
        W = W.toarray() if hasattr(W, "toarray") else np.asarray(W)
        A = np.diag(W[U].sum(1)) - W[np.ix_(U, U)]
        worst = 0.0
        for c in range(3):
            f = np.linalg.solve(A, W[np.ix_(U, L)] @ (inst.y[L] == c))
            t = p.model.relabeled(inst.y == c).soft_labels(x, solver="cg", cg_iters=4).f
            worst = max(worst, float(np.max(np.abs(t - f))))
        assert err == pytest.approx(worst, rel=1e-6, abs=1e-9)
    assert "do not depend on the labels or the number of classes" in classes_words(curve)
    assert classes_words(direct) is None


def test_cli_condition_three_classes(capsys):
    args = ["condition", "--classes", "3", "5", "8", "--n", "70", "--labeled", "6"]
    doc = cli_json([*args, "--sigmas", "1:6:5", "--cg-iters", "4"], capsys)
    p = problem()
    curve = condition_curve(
        p.model, np.linspace(1, 6, 5), cg_iters=4, y=p.instance.y, classes=CLASSES
    )
    assert doc["classes"] == list(CLASSES)
    assert doc["kappa"] == curve.kappa.tolist()
    assert doc["iterations_needed"] == curve.iterations_needed.tolist()
    assert doc["cg_error"] == curve.cg_error.tolist()
    two = cli_json(["condition", "--classes", "3", "5", "--n", "70", "--sigmas", "1:6:3"], capsys)
    assert "classes" not in {k for k in two if k != "settings"}


def test_cli_condition_trust_is_class_trust_curve(capsys):
    """``condition --trust`` with 3 classes writes class_trust_curve's numbers (§13.9): CG-t's
    largest column error, half the smallest top-two margin, the t needed and the verdict."""
    args = ["condition", "--classes", *map(str, CLASSES), "--n", "70", "--labeled", "6"]
    for solver in ("cg", "pcg"):
        extra = ["--sigmas", "1:6:5", "--cg-iters", "4", "--solver", solver, "--trust"]
        doc = cli_json([*args, *extra], capsys)["trust"]
        p = problem()
        sig = np.linspace(1, 6, 5)
        tc = class_trust_curve(
            p.model, p.instance.y, p.instance.classes, sig, solver=solver, cg_iters=4
        )
        assert doc == export.to_dict(tc)
        assert doc["error"] == tc.error.tolist() and doc["margin"] == tc.margin.tolist()
        assert doc["t_needed_cg"] == tc.t_needed_cg.tolist()
        assert doc["t_needed_pcg"] == tc.t_needed_pcg.tolist()
        assert doc["untrusted"] == tc.untrusted.tolist() and doc["reading"] == tc.reading()
        assert doc["solver"] == solver and min(doc["t_needed_cg"]) >= 1


# -- the CG-iterations scrubber -------------------------------------------------------------

LO, HI = 1.5, 8.0
BASE = ["--classes", "3", "5", "8", "--n", "70", "--labeled", "6"]


def test_class_steps_spread_over_t_and_hold_the_sidebar_t():
    assert class_steps(100, 20) == [1, 2, 4, 7, 14, 20, 27, 52, 100]
    assert class_steps(3, 20) == [1, 2, 3]
    assert class_steps(1, 1) == [1]


def test_each_scrubber_frame_is_the_intervals_command(capsys):
    p = problem()
    steps = [1, 3, 10]
    truth = loss_curve(p, LO, HI)
    cc = class_convergence(
        p.model, p.instance.y, p.instance.classes, truth, SweepSettings(), steps, score=score
    )
    fig = class_convergence_figure(cc, start=3, as_dict=True)
    frames = {f["name"]: f for f in fig["frames"]}
    assert list(frames) == ["t1", "t3", "t10"]
    for k, t in enumerate(steps):
        for i, sv in enumerate(("cg", "pcg")):
            doc = cli_json(
                [
                    "intervals",
                    *BASE,
                    "--sigma-min",
                    "1.5",
                    "--sigma-max",
                    "8",
                    "--solver",
                    sv,
                    "--cg-iters",
                    str(t),
                    "--score",
                ],
                capsys,
            )
            ivs = doc["intervals"]
            trace = frames[f"t{t}"]["data"][i]
            assert trace["x"] == [ivs[0]["lo"], *[iv["hi"] for iv in ivs]]
            assert trace["y"][:-1] == [iv["loss"] for iv in ivs]
            assert cc.missed[sv][k] == doc["score"]["missed"]
        text = frames[f"t{t}"]["layout"]["annotations"][0]["text"]
        assert f"t = {t}</b>" in text and f"of {truth.breakpoints.size}" in text
    assert "sslviz intervals --cg-iters t" in class_steps_words(cc)


# -- regret ---------------------------------------------------------------------------------


def test_regret_rounds_are_three_class_instances_and_the_stream_is_the_one_shot_run():
    spec = ProblemSpec(
        dataset="digits", classes=CLASSES, n=50, n_labeled=6, family="knn", k=5, seed=2
    )
    lo, hi, settings = 1.5, 6.0, SweepSettings(cg_iters=5)
    regret = RegretSettings(rounds=5, repeats=2, feedback=("approx", "exact", "full"))
    clear_round_memo()
    one = run_regret(spec, (lo, hi), settings, regret)
    for r in range(regret.repeats):
        _, seeds = _repetition_seeds(spec.seed, r, regret.rounds)
        for t, s in enumerate(seeds):  # each round: a 3-class instance, its exact curve
            p = build_problem(spec.with_seed(s))
            assert p.instance.classes == CLASSES
            assert set(p.instance.y[p.instance.labeled].tolist()) == {0, 1, 2}
            truth = multiclass_loss_curve(p.model, p.instance.y, CLASSES, lo, hi).loss
            for model in one.models.values():
                run = model.runs[r]
                assert run.losses_played[t] == truth(run.sigmas[t])
    clear_round_memo()
    parts = list(view_regret_stream(GraphRounds(spec, lo, hi, settings), regret, seed=2))
    assert parts[-1].complete
    docs = [
        export.download_text(
            export.without_timings(
                export.regret_document(spec, (lo, hi), settings, regret, e, CLASSES)
            )
        )
        for e in (parts[-1].experiment, one)
    ]
    assert docs[0] == docs[1] and json.loads(docs[0])["classes"] == list(CLASSES)
    for m, n in zip(parts[-1].experiment.models.values(), one.models.values(), strict=True):
        for a, b in zip(m.runs, n.runs, strict=True):
            assert np.array_equal(a.sigmas, b.sigmas) and np.array_equal(a.regret, b.regret)


def test_cli_regret_three_classes(capsys):
    args = ["regret", *BASE, "--sigma-min", "1.5", "--sigma-max", "6", "--rounds", "3"]
    doc = cli_json([*args, "--repeats", "1", "--feedback", "exact"], capsys)
    assert doc["classes"] == list(CLASSES) and doc["settings"]["classes"] == list(CLASSES)


def test_regret_paper_mode_feedback_is_the_paper_mode_interval_around_the_sigma_played():
    spec = ProblemSpec(dataset="digits", classes=CLASSES, n=40, n_labeled=6, seed=1)
    settings = SweepSettings(mode="paper", cg_iters=6)
    rounds = GraphRounds(spec, 2.0, 4.0, settings)
    for seed, x in ((3, 2.5), (4, 3.1)):
        p = build_problem(spec.with_seed(seed))
        iv = feedback_set_classes(p.model, p.instance.y, CLASSES, x, 2.0, 4.0, settings)
        assert rounds.approx_feedback(seed, x) == (iv.lo, iv.hi, iv.loss)
        assert iv.lo <= x <= iv.hi
        whole = sweep_classes(p.model, p.instance.y, CLASSES, 2.0, 4.0, settings)
        first = whole.intervals[0]
        again = feedback_set_classes(p.model, p.instance.y, CLASSES, 2.0, 2.0, 4.0, settings)
        assert (again.lo, again.hi, again.loss) == (first.lo, first.hi, first.loss)


# -- learning from instances ----------------------------------------------------------------


def test_learn_on_a_three_class_domain_averages_the_exact_curves():
    spec = ProblemSpec(
        dataset="digits", classes=CLASSES, n=50, n_labeled=6, family="knn", k=5, seed=4
    )
    lo, hi = 1.5, 6.0
    train, test, _ = drawn_instances(spec, 3, 2)
    cg = SweepSettings(solver="cg", cg_iters=4)
    clear_instance_memo()
    result = learn(train, test, (lo, hi), approx=(cg,), n_jobs=1)
    problems = [build_problem(sp) for sp in train]
    assert all(p.instance.classes == CLASSES for p in problems)
    exact = [multiclass_loss_curve(p.model, p.instance.y, CLASSES, lo, hi).loss for p in problems]
    approx = [
        sweep_classes(p.model, p.instance.y, CLASSES, lo, hi, cg).estimated_loss() for p in problems
    ]
    sig = np.r_[np.linspace(lo, hi, 41)[:-1], result.erm.sigma_hat]
    for s in sig:
        assert result.average.loss(s) == pytest.approx(np.mean([c(s) for c in exact]), abs=1e-12)
        got = result.approximate[0].average.loss(s)
        assert got == pytest.approx(np.mean([c(s) for c in approx]), abs=1e-12)
    assert result.average.loss(result.erm.sigma_hat) == pytest.approx(result.erm.loss)


def test_cli_learn_three_classes(tmp_path, capsys):
    args = ["learn", *BASE, "--sigma-min", "1.5", "--sigma-max", "6", "--dataset", "digits"]
    doc = cli_json([*args, "--instances", "2", "--test-instances", "1", "--jobs", "1"], capsys)
    assert doc["classes"] == list(CLASSES) and doc["instances"] == 2
    # instance files must label every class
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 20)
    X = rng.normal(size=(60, 3)) + 2.0 * np.eye(3)[y]
    labeled = np.zeros(60, bool)
    labeled[[0, 1, 20, 21]] = True  # classes 0 and 1 only
    np.savez(tmp_path / "a.npz", X=X, y=y, labeled=labeled)
    base = ["learn", "--classes", "0", "1", "2", "--pca", "0", "--sigma-min", "0.5"]
    err = cli_error([*base, "--sigma-max", "2", "--data-file", str(tmp_path / "a.npz")], capsys)
    assert "label nodes of every class (0, 1 and 2)" in err


# -- paper mode -----------------------------------------------------------------------------


def dense_scores(p, x: float) -> tuple[np.ndarray, np.ndarray]:
    """F (n_u × C) and ∂F/∂σ of the harmonic model at σ by dense numpy solves (eqs. (1), (9))."""
    U, L = p.model.unlabeled_idx, p.model.labeled_idx
    D2 = p.graph.sqdist
    D2 = D2.toarray() if hasattr(D2, "toarray") else np.asarray(D2)
    W = np.exp(-D2 / x**2)
    np.fill_diagonal(W, 0.0)
    dW = W * 2.0 * D2 / x**3
    Y = (p.instance.y[L, None] == np.arange(3)).astype(float)
    A = np.diag(W[U].sum(1)) - W[np.ix_(U, U)]
    dA = np.diag(dW[U].sum(1)) - dW[np.ix_(U, U)]
    F = np.linalg.solve(A, W[np.ix_(U, L)] @ Y)
    dF = np.linalg.solve(A, dW[np.ix_(U, L)] @ Y - dA @ F)
    return F, dF


def test_top_two_is_the_gap_of_the_winner_and_the_runner_up():
    p = problem(n=50)
    for x in (1.5, 2.5, 4.0):
        (sc,) = p.model.scores([x], p.instance.y, 3)
        tt = top_two(sc)
        F, dF = dense_scores(p, x)
        srt = np.sort(F, axis=1)
        assert np.allclose(tt.f - 0.5, srt[:, -1] - srt[:, -2], atol=1e-10)
        assert np.array_equal(tt.top, np.argmax(F, axis=1))
        rows = np.arange(F.shape[0])
        assert np.allclose(tt.df, dF[rows, tt.top] - dF[rows, tt.runner_up], atol=1e-8)
        assert np.all(tt.f >= 0.5) and np.all(tt.top != tt.runner_up)


@pytest.mark.parametrize("solver", ["exact", "cg"])
def test_paper_mode_is_algorithm_4_node_by_node_on_the_top_two_gap(solver):
    """Each interval of the paper-mode sweep is the node-by-node loop of the paper (the plain
    reference of tests/reference.py) on g_u = (F_ua − F_ub)², the runner-up re-read at every
    σ, and its l̃ the argmax loss at σ0."""
    p = problem(n=40)
    y, y_u = p.instance.y, p.y_unlabeled
    s = SweepSettings(mode="paper", solver=solver, cg_iters=8)
    res = sweep_classes(p.model, y, CLASSES, 2.0, 4.0, s)

    def labels_at(x):
        (sc,) = p.model.scores([x], y, 3, solver=solver, cg_iters=8)
        tt = top_two(sc)
        return tt.f, tt.df, tt.degenerate

    assert res.intervals[0].lo == 2.0
    for iv in res.intervals:
        ref = algorithm4(
            labels_at,
            p.model.n_unlabeled,
            iv.sigma0,
            2.0,
            4.0,
            s.epsilon,
            s.eta,
            s.max_iter,
            s.root_tol,
        )
        assert (iv.lo, iv.hi) == ref
        (sc,) = p.model.scores([iv.sigma0], y, 3, solver=solver, cg_iters=8)
        assert iv.loss == np.mean(np.argmax(sc.F, axis=1) != y_u)
    for a, b in itertools.pairwise(res.intervals):
        assert b.sigma0 == a.hi + s.step


def test_paper_mode_endpoints_are_top_two_roots_and_two_classes_are_unchanged(capsys):
    """With the exact solver every interval end inside the range is where its node's two
    top scores meet (|F_ua − F_ub| ≤ root_tol, from dense solves); the command line takes
    paper mode for three classes, and for two it is the binary sweep."""
    p = problem(n=40)
    s = SweepSettings(mode="paper", solver="exact")
    res = sweep_classes(p.model, p.instance.y, CLASSES, 2.0, 4.0, s)
    ends = [(iv.lo, iv.lo_node) for iv in res.intervals if iv.lo_node >= 0]
    ends += [(iv.hi, iv.hi_node) for iv in res.intervals if iv.hi_node >= 0]
    assert ends
    for x, u in ends:
        F, _ = dense_scores(p, x)
        top = np.sort(F[u])
        assert top[-1] - top[-2] <= s.root_tol
    args = ["--n", "40", "--labeled", "6", "--sigma-min", "2", "--sigma-max", "4"]
    args += ["--mode", "paper", "--solver"]
    doc = cli_json(["intervals", "--classes", "3", "5", "8", *args, "exact"], capsys)
    assert doc["classes"] == list(CLASSES)
    assert [(iv["lo"], iv["hi"], iv["loss"]) for iv in doc["intervals"]] == [
        (iv.lo, iv.hi, iv.loss) for iv in res.intervals
    ]
    two = ProblemSpec(dataset="digits", classes=(3, 5), n=40, n_labeled=6, seed=0, k=6)
    q = build_problem(two)
    binary = sweep(q.model, q.y_unlabeled, 2.0, 4.0, s)
    doc = cli_json(["intervals", *args, "exact", "--classes", "3", "5"], capsys)
    assert [(iv["lo"], iv["hi"], iv["loss"]) for iv in doc["intervals"]] == [
        (iv.lo, iv.hi, iv.loss) for iv in binary.intervals
    ]


def test_recorded_paper_mode_replays_the_top_two_gaps():
    p = problem(n=30)
    y = p.instance.y
    s = SweepSettings(mode="paper", solver="cg", cg_iters=8)
    plain = sweep_classes(p.model, y, CLASSES, 2.0, 4.0, s)
    rec = sweep_classes(p.model, y, CLASSES, 2.0, 4.0, s, record=True)
    assert [(iv.lo, iv.hi, iv.loss) for iv in rec.intervals] == [
        (iv.lo, iv.hi, iv.loss) for iv in plain.intervals
    ]
    assert sum(e.kind == "interval" for e in rec.events) == len(rec.intervals)
    fig = player_figure(rec.events, (2.0, 4.0), at_step=3, gap=True, as_dict=True)
    e = rec.events[3]
    nodes = next(t for t in fig["data"] if t.get("name") == "running nodes")
    for x, g, u in zip(nodes["x"], nodes["y"], nodes["customdata"], strict=True):
        (sc,) = p.model.scores([x], y, 3, solver="cg", cg_iters=8)
        assert g == pytest.approx(top_two(sc).f[u] - 0.5, abs=1e-12)
    assert fig["layout"]["yaxis"]["title"]["text"] == "top-two gap F_ua − F_ub"
    assert len(nodes["x"]) == e.nodes.size
    with pytest.raises(InvalidParameterError, match="paper mode"):
        sweep_classes(p.model, y, CLASSES, 2.0, 4.0, SweepSettings(), record=True)
