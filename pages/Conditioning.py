"""Conditioning: √κ against σ per graph family (Figure 5), CG iterations and error, and
where t-iteration CG can be trusted (error against margin, t needed) per family."""

import pandas as pd
import streamlit as st

from sslviz import costs, export, plots, tours
from sslviz.cli import command_line
from sslviz.conditioning import TRUST_RULE, classes_words
from sslviz.specs import ConditionSettings, SigmaRange
from ui import cache, caps, frame, presenter, progress, url, widgets


def _caption(state) -> str:
    """The page's caption, naming the chosen model's system."""
    model = url.model_of(state.cfg)
    many = len(state.cfg.get("classes") or ()) > 2
    return (
        f"First chart: √κ of the {model.label} labeling's system {model.system_label} "
        "against σ, one panel per graph family: CG needs about √κ iterations, so where √κ "
        "is large t-iteration CG is inaccurate. Second chart: the CG iterations actually "
        "needed to reach the tolerance (left panel; an open triangle at the cap of 10 "
        "iterations per unknown: not reached, so more than that) and the error of "
        "t-iteration CG (right panel). Then one chart per family: where that error reaches "
        f"{_TRUST_WORDS[many]} (bottom panel; CG and Jacobi-PCG), on the same σ grid as the "
        "loss page's trust panel."
    )


# The caption's trust words for two classes and, one-vs-all, for more (docs/method.md §13.9).
_TRUST_WORDS = {
    False: "the smallest margin |f_u − ½| (top panel; shaded: CG-t cannot be trusted there) "
    "and the t that puts every node on its exact side of ½",
    True: "half the smallest top-two margin, a node's best exact score minus its second best "
    "(top panel; shaded: CG-t cannot be trusted there), and the t that gives every node its "
    "exact top class",
}


s = frame.page("Conditioning across σ (Figure 5)", _caption, many_classes=True)
cfg, spec = s.cfg, s.spec
lo, hi = s.sigma
c0, c1, c2 = st.columns([2, 1, 1])
widgets.widget(c0, ConditionSettings, "families")
widgets.widget(c1, ConditionSettings, "points")
widgets.widget(c2, ConditionSettings, "solver", radio=True)
try:
    settings = widgets.controls(ConditionSettings)
except (ValueError, TypeError) as exc:
    st.info(f"Pick at least one graph family. ({exc})")
    st.stop()
curves, trusts, docs, lines = {}, {}, {}, []
n_fam = len(settings.families)


def estimate(sp, a, b):  # one family's cost (condition and trust curves)
    return costs.condition(sp, settings) + costs.trust(sp, settings.points, settings.cg_iters)


with progress.progress(
    "Computing condition numbers…", key=("cond", spec, lo, hi, settings)
) as tick:
    for i, fam in enumerate(settings.families):
        try:
            spec_f = spec.replace(family=fam)
            errors = caps.cap_errors(spec_f)
            if errors:
                st.error(f"{fam}: " + " ".join(errors))
                continue
            if caps.refuse(
                caps.over_cap(
                    f"the {fam} graph's curves", estimate, spec_f, lo, hi, ("fewer σ points",)
                )
            ):
                continue
            curves[fam], seconds = cache.conditioning(
                spec_f,
                lo,
                hi,
                settings,
                _progress=cache.scaled(
                    tick, i / n_fam, (i + 0.5) / n_fam, f"{fam} graph, eigenvalues and CG runs: "
                ),
            )
            trusts[fam] = cache.trust(  # more than two classes: one-vs-all, §13.9
                spec_f,
                lo,
                hi,
                settings.solver,
                settings.cg_iters,
                settings.points,
                _progress=cache.scaled(
                    tick,
                    (i + 0.5) / n_fam,
                    (i + 1) / n_fam,
                    f"{fam} graph, where CG-t can be trusted: ",
                ),
            )
        except (ValueError, TypeError, FileNotFoundError) as exc:
            st.error(f"{fam}: {exc}")
            continue
        with_trust = settings.replace(trust=True)
        docs[f"condition_{fam}.json"] = export.download_text(
            export.condition_document(
                cache.problem(spec_f), curves[fam], with_trust, seconds, trusts.get(fam)
            )
        )
        lines.append(
            command_line(
                "condition", spec_f, SigmaRange(lo, hi), with_trust, out=f"condition_{fam}.json"
            )
        )
if not curves:
    st.stop()
if line := classes_words(next(iter(curves.values()))):
    st.caption(line)
presenter.tour_facts(tours.condition_facts(curves, trusts))
drawn = ("cond", spec, lo, hi, settings, tuple(curves))  # the settings the charts draw
widgets.chart(st, cache.figure(drawn, lambda: plots.condition_figure(curves)), key="cond_chart")
widgets.chart(
    st, cache.figure((*drawn, "cg"), lambda: plots.cg_figure(curves)), key="cond_cg_chart"
)
for fam, tc in trusts.items():
    widgets.chart(
        st,
        cache.figure(
            (*drawn, "trust", fam),
            lambda tc=tc, fam=fam: plots.trust_figure(tc, name=f"{fam} graph"),
        ),
        key=f"cond_trust_{fam}",
    )
    st.caption(f"{fam}: {tc.stated()}")
if trusts:
    tc = next(iter(trusts.values()))
    st.caption(getattr(tc, "rule", TRUST_RULE).format(label=tc.label, t=tc.cg_iters))

df = pd.concat([export.to_frame(c).assign(family=fam) for fam, c in curves.items()])
with st.expander("Table, export and the command lines", expanded=False):
    widgets.table(st, df)
    trust_csv = {
        f"trust_{f}.csv": export.to_frame(t).to_csv(index=False) for f, t in trusts.items()
    }
    widgets.downloads("cond", {"condition.csv": df.to_csv(index=False), **docs, **trust_csv})
    widgets.commands(*lines)
