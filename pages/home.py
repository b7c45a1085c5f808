"""Home page: what the app shows, the gallery of guided tours, and the current instance."""

import streamlit as st

from sslviz import plots, tours
from ui import cache, frame, nav, presenter, progress, widgets

s = frame.page(
    "sslviz: learning the graph for semi-supervised learning",
    stop_on_errors=False,
    many_classes=True,
)  # the tours are shown whatever the settings
st.markdown(
    "Graph-based semi-supervised learning labels the unlabeled points U from a few labeled "
    "ones L through a graph whose Gaussian bandwidth **σ** matters a lot. The loss l(σ) is "
    "piecewise constant. This app shows where its pieces are, how well Algorithm 4 (with "
    "t-iteration CG) finds them, how conditioning changes with σ, and how an online learner "
    "(Exp3-Set) tunes σ over many instances. Settings are in the sidebar and in the URL: "
    "copy the link to share this exact view."
)

widgets.plugin_warnings(st)  # a plug-in left out: said here and under the pickers

first = tours.TOURS[0]
st.button(
    f"Start here: {first.title}",
    key="w_start_here",
    type="primary",
    icon=":material/play_arrow:",
    on_click=presenter.request_tour,
    args=(first.id,),
    help="The first guided tour; each ends with a button to the next.",
)


def instance_section() -> None:
    """The instance: its counts, sample images and points (an error instead when the
    settings cannot build it; the tours below are shown either way)."""
    if not s.show_errors():
        return
    try:
        with progress.progress("Building the instance and its graph…", key=("summary", s.spec)):
            info = cache.summary(s.spec)
    except (ValueError, TypeError, FileNotFoundError) as exc:
        st.error(widgets.readable(exc))
        return
    st.subheader("The instance")
    m = st.columns(6)
    m[0].metric("n", f"{info['n']:,}")
    m[1].metric("|L| / |U|", f"{info['labeled']:,} / {info['unlabeled']:,}")
    m[2].metric(
        "class c1 share",
        f"{info['class1_fraction']:.0%}",
        help=f"Labeled: {info['labeled_class0']} × c0, {info['labeled_class1']} × c1",
    )
    m[3].metric("graph edges", f"{info['edges']:,}")
    m[4].metric("degree range", f"{info['degree_min']}–{info['degree_max']}")
    m[5].metric("connected components", info["components"])
    ds = cache.dataset(s.spec.dataset, s.spec.data_file)
    names = [ds.class_names.get(c, str(c)) for c in s.spec.classes]
    left, right = st.columns(2)
    if ds.image_shape is not None:
        imgs = cache.samples(s.spec.dataset, s.spec.data_file, s.spec.classes)
        samples = cache.figure(  # built once: a rerun draws the cached dict
            ("home samples", s.spec.dataset, s.spec.data_file, s.spec.classes),
            lambda: plots.samples_figure(imgs, names, ds.image_shape),
        )
        widgets.chart(left, samples, key="home_samples")
    else:
        left.info("The uploaded file has no image shape, so no sample images are shown.")
    points = cache.figure(
        ("home instance", s.spec),
        lambda: plots.instance_figure(info["X2"], info["y"], info["is_labeled"], names),
    )
    widgets.chart(right, points, key="home_instance")
    st.caption(
        f"Suggested σ range for this instance: [{s.suggested[0]:g}, {s.suggested[1]:g}] "
        "(PCA-space distance units)."
    )


instance_section()

st.subheader("Guided tours")
st.caption(
    "Each tour opens a page with settings chosen to make one point of the paper visible, "
    "says what to look at and what to ask. Link to one with `?tour=<id>`; add `present=1` "
    "for presenter mode (projector: no sidebar, larger text and charts)."
)
per_row = 4
for start in range(0, len(tours.TOURS), per_row):
    cols = st.columns(per_row)
    for col, tour in zip(cols, tours.TOURS[start : start + per_row], strict=False):
        card = col.container(border=True, height="stretch")
        card.markdown(f"**{tour.title}**")
        card.caption(
            f"{tour.teaser}  \n:material/arrow_forward: {nav.page_title(tour.page)}"
            f" · `?tour={tour.id}`"
        )
        card.button(
            "Start tour",
            key=f"w_tour_{tour.id}",
            icon=":material/tour:",
            on_click=presenter.request_tour,
            args=(tour.id,),
        )

st.subheader("Views")
pages = [p for p in nav.nav_pages() if p.path is not None]
per_row = 3  # the longest label whole at 1400 px
for start in range(0, len(pages), per_row):
    row = pages[start : start + per_row]
    for col, p in zip(st.columns(per_row), row, strict=False):
        col.page_link(p.file, label=p.link_label, icon=p.icon)
