"""A scikit-learn-style file (X, y with −1 for an unlabeled point): −1 becomes the labeled
mask, bad y is one clear line, ``sslviz cv --data-file`` reads it as ExactGammaSearchCV reads
the arrays, and the views that measure the loss on the unlabeled points refuse it."""

import json

import numpy as np
import pytest
from sklearn.semi_supervised import LabelSpreading

from sslviz._validation import InvalidParameterError
from sslviz.cli import main
from sslviz.datasets import load_file
from sslviz.sklearn import ExactGammaSearchCV


def _arrays(seed=4, n=60, n_labeled=18, classes=(0, 1)):
    rng = np.random.default_rng(seed)
    y = np.asarray(classes)[rng.permutation(np.arange(n) % len(classes))]
    X = 0.6 * rng.normal(size=(n, 3)) + 0.4 * y[:, None]
    y_semi = y.copy()
    y_semi[rng.permutation(n)[n_labeled:]] = -1
    return X, y_semi


def _npz(tmp_path, X, y, name="semi.npz"):
    path = tmp_path / name
    np.savez(path, X=X, y=y)
    return path


def _csv(tmp_path, X, y, name="semi.csv"):
    path = tmp_path / name
    head = ",".join([f"x{j}" for j in range(X.shape[1])] + ["y"])
    rows = [",".join([*map(repr, map(float, x)), str(int(v))]) for x, v in zip(X, y, strict=True)]
    path.write_text("\n".join([head, *rows]) + "\n")
    return path


@pytest.mark.parametrize("write", [_npz, _csv])
def test_minus_one_becomes_the_labeled_mask(tmp_path, write):
    X, y = _arrays()
    ds = load_file(write(tmp_path, X, y))
    np.testing.assert_array_equal(ds.labeled, y != -1)
    assert ds.classes == (0, 1)  # −1 is no class
    np.testing.assert_allclose(ds.X, X, rtol=1e-15)


@pytest.mark.parametrize(
    ("y_of", "said"),
    [
        (lambda y: np.full_like(y, -1), "no point is labeled (every y is −1)"),
        (lambda y: np.where(y == -1, -1, 1), "every labeled point is of class 1"),
        (lambda y: np.where(np.arange(y.size) == 3, -2, y), "y holds −2: mark an unlabeled"),
    ],
)
def test_bad_y_is_one_clear_line(tmp_path, y_of, said):
    X, y = _arrays()
    y = y_of(y)
    with pytest.raises(InvalidParameterError, match=said.replace("(", r"\(").replace(")", r"\)")):
        load_file(_npz(tmp_path, X, y))


def test_cli_bad_y_exits_2_with_one_line(tmp_path, capsys):
    X, y = _arrays()
    path = _npz(tmp_path, X, np.full_like(y, -1), "none.npz")
    assert main(["cv", "--data-file", str(path), "--pca", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "sslviz: error: none.npz: no point is labeled (every y is −1): give at least one point "
        "of each class its label."
    )


def test_a_class_with_no_labeled_point_is_refused(tmp_path, capsys):
    X, y = _arrays(classes=(0, 1, 2))
    y[y == 2] = -1  # class 2 exists in truth, but no point of it is labeled
    path = _npz(tmp_path, X, y)
    assert main(["cv", "--data-file", str(path), "--pca", "0", "--classes", "0", "1", "2"]) == 2
    err = capsys.readouterr().err
    assert "2" in err and "\n" not in err.strip() and "Traceback" not in err


@pytest.mark.parametrize("classes", [(0, 1), (0, 1, 2)])
def test_cv_on_the_file_equals_exact_gamma_search_on_its_arrays(tmp_path, classes):
    X, y = _arrays(classes=classes, n=66, n_labeled=24)
    out = tmp_path / "cv.json"
    args = ["cv", "--data-file", str(_npz(tmp_path, X, y)), "--pca", "0", "--labeling"]
    args += ["spreading", "--classes", *map(str, classes), "--gamma-range", "0.1", "20"]
    assert main([*args, "--cv", "3", "--no-timings", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    search = ExactGammaSearchCV(LabelSpreading(kernel="rbf"), gamma_range=(0.1, 20.0), cv=3)
    search.fit(X, y)
    assert doc["best_gamma"] == search.best_gamma_ and doc["best_score"] == search.best_score_
    assert doc["breakpoints"] == search.cv_curve_["breakpoints"].tolist()
    assert sum(f["size"] for f in doc["folds"]) == int((y != -1).sum())


@pytest.mark.parametrize("command", ["loss", "intervals"])
def test_views_of_the_loss_on_u_refuse_the_file_in_one_line(tmp_path, capsys, command):
    X, y = _arrays()
    path = _npz(tmp_path, X, y)
    assert main([command, "--data-file", str(path), "--pca", "0", "--classes", "0", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("sslviz: error: semi.npz marks 42 points unlabeled with y = −1")
    assert "sslviz cv scores the labeled points" in err and "\n" not in err


def test_learn_refuses_an_instance_file_with_unknown_labels(tmp_path, capsys):
    X, y = _arrays()
    path = _npz(tmp_path, X, y)
    assert main(["learn", "--data-file", str(path), "--pca", "0", "--classes", "0", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("sslviz: error: semi.npz marks 42 points unlabeled with y = −1")
