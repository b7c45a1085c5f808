"""Cold start: where the time to the first chart goes.

1. In a fresh process, times each step of the app's path: the imports (NumPy + SciPy,
   sslviz, Streamlit + Plotly), loading the embedded digits, building the default
   instance (PCA, graph, model), the suggested σ range (the home page needs no more), the
   first exact loss curve (Numba's import and cache load: the loss page's path) and the
   first CG call; and whether Numba got imported on the home page's path and scikit-learn
   on the way (neither is needed).
2. Starts ``streamlit run app.py`` on 127.0.0.1 (a fresh server for every run) and follows
   one Chromium session from the server's start to the first chart of the home page and of
   ``/Loss_intervals`` (Chromium started once the server answers, as ``streamlit run``
   opening a browser does), and of the home page with Chromium already running (someone
   starting the app with a browser open), with the events in between: server healthy,
   browser up, page loaded, websocket open, Plotly's JavaScript (Streamlit's
   ``PlotlyChart`` chunk) requested and loaded, the first chart's message received, the
   first chart on screen (the first frame painted with it, timed in the page: the headline
   figure) and found by Playwright's polling (0.2-0.4 s later).
3. The same for a trivial Streamlit app with one three-point Plotly chart: what the server
   start, the browser and Plotly cost by themselves on this machine (the floor).
4. With ``--baseline DIR`` (another checkout of the app, e.g. the commit before a change),
   every measurement also runs on DIR, interleaved with this checkout's, so old and new are
   measured in one session under the same load, and their ratio is reported.

The machine is shared: the 1-minute load average is recorded before every browser run.

Run: ``python benchmarks/cold_start.py [--repeats 3] [--baseline DIR]``; writes
``benchmarks/results/cold_start.{json,md}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import machine, write
from load_test import ARGS, CHART, CHROMIUM, free_port, start_server, stop_server

ROOT = Path(__file__).resolve().parents[1]
LOG = ROOT / "benchmarks" / "results" / "cold_start_server.log"
PAGES = ("", "Loss_intervals")
COMPARED = ("home", "Loss_intervals", "home, browser already open")
"""The runs whose baseline ÷ current ratio is reported."""

STEPS = r"""
import json, sys, time
t = {}
t0 = time.perf_counter()
import numpy, scipy.sparse
t["numpy + scipy"] = time.perf_counter() - t0; t1 = time.perf_counter()
import sslviz.problem, sslviz.export
t["sslviz"] = time.perf_counter() - t1; t1 = time.perf_counter()
import streamlit, plotly.graph_objects
t["streamlit + plotly"] = time.perf_counter() - t1; t1 = time.perf_counter()
from sslviz.datasets import load_dataset
load_dataset("digits")
t["load digits"] = time.perf_counter() - t1; t1 = time.perf_counter()
from sslviz.problem import build_problem, loss_curve, suggest_sigma_range
from sslviz.specs import ProblemSpec
p = build_problem(ProblemSpec())
t["default instance (PCA, graph, model)"] = time.perf_counter() - t1; t1 = time.perf_counter()
lo, hi = suggest_sigma_range(p)
t["suggested σ range"] = time.perf_counter() - t1
t["home page's path"] = time.perf_counter() - t0; t1 = time.perf_counter()
t["Numba imported on the home page's path"] = "numba" in sys.modules
loss_curve(p, lo, hi)
t["first exact loss curve (imports Numba)"] = time.perf_counter() - t1; t1 = time.perf_counter()
p.model.soft_labels_many([lo, hi], solver="cg")
t["first CG call (compiled kernels)"] = time.perf_counter() - t1
t["total"] = time.perf_counter() - t0
t["scikit-learn imported"] = "sklearn" in sys.modules
print(json.dumps(t))
"""

FLOOR_APP = """import plotly.graph_objects as go
import streamlit as st

st.title("floor")
st.plotly_chart(go.Figure(go.Scatter(x=[1, 2, 3], y=[1, 3, 2])))
"""
"""The reference app: the same server, browser and Plotly, no work of its own."""

ON_SCREEN = """
new MutationObserver((_, observer) => {
  if (!document.querySelector('.js-plotly-plot .main-svg')) return;
  observer.disconnect();
  requestAnimationFrame(() => {
    window.sslvizChartPainted = performance.timeOrigin + performance.now();
  });
}).observe(document, {subtree: true, childList: true});
"""
"""In the page: the time (ms since the epoch) of the first frame with a chart's SVG in it:
when the chart is on screen, without the delay of Playwright's polling for it."""

EVENTS = (
    "healthy",
    "browser up",
    "page loaded",
    "websocket open",
    "Plotly JS requested",
    "Plotly JS loaded",
    "chart message received",
    "chart on screen",
    "first chart",
)
"""The events of a session's timeline, in seconds from the server's start. The chart's
message is timed when Playwright reports the frame, which is when the page handles it: only
once the page's thread is free (a hook on the page's WebSocket saw it at the same time,
after Plotly's JavaScript had been evaluated); "first chart" is when Playwright's polling
found the chart."""


def steps(root: Path) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", STEPS], cwd=root, capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def import_top(root: Path, n: int = 8) -> list[tuple[str, float]]:
    """The ``n`` packages with the largest import time (s) under ``import ui.cache`` (the
    app's cached computations; ``app_cache`` in trees before the ``ui`` package): per
    top-level package, the cumulative time of its first (outermost) import."""
    module = "ui.cache" if (root / "ui").is_dir() else "app_cache"
    err = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        cwd=root,
        capture_output=True,
        text=True,
    ).stderr
    out: dict[str, float] = {}
    for line in err.splitlines():
        m = re.match(r"import time:\s+\d+ \|\s+(\d+) \|\s*(\S+)", line)
        if m:
            top = m.group(2).split(".")[0]
            out[top] = max(out.get(top, 0.0), int(m.group(1)) / 1e6)
    return sorted(out.items(), key=lambda kv: -kv[1])[:n]


async def session(root: Path, path: str, browser_first: bool = False) -> dict:
    """One cold session: a new server in ``root``, Chromium on ``/path``; the timeline of
    :data:`EVENTS` (s from the server's start) and the load average before it. With
    ``browser_first`` the browser is already up (on a blank page) when the server starts, as
    for someone who starts the app with a browser open; else it starts once the server is
    healthy, as ``streamlit run`` opening a new browser does."""
    from playwright.async_api import async_playwright

    out: dict = {"load_1min": round(os.getloadavg()[0], 2)}
    port = free_port()
    async with async_playwright() as pw:
        browser = None
        if browser_first:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            blank = await browser.new_page()
            await blank.goto("about:blank")
            await asyncio.sleep(1.0)
        t0, epoch0 = time.perf_counter(), time.time()

        def mark(event: str) -> None:
            out.setdefault(event, round(time.perf_counter() - t0, 3))

        proc = start_server(port, LOG, root=root, poll=0.05)
        mark("healthy")
        try:
            if browser is None:
                browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                mark("browser up")
            page = await browser.new_page(viewport={"width": 1400, "height": 900})

            def on_frame(payload) -> None:
                if isinstance(payload, bytes) and b'"layout"' in payload:  # a Plotly figure
                    mark("chart message received")

            def on_ws(ws) -> None:
                mark("websocket open")
                ws.on("framereceived", on_frame)

            def plotly_js(event: str):
                return lambda r: mark(event) if "/PlotlyChart." in r.url else None

            await page.add_init_script(ON_SCREEN)
            page.on("websocket", on_ws)
            page.on("request", plotly_js("Plotly JS requested"))
            page.on("requestfinished", plotly_js("Plotly JS loaded"))
            await page.goto(f"http://127.0.0.1:{port}/{path}", timeout=180_000)
            mark("page loaded")
            await page.wait_for_selector(CHART, timeout=180_000)
            mark("first chart")
            painted = await page.wait_for_function("window.sslvizChartPainted", timeout=10_000)
            out["chart on screen"] = round(await painted.json_value() / 1000 - epoch0, 3)
            await browser.close()
        finally:
            stop_server(proc)
    return out


def summary(runs: list[dict]) -> dict:
    """min / median / max of the first chart on screen, the median of Playwright's finding
    it, and the median of every event."""
    charts = [r["chart on screen"] for r in runs]
    return {
        "first_chart_min_s": min(charts),
        "first_chart_median_s": statistics.median(charts),
        "first_chart_max_s": max(charts),
        "found_by_playwright_median_s": statistics.median(r["first chart"] for r in runs),
        "load_1min": [r["load_1min"] for r in runs],
        "events_median_s": {
            e: statistics.median(r[e] for r in runs if e in r)
            for e in EVENTS
            if any(e in r for r in runs)
        },
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument(
        "--baseline",
        type=Path,
        default=None,
        help="another checkout of the app, measured interleaved with this one",
    )
    args = ap.parse_args()
    LOG.parent.mkdir(parents=True, exist_ok=True)
    apps = {"current": ROOT}
    if args.baseline is not None:
        apps["baseline"] = args.baseline.resolve()
    floor = Path(tempfile.mkdtemp(prefix="sslviz_floor_"))
    (floor / "app.py").write_text(FLOOR_APP)
    step_runs: dict[str, list[dict]] = {name: [] for name in apps}
    runs: dict[tuple[str, str], list[dict]] = {}
    for i in range(args.repeats):
        order = list(apps) if i % 2 == 0 else list(reversed(apps))  # alternate: drift cancels
        for name in order:
            step_runs[name].append(steps(apps[name]))
        for path in PAGES:
            for name in order:
                runs.setdefault((name, path or "home"), []).append(
                    asyncio.run(session(apps[name], path))
                )
        for name in order:
            runs.setdefault((name, "home, browser already open"), []).append(
                asyncio.run(session(apps[name], "", browser_first=True))
            )
        runs.setdefault(("floor", "trivial app"), []).append(asyncio.run(session(floor, "")))
        runs.setdefault(("floor", "trivial app, browser already open"), []).append(
            asyncio.run(session(floor, "", browser_first=True))
        )
    pages = {f"{name} / {page}": summary(r) for (name, page), r in runs.items()}
    best = {
        name: {
            k: (sr[0][k] if isinstance(sr[0][k], bool) else min(s[k] for s in sr)) for k in sr[0]
        }
        for name, sr in step_runs.items()
    }
    imports = {name: import_top(root) for name, root in apps.items()}

    md = [
        "# Cold start (`python benchmarks/cold_start.py"
        + (f" --repeats {args.repeats}" if args.repeats != 3 else "")
        + (" --baseline DIR`)" if args.baseline else "`)"),
        "",
        f"{args.repeats} fresh servers per page and app"
        + (" (current and baseline interleaved)" if args.baseline else "")
        + f". Machine: {json.dumps(machine())}, shared: 1-minute load average before "
        "each run in the last column.",
        "",
        "## Server start to first chart (Chromium, s)",
        "",
        "On screen: the first frame painted with a chart in it, timed in the page. Found by "
        "Playwright: when its polling for the chart returned (later, by its polling delay; "
        "the measure of earlier runs of this benchmark).",
        "",
        "| app / page | on screen: min | median | max | found by Playwright: median | "
        "load average |",
        "|---|---|---|---|---|---|",
    ]
    for key, r in pages.items():
        md.append(
            f"| {key} | {r['first_chart_min_s']:.2f} | {r['first_chart_median_s']:.2f} | "
            f"{r['first_chart_max_s']:.2f} | {r['found_by_playwright_median_s']:.2f} | "
            f"{', '.join(map(str, r['load_1min']))} |"
        )
    if args.baseline:
        md += [
            "",
            "Baseline ÷ current, same session: "
            + ", ".join(
                f"{page} {pages[f'baseline / {page}']['first_chart_median_s'] / pages[f'current / {page}']['first_chart_median_s']:.2f}× (median), "  # noqa: E501
                f"{pages[f'baseline / {page}']['first_chart_min_s'] / pages[f'current / {page}']['first_chart_min_s']:.2f}× (min)"  # noqa: E501
                for page in COMPARED
            )
            + ".",
        ]
    md += [
        "",
        "## Where the time goes (median s from the server's start)",
        "",
        "| event | " + " | ".join(pages) + " |",
        "|---|" + "---|" * len(pages),
    ]
    for e in EVENTS:
        md.append(
            f"| {e} | "
            + " | ".join(
                f"{r['events_median_s'][e]:.2f}" if e in r["events_median_s"] else "–"
                for r in pages.values()
            )
            + " |"
        )
    md += [
        "",
        "## The app's path in one process (s, min over the runs)",
        "",
        "| step | " + " | ".join(best) + " |",
        "|---|" + "---|" * len(best),
    ]
    for k in best["current"]:
        md.append(
            f"| {k} | "
            + " | ".join(
                (("yes" if b[k] else "no") if isinstance(b[k], bool) else f"{b[k]:.3f}")
                for b in best.values()
            )
            + " |"
        )
    for name, top in imports.items():
        md += [
            "",
            f"## Heaviest imports under `import ui.cache`, {name} (cumulative s, one run)",
            "",
            "| module | s |",
            "|---|---|",
        ] + [f"| {k} | {v:.3f} |" for k, v in top]
    write(
        "cold_start",
        {
            "machine": machine(),
            "repeats": args.repeats,
            "baseline": str(args.baseline) if args.baseline else None,
            "pages": pages,
            "runs": {f"{a} / {p}": r for (a, p), r in runs.items()},
            "steps": step_runs,
            "imports": imports,
        },
        "\n".join(md) + "\n",
    )


if __name__ == "__main__":
    main()
