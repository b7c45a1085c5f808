"""Speed: Table 1 live — time per interval for CG vs matrix inverse, complete vs kNN."""

import json
from dataclasses import replace

import pandas as pd
import streamlit as st

import app_cache
import app_state
from sslviz import plots

app_state.setup("Speed", "⏱️")
s = app_state.sidebar()
st.title("Speed: CG vs matrix inverse (Table 1)")
st.caption(
    "Time per estimated interval and the number of intervals M, for t-iteration CG and the "
    "matrix inverse, on the complete and the kNN graph, at sizes you pick. Uses the sidebar's "
    "instance, σ range and Algorithm 4 mode; each configuration is cached."
)
if not s.show_errors():
    st.stop()
cfg, spec, settings = s.cfg, s.spec, s.settings
lo, hi = s.sigma
cap = min(app_state.MAX_N, 1000)
c = st.columns(3)
sizes = c[0].multiselect(
    "sizes n",
    [50, 100, 200, 300, 500, 1000],
    default=[100],
    key="speed_sizes",
    help=f"Bounded to n ≤ {cap}.",
)
families = c[1].multiselect(
    "graphs", ["complete", "knn"], default=["complete", "knn"], key="speed_families"
)
solvers = c[2].multiselect(
    "solvers", ["cg", "inverse", "pcg", "exact"], default=["cg", "inverse"], key="speed_solvers"
)
configs = [(n, f, sv) for n in sorted(sizes) for f in families for sv in solvers if n <= cap]
if not configs:
    st.info("Pick at least one size, graph and solver.")
    st.stop()
if st.button(f"Run {len(configs)} configurations", key="speed_run", type="primary"):
    bar = st.progress(0.0)
    rows = []
    for i, (n, fam, sv) in enumerate(configs):
        bar.progress(i / len(configs), text=f"n = {n}, {fam} graph, {sv} solver…")
        cfg_i = {**cfg, "n": n, "family": fam, "labeled": min(cfg["labeled"], n - 1)}
        problems = app_state.check({**cfg_i, "k": min(cfg["k"], n - 1)})
        if problems:
            st.error(f"n = {n}, {fam}: " + " ".join(problems))
            continue
        try:
            spec_i = replace(
                spec, n=n, family=fam, n_labeled=cfg_i["labeled"], k=min(spec.k, n - 1)
            )
            row = app_cache.speed_row(spec_i, lo, hi, replace(settings, solver=sv))
            rows.append({"config": f"{fam} / {sv}", **row})
        except (ValueError, TypeError, FileNotFoundError) as exc:
            st.error(f"n = {n}, {fam}, {sv}: {exc}")
    bar.empty()
    st.session_state["speed_rows"] = rows
rows = st.session_state.get("speed_rows")
if not rows:
    st.info("Press the button to time the configurations.")
    st.stop()
st.plotly_chart(plots.speed_figure(rows), key="speed_chart")
df = pd.DataFrame(rows)[["n", "family", "solver", "M", "time_per_interval", "seconds", "solves"]]
st.dataframe(
    df.rename(columns={"time_per_interval": "s per interval", "seconds": "s total"}),
    hide_index=True,
)
d0, d1 = st.columns(2)
d0.download_button("speed.csv", df.to_csv(index=False), "speed.csv", "text/csv", key="speed_csv")
d1.download_button(
    "speed.json", json.dumps(rows, indent=1), "speed.json", "application/json", key="speed_json"
)
st.code(
    app_state.cli_command("intervals", {**cfg, "solver": solvers[0]}, "--out", "intervals.json"),
    language="bash",
)
