"""The cross-validated γ view's figure: the exact cross-validated accuracy over γ (or σ)."""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go

from sslviz.plots.style import COLORS, new_figure

CV_TITLE = "cross-validated accuracy (mean over the folds)"

AXIS_TITLES = {"gamma": "γ = 1/σ² (scikit-learn's RBF gamma)", "sigma": "σ = 1/√γ (bandwidth)"}
"""The x axis's title, by axis."""


def _steps(edges: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A piecewise-constant curve as the points of a step line (``shape='hv'``)."""
    return np.asarray(edges, float), np.r_[values, values[-1]]


def add_folds(fig: go.Figure, folds: Any) -> None:
    """Each fold's step curve, ``(size, edges, values)`` (edges increasing, one value per
    piece), faint grey, under one legend entry "each fold"."""
    for i, (size, e, a) in enumerate(folds):
        x, y = _steps(e, a)
        fig.add_trace(
            go.Scatter(
                x=x,
                y=y,
                mode="lines",
                line=dict(color="#9e9e9e", width=1, shape="hv"),
                opacity=0.55,
                name="each fold",
                legendgroup="folds",
                showlegend=i == 0,
                hovertemplate=f"fold {i + 1} ({size} points): %{{y:.3f}}<extra></extra>",
            )
        )


def cv_figure(search: Any, *, axis: str = "gamma") -> go.Figure:
    """The exact cross-validated accuracy of ``search`` (a :class:`sslviz.api.GammaSearch`)
    over γ or σ (``axis``), each fold's accuracy faintly under it, the best γ's widest
    interval shaded and the best γ marked. Both axes are logarithmic in the parameter."""
    if axis not in AXIS_TITLES:
        raise ValueError(f"axis must be 'gamma' or 'sigma', not {axis!r}.")
    fig = new_figure()
    add_folds(fig, search.fold_curves(axis))
    x, y = _steps(*search.curve(axis))
    fig.add_trace(
        go.Scatter(
            x=x,
            y=y,
            mode="lines",
            line=dict(color=COLORS[0], width=3, shape="hv"),
            name="cross-validated accuracy",
            hovertemplate="%{y:.4f}<extra></extra>",
        )
    )
    lo, hi = search.best_interval
    mark = search.best_gamma
    if axis == "sigma":
        lo, hi, mark = 1.0 / np.sqrt(hi), 1.0 / np.sqrt(lo), 1.0 / np.sqrt(mark)
    symbol = "γ" if axis == "gamma" else "σ"
    fig.add_vrect(x0=lo, x1=hi, fillcolor=COLORS[2], opacity=0.15, line_width=0)
    fig.add_trace(
        go.Scatter(
            x=[mark],
            y=[search.best_score],
            mode="markers",
            marker=dict(color=COLORS[2], size=12, symbol="diamond"),
            name=f"best {symbol} {mark:.4g} (accuracy {search.best_score:.4f})",
            hovertemplate=f"best {symbol} %{{x:.4g}}: %{{y:.4f}}<extra></extra>",
        )
    )
    fig.update_xaxes(type="log", title=AXIS_TITLES[axis])
    fig.update_yaxes(title=CV_TITLE, rangemode="tozero")
    fig.update_layout(legend=dict(orientation="h", y=-0.2))
    return fig
