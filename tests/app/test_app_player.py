"""The Algorithm 4 player page (pages/Algorithm_4.py)."""

import pytest
from apptest_helpers import assert_refuses, charts, download, drawn, start, values
from streamlit.testing.v1 import AppTest

from sslviz.intervals import sweep
from sslviz.problem import build_problem
from sslviz.specs import ProblemSpec, SigmaRange, SweepSettings
from ui import url

PAGE = "pages/Algorithm_4.py"
SMALL = {"n": "60", "family": "knn", "labeled": "6"}


def _run(query=None) -> AppTest:
    return start(PAGE, query, timeout=300)


def _figure(at: AppTest) -> dict:
    (element,) = charts(at)
    return drawn(element)["figure"]


def _frame_intervals(fig: dict, frame: dict) -> list[tuple]:
    """The ``intervals found`` segments a frame shows, as (lo, hi, loss)."""
    names = [t.get("name") for t in fig["data"]]
    k = frame["traces"].index(names.index("intervals found"))
    tr = frame["data"][k]
    x, y = values(tr, "x"), values(tr, "y")
    return [(x[i], x[i + 1], y[i]) for i in range(0, len(x) - 2, 3)]


def _direct(at: AppTest, **change) -> list[tuple]:
    """The intervals of the page's settings, computed without the app."""
    cfg = at.session_state["cfg"]
    spec = url.spec_from_cfg(ProblemSpec, cfg)
    rng = url.spec_from_cfg(SigmaRange, cfg)
    settings = url.spec_from_cfg(SweepSettings, cfg, **change)
    p = build_problem(spec)
    res = sweep(p.model, p.y_unlabeled, rng.sigma_min, rng.sigma_max, settings)
    return [(iv.lo, iv.hi, iv.loss) for iv in res.intervals]


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_default_settings_draw_the_animation_and_end_on_the_sweeps_intervals():
    at = _run()
    assert not at.exception and not at.error
    assert at.radio(key="player_mode").value == SweepSettings().mode  # the sidebar's mode
    fig = _figure(at)
    frames = fig["frames"]
    assert 2 <= len(frames) <= 150
    steps = [int(f["name"][1:]) for f in frames]
    assert steps == sorted(steps) and steps[0] == 0
    n = steps[-1] + 1
    assert frames[-1]["layout"]["annotations"][0]["text"].startswith(f"<b>step {n} / {n}</b>")
    assert _frame_intervals(fig, frames[-1]) == _direct(at)
    assert _frame_intervals(fig, frames[0]) == []
    assert f"{n} steps" in at.caption[0].value
    table = download(at, "player_dl_algorithm4_events.csv").decode()
    assert table.splitlines()[0].startswith("step,kind,") and len(table.splitlines()) == n + 1


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_paper_mode_replay_on_a_small_instance():
    at = _run(SMALL)
    assert not at.exception
    other = "paper" if at.radio(key="player_mode").value == "fast" else "fast"
    at.radio(key="player_mode").set_value(other).run()
    assert not at.exception and not at.error
    fig = _figure(at)
    assert f"{other} mode" in fig["layout"]["title"]["text"]
    assert _frame_intervals(fig, fig["frames"][-1]) == _direct(at, mode=other)
    kinds = {f["layout"]["annotations"][0]["text"].split(" · ")[-1] for f in fig["frames"]}
    want = {"start", "step", "bracket", "interval"} if other == "paper" else {"grid", "interval"}
    assert kinds <= want if other == "paper" else want <= kinds


def test_threshold_family_has_no_algorithm_4():
    at = _run({**SMALL, "family": "threshold"})
    assert not at.exception
    assert any("threshold family has no Algorithm 4" in i.value for i in at.info)
    assert not charts(at)


def test_invalid_sidebar_input_is_an_error_not_a_traceback():
    at = _run(SMALL)
    assert_refuses(at, "sigma_min >= sigma_max")


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_one_step_at_a_time_moves_by_one_real_step():
    """The single-step view: a slider over every real step, ◀ / ▶ buttons (also the ← → keys)
    that move by exactly one, and the figure's counter at the step shown."""
    at = _run(SMALL | {"mode": "paper"})
    at.segmented_control(key="player_view").set_value("one step at a time").run()
    assert not at.exception and not at.error
    n = int(at.slider(key="player_step").max)
    assert any(c.value.startswith(f"{n} steps, ") for c in at.caption)  # every real step

    def counter() -> str:
        return _figure(at)["layout"]["annotations"][0]["text"]

    assert counter().startswith(f"<b>step 1 / {n}</b>")
    assert at.button(key="player_prev").disabled
    at.button(key="player_next").click().run()
    assert counter().startswith(f"<b>step 2 / {n}</b>")
    at.slider(key="player_step").set_value(n - 3).run()
    assert counter().startswith(f"<b>step {n - 3} / {n}</b>")
    at.button(key="player_prev").click().run()
    assert at.slider(key="player_step").value == n - 4
    assert counter().startswith(f"<b>step {n - 4} / {n}</b>")
    assert not _figure(at).get("frames")  # a still figure of that one step
    at.slider(key="player_step").set_value(n).run()
    assert at.button(key="player_next").disabled
