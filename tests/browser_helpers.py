"""Shared by the browser tests: Chromium, a ``streamlit run app.py`` server on a free local
port (:func:`streamlit_server`; the ``server`` fixture in ``conftest.py``), and waits on
the page's charts."""

from __future__ import annotations

import contextlib
import os
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

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - depends on the environment
    sync_playwright = None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with status {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.read().decode().strip() == "ok":
                    return
        except OSError:
            time.sleep(0.3)
    raise TimeoutError(f"streamlit did not answer on {url} within {timeout} s")


@contextlib.contextmanager
def streamlit_server(log_name: str = "streamlit.log"):
    """``streamlit run app.py`` on a free local port, as the README runs it; yields its URL."""
    ARTIFACTS.mkdir(exist_ok=True)
    port = free_port()
    log = open(ARTIFACTS / log_name, "w")  # noqa: SIM115 - closed in the finally
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.port",
            str(port),
            "--server.headless",
            "true",
            "--server.address",
            "127.0.0.1",
            "--browser.gatherUsageStats",
            "false",
            "--server.fileWatcherType",
            "none",
        ],
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc)
        yield url
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        log.close()


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


def wait_idle(page) -> None:
    """Wait until Streamlit has finished the current run."""
    page.wait_for_timeout(300)
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=TIMEOUT_MS)


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
