"""The floor under a cached redraw's paint: how soon Streamlit redraws a page on this machine
when a number box changes to a value drawn before, with nothing, many elements or the loss
view's two charts on it, against the app's own loss page.

In turns, in one run, headless Chromium at 1400×900 on a fresh server of each of:

- ``a number box``: a one-widget app (``st.number_input`` and one line of text, its script
  run made 0.05 s long, about as long as the loss page's cached run): Streamlit's own round
  trip (the change sent, the script run, its messages drawn) with nothing of the app in it
  (a run much shorter than that is drawn without the page's running state ever set, which
  is what the paint is timed by);
- ``a number box, 60 text elements``: the same with 60 lines of text under it (the loss page
  has about as many elements): what Streamlit's elements cost;
- ``a number box, the loss view's two charts``: the same with the two Plotly charts the loss
  page's default view draws, as the page draws them for t = 20 and t = 21 (captured from
  the page in AppTest): a changed figure is a new chart to Streamlit (its id includes the
  figure), drawn afresh by ``Plotly.newPlot``;
- ``sslviz loss page``: the app's loss page, its default view.

Each visit: the page drawn and the server idle, t set to 21 (computed in the app), then
``--changes`` times back and forth between 20 and 21, each a cached redraw, timed as
``control_reruns.py`` paints (from Enter to the script run and stopped and two frames
drawn). Medians (smallest) of all cached redraws, in s; the 1-minute load average before
each visit.

Run: ``python benchmarks/paint_floor.py [--rounds 3] [--changes 4]``; writes
``benchmarks/results/paint_floor.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, free_port, last_json, machine, start_server, stop_server, write
from browser_helpers import CHROMIUM, CHROMIUM_ARGS, sync_playwright
from control_reruns import _SETTLED, _WATCH, _wait_until_idle

_RAN = """() => Promise.race([
  window.sslvizRerun, new Promise(done => setTimeout(() => done(false), 5000))])"""
"""Whether the change ran the script (resolved after it has run and two frames are drawn), or
false after 5 s: an Enter that the page took before its number box was ready ran nothing (a
one-widget app's first change, now and then); it is made again."""

LOG = ROOT / "benchmarks" / "results" / "paint_floor_server.log"

BOX = """import json
import time
from pathlib import Path

import streamlit as st

t = st.number_input("t", value=20, step=1, key="w_t")
time.sleep(0.05)  # as long as the loss page's cached run takes, about
st.markdown(f"t = {t}")
"""
TEXT = BOX + 'for i in range(60):\n    st.markdown(f"line {i}: t = {t}")\n'
CHARTS = (
    BOX
    + """figures = json.loads((Path(__file__).parent / "figures.json").read_text())
for i, fig in enumerate(figures[str(int(t))]):
    st.plotly_chart(fig, key=f"chart_{i}")
"""
)
CASES = {
    "a number box": BOX,
    "a number box, 60 text elements": TEXT,
    "a number box, the loss view's two charts": CHARTS,
    "sslviz loss page": None,
}


def capture() -> dict[str, list[dict]]:
    """The loss page's two figures (their JSON, as ``st.plotly_chart`` is given them) for
    t = 20 (its default) and t = 21, in AppTest."""
    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    from apptest_helpers import start

    def figures(at) -> list[dict]:
        return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]

    at = start("pages/Loss_intervals.py")
    out = {"20": figures(at)}
    at.number_input(key="w_t").set_value(21).run(timeout=300)
    out["21"] = figures(at)
    return out


def _tree(tmp: Path, name: str, source: str, figures: dict) -> Path:
    d = tmp / name
    (d / ".streamlit").mkdir(parents=True)
    (d / "app.py").write_text(source)
    (d / "figures.json").write_text(json.dumps(figures))
    config = (ROOT / ".streamlit" / "config.toml").read_text()
    (d / ".streamlit" / "config.toml").write_text(config)
    return d


def visit(browser, port: int, server, path: str, changes: int) -> list[float]:
    """The seconds of ``changes`` cached redraws (t between 20 and 21) on ``/<path>``."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        page.goto(f"http://127.0.0.1:{port}/{path}", timeout=180_000)
        page.wait_for_selector("[data-testid=stNumberInput]", timeout=180_000)
        page.wait_for_function(_SETTLED, timeout=180_000)
        _wait_until_idle(server)
        field = page.locator(".st-key-w_t input").first
        out, value, tries = [], 21, 0
        while len(out) < changes + 1:
            tries += 1
            if tries > 2 * changes + 4:
                raise RuntimeError(f"/{path}: {tries - 1} Enters ran the script {len(out)} times")
            field.fill(str(value))
            page.evaluate(_WATCH)
            t0 = time.perf_counter()
            field.press("Enter")
            if page.evaluate(_RAN, None):
                out.append(time.perf_counter() - t0)
                value = 41 - value
            page.wait_for_function(_SETTLED, timeout=180_000)
            _wait_until_idle(server)
        return out[1:]  # the first computes 21
    finally:
        page.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--changes", type=int, default=4)
    ap.add_argument("--capture", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.capture:
        print(json.dumps(capture()))
        return
    argv = [sys.executable, __file__, "--capture"]
    figures = last_json(argv, ROOT, os.environ | {"PYTHONPATH": str(ROOT)})
    LOG.parent.mkdir(parents=True, exist_ok=True)
    runs: dict[str, list[float]] = {c: [] for c in CASES}
    loads: dict[str, list[float]] = {c: [] for c in CASES}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        trees = {
            c: _tree(Path(tmp), f"case{i}", s, figures)
            for i, (c, s) in enumerate(CASES.items())
            if s is not None
        }
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for _ in range(args.rounds):
                for case in CASES:
                    loads[case].append(round(os.getloadavg()[0], 2))
                    port = free_port()
                    proc = start_server(port, LOG, root=trees.get(case, ROOT))
                    try:
                        path = "Loss_intervals" if case == "sslviz loss page" else ""
                        runs[case] += visit(browser, port, proc, path, args.changes)
                    finally:
                        stop_server(proc)
                    print(case, [round(s, 3) for s in runs[case]], flush=True)
        finally:
            browser.close()
    report(runs, loads, args)


def report(runs: dict, loads: dict, args: argparse.Namespace) -> None:
    """Write every case's median and smallest to ``paint_floor.{json,md}``."""
    table = {
        case: {"median": statistics.median(s), "min": min(s), "n": len(s), "load_1min": loads[case]}
        for case, s in runs.items()
    }
    md = [
        "# The floor under a cached redraw (`python benchmarks/paint_floor.py"
        f" --rounds {args.rounds} --changes {args.changes}`)",
        "",
        f"Headless Chromium at 1400×900, a fresh server per visit, the cases in turns "
        f"({args.rounds} rounds, {args.changes} cached redraws each: t back and forth between "
        f"20 and 21); seconds from Enter to the script run and stopped and two frames drawn. "
        f"Machine: {machine()['cpus']} CPUs, shared (1-minute load average before each visit).",
        "",
        "| page | cached redraw: median | smallest | redraws | load average |",
        "|---|---|---|---|---|",
        *(
            f"| {case} | {r['median']:.2f} | {r['min']:.2f} | {r['n']} | "
            f"{', '.join(map(str, r['load_1min']))} |"
            for case, r in table.items()
        ),
    ]
    write(
        "paint_floor",
        {"machine": machine(), "rounds": args.rounds, "cases": table, "runs": runs},
        "\n".join(md) + "\n",
    )


if __name__ == "__main__":
    main()
