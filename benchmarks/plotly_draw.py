"""Drawing the default loss view's two charts in Chromium: Plotly.newPlot of Figure 3 (with
its trust panel) and of the node drill-down, an old tree's figures against this tree's, in
one browser, alternating.

Each tree's figures are the ones its default loss view draws (captured from AppTest in a
process of that tree, as ``figure_build.py`` does), sent as Streamlit sends them (the
figure's JSON). Chromium (headless, 1400×900) loads the plotly.js that the installed
``plotly`` package ships and draws each figure ``--reps`` times in a 1000 px wide div (the
loss page's chart width at 1400 px), alternating between the trees: the time from
``Plotly.newPlot`` to the next frame, and the margins the drawn chart ended with against
the margins its layout sets. A margin that grew (Plotly's automargin, for an axis's title
and tick labels or a legend) makes Plotly lay the chart out again.

Run: ``python benchmarks/plotly_draw.py --old 6608eee [--reps 25]``; writes
``benchmarks/results/plotly_draw.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

from _common import ROOT, last_json, machine, old_tree, write

_DRAW = """async ([figures, reps]) => { const out = {};
  for (let r = 0; r < reps; r++) for (const [name, fig] of Object.entries(figures)) {
    const el = document.createElement('div'); el.style.width = '1000px';
    document.body.appendChild(el);
    const f = JSON.parse(JSON.stringify(fig));
    const t0 = performance.now();
    await Plotly.newPlot(el, f.data, f.layout, {});
    await new Promise(done => requestAnimationFrame(() => done()));
    const ms = performance.now() - t0, s = el._fullLayout._size;
    (out[name] = out[name] || {ms: [], drawn: [s.l, s.r, s.t, s.b].map(Math.round)}).ms.push(ms);
    Plotly.purge(el); el.remove(); }
  return out; }"""
"""Draw every figure ``reps`` times, alternating; per figure the times (ms) and the drawn
margins (l, r, t, b)."""


def capture(root: Path) -> dict:
    """The JSON of the default loss view's two charts in the tree at ``root``."""
    sys.path[:0] = [str(root), str(root / "tests"), str(root / "benchmarks")]
    import plotly.io as pio
    from figure_build import capture as calls

    return {
        name: json.loads(pio.to_json(f(*a, **k), validate=False))
        for name, (f, a, k) in calls().items()
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", default="HEAD~1")
    ap.add_argument("--reps", type=int, default=25)
    ap.add_argument("--capture", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.capture:
        print(json.dumps(capture(Path(args.capture))))
        return
    import plotly
    from playwright.sync_api import sync_playwright

    trees = {"old": old_tree(args.old), "new": ROOT}
    figures = {}
    for tree, root in trees.items():
        argv = [sys.executable, __file__, "--capture", str(root)]
        for name, fig in last_json(argv, root, os.environ | {"PYTHONPATH": str(root)}).items():
            figures[f"{tree} / {name}"] = fig
    js = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.set_content("<html><body></body></html>")
        page.add_script_tag(path=str(js))
        drawn = page.evaluate(_DRAW, [figures, args.reps + 3])
        browser.close()
    rows = {}
    for key, got in drawn.items():
        ms = got["ms"][3:]  # the first draws warm plotly.js up
        m = figures[key]["layout"].get("margin", {})
        set_ = [m.get(side) for side in "lrtb"]
        rows[key] = {"median": statistics.median(ms), "min": min(ms), "set": set_, **got}
    lines = [
        "# Drawing the default loss view's two charts in Chromium (Plotly.newPlot)",
        "",
        f"Command: `python benchmarks/plotly_draw.py --old {args.old} --reps {args.reps}` (old "
        f"= {args.old}, new = this tree; plotly.js {plotly.__version__}'s bundle, headless "
        "Chromium, a 1000 px wide chart; the trees' figures alternate; ms from newPlot to the "
        "next frame). Margins l, r, t, b: as the layout sets them, and as drawn (a margin that "
        "grew made Plotly lay the chart out again).",
        "",
        "| figure | median (ms) | min (ms) | margins set | margins drawn |",
        "|---|---|---|---|---|",
        *(
            f"| {key} | {r['median']:.0f} | {r['min']:.0f} | {r['set']} | {r['drawn']} |"
            for key, r in sorted(rows.items(), key=lambda kv: kv[0].split(" / ")[::-1])
        ),
    ]
    write(
        "plotly_draw",
        {"machine": machine(), "reps": args.reps, "figures": rows},
        "\n".join(lines) + "\n",
    )


if __name__ == "__main__":
    main()
