"""The pages opened to more than two classes (docs/method.md §13.8), with classes=0,1,2 in
the link: each works and draws, never a traceback, and says what one-vs-all changes."""

import numpy as np
import pytest
from apptest_helpers import chart, charts, code_lines, download, run_cli, values
from apptest_helpers import start as _start

from sslviz import export
from sslviz.animation import class_steps
from sslviz.class_trust import class_trust_curve
from sslviz.problem import build_problem
from sslviz.specs import ProblemSpec
from ui.url import spec_from_cfg

QUERY = {"classes": "0,1,2", "n": "60", "labeled": "6"}


def start(page: str, **extra):
    return _start(page, QUERY | extra)


TRUST = ("CG-20 error max|F_t − F|", "half the top-two margin", "t needed, CG", "t needed, PCG")


def _trust_traces(fig: dict) -> dict:
    """The trust panel's traces of a figure by name: σ and values."""
    return {t["name"]: (values(t), values(t, "y")) for t in fig["data"] if t.get("name") in TRUST}


def test_conditioning_page_with_three_classes(tmp_path):
    at = start("pages/Conditioning.py", points="5")
    assert not at.exception and not at.error
    assert len(charts(at)) == 4  # √κ, CG, then one trust chart per family
    assert [t["name"] for t in chart(at)["data"]] == ["√κ (complete)", "√κ (knn)"]
    (line,) = [c.value for c in at.caption if c.value.startswith("3 classes:")]
    assert "do not depend on the labels or the number of classes" in line
    # the trust charts are class_trust_curve's on the page's grid (docs/method.md §13.9)
    cfg = at.session_state["cfg"]
    p = build_problem(spec_from_cfg(ProblemSpec, cfg).replace(family="complete"))
    sig = np.linspace(cfg["sigma_min"], cfg["sigma_max"], 5)
    tc = class_trust_curve(p.model, p.instance.y, p.instance.classes, sig)
    drawn = _trust_traces(chart(at, 2))
    assert set(drawn) == set(TRUST)
    assert drawn[TRUST[0]][0] == pytest.approx(sig.tolist(), rel=1e-12)
    assert drawn[TRUST[0]][1] == pytest.approx(np.maximum(tc.error, 1e-17).tolist(), rel=1e-12)
    assert drawn["t needed, CG"][1] == tc.t_needed_cg.tolist()
    assert f"complete: {tc.stated()}" in [c.value for c in at.caption]
    assert any("half the smallest top-two margin" in c.value for c in at.caption)
    lines = code_lines(at)
    assert len(lines) == 2 and all("--classes 0 1 2" in x and "--trust" in x for x in lines)
    doc = run_cli(lines[0], tmp_path / "c.json")  # the download is the command's JSON
    assert doc["classes"] == [0, 1, 2] and doc["trust"] == export.to_dict(tc)
    assert (
        download(at, "cond_dl_condition_complete.json").decode()
        == (tmp_path / "c.json").read_text()
    )


def test_the_loss_and_conditioning_pages_trust_panels_agree():
    """One definition: at the same σ both pages draw the same multi-class trust numbers."""
    query = {"points": "5", "family": "complete", "families": "complete"}
    cond = start("pages/Conditioning.py", **query)
    loss = _start("pages/Loss_intervals.py", QUERY | query, timeout=300)
    assert not cond.exception and not loss.exception and not cond.error and not loss.error
    here, there = _trust_traces(chart(cond, 2)), _trust_traces(chart(loss))
    assert set(here) == set(there) == set(TRUST)
    for name in TRUST:
        assert here[name] == there[name], name


def test_cg_iterations_page_with_three_classes():
    at = start("pages/CG_iterations.py", t_max="10")
    assert not at.exception and not at.error
    fig = chart(at)
    assert [f["name"] for f in fig["frames"]] == [f"t{t}" for t in class_steps(10, 20)]
    names = [t.get("name") for t in fig["data"]]
    assert names[:3] == ["exact loss l(σ)", "CG l̃_t(σ)", "Jacobi-PCG l̃_t(σ)"]
    assert any("sslviz intervals --cg-iters t" in c.value for c in at.caption)


def test_online_regret_page_with_three_classes(tmp_path):
    at = start("pages/Online_regret.py", rounds="3", repeats="2", feedback="approx,exact")
    at.button(key="reg_run").click()
    at = at.run()
    assert not at.exception and not at.error
    assert chart(at)["data"]  # the regret chart
    assert any(c.value.startswith("3 classes (0, 1 and 2), one-vs-all") for c in at.caption)
    (line,) = code_lines(at)
    doc = run_cli(line.replace("--jobs -1", "--jobs 1"), tmp_path / "r.json")
    assert doc["classes"] == [0, 1, 2]
    assert download(at, "reg_dl_regret.json").decode() == (tmp_path / "r.json").read_text()


def test_learn_page_with_three_classes(tmp_path):
    at = start("pages/Learn.py", instances="2", test_instances="1", curve="")
    assert not at.exception and not at.error
    assert chart(at)["data"]
    assert any(c.value.startswith("3 classes (0, 1 and 2), one-vs-all") for c in at.caption)
    (line,) = code_lines(at)
    doc = run_cli(line.replace("--jobs -1", "--jobs 1"), tmp_path / "l.json")
    assert doc["classes"] == [0, 1, 2]
    assert download(at, "learn_dl_learn.json").decode() == (tmp_path / "l.json").read_text()


def test_algorithm_4_page_with_three_classes():
    at = start("pages/Algorithm_4.py", n="30", sigma_min="2", sigma_max="3")
    assert not at.exception and not at.error
    assert [r.options for r in at.radio if r.label == "replay"] == [["paper mode"]]
    fig = chart(at)
    assert fig["layout"]["yaxis"]["title"]["text"] == "top-two gap F_ua − F_ub"
    assert any("(F_ua − F_ub)²" in c.value for c in at.caption)
