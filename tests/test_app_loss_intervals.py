"""Loss intervals page (Figure 3 and the node drill-down), with streamlit.testing."""

import pytest
from apptest_helpers import INVALID, assert_refuses, chart, code_lines, metrics, values
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
    lines = code_lines(at)
    assert lines[0].startswith("sslviz loss --dataset digits")
    assert lines[1].startswith("sslviz intervals --dataset digits") and "--score" in lines[1]
    assert len(at.get("download_button")) == 4


def test_changing_cg_iterations_changes_the_estimate():
    at = start()
    before = values(chart(at)["data"][1])
    at.number_input(key="w_t").set_value(3).run()
    assert not at.exception
    assert values(chart(at)["data"][1]) != before
    assert "--cg-iters 3" in code_lines(at)[1]
    assert at.query_params["t"] == "3"


def test_compare_overlays_a_second_setting():
    at = start()
    at.selectbox(key="w_compare").set_value("CG t = 5").run()
    assert not at.exception
    assert [t["name"] for t in chart(at)["data"]][2] == "compare: CG t = 5"
    assert at.query_params["compare"] == "CG t = 5"
    assert "--cg-iters 5" in code_lines(at)[2]  # the comparison's own command


def test_missed_breakpoints_are_listed_and_drillable():
    at = start({"classes": "3,8", "n": "60", "labeled": "6", "family": "complete", "t": "5"})
    assert not at.exception and not at.error
    assert int(metrics(at)["missed"]) > 0
    assert "missed breakpoint" in [t["name"] for t in chart(at)["data"]]
    node = at.selectbox(key="w_node")
    assert "missed" in node.format_func(node.value)
    missed_rows = {int(r) for text in at.dataframe[1].value["nodes"] for r in text.split(", ")}
    assert node.value in missed_rows  # nodes behind missed breakpoints come first
    other = next(r for r in at.dataframe[0].value["hi_node"].dropna().astype(int)
                 if r not in missed_rows)  # fmt: skip
    at.selectbox(key="w_node").set_value(other).run()
    assert not at.exception and len(at.get("plotly_chart")) == 2
    assert at.query_params["node"] == str(other)


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
    assert code_lines(at) and code_lines(at)[0].startswith("sslviz loss")
    assert len(code_lines(at)) == 1 and len(at.get("download_button")) == 2


def test_paper_mode_and_delalleau_run():
    at = start({"mode": "paper", "labeling": "delalleau", "n": "60", "labeled": "6"})
    assert not at.exception and not at.error
    assert len(at.get("plotly_chart")) == 2
    line = code_lines(at)[1]
    assert "--mode paper" in line and "--labeling delalleau" in line
