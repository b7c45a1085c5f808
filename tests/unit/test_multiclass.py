"""More than two classes (docs/method.md §13): the classes setting, the labeled draw, a
file's labeled mask, and the one-line errors of bad class lists."""

import numpy as np
import pytest

from sslviz import specs as S
from sslviz._validation import InvalidParameterError
from sslviz.cli import build_parser, main
from sslviz.data import make_instance
from sslviz.datasets import load_dataset, load_file


@pytest.fixture(scope="module")
def digits():
    return load_dataset("digits")


def three_class_file(tmp_path, labeled_classes=(0, 1, 2)):
    """90 points of three clusters; rows 0–5 labeled, two of each class in
    ``labeled_classes`` (other labeled rows are of class 0)."""
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1, 2], 30)
    centres = np.array([[0, 0, 0], [2, 0, 0], [0, 2, 0]], float)
    X = rng.normal(size=(90, 3)) + centres[y]
    firsts = [c for c in labeled_classes for _ in range(2)]
    firsts += [0] * (6 - len(firsts))
    lab_rows, taken = [], {0: 0, 1: 0, 2: 0}
    for c in firsts:
        lab_rows.append(30 * c + taken[c])
        taken[c] += 1
    order = np.r_[lab_rows, np.setdiff1d(np.arange(90), lab_rows)]
    labeled = np.zeros(90, bool)
    labeled[:6] = True
    path = tmp_path / "three.npz"
    np.savez(path, X=X[order], y=y[order], labeled=labeled)
    return path


def test_classes_setting_takes_lists_and_all():
    parser = build_parser()
    a = parser.parse_args(["loss", "--classes", "0", "1", "2"])
    assert S.from_options(a, S.ProblemSpec).classes == (0, 1, 2)
    a = parser.parse_args(["loss", "--classes", "all"])
    assert S.from_options(a, S.ProblemSpec).classes == S.ALL_CLASSES
    a = parser.parse_args(["loss", "--classes", "4", "9"])
    assert S.from_options(a, S.ProblemSpec).classes == (4, 9)
    for spec in (S.ProblemSpec(classes=(0, 1, 2)), S.ProblemSpec(classes="all")):
        query = S.to_query(spec)
        assert query["classes"] == ("0,1,2" if spec.classes else "all")
        values, warnings = S.from_query(S.ProblemSpec, query)
        assert not warnings and values["classes"] == spec.classes
        args = parser.parse_args(["loss", *S.to_command(spec)])
        assert S.from_options(args, S.ProblemSpec) == spec


@pytest.mark.parametrize(
    "classes, message",
    [
        ((1,), r"not one class only: add a class"),
        (tuple(range(11)), r"not 11: leave some out"),
        ((1, 1, 2), r"must not repeat a value \(1 is given twice\)"),
    ],
)
def test_bad_class_lists_are_refused_in_words(classes, message):
    with pytest.raises(InvalidParameterError, match=message):
        S.ProblemSpec(classes=classes)


@pytest.mark.parametrize("classes", [(0, 1, 2), (3, 8, 5, 1), tuple(range(10))])
def test_labeled_set_holds_every_class_for_many_seeds(digits, classes):
    C = len(classes)
    for seed in range(25):
        n_labeled = C + seed % 7
        inst = make_instance(digits, classes, n=80, n_labeled=n_labeled, seed=seed)
        assert inst.classes == classes and inst.n_classes == C
        assert inst.n_labeled == n_labeled and inst.labeled[:n_labeled].all()
        assert set(inst.y_labeled.tolist()) == set(range(C))
        # the labels are the indices of the classes in the list
        assert np.array_equal(np.asarray(classes)[inst.y], digits.y[inst.rows])
        assert np.unique(inst.rows).size == inst.n  # drawn without replacement


def test_labeled_counts_follow_the_pool_shares(digits):
    inst = make_instance(digits, tuple(range(10)), n=300, n_labeled=50, seed=1)
    counts = np.bincount(inst.y_labeled, minlength=10)
    pool = np.bincount(digits.y, minlength=10)
    assert counts.sum() == 50
    assert np.all(np.abs(counts - 50 * pool / pool.sum()) <= 1)


def test_all_is_every_class_of_the_dataset(digits):
    inst = make_instance(digits, S.ALL_CLASSES, n=100, n_labeled=20, seed=0)
    assert inst.classes == tuple(range(10))


def test_two_classes_stay_binary(digits):
    inst = make_instance(digits, (3, 8), n=60, n_labeled=6, seed=2)
    assert inst.n_classes == 2
    assert np.array_equal(inst.y, (digits.y[inst.rows] == 8).astype(int))


def test_file_mask_must_label_every_class(tmp_path):
    ok = make_instance(load_file(three_class_file(tmp_path)), (0, 1, 2), pca=0)
    assert set(ok.y_labeled.tolist()) == {0, 1, 2} and ok.n == 90
    bare = load_file(three_class_file(tmp_path, labeled_classes=(0, 1)))
    with pytest.raises(InvalidParameterError, match=r"labels no point of class 2; label at"):
        make_instance(bare, (0, 1, 2), pca=0)


def _one_line_exit_2(capsys, args):
    rc = main(args)
    err = capsys.readouterr().err.strip()
    assert rc == 2 and len(err.splitlines()) == 1 and "Traceback" not in err
    return err


def test_cli_errors_say_what_to_change(tmp_path, capsys):
    rng = ["--sigma-min", "1", "--sigma-max", "3"]
    f = three_class_file(tmp_path)
    base = ["loss", "--data-file", str(f), "--pca", "0", "--family", "knn", "--k", "6", *rng]
    err = _one_line_exit_2(capsys, [*base, "--classes", "1"])
    assert "--classes must name 2 to 10 different classes" in err and "add a class" in err
    err = _one_line_exit_2(capsys, [*base, "--classes", "0", "1", "7"])
    assert "7 is not among them" in err
    bare = three_class_file(tmp_path, labeled_classes=(0, 1))
    args = ["loss", "--data-file", str(bare), *base[3:], "--classes", "0", "1", "2"]
    err = _one_line_exit_2(capsys, args)
    assert "labels no point of class 2" in err
    digits = ["loss", "--dataset", "digits", "--n", "60", "--family", "knn", *rng]
    err = _one_line_exit_2(capsys, [*digits, "--labeled", "3", "--classes", "0", "1", "2", "3"])
    assert "--labeled 3 cannot hold one labeled point of each of the 4 classes" in err


def test_condition_trust_takes_three_classes_with_the_two_class_keys(capsys):
    """``condition --trust`` once refused 3+ classes in one line; it now writes the trust part
    one-vs-all (docs/method.md §13.9), with the keys of the two-class trust part."""
    import json

    base = ["condition", "--dataset", "digits", "--n", "60", "--labeled", "6"]
    base += ["--sigmas", "1.5:6:3", "--cg-iters", "4", "--trust", "--json", "--no-timings"]
    docs = []
    for classes in (["0", "1"], ["0", "1", "2"]):
        assert main([*base, "--classes", *classes]) == 0
        out = capsys.readouterr()
        assert "Traceback" not in out.err
        docs.append(json.loads(out.out))
    two, three = docs
    assert set(three["trust"]) == set(two["trust"])
    assert three["classes"] == [0, 1, 2] and "classes" not in two
    assert len(three["trust"]["margin"]) == len(three["trust"]["t_needed_cg"]) == 3
