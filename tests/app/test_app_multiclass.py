"""The loss page with more than two classes (docs/method.md §13): the exact l(σ) against
Algorithm 4's one-vs-all intervals, misses naming their pair of classes, the multi-class
trust panel, the downloads and commands, the C-score drill-down; what handles two classes
yet says so in one line."""

import numpy as np
import pytest
from apptest_helpers import (
    chart,
    charts,
    clicked,
    code_lines,
    download_json,
    drawn,
    metrics,
    open_tab,
    run_cli,
    values,
)
from apptest_helpers import start as _start
from streamlit.testing.v1 import AppTest

from sslviz.class_trust import class_trust_curve
from sslviz.problem import build_problem, loss_curve
from sslviz.sentences import class_pair
from sslviz.specs import ProblemSpec
from ui.url import spec_from_cfg

PAGE = "pages/Loss_intervals.py"
THREE = {"classes": "0,1,2", "n": "60", "labeled": "6", "family": "complete"}


def start(query: dict) -> AppTest:
    return _start(PAGE, query, timeout=300)


def _problem(at: AppTest):
    """The page's problem and σ range, built here from its settings."""
    cfg = at.session_state["cfg"]
    spec = spec_from_cfg(ProblemSpec, cfg)
    return build_problem(spec), (cfg["sigma_min"], cfg["sigma_max"])


def test_three_classes_draw_figure_3_the_trust_panel_and_the_drill_down(tmp_path):
    at = start(THREE)
    assert not at.exception and not at.error
    problem, (lo, hi) = _problem(at)
    truth = loss_curve(problem, lo, hi)
    m = metrics(at)
    assert int(m["true breakpoints"]) == truth.breakpoints.size > 0
    assert "true breakpoint" in at.info[0].value  # the verdict
    fig = chart(at)
    names = [t["name"] for t in fig["data"]]
    assert names[:2] == ["true loss l(σ)", "estimated intervals"]
    assert "CG-20 error max|F_t − F|" in names and "half the top-two margin" in names
    # the trust panel: its numbers are class_trust_curve's on the page's grid
    points = len(values(next(t for t in fig["data"] if t["name"] == "t needed, CG")))
    tc = class_trust_curve(
        problem.model,
        problem.instance.y,
        problem.instance.classes,
        np.linspace(lo, hi, points),
    )
    err = next(t for t in fig["data"] if t["name"] == "CG-20 error max|F_t − F|")
    assert values(err, "y") == pytest.approx(np.maximum(tc.error, 1e-17).tolist(), rel=1e-12)
    assert any(c.value.startswith(tc.stated()) for c in at.caption)
    assert any("half the smallest top-two margin" in c.value for c in at.caption)
    # every miss's hover names its pair of classes
    misses = [t for t in fig["data"] if t["name"].startswith("missed: ")]
    assert misses and all("against class" in x for t in misses for x in t["text"])
    # the drill-down: three exact score curves, the true class's named, CG-20 dashed
    node = chart(at, -1)
    curves = [t["name"] for t in node["data"]]
    assert sum(n.startswith("class ") and "," not in n for n in curves) == 3
    assert sum(n.endswith("(true class)") for n in curves) == 1
    assert sum(n.startswith("class ") and n.endswith(", CG-20") for n in curves) == 3
    assert node["layout"]["shapes"]  # the bands where each class wins
    # the missed breakpoints: each with the pair of classes that met
    table = open_tab(at, "Missed breakpoints").dataframe[0].value
    met = table["classes met (own against rival)"].tolist()
    assert len(met) == int(m["missed"]) and all(" against " in x for x in met)
    # downloads and commands: the intervals command gives the page's JSON
    at = open_tab(at, "Export")
    lines = code_lines(at)
    assert len(lines) == 2 and all("--classes 0 1 2" in x for x in lines)
    page_doc = download_json(at, "li_dl_intervals.json")
    assert page_doc["score"]["misses"] and all(
        len(r["classes"]) == 2 for r in page_doc["score"]["misses"]
    )
    cli_doc = run_cli(lines[1], tmp_path / "intervals.json", "--no-timings")
    assert cli_doc["intervals"] == page_doc["intervals"]
    assert cli_doc["score"] == page_doc["score"]
    assert download_json(at, "li_dl_true_loss.json")["classes"] == [0, 1, 2]


def test_all_ten_classes_draw_the_page():
    at = start({"classes": "all"})
    assert not at.exception and not at.error
    problem, (lo, hi) = _problem(at)
    assert problem.instance.classes == tuple(range(10))
    assert int(metrics(at)["true breakpoints"]) == loss_curve(problem, lo, hi).breakpoints.size
    node = [t["name"] for t in chart(at, -1)["data"]]
    assert [n for n in node if n.startswith("class ") and "," not in n] == [
        f"class {c}" + " (true class)" * (f"class {c} (true class)" in node) for c in range(10)
    ]


def test_paper_mode_and_the_other_mode_comparison_run_one_vs_all(tmp_path):
    """Paper mode one-vs-all (docs/method.md §13.8) on the page: its intervals are the
    shown command's; the other-mode comparison draws paper mode's intervals."""
    at = start(THREE | {"mode": "paper", "n": "40"})
    assert not at.exception and not at.error
    at = open_tab(at, "Export")
    line = next(x for x in code_lines(at) if x.startswith("sslviz intervals"))
    assert "--mode paper" in line and "--classes 0 1 2" in line
    cli_doc = run_cli(line, tmp_path / "paper.json", "--no-timings")
    assert cli_doc["intervals"] == download_json(at, "li_dl_intervals.json")["intervals"]
    at = start(THREE | {"compare": "other mode", "n": "40"})
    assert not at.exception and not at.error
    assert [t["name"] for t in chart(at)["data"]].count("compare: other mode") == 1
    at = start(THREE | {"compare": "CG t = 5"})
    assert not at.exception and not at.error
    assert [t["name"] for t in chart(at)["data"]].count("compare: CG t = 5") == 1
    at = start(THREE | {"family": "threshold"})
    assert not at.exception and not at.error
    problem, (lo, hi) = _problem(at)
    (loss,) = [t for t in chart(at)["data"] if t["name"] == "true loss l(r)"]
    truth = loss_curve(problem, lo, hi)
    drawn = {round(v, 12) for v in values(loss, "y") if v == v}
    assert truth.breakpoints.size and drawn == {round(v, 12) for v in truth.loss.values}


def test_a_clicked_miss_names_the_two_classes_that_met():
    at = start(THREE)
    miss = next(t for t in chart(at)["data"] if t["name"].startswith("missed: "))
    with clicked(at, miss["name"], 0) as (row, _, sigma, _):
        at.run()
    assert not at.exception and not at.error
    doc = download_json(open_tab(at, "Export"), "li_dl_intervals.json")
    rec = next(r for r in doc["score"]["misses"] if r["sigma"] == sigma)
    text = next(m.value for m in at.markdown if m.value.startswith("Missed breakpoint of"))
    assert text.startswith(f"Missed breakpoint of {class_pair(f'node {row}', rec['classes'])}")
    assert f"changes sign at σ = {sigma:.5g}" in text
    zoom = next(
        drawn(c)["figure"]
        for c in charts(at)
        if "miss up close" in drawn(c)["figure"]["layout"]["title"]["text"]
    )
    names = [t["name"] for t in zoom["data"]]
    assert "tolerance ± 0.001" in names and "true breakpoint" in names
    x = values(zoom["data"][0])
    assert x[0] < sigma < x[-1]
