"""sslviz.regret and sslviz.learn: the command line's experiments from Python, on the dataset
options or on arrays; ``to_dict()`` equals the command's JSON, and the results show
themselves in a notebook with the document's numbers."""

import json

import numpy as np
import pytest

import sslviz
from sslviz._validation import InvalidParameterError
from sslviz.cli import main
from sslviz.export import without_timings


def _cli(tmp_path, args):
    out = tmp_path / "out.json"
    assert main([*args, "--no-timings", "--out", str(out)]) == 0
    return json.loads(out.read_text())


def _arrays(seed=6, n=50, n_labeled=8):
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.arange(n) % 2) + 4  # classes 4 and 5
    X = rng.normal(size=(n, 4)) + 0.4 * (y[:, None] - 4)
    labeled = np.zeros(n, bool)
    labeled[rng.choice(n, n_labeled, replace=False)] = True
    return X, y, labeled


@pytest.mark.slow  # over 2 s: outside the quick run
def test_regret_on_the_dataset_options_is_the_cli_document(tmp_path):
    result = sslviz.regret(
        dataset="digits", classes=(3, 8), n=40, n_labeled=6, family="knn", k=5, rounds=6,
        repeats=2, feedback=("approx", "full"), sigma_range=(0.8, 4.0),
    )  # fmt: skip
    doc = _cli(
        tmp_path,
        ["regret", "--dataset", "digits", "--classes", "3", "8", "--n", "40", "--labeled", "6",
         "--family", "knn", "--k", "5", "--rounds", "6", "--repeats", "2", "--feedback",
         "approx,full", "--sigma-min", "0.8", "--sigma-max", "4"],
    )  # fmt: skip
    assert without_timings(result.to_dict()) == doc
    final = {m: v["regret_mean"][-1] for m, v in doc["models"].items()}
    assert result.final_regret == final and set(final) == {"approx", "full"}
    for m, v in final.items():
        assert f"{m} {v:.4g}" in repr(result) and f"{v:.4g}" in result._repr_html_()
    names = {t.name for t in result.figure().data}
    assert any("approx" in str(n) for n in names)


@pytest.mark.slow  # over 2 s: outside the quick run
def test_regret_on_arrays_is_the_cli_document_of_their_file(tmp_path):
    X, y, labeled = _arrays()
    result = sslviz.regret(X, y, labeled=labeled, rounds=4, repeats=2, gamma_range=(0.1, 2.0))
    data_file = result.to_dict()["settings"]["data_file"]
    with np.load(data_file) as f:  # the arrays, as given
        np.testing.assert_array_equal(f["X"], X)
        np.testing.assert_array_equal(f["y"], y)
        np.testing.assert_array_equal(f["labeled"], labeled)
    lo, hi = float(1 / np.sqrt(2.0)), float(1 / np.sqrt(0.1))  # as gamma_range reads
    doc = _cli(
        tmp_path,
        ["regret", "--data-file", data_file, "--pca", "0", "--classes", "4", "5", "--rounds",
         "4", "--repeats", "2", "--sigma-min", repr(lo), "--sigma-max", repr(hi)],
    )  # fmt: skip
    assert without_timings(result.to_dict()) == doc
    assert doc["settings"]["pca"] == 0 and doc["settings"]["classes"] == [4, 5]
    assert doc["M"] > 1  # the loss has pieces to learn over


@pytest.mark.slow  # over 2 s: outside the quick run
def test_learn_is_the_cli_document(tmp_path):
    result = sslviz.learn(
        classes=(3, 8), n=40, n_labeled=6, instances=3, test_instances=2, curve=(1, 2),
        repeats=1, compare_t=(5,), sigma_range=(0.6, 3.0),
    )  # fmt: skip
    doc = _cli(
        tmp_path,
        ["learn", "--dataset", "digits", "--classes", "3", "8", "--n", "40", "--labeled", "6",
         "--instances", "3", "--test-instances", "2", "--curve", "1,2", "--repeats", "1",
         "--compare-t", "5", "--sigma-min", "0.6", "--sigma-max", "3"],
    )  # fmt: skip
    assert without_timings(result.to_dict()) == doc
    assert result.sigma_hat == doc["sigma_hat"]
    assert f"σ̂ = {doc['sigma_hat']:.4g}" in repr(result)
    assert f"{doc['test']['loss_at_sigma_hat']:.4g}" in repr(result)
    cg = doc["approximate"][0]
    assert cg["solver"] in result._repr_html_() and f"{cg['test_loss']:.4g}" in result._repr_html_()
    assert result.figure().data


def test_learn_is_the_module_and_the_function():
    import sslviz.learn as module

    assert callable(sslviz.learn) and sslviz.learn is module and hasattr(module, "erm")


@pytest.mark.parametrize(
    ("call", "error", "said"),
    [
        (lambda: sslviz.regret(rounds=3, round=4), TypeError, "regret() takes no setting 'round'"),
        (lambda: sslviz.learn(classes=(1,)), InvalidParameterError, "not one class only"),
        (lambda: sslviz.regret(np.zeros((4, 2))), InvalidParameterError, "Give both X and y"),
    ],
)
def test_bad_calls_are_one_clear_line(call, error, said):
    with pytest.raises(error) as info:
        call()
    assert said in str(info.value) and "\n" not in str(info.value)


def test_arrays_with_unknown_labels_are_refused_in_one_line():
    X, y, labeled = _arrays()
    y_semi = np.where(labeled, y, -1)
    with pytest.raises(InvalidParameterError, match="marks 42 points unlabeled with y = −1"):
        sslviz.regret(X, y_semi, classes=(4, 5), rounds=3, repeats=1)


@pytest.mark.slow  # over 2 s: outside the quick run
def test_the_docs_example_runs():
    import re
    from pathlib import Path

    text = (Path(__file__).parents[2] / "docs" / "python.md").read_text()
    code = next(c for c in re.findall(r"```python\n(.*?)```", text, re.S) if "sslviz.regret(" in c)
    scope: dict = {"sslviz": sslviz}
    exec(compile(code, "docs/python.md", "exec"), scope)
    result, learned = scope["result"], scope["learned"]
    assert result.to_dict()["rounds"] == 20 and result.to_dict()["repeats"] == 3
    assert set(result.final_regret) == set(result.to_dict()["models"])
    assert learned.to_dict()["instances"] == 4 and learned.sigma_hat > 0
