"""Conditioning page (Figure 5), with streamlit.testing."""

import pytest
from apptest_helpers import INVALID, assert_refuses, chart, metrics, values  # noqa: F401
from apptest_helpers import start as _start
from streamlit.testing.v1 import AppTest

PAGE = "pages/2_Conditioning.py"


def start(query: dict | None = None) -> AppTest:
    return _start(PAGE, query)


def test_default_settings_draw_kappa_per_family():
    at = start()
    assert not at.exception and not at.error
    assert [t["name"] for t in chart(at)["data"]] == ["√κ (complete)", "√κ (knn)"]
    assert chart(at)["layout"]["yaxis"]["type"] == "log"
    cg = [t["name"] for t in chart(at, 1)["data"]]
    assert "iterations needed (knn)" in cg and "t-iteration error (knn)" in cg
    assert "sslviz condition" in at.code[0].value
    assert len(at.get("download_button")) == 2


def test_changing_families_and_grid_changes_the_figure():
    at = start()
    at.multiselect(key="cond_families").set_value(["knn", "mutual-knn"])
    at.slider(key="cond_points").set_value(6).run()
    assert not at.exception
    fig = chart(at)
    assert [t["name"] for t in fig["data"]] == ["√κ (knn)", "√κ (mutual-knn)"]
    assert len(values(fig["data"][0])) == 6


def test_changing_t_changes_cg_error():
    at = start()
    before = values(chart(at, 1)["data"][1], "y")
    at.number_input(key="w_t").set_value(2).run()
    assert not at.exception
    assert values(chart(at, 1)["data"][1], "y") != before


@pytest.mark.parametrize("case", list(INVALID))
def test_invalid_input_shows_error_not_exception(case):
    assert_refuses(start(), case)


def test_bad_url_falls_back_with_warning():
    at = start({"k": "-3"})
    assert not at.exception
    assert any("k='-3'" in w.value for w in at.warning)
    assert at.get("plotly_chart")
