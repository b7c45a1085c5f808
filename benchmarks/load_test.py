"""Load test of the app (issue 12 §5, issue 14): many browser sessions on one server.

Starts ``streamlit run app.py`` on 127.0.0.1 (a free port), then

1. opens ``--sessions`` (default 8) Chromium contexts at once, each on a different page and
   settings, and records for each the time from navigation to its last chart with the
   app idle, and any exception box;
2. restarts the server (nothing cached) and opens every URL again alone, one at a time,
   and compares the charts' data with what the session under load saw (the same bytes =
   the session saw its own numbers, and they did not depend on the load; the Speed page's
   chart shows measured times, which differ from run to run by nature);
3. opens one long request, closes its tab after ``--close-after`` s, and samples the
   server's CPU use until it is idle (< 10 % of one core over 1 s) or ``--idle-cap`` s.

Traffic goes to 127.0.0.1 only; the run is bounded (every wait has a timeout, the server
is killed at the end). Reports the server's memory (RSS) before and after, and writes
``benchmarks/results/load_test.{json,md}``.

Run: ``python benchmarks/load_test.py [--sessions 8]`` (needs Playwright and Debian's
Chromium at /usr/bin/chromium, which ``scripts/install.sh test`` installs).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from _common import machine, write

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update",
        "--disable-sync"]  # fmt: skip
CHART = ".js-plotly-plot"
EXCEPTION = '[data-testid="stException"]'
TIMEOUT_MS = 180_000

# (page path, query): different pages and settings, one per session (cycled if more)
VIEWS = [
    ("", "classes=2,3"),
    ("Loss_intervals", ""),
    ("Loss_intervals", "classes=3,8&seed=1"),
    ("Loss_intervals", "family=knn&classes=1,8&n=150"),
    ("Conditioning", ""),
    ("Conditioning", "classes=4,9&family=knn"),
    ("Online_regret", "rounds=10&repeats=1"),
    ("Speed", ""),
]
LONG_VIEW = ("Loss_intervals", "classes=2,3&n=200&labeled=10&family=complete&mode=paper")
"""Paper mode on a complete graph: node by node, tens of seconds (under the app's cap)."""

SIGNATURE = """() => JSON.stringify([...document.querySelectorAll('.js-plotly-plot')]
    .map(g => (g.data || []).map(t => [t.name, t.x, t.y, t.z])))"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, log: Path) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.headless", "true", "--server.address", "127.0.0.1",
         "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
        cwd=ROOT, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with status {proc.returncode}; see {log}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                return proc
        except OSError:
            time.sleep(0.3)
    raise TimeoutError("streamlit did not start within 90 s")


def stop_server(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def open_view(browser, url: str) -> dict:
    """Open ``url`` in a new context; time to the last chart with the app idle."""
    ctx = await browser.new_context(viewport={"width": 1400, "height": 900})
    page = await ctx.new_page()
    t0 = time.perf_counter()
    out = {"url": url}
    try:
        await page.goto(url, timeout=TIMEOUT_MS)
        await page.wait_for_selector(CHART, timeout=TIMEOUT_MS)
        await page.wait_for_timeout(300)
        await page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached",
                                     timeout=TIMEOUT_MS)  # fmt: skip
        out["seconds"] = time.perf_counter() - t0
        out["exceptions"] = await page.locator(EXCEPTION).count()
        out["signature"] = await page.evaluate(SIGNATURE)
    except Exception as exc:  # a timeout counts as a failure of this session
        out["seconds"], out["exceptions"], out["error"] = None, None, repr(exc)[:300]
    finally:
        await ctx.close()
    return out


async def long_request_then_close(browser, url: str, close_after: float) -> None:
    ctx = await browser.new_context(viewport={"width": 1400, "height": 900})
    page = await ctx.new_page()
    await page.goto(url, timeout=TIMEOUT_MS)
    await page.wait_for_timeout(int(1000 * close_after))
    await ctx.close()


async def run(args) -> dict:
    from playwright.async_api import async_playwright

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = ROOT / "benchmarks" / "results" / "load_test_server.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    t_start = time.perf_counter()
    proc = start_server(port, log)
    report: dict = {"machine": machine(), "sessions": args.sessions,
                    "server_start_s": round(time.perf_counter() - t_start, 2)}  # fmt: skip
    try:
        views = (VIEWS * (1 + args.sessions // len(VIEWS)))[: args.sessions]
        urls = [f"{base}/{path}" + (f"?{q}" if q else "") for path, q in views]
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            report["rss_before_mb"] = round(rss_mb(proc.pid), 1)
            t0 = time.perf_counter()
            loaded = await asyncio.gather(*(open_view(browser, u) for u in urls))
            report["load_wall_s"] = round(time.perf_counter() - t0, 2)
            report["rss_after_mb"] = round(rss_mb(proc.pid), 1)
            # the same URLs alone, one at a time, on a fresh server (nothing cached)
            stop_server(proc)
            port = free_port()
            base2 = f"http://127.0.0.1:{port}"
            proc = start_server(port, log)
            alone = [await open_view(browser, u.replace(base, base2)) for u in urls]
            base = base2
            rows = []
            for a, b in zip(loaded, alone, strict=True):
                rows.append({
                    "url": a["url"].split("/", 3)[-1], "seconds_under_load": a["seconds"],
                    "seconds_alone": b["seconds"], "exceptions": a["exceptions"],
                    "same_numbers_alone": a.get("signature") is not None
                    and a.get("signature") == b.get("signature"),
                    "error": a.get("error") or b.get("error"),
                })  # fmt: skip
            report["views"] = rows
            times = [r["seconds_under_load"] for r in rows if r["seconds_under_load"] is not None]
            report["time_to_chart_s"] = (
                {"min": round(min(times), 2), "median": round(statistics.median(times), 2),
                 "max": round(max(times), 2)} if times else None
            )  # fmt: skip
            report["exceptions"] = sum(r["exceptions"] or 0 for r in rows)
            report["failed_sessions"] = sum(r["seconds_under_load"] is None for r in rows)
            # a long request whose tab is closed: how soon is the server idle again?
            long_url = f"{base}/{LONG_VIEW[0]}?{LONG_VIEW[1]}"
            await long_request_then_close(browser, long_url, args.close_after)
            t_closed = time.perf_counter()
            idle_after = None
            last = cpu_seconds(proc.pid)
            while time.perf_counter() - t_closed < args.idle_cap:
                await asyncio.sleep(1.0)
                now = cpu_seconds(proc.pid)
                if now - last < 0.1:
                    idle_after = round(time.perf_counter() - t_closed, 1)
                    break
                last = now
            report["long_request"] = {"url": long_url.removeprefix(base),
                                      "closed_after_s": args.close_after,
                                      "idle_after_close_s": idle_after,
                                      "idle_cap_s": args.idle_cap}  # fmt: skip
            await browser.close()
    finally:
        stop_server(proc)
    return report


def markdown(r: dict) -> str:
    lines = ["# Load test (`python benchmarks/load_test.py`)", "",
             f"{r['sessions']} Chromium sessions at once on one server (127.0.0.1), then each "
             "URL alone. Machine: " + json.dumps(r["machine"]), "",
             f"- time to chart under load (s): {r['time_to_chart_s']}; wall {r['load_wall_s']} s",
             f"- exceptions: {r['exceptions']}; failed sessions: {r['failed_sessions']}",
             f"- server memory (RSS): {r['rss_before_mb']} MB before, {r['rss_after_mb']} MB "
             "after the sessions",
             f"- long request closed after {r['long_request']['closed_after_s']} s: server idle "
             f"after {r['long_request']['idle_after_close_s']} s "
             f"(cap {r['long_request']['idle_cap_s']} s; None = still busy at the cap)", "",
             "| view | s under load | s alone | exceptions | same numbers alone |",
             "|---|---|---|---|---|"]  # fmt: skip
    for v in r["views"]:
        f = (lambda x: "timeout" if x is None else f"{x:.2f}")  # noqa: E731
        lines.append(f"| `{v['url'] or '/'}` | {f(v['seconds_under_load'])} | "
                     f"{f(v['seconds_alone'])} | {v['exceptions']} | "
                     f"{'yes' if v['same_numbers_alone'] else 'NO'} |")  # fmt: skip
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=8)
    ap.add_argument("--close-after", type=float, default=5.0,
                    help="seconds before the long request's tab is closed")
    ap.add_argument("--idle-cap", type=float, default=60.0,
                    help="stop waiting for the server to be idle after this many seconds")
    args = ap.parse_args()
    report = asyncio.run(run(args))
    write("load_test", report, markdown(report))


if __name__ == "__main__":
    main()
