"""Building the loss page's two default charts (Figure 3 with its trust panel, and the node
drill-down): this tree against an old one, each tree in its own process, alternating; then
what a cached rerun pays to draw each chart.

Captures the arguments the default loss view (AppTest) passes to
:func:`sslviz.plots.loss_intervals_figure` and :func:`sslviz.plots.soft_label_figure`, then
each tree builds each chart ``--reps`` times (after three builds not timed: a subplot
grid is computed once per arguments). Both trees must give the same figures (their JSON
parsed). Since both charts are built as dicts (``sslviz.plots.style.dict_figure``), an old
tree built with Plotly's object API is the comparison. The draw (:func:`copies`): the
pickled figure ``st.cache_data`` kept before ``ui.cache.figure`` kept the figure's dict
(unpickling validates it again), the figure made from that dict, and the dict drawn as it
is by the app's chart element (:func:`copies`).

Run: ``python benchmarks/figure_build.py --old 08e8597 [--reps 30] [--rounds 2]``; writes
``benchmarks/results/figure_build.{json,md}``.
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

CHARTS = ("loss_intervals_figure", "soft_label_figure")
ARGS = Path(tempfile.gettempdir()) / "sslviz_figure_build_args.pkl"
"""The captured arguments, handed to each tree's measuring process."""


def _ms(seconds: list[float], stat=statistics.median) -> str:
    """``stat`` of timings in seconds, as milliseconds for a table cell."""
    return f"{stat(seconds) * 1e3:.1f}"


def _table(header: tuple[str, ...], rows: dict[str, list[str]]) -> list[str]:
    """A Markdown table: the header, then one row per name with its cells."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + [f"| {name} | " + " | ".join(cells) + " |" for name, cells in rows.items()]


def capture() -> dict:
    """The (function, args, kwargs) of each chart of the default loss view."""
    from apptest_helpers import start

    import sslviz.plots as plots

    calls = {}
    for name in CHARTS:
        f = getattr(plots, name)

        def spy(*a, _f=f, _name=name, **k):
            calls[_name] = (_f, a, k)
            return _f(*a, **k)

        setattr(plots, name, spy)
    start("pages/Loss_intervals.py")
    return calls


def measure(reps: int) -> dict:
    """Seconds of ``reps`` builds of each captured chart, and its JSON, in this tree."""
    import sslviz.plots as plots

    out = {}
    for name, (a, k) in pickle.loads(ARGS.read_bytes()).items():
        build = getattr(plots, name)
        for _ in range(3):
            build(*a, **k)
        seconds = []
        for _ in range(reps):
            t0 = time.perf_counter()
            fig = build(*a, **k)
            seconds.append(time.perf_counter() - t0)
        out[name] = {"seconds": seconds, "json": json.loads(fig.to_json())}
    return out


def copies(calls: dict, reps: int) -> dict[str, list[float]]:
    """What a cached rerun pays to hand each chart to the browser: its copy from the cache,
    then its JSON. The copy: a pickled figure; the figure made from its cached dict without
    validating it again; each handed to ``st.plotly_chart``'s conversion (the figure's
    ``to_dict()``, then its JSON); and that dict drawn as it is by the app's chart element
    (``ui.plotly_element.figure_json``, no figure made)."""
    import plotly.graph_objects as go
    import plotly.io as pio
    from plotly.tools import return_figure_from_figure_or_data

    from ui.plotly_element import figure_json

    def plotly_chart(fig):
        pio.to_json(return_figure_from_figure_or_data(fig, validate_figure=True), validate=False)

    out = {}
    for name, (f, a, k) in calls.items():
        fig = f(*a, **k)
        pickled, spec = pickle.dumps(fig), pickle.dumps(fig.to_dict())
        for label, copy, send in (
            ("pickled figure", lambda b=pickled: pickle.loads(b), plotly_chart),
            (
                "figure from its dict",
                lambda b=spec: go.Figure(pickle.loads(b), _validate=False),
                plotly_chart,
            ),
            ("its dict drawn as it is", lambda b=spec: pickle.loads(b), figure_json),
        ):
            runs = []
            for _ in range(reps):
                t0 = time.perf_counter()
                send(copy())
                runs.append(time.perf_counter() - t0)
            out[f"{label} / {name}"] = runs
    return out


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
    calls = capture()
    ARGS.write_bytes(pickle.dumps({name: (a, k) for name, (_, a, k) in calls.items()}))
    trees = {"old": old_tree(args.old), "new": ROOT}
    times = {f"{tree} / {name}": [] for tree in trees for name in calls}
    figures: dict[str, dict] = {}
    for _ in range(args.rounds):  # the trees alternate: the machine is shared
        for tree, root in trees.items():
            argv = [sys.executable, __file__, "--measure", str(args.reps)]
            out = last_json(argv, root, os.environ | {"PYTHONPATH": str(root)})
            for name, got in out.items():
                times[f"{tree} / {name}"] += got["seconds"]
                figures.setdefault(name, {})[tree] = got["json"]
    same = {name: figs["old"] == figs["new"] for name, figs in figures.items()}
    copied = copies(calls, args.reps)
    labels = ("pickled figure", "figure from its dict", "its dict drawn as it is")
    lines = [
        "# Building the default loss view's two charts: old tree against new",
        "",
        f"Command: `python benchmarks/figure_build.py --old {args.old} --reps {args.reps} "
        f"--rounds {args.rounds}` (old = {args.old}, new = this tree; each tree in its own "
        "process, alternating; median and smallest build, ms). The same figures (their JSON "
        "parsed): " + ", ".join(f"{n} {'yes' if s else 'NO'}" for n, s in same.items()) + ".",
        "",
        *_table(
            ("chart", "old median", "new median", "old min", "new min"),
            {
                name: [
                    _ms(times[f"{tree} / {name}"], stat)
                    for stat in (statistics.median, min)
                    for tree in trees
                ]
                for name in calls
            },
        ),
        "",
        "A cached rerun's copy of each chart and its JSON (ms, median): the pickled "
        "`go.Figure` that `st.cache_data` kept before (unpickling validates it again) and the "
        "unvalidated figure made from the cached dict, each handed to `st.plotly_chart` (its "
        "`to_dict()` and JSON); and the cached dict drawn as it is by the app's chart element "
        "(`ui.plotly_element.figure_json`).",
        "",
        *_table(
            ("chart", *labels),
            {name: [_ms(copied[f"{label} / {name}"]) for label in labels] for name in calls},
        ),
    ]
    payload = {"machine": machine(), "reps": args.reps, "seconds": times, "copies": copied}
    write("figure_build", payload, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
