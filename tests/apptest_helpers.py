"""Helpers shared by the app tests (tests/test_app_*.py): start a page, read its charts."""

import base64
import json
import sys
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
# Sidebar inputs (widget keys) that each page must refuse with an error.
INVALID = {
    "k >= n": {"w_n": 20, "w_k": 20},
    "|L| >= n": {"w_n": 20, "w_labeled": 20},
    "sigma_min >= sigma_max": {"w_sigma_min": 3.0, "w_sigma_max": 1.0},
    "complete graph too large": {"w_family": "complete", "w_n": 2000},
}


def start(page: str | None, query: dict | None = None) -> AppTest:
    """Run app.py (with ``query`` in the URL), then switch to ``page`` if given."""
    sys.path.insert(0, str(ROOT))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params.update(query or {})
    at = at.run() if page is None else at.switch_page(page).run()
    return at


def chart(at: AppTest, i: int = 0) -> dict:
    return json.loads(at.get("plotly_chart")[i].proto.spec)


def values(trace: dict, axis: str = "x") -> list:
    """A trace's data, decoding Plotly's base64 typed arrays."""
    v = trace[axis]
    if isinstance(v, dict) and "bdata" in v:
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=v["dtype"]).tolist()
    return list(v)


def metrics(at: AppTest) -> dict:
    return {m.label: m.value for m in at.metric}


def assert_refuses(at: AppTest, case: str) -> None:
    """Enter the invalid sidebar inputs of ``case``: an error, no exception, no chart."""
    for key, value in INVALID[case].items():
        at.get_by_key(key).set_value(value)
    at.run()
    assert not at.exception
    assert at.error, case
    assert not at.get("plotly_chart")
