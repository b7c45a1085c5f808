"""Online tuning with Exp3-Set: cumulative and average regret with bands and the theoretical
rate, and the learner's density over σ."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from sslviz.plots.style import BOTTOM_LEGEND, COLORS, LAYOUT, SIGMA_TITLE, new_figure, rgba

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
    fig.update_yaxes(
        title_text=rate_title,
        range=[lo / hi * r_hi, r_hi],
        showgrid=False,
        tickmode="auto",
        zeroline=False,
        title_font_color="#555555",
        tickfont_color="#555555",
        secondary_y=True,
    )
    fig.update_layout(**LAYOUT | {"hovermode": "x unified"}, title=title, legend=BOTTOM_LEGEND)


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
    fig = new_figure(specs=[[{"secondary_y": True}]])
    t = np.arange(1, exp.rounds + 1)
    for j, (name, m) in enumerate(exp.models.items()):
        color = COLORS[j % len(COLORS)]
        if exp.repeats >= BAND_REPEATS:
            fig.add_trace(
                go.Scatter(
                    x=np.r_[t, t[::-1]],
                    y=np.r_[m.regret_high, m.regret_low[::-1]],
                    fill="toself",
                    fillcolor=rgba(color, 0.12),
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
    _regret_layout(
        fig,
        "cumulative regret R_t",
        "theoretical rate (grey, this axis)",
        f"Cumulative regret (mean over {exp.repeats} repetitions{bands})",
    )
    return fig


def rate_words(exp) -> str:
    """The grey rate line of :func:`regret_figure` in words, with the numbers of both axes
    at the last round (the sentence beside the chart names the second axis): e.g. "Grey:
    Theorem 3.1's rate √(T·M·log(RT)) without its constants, on its own axis (right, 0 to
    38 here): only its shape compares with the lines. At t = 20 it is 38, the measured
    regrets 0.5 to 7.9 (left axis)."."""
    last = [float(m.regret_mean[-1]) for m in exp.models.values()]
    rate = float(exp.rate[-1])
    lo, hi = min(last), max(last)
    regrets = f"{lo:.2g}" if f"{lo:.2g}" == f"{hi:.2g}" else f"{lo:.2g} to {hi:.2g}"
    return (
        "Grey: Theorem 3.1's rate √(T·M·log(RT)), without its constants, on its own axis "
        f"(right, 0 to {rate:.2g} here): only its shape compares with the coloured lines, "
        f"not its height. At t = {exp.rounds} it is {rate:.2g}; the measured mean regrets "
        f"are {regrets} (left axis)."
    )


def average_regret_figure(exp) -> go.Figure:
    """Average regret R_t / t per feedback model, and the rate / t on its own (right)
    axis."""
    fig = new_figure(specs=[[{"secondary_y": True}]])
    t = np.arange(1, exp.rounds + 1)
    for j, (name, m) in enumerate(exp.models.items()):
        fig.add_trace(
            go.Scatter(
                x=t,
                y=m.regret_mean / t,
                mode="lines",
                name=name,
                line=dict(
                    color=COLORS[j % len(COLORS)],
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
    _regret_layout(fig, "average regret R_t / t", "rate / t (grey, this axis)", "Average regret")
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
    fig = new_figure(
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
        **LAYOUT,
        title=f"Where the {run.feedback} learner puts its weight (repetition 0)",
        legend=BOTTOM_LEGEND,
    )
    return fig
