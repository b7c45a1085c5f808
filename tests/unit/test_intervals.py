"""Algorithm 4 (paper mode), the fast mode and scoring, against the exact curve."""

import numpy as np
import pytest
from instances import two_clouds
from reference import algorithm4

import sslviz.algorithm4 as algorithm4_module
from sslviz.intervals import (
    Interval,
    Sweep,
    feedback_set,
    node_trace,
    score,
    sweep,
)
from sslviz.specs import SweepSettings
from sslviz.truth import true_loss_curve

LO, HI = 0.6, 6.0


@pytest.mark.parametrize("family", ["complete", "knn"])
@pytest.mark.parametrize("labeling", ["harmonic", "delalleau"])
def test_fast_mode_with_exact_solver_finds_every_breakpoint(family, labeling):
    model, y_u = two_clouds(1, family=family, labeling=labeling)
    truth = true_loss_curve(model, y_u, LO, HI)
    settings = SweepSettings(solver="exact", mode="fast")  # locates endpoints to ε = 1e-4
    res = sweep(model, y_u, LO, HI, settings)
    sc = score(res, truth, tol=settings.epsilon)
    assert sc.true_breakpoints > 0
    assert sc.missed == 0 and sc.spurious == 0
    assert sc.eps_volume < sc.true_breakpoints * settings.epsilon
    assert sc.M == truth.loss.values.size


@pytest.mark.slow  # over 2 s: outside the quick run
def test_paper_mode_exact_solver_endpoints_are_converged_iterates():
    """With exact soft labels Algorithm 4's endpoints are where some node's iteration
    converged (|f_u − 1/2| ≤ root_tol), each interval's loss is the true loss at its σ0,
    and every endpoint that is a true breakpoint is also found by fast mode."""
    model, y_u = two_clouds(2)
    settings = SweepSettings(solver="exact", mode="paper")
    truth = true_loss_curve(model, y_u, LO, HI)
    res = sweep(model, y_u, LO, HI, settings)
    for iv in res.intervals:
        assert iv.loss == pytest.approx(float(truth.loss(iv.sigma0)))
        for x, u in ((iv.lo, iv.lo_node), (iv.hi, iv.hi_node)):
            if u >= 0:
                f = model.soft_labels(x, derivative=False).f[u]
                assert abs(f - 0.5) <= settings.root_tol
    sc = score(res, truth, tol=1e-3)
    assert sc.missed < sc.true_breakpoints  # it finds some, not necessarily all
    fast = sweep(model, y_u, LO, HI, SweepSettings(solver="exact", mode="fast"))
    ends = np.array([x for iv in fast.intervals for x in (iv.lo, iv.hi)])
    tb = truth.breakpoints
    for iv in res.intervals:
        for x in (iv.lo, iv.hi):
            if LO < x < HI and np.min(np.abs(tb - x)) < 1e-6:
                assert np.min(np.abs(ends - x)) < 1e-4


def test_more_cg_iterations_never_score_worse():
    """On a fixed suite, ε-volume and misses do not grow with t (up to 2 % of the range
    and one breakpoint per instance)."""
    totals = {}
    for t in (5, 10, 20):
        vol = missed = 0.0
        for seed in range(3):
            model, y_u = two_clouds(seed, n=80)
            truth = true_loss_curve(model, y_u, LO, HI)
            res = sweep(model, y_u, LO, HI, SweepSettings(solver="pcg", cg_iters=t))
            sc = score(res, truth)
            vol += sc.eps_volume
            missed += sc.missed
        totals[t] = (vol, missed)
    for a, b in ((5, 10), (10, 20)):
        assert totals[b][0] <= totals[a][0] + 0.02 * 3 * (HI - LO)
        assert totals[b][1] <= totals[a][1] + 3


def _check_against_node_by_node(family, labeling, solver, seeds, sigma0s):
    s = SweepSettings(solver=solver, cg_iters=10, mode="paper")
    tight = 0
    for seed in seeds:
        model, y_u = two_clouds(seed, n=60, family=family, labeling=labeling)

        def labels_at(x, model=model):
            sl = model.soft_labels(x, solver=solver, cg_iters=s.cg_iters)
            return sl.f, sl.df, sl.degenerate

        for sigma0 in sigma0s:
            iv = feedback_set(model, y_u, sigma0, LO, HI, s)
            ref = algorithm4(
                labels_at,
                model.n_unlabeled,
                sigma0,
                LO,
                HI,
                s.epsilon,
                s.eta,
                s.max_iter,
                s.root_tol,
            )
            assert (iv.lo, iv.hi) == ref
            tight += (iv.lo > LO) + (iv.hi < HI)
    return tight


@pytest.mark.parametrize("solver", ["cg", "pcg"])
@pytest.mark.parametrize("window", [1, 3, 64])
@pytest.mark.slow  # over 2 s: outside the quick run
def test_paper_mode_is_algorithm_4_node_by_node(solver, window, monkeypatch):
    """Running nodes side by side (batched solves, parked nodes, settling in order) gives
    exactly the interval of the paper's loop over u ∈ U one node at a time."""
    monkeypatch.setattr(algorithm4_module, "_WINDOW", window)
    tight = _check_against_node_by_node("knn", "harmonic", solver, (1, 3), (0.7, 1.3, 2.5))
    assert tight >= 4  # the instances do have roots on both sides


@pytest.mark.parametrize(
    "family, labeling, solver",
    [("knn", "harmonic", "exact"), ("complete", "harmonic", "cg"), ("knn", "delalleau", "cg")],
)
@pytest.mark.slow  # over 2 s: outside the quick run
def test_paper_mode_without_batched_solves_is_algorithm_4(family, labeling, solver):
    assert _check_against_node_by_node(family, labeling, solver, (1,), (1.3,)) >= 1


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_fast_and_paper_agree_with_exact_solver():
    model, y_u = two_clouds(4, family="complete")
    paper = sweep(model, y_u, LO, HI, SweepSettings(solver="exact", mode="paper"))
    fast = sweep(model, y_u, LO, HI, SweepSettings(solver="exact", mode="fast"))
    est = fast.estimated_loss()
    for iv in paper.intervals:
        assert iv.loss == pytest.approx(float(est(iv.sigma0)))


def test_counts_and_sweep_bookkeeping():
    model, y_u = two_clouds(5)
    res = sweep(model, y_u, LO, HI, SweepSettings(solver="cg", cg_iters=7, mode="paper"))
    assert res.solves == sum(iv.solves for iv in res.intervals)
    assert res.matvecs == sum(iv.matvecs for iv in res.intervals)
    # CG from zero: t products per solve.
    assert res.matvecs <= 7 * res.solves
    starts = [iv.sigma0 for iv in res.intervals]
    assert starts[0] == LO and np.all(np.diff(starts) > 0)
    for prev, nxt in zip(res.intervals[:-1], res.intervals[1:], strict=True):
        assert nxt.sigma0 == pytest.approx(prev.hi + 0.05)


@pytest.mark.parametrize("rule", ["hybrid", "gradient", "newton"])
def test_node_trace_rules(rule):
    model, y_u = two_clouds(1)
    truth = true_loss_curve(model, y_u, LO, HI)
    b, u = truth.breakpoints[0], int(truth.nodes[0][0])
    trace, root = node_trace(
        model, u, b * 1.05, LO, HI, SweepSettings(solver="exact", mode="paper"), rule=rule
    )
    assert trace and trace[0].sigma == pytest.approx(b * 1.05)
    assert all(np.isfinite([it.sigma, it.f, it.g]).all() for it in trace)
    kinds = {it.step for it in trace[:-1]}
    if rule == "gradient":
        assert kinds <= {"gradient"}
    if rule == "newton":
        assert kinds <= {"newton"}
        assert root == pytest.approx(b, rel=1e-4)


def test_score_counts_misses_spurious_and_volume():
    model, y_u = two_clouds(1)
    truth = true_loss_curve(model, y_u, LO, HI)
    b = truth.breakpoints
    # One interval over the whole range at the wrong loss everywhere but the first piece.
    one = Sweep(
        [Interval(LO, HI, float(truth.loss.values[0]), LO)], LO, HI, SweepSettings(), 0, 0, 0.0
    )
    sc = score(one, truth)
    assert sc.missed == b.size and sc.spurious == 0 and sc.M == 1
    differs = np.abs(truth.loss.values - truth.loss.values[0]) > 0.5 / y_u.size
    assert sc.eps_volume == pytest.approx(np.diff(truth.loss.edges)[differs].sum())
    # Two spurious endpoints inside the widest piece, and a gap after them.
    e = truth.loss.edges
    i = int(np.argmax(np.diff(e)))
    x = 0.5 * (e[i] + e[i + 1])
    two = Sweep(
        [Interval(LO, x, 0.0, LO), Interval(x, x + 1e-3, 0.0, x)],
        LO,
        HI,
        SweepSettings(),
        0,
        0,
        0.0,
    )
    sc2 = score(two, truth, tol=1e-6)
    assert sc2.spurious == 2 and sc2.uncovered == pytest.approx(HI - x - 1e-3)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(epsilon=0.0), "^ε must"),
        (dict(eta=-1.0), "^η must"),
        (dict(step=0.0), "^restart step must"),
        (dict(cg_iters=0), "^CG iterations t must"),
        (dict(solver="lu"), "solver"),
        (dict(mode="slow"), "mode"),
    ],
)
def test_bad_settings(kwargs, match):
    with pytest.raises(ValueError, match=match):
        SweepSettings(**kwargs)


def test_interval_table_has_per_interval_solves_in_paper_mode_only():
    """Fast mode's solves are shared by the whole search: its table has no per-interval
    solves column (it said 0 on every row); paper mode's add up to the sweep's."""
    from sslviz import export
    from sslviz.problem import build_problem
    from sslviz.specs import ProblemSpec

    p = build_problem(ProblemSpec(classes=(0, 1), n=60, family="knn", k=6))
    for mode in ("fast", "paper"):
        res = sweep(p.model, p.y_unlabeled, 1.0, 4.0, SweepSettings(mode=mode, cg_iters=5))
        table = export.to_frame(res, p)
        assert ("solves" in table) == (mode == "paper")
        if mode == "paper":
            assert table["solves"].sum() == res.solves > 0


def _step_numpy(st: dict, f, df, deg, lo, hi, s, rule, inner):
    """One step of every node, as NumPy wrote it before the compiled step (its reference):
    returns (finished, root, parked, next point) and the state after it."""
    sigma = st["sigma"]
    h = f - 0.5
    g = h * h
    dg = 2.0 * h * df
    root = np.full(f.size, np.nan)
    near = np.abs(h) <= s.root_tol
    converged = ~deg & (np.abs(f - st["f_prev"]) < s.epsilon) & (np.abs(st["step"]) < s.epsilon)
    root[converged & near] = sigma[converged & near]
    flat = ~deg & ~converged & (dg == 0.0)
    root[flat & (h == 0.0)] = sigma[flat & (h == 0.0)]
    finished = deg | converged | flat
    with np.errstate(divide="ignore", invalid="ignore"):
        xi_gd, xi_n = s.eta * dg, 2.0 * g / dg
    if rule == "gradient":
        use_gd = np.ones(f.size, bool)
    elif rule == "newton":
        use_gd = np.zeros(f.size, bool)
    else:
        use_gd = np.abs(xi_gd) < np.abs(xi_n)
    y_next = sigma - np.where(use_gd, xi_gd, xi_n)
    lam_next = (1.0 + np.sqrt(1.0 + 4.0 * st["lam"] * st["lam"])) / 2.0
    gamma = (1.0 - st["lam"]) / lam_next
    new = np.where(use_gd, (1.0 - gamma) * y_next + gamma * st["y_prev"], y_next)
    with np.errstate(invalid="ignore"):
        outside = ~((lo <= new) & (new <= hi))
    finished |= outside | (st["it"] + 1 >= s.max_iter)
    go = ~finished
    parked = np.zeros(f.size, bool)
    if inner is not None:
        parked = go & ~((inner[0] <= new) & (new <= inner[1]))
    after = {
        "lam": np.where(use_gd & go, lam_next, st["lam"]),
        "y_prev": np.where(go, y_next, st["y_prev"]),
        "step": np.where(go, new - sigma, st["step"]),
        "f_prev": np.where(go, f, st["f_prev"]),
        "sigma": np.where(go, new, sigma),
        "tmin": np.where(go, np.minimum(st["tmin"], new), st["tmin"]),
        "tmax": np.where(go, np.maximum(st["tmax"], new), st["tmax"]),
        "it": st["it"] + go,
    }
    return (finished, root, parked, new), after


@pytest.mark.dispatch
@pytest.mark.parametrize("rule", algorithm4_module.STEP_RULES)
def test_the_compiled_step_is_numpys_bit_for_bit(rule):
    """``_NodeIterations.advance`` (compiled, :func:`sslviz._kernels.paper_step`) against
    the NumPy step it replaced, on random states with a first step (previous f NaN, step
    inf), f at ½ exactly, zero and huge derivatives, degenerate nodes, capped and leaving
    nodes, with and without per-node sub-brackets: the same decisions, roots, next points
    and state, bit for bit."""
    rng = np.random.default_rng(11)
    s = SweepSettings(mode="paper", max_iter=6)
    for trial in range(60):
        k = int(rng.integers(1, 40))
        run = algorithm4_module._NodeIterations.__new__(algorithm4_module._NodeIterations)
        run.s, run.rule = s, rule
        run.u = np.arange(k)
        run.sigma = rng.uniform(0.5, 3.0, k)
        run.y_prev = run.sigma + rng.normal(0, 0.05, k)
        run.lam = rng.uniform(1.0, 4.0, k)
        run.f_prev = np.where(rng.random(k) < 0.3, np.nan, rng.random(k))
        run.step = np.where(rng.random(k) < 0.3, np.inf, rng.normal(0, 1e-3, k))
        run.it = rng.integers(0, 6, k)
        run.tmin, run.tmax = run.sigma - rng.random(k), run.sigma + rng.random(k)
        run.f = np.where(rng.random(k) < 0.1, 0.5, rng.random(k))
        close = rng.random(k) < 0.3  # within ε of the previous f: converged if the step is
        run.f[close] = np.nan_to_num(run.f_prev[close], nan=0.4) + 1e-6
        run.df = rng.normal(0, 1, k) * np.where(
            rng.random(k) < 0.1, 0.0, 10.0 ** rng.uniform(-8, 3, k)
        )
        run.deg = rng.random(k) < 0.1
        run.stop = ("running", float("nan"))
        inner = None
        if trial % 2:
            mid = rng.uniform(0.5, 3.0, k)
            inner = (mid - rng.random(k), mid + rng.random(k))
        lo, hi = 0.7, 2.8
        state = {
            n: getattr(run, n).copy()
            for n in ("sigma", "y_prev", "lam", "f_prev", "step", "it", "tmin", "tmax")
        }
        (want_fin, want_root, want_park, want_new), after = _step_numpy(
            state, run.f, run.df, run.deg, lo, hi, s, rule, inner
        )
        finished, root, parked = run.advance(lo, hi, inner=inner, explain=True)
        np.testing.assert_array_equal(finished, want_fin)
        np.testing.assert_array_equal(root, want_root)  # NaN where both have none
        np.testing.assert_array_equal(parked, want_park)
        np.testing.assert_array_equal(run.why[1], want_new)
        for name, value in after.items():
            np.testing.assert_array_equal(getattr(run, name), value, err_msg=name)
