"""Issue 12 §2, the large option: a kNN graph on the whole pool of the two classes, above
this server's usual cap on n, with its time estimate (streamlit.testing). The server's
cap is lowered here so that the digits pool (360 points for 0 vs 1) counts as large."""

import pytest
from apptest_helpers import charts, start

from sslviz.specs import ProblemSpec
from ui import caps

LOSS = "pages/Loss_intervals.py"


@pytest.fixture
def small_cap(monkeypatch):
    monkeypatch.setattr(caps, "MAX_N", 200)
    monkeypatch.setitem(caps.CAPS, "n", 200)


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_large_option_takes_the_whole_pool_and_says_what_it_costs(small_cap):
    at = start(LOSS, {"classes": "0,1", "n": "150", "family": "knn", "node": "149"})
    assert not at.exception and not at.error
    assert at.query_params["node"] == "149"
    box = at.get_by_key("w_large")
    assert box.label == "Large: the whole pool of the two classes (360 points)"
    assert box.value is False and not at.get_by_key("w_n").disabled
    box.check().run()
    assert not at.exception and not at.error
    assert at.get_by_key("w_n").value == 360 and at.get_by_key("w_n").disabled
    assert at.query_params["n"] == "360"  # the link carries it
    # another instance: the drill-down opens on its own default node, not row 149's
    assert at.query_params["node"] != "149"
    [info] = [i.value for i in at.sidebar.info]
    assert info.startswith("Large instance, n = 360. Estimated on this server: building it")
    for step in (
        "the exact loss about",
        "Algorithm 4 about",
        "(and once more to time it)",
        "the causes of its misses about",
        "the trust panel (40 σ) about",
        "the node drill-down, about",
    ):
        assert step in info
    assert charts(at)  # computed, on all 360 points
    at.get_by_key("w_large").uncheck().run()
    assert not at.exception and at.get_by_key("w_n").value == 150  # back where it was


@pytest.mark.slow  # over 2 s: outside the quick run
def test_a_large_link_keeps_its_n_and_complete_graphs_are_not_offered(small_cap):
    at = start(LOSS, {"classes": "0,1", "n": "360", "family": "knn"})
    assert not at.exception and not at.error
    assert at.get_by_key("w_large").value is True and at.get_by_key("w_n").value == 360
    at = start(LOSS, {"classes": "0,1", "n": "150", "family": "complete"})
    assert not at.exception
    with pytest.raises(KeyError):
        at.get_by_key("w_large")
    at = start(LOSS, {"classes": "0,1", "n": "360", "family": "complete"})
    assert not at.exception and at.get_by_key("w_n").value == 360  # kept, and said why:
    said = (
        "n must be a whole number between 3 and 200, this server's cap (15,000 for the sparse "
        "families, with the large option), not 360."
    )
    assert [e.value for e in at.sidebar.error] == [said] and not charts(at)
    assert caps.cap_errors(ProblemSpec(classes=(0, 1), n=360)) == [
        "n = 360 is above 200, this server's cap (15,000 for the sparse families, with the "
        "large option). Lower n."
    ]


def test_a_large_request_uses_the_large_time_cap(small_cap, monkeypatch):
    monkeypatch.setattr(caps, "MAX_LARGE_SECONDS", 0.01)
    at = start(LOSS, {"classes": "0,1", "n": "360", "family": "knn"})
    assert not at.exception and not charts(at)
    [err] = [e.value for e in at.error]
    assert err.startswith("Not computed: ") and "(cap 0.01 s)" in err
