"""Loss intervals page (Figure 3 and the node drill-down), with streamlit.testing."""

import pytest
from apptest_helpers import INVALID, assert_refuses, chart, metrics, values  # noqa: F401
from apptest_helpers import start as _start
from streamlit.testing.v1 import AppTest

PAGE = "pages/1_Loss_intervals.py"


def start(query: dict | None = None) -> AppTest:
    return _start(PAGE, query)


def test_default_settings_draw_figure_3_and_drill_down():
    at = start()
    assert not at.exception and not at.error
    assert not at.help  # no stray "magic" output of a bare expression
    assert at.success[0].value == "No true breakpoint missed."
    fig = chart(at)
    names = [t["name"] for t in fig["data"]]
    assert names[:2] == ["true loss l(σ)", "estimated intervals"]
    assert int(metrics(at)["intervals M"]) >= 1
    assert len(at.get("plotly_chart")) == 2  # Figure 3 and the node drill-down
    node = [t["name"] for t in chart(at, 1)["data"]]
    assert {"gradient iterates", "newton iterates", "hybrid iterates"} <= set(node)
    assert "sslviz intervals --dataset digits" in at.code[0].value
    assert len(at.get("download_button")) == 4


def test_changing_cg_iterations_changes_the_estimate():
    at = start()
    before = values(chart(at)["data"][1])
    at.number_input(key="w_t").set_value(3).run()
    assert not at.exception
    assert values(chart(at)["data"][1]) != before
    assert "--cg-iters 3" in at.code[0].value


def test_compare_overlays_a_second_setting():
    at = start()
    at.selectbox(key="li_compare").set_value("CG t = 5").run()
    assert not at.exception
    assert [t["name"] for t in chart(at)["data"]][2] == "compare: CG t = 5"


def test_missed_breakpoints_are_listed_and_drillable():
    at = start({"c0": "3", "c1": "8", "n": "60", "labeled": "6", "family": "complete", "t": "5"})
    assert not at.exception and not at.error
    assert int(metrics(at)["missed"]) > 0
    assert "missed breakpoint" in [t["name"] for t in chart(at)["data"]]
    assert "missed" in at.selectbox(key="li_node").format_func(at.selectbox(key="li_node").value)
    at.selectbox(key="li_node").set_value(5).run()
    assert not at.exception and len(at.get("plotly_chart")) == 2


@pytest.mark.parametrize("case", list(INVALID))
def test_invalid_input_shows_error_not_exception(case):
    assert_refuses(start(), case)


def test_bad_url_falls_back_with_warning():
    at = start({"sigma_min": "-1", "mode": "turbo"})
    assert not at.exception
    assert len(at.warning) == 2
    assert at.radio(key="w_mode").value == "fast"
    assert at.get("plotly_chart")


def test_threshold_family_shows_the_exact_loss_over_r():
    at = start({"family": "threshold"})
    assert not at.exception and not at.error
    fig = chart(at)
    assert [t["name"] for t in fig["data"]][0] == "true loss l(r)"
    assert set([t["name"] for t in fig["data"]][1:]) <= {"degenerate r (nodes cut off from L)"}
    assert fig["layout"]["xaxis"]["title"]["text"].startswith("r ")
    assert "sslviz loss" in at.code[0].value


def test_paper_mode_and_delalleau_run():
    at = start({"mode": "paper", "labeling": "delalleau", "n": "60", "labeled": "6"})
    assert not at.exception and not at.error
    assert len(at.get("plotly_chart")) == 2
    assert "--mode paper" in at.code[0].value and "--labeling delalleau" in at.code[0].value
