"""Where t-iteration CG can be trusted: ``trust_curve`` against a scan of every
t, against exact dense solves and SciPy's CG written independently here, and its export."""

import numpy as np
import pytest
import scipy.sparse.linalg as spla
from reference import cut_off_model
from reference import instance as _instance
from reference import weights as _weights

from sslviz import conditioning, export
from sslviz._validation import InvalidParameterError
from sslviz.conditioning import T_MAX, TrustCurve, trust_curve
from sslviz.problem import make_model
from sslviz.specs import GraphSpec, LabelingSpec

T_SCAN = 160  # every t up to here is scanned


def _right(model, sigma, t, solver, want, keep) -> bool:
    """Brute force: every kept node on its exact side after t iterations of ``solver``."""
    sl = model.soft_labels(sigma, solver=solver, cg_iters=t, derivative=False)
    return bool(np.all((sl.f[keep] > 0.5) == want) and not sl.degenerate[keep].any())


@pytest.mark.slow  # over 1.5 s: outside the quick run
@pytest.mark.parametrize("family, seed", [("complete", 0), ("knn", 1), ("complete", 3)])
def test_t_needed_against_a_scan_of_every_t(family, seed):
    X, labeled, y = _instance(seed, n=40)
    model = make_model(X, labeled, y, GraphSpec(family, 5))
    sigmas = np.geomspace(0.25, 2.5, 7)
    tc = trust_curve(model, sigmas, cg_iters=5, t_max=T_SCAN)
    equal = 0
    for solver in ("cg", "pcg"):
        got = tc.t_needed(solver)
        for i, s in enumerate(sigmas):
            ex = model.soft_labels(s, solver="exact", derivative=False)
            keep = ~ex.degenerate
            want = ex.f[keep] > 0.5
            ok = np.array([_right(model, s, t, solver, want, keep) for t in range(1, T_SCAN + 1)])
            if got[i] > T_SCAN:  # not reached: t_max itself fails
                assert not ok[-1]
                assert not tc.reached(solver)[i]
                continue
            t = int(got[i])
            first = int(np.argmax(ok)) + 1
            stays = T_SCAN - int(np.argmax(~ok[::-1])) + 1 if not ok.all() else 1
            assert ok[t - 1] and (t == 1 or not ok[t - 2]), (solver, s, t)
            assert first <= t <= stays, (solver, s, first, t, stays)
            if ok[first - 1 :].all():  # sides settle monotonically: the smallest t
                assert t == first, (solver, s, t, first)
                equal += 1
    assert equal >= len(sigmas)  # the monotone case is the common one


def _dense(X, labeled, y, sigma, family, k):
    W = _weights(X, sigma, family, k)
    U, L = np.flatnonzero(~labeled), np.flatnonzero(labeled)
    A = np.diag(W.sum(1))[np.ix_(U, U)] - W[np.ix_(U, U)]
    return A, W[np.ix_(U, L)] @ y[L].astype(float)


@pytest.mark.parametrize("solver", ["cg", "pcg"])
@pytest.mark.parametrize("family", ["complete", "knn"])
def test_error_margin_and_wrong_sides_against_exact_solves(family, solver):
    X, labeled, y = _instance(6, n=50)
    model = make_model(X, labeled, y, GraphSpec(family, 6))
    sigmas = np.array([0.3, 0.6, 1.2, 2.5])
    t = 4
    tc = trust_curve(model, sigmas, solver=solver, cg_iters=t, t_max=64)
    for i, s in enumerate(sigmas):
        A, b = _dense(X, labeled, y, s, family, 6)
        f = np.linalg.solve(A, b)
        M = np.diag(1.0 / np.diag(A)) if solver == "pcg" else None
        ft, _ = spla.cg(A, b, maxiter=t, rtol=0.0, atol=0.0, M=M)
        np.testing.assert_allclose(tc.error[i], np.abs(ft - f).max(), rtol=1e-6, atol=1e-12)
        np.testing.assert_allclose(tc.margin[i], np.abs(f - 0.5).min(), rtol=1e-8, atol=1e-14)
        assert tc.wrong[i] == int(np.sum((ft > 0.5) != (f > 0.5)))
        assert tc.may_flip[i] == (tc.error[i] >= tc.margin[i])
        if tc.wrong[i]:  # a wrong side needs an error at least the margin
            assert tc.may_flip[i]
    assert tc.solver == solver and tc.cg_iters == t and tc.label == f"{solver.upper()}-{t}"
    assert not tc.degenerate.any() and not tc.underflow.any()
    # t needed is where no node is wrong any more: wrong at t exactly when t < t needed
    # (on these instances the sides settle monotonically)
    np.testing.assert_array_equal(tc.wrong > 0, tc.t_needed(solver) > t)


@pytest.mark.parametrize("labeling", ["harmonic", "delalleau"])
@pytest.mark.parametrize("family", ["complete", "knn"])
def test_recorded_runs_give_the_t_needed_of_a_solve_at_each_t(family, labeling, monkeypatch):
    """A model's t needed, read off one recorded run per σ, are those of the same search
    solving at each t it tries (σ down to where weights underflow, caps below, within and
    above the recorded runs' lengths, runs split to a small memory budget)."""
    X, labeled, y = _instance(5, n=60)
    model = make_model(X, labeled, y, GraphSpec(family, 5), LabelingSpec(labeling, 20))
    sigmas = np.r_[0.01, np.geomspace(0.1, 3.0, 9)]
    fields = ("t_needed_cg", "t_needed_pcg", "error", "margin", "wrong", "underflow")
    for t_max, budget in ((7, 1 << 26), (40, 1 << 26), (200, 1 << 10)):
        monkeypatch.setattr(conditioning, "_TRACE_BYTES", budget)
        recorded = trust_curve(model, sigmas, cg_iters=3, t_max=t_max)
        with monkeypatch.context() as m:
            m.setattr(model, "nested_iterates", False)
            solved = trust_curve(model, sigmas, cg_iters=3, t_max=t_max)
        for f in fields:
            np.testing.assert_array_equal(getattr(recorded, f), getattr(solved, f), err_msg=f)
    assert (recorded.t_needed_cg[1:] > 16).any()  # past the first recorded runs
    if labeling == "harmonic":
        assert recorded.underflow[0] > 0


def test_cap_is_reported_as_t_max_plus_one():
    X, labeled, y = _instance(0, n=40)
    model = make_model(X, labeled, y, GraphSpec("complete", 5))
    sigmas = [0.25, 2.0]
    full = trust_curve(model, sigmas, cg_iters=2, t_max=T_SCAN)
    assert full.t_needed_cg[0] > 2  # small σ: ill-conditioned, CG needs many iterations
    cap = int(full.t_needed_cg[0]) - 1
    tc = trust_curve(model, sigmas, cg_iters=2, t_max=cap)
    assert tc.t_needed_cg[0] == cap + 1 and not tc.reached("cg")[0]
    assert tc.t_needed_cg[1] == full.t_needed_cg[1] and tc.reached("cg")[1]
    d = export.to_dict(tc)
    assert d["t_needed_cg"][0] == cap + 1 and d["reached_cg"][0] is False
    assert d["t_max"] == cap


def test_nodes_cut_off_from_L_are_left_out():
    model, _, _ = cut_off_model()
    tc = trust_curve(model, [0.5, 1.0], cg_iters=3, t_max=64)
    np.testing.assert_array_equal(tc.degenerate, [12, 12])
    assert np.isfinite(tc.margin).all() and np.isfinite(tc.error).all()
    ex = model.soft_labels(1.0, solver="exact", derivative=False)
    keep = ~ex.degenerate
    np.testing.assert_allclose(tc.margin[1], np.abs(ex.f[keep] - 0.5).min())
    assert (tc.t_needed_cg <= 64).all()


def test_underflow_cannot_be_fixed_by_more_iterations():
    """At tiny σ the unscaled weights underflow for CG: those nodes are counted, and t
    needed is "more than t_max" there without a search."""
    X, labeled, y = _instance(2, n=30)
    model = make_model(X, labeled, y, GraphSpec("complete", 5))
    tc = trust_curve(model, [0.01, 1.0], t_max=32)
    assert tc.underflow[0] > 0 and tc.wrong[0] > 0
    assert tc.t_needed_cg[0] == 33 and tc.t_needed_pcg[0] == 33
    assert tc.underflow[1] == 0 and tc.t_needed_cg[1] <= 32


def test_batched_sparse_model_agrees_with_one_sigma_at_a_time():
    """On a sparse graph soft_labels_many solves all σ of a t at once; the t needed per σ
    is that of the σ alone."""
    X, labeled, y = _instance(4, n=500, n_lab=5)
    model = make_model(X, labeled, y, GraphSpec("knn", 6))
    assert model.batches("cg")
    sigmas = [0.3, 0.6, 1.5]
    tc = trust_curve(model, sigmas, cg_iters=10, t_max=256)
    for i, s in enumerate(sigmas):
        one = trust_curve(model, [s], cg_iters=10, t_max=256)
        assert one.t_needed_cg[0] == tc.t_needed_cg[i]
        assert one.t_needed_pcg[0] == tc.t_needed_pcg[i]
        np.testing.assert_allclose(one.error[0], tc.error[i], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("family", ["complete", "knn"])
def test_reused_t_needed_give_the_same_curve(family):
    """A trust curve that reuses another's t needed (another t, the other solver) is the
    curve computed afresh, field for field; a different grid is refused."""
    X, labeled, y = _instance(2, n=120, n_lab=6)
    model = make_model(X, labeled, y, GraphSpec(family, 6))
    sigmas = np.linspace(0.3, 3.0, 9)
    base = trust_curve(model, sigmas, cg_iters=20, t_max=256)
    for solver, t in [("cg", 5), ("pcg", 20), ("pcg", 7)]:
        fresh = trust_curve(model, sigmas, solver=solver, cg_iters=t, t_max=256)
        reused = trust_curve(model, sigmas, solver=solver, cg_iters=t, t_max=256, reuse=base)
        for name in TrustCurve.__dataclass_fields__:
            a, b = getattr(fresh, name), getattr(reused, name)
            assert np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b, name
    with pytest.raises(ValueError, match="same σ grid"):
        trust_curve(model, sigmas[:-1], t_max=256, reuse=base)
    with pytest.raises(ValueError, match="same σ grid"):
        trust_curve(model, sigmas, t_max=128, reuse=base)


def test_delalleau_model_runs():
    X, labeled, y = _instance(3, n=60)
    model = make_model(X, labeled, y, GraphSpec("knn", 5), LabelingSpec("delalleau", 20))
    tc = trust_curve(model, [0.5, 1.5], cg_iters=3, t_max=64)
    for i, s in enumerate([0.5, 1.5]):
        f = model.soft_labels(s, solver="exact", derivative=False).f
        ft = model.soft_labels(s, solver="cg", cg_iters=3, derivative=False).f
        np.testing.assert_allclose(tc.error[i], np.abs(ft - f).max())
    assert (tc.t_needed_cg >= 1).all()


def _curve(may_flip, wrong, t_cg, t_pcg, t=20, t_max=100) -> TrustCurve:
    n = len(may_flip)
    return TrustCurve(
        np.linspace(1.0, 1.0 + n - 1, n),
        np.zeros(n),
        np.ones(n),
        np.array(may_flip, bool),
        np.array(wrong),
        np.array(t_cg),
        np.array(t_pcg),
        np.zeros(n, int),
        np.zeros(n, int),
        "cg",
        t,
        t_max,
    )


def test_bands_and_reading_follow_one_rule():
    # untrusted: may flip, or a node on the wrong side, or t needed > t (t = 20)
    c = _curve(
        [0, 0, 1, 1, 0, 0], [0, 0, 0, 2, 3, 0], [5, 8, 15, 60, 80, 101], [3, 4, 5, 9, 12, 15]
    )
    assert c.untrusted.tolist() == [False, False, True, True, True, True]
    assert c.bands() == [(2.5, 6.0)]
    assert c.where_untrusted() == "σ > 2.5"
    assert c.trusted_from() is None
    assert c.reading() == (
        "CG-20 can be trusted up to σ ≈ 2.5; above, CG needs more than t = 100 at the grid "
        "σ, PCG up to t = 15."
    )
    c = _curve([1, 0, 0], [3, 0, 0], [50, 10, 5], [9, 4, 3])
    assert c.bands() == [(1.0, 1.5)] and c.trusted_from() == 1.5
    assert c.reading() == (
        "CG-20 can be trusted from σ ≈ 1.5 on; below, CG needs up to t = 50 at the grid σ, "
        "PCG up to t = 9."
    )
    # a miss between trusted grid σ marks its grid step; bands that touch merge
    assert c.bands([2.4]) == [(1.0, 1.5), (2.0, 3.0)]
    assert c.bands([1.7]) == [(1.0, 2.0)] and c.trusted_from([1.7]) == 2.0
    assert c.reading([1.7], [35]) == (
        "CG-20 can be trusted from σ ≈ 2 on; below, CG needs up to t = 50 at the grid σ, PCG "
        "up to t = 9; the breakpoints CG-20 misses need up to t = 35."
    )
    c = _curve([0, 0, 0], [0, 0, 0], [5, 30, 5], [3, 7, 3])
    assert c.where_untrusted() == "σ in [1.5, 2.5]"
    assert c.reading().startswith("CG-20 cannot be trusted at σ in [1.5, 2.5]; there CG needs")
    c = _curve([0, 0], [0, 0], [5, 7], [3, 4])
    assert c.bands() == [] and c.trusted_from() == 1.0 and c.where_untrusted() is None
    assert c.reading() == "CG-20 can be trusted on the whole range, σ 1 to 2."
    c = _curve([1, 1], [1, 1], [50, 70], [9, 9])
    assert c.where_untrusted() == "the whole range" and c.trusted_from() is None


def test_export():
    X, labeled, y = _instance(1, n=40)
    model = make_model(X, labeled, y, GraphSpec("knn", 5))
    tc = trust_curve(model, [0.3, 1.0, 2.0], cg_iters=5, t_max=64)
    d = export.to_dict(tc)
    assert d["sigma"] == tc.sigma.tolist() and d["t_needed_pcg"] == tc.t_needed_pcg.tolist()
    assert d["may_flip"] == tc.may_flip.tolist() and d["reading"] == tc.reading()
    assert [[b["lo"], b["hi"]] for b in d["flip_bands"]] == [list(b) for b in tc.bands()]
    assert d["untrusted"] == tc.untrusted.tolist() and d["trusted_from"] == tc.trusted_from()
    export.dumps(d)  # JSON without NaN/inf
    df = export.to_frame(tc)
    assert list(df.columns[:7]) == [
        "sigma",
        "error",
        "margin",
        "may_flip",
        "wrong",
        "t_needed_cg",
        "t_needed_pcg",
    ]
    assert len(df) == 3


def test_bad_arguments_raise():
    X, labeled, y = _instance(9, n=20)
    model = make_model(X, labeled, y, GraphSpec("knn", 4))
    for bad in ([], [0.0], [1.0, np.nan]):
        with pytest.raises(ValueError, match="sigmas"):
            trust_curve(model, bad)
    with pytest.raises(InvalidParameterError, match="solver"):
        trust_curve(model, [1.0], solver="exact")
    with pytest.raises(InvalidParameterError, match="t_max"):
        trust_curve(model, [1.0], t_max=0)
    with pytest.raises(TypeError):
        trust_curve(model, [1.0], "cg")
    assert T_MAX >= 1000
