"""The app's HTML page (ui.index_page): Streamlit's own page with Plotly's JavaScript
(the app's static plotly.min.js) preloaded and run at its head, or once its first text is
drawn, served at the app's URLs; and the background's lower CPU priority."""

from __future__ import annotations

import gzip
import os
import threading
from pathlib import Path

import streamlit as st

from sslviz import _threads
from ui import index_page

STATIC = Path(st.__file__).parent / "static"


def test_the_page_is_streamlits_with_plotly_named_at_its_head():
    src = index_page.SRC
    html, page = (STATIC / "index.html").read_text(encoding="utf-8"), index_page.page_html(STATIC)
    head = page[: page.index("</head>")]
    assert f'<link rel="preload" as="script" href="{src}">' in head
    assert f's.src = "{src}"' in head and f'"{index_page.SCRIPT_ID}"' in head
    assert "load();" in head and index_page.FIRST_TEXT not in head  # run at once
    # the first chart's other needs: Streamlit's chunk of components, the chart themes
    chunk = index_page.component_chunk(STATIC)
    assert chunk is not None  # this Streamlit ships one
    assert f'<link rel="modulepreload" crossorigin href="./static/js/{chunk}">' in head
    assert f'<link rel="preload" as="fetch" crossorigin href="{index_page.THEMES}">' in head
    # with the view computed: run once the main area's first text is in the page
    later = index_page.page_html(STATIC, computed=True)
    assert f's.src = "{src}"' in later and "load();" not in later
    assert index_page.FIRST_TEXT in later and "MutationObserver" in later
    for served in (page, later):
        added = served.index('<link rel="preload" as="script"')
        extra = served[added : served.index("</head>")]
        assert served.replace(extra, "", 1) == html  # everything else: Streamlit's page


def test_it_names_the_file_the_chart_element_serves():
    from ui import plotly_element

    assert index_page.FALLBACK == "./app/static/" + "plotly.min.js"  # Streamlit's static URL
    assert (index_page.STATIC / "plotly.min.js").is_file()
    assert (index_page.STATIC / "chart_themes.json").is_file()
    assert index_page.THEMES == "./app/static/" + "chart_themes.json"
    for name in (index_page.SRC, index_page.FALLBACK, index_page.SCRIPT_ID, index_page.THEMES):
        assert name in plotly_element._JS


def test_no_head_no_page(tmp_path):
    (tmp_path / "index.html").write_text("<html><body></body></html>")
    assert index_page.page_html(tmp_path) is None


def test_the_routes_serve_it_at_the_root_and_every_page():
    import asyncio

    from starlette.requests import Request
    from starlette.routing import Match

    visits: list[tuple[str, str]] = []

    def on_visit(page: str, query: str) -> bool:  # the home page's view is computed
        visits.append((page, query))
        return page == ""

    routes = index_page.routes(on_visit)
    paths = [r.path for r in routes]
    assert paths[0] == "/" and "/Loss_intervals" in paths and "/Learn" in paths

    def served(path: str, query: str = ""):
        scope = {"type": "http", "path": path, "method": "GET", "root_path": ""}
        scope |= {"query_string": query.encode(), "headers": [], "server": ("127.0.0.1", 80)}
        hits = [r for r in routes if r.matches(scope)[0] == Match.FULL]
        return asyncio.run(hits[0].endpoint(Request(scope))) if hits else None

    for path, query in (("/", ""), ("/Online_regret", "tour=regret")):
        got = served(path, query)
        assert got.status_code == 200 and got.headers["cache-control"] == "no-cache"
        computed = path == "/"  # Plotly after the first text; else at the head
        assert got.body.decode() == index_page.page_html(STATIC, computed=computed)
    assert served("/favicon.png") is None  # left to Streamlit's own routes
    js = served(index_page.SRC.removeprefix("."))  # Plotly: gzipped once, kept by the browser
    assert js.headers["content-encoding"] == "gzip" and "immutable" in js.headers["cache-control"]
    assert gzip.decompress(js.body) == index_page.PLOTLY_JS.read_bytes()
    # each page served is said, with its query, so the server may compute it meanwhile
    assert visits == [("", ""), ("Online_regret", "tour=regret")]


def test_lower_priority_is_the_calling_threads_alone():
    seen = {}

    def behind() -> None:
        _threads.lower_priority(3)
        seen["thread"] = os.getpriority(os.PRIO_PROCESS, 0)

    before = os.getpriority(os.PRIO_PROCESS, 0)
    t = threading.Thread(target=behind)
    t.start()
    t.join()
    assert seen["thread"] == min(before + 3, 19)
    assert os.getpriority(os.PRIO_PROCESS, 0) == before
