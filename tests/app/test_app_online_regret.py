"""Online regret page (Algorithm 1), with streamlit.testing."""

import pytest
from apptest_helpers import INVALID, assert_refuses, chart, charts, code_lines, values
from apptest_helpers import start as _start
from streamlit.testing.v1 import AppTest

from ui import cache

PAGE = "pages/Online_regret.py"


def start(query: dict | None = None) -> AppTest:
    return _start(PAGE, query)


def costly_rounds(repeats: int = 2, feedback: tuple | None = None) -> int:
    """Rounds (default instance, ``repeats`` repetitions) estimated to cost more than what
    runs by itself yet less than this server's time cap (midway, geometrically): such
    settings wait for the Run button (larger ones are refused: tests/app/test_app_caps.py)."""
    from sslviz.specs import ProblemSpec, RegretSettings, SweepSettings
    from ui import cache, caps

    spec, settings = ProblemSpec(), SweepSettings()
    budget = max(cache.AUTO_SECONDS, cache.regret_seconds(spec, settings, RegretSettings()))
    one = RegretSettings(rounds=1, repeats=repeats)
    per = cache.regret_seconds(spec, settings, one.replace(feedback=feedback or one.feedback))
    rounds = int((budget * caps.MAX_SECONDS) ** 0.5 / per)
    assert budget < rounds * per < caps.MAX_SECONDS and rounds <= caps.MAX_ROUNDS
    return rounds


def run_small(at: AppTest, rounds: int = 3, repeats: int = 2) -> AppTest:
    at.number_input(key="w_rounds").set_value(rounds)
    at.number_input(key="w_repeats").set_value(repeats)
    at.button(key="reg_run").click()
    return at.run()


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_default_page_runs_by_itself():
    """First visit with the defaults of sslviz.specs: the experiment runs without a press
    (its cost is the budget), then Run (pressed twice) shows the same memoised result."""
    from sslviz.specs import ProblemSpec, RegretSettings, SweepSettings

    assert cache.regret_autoruns(ProblemSpec(), SweepSettings(), RegretSettings())
    at = start()
    assert not at.exception and not at.error
    assert len(charts(at)) == 3
    names = [t["name"] for t in chart(at)["data"]]
    assert names[-1] == "theoretical rate" and chart(at)["data"][-1]["yaxis"] == "y2"
    assert len(values(chart(at)["data"][1], "y")) == RegretSettings().rounds
    assert any("density p_t(σ)" in c.value for c in at.caption)  # the heatmap explained
    shown = chart(at)
    for _ in range(2):  # pressing Run twice never crashes nor recomputes
        at.button(key="reg_run").click().run()
        assert not at.exception and not at.error and chart(at) == shown


def test_costly_settings_wait_for_the_button():
    at = start({"rounds": str(costly_rounds()), "repeats": "2"})
    assert not at.exception and not at.error
    assert not charts(at)
    assert "Press **Run the experiment**" in at.info[0].value and " s (" in at.info[0].value
    assert at.button(key="reg_run")


@pytest.mark.slow  # over 1.5 s (the page's first default experiment): outside the quick run
def test_run_draws_regret_average_and_density():
    at = run_small(start())
    assert not at.exception and not at.error
    assert len(charts(at)) == 3
    names = [t["name"] for t in chart(at)["data"]]  # 2 repetitions: no bands
    assert names == ["approx", "exact", "full", "uniform", "theoretical rate"]
    assert len(values(chart(at)["data"][1], "y")) == 3
    assert any("without bands (drawn from 5 repetitions on" in c.value for c in at.caption)
    assert [t["name"] for t in chart(at, 2)["data"]] == ["density p_t(σ)", "σ_t played"]
    (line,) = code_lines(at)
    assert line.startswith("sslviz regret") and "--rounds 3" in line and "--seed 0" in line
    assert len(at.get("download_button")) == 2


@pytest.mark.slow  # over 2 s: outside the quick run
def test_changing_models_and_density_model_changes_the_result():
    at = start()
    at.multiselect(key="w_feedback").set_value(["exact", "uniform"])
    at = run_small(at, rounds=4, repeats=1)
    assert not at.exception
    assert [t["name"] for t in chart(at)["data"]][:2] == ["exact", "uniform"]
    assert len(values(chart(at)["data"][1], "y")) == 4
    assert "--feedback exact,uniform" in code_lines(at)[0]
    at.selectbox(key="w_density").set_value("uniform").run()
    assert "uniform" in chart(at, 2)["layout"]["title"]["text"]
    assert at.query_params["density"] == "uniform"  # the picker is in the link
    shown = chart(at)
    # costly settings after the run: no stale result, the page asks for a run ...
    at.number_input(key="w_rounds").set_value(costly_rounds(2, ("exact", "uniform"))).run()
    at.number_input(key="w_repeats").set_value(2).run()
    assert not at.exception and not charts(at) and at.info
    # ... and going back to the settings of the run shows its (memoised) result at once
    at.number_input(key="w_rounds").set_value(4).run()
    at.number_input(key="w_repeats").set_value(1).run()
    assert not at.exception and chart(at) == shown


@pytest.mark.slow  # over 1.5 s (the page's first default experiment): outside the quick run
def test_a_setting_fast_mode_does_not_read_reruns_nothing(monkeypatch):
    """In fast mode Algorithm 4's iteration settings (η, the restart step, the cap,
    root_tol) and the certify cap without certification change no number: the page shows
    the experiment it has, with the changed value in its command line, and runs nothing."""
    at = run_small(start())
    shown = chart(at)
    runs = []
    monkeypatch.setattr("sslviz.experiment.view_regret_stream", lambda *a, **k: runs.append(a))
    for key, value in (("w_eta", 1.5), ("w_step", 0.1), ("w_max_iter", 50), ("w_root_tol", 0.05)):
        at.number_input(key=key).set_value(value).run()
        assert not at.exception and not at.error and chart(at) == shown, key
    at.number_input(key="w_certify_cap").set_value(500).run()
    assert not at.exception and chart(at) == shown and not runs
    assert "--eta 1.5" in code_lines(at)[0]


@pytest.mark.slow  # over 1.5 s: outside the quick run
@pytest.mark.parametrize("case", list(INVALID))
def test_invalid_input_shows_error_not_exception(case):
    assert_refuses(start(), case)


@pytest.mark.slow  # the page's first default experiment, over 1.5 s: outside the quick run
def test_bad_url_falls_back_with_warning():
    at = start({"solver": "quantum"})
    assert not at.exception
    assert any("solver='quantum'" in w.value for w in at.warning)
    at = run_small(at, rounds=2, repeats=1)
    assert not at.exception and charts(at)
