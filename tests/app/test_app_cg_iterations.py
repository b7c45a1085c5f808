"""The CG-iterations page (the t-scrubber): it draws the scrubber from one cached
result, its sentences are that result's, and moving t reruns nothing on the server."""

import pytest
from apptest_helpers import chart, download_json, start

from sslviz import animation, tours
from sslviz.convergence import compare_misses
from sslviz.specs import ProblemSpec, SweepSettings
from ui import cache

PAGE = "pages/CG_iterations.py"


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_the_tour_view_draws_the_scrubber_and_states_its_result():
    at = start(PAGE, {"tour": "cg-converges"})
    assert not at.exception and not at.error
    fig = chart(at)
    tour = tours.get("cg-converges")
    T, t = int(tour.settings["t_max"]), int(tour.settings["t"])
    assert len(fig["frames"]) == T
    assert fig["layout"]["sliders"][0]["active"] == t - 1
    cfg = at.session_state["cfg"]
    spec = ProblemSpec(classes=(3, 8), family="complete")
    v = cache.convergence_view(spec, cfg["sigma_min"], cfg["sigma_max"], T, t)
    conv = v["result"]
    texts = " ".join(m.value for m in at.markdown)
    scores = {
        sv: cache.scored(spec, cfg["sigma_min"], cfg["sigma_max"], st)
        for sv, st in (
            ("cg", SweepSettings(solver="cg", cg_iters=t)),
            ("pcg", SweepSettings(solver="pcg", cg_iters=t)),
        )
    }
    comparisons = [compare_misses(conv, sv, t, sc) for sv, sc in scores.items()]
    trust = cache.trust(spec, cfg["sigma_min"], cfg["sigma_max"], "cg", t, 40)
    # the sentence under the chart is the results': its own and Algorithm 4's misses
    assert conv.reading(t, comparisons, trust) in texts
    assert fig["layout"]["annotations"][0]["text"] == animation.convergence_counter(conv, t)
    doc = download_json(at, "converge_dl_convergence.json")
    assert doc["solvers"]["cg"]["misses"] == conv.misses("cg").tolist()
    assert doc["settings"]["sigma_min"] == cfg["sigma_min"]


def test_the_threshold_family_says_what_to_pick():
    at = start(PAGE, {"family": "threshold"})
    assert not at.exception
    assert any("Gaussian family" in i.value for i in at.info)


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_a_bad_t_max_is_refused_in_words():
    at = start(PAGE, {"t_max": "900"})
    assert not at.exception
    shown = " ".join(w.value for w in at.warning) + " ".join(e.value for e in at.error)
    assert "t" in shown and "900" in shown
