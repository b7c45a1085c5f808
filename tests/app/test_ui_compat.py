"""ui.compat, the app's only use of Streamlit internals, against the installed Streamlit:
each of its four facts is read right (a fallback would hide a Streamlit change)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from ui import compat

SCRIPT = """
import streamlit as st
from ui import compat

st.write(f"page={compat.page_file()}")
st.sidebar.write(f"sidebar={compat.in_sidebar(st.sidebar)}")
st.sidebar.write(f"sidebar column={compat.in_sidebar(st.sidebar.columns(2)[0])}")
st.write(f"main={compat.in_sidebar(st.container())}")
bar = st.progress(0.0)
tick = compat.unrecorded(lambda f, m: bar.progress(f, text=m))


@st.cache_data
def doubled(x, _tick):
    _tick(0.5, "half way")
    return 2 * x


st.write(f"value={doubled(21, tick)}")
slot = st.empty()  # drawn into from the timer's thread, while this one waits
timer = compat.later(0.05, lambda: slot.write("later=drawn"))
timer.join(10)
"""


def _texts(at: AppTest) -> set[str]:
    return {m.value for m in at.markdown}


def test_page_file_sidebar_and_unrecorded_progress(tmp_path, monkeypatch):
    (tmp_path / "probe.py").write_text(SCRIPT)
    monkeypatch.setattr(compat, "ROOT", tmp_path)
    at = AppTest.from_file(str(tmp_path / "probe.py")).run()
    assert not at.exception
    assert {"page=probe.py", "main=False", "value=42", "later=drawn"} <= _texts(at)
    assert {m.value for m in at.sidebar.markdown} == {"sidebar=True", "sidebar column=True"}
    # a cache hit replays nothing into the (new) bar: without unrecorded() Streamlit would
    # raise CacheReplayClosureError here
    at.run()
    assert not at.exception and "value=42" in _texts(at)


def test_fallbacks_outside_a_script_run():
    assert compat.page_file() is None
    assert compat.in_sidebar(object()) is False
    assert compat.unrecorded(None) is None
    assert compat.later(0.0, lambda: None) is None  # no run to draw on: no call
