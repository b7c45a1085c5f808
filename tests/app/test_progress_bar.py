"""ui.progress: the bar and its Stop button appear only once the work has taken a while,
and the bar is updated at most every ``EVERY`` seconds."""

import pytest
from streamlit.testing.v1 import AppTest

from ui import progress


def _work(seconds: float, steps: int) -> None:  # an AppTest script: ticks over `seconds`
    import time

    import streamlit as st

    from ui import progress

    updates = []
    with progress.progress("Working…", key="work") as tick:
        bar = tick.__self__
        for i in range(steps):
            time.sleep(seconds / steps)
            tick((i + 1) / steps, f"step {i + 1}")
            if bar.bar is not None and (not updates or updates[-1] != bar.updated):
                updates.append(bar.updated)
        last = time.monotonic() - bar.started  # the last tick (a loaded machine sleeps longer)
    st.session_state["updates"] = [u - bar.started for u in updates]
    st.session_state["last"] = last
    st.write("done")


@pytest.mark.parametrize("seconds", [0.05, progress.SHOW_AFTER + 0.35])
def test_a_bar_appears_only_for_work_that_takes_a_while(seconds):
    at = AppTest.from_function(_work, args=(seconds, 40), default_timeout=30).run()
    assert not at.exception and at.markdown[0].value == "done"
    updates, last = at.session_state["updates"], at.session_state["last"]
    if seconds < progress.SHOW_AFTER and last < progress.SHOW_AFTER:
        assert updates == []  # no bar, no Stop button, no message per step
    else:  # drawn once SHOW_AFTER passed, then updated at most every EVERY s
        assert last >= progress.SHOW_AFTER and updates and updates[0] >= progress.SHOW_AFTER
        assert len(updates) <= 1 + (last - progress.SHOW_AFTER) / progress.EVERY
        assert all(b - a >= progress.EVERY for a, b in zip(updates[:-1], updates[1:], strict=True))
    assert not at.get("progress") and "Stop" not in [b.label for b in at.button]


def _silent(seconds: float) -> None:  # an AppTest script: one step that never ticks
    import time

    import streamlit as st

    from ui import progress

    with progress.progress("Working…", key="silent") as tick:
        time.sleep(seconds)
        st.session_state["drawn"] = tick.__self__.bar is not None
    st.write("done")


@pytest.mark.parametrize("seconds", [0.0, progress.SHOW_AFTER + 0.5])
def test_work_that_never_ticks_gets_its_bar_after_show_after(seconds):
    """One long step (a first part still computing, a solve with no progress of its own):
    the bar and Stop are drawn by the timer at SHOW_AFTER s, not left out until the end."""
    at = AppTest.from_function(_silent, args=(seconds,), default_timeout=30).run()
    assert not at.exception and at.markdown[0].value == "done"
    assert at.session_state["drawn"] is (seconds > progress.SHOW_AFTER)
    assert not at.get("progress") and "Stop" not in [b.label for b in at.button]
