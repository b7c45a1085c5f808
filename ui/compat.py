"""The app's only contact with Streamlit internals, each with a fallback.

Streamlit has no public API for these four facts, so they are read here and nowhere else
(``tests/app/test_ui_compat.py`` checks each against the installed Streamlit):

- :func:`page_file`: which page file this run draws (fallback: None, "unknown");
- :func:`in_sidebar`: whether a container is the sidebar (fallback: False);
- :func:`unrecorded`: a progress callback that a ``st.cache_data`` function may call
  without its bar updates being recorded for replay (fallback: no callback, no bar);
- :func:`later`: a call, a moment later, in another thread that may draw on this run's
  page (fallback: no call).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

Tick = Callable[[float, str], None]
"""``tick(fraction, message)``: a progress callback (:class:`ui.progress.progress`)."""

ROOT = Path(__file__).resolve().parent.parent
"""The app's root folder (where ``app.py`` is); page files are named relative to it."""


def page_file() -> str | None:
    """The page file this run draws, relative to the app root (None when unknown)."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx()
        info = ctx.pages_manager.get_pages().get(ctx.page_script_hash) or {}
        path = info.get("script_path") or ctx.pages_manager.main_script_path
        return Path(path).resolve().relative_to(ROOT).as_posix()
    except Exception:  # pragma: no cover - outside a script run, or a path elsewhere
        return None


def in_sidebar(container: Any) -> bool:
    """Whether ``container`` is the sidebar (or a block inside it)."""
    try:
        from streamlit.proto.RootContainer_pb2 import RootContainer
    except ImportError:  # pragma: no cover - a Streamlit without it
        return False
    return getattr(container, "_root_container", None) == RootContainer.SIDEBAR


def unrecorded(progress: Callable[..., None] | None) -> Callable[..., None] | None:
    """``progress`` wrapped so that, called inside an ``st.cache_data`` function, its
    updates of a progress bar (or of a chart's place, :class:`ui.progress.growing`) made
    outside the function are not recorded as the function's output: Streamlit would
    replay them on a cache hit, into a bar that no longer exists
    (``CacheReplayClosureError``)."""
    if progress is None:
        return None
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import in_cached_function
    except ImportError:  # pragma: no cover - a Streamlit without it: no bar is safer
        return None

    def tick(*args: Any) -> None:
        token = in_cached_function.set(False)
        try:
            progress(*args)
        finally:
            in_cached_function.reset(token)

    return tick


def later(seconds: float, call: Callable[[], None]) -> Any:
    """Start a timer that calls ``call()`` after ``seconds`` in a thread of its own, with
    this script run's context, so that it may draw into this run's placeholders while the
    script thread computes (Streamlit interrupts only the script thread). The started
    ``threading.Timer`` (``.cancel()`` it), or None outside a script run or on a Streamlit
    without the functions (no call then)."""
    import threading

    try:
        from streamlit.runtime.scriptrunner import add_script_run_ctx, get_script_run_ctx
    except ImportError:  # pragma: no cover - a Streamlit without them
        return None
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None:
        return None
    timer = threading.Timer(seconds, call)
    timer.daemon = True
    add_script_run_ctx(timer, ctx)
    timer.start()
    return timer
