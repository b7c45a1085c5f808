"""ui.cache.figure: a cached figure is the figure built, each run gets its own copy."""

import json

import pytest

from sslviz import plots
from sslviz.problem import build_problem, loss_curve
from sslviz.specs import ProblemSpec
from ui import cache


def _loss_figure():
    p = build_problem(ProblemSpec(n=40, n_labeled=6))
    return plots.loss_intervals_figure(loss_curve(p, 1.0, 3.0))


def test_a_cached_figure_is_the_figure_built_and_each_run_gets_its_own():
    key = ("test_figure_cache", 1)
    cache._figure_dict.clear()
    built = _loss_figure()
    first = cache.figure(key, _loss_figure)
    assert json.loads(first.to_json()) == json.loads(built.to_json())
    assert [a.title.text for a in first.select_yaxes()] == [
        a.title.text for a in built.select_yaxes()
    ]
    first.update_layout(height=123)  # as presenter mode scales a run's figure
    again = cache.figure(key, lambda: pytest.fail("a cached figure was built again"))
    assert again is not first and again.layout.height != 123
    assert json.loads(again.to_json()) == json.loads(built.to_json())
