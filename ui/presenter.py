"""Guided tours and presenter mode.

A tour opens on its page with its settings (from a gallery button, the next-tour button or
``?tour=`` in a link); its texts are filled with the numbers of the page's own results
(:func:`tour_facts`). On the tour's page its first chart is drawn on the stage
(:func:`chart_place`): the tour's "Look at" and "Ask" beside the chart, so what the text
points at is beside it. Presenter mode (``present=1``) is for a projector: no sidebar,
larger fonts, and on a tour's page one header row, then the stage, filling the screen: the
chart with the tour's controls under it, the texts beside it.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from sslviz import tours
from ui import compat, nav, url

PRESENT_HEIGHT, PRESENT_FONT = 1.35, 1.4
"""Presenter mode: chart height and font scale (on a projector)."""


STAGE_FONT = 1.5
"""Font scale of a tour's first chart in presenter mode. Its height is what the screen
leaves below the tour's header row and above the tour's controls (:data:`_STAGE_CSS`): the
chart, its "Look at" and its "Ask" are wholly on a projector's first screen, 1280×720 or
1920×1080 (tests/browser/test_browser_presenter.py)."""


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


STAGE_LEGEND = 1.1
"""Font scale of the stage chart's legend (smaller than the axes': a long legend beside
the chart then still fits its height at 1280×720)."""


def stage_figure(fig: Any) -> Any:
    """A copy of Plotly figure ``fig`` for presenter mode's stage: fonts :data:`STAGE_FONT`
    × larger (the legend's :data:`STAGE_LEGEND` × the larger of its own and the figure's),
    no height (it fills the stage), the legend in a column right of the axes (a wide screen
    has more room beside the chart than under it), short panels thinned
    (:data:`SHORT_PANEL`)."""
    base = fig.layout.font.size or 12
    legend = max(fig.layout.legend.font.size or base, base)
    fig = scale_figure(fig, None, STAGE_FONT)
    fig.for_each_yaxis(_short_panel)
    right = any(getattr(a, "side", None) == "right" for a in fig.select_yaxes())
    fig.update_layout(
        legend=dict(
            orientation="v",
            x=1.16 if right else 1.02,
            y=1,
            xanchor="left",
            yanchor="top",
            font_size=legend * STAGE_LEGEND,
            tracegroupgap=4,
        )
    )
    return fig


SHORT_PANEL = 0.3
"""A y axis over less of the figure's height than this (a panel of a stacked figure) gets
every other tick label on the stage, and its title on two lines ("t needed" over "(log)"):
at the stage's larger font they would overlap their neighbours'."""


def _short_panel(axis: Any) -> None:
    if axis.domain is None or axis.domain[1] - axis.domain[0] >= SHORT_PANEL:
        return
    if axis.title.text and " (" in axis.title.text:
        axis.title.text = axis.title.text.replace(" (", "<br>(", 1)
    if axis.tickvals is not None and len(axis.tickvals) > 3:
        axis.tickvals = axis.tickvals[::2]
        if axis.ticktext is not None:
            axis.ticktext = axis.ticktext[::2]
    elif axis.type == "log" and isinstance(axis.dtick, int | float):
        axis.dtick = 2 * axis.dtick


def run_view() -> dict:
    """This run's tour and presenter state (set by :func:`top`): ``present`` (presenter
    layout on), ``controls`` (URL keys the tour uses, or None: every control), ``tour``
    (the tour open on this page, or None), ``stage`` (presenter mode: where the first chart
    goes), ``side`` (presenter mode: where the tour's controls go), ``staged`` (the first
    chart is drawn), ``facts`` (the tour texts' numbers so far)."""
    return st.session_state.get("_sslviz_view") or {"present": False, "controls": None}


def placement(container: Any, url: str) -> Any:
    """Where presenter mode draws the control of ``url``: ``container``, a column on the
    page (a tour's sidebar control), or None (not drawn)."""
    view = run_view()
    if not view["present"]:
        return container
    if view["controls"] is not None and url not in view["controls"]:
        return None
    return view.get("side", container)  # a tour's stage: its controls under the chart


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
html { font-size: clamp(14px, 2.3vh, 32px); }
[data-testid="stMetricValue"] { font-size: 3rem; }
[data-testid="stMainBlockContainer"] { padding: 0.6rem 1.5rem 1rem; }
[data-testid="stLayoutWrapper"]:has(> .st-key-tour_stage) { height: calc(100vh - 4.75rem); }
.st-key-tour_stage { flex-wrap: nowrap; }
[data-testid="stLayoutWrapper"]:has(> .st-key-tour_main) { flex: 1 1 0; min-width: 0; }
[data-testid="stLayoutWrapper"]:has(> .st-key-tour_side) { flex: 0 0 26%; min-width: 0; }
.st-key-tour_side [data-testid="stMarkdownContainer"] p { font-size: 1.2rem; line-height: 1.4; }
</style>"""
"""A tour's stage in presenter mode, its sizes in units of the screen's height (the root
font follows it): the same layout at 1280×720 and 1920×1080. The stage is the screen below
the header row; in it, the chart (drawn with ``height="stretch"``) takes what the tour's
controls under it leave, and the texts take a quarter of the width beside it."""


_HIDE_SIDEBAR_CSS = """<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stExpandSidebarButton"], [data-testid="stSidebarCollapseButton"] {
  display: none !important; }
</style>"""

STAGE_COLUMNS = (2, 1)
"""Outside presenter mode: the widths of a tour's first chart and of its texts beside it."""


def _tour_note(tour: tours.Tour) -> None:
    """On a page other than the tour's: a note with a way back."""
    col, back, leave = st.columns([4, 1, 1], vertical_alignment="center")
    col.info(
        f"Tour **{tour.title}** is on the {nav.page_title(tour.page)} page.",
        icon=":material/tour:",
    )
    back.page_link(tour.page, label="back to the tour", icon=":material/arrow_back:")
    leave.button(
        "leave tour", key="w_tour_leave", type="tertiary", on_click=request_tour, args=("",)
    )


def _tour_buttons(row: Any, tour: tours.Tour) -> None:
    nxt = tours.next_tour(tour.id)
    row.button(
        "next tour →",
        key="w_tour_next",
        type="tertiary",
        help=nxt.title,
        on_click=request_tour,
        args=(nxt.id,),
    )
    row.button("leave tour", key="w_tour_leave", type="tertiary", on_click=request_tour, args=("",))


def heading(title: str, caption: str | None) -> None:
    """The page's ``title`` and ``caption``. On a tour's page outside presenter mode, the
    tour's title and buttons beside the page's title, and the caption (how to read the
    chart) beside the first chart with the tour's texts (:func:`chart_place`), so that the
    chart starts in the upper half of the screen."""
    view = run_view()
    tour = view.get("tour")
    if tour is None or view.get("stage") is not None:
        st.title(title)
        if caption:
            st.caption(caption)
        return
    left, right = st.columns([3, 2], vertical_alignment="center")
    left.title(title)
    box = right.container(border=True, key="tour_box", gap="small")
    box.markdown(f"**:material/tour: Tour: {tour.title}**")
    _tour_buttons(box.container(horizontal=True), tour)
    view["caption"] = caption


_TOUR_PARTS = {"text": "{}", "look": "**Look at:** {}", "ask": "**Ask:** {}"}


def _tour_texts(tour: tours.Tour, side: Any, *, expanded: bool) -> dict:
    """Draw the tour's "Look at", "Ask" and (in an expander) its text into ``side`` with the
    facts known so far (none: their numbers show as "…" until the page calls
    :func:`tour_facts`); return the slots."""
    slots = {"tour": tour, "look": side.empty(), "ask": side.empty()}
    slots["text"] = side.expander("What this view shows", expanded=expanded).empty()
    _draw_tour_texts(slots, run_view().get("facts", {}))
    if run_view().get("caption"):
        side.expander("How to read the chart").caption(run_view()["caption"])
    return slots


def _draw_tour_texts(slots: dict, facts: dict) -> None:
    tour = slots["tour"]
    for part, fmt in _TOUR_PARTS.items():
        slots[part].markdown(fmt.format(tours.fill(getattr(tour, part), facts)))


def tour_facts(facts: dict[str, str]) -> None:
    """Fill the open tour's texts with the numbers of this page's view (from
    :mod:`sslviz.tours`' ``*_facts`` functions, read off the results the page draws)."""
    view = run_view()
    view["facts"] = facts  # for texts drawn later, beside the first chart
    if view.get("tour_slots") is not None:
        _draw_tour_texts(view["tour_slots"], facts)


def chart_place(container: Any) -> tuple[Any, bool]:
    """Where :func:`ui.widgets.chart` draws a chart, and whether it fills presenter mode's
    stage. This run's first chart on a tour's page goes on the stage: in presenter mode the
    one :func:`top` made; otherwise two columns made here in ``container``
    (:data:`STAGE_COLUMNS`), the chart in the first, the tour's texts in the second. Every
    other chart goes in ``container``."""
    view = run_view()
    if view.get("tour") is None or view.get("staged"):
        return container, False
    view["staged"] = True
    if view.get("stage") is not None:
        return view["stage"], True
    chart, side = container.columns(STAGE_COLUMNS, gap="medium")
    view["tour_slots"] = _tour_texts(view["tour"], side, expanded=True)
    return chart, False


def _stage(tour: tours.Tour) -> dict:
    """Presenter mode on a tour's page: one header row (the tour's title and its buttons),
    then the stage: the page's first chart (drawn there by :func:`chart_place`) with the
    tour's controls under it and its texts beside it, all on a projector's first screen."""
    head = st.container(horizontal=True, vertical_alignment="center", key="tour_head")
    head.markdown(f"**:material/tour: {tour.title}**")
    head.toggle(
        "change settings", key="w_present_edit", help="Show the sidebar and every control again."
    )
    _tour_buttons(head, tour)
    head.button(
        "leave presenter", key="w_present_off", type="tertiary", on_click=set_present, args=(False,)
    )
    stage = st.container(horizontal=True, gap="medium", key="tour_stage")
    main = stage.container(key="tour_main", gap="small", height="stretch")
    chart = main.empty()
    return {
        "stage": chart,
        "side": main.container(horizontal=True, key="tour_controls"),
        "tour_slots": _tour_texts(tour, stage.container(key="tour_side"), expanded=False),
    }


def top(tour: tours.Tour | None) -> None:
    """Presenter mode (CSS, the "change settings" toggle; on the tour's page, the stage) or
    a note on another page than the tour's; sets this run's tour and presenter state
    (:func:`run_view`)."""
    cfg = url.session_cfg()
    page = compat.page_file()
    on_page = tour is not None and page in (None, tour.page)
    present = bool(cfg.get("present"))
    view = {"present": False, "controls": None, "tour": tour if on_page else None}
    st.session_state["_sslviz_view"] = view
    if present and on_page and not st.session_state.get("w_present_edit"):
        st.html(_PRESENT_CSS + _HIDE_SIDEBAR_CSS + _STAGE_CSS)
        view |= {"present": True, "controls": frozenset(tour.controls)} | _stage(tour)
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
    if tour is not None and not on_page:
        _tour_note(tour)
