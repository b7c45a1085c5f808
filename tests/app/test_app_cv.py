"""Cross-validated γ page, with streamlit.testing: the exact curve over γ (or σ), the folds
faintly, the best γ marked; its captions come from its document; its download is
``sslviz cv``'s JSON, and both its Python snippet and its command reproduce its numbers."""

import json

import numpy as np
import pytest
from apptest_helpers import chart, charts, download_json, run_cli, values
from apptest_helpers import start as _start

from sslviz import api

PAGE = "pages/Cross_validated_gamma.py"
SMALL = {"classes": "1,8", "n": "90", "labeled": "24", "seed": "3", "labeling": "spreading"}


def start(query: dict | None = None):
    return _start(PAGE, {**SMALL, **(query or {})})


def _python(at) -> str:
    return next(c.value for c in at.code if c.language == "python")


def _command(at) -> str:
    return next(c.value for c in at.code if c.language == "bash").strip()


@pytest.mark.slow  # over 2 s: outside the quick run
def test_page_draws_the_curve_and_reproduces_as_python_and_cli(tmp_path):
    at = start({"cv": "4"})
    assert not at.exception and not at.error
    doc = download_json(at, "cv_dl_cv.json")
    fig = chart(at)
    names = [t["name"] for t in fig["data"]]
    assert names[:4] == ["each fold"] * 4
    assert names[4] == "cross-validated accuracy"
    best = fig["data"][5]
    assert values(best) == [doc["best_gamma"]] and values(best, "y") == [doc["best_score"]]
    # the curve drawn is the document's pieces over γ
    edges = [doc["pieces"][0]["lo"], *doc["breakpoints"], doc["pieces"][-1]["hi"]]
    np.testing.assert_allclose(values(fig["data"][4]), edges, rtol=1e-12)
    scores = [p["score"] for p in doc["pieces"]]
    assert values(fig["data"][4], "y")[:-1] == scores
    # the widest interval of the best score is shaded
    shape = fig["layout"]["shapes"][0]
    assert (shape["x0"], shape["x1"]) == (doc["best_interval"]["lo"], doc["best_interval"]["hi"])
    # every caption line is the document's summary
    captions = [c.value for c in at.caption]
    assert all(line in captions for line in api.cv_summary(doc))
    assert len(doc["breakpoints"]) >= 3 and len(doc["folds"]) == 4

    # the command line writes the same JSON, byte for byte without timings
    line = _command(at)
    assert line.startswith("sslviz cv ") and "--cv 4" in line
    assert run_cli(line, tmp_path / "cv.json") == doc

    # the Python snippet (ExactGammaSearchCV on the same data) gives the same numbers
    snippet = _python(at)
    assert "ExactGammaSearchCV(" in snippet and "LabelSpreading(" in snippet
    scope: dict = {}
    exec(compile(snippet, "<snippet>", "exec"), scope)
    search = scope["search"]
    assert search.best_score_ == doc["best_score"]
    assert search.best_gamma_ == pytest.approx(doc["best_gamma"], rel=1e-9)
    np.testing.assert_allclose(search.cv_curve_["breakpoints"], doc["breakpoints"], rtol=1e-9)
    assert [p[2] for p in search.cv_curve_["pieces"]] == scores


@pytest.mark.slow  # over 2 s: outside the quick run
def test_sigma_axis_and_a_graph_scikit_learn_has_not():
    at = start({"cv_axis": "sigma", "family": "knn", "k": "5"})
    assert not at.exception and not at.error
    doc = download_json(at, "cv_dl_cv.json")
    fig = chart(at)
    assert fig["layout"]["xaxis"]["title"]["text"].startswith("σ")
    curve = next(t for t in fig["data"] if t["name"] == "cross-validated accuracy")
    np.testing.assert_allclose(values(curve)[1:-1], doc["sigma_breakpoints"], rtol=1e-12)
    assert not [c for c in at.code if c.language == "python"]
    assert any("scikit-learn has no estimator" in c.value for c in at.caption)
    assert "--family knn" in _command(at)


@pytest.mark.slow  # over 2 s: outside the quick run
def test_threshold_family_is_said_in_one_line():
    at = start({"family": "threshold", "labeling": "harmonic"})
    assert not at.exception and not charts(at)
    assert any("Gaussian graph" in i.value for i in at.info)


def test_download_is_the_json_of_the_view_without_timings():
    at = start({"cv": "3", "sigma_min": "0.5", "sigma_max": "3"})
    assert not at.exception and not at.error
    doc = download_json(at, "cv_dl_cv.json")
    assert "seconds" not in json.dumps(doc)
    assert doc["settings"]["cv"] == 3 and doc["settings"]["sigma_min"] == 0.5


def _semi_file(tmp_path):
    """A scikit-learn-style upload: y holds −1 for the unlabeled points."""
    rng = np.random.default_rng(8)
    y = rng.permutation(np.arange(60) % 2)
    X = 0.6 * rng.normal(size=(60, 3)) + 0.5 * y[:, None]
    y[rng.permutation(60)[20:]] = -1
    path = tmp_path / "semi.npz"
    np.savez(path, X=X, y=y)
    return path, X, y


@pytest.mark.slow  # over 2 s: outside the quick run
def test_an_upload_with_minus_one_is_cross_validated_and_refused_elsewhere(tmp_path):
    from sklearn.semi_supervised import LabelSpreading

    from sslviz.sklearn import ExactGammaSearchCV

    path, X, y = _semi_file(tmp_path)
    cfg = {"data_file": str(path), "data_file_name": "semi.npz", "pca": 0, "classes": (0, 1)}
    cfg |= {"labeling": "spreading", "cv": 3}
    at = _start(PAGE, None, cfg)
    assert not at.exception and not at.error
    doc = download_json(at, "cv_dl_cv.json")
    lo, hi = doc["settings"]["sigma_min"], doc["settings"]["sigma_max"]
    search = ExactGammaSearchCV(LabelSpreading(kernel="rbf"), gamma_range=(hi**-2, lo**-2), cv=3)
    search.fit(X, y)
    assert doc["best_score"] == search.best_score_
    assert doc["best_gamma"] == pytest.approx(search.best_gamma_, rel=1e-9)
    assert sum(f["size"] for f in doc["folds"]) == 20
    # a page that measures the loss on the unlabeled points says why it cannot, in one line
    assert doc["settings"]["labeling"] == "spreading" and doc["settings"]["cv"] == 3
    loss = _start("pages/Loss_intervals.py", None, cfg)
    assert not loss.exception and not charts(loss)
    said = [i.value for i in loss.info]
    assert any(s.startswith("semi.npz marks 40 points unlabeled with y = −1") for s in said)
    assert any("the Cross-validated γ page scores the labeled points" in s for s in said)


def test_three_classes_are_cross_validated():
    at = _start(PAGE, {"classes": "0,1,2", "n": "60", "labeled": "12", "cv": "3"})
    assert not at.exception and not at.error and not at.info
    doc = download_json(at, "cv_dl_cv.json")
    assert doc["settings"]["classes"] == [0, 1, 2] and len(doc["folds"]) == 3
    assert 0 <= doc["best_score"] <= 1 and charts(at)
