"""Where a first visit's time goes in Chromium: a trace of one visit from a fresh server.

For each URL, a fresh ``streamlit run app.py`` (as ``first_visits.py``), a new headless
Chromium page at 1400×900 traced with Chromium's tracing (timeline and V8 categories) from
the navigation until the first chart is drawn. Reported, in seconds from the navigation:
the websocket's opening and the first chart, the renderer main thread's tasks over 50 ms
(when and how long), and the trace's largest totals by kind of work and script (V8's
parse on a background thread, module evaluation, function calls, layout).

Run: ``python benchmarks/first_visit_trace.py [--only Learn Loss_intervals]``; writes
``benchmarks/results/first_visit_trace.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from _common import ROOT, free_port, machine, start_server, stop_server, write
from browser_helpers import CHART, CHROMIUM, CHROMIUM_ARGS, sync_playwright

KINDS = (
    "v8.parseOnBackground",
    "v8.compile",
    "v8.compileModule",
    "v8.evaluateModule",
    "EvaluateScript",
    "FunctionCall",
    "ParseHTML",
    "UpdateLayoutTree",
    "Layout",
    "Paint",
)
CATEGORIES = [
    "devtools.timeline",
    "v8",
    "disabled-by-default-devtools.timeline",
    "blink.user_timing",  # navigationStart: the origin of the times
    "loading",
]


def trace(path: str) -> dict:
    """One traced first visit of ``path`` (e.g. ``/Learn``) from a fresh server."""
    port = free_port()
    log = Path(tempfile.gettempdir()) / f"first_visit_trace_{port}.log"
    server = start_server(port, log, ROOT, timeout=300)
    out_file = Path(tempfile.gettempdir()) / f"first_visit_trace_{port}.json"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            opened: list[float] = []
            page.on("websocket", lambda ws: opened.append(time.perf_counter()))
            load = os.getloadavg()[0]
            browser.start_tracing(page=page, path=str(out_file), categories=CATEGORIES)
            t0 = time.perf_counter()
            page.goto(f"http://127.0.0.1:{port}{path}", timeout=300_000)
            page.wait_for_selector(CHART, timeout=300_000)
            chart = time.perf_counter() - t0
            browser.stop_tracing()
            browser.close()
    finally:
        stop_server(server)
    events = json.loads(out_file.read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    starts = [e["ts"] for e in events if e.get("name") == "navigationStart"]
    origin = min(starts) if starts else min(e["ts"] for e in events if "ts" in e)
    tasks = [e for e in events if e.get("name") == "RunTask" and e.get("ph") == "X"]
    counts: dict[int, int] = defaultdict(int)
    for e in tasks:
        counts[e["tid"]] += e.get("dur", 0)
    main = max(counts, key=counts.get) if counts else None  # the busiest: the renderer's
    long = [
        [round((e["ts"] - origin) / 1e6, 3), round(e["dur"] / 1e6, 3)]
        for e in sorted(tasks, key=lambda e: e["ts"])
        if e["tid"] == main and e.get("dur", 0) > 50_000
    ]
    totals: dict[str, float] = defaultdict(float)
    for e in events:
        if e.get("ph") == "X" and e.get("name") in KINDS:
            data = (e.get("args") or {}).get("data") or {}
            url = data.get("url", "") if isinstance(data, dict) else ""
            name = e["name"] + (f" {url.rsplit('/', 1)[-1]}" if url else "")
            totals[name] += e.get("dur", 0) / 1e6
    out_file.unlink(missing_ok=True)
    top = sorted(totals.items(), key=lambda kv: -kv[1])[:12]
    return {
        "load_1min": round(load, 2),
        "websocket": round(opened[0] - t0, 3) if opened else None,
        "first chart": round(chart, 3),
        "main thread tasks over 50 ms [start, seconds]": long,
        "largest totals (s)": {k: round(v, 3) for k, v in top},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=["Learn", "Loss_intervals"])
    args = ap.parse_args()
    got = {}
    for name in args.only:
        path = "/" if name == "home" else f"/{name}"
        got[path] = trace(path)
        print(path, json.dumps(got[path]), flush=True)
    lines = [
        "# Where a first visit's time goes in Chromium (`python benchmarks/first_visit_trace.py`)",
        "",
        f"A fresh server per URL, one traced visit, Chromium at 1400×900; {machine()['cpus']} "
        "CPUs (the server's warm-up and Chromium share them). Seconds from the navigation.",
    ]
    for path, r in got.items():
        long = r["main thread tasks over 50 ms [start, seconds]"]
        tasks = ", ".join(f"{a:.2f} (+{d:.2f})" for a, d in long)
        lines += [
            "",
            f"## `{path}` (load {r['load_1min']})",
            "",
            f"Websocket open at {r['websocket']} s, first chart at {r['first chart']} s. "
            f"Main-thread tasks over 50 ms: {tasks or 'none'}.",
            "",
            "| work | seconds |",
            "|---|---|",
            *[f"| {k} | {v:.3f} |" for k, v in r["largest totals (s)"].items()],
        ]
    write("first_visit_trace", {"machine": machine(), "urls": got}, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
