"""The loss page's main figure (Figure 3): the true loss l(σ), Algorithm 4's estimated intervals,
the missed breakpoints and spurious endpoints by cause, and the helpers that read its clicks."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from sslviz.plots.style import (
    BOTTOM_LEGEND,
    COLORS,
    LAYOUT,
    LOSS_TITLE,
    R_TITLE,
    SIGMA_TITLE,
    axes,
    dict_figure,
    shade,
    subplot_layout,
    wrap,
    y_axis,
)
from sslviz.plots.trust import trust_traces
from sslviz.words import CAUSE_WORDS, COLUMN_WORDS, NOT_EXAMINED, cause_words, plain_text

CAUSE_STYLE = {  # cause of a miss → (colour, marker symbol); spurious endpoints: "-open"
    "solver": ("#d62728", "x"),
    "search": ("#9467bd", "diamond"),
    "close pair": ("#ff7f0e", "triangle-up"),
    "degenerate": ("#7f7f7f", "square"),
    "unattributed": ("#8c564b", "circle"),
}
"""Marker colour and symbol per cause (:data:`sslviz.intervals.CAUSES`): a missed true
breakpoint is drawn filled, a spurious endpoint with the ``-open`` variant of its symbol."""


# misses whose cause was not looked for (max_attributed): a trace of their own
_NOT_EXAMINED_WORDS = f"{CAUSE_WORDS['unattributed']}, {NOT_EXAMINED}"


_UNSELECTED = dict(marker=dict(opacity=0.6))  # after a click: the other points stay readable


def _pct(x: float) -> str:
    """A loss (fraction of U) in words: ``'12.0% of U misclassified'``."""
    return f"{100 * float(x):.1f}% of U misclassified"


def _node_text(u: int, rows: Sequence[int] | None) -> str:
    """A node as the pages name it: by its instance row (one index everywhere), or as
    unlabeled node ``u`` where the rows are not known."""
    if u is None or u < 0:
        return "range end"
    return f"node {rows[u]}" if rows is not None else f"unlabeled node {u}"


def algorithm4_start(sweep, sigma: float, evidence: Mapping | None = None) -> float:
    """The σ0 from which Algorithm 4 searches around ``sigma`` (a drill-down's start).

    ``evidence['sigma0']`` when the attribution recorded one (paper-mode search misses);
    else, as :func:`sslviz.intervals.score` reads the sweep: in a restart gap
    (σ_h, σ_h + step] after an interval, the next interval's σ0 (where the sweep restarted);
    otherwise the σ0 of the first estimated interval holding ``sigma`` (paper mode: where
    its search started; fast mode: the piece's midpoint, where Algorithm 4 would start for
    it). ``sigma`` itself when no interval holds it.
    """
    if evidence and evidence.get("sigma0") is not None:
        return float(evidence["sigma0"])
    ivs = list(getattr(sweep, "intervals", None) or [])
    paper = getattr(getattr(sweep, "settings", None), "mode", "fast") == "paper"
    step = sweep.settings.step if paper else 0.0
    for k, iv in enumerate(ivs):
        start = ivs[k + 1].sigma0 if k + 1 < len(ivs) else iv.hi + step
        if iv.hi < sigma < start <= sweep.sigma_max:
            return float(start)
    for iv in ivs:
        if iv.lo <= sigma <= iv.hi:
            return float(iv.sigma0)
    return float(sigma)


def selected_node(points: Sequence[Mapping] | None) -> tuple[int, float] | None:
    """``(instance row, σ0)`` of the first selected point that names a node, else None
    (:func:`selected_point` without the point's σ)."""
    pick = selected_point(points)
    return None if pick is None else (pick[0], pick[2])


def selected_point(points: Sequence[Mapping] | None) -> tuple[int, float, float] | None:
    """``(instance row, σ, σ0)`` of the first selected point that names a node, else None.

    ``points`` are a click's points (Plotly's, as the app's chart element sends them, with
    the keys of Streamlit's ``selection.points``): each a dict whose ``customdata`` is the
    point's row of the figure's ``customdata``. In
    :func:`loss_intervals_figure` the clickable points (true breakpoints, interval ends,
    misses and spurious endpoints) carry ``[row, u, σ, σ0]``; ``row`` < 0 marks a point
    without a node (an end of the range).
    """
    for p in points or ():
        cd = p.get("customdata") if isinstance(p, Mapping) else None
        if cd is None or isinstance(cd, str) or len(cd) < 4:
            continue
        row, sigma, sigma0 = cd[0], cd[2], cd[3]
        if row is None or sigma0 is None or sigma is None:
            continue
        try:
            row, sigma, sigma0 = int(row), float(sigma), float(sigma0)
        except (TypeError, ValueError):
            continue
        if row >= 0 and math.isfinite(sigma0):
            return row, sigma, sigma0
    return None


def _click_data(u: int, rows, sigma: float, sigma0: float) -> list:
    row = -1 if u is None or u < 0 else (int(rows[u]) if rows is not None else int(u))
    return [row, -1 if u is None else int(u), float(sigma), float(sigma0)]


def _interval_trace(
    sweep, truth, rows, name: str, color: str, dash: str = "solid", param: str = "σ"
) -> dict:
    xs, ys, text, cd = [], [], [], []
    for i, iv in enumerate(sweep.intervals):
        mid = 0.5 * (iv.lo + iv.hi)
        seen = (
            truth.loss.values[
                truth.loss.piece_index(iv.lo) : int(
                    truth.loss.piece_index(min(iv.hi, truth.loss.hi))
                )
                + 1
            ]
            if truth is not None
            else []
        )
        true_txt = (
            f"{100 * float(np.min(seen)):.1f}% to {_pct(np.max(seen))}"
            if len(seen) and np.min(seen) != np.max(seen)
            else (_pct(truth.loss(mid)) if truth is not None else "n/a")
        )
        t = (
            f"<b>{name}, interval {i + 1}</b><br>{param} from {iv.lo:.4g} to {iv.hi:.4g}"
            f"<br>estimated loss {_pct(iv.loss)}<br>true loss {true_txt}"
            f"<br>left end set by {_node_text(iv.lo_node, rows)}"
            f"<br>right end set by {_node_text(iv.hi_node, rows)}"
        )
        xs += [iv.lo, iv.hi, None]
        ys += [iv.loss, iv.loss, None]
        text += [t, t, ""]
        cd += [
            _click_data(iv.lo_node, rows, iv.lo, iv.sigma0),
            _click_data(iv.hi_node, rows, iv.hi, iv.sigma0),
            [-1, -1, 0.0, 0.0],
        ]
    return dict(
        type="scatter",
        x=xs,
        y=ys,
        text=text,
        customdata=cd,
        mode="lines+markers",
        name=name,
        opacity=0.7,
        zorder=1,  # under the true loss (zorder 2), which stays visible on top of it
        line=dict(color=color, width=5, dash=dash),
        marker=dict(symbol="line-ns-open", size=10, color=color),
        hovertemplate="%{text}<extra></extra>",
        unselected=_UNSELECTED,
    )


def _evidence_text(rec) -> str:
    """A record's evidence, each number under the words of its table column."""
    ev = rec.evidence
    bits = []
    for key in ("error", "margin", "t_needed"):
        if ev.get(key) is not None:
            v = ev[key]
            bits.append(f"{COLUMN_WORDS[key]} {v if key == 't_needed' else f'{v:.2g}'}")
    if ev.get("distance") is not None:
        bits.append(f"{COLUMN_WORDS['distance']} {ev['distance']:.2g}")
    return ", ".join(bits)


def _cause_traces(
    records, kind: str, truth, sweep, rows, param: str = "σ", settings=None
) -> list[dict]:
    """One marker trace per cause of ``records`` (misses or spurious endpoints): small,
    half-transparent markers drawn under the true loss (``zorder``), so the black line
    stays visible where breakpoints are dense. Each cause is named in its words
    (:func:`sslviz.words.cause_words` for the sweep's ``settings``)."""
    est = sweep.estimated_loss() if (kind == "spurious" and sweep is not None) else None
    by: dict[str, list] = {}
    for r in records:  # misses left out by score(max_attributed=) get a trace of their own
        unexamined = r.cause == "unattributed" and "examined" in r.evidence
        by.setdefault(NOT_EXAMINED if unexamined else r.cause, []).append(r)
    order = [c for c in CAUSE_STYLE if c in by] + [c for c in by if c not in CAUSE_STYLE]
    traces = []
    for cause in order:
        recs = by[cause]
        faint = cause == NOT_EXAMINED
        color, symbol = CAUSE_STYLE.get("unattributed" if faint else cause, ("#000", "circle"))
        words = _NOT_EXAMINED_WORDS if faint else cause_words(cause, settings)
        xs, ys, text, cd = [], [], [], []
        for r in recs:
            ev = r.evidence
            if kind == "miss":
                u = int(ev.get("node", r.nodes[0] if r.nodes else -1))
                y = float(truth.loss(r.sigma))
                head = f"<b>missed true breakpoint</b> at {param} = {r.sigma:.4g}<br>cause: {words}"
                nodes = ", ".join(_node_text(int(v), rows) for v in r.nodes)
            else:
                u = int(ev.get("node", r.node))
                span = 1e-9 * max(1.0, abs(r.sigma))
                vals = [float(est(min(max(r.sigma + d, est.lo), est.hi))) for d in (-span, span)]
                vals = [v for v in vals if np.isfinite(v)]
                y = float(np.mean(vals)) if vals else float(truth.loss(r.sigma))
                head = (
                    f"<b>spurious endpoint</b> at {param} = {r.sigma:.4g} (no true "
                    f"breakpoint there)<br>cause: {words}"
                )
                nodes = _node_text(u, rows)
            s0 = algorithm4_start(sweep, r.sigma, ev)
            xs.append(r.sigma)
            ys.append(y)
            cd.append(_click_data(u, rows, r.sigma, s0))
            evid = _evidence_text(r)
            text.append(
                f"{head}<br>nodes: {nodes}<br>{wrap(plain_text(r.detail))}"
                + (f"<br>{evid}" if evid else "")
                + (f"<br><i>click: drill-down from {param}0 = {s0:.4g}</i>" if u >= 0 else "")
            )
        miss = kind == "miss"
        trace = dict(
            type="scatter",
            x=xs,
            y=ys,
            mode="markers",
            name=f"missed: {words}" if miss else f"spurious endpoint: {words}",
            legendgroup=f"{kind}: {cause}",
            text=text,
            customdata=cd,
            zorder=0,  # under the estimate and the true loss
            marker=dict(
                symbol=symbol if miss else f"{symbol}-open",
                size=4 if faint else 8 if miss else 7,
                color=color,
                line=dict(width=1, color=color),
                opacity=0.3 if faint else 0.6,
            ),
            hovertemplate="%{text}<extra></extra>",
            unselected=_UNSELECTED,
            # thousands of them would hide the true loss: listed, drawn on a legend click
            visible="legendonly" if faint else True,
        )
        traces.append(trace)
    return traces


def loss_part_figure(part, *, rows: Sequence[int] | None = None, trust_pending: str) -> go.Figure:
    """The loss chart of a part of an exact curve (:class:`sslviz.truth.CurvePart`) while
    its search runs: :func:`loss_intervals_figure` of the curve found so far, on the σ
    range of the whole curve (it grows to the right as parts arrive), the trust panel's
    place under it saying ``trust_pending`` (the finished chart's height)."""
    fig = loss_intervals_figure(part.curve, rows=rows, trust_pending=trust_pending)
    fig.update_xaxes(range=[float(part.curve.loss.edges[0]), float(part.sigma_max)])
    return fig


def loss_intervals_figure(
    truth,
    sweep=None,
    *,
    score=None,
    rows: Sequence[int] | None = None,
    compare=None,
    compare_name: str = "compare",
    name: str = "estimated intervals",
    trust=None,
    trust_pending: str | None = None,
) -> go.Figure:
    """The paper's Figure 3: true loss, estimated constant-loss intervals, misses by cause.

    Parameters
    ----------
    truth : sslviz.truth.LossCurve
        The exact loss (drawn as a step function).
    sweep : sslviz.intervals.Sweep, optional
        Estimated intervals, drawn as horizontal segments at their estimated loss; the
        hover text gives the endpoints, estimated and true loss and the node that set
        each endpoint.
    score : sslviz.intervals.Score, optional
        Its ``miss_records`` are marked on the true loss and its ``spurious_records`` on
        the estimate's jumps, coloured and shaped by cause (:data:`CAUSE_STYLE`); the hover
        text gives the cause's detail and evidence.
    rows : sequence of int, optional
        Instance row of each unlabeled node (hover text and ``customdata``).
    compare : Sweep, optional
        A second estimate, drawn dashed, named ``compare_name``.
    trust : sslviz.conditioning.TrustCurve, optional
        Adds the trust panel under the chart, on two rows sharing its σ axis (as
        :func:`trust_figure`).
    trust_pending : str, optional
        Without ``trust``: the same three-row grid, at the same height, its two lower rows
        empty but for this text (a partial chart whose trust panel follows: the page keeps
        its height when the panel arrives).

    Returns
    -------
    go.Figure
        Traces, in order: ``'true loss l(σ)'``, ``name``, ``compare_name`` (if given),
        ``'missed: <cause>'`` per cause of a miss and ``'spurious endpoint: <cause>'``
        per cause of a spurious endpoint (causes in the order of :data:`CAUSE_STYLE`, in
        their words: :func:`sslviz.words.cause_words`; misses not examined: ``'missed:
        unexplained, not examined'``),
        ``'degenerate σ (nodes cut off from L)'`` (legend entry for the shaded ranges, if
        any), then with ``trust`` the traces of :func:`trust_figure` (rows 2 and 3; the
        σ axis title moves to the bottom row). Clickable points (true breakpoints,
        interval ends, misses, spurious endpoints) carry ``customdata = [row, u, σ, σ0]``
        (:func:`selected_node`; row −1: no node).
    """
    e, v = truth.loss.edges, truth.loss.values
    param = "r" if getattr(truth, "parameter", "sigma") == "r" else "σ"
    sweep_label = sweep.settings.label if sweep is not None else None
    grid = (
        dict(
            rows=3, cols=1, shared_xaxes=True, vertical_spacing=0.05, row_heights=[0.56, 0.22, 0.22]
        )
        if trust is not None or trust_pending is not None
        else {}
    )
    layout = subplot_layout(**grid) if grid else {}
    main = axes(1) if grid else {}  # the loss chart's axes
    # the true loss; a breakpoint vertex names its node (a click opens its drill-down)
    bp_node = {
        float(b): int(nd[0])
        for b, nd in zip(truth.breakpoints, truth.nodes, strict=True)
        if len(nd)
    }
    cd = [
        _click_data(
            bp_node.get(float(x), -1),
            rows,
            x,
            algorithm4_start(sweep, x) if sweep is not None else x,
        )
        for x in e
    ]
    data = [
        dict(
            type="scatter",
            x=e,
            y=np.r_[v, v[-1]],
            mode="lines",
            line=dict(color="black", width=2, shape="hv"),
            name=f"true loss l({param})",
            zorder=2,  # on top: markers and intervals never hide it
            customdata=cd,
            text=[_pct(y) for y in np.r_[v, v[-1]]],
            hovertemplate=f"{param} = %{{x:.4g}} · true loss %{{text}}<extra></extra>",
        )
    ]
    if sweep is not None:
        data.append(_interval_trace(sweep, truth, rows, name, COLORS[0], param=param))
    if compare is not None:
        data.append(_interval_trace(compare, truth, rows, compare_name, COLORS[4], "dot", param))
    if score is not None:
        settings = getattr(score, "settings", None) or getattr(sweep, "settings", None)
        for records, kind in ((score.miss_records, "miss"), (score.spurious_records, "spurious")):
            data += _cause_traces(records, kind, truth, sweep, rows, param, settings)
    deg = list(getattr(truth, "degenerate_ranges", []) or [])
    every_row = (1, 2, 3) if grid else (1,)
    layout["shapes"] = [
        shade(lo, hi, "rgba(128,128,128,0.25)", row) for lo, hi, _ in deg for row in every_row
    ]
    if deg:
        data.append(
            dict(
                type="scatter",
                x=[None],
                y=[None],
                mode="markers",
                name=f"degenerate {param} (nodes cut off from L)",
                marker=dict(symbol="square", size=12, color="rgba(128,128,128,0.5)"),
            )
        )
    data = [trace | main for trace in data]
    x_title = R_TITLE if param == "r" else SIGMA_TITLE
    y_title = LOSS_TITLE.replace("l(σ)", f"l({param})")
    loss_axis = dict(title=dict(text=y_title), tickformat=".1~%", rangemode="tozero")
    if grid:  # the trust panel under the chart, or its place (its text in the middle)
        title = "Constant-loss intervals (Figure 3)"
        if trust is not None:
            trust_traces(data, layout, trust, 2, 3)  # the grid's bands, as every page shades
            title += " and where " + (
                f"{trust.label} can be trusted"
                if sweep is None or trust.label == sweep_label
                else f"{trust.label} could replace {sweep_label}"
            )
        else:
            for row in (2, 3):
                layout[y_axis(row)] |= dict(showticklabels=False, showgrid=False, zeroline=False)
            low, high = layout["yaxis3"]["domain"][0], layout["yaxis2"]["domain"][1]
            layout["annotations"] = [
                *layout.get("annotations", []),
                dict(
                    text=trust_pending,
                    x=0.5,
                    y=(low + high) / 2,
                    xref="paper",
                    yref="paper",
                    showarrow=False,
                    font=dict(color="gray"),
                ),
            ]
        layout["xaxis3"]["title"] = dict(text=x_title)
        layout["yaxis"] |= loss_axis | dict(title=dict(text=f"loss l({param})"))
        layout |= LAYOUT | dict(
            margin=LAYOUT["margin"] | dict(b=40),
            height=820,
            title=dict(text=title),
            legend=BOTTOM_LEGEND | {"y": -0.08},
        )
        return dict_figure(data, layout, **grid)
    title = (
        "Exact loss over the threshold radius r"
        if param == "r"
        else "Constant-loss intervals (Figure 3)"
    )
    layout |= dict(xaxis=dict(title=dict(text=x_title)), yaxis=loss_axis)
    layout |= LAYOUT | dict(title=dict(text=title), legend=BOTTOM_LEGEND)
    return dict_figure(data, layout)
