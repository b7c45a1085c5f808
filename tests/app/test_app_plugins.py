"""Plug-ins in the app (tests/plugins, installed through entry points by
tests/plugin_helpers.py): the toy family and model in the sidebar's pickers, the link and
the Loss page's exact curve, and the bad plug-ins said on the home page and under the
pickers while everything else works."""

from __future__ import annotations

import numpy as np
import pytest
from apptest_helpers import chart, charts, code_lines, open_tab, start, values
from plugin_helpers import TOY_FAMILY, TOY_MODEL, install_bad, install_toy, installed

from sslviz import registry
from sslviz.problem import build_problem, loss_curve, suggest_sigma_range
from sslviz.specs import ProblemSpec

QUERY = {"family": TOY_FAMILY, "labeling": TOY_MODEL, "classes": "2,3", "n": "80", "labeled": "8"}


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    site = tmp_path_factory.mktemp("site")
    install_toy(site)
    with installed(site):
        yield site


@pytest.fixture
def bad(tmp_path):
    install_toy(tmp_path)
    install_bad(tmp_path)
    with installed(tmp_path):
        yield tmp_path


@pytest.mark.slow
def test_the_loss_page_draws_the_exact_curve_of_the_toys(toy):
    at = start("pages/Loss_intervals.py", QUERY)
    assert not at.exception and not at.error
    assert TOY_FAMILY in at.get_by_key("w_family").options  # the pickers offer them
    assert TOY_MODEL in at.get_by_key("w_labeling").options
    assert at.get_by_key("w_k").disabled is False  # the toy family reads k
    spec = ProblemSpec(classes=(2, 3), n=80, n_labeled=8, family=TOY_FAMILY, labeling=TOY_MODEL)
    problem = build_problem(spec)
    curve = loss_curve(problem, *suggest_sigma_range(problem))
    true_loss = chart(at)["data"][0]
    assert true_loss["name"] == "true loss l(σ)" and curve.breakpoints.size > 3
    np.testing.assert_allclose(values(true_loss), curve.loss.edges, rtol=1e-12)
    np.testing.assert_allclose(values(true_loss, "y")[:-1], curve.loss.values, rtol=1e-12)
    line = code_lines(open_tab(at, "Export"))[0]  # the command reproducing the view
    assert f"--family {TOY_FAMILY}" in line and f"--labeling {TOY_MODEL}" in line


def test_the_home_page_and_the_pickers_say_which_plugins_are_left_out(bad):
    lines = registry.problems()
    assert len(lines) == 3
    at = start(None)
    assert not at.exception
    assert [w.value for w in at.main.warning][: len(lines)] == lines
    short = "3 plug-ins are left out ('broken', 'knn-again', 'lacking'): the home page says why."
    assert short in [w.value for w in at.sidebar.warning]  # under the pickers, on every page
    assert "knn" in at.get_by_key("w_family").options  # the rest works: the default view
    assert charts(at)
