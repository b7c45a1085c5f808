"""LabelSpreading in the app: the model picker offers it (from the registry), its α box shows
for it only, its value travels in the link and the command, and every page runs with it."""

import numpy as np
import pytest
from apptest_helpers import PAGES, chart, code_lines, open_tab, start, values

from sslviz.problem import build_problem, loss_curve, suggest_sigma_range
from sslviz.specs import ProblemSpec

QUERY = {"labeling": "spreading", "alpha": "0.5", "family": "knn", "n": "60", "labeled": "6"}


@pytest.mark.slow  # the app runs
def test_the_picker_offers_spreading_and_its_alpha_box_shows_for_it_only():
    at = start("pages/Loss_intervals.py", {"n": "60", "labeled": "6", "family": "knn"})
    assert not at.exception and not at.error
    assert "spreading" in at.get_by_key("w_labeling").options
    keys = {w.key for w in at.number_input}
    assert "w_alpha" not in keys  # the harmonic model reads no α
    at = start("pages/Loss_intervals.py", QUERY)
    assert not at.exception and not at.error
    assert at.get_by_key("w_alpha").value == 0.5 and "w_lam" not in {w.key for w in at.number_input}
    spec = ProblemSpec(n=60, n_labeled=6, family="knn", labeling="spreading", alpha=0.5)
    problem = build_problem(spec)
    curve = loss_curve(problem, *suggest_sigma_range(problem))
    true_loss = chart(at)["data"][0]
    np.testing.assert_allclose(values(true_loss), curve.loss.edges, rtol=1e-12)
    line = code_lines(open_tab(at, "Export"))[0]
    assert "--labeling spreading" in line and "--alpha 0.5" in line
    assert at.query_params["alpha"] == ["0.5"] or at.query_params["alpha"] == "0.5"


@pytest.mark.slow  # every page of the app
@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_page_runs_with_spreading(page):
    query = QUERY | {"rounds": "3", "repeats": "1", "instances": "2", "test_instances": "2"}
    at = start(PAGES[page], query, timeout=600)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
