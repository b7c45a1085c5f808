"""The view's settings in the session and in the page's URL.

Values live in ``st.session_state["cfg"]`` (URL key → value; it survives page switches,
which drop widget state) and are written to the URL query string on every run, page-level
controls included, so a copied link reproduces the view. On a session's first run the link
is read (:func:`session_cfg`); a value that does not parse or is out of range is replaced
by its default with a warning. Keys, bounds and formats come from ``sslviz.specs``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from sslviz import registry, tours
from sslviz import specs as S
from sslviz.specs import ProblemSpec
from ui import views


def url_key(cls: type, name: str) -> str:
    return S.setting(cls, name).url


ROWS: dict[str, S.Setting] = {
    row.url: row for cls in views.ALL_SPECS for _, row in S.table(cls) if row.url
}
"""URL key → row, for every table in use (a page's own spec class is added by widget())."""


VIEW_KEYS: dict[str, str] = {
    "tab": "the loss page's open tab",
    "player": "the Algorithm 4 player's view (play, or one step at a time)",
    "replay": "the Algorithm 4 player's mode, where it differs from the sidebar's",
    "replay_step": "the Algorithm 4 player's step, one step at a time",
}
"""URL keys of the view state outside the settings tables (:func:`carry`): the link keeps
their text as it is, and the page that draws the control reads it."""


def from_query(query: dict) -> tuple[dict, list[str]]:
    """Settings (URL key → value) found in a URL query, and one warning per bad value;
    ``tour`` (a tour id), ``present`` (presenter mode) and the view state of
    :data:`VIEW_KEYS` (as text, checked by :func:`carry`) too."""
    cfg, warnings = {}, []
    cfg |= {key: str(query[key]) for key in VIEW_KEYS if key in query}
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
    out |= {key: str(cfg[key]) for key in VIEW_KEYS if cfg.get(key) is not None}
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


def family_of(cfg: dict) -> Any:
    """The :class:`sslviz.families.GraphFamily` the view's settings choose."""
    return registry.family(cfg.get("family", S.default(ProblemSpec, "family")))


def model_of(cfg: dict) -> Any:
    """The :class:`sslviz.labeling.SoftLabelModel` subclass the view's settings choose."""
    return registry.model(cfg.get("labeling", S.default(ProblemSpec, "labeling")))


def data_fingerprint(cfg: dict) -> tuple:
    """What the suggested σ range depends on: the data, the classes, n, PCA and the family
    (and k for a family that is not Gaussian, whose range is its edge lengths)."""
    family = family_of(cfg)
    return (
        cfg.get("data_file") or cfg.get("dataset"),
        cfg.get("classes"),
        cfg.get("n"),
        cfg.get("pca"),
        family.name,
        cfg.get("k") if not family.gaussian else None,
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


def slug(label: str) -> str:
    """A control's option as the link writes it: ``Missed breakpoints`` → ``missed-breakpoints``."""
    return "-".join(label.lower().split())


def carry(
    key: str, widget: str, options: Sequence[str] | None = None, *, default: Any = None
) -> None:
    """Carry a view control outside the settings tables in the link as ``key`` (one of
    :data:`VIEW_KEYS`): the open tab (``options``: its labels, written as :func:`slug`), a
    step (a whole number ≥ 1, no ``options``). Called just before the control (session key
    ``widget``) is drawn: the link's value, on the first run that draws it, or the last one
    kept, after a page switch dropped the control's state, seeds it; otherwise the control's
    own value is kept (left out at ``default``) and written to the link. A link value that
    is no option or no whole number is dropped with a warning."""
    cfg = session_cfg()
    seeded = st.session_state.setdefault("view_seeded", set())
    text = cfg.get(key)
    if text is not None and (widget not in st.session_state or key not in seeded):
        value = _view_value(text, options)
        if value is None:
            st.warning(
                f"Link parameter {key}={text!r} ignored ({VIEW_KEYS[key]} is "
                + (", ".join(map(slug, options)) if options else "a whole number from 1")
                + ")."
            )
        else:
            st.session_state[widget] = value
    seeded.add(key)
    value = st.session_state.get(widget)
    if value is None or value == default:
        cfg.pop(key, None)
    else:
        cfg[key] = slug(str(value)) if options else str(int(value))
    sync_url()


def forget(key: str) -> None:
    """Drop the view state ``key`` from the session and the link (its control is gone: the
    player's step once it plays again)."""
    session_cfg().pop(key, None)
    sync_url()


def _view_value(text: str, options: Sequence[str] | None) -> Any:
    """The control's value of a link's ``text``, or None when it is none."""
    if options:
        return next((o for o in options if slug(o) == text), None)
    try:
        step = int(text)
    except ValueError:
        return None
    return step if step >= 1 else None
