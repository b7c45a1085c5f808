"""Cached computations of the Algorithm 4 player page (pages/Algorithm_4.py).

The recorded sweep reports progress while it runs, so it is memoised here without Streamlit
(:func:`record`; a ``st.cache_data`` function may not draw into a progress bar made outside
it: a cache hit would fail to replay that). What the page draws from it, the animated figure
and the event table, is cached with ``st.cache_data`` (:func:`view`), keyed by the frozen
settings.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pandas as pd

from sslviz import animation
from sslviz.intervals import Sweep, sweep
from sslviz.problem import problem_sweep
from sslviz.specs import ProblemSpec, SweepSettings
from ui import cache

MODES = ("paper", "fast")
CLASS_MODES = ("paper",)
"""The replays of more than two classes (the fast mode's one-vs-all search records no log)."""
_RECORDED = cache.Memo(4)  # a paper-mode log on a complete graph: ~30,000 events, ~10 MB


def replay_settings(settings: SweepSettings, mode: str) -> SweepSettings:
    """The sidebar's settings in ``mode`` (the certified search is fast mode only: paper
    mode replays the uncertified iteration)."""
    if mode == settings.mode:
        return settings
    return replace(settings, mode=mode, certify=settings.certify and mode == "fast")


def record(
    spec: ProblemSpec,
    lo: float,
    hi: float,
    settings: SweepSettings,
    progress: Callable[[float, str], None] | None = None,
) -> Sweep:
    """The recorded sweep (``sweep(..., record=True)``), memoised per settings; ``progress``
    is called only when it is computed. Only a finished sweep is memoised: a stopped one
    (Stop, see ``ui.progress.progress``) raises out of ``sweep`` before the memo is written."""
    key = (spec, lo, hi, settings)
    found = _RECORDED.get(key)
    if found is not None:
        return found
    p = cache.problem(spec)
    if p.instance.n_classes > 2:  # paper mode on the top-two gaps (docs/method.md §13.8)
        res = problem_sweep(p, lo, hi, settings, progress=progress, record=True)
    else:
        res = sweep(p.model, p.y_unlabeled, lo, hi, settings, progress=progress, record=True)
    _RECORDED.put(key, res)
    return res


@cache.cached(16)
def view(spec: ProblemSpec, lo: float, hi: float, settings: SweepSettings) -> dict:
    """What the page draws: ``figure`` (the animation's dict, drawn as it is), ``table``
    (the event log, nodes as instance rows), ``intervals`` (the sweep's, ``[(lo, hi,
    loss)]``), ``steps``, ``frames``, ``solves`` and ``mode``."""
    res = record(spec, lo, hi, settings)
    p = cache.problem(spec)
    rows = p.rows(range(p.model.n_unlabeled))
    truth = cache.truth(spec, lo, hi)
    fig = animation.player_figure(
        res.events,
        (lo, hi),
        truth=truth,
        rows=rows,
        title=f"Algorithm 4, {settings.mode} mode, {settings.label}: {len(res.intervals)} interval"
        + "s" * (len(res.intervals) != 1),
        as_dict=True,
        gap=p.instance.n_classes > 2,
    )
    return {
        "figure": fig,
        "table": pd.DataFrame(animation.event_rows(res.events, rows)),
        "intervals": [(iv.lo, iv.hi, iv.loss) for iv in res.intervals],
        "steps": len(res.events),
        "frames": len(fig["frames"]),
        "solves": res.solves,
        "mode": settings.mode,
    }


@cache.cached(64)
def step_figure(spec: ProblemSpec, lo: float, hi: float, settings: SweepSettings, step: int):
    """The player's figure at one real step (0-based), as a dict:
    :func:`sslviz.animation.player_figure` with ``at_step``, for the single-step view (±1,
    arrow keys, a slider over every step)."""
    res = record(spec, lo, hi, settings)
    p = cache.problem(spec)
    return animation.player_figure(
        res.events,
        (lo, hi),
        truth=cache.truth(spec, lo, hi),
        rows=p.rows(range(p.model.n_unlabeled)),
        at_step=step,
        title=f"Algorithm 4, {settings.mode} mode, {settings.label}, one step at a time",
        as_dict=True,
        gap=p.instance.n_classes > 2,
    )
