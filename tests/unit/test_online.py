"""Tests for sslviz.online (Exp3-Set weights, exact regret, learner runs) and
sslviz.experiment (repetitions, confidence bands, joblib/Dask backends)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np
import pytest
from scipy import integrate, stats

from sslviz import export
from sslviz._validation import InvalidParameterError
from sslviz.experiment import regret_experiment
from sslviz.online import (
    Exp3SetWeights,
    SyntheticRounds,
    best_fixed,
    cumulative_regret,
    regret_rate,
    run_learner,
    theorem_step_size,
)
from sslviz.piecewise import PiecewiseLoss, sum_piecewise

# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def _updated_weights() -> Exp3SetWeights:
    """A weight function with uneven masses after a few semi-bandit and full updates."""
    w = Exp3SetWeights(0.2, 1.4)
    w.update(0.3, 0.5, loss=0.9, lr=0.5)
    w.update(0.45, 0.9, loss=0.4, lr=0.5)
    w.update(1.0, 1.4, loss=1.0, lr=0.3)
    w.update_full(PiecewiseLoss([0.2, 0.7, 0.75, 1.4], [0.6, 0.0, 0.8]), lr=2.0)
    return w


def _exact_cdf(w: Exp3SetWeights):
    edges = w.edges
    masses = np.exp(w.log_weights) * np.diff(edges)
    knots = np.r_[0.0, np.cumsum(masses)]
    return lambda x: np.interp(x, edges, knots)


def _random_piecewise(rng: np.random.Generator, lo: float, hi: float) -> PiecewiseLoss:
    """Random piecewise function whose edges lie on a 1e-3 lattice (so a 1e-5 grid hits every
    piece)."""
    lattice = np.round(np.linspace(lo, hi, 1001), 12)
    k = int(rng.integers(1, 12))
    inner = np.sort(rng.choice(lattice[1:-1], size=k, replace=False))
    return PiecewiseLoss(np.r_[lo, inner, hi], rng.random(k + 1))


# --------------------------------------------------------------------------------------------
# Exp3SetWeights
# --------------------------------------------------------------------------------------------


def test_initial_weights_are_uniform():
    w = Exp3SetWeights(0.5, 2.5)
    assert w.n_cells == 1
    assert w.probability(0.5, 1.0) == pytest.approx(0.25)
    np.testing.assert_allclose(w.density().values, [0.5])


def test_sampler_matches_density_ks():
    w = _updated_weights()
    assert w.n_cells >= 6
    rng = np.random.default_rng(12345)
    draws = np.array([w.sample(rng) for _ in range(20_000)])
    assert np.all((draws >= w.sigma_min) & (draws <= w.sigma_max))
    result = stats.kstest(draws, _exact_cdf(w))
    assert result.pvalue > 0.01


def test_sampler_is_reproducible():
    w = _updated_weights()
    a = [w.sample(np.random.default_rng(7)) for _ in range(3)]
    assert a[0] == a[1] == a[2]


def test_probability_matches_integral_of_density():
    w = _updated_weights()
    dens = w.density()
    edges = w.edges
    assert np.sum(dens.values * np.diff(edges)) == pytest.approx(1.0, abs=1e-12)
    assert w.probability(w.sigma_min, w.sigma_max) == pytest.approx(1.0, abs=1e-12)
    for lo, hi in [(0.2, 1.4), (0.31, 0.77), (0.7, 0.75), (0.0, 0.4), (1.2, 3.0), (0.5, 0.5)]:
        a, b = max(lo, w.sigma_min), min(hi, w.sigma_max)
        inside = edges[(edges > a) & (edges < b)]
        quad, _ = integrate.quad(lambda s: float(dens(s)), a, b, points=inside, limit=200)
        assert w.probability(lo, hi) == pytest.approx(quad, abs=1e-10)


def test_update_matches_algorithm_1_by_hand():
    w = Exp3SetWeights(0.0 + 1.0, 3.0)  # [1, 3]
    w.update(1.5, 2.0, loss=0.6, lr=0.5)
    # p_1([1.5, 2]) = 0.25, l̂ = 0.6 / 0.25 = 2.4 on [1.5, 2], weight e^{-1.2} there.
    mass_in = 0.5 * math.exp(-1.2)
    assert w.probability(1.5, 2.0) == pytest.approx(mass_in / (mass_in + 1.5))
    np.testing.assert_allclose(w.edges, [1.0, 1.5, 2.0, 3.0])


def test_full_update_is_hedge_and_does_not_mutate_input():
    w = Exp3SetWeights(1.0, 3.0)
    f = PiecewiseLoss([1.0, 2.0, 3.0], [1.0, 0.0])
    edges_bak, values_bak = f.edges.copy(), f.values.copy()
    w.update_full(f, lr=1.0)
    assert w.probability(1.0, 2.0) == pytest.approx(math.exp(-1.0) / (math.exp(-1.0) + 1.0))
    np.testing.assert_array_equal(f.edges, edges_bak)
    np.testing.assert_array_equal(f.values, values_bak)


def test_cells_do_not_duplicate_and_equal_neighbours_merge():
    w = Exp3SetWeights(0.0 + 1.0, 2.0)
    for _ in range(5):
        w.update(1.2, 1.4, loss=0.5, lr=0.1)
    assert w.n_cells == 3
    w.update(1.2 + 1e-15, 1.4 - 1e-15, loss=0.5, lr=0.1)  # snapped onto the existing cuts
    assert w.n_cells == 3
    assert np.all(np.diff(w.edges) > 0)
    w.update(1.0, 2.0, loss=1.0, lr=1.0)  # whole range: no relative change
    assert w.n_cells == 3


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_log_weights_stay_finite_after_many_large_updates():
    rng = np.random.default_rng(0)
    w = Exp3SetWeights(0.1, 1.1)
    for k in range(10_000):
        if k % 2:
            lo = float(rng.uniform(0.1, 1.0))
            w.update(lo, lo + float(rng.uniform(1e-6, 0.1)), loss=1.0, lr=1.0)
        else:  # hammer one small set whose probability collapses double-exponentially
            w.update(0.5, 0.5001, loss=1.0, lr=1.0)
    assert np.all(np.isfinite(w.log_weights))
    assert np.all(np.diff(w.edges) > 0)
    assert w.n_cells <= 2 * 10_000 + 1
    assert w.probability(w.sigma_min, w.sigma_max) == pytest.approx(1.0, abs=1e-9)
    assert w.probability(0.5, 0.5001) == 0.0
    assert np.isfinite(w.sample(rng))


# --------------------------------------------------------------------------------------------
# theory
# --------------------------------------------------------------------------------------------


def test_theorem_step_size_formula_and_clipping():
    lam = theorem_step_size(400, 7, 0.5)
    assert lam == pytest.approx(math.sqrt(2 * math.log(0.5 * 400) / (400 * 7)))
    assert theorem_step_size(1, 1, 0.5) == 1.0  # clipped to Algorithm 1's [0, 1]
    assert 0 < theorem_step_size(3, 2, 0.01) <= 1  # log floored at 1
    assert theorem_step_size(400, 7, 0.5, d=2) == pytest.approx(lam * math.sqrt(2))


def test_regret_rate_shape_and_values():
    r = regret_rate(100, 4.0, 2.0)
    assert r.shape == (100,)
    assert r[-1] == pytest.approx(math.sqrt(100 * 4 * math.log(200)))
    assert np.all(np.diff(r) > 0)


# --------------------------------------------------------------------------------------------
# best fixed σ and regret
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_best_fixed_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    fs = [_random_piecewise(rng, 0.0, 1.0) for _ in range(int(rng.integers(1, 20)))]
    value, lo, hi = best_fixed(fs)
    grid = np.linspace(0.0, 1.0, 1_000_001)
    total = sum(f(grid) for f in fs)
    assert value == pytest.approx(total.min(), abs=1e-9)
    assert lo < hi
    inside = grid[(grid > lo) & (grid < hi)]
    assert inside.size > 0
    np.testing.assert_allclose(sum(f(inside) for f in fs), value, atol=1e-9)


def test_cumulative_regret_matches_prefix_brute_force():
    rng = np.random.default_rng(3)
    fs = [_random_piecewise(rng, 0.0, 1.0) for _ in range(15)]
    played = rng.random(15)
    regret = cumulative_regret(played, fs)
    grid = np.linspace(0.0, 1.0, 200_001)
    running = np.zeros_like(grid)
    for t, f in enumerate(fs):
        running += f(grid)
        assert regret[t] == pytest.approx(played[: t + 1].sum() - running.min(), abs=1e-9)
        assert regret[t] == pytest.approx(
            played[: t + 1].sum() - sum_piecewise(fs[: t + 1]).minimum()[0], abs=1e-12
        )


# --------------------------------------------------------------------------------------------
# providers and learner runs
# --------------------------------------------------------------------------------------------


def test_synthetic_rounds_are_deterministic_and_approximate():
    p = SyntheticRounds(eps=0.01, gamma=0.02)
    f, g = p.true_loss(11), p.approx_loss(11)
    np.testing.assert_array_equal(f.edges, p.true_loss(11).edges)
    assert (f.lo, f.hi) == (g.lo, g.hi)
    assert f.edges.size == g.edges.size
    assert np.max(np.abs(f.edges - g.edges)) <= 0.01 + 1e-12
    assert np.max(np.abs(f.values - g.values)) <= 0.02 + 1e-12
    assert np.all((f.values >= 0) & (f.values <= 1))
    assert p.exact_feedback(11, 0.5) == f.piece(0.5)
    assert p.approx_feedback(11, 0.5) == g.piece(0.5)


@pytest.mark.parametrize("feedback", ["approx", "exact", "full", "uniform"])
def test_run_learner_suffers_true_loss(feedback):
    p = SyntheticRounds()
    seeds = list(range(100, 130))
    run = run_learner(p, feedback, rounds=30, lr=None, seed=4, round_seeds=seeds)
    truth = [p.true_loss(s) for s in seeds]
    expected = [float(f(s)) for f, s in zip(truth, run.sigmas, strict=True)]
    np.testing.assert_array_equal(run.losses_played, expected)
    np.testing.assert_allclose(run.regret, cumulative_regret(run.losses_played, truth))
    assert run.n_feedback_calls == (0 if feedback == "uniform" else 30)
    assert run.best_sigma == best_fixed(truth)[1:]
    assert run.density_snapshots.shape == (run.snapshot_rounds.size, run.density_grid.size)
    assert run.snapshot_rounds[0] == 0 and run.snapshot_rounds[-1] == 29
    width = p.sigma_max - p.sigma_min
    np.testing.assert_allclose(run.density_snapshots.mean(axis=1) * width, 1.0, atol=1e-2)
    json.dumps(export.to_dict(run), allow_nan=False)
    again = run_learner(p, feedback, rounds=30, lr=None, seed=4, round_seeds=seeds)
    np.testing.assert_array_equal(run.sigmas, again.sigmas)


def test_run_learner_rejects_feedback_set_without_sigma():
    @dataclass(frozen=True)
    class Liar(SyntheticRounds):
        def approx_feedback(self, round_seed, sigma):
            return (self.sigma_min, self.sigma_min + 1e-3, 0.5)

    with pytest.raises(ValueError, match="does not contain the played sigma"):
        run_learner(Liar(), "approx", rounds=3, lr=0.1, seed=0, round_seeds=[0, 1, 2])


@pytest.mark.slow  # over 2 s: outside the quick run
def test_learners_beat_uniform_and_average_regret_falls():
    p = SyntheticRounds()
    models = ("approx", "exact", "full", "uniform")
    short = regret_experiment(p, rounds=50, repeats=4, feedback=models, seed=1, n_jobs=1)
    long = regret_experiment(p, rounds=400, repeats=4, feedback=models, seed=1, n_jobs=1)

    def avg(exp, name):
        return exp.models[name].regret_mean[-1] / exp.rounds

    for name in ("exact", "full"):
        assert avg(long, name) < avg(short, name)
        assert avg(long, name) < 0.75 * avg(long, "uniform")
    assert avg(long, "approx") < avg(long, "uniform")
    lo, hi = long.models["exact"].best_sigma
    assert 0.6 <= lo < hi <= 0.8  # inside the good interval around sigma_star = 0.7
    assert long.models["full"].lr > long.models["exact"].lr  # M = 1 vs measured M


# --------------------------------------------------------------------------------------------
# experiments and backends
# --------------------------------------------------------------------------------------------


def _assert_same(a, b):
    assert list(a.models) == list(b.models)
    assert (a.lr, a.M, a.M_first_round) == (b.lr, b.M, b.M_first_round)
    np.testing.assert_array_equal(a.rate, b.rate)
    for name in a.models:
        ma, mb = a.models[name], b.models[name]
        for attr in ("regret_mean", "regret_low", "regret_high", "rate"):
            np.testing.assert_array_equal(getattr(ma, attr), getattr(mb, attr))
        assert ma.best_sigma == mb.best_sigma and ma.lr == mb.lr
        for ra, rb in zip(ma.runs, mb.runs, strict=True):
            for attr in ("sigmas", "losses_played", "regret", "density_snapshots"):
                np.testing.assert_array_equal(getattr(ra, attr), getattr(rb, attr))


def test_backends_agree():
    p = SyntheticRounds()
    kw = dict(rounds=25, repeats=3, seed=5)
    calls = []
    seq = regret_experiment(p, n_jobs=1, progress=lambda d, t: calls.append((d, t)), **kw)
    assert calls == [(k, 3) for k in range(1, 4)]  # one tick per repetition
    par = regret_experiment(p, n_jobs=2, **kw)
    _assert_same(seq, par)

    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        calls.clear()
        dsk = regret_experiment(
            p, dask=cluster.scheduler_address, progress=lambda d, t: calls.append((d, t)), **kw
        )
    _assert_same(seq, dsk)
    assert calls == [(k, 3) for k in range(1, 4)]  # one tick per repetition


def test_models_share_instances_and_seeds_are_deterministic():
    p = SyntheticRounds()
    a = regret_experiment(p, rounds=20, repeats=2, seed=3, n_jobs=1)
    b = regret_experiment(p, rounds=20, repeats=2, seed=4, n_jobs=1)
    for r in range(2):
        best = {m.runs[r].best_value for m in a.models.values()}
        assert len(best) == 1  # same instances for every model in a repetition
    assert a.models["exact"].runs[0].best_value != b.models["exact"].runs[0].best_value
    assert not np.array_equal(a.models["exact"].runs[0].sigmas, a.models["exact"].runs[1].sigmas)


def test_experiment_to_dict_is_json():
    exp = regret_experiment(SyntheticRounds(), rounds=10, repeats=1, lr=0.3, n_jobs=1)
    d = json.loads(json.dumps(export.to_dict(exp, include_runs=True), allow_nan=False))
    assert set(d) >= {"models", "rate", "lr", "M", "rounds", "repeats"}
    assert d["rounds"] == 10 and d["repeats"] == 1 and d["lr"] == 0.3
    for entry in d["models"].values():
        assert len(entry["regret_mean"]) == 10 and len(entry["best_sigma"]) == 2
        assert entry["regret_low"] == entry["regret_mean"] == entry["regret_high"]  # R = 1
    assert d["models"]["uniform"]["lr"] is None


def test_confidence_band_is_student_t():
    exp = regret_experiment(
        SyntheticRounds(), rounds=10, repeats=3, feedback="exact", lr=0.2, n_jobs=1
    )
    m = exp.models["exact"]
    x = np.stack([r.regret for r in m.runs])
    half = stats.t.ppf(0.975, 2) * x.std(axis=0, ddof=1) / math.sqrt(3)
    np.testing.assert_allclose(m.regret_high - m.regret_mean, half)
    np.testing.assert_allclose(m.regret_mean - m.regret_low, half)


# --------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------

P = SyntheticRounds()


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda: regret_experiment(P, rounds=0, repeats=1), InvalidParameterError, "'rounds'"),
        (lambda: regret_experiment(P, rounds=5, repeats=0), InvalidParameterError, "'repeats'"),
        (lambda: regret_experiment(P, rounds=5.0, repeats=1), TypeError, "'rounds' must be"),
        (
            lambda: regret_experiment(P, rounds=5, repeats=1, feedback=("exact", "bandit")),
            InvalidParameterError,
            "'feedback' must be approx, exact",
        ),
        (
            lambda: regret_experiment(P, rounds=5, repeats=1, feedback=()),
            InvalidParameterError,
            "'feedback'.*at least one",
        ),
        (
            lambda: regret_experiment(P, rounds=5, repeats=1, feedback=("full", "full")),
            InvalidParameterError,
            "'feedback'.*repeat",
        ),
        (lambda: regret_experiment(P, rounds=5, repeats=1, lr=0.0), InvalidParameterError, "'lr'"),
        (lambda: regret_experiment(P, rounds=5, repeats=1, lr=-1), InvalidParameterError, "'lr'"),
        (
            lambda: regret_experiment(P, rounds=5, repeats=1, lr="theory"),
            InvalidParameterError,
            "'lr' must be auto",
        ),
        (lambda: regret_experiment(P, rounds=5, repeats=1, seed=-1), InvalidParameterError, "seed"),
        (
            lambda: regret_experiment(P, rounds=5, repeats=1, n_jobs=0),
            InvalidParameterError,
            "'n_jobs'",
        ),
        (lambda: regret_experiment(P, rounds=5, repeats=1, dask=""), InvalidParameterError, "dask"),
        (lambda: regret_experiment(P, rounds=5, repeats=1, progress=3), TypeError, "progress"),
        (lambda: regret_experiment(object(), rounds=5, repeats=1), TypeError, "RoundProvider"),
        (
            lambda: run_learner(P, "bandit", rounds=2, lr=0.1, seed=0, round_seeds=[0, 1]),
            InvalidParameterError,
            "'feedback'",
        ),
        (
            lambda: run_learner(P, "exact", rounds=3, lr=0.1, seed=0, round_seeds=[0, 1]),
            InvalidParameterError,
            "'round_seeds'.*length",
        ),
        (
            lambda: run_learner(P, "exact", rounds=2, lr=-0.1, seed=0, round_seeds=[0, 1]),
            InvalidParameterError,
            "'lr'",
        ),
        (lambda: theorem_step_size(0, 1, 1), InvalidParameterError, "'T'"),
        (lambda: theorem_step_size(10, 0.5, 1), InvalidParameterError, "'M'"),
        (lambda: theorem_step_size(10, 2, 0), InvalidParameterError, "'R'"),
        (lambda: regret_rate(10, 2, 1, d=0), InvalidParameterError, "'d'"),
        (lambda: Exp3SetWeights(2.0, 1.0), InvalidParameterError, "sigma_min"),
        (lambda: Exp3SetWeights(1.0, 2.0).update(1.5, 1.2, 0.1, 0.1), InvalidParameterError, "lo"),
        (
            lambda: Exp3SetWeights(1.0, 2.0).update(1.2, 1.5, -0.1, 0.1),
            InvalidParameterError,
            "'loss'",
        ),
        (
            lambda: Exp3SetWeights(1.0, 2.0).update(3.0, 4.0, 0.1, 0.1),
            InvalidParameterError,
            "does not overlap",
        ),
        (
            lambda: Exp3SetWeights(1.0, 2.0).update_full(PiecewiseLoss([1, 3], [0.0]), 0.1),
            InvalidParameterError,
            "span the",
        ),
        (lambda: Exp3SetWeights(1.0, 2.0).sample(0), TypeError, "Generator"),
        (lambda: best_fixed([]), InvalidParameterError, "at least one"),
        (
            lambda: cumulative_regret(np.zeros(3), [PiecewiseLoss([0, 1], [0.0])]),
            InvalidParameterError,
            r"shape \(1,\).*\(3,\)",
        ),
        (lambda: SyntheticRounds(sigma_star=5.0), InvalidParameterError, "sigma_star"),
        (lambda: SyntheticRounds(n_breaks=-1), InvalidParameterError, "n_breaks"),
    ],
)
def test_bad_parameters_raise(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_options_are_keyword_only():
    with pytest.raises(TypeError):
        regret_experiment(P, 5, 1)  # type: ignore[misc]
    with pytest.raises(TypeError):
        run_learner(P, "exact", 2, 0.1, 0, [0, 1])  # type: ignore[misc]
