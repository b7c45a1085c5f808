"""The frame every page shares (:func:`page`)."""

from __future__ import annotations

import gc
import itertools
from collections.abc import Callable
from typing import Any

import streamlit as st

from sslviz.specs import ProblemSpec
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


def two_classes_yet(classes: tuple[int, ...]) -> str | None:
    """The one line a page that handles two classes shows for more classes (docs/method.md
    §13), None for two."""
    if len(classes) == 2:
        return None
    asked = (
        "every class of the dataset"
        if not classes
        else f"{len(classes)} classes ({', '.join(map(str, classes[:-1]))} and {classes[-1]})"
    )
    return (
        f"This page handles two classes yet, and the settings ask for {asked}: pick two "
        "classes in the sidebar (on the command line, sslviz loss and sslviz intervals take "
        "up to ten)."
    )


def page(
    heading: str,
    caption: str | Callable[[Any], str] | None = None,
    *,
    stop_on_errors: bool = True,
    many_classes: bool = False,
    unknown_labels: bool = False,
) -> Any:
    """The frame every page shares: the sidebar (with the open tour and presenter mode),
    the page's ``heading`` and ``caption`` (a text, or a function of the sidebar's state;
    placed by :func:`ui.presenter.heading`) and, unless ``stop_on_errors`` is False, the
    sidebar's errors, which stop the page. A page that does not handle more than two
    classes (``many_classes`` False) stops there with one line (:func:`two_classes_yet`); one
    that measures the loss on the unlabeled points (``unknown_labels`` False) stops with one
    line on a file whose y marks them with −1.
    Returns the sidebar's state (:func:`ui.sidebar.sidebar`)."""
    _freeze_long_lived()
    nav.ensure_declared()
    state = sidebar.sidebar()
    presenter.heading(heading, caption(state) if callable(caption) else caption)
    if not many_classes:
        default = ProblemSpec.__dataclass_fields__["classes"].default
        line = two_classes_yet(tuple(state.cfg.get("classes", default)))
        if line is not None:
            st.info(line, icon=":material/info:")
            st.stop()
    if stop_on_errors and not state.show_errors():
        st.stop()
    if not unknown_labels and state.unknown:
        from sslviz.runs import unknown_labels as line

        name = state.cfg.get("data_file_name") or "The file"
        text = line(name, state.unknown, "the Cross-validated γ page") + "."
        st.info(text, icon=":material/info:")
        st.stop()
    return state
