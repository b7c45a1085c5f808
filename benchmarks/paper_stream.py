"""Paper mode on the Loss page, old tree against new in one run: the time to the first
loss chart (new: the partial chart of the intervals so far; old: the finished chart, the
first one it draws) and to the finished chart.

    python benchmarks/paper_stream.py [--old 41a14e9] [--seed 0] [--rounds 1]
    # writes benchmarks/results/paper_stream.{json,md}
    python benchmarks/paper_stream.py --top-bar [--seed 0] [--rounds 3]
    # this tree only: Streamlit's top bar shown against hidden, when the controls are
    # drawn (benchmarks/results/paper_stream_top_bar.{json,md})
    python benchmarks/paper_stream.py --screens [--seed 0]
    # this tree only: one paper-mode view, screenshots of its partial and its finished
    # state (benchmarks/results/paper_mode_{partial,finished}_1400x900.png)

Each tree gets a fresh server (``streamlit run``, no warm-up of its own), warmed by one visit
of the Loss page's default view (fast mode, seed 1), then the page in paper mode (digits 2 vs
3, n = 100, |L| = 10, complete graph, CG-20, σ ∈ [0.6, 3.3], ``--seed``) is opened in headless
Chromium. Times are from the visit's start to: the first loss chart drawn, the first partial
chart ("so far" in its title), and the finished chart (the one with the trust panel). Trees
alternate within a round; the load average is read before each visit.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from _common import RESULTS, ROOT, free_port, machine, old_tree, start_server, stop_server, write
from browser_helpers import CONTROLS_DRAWN

SIGMA = (0.6, 3.3)
WATCH = (
    """
window.sslvizSeen = {};
setInterval(() => {
  const now = performance.now() / 1000, s = window.sslvizSeen;
  if (s.controls === undefined && document.querySelector('[data-testid=stMain]') && """
    + CONTROLS_DRAWN
    + """) s.controls = now;
  const g = document.querySelector('.js-plotly-plot');
  if (!g || !g._fullData || !g._fullData.length || !g.layout || !g.layout.title) return;
  const t = g.layout.title.text || '';
  if (s.first === undefined) s.first = now;
  if (/so far/.test(t) && s.partial === undefined) s.partial = now;
  if (/and where/.test(t) && s.finished === undefined) s.finished = now;
}, 20);
"""
)
"""Records in ``window.sslvizSeen`` (s since navigation) when the controls were first all
drawn (``controls``) and the first, first partial and finished loss charts."""


def visit(url: str, paper: str, timeout_ms: int = 900_000, screens: bool = False) -> dict:
    from browser_helpers import CHROMIUM, CHROMIUM_ARGS, sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.add_init_script(WATCH)
            page.goto(f"{url}/Loss_intervals?seed=1", timeout=timeout_ms)  # warm-up
            page.wait_for_function("window.sslvizSeen.finished", timeout=timeout_ms)
            page.add_init_script("window.sslvizStart = performance.now() / 1000;")
            load = os.getloadavg()[0]
            page.goto(f"{url}/Loss_intervals?{paper}", timeout=timeout_ms)
            if screens:  # one view: its partial state, then the same view finished
                page.wait_for_function("window.sslvizSeen.partial", timeout=timeout_ms)
                page.wait_for_timeout(1500)  # a few parts more than the first
                page.wait_for_function(CONTROLS_DRAWN, timeout=timeout_ms)  # and the controls
                if page.evaluate("window.sslvizSeen.finished"):
                    print("the controls came after the run had finished")
                page.screenshot(path=str(RESULTS / "paper_mode_partial_1400x900.png"))
            page.wait_for_function("window.sslvizSeen.finished", timeout=timeout_ms)
            if screens:
                page.wait_for_timeout(1000)  # the tables under the chart
                page.screenshot(path=str(RESULTS / "paper_mode_finished_1400x900.png"))
            seen = page.evaluate("[window.sslvizSeen, window.sslvizStart]")
        finally:
            browser.close()
    marks, start = seen
    out = {k: round(v - start, 2) for k, v in marks.items()}
    return out | {"load": round(load, 2)}


def serve(tree: Path, extra_env: dict[str, str] | None = None) -> dict:
    env = os.environ | {"PYTHONPATH": str(tree), "SSLVIZ_WARM": "0"} | (extra_env or {})
    if tree != ROOT:  # the old tree's kernels compile into their own cache
        env["NUMBA_CACHE_DIR"] = str(tree / ".numba_cache")
    port = free_port()
    proc = start_server(port, Path("/tmp") / f"paper_stream_{port}.log", tree, env=env)
    return {"proc": proc, "url": f"http://127.0.0.1:{port}"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", default="41a14e9", help="the older tree's commit")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--screens", action="store_true", help="screenshots of one view only")
    ap.add_argument(
        "--top-bar",
        action="store_true",
        help="this tree only: Streamlit's top bar shown against hidden (ui.hideTopBar)",
    )
    a = ap.parse_args()
    paper = f"mode=paper&seed={a.seed}&sigma_min={SIGMA[0]}&sigma_max={SIGMA[1]}"
    if a.top_bar:
        top_bar(paper, a.seed, a.rounds)
        return
    if a.screens:
        server = serve(ROOT)
        try:
            print(visit(server["url"], paper, screens=True))
        finally:
            stop_server(server["proc"])
        return
    trees = {"old": old_tree(a.old), "new": ROOT}
    runs: dict[str, list[dict]] = {name: [] for name in trees}
    for r in range(a.rounds):
        for name, tree in trees.items():
            server = serve(tree)
            try:
                t0 = time.perf_counter()
                runs[name].append(visit(server["url"], paper))
            finally:
                stop_server(server["proc"])
            print(f"round {r + 1} {name}: {runs[name][-1]} ({time.perf_counter() - t0:.0f} s)")
    rows = [
        "| round | tree | load (1 min) | first chart s | first partial s | finished chart s |",
        "|---|---|---|---|---|---|",
    ]
    for r in range(a.rounds):
        for name in trees:
            m = runs[name][r]
            rows.append(
                f"| {r + 1} | {name} | {m['load']:.2f} | {m['first']:.1f} | "
                f"{m.get('partial', '–')} | {m['finished']:.1f} |"
            )
    old_done = min(m["finished"] for m in runs["old"])
    new_first = min(m["first"] for m in runs["new"])
    md = "\n".join(
        [
            "# Paper mode on the Loss page: time to the first chart, old tree against new",
            "",
            f"`python benchmarks/paper_stream.py --old {a.old} --seed {a.seed} --rounds "
            f"{a.rounds}` (old = {a.old}, new = the working tree); {os.cpu_count()} CPUs, "
            "shared. Digits 2 vs 3, n = 100, |L| = 10, complete graph, CG-20, paper mode, "
            f"σ ∈ [{SIGMA[0]}, {SIGMA[1]}], seed {a.seed}; a fresh server per tree, warmed "
            "by one visit of the page's default view; seconds from the visit's start.",
            "",
            *rows,
            "",
            f"First chart: old {old_done:.1f} s (its finished chart) against new "
            f"{new_first:.1f} s (the partial chart): {old_done / new_first:.1f}× sooner "
            "(smallest over the rounds).",
            "",
        ]
    )
    write("paper_stream", {"machine": machine(), "old": a.old, "runs": runs}, md)


def top_bar(paper: str, seed: int, rounds: int) -> None:
    """When a new tab's controls are drawn while paper mode runs, with Streamlit's top bar
    shown (``STREAMLIT_UI_HIDE_TOP_BAR=false``) against hidden (the app's setting), in turns;
    writes ``paper_stream_top_bar.{json,md}``."""
    import statistics

    settings = {"shown": {"STREAMLIT_UI_HIDE_TOP_BAR": "false"}, "hidden": {}}
    runs: dict[str, list[dict]] = {name: [] for name in settings}
    for r in range(rounds):
        for name, env in settings.items():
            server = serve(ROOT, env)
            try:
                runs[name].append(visit(server["url"], paper))
            finally:
                stop_server(server["proc"])
            print(f"round {r + 1}, top bar {name}: {runs[name][-1]}", flush=True)
    rows = [
        "| round | top bar | load (1 min) | controls drawn s | first partial chart s | "
        "finished chart s |",
        "|---|---|---|---|---|---|",
    ]
    for r in range(rounds):
        for name in settings:
            m = runs[name][r]
            rows.append(
                f"| {r + 1} | {name} | {m['load']:.2f} | {m.get('controls', '–')} | "
                f"{m.get('partial', '–')} | {m['finished']:.1f} |"
            )
    med = {n: statistics.median(m.get("controls", m["finished"]) for m in runs[n]) for n in runs}
    md = "\n".join(
        [
            "# A new tab in paper mode: when its controls are drawn, Streamlit's top bar "
            "shown against hidden",
            "",
            f"`python benchmarks/paper_stream.py --top-bar --seed {seed} --rounds {rounds}`; "
            f"{os.cpu_count()} CPUs, shared. The Loss page in paper mode (digits 2 vs 3, "
            f"n = 100, |L| = 10, complete graph, CG-20, σ ∈ [{SIGMA[0]}, {SIGMA[1]}], seed "
            f"{seed}) opened in a new tab of a server warmed by one visit of the default "
            "view; seconds from the visit's start to: every control drawn (none a grey "
            "placeholder), the first partial chart, the finished chart.",
            "",
            *rows,
            "",
            f"Controls drawn, median: top bar shown {med['shown']:.1f} s, hidden "
            f"{med['hidden']:.1f} s ({med['shown'] / med['hidden']:.1f}× sooner hidden).",
            "",
        ]
    )
    write("paper_stream_top_bar", {"machine": machine(), "runs": runs}, md)


if __name__ == "__main__":
    main()
