"""The warm-up's own views run at a lower CPU priority than a visitor's run and than a view
run ahead for a browser that is loading it (``ui.visits.BEHIND``): Linux ``nice`` per
script thread, so a browser drawing a page on the same cores is not slowed by them."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from types import SimpleNamespace

import pytest

from sslviz._threads import BEHIND as STEP
from ui import visits, warm

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="per-thread CPU priority is Linux's"
)


def _priority_in_a_script_thread(monkeypatch, session_id: str) -> int:
    """The CPU priority (nice) of a new thread, as Streamlit's script thread for a run of
    ``session_id``, inside :func:`visits.visit`."""
    import streamlit.runtime.scriptrunner as scriptrunner

    ctx = SimpleNamespace(session_id=session_id)
    monkeypatch.setattr(scriptrunner, "get_script_run_ctx", lambda suppress_warning=False: ctx)
    seen: list[int] = []

    def script() -> None:
        with visits.visit():
            seen.append(os.getpriority(os.PRIO_PROCESS, 0))

    thread = threading.Thread(target=script)
    thread.start()
    thread.join()
    return seen[0]


def test_only_the_warm_ups_own_views_run_behind(monkeypatch):
    here = os.getpriority(os.PRIO_PROCESS, 0)
    monkeypatch.setattr(visits, "WARMING", {"ahead", "own"})
    monkeypatch.setattr(visits, "BEHIND", {"own"})
    assert _priority_in_a_script_thread(monkeypatch, "visitor") == here
    assert _priority_in_a_script_thread(monkeypatch, "ahead") == here
    behind = _priority_in_a_script_thread(monkeypatch, "own")
    assert behind == min(here + STEP, 19)  # 19: Linux's lowest
    assert os.getpriority(os.PRIO_PROCESS, 0) == here  # the calling thread keeps its own


class _Runtime:
    """A runtime whose sessions end their run at once, recording whether each ran behind."""

    def __init__(self) -> None:
        self.behind: list[bool] = []
        self.clients: dict[str, object] = {}

    def connect_session(self, client, user_info):
        sid = f"s{len(self.clients)}"
        self.clients[sid] = client
        return sid

    def handle_backmsg(self, sid, msg):
        self.behind.append(sid in visits.BEHIND and sid in visits.WARMING)
        self.clients[sid].done.set()

    def close_session(self, sid):
        pass


def test_run_view_marks_its_session_behind_only_when_asked():
    runtime = _Runtime()
    for behind in (False, True):
        assert asyncio.run(warm.run_view(runtime, "", "", 5.0, behind=behind)) is not None
    assert runtime.behind == [False, True]
    assert not visits.BEHIND and not visits.WARMING  # both sessions let go


def test_the_warm_ups_turns_run_behind_and_a_requested_view_does_not(monkeypatch):
    calls: list[tuple[str, bool]] = []

    async def run_view(runtime, page, query, timeout, *, behind=False):
        calls.append((f"{page}?{query}", behind))
        return 0.1

    monkeypatch.setattr(warm, "run_view", run_view)
    monkeypatch.setattr(warm, "_RUN", set())
    monkeypatch.setattr(warm, "TIMES", {})
    monkeypatch.setattr(warm, "_RUNTIME", [])
    monkeypatch.setattr(warm, "BUDGET", 45.0)
    monkeypatch.delenv("SSLVIZ_WARM", raising=False)
    monkeypatch.setattr(warm.visits, "start_workers_behind", lambda then: then())
    views = warm.first_views()

    async def main() -> None:
        warm._RUNTIME.append(object())  # the server's runtime, as once warm() has started
        warm.requested(*views[1])  # a browser loads the second view's page first
        await asyncio.sleep(0.01)
        await warm.warm(object())

    asyncio.run(main())
    second = f"{views[1][0]}?{views[1][1]}"
    assert calls[0] == (second, False)
    assert sorted(calls[1:]) == sorted((f"{p}?{q}", True) for p, q in views if (p, q) != views[1])
