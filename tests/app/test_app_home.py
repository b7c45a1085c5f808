"""Home page (app.py) and the shared sidebar / URL state, with streamlit.testing."""

import shlex
from pathlib import Path

import pytest
from apptest_helpers import INVALID, ROOT, assert_refuses, charts
from apptest_helpers import start as _start
from streamlit.testing.v1 import AppTest

from sslviz import specs as S
from sslviz import tours
from sslviz._validation import InvalidParameterError
from sslviz.cli import build_parser, command_line
from sslviz.specs import ConditionSettings, ProblemSpec, RegretSettings, SigmaRange, SweepSettings
from ui import caps, nav, sidebar, url


def start() -> AppTest:
    return _start(None)


def test_default_home_shows_instance_and_charts():
    at = start()
    assert not at.exception
    assert not at.error
    assert len(charts(at)) == 2
    metrics = {m.label: m.value for m in at.metric}
    n, nl = S.default(ProblemSpec, "n"), S.default(ProblemSpec, "n_labeled")
    assert metrics["n"] == str(n)
    assert metrics["|L| / |U|"] == f"{nl} / {n - nl}"
    assert int(metrics["connected components"]) >= 1
    # the sidebar's page list (every page), and one link per view on the page
    assert len(at.get("page_link")) == 2 * len(nav.nav_pages()) - 1
    assert at.query_params["family"] == S.default(ProblemSpec, "family")
    assert float(at.query_params["sigma_min"]) < float(at.query_params["sigma_max"])
    assert "tour" not in at.query_params and "present" not in at.query_params


def test_home_starts_with_the_first_tour_and_shows_the_gallery():
    """The first screen holds a "Start here" button (the first tour) and the instance's
    charts; the gallery of every tour follows: one card per tour with its title, teaser
    and a start button."""
    at = start()
    first = at.button(key="w_start_here")
    assert first.label == f"Start here: {tours.TOURS[0].title}"
    texts = [m.value for m in at.markdown]
    captions = " ".join(c.value for c in at.caption)
    for tour in tours.TOURS:
        assert f"**{tour.title}**" in texts
        assert tour.teaser in captions and f"?tour={tour.id}" in captions
        assert at.button(key=f"w_tour_{tour.id}").label == "Start tour"
    headers = [h.value for h in at.subheader]
    assert headers.index("The instance") < headers.index("Guided tours")
    first.click().run()
    assert at.session_state["cfg"]["tour"] == tours.TOURS[0].id


def test_navigation_titles_and_paths():
    """Issue 11: the home page is "Home" in the navigation (not "app"); the views keep
    their URL paths; a page file that is not there is left out."""
    titles = [p.title for p in nav.nav_pages()]
    assert titles[0] == "Home" and "app" not in titles
    assert titles[1:5] == ["Loss intervals", "Conditioning", "Online regret", "Speed"]
    paths = {p.file: p.path for p in nav.NAV}
    assert paths["pages/Loss_intervals.py"] == "Loss_intervals"
    assert paths["pages/Speed.py"] == "Speed" and paths["pages/home.py"] is None
    assert all((ROOT / p.file).is_file() for p in nav.nav_pages())
    assert ("Algorithm 4 player" in titles) == (ROOT / "pages/Algorithm_4.py").is_file()
    # every file of pages/ is in the navigation, named after its URL path (a fresh
    # server's first run of a deep link runs that file: ui.nav.ensure_declared)
    assert {f.name for f in (ROOT / "pages").glob("*.py")} == {Path(p.file).name for p in nav.NAV}
    assert all(Path(p.file).stem == p.path for p in nav.NAV if p.path)


def test_changing_n_changes_summary_and_url():
    at = start()
    at.number_input(key="w_n").set_value(80).run()
    assert not at.exception
    assert {m.label: m.value for m in at.metric}["n"] == "80"
    assert at.query_params["n"] == "80"


@pytest.mark.slow  # over 1.5 s: outside the quick run
@pytest.mark.parametrize("case", list(INVALID))
def test_invalid_input_shows_error_not_exception(case):
    at = start()
    assert_refuses(at, case)
    assert at.sidebar.number_input(key="w_n")  # the sidebar stays usable


def test_bad_url_values_fall_back_with_warning():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["n"] = "lots"
    at.query_params["family"] = "hypercube"
    at.query_params["k"] = "5"
    at.run()
    assert not at.exception
    texts = " ".join(w.value for w in at.warning)
    assert "n='lots'" in texts and "family='hypercube'" in texts
    assert at.number_input(key="w_n").value == S.default(ProblemSpec, "n")
    assert at.selectbox(key="w_family").value == S.default(ProblemSpec, "family")
    assert at.number_input(key="w_k").value == 5  # good values are kept
    assert charts(at)


def test_url_reproduces_settings():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params.update(
        {"n": "70", "labeled": "7", "classes": "3,8", "sigma_min": "0.7", "sigma_max": "2.5"}
    )
    at.run()
    assert not at.exception and not at.warning
    assert {m.label: m.value for m in at.metric}["n"] == "70"
    assert at.number_input(key="w_sigma_min").value == 0.7
    assert at.number_input(key="w_sigma_max").value == 2.5
    assert (at.selectbox(key="w_classes_0").value, at.selectbox(key="w_classes_1").value) == (3, 8)
    assert at.query_params["classes"] == "3,8"


def test_unavailable_dataset_shows_its_message():
    from sslviz.datasets import DatasetUnavailableError, load_dataset

    try:
        load_dataset("usps")
        pytest.skip("usps is available on this machine")
    except DatasetUnavailableError as exc:
        message = str(exc)
    at = start()
    at.selectbox(key="w_source").set_value("usps").run()
    assert not at.exception
    assert any(message.splitlines()[0] in e.value for e in at.error)


def test_uploaded_npz_is_used(tmp_path):
    import numpy as np

    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 1, (40, 5)), rng.normal(3, 1, (40, 5))]
    y = np.r_[np.zeros(40, int), np.ones(40, int)]
    path = tmp_path / "blobs.npz"
    np.savez(path, X=X, y=y)
    cfg = {"data_file": str(path), "data_file_name": "blobs.npz", "n": 60, "labeled": 6, "pca": 0}
    at = _start(None, cfg=cfg)
    assert not at.exception and not at.error
    assert at.selectbox(key="w_source").value == sidebar.UPLOAD
    assert {m.label: m.value for m in at.metric}["n"] == "60"
    assert at.info  # no image shape: no sample images
    assert len(charts(at)) == 1


@pytest.mark.parametrize(
    "command, specs, extra",
    [
        ("intervals", (SigmaRange(0.5, 2.8), SweepSettings(mode="paper")), ("--score",)),
        ("loss", (SigmaRange(0.5, 2.8),), ()),
        (
            "regret",
            (SigmaRange(0.5, 2.8), SweepSettings(mode="paper"), RegretSettings(rounds=5)),
            (),
        ),
        ("condition", (SigmaRange(0.5, 2.8), ConditionSettings(points=5)), ()),
    ],
)
def test_cli_command_parses(command, specs, extra):
    spec = ProblemSpec(labeling="delalleau")
    text = command_line(command, spec, *specs, out="x.json")
    args = build_parser().parse_args(shlex.split(text)[1:] + list(extra))
    assert args.command == command and args.labeling == "delalleau"
    assert args.n == S.default(ProblemSpec, "n")
    assert args.out == "x.json" and args.sigma_min == 0.5 and args.sigma_max == 2.8
    if command in ("intervals", "regret"):
        assert args.mode == "paper"
    if command == "regret":
        assert args.rounds == 5 and args.seed == 0
    if command == "condition":
        assert args.points == 5


def test_url_query_round_trip_and_specs_from_it():
    query = {
        "n": "70",
        "labeled": "7",
        "classes": "3,8",
        "family": "complete",
        "t": "5",
        "sigma_min": "0.7",
        "sigma_max": "2.5",
        "rounds": "4",
        "feedback": "exact,uniform",
        "compare": "CG t = 5",
        "node": "12",
        "sizes": "50,200",
        "points": "9",
    }
    cfg, warnings = url.from_query(query)
    assert not warnings
    assert cfg["classes"] == (3, 8) and cfg["t"] == 5 and cfg["feedback"] == ("exact", "uniform")
    assert url.from_query(url.to_query(cfg)) == (cfg, [])
    spec = url.spec_from_cfg(ProblemSpec, cfg)
    assert (spec.n, spec.n_labeled, spec.classes, spec.family) == (70, 7, (3, 8), "complete")
    assert url.spec_from_cfg(SweepSettings, cfg).cg_iters == 5
    assert url.spec_from_cfg(SigmaRange, cfg) == SigmaRange(0.7, 2.5)
    assert url.spec_from_cfg(RegretSettings, cfg).rounds == 4
    # an uploaded file cannot travel in a link: no dataset= is written for it
    assert "dataset" not in url.to_query({**cfg, "dataset": "digits", "data_file": "/x.npz"})
    assert url.to_query({**cfg, "dataset": "digits"})["dataset"] == "digits"


def test_bad_link_values_give_one_warning_each():
    cfg, warnings = url.from_query({"n": "lots", "k": "5", "classes": "3", "t": "0"})
    assert cfg == {"k": 5}
    assert len(warnings) == 3  # t is in two tables (sweep, conditioning): one warning
    assert [any(f"{k}=" in w for w in warnings) for k in ("n", "classes", "t")] == [True] * 3


def test_cross_field_rules_come_from_the_specs():
    with pytest.raises(InvalidParameterError, match="must be smaller than n"):
        url.spec_from_cfg(ProblemSpec, {"n": 20, "labeled": 20})
    with pytest.raises(InvalidParameterError, match="^σ_min = 3 must be smaller than σ_max = 1"):
        url.spec_from_cfg(SigmaRange, {"sigma_min": 3.0, "sigma_max": 1.0})


def test_cap_errors_estimate_complete_graph_memory():
    big = ProblemSpec(family="complete", n=caps.MAX_COMPLETE_N + 1)
    assert any("kNN" in e for e in caps.cap_errors(big))
    assert not caps.cap_errors(big.replace(n=100))
    assert not caps.cap_errors(ProblemSpec(family="knn", n=caps.MAX_COMPLETE_N + 1))
    assert any("cap" in e for e in caps.cap_errors(ProblemSpec(n=caps.MAX_N + 1)))


def test_use_suggested_restores_the_suggested_sigma_range():
    at = start()
    suggested = at.number_input(key="w_sigma_min").value, at.number_input(key="w_sigma_max").value
    at.number_input(key="w_sigma_min").set_value(1.0).run()
    assert at.query_params["sigma_min"] == "1.0"
    at.button(key="w_use_suggested").click().run()
    assert not at.exception
    assert (at.number_input(key="w_sigma_min").value, at.number_input(key="w_sigma_max").value) == (
        suggested
    )


def test_settings_survive_page_switches():
    at = start()
    at.number_input(key="w_n").set_value(70)
    at.selectbox(key="w_family").set_value("mutual-knn").run()
    at.switch_page("pages/Conditioning.py").run()
    at.switch_page("pages/home.py").run()  # Home (app.py only declares the navigation)
    assert not at.exception
    assert at.number_input(key="w_n").value == 70
    assert at.selectbox(key="w_family").value == "mutual-knn"
