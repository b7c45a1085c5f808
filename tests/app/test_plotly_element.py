"""ui.plotly_element, the app's chart element, outside the browser: what it sends (the
figure as st.plotly_chart sends it, without its template), the static files it needs,
the slot a growing chart's parts share, and a click's points handed to its callback.
How it draws is tests/browser/test_browser_chart_element.py's."""

import gzip
import json

import plotly.io as pio
from apptest_helpers import charts, drawn, sent_click
from streamlit.testing.v1 import AppTest

from sslviz import plots
from sslviz.problem import build_problem, loss_curve
from sslviz.specs import ProblemSpec
from ui import index_page, plotly_element


def _figure():
    return plots.loss_intervals_figure(loss_curve(build_problem(ProblemSpec(n=40)), 1.0, 3.0))


def test_the_figure_is_sent_as_plotly_chart_sends_it_without_its_template():
    fig = _figure()
    sent = json.loads(pio.to_json(fig, validate=False))  # what st.plotly_chart sends
    assert sent["layout"].pop("template")
    assert json.loads(plotly_element.figure_json(fig)) == sent
    assert json.loads(plotly_element.figure_json(fig.to_dict())) == sent
    assert "template" in fig.layout.to_plotly_json()  # the figure itself is left as it was


def test_its_static_files_are_served_from_the_app_folder(tmp_path, monkeypatch):
    """plotly.min.js is the installed plotly's own (copied, again when it differs) with its
    gzipped copy, and the chart themes have a light and a dark template
    (scripts/capture_chart_themes.py)."""
    served = index_page.STATIC / "plotly.min.js"
    assert served.read_bytes() == index_page.PLOTLY_JS.read_bytes()
    monkeypatch.setattr(index_page, "STATIC", tmp_path)
    (tmp_path / "plotly.min.js").write_text("an older plotly.js")
    index_page.serve_plotly_js()
    plain, packed = tmp_path / "plotly.min.js", tmp_path / "plotly.min.js.gz"
    assert plain.read_bytes() == index_page.PLOTLY_JS.read_bytes()
    assert gzip.decompress(packed.read_bytes()) == plain.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == [plain.name, packed.name]  # no part
    themes = json.loads((served.parent / "chart_themes.json").read_text())
    light, dark = themes["light"]["layout"], themes["dark"]["layout"]
    assert light["paper_bgcolor"] != dark["paper_bgcolor"]


def _growing() -> None:  # an AppTest script: a chart drawn in two parts, then finished
    import json

    import plotly.graph_objects as go
    import streamlit as st

    from ui import plotly_element, progress

    sent, mount, every = [], plotly_element._chart, progress.REDRAW_EVERY

    def noted(**kwargs):  # each draw's key and slot
        sent.append((kwargs["key"], json.loads(kwargs["data"])["slot"]))
        return mount(**kwargs)

    plotly_element._chart, progress.REDRAW_EVERY = noted, 0.0
    try:
        place = progress.growing()
        for n in (1, 2):
            place.draw(lambda n=n: go.Figure(go.Scatter(y=list(range(n)))), key="grown")
        place.draw(lambda: go.Figure(go.Scatter(y=[0, 1, 2])), key="grown", last=True)
    finally:
        plotly_element._chart, progress.REDRAW_EVERY = mount, every
    st.session_state["sent"] = sent


def test_a_growing_charts_parts_share_the_slot_of_its_finished_chart():
    """Each part has a key of its own (a key is once in a run) and the slot of the finished
    chart, so the browser moves the one chart drawn from part to part."""
    at = AppTest.from_function(_growing, default_timeout=60).run()
    assert not at.exception
    assert at.session_state["sent"] == [
        ("grown_part1", "grown"),
        ("grown_part2", "grown"),
        ("grown", "grown"),
    ]
    (element,) = charts(at)  # each draw replaced the last in its place
    assert element.proto.id.endswith("-grown")
    assert len(drawn(element)["figure"]["data"][0]["y"]) == 3


def _clickable() -> None:  # an AppTest script: a chart whose clicks are written down
    import plotly.graph_objects as go
    import streamlit as st

    from ui import plotly_element

    def clicked(points):
        st.session_state.setdefault("clicks", []).append(points)

    fig = go.Figure(go.Scatter(x=[1, 2], y=[3, 4], customdata=[[0], [1]]))
    plotly_element.draw(st, fig, key="clickable", on_click=clicked)


def test_a_click_hands_its_points_to_the_callback_once():
    at = AppTest.from_function(_clickable, default_timeout=60).run()
    (element,) = charts(at)
    assert drawn(element)["clickable"] and not drawn(element)["stretch"]
    point = {"curve_number": 0, "point_number": 1, "x": 2, "y": 4, "customdata": [1]}
    with sent_click(element, [point]):
        at.run()
    at.run()  # no click sent: the callback is not called again
    assert not at.exception
    assert at.session_state["clicks"] == [[point]]
