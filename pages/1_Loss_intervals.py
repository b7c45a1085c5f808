"""Loss intervals: the exact l(σ) against Algorithm 4's intervals (Figure 3), and a node
drill-down (Figure 2)."""

from dataclasses import replace

import streamlit as st

import app_cache
import app_state
from sslviz import plots

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
cfg, spec, settings = s.cfg, s.spec, s.settings
lo, hi = s.sigma
threshold = spec.family == "threshold"
other_mode = "paper" if settings.mode == "fast" else "fast"
COMPARE = {
    "nothing": None,
    "CG t = 5": dict(solver="cg", cg_iters=5),
    "CG t = 50": dict(solver="cg", cg_iters=50),
    f"{other_mode} mode": dict(mode=other_mode),
    "exact solver": dict(solver="exact"),
}
choice = st.selectbox(
    "Compare with",
    list(COMPARE),
    key="li_compare",
    disabled=threshold,
    help="Overlay the intervals of a second setting (dotted orange).",
)
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
        if COMPARE[choice]:
            cmp_settings = replace(settings, **COMPARE[choice])
            with st.spinner(f"Running the comparison ({choice})…"):
                cmp_res = app_cache.intervals(spec, lo, hi, cmp_settings)
                cmp_sc = app_cache.scored(spec, lo, hi, cmp_settings)
    problem = app_cache.problem(spec)
except (ValueError, TypeError, FileNotFoundError) as exc:
    st.error(str(exc))
    st.stop()
rows = problem.rows(range(problem.model.n_unlabeled))
fig = plots.loss_intervals_figure(
    truth, res, score=sc, rows=rows, compare=cmp_res, compare_name=f"compare: {choice}"
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
            f"Compare ({choice}): M = {cmp_sc.M}, missed {cmp_sc.missed}, spurious "
            f"{cmp_sc.spurious}, ε-volume {cmp_sc.eps_volume:.3g}, "
            f"{1e3 * cmp_res.time_per_interval:.1f} ms per interval, {cmp_res.solves} "
            "solves."
        )

tables = app_cache.interval_tables(spec, lo, hi, None if threshold else settings)
t1, t2, t3, t4 = st.tabs(["Estimated intervals", "Missed breakpoints", "True loss", "Export"])
t1.dataframe(tables["intervals"], hide_index=True)
if sc is None:
    t2.info("No estimate to score.")
elif tables["misses"].empty:
    t2.success("No true breakpoint missed.")
else:
    t2.dataframe(tables["misses"], hide_index=True)
t3.dataframe(tables["true loss"], hide_index=True)
with t4:
    files = {
        "true_loss.csv": tables["true loss"].to_csv(index=False),
        "true_loss.json": tables["true_loss.json"],
    }
    if not threshold:
        files |= {
            "intervals.csv": tables["intervals"].to_csv(index=False),
            "intervals.json": tables["intervals.json"],
        }
    app_state.downloads("li", files)
    st.caption("Reproduce on the command line (node numbers there are instance rows):")
    cmd = (
        ["loss", "--out", "loss.json"]
        if threshold
        else ["intervals", "--score", "--out", "intervals.json"]
    )
    st.code(app_state.cli_command(*cmd[:1], cfg, *cmd[1:]), language="bash")  # fmt: skip

if threshold:
    st.stop()
st.subheader("Drill-down: one node's soft label (Figure 2)")
missed_nodes = [int(u) for _, nd in sc.misses for u in nd]
order = list(dict.fromkeys(missed_nodes + list(range(problem.model.n_unlabeled))))
c0, c1 = st.columns(2)
u = c0.selectbox(
    "Unlabeled node u",
    order,
    key="li_node",
    format_func=lambda x: f"{x} (row {rows[x]})" + (" — missed" if x in missed_nodes else ""),
    help="Nodes behind missed breakpoints come first.",
)
node_bps = [b for b, nd in zip(truth.breakpoints, truth.nodes, strict=True) if u in set(nd)]
default0 = max(lo, node_bps[0] - 0.25 * (hi - lo)) if node_bps else lo + 0.25 * (hi - lo)
sigma0 = c1.number_input(
    "start σ0 of the iterations",
    lo,
    hi,
    float(round(default0, 4)),
    key=f"li_sigma0_{u}",
    format="%.4g",
    help="Algorithm 4 starts node u's iteration here.",
)
try:
    with st.spinner(f"Evaluating f_u(σ) for node {u} and running the three step rules…"):
        curves = app_cache.node_curves(spec, lo, hi, settings, u)
        tr = app_cache.node_traces(spec, lo, hi, settings, u, float(sigma0))
except (ValueError, TypeError) as exc:
    st.error(str(exc))
    st.stop()
st.plotly_chart(
    plots.soft_label_figure(
        curves["sigma"],
        curves["f"],
        u=u,
        f_exact=curves["f_exact"],
        traces={r: its for r, (its, _) in tr.items()},
        breakpoints=node_bps,
    ),
    key="li_node_chart",
)
st.caption(
    " · ".join(
        f"{r}: {len(its)} iterates, root " + (f"{root:.5g}" if root is not None else "none")
        for r, (its, root) in tr.items()
    )
)
