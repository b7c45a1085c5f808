"""Conditioning across σ (Figure 5): √κ per graph family, CG iterations needed and the error
of t-iteration CG."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go

from sslviz.plots.style import BOTTOM_LEGEND, COLORS, LAYOUT, SIGMA_TITLE, log_axis, new_figure


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
    fig = new_figure(rows=1, cols=max(len(names), 1), subplot_titles=names, shared_yaxes=False)
    for j, name in enumerate(names, start=1):
        c = curves[name]
        fig.add_trace(
            go.Scatter(
                x=c.sigma,
                y=np.sqrt(c.kappa),
                mode="lines+markers",
                name=f"√κ ({name})",
                line=dict(color=COLORS[(j - 1) % len(COLORS)]),
                customdata=np.c_[c.degenerate],
                hovertemplate="σ = %{x:.4g} · √κ = %{y:.3g}<br>CG needs roughly √κ "
                "iterations<br>unlabeled nodes cut off from L: %{customdata[0]}"
                "<extra></extra>",
            ),
            1,
            j,
        )
        fig.update_xaxes(title_text=SIGMA_TITLE, row=1, col=j)
        log_axis(fig, np.sqrt(c.kappa), row=1, col=j, title_text="√κ (log)" if j == 1 else None)
    fig.update_layout(
        **LAYOUT, title="Square root of the condition number (Figure 5)", showlegend=False
    )  # the panel titles name the families
    return fig


def cg_figure(curves: Mapping[str, object]) -> go.Figure:
    """CG iterations needed to reach ``rtol`` and the error of t-iteration CG, against σ.

    Returns
    -------
    go.Figure
        Two panels; per curve an ``'iterations needed (<name>)'`` trace (the σ where the
        tolerance was reached), a ``'more than the cap: not reached (<name>)'`` trace where
        it was not (drawn as lower bounds, open triangles at the cap), and a
        ``'t-iteration error (<name>)'`` trace, plus a ``'t (iterations used)'`` line.
    """
    fig = new_figure(
        rows=1,
        cols=2,
        horizontal_spacing=0.12,
        subplot_titles=(
            "CG iterations to reach the tolerance (▵: more than the cap)",
            "error of t-iteration CG: max_u |f_t,u − f_u|",
        ),
    )
    t = None
    for j, (name, c) in enumerate(curves.items()):
        color = COLORS[j % len(COLORS)]
        it = np.asarray(c.iterations_needed, float)
        it[it < 0] = np.nan
        capped = ~np.asarray(c.reached, bool) if c.reached is not None else np.zeros(it.size, bool)
        capped &= np.isfinite(it)
        fig.add_trace(
            go.Scatter(
                x=c.sigma,
                y=np.where(capped, np.nan, it),
                mode="lines+markers",
                legendgroup=name,
                name=f"iterations needed ({name})",
                line=dict(color=color),
                hovertemplate=f"{name} graph · σ = %{{x:.4g}}<br>CG needs %{{y:.0f}} "
                f"iterations to reach the relative residual {c.rtol:g}<extra></extra>",
            ),
            1,
            1,
        )
        if capped.any():  # a cap is a lower bound, not a measurement: its own marker
            fig.add_trace(
                go.Scatter(
                    x=c.sigma[capped],
                    y=it[capped],
                    mode="markers",
                    legendgroup=name,
                    name=f"more than the cap: not reached ({name})",
                    marker=dict(color=color, symbol="triangle-up-open", size=11),
                    hovertemplate=f"{name} graph · σ = %{{x:.4g}}<br>more than %{{y:.0f}} "
                    "iterations: CG stopped at its cap (10 per unknown) without reaching "
                    f"the relative residual {c.rtol:g}<extra></extra>",
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
    log_axis(fig, *errs, row=1, col=2, title_text="error (log)")
    fig.update_layout(
        **LAYOUT, title="CG work and accuracy across σ", legend=BOTTOM_LEGEND | {"y": -0.25}
    )
    return fig
