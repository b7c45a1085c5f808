"""Nothing changes silently: a setting the app replaces is said where the user looks, with
the way back (streamlit.testing)."""

import io

import numpy as np
import pytest
from apptest_helpers import start

from sslviz.problem import build_problem, suggest_sigma_range
from sslviz.specs import ProblemSpec
from ui import sidebar

SMALL = {"n": "60", "labeled": "6"}
KEYS = ("classes", "n", "labeled", "pca")


def sigma_range(at) -> tuple[float, float]:
    return at.number_input(key="w_sigma_min").value, at.number_input(key="w_sigma_max").value


def notes(at) -> list[str]:
    return [i.value for i in at.sidebar.info]


def instance(at) -> dict:
    """The instance settings the sidebar's widgets show."""
    return {
        "classes": (at.selectbox(key="w_classes_0").value, at.selectbox(key="w_classes_1").value),
        **{k: at.number_input(key=f"w_{k}").value for k in KEYS[1:]},
    }


def test_a_replaced_sigma_range_is_said_and_its_button_puts_it_back():
    """[1, 2] typed on the complete graph used to become [0.58, 3.3] on switching to kNN
    with nothing on screen saying so."""
    at = start(None, SMALL)
    at.number_input(key="w_sigma_min").set_value(1.0).run()
    at.number_input(key="w_sigma_max").set_value(2.0).run()
    assert not notes(at)
    at.selectbox(key="w_family").set_value("knn").run()
    knn = suggest_sigma_range(build_problem(ProblemSpec(n=60, n_labeled=6, family="knn")))
    assert sigma_range(at) == pytest.approx(knn)
    [note] = notes(at)
    assert note == (
        f"The σ range moved to [{knn[0]:g}, {knn[1]:g}], the one suggested for these data; "
        "yours was [1, 2]."
    )
    at.button(key="w_range_back").click().run()
    assert not at.exception and sigma_range(at) == (1.0, 2.0) and not notes(at)
    assert (at.query_params["sigma_min"], at.query_params["sigma_max"]) == ("1.0", "2.0")
    at.selectbox(key="w_family").set_value("complete").run()  # each range stays with its data
    assert sigma_range(at) == (1.0, 2.0) and not notes(at)
    at.selectbox(key="w_family").set_value("knn").run()
    assert sigma_range(at) == (1.0, 2.0) and not notes(at)


def test_a_suggested_range_that_follows_the_data_is_no_change_to_say():
    at = start(None, SMALL)
    at.selectbox(key="w_family").set_value("knn").run()
    assert not notes(at) and not at.exception


def _blobs() -> bytes:
    rng = np.random.default_rng(0)
    buf = io.BytesIO()
    X = np.r_[rng.normal(0, 1, (40, 5)), rng.normal(3, 1, (40, 5))]
    np.savez(buf, X=X, y=np.r_[np.zeros(40, int), np.ones(40, int)])
    return buf.getvalue()


def test_an_upload_gets_the_settings_that_fit_it_in_one_step_and_digits_gets_its_own_back():
    """An upload used to need several rounds of one error at a time (n, then PCA dims), its
    classes switched to (0, 1) silently and stayed switched after going back to digits."""
    at = start(None)
    digits = instance(at)
    assert digits == {"classes": (2, 3), "n": 100, "labeled": 10, "pca": 45}
    at.selectbox(key="w_source").set_value(sidebar.UPLOAD).run()
    at.file_uploader(key="w_upload").upload("blobs.npz", _blobs()).run()
    assert not at.exception and not at.error  # it runs at once
    assert instance(at) == {"classes": (0, 1), "n": 80, "labeled": 10, "pca": 0}
    [note] = [n for n in notes(at) if n.startswith("Set for")]
    assert note == (
        "Set for blobs.npz: classes 0 and 1 (classes 2 and 3 are not in it); n = 80, the "
        "size of its pool of classes 0 and 1; PCA dims 0: its 5 features as they are."
    )
    at.button(key="w_source_back").click().run()  # the way back
    assert not at.exception and not at.error
    assert at.selectbox(key="w_source").value == "digits" and instance(at) == digits
    assert not [n for n in notes(at) if n.startswith("Set for")]
    # the file again: its own settings; digits through the picker: digits' own
    at.selectbox(key="w_source").set_value(sidebar.UPLOAD).run()
    at.file_uploader(key="w_upload").upload("blobs.npz", _blobs()).run()
    assert instance(at) == {"classes": (0, 1), "n": 80, "labeled": 10, "pca": 0}
    at.selectbox(key="w_source").set_value("digits").run()
    assert not at.exception and not at.error and instance(at) == digits


def test_classes_a_dataset_does_not_have_are_replaced_and_said():
    at = start(None, {"classes": "3,42"})
    assert not at.exception and instance(at)["classes"] == (0, 1)
    assert "Class 42 is not in digits: using 0 and 1." in notes(at)
    at.selectbox(key="w_classes_1").set_value(5).run()  # the user moved on: said no more
    assert not [n for n in notes(at) if n.startswith("Classes")]
