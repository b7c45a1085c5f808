"""Replaying a recorded sweep: Algorithm 4 step by step (a Plotly animation).

:func:`player_figure` turns ``sweep(..., record=True).events`` (:class:`sslviz.intervals.Event`)
into a figure with animation frames: Play at three speeds, Pause, Reset, and a slider to step
back and forth. Each frame shows one step of the log: on top the soft labels f_u of the running
nodes at their current iterate σ (paper mode; fast mode: the nodes nearest to 1/2 at the σ just
evaluated, or those whose crossing is being refined), the start σ0, the bracket [σ_l, σ_h] as a
band, and below the true loss with the intervals found so far. A sweep with thousands of steps
is thinned to at most ``max_frames`` frames (:func:`frame_steps`); the step counter of each
frame is the real step number. :func:`event_rows` is the log as table rows.

Nothing here imports Streamlit.
"""

from __future__ import annotations

import bisect
import math
import textwrap
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go

from sslviz.convergence import SOLVER_NAMES
from sslviz.plots import SIGMA_TITLE
from sslviz.plots.style import new_figure

KEY_KINDS = ("start", "bracket", "interval", "breakpoint")
"""Event kinds kept first when the frames are thinned (the story's turning points)."""
SPEEDS = {"1×": 400, "2×": 200, "4×": 100}
"""Play buttons: label → milliseconds per frame."""
MAX_FRAMES = 150
_NODE_COLORS = ("#1f77b4", "#d62728")  # f_u < 1/2 (class c0 side), f_u > 1/2 (class c1 side)
_BAND = "rgba(255,127,14,0.14)"
_EVAL = "#7f7f7f"
_INTERVAL = "#1f77b4"


PLAYER_CLASSES = (
    "More than two classes, one-vs-all (docs/method.md §13.8): paper mode only; each node "
    "iterates on g_u = (F_ua − F_ub)², the gap between its top class a and its runner-up b at "
    "its current σ (re-read at every step), so the top chart shows that gap in place of the "
    "soft label, in one colour (it is never negative), its roots at 0: where the node's "
    "predicted class changes."
)
"""The Algorithm 4 page's line for more than two classes."""


def frame_steps(events: Sequence, max_frames: int = MAX_FRAMES) -> list[int]:
    """Which events become frames: at most ``max_frames`` indices into ``events``, sorted.

    The first and the last event are always kept; then the events of :data:`KEY_KINDS`
    (evenly spaced among them if there are too many); the rest of the budget is spread
    evenly over the other events. Every event is kept when there are at most
    ``max_frames``.
    """
    n = len(events)
    if max_frames < 2:
        raise ValueError(f"frame_steps: max_frames must be at least 2. Got {max_frames}.")
    if n <= max_frames:
        return list(range(n))
    keep = {0, n - 1}
    key = [i for i, e in enumerate(events) if e.kind in KEY_KINDS and 0 < i < n - 1]
    room = max_frames - 2
    if len(key) > room // 2:  # key events take at most half of the budget
        key = [key[int(j)] for j in np.linspace(0, len(key) - 1, room // 2)]
    keep.update(key)
    rest = max_frames - len(keep)
    if rest > 0:
        for i in np.linspace(0, n - 1, rest + 2)[1:-1]:
            keep.add(int(round(i)))
    out = sorted(keep)
    while len(out) > max_frames:  # rounding collisions never add; trim the fill if any
        out.pop(len(out) // 2)
    return out


def _wrap(text: str, width: int = 150, lines: int = 2) -> str:
    """At most ``lines`` lines of ``width`` characters (Plotly annotations do not wrap)."""
    return "<br>".join(textwrap.wrap(text, width, max_lines=lines, placeholder=" …")) or " "


def _band(lo: float, hi: float, y0: float, y1: float) -> tuple[list, list]:
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return [None], [None]
    return [lo, lo, hi, hi, lo], [y0, y1, y1, y0, y0]


def _segments(intervals) -> tuple[list, list]:
    xs, ys = [], []
    for iv in intervals:
        xs += [iv.lo, iv.hi, None]
        ys += [iv.loss, iv.loss, None]
    return xs or [None], ys or [None]


def _name(u: int, rows: Sequence[int] | None) -> str:
    return f"row {rows[u]}" if rows is not None else f"node {u}"


_STILL = {
    "frame": {"duration": 0, "redraw": True},
    "mode": "immediate",
    "transition": {"duration": 0},
}
"""Plotly ``animate`` arguments that show one frame and stop."""


def _play(ms: int) -> dict:
    """Plotly ``animate`` arguments that play the frames from the current one, ``ms`` each."""
    return {
        "frame": {"duration": ms, "redraw": True},
        "fromcurrent": True,
        "transition": {"duration": 0},
        "mode": "immediate",
    }


def _finish(fig: go.Figure, frames: list[dict], as_dict: bool) -> go.Figure | dict:
    """``fig`` (complete, validated) with the animation ``frames``: dicts in Plotly's full
    form (``name``, ``data`` as trace dicts with their ``type``, ``traces``, ``layout``),
    never validated: Plotly's objects for a frame per t or step took most of a player's
    build, and again at every unpickling of a cached figure. ``as_dict``: the figure's
    dict (the app caches it and draws it as it is, ``ui.widgets.chart``); else a Figure of
    it, not validated again (nor are later updates of it). The tests validate every
    figure built so."""
    if not frames:  # a still figure: Plotly's own, as built
        return fig.to_dict() if as_dict else fig
    out = {**fig.to_dict(), "frames": frames}
    return out if as_dict else go.Figure(out, _validate=False)


SLIDER_PX = 44
"""The height a player's slider takes (its rail, ticks and labels; no current-value line)."""


def _controls(buttons: list, steps: list, *, above: int, active: int, **slider) -> dict:
    """A player's ``sliders`` (one step per ``(label, frame name)`` of ``steps``, as wide as
    the plot) ``above`` px over the plot's top, and its ``updatemenus`` (its ``buttons`` in
    a row) over the slider: both in the top margin, on the first screen with the chart's
    top; ``slider``: the slider's own styling."""
    menu = dict(
        type="buttons",
        direction="left",
        showactive=False,
        x=0,
        y=1,
        xanchor="left",
        yanchor="bottom",
        pad=dict(t=0, b=above + SLIDER_PX),
        buttons=buttons,
    )
    bar = dict(
        active=active,
        x=0,
        y=1,
        len=1,
        yanchor="bottom",
        pad=dict(t=0, b=above),
        ticklen=2,
        currentvalue=dict(visible=False),
        steps=[dict(label=lab, method="animate", args=[[name], _STILL]) for lab, name in steps],
        **slider,
    )
    return dict(updatemenus=[menu], sliders=[bar])


def player_figure(
    events: Sequence,
    sigma_range: tuple[float, float],
    *,
    truth=None,
    rows: Sequence[int] | None = None,
    max_frames: int = MAX_FRAMES,
    title: str = "Algorithm 4, step by step",
    at_step: int | None = None,
    as_dict: bool = False,
    gap: bool = False,
) -> go.Figure | dict:
    """An animation of a recorded sweep, one frame per kept step (:func:`frame_steps`), or
    with ``at_step`` (0-based, any of the log's steps) that one step, still.

    Parameters
    ----------
    events : sequence of sslviz.intervals.Event
        ``sweep(..., record=True).events`` (paper or fast mode), non-empty.
    sigma_range : (float, float)
        The sweep's [σ_min, σ_max] (PCA-space distance units): the x axis.
    truth : sslviz.truth.LossCurve, optional
        The exact loss, drawn under the intervals (static).
    rows : sequence of int, optional
        Instance row of each unlabeled node: hover texts and captions name nodes "row r".
    max_frames : int, default=150
    title : str
    at_step : int, optional
        Draw this step only: the same traces and annotations, no frames, buttons or slider
        (the page's single-step view, where ±1 and the arrow keys move by one real step).
    as_dict : bool, default=False
        Return the figure's dict, its frames never made into Plotly objects (the app
        draws it as it is).
    gap : bool, default=False
        A paper-mode log of C ≥ 3 classes (``sweep_classes(..., record=True)``): the top
        row shows each node's top-two gap F_ua − F_ub (its ``f`` − ½), whose roots are at
        0, in one colour (the gap is never negative).

    Returns
    -------
    go.Figure or dict
        Two rows sharing σ: soft labels f_u (top; with ``gap`` the top-two gaps) and loss
        (bottom). Traces, in order:
        ``'true loss l(σ)'`` (only with ``truth``), then the animated ones
        ``'bracket [σ_l, σ_h]'`` (top) and its bottom copy (no legend), ``'σ0'`` (paper) or
        ``'σ evaluated'`` (fast), ``'running nodes'`` (x = σ, y = f_u, ``customdata`` =
        node index), ``'this step's node'``, ``'crossings found'`` (roots that moved a
        bracket; fast: breakpoints), ``'starts σ0'`` (paper) or ``'evaluations'`` (fast; σ
        and the loss there), ``'intervals found'`` (segments at their loss:
        x = [lo, hi, None, …]). ``fig.frames`` are named ``'s<step>'`` (0-based event step)
        and update the animated traces and ``layout.annotations`` (0: the counter
        "step k / N", 1: the caption). The figure itself shows the first frame; the slider's
        steps are labelled with the real step number.
    """
    if not len(events):
        raise ValueError("player_figure: the event log is empty (record the sweep first).")
    lo, hi = (float(v) for v in sigma_range)
    n = len(events)
    paper = any(e.kind in ("start", "step", "bracket") for e in events)
    if at_step is not None and not 0 <= at_step < n:
        raise ValueError(f"player_figure: at_step must be in [0, {n - 1}]. Got {at_step}.")
    keep = frame_steps(events, max_frames) if at_step is None else [at_step]
    # cumulative pieces, by step
    ivs = [(e.step, e.interval) for e in events if e.kind == "interval" and e.interval]
    iv_steps = [s for s, _ in ivs]
    if paper:
        cross = [(e.step, e.at) for e in events if e.kind == "bracket" and math.isfinite(e.at)]
        evals = [(e.step, e.sigma0, e.loss) for e in events if e.kind == "start"]
    else:
        cross = [(e.step, e.at) for e in events if e.kind == "breakpoint"]
        evals = [
            (e.step, e.at, e.loss)
            for e in events
            if e.kind in ("grid", "split", "degenerate", "refine")
        ]
    cross_steps = [s for s, _ in cross]
    eval_steps = [s for s, *_ in evals]
    loss_top = max([float(np.max(truth.loss.values))] if truth is not None else [0.0])
    loss_top = max(
        loss_top, *(iv.loss for _, iv in ivs), *(v for *_, v in evals if math.isfinite(v)), 0.05
    )
    y_loss = 1.12 * loss_top
    half = 0.5 if gap else 0.0  # shown: f − ½, the top-two gap, for C ≥ 3 classes
    said = "gap" if gap else "f"

    def state(e) -> list[dict]:
        k = bisect.bisect_right
        b0, b1 = e.bracket if e.kind != "grid" else (math.nan, math.nan)
        bx, by = _band(b0, b1, -0.05, 1.05)
        bx2, by2 = _band(b0, b1, 0.0, y_loss)
        mark = e.sigma0 if paper else e.at
        mx = [mark, mark] if math.isfinite(mark) else [None]
        f = np.asarray(e.f, float) - half
        txt = [_name(int(u), rows) for u in e.nodes]
        focus = [i for i, u in enumerate(e.nodes) if int(u) == e.node]
        fx = [float(e.sigma[i]) for i in focus] or [None]
        fy = [float(f[i]) for i in focus] or [None]
        cr = [x for _, x in cross[: k(cross_steps, e.step)]]
        ev = evals[: k(eval_steps, e.step)]
        xs, ys = _segments([iv for _, iv in ivs[: k(iv_steps, e.step)]])
        return [
            dict(type="scatter", x=bx, y=by),
            dict(type="scatter", x=bx2, y=by2),
            dict(type="scatter", x=mx, y=[-0.05, 1.05] if len(mx) == 2 else [None]),
            dict(
                type="scatter",
                x=list(map(float, e.sigma)) or [None],
                y=list(map(float, f)) or [None],
                text=txt or [None],
                customdata=[int(u) for u in e.nodes] or [None],
                marker=dict(color=[_NODE_COLORS[int(gap or v > 0.5)] for v in f] or None),
            ),
            dict(type="scatter", x=fx, y=fy),
            dict(type="scatter", x=cr or [None], y=[0.5 - half] * len(cr) or [None]),
            # float32 typed arrays: this trace grows with every frame (display only)
            dict(
                type="scatter",
                x=np.array([x for _, x, _ in ev], np.float32) if ev else [None],
                y=np.array([v for *_, v in ev], np.float32) if ev else [None],
            ),
            dict(type="scatter", x=xs, y=ys),
        ]

    def notes(e) -> list[dict]:
        counter = f"<b>step {e.step + 1} / {n}</b> · {e.kind}"
        return [
            _counter_note(counter, yshift=44),
            dict(
                text=_wrap(e.describe(rows)),
                x=0,
                y=1.0,
                xref="paper",
                yref="paper",
                xanchor="left",
                yanchor="bottom",
                yshift=4,
                showarrow=False,
                align="left",
                font=dict(size=14, color="#111111"),
            ),
        ]

    fig = new_figure(
        rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.07, row_heights=[0.6, 0.4]
    )
    static = 0
    if truth is not None:
        e_, v_ = truth.loss.edges, truth.loss.values
        fig.add_trace(
            go.Scatter(
                x=e_,
                y=np.r_[v_, v_[-1]],
                mode="lines",
                line_shape="hv",
                name="true loss l(σ)",
                line=dict(color="black", width=2),
                hovertemplate="σ = %{x:.5g}<br>true loss %{y:.4f}<extra></extra>",
            ),
            2,
            1,
        )
        static = 1
    first = [go.Scatter(d) for d in state(events[keep[0]])]
    styles = [
        (
            1,
            dict(
                name="bracket [σ_l, σ_h]",
                mode="lines",
                fill="toself",
                fillcolor=_BAND,
                line=dict(width=0),
                hoverinfo="skip",
                legendgroup="band",
            ),
        ),
        (
            2,
            dict(
                name="bracket [σ_l, σ_h]",
                mode="lines",
                fill="toself",
                fillcolor=_BAND,
                line=dict(width=0),
                hoverinfo="skip",
                legendgroup="band",
                showlegend=False,
            ),
        ),
        (
            1,
            dict(
                name="σ0" if paper else "σ evaluated",
                mode="lines",
                line=dict(color="#ff7f0e", width=2, dash="dash"),
                hoverinfo="skip",
            ),
        ),
        (
            1,
            dict(
                name="running nodes" if paper else "nodes (f_u at σ)",
                mode="markers",
                marker=dict(size=9, line=dict(color="white", width=0.5)),
                hovertemplate="%{text}: σ = %{x:.5g}, " + said + " = %{y:.4f}<extra></extra>",
            ),
        ),
        (
            1,
            dict(
                name="this step's node",
                mode="markers",
                hoverinfo="skip",
                marker=dict(size=17, color="rgba(0,0,0,0)", line=dict(color="black", width=2)),
            ),
        ),
        (
            1,
            dict(
                name="crossings found",
                mode="markers",
                marker=dict(symbol="x-thin", size=11, line=dict(color="#2ca02c", width=2.5)),
                hovertemplate="crossing σ = %{x:.5g}<extra></extra>",
            ),
        ),
        (
            2,
            dict(
                name="starts σ0" if paper else "evaluations",
                mode="markers",
                marker=dict(
                    symbol="star" if paper else "circle",
                    size=10 if paper else 5,
                    color="#ff7f0e" if paper else _EVAL,
                ),
                hovertemplate="σ = %{x:.5g}, l̃ = %{y:.4f}<extra></extra>",
            ),
        ),
        (
            2,
            dict(
                name="intervals found",
                mode="lines",
                line=dict(color=_INTERVAL, width=4),
                hovertemplate="interval end σ = %{x:.5g}, l̃ = %{y:.4f}<extra></extra>",
            ),
        ),
    ]
    for (row, style), tr in zip(styles, first, strict=True):
        tr.update(**style)
        fig.add_trace(tr, row, 1)
    animated = list(range(static, static + len(styles)))
    fig.add_hline(y=0.5 - half, line=dict(color="black", width=1, dash="dot"), row=1, col=1)
    pad = 0.02 * (hi - lo)
    fig.update_xaxes(range=[lo - pad, hi + pad])
    fig.update_xaxes(title_text=SIGMA_TITLE, row=2, col=1)
    top = "top-two gap F_ua − F_ub" if gap else "soft label f_u"
    fig.update_yaxes(title_text=top, range=[-0.05, 1.05], row=1, col=1)
    fig.update_yaxes(title_text="loss", range=[0, y_loss], row=2, col=1)
    layout = dict(
        hovermode="closest",
        title=dict(text=title, x=0, xanchor="left", y=0.99, yanchor="top", font=dict(size=15)),
        annotations=notes(events[keep[0]]),
    )
    if at_step is not None:
        fig.update_layout(
            **layout,
            height=620,
            margin=dict(l=70, r=20, t=120, b=90),
            legend=dict(orientation="h", x=0, y=-0.13, yanchor="top"),
        )
        return _finish(fig, [], as_dict)
    frames = [
        dict(
            name=f"s{events[i].step}",
            data=state(events[i]),
            traces=animated,
            layout=dict(annotations=notes(events[i])),
        )
        for i in keep
    ]

    buttons = [
        dict(label=f"▶ {name}", method="animate", args=[None, _play(ms)])
        for name, ms in SPEEDS.items()
    ]
    buttons += [
        dict(label="■ pause", method="animate", args=[[None], _STILL]),
        dict(label="◀◀ reset", method="animate", args=[[frames[0]["name"]], _STILL]),
    ]
    steps = [(str(events[i].step + 1), f"s{events[i].step}") for i in keep]
    fig.update_layout(
        **layout,
        height=720,
        margin=dict(l=70, r=20, t=200, b=100),
        legend=dict(orientation="h", x=0, y=-0.13, yanchor="top"),
        **_controls(
            buttons,
            steps,
            above=70,
            active=0,
            font=dict(color="rgba(0,0,0,0)"),
        ),
    )
    return _finish(fig, frames, as_dict)


_SOLVER_STYLE = {  # name (sslviz.convergence.SOLVER_NAMES), colour, dash, miss marker
    s: (SOLVER_NAMES[s], *style)
    for s, style in {
        "cg": ("#1f77b4", "solid", "x-thin"),
        "pcg": ("#ff7f0e", "dash", "circle-open"),
    }.items()
}


def _counter_note(text: str, yshift: int = 6) -> dict:
    """The players' counter line above the chart (annotation 0), ``yshift`` px up."""
    return dict(
        text=text,
        x=0,
        y=1.0,
        xref="paper",
        yref="paper",
        xanchor="left",
        yanchor="bottom",
        yshift=yshift,
        showarrow=False,
        font=dict(size=16, color="#111111"),
    )


def _exact_trace(x, y) -> go.Scatter:
    """The scrubbers' exact loss l(σ), a black step line."""
    return go.Scatter(
        x=x,
        y=y,
        mode="lines",
        line_shape="hv",
        name="exact loss l(σ)",
        line=dict(color="black", width=2.5),
        hovertemplate="σ = %{x:.5g}<br>l(σ) = %{y:.4f}<extra></extra>",
    )


def convergence_counter(conv, t: int) -> str:
    """The scrubber's line for step t: the breakpoints each solver's own t-iteration labels
    miss at t (docs/method.md §1.1: not Algorithm 4's count, which the sentence under the
    chart gives beside it), of the breakpoints."""
    b = conv.breakpoints.size
    said = [f"{_SOLVER_STYLE[s][0]} {int(conv.misses(s)[t - 1])}" for s in conv.solvers]
    return f"<b>t = {t}</b> · breakpoints its own soft labels miss: " + ", ".join(said) + f" of {b}"


def convergence_figure(
    conv, *, start: int = 1, at_t: int | None = None, as_dict: bool = False
) -> go.Figure | dict:
    """The t-scrubber: l̃_t(σ) of CG and Jacobi-PCG against l(σ), for t = 1..T.

    Parameters
    ----------
    conv : sslviz.convergence.Convergence
    start : int, default=1
        The t shown first (and where the slider starts).
    at_t : int, optional
        Draw that t only, still: no frames, buttons or slider.
    as_dict : bool, default=False
        Return the figure's dict, its frames never made into Plotly objects (the app
        draws it as it is).

    Returns
    -------
    go.Figure or dict
        Top (σ axis): ``'exact loss l(σ)'`` (black), then per solver ``'<solver> l̃_t(σ)'``
        and ``'<solver> misses at t'`` (markers on the exact loss at each missed breakpoint);
        bottom (t axis): per solver ``'<solver> misses'`` against t, and ``'t'`` (the
        current t, a vertical line). Frames ``'t<t>'`` (t = 1..T) move the l̃_t, the misses
        and the t line, and annotation 0 (:func:`convergence_counter`). A dotted line and
        the next annotations mark the t from which every node is on its exact side at every
        σ read, per solver.
    """
    T = conv.iterations
    t0 = at_t if at_t is not None else start
    if not 1 <= t0 <= T:
        raise ValueError(f"convergence_figure: t must be in [1, {T}]. Got {t0}.")
    x = conv.sigmas
    near = np.minimum(np.searchsorted(x, conv.breakpoints), x.size - 1)
    b_y = conv.exact[near]
    top = max(float(np.max(conv.exact)), *(float(np.max(v)) for v in conv.loss.values()))
    most = max(1, *(int(np.max(conv.misses(s))) for s in conv.solvers))

    def moving(t: int) -> list[dict]:
        out = []
        for s in conv.solvers:
            miss = conv.missed[s][t - 1]
            out.append(dict(type="scatter", y=conv.loss[s][t - 1]))
            out.append(
                dict(
                    type="scatter",
                    x=conv.breakpoints[miss] if miss.any() else [None],
                    y=b_y[miss] if miss.any() else [None],
                )
            )
        out.append(dict(type="scatter", x=[t, t], y=[0, 1.08 * most]))
        return out

    settled = [(s, conv.all_right_from(s)) for s in conv.solvers]
    marks = [
        dict(
            text=f"{_SOLVER_STYLE[s][0]}: every side right from t = {k}",
            x=k,
            y=1.0 - 0.14 * i,
            xref="x2",
            yref="y2 domain",
            xanchor="left",
            xshift=4,
            yanchor="top",
            showarrow=False,
            font=dict(size=12, color=_SOLVER_STYLE[s][1]),
        )
        for i, (s, k) in enumerate(settled)
        if k is not None
    ]

    def notes(t: int) -> list[dict]:
        return [_counter_note(convergence_counter(conv, t)), *marks]

    fig = new_figure(rows=2, cols=1, vertical_spacing=0.16, row_heights=[0.62, 0.38])
    fig.add_trace(_exact_trace(x, conv.exact), 1, 1)
    first = [go.Scatter(d) for d in moving(t0)]
    animated = []
    for i, s in enumerate(conv.solvers):
        name, color, dash, symbol = _SOLVER_STYLE[s]
        line, miss = first[2 * i], first[2 * i + 1]
        line.update(
            x=x,
            mode="lines",
            line_shape="hv",
            name=f"{name} l̃_t(σ)",
            line=dict(color=color, width=2, dash=dash),
            hovertemplate="σ = %{x:.5g}<br>" + name + " l̃_t = %{y:.4f}<extra></extra>",
        )
        miss.update(
            mode="markers",
            name=f"{name} misses at t",
            marker=dict(symbol=symbol, size=12, color=color, line=dict(color=color, width=2.5)),
            hovertemplate="missed breakpoint σ = %{x:.5g}<extra></extra>",
        )
        fig.add_trace(line, 1, 1)
        fig.add_trace(miss, 1, 1)
        animated += [len(fig.data) - 2, len(fig.data) - 1]
    for s in conv.solvers:
        name, color, dash, _ = _SOLVER_STYLE[s]
        fig.add_trace(
            go.Scatter(
                x=np.arange(1, T + 1),
                y=conv.misses(s),
                mode="lines",
                name=f"{name} misses",
                line=dict(color=color, dash=dash),
                hovertemplate="t = %{x}: " + name + " misses %{y}<extra></extra>",
                showlegend=False,
            ),
            2,
            1,
        )
        k = conv.all_right_from(s)
        if k is not None:
            fig.add_vline(x=k, line=dict(color=color, width=1.5, dash="dot"), row=2, col=1)
    t_line = first[-1]
    t_line.update(
        mode="lines",
        name="t",
        line=dict(color="#555555", width=2),
        hoverinfo="skip",
        showlegend=False,
    )
    fig.add_trace(t_line, 2, 1)
    animated.append(len(fig.data) - 1)
    lo, hi = float(x[0]), float(x[-1])
    pad = 0.02 * (hi - lo)
    fig.update_xaxes(title_text=SIGMA_TITLE, range=[lo - pad, hi + pad], row=1, col=1)
    fig.update_xaxes(title_text="t (iterations)", range=[0.5, T + 0.5], row=2, col=1)
    fig.update_yaxes(title_text="loss", range=[0, 1.1 * max(top, 0.05)], row=1, col=1)
    fig.update_yaxes(title_text="misses", range=[0, 1.08 * most], row=2, col=1)
    layout = dict(
        hovermode="closest",
        annotations=notes(t0),
        legend=dict(orientation="h", x=0, y=-0.1, yanchor="top"),
    )
    if at_t is not None:
        fig.update_layout(**layout, height=560, margin=dict(l=70, r=20, t=60, b=70))
        return _finish(fig, [], as_dict)
    buttons = [
        dict(label="▶ play", method="animate", args=[None, _play(SPEEDS["2×"])]),
        dict(label="■ pause", method="animate", args=[[None], _STILL]),
        dict(label="◀◀ t = 1", method="animate", args=[["t1"], _STILL]),
    ]
    fig.update_layout(
        **layout,
        height=640,
        margin=dict(l=70, r=20, t=130, b=80),
        **_controls(
            buttons,
            [(str(t), f"t{t}") for t in range(1, T + 1)],
            above=34,
            active=t0 - 1,
            font=dict(size=10),
        ),
    )
    frames = [
        dict(name=f"t{t}", data=moving(t), traces=animated, layout=dict(annotations=notes(t)))
        for t in range(1, T + 1)
    ]
    return _finish(fig, frames, as_dict)


def event_rows(events: Sequence, rows: Sequence[int] | None = None) -> list[dict]:
    """The event log as table rows (one dict per event): step (1-based), kind, σ0,
    σ_l, σ_h, running nodes, node (instance row when ``rows`` is given), σ, loss, caption."""
    out = []
    for e in events:
        out.append(
            {
                "step": e.step + 1,
                "kind": e.kind,
                "σ0": e.sigma0,
                "σ_l": e.bracket[0],
                "σ_h": e.bracket[1],
                "nodes shown": int(len(e.nodes)),
                "node": (rows[e.node] if rows is not None else e.node) if e.node >= 0 else None,
                "σ": e.at,
                "loss": e.loss,
                "caption": e.describe(rows),
            }
        )
    return out


# -- the t-scrubber for more than two classes (docs/method.md §13.8) -----------------------

CLASS_STEPS = 8
"""Most t values of the scrubber for more than two classes: each is a whole one-vs-all
sweep per solver (seconds each), not a read of one run."""


def class_steps(iterations: int, t: int, most: int = CLASS_STEPS) -> list[int]:
    """The t of the scrubber's frames for more than two classes: about ``most`` t spread
    geometrically over 1..``iterations`` (1 and T included), and ``t`` (the sidebar's, if
    at most T), sorted."""
    if iterations < 1 or most < 2:
        raise ValueError(
            f"class_steps: iterations must be at least 1 and most at least 2. Got "
            f"{iterations} and {most}."
        )
    spread = np.unique(np.rint(np.geomspace(1, iterations, min(most, iterations))).astype(int))
    return sorted({int(v) for v in spread} | ({t} if 1 <= t <= iterations else set()))


@dataclass(frozen=True, eq=False)
class ClassConvergence:
    """Algorithm 4 one-vs-all at each t of ``steps`` (:func:`class_convergence`).

    Attributes
    ----------
    truth : sslviz.truth.LossCurve
        The exact multi-class curve on the range.
    steps : list of int
        The t values, increasing.
    sweeps : dict
        Per solver ('cg', 'pcg'), one :class:`sslviz.algorithm4.Sweep` per t of ``steps``:
        the fast mode's intervals of ``sslviz intervals --cg-iters t``.
    missed : dict
        Per solver, the true breakpoints each sweep misses (scored within ``tol``).
    tol : float
    seconds : float
    """

    truth: Any
    steps: list[int]
    sweeps: dict[str, list[Any]]
    missed: dict[str, list[int]]
    tol: float
    seconds: float

    @property
    def solvers(self) -> tuple[str, ...]:
        return tuple(self.sweeps)


def class_convergence(
    model,
    y: np.ndarray,
    classes: tuple[int, ...],
    truth,
    settings,
    steps: Sequence[int],
    *,
    score: Callable[..., Any],
    solvers: Sequence[str] = ("cg", "pcg"),
    tol: float | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> ClassConvergence:
    """Algorithm 4 one-vs-all (:func:`sslviz.algorithm4.sweep_classes`, fast mode) on the
    range of ``truth`` with ``settings``' other choices and each solver of ``solvers`` at
    each t of ``steps``, each scored against ``truth``.

    Parameters
    ----------
    model : SoftLabelModel
    y : ndarray of shape (n,)
        Class indices of every point.
    classes : tuple of int
    truth : sslviz.truth.LossCurve
        :func:`sslviz.truth.multiclass_loss_curve` on the range.
    settings : sslviz.specs.SweepSettings
        The sweep's other settings (ε, the certificate is dropped: it would prove every t).
    steps : sequence of int
        The t values (each at least 1).
    score : callable
        :func:`sslviz.scoring.score` (passed in: scoring sits above this module), called as
        ``score(sweep, truth, tol=tol, y=y)``; its ``missed`` is each sweep's count.
    solvers : sequence of {'cg', 'pcg'}
    tol : float, optional
        The scoring tolerance (default: :class:`sslviz.specs.ScoreSettings`').
    progress : callable, optional
        ``progress(fraction, message)`` after each sweep. Changes no number.
    """
    from sslviz.algorithm4 import sweep_classes
    from sslviz.specs import ScoreSettings, default

    tol = default(ScoreSettings, "tol") if tol is None else tol
    steps = sorted({int(t) for t in steps})
    if not steps or steps[0] < 1:
        raise ValueError(f"class_convergence: every t must be at least 1. Got {steps}.")
    lo, hi = float(truth.loss.edges[0]), float(truth.loss.edges[-1])
    t0 = time.perf_counter()
    sweeps: dict[str, list[Any]] = {}
    missed: dict[str, list[int]] = {}
    total = len(solvers) * len(steps)
    for i, sv in enumerate(solvers):
        sweeps[sv], missed[sv] = [], []
        for j, t in enumerate(steps):
            s = settings.replace(mode="fast", solver=sv, cg_iters=t, certify=False)
            res = sweep_classes(model, y, classes, lo, hi, s)
            sweeps[sv].append(res)
            missed[sv].append(int(score(res, truth, tol=tol, y=y).missed))
            if progress is not None:
                progress((i * len(steps) + j + 1) / total, f"{s.label}: done")
    return ClassConvergence(truth, steps, sweeps, missed, tol, time.perf_counter() - t0)


CLASSES_CAPTION = (
    "More than two classes, one-vs-all: black, the exact loss l(σ); blue (CG) and dashed "
    "orange (Jacobi-PCG), the loss l̃_t(σ) of the intervals Algorithm 4's fast mode finds "
    "on t-iteration scores, each class's column solved by t iterations from zero, at a few "
    "t. Bottom: the true breakpoints those intervals miss, against t. Drag the slider or "
    "press play: every t shown was computed once, so nothing is computed while you scrub."
)
"""The CG-iterations page's caption for more than two classes."""


def class_steps_words(cc: ClassConvergence) -> str:
    """The line under the scrubber for more than two classes: the t shown, what each frame
    is (the command that gives it) and the time the sweeps took."""
    ts = ", ".join(map(str, cc.steps))
    return (
        f"t = {ts}: each frame is the intervals of sslviz intervals --cg-iters t (and --solver "
        f"pcg), {len(cc.steps) * len(cc.solvers)} sweeps in {cc.seconds:.1f} s; a miss is a "
        f"true breakpoint with no interval end within {cc.tol:g}."
    )


def class_convergence_figure(
    cc: ClassConvergence, *, start: int | None = None, as_dict: bool = False
) -> go.Figure | dict:
    """The t-scrubber for more than two classes: Algorithm 4's one-vs-all l̃_t(σ) of CG
    and Jacobi-PCG against the exact l(σ), one frame per t of ``cc.steps``.

    Returns
    -------
    go.Figure or dict
        Top (σ axis): ``'exact loss l(σ)'``, then per solver ``'<solver> l̃_t(σ)'`` (the
        intervals' losses, a step line); bottom (t axis, logarithmic): per solver
        ``'<solver> misses'`` against t and ``'t'`` (the current t). Frames ``'t<t>'``
        move the l̃_t and the t line and annotation 0 (the breakpoints each misses).
    """
    steps = cc.steps
    t0 = steps[0] if start is None else start
    if t0 not in steps:
        raise ValueError(f"class_convergence_figure: start must be one of {steps}. Got {t0}.")
    e, v = cc.truth.loss.edges, cc.truth.loss.values
    most = max(1, *(max(m) for m in cc.missed.values()))
    top = float(np.max(v)) if v.size else 0.0

    def step_line(pieces) -> tuple[list, list]:
        edges, values = pieces.edges, pieces.values
        return list(edges), [*values.tolist(), values[-1] if values.size else None]

    def counter(k: int) -> str:
        said = ", ".join(f"{_SOLVER_STYLE[s][0]} {cc.missed[s][k]}" for s in cc.solvers)
        return (
            f"<b>t = {steps[k]}</b> · breakpoints Algorithm 4 one-vs-all misses: {said} of "
            f"{cc.truth.breakpoints.size}"
        )

    def moving(k: int) -> list[dict]:
        out = []
        for s in cc.solvers:
            x, y = step_line(cc.sweeps[s][k].estimated_loss())
            out.append(dict(type="scatter", x=x, y=y))
        out.append(dict(type="scatter", x=[steps[k]] * 2, y=[0, 1.08 * most]))
        return out

    def note(k: int) -> list[dict]:
        return [_counter_note(counter(k))]

    k0 = steps.index(t0)
    fig = new_figure(rows=2, cols=1, vertical_spacing=0.16, row_heights=[0.62, 0.38])
    x, y = step_line(cc.truth.loss)
    fig.add_trace(_exact_trace(x, y), 1, 1)
    first = [go.Scatter(d) for d in moving(k0)]
    animated = []
    for i, s in enumerate(cc.solvers):
        name, color, dash, _ = _SOLVER_STYLE[s]
        first[i].update(
            mode="lines",
            line_shape="hv",
            name=f"{name} l̃_t(σ)",
            line=dict(color=color, width=2, dash=dash),
            hovertemplate="σ = %{x:.5g}<br>" + name + " l̃_t = %{y:.4f}<extra></extra>",
        )
        fig.add_trace(first[i], 1, 1)
        animated.append(len(fig.data) - 1)
    for s in cc.solvers:
        name, color, dash, symbol = _SOLVER_STYLE[s]
        fig.add_trace(
            go.Scatter(
                x=steps,
                y=cc.missed[s],
                mode="lines+markers",
                name=f"{name} misses",
                line=dict(color=color, dash=dash),
                marker=dict(symbol=symbol, size=9, color=color),
                hovertemplate="t = %{x}: " + name + " misses %{y}<extra></extra>",
                showlegend=False,
            ),
            2,
            1,
        )
    first[-1].update(
        mode="lines",
        name="t",
        line=dict(color="#555555", width=2),
        hoverinfo="skip",
        showlegend=False,
    )
    fig.add_trace(first[-1], 2, 1)
    animated.append(len(fig.data) - 1)
    lo, hi = float(e[0]), float(e[-1])
    pad = 0.02 * (hi - lo)
    fig.update_xaxes(title_text=SIGMA_TITLE, range=[lo - pad, hi + pad], row=1, col=1)
    fig.update_xaxes(title_text="t (iterations)", type="log", row=2, col=1)
    fig.update_yaxes(title_text="loss", range=[0, 1.1 * max(top, 0.05)], row=1, col=1)
    fig.update_yaxes(title_text="misses", range=[0, 1.08 * most], row=2, col=1)
    buttons = [
        dict(label="▶ play", method="animate", args=[None, _play(SPEEDS["1×"])]),
        dict(label="■ pause", method="animate", args=[[None], _STILL]),
        dict(label=f"◀◀ t = {steps[0]}", method="animate", args=[[f"t{steps[0]}"], _STILL]),
    ]
    fig.update_layout(
        hovermode="closest",
        annotations=note(k0),
        legend=dict(orientation="h", x=0, y=-0.1, yanchor="top"),
        height=640,
        margin=dict(l=70, r=20, t=130, b=80),
        **_controls(
            buttons, [(str(t), f"t{t}") for t in steps], above=34, active=k0, font=dict(size=10)
        ),
    )
    frames = [
        dict(name=f"t{t}", data=moving(k), traces=animated, layout=dict(annotations=note(k)))
        for k, t in enumerate(steps)
    ]
    return _finish(fig, frames, as_dict)
