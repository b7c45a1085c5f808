"""Loss intervals: the exact l(σ) against Algorithm 4's intervals (Figure 3), why each miss
happened, where CG-t can be trusted, and a node drill-down (Figure 2)."""

from contextlib import ExitStack

import streamlit as st

from sslviz import costs, export, measure, plots, sentences, tours
from sslviz.cli import command_line
from sslviz.conditioning import TRUST_RULE
from sslviz.specs import ConditionSettings, SigmaRange
from ui import cache, caps, frame, presenter, progress, url, widgets
from ui.views import LossView

_THRESHOLD_CAPTION = (
    "Black: the exact loss l(r) (share of U misclassified) over the threshold radius r: it "
    "only changes at edge lengths. Grey: r where some unlabeled nodes are cut off from L."
)
_GAUSSIAN_CAPTION = (
    "Top chart, black line: the exact loss l(σ) (share of U misclassified). Blue: Algorithm "
    "4's intervals at their estimated loss. Small markers by cause: missed true breakpoints "
    "(filled; no estimated endpoint within 10⁻³) and spurious endpoints (open); hover for the "
    "evidence, click one (or a breakpoint, or an interval end) for its node's drill-down "
    "further down. The two panels under it: t-iteration CG's largest error against the "
    "smallest margin |f_u − ½| (shaded where CG-t cannot be trusted, as defined under the "
    "chart), and the t that puts every node on its exact side (CG, Jacobi-PCG). Grey: σ "
    "where some unlabeled nodes are cut off from L."
)
_CLASS_CAPTION = (
    "More than two classes, one-vs-all: a node is predicted its top score of C, one per "
    "class. Top chart, black line: the exact loss l(σ) (share of U misclassified). Blue: "
    "Algorithm 4's intervals at their estimated loss. Small markers by cause: "
    "missed true breakpoints (filled) and spurious endpoints (open); hover for the pair of "
    "classes that met, click one for its node's drill-down further down. The two panels "
    "under it: t-iteration CG's largest score error against half the smallest top-two "
    "margin, and the t that puts every node's top class right (CG, Jacobi-PCG)."
)


def _caption(state) -> str:
    if not url.family_of(state.cfg).gaussian:
        return _THRESHOLD_CAPTION
    return _GAUSSIAN_CAPTION if len(state.cfg.get("classes", (0, 1))) == 2 else _CLASS_CAPTION


s = frame.page("Constant-loss intervals (Figure 3)", _caption, many_classes=True)
spec, settings = s.spec, s.settings
lo, hi = s.sigma
threshold = not spec.gaussian
many = cache.many_classes(spec)  # more than two classes: one-vs-all (docs/method.md §13)
other = "paper mode" if settings.mode == "fast" else "fast mode"
c0, c1 = st.columns([3, 1])
widgets.widget(
    c0,
    LossView,
    "compare",
    disabled=threshold,
    format_func=lambda c: other if c == "other mode" else c,
)
widgets.widget(c1, ConditionSettings, "points", label="trust panel σ points", disabled=threshold)
view = widgets.controls(LossView)
points = widgets.controls(ConditionSettings).points  # one σ grid: the conditioning page's
cmp_settings = cache.comparison(settings, view.compare)
param = "r" if threshold else "σ"


def estimate(sp, a, b):  # this view's cost at other settings (for the cap's advice)
    c = costs.loss_curve(sp, a, b, s.suggested)
    if sp.gaussian:
        c += costs.sweep(sp, a, b, settings, s.suggested)
        c += costs.trust(sp, points, settings.cg_iters)
        if cmp_settings is not None:
            c += costs.sweep(sp, a, b, cmp_settings, s.suggested)
    return c


if caps.refuse(
    caps.over_cap(
        "this view (the exact loss"
        + (", Algorithm 4 and the trust panel)" if not threshold else ")"),
        estimate,
        spec,
        lo,
        hi,
    )
):
    st.stop()
# paper mode, or an exact curve not computed yet: the chart's place and the verdict's above
# it are set first; a large graph's exact curve draws its pieces there as they are found,
# a paper-mode sweep its intervals as they arrive (both in σ order), and a stop draws there
# what had arrived (cache.TRUTH_PARTS, cache.PAPER_PARTS). Not in every run: set in every
# run, the default view's cached redraws painted later in Chromium than the old page's
# (control_reruns_loss_parts_always.md), and later in 4 of 6 changes than set only here
# (control_reruns_loss_place.md, 3 rounds), all in benchmarks/results
paper_view = not threshold and settings.mode == "paper"
streaming = paper_view and not cache.paper_done(spec, lo, hi, settings)
truth_streams = not threshold and not cache.truth_done(spec, lo, hi)
head = place = None
if paper_view or truth_streams:
    head, place = st.empty(), progress.growing()
if streaming:  # the verdict's place, as tall as a short verdict (the page jumps less)
    head.info(
        "The verdict (which true breakpoints Algorithm 4 misses, and why) follows once its "
        "sweep is complete and the causes of the misses are looked for.",
        icon=":material/troubleshoot:",
    )


def _kept() -> bool:  # after a stop: the pieces or intervals that had arrived, and what
    if not cache.truth_done(spec, lo, hi):  # is missing
        found = cache.TRUTH_PARTS.get((spec, lo, hi))
        if found is None:
            return False
        place.draw(lambda: cache.truth_figure(spec, found), key="li_chart")
        st.caption(found.missing())
        return True
    part = cache.PAPER_PARTS.get(cache.paper_key(spec, lo, hi, settings))
    if part is None:
        return False
    place.draw(lambda: cache.paper_figure(spec, cache.truth(spec, lo, hi), part), key="li_chart")
    st.caption(
        part.missing()
        or "Every interval of Algorithm 4 has arrived; the causes of the misses, the verdict "
        "and the trust panel are not computed yet."
    )
    return True


try:
    res = sc = cmp_res = trust = None
    with progress.progress(
        "Computing…",
        key=("loss", spec, lo, hi, settings, view.compare, points),
        kept=_kept if place is not None else None,
    ) as tick:
        part = cache.scaled  # each step's share of the bar
        truth = cache.truth(
            spec,
            lo,
            hi,
            _progress=part(
                tick,
                0.0,
                1.0 if threshold else 0.3,
                f"the exact loss l({param}) on [{lo:g}, {hi:g}]: ",
            ),
            _part=(
                (lambda p: place.draw(lambda: cache.truth_figure(spec, p), key="li_chart"))
                if truth_streams
                else None
            ),
        )
        if streaming:
            paper = part(
                tick,
                0.3,
                0.4,
                f"Algorithm 4 (paper mode, {settings.solver}, t = {settings.cg_iters}): ",
            )
            for piece in cache.paper_stream(spec, lo, hi, settings):
                paper(piece.fraction, piece.status())
                if not piece.complete:
                    place.draw(lambda p=piece: cache.paper_figure(spec, truth, p), key="li_chart")
        if not threshold:
            res = cache.intervals(
                spec,
                lo,
                hi,
                settings,
                _progress=part(
                    tick,
                    0.3,
                    0.4,
                    f"Algorithm 4 ({settings.mode} mode, {settings.solver}, "
                    f"t = {settings.cg_iters}): ",
                ),
            )
            scoring = cache.scoring(spec, settings, truth.breakpoints.size)
            sc = cache.scored(
                spec,
                lo,
                hi,
                settings,
                scoring.max_attributed,
                _progress=part(
                    tick,
                    0.4,
                    0.55,
                    "the causes of the misses"
                    + (
                        ""
                        if scoring.max_attributed is None
                        else f" (at {scoring.max_attributed} of them, spread over σ)"
                    )
                    + ": ",
                ),
            )
            stop = 0.9 if cmp_settings is None else 0.8
            trust = cache.trust(
                spec,
                lo,
                hi,
                cache.trust_solver(settings),
                settings.cg_iters,
                points,
                _progress=part(tick, 0.55, stop, f"where t = {settings.cg_iters} can be trusted: "),
            )
            if cmp_settings is not None:
                cmp_res = cache.intervals(
                    spec,
                    lo,
                    hi,
                    cmp_settings,
                    _progress=part(tick, 0.8, 0.9, f"the comparison ({view.compare}): "),
                )
                cmp_scoring = cache.scoring(spec, cmp_settings, truth.breakpoints.size)
                cmp_sc = cache.scored(spec, lo, hi, cmp_settings, cmp_scoring.max_attributed)
    problem = cache.problem(spec)
except (ValueError, TypeError, FileNotFoundError) as exc:
    st.error(widgets.readable(exc))
    st.stop()
rows = problem.rows(range(problem.model.n_unlabeled))
presenter.tour_facts(
    tours.loss_facts(
        truth,
        score=sc,
        sweep=res,
        compare_score=cmp_sc if cmp_res is not None else None,
        compare_sweep=cmp_res,
        trust=trust,
        problem=problem,
        lo=lo,
        hi=hi,
        node=st.session_state["cfg"].get("node"),
    )
)


def _open_drill_down(points: list) -> None:  # a clicked marker: its node, from Algorithm 4's σ0
    if pick := plots.selected_point(points):
        row, sigma, sigma0 = pick
        st.session_state["cfg"]["node"], st.session_state["cfg"]["sigma0"] = row, sigma0
        st.session_state["li_focus"] = (row, sigma)  # a miss's marker: explained up close
        st.session_state.pop("w_node", None)
        st.session_state.pop("w_sigma0", None)


def _close_focus() -> None:
    st.session_state.pop("li_focus", None)


def _timed_row(timing) -> None:
    """The second row of metrics and the work caption; ``timing`` None: not taken yet."""
    if timing is None:
        per, how = (
            "measuring…",
            (
                "being measured: the sweep runs again (about "
                f"{costs.seconds_text(cache.timing_seconds(spec, lo, hi, settings))}) now that "
                "the page is drawn."
            ),
        )
    else:
        ms = 1e3 * timing.cpu / max(sc.M, 1)
        per = f"{ms:.3g} ms" if ms < 1000 else f"{ms / 1e3:.3g} s"
        how = (
            f"CPU time of the sweep, minimum of {timing.repeats} run"
            f"{'s' * (timing.repeats != 1)}"
            + (
                f", taken while {timing.busy} other computation{'s' * (timing.busy != 1)} "
                "ran on this server."
                if timing.busy
                else "."
            )
        )
    widgets.metrics(
        {"ε-volume": f"{sc.eps_volume:.3g}", "time per interval": per, "solves": res.solves}
    )
    work = export.to_dict(res, problem)["work"]
    st.caption(f"Work per interval: {measure.describe_work(work, per=sc.M)}. Time: {how}")


# the tabs under the chart (the first open at first) and the session key of the open one
TABS = ("Estimated intervals", "Missed breakpoints", "True loss", "Trust panel", "Export")
TABS_KEY = "li_tabs"

_PAGE_RUN = "li_page_run"  # session keys: the page's runs that left the timing pending,
_TIMING_RUN = "li_timing_run"  # and the last of them whose timing row was drawn
TIMING_DELAY = 0.2  # seconds after the page is drawn before its sweep is timed (_take_timing)


def _take_timing() -> None:
    """A fragment: drawn in the page's own run, the row says the time is being measured;
    Streamlit runs it again :data:`TIMING_DELAY` s later, and that run takes the timing and
    reruns the page (everything else cached), which then draws the time."""
    state = st.session_state
    if state.get(_TIMING_RUN) == state[_PAGE_RUN]:
        cache.sweep_timing(spec, lo, hi, settings)
        st.rerun()
    state[_TIMING_RUN] = state[_PAGE_RUN]
    _timed_row(None)


drawing = ExitStack()  # a spinner while the chart and tables are built and sent (seconds
drawing.enter_context(st.spinner("Drawing the chart and tables…"))  # on large instances)
if sc is not None:
    (head if head is not None else st).info(
        sentences.verdict(sc, settings, trust), icon=":material/troubleshoot:"
    )
fig = cache.figure(
    ("loss", spec, lo, hi, settings.effective(), view.compare, points),
    lambda: plots.loss_intervals_figure(
        truth,
        res,
        score=sc,
        rows=rows,
        compare=cmp_res,
        compare_name=f"compare: {view.compare}",
        trust=trust,
    ),
)
clicks = dict(on_click=_open_drill_down)
if place is not None and place.staged:  # on presenter mode's stage, as it grew there
    place.draw(lambda: fig, key="li_chart", last=True, **clicks)
else:  # where the partial charts grew, if they did
    widgets.chart(place.slot if place is not None else st, fig, key="li_chart", **clicks)
focus = st.session_state.get("li_focus")
record = None
if sc is not None and focus is not None and focus[0] in rows:
    record = sc.record_at(rows.index(focus[0]), focus[1])
if record is not None:  # the clicked miss, up close, right under the chart
    with st.container(border=True, key="miss_panel"):
        st.markdown(sentences.explain_miss(record, sc, rows))
        b, near = record.sigma, record.evidence.get("estimated_endpoint")
        half = max(2.5 * abs(near - b) if near is not None else 0.0, 4 * sc.tol, 0.005 * (hi - lo))
        window = (spec, max(lo, b - half), min(hi, b + half), settings, rows.index(focus[0]), 81)
        up_close = plots.class_miss_figure if many else plots.miss_figure
        zoom = (cache.class_node_curves if many else cache.node_curves)(*window)
        widgets.chart(
            st,
            up_close(zoom, u=f"node {focus[0]}", sigma_true=b, tol=sc.tol, estimate=near),
            key="li_miss_chart",
        )
        st.button("close", key="li_focus_close", on_click=_close_focus, type="tertiary")
if threshold:
    st.info(
        f"The {spec.graph_family.label} family's loss over r is exact (it only changes at edge "
        "lengths); Algorithm 4 needs a Gaussian family."
    )
else:
    direct = settings.solver not in ("cg", "pcg") or settings.certify
    st.caption(
        (
            ""
            if not direct
            else f"The {settings.label} solver needs no trust panel; it shows "
            f"{trust.label} for comparison. "
        )
        + trust.stated()
        + " "
        + getattr(trust, "rule", TRUST_RULE).format(label=trust.label, t=trust.cg_iters)
    )
    # two rows, so every label and value fits its column at 1400 px (and on a projector)
    widgets.metrics(
        {
            "intervals M": sc.M,
            "true breakpoints": sc.true_breakpoints,
            "missed": sc.missed,
            "spurious endpoints": sc.spurious,
        }
    )
    timing = cache.sweep_timing_taken(spec, lo, hi, settings)
    if timing is not None:  # in one block, as the fragment's: what follows keeps its place
        with st.container():  # (and the browser keeps its charts and tables, not redrawn)
            _timed_row(timing)
    else:  # taken once the page is drawn: a change redraws without waiting for it
        st.session_state[_PAGE_RUN] = st.session_state.get(_PAGE_RUN, 0) + 1
        st.fragment(_take_timing, run_every=TIMING_DELAY)()
    if cmp_res is not None:
        st.caption(
            f"Compare ({view.compare}): M = {cmp_sc.M}, missed {cmp_sc.missed}, spurious "
            f"{cmp_sc.spurious}, ε-volume {cmp_sc.eps_volume:.3g}, "
            f"{1e3 * cmp_res.time_per_interval:.1f} ms per interval, {cmp_res.solves} solves."
        )

rng = SigmaRange(lo, hi)


@st.fragment
def _tables() -> None:
    """The tabs under the chart; only the open one is built and sent. A fragment: a tab
    switch reruns this, not the page (every result it shows is computed above)."""
    url.carry("tab", TABS_KEY, TABS, default=TABS[0])  # the open tab is in the link
    t1, t2, t3, t5, t4 = st.tabs(list(TABS), key=TABS_KEY, on_change="rerun")
    if t3.open:
        widgets.table(t3, export.to_frame(truth, problem))
    if sc is None:
        for tab, text in (
            (t1, "No estimate: Algorithm 4 needs a Gaussian family."),
            (t2, "No estimate to score."),
            (t5, f"No iterative solve: the {spec.graph_family.label} family's loss is exact."),
        ):
            if tab.open:
                tab.info(text)
    else:
        if t1.open:
            widgets.table(t1, export.to_frame(res, problem))
        if t2.open:
            if sc.misses:
                widgets.table(t2, export.to_frame(sc, problem))
            else:
                t2.success("No true breakpoint missed.")
        if t5.open:
            widgets.table(t5, export.to_frame(trust))
    if t4.open:
        files = {
            "true_loss.csv": export.to_frame(truth, problem).to_csv(index=False),
            "true_loss.json": cache.loss_json(spec, lo, hi),
        }
        lines = [command_line("loss", spec, rng, out="true_loss.json")]
        if sc is not None:
            files |= {
                "intervals.csv": export.to_frame(res, problem).to_csv(index=False),
                "intervals.json": cache.intervals_json(spec, lo, hi, settings, scoring),
                "trust.csv": export.to_frame(trust).to_csv(index=False),
                "trust_panel.json": export.dumps(export.to_dict(trust)),
            }
            lines.append(
                command_line("intervals", spec, rng, settings, scoring, out="intervals.json")
            )
            if not many:  # sslviz condition's trust panel reads two classes
                lines.append(
                    command_line(
                        "condition",
                        spec,
                        rng,
                        ConditionSettings(
                            points=points,
                            solver=cache.trust_solver(settings),
                            cg_iters=settings.cg_iters,
                            trust=True,
                        ),
                        out="trust.json",
                    )
                )
            if cmp_res is not None:
                lines.append(
                    command_line(
                        "intervals", spec, rng, cmp_settings, cmp_scoring, out="compare.json"
                    )
                )
        with t4:
            widgets.downloads("li", files)
            widgets.commands(*lines)
            if many and sc is not None:
                st.caption(
                    "The trust panel of more than two classes has no command yet: its numbers "
                    "are in trust.csv and trust_panel.json."
                )


_tables()

drawing.close()
if threshold:
    st.stop()
st.subheader(
    "Drill-down: one node's scores, one per class (Figure 2)"
    if many
    else "Drill-down: one node's soft label (Figure 2)"
)
order, missed_rows = cache.drill_down_nodes(problem, sc)


def _node_changed() -> None:  # a new node starts from its own default σ0
    st.session_state["cfg"]["sigma0"] = None
    st.session_state.pop("w_sigma0", None)


c0, c1 = st.columns(2)
widgets.widget(
    c0,
    LossView,
    "node",
    options=order,
    on_change=_node_changed,
    format_func=lambda r: f"row {r}" + " — missed" * (r in missed_rows),
)
row = st.session_state["cfg"]["node"]
u = rows.index(row)
node_bps = [b for b, nd in zip(truth.breakpoints, truth.nodes, strict=True) if u in set(nd)]
if many:
    c1.caption(
        "The chart shows the node's scores, one per class, and where each class wins; the "
        "drill-down draws paper-mode iterations from a start σ0 for two classes only."
    )
    try:
        with progress.progress(
            f"Row {row}:", key=("class node", spec, lo, hi, settings, u)
        ) as tick:
            curves = cache.class_node_curves(
                spec, lo, hi, settings, u, _progress=cache.scaled(tick, 0.0, 1.0, "F_u(σ), ")
            )
    except (ValueError, TypeError) as exc:
        st.error(widgets.readable(exc))
        st.stop()
    widgets.chart(
        st,
        cache.figure(
            ("class node", spec, lo, hi, settings.solver, settings.cg_iters, u),
            lambda: plots.class_scores_figure(
                curves["sigma"],
                curves["F_exact"],
                F=curves["F"],
                label=curves["label"],
                u=f"row {row}",
                classes=curves["classes"],
                true_class=curves["true_class"],
                breakpoints=node_bps,
            ),
        ),
        key="li_node_chart",
    )
    st.caption(plots.winners_text(curves, node_bps))
    st.stop()
if not lo <= (st.session_state["cfg"].get("sigma0") or -1.0) <= hi:
    st.session_state["cfg"]["sigma0"] = cache.default_sigma0(node_bps, lo, hi)
    st.session_state.pop("w_sigma0", None)
widgets.widget(c1, LossView, "sigma0")
view = widgets.controls(LossView)
sigma0 = min(max(view.sigma0, lo), hi)
try:
    with progress.progress(
        f"Row {row}:", key=("node", spec, lo, hi, settings, u, float(sigma0))
    ) as tick:
        # a large instance's exact solves are full factorisations: a coarser grid
        curves = cache.node_curves(
            spec,
            lo,
            hi,
            settings,
            u,
            caps.LARGE_NODE_GRID if spec.n > caps.MAX_N else 120,
            _progress=cache.scaled(tick, 0.0, 0.8, "f_u(σ), its solver and exact, "),
        )
        tr = cache.node_traces(
            spec, lo, hi, settings, u, float(sigma0), _progress=cache.scaled(tick, 0.8, 1.0)
        )
except (ValueError, TypeError) as exc:
    st.error(widgets.readable(exc))
    st.stop()
node_key = ("node", spec, lo, hi, settings, u, len(curves["sigma"]), float(sigma0))
widgets.chart(
    st,
    cache.figure(
        node_key,
        lambda: plots.soft_label_figure(
            curves["sigma"],
            curves["f"],
            u=f"row {row}",
            f_exact=curves["f_exact"],
            traces={r: its for r, (its, _) in tr.items()},
            breakpoints=node_bps,
            label=curves["label"],
            sigma0=float(sigma0),
        ),
    ),
    key="li_node_chart",
)
st.caption(
    " · ".join(
        f"{r}: {len(its)} iterate{'s' * (len(its) != 1)}, stops at "
        + (f"σ = {root:.5g}" if root is not None else "no root")
        for r, (its, root) in tr.items()
    )
    + f" (an iteration stops where |f_u − ½| is at most the root tolerance "
    f"{settings.root_tol:g}, near "
    "a crossing, not at it: the true breakpoints are the red dashed lines)."
)
