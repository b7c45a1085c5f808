"""Home page (app.py) and the shared sidebar / URL state, with streamlit.testing."""

import shlex
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from apptest_helpers import INVALID, assert_refuses  # noqa: E402
from apptest_helpers import start as _start  # noqa: E402

import app_state  # noqa: E402
from sslviz.cli import build_parser  # noqa: E402


def start() -> AppTest:
    return _start(None)


def test_default_home_shows_instance_and_charts():
    at = start()
    assert not at.exception
    assert not at.error
    assert len(at.get("plotly_chart")) == 2
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["n"] == "100"
    assert metrics["|L| / |U|"] == "10 / 90"
    assert int(metrics["connected components"]) >= 1
    assert len(at.get("page_link")) == 4
    assert at.query_params["family"] == "knn"
    assert float(at.query_params["sigma_min"]) < float(at.query_params["sigma_max"])


def test_changing_n_changes_summary_and_url():
    at = start()
    at.number_input(key="w_n").set_value(80).run()
    assert not at.exception
    assert {m.label: m.value for m in at.metric}["n"] == "80"
    assert at.query_params["n"] == "80"


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
    assert at.number_input(key="w_n").value == 100
    assert at.selectbox(key="w_family").value == "knn"
    assert at.number_input(key="w_k").value == 5  # good values are kept
    assert at.get("plotly_chart")


def test_url_reproduces_settings():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params.update(
        {"n": "70", "labeled": "7", "c0": "3", "c1": "8", "sigma_min": "0.7", "sigma_max": "2.5"}
    )
    at.run()
    assert not at.exception and not at.warning
    assert {m.label: m.value for m in at.metric}["n"] == "70"
    assert at.number_input(key="w_sigma_min").value == 0.7


def test_unavailable_dataset_shows_its_message():
    from sslviz.data import DatasetUnavailableError, load_dataset

    try:
        load_dataset("usps")
        pytest.skip("usps is available on this machine")
    except DatasetUnavailableError as exc:
        message = str(exc)
    at = start()
    at.selectbox(key="w_dataset").set_value("usps").run()
    assert not at.exception
    assert any(message.splitlines()[0] in e.value for e in at.error)


def test_uploaded_npz_is_used(tmp_path):
    import numpy as np

    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 1, (40, 5)), rng.normal(3, 1, (40, 5))]
    y = np.r_[np.zeros(40, int), np.ones(40, int)]
    path = tmp_path / "blobs.npz"
    np.savez(path, X=X, y=y)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.session_state["cfg"] = {
        **app_state.defaults(),
        "data_file": str(path),
        "data_file_name": "blobs.npz",
        "n": 60,
        "labeled": 6,
        "pca": 0,
    }
    at.run()
    assert not at.exception and not at.error
    assert at.selectbox(key="w_dataset").value == app_state.UPLOAD
    assert {m.label: m.value for m in at.metric}["n"] == "60"
    assert at.info  # no image shape: no sample images
    assert len(at.get("plotly_chart")) == 1


@pytest.mark.parametrize(
    "command, extra",
    [
        ("intervals", ("--score", "--out", "x.json")),
        ("loss", ()),
        ("regret", ("--rounds", "5")),
        ("condition", ("--sigmas", "0.5:2:5")),
    ],
)
def test_cli_command_parses(command, extra):
    cfg = {
        **app_state.defaults(),
        "sigma_min": 0.5,
        "sigma_max": 2.8,
        "labeling": "delalleau",
        "mode": "paper",
    }
    text = app_state.cli_command(command, cfg, *extra)
    args = build_parser().parse_args(shlex.split(text)[1:])
    assert args.command == command and args.n == 100 and args.labeling == "delalleau"
    if command in ("intervals", "regret"):
        assert args.mode == "paper" and args.cg_iters == 20


def test_check_estimates_complete_graph_memory():
    cfg = {**app_state.defaults(), "family": "complete", "n": app_state.MAX_COMPLETE_N + 1}
    assert any("kNN" in e for e in app_state.check(cfg))
    assert not app_state.check({**cfg, "n": 100})


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
    at.switch_page("pages/2_Conditioning.py").run()
    at.switch_page("app.py").run()
    assert not at.exception
    assert at.number_input(key="w_n").value == 70
    assert at.selectbox(key="w_family").value == "mutual-knn"
