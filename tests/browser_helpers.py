"""Shared by the browser tests: Chromium, a ``streamlit run app.py`` server on a free local
port (:func:`streamlit_server`; the ``server`` fixture in ``conftest.py``), and waits on
the page's charts."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
CHART = ".js-plotly-plot"
EXCEPTION = '[data-testid="stException"]'
TIMEOUT_MS = 60_000

PLAYWRIGHT = importlib.util.find_spec("playwright") is not None
"""Whether Playwright is installed (the browser tests are skipped without it)."""


def growth_script(trace: int = 0) -> str:
    """An init script: ``window.sslvizGrowth`` records every change of the page's first
    chart, ``[point count of its trace number trace, title, s since navigation]`` (the drawn
    traces, ``_fullData``: ``data`` holds the arrays as they were sent, base64)."""
    return f"""
window.sslvizGrowth = [];
setInterval(() => {{
  const g = document.querySelector('.js-plotly-plot');
  if (!g || !g._fullData || g._fullData.length <= {trace} || !g.layout) return;
  const title = (g.layout.title && g.layout.title.text) || '';
  const n = g._fullData[{trace}].x.length;
  const last = window.sslvizGrowth[window.sslvizGrowth.length - 1];
  if (!last || last[0] !== n || last[1] !== title) {{
    window.sslvizGrowth.push([n, title, performance.now() / 1000]);
  }}
}}, 25);
"""


FINISHED = (
    "(prefix) => { const g = document.querySelector('.js-plotly-plot');"
    " return g && g.layout && g.layout.title && g.layout.title.text.includes(prefix)"
    " && !/so far/.test(g.layout.title.text); }"
)
"""The page's first chart drawn is a finished one whose title has ``arg`` (a partial
chart's title says "so far"; the page may go on running afterwards)."""

PARTIAL = (
    "document.querySelector('.js-plotly-plot') && "
    "/so far/.test(document.querySelector('.js-plotly-plot').layout.title.text)"
)
"""The page's first chart drawn is a partial one (its title says "so far")."""

SO_FAR = re.compile(r"σ up to ([0-9.e+-]+) of \[([0-9.e+-]+), ([0-9.e+-]+)\] so far")
"""A partial chart's title along σ (``sslviz.words.range_so_far``): reached, σ_min, σ_max."""


TRACES = """() => document.querySelector('.js-plotly-plot')._fullData.map(
    t => [t.name, Array.from(t.x), Array.from(t.y)])"""
"""In the page: the first chart's drawn traces, ``[name, x, y]`` each."""


def assert_same_traces(shown: list, ref, *, every: bool = True) -> None:
    """The chart drawn (:data:`TRACES`) has the traces of the figure ``ref``, the same
    numbers (a gap's or a legend-only trace's None as NaN); ``every``: those traces and no
    others, in ``ref``'s order (else ``ref``'s traces, named apart, among the drawn ones)."""
    import numpy as np

    if every:  # by position: traces may share a name (one per training instance)
        assert [t[0] for t in shown] == [t.name for t in ref.data]
        pairs = [((x, y), trace) for (_, x, y), trace in zip(shown, ref.data, strict=True)]
    else:
        drawn = {name: (x, y) for name, x, y in shown}
        pairs = [(drawn[trace.name], trace) for trace in ref.data]
    for (x, y), trace in pairs:
        for got, want in ((x, trace.x), (y, trace.y)):
            got = np.array([np.nan if v is None else v for v in got], float)
            assert np.array_equal(got, np.asarray(want, float), equal_nan=True), trace.name


def sync_playwright():
    """Playwright's ``sync_playwright()``, imported at the first use (0.23 s): the quick run
    and the benchmarks that start a server import this module without needing it."""
    from playwright.sync_api import sync_playwright as start

    return start()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(
    port: int,
    log: Path,
    root: Path = ROOT,
    *,
    env: dict | None = None,
    timeout: float = 90.0,
    poll: float = 0.3,
) -> subprocess.Popen:
    """``streamlit run app.py`` in ``root`` on 127.0.0.1:``port``, as the README runs it (the
    app's ``.streamlit/config.toml`` applies), once its health endpoint answers (checked
    every ``poll`` s, at most ``timeout`` s; it warms itself in the background from then on,
    ``ui.warm``); its output goes to ``log``. The benchmarks start their servers here too."""
    args = ["--server.port", str(port), "--server.headless", "true"]
    args += ["--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"]
    args += ["--server.fileWatcherType", "none"]
    with log.open("w") as out:  # the server keeps its own handle
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", *args],
            cwd=root,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with status {proc.returncode}; see {log}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                return proc
        except OSError:
            time.sleep(poll)
    stop_server(proc)
    raise TimeoutError(f"streamlit did not start within {timeout:g} s; see {log}")


def stop_server(proc: subprocess.Popen) -> None:
    """Stop a server of :func:`start_server` and its children."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@contextlib.contextmanager
def streamlit_server(log_name: str = "streamlit.log"):
    """A :func:`start_server` server on a free local port for the block; yields its URL. It
    runs no warm-up of the pages (``SSLVIZ_WARM=0``: a test's own visits are first visits,
    with both cores to themselves; tests/browser/test_browser_first_visit.py warms one)."""
    ARTIFACTS.mkdir(exist_ok=True)
    port = free_port()
    proc = start_server(port, ARTIFACTS / log_name, env=os.environ | {"SSLVIZ_WARM": "0"})
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_server(proc)


def chart_signature(page, index: int = 0) -> str:
    """The index-th Plotly chart's data (trace names and x, y, z) as JSON."""
    return page.evaluate(
        """(i) => {
            const g = document.querySelectorAll('.js-plotly-plot')[i];
            if (!g || !g.data) return null;
            return JSON.stringify(g.data.map(t => [t.name, t.x, t.y, t.z]));
        }""",
        index,
    )


def wait_chart_change(page, before: str, index: int = 0) -> None:
    page.wait_for_function(
        """([i, before]) => {
            const g = document.querySelectorAll('.js-plotly-plot')[i];
            if (!g || !g.data) return false;
            return JSON.stringify(g.data.map(t => [t.name, t.x, t.y, t.z])) !== before;
        }""",
        arg=[index, before],
        timeout=TIMEOUT_MS,
    )


CONTROLS_DRAWN = (
    "!document.querySelector('[data-testid=stSkeleton]')"
    " && document.querySelectorAll('[data-testid=stSelectbox]').length > 0"
)
"""In the page: its controls are drawn, none still Streamlit's grey placeholder (a lazily
loaded element is drawn as one until React renders it)."""


IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
"""The page while no script run is going (Streamlit's own attribute: the app hides the top
bar, whose "Running..." figure said it)."""


def wait_idle(page) -> None:
    """Wait until Streamlit has finished the current run."""
    page.wait_for_timeout(300)
    page.wait_for_selector(IDLE, timeout=TIMEOUT_MS)


def wait_charts(page, count: int) -> None:
    """Wait until the page shows at least ``count`` Plotly charts."""
    page.wait_for_function(
        f"document.querySelectorAll('.js-plotly-plot').length >= {count}", timeout=TIMEOUT_MS
    )


def open_page(page, url: str) -> float:
    t0 = time.perf_counter()
    page.goto(url)
    page.wait_for_selector(CHART, timeout=TIMEOUT_MS)
    return time.perf_counter() - t0


def set_number(page, label: str, value) -> None:
    box = page.get_by_label(label, exact=True)
    box.fill(str(value))
    box.press("Enter")


def no_exception(page) -> None:
    assert page.locator(EXCEPTION).count() == 0, page.locator(EXCEPTION).first.inner_text()


_TWO_CHARTS = """
import json, sys
from pathlib import Path
sys.path.insert(0, {root!r})
import streamlit as st
from ui import plotly_element
fig = json.loads((Path(__file__).parent / "figure.json").read_text())
st.plotly_chart(fig, key="streamlit")
plotly_element.draw(st, fig, key="element")
"""

DRAWN = """() => [...document.querySelectorAll('.js-plotly-plot')].map(gd => ({
    template: gd.layout.template, title: gd.layout.title && gd.layout.title.text,
    width: gd._fullLayout.width, height: gd._fullLayout.height}))"""
"""In the page: each chart's template, title, width and height, as Plotly drew them."""


SCHEMES = ("light", "dark")
"""The colour schemes a browser may ask for: Streamlit's light and dark themes follow them."""


def drawn_in_each_scheme(url: str) -> dict[str, list[dict]]:
    """:data:`DRAWN` of the page at ``url`` in headless Chromium at 1400×900, for each of
    :data:`SCHEMES`, once its charts are drawn and its script has run."""
    out = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            for scheme in SCHEMES:
                page = browser.new_page(
                    viewport={"width": 1400, "height": 900}, color_scheme=scheme
                )
                page.goto(url, timeout=TIMEOUT_MS)
                wait_charts(page, 2)
                wait_idle(page)
                no_exception(page)
                out[scheme] = page.evaluate(DRAWN)
                page.close()
        finally:
            browser.close()
    return out


@contextlib.contextmanager
def two_chart_server(tmp: Path):
    """A server of an app in ``tmp`` that draws one figure of the app (the loss figure of a
    small instance, with its template) twice: by ``st.plotly_chart``, then by the app's
    chart element (``ui.plotly_element``). Yields its URL."""
    from sslviz import plots
    from sslviz.problem import build_problem, loss_curve
    from sslviz.specs import ProblemSpec
    from ui import index_page

    index_page.serve_plotly_js()  # plotly.min.js among the static files copied below

    fig = plots.loss_intervals_figure(loss_curve(build_problem(ProblemSpec(n=40)), 1.0, 3.0))
    (tmp / "app.py").write_text(_TWO_CHARTS.format(root=str(ROOT)))
    (tmp / "figure.json").write_text(fig.to_json(validate=False))
    shutil.copytree(ROOT / ".streamlit", tmp / ".streamlit")
    shutil.copytree(index_page.STATIC, tmp / "static")
    ARTIFACTS.mkdir(exist_ok=True)
    port = free_port()
    proc = start_server(port, ARTIFACTS / "two_charts.log", tmp)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_server(proc)
