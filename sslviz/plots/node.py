"""A node's drill-down (Figure 2): exact and approximate f_u(σ), g_u(σ) and the iterates of
each step rule."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from sslviz.plots.style import (
    COLORS,
    LAYOUT,
    SIGMA_TITLE,
    axes,
    dict_figure,
    level_line,
    log_ticks,
    subplot_layout,
)

_RULE_STYLE = {  # step rule → (colour, marker symbol, line dash) of its iterates
    "gradient": ("#2ca02c", "circle", "dot"),
    "newton": ("#d62728", "diamond", "dash"),
    "hybrid": ("#9467bd", "square", "solid"),
}


def soft_label_figure(
    sigmas: np.ndarray,
    f: np.ndarray,
    *,
    u: int | str,
    f_exact: np.ndarray | None = None,
    traces: Mapping[str, Sequence] | None = None,
    breakpoints: Sequence[float] = (),
    label: str = "approximate",
    sigma0: float | None = None,
) -> go.Figure:
    """Exact and approximate f_u(σ), g_u(σ) = (f_u − 1/2)² and the iterates of each step
    rule (Figure 2).

    Parameters
    ----------
    sigmas : ndarray of shape (G,)
    f : ndarray of shape (G,)
        f_u on the grid from the chosen solver (named ``label``).
    u : int or str
        The node, for the title: an unlabeled index, or a label such as ``'row 19'``.
    f_exact : ndarray of shape (G,), optional
        f_u from the exact solver (dashed black).
    traces : dict of rule to list of Iterate, optional
        ``sslviz.intervals.node_trace`` output per rule ('gradient', 'newton', 'hybrid'),
        each with its own colour, marker and line dash.
    breakpoints : sequence of float
        True breakpoints of the node (red dashed verticals, one legend entry).
    label : str, default='approximate'
        The solver of ``f`` as the legend names it, e.g. ``'CG-20'``.
    sigma0 : float, optional
        Where the iterations start (a star on f_u).

    Returns
    -------
    go.Figure
        Two rows: f_u (top), g_u (bottom, log y). Traces, in order: ``'f_u, <label>'``,
        ``'g_u, <label>'``, then if ``f_exact`` is given ``'f_u, exact'`` and
        ``'g_u, exact'``, then if there are breakpoints ``'true breakpoint'`` (top, in the
        legend) and its bottom copy (legend hidden), then ``'start σ0'`` if ``sigma0`` is
        given, then per rule ``'<rule> iterates'`` (top, in the legend) and its bottom copy.
        The first annotation is the top row's title, ``'soft label f_u(σ), <u>'``.
    """
    sigmas = np.asarray(sigmas, float)
    f = np.asarray(f, float)
    grid = dict(
        rows=2,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.08,
        subplot_titles=(
            f"soft label f_u(σ), {u if isinstance(u, str) else f'node {u}'}",
            "g_u(σ) = (f_u − 1/2)²",
        ),
    )
    layout = subplot_layout(**grid)
    data: list[dict] = []
    # one legend per panel, beside it: every entry says which curve of which panel it is
    styles = {  # (panel, solver) → line style
        ("f", "approx"): dict(color=COLORS[0], width=2.5),
        ("f", "exact"): dict(color="black", width=1.5, dash="dash"),
        ("g", "approx"): dict(color=COLORS[6], width=2.5),
        ("g", "exact"): dict(color="#8c564b", width=1.5, dash="dot"),
    }
    legend = {1: "legend", 2: "legend2"}
    g = np.maximum((f - 0.5) ** 2, 1e-300)
    curves = [("f", "approx", f, g)]
    if f_exact is not None and label != "exact":  # an exact solver's f is f_exact already
        fe = np.asarray(f_exact, float)
        curves.append(("f", "exact", fe, np.maximum((fe - 0.5) ** 2, 1e-300)))
    for row, what in ((1, "f"), (2, "g")):
        for _, solver, fv, gv in curves:
            name = f"{what}_u, {label if solver == 'approx' else 'exact'}"
            words = "soft label f_u" if what == "f" else "g_u = (f_u − ½)²"
            data.append(
                dict(
                    type="scatter",
                    x=sigmas,
                    y=fv if what == "f" else gv,
                    mode="lines",
                    name=name,
                    legend=legend[row],
                    line=styles[(what, solver)],
                    hovertemplate=f"σ = %{{x:.4g}} · {words} %{{y:.3g}} "
                    f"({label if solver == 'approx' else 'exact solve'})<extra></extra>",
                    **axes(row),
                )
            )
    g_all = [c[3] for c in curves]
    # ½ is named on its axis, not by a note on the line, which the curves cross there
    layout["shapes"] = [level_line(0.5)]
    bps = [float(b) for b in breakpoints]
    if bps:
        glo = float(min(np.min(x) for x in g_all))
        ghi = float(max(np.max(x) for x in g_all))
        for row, (y0, y1) in ((1, (0.0, 1.0)), (2, (max(glo, 1e-300), ghi))):
            data.append(
                dict(
                    type="scatter",
                    x=[x for b in bps for x in (b, b, None)],
                    y=[y for _ in bps for y in (y0, y1, None)],
                    mode="lines",
                    name="true breakpoint",
                    legend=legend[row],
                    legendgroup=f"breakpoint{row}",
                    line=dict(color="#d62728", width=1.5, dash="dash"),
                    hovertemplate="true breakpoint: f_u crosses ½ at σ = %{x:.4g}<extra></extra>",
                    **axes(row),
                )
            )
    if sigma0 is not None:
        f0 = float(np.interp(sigma0, sigmas, f)) if sigmas.size else 0.5
        data.append(
            dict(
                type="scatter",
                x=[sigma0],
                y=[f0],
                mode="markers",
                name="start σ0",
                legend="legend",
                marker=dict(
                    symbol="star", size=14, color="#ff7f0e", line=dict(color="black", width=1)
                ),
                hovertemplate="Algorithm 4 starts at σ0 = %{x:.4g}<extra></extra>",
                **axes(1),
            )
        )
    for rule, its in (traces or {}).items():
        color, symbol, dash = _RULE_STYLE.get(rule, (COLORS[3], "circle", "solid"))
        xs = [it.sigma for it in its]
        txt = [
            f"{rule} rule, step {i}: σ = {it.sigma:.4g}, f_u = {it.f:.3f}<br>next: {it.step}"
            for i, it in enumerate(its)
        ]
        for row, ys, show in (
            (1, [it.f for it in its], True),
            (2, [max(it.g, 1e-300) for it in its], False),
        ):
            data.append(
                dict(
                    type="scatter",
                    x=xs,
                    y=ys,
                    mode="lines+markers",
                    name=f"{rule} iterates",
                    legend="legend",
                    legendgroup=rule,
                    showlegend=show,
                    text=txt,
                    hovertemplate="%{text}<extra></extra>",
                    marker=dict(color=color, size=8, symbol=symbol),
                    line=dict(color=color, width=1, dash=dash),
                    **axes(row),
                )
            )
    layout["yaxis"] |= dict(
        title=dict(text="f_u(σ): its label flips at ½"),
        tickvals=[0, 0.25, 0.5, 0.75, 1],
        ticktext=["0", "0.25", "½", "0.75", "1"],
    )
    g_its = [max(it.g, 1e-300) for its in (traces or {}).values() for it in its]
    layout["yaxis2"] |= dict(
        type="log", title=dict(text="g_u(σ) (log)"), **log_ticks(*g_all, g_its)
    )
    layout["xaxis2"]["title"] = dict(text=SIGMA_TITLE)
    top, bottom = layout["yaxis"]["domain"], layout["yaxis2"]["domain"]
    side = dict(x=1.02, xanchor="left", yanchor="top", font=dict(size=13), groupclick="toggleitem")
    layout |= LAYOUT | dict(
        margin=LAYOUT["margin"] | dict(b=70),  # b: the σ axis's title, laid out once
        height=680,
        title=dict(text="Node drill-down (Figure 2)"),
        legend=side
        | {"y": top[1], "title": dict(text="<b>top panel: f_u(σ)</b>", font=dict(size=13))},
        legend2=side
        | {"y": bottom[1], "title": dict(text="<b>bottom panel: g_u(σ)</b>", font=dict(size=13))},
    )
    return dict_figure(data, layout, **grid)


def miss_figure(
    curves: Mapping, *, u: str, sigma_true: float, tol: float, estimate: float | None
) -> go.Figure:
    """One miss up close: :func:`soft_label_figure` of the node over a window around its
    true crossing (``curves`` from the page: ``sigma``, ``f``, ``f_exact``, ``label``), with
    the tolerance band ``sigma_true ± tol`` shaded and the solver's nearest estimated
    endpoint ``estimate`` marked (dotted blue; legend ``'estimated endpoint (<label>)'``).
    """
    fig = soft_label_figure(
        curves["sigma"],
        curves["f"],
        u=u,
        f_exact=curves["f_exact"],
        breakpoints=[sigma_true],
        label=curves["label"],
    )
    return mark_miss(
        fig, u=u, sigma_true=sigma_true, tol=tol, estimate=estimate, label=curves["label"]
    )


def mark_miss(
    fig: go.Figure, *, u: str, sigma_true: float, tol: float, estimate: float | None, label: str
) -> go.Figure:
    """A two-row drill-down ``fig`` made the miss up close (:func:`miss_figure`): the
    tolerance band ``sigma_true ± tol`` shaded on both rows, the solver's (``label``)
    nearest estimated endpoint ``estimate`` dotted blue, its title and height."""
    fig.add_vrect(
        x0=sigma_true - tol,
        x1=sigma_true + tol,
        fillcolor="rgba(214,39,40,0.15)",
        line_width=0,
        layer="below",
        row="all",
        col=1,
    )
    fig.add_trace(
        go.Scatter(
            x=[None],
            y=[None],
            mode="markers",
            name=f"tolerance ± {tol:g}",
            marker=dict(symbol="square", size=12, color="rgba(214,39,40,0.3)"),
        ),
        row=1,
        col=1,
    )
    if estimate is not None:
        for r in (1, 2):
            fig.add_vline(x=estimate, line=dict(color=COLORS[0], dash="dot", width=2), row=r, col=1)
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="lines",
                name=f"estimated endpoint ({label})",
                line=dict(color=COLORS[0], dash="dot", width=2),
            ),
            row=1,
            col=1,
        )
    fig.update_layout(height=480, title=dict(text=f"The miss up close: {u}"))  # not validated
    return fig
