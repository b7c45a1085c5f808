"""Shared style of the figures: axis titles, colours, the base layout, number and log-axis
formatting."""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from typing import Any

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from plotly.subplots import make_subplots

SIGMA_TITLE = "σ (bandwidth, PCA-space distance)"


R_TITLE = "r (threshold radius, PCA-space distance)"


LOSS_TITLE = "loss l(σ) (share of U misclassified)"


COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf")


CLASS_COLORS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)
"""A qualitative palette of ten colours (Tableau 10, Plotly's D3), one per class when there
are more than two (docs/method.md §13)."""


def class_colors(n_classes: int) -> tuple[str, ...]:
    """The colour of each of ``n_classes`` classes: two classes keep :data:`COLORS`' first
    two (blue, red), more take :data:`CLASS_COLORS` in order (at most ten)."""
    if n_classes <= 2:
        return COLORS[:2]
    if n_classes > len(CLASS_COLORS):
        raise ValueError(
            f"class_colors: at most {len(CLASS_COLORS)} classes have a colour, not {n_classes}"
        )
    return CLASS_COLORS[:n_classes]


LAYOUT = dict(
    # l: room for a y axis's title and tick labels in Streamlit's font: when they fit,
    # Plotly's automargin has nothing to push and lays the chart out once, not twice
    # (benchmarks/plotly_draw.py draws the charts and shows the margins set and drawn)
    margin=dict(l=88, r=20, t=60, b=50),
    hovermode="closest",
    font=dict(size=14),
)  # readable on a projector (titles scale with it)


TEMPLATE = "plotly_white"
"""The figures' Plotly template, put in by :func:`new_figure`."""
_TEMPLATE_LOCK = threading.Lock()


def new_figure(data: Any = None, layout: Any = None, **subplots: Any) -> go.Figure:
    """A new figure in :data:`TEMPLATE`: ``go.Figure(data, layout)``, or
    ``make_subplots(**subplots)`` when subplot arguments are given.

    Plotly puts the template in as it puts its default template, which it has validated
    already: the same figure as ``update_layout(template=TEMPLATE)`` gives, without
    validating the template again (measured at 013e3a6 by ``benchmarks/figure_build.py``).
    Plotly reads its default while it builds a figure, so the default is :data:`TEMPLATE`
    for that moment only, set where Plotly keeps it (its setter would validate the template
    too); the lock keeps two threads building figures here from swapping it under each
    other."""
    with _TEMPLATE_LOCK:
        before = pio.templates._default
        pio.templates._default = TEMPLATE
        try:
            return _subplots(subplots) if subplots else go.Figure(data, layout)
        finally:
            pio.templates._default = before


_GRIDS: OrderedDict[str, tuple[dict, Any, Any]] = OrderedDict()
_GRIDS_KEPT = 64


def _grid(args: dict) -> tuple[dict, Any, Any]:
    """``make_subplots(**args)``'s layout (without its template) and its grid of subplots
    (what ``add_trace(row=, col=)`` reads), computed once per ``args`` (the last
    :data:`_GRIDS_KEPT` kept). Callers copy the layout."""
    key = repr(sorted(args.items()))
    if key in _GRIDS:
        _GRIDS.move_to_end(key)
        return _GRIDS[key]
    fig = make_subplots(**args)
    layout = fig.layout.to_plotly_json()
    layout.pop("template", None)
    _GRIDS[key] = (layout, fig._grid_ref, fig._grid_str)
    if len(_GRIDS) > _GRIDS_KEPT:
        _GRIDS.popitem(last=False)
    return _GRIDS[key]


def _attach_grid(fig: go.Figure, args: dict) -> go.Figure:
    # what make_subplots leaves for add_trace(row=, col=) to find the axes
    _, fig.__dict__["_grid_ref"], fig.__dict__["_grid_str"] = _grid(args)
    return fig


def _subplots(args: dict) -> go.Figure:
    """``make_subplots(**args)``: a copy of its layout and grid computed once per ``args``,
    the same figure at about half the cost (measured at 013e3a6 by
    ``benchmarks/figure_build.py``)."""
    fig = go.Figure()
    fig.update_layout(subplot_layout(**args))
    return _attach_grid(fig, args)


def subplot_layout(**subplots: Any) -> dict:
    """A copy of the layout dict ``make_subplots(**subplots)`` gives (axes, domains,
    subplot titles), without the template: the start of a :func:`dict_figure`'s layout."""
    return copy.deepcopy(_grid(subplots)[0])


_TEMPLATE_JSON: dict = {}


def dict_figure(data: list[dict], layout: dict, **subplots: Any) -> go.Figure:
    """The figure of trace dicts ``data`` and the layout dict ``layout``, in
    :data:`TEMPLATE`, made without Plotly's validation: a chart built as dicts takes a few
    ms where Plotly's object API takes 50-100 ms (``benchmarks/figure_build.py``). The
    dicts must be written as Plotly writes them (``{"type": "scatter", "xaxis": "x2",
    ...}``); the tests validate every figure built this way. ``subplots``: the arguments
    of the :func:`subplot_layout` the layout started from, so that ``add_trace(row=,
    col=)`` and ``add_vrect(row=...)`` work on the figure as on a ``make_subplots`` one. Later
    updates of the figure are not validated either (as for ``ui.cache.figure``'s copies):
    they must be written in Plotly's full form too (``title=dict(text=...)``). An empty
    ``shapes`` list is left out, as Plotly leaves it out of a figure without shapes."""
    if not _TEMPLATE_JSON:
        _TEMPLATE_JSON.update(pio.templates[TEMPLATE].to_plotly_json())
    layout = {k: v for k, v in layout.items() if k != "shapes" or v}
    layout["template"] = copy.deepcopy(_TEMPLATE_JSON)
    fig = go.Figure({"data": data, "layout": layout}, _validate=False)
    return _attach_grid(fig, subplots) if subplots else fig


def _suffix(row: int) -> str:
    """The axis number of a one-column subplot grid's row (1-based): ``""``, ``"2"``..."""
    return "" if row == 1 else str(row)


def axes(row: int) -> dict:
    """The axes of a one-column subplot grid's row (1-based), as a trace names them."""
    return {"xaxis": f"x{_suffix(row)}", "yaxis": f"y{_suffix(row)}"}


def y_axis(row: int) -> str:
    """The layout key of a one-column subplot grid's row's y axis: ``"yaxis"``,
    ``"yaxis2"``..."""
    return f"yaxis{_suffix(row)}"


def shade(lo: float, hi: float, color: str, row: int = 1) -> dict:
    """A band lo ≤ x ≤ hi over the whole height of a one-column subplot grid's row
    (1-based), under the traces: the shape ``add_vrect`` draws."""
    return dict(
        type="rect",
        x0=lo,
        x1=hi,
        xref=f"x{_suffix(row)}",
        y0=0,
        y1=1,
        yref=f"y{_suffix(row)} domain",
        fillcolor=color,
        line=dict(width=0),
        layer="below",
    )


BOTTOM_LEGEND = dict(orientation="h", yanchor="top", y=-0.2, xanchor="left", x=0)
"""A legend under the plot, left-aligned, wrapping to more rows when it is long."""


def rgba(hex_color: str, alpha: float) -> str:
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def number(x: float) -> str:
    """A tick value: ``'0.02'``, ``'500'``, ``'2·10⁻⁶'``."""
    if 1e-3 <= abs(x) < 1e5:
        return f"{x:g}"
    e = int(np.floor(np.log10(abs(x))))
    m = x / 10.0**e
    power = f"10{str(e).translate(SUPERSCRIPT)}"
    return power if round(m, 6) == 1 else f"{m:g}·{power}"


def log_ticks(*arrays) -> dict:
    """Ticks of a log axis over ``arrays``, labelled as powers of ten (10⁻⁶, not "1µ"):
    at most about five labelled decades when they span more than three, every decade
    over two or three, 1-2-5 over less; minor ticks unlabelled and without grid lines
    (Plotly's defaults label every minor digit on a narrow range and write small values
    with SI prefixes: 1µ, 1n, 1p, 1f)."""
    v = np.concatenate([np.ravel(np.asarray(a, float)) for a in arrays]) if arrays else []
    v = v[np.isfinite(v) & (v > 0)] if len(v) else v
    span = float(np.log10(v.max() / v.min())) if len(v) else 0.0
    out = {
        "exponentformat": "power",
        "showexponent": "all",
        "minor": dict(showgrid=False, ticks=""),
    }
    if span > 1.5:
        return out | {"dtick": int(np.ceil(span / 5)) if span > 3 else 1}
    if not len(v):
        return out
    # a narrow range: 1-2-5 ticks written in full (Plotly's "D2" writes 20 and 50 as "2", "5"),
    # denser where fewer than three of them fall on the data (the axis shows little more)
    lo, hi = float(v.min()), float(v.max())
    k0, k1 = int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi)))
    for mantissas, reach in (
        ((1, 2, 5), 2.5),
        ((1, 1.5, 2, 3, 5, 7), 1.0),
        ((1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9), 1.0),
    ):
        vals = [
            m * 10.0**k
            for k in range(k0, k1 + 1)
            for m in mantissas
            if lo / reach <= m * 10.0**k <= hi * reach
        ]
        if sum(lo <= x <= hi for x in vals) >= 3:
            break
    else:  # within a few percent: the ends and the middle, to three digits
        vals = sorted({float(f"{x:.3g}") for x in np.geomspace(lo, hi, 3)}) if hi > lo else [lo]
    return out | {"tickvals": vals, "ticktext": [number(x) for x in vals]}


def log_axis(
    fig: go.Figure, *arrays, row: int | None = None, col: int | None = None, **kwargs
) -> None:
    """Make one y axis of ``fig`` logarithmic with :func:`_log_ticks` over ``arrays``."""
    where = {"row": row, "col": col} if row is not None else {}
    fig.update_yaxes(type="log", **log_ticks(*arrays), **kwargs, **where)


def wrap(text: str, width: int = 70) -> str:
    import textwrap

    return "<br>".join(textwrap.wrap(text, width)) if text else ""


def level_line(y: float, axis: str = "") -> dict:
    """A dotted black line across the plot at height ``y`` of the y-axis ``axis`` ("" for
    the first, "2" for the second): the ½ of a soft label, the 0 of a margin."""
    return dict(
        type="line",
        x0=0,
        x1=1,
        xref=f"x{axis} domain",
        y0=y,
        y1=y,
        yref=f"y{axis}",
        line=dict(color="black", width=1, dash="dot"),
    )
