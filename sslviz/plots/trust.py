"""Where t-iteration CG can be trusted: its error against the smallest margin, the σ bands where
it may flip a label, and the t needed by CG and Jacobi-PCG (the loss page's panel and the
conditioning page's charts)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from sslviz.plots.style import (
    BOTTOM_LEGEND,
    LAYOUT,
    SIGMA_TITLE,
    axes,
    dict_figure,
    log_ticks,
    shade,
    subplot_layout,
    y_axis,
)

TRUST = {
    "error": "#d62728",
    "margin": "#2ca02c",
    "cg": "#1f77b4",
    "pcg": "#17becf",
    "band": "rgba(255,127,14,0.22)",
}


_BINARY_WORDS = {
    "error": "largest soft-label error",
    "margin": "smallest margin |f_u − ½|",
    "wrong": "nodes on the wrong side of ½",
    "error_legend": "error max|f_t − f|",
    "margin_legend": "margin min|f − ½|",
}
_CLASS_WORDS = {  # more than two classes (sslviz.class_trust)
    "error": "largest score error (every class column)",
    "margin": "half the smallest top-two margin",
    "wrong": "nodes whose top class is not the exact one",
    "error_legend": "error max|F_t − F|",
    "margin_legend": "half the top-two margin",
}
"""The trust panel's words for two classes and, one-vs-all, for more."""


def trust_traces(
    data: list[dict],
    layout: dict,
    trust,
    row_err: int,
    row_t: int,
    *,
    legend: bool = True,
    missed: Sequence[float] = (),
) -> None:
    """The trust panel (error against margin; t needed) as trace dicts appended to ``data``
    on two rows of a one-column subplot grid, its axes set in the grid's ``layout`` (from
    :func:`~sslviz.plots.style.subplot_layout`), shaded where ``trust.label`` cannot be
    trusted (``trust.bands(missed)``)."""
    s = np.asarray(trust.sigma, float)
    label = trust.label
    err = np.maximum(np.asarray(trust.error, float), 1e-17)
    margin = np.asarray(trust.margin, float)
    margin = np.where(np.isfinite(margin), np.maximum(margin, 1e-17), np.nan)
    words = _CLASS_WORDS if getattr(trust, "classes", None) else _BINARY_WORDS
    hover = [
        f"σ = {x:.4g}<br>{words['error']} of {label}: {e:.2g}<br>{words['margin']}: {m:.2g}"
        f"<br>{words['wrong']} with t = {trust.cg_iters}: {w}"
        + (f"<br>{d} nodes cut off from L" if d else "")
        + (f"<br>{q} nodes underflow for CG" if q else "")
        for x, e, m, w, d, q in zip(
            s,
            trust.error,
            trust.margin,
            trust.wrong,
            trust.degenerate,
            trust.underflow,
            strict=True,
        )
    ]
    on_err, on_t = axes(row_err), axes(row_t)
    layout.setdefault("shapes", []).extend(
        shade(lo, hi, TRUST["band"], row)
        for lo, hi in trust.bands(missed)
        for row in (row_err, row_t)
    )
    data.append(
        dict(
            type="scatter",
            x=[None],
            y=[None],
            mode="markers",
            name=f"{label} cannot be trusted here",
            marker=dict(symbol="square", size=12, color=TRUST["band"]),
            hoverinfo="skip",
            showlegend=legend,
            **on_err,
        )
    )
    for y, name, line in (
        (err, f"{label} {words['error_legend']}", dict(color=TRUST["error"], width=2)),
        (margin, words["margin_legend"], dict(color=TRUST["margin"], width=2, dash="dash")),
    ):
        data.append(
            dict(
                type="scatter",
                x=s,
                y=y,
                mode="lines+markers",
                name=name,
                line=line,
                marker=dict(size=5),
                text=hover,
                hovertemplate="%{text}<extra></extra>",
                showlegend=legend,
                **on_err,
            )
        )
    cap = trust.t_max
    for solver, name, dash in (("cg", "CG", "solid"), ("pcg", "PCG", "dot")):
        t = np.asarray(trust.t_needed(solver), float)
        over = t > cap
        data.append(
            dict(
                type="scatter",
                x=s,
                y=np.where((t <= 0) | over, np.nan, t),  # a capped search is no measurement
                mode="lines+markers",
                name=f"t needed, {name}",
                line=dict(color=TRUST[solver], width=2, dash=dash),
                marker=dict(size=5),
                text=[f"{int(v)}" if v > 0 else "no node to decide" for v in t],
                hovertemplate=f"σ = %{{x:.4g}}<br>t needed, {name}: %{{text}}<extra></extra>",
                showlegend=legend,
                **on_t,
            )
        )
        if over.any():  # drawn at the cap, as what it is: a lower bound
            data.append(
                dict(
                    type="scatter",
                    x=s[over],
                    y=np.full(int(over.sum()), float(cap)),
                    mode="markers",
                    name=f"t needed, {name}: more than {cap}",
                    marker=dict(color=TRUST[solver], size=10, symbol="triangle-up-open"),
                    hovertemplate=f"σ = %{{x:.4g}}<br>t needed, {name}: more than {cap} (no t "
                    f"up to the cap puts every node on its exact side)<extra></extra>",
                    showlegend=legend,
                    **on_t,
                )
            )
    data.append(
        dict(
            type="scatter",
            x=[s[0], s[-1]],
            y=[trust.cg_iters] * 2,
            mode="lines",
            name=f"t used ({label})",
            line=dict(color="black", dash="dash", width=1),
            hoverinfo="skip",
            showlegend=legend,
            **on_t,
        )
    )
    layout[y_axis(row_err)] |= dict(
        type="log", title=dict(text="error, margin (log)"), **log_ticks(err, margin)
    )
    ts = np.r_[trust.t_needed_cg, trust.t_needed_pcg, trust.cg_iters].astype(float)
    ts = ts[ts > 0]
    ticks = [
        v
        for k in range(7)
        for v in (10**k, 2 * 10**k, 5 * 10**k)
        if ts.size and ts.min() / 2 <= v <= ts.max() * 2
    ]
    layout[y_axis(row_t)] |= dict(
        type="log",
        title=dict(text="t needed (log)"),
        exponentformat="power",
        minor=dict(showgrid=False, ticks=""),
    ) | ({"tickvals": ticks} if ticks else {})


def trust_figure(trust, *, name: str | None = None) -> go.Figure:
    """Where t-iteration CG can be trusted, against σ.

    Parameters
    ----------
    trust : sslviz.conditioning.TrustCurve
    name : str, optional
        Appended to the title (e.g. the graph family).

    Returns
    -------
    go.Figure
        Two rows sharing σ. Top (log y): ``'<label> cannot be trusted here'`` (legend entry
        of the shaded σ bands of ``trust.bands()``), ``'<label> error
        max|f_t − f|'`` and ``'margin min|f − ½|'``; bottom (log y): ``'t needed, CG'``,
        ``'t needed, PCG'`` (triangles at t_max + 1 where the search did not reach it) and
        ``'t used (<label>)'``; ``<label>`` is e.g. ``'CG-20'``.
    """
    titles = (
        "largest soft-label error against the smallest margin",
        "t that puts every node on its exact side of 1/2",
    )
    grid = dict(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08, subplot_titles=titles)
    data: list[dict] = []
    layout = subplot_layout(**grid)
    trust_traces(data, layout, trust, 1, 2)
    layout["xaxis2"]["title"] = dict(text=SIGMA_TITLE)
    title = f"Where {trust.label} can be trusted" + (f" ({name})" if name else "")
    layout |= LAYOUT | dict(height=600, title=dict(text=title), legend=BOTTOM_LEGEND | {"y": -0.14})
    return dict_figure(data, layout, **grid)
