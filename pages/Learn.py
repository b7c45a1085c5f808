"""Learn from instances: σ (and k) learned by exact ERM over many instances drawn from one
domain, measured on held-out instances (the paper's §2 and §4, docs/method.md §10)."""

import streamlit as st

from sslviz import costs, export, families, plots
from sslviz.cli import command_line
from sslviz.learn import classes_words, compared, readings
from sslviz.specs import LearnSettings, SigmaRange
from ui import cache, caps, frame, progress, widgets

s = frame.page(
    "Learning σ from many instances (paper §2 and §4)",
    "Each instance is a fresh draw from the domain in the sidebar (same dataset, classes, "
    "n, |L| and graph; new points and labeled nodes per seed). Its loss l_i(σ) is exact and "
    "piecewise constant, so the training average, its ERM set (every σ interval where the "
    "average is smallest), σ̂ and its loss on held-out instances are exact too.",
    many_classes=True,
)
spec = s.spec
lo, hi = s.sigma
if spec.data_file is not None:
    st.info(
        "Learning needs a domain to draw instances from: pick a dataset in the sidebar. "
        "For your own instances, one file each, use the command line: `sslviz learn "
        "--data-file A.npz --data-file B.npz … --test-file C.npz`."
    )
    st.stop()
c = st.columns([1, 1, 2])
widgets.widget(c[0], LearnSettings, "instances", high=64)
widgets.widget(c[1], LearnSettings, "test_instances", high=64)
widgets.widget(c[2], LearnSettings, "curve")
with st.expander("More settings: k range, the learner, compared t, curve repetitions"):
    widgets.more_controls(
        st, LearnSettings, "instances", "test_instances", "curve", "cg_iters", "mode"
    )  # t and mode: the sidebar's (shared rows)
try:
    settings = widgets.controls(LearnSettings, jobs=1)
except (ValueError, TypeError) as exc:
    st.error(widgets.readable(exc))
    st.stop()
if settings.k_values is not None and not spec.graph_family.learns_k:
    st.error(
        f"A k range needs the {families.named(lambda f: f.learns_k)} family (sidebar); clear "
        "the k range or switch the family."
    )
    st.stop()
classes = cache.problem(spec).instance.classes
if line := classes_words(classes):
    st.caption(line)
approx = compared(settings) if spec.gaussian else ()
key = (spec, lo, hi, settings, approx)
result = cache.LEARN_RUNS.get(key)


def estimate(sp, a, b):  # the whole run's cost at other settings
    return costs.learn(sp, a, b, settings, approx, s.suggested)


if result is None and caps.refuse(
    caps.over_cap(
        f"{settings.instances} + {settings.test_instances} instances",
        estimate,
        spec,
        lo,
        hi,
        ("fewer instances",),
    )
):
    st.stop()
place = None  # the first chart's place, where it grows while the instances arrive
if result is None:
    try:
        place, part = progress.streamed(
            "Computing every instance's exact loss…",
            lambda tick: cache.learn_stream(spec, lo, hi, settings, approx, progress=tick),
            key=("learn", key),
            kept=lambda: cache.LEARN_PARTS.get(key),
            figure=lambda part: cache.titled(plots.learn_figure(part.result), part.status()),
            chart_key="learn_chart",
        )
        result = part.result
    except (ValueError, TypeError, FileNotFoundError) as exc:
        st.error(widgets.readable(exc))
        st.stop()
said = readings(result)
final = cache.figure(("learn", key), lambda: plots.learn_figure(result))
if place is None:
    widgets.chart(st, final, key="learn_chart")
else:
    place.draw(lambda: final, key="learn_chart", last=True)
st.caption(said["erm"])
if result.curve is not None and "curve" in said:
    widgets.chart(
        st,
        cache.figure(("learning curve", key), lambda: plots.learning_curve_figure(result.curve)),
        key="learn_curve_chart",
    )
    st.caption(said["curve"])
if result.grid:
    widgets.chart(
        st,
        cache.figure(("k sigma", key), lambda: plots.k_sigma_figure(result)),
        key="learn_k_chart",
    )
    st.caption(said["grid"])
if result.approximate and "approximate" in said:
    st.subheader("ERM on Algorithm 4's estimates")
    widgets.table(st, export.learn_frame(result))
    st.caption(said["approximate"])
with st.expander("Export and the command line"):
    doc = export.learn_document(result, spec, settings, classes=classes)
    widgets.downloads("learn", {"learn.json": export.download_text(doc)})
    widgets.commands(
        command_line("learn", spec, SigmaRange(lo, hi), settings.replace(jobs=-1), out="learn.json")
    )
