"""Online regret: Exp3-Set learning σ over a stream of instances (Algorithm 1)."""

import streamlit as st

from sslviz import costs, export, plots
from sslviz.cli import command_line
from sslviz.experiment import classes_words
from sslviz.specs import GAUSSIAN_FAMILIES, RegretSettings, SigmaRange
from ui import cache, caps, frame, progress, url, widgets
from ui.views import RegretView

s = frame.page(
    "Online tuning of σ: regret (Algorithm 1)",
    (
        "Each round draws a new instance (same settings, new seed); the learner picks σ_t from its "
        "density, suffers l_t(σ_t) and updates on the feedback: approx = the interval Algorithm 4 "
        "finds around σ_t, exact = the true constant-loss interval, full = the whole approximate "
        "loss, uniform = no learning. Regret R_t is against the best fixed σ in hindsight. The "
        "sidebar's seed seeds the stream and the learners."
    ),
    many_classes=True,
)
spec, settings = s.spec, s.settings
lo, hi = s.sigma
if not spec.gaussian:
    st.error(f"Online regret needs a Gaussian family ({', '.join(GAUSSIAN_FAMILIES)}).")
    st.stop()
classes = cache.problem(spec).instance.classes
if line := classes_words(classes):
    st.caption(line)
c = st.columns([1, 1, 2, 1])
widgets.widget(c[0], RegretSettings, "rounds")
widgets.widget(c[1], RegretSettings, "repeats")
widgets.widget(c[2], RegretSettings, "feedback")
with st.expander("More settings (step size λ)"):
    widgets.more_controls(st, RegretSettings, "rounds", "repeats", "feedback")
try:
    regret = widgets.controls(RegretSettings, jobs=1)
except (ValueError, TypeError) as exc:
    st.info(
        "Pick at least one feedback model." if not s.cfg.get("feedback") else widgets.readable(exc)
    )
    st.stop()
key = cache.regret_key(spec, lo, hi, settings, regret)
exp = cache.REGRET_RUNS.get(key)  # this server ran these settings: shown at once
seconds = cache.regret_seconds(spec, settings, regret, (lo, hi), s.suggested)
auto = cache.regret_autoruns(spec, settings, regret, (lo, hi), s.suggested)  # small


def estimate(sp, a, b, r=regret):  # the experiment's cost at other settings
    return costs.regret(sp, a, b, settings, r, s.suggested)


one = estimate(spec, lo, hi, regret.replace(rounds=1, repeats=1)).seconds
fit = int(caps.MAX_SECONDS / max(one * regret.repeats, 1e-9))
fewer = (f"{fit} rounds",) if 1 <= fit < regret.rounds else ()
if exp is None and caps.refuse(
    caps.over_cap(f"{regret.repeats} × {regret.rounds} rounds", estimate, spec, lo, hi, fewer)
):
    st.stop()
pressed = c[3].button("Run the experiment", key="reg_run", type="primary")
place = None  # the regret chart's place, where it grows while its rounds arrive
if exp is None and (pressed or auto or progress.pending(("regret", key))):
    try:
        place, part = progress.streamed(
            f"Running {regret.repeats} × {regret.rounds} rounds (about {seconds:.0f} s)…",
            lambda tick: cache.regret_stream(spec, lo, hi, settings, regret),
            key=("regret", key),
            restart=pressed,
            kept=lambda: cache.REGRET_PARTS.get(key),
            figure=cache.partial_figure,
            chart_key="reg_chart",
        )
        exp = part.experiment
    except (ValueError, TypeError, FileNotFoundError) as exc:
        st.error(widgets.readable(exc))
if exp is None:
    st.info(
        f"Press **Run the experiment**: each round builds an instance and its exact loss, so "
        f"these settings take about {seconds:.0f} s ({regret.rounds} rounds × "
        f"{regret.repeats} repetitions at n = {spec.n}). Smaller settings run by themselves."
    )
    st.stop()
if all(float(m.regret_mean[-1]) == 0.0 for m in exp.models.values()):
    st.info(
        "Every model has zero regret: on this instance stream every σ in the range is "
        "as good as the best one (e.g. digits 0 vs 1 is separable). Try classes 3 vs 8, "
        "a complete graph or a wider σ range."
    )
final = cache.figure(("regret", key), lambda: plots.regret_figure(exp))
if place is None:
    widgets.chart(st, final, key="reg_chart")
else:
    place.draw(lambda: final, key="reg_chart", last=True)
st.caption(
    f"Coloured lines (each its own dash and markers): the mean cumulative regret R_t of each "
    f"feedback model over {exp.repeats} repetitions (left axis), "
    + (
        "with its 95% band. "
        if exp.repeats >= plots.BAND_REPEATS
        else f"without bands (drawn from {plots.BAND_REPEATS} repetitions on: with fewer, the "
        "interval of the mean is far wider than the lines). "
    )
    + plots.rate_words(exp)
)
left, right = st.columns(2)
widgets.chart(
    left,
    cache.figure(("average regret", key), lambda: plots.average_regret_figure(exp)),
    key="reg_avg_chart",
)
pick = widgets.widget(right, RegretView, "density_model", options=list(exp.models))
url.sync_url()  # the picker is drawn after the page's other controls
widgets.chart(
    right,
    cache.figure(("density", key, pick), lambda: plots.density_figure(exp.models[pick].runs[0])),
    key="reg_density_chart",
)
right.caption(
    f"The {pick} learner's probability density p_t(σ) over the σ range (x axis) in each "
    "round t (y axis, first repetition): bright colours mark the σ it is most likely to "
    "pick, dark ones the σ it has learned to avoid. White dots: the σ_t it actually played. "
    "A learner that learns concentrates on a bright band over the rounds; uniform stays flat."
)
st.caption(
    f"M (mean pieces of the true loss) = {exp.M:.2f}, step size λ = {exp.lr:.3g}, "
    f"R = {exp.R:.3g}; {regret.rounds} rounds × {regret.repeats} repetitions = "
    f"{regret.rounds * regret.repeats} instances, each with its exact and its approximate "
    f"loss curve (computed once for all {len(exp.models)} feedback models); "
    f"{exp.seconds:.1f} s wall on this server when it was computed (a busy server takes "
    "longer; the numbers are the same)."
)
with st.expander("Table, export and the command line"):
    widgets.table(st, export.regret_summary_frame(exp))
    doc = export.regret_document(spec, (lo, hi), settings, regret, exp, classes)
    widgets.downloads(
        "reg",
        {
            "regret.csv": export.to_frame(exp).to_csv(index=False),
            "regret.json": export.download_text(doc),
        },
    )
    widgets.commands(
        command_line(
            "regret", spec, SigmaRange(lo, hi), settings, regret.replace(jobs=-1), out="regret.json"
        )
    )
