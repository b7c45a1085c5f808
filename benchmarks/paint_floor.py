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
- ``a number box, the two charts redrawn by Plotly.react``: the same two figures drawn by a
  ``st.components.v2`` component of a few lines (keyed, so it stays the same element from
  run to run) that hands each new figure to ``Plotly.react`` on the chart already drawn
  (Plotly's own ``plotly.min.js`` from the plotly package, served as a static file): what
  the charts would cost if a changed figure updated its chart instead of replacing it. It
  draws without Streamlit's Plotly theme (fonts, bold titles): a measurement, not the app;
- ``sslviz loss page``: the app's loss page, its default view.

Each visit: the page drawn and the server idle, t set to 21 (computed in the app), then
``--changes`` times back and forth between 20 and 21, each a cached redraw, timed as
``control_reruns.py`` paints (from Enter to the script run and stopped and two frames
drawn), and to the main area's last DOM change (a MutationObserver on it, read
:data:`QUIET` s later: a chart drawn after those two frames would show here). Medians
(smallest) of all cached redraws, in s; the 1-minute load average before each visit.

``--old REV``: also the loss page of the tree at git revision ``REV``, in turns with the rest
(old against new in one run).

Run: ``python benchmarks/paint_floor.py [--rounds 3] [--changes 4] [--only CASE...]
[--old REV]``; writes
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

import plotly
from _common import (
    ROOT,
    free_port,
    last_json,
    machine,
    old_tree,
    start_server,
    stop_server,
    write,
)
from browser_helpers import CHROMIUM, CHROMIUM_ARGS, sync_playwright
from control_reruns import _SETTLED, _WATCH, _wait_until_idle

_RAN = """() => Promise.race([
  window.sslvizRerun, new Promise(done => setTimeout(() => done(false), 5000))])"""
"""Whether the change ran the script (resolved after it has run and two frames are drawn), or
false after 5 s: an Enter that the page took before its number box was ready ran nothing (a
one-widget app's first change, now and then); it is made again."""

_LAST = """() => { window.sslvizT0 = performance.now(); window.sslvizLast = window.sslvizT0;
  if (window.sslvizLastSeen) window.sslvizLastSeen.disconnect();
  window.sslvizLastSeen = new MutationObserver(() => { window.sslvizLast = performance.now(); });
  window.sslvizLastSeen.observe(document.querySelector('[data-testid=stMain]'),
    {subtree: true, childList: true, attributes: true, characterData: true}); }"""
"""Keeps in ``window.sslvizLast`` the time of the main area's last DOM change since now."""
QUIET = 1.5
"""Seconds waited after a paint before the main area's last DOM change is read."""

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
REACT_JS = """
let loading = null;
function plotly() {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!loading) loading = new Promise((ok, fail) => {
    const s = document.createElement("script");
    s.src = "./app/static/plotly.min.js";
    s.onload = () => ok(window.Plotly);
    s.onerror = fail;
    document.head.appendChild(s);
  });
  return loading;
}
export default function({ data, parentElement }) {
  let div = parentElement.querySelector("div.chart");
  if (!div) {
    div = document.createElement("div");
    div.className = "chart";
    parentElement.appendChild(div);
  }
  plotly().then(P => P.react(div, data.data, data.layout, {displayModeBar: false}));
}
"""
REACT = (
    BOX
    + f"""figures = json.loads((Path(__file__).parent / "figures.json").read_text())
chart = st.components.v2.component("react_chart", js={REACT_JS!r}, isolate_styles=False)
for i, fig in enumerate(figures[str(int(t))]):
    chart(data=fig, key=f"chart_{{i}}")
"""
)
CASES = {
    "a number box": BOX,
    "a number box, 60 text elements": TEXT,
    "a number box, the loss view's two charts": CHARTS,
    "a number box, the two charts redrawn by Plotly.react": REACT,
    "sslviz loss page": None,
}


def capture() -> dict[str, list[dict]]:
    """The loss page's two figures (their JSON, as ``st.plotly_chart`` is given them) for
    t = 20 (its default) and t = 21, in AppTest."""
    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    import plotly.io as pio
    from apptest_helpers import chart, charts, start

    from sslviz.plots.style import TEMPLATE

    template = pio.templates[TEMPLATE].to_plotly_json()

    def figures(at) -> list[dict]:  # with the template the app's chart element leaves out
        out = [chart(at, i) for i in range(len(charts(at)))]
        for fig in out:
            fig["layout"]["template"] = template
        return out

    at = start("pages/Loss_intervals.py")
    out = {"20": figures(at)}
    at.number_input(key="w_t").set_value(21).run(timeout=300)
    out["21"] = figures(at)
    return out


def _tree(tmp: Path, name: str, source: str, figures: dict) -> Path:
    """An app directory for ``source``: the app's config, the captured figures and, for
    :data:`REACT` alone, Plotly's ``plotly.min.js`` served as a static file."""
    d = tmp / name
    (d / ".streamlit").mkdir(parents=True)
    (d / "app.py").write_text(source)
    (d / "figures.json").write_text(json.dumps(figures))
    config = (ROOT / ".streamlit" / "config.toml").read_text()
    if source is REACT:
        config = config.replace("[server]\n", "[server]\nenableStaticServing = true\n")
        (d / "static").mkdir()
        js = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
        (d / "static" / "plotly.min.js").write_bytes(js.read_bytes())
    (d / ".streamlit" / "config.toml").write_text(config)
    return d


def visit(browser, port: int, server, path: str, changes: int) -> tuple[list[float], list[float]]:
    """The seconds of ``changes`` cached redraws (t between 20 and 21) on ``/<path>``: to
    the paint, and to the main area's last DOM change."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        page.goto(f"http://127.0.0.1:{port}/{path}", timeout=180_000)
        page.wait_for_selector("[data-testid=stNumberInput]", timeout=180_000)
        page.wait_for_function(_SETTLED, timeout=180_000)
        _wait_until_idle(server)
        field = page.locator(".st-key-w_t input").first
        out, last, value, tries = [], [], 21, 0
        while len(out) < changes + 1:
            tries += 1
            if tries > 2 * changes + 4:
                raise RuntimeError(f"/{path}: {tries - 1} Enters ran the script {len(out)} times")
            field.fill(str(value))
            page.evaluate(_WATCH)
            page.evaluate(_LAST)
            t0 = time.perf_counter()
            field.press("Enter")
            if page.evaluate(_RAN, None):
                out.append(time.perf_counter() - t0)
                time.sleep(QUIET)
                last.append(page.evaluate("() => (window.sslvizLast - window.sslvizT0) / 1000"))
                value = 41 - value
            page.wait_for_function(_SETTLED, timeout=180_000)
            _wait_until_idle(server)
        return out[1:], last[1:]  # the first computes 21
    finally:
        page.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--changes", type=int, default=4)
    ap.add_argument("--capture", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--only", nargs="+", choices=list(CASES), help="run only these cases")
    ap.add_argument("--old", help="also the loss page of this git revision's tree, in turns")
    args = ap.parse_args()
    cases = {c: s for c, s in CASES.items() if not args.only or c in args.only}
    old = f"sslviz loss page at {args.old}" if args.old else None
    if old:
        cases[old] = None
    if args.capture:
        print(json.dumps(capture()))
        return
    argv = [sys.executable, __file__, "--capture"]
    figures = last_json(argv, ROOT, os.environ | {"PYTHONPATH": str(ROOT)})
    LOG.parent.mkdir(parents=True, exist_ok=True)
    runs: dict[str, list[float]] = {c: [] for c in cases}
    lasts: dict[str, list[float]] = {c: [] for c in cases}
    loads: dict[str, list[float]] = {c: [] for c in cases}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        trees = {
            c: _tree(Path(tmp), f"case{i}", s, figures)
            for i, (c, s) in enumerate(cases.items())
            if s is not None
        }
        if old:
            trees[old] = old_tree(args.old)
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for _ in range(args.rounds):
                for case in cases:
                    loads[case].append(round(os.getloadavg()[0], 2))
                    port = free_port()
                    root = trees.get(case, ROOT)
                    env = os.environ | {"PYTHONPATH": str(root)}
                    proc = start_server(port, LOG, root=root, env=env)
                    try:
                        path = "Loss_intervals" if case.startswith("sslviz loss page") else ""
                        painted, last = visit(browser, port, proc, path, args.changes)
                        runs[case] += painted
                        lasts[case] += last
                    finally:
                        stop_server(proc)
                    print(case, [round(s, 3) for s in runs[case]], flush=True)
                    print("  last DOM change", [round(s, 3) for s in lasts[case]], flush=True)
        finally:
            browser.close()
    report(runs, lasts, loads, args)


def report(runs: dict, lasts: dict, loads: dict, args: argparse.Namespace) -> None:
    """Write every case's median and smallest to ``paint_floor.{json,md}``."""
    table = {
        case: {
            "median": statistics.median(s),
            "min": min(s),
            "last_dom_change_median": statistics.median(lasts[case]),
            "last_dom_change_min": min(lasts[case]),
            "n": len(s),
            "load_1min": loads[case],
        }
        for case, s in runs.items()
    }
    md = [
        "# The floor under a cached redraw (`python benchmarks/paint_floor.py"
        f" --rounds {args.rounds} --changes {args.changes}"
        + (f" --old {args.old}" if args.old else "")
        + "`)",
        "",
        f"Headless Chromium at 1400×900, a fresh server per visit, the cases in turns "
        f"({args.rounds} rounds, {args.changes} cached redraws each: t back and forth between "
        f"20 and 21); seconds from Enter to the script run and stopped and two frames drawn, "
        f"and from Enter to the main area's last DOM change (read {QUIET} s after). "
        f"Machine: {machine()['cpus']} CPUs, shared (1-minute load average before each visit).",
        "",
        "| page | cached redraw: median | smallest | last DOM change: median | smallest "
        "| redraws | load average |",
        "|---|---|---|---|---|---|---|",
        *(
            f"| {case} | {r['median']:.2f} | {r['min']:.2f} | "
            f"{r['last_dom_change_median']:.2f} | {r['last_dom_change_min']:.2f} | {r['n']} | "
            f"{', '.join(map(str, r['load_1min']))} |"
            for case, r in table.items()
        ),
    ]
    write(
        "paint_floor",
        {
            "machine": machine(),
            "rounds": args.rounds,
            "cases": table,
            "runs": runs,
            "last_dom_change": lasts,
        },
        "\n".join(md) + "\n",
    )


if __name__ == "__main__":
    main()
