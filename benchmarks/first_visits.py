"""First visits: a fresh server, Chromium on one URL, the time from navigation to the first
chart on screen.

For every page of the app, every tour link (``<page>?tour=<id>``) and the plain ``/Learn``
and ``/Online_regret`` (pages, so they are in the list once), each run starts a new
``streamlit run app.py`` (nothing cached, its worker processes still starting: the app
starts them after its first page), navigates a new Chromium page to the URL as soon as the
server answers, and records, in seconds from the navigation's start (the page's
``performance.timeOrigin``):

- ``websocket``: the page's websocket opened (the app's script can start);
- ``first message``: the first message of the script run received;
- ``first chart message``: the first message with a Plotly figure in it;
- ``first chart``: the first frame painted with a chart in it (timed in the page): the
  headline figure;
- ``progress``: the first progress bar on screen (a computation over 0.3 s is running), if
  one was drawn before the chart.

Median (and min, max) of ``--repeats`` runs per URL; the 1-minute load average before each
run is recorded (the machine is shared). Run: ``python benchmarks/first_visits.py
[--repeats 3] [--only Learn Online_regret] [--root DIR --name NAME]`` (``--root``: another
tree of the app, e.g. a copy of the commit before a change); writes
``benchmarks/results/first_visits.{json,md}`` (or ``NAME.{json,md}``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from _common import ROOT, free_port, machine, start_server, stop_server, write
from browser_helpers import CHART, CHROMIUM, CHROMIUM_ARGS, sync_playwright

from sslviz import tours
from ui import nav

LOG = ROOT / "benchmarks" / "results" / "first_visits_server.log"
TIMEOUT_MS = 180_000

WATCH = """
window.sslvizFirst = {};
const mark = (k) => {
  if (!(k in window.sslvizFirst)) window.sslvizFirst[k] = performance.now() / 1000;
};
new MutationObserver(() => {
  if (document.querySelector('[data-testid="stProgress"]')) mark('progress');
  if (document.querySelector('.js-plotly-plot .main-svg')) {
    requestAnimationFrame(() => mark('first chart'));
  }
}).observe(document, {subtree: true, childList: true});
"""
"""In the page: the time (s since navigation) of the first frame painted with a chart's SVG,
and of the first progress bar."""

EVENTS = ("websocket", "first message", "first chart message", "progress", "first chart")


def urls() -> list[tuple[str, str]]:
    """``(name, path)`` of every page and every tour link."""
    out = [(p.path or "home", p.path or "") for p in nav.NAV]
    for t in tours.TOURS:
        page = next(p for p in nav.NAV if p.file == t.page)
        out.append((f"tour {t.id}", f"{page.path or ''}?tour={t.id}"))
    return out


def visit(browser, path: str, root: Path = ROOT) -> dict:
    """One first visit of ``path`` on a fresh server of the app in ``root``: :data:`EVENTS`
    in s from navigation."""
    out: dict = {"load_1min": round(os.getloadavg()[0], 2)}
    port = free_port()
    proc = start_server(port, LOG, root=root, poll=0.05)
    try:
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        page.add_init_script(WATCH)
        t0 = [None]

        def since() -> float:
            return round(time.perf_counter() - t0[0], 3)

        def on_frame(payload) -> None:
            out.setdefault("first message", since())
            if isinstance(payload, bytes) and b'"layout"' in payload:
                out.setdefault("first chart message", since())

        def on_ws(ws) -> None:
            out.setdefault("websocket", since())
            ws.on("framereceived", on_frame)

        page.on("websocket", on_ws)
        t0[0] = time.perf_counter()
        page.goto(f"http://127.0.0.1:{port}/{path}", timeout=TIMEOUT_MS)
        page.wait_for_selector(CHART, timeout=TIMEOUT_MS)
        page.wait_for_function("window.sslvizFirst['first chart']", timeout=10_000)
        seen = page.evaluate("window.sslvizFirst")
        for k, v in seen.items():  # in the page's clock: from the navigation's start
            out[k] = round(float(v), 3)
        context.close()
    finally:
        stop_server(proc)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", nargs="*", default=None, help="names or paths to measure")
    ap.add_argument("--root", type=Path, default=ROOT, help="the app tree to serve")
    ap.add_argument("--name", default="first_visits", help="the results' file name")
    args = ap.parse_args()
    LOG.parent.mkdir(parents=True, exist_ok=True)
    chosen = [(n, p) for n, p in urls() if not args.only or n in args.only or p in args.only]
    runs: dict[str, list[dict]] = {n: [] for n, _ in chosen}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for _ in range(args.repeats):
                for name, path in chosen:
                    runs[name].append(visit(browser, path, args.root))
                    print(name, runs[name][-1], flush=True)
        finally:
            browser.close()
    table = {}
    for name, path in chosen:
        rs = runs[name]
        charts = [r["first chart"] for r in rs]
        table[name] = {
            "path": "/" + path,
            "first_chart_median_s": statistics.median(charts),
            "first_chart_min_s": min(charts),
            "first_chart_max_s": max(charts),
            "events_median_s": {
                e: statistics.median(r[e] for r in rs if e in r)
                for e in EVENTS
                if any(e in r for r in rs)
            },
            "load_1min": [r["load_1min"] for r in rs],
        }
    md = [
        "# First visits (`python benchmarks/first_visits.py"
        + (f" --repeats {args.repeats}" if args.repeats != 3 else "")
        + "`)",
        "",
        f"A fresh server for every run ({args.repeats} per URL), Chromium at 1400×900 "
        "navigating as soon as the server answers; seconds from the navigation's start. "
        f"Machine: {machine()['cpus']} CPUs, shared (1-minute load average before each run "
        "in the last column).",
        "",
        "| URL | first chart: median | min | max | under 2 s | websocket | first message | "
        "progress bar | first chart message | load average |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]

    def cell(r: dict, e: str) -> str:
        v = r["events_median_s"].get(e)
        return "–" if v is None else f"{v:.2f}"

    for r in table.values():
        md.append(
            f"| `{r['path']}` | {r['first_chart_median_s']:.2f} | {r['first_chart_min_s']:.2f} | "
            f"{r['first_chart_max_s']:.2f} | "
            f"{'yes' if r['first_chart_median_s'] < 2.0 else 'no'} | {cell(r, 'websocket')} | "
            f"{cell(r, 'first message')} | {cell(r, 'progress')} | "
            f"{cell(r, 'first chart message')} | {', '.join(map(str, r['load_1min']))} |"
        )
    write(
        args.name,
        {
            "machine": machine(),
            "repeats": args.repeats,
            "root": str(args.root),
            "urls": table,
            "runs": runs,
        },
        "\n".join(md) + "\n",
    )


if __name__ == "__main__":
    main()
