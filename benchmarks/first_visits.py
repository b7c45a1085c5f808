"""First visits: a fresh server, Chromium on one URL, the time from navigation to the first
chart on screen.

For every page of the app, every tour link (``<page>?tour=<id>``) and the plain ``/Learn``
and ``/Online_regret`` (pages, so they are in the list once), each run starts a new
``streamlit run app.py`` (nothing cached in the browser; the server warms itself before it
answers, ``ui.warm``, in trees that have it), navigates a new Chromium page to the URL as
soon as the server answers, and records, in seconds from the navigation's start (the page's
``performance.timeOrigin``):

- ``websocket``: the page's websocket opened (the app's script can start);
- ``first message``: the first message of the script run received;
- ``first text``: the first frame painted with text in the page's main area (the page is
  there to read and its controls to use; ``ui.index_page`` evaluates Plotly after it);
- ``first chart message``: the first message with a Plotly figure in it;
- ``first chart``: the first frame painted with a chart in it (timed in the page): the
  headline figure;
- ``progress``: the first progress bar on screen (a computation over 0.3 s is running), if
  one was drawn before the chart.

Median (and min, max) of ``--repeats`` runs per URL; the 1-minute load average before each
run is recorded (the machine is shared), and so is the time the server took to answer
(``server start``: its warm-up, ``ui.warm``, runs before it listens) with the seconds of
each warm-up step the server printed.

``--breakdown``: where a cold first visit's time goes, each part measured in a fresh Python
process (:func:`breakdown`): the imports of the pages' modules (``python -X importtime``,
the largest ones), the default instance, its exact loss and sweep, Plotly's first figure
against its second, the worker processes' start; writes ``first_visits_breakdown.{json,md}``.

``--warmed`` (with ``--one-server``): each round's visits start once the server's warm-up has
ended (what a visitor of a server started some time before meets).

Run: ``python benchmarks/first_visits.py [--repeats 3] [--one-server [--warmed]] [--only Learn
Online_regret] [--root DIR --name NAME]`` (``--root``: another
tree of the app, e.g. a copy of the commit before a change); writes
``benchmarks/results/first_visits.{json,md}`` (or ``NAME.{json,md}``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _common import ROOT, free_port, machine, start_server, stop_server, write
from browser_helpers import CHART, CHROMIUM, CHROMIUM_ARGS, sync_playwright

from sslviz import tours
from ui import index_page, nav

LOG = ROOT / "benchmarks" / "results" / "first_visits_server.log"
TIMEOUT_MS = 180_000
START_TIMEOUT = 900.0  # seconds: a warmed server answers once its first views are computed
WARM_LINE = "sslviz warm-up, seconds: "  # ui.warm.LOG_LINE (an old tree has none)

WATCH = """
window.sslvizFirst = {};
const mark = (k) => {
  if (!(k in window.sslvizFirst)) window.sslvizFirst[k] = performance.now() / 1000;
};
new MutationObserver(() => {
  if (document.querySelector('[data-testid="stProgress"]')) mark('progress');
  if (document.querySelector('FIRST_TEXT')) requestAnimationFrame(() => mark('first text'));
  if (document.querySelector('.js-plotly-plot .main-svg')) {
    requestAnimationFrame(() => mark('first chart'));
  }
}).observe(document, {subtree: true, childList: true});
""".replace("FIRST_TEXT", index_page.FIRST_TEXT)
"""In the page: the time (s since navigation) of the first frame painted with a chart's SVG,
with the main area's first text (``ui.index_page.FIRST_TEXT``), and of the first progress
bar."""

EVENTS = (
    "websocket",
    "first message",
    "first text",
    "first chart message",
    "progress",
    "first chart",
)


def urls() -> list[tuple[str, str]]:
    """``(name, path)`` of every page and every tour link."""
    out = [(p.path or "home", p.path or "") for p in nav.NAV]
    for t in tours.TOURS:
        page = next(p for p in nav.NAV if p.file == t.page)
        out.append((f"tour {t.id}", f"{page.path or ''}?tour={t.id}"))
    return out


def serve(root: Path = ROOT) -> tuple[subprocess.Popen, int, dict]:
    """A fresh server of the app in ``root``: its process, port and start (``server start``:
    seconds until it answered; ``warm-up``: the steps it printed, when it warms)."""
    port = free_port()
    t_start = time.perf_counter()
    proc = start_server(port, LOG, root=root, poll=0.05, timeout=START_TIMEOUT)
    out: dict = {"server start": round(time.perf_counter() - t_start, 2)}
    warmed = [ln for ln in LOG.read_text().splitlines() if ln.startswith(WARM_LINE)]
    if warmed:
        out["warm-up"] = json.loads(warmed[-1][len(WARM_LINE) :])
    return proc, port, out


def warmed(log: Path = LOG, timeout: float = START_TIMEOUT) -> dict:
    """Wait until the server writing ``log`` has printed its warm-up's end (``ui.warm``):
    ``{"warm-up": its steps}``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = [ln for ln in log.read_text().splitlines() if ln.startswith(WARM_LINE)]
        if lines:
            return {"warm-up": json.loads(lines[-1][len(WARM_LINE) :])}
        time.sleep(0.5)
    raise TimeoutError(f"no warm-up line in {timeout:g} s; see {log}")


def _timeout_error() -> type:
    from playwright.sync_api import TimeoutError as timeout

    return timeout


def visit(browser, path: str, root: Path = ROOT, port: int | None = None) -> dict:
    """One first visit of ``path`` on a fresh server of the app in ``root`` (or, given
    ``port``, on that server: a fresh browser context, the server's first session on that
    URL): :data:`EVENTS` in s from navigation."""
    out: dict = {"load_1min": round(os.getloadavg()[0], 2)}
    proc = None
    if port is None:
        proc, port, started = serve(root)
        out |= started
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
        if proc is not None:
            stop_server(proc)
    return out


PROBE = r"""
import json, time
t = {}
def lap(name, t0):
    t[name] = round(time.perf_counter() - t0, 3)
t0 = time.perf_counter(); import streamlit; lap("import streamlit", t0)
t0 = time.perf_counter()
import numpy, scipy.sparse.linalg, pandas, plotly.graph_objects
lap("import numpy, scipy, pandas, plotly", t0)
t0 = time.perf_counter()
import sslviz.problem, sslviz.intervals, sslviz.truth, sslviz.plots, sslviz.learn
import sslviz.experiment, sslviz.animation, sslviz.cli
lap("import sslviz (numba's compiled kernels registered)", t0)
t0 = time.perf_counter()
import ui.frame, ui.cache, ui.widgets, ui.sidebar, ui.presenter, ui.progress
lap("import ui (the pages' glue)", t0)
from sslviz import plots
from sslviz.intervals import sweep
from sslviz.problem import build_problem, loss_curve, suggest_sigma_range
from sslviz.specs import ProblemSpec, SweepSettings
t0 = time.perf_counter(); p = build_problem(ProblemSpec())
lap("default instance (dataset, graph, model)", t0)
lo, hi = suggest_sigma_range(p)
for k in ("first", "again"):
    t0 = time.perf_counter(); loss_curve(p, lo, hi); lap(f"exact loss l(sigma), {k}", t0)
for k in ("first", "again"):
    t0 = time.perf_counter(); sweep(p.model, p.y_unlabeled, lo, hi, SweepSettings())
    lap(f"Algorithm 4 sweep (CG-20, fast), {k}", t0)
inst = p.instance
for k in ("first", "again"):
    t0 = time.perf_counter()
    plots.instance_figure(inst.X[:, :2], inst.y, inst.labeled).to_json()
    lap(f"Plotly figure (the home page's points, built and written), {k}", t0)
import threading
from sslviz.learn import start_workers
threading.Thread(target=time.sleep, args=(60,), daemon=True).start()  # a server's threads
t0 = time.perf_counter(); start_workers()
lap("worker processes (one instance here, then 2 processes started and warmed)", t0)
print(json.dumps(t))
"""
"""A fresh process: the parts of a cold first visit's server work, one after the other."""

IMPORTS = "import streamlit, ui.frame, ui.cache, ui.widgets, ui.sidebar, sslviz.plots, sslviz.learn"


def _importtime(limit: float = 0.15) -> list[tuple[str, float]]:
    """``python -X importtime`` of the pages' modules: ``(module, cumulative s)`` of the
    modules at the top three levels that took over ``limit`` s, in import order."""
    err = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", IMPORTS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    out = []
    for line in err.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cum, name = line.split("|")
        depth = (len(name) - len(name.lstrip()) - 1) // 2
        if cum.strip().isdigit() and depth <= 2 and int(cum) / 1e6 >= limit:
            out.append(("  " * depth + name.strip(), int(cum) / 1e6))
    return out


def breakdown() -> None:
    """``--breakdown``: :data:`PROBE` and :func:`_importtime` in fresh processes, the load
    average before each; writes ``first_visits_breakdown.{json,md}``."""
    load = round(os.getloadavg()[0], 2)
    imports = _importtime()
    load2 = round(os.getloadavg()[0], 2)
    parts = json.loads(
        subprocess.run(
            [sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.splitlines()[-1]
    )
    md = [
        "# Where a cold first visit's server time goes (`python benchmarks/first_visits.py "
        "--breakdown`)",
        "",
        f"Fresh Python processes, {machine()['cpus']} CPUs, shared (1-minute load average "
        f"{load} before the imports, {load2} before the parts).",
        "",
        "## Imports (`python -X importtime`), cumulative seconds, modules over 0.15 s",
        "",
        "| module | s |",
        "|---|---|",
        *(f"| `{m}` | {s:.2f} |" for m, s in imports),
        "",
        "## The parts, one after the other in one process",
        "",
        "| part | s |",
        "|---|---|",
        *(f"| {k} | {v:.2f} |" for k, v in parts.items()),
    ]
    payload = {"machine": machine(), "load_1min": [load, load2], "imports": imports}
    write("first_visits_breakdown", payload | {"parts": parts}, "\n".join(md) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", nargs="*", default=None, help="names or paths to measure")
    ap.add_argument("--root", type=Path, default=ROOT, help="the app tree to serve")
    ap.add_argument("--name", default="first_visits", help="the results' file name")
    ap.add_argument(
        "--one-server",
        action="store_true",
        help="one fresh server per round, each URL a fresh browser context on it (a warmed "
        "server takes its warm-up once per round, not once per URL)",
    )
    ap.add_argument(
        "--warmed",
        action="store_true",
        help="with --one-server: visit once the server's warm-up has ended (every first view "
        "computed: what is left is the browser and one cached run)",
    )
    ap.add_argument("--breakdown", action="store_true", help="where a cold visit's time goes")
    args = ap.parse_args()
    if args.warmed and not args.one_server:
        ap.error("--warmed waits for a server's warm-up: add --one-server")
    if args.breakdown:
        breakdown()
        return
    LOG.parent.mkdir(parents=True, exist_ok=True)
    chosen = [(n, p) for n, p in urls() if not args.only or n in args.only or p in args.only]
    runs: dict[str, list[dict]] = {n: [] for n, _ in chosen}
    starts: list[dict] = []
    PlaywrightTimeout = _timeout_error()  # noqa: N806
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for _ in range(args.repeats):
                proc, port, started = serve(args.root) if args.one_server else (None, None, {})
                if args.warmed:
                    started |= warmed()
                if started:
                    starts.append(started)
                    print("server", started, flush=True)
                try:
                    for name, path in chosen:
                        try:
                            runs[name].append(visit(browser, path, args.root, port))
                        except PlaywrightTimeout as exc:  # said in the table, not dropped
                            runs[name].append({"load_1min": os.getloadavg()[0], "failed": 1})
                            print(name, "no chart within the timeout:", exc, flush=True)
                        print(name, runs[name][-1], flush=True)
                finally:
                    if proc is not None:
                        stop_server(proc)
        finally:
            browser.close()
    table = {}
    for name, path in chosen:
        rs = [r for r in runs[name] if "first chart" in r]
        if not rs:
            continue
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
            "failed": len(runs[name]) - len(rs),
        }
    md = [
        "# First visits (`python benchmarks/first_visits.py"
        + (f" --repeats {args.repeats}" if args.repeats != 3 else "")
        + (" --one-server" if args.one_server else "")
        + (" --warmed" if args.warmed else "")
        + "`)",
        "",
        (
            f"One fresh server per round ({args.repeats} rounds), each URL visited once per "
            "round in a fresh Chromium context (nothing in the browser's cache)"
            + (", once the server's warm-up had ended" if args.warmed else "")
            if args.one_server
            else f"A fresh server for every run ({args.repeats} per URL)"
        )
        + ", Chromium at 1400×900 navigating as soon as the server answers; seconds from "
        "the navigation's start. "
        f"Machine: {machine()['cpus']} CPUs, shared (1-minute load average before each run "
        "in the last column).",
        "",
        "| URL | first chart: median | min | max | under 2 s | websocket | first message | "
        "first text | progress bar | first chart message | load average |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]

    shown = starts or [r for rs in runs.values() for r in rs if "server start" in r][:3]
    if shown:  # one paragraph, a blank line before the table
        md[4:4] = [
            "Server start (until it answered), "
            + ("each round" if starts else "the first runs")
            + ": "
            + "; ".join(
                f"{r['server start']:.1f} s"
                + (f", its warm-up {r['warm-up']['total']:.1f} s" if "warm-up" in r else "")
                for r in shown
            )
            + ".",
            "",
        ]

    def cell(r: dict, e: str) -> str:
        v = r["events_median_s"].get(e)
        return "–" if v is None else f"{v:.2f}"

    for r in table.values():
        md.append(
            f"| `{r['path']}` | {r['first_chart_median_s']:.2f} | {r['first_chart_min_s']:.2f} | "
            f"{r['first_chart_max_s']:.2f} | "
            f"{'yes' if r['first_chart_median_s'] < 2.0 else 'no'} | {cell(r, 'websocket')} | "
            f"{cell(r, 'first message')} | {cell(r, 'first text')} | {cell(r, 'progress')} | "
            f"{cell(r, 'first chart message')} | {', '.join(map(str, r['load_1min']))}"
            + (
                f" ({r['failed']} run(s) without a chart in {TIMEOUT_MS // 1000} s)"
                * (r["failed"] > 0)
            )
            + " |"
        )
    write(
        args.name,
        {
            "machine": machine(),
            "repeats": args.repeats,
            "root": str(args.root),
            "urls": table,
            "runs": runs,
            "server_starts": starts,
        },
        "\n".join(md) + "\n",
    )


if __name__ == "__main__":
    main()
