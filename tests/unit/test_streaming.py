"""The regret experiment as a stream (sslviz.experiment.regret_stream): its parts are the
prefixes of the finished experiment, and its last part is the one-shot experiment, bit for
bit, with the same JSON document."""

from __future__ import annotations

import numpy as np
import pytest

from sslviz import export
from sslviz.experiment import regret_experiment, regret_stream, view_regret_stream
from sslviz.online import LearnerSteps, SyntheticRounds, run_learner
from sslviz.problem import GraphRounds, run_regret
from sslviz.specs import ProblemSpec, RegretSettings, SweepSettings

ARRAYS = ("sigmas", "losses_played", "regret", "density_grid", "snapshot_rounds")
SCALARS = ("feedback", "lr", "seed", "best_sigma", "best_value", "n_feedback_calls", "n_cells")


def assert_same_run(a, b) -> None:
    for name in ARRAYS + ("density_snapshots",):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    for name in SCALARS + ("mean_M",):
        assert getattr(a, name) == getattr(b, name), name


def assert_same_experiment(a, b) -> None:
    assert list(a.models) == list(b.models)
    for name in ("lr", "M", "M_first_round", "R", "rounds", "repeats", "seed"):
        assert getattr(a, name) == getattr(b, name), name
    assert np.array_equal(a.rate, b.rate)
    for m, n in zip(a.models.values(), b.models.values(), strict=True):
        for field in ("regret_mean", "regret_low", "regret_high", "rate"):
            assert np.array_equal(getattr(m, field), getattr(n, field)), (m.name, field)
        assert (m.best_sigma, m.best_value, m.lr, m.M) == (n.best_sigma, n.best_value, n.lr, n.M)
        for r, s in zip(m.runs, n.runs, strict=True):
            assert_same_run(r, s)


def document(exp) -> str:
    return export.download_text(export.without_timings(export.to_dict(exp)))


def test_learner_steps_prefix_is_the_shorter_history():
    provider = SyntheticRounds()
    whole = run_learner(provider, "approx", rounds=12, lr=None, seed=3, round_seeds=range(12))
    steps = LearnerSteps(provider, "approx", rounds=12, lr=None, seed=3, round_seeds=range(12))
    for t in range(1, 13):
        steps.step()
        part = steps.run()
        assert np.array_equal(part.sigmas, whole.sigmas[:t])
        assert np.array_equal(part.regret, whole.regret[:t])
        kept = whole.snapshot_rounds < t
        assert np.array_equal(part.density_snapshots, whole.density_snapshots[kept])
    assert_same_run(steps.run(), whole)
    with pytest.raises(ValueError, match="All 12 rounds"):
        steps.step()


@pytest.mark.parametrize("lr", ["auto", 0.3])
def test_stream_ends_with_the_one_shot_experiment(lr):
    kwargs = dict(rounds=9, repeats=3, lr=lr, seed=5)
    one = regret_experiment(SyntheticRounds(), n_jobs=1, **kwargs)
    parts = list(regret_stream(SyntheticRounds(), **kwargs))
    assert [p.done for p in parts] == list(range(1, 10))
    assert [p.complete for p in parts] == [False] * 8 + [True]
    assert_same_experiment(parts[-1].experiment, one)
    assert document(parts[-1].experiment) == document(one)
    for p in parts[:-1]:  # every part is the prefix of the finished curves
        for m, n in zip(p.experiment.models.values(), one.models.values(), strict=True):
            assert np.array_equal(m.regret_mean, n.regret_mean[: p.done])
            assert np.array_equal(m.regret_high, n.regret_high[: p.done])


def test_stream_of_a_view_is_run_regret_on_workers_and_here():
    """Graph rounds of a small view, fast mode: the one-shot run (its rounds on two forked
    workers) against the stream, its parts' instances computed here and on two workers."""
    spec = ProblemSpec(n=40, n_labeled=6, family="knn", k=5, seed=2)
    settings, regret = SweepSettings(), RegretSettings(rounds=6, repeats=2, jobs=2)
    one = run_regret(spec, (0.8, 3.0), settings, regret)
    for jobs in (1, 2):
        rounds = GraphRounds(spec, 0.8, 3.0, settings)
        parts = list(view_regret_stream(rounds, regret, seed=spec.seed, n_jobs=jobs))
        assert parts[0].done == 1 and parts[-1].complete
        assert_same_experiment(parts[-1].experiment, one)
        doc = export.regret_document(spec, (0.8, 3.0), settings, regret, parts[-1].experiment)
        ref = export.regret_document(spec, (0.8, 3.0), settings, regret, one)
        assert export.download_text(export.without_timings(doc)) == export.download_text(
            export.without_timings(ref)
        )
    assert [p.done for p in parts] == [1, 5, 6]  # 4 instances per worker: 4 rounds a part


def test_stream_checks_its_arguments():
    with pytest.raises(ValueError, match="rounds"):
        next(regret_stream(SyntheticRounds(), rounds=0, repeats=1))


def test_learn_stream_grows_and_ends_with_the_one_shot_learn():
    """Exact ERM on the first 2, 4, 8 training instances, then the whole result: the same
    document as learn() computed at once, every curve computed afresh."""
    from sslviz.learn import clear_instance_memo, drawn_instances, learn, learn_stream
    from sslviz.specs import LearnSettings

    spec = ProblemSpec(n=40, n_labeled=6, family="knn", k=5, seed=4)
    settings = LearnSettings(instances=10, test_instances=3, curve=(2, 4), repeats=2)
    train, test, pools = drawn_instances(spec, 10, 3, settings.curve, settings.repeats)
    options = dict(
        approx=(SweepSettings(solver="cg", cg_iters=5),),
        curve_sizes=settings.curve,
        curve_pools=pools,
        n_jobs=1,
    )
    clear_instance_memo()
    one = learn(train, test, (0.8, 3.0), **options)
    clear_instance_memo()
    parts = list(learn_stream(train, test, (0.8, 3.0), **options))
    assert [(p.done, p.complete) for p in parts] == [(2, False), (4, False), (8, False), (10, True)]
    assert "instances 9–10" in parts[2].missing() and parts[0].result.test is None
    for p in parts[:-1]:  # exact ERM on the first instances, as learn() on them alone
        alone = learn(train[: p.done], (), (0.8, 3.0), n_jobs=1)
        assert np.array_equal(p.result.average.loss.values, alone.average.loss.values)
        assert p.result.erm.sigma_hat == alone.erm.sigma_hat
    for a, b in ((parts[-1].result, one),):
        doc = export.learn_document(a, spec, settings)
        ref = export.learn_document(b, spec, settings)
        assert export.download_text(export.without_timings(doc)) == export.download_text(
            export.without_timings(ref)
        )
