"""The Python API (sslviz.loss_curve, sslviz.intervals): the command line's documents on the
same instance, σ or γ, the exact cross-validated loss against solves at many σ, messages in
words, the notebook's view, and docs/python.md's example run as written."""

import contextlib
import importlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import sslviz
from sslviz import api, cli
from sslviz.export import without_timings
from sslviz.problem import make_model
from sslviz.specs import GraphSpec, LabelingSpec

ROOT = Path(__file__).resolve().parents[2]


def _data(seed=1, n=60):
    rng = np.random.default_rng(seed)
    y = np.repeat([3, 7], n // 2)
    X = rng.normal(size=(n, 4)) + 0.9 * (y[:, None] == 7)
    labeled = np.zeros(n, bool)
    labeled[rng.choice(n, 10, replace=False)] = True
    labeled[[0, n - 1]] = True
    return X, y, labeled


def _cli(args, tmp_path, name):
    out = tmp_path / f"{name}.json"
    with contextlib.redirect_stdout(io.StringIO()):
        assert cli.main([*args, "--no-timings", "--out", str(out)]) == 0
    return json.loads(out.read_text())


@pytest.mark.parametrize("labeling", ["harmonic", "spreading"])
def test_loss_curve_is_the_command_lines_document(tmp_path, labeling):
    X, y, labeled = _data()
    np.savez(tmp_path / "inst.npz", X=X, y=y, labeled=labeled)
    curve = sslviz.loss_curve(
        X, y, labeled=labeled, family="knn", k=5, labeling=labeling, sigma_range=(0.5, 4.0)
    )
    args = ["loss", "--data-file", str(tmp_path / "inst.npz"), "--classes", "3", "7"]
    args += ["--pca", "0", "--family", "knn", "--k", "5", "--labeling", labeling]
    doc = _cli([*args, "--sigma-min", "0.5", "--sigma-max", "4"], tmp_path, "loss")
    mine = without_timings(curve.to_dict())
    assert mine["settings"].pop("data_file") == api.ARRAYS
    # the command line writes the defaults of n and |L|, which a file's labeled set replaces
    assert (mine["settings"].pop("n"), mine["settings"].pop("n_labeled")) == (60, 12)
    for key in ("data_file", "n", "n_labeled"):
        doc["settings"].pop(key)
    assert mine == doc
    assert curve.breakpoints.size >= 1 and len(curve.pieces) == curve.breakpoints.size + 1
    assert curve.pieces[0][0] == 0.5 and curve.pieces[-1][1] == 4.0
    by_gamma = sslviz.loss_curve(
        X, y, labeled=labeled, family="knn", k=5, labeling=labeling, gamma_range=(1 / 16, 4.0)
    )
    np.testing.assert_allclose(by_gamma.breakpoints, curve.breakpoints, rtol=1e-12)
    for s in np.linspace(0.5, 4.0, 15):
        assert (
            curve.loss_at(s)
            == curve.loss_at(gamma=1 / s**2)
            == curve.loss.values[
                np.searchsorted(curve.loss.edges, s, side="right") - 1 if s < 4.0 else -1
            ]
        )
    assert curve.best[0] == min(p[2] for p in curve.pieces)


@pytest.mark.slow  # Algorithm 4 and the exact curve twice (about 8 s)
def test_intervals_is_the_command_lines_document(tmp_path):
    X, y, labeled = _data(seed=4)
    np.savez(tmp_path / "inst.npz", X=X, y=y, labeled=labeled)
    found = sslviz.intervals(
        X,
        y,
        labeled=labeled,
        family="complete",
        labeling="spreading",
        sigma_range=(0.5, 4.0),
        cg_iters=2,
    )
    args = ["intervals", "--data-file", str(tmp_path / "inst.npz"), "--classes", "3", "7"]
    args += ["--pca", "0", "--family", "complete", "--labeling", "spreading", "--cg-iters", "2"]
    doc = _cli([*args, "--sigma-min", "0.5", "--sigma-max", "4", "--score"], tmp_path, "iv")
    mine = without_timings(found.to_dict())
    for key in ("data_file", "n", "n_labeled"):
        mine["settings"].pop(key), doc["settings"].pop(key)
    assert mine == doc
    assert found.score["true_breakpoints"] >= 0 and len(found.intervals) >= 1
    names = [t.name for t in found.figure().data]
    assert names[:2] == ["true loss l(σ)", "estimated intervals"]


@pytest.mark.slow  # three folds' curves and 50 solves per fold (about 6 s)
@pytest.mark.slow  # the conditioning grid twice (about 2 s)
def test_condition_is_the_command_lines_document(tmp_path):
    X, y, labeled = _data(seed=3)
    np.savez(tmp_path / "inst.npz", X=X, y=y, labeled=labeled)
    result = sslviz.condition(
        X,
        np.where(labeled, y, -1),
        family="knn",
        k=5,
        labeling="spreading",
        alpha=0.5,
        sigma_range=(0.5, 4.0),
        points=8,
    )
    args = ["condition", "--data-file", str(tmp_path / "inst.npz"), "--classes", "3", "7"]
    args += ["--pca", "0", "--family", "knn", "--k", "5", "--labeling", "spreading"]
    doc = _cli([*args, "--alpha", "0.5", "--sigmas", "0.5:4:8"], tmp_path, "cond")
    mine = without_timings(result.to_dict())
    for key in ("data_file", "n", "n_labeled"):
        mine["settings"].pop(key), doc["settings"].pop(key)
    assert mine == doc
    assert np.all(result.kappa <= (1 + 0.5) / (1 - 0.5) + 1e-9) and result.sigma.size == 8
    assert result._repr_html_().count("<tr>") == 9
    assert [t.name for t in result.figure().data] == ["√κ (knn)"]


@pytest.mark.slow  # three folds' curves and 50 solves per fold (about 6 s)
def test_cross_validated_loss_is_exact_against_solves(tmp_path):
    """With −1 for the unlabeled points: each fold's error rate, from per-node breakpoints,
    equals the fold's own exact solves at σ across the range, and the curve their mean."""
    X, y, labeled = _data(seed=2, n=50)
    y_semi = np.where(labeled, y, -1)
    curve = sslviz.loss_curve(
        X,
        y_semi,
        family="knn",
        k=5,
        labeling="spreading",
        alpha=0.4,
        sigma_range=(0.3, 3.0),
        cv=3,
    )
    inputs = api.check_inputs(X, y_semi)
    folds = api.label_folds(inputs, 3)
    assert sorted(np.concatenate(folds).tolist()) == np.flatnonzero(labeled).tolist()
    models = []
    for rows in folds:
        lab = labeled.copy()
        lab[rows] = False
        spec = GraphSpec("knn", 5)
        model = make_model(X, lab, inputs.codes, spec, LabelingSpec("spreading", alpha=0.4))
        models.append((model, np.searchsorted(model.unlabeled_idx, rows), inputs.codes[rows]))
    edges = curve.loss.edges
    mids = np.r_[0.5 * (edges[:-1] + edges[1:]), np.linspace(0.3, 3.0, 25)]
    for s in mids:
        if np.min(np.abs(curve.breakpoints - s), initial=1.0) < 1e-6:
            continue
        errors = []
        for model, at, truth in models:
            sl = model.soft_labels(s, solver="exact", derivative=False)
            wrong = sl.degenerate[at] | ((sl.f[at] > 0.5) != (truth == 1))
            errors.append(wrong.mean())
        assert curve.loss_at(s) == pytest.approx(np.mean(errors), abs=1e-12)
    doc = curve.to_dict()
    assert doc["settings"]["cv"] == 3 and len(doc["folds"]) == 3
    assert "cross-validated" in curve.what and "cross-validated" in curve._repr_html_()
    assert [t.name for t in curve.figure().data][-1] == "cross-validated loss"


@pytest.mark.parametrize("labeling", ["harmonic", "spreading"])
def test_three_class_cross_validated_loss_is_exact_against_solves(labeling):
    """Three classes (1, 3, 5): each fold's error rate is the argmax of the one-vs-all
    scores of its own exact solves, and the curve their mean; with every label and a mask,
    the loss on U is the argmax's too."""
    rng = np.random.default_rng(3)
    y = rng.permutation(np.arange(48) % 3) * 2 + 1
    X = 0.5 * rng.normal(size=(48, 3)) + 0.8 * np.eye(3)[(y - 1) // 2]
    labeled = np.zeros(48, bool)
    labeled[rng.choice(48, 18, replace=False)] = True
    y_semi = np.where(labeled, y, -1)
    args = dict(family="knn", k=5, labeling=labeling, alpha=0.4, sigma_range=(0.3, 3.0))
    curve = sslviz.loss_curve(X, y_semi, cv=3, **args)
    on_u = sslviz.loss_curve(X, y, labeled=labeled, **args)
    assert curve.breakpoints.size >= 2 and on_u.breakpoints.size >= 1
    inputs = api.check_inputs(X, y_semi)
    assert inputs.classes == (1, 3, 5)
    folds = api.label_folds(inputs, 3)
    spec, lab_spec = GraphSpec("knn", 5), LabelingSpec(labeling, alpha=0.4)
    codes = (y - 1) // 2
    whole = make_model(X, labeled, codes, spec, lab_spec)
    models = []
    for rows in folds:
        lab = labeled.copy()
        lab[rows] = False
        model = make_model(X, lab, codes, spec, lab_spec)
        models.append((model, np.searchsorted(model.unlabeled_idx, rows), codes[rows]))
    edges = curve.loss.edges
    for s in np.r_[0.5 * (edges[:-1] + edges[1:]), np.linspace(0.3, 3.0, 13)]:
        if np.min(np.abs(curve.breakpoints - s), initial=1.0) < 1e-6:
            continue
        errors = []
        for model, at, truth in models:
            (sc,) = model.scores([s], codes, 3, derivative=False)
            errors.append(np.mean(sc.degenerate[at] | (np.argmax(sc.F[at], 1) != truth)))
        assert curve.loss_at(s) == pytest.approx(np.mean(errors), abs=1e-12)
        if np.min(np.abs(on_u.breakpoints - s), initial=1.0) > 1e-6:
            (sc,) = whole.scores([s], codes, 3, derivative=False)
            wrong = np.argmax(sc.F, 1) != codes[whole.unlabeled_idx]
            assert on_u.loss_at(s) == pytest.approx(np.mean(sc.degenerate | wrong), abs=1e-12)
    assert on_u.to_dict()["settings"]["classes"] == [1, 3, 5]


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            dict(y=np.r_[np.full(30, 2), np.full(30, -1)], labeled=None),
            "take 2 to 10 classes; y has 1",
        ),
        (
            dict(y=np.r_[np.arange(11), np.full(49, -1)], labeled=None),
            "take 2 to 10 classes; y has 11",
        ),
        (dict(X=np.zeros(5)), "X must be a table of points"),
        (dict(sigma_range=(1, 2), gamma_range=(1, 2)), "not both"),
        (dict(sigma_range=(2, 1)), "two positive numbers, low < high"),
        (dict(labeling="spreading", alpha=1.0), "greater than 0 and smaller than 1"),
        (dict(labeled=np.ones(60, bool)), "Every point is labeled"),
        (dict(y=np.r_[[0.5], np.zeros(59)]), "not fractions"),
    ],
)
def test_bad_input_is_refused_in_words(change, words):
    X, y, labeled = _data()
    args = dict(X=X, y=y, labeled=labeled, family="knn", k=5) | change
    with pytest.raises(ValueError, match=words):
        sslviz.loss_curve(args.pop("X"), args.pop("y"), **args)


def test_intervals_needs_the_labels_of_u():
    X, y, labeled = _data()
    with pytest.raises(ValueError, match="needs their labels"):
        sslviz.intervals(X, np.where(labeled, y, -1))


@pytest.mark.slow  # a subprocess
def test_notebook_view_and_lazy_import():
    X, y, labeled = _data()
    curve = sslviz.loss_curve(X, y, labeled=labeled, sigma_range=(0.5, 4.0))
    html = curve._repr_html_()
    assert html.count("<tr>") == min(len(curve.pieces), 12) + 1 + (len(curve.pieces) > 12)
    assert repr(curve).startswith("LossCurveResult(the loss on the unlabeled points")
    code = "import sys, sslviz; print('sslviz.api' in sys.modules, callable(sslviz.loss_curve))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.split() == ["False", "True"]
    assert {"loss_curve", "intervals", "condition"} <= set(dir(sslviz))
    module = importlib.import_module("sslviz.intervals")  # Algorithm 4's public names
    assert sslviz.intervals is module and module.sweep is not None and callable(module)


@pytest.mark.slow  # the example runs every entry point (about 30 s)
def test_docs_python_example_runs_and_prints_what_it_says():
    text = (ROOT / "docs" / "python.md").read_text()
    code = re.findall(r"```python\n(.*?)```", text, re.S)[0]
    printed = re.findall(r"It prints.*?\n\n```\n(.*?)```", text, re.S)[0]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/python.md", "exec"), {})
    assert out.getvalue() == printed
