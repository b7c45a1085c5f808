"""Conditioning: √κ against σ per graph family (Figure 5), CG iterations and error."""

import json
from dataclasses import replace

import pandas as pd
import streamlit as st

import app_cache
import app_state
from sslviz import plots

app_state.setup("Conditioning", "🧮")
s = app_state.sidebar()
st.title("Conditioning across σ (Figure 5)")
st.caption(
    "√κ of the harmonic system I − P_UU (or of Delalleau's A) against σ: CG needs about √κ "
    "iterations, so where √κ is large t-iteration CG is inaccurate. Right: the CG iterations "
    "actually needed to reach 10⁻⁶ relative residual, and the error of t-iteration CG."
)
if not s.show_errors():
    st.stop()
cfg, spec = s.cfg, s.spec
lo, hi = s.sigma
c0, c1, c2 = st.columns([2, 1, 1])
families = c0.multiselect(
    "Graph families",
    ["complete", "knn", "mutual-knn"],
    default=["complete", "knn"],
    key="cond_families",
    help="One panel per family, same instance (threshold graphs are unweighted: no σ).",
)
n_sigma = c1.slider("σ grid points", 5, 60, 15, key="cond_points")
solver = c2.radio(
    "CG variant",
    ["cg", "pcg"],
    key="cond_solver",
    horizontal=True,
    help="cg: plain CG; pcg: Jacobi-preconditioned CG.",
)
if not families:
    st.info("Pick at least one graph family.")
    st.stop()
curves = {}
bar = st.progress(0.0, text="Computing condition numbers…")
for i, fam in enumerate(families):
    problems = app_state.check({**cfg, "family": fam})
    if problems:
        st.error(f"{fam}: " + " ".join(problems))
        continue
    bar.progress(
        i / len(families), text=f"Eigenvalues and CG runs on {n_sigma} σ values ({fam} graph)…"
    )
    try:
        curves[fam] = app_cache.conditioning(
            replace(spec, family=fam), lo, hi, n_sigma, solver, cfg["t"]
        )
    except (ValueError, TypeError, FileNotFoundError) as exc:
        st.error(f"{fam}: {exc}")
bar.empty()
if not curves:
    st.stop()
st.plotly_chart(plots.condition_figure(curves), key="cond_chart")
st.plotly_chart(plots.cg_figure(curves), key="cond_cg_chart")

df = pd.concat(
    [
        pd.DataFrame(
            {
                "family": fam,
                "sigma": c.sigma,
                "kappa": c.kappa,
                "sqrt_kappa": c.kappa**0.5,
                "iterations_needed": c.iterations_needed,
                "cg_error": c.cg_error,
                "degenerate_nodes": c.degenerate,
            }
        )
        for fam, c in curves.items()
    ]
)
with st.expander("Table and export"):
    st.dataframe(df, hide_index=True)
    d0, d1 = st.columns(2)
    d0.download_button(
        "kappa.csv", df.to_csv(index=False), "kappa.csv", "text/csv", key="cond_dl_csv"
    )
    d1.download_button(
        "kappa.json",
        json.dumps({f: c.to_dict() for f, c in curves.items()}, indent=1),
        "kappa.json",
        "application/json",
        key="cond_dl_json",
    )
    fam0 = next(iter(curves))
    st.code(
        app_state.cli_command(
            "condition",
            {**cfg, "family": fam0},
            "--sigmas",
            f"{lo:g}:{hi:g}:{n_sigma}",
            "--solver",
            solver,
            "--cg-iters",
            str(cfg["t"]),
            "--out",
            "condition.json",
        ),
        language="bash",
    )
