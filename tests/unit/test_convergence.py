"""The t-scrubber: every t ≤ T from one run per σ, the same bits as t-iteration
runs and as the sweep's estimate; the misses against a brute-force reference."""

import numpy as np
import pytest
from reference import plotly_json, validated_json

from sslviz import animation, export
from sslviz import convergence as cv
from sslviz.delalleau import DelalleauModel
from sslviz.intervals import sweep
from sslviz.problem import build_problem, loss_curve
from sslviz.specs import ProblemSpec, SweepSettings

LO, HI = 1.0, 7.0
SPECS = {
    "complete": ProblemSpec(family="complete"),  # dense: the compiled dense CG
    "knn": ProblemSpec(family="knn", k=6),  # sparse: the batched kernel
    "mutual": ProblemSpec(family="mutual-knn", k=3, n=60, n_labeled=6),  # nodes cut off from L
}
# 0.02 and 0.08: weights underflow, so those σ take the one-σ paths (solve_cg, traced by its
# callback)
SIGMAS = np.r_[0.02, 0.08, np.linspace(0.3, 6.0, 8)]


@pytest.fixture(scope="module", params=list(SPECS))
def problem(request):
    return build_problem(SPECS[request.param])


@pytest.fixture(scope="module")
def curves():
    return {name: loss_curve(build_problem(spec), LO, HI) for name, spec in SPECS.items()}


def _same_as_t_runs(model, solver: str, iterations: int = 25) -> None:
    sides, degenerate = model.sides_by_t(SIGMAS, solver=solver, iterations=iterations)
    assert sides.shape == (SIGMAS.size, iterations, model.n_unlabeled)
    for j, x in enumerate(SIGMAS):
        for t in (1, 2, 3, 8, iterations):
            sl = model.soft_labels(x, solver=solver, cg_iters=t)
            assert np.array_equal(sides[j, t - 1], sl.f > 0.5), (x, t)
            assert np.array_equal(degenerate[j], sl.degenerate), (x, t)


@pytest.mark.dispatch
@pytest.mark.parametrize("solver", ["cg", "pcg"])
def test_every_t_from_one_run_is_the_t_iteration_run(problem, solver):
    """Row t − 1 of one T-iteration run is the side of ½ of a t-iteration solve, on every
    path soft_labels takes (dense kernel, batched kernel, solve_cg where weights underflow)."""
    _same_as_t_runs(problem.model, solver)


@pytest.mark.dispatch
@pytest.mark.parametrize("family", ["complete", "knn"])
@pytest.mark.parametrize("solver", ["cg", "pcg"])
def test_delalleau_every_t_from_one_run_is_the_t_iteration_run(family, solver):
    """Delalleau's model: one run per σ on L ∪ Ũ, each iterate extended (complete: the
    dense kernel), or one solve per t (kNN: a sparse system), the bits of soft_labels."""
    spec = ProblemSpec(labeling="delalleau", n=60, n_labeled=6, subset=20, family=family)
    p = build_problem(spec)
    assert isinstance(p.model, DelalleauModel)
    assert p.model.nested_iterates == (family == "complete")
    _same_as_t_runs(p.model, solver)


@pytest.mark.dispatch
@pytest.mark.slow  # over 1.5 s: outside the quick run
@pytest.mark.parametrize("name", ["complete", "knn"])
@pytest.mark.parametrize("solver", ["cg", "pcg"])
@pytest.mark.parametrize("t", [5, 20])
def test_the_scrubbers_estimate_is_the_sweeps_bit_for_bit(curves, name, solver, t):
    """At every σ the fast sweep with t iterations evaluated (inside one of its intervals),
    l̃_t read off the scrubber is the sweep's estimated loss there, exactly."""
    p = build_problem(SPECS[name])
    res = sweep(
        p.model, p.y_unlabeled, LO, HI, SweepSettings(mode="fast", solver=solver, cg_iters=t)
    )
    evaluated = res.curve.evaluations
    conv = cv.convergence(
        p.model, p.y_unlabeled, curves[name], iterations=30, solvers=(solver,), also=evaluated
    )
    at = np.searchsorted(conv.sigmas, evaluated)
    assert np.array_equal(conv.sigmas[at], evaluated)
    ends = np.array([x for iv in res.intervals for x in (iv.lo, iv.hi)])
    inside = np.array([np.min(np.abs(ends - x)) > 0 for x in evaluated])
    assert inside.sum() >= 30
    mine = conv.loss[solver][t - 1, at][inside]
    assert np.array_equal(mine, res.estimated_loss()(evaluated[inside]))


def test_exact_sides_read_off_the_curve_are_the_exact_solves(problem):
    truth = loss_curve(problem, LO, HI)
    sigmas, _, _ = cv.reading_points(truth)
    wrong = cv.exact_wrong(truth, sigmas)
    y1 = problem.y_unlabeled == 1
    exact = problem.model.soft_labels_many(sigmas, solver="exact", derivative=False)
    assert np.array_equal(wrong, [sl.degenerate | ((sl.f > 0.5) != y1) for sl in exact])


def test_misses_against_brute_force(curves):
    """Missed at t ⇔ a node flipping at b is on its wrong side at b ∓ tol under a
    t-iteration solve: checked with separate t-iteration solves at those σ."""
    p = build_problem(SPECS["complete"])
    truth = curves["complete"]
    conv = cv.convergence(p.model, p.y_unlabeled, truth, iterations=40, solvers=("cg",))
    y1 = p.y_unlabeled == 1
    checked = 0
    for t in (1, 10, 20, 40):
        for b, nodes in zip(truth.breakpoints, truth.nodes, strict=True):
            nodes = np.asarray(nodes, int)
            wrong_side = False
            for x in (max(b - cv.TOL, LO), min(b + cv.TOL, HI)):
                sl = p.model.soft_labels(x, solver="cg", cg_iters=t, derivative=False)
                ex = p.model.soft_labels(x, solver="exact", derivative=False)
                w_t = sl.degenerate | ((sl.f > 0.5) != y1)
                w_ex = ex.degenerate | ((ex.f > 0.5) != y1)
                wrong_side |= bool(np.any(w_t[nodes] != w_ex[nodes]))
            i = int(np.searchsorted(truth.breakpoints, b))
            assert conv.missed["cg"][t - 1, i] == wrong_side, (t, b)
            checked += 1
    assert checked >= 40
    misses = conv.misses("cg")
    assert misses[0] > 0 and misses[-1] == 0  # CG-1 misses, CG-40 finds every breakpoint


def test_settled_t_and_the_reading():
    assert cv._settled(np.array([False, True, True])) == 2
    assert cv._settled(np.array([True, False, True])) == 3
    assert cv._settled(np.array([True, True])) == 1
    assert cv._settled(np.array([True, False])) is None
    p = build_problem(SPECS["complete"])
    conv = cv.convergence(p.model, p.y_unlabeled, loss_curve(p, LO, HI), iterations=60)
    for s in conv.solvers:
        k = conv.all_right_from(s)
        assert k is not None and not conv.wrong_nodes[s][k - 1 :].any()
        assert k == 1 or conv.wrong_nodes[s][k - 2].any()
        assert conv.no_miss_from(s) <= k
    text = conv.reading(20)
    assert f"CG-20's own soft labels miss {conv.misses('cg')[19]} of the " in text
    assert f"{conv.breakpoints.size} breakpoints" in text
    assert f"CG from t = {conv.all_right_from('cg')} on" in text


@pytest.mark.parametrize("name, t", [("complete", 5), ("complete", 20), ("knn", 5)])
def test_own_misses_against_algorithm4s(curves, name, t):
    """The two "missed at t" counts (docs/method.md): the breakpoints CG-t's own labels
    miss and those Algorithm 4 with CG-t misses, told apart breakpoint by breakpoint for
    the reasons the sentence gives, checked against their definitions."""
    from sslviz.intervals import score

    p = build_problem(SPECS[name])
    truth = curves[name]
    conv = cv.convergence(p.model, p.y_unlabeled, truth, iterations=30)
    seen_differ = False
    for solver in ("cg", "pcg"):
        settings = SweepSettings(solver=solver, cg_iters=t)
        res = sweep(p.model, p.y_unlabeled, LO, HI, settings)
        sc = score(res, truth)
        c = cv.compare_misses(conv, solver, t, sc)
        assert c.own == {int(i) for i in np.flatnonzero(conv.missed[solver][t - 1])}
        assert sorted(truth.breakpoints[sorted(c.algorithm4)]) == [x for x, _ in sc.misses]
        ends = np.array([x for iv in res.intervals for x in (iv.lo, iv.hi)])
        for b in c.found_anyway:  # an endpoint lies within the tolerance all the same
            assert np.min(np.abs(ends - truth.breakpoints[b])) <= sc.tol
        for b in c.search_missed:  # the labels are right on both sides, nothing found
            assert not conv.missed[solver][t - 1][b]
            assert ends.size == 0 or np.min(np.abs(ends - truth.breakpoints[b])) > sc.tol
        text = c.sentence()
        assert f"{c.label}'s own soft labels miss {len(c.own)} of the" in text
        if c.own == c.algorithm4:
            assert "misses the same ones" in text
        else:
            seen_differ = True
            assert (
                f"Algorithm 4 with {c.label} (its intervals, as on the loss page) misses "
                f"{len(c.algorithm4)}:" in text
            )
            if c.found_anyway:
                assert f"it finds {len(c.found_anyway)} of those anyway" in text
            if c.search_missed:
                assert f"it misses {len(c.search_missed)} more" in text
        reading = conv.reading(t, [c])
        assert c.sentence()[:-1] in reading
    if (name, t) == ("complete", 5):
        assert seen_differ  # this view shows the two counts apart
    with pytest.raises(ValueError, match="not of CG-7"):
        cv.compare_misses(conv, "cg", 7, sc)


def test_bad_input_says_what_to_change(curves):
    p = build_problem(SPECS["complete"])
    with pytest.raises(ValueError, match="iterations"):
        cv.convergence(p.model, p.y_unlabeled, curves["complete"], iterations=cv.T_MAX + 1)
    approx = loss_curve(p, LO, HI)
    approx = type(approx)(**{**approx.__dict__, "solver": "cg"})
    with pytest.raises(ValueError, match="exact loss curve"):
        cv.convergence(p.model, p.y_unlabeled, approx)
    with pytest.raises(ValueError, match="solver"):
        p.model.sides_by_t([1.0], solver="exact")


def test_the_figure_has_a_frame_per_t_and_states_its_counts(curves):
    p = build_problem(SPECS["complete"])
    conv = cv.convergence(p.model, p.y_unlabeled, curves["complete"], iterations=30)
    fig = animation.convergence_figure(conv, start=20)
    assert [f.name for f in fig.frames] == [f"t{t}" for t in range(1, 31)]
    assert fig.layout.sliders[0].active == 19
    for t in (1, 20, 30):
        frame = fig.frames[t - 1]
        counter = frame.layout.annotations[0].text
        assert counter == animation.convergence_counter(conv, t)
        assert "breakpoints its own soft labels miss" in counter
        for s in conv.solvers:
            name = {"cg": "CG", "pcg": "Jacobi-PCG"}[s]
            assert f"{name} {conv.misses(s)[t - 1]}" in counter
        lines = [d for d in frame.data if d.y is not None and len(d.y) == conv.sigmas.size]
        assert [list(d.y) for d in lines] == [list(conv.loss[s][t - 1]) for s in conv.solvers]
    d = animation.convergence_figure(conv, start=20, as_dict=True)
    assert plotly_json(d) == validated_json(d) == plotly_json(fig)  # frames never validated
    still = animation.convergence_figure(conv, at_t=5)
    assert not still.frames and not still.layout.sliders
    assert plotly_json(still) == validated_json(still)
    with pytest.raises(ValueError, match="t must be"):
        animation.convergence_figure(conv, at_t=31)
    doc = export.to_dict(conv)
    assert doc["solvers"]["cg"]["misses"] == conv.misses("cg").tolist()
    assert len(doc["solvers"]["pcg"]["loss"]) == 30
