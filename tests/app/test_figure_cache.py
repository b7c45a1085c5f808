"""ui.cache.figure: a cached figure is the figure built, each run gets its own copy, and
ui.widgets.chart draws it as Streamlit draws the figure itself."""

import pytest
from streamlit.testing.v1 import AppTest

from sslviz import plots
from sslviz.problem import build_problem, loss_curve
from sslviz.specs import ProblemSpec
from ui import cache, nav


def _loss_figure():
    p = build_problem(ProblemSpec(n=40, n_labeled=6))
    return plots.loss_intervals_figure(loss_curve(p, 1.0, 3.0))


def test_a_cached_figure_is_the_figure_built_and_each_run_gets_its_own():
    key = ("test_figure_cache", 1)
    cache._figure_dict.clear()
    built = _loss_figure()
    first = cache.figure(key, _loss_figure)
    assert first == built.to_dict()
    first["layout"]["height"] = 123  # as a run might change its copy
    again = cache.figure(key, lambda: pytest.fail("a cached figure was built again"))
    assert again is not first and again == built.to_dict()


def _draw_both(present: bool) -> None:  # an AppTest script: the dict, then the figure
    import streamlit as st

    from sslviz import plots
    from sslviz.problem import build_problem, loss_curve
    from sslviz.specs import ProblemSpec
    from ui import url, widgets

    if present:
        url.session_cfg()["present"] = True
    fig = plots.loss_intervals_figure(loss_curve(build_problem(ProblemSpec(n=40)), 1.0, 3.0))
    widgets.chart(st, fig.to_dict(), key="as_dict")
    widgets.chart(st, fig, key="as_figure")


@pytest.mark.parametrize("present", [False, True])
def test_a_figure_dict_is_drawn_as_the_figure_is(present):
    """The chart a cached dict draws (as it is; or made a figure again, to enlarge it in
    presenter mode) is the one its figure draws: the same spec sent to the browser."""
    from apptest_helpers import charts, drawn

    at = AppTest.from_function(_draw_both, args=(present,), default_timeout=60).run()
    assert not at.exception
    as_dict, as_figure = (drawn(c)["figure"] for c in charts(at))
    assert as_dict == as_figure
    assert as_dict["data"] and (as_dict["layout"].get("height", 0) > 450) == present


_BUILDERS = {p.file: p.charts for p in nav.NAV if p.charts}
"""Each page's chart builders (sslviz.plots), all drawn on its default view (ui.nav.NAV)."""


@pytest.mark.parametrize("page", sorted(_BUILDERS))
@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_a_rerun_builds_no_chart_again(monkeypatch, page):
    """A page's charts are cached by the settings they draw: a rerun with nothing changed
    draws the same charts without building one (every change redrawn in a blink)."""
    from apptest_helpers import charts, start

    at = start(page)
    assert not at.exception and not at.error
    sent = [c.proto.bytes for c in charts(at)]
    assert len(sent) >= len(_BUILDERS[page])
    for name in _BUILDERS[page]:
        monkeypatch.setattr(plots, name, lambda *a, name=name, **k: pytest.fail(f"{name} built"))
    at.run()
    assert not at.exception and not at.error
    assert [c.proto.bytes for c in charts(at)] == sent
