"""The app's HTML page, served with Plotly's JavaScript fetched from the first moment and
evaluated when it costs the visitor least.

Streamlit's page (its ``static/index.html``) loads the Plotly chunk (4.7 MB) only when the
first chart arrives, after its own bundle has started, the websocket is open and the script
has run: on a fresh visit that chunk's fetch, compilation and evaluation were most of the
time to the first chart (``benchmarks/first_visits.py --breakdown``). :func:`routes` serves
the same page at the app's URLs (``/`` and one per file of ``pages/``) with the chunk named
as a module preload (fetched as the page loads) and imported (evaluated: one main-thread
task of seconds, during which the page draws nothing):

- at the page's head, while the view asked for is still to be computed (:data:`AT_HEAD`):
  the evaluation runs while the server computes, and Streamlit's chart finds it loaded;
- once the page's first text is drawn, when the server has that view's results already
  (:data:`AFTER_FIRST_TEXT`; ``on_visit`` says so): there is no server time to hide the
  evaluation behind, and imported at the head it only delayed the page's text.

Both were measured against each other, on warmed and fresh servers, in
``benchmarks/results/first_visits_import_ab.md``: after the text, the text came sooner and,
on a warmed server only, the chart no later.
Everything else is Streamlit's own page, byte for byte; with no single ``PlotlyChart.*.js``
in this Streamlit, no route is added.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

PAGES = Path(__file__).resolve().parents[1] / "pages"


FIRST_TEXT = '[data-testid="stMain"] [data-testid="stMarkdown"]'
"""CSS selector of the page's first text in its main area (every page starts with some)."""

_LOAD = """window.sslvizPlotly = {};
const load = () => {
  if (window.sslvizPlotly.asked) return;
  window.sslvizPlotly.asked = performance.now() / 1000;
  import("SRC").then(() => { window.sslvizPlotly.loaded = performance.now() / 1000; })
    .catch(() => {});
};
"""
AT_HEAD = _LOAD + "load();"
"""The page's script: import the Plotly chunk (``SRC``) at once. ``window.sslvizPlotly``
records when it was asked for and when it was evaluated (s since navigation); Streamlit's
own import of the chunk is the same module: it is evaluated once."""

AFTER_FIRST_TEXT = (
    _LOAD
    + """new MutationObserver((_, seen) => {
  if (document.querySelector('FIRST_TEXT')) { seen.disconnect(); setTimeout(load, 0); }
}).observe(document, {subtree: true, childList: true});
setTimeout(load, 4000);"""
)
"""The page's script: import the Plotly chunk once the first text (``FIRST_TEXT``) is in the
page, after the task that drew it, or 4 s after the page's start, whichever is first (as
:data:`AT_HEAD`, a chart arriving before that imports it itself)."""


def plotly_chunk(static: Path) -> str | None:
    """The file name of Streamlit's Plotly chunk under ``static/static/js``, or None."""
    found = glob.glob(str(static / "static" / "js" / "PlotlyChart.*.js"))
    return os.path.basename(found[0]) if len(found) == 1 else None


def page_html(static: Path, *, computed: bool = False) -> str | None:
    """Streamlit's ``index.html`` with the Plotly chunk preloaded and imported: at the head
    (:data:`AT_HEAD`) or, when the view's results are ``computed`` already, once the first
    text is drawn (:data:`AFTER_FIRST_TEXT`). None when this Streamlit ships no single chunk
    or its page has no ``</head>``."""
    chunk = plotly_chunk(static)
    html = (static / "index.html").read_text(encoding="utf-8")
    if chunk is None or "</head>" not in html:
        return None
    src = f"./static/js/{chunk}"
    script = (AFTER_FIRST_TEXT if computed else AT_HEAD).replace("SRC", src)
    extra = f'<link rel="modulepreload" crossorigin href="{src}">'
    extra += f'<script type="module">{script.replace("FIRST_TEXT", FIRST_TEXT)}</script>'
    return html.replace("</head>", extra + "</head>", 1)


def routes(on_visit: Callable[[str, str], bool | None] | None = None) -> list[Any]:
    """Starlette routes (``st.App(routes=...)``) serving :func:`page_html` at ``/`` and at
    every page's URL path (``/Loss_intervals``, ...), under ``server.baseUrlPath``; none
    when there is nothing to add. ``on_visit(page, query)`` is called (on the server's event
    loop) as each page is served: its URL path ("" for ``/``) and query string, a second or
    more before the page's script can run (the browser's own start, the websocket), so that
    the server may compute that view meanwhile (:func:`ui.warm.requested`); it returns
    whether that view's results are computed already (the page then evaluates Plotly after
    its first text: ``page_html(computed=True)``)."""
    import streamlit as st
    from starlette.responses import HTMLResponse
    from starlette.routing import Route
    from streamlit import config

    static = Path(st.__file__).parent / "static"
    html = {done: page_html(static, computed=done) for done in (False, True)}
    if html[False] is None:
        return []

    def serving(name: str) -> Callable[[Any], Any]:
        async def page(request: Any) -> HTMLResponse:
            done = bool(on_visit(name, request.url.query)) if on_visit is not None else False
            return HTMLResponse(html[done], headers={"Cache-Control": "no-cache"})

        return page

    base = "/" + (config.get_option("server.baseUrlPath") or "").strip("/")
    base = base.rstrip("/")
    names = {base + "/": ""} | {f"{base}/{p.stem}": p.stem for p in sorted(PAGES.glob("*.py"))}
    return [Route(path, serving(name), methods=["GET"]) for path, name in names.items()]
