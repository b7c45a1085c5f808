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

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st

from sslviz import specs as S
from ui import views
from ui.compat import ROOT


@dataclass(frozen=True)
class Page:
    """One page of the app: its file and the one row that states everything else about it.

    Attributes
    ----------
    file : str
        The page's file, relative to the app root (``pages/Loss_intervals.py``); its URL
        path is the file's name (:attr:`path`), the root for ``pages/home.py``.
    title, icon : str
        Navigation title and Material icon (Streamlit ships their font).
    key : str
        A short name for the page (tests and benchmarks address pages by it).
    settings : type or None
        The table of the page's own controls (:mod:`ui.views` or :mod:`sslviz.specs`), or
        None: the URL keys a link or a tour on this page may set besides the sidebar's.
    charts : tuple of str
        The :mod:`sslviz.plots` builders its default view draws through
        :func:`ui.cache.figure` (a rerun with nothing changed builds none of them again).
    paper : str
        What of the paper the page draws ("Figure 3"), said in its home-page link.
    """

    file: str
    title: str
    icon: str
    key: str
    settings: type | None = None
    charts: tuple[str, ...] = ()
    paper: str = ""

    @property
    def link_label(self) -> str:
        """The label of its link on the home page: the title, and what of the paper."""
        return f"{self.title} ({self.paper})" if self.paper else self.title

    @property
    def path(self) -> str | None:
        """The URL path (the file's name), None for the home page (the root)."""
        stem = Path(self.file).stem
        return None if stem == "home" else stem


NAV: tuple[Page, ...] = (
    Page("pages/home.py", "Home", ":material/home:", "home"),
    Page(
        "pages/Loss_intervals.py",
        "Loss intervals",
        ":material/show_chart:",
        "loss",
        views.LossView,
        paper="Figure 3",
    ),
    Page(
        "pages/Conditioning.py",
        "Conditioning",
        ":material/functions:",
        "conditioning",
        S.ConditionSettings,
        ("condition_figure", "cg_figure", "trust_figure"),
        "Figure 5",
    ),
    Page(
        "pages/Online_regret.py",
        "Online regret",
        ":material/casino:",
        "regret",
        S.RegretSettings,
        ("regret_figure", "average_regret_figure", "density_figure"),
    ),
    Page("pages/Speed.py", "Speed", ":material/timer:", "speed", views.SpeedGrid, paper="Table 1"),
    Page("pages/Algorithm_4.py", "Algorithm 4 player", ":material/play_circle:", "algorithm4"),
    Page(
        "pages/Learn.py",
        "Learn from instances",
        ":material/school:",
        "learn",
        S.LearnSettings,
        ("learn_figure", "learning_curve_figure"),
    ),
    Page(
        "pages/CG_iterations.py",
        "CG iterations",
        ":material/timeline:",
        "cg_iterations",
        S.ConvergenceView,
    ),
    Page(
        "pages/Cross_validated_gamma.py",
        "Cross-validated γ",
        ":material/tune:",
        "cv",
        views.CVView,
        ("cv_figure",),
    ),
)
"""The app's pages in navigation order, one row each: a new page is its file and its row
here (the navigation, the page list, the tours' checks, the tests and the figure cache's
check read this table). A page whose file does not exist is left out of the navigation."""

_RUN = threading.local()  # whether app.py declared the navigation in this script run


def nav_pages() -> list[Page]:
    """The rows of :data:`NAV` whose page file exists."""
    return [row for row in NAV if (ROOT / row.file).is_file()]


def page(key: str) -> Page:
    """The page of ``key`` (:attr:`Page.key`)."""
    return next(row for row in NAV if row.key == key)


def page_of(file: str) -> Page | None:
    """The page of the file ``file``, or None."""
    return next((row for row in NAV if row.file == file), None)


def page_title(file: str) -> str:
    """The navigation title of a page file."""
    row = page_of(file)
    return file if row is None else row.title


def setup(icon: str = "🏠") -> None:
    """The wide layout and the tab's icon, once per run before the navigation runs (each
    page's tab title is its ``st.Page`` title; the page's HTML loads Plotly's JavaScript,
    :mod:`ui.index_page`)."""
    st.set_page_config(page_icon=icon, layout="wide")


def declare() -> Any:
    """Declare the app's pages to Streamlit; return the page this run draws."""
    pages = [
        st.Page(ROOT / p.file, title=p.title, icon=p.icon, url_path=p.path, default=p.path is None)
        for p in nav_pages()
    ]
    return st.navigation(pages, position="hidden")


def run() -> None:
    """``app.py``: declare the navigation and draw the requested page."""
    from ui import visits

    page = declare()
    _RUN.declared = True
    try:
        with visits.visit():
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
    from ui.visits import start_workers_behind

    threading.Thread(target=start_workers_behind, daemon=True).start()


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
    for p in nav_pages():
        container.page_link(str(ROOT / p.file), label=p.title, icon=p.icon)
