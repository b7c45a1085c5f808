"""Guided tours and presenter mode: the tours' data, loading a tour by link and
from the gallery, the tour's text on its page, presenter mode, and the tours' claims."""

import re
import string

import pytest
from apptest_helpers import ROOT, charts, is_chart, start
from streamlit.testing.v1 import AppTest

from sslviz import specs as S
from sslviz import tours
from ui import cache, caps, nav, presenter, sidebar, url

PAGE_TABLES = {p.file: p.settings for p in nav.NAV if p.settings is not None}
"""Each tour page's own settings table, from the app's page table."""
RUN_BUTTONS = ("reg_run", "speed_run")  # pages that compute on demand


def _sentences(text: str) -> int:
    return len(re.findall(r"[.!?](\s|$)", text))


# --- the data ----------------------------------------------------------------------------


def test_at_least_six_tours_with_unique_slugs():
    assert len(tours.TOURS) >= 6
    assert len(set(tours.IDS)) == len(tours.TOURS)
    for tour in tours.TOURS:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", tour.id), tour.id
        assert tours.get(tour.id) is tour
    assert tours.get("nope") is None and tours.get(None) is None
    assert [tours.next_tour(t).id for t in tours.IDS] == [*tours.IDS[1:], tours.IDS[0]]


@pytest.mark.parametrize("tour", tours.TOURS, ids=tours.IDS)
def test_tour_settings_parse_and_are_within_the_apps_caps(tour):
    """Every value parses with no warning, builds every spec, is inside the app's caps, and
    the tour names an existing page and known controls."""
    assert (ROOT / tour.page).is_file() and tour.page in PAGE_TABLES
    assert tour.page in [p.file for p in nav.nav_pages()]
    cfg, warnings = url.tour_cfg(tour)
    assert not warnings
    assert set(cfg) == set(tour.settings)  # every key is one of the app's URL keys
    assert "sigma_min" in cfg and "sigma_max" in cfg  # reproducible: no "follow the data"
    spec = url.spec_from_cfg(S.ProblemSpec, cfg)
    assert not caps.cap_errors(spec)
    assert spec.dataset == "digits" and spec.data_file is None  # works everywhere
    rng = url.spec_from_cfg(S.SigmaRange, cfg)
    url.spec_from_cfg(S.SweepSettings, cfg)
    page_spec = url.spec_from_cfg(PAGE_TABLES[tour.page], cfg)
    for key, cap in caps.CAPS.items():
        assert cfg.get(key, 0) <= cap, key
    if tour.page == nav.page("speed").file:
        assert max(page_spec.sizes) <= min(caps.MAX_N, 1000)
    suggested = cache.suggested_range(spec)
    assert sidebar.range_warning(rng.sigma_min, rng.sigma_max, suggested) is None
    known = set(url.ROWS) | {r.url for _, r in S.table(PAGE_TABLES[tour.page]) if r.url}
    assert tour.controls and set(tour.controls) <= known
    assert 2 <= _sentences(tour.text) <= 5, tour.text
    assert tour.title and tour.teaser and tour.look and "?" in tour.ask


_REFERENCE = re.compile(
    r"(Figure|Table|Algorithms?|Theorems?|Section|Appendix|§|E\.)\s*"
    r"[\d.–-]+|\d+\.\d+–\d+\.\d+|[A-Za-z_]\w*-?\d+"
)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


@pytest.mark.parametrize("tour", tours.TOURS, ids=tours.IDS)
def test_tour_texts_state_no_number_they_do_not_compute(tour):
    """A number in a tour's text is a field filled from the view (tours.*_facts), one of the
    tour's own settings (n = 100, t = 20), or a reference to the paper (Figure 3): none is
    typed in as a result."""
    settings = {v for text in tour.settings.values() for v in re.split(r"[,:]", text)}
    settings |= {"0", "1", "2", "½"}  # ½, "0 and 1", "one"-like constants of the method
    for part in (tour.teaser, tour.text, tour.look, tour.ask):
        literal = "".join(lit for lit, *_ in string.Formatter().parse(part))
        for number in _NUMBER.findall(_REFERENCE.sub("", literal)):
            assert number in settings, (tour.id, number, part)


def test_to_query_keeps_tour_and_present():
    cfg = {"n": 70, "tour": "cg-misses", "present": True}
    query = url.to_query(cfg)
    assert query["tour"] == "cg-misses" and query["present"] == "1" and query["n"] == "70"
    assert url.from_query(query) == (cfg, [])
    assert "present" not in url.to_query({"present": False})
    assert "tour" not in url.to_query({"tour": None})


def test_bad_tour_link_values_warn():
    cfg, warnings = url.from_query({"tour": "nope", "present": "maybe", "n": "70"})
    assert cfg == {"n": 70}
    assert any("tour='nope'" in w and "cg-misses" in w for w in warnings)
    assert any("present='maybe'" in w for w in warnings)


def test_scale_figure_for_a_projector():
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=2, cols=1, subplot_titles=("a", "b"))
    fig.add_scatter(x=[0, 1], y=[0, 1], row=1, col=1)
    fig.update_layout(margin=dict(l=60, r=20, t=50, b=50))
    big = presenter.scale_figure(fig)
    assert big.layout.height == round(450 * presenter.PRESENT_HEIGHT)
    assert big.layout.font.size == pytest.approx(12 * presenter.PRESENT_FONT)
    assert big.layout.annotations[0].font.size == pytest.approx(16 * presenter.PRESENT_FONT)
    assert big.layout.margin.l > 60
    assert fig.layout.height is None  # the input is not changed
    small = go.Figure(layout=dict(height=300, font=dict(size=10)))
    assert presenter.scale_figure(small).layout.height == round(300 * presenter.PRESENT_HEIGHT)
    staged = presenter.scale_figure(small, None, presenter.STAGE_FONT)  # a tour's stage
    assert staged.layout.height is None  # it fills the stage, as tall as the screen
    assert staged.layout.font.size == pytest.approx(10 * presenter.STAGE_FONT)


def test_stage_figure_fills_the_stage_with_its_legend_beside_the_axes():
    """The stage's figure: no height, larger fonts, the legend in a column right of the
    axes (smaller than the axes' fonts), and a short panel's ticks thinned and its title on
    two lines, so that they do not run into the neighbouring panel's at the larger font."""
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=3, cols=1, row_heights=[0.56, 0.22, 0.22])
    fig.add_scatter(x=[0, 1], y=[1, 2], row=1, col=1)
    fig.update_layout(height=800, font_size=14, legend=dict(orientation="h", y=-0.2))
    fig.update_yaxes(title_text="loss l(σ)", row=1, col=1)
    fig.update_yaxes(type="log", dtick=4, title_text="error, margin (log)", row=2, col=1)
    fig.update_yaxes(type="log", tickvals=[5, 10, 20, 50], title_text="t (log)", row=3, col=1)
    staged = presenter.stage_figure(fig)
    lay = staged.layout
    assert lay.height is None and lay.font.size == pytest.approx(14 * presenter.STAGE_FONT)
    assert lay.legend.orientation == "v" and lay.legend.x > 1
    assert lay.legend.font.size == pytest.approx(14 * presenter.STAGE_LEGEND)
    assert lay.yaxis.title.text == "loss l(σ)" and lay.yaxis.dtick is None  # a tall panel
    assert lay.yaxis2.dtick == 8 and lay.yaxis2.title.text == "error, margin<br>(log)"
    assert list(lay.yaxis3.tickvals) == [5, 20] and lay.yaxis3.title.text == "t<br>(log)"
    assert fig.layout.yaxis2.dtick == 4 and fig.layout.height == 800  # the input is kept


# --- the tours in the app -----------------------------------------------------------------


def _tour_widgets_match(at: AppTest, tour: tours.Tour) -> None:
    """The tour's settings are in the widgets that show them, and in the link."""
    cfg, _ = url.tour_cfg(tour)
    present = at.query_params.get("present") == "1"
    for key, value in cfg.items():
        if present and key not in tour.controls:  # not drawn: the link says it (below)
            continue
        if key == "classes" and len(value) != 2:  # more classes: one multiselect
            shown = tuple(at.multiselect[0].value)
        elif key == "classes":
            shown = (at.selectbox(key="w_classes_0").value, at.selectbox(key="w_classes_1").value)
        elif key == "dataset":
            shown = at.selectbox(key="w_source").value
        else:
            shown = at.get_by_key(f"w_{key}").value
        if isinstance(value, tuple):
            shown = tuple(shown)
        assert shown == pytest.approx(value) if isinstance(value, float) else shown == value, key
    assert at.query_params["tour"] == tour.id
    for key, text in tour.settings.items():
        assert url.from_query({key: at.query_params[key]})[0] == url.from_query({key: text})[0], key


def _chart(at: AppTest) -> AppTest:
    """Press the page's run button when it computes on demand."""
    if not charts(at):
        for key in RUN_BUTTONS:
            if any(b.key == key for b in at.button):
                at.button(key=key).click().run()
    return at


def _matches(template: str, shown: str) -> bool:
    """``shown`` is ``template`` with every field filled by something (or "…")."""
    pattern = "".join(
        re.escape(lit) + ("(.+?)" if f is not None else "")
        for lit, f, *_ in string.Formatter().parse(template)
    )
    return re.fullmatch(pattern, shown, re.S) is not None


def _look(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**Look at:** "))


def _on_tour_page(at: AppTest, tour: tours.Tour) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    texts = [m.value for m in at.markdown]
    assert any(tour.title in t for t in texts)
    look = [t for t in texts if t.startswith("**Look at:** ")]
    ask = [t for t in texts if t.startswith("**Ask:** ")]
    assert len(look) == len(ask) == 1 and "{" not in look[0] + ask[0]
    assert _matches(tour.look, look[0].removeprefix("**Look at:** "))
    assert _matches(tour.ask, ask[0].removeprefix("**Ask:** "))
    assert any(_matches(tour.text, t) for t in texts)
    assert at.button(key="w_tour_next") and at.button(key="w_tour_leave")
    _tour_widgets_match(at, tour)


@pytest.mark.parametrize("tour", tours.TOURS, ids=tours.IDS)
@pytest.mark.slow  # over 2 s: outside the quick run
def test_tour_link_opens_its_page_with_its_settings(tour):
    """``?tour=<id>`` on the home page goes to the tour's page, with its settings in the
    widgets (its σ range, not the suggested one), its text on top, and a chart."""
    at = start(None, {"tour": tour.id})
    _on_tour_page(at, tour)
    _chart(at)
    assert not at.exception
    assert charts(at), tour.id
    # every number of the tour's text is filled from the view the page computed
    assert "…" not in _look(at), _look(at)
    assert "present" not in at.query_params


def test_tour_link_on_another_page_and_link_values_win():
    """A tour link works on any page; values next to ``tour=`` in a link win (a shared link
    of a changed tour view shows that view)."""
    tour = tours.get("conditioning")
    at = start(nav.page("loss").file, {"tour": tour.id, "points": "7"})
    assert not at.exception
    assert at.get_by_key("w_families") is not None  # the conditioning page
    assert at.number_input(key="w_points").value == 7
    assert at.query_params["tour"] == tour.id and at.query_params["points"] == "7"


@pytest.mark.slow  # over 2 s: outside the quick run
def test_gallery_button_next_and_leave():
    at = start(None)
    at.button(key="w_tour_delalleau").click().run()
    delalleau = tours.get("delalleau")
    _on_tour_page(at, delalleau)
    # change a setting: the tour stays until left; next tour loads its own settings
    at.number_input(key="w_subset").set_value(50).run()
    assert at.query_params["tour"] == "delalleau" and at.query_params["subset"] == "50"
    at.button(key="w_tour_next").click().run()
    nxt = tours.next_tour("delalleau")
    _on_tour_page(at, nxt)
    assert at.get_by_key("w_labeling").value == nxt.settings["labeling"]
    at.button(key="w_tour_leave").click().run()
    assert not at.exception and "tour" not in at.query_params
    assert not any(nxt.title in m.value for m in at.markdown)
    assert at.number_input(key="w_rounds").value == int(nxt.settings["rounds"])  # kept


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_starting_a_tour_again_resets_its_settings():
    at = start(None, {"tour": "cg-misses"})
    at.number_input(key="w_t").set_value(7).run()
    at.switch_page("pages/home.py").run()
    at.button(key="w_tour_cg-misses").click().run()
    assert not at.exception
    assert at.number_input(key="w_t").value == int(tours.get("cg-misses").settings["t"])


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_presenter_mode_shows_only_the_tours_controls():
    """``present=1``: the sidebar's controls the tour does not use are not drawn (their
    values still hold), the tour's sidebar controls are on the page, the page controls it
    does not use are gone; the "change settings" toggle brings everything back."""
    tour = tours.get("cg-misses")
    at = start(None, {"tour": tour.id, "present": "1"})
    _on_tour_page(at, tour)
    assert at.query_params["present"] == "1"
    assert at.toggle(key="w_present_edit").value is False
    sidebar_keys = {w.key for w in at.sidebar.get("number_input")} | {
        w.key for w in at.sidebar.get("selectbox")
    }
    assert not sidebar_keys & {
        "w_n",
        "w_labeled",
        "w_seed",
        "w_source",
        "w_classes_0",
        "w_family",
        "w_sigma_min",
    }
    main_keys = {w.key for w in at.main.get("number_input")} | {
        w.key for w in at.main.get("selectbox")
    }
    assert {"w_t", "w_solver", "w_compare"} <= main_keys
    assert "w_points" not in main_keys and "w_node" not in main_keys
    assert charts(at)
    assert any("stSidebar" in h.proto.body for h in at.get("html"))  # hidden by CSS
    n_charts = len(charts(at))

    at.toggle(key="w_present_edit").set_value(True).run()
    assert not at.exception
    assert at.sidebar.number_input(key="w_n").value == int(tour.settings["n"])
    assert at.number_input(key="w_points") and at.selectbox(key="w_node")
    assert len(charts(at)) == n_charts
    assert at.query_params["tour"] == tour.id  # the settings are unchanged

    at.toggle(key="w_present_edit").set_value(False).run()
    at.button(key="w_present_off").click().run()
    assert not at.exception and "present" not in at.query_params
    assert at.sidebar.number_input(key="w_n")


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_tour_texts_sit_beside_the_first_chart_and_its_title_beside_the_pages():
    """Outside presenter mode the tour's title and buttons are in a column beside the page's
    title, and "Look at", "Ask", the tour's text and the page's caption (how to read the
    chart) in the column beside the first chart, not above it."""
    tour = tours.get("cg-converges")
    at = start(None, {"tour": tour.id})
    assert not at.exception
    cols = list(at.columns)
    first = next(i for i, c in enumerate(cols) if any(is_chart(e) for e in c))
    side = cols[first + 1]
    said = [m.value for m in side.markdown]
    assert said[0].startswith("**Look at:** ") and said[1].startswith("**Ask:** ")
    assert any(_matches(tour.text, t) for t in said)
    (caption,) = side.caption
    assert caption.value.startswith("Black: the exact loss l(σ).")
    assert [c.value for c in at.caption].count(caption.value) == 1  # not above the chart too
    title = next(i for i, c in enumerate(cols) if c.title)
    assert any(tour.title in m.value for m in cols[title + 1].markdown)
    assert {b.key for b in cols[title + 1].button} == {"w_tour_next", "w_tour_leave"}


def test_presenter_mode_without_a_tour_keeps_the_page_controls():
    at = start(nav.page("conditioning").file, {"present": "1", "n": "60", "labeled": "6"})
    assert not at.exception and not at.error
    assert at.toggle(key="w_present_edit")
    assert at.get_by_key("w_points") is not None and at.get_by_key("w_families") is not None
    assert at.query_params["present"] == "1"
    at.sidebar.toggle(key="w_present").set_value(False)  # drawn (hidden by CSS): turn off
    at.run()
    assert not at.exception and "present" not in at.query_params


# --- the tours' claims --------------------------------------------------------------------


def test_cg_tour_misses_fewer_breakpoints_as_t_grows():
    """The CG tour's point, measured: CG-5 misses (almost) every true breakpoint, CG-20
    fewer, PCG-20 fewer still, the exact solver none."""
    from sslviz.intervals import score, sweep
    from sslviz.problem import build_problem, loss_curve

    tour = tours.get("cg-misses")
    cfg, _ = url.tour_cfg(tour)
    spec = url.spec_from_cfg(S.ProblemSpec, cfg)
    lo, hi = cfg["sigma_min"], cfg["sigma_max"]
    p = build_problem(spec)
    truth = loss_curve(p, lo, hi)

    def missed(**kw):
        run = sweep(p.model, p.y_unlabeled, lo, hi, S.SweepSettings(**kw))
        return score(run, truth, model=p.model).missed

    n_true = len(truth.breakpoints)
    assert n_true >= 10
    t5, t20, pcg20 = missed(cg_iters=5), missed(cg_iters=20), missed(solver="pcg", cg_iters=20)
    assert t5 >= 0.8 * n_true and t20 < t5 and pcg20 < t20
    assert missed(solver="exact") == 0


def test_sparse_tour_kNN_has_fewer_pieces_as_n_grows():
    """The sparse-vs-complete tour's point: the complete graph's loss has more pieces as n
    grows, the kNN graph's stays small."""
    from sslviz.problem import build_problem, loss_curve

    tour = tours.get("sparse-vs-complete")
    cfg, _ = url.tour_cfg(tour)
    spec = url.spec_from_cfg(S.ProblemSpec, cfg)
    lo, hi = cfg["sigma_min"], cfg["sigma_max"]
    pieces = {}
    for n in cfg["sizes"]:
        for fam in ("complete", "knn"):
            p = build_problem(spec.replace(n=n, family=fam))
            pieces[fam, n] = len(loss_curve(p, lo, hi).breakpoints) + 1
    small, big = sorted(cfg["sizes"])
    assert pieces["complete", big] > 2 * pieces["complete", small]
    assert pieces["knn", big] < pieces["complete", big] / 4
