"""Issue 12 §4, long work behaves: requests over the estimated time cap are refused before
anything is computed, and a stopped computation leaves the page usable and the caches
unpolluted (streamlit.testing)."""

import pytest
from apptest_helpers import chart, chart_data, charts, start
from streamlit.runtime.scriptrunner_utils.exceptions import StopException

from ui import cache, caps, player, progress

LOSS, REGRET, PLAYER = "pages/Loss_intervals.py", "pages/Online_regret.py", "pages/Algorithm_4.py"


@pytest.fixture
def calls(monkeypatch):
    """Counts of the sslviz computations the app's caches call (started, finished)."""
    out = {}

    def counted(name, func):
        def wrapper(*args, **kwargs):
            out[name, "started"] = out.get((name, "started"), 0) + 1
            res = func(*args, **kwargs)
            out[name, "finished"] = out.get((name, "finished"), 0) + 1
            return res

        return wrapper

    for mod, name in (
        (cache, "loss_curve"),
        (cache, "problem_sweep"),
        (cache, "trust_curve"),
        (player, "sweep"),
    ):
        monkeypatch.setattr(mod, name, counted(f"{mod.__name__}.{name}", getattr(mod, name)))
    import sslviz.experiment

    stream = sslviz.experiment.view_regret_stream

    def counted_stream(*args, **kwargs):  # a regret stream: finished with its last part
        out["regret stream", "started"] = out.get(("regret stream", "started"), 0) + 1
        for part in stream(*args, **kwargs):
            if part.complete:
                out["regret stream", "finished"] = out.get(("regret stream", "finished"), 0) + 1
            yield part

    monkeypatch.setattr(sslviz.experiment, "view_regret_stream", counted_stream)
    return out


def stop_at(monkeypatch, when=lambda message: True) -> list:
    """Simulate a click on Stop during the next computation: its first progress update
    whose message ``when`` accepts does what Streamlit does with the click (the button's
    callback marks the request stopped; the running script is interrupted at that
    Streamlit call). The keys of the stopped computations (one at most)."""
    fired = []
    tick = progress.progress.tick

    def stopping(self, fraction, message=""):
        tick(self, fraction, message)
        if not fired and when(message):
            fired.append(self.key)
            progress._stop(self.key)
            raise StopException()

    monkeypatch.setattr(progress.progress, "tick", stopping)
    return fired


@pytest.fixture
def stop_after_first_tick(monkeypatch):
    """:func:`stop_at` the first progress update of the next computation."""
    return stop_at(monkeypatch)


@pytest.mark.slow  # over 1.5 s: outside the quick run
@pytest.mark.parametrize("page", [LOSS, "pages/Conditioning.py", REGRET, "pages/Speed.py", PLAYER])
def test_every_page_refuses_a_request_over_the_time_cap(monkeypatch, calls, page):
    monkeypatch.setattr(caps, "MAX_SECONDS", 0.01)
    at = start(page, {"n": "90", "labeled": "7", "seed": "111"})
    assert not at.exception
    assert at.error and all(e.value.startswith("Not computed: ") for e in at.error)
    assert all("estimated (cap 0.01 s)" in e.value for e in at.error)
    assert not charts(at)
    assert not calls


def test_a_request_over_the_time_cap_is_refused_and_computes_nothing(monkeypatch, calls):
    monkeypatch.setattr(caps, "MAX_SECONDS", 0.01)
    at = start(LOSS, {"n": "90", "labeled": "7", "seed": "101"})
    assert not at.exception
    [err] = [e.value for e in at.error]
    assert err.startswith("Not computed: this view (the exact loss")
    assert "estimated (cap 0.01 s)" in err
    assert "Settings that fit" in err or "choose smaller settings" in err
    assert not charts(at)
    assert not calls


@pytest.mark.slow  # over 2 s: outside the quick run
def test_a_link_over_the_cap_names_the_settings_that_fit(calls):
    """Default caps (60 s): a complete graph on 1400 fashion-MNIST points with a wide σ
    range, and an online experiment of 10 × 300 rounds at n = 300."""
    at = start(
        LOSS,
        {
            "dataset": "fashion-mnist",
            "n": "1400",
            "family": "complete",
            "sigma_min": "1",
            "sigma_max": "20",
        },
    )
    assert not at.exception
    [err] = [e.value for e in at.error]
    assert "estimated (cap 60 s)" in err
    assert "on a complete graph" in err and "the kNN family" in err, err
    assert not charts(at)
    at = start(REGRET, {"n": "300", "rounds": "300", "repeats": "10"})
    [err] = [e.value for e in at.error]
    assert err.startswith("Not computed: 10 × 300 rounds would take about") and " rounds" in err
    assert not charts(at)
    assert "reg_run" not in [b.key for b in at.button]  # no Run button either
    assert not calls


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_a_stopped_loss_view_is_not_restarted_and_reruns_in_full(calls, stop_after_first_tick):
    query = {"n": "70", "labeled": "7", "seed": "103"}
    at = start(LOSS, query)
    assert stop_after_first_tick and not at.exception
    assert calls.get(("ui.cache.loss_curve", "finished"), 0) == 0  # interrupted
    at.run()  # the rerun the click starts: the page says so and does not compute again
    assert not at.exception and not at.error and not charts(at)
    assert any(i.value.startswith("Stopped. Press Run to compute again") for i in at.info)
    assert calls[("ui.cache.loss_curve", "started")] == 1
    [run] = [b for b in at.button if b.label == "Run"]
    run.click().run()
    assert not at.exception and not at.error
    assert calls[("ui.cache.loss_curve", "finished")] == 1
    shown = chart_data(at)
    # nothing partial was cached: a fresh, uninterrupted computation shows the same
    for f in (
        cache.truth,
        cache._intervals,
        cache._scored,
        cache.trust,
        cache._trust_base,
        cache._figure_dict,
    ):
        f.clear()
    fresh = start(LOSS, query)
    assert calls[("ui.cache.loss_curve", "finished")] == 2
    assert chart_data(fresh) == shown


@pytest.mark.slow  # over 1.5 s: outside the quick run
@pytest.mark.parametrize("autorun", [True, False])
def test_a_stopped_experiment_keeps_what_arrived(
    monkeypatch, calls, stop_after_first_tick, autorun
):
    """Small settings run by themselves; larger ones wait for "Run the experiment": after a
    stop both show "Stopped", the rounds that arrived (said as partial) and the Run button,
    memoise no finished experiment, and neither restarts by itself."""
    from sslviz.problem import clear_round_memo

    cache.REGRET_RUNS.clear()
    cache.REGRET_PARTS.clear()
    clear_round_memo()  # rounds the other case computed: nothing left to compute, or stop
    monkeypatch.setattr(progress, "SHOW_AFTER", 0.0)  # the bar at the first part
    if not autorun:
        monkeypatch.setattr(cache, "regret_autoruns", lambda *a, **k: False)
    at = start(REGRET, {"n": "40", "labeled": "5", "rounds": "3", "repeats": "1", "seed": "105"})
    if not autorun:
        assert not stop_after_first_tick and not calls
        at.button(key="reg_run").click().run()
    assert stop_after_first_tick and not at.exception
    assert not cache.REGRET_RUNS and ("regret stream", "finished") not in calls
    at.run()
    assert not at.exception and len(charts(at)) == 1  # the round that arrived
    assert any(i.value.startswith("Stopped: what had arrived") for i in at.info)
    assert any("rounds 2–3 are missing" in c.value for c in at.caption)
    assert calls[("regret stream", "started")] == 1  # not restarted by itself
    [run] = [b for b in at.button if b.label == "Run"]
    run.click().run()
    assert not at.exception and not at.error and len(charts(at)) == 3
    assert len(cache.REGRET_RUNS) == 1 and calls[("regret stream", "finished")] == 1


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_a_stopped_learning_run_keeps_the_instances_that_arrived(
    monkeypatch, stop_after_first_tick
):
    monkeypatch.setattr(progress, "SHOW_AFTER", 0.0)  # the bar at the first part
    query = {"n": "40", "labeled": "5", "instances": "8", "test_instances": "2", "seed": "109"}
    at = start("pages/Learn.py", query)
    assert stop_after_first_tick and not at.exception
    assert not [k for k in cache.LEARN_RUNS if k[0].seed == 109]
    at.run()
    assert not at.exception and len(charts(at)) == 1  # the first instances
    assert any(i.value.startswith("Stopped: what had arrived") for i in at.info)
    assert any("instances 3–8" in c.value and "missing" in c.value for c in at.caption)
    [run] = [b for b in at.button if b.label == "Run"]
    run.click().run()
    assert not at.exception and not at.error
    assert [k for k in cache.LEARN_RUNS if k[0].seed == 109]


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_a_stopped_recording_memoises_nothing(calls, stop_after_first_tick):
    at = start(PLAYER, {"n": "50", "labeled": "5", "seed": "107"})
    assert stop_after_first_tick and not at.exception
    assert not [k for k in player._RECORDED if k[0].seed == 107]
    at.run()
    assert not at.exception and not charts(at)
    [run] = [b for b in at.button if b.label == "Run"]
    run.click().run()
    assert not at.exception and not at.error and len(charts(at)) == 1
    assert [k for k in player._RECORDED if k[0].seed == 107]


def test_a_stopped_speed_grid_is_not_restarted(calls, stop_after_first_tick):
    at = start(
        "pages/Speed.py",
        {"n": "60", "labeled": "6", "seed": "109", "sizes": "40", "speed_solvers": "cg"},
    )
    assert stop_after_first_tick and not at.exception
    at.run()
    assert not at.exception and not charts(at)
    assert any(i.value.startswith("Stopped. Press Run") for i in at.info)
    started = calls.get(("ui.cache.problem_sweep", "started"), 0)
    [run] = [b for b in at.button if b.label == "Run"]
    run.click().run()
    assert not at.exception and not at.error and len(charts(at)) == 1
    assert calls[("ui.cache.problem_sweep", "finished")] > started


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_a_stop_after_paper_modes_last_interval_keeps_every_interval(monkeypatch):
    """Paper mode's intervals all arrived, then Stop during a later step (the trust panel):
    the page shows the whole sweep's chart, says what is not computed yet, and Run
    computes the rest; the sweep is not computed again."""
    cache.PAPER_RUNS.clear()
    cache.PAPER_PARTS.clear()
    monkeypatch.setattr(progress, "SHOW_AFTER", 0.0)  # a bar update at every tick
    fired = stop_at(monkeypatch, lambda message: "can be trusted" in message)  # after the sweep
    query = {"n": "60", "labeled": "6", "seed": "113", "mode": "paper"}
    query |= {"sigma_min": "0.8", "sigma_max": "3"}
    at = start(LOSS, query)
    assert fired and not at.exception
    [key] = [k for k in cache.PAPER_RUNS if k[0].seed == 113]  # the sweep had finished
    at.run()  # the rerun the click starts
    assert not at.exception and len(charts(at)) == 1
    assert any(i.value.startswith("Stopped: what had arrived") for i in at.info)
    assert any("Every interval of Algorithm 4 has arrived" in c.value for c in at.caption)
    title = chart(at)["layout"]["title"]["text"]
    assert "σ over all of [0.8, 3]" in title
    sweep = cache.PAPER_RUNS.get(key)
    [run] = [b for b in at.button if b.label == "Run"]
    run.click().run()
    assert not at.exception and not at.error and len(charts(at)) >= 1
    assert cache.PAPER_RUNS.get(key) is sweep  # the same sweep, not computed again
    assert "can be trusted" in chart(at)["layout"]["title"]["text"]
