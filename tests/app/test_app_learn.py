"""Learn-from-instances page, with streamlit.testing: opened by its plain URL it shows the
sidebar's domain (no tour), the learning tour shows its domain, every sentence comes from the
run it describes, and its download is the CLI's JSON."""

import json

import pytest
from apptest_helpers import chart, charts, code_lines, download, run_cli, values
from apptest_helpers import start as _start
from streamlit.testing.v1 import AppTest

PAGE = "pages/Learn.py"
SMALL = {
    "classes": "3,8",
    "n": "60",
    "labeled": "6",
    "family": "complete",
    "sigma_min": "0.6",
    "sigma_max": "3",
    "instances": "4",
    "test_instances": "3",
    "curve": "1,2,4",
    "curve_repeats": "2",
    "compare_t": "5,20",
}


def start(query: dict | None = None) -> AppTest:
    return _start(PAGE, query)


@pytest.mark.slow  # over 2 s: outside the quick run
def test_plain_url_opens_the_page_with_the_sidebars_domain_not_a_tour():
    """Opened fresh by its plain URL, the page keeps the session's settings (the app's
    default instance, digits 2 vs 3) and opens no tour: no tour text, no tour in the link."""
    from sslviz import specs as S

    at = start()
    assert not at.exception and not at.error
    cfg = at.session_state["cfg"]
    assert "tour" not in cfg and "tour" not in at.query_params
    assert cfg["classes"] == S.default(S.ProblemSpec, "classes")
    assert not any(m.value.startswith("**Look at:**") for m in at.markdown)
    assert charts(at)


@pytest.mark.slow  # over 2 s: outside the quick run
def test_learning_tour_shows_erm_overfitting_on_few_instances():
    """The learning tour (chosen by measurement: digits 3 vs 8): the average, the learning
    curve and the table of approximate learners are drawn, and the held-out excess shrinks
    from m = 1 to the largest m."""
    from sslviz.tours import get

    tour = get("learn-sigma")
    at = start({"tour": tour.id})
    assert not at.exception and not at.error
    assert at.session_state["cfg"]["tour"] == tour.id
    assert len(charts(at)) == 2
    names = {t.get("name") for t in chart(at)["data"]}
    assert {"training instances", "held-out average (8 instances)", "σ̂ on held-out"} <= names
    captions = " ".join(c.value for c in at.caption)
    assert "ERM on m = 8 training instances" in captions
    assert "with m = 1 the held-out excess is" in captions
    frame = at.dataframe[0].value
    assert list(frame["solver"]) == ["exact", "CG-5", "CG-10", "CG-20"]
    excess = next(t for t in chart(at, 1)["data"] if t.get("name") == "excess held-out loss")
    mean = values(excess, "y")
    assert values(excess, "x") == [1, 2, 4, 8] and mean[0] > mean[-1] >= 0


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_sentences_and_download_come_from_the_run(tmp_path):
    """The ERM sentence's numbers are the download's (σ range, σ̂, losses), and the shown
    command writes the same JSON, byte for byte."""
    at = start(SMALL)
    assert not at.exception and not at.error
    doc = json.loads(download(at, "learn_dl_learn.json"))
    said = next(c.value for c in at.caption if c.value.startswith("ERM on m = 4"))
    lo, hi = doc["erm"]["intervals"][0]["lo"], doc["erm"]["intervals"][0]["hi"]
    for x in (lo, hi, doc["sigma_hat"]):
        assert f"{x:.3g}" in said
    assert f"{100 * doc['test']['loss_at_sigma_hat']:.1f}%" in said
    assert f"{100 * doc['test']['excess']:.1f} points" in said
    (line,) = [c for c in code_lines(at) if c.startswith("sslviz learn")]
    cli = run_cli(line, tmp_path / "learn.json", "--no-timings")
    assert cli == doc


def test_k_range_draws_the_map_and_a_complete_graph_is_refused_a_k_range():
    at = start(SMALL | {"family": "knn", "k_range": "3:5", "compare_t": ""})
    assert not at.exception and not at.error
    assert any(t.get("name") == "ERM (k̂, σ̂)" for t in chart(at, 2)["data"])
    assert any(c.value.startswith("Over k = 3..5") for c in at.caption)
    at = start(SMALL | {"k_range": "3:5"})
    assert not at.exception and at.error and "knn or mutual-knn" in at.error[0].value
