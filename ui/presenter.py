"""Guided tours and presenter mode.

A tour opens on its page with its settings (from a gallery button, the next-tour button or
``?tour=`` in a link); its texts are filled with the numbers of the page's own results
(:func:`tour_facts`). Presenter mode (``present=1``) is for a projector: no sidebar, larger
fonts and charts, and on a tour's page one header row, then the tour's first chart with
its text and controls beside it (the stage), so the chart is on the first screen.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from sslviz import tours
from ui import compat, nav, url

PRESENT_HEIGHT, PRESENT_FONT = 1.35, 1.4
"""Presenter mode: chart height and font scale (on a projector)."""


STAGE_FONT = 1.2
"""Font scale of a tour's first chart in presenter mode. Its height is the screen's
(:data:`_STAGE_CSS`): below the tour's header row, the whole chart fills a projector's
first screen, 1280×720 or 1920×1080 (tests/browser/test_browser_presenter.py)."""


def scale_figure(
    fig: Any, height: float | None = PRESENT_HEIGHT, font: float = PRESENT_FONT
) -> Any:
    """A copy of Plotly figure ``fig`` for a projector: ``height`` × taller (450 px when it
    has no height; None: no height, the figure fills the element it is drawn in), every
    font ``font`` × larger (layout, title, legend, axes, annotations such as subplot
    titles), margins widened to fit."""
    import plotly.graph_objects as go

    fig = go.Figure(fig)
    lay = fig.layout
    base = lay.font.size or 12
    tall = None if height is None else round((lay.height or 450) * height)
    fig.update_layout(height=tall, font_size=base * font)
    fig.update_layout(title_font_size=(lay.title.font.size or base * 1.2) * font)
    if lay.legend.y is not None and lay.legend.y < 0:  # below the axes: clear the larger ticks
        fig.update_layout(legend_y=lay.legend.y * 1.5)
    # explicit sizes everywhere: Streamlit's chart theme gives axes and legend their own
    # (small) font sizes, which a larger layout font alone would not change
    fig.update_layout(
        legend_font_size=(lay.legend.font.size or base) * font, hoverlabel_font_size=base * font
    )
    for ann in lay.annotations or ():
        ann.font.size = (ann.font.size or base) * font

    def _axis(axis: Any) -> None:
        axis.tickfont.size = (axis.tickfont.size or base) * font
        axis.title.font.size = (axis.title.font.size or base * 1.1) * font

    fig.for_each_xaxis(_axis)
    fig.for_each_yaxis(_axis)
    m = lay.margin
    fig.update_layout(
        margin={
            side: round(getattr(m, side) * 1.3) for side in "ltb" if getattr(m, side) is not None
        }
    )
    return fig


def run_view() -> dict:
    """This run's presenter state (set by :func:`sidebar`): ``present`` (presenter layout
    on), ``controls`` (URL keys the tour uses, or None), ``slots`` (page columns for the
    tour's sidebar controls)."""
    return st.session_state.get("_sslviz_view") or {"present": False, "controls": None}


def placement(container: Any, url: str) -> Any:
    """Where presenter mode draws the control of ``url``: ``container``, a column on the
    page (a tour's sidebar control), or None (not drawn)."""
    view = run_view()
    if not view["present"]:
        return container
    if view["controls"] is not None and url not in view["controls"]:
        return None
    if view.get("side") is not None:  # a tour's stage: its controls beside the chart
        return view["side"]
    slots = view.get("slots")
    if slots and compat.in_sidebar(container):
        view["next"] = view.get("next", -1) + 1
        return slots[view["next"] % len(slots)]
    return container


def default_view(tour_id: str) -> None:
    """Open tour ``tour_id`` when this page is a session's first and nothing is set yet (no
    link values, no control changed): the page's default view is then the tour's, chosen
    by measurement, while a page reached from another keeps the sidebar's settings."""
    if not url.session_cfg() and "tour_request" not in st.session_state:
        st.session_state["tour_request"] = tour_id


def request_tour(tour_id: str) -> None:
    """Button callback: open tour ``tour_id`` ("" leaves the tour) on the next run."""
    st.session_state["tour_request"] = tour_id


def set_present(on: bool) -> None:
    url.session_cfg()["present"] = bool(on)
    st.session_state.pop("w_present_edit", None)


def present_toggled() -> None:
    set_present(st.session_state.get("w_present", False))


def _load_tour(tour: tours.Tour, keep: dict | None = None) -> None:
    """Write ``tour``'s settings into the session (``keep``: values that win, e.g. the
    rest of the link it came in); every other setting goes back to its default."""
    cfg = url.session_cfg()
    values, _ = url.tour_cfg(tour)
    present = cfg.get("present")
    new = values | {k: v for k, v in (keep or {}).items() if k not in ("tour", "present")}
    cfg.clear()  # in place: the session's dict
    cfg.update(new, tour=tour.id)
    if present:
        cfg["present"] = True
    for key in [f"w_{u}" for u in url.ROWS] + ["w_source", "w_classes_0", "w_classes_1"]:
        st.session_state.pop(key, None)
    # the tour's σ range wins over "the range follows the data" (as a link's range does)
    st.session_state.pop("range_for", None)
    st.session_state["range_from_url"] = "sigma_min" in cfg and "sigma_max" in cfg
    st.session_state["tour_loaded"] = tour.id


def open_tour() -> tours.Tour | None:
    """Open a requested tour (a gallery / next-tour button, or ``?tour=`` in the link the
    session started from) and go to its page; return the open tour."""
    cfg = url.session_cfg()
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
    page = compat.page_file()
    if opened is not None and page is not None and page != opened.page:
        url.sync_url()
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


_STAGE_CSS = """<style>
.st-key-tour_stage { min-height: max(24rem, calc(100vh - 110px));
  max-height: max(24rem, calc(100vh - 110px)); }
</style>"""
"""A tour's stage: its chart (drawn with ``height="stretch"``) as tall as the screen below
the tour's header row, at least 24 rem on a small screen (``min-height`` and ``max-height``
both: the stage's column would otherwise stretch it to the side column's height)."""


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
        col.info(
            f"Tour **{tour.title}** is on the {nav.page_title(tour.page)} page.",
            icon=":material/tour:",
        )
        back.page_link(tour.page, label="back to the tour", icon=":material/arrow_back:")
        leave.button(
            "leave tour", key="w_tour_leave", type="tertiary", on_click=request_tour, args=("",)
        )
        return
    box = st.container(border=True, key="tour_box")
    box.markdown(f"#### :material/tour: Tour: {tour.title}")
    left, right = box.columns(2, gap="large")
    run_view()["tour_slots"] = _tour_texts(tour, left.empty(), right.empty(), right.empty())
    row = box.container(horizontal=True, vertical_alignment="center")
    row.button(
        f"next tour → {nxt.title}",
        key="w_tour_next",
        type="tertiary",
        on_click=request_tour,
        args=(nxt.id,),
    )
    row.button("leave tour", key="w_tour_leave", type="tertiary", on_click=request_tour, args=("",))


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
    slots = run_view().get("tour_slots")
    if slots is not None:
        _draw_tour_texts(slots, facts)


def _stage(tour: tours.Tour) -> dict:
    """Presenter mode on a tour's page: one header row (the tour's title and its buttons),
    then the stage: the page's first chart (drawn there by :func:`chart`) with the tour's
    text and controls beside it, so the chart is on a projector's first screen."""
    nxt = tours.next_tour(tour.id)
    head = st.container(horizontal=True, vertical_alignment="center", key="tour_head")
    head.markdown(f"**:material/tour: {tour.title}**")
    head.toggle(
        "change settings", key="w_present_edit", help="Show the sidebar and every control again."
    )
    head.button(
        "next tour →",
        key="w_tour_next",
        type="tertiary",
        help=nxt.title,
        on_click=request_tour,
        args=(nxt.id,),
    )
    head.button(
        "leave tour", key="w_tour_leave", type="tertiary", on_click=request_tour, args=("",)
    )
    head.button(
        "leave presenter", key="w_present_off", type="tertiary", on_click=set_present, args=(False,)
    )
    chart_col, side = st.columns([3, 1], gap="medium")
    look, ask = side.empty(), side.empty()
    text = side.expander("What this view shows").empty()
    return {
        "stage": chart_col.container(key="tour_stage", height="stretch").empty(),
        "side": side.container(key="tour_controls"),
        "tour_slots": _tour_texts(tour, text, look, ask),
    }


def top(tour: tours.Tour | None) -> None:
    """Presenter mode (CSS, the "change settings" toggle) and the tour box; sets this run's
    presenter state for :func:`widget`."""
    cfg = url.session_cfg()
    page = compat.page_file()
    on_page = tour is not None and page in (None, tour.page)
    present = bool(cfg.get("present"))
    view = {"present": False, "controls": None, "slots": None}
    if present and on_page and not st.session_state.get("w_present_edit"):
        st.html(_PRESENT_CSS + _HIDE_SIDEBAR_CSS + _STAGE_CSS)
        view = {"present": True, "controls": frozenset(tour.controls), "slots": None}
        view |= _stage(tour)
        st.session_state["_sslviz_view"] = view
        return
    if present:
        st.html(_PRESENT_CSS)
        row = st.container(horizontal=True, vertical_alignment="center", gap="large")
        editing = row.toggle(
            "change settings",
            key="w_present_edit",
            help="Show the sidebar and every control again.",
        )
        row.button(
            "leave presenter mode",
            key="w_present_off",
            type="tertiary",
            on_click=set_present,
            args=(False,),
        )
        if not editing:
            st.html(_HIDE_SIDEBAR_CSS)
            view["present"] = True
            if on_page:
                view["controls"] = frozenset(tour.controls)
    st.session_state["_sslviz_view"] = view
    if tour is not None:
        _tour_box(tour, on_page)
    if view["controls"]:
        n = sum(1 for u in tour.controls if u in url.SIDEBAR_KEYS)
        if n:
            view["slots"] = st.columns(min(n, 4))
