"""Helpers shared by the app tests (tests/app/): start a page, read its charts,
its download buttons and its command lines, and run those commands."""

import base64
import json
import shlex
import sys
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest, element_tree

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from ui import nav  # noqa: E402  (the app's root on the path first)

# Sidebar inputs (widget keys) that each page must refuse with an error.
INVALID = {
    "k >= n": {"w_family": "knn", "w_n": 20, "w_k": 20},
    "|L| >= n": {"w_n": 20, "w_labeled": 20},
    "sigma_min >= sigma_max": {"w_sigma_min": 3.0, "w_sigma_max": 1.0},
    "complete graph too large": {"w_family": "complete", "w_n": 2000},
}
PAGES = {p.key: p.file for p in nav.NAV if p.key != "home"}
"""Each page's file by its key (the app's page table, :data:`ui.nav.NAV`)."""


# --- download buttons -------------------------------------------------------------------
# AppTest gives each run a mock runtime whose in-memory media storage is dropped after the
# run; a download button's element only carries the URL of its file there. Recording what
# the storage is given (file id → bytes) lets a test read the bytes behind that URL.
_MEDIA: dict[str, bytes] = {}
_load_and_get_id = MemoryMediaFileStorage.load_and_get_id


def _recording_load_and_get_id(self, path_or_data, mimetype, kind, filename=None):
    file_id = _load_and_get_id(self, path_or_data, mimetype, kind, filename)
    if isinstance(path_or_data, bytes):
        _MEDIA[file_id] = path_or_data
    return file_id


if not getattr(MemoryMediaFileStorage.load_and_get_id, "_sslviz_recording", False):
    _recording_load_and_get_id._sslviz_recording = True
    MemoryMediaFileStorage.load_and_get_id = _recording_load_and_get_id


def download(at: AppTest, key: str) -> bytes:
    """The bytes a download button (widget key ``key``) hands to the browser; the button
    does not rerun the page when clicked."""
    button = at.get_by_key(key).proto
    url = button.url
    assert url, f"download button {key!r} has no file"
    assert button.ignore_rerun, f"download button {key!r} reruns the page"
    return _MEDIA[url.rsplit("/", 1)[-1].split(".")[0]]


def download_json(at: AppTest, key: str):
    return json.loads(download(at, key))


# --- starting pages and reading them ------------------------------------------------------


HOME = ("app.py", "pages/home.py")
"""The home page: app.py (the entry point, which declares the navigation) shows home.py."""


def start(
    page: str | None, query: dict | None = None, cfg: dict | None = None, timeout: float = 120
) -> AppTest:
    """Run app.py (with ``query`` in the URL and ``cfg`` as the session's settings) on
    ``page`` (a page file such as ``pages/Conditioning.py``; None or app.py: home)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    at.query_params.update(query or {})
    if cfg is not None:
        at.session_state["cfg"] = dict(cfg)
    return at.run() if page is None or page in HOME else at.switch_page(page).run()


CHART_ELEMENT = "sslviz.chart"
"""The component name of the app's chart element (``ui.plotly_element``)."""


def is_chart(element) -> bool:
    """Whether an element of AppTest's tree is one of the app's charts."""
    return getattr(getattr(element, "proto", None), "component_name", None) == CHART_ELEMENT


def charts(at: AppTest) -> list:
    """The page's charts (``ui.plotly_element`` components), in page order."""
    return [e for e in at.get("bidi_component") if is_chart(e)]


def drawn(element) -> dict:
    """What a chart element was given: ``figure`` (the figure's dict, as Plotly.js gets
    it), ``stretch`` and ``clickable``."""
    return json.loads(element.proto.bytes)


def chart(at: AppTest, i: int = 0) -> dict:
    """The figure of the page's chart ``i``."""
    return drawn(charts(at)[i])["figure"]


def values(trace: dict, axis: str = "x") -> list:
    """A trace's data, decoding Plotly's base64 typed arrays."""
    v = trace[axis]
    if isinstance(v, dict) and "bdata" in v:
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=v["dtype"]).tolist()
    return list(v)


def chart_data(at: AppTest) -> list:
    """Every chart's traces as (name, x, y) with decoded arrays: what the page draws."""
    out = []
    for i in range(len(charts(at))):
        out.append(
            [
                (t.get("name"), *(values(t, a) if a in t else None for a in ("x", "y")))
                for t in chart(at, i)["data"]
            ]
        )
    return out


def metrics(at: AppTest) -> dict:
    return {m.label: m.value for m in at.metric}


def widget_values(at: AppTest, keys) -> dict:
    return {k: at.get_by_key(k).value for k in keys}


def open_tab(at: AppTest, label: str, key: str = "li_tabs") -> AppTest:
    """The page run again with its tab ``label`` open: the loss page builds only the open
    tab's table, or its files and command lines (Export)."""
    at.session_state[key] = label
    return at.run()


def code_lines(at: AppTest) -> list[str]:
    """The command lines shown in the page's ``st.code`` blocks."""
    return [line for c in at.code for line in c.value.splitlines() if line.strip()]


def assert_refuses(at: AppTest, case: str) -> None:
    """Enter the invalid sidebar inputs of ``case``: an error, no exception, no chart."""
    for key, value in INVALID[case].items():
        if at.get_by_key(key).disabled:  # e.g. k on the complete graph: apply the family first
            at.run()
        at.get_by_key(key).set_value(value)
    at.run()
    assert not at.exception
    assert at.error, case
    assert not charts(at)


# --- running the shown command lines ------------------------------------------------------


def run_cli(line: str, out: Path, *extra: str) -> dict:
    """Run a shown ``sslviz ...`` line through ``sslviz.cli.main`` with its ``--out`` set
    to ``out``; return the JSON it wrote."""
    from sslviz.cli import main

    argv = shlex.split(line)
    assert argv[0] == "sslviz", line
    argv = argv[1:]
    if "--out" in argv:
        argv[argv.index("--out") + 1] = str(out)
    else:
        argv += ["--out", str(out)]
    assert main(argv + list(extra)) == 0, line
    return json.loads(Path(out).read_text())


@contextmanager
def sent_click(element, points: list):
    """Inside the block, the next run sends a click on chart ``element`` with ``points``, as
    the browser does: the chart element's trigger (``ui.plotly_element.CLICK``), once."""
    trigger = f"$$STREAMLIT_INTERNAL_KEY_{element.proto.id}__events"  # Streamlit's triggers
    payload = json.dumps([{"event": "click", "value": points}])
    original = element_tree.ElementTree.get_widget_states
    sent = []

    def with_click(self):
        states = original(self)
        if not sent:
            w = states.widgets.add()
            w.id, w.json_trigger_value = trigger, payload
            sent.append(True)
        return states

    element_tree.ElementTree.get_widget_states = with_click
    try:
        yield
    finally:
        element_tree.ElementTree.get_widget_states = original


@contextmanager
def clicked(at: AppTest, trace: str, index: int):
    """Click point ``index`` of the loss chart's trace named ``trace``: the next run sends
    the click (:func:`sent_click`), inside the block; yields the point's customdata."""
    fig = chart(at)
    t = next(t for t in fig["data"] if t["name"] == trace)
    cd = t["customdata"][index]
    point = {
        "curve_number": [d["name"] for d in fig["data"]].index(trace),
        "point_number": index,
        "point_index": index,
        "x": cd[2],
        "y": 0.0,
        "customdata": cd,
    }
    with sent_click(charts(at)[0], [point]):
        yield cd
