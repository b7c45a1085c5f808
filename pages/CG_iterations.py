"""CG iterations: the estimate l̃_t(σ) of CG and Jacobi-PCG for every t ≤ T against the exact
loss, scrubbed in the browser (issue 29's t-scrubber)."""

import streamlit as st

from sslviz import costs, export, tours
from sslviz.specs import ConvergenceView
from ui import cache, caps, frame, presenter, progress, widgets

s = frame.page(
    "CG iterations: watch the estimate converge",
    "Black: the exact loss l(σ). Blue (CG) and dashed orange (Jacobi-PCG): the loss "
    "l̃_t(σ) that t iterations give, the one Algorithm 4 estimates with t iterations. Markers: "
    "the true breakpoints missed at t, where a node that flips there is on its wrong side "
    "just left or right of it (within the scoring tolerance). Bottom: the misses against t; "
    "dotted: the t from which every node is on its exact side at every σ read. Drag the "
    "slider or press play: every t is read off one run of T iterations per σ (CG's iterates "
    "are nested), so nothing is computed while you scrub.",
)
spec, settings = s.spec, s.settings
lo, hi = s.sigma
if not spec.gaussian:
    st.info("The threshold family has no CG iterations to watch: pick a Gaussian family.")
    st.stop()
widgets.widget(st.columns([1, 3])[0], ConvergenceView, "iterations")
view = widgets.controls(ConvergenceView)


def estimate(sp, a, b):  # the exact curve and the runs
    return costs.loss_curve(sp, a, b, s.suggested) + costs.convergence(sp, view.iterations)


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
        tick(0.6, f"CG and Jacobi-PCG, t = 1..{view.iterations}, at every σ read…")
        v = cache.convergence_view(spec, lo, hi, view.iterations, settings.cg_iters)
except (ValueError, TypeError, FileNotFoundError, MemoryError) as exc:
    st.error(widgets.readable(exc))
    st.stop()

conv = v["result"]
presenter.tour_facts(tours.convergence_facts(conv, v["start"]))
widgets.chart(st, v["figure"], key="converge_chart")
st.markdown(conv.reading(v["start"]))
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
