"""Plotly figure builders: pure functions from sslviz results to ``go.Figure``.

Nothing here imports Streamlit; every builder takes computed results (no model calls)
and returns a new figure, so the app, notebooks and tests draw the same pictures.

Builders
--------
samples_figure           sample images of the two classes (Home)
instance_figure          the instance's first two features, labeled points marked (Home)
loss_intervals_figure    true l(σ), estimated intervals, missed breakpoints (Figure 3)
soft_label_figure        f_u(σ), g_u(σ) and the iterates of each step rule (Figure 2)
condition_figure         √κ against σ, one panel per graph family (Figure 5)
cg_figure                CG iterations needed and t-iteration CG error against σ
regret_figure            cumulative regret with 95% bands and the theoretical rate
average_regret_figure    R_t / t
density_figure           the learner's density over σ across rounds (heatmap)
speed_figure             time per interval and M per configuration (Table 1)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

SIGMA_TITLE = "σ (bandwidth, PCA-space distance)"
LOSS_TITLE = "loss l(σ) (fraction of U misclassified)"
_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf")
_RULE_COLORS = {"gradient": "#2ca02c", "newton": "#d62728", "hybrid": "#9467bd"}
_LAYOUT = dict(template="plotly_white", margin=dict(l=60, r=20, t=50, b=50), hovermode="closest")


def _rgba(hex_color: str, alpha: float) -> str:
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def _node_text(u: int, rows: Sequence[int] | None) -> str:
    if u is None or u < 0:
        return "range end"
    return f"node {u}" + (f" (row {rows[u]})" if rows is not None else "")


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
    fig.update_yaxes(
        autorange="reversed",
        tickvals=centers,
        ticktext=list(labels),
        title_text="class",
        scaleanchor="x",
        showgrid=False,
        zeroline=False,
    )
    fig.update_xaxes(showticklabels=False, title_text="samples", showgrid=False, zeroline=False)
    fig.update_layout(**_LAYOUT, title="Sample images of the two classes", height=450)
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


def _interval_trace(sweep, truth, rows, name: str, color: str, dash: str = "solid") -> go.Scatter:
    xs, ys, text = [], [], []
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
            f"{float(np.min(seen)):.4f}–{float(np.max(seen)):.4f}"
            if len(seen) and np.min(seen) != np.max(seen)
            else (f"{float(truth.loss(mid)):.4f}" if truth is not None else "n/a")
        )
        t = (
            f"<b>{name} interval {i + 1}</b><br>σ ∈ [{iv.lo:.5g}, {iv.hi:.5g}]"
            f"<br>estimated loss {iv.loss:.4f}<br>true loss {true_txt}"
            f"<br>left end set by {_node_text(iv.lo_node, rows)}"
            f"<br>right end set by {_node_text(iv.hi_node, rows)}"
        )
        xs += [iv.lo, iv.hi, None]
        ys += [iv.loss, iv.loss, None]
        text += [t, t, ""]
    return go.Scatter(
        x=xs,
        y=ys,
        text=text,
        mode="lines+markers",
        name=name,
        line=dict(color=color, width=5, dash=dash),
        marker=dict(symbol="line-ns-open", size=12, color=color),
        hovertemplate="%{text}<extra></extra>",
    )


def loss_intervals_figure(
    truth,
    sweep=None,
    *,
    score=None,
    rows: Sequence[int] | None = None,
    compare=None,
    compare_name: str = "compare",
    name: str = "estimated intervals",
) -> go.Figure:
    """The paper's Figure 3: true loss, estimated constant-loss intervals, misses.

    Parameters
    ----------
    truth : sslviz.truth.LossCurve
        The exact loss (drawn as a step function).
    sweep : sslviz.intervals.Sweep, optional
        Estimated intervals, drawn as horizontal segments at their estimated loss; the
        hover text gives the endpoints, estimated and true loss and the node that set
        each endpoint.
    score : sslviz.intervals.Score, optional
        Its ``misses`` are marked on the true loss.
    rows : sequence of int, optional
        Instance row of each unlabeled node (for the hover text).
    compare : Sweep, optional
        A second estimate, drawn dashed, named ``compare_name``.

    Returns
    -------
    go.Figure
        Traces: ``'true loss l(σ)'``, then ``name``, ``compare_name`` (if given),
        ``'missed breakpoint'`` (if any misses) and ``'degenerate σ'`` (legend entry
        for the shaded ranges, if any).
    """
    e, v = truth.loss.edges, truth.loss.values
    param = "r" if getattr(truth, "parameter", "sigma") == "r" else "σ"
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=e,
            y=np.r_[v, v[-1]],
            mode="lines",
            line_shape="hv",
            name=f"true loss l({param})",
            line=dict(color="black", width=2),
            hovertemplate=f"{param} = %{{x:.5g}}<br>true loss %{{y:.4f}}<extra></extra>",
        )
    )
    if sweep is not None:
        fig.add_trace(_interval_trace(sweep, truth, rows, name, _COLORS[0]))
    if compare is not None:
        fig.add_trace(_interval_trace(compare, truth, rows, compare_name, _COLORS[4], "dot"))
    misses = list(score.misses) if score is not None else []
    if misses:
        bx = [s for s, _ in misses]
        by = [float(truth.loss(s)) for s, _ in misses]
        txt = [
            f"missed true breakpoint σ = {s:.5g}<br>nodes: "
            + ", ".join(_node_text(int(u), rows) for u in nd)
            for s, nd in misses
        ]
        fig.add_trace(
            go.Scatter(
                x=bx,
                y=by,
                mode="markers",
                name="missed breakpoint",
                text=txt,
                marker=dict(symbol="x", size=13, color="#d62728", line=dict(width=2)),
                hovertemplate="%{text}<extra></extra>",
            )
        )
    deg = list(getattr(truth, "degenerate_ranges", []) or [])
    for lo, hi, _count in deg:
        fig.add_vrect(x0=lo, x1=hi, fillcolor="rgba(128,128,128,0.25)", line_width=0, layer="below")
    if deg:
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                name=f"degenerate {param} (nodes cut off from L)",
                marker=dict(symbol="square", size=12, color="rgba(128,128,128,0.5)"),
            )
        )
    x_title = "r (threshold radius, PCA-space distance)" if param == "r" else SIGMA_TITLE
    fig.update_xaxes(title_text=x_title)
    fig.update_yaxes(title_text=LOSS_TITLE, rangemode="tozero")
    fig.update_layout(
        **_LAYOUT, title="Constant-loss intervals (Figure 3)", legend=dict(orientation="h", y=-0.2)
    )
    return fig


def soft_label_figure(
    sigmas: np.ndarray,
    f: np.ndarray,
    *,
    u: int | str,
    f_exact: np.ndarray | None = None,
    traces: Mapping[str, Sequence] | None = None,
    breakpoints: Sequence[float] = (),
) -> go.Figure:
    """f_u(σ) and g_u(σ) = (f_u − 1/2)² with the iterates of each step rule (Figure 2).

    Parameters
    ----------
    sigmas : ndarray of shape (G,)
    f : ndarray of shape (G,)
        f_u on the grid from the chosen solver.
    u : int or str
        The node, for the title: an unlabeled index, or a label such as ``'row 19'``.
    f_exact : ndarray of shape (G,), optional
        f_u from the exact solver, drawn dashed.
    traces : dict of rule to list of Iterate, optional
        ``sslviz.intervals.node_trace`` output per rule ('gradient', 'newton', 'hybrid').
    breakpoints : sequence of float
        True breakpoints to mark (vertical lines).

    Returns
    -------
    go.Figure
        Two rows: f_u (top), g_u (bottom, log y). Traces ``'f_u(σ)'``, ``'g_u(σ)'``,
        ``'exact f_u(σ)'``/``'exact g_u(σ)'`` if given, then one ``'<rule> iterates'``
        trace per rule in each row (the bottom one hidden from the legend).
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
    fig.add_trace(go.Scatter(x=sigmas, y=f, name="f_u(σ)", line=dict(color=_COLORS[0])), 1, 1)
    fig.add_trace(
        go.Scatter(x=sigmas, y=(f - 0.5) ** 2, name="g_u(σ)", line=dict(color=_COLORS[6])), 2, 1
    )
    if f_exact is not None:
        fe = np.asarray(f_exact, float)
        fig.add_trace(
            go.Scatter(x=sigmas, y=fe, name="exact f_u(σ)", line=dict(color="gray", dash="dash")),
            1,
            1,
        )
        fig.add_trace(
            go.Scatter(
                x=sigmas,
                y=(fe - 0.5) ** 2,
                name="exact g_u(σ)",
                line=dict(color="gray", dash="dash"),
            ),
            2,
            1,
        )
    fig.add_hline(y=0.5, line=dict(color="black", width=1, dash="dot"), row=1, col=1)
    for rule, its in (traces or {}).items():
        color = _RULE_COLORS.get(rule, _COLORS[3])
        xs = [it.sigma for it in its]
        txt = [
            f"{rule} step {i}: σ = {it.sigma:.5g}, f = {it.f:.4f}, next: {it.step}"
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
                    legendgroup=rule,
                    showlegend=show,
                    text=txt,
                    hovertemplate="%{text}<extra></extra>",
                    marker=dict(color=color, size=8),
                    line=dict(color=color, width=1),
                ),
                row,
                1,
            )
    for b in breakpoints:
        fig.add_vline(x=b, line=dict(color="#d62728", width=1, dash="dash"))
    fig.update_yaxes(title_text="f_u(σ)", row=1, col=1)
    fig.update_yaxes(title_text="g_u(σ) (log)", type="log", row=2, col=1)
    fig.update_xaxes(title_text=SIGMA_TITLE, row=2, col=1)
    fig.update_layout(**_LAYOUT, height=620, title="Node drill-down (Figure 2)")
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
                hovertemplate="σ = %{x:.4g}<br>√κ = %{y:.4g}<br>cut-off nodes: %{customdata[0]}"
                "<extra></extra>",
            ),
            1,
            j,
        )
        fig.update_xaxes(title_text=SIGMA_TITLE, row=1, col=j)
        fig.update_yaxes(type="log", row=1, col=j, title_text="√κ (log)" if j == 1 else None)
    fig.update_layout(**_LAYOUT, title="Square root of the condition number (Figure 5)")
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
        subplot_titles=(
            "CG iterations needed to reach rtol",
            "max_u |f_u(t-iteration CG) − f_u(exact)|",
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
            ),
            1,
            1,
        )
    fig.update_xaxes(title_text=SIGMA_TITLE)
    fig.update_yaxes(title_text="iterations", row=1, col=1)
    fig.update_yaxes(title_text="error (log)", type="log", row=1, col=2)
    fig.update_layout(
        **_LAYOUT, title="CG work and accuracy across σ", legend=dict(orientation="h", y=-0.25)
    )
    return fig


# --------------------------------------------------------------------------------------------
# Online regret
# --------------------------------------------------------------------------------------------


def regret_figure(exp) -> go.Figure:
    """Cumulative regret R_t per feedback model with its 95% band, and the theoretical rate.

    Parameters
    ----------
    exp : sslviz.experiment.RegretExperiment

    Returns
    -------
    go.Figure
        Per model a ``'<model> 95% band'`` (filled, legend hidden) and a ``'<model>'`` trace,
        then ``'theoretical rate'``.
    """
    fig = go.Figure()
    t = np.arange(1, exp.rounds + 1)
    for j, (name, m) in enumerate(exp.models.items()):
        color = _COLORS[j % len(_COLORS)]
        fig.add_trace(
            go.Scatter(
                x=np.r_[t, t[::-1]],
                y=np.r_[m.regret_high, m.regret_low[::-1]],
                fill="toself",
                fillcolor=_rgba(color, 0.18),
                line=dict(width=0),
                name=f"{name} 95% band",
                legendgroup=name,
                showlegend=False,
                hoverinfo="skip",
            )
        )
        fig.add_trace(
            go.Scatter(
                x=t,
                y=m.regret_mean,
                mode="lines",
                name=name,
                legendgroup=name,
                line=dict(color=color, width=2),
            )
        )
    fig.add_trace(
        go.Scatter(
            x=t,
            y=exp.rate,
            mode="lines",
            name="theoretical rate",
            line=dict(color="black", dash="dash"),
        )
    )
    fig.update_xaxes(title_text="round t")
    fig.update_yaxes(title_text="cumulative regret R_t")
    fig.update_layout(**_LAYOUT, title="Cumulative regret (mean over repetitions, 95% band)")
    return fig


def average_regret_figure(exp) -> go.Figure:
    """Average regret R_t / t per feedback model (and the rate / t)."""
    fig = go.Figure()
    t = np.arange(1, exp.rounds + 1)
    for j, (name, m) in enumerate(exp.models.items()):
        fig.add_trace(
            go.Scatter(
                x=t,
                y=m.regret_mean / t,
                mode="lines",
                name=name,
                line=dict(color=_COLORS[j % len(_COLORS)], width=2),
            )
        )
    fig.add_trace(
        go.Scatter(
            x=t,
            y=exp.rate / t,
            mode="lines",
            name="theoretical rate / t",
            line=dict(color="black", dash="dash"),
        )
    )
    fig.update_xaxes(title_text="round t")
    fig.update_yaxes(title_text="average regret R_t / t")
    fig.update_layout(**_LAYOUT, title="Average regret")
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
            colorbar=dict(title="p_t(σ)"),
            hovertemplate="σ = %{x:.4g}<br>round %{y}<br>p = %{z:.4g}<extra></extra>",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=run.sigmas,
            y=np.arange(1, len(run.sigmas) + 1),
            mode="markers",
            name="σ_t played",
            marker=dict(color="white", size=4, line=dict(color="black", width=0.5)),
        )
    )
    fig.update_xaxes(title_text=SIGMA_TITLE)
    fig.update_yaxes(title_text="round t")
    fig.update_layout(
        **_LAYOUT,
        title=f"Learner density over σ ({run.feedback}, repetition 0)",
        legend=dict(orientation="h", y=-0.2),
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
        With keys ``'config'`` (str), ``'n'`` (int), ``'time_per_interval'`` (seconds) and
        ``'M'`` (int).

    Returns
    -------
    go.Figure
        Two panels; one ``'time per interval'`` and one ``'M'`` bar trace per n.
    """
    fig = make_subplots(rows=1, cols=2, subplot_titles=("time per interval", "intervals found M"))
    ns = sorted({int(r["n"]) for r in rows})
    for j, n in enumerate(ns):
        sel = [r for r in rows if int(r["n"]) == n]
        color = _COLORS[j % len(_COLORS)]
        x = [r["config"] for r in sel]
        fig.add_trace(
            go.Bar(
                x=x,
                y=[1e3 * r["time_per_interval"] for r in sel],
                name=f"time per interval (n={n})",
                marker_color=color,
                legendgroup=str(n),
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
            ),
            1,
            2,
        )
    fig.update_yaxes(title_text="ms per interval (log)", type="log", row=1, col=1)
    fig.update_yaxes(title_text="M", row=1, col=2)
    fig.update_xaxes(title_text="configuration")
    fig.update_layout(**_LAYOUT, barmode="group", title="Speed: CG vs matrix inverse (Table 1)")
    return fig
