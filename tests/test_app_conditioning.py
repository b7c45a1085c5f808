"""Conditioning page (Figure 5), with streamlit.testing."""

import base64
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
PAGE = "pages/2_Conditioning.py"
INVALID = {
    "k >= n": {"w_n": 20, "w_k": 20},
    "|L| >= n": {"w_n": 20, "w_labeled": 20},
    "sigma_min >= sigma_max": {"w_sigma_min": 3.0, "w_sigma_max": 1.0},
    "complete graph too large": {"w_family": "complete", "w_n": 2000},
}


def start(query: dict | None = None) -> AppTest:
    sys.path.insert(0, str(ROOT))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params.update(query or {})
    return at.switch_page(PAGE).run()


def chart(at: AppTest, i: int = 0) -> dict:
    return json.loads(at.get("plotly_chart")[i].proto.spec)


def values(trace: dict, axis: str = "x") -> list:
    """A trace's data, decoding Plotly's base64 typed arrays."""
    v = trace[axis]
    if isinstance(v, dict) and "bdata" in v:
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=v["dtype"]).tolist()
    return list(v)


def metrics(at: AppTest) -> dict:
    return {m.label: m.value for m in at.metric}


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
    at = start()
    for key, value in INVALID[case].items():
        at.get_by_key(key).set_value(value)
    at.run()
    assert not at.exception
    assert at.error, case
    assert not at.get("plotly_chart")


def test_bad_url_falls_back_with_warning():
    at = start({"k": "-3"})
    assert not at.exception
    assert any("k='-3'" in w.value for w in at.warning)
    assert at.get("plotly_chart")
