"""The floor under a first visit: how soon Streamlit's page, and a Plotly chart in it, can be
on screen on this machine, against the app's own first chart.

How close to the navigation can a first chart be? This measures, in turns and in one run,
the same Chromium (1400×900, a fresh context each visit) on:

- ``streamlit text``: a one-line app (``st.title``), served by Streamlit as it is: the time
  to its first element is Streamlit's own page start (its bundle, React, the websocket, one
  script run) with nothing of the app in it;
- ``streamlit plotly``: a one-line app drawing one two-point Plotly chart (Streamlit's
  ``st.plotly_chart``, its Plotly chunk loaded when the chart arrives);
- ``streamlit plotly, chunk at the head``: the same app, its HTML served by the app's
  ``ui.index_page.routes`` (the Plotly chunk preloaded and imported from the page's head);
- ``sslviz /, warmed server``: the app's home page on a server whose warm-up
  (``ui.warm``) has ended: only the browser and one cached run are left;
- ``sslviz /, fresh server``: the app's home page as ``first_visits.py`` visits it, on a
  server that has just started (its warm-up running beside the browser).

Each visit records the first element drawn (``first element``: a heading, a markdown block
or a chart, whichever comes first) and the first chart (``first chart``: the first frame
with a Plotly chart's SVG), in s from the navigation's start (the page's clock). Medians of
``--repeats`` visits; the machine's 1-minute load average before each.

Run: ``python benchmarks/first_visit_floor.py [--repeats 3]``; writes
``benchmarks/results/first_visit_floor.{json,md}``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

import first_visits
from _common import ROOT, free_port, machine, start_server, stop_server, write
from browser_helpers import CHROMIUM, CHROMIUM_ARGS, sync_playwright

LOG = ROOT / "benchmarks" / "results" / "first_visit_floor_server.log"

WATCH = (
    first_visits.WATCH
    + """
new MutationObserver(() => {
  const any = '[data-testid="stHeading"], [data-testid="stMarkdown"], .js-plotly-plot .main-svg';
  if (document.querySelector(any)) requestAnimationFrame(() => mark('first element'));
}).observe(document, {subtree: true, childList: true});
"""
)
"""In the page: ``first_visits.WATCH``'s marks (its ``first chart`` among them) and the first
frame painted with any element (a heading, a markdown block or a chart)."""

TEXT_APP = 'import streamlit as st\n\nst.title("First element")\n'
PLOTLY_APP = (
    "import plotly.graph_objects as go\nimport streamlit as st\n\n"
    "st.plotly_chart(go.Figure(go.Scatter(x=[0, 1], y=[0, 1])))\n"
)
PLOTLY_HEAD_APP = f"""import sys

import streamlit as st

if __name__ == "__main__":
    import plotly.graph_objects as go

    st.plotly_chart(go.Figure(go.Scatter(x=[0, 1], y=[0, 1])))
else:  # the server: the app's own HTML page (ui.index_page)
    sys.path.insert(0, {str(ROOT)!r})
    from ui import index_page

    app = st.App(__file__, routes=index_page.routes())
"""

CASES = (
    "streamlit text",
    "streamlit plotly",
    "streamlit plotly, chunk at the head",
    "sslviz /, warmed server",
    "sslviz /, fresh server",
)


def _tree(tmp: Path, name: str, source: str) -> Path:
    """A folder holding ``app.py`` with ``source`` (and the app's Streamlit config)."""
    d = tmp / name
    (d / ".streamlit").mkdir(parents=True)
    (d / "app.py").write_text(source)
    config = (ROOT / ".streamlit" / "config.toml").read_text()
    (d / ".streamlit" / "config.toml").write_text(config)
    return d


def visit(browser, port: int, *, chart: bool, path: str = "") -> dict:
    """One visit of ``/<path>`` on ``port`` in a fresh context: the marks of :data:`WATCH`, once
    the first element (and, with ``chart``, the first chart) is on screen."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    try:
        page = context.new_page()
        page.add_init_script(WATCH)
        page.goto(f"http://127.0.0.1:{port}/{path}", timeout=180_000)
        mark = "first chart" if chart else "first element"
        page.wait_for_function(f"window.sslvizFirst[{mark!r}]", timeout=180_000)
        return {k: round(float(v), 3) for k, v in page.evaluate("window.sslvizFirst").items()}
    finally:
        context.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    LOG.parent.mkdir(parents=True, exist_ok=True)
    runs: dict[str, list[dict]] = {c: [] for c in CASES}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        trees = {
            "streamlit text": _tree(Path(tmp), "text", TEXT_APP),
            "streamlit plotly": _tree(Path(tmp), "plotly", PLOTLY_APP),
            "streamlit plotly, chunk at the head": _tree(Path(tmp), "head", PLOTLY_HEAD_APP),
        }
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for _ in range(args.repeats):
                for case in CASES:
                    load = round(os.getloadavg()[0], 2)
                    port = free_port()
                    proc = start_server(port, LOG, root=trees.get(case, ROOT))
                    try:
                        if case == "sslviz /, warmed server":
                            first_visits.warmed(LOG)
                            load = round(os.getloadavg()[0], 2)
                        out = visit(browser, port, chart=case != "streamlit text")
                    finally:
                        stop_server(proc)
                    runs[case].append(out | {"load_1min": load})
                    print(case, runs[case][-1], flush=True)
        finally:
            browser.close()
    report(runs, args.repeats)


def report(runs: dict[str, list[dict]], repeats: int) -> None:
    """Write the medians of every case to ``first_visit_floor.{json,md}``."""
    table = {}
    for case, rs in runs.items():
        row = {"load_1min": [r["load_1min"] for r in rs]}
        for k in ("first element", "first chart"):
            vs = [r[k] for r in rs if k in r]
            if vs:
                row[k] = {"median": statistics.median(vs), "min": min(vs), "max": max(vs)}
        table[case] = row

    def cell(row: dict, k: str) -> str:
        v = row.get(k)
        return "–" if v is None else f"{v['median']:.2f} ({v['min']:.2f}–{v['max']:.2f})"

    md = [
        "# The floor under a first visit (`python benchmarks/first_visit_floor.py"
        + (f" --repeats {repeats}" if repeats != 3 else "")
        + "`)",
        "",
        f"Chromium at 1400×900, a fresh context and a fresh server per visit, the cases in "
        f"turns ({repeats} rounds); seconds from the navigation's start, median (min–max). "
        f"Machine: {machine()['cpus']} CPUs, shared (1-minute load average before each "
        "visit in the last column).",
        "",
        "| served | first element | first chart | load average |",
        "|---|---|---|---|",
        *(
            f"| {case} | {cell(row, 'first element')} | {cell(row, 'first chart')} | "
            f"{', '.join(map(str, row['load_1min']))} |"
            for case, row in table.items()
        ),
    ]
    write(
        "first_visit_floor",
        {"machine": machine(), "repeats": repeats, "cases": table, "runs": runs},
        "\n".join(md) + "\n",
    )


if __name__ == "__main__":
    main()
