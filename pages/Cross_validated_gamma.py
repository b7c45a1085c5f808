"""Cross-validated γ: the exact transductive cross-validated accuracy over scikit-learn's RBF
γ = 1/σ² (or σ), each fold's faintly, the best γ marked with its widest interval; it
reproduces as ExactGammaSearchCV in Python and as ``sslviz cv``."""

import streamlit as st

from sslviz import api, export, plots
from sslviz.cli import command_line
from sslviz.specs import SigmaRange
from ui import cache, caps, frame, progress, widgets
from ui.views import CVView

s = frame.page(
    "Cross-validated γ (scikit-learn's RBF gamma)",
    "The instance's labeled points are split into folds; for each fold its labels are "
    "hidden, the model is fit on every point with the other labels, and the fold's points "
    "are scored. Each fold's accuracy is piecewise constant in γ = 1/σ², and so is their "
    "mean, the cross-validated accuracy: every breakpoint here is exact, where a grid over "
    "γ can step over a narrow piece. The unlabeled points' labels are never read.",
    many_classes=True,
    unknown_labels=True,
)
spec = s.spec
lo, hi = s.sigma
c0, c1 = st.columns([1, 1])
widgets.widget(c0, CVView, "folds")
widgets.widget(c1, CVView, "axis", radio=True)
try:
    view = widgets.controls(CVView)
except (ValueError, TypeError) as exc:
    st.error(widgets.readable(exc))
    st.stop()
if not spec.gaussian:
    st.info(
        f"γ is the bandwidth of a Gaussian graph, and the {spec.family} family has none: "
        "pick the complete graph (scikit-learn's RBF kernel) or a kNN family in the sidebar."
    )
    st.stop()
errors = caps.cap_errors(spec)
if errors:
    st.error(" ".join(errors))
    st.stop()
try:
    with progress.progress(
        f"Searching the {view.folds} folds' exact curves…", key=("cv", spec, lo, hi, view.folds)
    ):
        search = cache.cv_search(spec, lo, hi, view.folds)
except (ValueError, TypeError) as exc:
    st.error(widgets.readable(exc))
    st.stop()
doc = search.document(export.settings_dict(spec, sigma_min=lo, sigma_max=hi, cv=view.folds))
widgets.chart(
    st,
    cache.figure(("cv", spec, lo, hi, view), lambda: plots.cv_figure(search, axis=view.axis)),
    key="cv_chart",
)
for line in api.cv_summary(doc):
    st.caption(line)
with st.expander("Export, Python and the command line", expanded=True):
    widgets.downloads("cv", {"cv.json": export.download_text(doc)})
    snippet = api.sklearn_snippet(spec, search.gamma_range, view.folds)
    if snippet is None:
        st.caption(
            f"scikit-learn has no estimator for the {spec.labeling} model on the {spec.family} "
            "graph (its RBF kernel is the complete graph, with its label spreading or label "
            "propagation estimator): the command line reproduces this view."
        )
    else:
        st.caption("Reproduce in Python, with scikit-learn's estimator:")
        st.code(snippet, language="python")
    widgets.commands(
        command_line("cv", spec, SigmaRange(lo, hi), extra=("--cv", str(view.folds)), out="cv.json")
    )
