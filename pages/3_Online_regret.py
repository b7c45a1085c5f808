"""Online regret: Exp3-Set learning σ over a stream of instances (Algorithm 1)."""

import json

import pandas as pd
import streamlit as st

import app_cache
import app_state
from sslviz import plots

MODELS = ["approx", "exact", "full", "uniform"]

app_state.setup("Online regret", "🎲")
s = app_state.sidebar()
st.title("Online tuning of σ: regret (Algorithm 1)")
st.caption(
    "Each round draws a new instance (same settings, new seed); the learner picks σ_t from its "
    "density, suffers l_t(σ_t) and updates on the feedback: approx = the interval Algorithm 4 "
    "finds around σ_t, exact = the true constant-loss interval, full = the whole approximate "
    "loss, uniform = no learning. Regret R_t is against the best fixed σ in hindsight."
)
if not s.show_errors():
    st.stop()
cfg, spec, settings = s.cfg, s.spec, s.settings
lo, hi = s.sigma
if spec.family == "threshold":
    st.error("Online regret needs a Gaussian family (complete, knn, mutual-knn).")
    st.stop()
c = st.columns([1, 1, 2, 1])
rounds = c[0].number_input(
    "rounds T",
    1,
    app_state.MAX_ROUNDS,
    20,
    key="reg_rounds",
    help=f"Instances in the stream (≤ {app_state.MAX_ROUNDS}).",
)
repeats = c[1].number_input(
    "repetitions",
    1,
    app_state.MAX_REPEATS,
    2,
    key="reg_repeats",
    help="Independent runs; the band is a 95% interval of the mean.",
)
models = c[2].multiselect("feedback models", MODELS, default=MODELS, key="reg_models")
seed = c[3].number_input("seed", 0, 2**31 - 1, 0, key="reg_seed")
if not models:
    st.info("Pick at least one feedback model.")
    st.stop()
key = (spec, lo, hi, settings, int(rounds), int(repeats), tuple(models), int(seed))
if st.button("Run the experiment", key="reg_run", type="primary"):
    bar = st.progress(0.0, text=f"Running {repeats} repetitions of {rounds} rounds…")

    def tick(done, total):
        bar.progress(done / total, text=f"repetition {done}/{total} done")

    try:
        st.session_state["reg_result"] = (key, app_cache.regret(*key, _progress=tick))
    except (ValueError, TypeError, FileNotFoundError) as exc:
        st.error(str(exc))
    bar.empty()
stored = st.session_state.get("reg_result")
if stored is None:
    st.info(
        "Press **Run the experiment**: each round builds an instance and its exact loss, "
        "so this takes about a second per round and repetition at n = 100."
    )
    st.stop()
if stored[0] != key:
    st.warning("The settings changed since this run; press the button to rerun.")
exp = stored[1]
if all(float(m.regret_mean[-1]) == 0.0 for m in exp.models.values()):
    st.info(
        "Every model has zero regret: on this instance stream every σ in the range is "
        "as good as the best one (e.g. digits 0 vs 1 is separable). Try classes 3 vs 8, "
        "a complete graph or a wider σ range."
    )
st.plotly_chart(plots.regret_figure(exp), key="reg_chart")
left, right = st.columns(2)
left.plotly_chart(plots.average_regret_figure(exp), key="reg_avg_chart")
pick = right.selectbox("density of model", list(exp.models), key="reg_density_model")
right.plotly_chart(plots.density_figure(exp.models[pick].runs[0]), key="reg_density_chart")
st.caption(
    f"M (mean pieces of the true loss) = {exp.M:.2f}, step size λ = {exp.lr:.3g}, "
    f"R = {exp.R:.3g}, {exp.seconds:.1f} s in total."
)

rows = [
    {
        "model": name,
        "round": t + 1,
        "regret_mean": m.regret_mean[t],
        "regret_low": m.regret_low[t],
        "regret_high": m.regret_high[t],
        "rate": m.rate[t],
    }
    for name, m in exp.models.items()
    for t in range(exp.rounds)
]
df = pd.DataFrame(rows)
with st.expander("Table and export"):
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "model": n,
                    "final regret": m.regret_mean[-1],
                    "best σ range": f"[{m.best_sigma[0]:.4g}, {m.best_sigma[1]:.4g}]",
                    "λ": m.lr,
                    "seconds": m.seconds,
                }
                for n, m in exp.models.items()
            ]
        ),
        hide_index=True,
    )
    d0, d1 = st.columns(2)
    d0.download_button(
        "regret.csv", df.to_csv(index=False), "regret.csv", "text/csv", key="reg_dl_csv"
    )
    d1.download_button(
        "regret.json",
        json.dumps(exp.to_dict(), indent=1),
        "regret.json",
        "application/json",
        key="reg_dl_json",
    )
    st.code(
        app_state.cli_command(
            "regret",
            cfg,
            "--rounds",
            str(rounds),
            "--repeats",
            str(repeats),
            "--feedback",
            ",".join(models),
            "--out",
            "regret.json",
        ),
        language="bash",
    )
