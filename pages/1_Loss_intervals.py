"""Loss intervals: the exact l(σ) against Algorithm 4's intervals (Figure 3), and a node
drill-down (Figure 2)."""

from dataclasses import replace

import streamlit as st

import app_cache
import app_state
from sslviz import export, plots
from sslviz.cli import command_line
from sslviz.specs import LossView, ScoreSettings, SigmaRange

app_state.setup("Loss intervals", "📉")
s = app_state.sidebar()
st.title("Constant-loss intervals (Figure 3)")
st.caption(
    "Black: the exact loss l(σ), the fraction of U misclassified, a step function of σ. "
    "Blue segments: the intervals Algorithm 4 estimates, at their estimated loss (hover for the "
    "endpoints and the node that set each one). Red ×: true breakpoints no estimated endpoint "
    "lies within 10⁻³ of. Grey bands: σ where some unlabeled nodes are cut off from L."
)
if not s.show_errors():
    st.stop()
spec, settings = s.spec, s.settings
lo, hi = s.sigma
threshold = not spec.gaussian
other_mode = "paper" if settings.mode == "fast" else "fast"
COMPARE = {
    "nothing": None,
    "CG t = 5": dict(solver="cg", cg_iters=5),
    "CG t = 50": dict(solver="cg", cg_iters=50),
    "other mode": dict(mode=other_mode),
    "exact solver": dict(solver="exact"),
}
app_state.widget(st, LossView, "compare", disabled=threshold,
                 format_func=lambda c: f"{other_mode} mode" if c == "other mode" else c)
view = app_state.controls(LossView)
try:
    with st.spinner(f"Computing the exact loss l(σ) on [{lo:g}, {hi:g}]…"):
        truth = app_cache.truth(spec, lo, hi)
    res = sc = cmp_res = None
    if not threshold:
        with st.spinner(
            f"Running Algorithm 4 ({settings.mode} mode, {settings.solver}, "
            f"t = {settings.cg_iters})…"
        ):
            res = app_cache.intervals(spec, lo, hi, settings)
            sc = app_cache.scored(spec, lo, hi, settings)
        if COMPARE[view.compare]:
            cmp_settings = replace(settings, **COMPARE[view.compare])
            with st.spinner(f"Running the comparison ({view.compare})…"):
                cmp_res = app_cache.intervals(spec, lo, hi, cmp_settings)
                cmp_sc = app_cache.scored(spec, lo, hi, cmp_settings)
    problem = app_cache.problem(spec)
except (ValueError, TypeError, FileNotFoundError) as exc:
    st.error(str(exc))
    st.stop()
rows = problem.rows(range(problem.model.n_unlabeled))
fig = plots.loss_intervals_figure(
    truth, res, score=sc, rows=rows, compare=cmp_res, compare_name=f"compare: {view.compare}"
)
st.plotly_chart(fig, key="li_chart")

if threshold:
    st.info(
        "The threshold family's loss over r is exact (it only changes at edge lengths); "
        "Algorithm 4 needs a Gaussian family."
    )
else:
    app_state.metrics({
        "intervals M": sc.M, "true breakpoints": sc.true_breakpoints, "missed": sc.missed,
        "spurious endpoints": sc.spurious, "ε-volume": f"{sc.eps_volume:.3g}",
        "time per interval": f"{1e3 * res.time_per_interval:.1f} ms", "solves": res.solves,
    })  # fmt: skip
    if cmp_res is not None:
        st.caption(
            f"Compare ({view.compare}): M = {cmp_sc.M}, missed {cmp_sc.missed}, spurious "
            f"{cmp_sc.spurious}, ε-volume {cmp_sc.eps_volume:.3g}, "
            f"{1e3 * cmp_res.time_per_interval:.1f} ms per interval, {cmp_res.solves} solves."
        )

rng = SigmaRange(lo, hi)
t1, t2, t3, t4 = st.tabs(["Estimated intervals", "Missed breakpoints", "True loss", "Export"])
t3.dataframe(export.to_frame(truth, problem), hide_index=True)
files = {"true_loss.csv": export.to_frame(truth, problem).to_csv(index=False),
         "true_loss.json": app_cache.loss_json(spec, lo, hi)}  # fmt: skip
lines = [command_line("loss", spec, rng, out="true_loss.json")]
if sc is None:
    t1.info("No estimate: Algorithm 4 needs a Gaussian family.")
    t2.info("No estimate to score.")
else:
    t1.dataframe(export.to_frame(res, problem), hide_index=True)
    if sc.misses:
        t2.dataframe(export.to_frame(sc, problem), hide_index=True)
    else:
        t2.success("No true breakpoint missed.")
    files |= {"intervals.csv": export.to_frame(res, problem).to_csv(index=False),
              "intervals.json": app_cache.intervals_json(spec, lo, hi, settings)}  # fmt: skip
    lines.append(command_line("intervals", spec, rng, settings, ScoreSettings(score=True),
                              out="intervals.json"))  # fmt: skip
    if cmp_res is not None:
        lines.append(command_line("intervals", spec, rng, cmp_settings,
                                  ScoreSettings(score=True), out="compare.json"))  # fmt: skip
with t4:
    app_state.downloads("li", files)
    app_state.commands(*lines)

if threshold:
    st.stop()
st.subheader("Drill-down: one node's soft label (Figure 2)")
missed_rows = [r for _, nd in sc.misses for r in problem.rows(nd)]
order = list(dict.fromkeys(missed_rows + rows))
u_of_row = {r: u for u, r in enumerate(rows)}


def _node_changed() -> None:  # a new node starts from its own default σ0
    st.session_state["cfg"]["sigma0"] = None
    st.session_state.pop("w_sigma0", None)


c0, c1 = st.columns(2)
app_state.widget(c0, LossView, "node", options=order, on_change=_node_changed,
                 format_func=lambda r: f"row {r}" + (" — missed" if r in missed_rows else ""))
row = st.session_state["cfg"]["node"]
u = u_of_row[row]
node_bps = [b for b, nd in zip(truth.breakpoints, truth.nodes, strict=True) if u in set(nd)]
sigma0 = st.session_state["cfg"].get("sigma0")
if sigma0 is None or not lo <= sigma0 <= hi:
    start = max(lo, node_bps[0] - 0.25 * (hi - lo)) if node_bps else lo + 0.25 * (hi - lo)
    st.session_state["cfg"]["sigma0"] = float(f"{start:.4g}")
    st.session_state.pop("w_sigma0", None)
app_state.widget(c1, LossView, "sigma0")
view = app_state.controls(LossView)
sigma0 = min(max(view.sigma0, lo), hi)
try:
    with st.spinner(f"Evaluating f_u(σ) for row {row} and running the three step rules…"):
        curves = app_cache.node_curves(spec, lo, hi, settings, u)
        tr = app_cache.node_traces(spec, lo, hi, settings, u, float(sigma0))
except (ValueError, TypeError) as exc:
    st.error(str(exc))
    st.stop()
st.plotly_chart(
    plots.soft_label_figure(
        curves["sigma"], curves["f"], u=f"row {row}", f_exact=curves["f_exact"],
        traces={r: its for r, (its, _) in tr.items()}, breakpoints=node_bps,
    ),
    key="li_node_chart",
)  # fmt: skip
st.caption(
    " · ".join(
        f"{r}: {len(its)} iterates, root " + (f"{root:.5g}" if root is not None else "none")
        for r, (its, root) in tr.items()
    )
)
