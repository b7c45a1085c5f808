"""The view's settings in the session and in the page's URL.

Values live in ``st.session_state["cfg"]`` (URL key → value; it survives page switches,
which drop widget state) and are written to the URL query string on every run, page-level
controls included, so a copied link reproduces the view. On a session's first run the link
is read (:func:`session_cfg`); a value that does not parse or is out of range is replaced
by its default with a warning. Keys, bounds and formats come from ``sslviz.specs``.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from sslviz import specs as S
from sslviz import tours
from sslviz.specs import ProblemSpec
from ui import views


def url_key(cls: type, name: str) -> str:
    return S.setting(cls, name).url


ROWS: dict[str, S.Setting] = {
    row.url: row for cls in views.ALL_SPECS for _, row in S.table(cls) if row.url
}
"""URL key → row, for every table in use (a page's own spec class is added by widget())."""


def from_query(query: dict) -> tuple[dict, list[str]]:
    """Settings (URL key → value) found in a URL query, and one warning per bad value;
    ``tour`` (a tour id) and ``present`` (presenter mode) too."""
    cfg, warnings = {}, []
    for cls in views.ALL_SPECS:
        values, warns = S.from_query(cls, query)
        cfg |= {url_key(cls, name): v for name, v in values.items()}
        warnings += [w for w in warns if w not in warnings]  # a key shared by two tables (t)
    if "tour" in query:
        text = str(query["tour"])
        if text in tours.BY_ID:
            cfg["tour"] = text
        else:
            warnings.append(
                f"Link parameter tour={text!r} ignored (no such tour; the tours "
                f"are {', '.join(tours.IDS)})."
            )
    if "present" in query:
        try:
            cfg["present"] = S.Flag().parse(str(query["present"]))
        except ValueError as exc:
            warnings.append(f"Link parameter present={query['present']!r} ignored ({exc}).")
    return cfg, warnings


def to_query(cfg: dict) -> dict[str, str]:
    """The URL query of the settings in ``cfg`` (an uploaded file cannot travel in a link:
    then no ``dataset`` is written), with the open tour (``tour=<id>``) and presenter mode
    (``present=1``)."""
    out = {}
    for key, row in ROWS.items():
        value = cfg.get(key)
        if value is None or (key == "dataset" and cfg.get("data_file")):
            continue
        out[key] = row.rule.format(value)
    if cfg.get("tour"):
        out["tour"] = str(cfg["tour"])
    if cfg.get("present"):
        out["present"] = "1"
    return out


def spec_from_cfg(cls: type, cfg: dict, **overrides: Any):
    """Build ``cls`` from the settings (its defaults where ``cfg`` has no value)."""
    values = {
        name: cfg[row.url] for name, row in S.table(cls) if row.url and cfg.get(row.url) is not None
    }
    return cls(**(values | overrides))


def tour_cfg(tour: tours.Tour) -> tuple[dict, list[str]]:
    """A tour's settings (URL key → value) and the warnings of any bad value (none: tested)."""
    return from_query(tour.settings)


SIDEBAR_KEYS: frozenset[str] = frozenset(
    {"dataset", "classes"}
    | {
        row.url
        for cls in (S.ProblemSpec, S.SigmaRange, S.SweepSettings)
        for _, row in S.table(cls)
        if row.url
    }
)
"""URL keys of the sidebar's controls (presenter mode draws a tour's among them on the page)."""


def data_fingerprint(cfg: dict) -> tuple:
    """What the suggested σ range depends on: the data, the classes, n, PCA and the family
    (and k for the threshold family, whose range is its edge lengths)."""
    fam = cfg.get("family", S.default(ProblemSpec, "family"))
    return (
        cfg.get("data_file") or cfg.get("dataset"),
        cfg.get("classes"),
        cfg.get("n"),
        cfg.get("pca"),
        fam,
        cfg.get("k") if fam == "threshold" else None,
    )


def session_cfg() -> dict:
    if "cfg" not in st.session_state:
        cfg, warns = from_query(dict(st.query_params))
        st.session_state["cfg"] = cfg
        st.session_state["url_warnings"] = warns
        st.session_state["range_from_url"] = "sigma_min" in cfg and "sigma_max" in cfg
    return st.session_state["cfg"]


def sync_url() -> None:
    try:
        query = to_query(session_cfg())
        if dict(st.query_params) != query:
            st.query_params.from_dict(query)
    except Exception:  # pragma: no cover - the URL is a convenience, never fatal
        pass
