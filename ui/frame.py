"""The frame every page shares (:func:`page`)."""

from __future__ import annotations

import gc
import itertools
from collections.abc import Callable
from typing import Any

import streamlit as st

from ui import nav, presenter, sidebar

_CALLS = itertools.count()  # the calls of page() in this server process


def _freeze_long_lived() -> None:
    """Once the process's first run is over (at the third call of :func:`page`: a first
    run can make two, :func:`ui.nav.ensure_declared`), everything tracked by the collector
    so far (NumPy, SciPy, pandas, Plotly's validators, Streamlit, sslviz, the first
    results) is kept out of Python's full collections (``gc.freeze``): it lives as long as
    the server, and a full collection that walks it all, in the middle of a page's run,
    stalls that run (``benchmarks/control_reruns.py``, ``benchmarks/paint_timeline.py``).
    A frozen object is still freed when its last reference goes; only cycles among frozen
    objects stay."""
    if next(_CALLS) == 2:
        gc.freeze()


def page(
    heading: str,
    caption: str | Callable[[Any], str] | None = None,
    *,
    stop_on_errors: bool = True,
) -> Any:
    """The frame every page shares: the sidebar (with the open tour and presenter mode),
    the page's ``heading`` and ``caption`` (a text, or a function of the sidebar's state;
    placed by :func:`ui.presenter.heading`) and, unless ``stop_on_errors`` is False, the
    sidebar's errors, which stop the page. Returns the sidebar's state
    (:func:`ui.sidebar.sidebar`)."""
    _freeze_long_lived()
    nav.ensure_declared()
    state = sidebar.sidebar()
    presenter.heading(heading, caption(state) if callable(caption) else caption)
    if stop_on_errors and not state.show_errors():
        st.stop()
    return state
