"""CG iterations: the estimate l̃_t(σ) of CG and Jacobi-PCG for every t ≤ T against the exact
loss, scrubbed in the browser (the t-scrubber, docs/method.md §7.5)."""

import itertools

import streamlit as st

from sslviz import animation, costs, export, tours
from sslviz.convergence import compare_misses
from sslviz.specs import ConditionSettings, ConvergenceView, ProblemSpec
from ui import cache, caps, frame, presenter, progress, widgets

BINARY = (
    "Black: the exact loss l(σ). Blue (CG) and dashed orange (Jacobi-PCG): the loss "
    "l̃_t(σ) of t-iteration soft labels at each σ, what Algorithm 4 reads at that σ. "
    "Markers: the true breakpoints CG-t's own labels miss, where a node that flips there is "
    "on its wrong side just left or right of it (within the scoring tolerance); Algorithm "
    "4's intervals (the loss page) depend on its search as well, and the sentence under the "
    "chart gives both counts. Bottom: the misses against t; dotted: the t from which every "
    "node stays on its exact side at every σ read. Drag the slider or press play: every t "
    "is read off one run of T iterations per σ (CG's iterates are nested), so nothing is "
    "computed while you scrub."
)


def _caption(state) -> str:
    """The binary caption, or the one-vs-all one for more than two classes."""
    default = ProblemSpec.__dataclass_fields__["classes"].default
    return (
        BINARY if len(tuple(state.cfg.get("classes", default))) == 2 else animation.CLASSES_CAPTION
    )


s = frame.page("CG iterations: watch the estimate converge", _caption, many_classes=True)
spec, settings = s.spec, s.settings
lo, hi = s.sigma


def _classes_view(spec, lo, hi, settings, view) -> None:
    """More than two classes (docs/method.md §13.8): Algorithm 4 one-vs-all at a few t."""
    steps = animation.class_steps(view.iterations, settings.cg_iters)

    def estimate(sp, a, b):  # the exact curve and one sweep per solver and t
        c = costs.loss_curve(sp, a, b, s.suggested)
        for t, sv in itertools.product(steps, ("cg", "pcg")):
            c += costs.sweep(sp, a, b, settings.with_solver(sv).replace(cg_iters=t), s.suggested)
        return c

    if caps.refuse(
        caps.over_cap("this view (the exact loss and the sweeps)", estimate, spec, lo, hi)
    ):
        return
    try:
        with progress.progress("Computing…", key=("converge_classes", spec, lo, hi, view)) as tick:
            cache.truth(
                spec, lo, hi, _progress=cache.scaled(tick, 0.0, 0.3, "the exact loss l(σ): ")
            )
            v = cache.class_convergence(
                spec,
                lo,
                hi,
                settings,
                view.iterations,
                _progress=cache.scaled(tick, 0.3, 1.0, "Algorithm 4 one-vs-all, "),
            )
    except (ValueError, TypeError, FileNotFoundError, MemoryError) as exc:
        st.error(widgets.readable(exc))
        return
    st.caption(animation.class_steps_words(v["result"]))
    widgets.chart(st, v["figure"], key="converge_chart")


if not spec.gaussian:
    st.info(
        f"The {spec.graph_family.label} family has no CG iterations to watch: pick a "
        "Gaussian family."
    )
    st.stop()
widgets.widget(st.columns([1, 3])[0], ConvergenceView, "iterations")
view = widgets.controls(ConvergenceView)
if len(cache.problem(spec).instance.classes) > 2:  # one-vs-all: a sweep per frame
    _classes_view(spec, lo, hi, settings, view)
    st.stop()


start = min(settings.cg_iters, view.iterations)  # the chart's opening t
at_start = {sv: settings.with_solver(sv).replace(cg_iters=start) for sv in ("cg", "pcg")}
points = widgets.controls(ConditionSettings).points  # the trust panels' one grid


def estimate(sp, a, b):  # the exact curve, the runs, Algorithm 4 at the opening t, trust
    c = costs.loss_curve(sp, a, b, s.suggested) + costs.convergence(sp, view.iterations)
    for sv_settings in at_start.values():
        c += costs.sweep(sp, a, b, sv_settings, s.suggested)
    return c + costs.trust(sp, points, start)


if caps.refuse(caps.over_cap("this view (the exact loss and the runs)", estimate, spec, lo, hi)):
    st.stop()
try:
    with progress.progress("Computing…", key=("converge", spec, lo, hi, view)) as tick:
        cache.truth(
            spec,
            lo,
            hi,
            _progress=cache.scaled(tick, 0.0, 0.6, f"the exact loss l(σ) on [{lo:g}, {hi:g}]: "),
        )
        tick(0.5, f"CG and Jacobi-PCG, t = 1..{view.iterations}, at every σ read…")
        v = cache.convergence_view(spec, lo, hi, view.iterations, settings.cg_iters)
        conv = v["result"]
        scores = {}
        for i, (sv, sv_settings) in enumerate(at_start.items()):
            tick(0.6 + 0.1 * i, f"Algorithm 4 with {sv_settings.label} (the loss page's)…")
            scoring = cache.scoring(spec, sv_settings, conv.breakpoints.size)
            scores[sv] = cache.scored(spec, lo, hi, sv_settings, scoring.max_attributed)
        trust = cache.trust(
            spec,
            lo,
            hi,
            "cg",
            start,
            points,
            _progress=cache.scaled(tick, 0.8, 1.0, "the trust panel's t needed: "),
        )
except (ValueError, TypeError, FileNotFoundError, MemoryError) as exc:
    st.error(widgets.readable(exc))
    st.stop()

comparisons = [compare_misses(conv, sv, start, sc) for sv, sc in scores.items()]
presenter.tour_facts(tours.convergence_facts(conv, start, comparisons, trust))
widgets.chart(st, v["figure"], key="converge_chart")
st.markdown(conv.reading(start, comparisons, trust))
st.caption(
    f"{conv.sigmas.size} σ read: {conv.breakpoints.size} breakpoints ∓ {conv.tol:g} (the "
    f"scoring tolerance), the middle of every exact piece and an even grid; "
    f"{conv.seconds:.2f} s for the runs. The chart "
    f"opens at the sidebar's t = {v['start']}."
    if v["start"] == settings.cg_iters
    else f"{conv.sigmas.size} σ read; the chart opens at t = {v['start']} (the sidebar's "
    f"t = {settings.cg_iters} is past T)."
)
with st.expander("Export", expanded=False):
    widgets.downloads("converge", {"convergence.json": export.dumps(v["document"])})
