"""Progress bars with a Stop button for long computations (:class:`progress`), and charts
drawn again as a computation's parts arrive (:class:`growing`).

A stopped computation is remembered in the session, so the page does not restart it by
itself; its Run button starts it again.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

import streamlit as st

from ui import compat

SHOW_AFTER = 0.3
"""Seconds of work before a computation's bar and Stop button are drawn."""

EVERY = 0.1
"""Seconds between two updates of a bar."""

STOPPED = "_sslviz_stopped"
"""Session-state key: the keys of the computations whose Stop button was pressed."""


def _stop(key: str) -> None:  # the Stop button's callback (runs first in the next run)
    st.session_state.setdefault(STOPPED, set()).add(key)


RESUMED = "_sslviz_resumed"
"""Session-state key: stopped computations whose Run button was pressed (until they start)."""


def _resume(key: str) -> None:  # the Run button's callback
    st.session_state.setdefault(STOPPED, set()).discard(key)
    st.session_state.setdefault(RESUMED, set()).add(key)


def pending(key: Any) -> bool:
    """Whether the computation of ``key`` was stopped in this session, or its Run button
    (after a stop) was just pressed: a page whose computation waits for its own button
    enters its :class:`progress` block then too (to show "Stopped", or to run)."""
    k = _stop_key(key)
    return k in st.session_state.get(STOPPED, ()) or k in st.session_state.get(RESUMED, ())


def _stop_key(key: Any) -> str:
    return hashlib.sha256(repr(key).encode()).hexdigest()[:16]


class progress:  # noqa: N801 - used as a context manager: ``with progress("…") as tick:``
    """A progress bar and a Stop button for one computation: ``tick(fraction, message)``
    updates the bar (the callback the ``sslviz`` functions take); both appear once the work
    has taken :data:`SHOW_AFTER` s, whether or not it has ticked by then, and are removed
    when the block ends.

    ``key`` names the computation (its settings; default: ``text``); ``restart``: the
    page's own Run button was pressed, so a stopped ``key`` runs again; ``kept``: for a
    computation whose parts arrive (a stream), draws what arrived before a stop, beside the
    "Stopped" note, and returns whether anything had (None: nothing partial is kept).
    How Stop works: Streamlit interrupts a running script at its next Streamlit call when a
    widget is clicked, and every update of the bar (every :data:`EVERY` s of work, at the
    next ``tick``) is such a call, so a click on Stop ends the computation within one update
    (an exception unwinds it: ``st.cache_data`` stores nothing, and the app's memo dicts
    store only finished results, a stream's parts apart). The Stop button's callback
    remembers ``key`` in the session, so in the rerun that follows, entering this block
    draws "Stopped. Press Run to compute again" and a Run button instead, and stops the
    script (``st.stop()``): the page never restarts a stopped computation by itself. Changed
    settings interrupt a running computation the same way (the rerun computes the new
    request), and so does a closed browser tab: Streamlit stops the session's script at its
    next Streamlit call, which the bar's updates provide, so an abandoned computation does
    not keep a CPU busy for longer than one update.
    """

    def __init__(
        self,
        text: str,
        container: Any = None,
        *,
        key: Any = None,
        restart: bool = False,
        kept: Callable[[], Any] | None = None,
    ) -> None:
        self.text, self.container, self.kept = text, container, kept
        self.key = _stop_key(text if key is None else key)
        if restart:  # the page's own Run button was pressed: a stopped request runs again
            st.session_state.get(STOPPED, set()).discard(self.key)

    def __enter__(self):
        where = self.container or st
        st.session_state.get(RESUMED, set()).discard(self.key)
        if self.key in st.session_state.get(STOPPED, ()):
            # columns, not the running row's container: a block of another kind replaces the
            # row whole, so no stale Stop button lingers next to these (and vice versa)
            note, box = where.columns([6, 1], vertical_alignment="center")
            box.button(
                "Run",
                key=f"w_run_{self.key}",
                type="primary",
                icon=":material/play_arrow:",
                on_click=_resume,
                args=(self.key,),
            )
            shown = self.kept is not None and self.kept()
            note.info(
                "Stopped: what had arrived is shown, said as partial. Press Run to compute "
                "the rest."
                if shown
                else "Stopped. Press Run to compute again.",
                icon=":material/stop_circle:",
            )
            st.stop()
        # a placeholder holds the row (drawn at the first update, see :meth:`tick`), in
        # every run: what follows keeps its place; emptying it removes bar and button at the
        # end (``container.empty()`` would only add an empty element inside the row)
        self.slot = where.empty()
        self.bar, self.ended = None, False
        self.shown: tuple[float, str] = (0.0, "")  # the last fraction and message ticked
        self.lock = threading.Lock()  # the timer's thread draws the bar too
        self.started = self.updated = time.monotonic()
        # the bar is drawn after SHOW_AFTER s even if the work has not ticked by then (one
        # long step, a first part still computing): the page says at once what is running
        self.timer = compat.later(SHOW_AFTER, self._show)
        return self.tick

    def _show(self) -> None:  # the timer's thread, SHOW_AFTER s after the block began
        with self.lock:
            if self.bar is None and not self.ended:
                self.updated = time.monotonic()
                self._draw(*self.shown)

    def tick(self, fraction: float, message: str = "") -> None:
        """Update the bar: drawn, with its Stop button, once the work has taken
        :data:`SHOW_AFTER` s (quick work, or a cached result, shows no bar; work that has
        not ticked by then gets its bar from a timer), then updated at most every
        :data:`EVERY` s (each update is a message the browser redraws)."""
        now = time.monotonic()
        self.shown = (fraction, message)
        if now - self.started < SHOW_AFTER or now - self.updated < EVERY:
            return
        self.updated = now
        with self.lock:
            self._draw(fraction, message)

    def _draw(self, fraction: float, message: str) -> None:
        """Draw the bar at ``fraction`` (with its Stop button, the first time)."""
        f = min(max(float(fraction), 0.0), 1.0)
        if self.bar is None:
            box = self.slot.container(horizontal=True, vertical_alignment="center")
            self.bar = box.progress(f, text=self.text, width="stretch")
            box.button(
                "Stop",
                key=f"w_stop_{self.key}",
                icon=":material/stop:",
                on_click=_stop,
                args=(self.key,),
                help="Stop this computation ("
                + ("what has arrived is kept)." if self.kept else "nothing partial is kept)."),
            )
        self.bar.progress(f, text=f"{self.text} {message}".strip())

    def __exit__(self, *exc: Any) -> None:
        if self.timer is not None:
            self.timer.cancel()
        with self.lock:
            self.ended = True
        self.slot.empty()


REDRAW_EVERY = 0.3
"""Seconds between two draws of a :class:`growing` chart (its last draw is never skipped)."""


class growing:  # noqa: N801 - a chart's place, as ``st.empty()`` is
    """A chart drawn again as the parts of a computation arrive, in one place: the place
    :func:`ui.widgets.chart` would give this run's next chart (a tour's stage included),
    each draw replacing the last, at most every :data:`REDRAW_EVERY` s."""

    def __init__(self, container: Any = None) -> None:
        from ui import presenter

        where, self.staged = presenter.chart_place(container or st)
        self.slot = where.empty()
        self.drawn = -float("inf")
        self.draws = 0

    def draw(
        self, build: Callable[[], Any], *, key: str, last: bool = False, **kwargs: Any
    ) -> bool:
        """Draw ``build()`` (a figure or its dict; None: nothing to draw yet) unless the last
        draw was under :data:`REDRAW_EVERY` s ago (``last``: the finished result, always drawn);
        ``key`` and ``kwargs`` (``on_click``) as :func:`ui.widgets.chart`'s (a draw before
        the last gets its own key). Whether it was drawn."""
        now = time.monotonic()
        if not last and now - self.drawn < REDRAW_EVERY:
            return False
        fig = build()
        if fig is None:
            return False
        self.drawn, self.draws = now, self.draws + 1
        from ui import widgets

        part = key if last else f"{key}_part{self.draws}"  # a key is once in a run
        widgets.placed_chart(self.slot, fig, key=part, slot=key, staged=self.staged, **kwargs)
        return True


def streamed(
    text: str,
    parts: Callable[[Callable[[float, str], None]], Iterable[Any]],
    *,
    key: Any,
    kept: Callable[[], Any],
    figure: Callable[[Any], Any],
    chart_key: str,
    restart: bool = False,
) -> tuple[growing, Any]:
    """A computation whose parts arrive (``parts(tick)``: an iterable of parts, the last one
    ``complete``; a part has ``fraction``, ``status()`` and ``missing()``), under a
    :class:`progress` bar (``text``, ``key``, ``restart`` as there), each part's chart
    (``figure(part)``) drawn in one :class:`growing` place as it arrives. After a stop,
    the part that had arrived (``kept()``, None if none) is drawn there with what is
    missing under it. Returns the place (the page draws its finished chart there, with
    ``last=True``) and the last part."""
    place = growing()

    def show_kept() -> bool:
        part = kept()
        if part is not None:
            place.draw(lambda: figure(part), key=chart_key)
            st.caption(part.missing())
        return part is not None

    part = None
    with progress(text, key=key, restart=restart, kept=show_kept) as tick:
        for part in parts(tick):
            tick(part.fraction, part.status())
            if not part.complete:
                place.draw(lambda p=part: figure(p), key=chart_key)
    return place, part
