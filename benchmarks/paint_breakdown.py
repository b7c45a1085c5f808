"""Where a cached redraw's paint goes, in Chromium: a trace of the browser's main thread
from the change to the page drawn.

The loss page's default view is opened in headless Chromium at
1400×900 on a fresh server of this tree (``--root``), each change of ``--changes`` made and
put back (the second: a cached redraw, as ``control_reruns.py`` paints them), and Chromium's
trace recorded around each put-back. For each, in ms from the change (Enter, or the click):

- **messages**: the websocket messages the server sent (their count, bytes, the first's and
  the last's arrival);
- **main thread**: its busy time, by what it did: JavaScript, by the file it ran in
  (Streamlit's bundle, the Plotly chunk, ...: the trace's CPU samples), garbage collection,
  style, layout, paint and compositing (the trace's own events, self time);
- **charts redrawn**: how many of the page's Plotly charts had their SVG changed, of how
  many;
- **DOM mutations**: the mutation records in the page.

Run: ``python benchmarks/paint_breakdown.py [--root TREE] [--rounds 2] [--name NAME]``;
writes ``benchmarks/results/paint_breakdown.{json,md}`` (or ``NAME``).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from _common import RESULTS, ROOT, free_port, machine, start_server, stop_server, write
from browser_helpers import CHROMIUM, CHROMIUM_ARGS, sync_playwright
from control_reruns import _SETTLED, _WATCH, _wait_until_idle

CHANGES = {
    "loss": (
        "Loss_intervals",
        (
            ("t", "21", "20"),
            ("sigma_max", "3.4", "3.3"),
            ("n", "110", "100"),
            ("points", "41", "40"),
        ),
    ),
}
"""Page → (URL path, changes of its number boxes (key, new value, the value put back))."""

_IN_PAGE = """
window.sslvizMsgs = [];
const Socket = window.WebSocket;
window.WebSocket = new Proxy(Socket, { construct(target, args) {
  const ws = new target(...args);
  ws.addEventListener('message', e => window.sslvizMsgs.push(
    [performance.now(), e.data.byteLength ?? e.data.size ?? e.data.length]));
  return ws;
}});
window.sslvizMutations = 0;
new MutationObserver(r => { window.sslvizMutations += r.length; })
  .observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
"""
"""In the page from its start: every websocket message's arrival (ms since navigation) and
size, and a count of DOM mutation records."""

_CHARTS = """() => [...document.querySelectorAll('.js-plotly-plot')].map(c => {
  const seen = c.sslvizSeen === true;
  c.sslvizSeen = true;
  return seen; })"""
"""For each Plotly chart on the page, whether it was there at the last call (Streamlit draws a
changed figure as a new chart: ``Plotly.newPlot`` in a new element)."""

CATEGORIES = ",".join(
    (
        "devtools.timeline",
        "disabled-by-default-devtools.timeline",
        "v8",
        "v8.execute",
        "disabled-by-default-v8.cpu_profiler",
        "blink.console",
    )
)

KINDS = {
    "style": {"UpdateLayoutTree", "RecalculateStyles", "ParseAuthorStyleSheet"},
    "layout": {"Layout", "UpdateLayout"},
    "paint, compositing": {
        "Paint",
        "PrePaint",
        "Layerize",
        "UpdateLayer",
        "CompositeLayers",
        "Commit",
        "PaintImage",
        "RasterTask",
        "UpdateLayerTree",
    },
    "garbage collection": {
        "MinorGC",
        "MajorGC",
        "V8.GCScavenger",
        "V8.GCFinalizeMC",
        "BlinkGC.AtomicPhase",
    },
    "parse, compile": {"ParseHTML", "v8.compile", "V8.CompileCode", "v8.parseOnBackground"},
}


def _main_thread(events: list[dict]) -> tuple[int, int]:
    """(pid, tid) of the page's renderer main thread."""
    for e in events:
        if e.get("name") == "thread_name" and e["args"].get("name") == "CrRendererMain":
            return e["pid"], e["tid"]
    raise RuntimeError("no renderer main thread in the trace")


def _self_times(events: list[dict], pid: int, tid: int, t0: float, t1: float) -> dict:
    """Self time (ms) by event name of the complete events on the main thread in [t0, t1]
    (µs, the trace's clock)."""
    spans = sorted(
        (e["ts"], e["ts"] + e.get("dur", 0), e["name"])
        for e in events
        if e.get("ph") == "X" and e["pid"] == pid and e["tid"] == tid and t0 <= e["ts"] <= t1
    )
    own: dict[str, float] = collections.defaultdict(float)
    stack: list[list] = []  # [end, name, child time]

    def close(entry: list) -> None:
        end, name, child, start = entry
        own[name] += (end - start - child) / 1000
        if stack:
            stack[-1][2] += end - start

    for start, end, name in spans:
        while stack and stack[-1][0] <= start:
            close(stack.pop())
        stack.append([end, name, 0.0, start])
    while stack:
        close(stack.pop())
    return dict(own)


def _js_by_file(events: list[dict], pid: int, tid: int, t0: float, t1: float) -> dict:
    """JavaScript self time (ms) in [t0, t1] by the file of the function sampled (the CPU
    profile's samples on the main thread): Streamlit's chunk file name, or '(program)',
    '(garbage collector)', '(idle)'."""
    profiles = {
        e.get("id"): e["args"]["data"].get("startTime", e["ts"])
        for e in events
        if e.get("name") == "Profile" and e.get("pid") == pid and e.get("tid") == tid
    }
    nodes: dict[int, str] = {}
    out: dict[str, float] = collections.defaultdict(float)
    clocks = dict(profiles)
    for e in events:  # the chunks come from the sampler's thread, under the profile's id
        if e.get("name") != "ProfileChunk" or e.get("id") not in profiles:
            continue
        data = e["args"]["data"]
        for node in data.get("cpuProfile", {}).get("nodes", []):
            frame = node["callFrame"]
            url = frame.get("url") or ""
            nodes[node["id"]] = url.rsplit("/", 1)[-1].split("?")[0] or frame["functionName"]
        samples = data.get("cpuProfile", {}).get("samples", [])
        for node, delta in zip(samples, data.get("timeDeltas", []), strict=False):
            clocks[e["id"]] += delta
            if t0 <= clocks[e["id"]] <= t1:
                out[nodes.get(node, "?")] += delta / 1000
    return dict(out)


def _stamps(events: list[dict]) -> dict[str, float]:
    """The trace time (µs) of each ``console.timeStamp`` the page made, by its message."""
    out = {}
    for e in events:
        if e.get("name") == "TimeStamp":
            out[e["args"]["data"]["message"]] = e["ts"]
    return out


def _summary(trace: dict, start: str, end: str) -> dict:
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    stamps = _stamps(events)
    t0, t1 = stamps[start], stamps[end]
    pid, tid = _main_thread(events)
    own = _self_times(events, pid, tid, t0, t1)
    kinds = {k: round(sum(own.get(n, 0.0) for n in names), 1) for k, names in KINDS.items()}
    js = _js_by_file(events, pid, tid, t0, t1)
    busy = sum(v for k, v in js.items() if k not in ("(idle)",))
    return {
        "span_ms": round((t1 - t0) / 1000, 1),
        "kinds_ms": kinds,
        "samples_ms": {k: round(v, 1) for k, v in sorted(js.items(), key=lambda kv: -kv[1])},
        "busy_ms": round(busy, 1),
    }


def breakdown(root: Path, page_name: str, rounds: int) -> list[dict]:
    """Every put-back of ``CHANGES[page_name]``, ``rounds`` times, traced."""
    path, changes = CHANGES[page_name]
    port = free_port()
    log = RESULTS / "paint_breakdown_server.log"
    server = start_server(port, log, root, env=os.environ | {"PYTHONPATH": str(root)})
    out = []
    try:
        with sync_playwright() as p, tempfile.TemporaryDirectory() as tmp:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.add_init_script(_IN_PAGE)
            page.goto(f"http://127.0.0.1:{port}/{path}", timeout=180_000)
            page.wait_for_selector(".js-plotly-plot", timeout=180_000)
            page.wait_for_function(_SETTLED, timeout=180_000)
            _wait_until_idle(server)
            for r in range(rounds):
                for key, new, back in changes:
                    field = page.locator(f".st-key-w_{key} input").first
                    for value, traced in ((new, False), (back, True)):
                        field.fill(value)
                        page.evaluate(_WATCH)
                        charts = page.evaluate(_CHARTS)
                        before = page.evaluate("[window.sslvizMsgs.length, window.sslvizMutations]")
                        if traced:
                            trace = Path(tmp) / "trace.json"
                            browser.start_tracing(
                                page=page, path=str(trace), categories=[CATEGORIES]
                            )
                            time.sleep(0.2)
                        page.evaluate("console.timeStamp('sslviz change')")
                        t0 = page.evaluate("performance.now()")
                        field.press("Enter")
                        page.evaluate("() => window.sslvizRerun", None)
                        page.evaluate("console.timeStamp('sslviz drawn')")
                        t1 = page.evaluate("performance.now()")
                        if traced:
                            time.sleep(0.2)
                            browser.stop_tracing()
                            row = _row(page, key, back, r, t0, t1, before, charts, trace)
                            out.append(row)
                            print(json.dumps(row), flush=True)
                        page.wait_for_function(_SETTLED, timeout=180_000)
                        _wait_until_idle(server)
            browser.close()
    finally:
        stop_server(server)
    return out


def _row(page, key, value, r, t0, t1, before, charts, trace: Path) -> dict:
    msgs = page.evaluate("window.sslvizMsgs")[before[0] :]
    mutations = page.evaluate("window.sslvizMutations") - before[1]
    after = page.evaluate(_CHARTS)
    redrawn = after.count(False)
    return {
        "change": f"{key} back to {value}",
        "round": r,
        "paint_ms": round(t1 - t0, 1),
        "messages": len(msgs),
        "bytes": sum(m[1] or 0 for m in msgs),
        "first_message_ms": round(msgs[0][0] - t0, 1) if msgs else None,
        "last_message_ms": round(msgs[-1][0] - t0, 1) if msgs else None,
        "charts": len(after),
        "charts_redrawn": redrawn,
        "mutations": mutations,
        **_summary(json.loads(trace.read_text()), "sslviz change", "sslviz drawn"),
    }


def report(rows: list[dict], name: str, args: argparse.Namespace) -> None:
    by: dict[str, list[dict]] = collections.defaultdict(list)
    for row in rows:
        by[row["change"]].append(row)
    files = collections.Counter()
    for row in rows:
        for k, v in row["samples_ms"].items():
            files[k] += v
    top = [k for k, _ in files.most_common(6) if k != "(idle)"]
    med = statistics.median
    md = [
        f"# Where a cached redraw's paint goes (`python benchmarks/paint_breakdown.py "
        f"--page {args.page} --rounds {args.rounds}`)",
        "",
        f"Chromium at 1400×900 (headless, on the server's {machine()['cpus']} CPUs), the "
        f"page's default view; each control changed and put back, the put-back traced. "
        "Medians over the rounds, ms from the change: the paint (to the script run and "
        "stopped and two frames drawn), the websocket messages' first and last arrival, the "
        "main thread's busy time and where it went (JavaScript by its file: the CPU "
        "profile's samples; the rest: the trace's own events, self time). Traced, with the CPU "
        "profiler on, everything takes longer than untraced (`paint_floor.py` times it untraced): "
        "the shares are what this says.",
        "",
        "| change | paint | messages (bytes) | first, last message | charts redrawn | busy | "
        + " | ".join(top)
        + " | style | layout | paint, compositing |",
        "|---|---|---|---|---|---|" + "---|" * len(top) + "---|---|---|",
    ]
    for change, rs in by.items():
        md.append(
            f"| {change} | {med(r['paint_ms'] for r in rs):.0f} | "
            f"{med(r['messages'] for r in rs):.0f} ({med(r['bytes'] for r in rs):,.0f}) | "
            f"{med(r['first_message_ms'] or 0 for r in rs):.0f}, "
            f"{med(r['last_message_ms'] or 0 for r in rs):.0f} | "
            f"{med(r['charts_redrawn'] for r in rs):.0f} of {rs[0]['charts']} | "
            f"{med(r['busy_ms'] for r in rs):.0f} | "
            + " | ".join(f"{med(r['samples_ms'].get(k, 0) for r in rs):.0f}" for k in top)
            + " | "
            + " | ".join(
                f"{med(r['kinds_ms'][k] for r in rs):.0f}"
                for k in ("style", "layout", "paint, compositing")
            )
            + " |"
        )
    write(
        name,
        {"machine": machine(), "load_1min": os.getloadavg()[0], "rows": rows},
        "\n".join(md) + "\n",
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=ROOT)
    ap.add_argument("--page", choices=sorted(CHANGES), default="loss")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--name", default="paint_breakdown")
    args = ap.parse_args()
    report(breakdown(args.root, args.page, args.rounds), args.name, args)


if __name__ == "__main__":
    main()
