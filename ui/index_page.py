"""The app's HTML page, served with Plotly's JavaScript fetched from the first moment and
evaluated when it costs the visitor least.

The app's charts (``ui.plotly_element``) load Plotly's ``plotly.min.js`` (4.8 MB, a static
file of the app) when the first chart arrives, after Streamlit's own bundle has started,
the websocket is open and the script has run: on a fresh visit the fetch, compilation and
evaluation of Plotly were most of the time to the first chart (``benchmarks/first_visits.py
--breakdown``, measured with Streamlit's own Plotly chunk, of the same size). :func:`routes`
serves Streamlit's page at the app's URLs (``/`` and one per file of ``pages/``) with
``plotly.min.js`` named as a preload (fetched as the page loads) and run as a script
(:data:`SCRIPT_ID`; evaluated: one main-thread task of seconds, during which the page draws
nothing):

- at the page's head, while the view asked for is still to be computed (:data:`AT_HEAD`):
  the evaluation runs while the server computes, and the first chart finds it loaded;
- once the page's first text is drawn, when the server has that view's results already
  (:data:`AFTER_FIRST_TEXT`; ``on_visit`` says so): there is no server time to hide the
  evaluation behind, and run at the head it only delayed the page's text.

Both were measured against each other, on warmed and fresh servers, in
``benchmarks/results/first_visits_import_ab.md`` (with Streamlit's chunk): after the text,
the text came sooner and, on a warmed server only, the chart no later. Everything else is
Streamlit's own page, byte for byte.
"""

from __future__ import annotations

import glob
import gzip
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import plotly

FIRST_TEXT = '[data-testid="stMain"] [data-testid="stMarkdown"]'
"""CSS selector of the page's first text in its main area (every page starts with some)."""

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "pages"
STATIC = ROOT / "static"
"""Files Streamlit serves at ``./app/static/`` (``server.enableStaticServing``)."""
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
"""The plotly.js bundled with the installed plotly package (the version its JSON is for)."""
SRC = f"./sslviz/plotly-{plotly.__version__}.min.js"
"""Where the page finds Plotly's JavaScript, from every page's URL: :func:`routes` serves it
gzipped once and for all (Streamlit compresses its app static files again on every request,
on the server's event loop), named by the plotly version, so a browser keeps it."""
FALLBACK = "./app/static/plotly.min.js"
"""Where the charts find it without :func:`routes` (a script run without ``app.py``)."""
SCRIPT_ID = "sslviz-plotly-js"
"""The id of the page's one ``<script>`` of :data:`SRC`: whichever asks first (this page's
script, or the first chart: ``ui.plotly_element``) adds it, the other waits for it."""

_LOAD = """window.sslvizPlotly = {};
const load = () => {
  if (window.sslvizPlotly.asked) return;
  window.sslvizPlotly.asked = performance.now() / 1000;
  const loaded = (ev) => {
    if (!window.Plotly) ev.target.dataset.failed = "1";  // not Plotly: the chart tries FALLBACK
    window.sslvizPlotly.loaded = performance.now() / 1000;
  };
  const there = document.getElementById("SCRIPT_ID");
  if (there) { there.addEventListener("load", loaded); return; }  // a chart asked first
  const s = document.createElement("script");
  s.id = "SCRIPT_ID"; s.src = "SRC"; s.onload = loaded;
  s.onerror = () => { s.dataset.failed = "1"; };  // the chart tries FALLBACK
  document.head.appendChild(s);
};
"""
AT_HEAD = _LOAD + "load();"
"""The page's script: run ``plotly.min.js`` (``SRC``) at once. ``window.sslvizPlotly``
records when it was asked for and when it was evaluated (s since navigation)."""

AFTER_FIRST_TEXT = (
    _LOAD
    + """new MutationObserver((_, seen) => {
  if (document.querySelector('FIRST_TEXT')) { seen.disconnect(); setTimeout(load, 0); }
}).observe(document, {subtree: true, childList: true});
setTimeout(load, 4000);"""
)
"""The page's script: run ``plotly.min.js`` once the first text (``FIRST_TEXT``) is in the
page, after the task that drew it, or 4 s after the page's start, whichever is first (a
chart arriving before that loads it itself)."""


THEMES = "./app/static/chart_themes.json"
"""The chart element's templates (``ui.plotly_element``), fetched by its first chart."""


def component_chunk(static: Path) -> str | None:
    """The file name of Streamlit's chunk of ``st.components.v2`` elements under
    ``static/static/js`` (loaded when the first such element, a chart, arrives), or None."""
    found = glob.glob(str(static / "static" / "js" / "BidiComponent.*.js"))
    return os.path.basename(found[0]) if len(found) == 1 else None


def page_html(static: Path, *, computed: bool = False) -> str | None:
    """Streamlit's ``index.html`` (in ``static``) with Plotly's JavaScript preloaded and run:
    at the head (:data:`AT_HEAD`) or, when the view's results are ``computed`` already, once
    the first text is drawn (:data:`AFTER_FIRST_TEXT`); the chart element's chunk of
    Streamlit (:func:`component_chunk`) and its templates (:data:`THEMES`) preloaded, so
    that the first chart does not wait for them. None when its page has no ``</head>``."""
    html = (static / "index.html").read_text(encoding="utf-8")
    if "</head>" not in html:
        return None
    script = (AFTER_FIRST_TEXT if computed else AT_HEAD).replace("SCRIPT_ID", SCRIPT_ID)
    script = script.replace("SRC", SRC).replace("FIRST_TEXT", FIRST_TEXT)
    extra = f'<link rel="preload" as="script" href="{SRC}">'
    extra += f'<link rel="preload" as="fetch" crossorigin href="{THEMES}">'
    if chunk := component_chunk(static):
        extra += f'<link rel="modulepreload" crossorigin href="./static/js/{chunk}">'
    extra += f'<script type="module">{script}</script>'
    return html.replace("</head>", extra + "</head>", 1)


def serve_plotly_js() -> None:
    """Put the plotly package's ``plotly.min.js`` among the app's static files (for
    :data:`FALLBACK`), and its gzipped copy (for :data:`SRC`), unless they are there (by
    size, and no older than each other): they are not kept in the repository (4.8 MB, and
    they must be the installed plotly's own). A folder that cannot be written is left as it
    is: a chart then says that it could not be drawn."""
    plain, packed = STATIC / "plotly.min.js", STATIC / "plotly.min.js.gz"
    part = STATIC / f".plotly.{os.getpid()}.part"  # one per process; replaced whole
    try:
        if not plain.exists() or plain.stat().st_size != PLOTLY_JS.stat().st_size:
            shutil.copyfile(PLOTLY_JS, part)
            part.replace(plain)
        if not packed.exists() or packed.stat().st_mtime < plain.stat().st_mtime:
            part.write_bytes(gzip.compress(plain.read_bytes(), 6, mtime=0))
            part.replace(packed)
    except OSError:  # pragma: no cover - a read-only install
        pass


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
    from starlette.responses import HTMLResponse, Response
    from starlette.routing import Route
    from streamlit import config

    serve_plotly_js()
    static = Path(st.__file__).parent / "static"
    html = {done: page_html(static, computed=done) for done in (False, True)}
    if html[False] is None:
        return []
    packed: list[bytes] = []

    async def plotly_js(request: Any) -> Response:
        if not packed:  # read once (1.5 MB)
            packed.append((STATIC / "plotly.min.js.gz").read_bytes())
        headers = {"Content-Encoding": "gzip", "Vary": "Accept-Encoding"}
        headers["Cache-Control"] = "public, max-age=31536000, immutable"  # named by version
        return Response(packed[0], media_type="application/javascript", headers=headers)

    def serving(name: str) -> Callable[[Any], Any]:
        async def page(request: Any) -> HTMLResponse:
            done = bool(on_visit(name, request.url.query)) if on_visit is not None else False
            return HTMLResponse(html[done], headers={"Cache-Control": "no-cache"})

        return page

    base = "/" + (config.get_option("server.baseUrlPath") or "").strip("/")
    base = base.rstrip("/")
    names = {base + "/": ""} | {f"{base}/{p.stem}": p.stem for p in sorted(PAGES.glob("*.py"))}
    pages = [Route(path, serving(name), methods=["GET"]) for path, name in names.items()]
    return [*pages, Route(base + SRC.removeprefix("."), plotly_js, methods=["GET"])]
