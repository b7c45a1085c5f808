"""The frame every page shares (:func:`page`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from ui import nav, presenter, sidebar


def page(
    heading: str,
    caption: str | Callable[[Any], str] | None = None,
    *,
    stop_on_errors: bool = True,
    default_tour: str | None = None,
) -> Any:
    """The frame every page shares: the sidebar (with the open tour and presenter mode),
    the page's ``heading`` and ``caption`` (a text, or a function of the sidebar's state),
    and, unless ``stop_on_errors`` is False, the sidebar's errors, which stop the page.
    ``default_tour``: the tour a fresh session opens on this page
    (:func:`ui.presenter.default_view`).
    Returns the sidebar's state (:func:`ui.sidebar.sidebar`)."""
    nav.ensure_declared()
    if default_tour is not None:
        presenter.default_view(default_tour)
    state = sidebar.sidebar()
    st.title(heading)
    text = caption(state) if callable(caption) else caption
    if text:
        st.caption(text)
    if stop_on_errors and not state.show_errors():
        st.stop()
    return state
