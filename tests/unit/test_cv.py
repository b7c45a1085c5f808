"""``sslviz cv``: the exact cross-validated accuracy over γ, the same numbers as
ExactGammaSearchCV on the same data and folds."""

import json

import numpy as np
import pytest
from sklearn.semi_supervised import LabelPropagation, LabelSpreading

from sslviz.cli import main
from sslviz.problem import build_problem
from sslviz.sklearn import ExactGammaSearchCV
from sslviz.specs import ProblemSpec

DIGITS = ["--dataset", "digits", "--n", "90", "--labeled", "24", "--seed", "3"]


def _cv(tmp_path, args):
    out = tmp_path / "cv.json"
    assert main(["cv", *args, "--no-timings", "--out", str(out)]) == 0
    return json.loads(out.read_text())


def _semi(classes, labeling="spreading", alpha=0.2):
    """The CLI's instance as scikit-learn arrays: y the original classes, −1 unlabeled."""
    spec = ProblemSpec(
        dataset="digits", classes=classes, n=90, n_labeled=24, seed=3, labeling=labeling,
        alpha=alpha,
    )  # fmt: skip
    inst = build_problem(spec).instance
    y = np.asarray(inst.classes)[inst.y]
    return inst.X, np.where(inst.labeled, y, -1)


@pytest.mark.parametrize(
    ("classes", "model", "flags"),
    [
        ((1, 8), LabelSpreading(kernel="rbf", alpha=0.35), ["--labeling", "spreading"]),
        ((1, 7, 9), LabelPropagation(kernel="rbf"), ["--labeling", "harmonic"]),
    ],
)
def test_cv_equals_exact_gamma_search(tmp_path, classes, model, flags):
    alpha = ["--alpha", "0.35"] if "spreading" in flags else []
    doc = _cv(
        tmp_path,
        [*DIGITS, "--classes", *map(str, classes), *flags, *alpha, "--cv", "4",
         "--gamma-range", "0.05", "8"],
    )  # fmt: skip
    X, y = _semi(classes, flags[1], 0.35 if alpha else 0.2)
    search = ExactGammaSearchCV(model, gamma_range=(0.05, 8.0), cv=4).fit(X, y)
    assert doc["breakpoints"] == search.cv_curve_["breakpoints"].tolist()
    assert [(p["lo"], p["hi"], p["score"]) for p in doc["pieces"]] == search.cv_curve_["pieces"]
    assert doc["best_gamma"] == search.best_gamma_
    assert doc["best_score"] == search.best_score_
    assert (doc["best_interval"]["lo"], doc["best_interval"]["hi"]) == search.best_interval_
    assert len(doc["folds"]) == 4 == search.n_splits_
    for mine, theirs in zip(doc["folds"], search.cv_folds_, strict=True):
        assert mine["size"] == theirs["size"]
        assert mine["edges"] == theirs["edges"].tolist()
        assert mine["scores"] == theirs["accuracy"].tolist()
    # σ breakpoints are the γ ones, 1/√γ, increasing; the range is the one asked for
    np.testing.assert_allclose(
        doc["sigma_breakpoints"], np.asarray(doc["breakpoints"])[::-1] ** -0.5, rtol=1e-12
    )
    assert doc["pieces"][0]["lo"] == pytest.approx(0.05, rel=1e-12)
    assert doc["pieces"][-1]["hi"] == pytest.approx(8.0, rel=1e-12)
    assert len(doc["breakpoints"]) >= 5  # a curve with pieces to compare
    # every piece's score is the mean of the folds' accuracies there
    for p in doc["pieces"]:
        mid = np.sqrt(p["lo"] * p["hi"])
        folds = [f["scores"][np.searchsorted(f["edges"], mid) - 1] for f in doc["folds"]]
        assert p["score"] == pytest.approx(np.mean(folds), abs=1e-12)
        assert search.score_at(mid) == p["score"]


def test_cv_default_range_is_exact_gamma_search_default(tmp_path):
    doc = _cv(tmp_path, [*DIGITS, "--classes", "2", "3", "--labeling", "spreading"])
    X, y = _semi((2, 3))
    search = ExactGammaSearchCV(LabelSpreading(kernel="rbf", alpha=0.2)).fit(X, y)
    assert doc["best_gamma"] == search.best_gamma_ and doc["best_score"] == search.best_score_
    assert doc["settings"]["cv"] == 5
    lo, hi = doc["settings"]["sigma_min"], doc["settings"]["sigma_max"]
    assert doc["pieces"][0]["lo"] == pytest.approx(hi**-2, rel=1e-12)
    assert doc["pieces"][-1]["hi"] == pytest.approx(lo**-2, rel=1e-12)


def test_cv_sigma_range_and_knn_family(tmp_path):
    doc = _cv(
        tmp_path,
        [*DIGITS, "--classes", "2", "3", "--family", "knn", "--k", "5", "--labeling",
         "spreading", "--sigma-min", "0.4", "--sigma-max", "4", "--cv", "3"],
    )  # fmt: skip
    assert doc["settings"]["family"] == "knn" and doc["settings"]["k"] == 5
    assert doc["pieces"][0]["lo"] == pytest.approx(4.0**-2)
    assert doc["pieces"][-1]["hi"] == pytest.approx(0.4**-2)
    assert len(doc["folds"]) == 3
    assert sum(f["size"] for f in doc["folds"]) == 24  # every labeled point in one fold


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--gamma-range", "1", "2", "--sigma-min", "1"], "not both"),
        (["--gamma-range", "2", "1"], "--gamma-range LOW HIGH: give two positive numbers"),
        (["--cv", "1"], "cv = 1 folds"),
        (["--family", "threshold"], "cv needs a Gaussian family"),
    ],
)
def test_cv_bad_arguments_exit_2_with_one_line(args, said, capsys):
    assert main(["cv", *DIGITS, *args]) == 2
    err = capsys.readouterr().err.strip()
    assert said in err and "\n" not in err and "Traceback" not in err
