"""Who runs a script now: a visitor, or the warm-up (``ui.warm``), and the worker processes
started behind a visitor. ``ui.nav.run`` marks a visitor's run (:func:`visit`); the warm-up
waits while one runs (:func:`running`) and marks its own sessions (:data:`WARMING`)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

WARMING: set[str] = set()
"""The ids of the warm-up's sessions (:func:`ui.warm.run_view`, no browser)."""

BEHIND: set[str] = set()
"""The warm-up's sessions that no visitor waits for (its own turns, not a view run ahead
for a browser loading it): their script runs at a lower CPU priority (:func:`visit`)."""

_VISITORS = [0]
"""How many visitors' script runs (not the warm-up's) are running now (:func:`visit`)."""
_VISITORS_LOCK = threading.Lock()


@contextlib.contextmanager
def visit() -> Iterator[None]:
    """Around a script run (:func:`ui.nav.run`): a visitor's run counts as running while it
    runs, and :func:`ui.warm.warm` starts no view of its own until no visitor's run is left, so a
    fresh server's first visit shares the server's one interpreter with no more than the
    warm-up view already running. A warm-up run no visitor waits for (:data:`BEHIND`) runs
    at a lower CPU priority (:func:`sslviz._threads.lower_priority`: Streamlit runs each
    script run in a thread of its own), so that a browser drawing a page on the same cores
    takes the cycles it needs first."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None or ctx.session_id in WARMING:
        if ctx is not None and ctx.session_id in BEHIND:
            from sslviz._threads import lower_priority

            lower_priority()
        yield
        return
    with _VISITORS_LOCK:
        _VISITORS[0] += 1
    try:
        yield
    finally:
        with _VISITORS_LOCK:
            _VISITORS[0] -= 1


def running() -> int:
    """How many visitors' script runs are running now."""
    return _VISITORS[0]


def start_workers_behind(then: Callable[[], Any] | None = None) -> None:
    """:func:`sslviz.learn.start_workers` in the calling thread (a thread of its own) at a
    lower CPU priority (:func:`sslviz._threads.lower_priority`: the worker processes it
    starts inherit it), so that their seconds of imports on a fresh server give way to the
    browser drawing a first visit and to the visitor's own run; ``then()`` after it."""
    from sslviz._threads import lower_priority
    from sslviz.learn import start_workers

    lower_priority()
    try:
        start_workers()
    finally:
        if then is not None:
            then()
