"""Building the node drill-down chart (Figure 2) of the default loss view: this tree against an
old one, each in its own process, alternating.

Captures the arguments the default loss view (AppTest) passes to
:func:`sslviz.plots.soft_label_figure`, then times ``--reps`` builds per tree. Since the
chart is built as dicts (``sslviz.plots.style.dict_figure``), the old tree (Plotly's object
API) against the new.

Run: ``python benchmarks/node_chart_build.py --old 08e8597 [--reps 30] [--rounds 2]``;
writes ``benchmarks/results/node_chart_build.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, last_json, machine, old_tree, write

ARGS = Path(tempfile.gettempdir()) / "sslviz_node_chart_args.pkl"


def measure(reps: int) -> dict:
    """Time ``reps`` builds of the captured chart in this process's tree."""
    from sslviz import plots

    a, k = pickle.loads(ARGS.read_bytes())
    for _ in range(3):
        plots.soft_label_figure(*a, **k)
    seconds = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fig = plots.soft_label_figure(*a, **k)
        seconds.append(time.perf_counter() - t0)
    return {"seconds": seconds, "json": json.loads(fig.to_json())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", default="HEAD~1")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--measure", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure)))
        return
    from figure_build import capture

    f, a, k = capture()["soft_label_figure"]
    ARGS.write_bytes(pickle.dumps((a, k)))
    trees = {"old": old_tree(args.old), "new": ROOT}
    runs: dict[str, list[float]] = {name: [] for name in trees}
    figures = {}
    for _ in range(args.rounds):
        for name, root in trees.items():
            env = os.environ | {"PYTHONPATH": str(root)}
            argv = [sys.executable, __file__, "--measure", str(args.reps)]
            out = last_json(argv, root, env)
            runs[name] += out["seconds"]
            figures[name] = out["json"]
    same = figures["old"] == figures["new"]
    ms = {name: [1e3 * statistics.median(v), 1e3 * min(v)] for name, v in runs.items()}
    lines = [
        "# Building the default loss view's node drill-down chart: old tree against new",
        "",
        f"Command: `python benchmarks/node_chart_build.py --old {args.old} --reps {args.reps} "
        f"--rounds {args.rounds}` (old = {args.old}, new = this tree; each tree in its own "
        "process, alternating; ms). The same figure (its JSON parsed): "
        f"{'yes' if same else 'NO'}.",
        "",
        "| tree | median | smallest |",
        "|---|---|---|",
        *[f"| {name} | {v[0]:.1f} | {v[1]:.1f} |" for name, v in ms.items()],
    ]
    write(
        "node_chart_build", {"machine": machine(), "ms": ms, "same": same}, "\n".join(lines) + "\n"
    )


if __name__ == "__main__":
    main()
