"""A fresh server answers at once and warms itself in the background (ui.warm, app.py's
st.App lifespan): once the warm-up is over, first visits in real Chromium compute nothing.

The server prints the seconds of each warm-up step: every first view (each page, each tour
link) must be there with its time. Then the heaviest first views, the learning and the
regret pages, opened as a first visit, draw their first chart without a progress bar ever
showing (a first visit that computed would show one after 0.3 s of work), and so does
the Speed page, whose grid a cold first visit times; each page asks for Plotly's
JavaScript before its websocket opens and, its view computed, evaluates it once its first
text is drawn (``ui.index_page``).
"""

from __future__ import annotations

import json
import os
import time

import pytest
from browser_helpers import (
    ARTIFACTS,
    CHART,
    CHROMIUM,
    CHROMIUM_ARGS,
    EXCEPTION,
    TIMEOUT_MS,
    free_port,
    start_server,
    stop_server,
    sync_playwright,
)

from ui import index_page, warm

WATCH = """
window.sslvizBars = 0;
new MutationObserver(() => {
  if (document.querySelector('[data-testid="stProgress"]')) window.sslvizBars += 1;
  if (!window.sslvizText && document.querySelector('FIRST_TEXT')) {
    window.sslvizText = performance.now() / 1000;
  }
}).observe(document, {subtree: true, childList: true});
""".replace("FIRST_TEXT", index_page.FIRST_TEXT)
"""In the page: how many times a progress bar was seen; when the main area's first text was
(s since navigation; this observer is registered before the page's own)."""


@pytest.fixture(scope="module")
def warmed():
    """A server warmed with no budget limit (every first view runs); yields its URL and
    the warm-up's seconds."""
    ARTIFACTS.mkdir(exist_ok=True)
    log = ARTIFACTS / "streamlit_first_visit.log"
    port = free_port()
    env = os.environ | {"SSLVIZ_WARM_SECONDS": "1200"}
    proc = start_server(port, log, env=env)
    try:
        deadline = time.monotonic() + 1500
        while not (lines := [ln for ln in log.read_text().splitlines() if warm.LOG_LINE in ln]):
            assert time.monotonic() < deadline, f"no warm-up line in {log}"
            assert proc.poll() is None, f"the server stopped; see {log}"
            time.sleep(0.5)
        line = lines[0][lines[0].index(warm.LOG_LINE) :]
        yield f"http://127.0.0.1:{port}", json.loads(line[len(warm.LOG_LINE) :])
    finally:
        stop_server(proc)


def test_the_warm_up_ran_every_first_view(warmed):
    _, times = warmed
    for page, query in warm.first_views():
        url = f"/{page}" + (f"?{query}" if query else "")
        assert isinstance(times.get(url), float), (url, times.get(url))
    assert 0 < times["workers"] <= times["total"]


@pytest.mark.parametrize("path", ["Learn", "Online_regret", "Speed"])
def test_a_first_visit_draws_its_chart_without_computing(warmed, path):
    url, _ = warmed
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.add_init_script(WATCH)
            order: list[str] = []  # Plotly asked for before the websocket opened
            js = index_page.SRC.removeprefix(".")
            page.on("websocket", lambda ws: order.append("websocket"))
            page.on("request", lambda r: js in r.url and order.append("plotly"))
            page.goto(f"{url}/{path}", timeout=TIMEOUT_MS)
            page.wait_for_selector(CHART, timeout=3 * TIMEOUT_MS)
            page.wait_for_function(
                "document.querySelector('[data-testid=stApp]')"
                ".getAttribute('data-test-script-state') === 'notRunning'",
                timeout=3 * TIMEOUT_MS,
            )
            assert page.locator(EXCEPTION).count() == 0
            assert page.evaluate("window.sslvizBars") == 0  # no bar: nothing was computed
            assert order[:2] == ["plotly", "websocket"], order  # ui.index_page's preload
            # ... evaluated once the page's first text was there, not before (its import)
            plotly, text = page.evaluate("[window.sslvizPlotly, window.sslvizText]")
            assert text is not None and text <= plotly["asked"] <= plotly["loaded"], (text, plotly)
            page.screenshot(path=str(ARTIFACTS / f"first_visit_{path}.png"))
        finally:
            browser.close()
