"""Building the loss page's two default charts as the package does
(:func:`sslviz.plots.style.new_figure`: the template put in as Plotly's default, a subplot
grid's layout computed once per arguments and copied) against ``make_subplots`` and
``update_layout(template=...)`` every time, in one run.

Captures the arguments the default loss view (AppTest) passes to
:func:`sslviz.plots.loss_intervals_figure` and :func:`sslviz.plots.soft_label_figure`,
then builds each figure ``--reps`` times per variant, the variants alternating: "new" as the
package does (each chart's grid already computed once, as on every build after a page's
first), "old" with ``new_figure`` replaced by ``make_subplots`` and a template set by
``update_layout`` (validated again, as before ``new_figure``). Both give the same figure.
Then what a cached rerun pays for its copy of each chart: the pickled figure
``st.cache_data`` kept before ``ui.cache.figure`` kept the figure's dict, and the figure
made from that dict.

Run: ``python benchmarks/figure_build.py [--reps 15]``; writes
``benchmarks/results/figure_build.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import pickle
import statistics
import time

from _common import machine, write

import sslviz.plots as plots

CHARTS = ("loss_intervals_figure", "soft_label_figure")


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

    calls = {}
    for name in CHARTS:
        f = getattr(plots, name)

        def spy(*a, _f=f, _name=name, **k):
            calls[_name] = (_f, a, k)
            return _f(*a, **k)

        setattr(plots, name, spy)
    start("pages/Loss_intervals.py")
    return calls


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=15)
    reps = ap.parse_args().reps
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    from sslviz.plots import loss, node, style, trust

    def validated(data=None, layout=None, **subplots):
        fig = make_subplots(**subplots) if subplots else go.Figure(data, layout)
        return fig.update_layout(template=style.TEMPLATE)

    calls = capture()
    modules = (loss, node, trust)
    times = {f"{v} / {n}": [] for v in ("old", "new") for n in calls}
    same = {}
    for _ in range(reps):
        for variant in ("old", "new"):
            for m in modules:
                m.new_figure = validated if variant == "old" else style.new_figure
            for name, (f, a, k) in calls.items():
                t0 = time.perf_counter()
                fig = f(*a, **k)
                times[f"{variant} / {name}"].append(time.perf_counter() - t0)
                same.setdefault(name, {})[variant] = json.loads(fig.to_json())
    for m in modules:
        m.new_figure = style.new_figure
    # what a cached rerun pays for its copy of each figure: st.cache_data's pickled
    # go.Figure (unpickling validates it again) against ui.cache.figure's unvalidated
    # figure from the cached dict
    copies = {}
    copy_labels = ("pickled figure", "figure from its dict")
    for name, (f, a, k) in calls.items():
        fig = f(*a, **k)
        pickled, spec = pickle.dumps(fig), fig.to_dict()
        for label, copy in zip(
            copy_labels,
            (lambda b=pickled: pickle.loads(b), lambda d=spec: go.Figure(d, _validate=False)),
            strict=True,
        ):
            runs = []
            for _ in range(reps):
                t0 = time.perf_counter()
                copy()
                runs.append(time.perf_counter() - t0)
            copies[f"{label} / {name}"] = runs
    lines = [
        "# Building the default loss view's charts: `new_figure` (template as Plotly's "
        "default, subplot grids computed once) against `make_subplots` and "
        "`update_layout(template=...)`",
        "",
        f"Command: `python benchmarks/figure_build.py --reps {reps}` (variants alternating in "
        "one process; median and smallest of the builds, ms). The same figures: "
        + ", ".join(f"{n} {'yes' if s['old'] == s['new'] else 'NO'}" for n, s in same.items())
        + ".",
        "",
        *_table(
            ("chart", "old median", "new median", "old min", "new min"),
            {
                name: [
                    _ms(times[f"{variant} / {name}"], stat)
                    for stat in (statistics.median, min)
                    for variant in ("old", "new")
                ]
                for name in calls
            },
        ),
        "",
        "A cached rerun's copy of each chart (ms, median): the pickled `go.Figure` that "
        "`st.cache_data` kept before (unpickling validates it again) against "
        "`ui.cache.figure`'s unvalidated figure from the cached dict.",
        "",
        *_table(
            ("chart", "pickled figure", "figure from its dict"),
            {name: [_ms(copies[f"{label} / {name}"]) for label in copy_labels] for name in calls},
        ),
    ]
    payload = {"machine": machine(), "reps": reps, "seconds": times, "copies": copies}
    write("figure_build", payload, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
