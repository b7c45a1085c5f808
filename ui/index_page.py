"""The app's HTML page, served with Plotly's JavaScript loading from the first moment.

Streamlit's page (its ``static/index.html``) loads the Plotly chunk (4.7 MB) only when the
first chart arrives, after its own bundle has started, the websocket is open and the script
has run: on a fresh visit that chunk's fetch, compilation and evaluation were most of the
time to the first chart (``benchmarks/first_visits.py --breakdown``). :func:`routes` serves
the same page at the app's URLs (``/`` and one per file of ``pages/``) with the chunk named
as a module preload and imported as soon as the page's own script has run, so the browser
fetches and evaluates it while the server runs the page's script; Streamlit's chart then
finds it loaded (one module, one evaluation). Everything else is Streamlit's own page,
byte for byte; with no single ``PlotlyChart.*.js`` in this Streamlit, no route is added.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

PAGES = Path(__file__).resolve().parents[1] / "pages"


def plotly_chunk(static: Path) -> str | None:
    """The file name of Streamlit's Plotly chunk under ``static/static/js``, or None."""
    found = glob.glob(str(static / "static" / "js" / "PlotlyChart.*.js"))
    return os.path.basename(found[0]) if len(found) == 1 else None


def page_html(static: Path) -> str | None:
    """Streamlit's ``index.html`` with the Plotly chunk preloaded and imported (None when
    this Streamlit ships no single chunk or its page has no ``</head>``)."""
    chunk = plotly_chunk(static)
    html = (static / "index.html").read_text(encoding="utf-8")
    if chunk is None or "</head>" not in html:
        return None
    src = f"./static/js/{chunk}"
    extra = (
        f'<link rel="modulepreload" crossorigin href="{src}">'
        f'<script type="module">window.sslvizPlotly = 1; import("{src}").catch(() => {{}});'
        "</script>"
    )
    return html.replace("</head>", extra + "</head>", 1)


def routes(on_visit: Callable[[str, str], Any] | None = None) -> list[Any]:
    """Starlette routes (``st.App(routes=...)``) serving :func:`page_html` at ``/`` and at
    every page's URL path (``/Loss_intervals``, ...), under ``server.baseUrlPath``; none
    when there is nothing to add. ``on_visit(page, query)`` is called (on the server's event
    loop) as each page is served: its URL path ("" for ``/``) and query string, a second or
    more before the page's script can run (the browser's own start, the websocket), so that
    the server may compute that view meanwhile (:func:`ui.warm.requested`)."""
    import streamlit as st
    from starlette.responses import HTMLResponse
    from starlette.routing import Route
    from streamlit import config

    html = page_html(Path(st.__file__).parent / "static")
    if html is None:
        return []

    def serving(name: str) -> Callable[[Any], Any]:
        async def page(request: Any) -> HTMLResponse:
            if on_visit is not None:
                on_visit(name, request.url.query)
            return HTMLResponse(html, headers={"Cache-Control": "no-cache"})

        return page

    base = "/" + (config.get_option("server.baseUrlPath") or "").strip("/")
    base = base.rstrip("/")
    names = {base + "/": ""} | {f"{base}/{p.stem}": p.stem for p in sorted(PAGES.glob("*.py"))}
    return [Route(path, serving(name), methods=["GET"]) for path, name in names.items()]
