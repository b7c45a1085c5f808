"""Time per interval and M per configuration (Table 1)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from sslviz.plots.style import BOTTOM_LEGEND, COLORS, LAYOUT, log_axis, new_figure, rgba


def speed_figure(rows: Sequence[Mapping]) -> go.Figure:
    """Time per interval and number of intervals M per configuration.

    Parameters
    ----------
    rows : sequence of dict
        With keys ``'config'`` (str), ``'n'`` (int), ``'M'`` (int) and
        ``'cpu_per_interval'`` (robust CPU seconds, :func:`sslviz.export.speed_row` with a
        timing) or else ``'time_per_interval'`` (wall seconds of one run).

    Returns
    -------
    go.Figure
        Two panels; one ``'time per interval'`` and one ``'M'`` bar trace per n.
    """
    fig = new_figure(
        rows=1, cols=2, subplot_titles=("CPU ms per interval (min of repeats)", "intervals found M")
    )
    ns = sorted({int(r["n"]) for r in rows})
    for j, n in enumerate(ns):
        sel = [r for r in rows if int(r["n"]) == n]
        color = COLORS[j % len(COLORS)]
        x = [r["config"] for r in sel]
        fig.add_trace(
            go.Bar(
                x=x,
                y=[1e3 * r.get("cpu_per_interval", r["time_per_interval"]) for r in sel],
                name=f"time per interval (n={n})",
                marker_color=color,
                legendgroup=str(n),
                hovertemplate=f"%{{x}}, n = {n}<br>%{{y:.3g}} ms CPU per interval<extra></extra>",
            ),
            1,
            1,
        )
        fig.add_trace(
            go.Bar(
                x=x,
                y=[r["M"] for r in sel],
                name=f"M (n={n})",
                marker_color=rgba(color, 0.6),
                legendgroup=str(n),
                hovertemplate=f"%{{x}}, n = {n}<br>%{{y}} intervals found<extra></extra>",
            ),
            1,
            2,
        )
    log_axis(
        fig,
        [1e3 * r.get("cpu_per_interval", r["time_per_interval"]) for r in rows],
        row=1,
        col=1,
        title_text="ms per interval (log)",
    )
    fig.update_yaxes(title_text="M", row=1, col=2)
    fig.update_xaxes(title_text="graph / solver")
    fig.update_layout(
        **LAYOUT,
        barmode="group",
        title="Speed: CG vs matrix inverse (Table 1)",
        legend=BOTTOM_LEGEND | {"y": -0.25},
    )
    return fig
