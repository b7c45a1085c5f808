"""The app's chart element (``ui.plotly_element``) in real Chromium.

- It looks as Streamlit draws the same figure: an app of two charts, the figure once by
  ``st.plotly_chart`` and once by the element, light and dark, has the same template,
  title, width and height in both (so ``static/chart_themes.json`` is still the installed
  Streamlit's; ``scripts/capture_chart_themes.py`` reads it again).
- A cached redraw updates the chart in place: after a change of t on the loss page the
  chart is the same DOM node, with the new figure.
- A click on a missed breakpoint's marker opens that node's drill-down.
"""

from __future__ import annotations

import json
import re

from browser_helpers import (
    ARTIFACTS,
    CHART,
    CHROMIUM,
    CHROMIUM_ARGS,
    TIMEOUT_MS,
    chart_signature,
    drawn_in_each_scheme,
    no_exception,
    set_number,
    sync_playwright,
    two_chart_server,
    wait_chart_change,
    wait_charts,
    wait_idle,
)


def test_the_element_draws_a_figure_as_streamlit_does(tmp_path):
    with two_chart_server(tmp_path) as url:
        seen = drawn_in_each_scheme(url)
    for scheme, (theirs, ours) in seen.items():
        # Streamlit applies its theme twice to a title: "<b><b>...</b></b>"
        theirs["title"] = re.sub(r"^(<b>)+(.*?)(</b>)+$", r"<b>\2</b>", theirs["title"])
        assert ours == theirs, scheme


_MARK = "() => { document.querySelector('.js-plotly-plot').sslvizMark = 1; }"
_MARKED = "() => document.querySelector('.js-plotly-plot').sslvizMark === 1"

_MISS = """([name, avoid]) => {  // where a marker of the trace named name... is on the page
  const gd = document.querySelector('.js-plotly-plot');
  const t = gd._fullData.find(t => t.name.startsWith(name)), fl = gd._fullLayout;
  const j = t.customdata.findIndex(cd => cd[0] !== avoid);  // another node than shown
  const xa = fl[t.xaxis.replace('x', 'xaxis')], ya = fl[t.yaxis.replace('y', 'yaxis')];
  const box = gd.getBoundingClientRect();
  return {x: box.left + xa._offset + xa.d2p(t.x[j]), y: box.top + ya._offset + ya.d2p(t.y[j]),
          row: t.customdata[j][0]};
}"""


def test_a_redraw_updates_the_chart_in_place_and_a_click_opens_a_drill_down(server):
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(f"{server}/Loss_intervals", timeout=TIMEOUT_MS)
            wait_charts(page, 2)
            wait_idle(page)
            no_exception(page)
            page.evaluate(_MARK)
            before = chart_signature(page)
            set_number(page, "CG iterations t", 12)
            wait_chart_change(page, before)
            wait_idle(page)
            assert page.evaluate(_MARKED)  # the same chart, drawn again in place

            def drill_down() -> str:
                return page.evaluate(
                    "() => JSON.stringify(document.querySelectorAll('.js-plotly-plot')[1]"
                    ".layout.annotations.map(a => a.text))"
                )

            shown = drill_down()
            page.locator(CHART).first.scroll_into_view_if_needed()
            shown_row = int(json.loads(shown)[0].rsplit(" ", 1)[1])
            miss = page.evaluate(_MISS, ["missed: ", shown_row])
            page.mouse.move(miss["x"], miss["y"])
            page.mouse.click(miss["x"], miss["y"])
            page.wait_for_function(
                "(before) => JSON.stringify(document.querySelectorAll('.js-plotly-plot')[1]"
                "?.layout.annotations.map(a => a.text)) !== before",
                arg=shown,
                timeout=TIMEOUT_MS,
            )
            wait_idle(page)
            no_exception(page)
            assert json.loads(drill_down())[0].endswith(f" {miss['row']}")  # its row
            page.screenshot(path=ARTIFACTS / "chart_element_click.png")
        finally:
            browser.close()
