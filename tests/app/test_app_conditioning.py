"""Conditioning page (Figure 5), with streamlit.testing."""

import pytest
from apptest_helpers import INVALID, assert_refuses, chart, charts, code_lines, values
from apptest_helpers import start as _start
from streamlit.testing.v1 import AppTest

PAGE = "pages/Conditioning.py"


def start(query: dict | None = None) -> AppTest:
    return _start(PAGE, query)


def test_default_settings_draw_kappa_per_family():
    at = start()
    assert not at.exception and not at.error
    assert [t["name"] for t in chart(at)["data"]] == ["√κ (complete)", "√κ (knn)"]
    assert chart(at)["layout"]["yaxis"]["type"] == "log"
    cg = [t["name"] for t in chart(at, 1)["data"]]
    assert "iterations needed (knn)" in cg and "t-iteration error (knn)" in cg
    assert len(charts(at)) == 4  # then one trust figure per family
    for i, fam in ((2, "complete"), (3, "knn")):
        fig = chart(at, i)
        assert fig["layout"]["title"]["text"] == f"Where CG-20 can be trusted ({fam} graph)"
        assert [t["name"] for t in fig["data"]] == [
            "CG-20 cannot be trusted here",
            "CG-20 error max|f_t − f|",
            "margin min|f − ½|",
            "t needed, CG",
            "t needed, PCG",
            "t used (CG-20)",
        ]
        assert values(fig["data"][3]) == values(chart(at)["data"][0])  # the same σ grid
        assert any(c.value.startswith(f"{fam}: CG-20 ") for c in at.caption)
    lines = code_lines(at)  # one command per family
    assert len(lines) == 2 and all(line.startswith("sslviz condition") for line in lines)
    assert "--family complete" in lines[0] and "--family knn" in lines[1]
    assert [b.key for b in at.get("download_button")] == [
        "cond_dl_condition.csv",
        "cond_dl_condition_complete.json",
        "cond_dl_condition_knn.json",
        "cond_dl_trust_complete.csv",
        "cond_dl_trust_knn.csv",
    ]


def test_changing_families_and_grid_changes_the_figure():
    at = start()
    at.multiselect(key="w_families").set_value(["knn", "mutual-knn"])
    at.number_input(key="w_points").set_value(6).run()
    assert not at.exception
    fig = chart(at)
    assert [t["name"] for t in fig["data"]] == ["√κ (knn)", "√κ (mutual-knn)"]
    assert len(values(fig["data"][0])) == 6
    assert at.query_params["families"] == "knn,mutual-knn" and at.query_params["points"] == "6"
    assert all("--points 6" in line for line in code_lines(at))


def test_pcg_variant_changes_the_iterations_needed():
    at = start()
    before = values(chart(at, 1)["data"][0], "y")
    at.radio(key="w_cond_solver").set_value("pcg").run()
    assert not at.exception
    assert values(chart(at, 1)["data"][0], "y") != before
    assert at.query_params["cond_solver"] == "pcg"
    assert all("--solver pcg" in line for line in code_lines(at))


def test_no_family_asks_for_one():
    at = start()
    at.multiselect(key="w_families").set_value([]).run()
    assert not at.exception and at.info and not charts(at)


def test_changing_t_changes_cg_error_and_trust():
    at = start()
    before = values(chart(at, 1)["data"][1], "y")
    at.number_input(key="w_t").set_value(2).run()
    assert not at.exception
    assert values(chart(at, 1)["data"][1], "y") != before
    trust = chart(at, 3)
    assert trust["data"][1]["name"] == "CG-2 error max|f_t − f|"
    assert values(trust["data"][1], "y") == pytest.approx(values(chart(at, 1)["data"][3], "y"))


@pytest.mark.slow  # over 1.5 s: outside the quick run
@pytest.mark.parametrize("case", list(INVALID))
def test_invalid_input_shows_error_not_exception(case):
    assert_refuses(start(), case)


def test_bad_url_falls_back_with_warning():
    at = start({"k": "-3"})
    assert not at.exception
    assert any("k='-3'" in w.value for w in at.warning)
    assert charts(at)
