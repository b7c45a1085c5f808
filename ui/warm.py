"""A fresh server that warms itself while it already answers (:func:`lifespan`, ``app.py``).

``streamlit run app.py`` serves the app as an ``st.App`` whose lifespan starts, once per
server, :func:`warm` in the background as the server begins to listen (a first visit is
answered at once and computes what the warm-up has not reached yet, with the same
functions and results): the worker processes start (their
imports and compiled kernels), then every page's first view and every tour link is run
through the server's own runtime, in a session with no browser (:class:`_Quiet`): the
pages' imports, Plotly's validators of every trace type they draw, and their results and
figures in the caches (``ui.cache``: the same functions, the same keys, so a visitor gets
the very results, bit for bit, that a cold run computes). A visit after the warm-up waits
only for its browser and one cached run. A visitor goes first: the worker processes start
at a lower CPU priority (:func:`ui.visits.start_workers_behind`), so do the warm-up's own
views, and none of them starts while a visitor's run is running (:func:`ui.visits.visit`);
the view a browser asks for is run at once, ahead of its turn and at the visitor's
priority, as its page's HTML is served (:func:`requested`), so that it is
computed while the browser starts. The page runs are bounded (:data:`BUDGET`);
``SSLVIZ_WARM=0`` skips them (the workers still start): every first visit computes.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

from ui import visits

BUDGET = float(os.environ.get("SSLVIZ_WARM_SECONDS", "45") or 0)
"""Seconds the page runs of :func:`warm` may take in all (``SSLVIZ_WARM_SECONDS``, default
45): a run still going then is stopped, and the views after it are left to their first
visit (the server starts answering within the workers' start and this budget)."""


class _Quiet:
    """A session client with no browser: it keeps only whether the script run has ended."""

    def __init__(self) -> None:
        self.done = threading.Event()

    def write_forward_msg(self, msg: Any) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        if msg.WhichOneof("type") == "script_finished" and msg.script_finished in (
            ForwardMsg.FINISHED_SUCCESSFULLY,
            ForwardMsg.FINISHED_WITH_COMPILE_ERROR,
        ):
            self.done.set()

    @property
    def client_context(self) -> None:
        return None


def first_views() -> list[tuple[str, str]]:
    """``(page name, query string)`` of every first view a link opens: each page's URL and
    each tour link (``?tour=<id>``)."""
    from sslviz import tours
    from ui import nav

    out = [(p.path or "", "") for p in nav.nav_pages()]
    for t in tours.TOURS:
        page = nav.page_of(t.page)
        if page is not None:
            out.append((page.path or "", f"tour={t.id}"))
    return out


async def run_view(
    runtime: Any, page: str, query: str, timeout: float, *, behind: bool = False
) -> float | None:
    """Run the first view of ``page`` (its URL path, "" for home) with ``query`` in a new
    session of ``runtime`` with no browser, as a first visit runs it; the seconds it took,
    None if it was still running after ``timeout`` s (the session is closed after it, which
    stops its script). On the server's event loop, as a browser's session. ``behind``: no
    visitor waits for it, so its script runs at a lower CPU priority (``ui.visits.BEHIND``)."""
    import asyncio

    from streamlit.proto.BackMsg_pb2 import BackMsg

    client = _Quiet()
    sid = runtime.connect_session(client=client, user_info={"is_logged_in": False})
    visits.WARMING.add(sid)
    if behind:
        visits.BEHIND.add(sid)
    msg = BackMsg()
    msg.rerun_script.query_string = query
    msg.rerun_script.page_name = page
    t0 = time.perf_counter()
    try:
        runtime.handle_backmsg(sid, msg)
        done = await asyncio.to_thread(client.done.wait, max(timeout, 0.0))
    finally:
        runtime.close_session(sid)
        visits.WARMING.discard(sid)
        visits.BEHIND.discard(sid)
    return time.perf_counter() - t0 if done else None


_RUNTIME: list[Any] = []
"""The server's runtime, once :func:`warm` has started (for :func:`requested`)."""
_RUN: set[tuple[str, str]] = set()
"""The first views run (or running) in this server's warm-up, by :func:`warm` or ahead of
its turn by :func:`requested`."""


def requested(page: str, query: str) -> bool:
    """When a page's HTML is served (``ui.index_page``, on the server's event loop): if that
    URL is a first view (:func:`first_views`) the warm-up has not run yet, run it now, ahead
    of its turn and without waiting for the worker processes, in a session of its own
    (:func:`run_view`), while the browser starts its page and opens the websocket: the
    visitor's own run then finds the view's results and figures in the caches. Each first
    view at most once per server; nothing when ``SSLVIZ_WARM`` is "0". Returns whether that
    view's run had ended already (its results are in the caches: the page has no server
    time to wait for)."""
    import asyncio

    view = (page, query)
    if not _RUNTIME or os.environ.get("SSLVIZ_WARM", "1") == "0":
        return False
    url = f"/{page}" + (f"?{query}" if query else "")
    if view in _RUN:
        return isinstance(TIMES.get(url), float)
    if view not in first_views():
        return False
    _RUN.add(view)

    async def ahead() -> None:
        TIMES[url] = await run_view(_RUNTIME[0], page, query, BUDGET)

    asyncio.get_running_loop().create_task(ahead())
    return False


TIMES: dict[str, float | None] = {}
"""The seconds of each step of this server's :func:`warm` (None: a view stopped or left
out at the end of the budget)."""


async def warm(runtime: Any) -> dict[str, float | None]:
    """Start the worker processes (:func:`sslviz.learn.start_workers`), then run every
    first view (:func:`first_views`) once, in order, within :data:`BUDGET` s, unless
    ``SSLVIZ_WARM`` is "0". Returns (and keeps in :data:`TIMES`) the seconds of each step."""
    import asyncio

    t0 = time.perf_counter()
    _RUNTIME[:] = [runtime]
    loop, started = asyncio.get_running_loop(), asyncio.Event()
    threading.Thread(
        target=visits.start_workers_behind,
        args=(lambda: loop.call_soon_threadsafe(started.set),),
        daemon=True,
    ).start()
    await started.wait()
    TIMES["workers"] = time.perf_counter() - t0
    if os.environ.get("SSLVIZ_WARM", "1") != "0":
        end = time.perf_counter() + BUDGET
        for page, query in first_views():
            if (page, query) in _RUN:  # run ahead of its turn (:func:`requested`)
                continue
            _RUN.add((page, query))
            waited = time.perf_counter()
            while visits.running():  # a visitor's run first (its wait is not the budget's)
                await asyncio.sleep(0.05)
            end += time.perf_counter() - waited
            left = end - time.perf_counter()
            url = f"/{page}" + (f"?{query}" if query else "")
            TIMES[url] = (
                await run_view(runtime, page, query, left, behind=True) if left > 0 else None
            )
    TIMES["total"] = time.perf_counter() - t0
    print(LOG_LINE + json.dumps({k: v and round(v, 3) for k, v in TIMES.items()}), flush=True)
    return TIMES


LOG_LINE = "sslviz warm-up, seconds: "
"""The start of the line :func:`warm` prints (the server's output) with :data:`TIMES`."""


@contextlib.asynccontextmanager
async def lifespan(app: Any) -> AsyncIterator[None]:
    """The ``st.App`` lifespan of ``app.py``: :func:`warm` in the background while the server
    listens (stopped with the server)."""
    import asyncio

    task = asyncio.get_running_loop().create_task(warm(app._runtime))
    try:
        yield
    finally:
        task.cancel()
