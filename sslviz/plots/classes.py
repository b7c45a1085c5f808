"""A node's drill-down with more than two classes (Figure 2, one-vs-all; docs/method.md §13):
its C scores F_uc(σ), the σ bands where each class wins, its own margin over the best rival."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from sslviz.plots.node import mark_miss
from sslviz.plots.style import (
    LAYOUT,
    SIGMA_TITLE,
    axes,
    class_colors,
    dict_figure,
    level_line,
    rgba,
    shade,
    subplot_layout,
)


def winner_bands(
    sigmas: np.ndarray, F: np.ndarray, breakpoints: Sequence[float] = ()
) -> list[tuple[float, float, int]]:
    """The runs of σ where one class has the top score, ``[(lo, hi, class index), ...]``
    in σ order. Where the winner changes between two grid σ, the run ends at a true
    breakpoint of the node lying between them (where its own class starts or stops
    winning: exact), else halfway between them; the grid's ends at the ends.

    Parameters
    ----------
    sigmas : ndarray of shape (G,)
    F : ndarray of shape (G, C)
        The node's scores on the grid.
    breakpoints : sequence of float
        The node's true breakpoints.
    """
    s = np.asarray(sigmas, float)
    win = np.argmax(np.asarray(F, float), axis=1)
    bps = np.sort(np.asarray(list(breakpoints), float))

    def edge(i: int) -> float:  # the winner changes between s[i - 1] and s[i]
        inside = bps[(bps > s[i - 1]) & (bps < s[i])]
        return float(inside[0]) if inside.size else float(0.5 * (s[i - 1] + s[i]))

    out: list[tuple[float, float, int]] = []
    start = 0
    for i in range(1, s.size + 1):
        if i == s.size or win[i] != win[start]:
            lo = float(s[0]) if start == 0 else edge(start)
            hi = float(s[-1]) if i == s.size else edge(i)
            out.append((lo, hi, int(win[start])))
            start = i
    return out


def winners_text(curves: dict, breakpoints: Sequence[float] = ()) -> str:
    """The drill-down's caption: which class wins where (the bands of :func:`winner_bands` on
    the exact scores of ``curves``, the page's ``class_node_curves``) and where the node's
    rightness flips, e.g. "Top score: class 3 for σ up to 1.42, class 8 from 1.42 to 4.4
    (the node's true class is 3; it is wrong where another class wins). Its true
    breakpoints: σ ≈ 1.417." """
    classes = list(curves["classes"])
    bands = winner_bands(curves["sigma"], curves["F_exact"], breakpoints)
    parts = []
    for i, (lo, hi, c) in enumerate(bands):
        where = (
            "on the whole range"
            if len(bands) == 1
            else f"for σ up to {hi:.3g}"
            if i == 0
            else f"from σ {lo:.3g} on"
            if i == len(bands) - 1
            else f"from {lo:.3g} to {hi:.3g}"
        )
        parts.append(f"class {classes[c]} {where}")
    bps = ", ".join(f"{b:.4g}" for b in breakpoints)
    return (
        f"Top exact score (on a grid of {len(curves['sigma'])} σ; a band ends at the node's "
        f"breakpoint where one lies there): {', '.join(parts)}. The node's "
        f"true class is {curves['true_class']}: it is misclassified where another class wins. "
        + (f"Its true breakpoints: σ ≈ {bps}." if bps else "It has no true breakpoint here.")
    )


def margin_of(F: np.ndarray, own: int) -> np.ndarray:
    """m = F_·own − max_{c≠own} F_·c per row of ``F`` (G, C): right where m > 0."""
    F = np.asarray(F, float)
    rest = np.delete(F, own, axis=1)
    return F[:, own] - rest.max(axis=1)


def class_scores_figure(
    sigmas: np.ndarray,
    F_exact: np.ndarray,
    *,
    u: str,
    classes: Sequence[int],
    true_class: int,
    F: np.ndarray | None = None,
    label: str = "exact",
    breakpoints: Sequence[float] = (),
    class_names: Sequence[str] | None = None,
) -> go.Figure:
    """One node's C one-vs-all scores F_uc(σ) (the drill-down of Figure 2 for C ≥ 3).

    Parameters
    ----------
    sigmas : ndarray of shape (G,)
    F_exact : ndarray of shape (G, C)
        The node's exact scores on the grid (solid, one colour per class).
    u : str
        The node, for the title (``'row 19'``).
    classes : sequence of int
        The class labels, in column order.
    true_class : int
        The node's true class (a label of ``classes``): its curve is drawn thicker and its
        legend entry says so.
    F : ndarray of shape (G, C), optional
        The chosen solver's scores (dashed, same colours), named ``label``; left out when
        ``label`` is ``'exact'``.
    label : str, default='exact'
    breakpoints : sequence of float
        The node's true breakpoints (red dashed verticals, where its rightness flips).
    class_names : sequence of str, optional
        A name per class for the legend (default: the labels).

    Returns
    -------
    go.Figure
        Two rows sharing σ. Top: per class ``'class <c>'`` (``'class <c> (true class)'``)
        exact, then per class ``'class <c>, <label>'`` if ``F`` is drawn, then ``'true
        breakpoint'`` if any; the σ bands where each class has the top exact score shaded
        in its colour (layout shapes). Bottom: the node's margin m = F_uτ − max_{c≠τ} F_uc
        (``'margin m, exact'``, ``'margin m, <label>'``), right where m > 0.
    """
    s = np.asarray(sigmas, float)
    Fe = np.asarray(F_exact, float)
    C = Fe.shape[1]
    colors = class_colors(C)
    names = [str(c) for c in classes] if class_names is None else list(class_names)
    own = list(classes).index(true_class)
    grid = dict(
        rows=2,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.1,
        row_heights=[0.68, 0.32],
        subplot_titles=(
            f"scores F_uc(σ) of {u} (true class {true_class}); shaded: the class that wins",
            "its margin m = F_u,true − max over the other classes (right where m > 0)",
        ),
    )
    layout = subplot_layout(**grid)
    bands = winner_bands(s, Fe, breakpoints)
    layout["shapes"] = [shade(lo, hi, rgba(colors[c], 0.13)) for lo, hi, c in bands]
    data: list[dict] = []
    approx = F is not None and label != "exact"
    for c in range(C):
        mine = c == own
        data.append(
            dict(
                type="scatter",
                x=s,
                y=Fe[:, c],
                mode="lines",
                name=f"class {names[c]}" + " (true class)" * mine,
                legendgroup=f"class {c}",
                line=dict(color=colors[c], width=4 if mine else 2),
                hovertemplate=f"σ = %{{x:.4g}} · class {names[c]}: exact score %{{y:.3f}}"
                "<extra></extra>",
                **axes(1),
            )
        )
    if approx:
        Fa = np.asarray(F, float)
        for c in range(C):
            data.append(
                dict(
                    type="scatter",
                    x=s,
                    y=Fa[:, c],
                    mode="lines",
                    name=f"class {names[c]}, {label}",
                    legendgroup=f"class {c}",
                    showlegend=False,
                    line=dict(color=colors[c], width=1.5, dash="dash"),
                    hovertemplate=f"σ = %{{x:.4g}} · class {names[c]}: {label} score %{{y:.3f}}"
                    "<extra></extra>",
                    **axes(1),
                )
            )
    margins = [("exact", Fe, dict(color="black", width=2))]
    if approx:
        margins.append((label, np.asarray(F, float), dict(color="black", width=1.5, dash="dash")))
    m_all = []
    for name, scores, line in margins:
        m = margin_of(scores, own)
        m_all.append(m)
        data.append(
            dict(
                type="scatter",
                x=s,
                y=m,
                mode="lines",
                name=f"margin m, {name}",
                line=line,
                hovertemplate=f"σ = %{{x:.4g}} · margin m ({name}) %{{y:.3g}}<extra></extra>",
                **axes(2),
            )
        )
    bps = [float(b) for b in breakpoints]
    if bps:
        lo_m = float(min(np.min(m) for m in m_all))
        hi_m = float(max(np.max(m) for m in m_all))
        for row, (y0, y1), show in ((1, (0.0, float(np.max(Fe))), True), (2, (lo_m, hi_m), False)):
            data.append(
                dict(
                    type="scatter",
                    x=[x for b in bps for x in (b, b, None)],
                    y=[y for _ in bps for y in (y0, y1, None)],
                    mode="lines",
                    name="true breakpoint",
                    legendgroup="breakpoint",
                    showlegend=show,
                    line=dict(color="#d62728", width=1.5, dash="dash"),
                    hovertemplate="true breakpoint: the node's top class changes between right "
                    "and wrong at σ = %{x:.4g}<extra></extra>",
                    **axes(row),
                )
            )
    if approx:  # the dashed curves' legend entry, once for every class
        data.append(
            dict(
                type="scatter",
                x=[None],
                y=[None],
                mode="lines",
                name=f"dashed: {label}",
                line=dict(color="grey", width=1.5, dash="dash"),
                **axes(1),
            )
        )
    layout["shapes"].append(level_line(0, "2"))
    layout["yaxis"] |= dict(title=dict(text="score F_uc(σ)"), rangemode="tozero")
    layout["yaxis2"] |= dict(title=dict(text="margin m"))
    layout["xaxis2"]["title"] = dict(text=SIGMA_TITLE)
    layout |= LAYOUT | dict(
        margin=LAYOUT["margin"] | dict(b=70),
        height=680,
        title=dict(text="Node drill-down (Figure 2, one column per class)"),
        legend=dict(x=1.02, xanchor="left", y=1, yanchor="top", font=dict(size=13)),
    )
    return dict_figure(data, layout, **grid)


def class_miss_figure(
    curves: dict, *, u: str, sigma_true: float, tol: float, estimate: float | None
) -> go.Figure:
    """One miss up close with more than two classes: :func:`class_scores_figure` of the
    node over a window around its true breakpoint (``curves`` from the page: ``sigma``,
    ``F``, ``F_exact``, ``label``, ``classes``, ``true_class``), the tolerance band
    ``sigma_true ± tol`` shaded and the solver's nearest estimated endpoint ``estimate``
    dotted blue (legend ``'estimated endpoint (<label>)'``)."""
    fig = class_scores_figure(
        curves["sigma"],
        curves["F_exact"],
        F=curves["F"],
        label=curves["label"],
        u=u,
        classes=curves["classes"],
        true_class=curves["true_class"],
        breakpoints=[sigma_true],
    )
    return mark_miss(
        fig, u=u, sigma_true=sigma_true, tol=tol, estimate=estimate, label=curves["label"]
    )
