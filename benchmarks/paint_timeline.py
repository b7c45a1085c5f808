"""Where the time of a redraw goes, server against browser: a timeline of
t changes on the default loss view in Chromium, with Streamlit's post-run garbage
collection on (Streamlit's default) and off (the app's ``.streamlit/config.toml``), in
one run.

For each setting, a ``streamlit run app.py`` of this tree on a free local port (the setting
given as ``STREAMLIT_RUNNER_POST_SCRIPT_GC``), the loss page open in headless Chromium at
1400×900, then t typed and Enter pressed ``--changes`` times (values not drawn before, so
every change computes). Recorded per change, in seconds from Enter:

- the server's script runs (start, end) and each post-run ``gc.collect`` (a
  ``sitecustomize`` on the server's PYTHONPATH logs them; it changes nothing else);
- the browser's script state going back to "not running" (a MutationObserver);
- "drawn": the state back to "not running" and two frames drawn after it (as
  ``control_reruns.py`` measures the paint);
- "settled": the time per interval shown and the page idle.

Run: ``python benchmarks/paint_timeline.py [--changes 4] [--rounds 2]``; writes
``benchmarks/results/paint_timeline.{json,md}``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from _common import RESULTS, ROOT, free_port, machine, start_server, stop_server, write
from control_reruns import _SETTLED, _WATCH

_HOOK = """
import builtins, gc, sys, time
_log = open({log!r}, "a", buffering=1)
_collect = gc.collect
def _timed_collect(*a, **k):
    t = time.time(); out = _collect(*a, **k)
    _log.write(f"{{t:.4f}} gc {{time.time() - t:.4f}}\\n"); return out
gc.collect = _timed_collect
_import = builtins.__import__
def _hook(name, *a, **k):
    module = _import(name, *a, **k)
    runner = sys.modules.get("streamlit.runtime.scriptrunner.script_runner")
    if builtins.__import__ is _hook and hasattr(runner, "ScriptRunner"):  # once
        builtins.__import__ = _import
        run = runner.ScriptRunner._run_script
        def _logged(self, rerun_data):
            t = time.time()
            try:
                return run(self, rerun_data)
            finally:
                _log.write(f"{{t:.4f}} run {{time.time() - t:.4f}}\\n")
        runner.ScriptRunner._run_script = _logged
    return module
builtins.__import__ = _hook
"""
"""The server's ``sitecustomize``: logs each script run (start, seconds) and each
``gc.collect`` (start, seconds), wall clock."""

_STATES = """() => { window.sslvizStates = [];
  const app = document.querySelector('[data-testid=stApp]');
  new MutationObserver(() => {
    const s = app.getAttribute('data-test-script-state');
    const log = window.sslvizStates;
    if (!log.length || log[log.length - 1][1] !== s) log.push([Date.now() / 1000, s]);
  }).observe(app, {attributes: true, attributeFilter: ['data-test-script-state']}); }"""
"""Logs the app's script state changes (wall clock, seconds) in ``window.sslvizStates``."""


def timeline(gc_after_run: bool, changes: int, first_t: int) -> list[dict]:
    """The timeline of ``changes`` t changes, from ``first_t`` up, on a fresh server."""
    from browser_helpers import CHROMIUM, sync_playwright

    work = Path(tempfile.mkdtemp(prefix="sslviz_paint_"))
    log = work / "server_events.log"
    (work / "sitecustomize.py").write_text(_HOOK.format(log=str(log)))
    env = os.environ | {
        "PYTHONPATH": os.pathsep.join([str(work), str(ROOT)]),
        "STREAMLIT_RUNNER_POST_SCRIPT_GC": str(gc_after_run).lower(),
    }
    port = free_port()
    server = start_server(port, RESULTS / "paint_timeline_server.log", ROOT, env=env)
    out = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(f"http://127.0.0.1:{port}/Loss_intervals", timeout=120_000)
            page.wait_for_selector(".js-plotly-plot", timeout=120_000)
            page.wait_for_function(_SETTLED, timeout=120_000)
            time.sleep(1.0)
            for t in range(first_t, first_t + changes):
                field = page.locator(".st-key-w_t input").first
                field.fill(str(t))
                page.evaluate(_WATCH)
                page.evaluate(_STATES)
                log.write_text("")
                enter = time.time()
                field.press("Enter")
                page.evaluate("() => window.sslvizRerun", None)
                drawn = time.time() - enter
                page.wait_for_function(_SETTLED, timeout=120_000)
                settled = time.time() - enter
                time.sleep(0.5)  # the server's log of this change complete
                states = page.evaluate("() => window.sslvizStates")
                events = [line.split() for line in log.read_text().splitlines()]
                runs = [(float(s) - enter, float(d)) for s, kind, d in events if kind == "run"]
                gcs = [float(d) for _, kind, d in events if kind == "gc"]
                idle = [s - enter for s, state in states if state == "notRunning"]
                out.append(
                    {
                        "t": t,
                        "server_runs": runs,
                        "gc_seconds": gcs,
                        "first_run_end": runs[0][0] + runs[0][1] if runs else None,
                        "browser_not_running": idle[0] if idle else None,
                        "drawn": drawn,
                        "settled": settled,
                    }
                )
            browser.close()
    finally:
        stop_server(server)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--changes", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    settings = {"gc after every run (Streamlit's default)": True, "no gc after a run": False}
    changes: dict[str, list[dict]] = {name: [] for name in settings}
    for r in range(args.rounds):
        for name, gc_on in settings.items():  # alternating: the machine is shared
            changes[name] += timeline(gc_on, args.changes, first_t=21 + r * args.changes)

    def med(rows: list[dict], key: str) -> str:
        vals = [row[key] for row in rows if row[key] is not None]
        return f"{statistics.median(vals):.2f}" if vals else "–"

    def runs_text(rows: list[dict]) -> str:
        first = [row["server_runs"][0][1] for row in rows if row["server_runs"]]
        count = [len(row["server_runs"]) for row in rows]
        gcs = [g for row in rows for g in row["gc_seconds"]]
        gc_text = f"{statistics.median(gcs):.2f}" if gcs else "none"
        return f"{statistics.median(first):.2f} | {statistics.median(count):g} | {gc_text}"

    lines = [
        "# A t change on the default loss view in Chromium: the server's runs against the "
        "browser's drawing",
        "",
        f"Command: `python benchmarks/paint_timeline.py --changes {args.changes} --rounds "
        f"{args.rounds}` (1400×900, headless Chromium and the server on the same "
        f"{os.cpu_count()} CPUs; medians over {args.changes * args.rounds} changes, each to a "
        "t not drawn before; seconds from Enter). The page's own run draws the page; its "
        "timing fragment then runs and reruns the page, which shows the time per interval.",
        "",
        "| setting | first run (s) | server runs per change | post-run gc (s) | first run "
        "ends | browser not running | drawn | settled |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, rows in changes.items():
        lines.append(
            f"| {name} | {runs_text(rows)} | {med(rows, 'first_run_end')} | "
            f"{med(rows, 'browser_not_running')} | {med(rows, 'drawn')} | "
            f"{med(rows, 'settled')} |"
        )
    payload = {"machine": machine(), "changes": changes}
    write("paint_timeline", payload, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
