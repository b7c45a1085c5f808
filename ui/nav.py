"""The app's pages and its navigation.

``app.py`` declares the navigation (:func:`run`); every page starts with
:func:`ui.frame.page`. The pages live in ``pages/``, one file per view, named after its
URL path. Streamlit's own page list is switched off (``client.showSidebarNavigation =
false`` in ``.streamlit/config.toml``): the sidebar's first block is the app's list
(:func:`links`), so no automatic list of ``pages/`` ever flashes on a fresh server.

A fresh server's first run goes through Streamlit's automatic ``pages/`` handling, which
runs a deep-linked page file directly, without ``app.py``. The page's frame notices (the
navigation was not declared in this run) and draws the page under the app's navigation
instead (:func:`ensure_declared`).
"""

from __future__ import annotations

import glob
import os
import threading
from typing import Any

import streamlit as st

from ui.compat import ROOT

NAV: tuple[tuple[str, str, str, str | None], ...] = (
    ("pages/home.py", "Home", ":material/home:", None),
    ("pages/Loss_intervals.py", "Loss intervals", ":material/show_chart:", "Loss_intervals"),
    ("pages/Conditioning.py", "Conditioning", ":material/functions:", "Conditioning"),
    ("pages/Online_regret.py", "Online regret", ":material/casino:", "Online_regret"),
    ("pages/Speed.py", "Speed", ":material/timer:", "Speed"),
    ("pages/Algorithm_4.py", "Algorithm 4 player", ":material/play_circle:", "Algorithm_4"),
    ("pages/Learn.py", "Learn from instances", ":material/school:", "Learn"),
    ("pages/CG_iterations.py", "CG iterations", ":material/timeline:", "CG_iterations"),
)
"""The app's pages in navigation order: (file, title, icon, URL path; None: the root).
Material icons: Streamlit ships their font, so they render where no emoji font is
installed. A page whose file does not exist is left out of the navigation."""

_RUN = threading.local()  # whether app.py declared the navigation in this script run


def nav_pages() -> list[tuple[str, str, str, str | None]]:
    """The rows of :data:`NAV` whose page file exists."""
    return [row for row in NAV if (ROOT / row[0]).is_file()]


def page_title(page: str) -> str:
    """The navigation title of a page file."""
    return next((title for file, title, _, _ in NAV if file == page), page)


def _preload_plotly() -> None:
    """Start loading Streamlit's Plotly chunk (4.7 MB) in the browser, once per page load,
    from a hidden element: Streamlit fetches it only when the first chart arrives, which
    would delay a fresh session's first chart (``benchmarks/cold_start.py``). Nothing when
    this Streamlit ships no single ``PlotlyChart.*.js``."""
    folder = os.path.join(os.path.dirname(st.__file__), "static", "static", "js")
    chunks = glob.glob(os.path.join(folder, "PlotlyChart.*.js"))
    if len(chunks) != 1:
        return
    name = os.path.basename(chunks[0])
    st.html(
        "<style>[data-testid=stElementContainer]:has(#sslviz-preload){display:none}</style>"
        '<div id="sslviz-preload"></div><script>(() => {'
        " if (window.sslvizPlotly) return; window.sslvizPlotly = 1;"
        " const s = document.querySelector('script[src*=\"static/js/index.\"]');"
        f" if (s) import(new URL({name!r}, s.src).href).catch(() => {{}}); }})();</script>",
        unsafe_allow_javascript=True,
    )


def setup(icon: str = "🏠") -> None:
    """The wide layout and the tab's icon, once per run before the navigation runs (each
    page's tab title is its ``st.Page`` title), and the Plotly preload."""
    st.set_page_config(page_icon=icon, layout="wide")
    _preload_plotly()


def declare() -> Any:
    """Declare the app's pages to Streamlit; return the page this run draws."""
    pages = [
        st.Page(ROOT / file, title=title, icon=icon, url_path=path, default=path is None)
        for file, title, icon, path in nav_pages()
    ]
    return st.navigation(pages, position="hidden")


def run() -> None:
    """``app.py``: declare the navigation and draw the requested page."""
    page = declare()
    _RUN.declared = True
    try:
        page.run()
    finally:
        _RUN.declared = False
        _warm_workers()


_WARM = threading.Event()


def _warm_workers() -> None:
    """Once per server, after its first page is drawn, in the background
    (:func:`sslviz.learn.start_workers`): load the compiled kernels here, then start the
    worker processes that the learning page's instances run on, so that neither a first
    change computed here nor a first run there waits for imports."""
    if _WARM.is_set():
        return
    _WARM.set()
    from sslviz.learn import start_workers

    threading.Thread(target=start_workers, daemon=True).start()


def main() -> None:
    """What ``app.py`` does: :func:`setup`, then :func:`run`."""
    setup()
    run()


def ensure_declared() -> None:
    """At the top of every page: a run that did not come through ``app.py`` (a fresh
    server's first run of a deep link, under Streamlit's automatic ``pages/`` list) draws
    the page as ``app.py`` would (:func:`main`), then stops."""
    if not getattr(_RUN, "declared", False):
        main()
        st.stop()


def links(container: Any) -> None:
    """The app's page list (in ``container``: the sidebar), current page highlighted."""
    for file, title, icon, _ in nav_pages():
        container.page_link(str(ROOT / file), label=title, icon=icon)
