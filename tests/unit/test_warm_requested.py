"""ui.warm.requested: the first view whose page a browser asks for is run at once, ahead of
the warm-up's turn, once per server; other URLs are left to their visit."""

from __future__ import annotations

import asyncio

import pytest

from ui import warm


@pytest.fixture
def ran(monkeypatch):
    calls: list[tuple[str, str]] = []

    async def run_view(runtime, page, query, timeout):  # the session's run, recorded
        calls.append((page, query))
        return 0.25

    monkeypatch.setattr(warm, "run_view", run_view)
    monkeypatch.setattr(warm, "_RUNTIME", [object()])
    monkeypatch.setattr(warm, "_RUN", set())
    monkeypatch.setattr(warm, "TIMES", {})
    return calls


def _serve(*views: tuple[str, str]) -> None:
    async def main() -> None:
        for page, query in views:
            warm.requested(page, query)
        await asyncio.sleep(0.01)  # the tasks it started run

    asyncio.run(main())


def test_a_first_view_runs_once_as_its_page_is_served(ran):
    tour = next(v for v in warm.first_views() if v[1])
    _serve(tour, tour, ("", ""))
    assert ran == [tour, ("", "")]
    assert warm.TIMES[f"/{tour[0]}?{tour[1]}"] == 0.25 and tour in warm._RUN


def test_other_urls_and_no_warm_up_run_nothing(ran, monkeypatch):
    _serve(("Learn", "seed=3"), ("home", ""))  # a shared link's settings; not a page's path
    assert ran == []
    monkeypatch.setenv("SSLVIZ_WARM", "0")
    _serve(("", ""))
    assert ran == []
    monkeypatch.setattr(warm, "_RUNTIME", [])  # before the server's warm-up has started
    monkeypatch.delenv("SSLVIZ_WARM")
    _serve(("", ""))
    assert ran == []
