"""Everything a person reads on a page is words: on every page's default view, each of the
loss page's tabs, the player's step-by-step view and each tour, no text, metric, expander,
tab, table header or cell holds a programmer identifier (a field or function name in
snake_case, a class name, a Python literal, a set literal, "Got … instead").

The scanner is tested on planted identifiers (a table with a ``lo_node_u`` column and a
"None" cell, a caption naming a class...) so that a scan finding nothing means something.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from apptest_helpers import charts, open_tab, start
from streamlit.testing.v1 import AppTest

from sslviz import tours
from ui import nav

MATH = frozenset(
    {
        "f_u",
        "f_t",
        "f_t,u",
        "f_t,u(σ*)",
        "g_u",
        "l_t",
        "l_i",
        "R_t",
        "E_G",
        "p_t",
        "σ_t",
        "σ_l",
        "σ_h",
        "σ_min",
        "σ_max",
        "max_u",
        "min_u",
        "L_UU",
        "P_UU",
        "D_UU",
        "W_UU",
        "f_U",
        "y_L",
    }
)
"""The paper's notation, written with an underscore for a subscript: allowed, one by one
(anything else joined by an underscore is a name from the code)."""

_JOINED = re.compile(r"[^\W_]+(?:_+[^\W_]+)+(?:,[^\W_]+)?(?:\(σ\*\))?")
_CLASS = re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+[a-z0-9]\b")
_LITERAL = re.compile(  # "None of the nodes", "True breakpoints" are English
    r"(?<==)(?:None|True|False)\b|\b(?:None|True|False)\b(?!\s+[a-z])|\bnan\b|\bNaN\b|<NA>"
    r"|NoneType"
)
_CALL = re.compile(r"\b[a-z]\w*\(\)")
_COLLECTION = re.compile(
    r"[{\[(]\s*(['\"])[^'\"]*\1(?:\s*,\s*(['\"])[^'\"]*\2)*\s*,?\s*[}\])]"
    r"|\b(?:frozenset|set|dict)\(",
)
_GOT = re.compile(r"\bGot\b.{0,80}?\binstead\b")
_TYPE = re.compile(r"\b(?:an? (?:int|float|str|bool|tuple)|ndarray)\b")
_LINK_TARGET = re.compile(r"\]\([^)]*\)")  # a markdown link's URL (not read as text)
_TAG = re.compile(r"<[^>]+>")
_ICON = re.compile(r":material/\w+:")  # Streamlit draws it as an icon


def programmer_words(text: str) -> list[str]:
    """The programmer identifiers in ``text``, as found (empty: plain words)."""
    text = _ICON.sub(" ", _TAG.sub(" ", _LINK_TARGET.sub("]", text)))
    found = [w for w in _JOINED.findall(text) if w not in MATH]
    for pattern in (_CLASS, _LITERAL, _CALL, _COLLECTION, _GOT, _TYPE):
        found += [m.group(0) for m in pattern.finditer(text)]
    return found


def _cells(df, placeholder: str | None) -> list[str]:
    """Each cell as the table shows it: a missing value as the placeholder (Streamlit
    writes "None" without one), a boolean as Python writes it."""
    out = []
    for col in df.columns:
        for v in df[col]:
            missing = v is None or (isinstance(v, float) and np.isnan(v)) or str(v) == "<NA>"
            out.append(("None" if placeholder is None else placeholder) if missing else str(v))
    return out


def shown_texts(at: AppTest) -> list[tuple[str, str]]:
    """``(element, text)`` for everything a person reads on the page: markdown, captions,
    headings, alerts, metrics (label and value), expander and tab labels, and every
    table's headers and cells."""
    out: list[tuple[str, str]] = []
    for kind in ("markdown", "caption", "title", "header", "subheader", "text"):
        out += [(kind, e.value) for e in at.get(kind)]
    for kind in ("info", "warning", "error", "success", "exception"):
        out += [(kind, e.value) for e in at.get(kind)]
    for m in at.metric:
        out += [("metric label", m.label), ("metric value", str(m.value))]
    out += [("expander label", e.label) for e in at.expander]
    out += [("tab label", t.label) for t in at.tabs]
    for i, d in enumerate(at.dataframe):
        df = d.value
        placeholder = d.proto.placeholder if d.proto.HasField("placeholder") else None
        out += [(f"table {i} header", str(c)) for c in df.columns]
        out += [(f"table {i} cell", c) for c in dict.fromkeys(_cells(df, placeholder))]
    return out


def findings(at: AppTest) -> list[tuple[str, str, list[str]]]:
    """``(element, text, identifiers)`` of every text with programmer identifiers."""
    return [(kind, text, w) for kind, text in shown_texts(at) if (w := programmer_words(text))]


# --- the scanner finds what is planted ---------------------------------------------------------


@pytest.mark.parametrize(
    "text, found",
    [
        ("lowest node lo_node_u", ["lo_node_u"]),
        ("None", ["None"]),
        ("the cap is None.", ["None"]),
        ("must be one of {'complete', 'knn'}", ["{'complete', 'knn'}"]),
        ("Got (2, 2) instead", ["Got (2, 2) instead"]),
        ("pass download=True to load_dataset", ["load_dataset", "True"]),
        ("a ProblemSpec of a SigmaRange", ["ProblemSpec", "SigmaRange"]),
        ("value nan", ["nan"]),
        ("must be an int in the range [3, 360]", ["an int"]),
        ("call make_instance() first", ["make_instance", "make_instance()"]),
    ],
)
def test_the_scanner_finds_planted_identifiers(text, found):
    assert programmer_words(text) == found


@pytest.mark.parametrize(
    "text",
    [
        "f_u(σ) crosses ½; the error max_u |f_t,u − f_u| against σ_min and σ_max",
        "None of the nodes is cut off. True breakpoints: 46; l̃_t(σ) = l_t(σ)",
        "[I − P_UU] has κ = 12; the range [0.58, 3.3]; Exp3-Set, CG-20, Jacobi-PCG",
        "[open the tour](/Loss_intervals?tour=cg-misses) on the **Loss intervals** page",
        ":material/arrow_forward: Loss intervals · `?tour=piecewise-loss`",
    ],
)
def test_the_scanner_passes_the_apps_words(text):
    assert programmer_words(text) == []


_PLANTED = """
import pandas as pd
import streamlit as st
st.caption("from a SweepSettings")
st.info("sigma_min must be smaller")
st.metric("t_needed", "None")
with st.expander("cg_error by σ"):
    st.dataframe(pd.DataFrame({"lo_node_u": [1, 2], "loss": [None, "x"]}))
st.dataframe(pd.DataFrame({"flag": [True, False], "words": ["a", None]}), placeholder="")
"""


def test_the_page_scan_fails_on_planted_identifiers():
    """Each kind of element is read: a planted identifier in each is found, a missing
    cell reads "None" unless the table has an (empty) placeholder, booleans are found."""
    at = AppTest.from_string(_PLANTED).run()
    found = {(kind, tuple(w)) for kind, _, w in findings(at)}
    assert found == {
        ("caption", ("SweepSettings",)),
        ("info", ("sigma_min",)),
        ("metric label", ("t_needed",)),
        ("metric value", ("None",)),
        ("expander label", ("cg_error",)),
        ("table 0 header", ("lo_node_u",)),
        ("table 0 cell", ("None",)),
        ("table 1 cell", ("True",)),
        ("table 1 cell", ("False",)),
    }


# --- every page, tab and tour -------------------------------------------------------------------

RUN_BUTTONS = ("reg_run", "speed_run")  # pages that compute on demand
LOSS_TABS = ("Estimated intervals", "Missed breakpoints", "True loss", "Trust panel", "Export")


def _computed(at: AppTest) -> AppTest:
    """The page once its results are on it (its run button pressed where it has one)."""
    for key in RUN_BUTTONS:
        if not charts(at) and any(b.key == key for b in at.button):
            at.button(key=key).click().run()
    return at


def _scan(at: AppTest, view: str) -> list[str]:
    assert not at.exception, [e.value for e in at.exception]
    return [f"{view} · {kind}: {text!r} → {words}" for kind, text, words in findings(at)]


PAGES = [p.file for p in nav.NAV]


@pytest.mark.slow  # the pages' default views and the loss page's tabs: minutes
@pytest.mark.parametrize("page", PAGES, ids=[p.split("/")[-1][:-3] for p in PAGES])
def test_no_programmer_words_on_a_pages_default_view(page):
    at = _computed(start(page))
    found = _scan(at, page)
    if page == nav.page("loss").file:
        for tab in LOSS_TABS:
            found += _scan(open_tab(at, tab), f"{page} tab {tab!r}")
    if page == "pages/Algorithm_4.py":
        at.segmented_control(key="player_view").set_value("one step at a time").run()
        found += _scan(at, f"{page} one step at a time")
    assert not found, "\n".join(found)


@pytest.mark.slow  # every tour's page: minutes
@pytest.mark.parametrize("present", [False, True], ids=["", "presenter mode"])
@pytest.mark.parametrize("tour", tours.TOURS, ids=tours.IDS)
def test_no_programmer_words_on_a_tour(tour, present):
    at = _computed(start(None, {"tour": tour.id} | ({"present": "1"} if present else {})))
    found = _scan(at, f"tour {tour.id} ({tour.page}{', presenter mode' * present})")
    assert not found, "\n".join(found)
