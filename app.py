"""sslviz explorer: home page (run with ``streamlit run app.py``)."""

import streamlit as st

import app_cache
import app_state
from sslviz import plots

app_state.setup("Home", "🏠")
s = app_state.sidebar()

st.title("sslviz: learning the graph for semi-supervised learning")
st.markdown(
    "Graph-based semi-supervised learning labels the unlabeled points U from a few labeled "
    "ones L through a graph whose Gaussian bandwidth **σ** matters a lot. The loss l(σ) is "
    "piecewise constant. This app shows where its pieces are, how well Algorithm 4 (with "
    "t-iteration CG) finds them, how conditioning changes with σ, and how an online learner "
    "(Exp3-Set) tunes σ over many instances. Settings are in the sidebar and in the URL: "
    "copy the link to share this exact view."
)

cols = st.columns(4)
cols[0].page_link(
    "pages/1_Loss_intervals.py", label="Loss intervals (Figure 3)", icon=":material/show_chart:"
)
cols[1].page_link(
    "pages/2_Conditioning.py", label="Conditioning (Figure 5)", icon=":material/functions:"
)
cols[2].page_link("pages/3_Online_regret.py", label="Online regret", icon=":material/casino:")
cols[3].page_link("pages/4_Speed.py", label="Speed (Table 1)", icon=":material/timer:")

if s.show_errors():
    try:
        with st.spinner("Building the instance and its graph…"):
            info = app_cache.summary(s.spec)
    except (ValueError, TypeError, FileNotFoundError) as exc:
        st.error(str(exc))
        st.stop()
    st.subheader("The instance")
    m = st.columns(6)
    m[0].metric("n", info["n"])
    m[1].metric("|L| / |U|", f"{info['labeled']} / {info['unlabeled']}")
    m[2].metric(
        "class c1 share",
        f"{info['class1_fraction']:.0%}",
        help=f"Labeled: {info['labeled_class0']} × c0, {info['labeled_class1']} × c1",
    )
    m[3].metric("graph edges", f"{info['edges']:,}")
    m[4].metric("degree range", f"{info['degree_min']}–{info['degree_max']}")
    m[5].metric("connected components", info["components"])
    ds = app_cache.dataset(s.spec.dataset, s.spec.data_file)
    names = [ds.class_names.get(c, str(c)) for c in s.spec.classes]
    left, right = st.columns(2)
    if ds.image_shape is not None:
        imgs = app_cache.samples(s.spec.dataset, s.spec.data_file, s.spec.classes)
        left.plotly_chart(plots.samples_figure(imgs, names, ds.image_shape), key="home_samples")
    else:
        left.info("The uploaded file has no image shape, so no sample images are shown.")
    right.plotly_chart(
        plots.instance_figure(info["X2"], info["y"], info["is_labeled"], names), key="home_instance"
    )
    st.caption(
        f"Suggested σ range for this instance: [{s.suggested[0]:g}, {s.suggested[1]:g}] "
        "(PCA-space distance units)."
    )
