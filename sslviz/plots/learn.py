"""Learning from many instances: the training and test average losses with the ERM set, the
learning curve, and the (k, σ) map."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from sslviz import registry
from sslviz.plots.style import (
    BOTTOM_LEGEND,
    COLORS,
    LAYOUT,
    R_TITLE,
    SIGMA_TITLE,
    log_ticks,
    new_figure,
    rgba,
)


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
    fig = new_figure()
    for i, inst in enumerate(r.train):
        x, y = _steps(inst.edges, inst.wrong / inst.n_unlabeled)
        fig.add_trace(
            go.Scatter(
                x=x,
                y=y,
                mode="lines",
                line=dict(color="#9e9e9e", width=1, shape="hv"),
                opacity=0.45,
                name="training instances",
                legendgroup="train",
                showlegend=i == 0,
                hoverinfo="skip",
            )
        )
    x, y = _steps(r.average.loss.edges, r.average.loss.values)
    fig.add_trace(
        go.Scatter(
            x=x,
            y=y,
            mode="lines",
            line=dict(color=COLORS[0], width=3.5, shape="hv"),
            name=f"training average (m = {r.instances})",
            hovertemplate="σ = %{x:.4g}: training average %{y:.2%}<extra></extra>",
        )
    )
    for j, a in enumerate(r.approximate):
        x, y = _steps(a.average.loss.edges, a.average.loss.values)
        color = COLORS[(4 + j) % len(COLORS)]
        fig.add_trace(
            go.Scatter(
                x=x,
                y=y,
                mode="lines",
                line=dict(color=color, width=2, dash="dot", shape="hv"),
                name=f"{a.solver} estimate of the average",
                visible="legendonly" if j else True,
                hovertemplate=f"σ = %{{x:.4g}}: {a.solver} estimate %{{y:.2%}}<extra></extra>",
            )
        )
    if r.test_average is not None:
        x, y = _steps(r.test_average.loss.edges, r.test_average.loss.values)
        fig.add_trace(
            go.Scatter(
                x=x,
                y=y,
                mode="lines",
                line=dict(color=COLORS[1], width=2.5, dash="dash", shape="hv"),
                name=f"held-out average ({r.test_instances} instances)",
                hovertemplate="σ = %{x:.4g}: held-out average %{y:.2%}<extra></extra>",
            )
        )
        fig.add_trace(
            go.Scatter(
                x=[r.erm.sigma_hat],
                y=[r.test.loss_at_sigma_hat],
                mode="markers",
                marker=dict(color=COLORS[1], size=14, symbol="star", line=dict(width=1)),
                name="σ̂ on held-out",
                hovertemplate="σ̂ = %{x:.4g}: held-out loss %{y:.2%}<extra></extra>",
            )
        )
    for a, b in r.erm.intervals:
        fig.add_vrect(x0=a, x1=b, fillcolor=rgba(COLORS[2], 0.22), line_width=0, layer="below")
    fig.add_vline(x=r.erm.sigma_hat, line=dict(color=COLORS[2], width=2))
    fig.add_trace(
        go.Scatter(  # a legend entry for the shaded ERM set
            x=[None],
            y=[None],
            mode="markers",
            name="ERM set (shaded) and σ̂ (line)",
            marker=dict(color=rgba(COLORS[2], 0.5), size=14, symbol="square"),
        )
    )
    fig.update_xaxes(
        title_text=SIGMA_TITLE if registry.family(r.family).gaussian else R_TITLE,
        type="log",
        range=[np.log10(r.sigma_min), np.log10(r.sigma_max)],
        **log_ticks([r.sigma_min, r.sigma_max]),
    )
    fig.update_yaxes(
        title_text="loss (share of U misclassified)", tickformat=".1~%", rangemode="tozero"
    )
    fig.update_layout(
        **LAYOUT,
        legend=BOTTOM_LEGEND,
        height=480,
        title="Training losses, their average and its ERM set; the held-out average",
    )
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
    fig = new_figure(
        rows=1,
        cols=2,
        horizontal_spacing=0.12,
        subplot_titles=("σ̂ on held-out instances", "pieces of the union of the m instances"),
    )

    def measured(values, name, color, col, fmt):
        mean, low, high = mean_band(np.asarray(values, float))
        low = np.maximum(low, 0.0)  # each quantity is ≥ 0: the band is cut there
        fig.add_trace(
            go.Scatter(
                x=np.r_[m, m[::-1]],
                y=np.r_[high, low[::-1]],
                fill="toself",
                mode="lines",
                fillcolor=rgba(color, 0.15),
                line=dict(width=0),
                name=f"{name} 95% band",
                showlegend=False,
                hoverinfo="skip",
            ),
            row=1,
            col=col,
        )
        fig.add_trace(
            go.Scatter(
                x=m,
                y=mean,
                mode="lines+markers",
                name=name,
                line=dict(color=color, width=3),
                hovertemplate=f"m = %{{x}}: {name} %{{y:{fmt}}}<extra></extra>",
            ),
            row=1,
            col=col,
        )
        return mean

    measured(curve.excess, "excess held-out loss", COLORS[1], 1, ".2%")
    gap = measured(curve.uniform_gap, "uniform gap", COLORS[0], 1, ".2%")
    fig.add_trace(
        go.Scatter(
            x=m,
            y=gap[0] * np.sqrt(m[0] / m),
            mode="lines",
            name="∝ 1/√m (shape only)",
            line=dict(color="#555555", dash="dash"),
            hoverinfo="skip",
        ),
        row=1,
        col=1,
    )
    pieces = measured(curve.union_pieces, "union pieces", COLORS[2], 2, ".0f")
    fig.add_trace(
        go.Scatter(
            x=m,
            y=pieces[0] * m / m[0],
            mode="lines",
            name="∝ m (shape only)",
            line=dict(color="#555555", dash="dot"),
            hoverinfo="skip",
        ),
        row=1,
        col=2,
    )
    ticks = dict(
        type="log",
        tickvals=m.tolist(),
        ticktext=[f"{v:g}" for v in m],
        title_text="training instances m",
    )
    fig.update_xaxes(**ticks)
    fig.update_yaxes(title_text="share of U", tickformat=".1%", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text="pieces", rangemode="tozero", row=1, col=2)
    fig.update_layout(
        **LAYOUT,
        legend=BOTTOM_LEGEND,
        height=430,
        title="Learning curve (mean over repetitions, 95% band)",
    )
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
    fig = new_figure(
        go.Heatmap(
            x=edges,
            y=ks,
            z=z,
            colorscale="Viridis",
            name="training average",
            colorbar=dict(title="average loss", tickformat=".1~%"),
            hovertemplate="k = %{y}, σ = %{x:.4g}: training average %{z:.2%}<extra></extra>",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[result.erm.sigma_hat],
            y=[result.k],
            mode="markers",
            name="ERM (k̂, σ̂)",
            marker=dict(symbol="star", size=18, color="white", line=dict(color="black", width=1.5)),
            hovertemplate="k̂ = %{y}, σ̂ = %{x:.4g}<extra></extra>",
        )
    )
    fig.update_xaxes(title_text=SIGMA_TITLE)
    fig.update_yaxes(title_text="k (nearest neighbours)", dtick=1)
    fig.update_layout(
        **LAYOUT,
        legend=BOTTOM_LEGEND,
        height=430,
        title="Training average over (k, σ); star: the ERM",
    )
    return fig
