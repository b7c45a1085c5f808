"""Plotly figure builders: pure functions from sslviz results to ``go.Figure``.

Nothing here imports Streamlit; every builder takes computed results (no model calls)
and returns a new figure, so the app, notebooks and tests draw the same pictures.

Builders
--------
samples_figure           sample images of the two classes (Home)
instance_figure          the instance's first two features, labeled points marked (Home)
loss_intervals_figure    true l(σ), estimated intervals, misses and spurious endpoints by
                         cause, optionally the trust panel under it (Figure 3)
soft_label_figure        exact and approximate f_u(σ), g_u(σ) and the iterates of each step
                         rule (Figure 2)
condition_figure         √κ against σ, one panel per graph family (Figure 5)
cg_figure                CG iterations needed and t-iteration CG error against σ
trust_figure             where t-iteration CG can be trusted: error against margin, σ bands
                         where it may flip a label, t needed for CG and PCG

Helpers for the loss page's clicks: :func:`algorithm4_start` (the σ0 a drill-down starts
from) and :func:`selected_node` (a Plotly selection → the clicked node and its σ0; the
loss figure's clickable points carry ``customdata = [row, u, σ, σ0]``).
regret_figure            cumulative regret with 95% bands and the theoretical rate
average_regret_figure    R_t / t
density_figure           the learner's density over σ across rounds (heatmap)
speed_figure             time per interval and M per configuration (Table 1)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

SIGMA_TITLE = "σ (bandwidth, PCA-space distance)"
R_TITLE = "r (threshold radius, PCA-space distance)"
LOSS_TITLE = "loss l(σ) (share of U misclassified)"
_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf")
_RULE_STYLE = {  # step rule → (colour, marker symbol, line dash) of its iterates
    "gradient": ("#2ca02c", "circle", "dot"),
    "newton": ("#d62728", "diamond", "dash"),
    "hybrid": ("#9467bd", "square", "solid"),
}
_NOT_EXAMINED = "not examined"  # misses whose cause was not looked for (max_attributed)

CAUSE_STYLE = {  # cause of a miss → (colour, marker symbol); spurious endpoints: "-open"
    "solver": ("#d62728", "x"),
    "search": ("#9467bd", "diamond"),
    "close pair": ("#ff7f0e", "triangle-up"),
    "degenerate": ("#7f7f7f", "square"),
    "unattributed": ("#8c564b", "circle"),
}
"""Marker colour and symbol per cause (:data:`sslviz.intervals.CAUSES`): a missed true
breakpoint is drawn filled, a spurious endpoint with the ``-open`` variant of its symbol."""
_UNSELECTED = dict(marker=dict(opacity=0.6))  # after a click: the other points stay readable
_TRUST = {"error": "#d62728", "margin": "#2ca02c", "cg": "#1f77b4", "pcg": "#17becf",
          "band": "rgba(255,127,14,0.22)"}  # fmt: skip
_LAYOUT = dict(
    template="plotly_white",
    margin=dict(l=70, r=20, t=60, b=50),
    hovermode="closest",
    font=dict(size=14),
)  # readable on a projector (titles scale with it)
_BOTTOM_LEGEND = dict(orientation="h", yanchor="top", y=-0.2, xanchor="left", x=0)
"""A legend under the plot, left-aligned, wrapping to more rows when it is long."""


def _rgba(hex_color: str, alpha: float) -> str:
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def _log_ticks(*arrays) -> dict:
    """Ticks of a log axis over ``arrays``, labelled as powers of ten (10⁻⁶, not "1µ"):
    at most about five labelled decades when they span more than three, every decade
    over two or three, 1-2-5 over less; minor ticks unlabelled and without grid lines
    (Plotly's defaults label every minor digit on a narrow range and write small values
    with SI prefixes: 1µ, 1n, 1p, 1f)."""
    v = np.concatenate([np.ravel(np.asarray(a, float)) for a in arrays]) if arrays else []
    v = v[np.isfinite(v) & (v > 0)] if len(v) else v
    span = float(np.log10(v.max() / v.min())) if len(v) else 0.0
    out = {"exponentformat": "power", "showexponent": "all",
           "minor": dict(showgrid=False, ticks="")}  # fmt: skip
    if span > 1.5:
        return out | {"dtick": int(np.ceil(span / 5)) if span > 3 else 1}
    if not len(v):
        return out
    # a narrow range: 1-2-5 ticks written in full (Plotly's "D2" writes 20 and 50 as "2", "5"),
    # denser where fewer than three of them fall on the data (the axis shows little more)
    lo, hi = float(v.min()), float(v.max())
    k0, k1 = int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi)))
    for mantissas, reach in (((1, 2, 5), 2.5), ((1, 1.5, 2, 3, 5, 7), 1.0),
                             ((1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9), 1.0)):  # fmt: skip
        vals = [m * 10.0**k for k in range(k0, k1 + 1) for m in mantissas
                if lo / reach <= m * 10.0**k <= hi * reach]  # fmt: skip
        if sum(lo <= x <= hi for x in vals) >= 3:
            break
    else:  # within a few percent: the ends and the middle, to three digits
        vals = sorted({float(f"{x:.3g}") for x in np.geomspace(lo, hi, 3)}) if hi > lo else [lo]
    return out | {"tickvals": vals, "ticktext": [_number(x) for x in vals]}


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _number(x: float) -> str:
    """A tick value: ``'0.02'``, ``'500'``, ``'2·10⁻⁶'``."""
    if 1e-3 <= abs(x) < 1e5:
        return f"{x:g}"
    e = int(np.floor(np.log10(abs(x))))
    m = x / 10.0**e
    power = f"10{str(e).translate(_SUPERSCRIPT)}"
    return power if round(m, 6) == 1 else f"{m:g}·{power}"


def _log_axis(
    fig: go.Figure, *arrays, row: int | None = None, col: int | None = None, **kwargs
) -> None:
    """Make one y axis of ``fig`` logarithmic with :func:`_log_ticks` over ``arrays``."""
    where = {"row": row, "col": col} if row is not None else {}
    fig.update_yaxes(type="log", **_log_ticks(*arrays), **kwargs, **where)


def _pct(x: float) -> str:
    """A loss (fraction of U) in words: ``'12.0% of U misclassified'``."""
    return f"{100 * float(x):.1f}% of U misclassified"


def _node_text(u: int, rows: Sequence[int] | None) -> str:
    """A node as the pages name it: by its instance row (one index everywhere), or as
    unlabeled node ``u`` where the rows are not known."""
    if u is None or u < 0:
        return "range end"
    return f"node {rows[u]}" if rows is not None else f"unlabeled node {u}"


# --------------------------------------------------------------------------------------------
# Home
# --------------------------------------------------------------------------------------------


def samples_figure(
    images: Sequence[np.ndarray],
    labels: Sequence[str],
    image_shape: tuple[int, int],
    *,
    per_row: int = 4,
) -> go.Figure:
    """A mosaic of sample images, one block of rows per class.

    Parameters
    ----------
    images : sequence of ndarray of shape (height * width,)
        Flattened pixels in [0, 1], grouped by class (the same number for each class).
    labels : sequence of str
        One name per class, in the order of ``images``.
    image_shape : (int, int)
        ``(height, width)``.
    per_row : int, default=4
        Images per mosaic row.

    Returns
    -------
    go.Figure
        One ``'samples'`` heatmap; the y ticks name the classes.
    """
    h, w = image_shape
    n_cls = max(len(labels), 1)
    per_class = max(len(images) // n_cls, 1)
    rows_per_class = -(-per_class // per_row)
    pad = max(1, h // 8)
    gap = 2 * pad  # extra space between classes
    block = rows_per_class * (h + pad) + gap
    mosaic = np.full((n_cls * block, per_row * (w + pad)), np.nan)
    for i, img in enumerate(images):
        c, j = divmod(i, per_class)
        if c >= n_cls:
            break
        r, col = divmod(j, per_row)
        y0, x0 = c * block + r * (h + pad), col * (w + pad)
        mosaic[y0 : y0 + h, x0 : x0 + w] = np.reshape(img, (h, w))
    fig = go.Figure(
        go.Heatmap(z=mosaic, colorscale="gray_r", showscale=False, hoverinfo="skip", name="samples")
    )
    centers = [c * block + (block - gap) / 2 for c in range(n_cls)]
    ticktext = [_wrap(str(lab), 12) or str(lab) for lab in labels]  # long names wrap
    widest = max((len(line) for t in ticktext for line in t.split("<br>")), default=1)
    fig.update_yaxes(
        autorange="reversed",
        tickvals=centers,
        ticktext=ticktext,
        title_text="class",
        scaleanchor="x",
        showgrid=False,
        zeroline=False,
    )
    fig.update_xaxes(showticklabels=False, title_text="samples", showgrid=False, zeroline=False)
    fig.update_layout(**_LAYOUT | {"margin": dict(l=45 + 9 * widest, r=20, t=60, b=40)},
                      title="Sample images of the two classes", height=450)  # fmt: skip
    return fig


def instance_figure(
    X: np.ndarray,
    y: np.ndarray,
    labeled: np.ndarray,
    class_names: Sequence[str] = ("class 0", "class 1"),
) -> go.Figure:
    """The instance's points on their first two features (PCA components)."""
    X = np.asarray(X, float)
    x0 = X[:, 0]
    x1 = X[:, 1] if X.shape[1] > 1 else np.zeros_like(x0)
    fig = go.Figure()
    for c in (0, 1):
        for lab, sym, size in ((False, "circle-open", 7), (True, "star", 13)):
            m = (np.asarray(y) == c) & (np.asarray(labeled) == lab)
            fig.add_trace(
                go.Scatter(
                    x=x0[m],
                    y=x1[m],
                    mode="markers",
                    name=f"{class_names[c]} ({'labeled' if lab else 'unlabeled'})",
                    marker=dict(symbol=sym, size=size, color=_COLORS[c]),
                )
            )
    fig.update_layout(**_LAYOUT, title="The instance (first two PCA components)")
    fig.update_xaxes(title_text="PC 1")
    fig.update_yaxes(title_text="PC 2")
    return fig


# --------------------------------------------------------------------------------------------
# Loss intervals (Figure 3) and drill-down (Figure 2)
# --------------------------------------------------------------------------------------------


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

    ``points`` is Streamlit's ``event.selection.points`` (Plotly's selected points): each a
    dict whose ``customdata`` is the point's row of the figure's ``customdata``. In
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
) -> go.Scatter:
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
    return go.Scatter(
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
    ev = rec.evidence
    bits = []
    for key, label in (("error", "error |f_t − f|"), ("margin", "margin |f − ½|")):
        if ev.get(key) is not None:
            bits.append(f"{label} {ev[key]:.2g}")
    if ev.get("t_needed") is not None:
        bits.append(f"t needed {ev['t_needed']}")
    if ev.get("distance") is not None:
        bits.append(f"partner {ev['distance']:.2g} away")
    if ev.get("how"):
        bits.append(f"how: {ev['how']}")
    return ", ".join(bits)


def _wrap(text: str, width: int = 70) -> str:
    import textwrap

    return "<br>".join(textwrap.wrap(text, width)) if text else ""


def _cause_traces(
    fig, records, kind: str, truth, sweep, rows, row: int | None, param: str = "σ"
) -> None:
    """One marker trace per cause of ``records`` (misses or spurious endpoints): small,
    half-transparent markers drawn under the true loss (``zorder``), so the black line
    stays visible where breakpoints are dense."""
    est = sweep.estimated_loss() if (kind == "spurious" and sweep is not None) else None
    by: dict[str, list] = {}
    for r in records:  # misses left out by score(max_attributed=) get a trace of their own
        unexamined = r.cause == "unattributed" and "examined" in r.evidence
        by.setdefault(_NOT_EXAMINED if unexamined else r.cause, []).append(r)
    order = [c for c in CAUSE_STYLE if c in by] + [c for c in by if c not in CAUSE_STYLE]
    for cause in order:
        recs = by[cause]
        faint = cause == _NOT_EXAMINED
        color, symbol = CAUSE_STYLE.get("unattributed" if faint else cause, ("#000", "circle"))
        xs, ys, text, cd = [], [], [], []
        for r in recs:
            ev = r.evidence
            if kind == "miss":
                u = int(ev.get("node", r.nodes[0] if r.nodes else -1))
                y = float(truth.loss(r.sigma))
                head = f"<b>missed true breakpoint</b> at {param} = {r.sigma:.4g}<br>cause: {cause}"
                nodes = ", ".join(_node_text(int(v), rows) for v in r.nodes)
            else:
                u = int(ev.get("node", r.node))
                span = 1e-9 * max(1.0, abs(r.sigma))
                vals = [float(est(min(max(r.sigma + d, est.lo), est.hi))) for d in (-span, span)]
                vals = [v for v in vals if np.isfinite(v)]
                y = float(np.mean(vals)) if vals else float(truth.loss(r.sigma))
                head = (f"<b>spurious endpoint</b> at {param} = {r.sigma:.4g} (no true "
                        f"breakpoint there)<br>cause: {cause}")  # fmt: skip
                nodes = _node_text(u, rows)
            s0 = algorithm4_start(sweep, r.sigma, ev)
            xs.append(r.sigma)
            ys.append(y)
            cd.append(_click_data(u, rows, r.sigma, s0))
            evid = _evidence_text(r)
            text.append(
                f"{head}<br>nodes: {nodes}<br>{_wrap(r.detail)}"
                + (f"<br>{evid}" if evid else "")
                + (f"<br><i>click: drill-down from {param}0 = {s0:.4g}</i>" if u >= 0 else "")
            )
        miss = kind == "miss"
        trace = go.Scatter(
            x=xs,
            y=ys,
            mode="markers",
            name=f"missed: {cause}" if miss else f"spurious endpoint: {cause}",
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
        fig.add_trace(trace, row=row, col=1 if row else None)


def _trust_traces(
    fig, trust, row_err: int, row_t: int, *, legend: bool = True, missed: Sequence[float] = ()
) -> None:
    """The trust panel (error against margin; t needed) into two rows of ``fig``, shaded
    where ``trust.label`` cannot be trusted (``trust.bands(missed)``)."""
    s = np.asarray(trust.sigma, float)
    label = trust.label
    err = np.maximum(np.asarray(trust.error, float), 1e-17)
    margin = np.asarray(trust.margin, float)
    margin = np.where(np.isfinite(margin), np.maximum(margin, 1e-17), np.nan)
    hover = [
        f"σ = {x:.4g}<br>largest soft-label error of {label}: {e:.2g}<br>smallest margin "
        f"|f_u − ½|: {m:.2g}<br>nodes on the wrong side of ½ with t = {trust.cg_iters}: {w}"
        + (f"<br>{d} nodes cut off from L" if d else "")
        + (f"<br>{q} nodes underflow for CG" if q else "")
        for x, e, m, w, d, q in zip(s, trust.error, trust.margin, trust.wrong,
                                    trust.degenerate, trust.underflow, strict=True)
    ]  # fmt: skip
    for lo, hi in trust.bands(missed):
        for r in (row_err, row_t):
            fig.add_vrect(x0=lo, x1=hi, fillcolor=_TRUST["band"], line_width=0, layer="below",
                          row=r, col=1, exclude_empty_subplots=False)  # fmt: skip
    fig.add_trace(
        go.Scatter(
            x=[None], y=[None], mode="markers", name=f"{label} cannot be trusted here",
            marker=dict(symbol="square", size=12, color=_TRUST["band"]), hoverinfo="skip",
            showlegend=legend,
        ),
        row=row_err, col=1,
    )  # fmt: skip
    fig.add_trace(
        go.Scatter(
            x=s, y=err, mode="lines+markers", name=f"{label} error max|f_t − f|",
            line=dict(color=_TRUST["error"], width=2), marker=dict(size=5),
            text=hover, hovertemplate="%{text}<extra></extra>", showlegend=legend,
        ),
        row=row_err, col=1,
    )  # fmt: skip
    fig.add_trace(
        go.Scatter(
            x=s, y=margin, mode="lines+markers", name="margin min|f − ½|",
            line=dict(color=_TRUST["margin"], width=2, dash="dash"), marker=dict(size=5),
            text=hover, hovertemplate="%{text}<extra></extra>", showlegend=legend,
        ),
        row=row_err, col=1,
    )  # fmt: skip
    cap = trust.t_max
    for solver, name, dash in (("cg", "CG", "solid"), ("pcg", "PCG", "dot")):
        t = np.asarray(trust.t_needed(solver), float)
        over = t > cap
        y = np.where(t <= 0, np.nan, t)
        fig.add_trace(
            go.Scatter(
                x=s, y=y, mode="lines+markers", name=f"t needed, {name}",
                line=dict(color=_TRUST[solver], width=2, dash=dash),
                marker=dict(size=np.where(over, 9, 5).tolist(),
                            symbol=np.where(over, "triangle-up", "circle").tolist()),
                text=[f"more than {cap}" if o else f"{int(v)}" if v > 0 else "no node to decide"
                      for o, v in zip(over, t, strict=True)],
                hovertemplate=f"σ = %{{x:.4g}}<br>t needed, {name}: %{{text}}<extra></extra>",
                showlegend=legend,
            ),
            row=row_t, col=1,
        )  # fmt: skip
    fig.add_trace(
        go.Scatter(
            x=[s[0], s[-1]], y=[trust.cg_iters] * 2, mode="lines",
            name=f"t used ({label})", line=dict(color="black", dash="dash", width=1),
            hoverinfo="skip", showlegend=legend,
        ),
        row=row_t, col=1,
    )  # fmt: skip
    _log_axis(fig, err, margin, row=row_err, col=1, title_text="error, margin (log)")
    ts = np.r_[trust.t_needed_cg, trust.t_needed_pcg, trust.cg_iters].astype(float)
    ts = ts[ts > 0]
    ticks = [v for k in range(7) for v in (10**k, 2 * 10**k, 5 * 10**k)
             if ts.size and ts.min() / 2 <= v <= ts.max() * 2]  # fmt: skip
    fig.update_yaxes(type="log", title_text="t needed (log)", tickvals=ticks or None,
                     exponentformat="power", minor=dict(showgrid=False, ticks=""),
                     row=row_t, col=1)  # fmt: skip


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

    Returns
    -------
    go.Figure
        Traces, in order: ``'true loss l(σ)'``, ``name``, ``compare_name`` (if given),
        ``'missed: <cause>'`` per cause of a miss and ``'spurious endpoint: <cause>'``
        per cause of a spurious endpoint (causes in the order of :data:`CAUSE_STYLE`),
        ``'degenerate σ (nodes cut off from L)'`` (legend entry for the shaded ranges, if
        any), then with ``trust`` the traces of :func:`trust_figure` (rows 2 and 3; the
        σ axis title moves to the bottom row). Clickable points (true breakpoints,
        interval ends, misses, spurious endpoints) carry ``customdata = [row, u, σ, σ0]``
        (:func:`selected_node`; row −1: no node).
    """
    e, v = truth.loss.edges, truth.loss.values
    param = "r" if getattr(truth, "parameter", "sigma") == "r" else "σ"
    sweep_label = sweep.settings.label if sweep is not None else None
    if trust is not None:
        fig = make_subplots(rows=3, cols=1, shared_xaxes=True, vertical_spacing=0.05,
                            row_heights=[0.56, 0.22, 0.22])  # fmt: skip
        main = 1
    else:
        fig = go.Figure()
        main = None
    col = 1 if main else None
    # the true loss; a breakpoint vertex names its node (a click opens its drill-down)
    bp_node = {float(b): int(nd[0]) for b, nd in zip(truth.breakpoints, truth.nodes, strict=True)
               if len(nd)}  # fmt: skip
    cd = [
        _click_data(bp_node.get(float(x), -1), rows, x,
                    algorithm4_start(sweep, x) if sweep is not None else x)
        for x in e
    ]  # fmt: skip
    fig.add_trace(
        go.Scatter(
            x=e,
            y=np.r_[v, v[-1]],
            mode="lines",
            line_shape="hv",
            name=f"true loss l({param})",
            line=dict(color="black", width=2),
            zorder=2,  # on top: markers and intervals never hide it
            customdata=cd,
            text=[_pct(y) for y in np.r_[v, v[-1]]],
            hovertemplate=f"{param} = %{{x:.4g}} · true loss %{{text}}<extra></extra>",
        ),
        row=main,
        col=col,
    )
    if sweep is not None:
        fig.add_trace(_interval_trace(sweep, truth, rows, name, _COLORS[0], param=param),
                      row=main, col=col)  # fmt: skip
    if compare is not None:
        fig.add_trace(
            _interval_trace(compare, truth, rows, compare_name, _COLORS[4], "dot", param),
            row=main,
            col=col,
        )
    if score is not None:
        _cause_traces(fig, score.miss_records, "miss", truth, sweep, rows, main, param)
        _cause_traces(fig, score.spurious_records, "spurious", truth, sweep, rows, main, param)
    deg = list(getattr(truth, "degenerate_ranges", []) or [])
    for lo, hi, _count in deg:
        fig.add_vrect(x0=lo, x1=hi, fillcolor="rgba(128,128,128,0.25)", line_width=0,
                      layer="below", **({"row": "all", "col": 1, "exclude_empty_subplots": False}
                                        if main else {}))  # fmt: skip
    if deg:
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                name=f"degenerate {param} (nodes cut off from L)",
                marker=dict(symbol="square", size=12, color="rgba(128,128,128,0.5)"),
            ),
            row=main,
            col=col,
        )
    x_title = R_TITLE if param == "r" else SIGMA_TITLE
    y_title = LOSS_TITLE.replace("l(σ)", f"l({param})")
    if trust is not None:
        _trust_traces(fig, trust, 2, 3, missed=trust.missed_by(score)[0])
        fig.update_xaxes(title_text=x_title, row=3, col=1)
        fig.update_yaxes(title_text=f"loss l({param})", tickformat=".0%", rangemode="tozero",
                         row=1, col=1)  # fmt: skip
        fig.update_layout(
            **_LAYOUT | {"margin": dict(l=70, r=20, t=60, b=40)},
            height=820,
            title="Constant-loss intervals (Figure 3) and where "
            + (
                f"{trust.label} can be trusted"
                if sweep is None or trust.label == sweep_label
                else f"{trust.label} could replace {sweep_label}"
            ),
            legend=_BOTTOM_LEGEND | {"y": -0.08},
        )
        return fig
    fig.update_xaxes(title_text=x_title)
    fig.update_yaxes(title_text=y_title, tickformat=".0%", rangemode="tozero")
    title = ("Exact loss over the threshold radius r" if param == "r"
             else "Constant-loss intervals (Figure 3)")  # fmt: skip
    fig.update_layout(**_LAYOUT, title=title, legend=_BOTTOM_LEGEND)
    return fig


def miss_figure(
    curves: Mapping, *, u: str, sigma_true: float, tol: float, estimate: float | None
) -> go.Figure:
    """One miss up close: :func:`soft_label_figure` of the node over a window around its
    true crossing (``curves`` from the page: ``sigma``, ``f``, ``f_exact``, ``label``), with
    the tolerance band ``sigma_true ± tol`` shaded and the solver's nearest estimated
    endpoint ``estimate`` marked (dotted blue; legend ``'estimated endpoint (<label>)'``).
    """
    fig = soft_label_figure(curves["sigma"], curves["f"], u=u, f_exact=curves["f_exact"],
                            breakpoints=[sigma_true], label=curves["label"])  # fmt: skip
    fig.add_vrect(x0=sigma_true - tol, x1=sigma_true + tol, fillcolor="rgba(214,39,40,0.15)",
                  line_width=0, layer="below", row="all", col=1)  # fmt: skip
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=f"tolerance ± {tol:g}",
                             marker=dict(symbol="square", size=12,
                                         color="rgba(214,39,40,0.3)")), row=1, col=1)  # fmt: skip
    if estimate is not None:
        for r in (1, 2):
            fig.add_vline(x=estimate, line=dict(color=_COLORS[0], dash="dot", width=2), row=r,
                          col=1)  # fmt: skip
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines",
                                 name=f"estimated endpoint ({curves['label']})",
                                 line=dict(color=_COLORS[0], dash="dot", width=2)),
                      row=1, col=1)  # fmt: skip
    fig.update_layout(height=480, title=f"The miss up close: {u}")
    return fig


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
    fig = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.08,
        subplot_titles=(
            f"soft label f_u(σ), {u if isinstance(u, str) else f'node {u}'}",
            "g_u(σ) = (f_u − 1/2)²",
        ),
    )
    # one legend per panel, beside it: every entry says which curve of which panel it is
    styles = {  # (panel, solver) → line style
        ("f", "approx"): dict(color=_COLORS[0], width=2.5),
        ("f", "exact"): dict(color="black", width=1.5, dash="dash"),
        ("g", "approx"): dict(color=_COLORS[6], width=2.5),
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
            fig.add_trace(
                go.Scatter(
                    x=sigmas, y=fv if what == "f" else gv, mode="lines", name=name,
                    legend=legend[row], line=styles[(what, solver)],
                    hovertemplate=f"σ = %{{x:.4g}} · {words} %{{y:.3g}} "
                    f"({label if solver == 'approx' else 'exact solve'})<extra></extra>",
                ),
                row, 1,
            )  # fmt: skip
    g_all = [c[3] for c in curves]
    # ½ is named on its axis, not by a note on the line, which the curves cross there
    fig.add_hline(y=0.5, line=dict(color="black", width=1, dash="dot"), row=1, col=1)
    bps = [float(b) for b in breakpoints]
    if bps:
        glo = float(min(np.min(x) for x in g_all))
        ghi = float(max(np.max(x) for x in g_all))
        for row, (y0, y1) in ((1, (0.0, 1.0)), (2, (max(glo, 1e-300), ghi))):
            xs = [x for b in bps for x in (b, b, None)]
            ys = [y for _ in bps for y in (y0, y1, None)]
            fig.add_trace(
                go.Scatter(x=xs, y=ys, mode="lines", name="true breakpoint",
                           legend=legend[row], legendgroup=f"breakpoint{row}",
                           line=dict(color="#d62728", width=1.5, dash="dash"),
                           hovertemplate="true breakpoint: f_u crosses ½ at σ = %{x:.4g}"
                           "<extra></extra>"),
                row, 1,
            )  # fmt: skip
    if sigma0 is not None:
        f0 = float(np.interp(sigma0, sigmas, f)) if sigmas.size else 0.5
        fig.add_trace(
            go.Scatter(x=[sigma0], y=[f0], mode="markers", name="start σ0",
                       legend="legend",
                       marker=dict(symbol="star", size=14, color="#ff7f0e",
                                   line=dict(color="black", width=1)),
                       hovertemplate="Algorithm 4 starts at σ0 = %{x:.4g}<extra></extra>"),
            1, 1,
        )  # fmt: skip
    for rule, its in (traces or {}).items():
        color, symbol, dash = _RULE_STYLE.get(rule, (_COLORS[3], "circle", "solid"))
        xs = [it.sigma for it in its]
        txt = [
            f"{rule} rule, step {i}: σ = {it.sigma:.4g}, f_u = {it.f:.3f}<br>next: {it.step}"
            for i, it in enumerate(its)
        ]
        for row, ys, show in (
            (1, [it.f for it in its], True),
            (2, [max(it.g, 1e-300) for it in its], False),
        ):
            fig.add_trace(
                go.Scatter(
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
                ),
                row,
                1,
            )
    fig.update_yaxes(
        title_text="f_u(σ): its label flips at ½",
        row=1,
        col=1,
        tickvals=[0, 0.25, 0.5, 0.75, 1],
        ticktext=["0", "0.25", "½", "0.75", "1"],
    )
    g_its = [max(it.g, 1e-300) for its in (traces or {}).values() for it in its]
    _log_axis(fig, *g_all, g_its, row=2, col=1, title_text="g_u(σ) (log)")
    fig.update_xaxes(title_text=SIGMA_TITLE, row=2, col=1)
    top, bottom = fig.layout.yaxis.domain, fig.layout.yaxis2.domain
    side = dict(x=1.02, xanchor="left", yanchor="top", font=dict(size=13),
                groupclick="toggleitem")  # fmt: skip
    fig.update_layout(
        **_LAYOUT | {"margin": dict(l=70, r=20, t=60, b=50)},
        height=680,
        title="Node drill-down (Figure 2)",
        legend=side
        | {"y": top[1], "title": dict(text="<b>top panel: f_u(σ)</b>", font=dict(size=13))},
        legend2=side
        | {"y": bottom[1], "title": dict(text="<b>bottom panel: g_u(σ)</b>", font=dict(size=13))},
    )
    return fig


# --------------------------------------------------------------------------------------------
# Conditioning (Figure 5)
# --------------------------------------------------------------------------------------------


def condition_figure(curves: Mapping[str, object]) -> go.Figure:
    """√κ against σ (log y), one panel per graph family, side by side (Figure 5).

    Parameters
    ----------
    curves : dict of str to ConditionCurve
        Panel title (e.g. the family) to its curve.

    Returns
    -------
    go.Figure
        One ``'√κ (<name>)'`` trace per panel.
    """
    names = list(curves)
    fig = make_subplots(rows=1, cols=max(len(names), 1), subplot_titles=names, shared_yaxes=False)
    for j, name in enumerate(names, start=1):
        c = curves[name]
        fig.add_trace(
            go.Scatter(
                x=c.sigma,
                y=np.sqrt(c.kappa),
                mode="lines+markers",
                name=f"√κ ({name})",
                line=dict(color=_COLORS[(j - 1) % len(_COLORS)]),
                customdata=np.c_[c.degenerate],
                hovertemplate="σ = %{x:.4g} · √κ = %{y:.3g}<br>CG needs roughly √κ "
                "iterations<br>unlabeled nodes cut off from L: %{customdata[0]}"
                "<extra></extra>",
            ),
            1,
            j,
        )
        fig.update_xaxes(title_text=SIGMA_TITLE, row=1, col=j)
        _log_axis(fig, np.sqrt(c.kappa), row=1, col=j, title_text="√κ (log)" if j == 1 else None)
    fig.update_layout(
        **_LAYOUT, title="Square root of the condition number (Figure 5)", showlegend=False
    )  # the panel titles name the families
    return fig


def cg_figure(curves: Mapping[str, object]) -> go.Figure:
    """CG iterations needed to reach ``rtol`` and the error of t-iteration CG, against σ.

    Returns
    -------
    go.Figure
        Two panels; per curve an ``'iterations needed (<name>)'`` and a
        ``'t-iteration error (<name>)'`` trace, plus a ``'t (iterations used)'`` line.
    """
    fig = make_subplots(
        rows=1,
        cols=2,
        horizontal_spacing=0.12,
        subplot_titles=(
            "CG iterations needed to reach rtol",
            "error of t-iteration CG: max_u |f_t,u − f_u|",
        ),
    )
    t = None
    for j, (name, c) in enumerate(curves.items()):
        color = _COLORS[j % len(_COLORS)]
        it = np.asarray(c.iterations_needed, float)
        it[it < 0] = np.nan
        fig.add_trace(
            go.Scatter(
                x=c.sigma,
                y=it,
                mode="lines+markers",
                legendgroup=name,
                name=f"iterations needed ({name})",
                line=dict(color=color),
                hovertemplate=f"{name} graph · σ = %{{x:.4g}}<br>CG needs %{{y:.0f}} "
                "iterations to reach rtol<extra></extra>",
            ),
            1,
            1,
        )
        fig.add_trace(
            go.Scatter(
                x=c.sigma,
                y=np.maximum(c.cg_error, 1e-17),
                mode="lines+markers",
                legendgroup=name,
                name=f"t-iteration error ({name})",
                line=dict(color=color, dash="dot"),
                hovertemplate=f"{name} graph · σ = %{{x:.4g}}<br>largest soft-label error "
                f"after t = {c.cg_iters} iterations: %{{y:.2g}}<extra></extra>",
            ),
            1,
            2,
        )
        t = c.cg_iters
    if t is not None and curves:
        first = next(iter(curves.values()))
        fig.add_trace(
            go.Scatter(
                x=[first.sigma[0], first.sigma[-1]],
                y=[t, t],
                mode="lines",
                name="t (iterations used)",
                line=dict(color="black", dash="dash", width=1),
                hovertemplate=f"t = {t} iterations used<extra></extra>",
            ),
            1,
            1,
        )
    fig.update_xaxes(title_text=SIGMA_TITLE)
    fig.update_yaxes(title_text="iterations", row=1, col=1)
    errs = [np.maximum(c.cg_error, 1e-17) for c in curves.values()]
    _log_axis(fig, *errs, row=1, col=2, title_text="error (log)")
    fig.update_layout(
        **_LAYOUT, title="CG work and accuracy across σ", legend=_BOTTOM_LEGEND | {"y": -0.25}
    )
    return fig


def trust_figure(trust, *, name: str | None = None) -> go.Figure:
    """Where t-iteration CG can be trusted, against σ (issue 10 §2).

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
    titles = ("largest soft-label error against the smallest margin",
              "t that puts every node on its exact side of 1/2")  # fmt: skip
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        subplot_titles=titles)  # fmt: skip
    _trust_traces(fig, trust, 1, 2)
    fig.update_xaxes(title_text=SIGMA_TITLE, row=2, col=1)
    title = f"Where {trust.label} can be trusted" + (f" ({name})" if name else "")
    fig.update_layout(**_LAYOUT, height=600, title=title, legend=_BOTTOM_LEGEND | {"y": -0.14})
    return fig


# --------------------------------------------------------------------------------------------
# Online regret
# --------------------------------------------------------------------------------------------


BAND_REPEATS = 5
"""Repetitions from which the regret charts draw a 95% band (with fewer, a Student-t
interval of the mean spans far more than the lines it is about)."""
_MODEL_DASH = ("solid", "dash", "dot", "dashdot")
_MODEL_MARK = ("circle", "diamond", "square", "x")


def _regret_layout(fig: go.Figure, y_title: str, rate_title: str, title: str) -> None:
    """Learners on the left axis, the rate on the right one, both from 0 (aligned)."""
    left = np.concatenate([np.asarray(t.y, float) for t in fig.data if t.yaxis == "y"])
    right = np.concatenate([np.asarray(t.y, float) for t in fig.data if t.yaxis == "y2"])
    left, right = left[np.isfinite(left)], right[np.isfinite(right)]
    hi = 1.05 * max(float(left.max()) if left.size else 0.0, 1e-9)
    lo = 1.05 * min(float(left.min()) if left.size else 0.0, 0.0)
    r_hi = 1.05 * max(float(right.max()) if right.size else 0.0, 1e-9)
    fig.update_xaxes(title_text="round t")
    fig.update_yaxes(title_text=y_title, range=[lo, hi], secondary_y=False)
    fig.update_yaxes(title_text=rate_title, range=[lo / hi * r_hi, r_hi], showgrid=False,
                     tickmode="auto", zeroline=False, title_font_color="#555555",
                     tickfont_color="#555555", secondary_y=True)  # fmt: skip
    fig.update_layout(**_LAYOUT | {"hovermode": "x unified"}, title=title,
                      legend=_BOTTOM_LEGEND)  # fmt: skip


def regret_figure(exp) -> go.Figure:
    """Cumulative regret R_t per feedback model, with its 95% band from
    :data:`BAND_REPEATS` repetitions on, and the theoretical rate.

    The rate (Theorem 3.1's bound, usually far above the measured regret) has its own
    scale on the right (a secondary y axis), so the learners' curves fill the chart.

    Parameters
    ----------
    exp : sslviz.experiment.RegretExperiment

    Returns
    -------
    go.Figure
        Per model a ``'<model> 95% band'`` (filled, legend hidden; with enough repetitions)
        and a ``'<model>'`` trace (its own dash and markers, so equal lines stay visible)
        (left axis ``'y'``), then ``'theoretical rate'`` (right axis ``'y2'``).
    """
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    t = np.arange(1, exp.rounds + 1)
    for j, (name, m) in enumerate(exp.models.items()):
        color = _COLORS[j % len(_COLORS)]
        if exp.repeats >= BAND_REPEATS:
            fig.add_trace(
                go.Scatter(
                    x=np.r_[t, t[::-1]],
                    y=np.r_[m.regret_high, m.regret_low[::-1]],
                    fill="toself",
                    fillcolor=_rgba(color, 0.12),
                    line=dict(width=0),
                    name=f"{name} 95% band",
                    legendgroup=name,
                    showlegend=False,
                    hoverinfo="skip",
                ),
                secondary_y=False,
            )
        fig.add_trace(
            go.Scatter(
                x=t,
                y=m.regret_mean,
                mode="lines+markers",
                name=name,
                legendgroup=name,
                line=dict(color=color, width=2.5, dash=_MODEL_DASH[j % len(_MODEL_DASH)]),
                marker=dict(
                    symbol=_MODEL_MARK[j % len(_MODEL_MARK)], size=8, color=color, maxdisplayed=25
                ),
                hovertemplate=f"{name} feedback: regret %{{y:.3g}}<extra></extra>",
            ),
            secondary_y=False,
        )
    fig.add_trace(
        go.Scatter(
            x=t,
            y=exp.rate,
            mode="lines",
            name="theoretical rate",
            line=dict(color="#555555", dash="longdash", width=1.5),
            hovertemplate="theoretical rate: %{y:.3g}<extra></extra>",
        ),
        secondary_y=True,
    )
    bands = ", 95% band" if exp.repeats >= BAND_REPEATS else ""
    _regret_layout(fig, "cumulative regret R_t", "theoretical rate (grey, this axis)",
                   f"Cumulative regret (mean over {exp.repeats} repetitions{bands})")  # fmt: skip
    return fig


def average_regret_figure(exp) -> go.Figure:
    """Average regret R_t / t per feedback model, and the rate / t on its own (right)
    axis."""
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    t = np.arange(1, exp.rounds + 1)
    for j, (name, m) in enumerate(exp.models.items()):
        fig.add_trace(
            go.Scatter(
                x=t,
                y=m.regret_mean / t,
                mode="lines",
                name=name,
                line=dict(
                    color=_COLORS[j % len(_COLORS)],
                    width=2.5,
                    dash=_MODEL_DASH[j % len(_MODEL_DASH)],
                ),
                hovertemplate=f"{name} feedback: R_t / t = %{{y:.3g}}<extra></extra>",
            ),
            secondary_y=False,
        )
    fig.add_trace(
        go.Scatter(
            x=t,
            y=exp.rate / t,
            mode="lines",
            name="theoretical rate / t",
            line=dict(color="#555555", dash="longdash", width=1.5),
            hovertemplate="theoretical rate / t: %{y:.3g}<extra></extra>",
        ),
        secondary_y=True,
    )
    _regret_layout(fig, "average regret R_t / t", "rate / t (grey, this axis)",
                   "Average regret")  # fmt: skip
    return fig


def density_figure(run) -> go.Figure:
    """The learner's density p_t(σ) across rounds (heatmap) with the σ_t it played.

    Parameters
    ----------
    run : sslviz.online.LearnerRun

    Returns
    -------
    go.Figure
        Traces ``'density p_t(σ)'`` (heatmap) and ``'σ_t played'``.
    """
    rounds = np.asarray(run.snapshot_rounds) + 1
    fig = go.Figure(
        go.Heatmap(
            x=run.density_grid,
            y=rounds,
            z=run.density_snapshots,
            colorscale="Viridis",
            name="density p_t(σ)",
            colorbar=dict(title=dict(text="density<br>p_t(σ)", side="top"), thickness=14),
            hovertemplate="round %{y}, σ = %{x:.4g}<br>density %{z:.3g} (brighter: the "
            "learner picks this σ more often)<extra></extra>",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=run.sigmas,
            y=np.arange(1, len(run.sigmas) + 1),
            mode="markers",
            name="σ_t played",
            marker=dict(color="white", size=5, line=dict(color="black", width=0.5)),
            hovertemplate="round %{y}: the learner played σ = %{x:.4g}<extra></extra>",
        )
    )
    fig.update_xaxes(title_text=SIGMA_TITLE)
    fig.update_yaxes(title_text="round t")
    fig.update_layout(
        **_LAYOUT,
        title=f"Where the {run.feedback} learner puts its weight (repetition 0)",
        legend=_BOTTOM_LEGEND,
    )
    return fig


# --------------------------------------------------------------------------------------------
# Speed (Table 1)
# --------------------------------------------------------------------------------------------


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
    fig = make_subplots(rows=1, cols=2, subplot_titles=(
        "CPU ms per interval (min of repeats)", "intervals found M"))  # fmt: skip
    ns = sorted({int(r["n"]) for r in rows})
    for j, n in enumerate(ns):
        sel = [r for r in rows if int(r["n"]) == n]
        color = _COLORS[j % len(_COLORS)]
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
                marker_color=_rgba(color, 0.6),
                legendgroup=str(n),
                hovertemplate=f"%{{x}}, n = {n}<br>%{{y}} intervals found<extra></extra>",
            ),
            1,
            2,
        )
    _log_axis(
        fig,
        [1e3 * r.get("cpu_per_interval", r["time_per_interval"]) for r in rows],
        row=1,
        col=1,
        title_text="ms per interval (log)",
    )
    fig.update_yaxes(title_text="M", row=1, col=2)
    fig.update_xaxes(title_text="graph / solver")
    fig.update_layout(**_LAYOUT, barmode="group", title="Speed: CG vs matrix inverse (Table 1)",
                      legend=_BOTTOM_LEGEND | {"y": -0.25})  # fmt: skip
    return fig


# --------------------------------------------------------------------------------------------
# Learn from instances
# --------------------------------------------------------------------------------------------


def _steps(edges: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x, y of a piecewise-constant function drawn as a staircase (``line_shape='hv'``)."""
    return np.asarray(edges, float), np.r_[np.asarray(values, float), values[-1]]


def learn_figure(result) -> go.Figure:
    """The training instances' losses (faint), their exact average L̄_m(σ) (bold) with its
    ERM set shaded and σ̂ marked, and the held-out average with σ̂'s test loss.

    Parameters
    ----------
    result : sslviz.learn.LearnResult

    Returns
    -------
    go.Figure
        Traces ``'training instances'`` (one per instance, one legend entry), ``'training
        average'``, ``'held-out average'`` (with test instances), ``'σ̂ on held-out'``, and
        per approximate learner ``'<solver> estimate of the average'``; the ERM intervals
        as shaded rectangles.
    """
    r = result
    fig = go.Figure()
    for i, inst in enumerate(r.train):
        x, y = _steps(inst.edges, inst.wrong / inst.n_unlabeled)
        fig.add_trace(go.Scatter(
            x=x, y=y, mode="lines", line=dict(color="#9e9e9e", width=1, shape="hv"),
            opacity=0.45, name="training instances", legendgroup="train",
            showlegend=i == 0, hoverinfo="skip",
        ))  # fmt: skip
    x, y = _steps(r.average.loss.edges, r.average.loss.values)
    fig.add_trace(go.Scatter(
        x=x, y=y, mode="lines", line=dict(color=_COLORS[0], width=3.5, shape="hv"),
        name=f"training average (m = {r.instances})",
        hovertemplate="σ = %{x:.4g}: training average %{y:.2%}<extra></extra>",
    ))  # fmt: skip
    for j, a in enumerate(r.approximate):
        x, y = _steps(a.average.loss.edges, a.average.loss.values)
        color = _COLORS[(4 + j) % len(_COLORS)]
        fig.add_trace(go.Scatter(
            x=x, y=y, mode="lines", line=dict(color=color, width=2, dash="dot", shape="hv"),
            name=f"{a.solver} estimate of the average", visible="legendonly" if j else True,
            hovertemplate=f"σ = %{{x:.4g}}: {a.solver} estimate %{{y:.2%}}<extra></extra>",
        ))  # fmt: skip
    if r.test_average is not None:
        x, y = _steps(r.test_average.loss.edges, r.test_average.loss.values)
        fig.add_trace(go.Scatter(
            x=x, y=y, mode="lines", line=dict(color=_COLORS[1], width=2.5, dash="dash",
                                              shape="hv"),
            name=f"held-out average ({r.test_instances} instances)",
            hovertemplate="σ = %{x:.4g}: held-out average %{y:.2%}<extra></extra>",
        ))  # fmt: skip
        fig.add_trace(go.Scatter(
            x=[r.erm.sigma_hat], y=[r.test.loss_at_sigma_hat], mode="markers",
            marker=dict(color=_COLORS[1], size=14, symbol="star", line=dict(width=1)),
            name="σ̂ on held-out",
            hovertemplate="σ̂ = %{x:.4g}: held-out loss %{y:.2%}<extra></extra>",
        ))  # fmt: skip
    for a, b in r.erm.intervals:
        fig.add_vrect(x0=a, x1=b, fillcolor=_rgba(_COLORS[2], 0.22), line_width=0, layer="below")
    fig.add_vline(x=r.erm.sigma_hat, line=dict(color=_COLORS[2], width=2))
    fig.add_trace(go.Scatter(  # a legend entry for the shaded ERM set
        x=[None], y=[None], mode="markers", name="ERM set (shaded) and σ̂ (line)",
        marker=dict(color=_rgba(_COLORS[2], 0.5), size=14, symbol="square"),
    ))  # fmt: skip
    fig.update_xaxes(title_text=SIGMA_TITLE if r.family != "threshold" else R_TITLE,
                     type="log", range=[np.log10(r.sigma_min), np.log10(r.sigma_max)],
                     **_log_ticks([r.sigma_min, r.sigma_max]))  # fmt: skip
    fig.update_yaxes(title_text="loss (share of U misclassified)", tickformat=".0%",
                     rangemode="tozero")  # fmt: skip
    fig.update_layout(**_LAYOUT, legend=_BOTTOM_LEGEND, height=480,
                      title="Training losses, their average and its ERM set; the held-out "
                      "average")  # fmt: skip
    return fig


def learning_curve_figure(curve) -> go.Figure:
    """The learning curve against m (log axis): left, σ̂'s excess held-out loss and the
    uniform gap (mean and 95% band over the repetitions), with the shape 1/√m through the
    gap at the smallest m; right, the pieces of the union of the m instances' breakpoints,
    with the shape ∝ m. The shapes carry no constant (the paper's bounds have none).

    Returns
    -------
    go.Figure
        Traces ``'excess held-out loss'``, ``'uniform gap'``, ``'∝ 1/√m'``, ``'union
        pieces'``, ``'∝ m'`` and a ``'… 95% band'`` for each measured one.
    """
    from sslviz.experiment import mean_band

    m = np.asarray(curve.m, float)
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.12, subplot_titles=(
        "σ̂ on held-out instances", "pieces of the union of the m instances"))  # fmt: skip

    def measured(values, name, color, col, fmt):
        mean, low, high = mean_band(np.asarray(values, float))
        low = np.maximum(low, 0.0)  # each quantity is ≥ 0: the band is cut there
        fig.add_trace(go.Scatter(
            x=np.r_[m, m[::-1]], y=np.r_[high, low[::-1]], fill="toself", mode="lines",
            fillcolor=_rgba(color, 0.15), line=dict(width=0), name=f"{name} 95% band",
            showlegend=False, hoverinfo="skip"), row=1, col=col)  # fmt: skip
        fig.add_trace(go.Scatter(
            x=m, y=mean, mode="lines+markers", name=name, line=dict(color=color, width=3),
            hovertemplate=f"m = %{{x}}: {name} %{{y:{fmt}}}<extra></extra>"),
            row=1, col=col)  # fmt: skip
        return mean

    measured(curve.excess, "excess held-out loss", _COLORS[1], 1, ".2%")
    gap = measured(curve.uniform_gap, "uniform gap", _COLORS[0], 1, ".2%")
    fig.add_trace(go.Scatter(
        x=m, y=gap[0] * np.sqrt(m[0] / m), mode="lines", name="∝ 1/√m (shape only)",
        line=dict(color="#555555", dash="dash"), hoverinfo="skip"), row=1, col=1)  # fmt: skip
    pieces = measured(curve.union_pieces, "union pieces", _COLORS[2], 2, ".0f")
    fig.add_trace(go.Scatter(
        x=m, y=pieces[0] * m / m[0], mode="lines", name="∝ m (shape only)",
        line=dict(color="#555555", dash="dot"), hoverinfo="skip"), row=1, col=2)  # fmt: skip
    ticks = dict(type="log", tickvals=m.tolist(), ticktext=[f"{v:g}" for v in m],
                 title_text="training instances m")  # fmt: skip
    fig.update_xaxes(**ticks)
    fig.update_yaxes(title_text="share of U", tickformat=".1%", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text="pieces", rangemode="tozero", row=1, col=2)
    fig.update_layout(**_LAYOUT, legend=_BOTTOM_LEGEND, height=430,
                      title="Learning curve (mean over repetitions, 95% band)")  # fmt: skip
    return fig


def k_sigma_figure(result) -> go.Figure:
    """The (k, σ) map: the exact training average of each k (one row each, its cells the
    merged breakpoints of all rows, so every row's own breakpoints are cell edges), the
    ERM (k̂, σ̂) marked.

    Returns
    -------
    go.Figure
        A ``'training average'`` heatmap and an ``'ERM (k̂, σ̂)'`` marker.
    """
    rows = result.grid
    edges = np.unique(np.concatenate([row.average.edges for row in rows]))
    mids = 0.5 * (edges[:-1] + edges[1:])
    z = np.array([row.average.loss(mids) for row in rows])
    ks = [row.k for row in rows]
    fig = go.Figure(go.Heatmap(
        x=edges, y=ks, z=z, colorscale="Viridis", name="training average",
        colorbar=dict(title="average loss", tickformat=".0%"),
        hovertemplate="k = %{y}, σ = %{x:.4g}: training average %{z:.2%}<extra></extra>",
    ))  # fmt: skip
    fig.add_trace(go.Scatter(
        x=[result.erm.sigma_hat], y=[result.k], mode="markers", name="ERM (k̂, σ̂)",
        marker=dict(symbol="star", size=18, color="white", line=dict(color="black", width=1.5)),
        hovertemplate="k̂ = %{y}, σ̂ = %{x:.4g}<extra></extra>",
    ))  # fmt: skip
    fig.update_xaxes(title_text=SIGMA_TITLE)
    fig.update_yaxes(title_text="k (nearest neighbours)", dtick=1)
    fig.update_layout(**_LAYOUT, legend=_BOTTOM_LEGEND, height=430,
                      title="Training average over (k, σ); star: the ERM")  # fmt: skip
    return fig
