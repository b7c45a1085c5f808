"""Sidebar, page controls and URL state of the sslviz app, generated from ``sslviz.specs``.

Every control is drawn by :func:`widget` from its row in a settings table (label, bounds,
options, help), so the app, the CLI and the URL share one default, one bound and one help
text per setting. Values live in ``st.session_state["cfg"]`` (URL key → value; it
survives page switches, which drop widget state) and are written to the URL query string
on every run, page-level controls included, so a copied link reproduces the view. On a
session's first run the link is read; a value that does not parse or is out of range is
replaced by its default with a warning.

The σ range follows the data: it moves to the suggested range whenever the data settings
change, unless the user typed a range for those data (remembered per session).

App-only request caps come from the environment: ``SSLVIZ_MAX_N``, ``SSLVIZ_MAX_COMPLETE_N``,
``SSLVIZ_MAX_ROUNDS``, ``SSLVIZ_MAX_REPEATS`` bound the widgets; ``SSLVIZ_MAX_SECONDS``
(default 60) and ``SSLVIZ_MAX_MEMORY_MB`` (default 1000) bound every computation by its
estimated time and memory (:mod:`sslviz.costs`): a request over them is refused with the
estimate and the nearest settings that fit (:func:`refuse`), before anything is computed.

Long computations run under :class:`progress`, which draws a Stop button next to the bar
and remembers a stopped request so the page does not restart it by itself.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Imported here, whole, before any session builds a figure: Plotly looks pandas up in
# sys.modules without importing it, and under load one session's figure could find it
# half-imported by another session's thread ("partially initialized module 'pandas' has
# no attribute 'Series'", seen by benchmarks/load_test.py). ~0.25 s of a cold start.
import numpy as np
import pandas  # noqa: F401
import streamlit as st
from streamlit.proto.RootContainer_pb2 import RootContainer

import app_cache
from sslviz import costs, tours
from sslviz import specs as S
from sslviz._validation import InvalidParameterError
from sslviz.specs import ProblemSpec, SigmaRange, SweepSettings

UPLOAD = "upload a file…"
ROOT = Path(__file__).resolve().parent

NAV: tuple[tuple[str, str, str, str | None], ...] = (
    ("home.py", "Home", ":material/home:", None),
    ("app_pages/1_Loss_intervals.py", "Loss intervals", ":material/show_chart:", "Loss_intervals"),
    ("app_pages/2_Conditioning.py", "Conditioning", ":material/functions:", "Conditioning"),
    ("app_pages/3_Online_regret.py", "Online regret", ":material/casino:", "Online_regret"),
    ("app_pages/4_Speed.py", "Speed", ":material/timer:", "Speed"),
    ("app_pages/5_Algorithm_4.py", "Algorithm 4 player", ":material/play_circle:", "Algorithm_4"),
    ("app_pages/6_Learn.py", "Learn from instances", ":material/school:", "Learn"),
    ("app_pages/7_CG_iterations.py", "CG iterations", ":material/timeline:", "CG_iterations"),
)
"""The app's pages: (file, navigation title, icon, URL path; None: the root). Material
icons: Streamlit ships their font, so they render where no emoji font is installed. A page
whose file does not exist (yet) is left out of the navigation."""

PRESENT_HEIGHT, PRESENT_FONT = 1.35, 1.4
"""Presenter mode: chart height and font scale (on a projector)."""
STAGE_HEIGHT, STAGE_FONT = 590, 1.2
"""Height (px) and font scale of a tour's first chart in presenter mode: with the tour's
header row above it, the whole chart fits a 1280×720 projector screen
(tests/test_browser_presenter.py)."""


def _env_int(name: str, default: int) -> int:
    try:
        return max(1, int(os.environ.get(name, default)))
    except ValueError:
        return default


MAX_N = _env_int("SSLVIZ_MAX_N", 3000)
MAX_LARGE_N = _env_int("SSLVIZ_MAX_LARGE_N", 15000)
MAX_LARGE_SECONDS = _env_int("SSLVIZ_MAX_LARGE_SECONDS", 120)
"""The large option: a sparse graph on a whole class pool above ``MAX_N`` points (up to
``MAX_LARGE_N``), each computation capped at ``MAX_LARGE_SECONDS`` of estimated time."""
LARGE_NODE_GRID = 40  # σ of the drill-down's f_u(σ) above MAX_N (~0.3 s an exact solve)
MAX_COMPLETE_N = _env_int("SSLVIZ_MAX_COMPLETE_N", 1500)
MAX_ROUNDS = _env_int("SSLVIZ_MAX_ROUNDS", 300)
MAX_REPEATS = _env_int("SSLVIZ_MAX_REPEATS", 10)
MAX_MEMORY_MB = _env_int("SSLVIZ_MAX_MEMORY_MB", 1000)
MAX_SECONDS = _env_int("SSLVIZ_MAX_SECONDS", 60)
DENSE_COPIES = costs.DENSE_COPIES
CAPS = {"n": MAX_N, "labeled": MAX_N, "subset": MAX_N, "rounds": MAX_ROUNDS,
        "repeats": MAX_REPEATS}  # fmt: skip
"""Upper bounds of widgets (URL key → cap) that the app sets below the tables' bounds."""

METRIC_HELP = {
    "ε-volume": "Total σ length where the estimated loss differs from the true loss "
    "(Definition 3.1; uncovered σ counts too).",
    "spurious endpoints": "Estimated endpoints with no true breakpoint within 10⁻³.",
    "solves": "Linear systems solved (each CG solve runs t matrix-vector products).",
    "time per interval": "CPU time of the whole sweep divided by M: the minimum over a few "
    "runs, so it does not depend on what else the server is doing.",
}


# --------------------------------------------------------------------------------------------
# Pure helpers (testable without a session)
# --------------------------------------------------------------------------------------------


def url_key(cls: type, name: str) -> str:
    return S.setting(cls, name).url


_ROWS: dict[str, S.Setting] = {
    row.url: row for cls in S.ALL_SPECS for _, row in S.table(cls) if row.url
}
"""URL key → row, for every table in use (a page's own spec class is added by widget())."""


def from_query(query: dict) -> tuple[dict, list[str]]:
    """Settings (URL key → value) found in a URL query, and one warning per bad value;
    ``tour`` (a tour id) and ``present`` (presenter mode) too."""
    cfg, warnings = {}, []
    for cls in S.ALL_SPECS:
        values, warns = S.from_query(cls, query)
        cfg |= {url_key(cls, name): v for name, v in values.items()}
        warnings += [w for w in warns if w not in warnings]  # a key shared by two tables (t)
    if "tour" in query:
        text = str(query["tour"])
        if text in tours.BY_ID:
            cfg["tour"] = text
        else:
            warnings.append(f"Link parameter tour={text!r} ignored (no such tour; the tours "
                            f"are {', '.join(tours.IDS)}).")  # fmt: skip
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
    for key, row in _ROWS.items():
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


def nav_pages() -> list[tuple[str, str, str, str | None]]:
    """The rows of :data:`NAV` whose page file exists."""
    return [row for row in NAV if (ROOT / row[0]).is_file()]


def page_title(page: str) -> str:
    """The navigation title of a page file."""
    return next((title for file, title, _, _ in NAV if file == page), page)


def tour_cfg(tour: tours.Tour) -> tuple[dict, list[str]]:
    """A tour's settings (URL key → value) and the warnings of any bad value (none: tested)."""
    return from_query(tour.settings)


SIDEBAR_KEYS: frozenset[str] = frozenset(
    {"dataset", "classes"} | {row.url for cls in (S.ProblemSpec, S.SigmaRange, S.SweepSettings)
                              for _, row in S.table(cls) if row.url}
)  # fmt: skip
"""URL keys of the sidebar's controls (presenter mode draws a tour's among them on the page)."""


def scale_figure(
    fig: Any, height: float = PRESENT_HEIGHT, font: float = PRESENT_FONT, *, px: int | None = None
) -> Any:
    """A copy of Plotly figure ``fig`` for a projector: ``height`` × taller (450 px when it
    has no height), or ``px`` pixels tall when given, every font ``font`` × larger (layout,
    title, legend, axes, annotations such as subplot titles), margins widened to fit."""
    import plotly.graph_objects as go

    fig = go.Figure(fig)
    lay = fig.layout
    base = lay.font.size or 12
    tall = px if px is not None else round((lay.height or 450) * height)
    fig.update_layout(height=tall, font_size=base * font)
    fig.update_layout(title_font_size=(lay.title.font.size or base * 1.2) * font)
    if lay.legend.y is not None and lay.legend.y < 0:  # below the axes: clear the larger ticks
        fig.update_layout(legend_y=lay.legend.y * 1.5)
    # explicit sizes everywhere: Streamlit's chart theme gives axes and legend their own
    # (small) font sizes, which a larger layout font alone would not change
    fig.update_layout(legend_font_size=(lay.legend.font.size or base) * font,
                      hoverlabel_font_size=base * font)  # fmt: skip
    for ann in lay.annotations or ():
        ann.font.size = (ann.font.size or base) * font

    def _axis(axis: Any) -> None:
        axis.tickfont.size = (axis.tickfont.size or base) * font
        axis.title.font.size = (axis.title.font.size or base * 1.1) * font

    fig.for_each_xaxis(_axis)
    fig.for_each_yaxis(_axis)
    m = lay.margin
    fig.update_layout(margin={side: round(getattr(m, side) * 1.3) for side in "ltb"
                              if getattr(m, side) is not None})  # fmt: skip
    return fig


def complete_bytes(n: int) -> int:
    """Memory estimate of a complete-graph instance: a few dense n×n float64 arrays."""
    return DENSE_COPIES * 8 * n * n


def cap_errors(spec: ProblemSpec) -> list[str]:
    """This server's caps on the instance itself (n, and the memory of building it; the
    time of each computation is checked by the page: :func:`over_cap`)."""
    errs = []
    cap = MAX_N if spec.family == "complete" else MAX_LARGE_N
    if spec.n > cap:
        errs.append(f"n = {spec.n:,} is above this server's cap of {cap:,} points" + (
            "." if cap == MAX_LARGE_N else
            f" ({MAX_LARGE_N:,} for the kNN families, with the large option)."))  # fmt: skip
    mb = costs.memory(spec).memory_mb
    if spec.n > (MAX_COMPLETE_N if spec.family == "complete" else cap) or mb > MAX_MEMORY_MB:
        if spec.family == "complete":
            errs.append(
                f"A complete graph on n = {spec.n} points needs about {mb:,.0f} MB "
                f"({DENSE_COPIES} dense n×n arrays); the cap is n ≤ {MAX_COMPLETE_N} and "
                f"{MAX_MEMORY_MB} MB. Use the kNN family (sparse) for large n."
            )
        elif spec.n <= cap:
            errs.append(f"The instance needs about {mb:,.0f} MB (cap {MAX_MEMORY_MB} MB).")
    return errs


def over_cap(what: str, estimate: costs.Estimate, spec: ProblemSpec, lo: float, hi: float,
             extra: tuple[str, ...] = ()) -> str | None:  # fmt: skip
    """The refusal of ``what`` when ``estimate(spec, lo, hi)`` (:mod:`sslviz.costs`) is over
    this server's time or memory cap (the large option's for n above ``MAX_N``), with the
    nearest settings that fit; else None."""
    seconds = MAX_LARGE_SECONDS if spec.n > MAX_N else MAX_SECONDS
    return costs.over_cap(what, estimate, spec, lo, hi, seconds, MAX_MEMORY_MB, extra)


def data_fingerprint(cfg: dict) -> tuple:
    """What the suggested σ range depends on: the data, the classes, n, PCA and the family
    (and k for the threshold family, whose range is its edge lengths)."""
    fam = cfg.get("family", S.default(ProblemSpec, "family"))
    return (
        cfg.get("data_file") or cfg.get("dataset"), cfg.get("classes"), cfg.get("n"),
        cfg.get("pca"), fam, cfg.get("k") if fam == "threshold" else None,
    )  # fmt: skip


def range_warning(lo: float, hi: float, suggested: tuple[float, float]) -> str | None:
    """A warning when [lo, hi] is far outside the data's distance scale, else None."""
    s_lo, s_hi = suggested
    if hi <= s_lo or lo >= s_hi:
        return (f"The range [{lo:g}, {hi:g}] lies outside the data's distance scale "
                f"(suggested [{s_lo:g}, {s_hi:g}]): every node sees almost the same graph "
                "there, so the loss is flat.")  # fmt: skip
    if lo < 0.25 * s_lo:
        return (
            f"σ_min = {lo:g} is far below the suggested {s_lo:g}: at very small "
            "bandwidths weights underflow and the exact loss can take minutes."
        )
    if hi > 4 * s_hi:
        return (
            f"σ_max = {hi:g} is far above the suggested {s_hi:g}: beyond it the graph is "
            "nearly uniform and the loss no longer changes."
        )
    return None


# --------------------------------------------------------------------------------------------
# Streamlit side
# --------------------------------------------------------------------------------------------


@dataclass
class AppSettings:
    """What a page needs: the validated settings or the reasons it cannot compute."""

    cfg: dict
    spec: ProblemSpec | None = None
    settings: SweepSettings | None = None
    sigma_range: SigmaRange | None = None
    suggested: tuple[float, float] | None = None
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors and self.spec is not None and self.sigma_range is not None

    @property
    def sigma(self) -> tuple[float, float]:
        return float(self.sigma_range.sigma_min), float(self.sigma_range.sigma_max)

    def show_errors(self) -> bool:
        """Show each error with ``st.error``; True when the page may compute."""
        for e in self.errors:
            st.error(e)
        return self.ok


def setup(icon: str = "🏠") -> None:
    """The wide layout and the tab's icon, once, in ``app.py`` before the navigation runs
    (each page's tab title is its ``st.Page`` title)."""
    st.set_page_config(page_icon=icon, layout="wide")


def page(
    heading: str,
    caption: str | Callable[[Any], str] | None = None,
    *,
    stop_on_errors: bool = True,
    default_tour: str | None = None,
) -> Any:
    """The frame every page shares: the sidebar (with the open tour and presenter mode),
    the page's ``heading`` and ``caption`` (a text, or a function of the sidebar's state),
    and, unless ``stop_on_errors`` is False, the sidebar's errors, which stop the page.
    ``default_tour``: the tour a fresh session opens on this page (:func:`default_view`).
    Returns the sidebar's state (:func:`sidebar`)."""
    if default_tour is not None:
        default_view(default_tour)
    state = sidebar()
    st.title(heading)
    text = caption(state) if callable(caption) else caption
    if text:
        st.caption(text)
    if stop_on_errors and not state.show_errors():
        st.stop()
    return state


def _cfg() -> dict:
    if "cfg" not in st.session_state:
        cfg, warns = from_query(dict(st.query_params))
        st.session_state["cfg"] = cfg
        st.session_state["url_warnings"] = warns
        st.session_state["range_from_url"] = "sigma_min" in cfg and "sigma_max" in cfg
    return st.session_state["cfg"]


def _page_file() -> str | None:
    """The page file this run draws, relative to the app root (None when unknown)."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx()
        info = ctx.pages_manager.get_pages().get(ctx.page_script_hash) or {}
        path = info.get("script_path") or ctx.pages_manager.main_script_path
        return Path(path).resolve().relative_to(ROOT).as_posix()
    except Exception:  # pragma: no cover - outside a script run, or a path elsewhere
        return None


def _view() -> dict:
    """This run's presenter state (set by :func:`sidebar`): ``present`` (presenter layout
    on), ``controls`` (URL keys the tour uses, or None), ``slots`` (page columns for the
    tour's sidebar controls)."""
    return st.session_state.get("_sslviz_view") or {"present": False, "controls": None}


def _in_sidebar(container: Any) -> bool:
    return getattr(container, "_root_container", None) == RootContainer.SIDEBAR


def _placement(container: Any, url: str) -> Any:
    """Where presenter mode draws the control of ``url``: ``container``, a column on the
    page (a tour's sidebar control), or None (not drawn)."""
    view = _view()
    if not view["present"]:
        return container
    if view["controls"] is not None and url not in view["controls"]:
        return None
    if view.get("side") is not None:  # a tour's stage: its controls beside the chart
        return view["side"]
    slots = view.get("slots")
    if slots and _in_sidebar(container):
        view["next"] = view.get("next", -1) + 1
        return slots[view["next"] % len(slots)]
    return container


def default_view(tour_id: str) -> None:
    """Open tour ``tour_id`` when this page is a session's first and nothing is set yet (no
    link values, no control changed): the page's default view is then the tour's, chosen
    by measurement, while a page reached from another keeps the sidebar's settings."""
    if not _cfg() and "tour_request" not in st.session_state:
        st.session_state["tour_request"] = tour_id


def request_tour(tour_id: str) -> None:
    """Button callback: open tour ``tour_id`` ("" leaves the tour) on the next run."""
    st.session_state["tour_request"] = tour_id


def _set_present(on: bool) -> None:
    _cfg()["present"] = bool(on)
    st.session_state.pop("w_present_edit", None)


def _present_toggled() -> None:
    _set_present(st.session_state.get("w_present", False))


def _load_tour(tour: tours.Tour, keep: dict | None = None) -> None:
    """Write ``tour``'s settings into the session (``keep``: values that win, e.g. the
    rest of the link it came in); every other setting goes back to its default."""
    cfg = _cfg()
    values, _ = tour_cfg(tour)
    present = cfg.get("present")
    new = values | {k: v for k, v in (keep or {}).items() if k not in ("tour", "present")}
    cfg.clear()  # in place: the session's dict
    cfg.update(new, tour=tour.id)
    if present:
        cfg["present"] = True
    for key in [f"w_{u}" for u in _ROWS] + ["w_source", "w_classes_0", "w_classes_1"]:
        st.session_state.pop(key, None)
    # the tour's σ range wins over "the range follows the data" (as a link's range does)
    st.session_state.pop("range_for", None)
    st.session_state["range_from_url"] = "sigma_min" in cfg and "sigma_max" in cfg
    st.session_state["tour_loaded"] = tour.id


def _tours() -> tours.Tour | None:
    """Open a requested tour (a gallery / next-tour button, or ``?tour=`` in the link the
    session started from) and go to its page; return the open tour."""
    cfg = _cfg()
    req = st.session_state.pop("tour_request", None)
    opened = None
    if req == "":
        cfg.pop("tour", None)
        st.session_state["tour_loaded"] = None
    elif tours.get(req):
        opened = tours.get(req)
        _load_tour(opened)
    elif cfg.get("tour") and st.session_state.get("tour_loaded") != cfg["tour"]:
        opened = tours.get(cfg["tour"])  # from a link: its other values win
        _load_tour(opened, keep=dict(cfg))
    tour = tours.get(cfg.get("tour"))
    page = _page_file()
    if opened is not None and page is not None and page != opened.page:
        sync_url()
        st.switch_page(opened.page)
    return tour


_PRESENT_CSS = """<style>
html { font-size: 19px; }
[data-testid="stMainBlockContainer"] { padding-top: 1.2rem; max-width: 100%; }
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li {
  font-size: 1.2rem; line-height: 1.5; }
[data-testid="stCaptionContainer"] p { font-size: 1.05rem; }
[data-testid="stMetricValue"] { font-size: 2.8rem; }
[data-testid="stHeader"], [data-testid="stToolbar"], [data-testid="stAppDeployButton"],
[data-testid="stMainMenu"] { display: none !important; }
[data-testid="stSidebar"] { min-width: 26rem; }
.st-key-tour_head p, .st-key-tour_head button { font-size: 1rem !important; }
[data-testid="stNumberInputContainer"] input, [data-baseweb="select"] div { font-size: 1.1rem; }
h1 { font-size: 2.6rem !important; }
</style>"""
_HIDE_SIDEBAR_CSS = """<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stExpandSidebarButton"], [data-testid="stSidebarCollapseButton"] {
  display: none !important; }
</style>"""


def _tour_box(tour: tours.Tour, on_page: bool) -> None:
    """The tour's text at the top of its page (a note with a way back on other pages)."""
    nxt = tours.next_tour(tour.id)
    if not on_page:
        col, back, leave = st.columns([4, 1, 1], vertical_alignment="center")
        col.info(f"Tour **{tour.title}** is on the {page_title(tour.page)} page.",
                 icon=":material/tour:")  # fmt: skip
        back.page_link(tour.page, label="back to the tour", icon=":material/arrow_back:")
        leave.button("leave tour", key="w_tour_leave", type="tertiary", on_click=request_tour,
                     args=("",))  # fmt: skip
        return
    box = st.container(border=True, key="tour_box")
    box.markdown(f"#### :material/tour: Tour: {tour.title}")
    left, right = box.columns(2, gap="large")
    _view()["tour_slots"] = _tour_texts(tour, left.empty(), right.empty(), right.empty())
    row = box.container(horizontal=True, vertical_alignment="center")
    row.button(f"next tour → {nxt.title}", key="w_tour_next", type="tertiary",
               on_click=request_tour, args=(nxt.id,))  # fmt: skip
    row.button("leave tour", key="w_tour_leave", type="tertiary", on_click=request_tour,
               args=("",))  # fmt: skip


_TOUR_PARTS = {"text": "{}", "look": "**Look at:** {}", "ask": "**Ask:** {}"}


def _tour_texts(tour: tours.Tour, text: Any, look: Any, ask: Any) -> dict:
    """Draw the tour's three texts into the slots (``st.empty``) with the facts known so
    far (none: their numbers show as "…" until the page calls :func:`tour_facts`)."""
    slots = {"tour": tour, "text": text, "look": look, "ask": ask}
    _draw_tour_texts(slots, {})
    return slots


def _draw_tour_texts(slots: dict, facts: dict) -> None:
    tour = slots["tour"]
    for part, fmt in _TOUR_PARTS.items():
        slots[part].markdown(fmt.format(tours.fill(getattr(tour, part), facts)))


def tour_facts(facts: dict[str, str]) -> None:
    """Fill the open tour's texts with the numbers of this page's view (from
    :mod:`sslviz.tours`' ``*_facts`` functions, read off the results the page draws)."""
    slots = _view().get("tour_slots")
    if slots is not None:
        _draw_tour_texts(slots, facts)


def _stage(tour: tours.Tour) -> dict:
    """Presenter mode on a tour's page: one header row (the tour's title and its buttons),
    then the stage: the page's first chart (drawn there by :func:`chart`) with the tour's
    text and controls beside it, so the chart is on a projector's first screen."""
    nxt = tours.next_tour(tour.id)
    head = st.container(horizontal=True, vertical_alignment="center", key="tour_head")
    head.markdown(f"**:material/tour: {tour.title}**")
    head.toggle("change settings", key="w_present_edit",
                help="Show the sidebar and every control again.")  # fmt: skip
    head.button("next tour →", key="w_tour_next", type="tertiary", help=nxt.title,
                on_click=request_tour, args=(nxt.id,))  # fmt: skip
    head.button("leave tour", key="w_tour_leave", type="tertiary", on_click=request_tour,
                args=("",))  # fmt: skip
    head.button("leave presenter", key="w_present_off", type="tertiary",
                on_click=_set_present, args=(False,))  # fmt: skip
    chart_col, side = st.columns([3, 1], gap="medium")
    look, ask = side.empty(), side.empty()
    text = side.expander("What this view shows").empty()
    return {"stage": chart_col.empty(), "side": side.container(key="tour_controls"),
            "tour_slots": _tour_texts(tour, text, look, ask)}  # fmt: skip


def _top(tour: tours.Tour | None) -> None:
    """Presenter mode (CSS, the "change settings" toggle) and the tour box; sets this run's
    presenter state for :func:`widget`."""
    cfg = _cfg()
    page = _page_file()
    on_page = tour is not None and page in (None, tour.page)
    present = bool(cfg.get("present"))
    view = {"present": False, "controls": None, "slots": None}
    if present and on_page and not st.session_state.get("w_present_edit"):
        st.html(_PRESENT_CSS + _HIDE_SIDEBAR_CSS)
        view = {"present": True, "controls": frozenset(tour.controls), "slots": None}
        view |= _stage(tour)
        st.session_state["_sslviz_view"] = view
        return
    if present:
        st.html(_PRESENT_CSS)
        row = st.container(horizontal=True, vertical_alignment="center", gap="large")
        editing = row.toggle("change settings", key="w_present_edit",
                             help="Show the sidebar and every control again.")  # fmt: skip
        row.button("leave presenter mode", key="w_present_off", type="tertiary",
                   on_click=_set_present, args=(False,))  # fmt: skip
        if not editing:
            st.html(_HIDE_SIDEBAR_CSS)
            view["present"] = True
            if on_page:
                view["controls"] = frozenset(tour.controls)
    st.session_state["_sslviz_view"] = view
    if tour is not None:
        _tour_box(tour, on_page)
    if view["controls"]:
        n = sum(1 for u in tour.controls if u in SIDEBAR_KEYS)
        if n:
            view["slots"] = st.columns(min(n, 4))


def _fit(row: S.Setting, value: Any, options: list | None, high: Any) -> Any:
    """``value`` made acceptable to its widget (inside the bounds, among the options)."""
    rule = row.rule.rule if isinstance(row.rule, S.Optional) else row.rule
    if options is not None:
        if isinstance(rule, S.Tuple):
            return [v for v in value if v in options]
        return value if value in options else options[0]
    low = getattr(rule, "low", None)
    if isinstance(value, int | float) and not isinstance(value, bool):
        if high is not None and value > high:
            value = high
        if low is not None and value < low and getattr(rule, "closed", "both") in ("both", "left"):
            value = low
    return list(value) if isinstance(value, tuple) else value


def widget(
    container: Any,
    cls: type,
    name: str,
    *,
    options: list | None = None,
    label: str | None = None,
    radio: bool = False,
    empty_ok: bool = False,
    high: Any = None,
    **kwargs: Any,
) -> Any:
    """Draw the control of setting ``name`` of ``cls`` in ``container`` and return its value.

    Label, bounds, options and help come from the setting's row; ``options`` overrides the
    row's options (e.g. the classes of the loaded dataset); ``kwargs`` go to the widget
    (``disabled``, ``format_func``, ``step``, ``on_change``...). ``empty_ok``: a number box
    of an optional setting may be emptied (None, the row's "auto" meaning); otherwise it is
    empty only until the app fills it. ``high`` replaces this server's cap on the value
    (:data:`CAPS`; the large option's n).

    In presenter mode on a tour's page, a control the tour does not use is not drawn (its
    value is returned as if it were), and the tour's sidebar controls are drawn on the page.
    """
    row = S.setting(cls, name)
    cfg = _cfg()
    if row.url not in _ROWS:  # a table the app did not know at start: read its link value
        _ROWS[row.url] = row
        values, warns = S.from_query(cls, dict(st.query_params))
        if name in values:
            cfg[row.url] = values[name]
        for w in warns:
            st.warning(w)
    key = f"w_{row.url}"
    rule = row.rule.rule if isinstance(row.rule, S.Optional) else row.rule
    cap = CAPS.get(row.url) if high is None else high
    high = getattr(rule, "high", None)
    if cap is not None:
        high = min(high, cap) if high is not None else cap
    if options is None and isinstance(rule, S.Choice | S.Tuple) and rule.options:
        options = list(rule.options)
    container = _placement(container, row.url)
    if container is None:  # presenter mode: a control the tour does not use (not drawn)
        value = st.session_state[key] if key in st.session_state else cfg.get(row.url, row.default)
        if value is None:  # what the empty widget returns: no items, its first option, None
            out = () if isinstance(rule, S.Tuple) else options[0] if options else None
        else:
            value = _fit(row, value, options, high) if options is None or options else value
            out = tuple(value) if isinstance(rule, S.Tuple) else value
        cfg[row.url] = out
        return out
    # The widget's own state is the latest choice (changed in this run, or this control on
    # the page just left: widget ids include the page, so a switch starts the widget anew);
    # re-seed it every run so a page switch keeps the value instead of the widget default.
    value = st.session_state[key] if key in st.session_state else cfg.get(row.url, row.default)
    if value is not None:
        st.session_state[key] = _fit(row, value, options, high)
    step = kwargs.pop("step", None)
    args = {"key": key, "help": row.help, **kwargs}
    if (isinstance(row.rule, S.Optional) and isinstance(rule, S.Int | S.Float)
            and options is None and (empty_ok or value is None)):  # fmt: skip
        # an empty box means the row's None (e.g. λ = auto), not the widget's minimum; with
        # value=None as its default the box can be emptied again (its state is seeded above)
        args |= {"value": None, "placeholder": f"auto: {row.rule.none_means}"}
    text = label or row.label or name
    if isinstance(rule, S.Tuple):
        out = tuple(container.multiselect(text, options, **args))
    elif isinstance(rule, S.Choice) or options is not None:
        pick = container.radio if radio else container.selectbox
        out = pick(text, options, **({"horizontal": True} if radio else {}), **args)
    elif isinstance(rule, S.Flag):
        out = container.checkbox(text, **args)
    elif isinstance(rule, S.Text):  # an optional text: empty means the row's None
        none = row.rule.none_means if isinstance(row.rule, S.Optional) else ""
        out = container.text_input(text, placeholder=none, **args).strip() or None
    elif isinstance(rule, S.Float):
        low = rule.low if rule.closed in ("both", "left") else None
        out = container.number_input(
            text, min_value=low, max_value=high, format=rule.fmt, step=step, **args
        )
    else:
        out = container.number_input(text, min_value=rule.low, max_value=high, step=step,
                                      **args)  # fmt: skip
    cfg[row.url] = out
    return out


def more_controls(container: Any, cls: type, *drawn: str) -> None:
    """Draw, in table order, every setting of ``cls`` that has a URL key and is not among
    ``drawn`` (so a setting added to a table gets its control without an edit here)."""
    for name, row in S.table(cls):
        if row.url and name not in drawn:
            widget(container, cls, name, empty_ok=True)


def controls(cls: type, **overrides: Any):
    """The page spec ``cls`` built from the current settings (after its widgets are drawn),
    and the URL updated with them."""
    cfg = _cfg()
    sync_url()
    return spec_from_cfg(cls, cfg, **overrides)


def sync_url() -> None:
    try:
        query = to_query(_cfg())
        if dict(st.query_params) != query:
            st.query_params.from_dict(query)
    except Exception:  # pragma: no cover - the URL is a convenience, never fatal
        pass


def chart(container: Any, fig: Any, *, key: str, **kwargs: Any) -> Any:
    """Draw a Plotly figure (every page's charts go through here, so presenter mode can
    enlarge them in one place); ``kwargs`` go to ``plotly_chart`` (``on_select``...).
    In presenter mode the figure is drawn taller with larger fonts (:func:`scale_figure`)."""
    view = _view()
    if view.get("stage") is not None and not view.get("staged"):  # a tour's first chart
        view["staged"] = True
        fig = scale_figure(fig, font=STAGE_FONT, px=STAGE_HEIGHT)
        right = any(getattr(a, "side", None) == "right" for a in fig.select_yaxes())
        fig.update_layout(legend=dict(orientation="v", x=1.16 if right else 1.02, y=1,
                                      xanchor="left", yanchor="top"))  # fmt: skip
        return view["stage"].plotly_chart(fig, key=key, **kwargs)
    if _cfg().get("present"):
        fig = scale_figure(fig)
    return container.plotly_chart(fig, key=key, **kwargs)


def refuse(message: str | None) -> bool:
    """Show an over-cap message (from :func:`over_cap`) as an error; True when there was one
    (the page then computes nothing)."""
    if message:
        st.error(message, icon=":material/hourglass_disabled:")
    return bool(message)


STOPPED = "_sslviz_stopped"
"""Session-state key: the keys of the computations whose Stop button was pressed."""


def _stop(key: str) -> None:  # the Stop button's callback (runs first in the next run)
    st.session_state.setdefault(STOPPED, set()).add(key)


RESUMED = "_sslviz_resumed"
"""Session-state key: stopped computations whose Run button was pressed (until they start)."""


def _resume(key: str) -> None:  # the Run button's callback
    st.session_state.setdefault(STOPPED, set()).discard(key)
    st.session_state.setdefault(RESUMED, set()).add(key)


def pending(key: Any) -> bool:
    """Whether the computation of ``key`` was stopped in this session, or its Run button
    (after a stop) was just pressed: a page whose computation waits for its own button
    enters its :class:`progress` block then too (to show "Stopped", or to run)."""
    k = _stop_key(key)
    return k in st.session_state.get(STOPPED, ()) or k in st.session_state.get(RESUMED, ())


def _stop_key(key: Any) -> str:
    return hashlib.sha256(repr(key).encode()).hexdigest()[:16]


class progress:  # noqa: N801 - used as a context manager: ``with progress("…") as tick:``
    """A progress bar and a Stop button for one computation: ``tick(fraction, message)``
    updates the bar (the callback the ``sslviz`` functions take); both are removed when the
    block ends.

    ``key`` names the computation (its settings; default: ``text``); ``restart``: the
    page's own Run button was pressed, so a stopped ``key`` runs again. How Stop works:
    Streamlit interrupts a running script at its next Streamlit call when a widget is
    clicked, and every ``tick`` is such a call, so a click on Stop ends the computation
    within one progress step (an exception unwinds it: ``st.cache_data`` stores nothing,
    and the app's memo dicts store only finished results). The Stop button's callback
    remembers ``key`` in the session, so in the rerun that follows, entering this block
    draws "Stopped. Press Run to compute again" and a Run button instead, and stops the
    script (``st.stop()``): the page never restarts a stopped computation by itself. Changed
    settings interrupt a running computation the same way (the rerun computes the new
    request), and so does a closed browser tab: Streamlit stops the session's script at its
    next Streamlit call, which the progress callbacks provide, so an abandoned computation
    does not keep a CPU busy for longer than one progress step.
    """

    def __init__(self, text: str, container: Any = None, *, key: Any = None,
                 restart: bool = False) -> None:  # fmt: skip
        self.text, self.container = text, container
        self.key = _stop_key(text if key is None else key)
        if restart:  # the page's own Run button was pressed: a stopped request runs again
            st.session_state.get(STOPPED, set()).discard(self.key)

    def __enter__(self):
        where = self.container or st
        st.session_state.get(RESUMED, set()).discard(self.key)
        if self.key in st.session_state.get(STOPPED, ()):
            # columns, not the running row's container: a block of another kind replaces the
            # row whole, so no stale Stop button lingers next to these (and vice versa)
            note, box = where.columns([6, 1], vertical_alignment="center")
            note.info("Stopped. Press Run to compute again.", icon=":material/stop_circle:")
            box.button("Run", key=f"w_run_{self.key}", type="primary", icon=":material/play_arrow:",
                       on_click=_resume, args=(self.key,))  # fmt: skip
            st.stop()
        # a placeholder holds the row: emptying it removes bar and button at the end
        # (``container.empty()`` would only add an empty element inside the row)
        self.slot = where.empty()
        self.box = self.slot.container(horizontal=True, vertical_alignment="center")
        self.bar = self.box.progress(0.0, text=self.text, width="stretch")
        self.box.button("Stop", key=f"w_stop_{self.key}", icon=":material/stop:",
                        on_click=_stop, args=(self.key,),
                        help="Stop this computation (nothing partial is kept).")  # fmt: skip
        return self.tick

    def tick(self, fraction: float, message: str = "") -> None:
        f = min(max(float(fraction), 0.0), 1.0)
        self.bar.progress(f, text=f"{self.text} {message}".strip())

    def __exit__(self, *exc: Any) -> None:
        self.slot.empty()


def metrics(values: dict) -> None:
    """A row of ``st.metric`` (label → value), with help for the paper's terms; counts are
    written with thousands separators (3,575), as in the verdict above them."""
    for col, (label, value) in zip(st.columns(len(values)), values.items(), strict=True):
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            value = f"{value:,}"
        col.metric(label, value, help=METRIC_HELP.get(label))


def downloads(prefix: str, files: dict[str, str]) -> None:
    """One download button per ``{file name: text}`` (CSV or JSON by extension). A click
    downloads the file and does not rerun the page: nothing is recomputed (with the rerun a
    click started, one download on a busy server was canceled in ``benchmarks/load_test.py``)."""
    for col, (name, text) in zip(st.columns(len(files)), files.items(), strict=True):
        mime = "application/json" if name.endswith(".json") else "text/csv"
        col.download_button(name, text, name, mime, key=f"{prefix}_dl_{name}", on_click="ignore")


def commands(*lines: str) -> None:
    """The command lines that reproduce every number of the page."""
    cfg = _cfg()
    note = (" The data file is this server's copy of your upload: run it where that file is."
            if cfg.get("data_file") else "")  # fmt: skip
    st.caption("Reproduce on the command line (nodes are instance rows there and here)." + note)
    st.code("\n".join(lines), language="bash")


_PARAMETER = re.compile(r"^The '(\w+)' parameter of [\w.]+ (is inconsistent: )?")


def _label(name: str) -> str:
    """The widget label of the setting whose field is ``name`` (the name itself if none)."""
    for cls in S.ALL_SPECS:
        for field_name, row in S.table(cls):
            if field_name == name:
                return row.label or name
    return name


def readable(exc: BaseException) -> str:
    """An error as a person reads it on the page: an uploaded file by the name it was
    uploaded under (never this server's copy), a setting by its label (never the class or
    function that checked it)."""
    text = " ".join(str(exc).split())
    cfg = _cfg()
    if cfg.get("data_file") and cfg.get("data_file_name"):
        copy = str(cfg["data_file"])
        text = text.replace(copy, cfg["data_file_name"])
        text = text.replace(Path(copy).name, cfg["data_file_name"])
    m = _PARAMETER.match(text)
    if m:
        rest = text[m.end() :]
        text = rest if m.group(2) else f"{_label(m.group(1))} {rest}"
    return text


def _save_upload(upload) -> tuple[str, str]:
    data = upload.getvalue()
    ext = Path(upload.name).suffix.lower()
    folder = Path(tempfile.gettempdir()) / "sslviz_uploads"
    folder.mkdir(exist_ok=True)
    path = folder / f"{hashlib.sha256(data).hexdigest()[:16]}{ext}"
    if not path.exists():
        path.write_bytes(data)
    return str(path), upload.name


def _set_range(lo: float, hi: float) -> None:
    cfg = _cfg()
    cfg["sigma_min"], cfg["sigma_max"] = float(lo), float(hi)
    st.session_state["w_sigma_min"], st.session_state["w_sigma_max"] = float(lo), float(hi)


def _range_typed() -> None:
    """The user typed a range: remember it for the current data."""
    fp = st.session_state.get("range_for")
    lo, hi = st.session_state.get("w_sigma_min"), st.session_state.get("w_sigma_max")
    st.session_state.setdefault("typed_ranges", {})[fp] = (lo, hi)


def _use_suggested(lo: float, hi: float) -> None:
    _set_range(lo, hi)
    st.session_state.setdefault("typed_ranges", {}).pop(st.session_state.get("range_for"), None)


def _data_source(sb, out: AppSettings):
    """Dataset picker / uploader; returns the loaded dataset or None (errors in ``out``)."""
    cfg = _cfg()
    choices = [*S.DATASETS, UPLOAD]
    if st.session_state.get("w_source") not in choices:  # re-seeded every run: see widget()
        st.session_state["w_source"] = (
            UPLOAD
            if cfg.get("data_file")
            else cfg.get("dataset", S.default(ProblemSpec, "dataset"))
        )
    else:
        st.session_state["w_source"] = st.session_state["w_source"]
    row = S.setting(ProblemSpec, "dataset")
    target = _placement(sb, "dataset")
    if target is None:  # presenter mode, a tour that does not use it
        ds = st.session_state.pop("w_source")
    else:
        ds = target.selectbox(row.label, choices, key="w_source", help=row.help)
    if ds == UPLOAD:
        up = sb.file_uploader("Data file (.npz or .csv)", type=["npz", "csv"], key="w_upload",
                              help=S.setting(ProblemSpec, "data_file").help)  # fmt: skip
        if up is not None:
            cfg["data_file"], cfg["data_file_name"] = _save_upload(up)
        if cfg.get("data_file"):
            sb.caption(f"Using {cfg['data_file_name']}. An uploaded file cannot travel in a "
                       "link: whoever opens it must upload the same file.")  # fmt: skip
        else:
            out.errors.append("Upload an .npz (arrays X, y) or .csv file, or pick a dataset.")
            return None
    else:
        cfg["dataset"], cfg["data_file"], cfg["data_file_name"] = ds, None, None
    try:
        name = cfg.get("data_file_name") or cfg.get("dataset", "digits")
        with st.spinner(f"Loading {name}…", show_time=True):  # drawn past 0.5 s only
            return app_cache.dataset(cfg.get("dataset", "digits"), cfg.get("data_file"))
    except Exception as exc:  # DatasetUnavailableError, a bad user file, ...
        out.errors.append(readable(exc))
        return None


def _large_toggled(pool: int) -> None:
    """The large option's checkbox: n jumps to the whole pool, and back to where it was."""
    cfg = _cfg()
    if st.session_state["w_large"]:
        st.session_state["n_before_large"] = cfg.get("n")
        n = pool
    else:
        n = min(st.session_state.pop("n_before_large", None) or MAX_N, MAX_N)
    cfg["n"] = st.session_state["w_n"] = n
    for key in ("node", "sigma0"):  # another instance: its own drill-down default
        cfg.pop(key, None)
        st.session_state.pop(f"w_{key}", None)


def _large_estimate(out: AppSettings) -> str:
    """What the large option costs here, step by step as the loss page runs them
    (:mod:`sslviz.costs` estimates)."""
    if not out.ok or out.settings is None:
        return f"Large instance, n = {out.cfg.get('n', 0):,}: fix the settings above first."
    lo, hi = out.sigma
    spec, settings = out.spec, out.settings
    build = costs.build(spec).seconds
    loss = costs.loss_curve(spec, lo, hi, out.suggested).seconds - build
    alg4 = costs.sweep(spec, lo, hi, settings, out.suggested).seconds - build
    points = out.cfg.get("trust_points") or S.LossView.trust_points
    trust = costs.trust(spec, points, settings.cg_iters).seconds - build
    attribution = app_cache.ATTRIBUTION_SECONDS
    t = costs.seconds_text
    return (
        f"Large instance, n = {spec.n:,}. Estimated on this server: building it about "
        f"{t(build)}, the exact loss about {t(loss)}, Algorithm 4 about {t(alg4)} (and "
        f"once more to time it), the causes of its misses about {t(attribution)} (a "
        f"sample spread over σ when there are many), the trust panel ({points} σ) about "
        f"{t(trust)}; then the node drill-down, about "
        f"{t(LARGE_NODE_GRID * costs.solve_seconds(spec))}."
    )


def sidebar() -> AppSettings:
    """Draw the shared sidebar; return the page's settings (errors collected, not raised).

    First a requested tour is opened (it may switch to its page), presenter mode and the
    tour's text are drawn at the top of the page."""
    cfg = _cfg()
    tour = _tours()
    for w in st.session_state.pop("url_warnings", []):
        st.warning(w)
    _top(tour)
    out = AppSettings(cfg)
    sb = st.sidebar
    sb.header("Problem instance")
    dataset = _data_source(sb, out)
    classes = list(dataset.classes) if dataset is not None else list(range(10))
    names = dataset.class_names if dataset is not None else {}
    pair = tuple(cfg.get("classes", S.default(ProblemSpec, "classes")))
    missing = [c for c in pair if c not in classes]
    if missing and dataset is not None:  # e.g. a link's classes on another dataset
        pair = (classes[0], classes[1])
        st.warning(f"Class(es) {missing} are not in this dataset; using {pair}.")
        for i in (0, 1):  # both pickers move: keeping one could pair a class with itself
            st.session_state[f"w_classes_{i}"] = pair[i]
    cfg["classes"] = pair
    row = S.setting(ProblemSpec, "classes")
    target = _placement(sb, "classes")
    chosen = list(pair)
    labels = {c: f"{c}: {names[c]}" if names.get(c, str(c)) != str(c) else str(c) for c in classes}
    # Side by side while the names fit half the sidebar ("0: T-shirt/top" was cut at 1400 px)
    places = () if target is None else (
        target.columns(2) if max(map(len, labels.values())) <= 10 else (target, target)
    )  # fmt: skip
    for i, col in enumerate(places):
        key = f"w_classes_{i}"
        value = st.session_state.get(key)  # re-seeded every run: see widget()
        st.session_state[key] = value if value in classes else pair[i]
        chosen[i] = col.selectbox(
            f"class c{i}", classes, key=key, help=row.help, format_func=labels.__getitem__
        )
    cfg["classes"] = tuple(chosen)
    c0, c1 = sb.columns(2)
    pool = int(np.isin(dataset.y, cfg["classes"]).sum()) if dataset is not None else 0
    offer = pool > MAX_N and cfg.get("family") != "complete"
    large = offer and cfg.get("n", 0) > MAX_N
    widget(c0, ProblemSpec, "n", step=10, high=min(pool, MAX_LARGE_N) if large else None,
           disabled=large)  # fmt: skip
    widget(c1, ProblemSpec, "n_labeled")
    estimate_slot = None
    if offer and _placement(sb, "n") is not None:
        st.session_state["w_large"] = large  # re-seeded every run: see widget()
        sb.checkbox(
            f"Large: the whole pool of the two classes ({min(pool, MAX_LARGE_N):,} points)",
            key="w_large", on_change=_large_toggled, args=(min(pool, MAX_LARGE_N),),
            help=f"Above {MAX_N:,} points (this server's usual cap), kNN graphs only. The "
            "exact loss of 12,000 points takes about half a minute here; each page shows "
            "its estimate below, its progress while it runs, and a Stop button.",
        )  # fmt: skip
        estimate_slot = sb.empty()
    c0, c1 = sb.columns(2)
    widget(c0, ProblemSpec, "seed")
    widget(c1, ProblemSpec, "pca")

    sb.header("Graph and labeling")
    c0, c1 = sb.columns(2)
    widget(c0, ProblemSpec, "family")
    widget(c1, ProblemSpec, "k", disabled=cfg["family"] == "complete")
    widget(sb, ProblemSpec, "labeling", radio=True)
    if cfg["labeling"] == "delalleau":
        c0, c1 = sb.columns(2)
        widget(c0, ProblemSpec, "subset")
        widget(c1, ProblemSpec, "lam")
    if not out.errors:
        try:
            out.spec = spec_from_cfg(ProblemSpec, cfg, data_file=cfg.get("data_file"))
            out.errors += cap_errors(out.spec)
            if not out.errors:
                with st.spinner(
                    f"Building the instance: {out.spec.n:,} points, PCA, "
                    f"{out.spec.family} graph, labeling model…",
                    show_time=True,
                ):
                    out.suggested = app_cache.suggested_range(out.spec)
        except (ValueError, TypeError, FileNotFoundError) as exc:
            out.errors.append(readable(exc))
            out.spec = None
    _range_section(sb, out)

    sb.header("Solver and Algorithm 4")
    c0, c1 = sb.columns(2)
    widget(c0, SweepSettings, "solver")
    widget(c1, SweepSettings, "cg_iters")
    widget(sb, SweepSettings, "mode", radio=True)
    more_controls(sb.expander("Algorithm 4 parameters (ε, η, step, cap, …)"), SweepSettings,
                  "solver", "cg_iters", "mode")  # fmt: skip
    try:
        out.settings = spec_from_cfg(SweepSettings, cfg)
    except (ValueError, TypeError) as exc:
        out.errors.append(readable(exc))
    if estimate_slot is not None and large:
        estimate_slot.info(_large_estimate(out), icon=":material/timer:")
    sb.caption("Every setting is in the page's link: copy it to share this exact view.")
    st.session_state["w_present"] = bool(cfg.get("present"))  # re-seeded: see widget()
    sb.toggle("Presenter mode", key="w_present", on_change=_present_toggled,
              help="For a projector: no sidebar, larger fonts and charts, and on a tour's "
              "page only the controls the tour uses (present=1 in the link).")  # fmt: skip
    sync_url()
    return out


def _range_section(sb, out: AppSettings) -> None:
    """The σ range: follows the data unless typed for these data; warns when far off."""
    cfg = _cfg()
    r = "r" if cfg.get("family") == "threshold" else "σ"
    sb.header(f"{r} range")
    fp = data_fingerprint(cfg)
    typed = st.session_state.setdefault("typed_ranges", {})
    if st.session_state.get("range_for") != fp:
        if st.session_state.pop("range_from_url", False):
            typed[fp] = (cfg["sigma_min"], cfg["sigma_max"])
        st.session_state["range_for"] = fp
        lo_hi = typed.get(fp) or out.suggested
        if lo_hi is not None:
            _set_range(*lo_hi)
    if cfg.get("sigma_min") is None or cfg.get("sigma_max") is None:
        _set_range(*(out.suggested or (0.5, 5.0)))
    c0, c1 = sb.columns(2)
    widget(c0, SigmaRange, "sigma_min", label=f"{r}_min", on_change=_range_typed, step=0.1)
    widget(c1, SigmaRange, "sigma_max", label=f"{r}_max", on_change=_range_typed, step=0.1)
    if out.suggested is not None:
        lo, hi = out.suggested
        sb.button(
            f"Use suggested [{lo:g}, {hi:g}]", key="w_use_suggested", on_click=_use_suggested,
            args=(lo, hi),
            help="Half the median nearest-neighbour distance to twice the median distance "
            "to the 6th neighbour (edge-length range for threshold). The range moves there "
            "by itself when the data change, unless you typed one for those data.",
        )  # fmt: skip
    try:
        out.sigma_range = spec_from_cfg(SigmaRange, cfg)
    except (ValueError, TypeError) as exc:
        out.errors.append(f"{r}_min = {cfg['sigma_min']:g} must be smaller than {r}_max = "
                          f"{cfg['sigma_max']:g}." if isinstance(exc, InvalidParameterError)
                          else readable(exc))  # fmt: skip
        return
    if out.suggested is not None:
        warning = range_warning(*out.sigma, out.suggested)
        if warning:
            col, button = st.columns([5, 1])
            col.warning(warning)
            button.button("Use the suggested range", key="w_fix_range", type="primary",
                          on_click=_use_suggested, args=out.suggested)  # fmt: skip
