"""ui.warm.requested: the first view whose page a browser asks for is run at once, ahead of
the warm-up's turn, once per server; other URLs are left to their visit. It says whether the
view's results were computed already (the page then evaluates Plotly after its text)."""

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


def _serve(*views: tuple[str, str]) -> list[bool]:
    """Serve each view's page in turn (the tasks started run between them): what
    :func:`warm.requested` said of each, computed already or not."""
    said = []

    async def main() -> None:
        for page, query in views:
            said.append(warm.requested(page, query))
            await asyncio.sleep(0.01)  # the tasks it started run

    asyncio.run(main())
    return said


def test_a_first_view_runs_once_as_its_page_is_served(ran):
    tour = next(v for v in warm.first_views() if v[1])
    said = _serve(tour, tour, ("", ""))
    assert ran == [tour, ("", "")]
    assert warm.TIMES[f"/{tour[0]}?{tour[1]}"] == 0.25 and tour in warm._RUN
    assert said == [False, True, False]  # computed once its run has ended


def test_a_view_still_running_or_stopped_is_not_computed(ran):
    warm._RUN.add(("Learn", ""))  # the warm-up's turn: running (no time yet), then stopped
    assert _serve(("Learn", "")) == [False]
    warm.TIMES["/Learn"] = None
    assert _serve(("Learn", "")) == [False]
    assert ran == []


def test_other_urls_and_no_warm_up_run_nothing(ran, monkeypatch):
    assert _serve(("Learn", "seed=3"), ("home", "")) == [False, False]  # not first views
    assert ran == []
    monkeypatch.setenv("SSLVIZ_WARM", "0")
    _serve(("", ""))
    assert ran == []
    monkeypatch.setattr(warm, "_RUNTIME", [])  # before the server's warm-up has started
    monkeypatch.delenv("SSLVIZ_WARM")
    _serve(("", ""))
    assert ran == []
