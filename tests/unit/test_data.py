"""Tests for sslviz.datasets and sslviz.data: datasets, user files, PCA and problem instances
(docs/method.md §2.1)."""

from __future__ import annotations

import bz2
import gzip
import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sslviz import datasets
from sslviz._validation import InvalidParameterError
from sslviz.data import Instance, make_instance
from sslviz.datasets import (
    DATASETS,
    Dataset,
    DatasetUnavailableError,
    data_root,
    load_dataset,
    load_file,
)

REPO = Path(__file__).resolve().parents[2]
DEBIAN_FASHION = Path("/usr/share/datasets/fashion-mnist")
IDX_FILES = (
    "train-images-idx3-ubyte",
    "train-labels-idx1-ubyte",
    "t10k-images-idx3-ubyte",
    "t10k-labels-idx1-ubyte",
)


@pytest.fixture(scope="module")
def digits() -> Dataset:
    return load_dataset("digits")


def _toy(n0: int = 30, n1: int = 20, p: int = 5, seed: int = 0, labeled=None) -> Dataset:
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(0, 1, (n0, p)), rng.normal(3, 1, (n1, p))])
    y = np.r_[np.full(n0, 4), np.full(n1, 7)]
    return Dataset("toy", X, y, None, {}, labeled)


def _write_idx(path: Path, arr: np.ndarray, gz: bool = False) -> None:
    arr = np.asarray(arr, dtype=np.uint8)
    blob = struct.pack(">BBBB", 0, 0, 0x08, arr.ndim) + struct.pack(f">{arr.ndim}I", *arr.shape)
    blob += arr.tobytes()
    path.parent.mkdir(parents=True, exist_ok=True)
    if gz:
        with gzip.open(path.with_name(path.name + ".gz"), "wb") as f:
            f.write(blob)
    else:
        path.write_bytes(blob)


def _write_mnist(folder: Path, n: int = 20, gz: bool = False, seed: int = 0):
    """Four IDX files in the real format: ``n`` train images 28x28, labels 0..9 repeated."""
    rng = np.random.default_rng(seed)
    images = rng.integers(0, 256, size=(n, 28, 28), dtype=np.uint8)
    labels = np.arange(n, dtype=np.uint8) % 10
    _write_idx(folder / IDX_FILES[0], images, gz)
    _write_idx(folder / IDX_FILES[1], labels, gz)
    _write_idx(folder / IDX_FILES[2], images[:5], gz)
    _write_idx(folder / IDX_FILES[3], labels[:5], gz)
    return images, labels


# --- named datasets ---------------------------------------------------------------------


def test_digits_loads(digits):
    assert digits.name == "digits"
    assert digits.X.shape == (1797, 64) and digits.X.dtype == np.float64
    assert digits.y.shape == (1797,) and digits.y.dtype == np.int64
    assert digits.X.min() == 0.0 and digits.X.max() == 1.0
    assert digits.image_shape == (8, 8)
    assert digits.class_names == {d: str(d) for d in range(10)}
    assert digits.classes == tuple(range(10))
    assert digits.labeled is None
    assert not digits.X.flags.writeable and not digits.y.flags.writeable


def test_load_dataset_is_cached(digits):
    assert load_dataset("digits") is digits
    assert load_dataset() is digits  # the default needs no download
    assert "digits" in DATASETS


def test_data_root_precedence(tmp_path, monkeypatch):
    monkeypatch.setenv("SSLVIZ_DATA", str(tmp_path / "env"))
    assert data_root(tmp_path / "arg") == tmp_path / "arg"
    assert data_root() == tmp_path / "env"
    monkeypatch.delenv("SSLVIZ_DATA")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert data_root() == tmp_path / "home" / ".cache" / "sslviz"


def test_unknown_dataset_name():
    with pytest.raises(InvalidParameterError, match=r"^'name' must be digits, .* not 'cifar'\.$"):
        load_dataset("cifar")


def test_import_does_not_import_torch():
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    )
    code = (
        "import sslviz.data, sslviz.datasets, sys; "
        "assert 'torch' not in sys.modules, 'torch imported'"
    )
    res = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert res.returncode == 0, res.stderr


def test_mnist_unavailable_names_place_and_fix(tmp_path):
    with pytest.raises(DatasetUnavailableError) as info:
        load_dataset("mnist", root=tmp_path)
    msg = str(info.value)
    assert "'mnist'" in msg
    assert str(tmp_path.resolve() / "MNIST" / "raw") in msg
    assert "--dataset mnist --download" in msg and "download=True" not in msg
    assert "\n" not in msg  # one line
    assert isinstance(info.value, FileNotFoundError)


def test_usps_unavailable(tmp_path):
    with pytest.raises(DatasetUnavailableError, match=r"usps\.bz2[\s\S]*--download"):
        load_dataset("usps", root=tmp_path)


def test_fashion_unavailable_suggests_apt(tmp_path, monkeypatch):
    monkeypatch.setattr(datasets, "DEBIAN_FASHION_MNIST", tmp_path / "no-debian")
    with pytest.raises(DatasetUnavailableError) as info:
        load_dataset("fashion-mnist", root=tmp_path / "root")
    msg = str(info.value)
    assert "apt-get install dataset-fashion-mnist" in msg
    assert str(tmp_path / "no-debian") in msg and "FashionMNIST" in msg and "--download" in msg


def test_mnist_from_idx_files(tmp_path):
    images, labels = _write_mnist(tmp_path / "MNIST" / "raw")
    ds = load_dataset("mnist", root=tmp_path)
    assert ds.X.shape == (20, 784) and ds.image_shape == (28, 28)
    np.testing.assert_array_equal(ds.X, images.reshape(20, 784) / 255.0)
    np.testing.assert_array_equal(ds.y, labels)
    assert ds.class_names[3] == "3"
    assert load_dataset("mnist", root=tmp_path) is ds
    inst = make_instance(ds, (0, 1), n=4, n_labeled=2, pca=3)
    assert inst.X.shape == (4, 3) and sorted(inst.y_labeled.tolist()) == [0, 1]


@pytest.mark.slow  # over 2 s: outside the quick run
def test_idx_files_read_as_torchvision_reads_them(tmp_path):
    """The direct IDX reader gives the arrays torchvision's MNIST gives for the same files."""
    tvd = pytest.importorskip("torchvision.datasets", reason="the reference is torchvision")
    _write_mnist(tmp_path / "MNIST" / "raw", seed=3)
    ours = load_dataset("mnist", root=tmp_path)
    ref = tvd.MNIST(str(tmp_path), train=True)
    theirs = datasets._idx_dataset("mnist", ref.data.numpy(), ref.targets.numpy())
    for a, b in ((ours.X, theirs.X), (ours.y, theirs.y)):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()


def test_local_idx_files_do_not_import_torchvision(tmp_path):
    """Reading MNIST files on this machine needs no torchvision (its import took 3.6 s)."""
    _write_mnist(tmp_path / "MNIST" / "raw", gz=True)
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    )
    code = (
        "import sys; from sslviz.datasets import load_dataset\n"
        f"ds = load_dataset('mnist', root={str(tmp_path)!r})\n"
        "assert ds.X.shape == (20, 784)\n"
        "assert 'torchvision' not in sys.modules and 'torch' not in sys.modules\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert res.returncode == 0, res.stderr


def test_mnist_gz_in_raw_folder_is_read(tmp_path):
    images, labels = _write_mnist(tmp_path / "MNIST" / "raw", gz=True)
    ds = load_dataset("mnist", root=tmp_path)
    np.testing.assert_array_equal(ds.X, images.reshape(20, 784) / 255.0)
    np.testing.assert_array_equal(ds.y, labels)


def test_idx_reader_without_torchvision(tmp_path, monkeypatch):
    images, labels = _write_mnist(tmp_path / "MNIST" / "raw", seed=1)
    monkeypatch.setattr(datasets, "_import_torchvision", lambda: None)
    ds = load_dataset("mnist", root=tmp_path)
    np.testing.assert_array_equal(ds.X, images.reshape(20, 784) / 255.0)
    np.testing.assert_array_equal(ds.y, labels)
    with pytest.raises(ImportError, match=r"pip install torch==2\.14\.1 torchvision==0\.29\.1"):
        load_dataset("mnist", root=tmp_path / "empty", download=True)


def test_fashion_from_debian_style_folder(tmp_path, monkeypatch):
    # A stand-in for /usr/share/datasets/fashion-mnist: the four files, gzipped.
    debian = tmp_path / "debian"
    images, labels = _write_mnist(debian, gz=True, seed=2)
    monkeypatch.setattr(datasets, "DEBIAN_FASHION_MNIST", debian)
    ds = load_dataset("fashion-mnist", root=tmp_path / "root")
    np.testing.assert_array_equal(ds.X, images.reshape(20, 784) / 255.0)
    assert ds.class_names[0] == "T-shirt/top" and ds.class_names[1] == "Trouser"
    assert not (tmp_path / "root").exists()  # read in place, nothing unpacked


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_usps_from_bz2(tmp_path):
    pytest.importorskip("torchvision", reason="torchvision reads USPS; not installed")
    rng = np.random.default_rng(0)
    values = rng.integers(-8, 9, size=(12, 256)) / 8.0  # exact in float32, in [-1, 1]
    labels = np.arange(12) % 10 + 1  # LIBSVM labels 1..10; torchvision subtracts 1
    lines = [
        f"{lab} " + " ".join(f"{j + 1}:{v:g}" for j, v in enumerate(row))
        for lab, row in zip(labels, values, strict=True)
    ]
    with bz2.open(tmp_path / "usps.bz2", "wt") as f:
        f.write("\n".join(lines) + "\n")
    ds = load_dataset("usps", root=tmp_path)
    assert ds.X.shape == (12, 256) and ds.image_shape == (16, 16)
    np.testing.assert_array_equal(ds.y, labels - 1)
    assert ds.X.min() >= 0.0 and ds.X.max() <= 1.0
    np.testing.assert_allclose(ds.X, (values + 1) / 2, atol=1 / 255 + 1e-12)


@pytest.mark.slow
@pytest.mark.skipif(
    not (DEBIAN_FASHION / "train-images-idx3-ubyte.gz").is_file(),
    reason="Debian's copy is absent (apt-get install dataset-fashion-mnist)",
)
def test_fashion_mnist_real_debian_files(tmp_path):
    ds = load_dataset("fashion-mnist", root=tmp_path)
    assert ds.X.shape == (60000, 784) and ds.image_shape == (28, 28)
    assert ds.X.min() == 0.0 and ds.X.max() == 1.0
    assert np.bincount(ds.y).tolist() == [6000] * 10
    assert ds.class_names[0] == "T-shirt/top" and ds.class_names[1] == "Trouser"
    inst = make_instance(ds, (0, 1), n=200, n_labeled=10, seed=0)
    assert inst.X.shape == (200, 45)
    np.testing.assert_array_equal(inst.y, (ds.y[inst.rows] == 1).astype(int))
    assert set(inst.y_labeled.tolist()) == {0, 1}


# --- make_instance ------------------------------------------------------------------------


def test_make_instance_shapes(digits):
    inst = make_instance(digits, (3, 8), n=80, n_labeled=12, seed=5)
    assert isinstance(inst, Instance)
    assert inst.X.shape == (80, 45) and inst.X.dtype == np.float64
    assert inst.y.shape == inst.labeled.shape == inst.rows.shape == (80,)
    assert inst.n == 80 and inst.n_labeled == 12
    assert inst.classes == (3, 8) and inst.seed == 5
    assert inst.labeled[:12].all() and not inst.labeled[12:].any()
    np.testing.assert_array_equal(inst.labeled_idx, np.arange(12))
    np.testing.assert_array_equal(inst.unlabeled_idx, np.arange(12, 80))
    np.testing.assert_array_equal(inst.y_labeled, inst.y[:12])
    np.testing.assert_array_equal(inst.y_unlabeled, inst.y[12:])
    assert len(set(inst.rows.tolist())) == 80  # without replacement


def test_rows_map_back_to_labels(digits):
    inst = make_instance(digits, (3, 8), n=80, n_labeled=12, seed=5)
    assert set(digits.y[inst.rows].tolist()) <= {3, 8}
    np.testing.assert_array_equal(inst.y, (digits.y[inst.rows] == 8).astype(np.int64))


@pytest.mark.parametrize("classes", [(0, 1), (1, 7), (9, 2)])
def test_both_classes_labeled_for_many_seeds(digits, classes):
    for seed in range(60):
        inst = make_instance(digits, classes, n=10, n_labeled=2, seed=seed)
        assert sorted(inst.y_labeled.tolist()) == [0, 1]


def test_labeled_set_is_stratified():
    ds = _toy(n0=90, n1=10)
    for seed in range(20):
        inst = make_instance(ds, (4, 7), n=60, n_labeled=10, seed=seed, pca=0)
        assert int(inst.y_labeled.sum()) == 1  # 10% of the pool, at least one
    inst = make_instance(_toy(40, 40), (4, 7), n=60, n_labeled=10, seed=0, pca=0)
    assert int(inst.y_labeled.sum()) == 5


def test_deterministic_and_seed_dependent(digits):
    a = make_instance(digits, (0, 1), n=50, n_labeled=6, seed=11)
    b = make_instance(digits, (0, 1), n=50, n_labeled=6, seed=11)
    c = make_instance(digits, (0, 1), n=50, n_labeled=6, seed=12)
    np.testing.assert_array_equal(a.rows, b.rows)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.labeled, b.labeled)
    assert not np.array_equal(a.rows, c.rows)


def test_pca_fitted_on_pool_shared_across_seeds(digits):
    from sklearn.decomposition import PCA

    pool = np.flatnonzero(np.isin(digits.y, (0, 1)))
    ref = PCA(n_components=10, svd_solver="full").fit_transform(digits.X[pool])
    where = {r: i for i, r in enumerate(pool)}
    for seed in (0, 1):
        inst = make_instance(digits, (0, 1), n=40, n_labeled=4, seed=seed, pca=10)
        assert inst.X.shape == (40, 10)
        np.testing.assert_allclose(inst.X, ref[[where[r] for r in inst.rows]], atol=1e-10)


def test_pca_zero_keeps_features(digits):
    inst = make_instance(digits, (0, 1), n=30, n_labeled=4, seed=0, pca=0)
    assert inst.X.shape == (30, 64)
    np.testing.assert_array_equal(inst.X, digits.X[inst.rows])


def test_instance_arrays_read_only_and_dataset_unchanged(digits):
    X0 = digits.X.copy()
    inst = make_instance(digits, (0, 1), n=30, n_labeled=4, seed=0)
    np.testing.assert_array_equal(digits.X, X0)
    with pytest.raises(ValueError, match="read-only"):
        inst.X[0, 0] = 1.0


def test_options_are_keyword_only(digits):
    with pytest.raises(TypeError):
        make_instance(digits, (0, 1), 50)  # type: ignore[misc]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"classes": (0, 12)}, InvalidParameterError, r"^classes .* are 0, 1, .*; 12 is not among"),
        ({"classes": (3, 3)}, InvalidParameterError, r"^classes must name two different classes"),
        ({"classes": (0,)}, InvalidParameterError, r"^classes names one class only \(0\)"),
        (
            {"n": 10_000},
            InvalidParameterError,
            r"^n must be a whole number between 3 and 360, the size of the pool of classes 0 "
            r"and 1 in digits, not 10,000\.$",
        ),
        (
            {"n": 2},
            InvalidParameterError,
            r"^n must be a whole number between 3 and 360, .*not 2\.",
        ),
        ({"n": 2.5}, TypeError, r"^n must be a whole number .*not 2\.5\."),
        (
            {"n_labeled": 1},
            InvalidParameterError,
            r"^\|L\| .* between 2 and 49 \(below n = 50\), not 1",
        ),
        ({"n_labeled": 50}, InvalidParameterError, r"^\|L\| .* between 2 and 49 .*, not 50"),
        (
            {"pca": 65},
            InvalidParameterError,
            r"^PCA dims .* between 0 and 64, the number of features of digits .*not 65",
        ),
        ({"pca": -1}, InvalidParameterError, r"^PCA dims .* not -1"),
        ({"seed": -1}, InvalidParameterError, r"^seed must be a whole number at least 0, not -1"),
    ],
)
def test_make_instance_validation(digits, kwargs, error, match):
    params = {"classes": (0, 1), "n": 50, "n_labeled": 10, "seed": 0, "pca": 45} | kwargs
    classes = params.pop("classes")
    with pytest.raises(error, match=match):
        make_instance(digits, classes, **params)


def test_pca_larger_than_pool():
    with pytest.raises(InvalidParameterError, match=r"^PCA dims .* 0 and 8, the number of rows"):
        make_instance(_toy(4, 4, p=20), (4, 7), n=6, n_labeled=2, pca=9)


# --- user files -------------------------------------------------------------------------


def test_npz_roundtrip(tmp_path):
    ds = _toy()
    np.savez(tmp_path / "toy.npz", X=ds.X, y=ds.y)
    got = load_file(tmp_path / "toy.npz")
    assert got.name == "toy.npz" and got.image_shape is None and got.labeled is None
    np.testing.assert_array_equal(got.X, ds.X)
    np.testing.assert_array_equal(got.y, ds.y)
    assert got.class_names == {4: "4", 7: "7"}
    inst = make_instance(got, (4, 7), n=20, n_labeled=4, pca=3)
    assert inst.X.shape == (20, 3)


def test_npz_with_labeled_mask_uses_exact_rows(tmp_path):
    ds = _toy(n0=6, n1=6, p=4)
    labeled = np.zeros(12, dtype=bool)
    labeled[[1, 7, 10]] = True
    np.savez(tmp_path / "fixed.npz", X=ds.X, y=ds.y, labeled=labeled)
    got = load_file(tmp_path / "fixed.npz")
    for seed, n in ((0, 5), (3, 100)):  # n, n_labeled and seed play no part
        inst = make_instance(got, (4, 7), n=n, n_labeled=2, seed=seed, pca=0)
        np.testing.assert_array_equal(inst.rows, np.arange(12))
        np.testing.assert_array_equal(inst.X, ds.X)
        np.testing.assert_array_equal(inst.labeled, labeled)
        np.testing.assert_array_equal(inst.y, (ds.y == 7).astype(int))
    flipped = make_instance(got, (7, 4), pca=2)
    np.testing.assert_array_equal(flipped.y, (ds.y == 4).astype(int))
    assert flipped.X.shape == (12, 2)


def test_labeled_mask_errors(tmp_path):
    X = np.random.default_rng(0).normal(size=(6, 3))
    y = np.array([0, 0, 1, 1, 2, 2])
    labeled = np.array([1, 0, 1, 0, 0, 0], dtype=bool)
    ds = Dataset("m", X, y, None, {}, labeled)
    with pytest.raises(InvalidParameterError, match=r"but some are of class 2\.$"):
        make_instance(ds, (0, 1), pca=0)
    ds2 = Dataset("m", X[:4], y[:4], None, {}, np.array([1, 1, 0, 0], dtype=bool))
    with pytest.raises(InvalidParameterError, match=r"labeled set must hold both classes 0 and 1"):
        make_instance(ds2, (0, 1), pca=0)
    with pytest.raises(InvalidParameterError, match=r"^PCA dims .* between 0 and 3"):
        make_instance(Dataset("m", X[:4], y[:4], None, {}, labeled[:4]), (0, 1), pca=4)


def test_csv_with_label_column(tmp_path):
    (tmp_path / "a.csv").write_text("f1,label,f2\n0.5,3,1\n1.5,5,2\n2.5,3,3\n")
    ds = load_file(tmp_path / "a.csv")
    np.testing.assert_array_equal(ds.X, [[0.5, 1], [1.5, 2], [2.5, 3]])
    np.testing.assert_array_equal(ds.y, [3, 5, 3])
    (tmp_path / "b.csv").write_text("a,b,cls\n0,1,1\n1,0,0\n")  # no label column: refused
    with pytest.raises(InvalidParameterError, match=r"^b\.csv has no label column.*a, b, cls"):
        load_file(tmp_path / "b.csv")
    (tmp_path / "c.csv").write_text("y,a\n2,0.25\n4,0.75\n")
    np.testing.assert_array_equal(load_file(tmp_path / "c.csv").y, [2, 4])


@pytest.mark.parametrize(
    ("name", "arrays", "match"),
    [
        ("nox.npz", {"y": np.zeros(3)}, r"must hold arrays 'X' and 'y'; missing 'X'"),
        ("shape.npz", {"X": np.zeros((3, 2)), "y": np.zeros(4)}, r"y must have shape \(3,\)"),
        ("flat.npz", {"X": np.zeros(3), "y": np.zeros(3)}, r"X must be a non-empty table"),
        ("nan.npz", {"X": np.array([[0.0, np.nan]]), "y": [1]}, r"1 non-finite values"),
        ("ylab.npz", {"X": np.zeros((2, 2)), "y": [0.5, 1]}, r"integer class labels"),
        (
            "mask.npz",
            {"X": np.zeros((2, 2)), "y": [0, 1], "labeled": [True]},
            r"labeled must have shape",
        ),
        (
            "img.npz",
            {"X": np.zeros((2, 4)), "y": [0, 1], "image_shape": [3, 3]},
            r"image_shape must be two whole numbers",
        ),
    ],
)
def test_bad_npz(tmp_path, name, arrays, match):
    np.savez(tmp_path / name, **arrays)
    with pytest.raises(InvalidParameterError, match=match):
        load_file(tmp_path / name)


def test_npz_with_pickled_object_array_is_refused(tmp_path):
    X = np.empty((2, 2), dtype=object)
    X[:] = [[0.0, 1.0], [1.0, 0.0]]
    np.savez(tmp_path / "obj.npz", X=X, y=np.array([0, 1]))
    with pytest.raises(InvalidParameterError, match=r"without pickle"):
        load_file(tmp_path / "obj.npz")


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("a,y\n", r"header row and at least one data row"),
        ("a,y\n1,0\n2\n", r"line 3 has 1 fields"),
        ("a,y\n1,0\nx,1\n", r"non-numeric value"),
        ("a,y\n1,0\ninf,1\n", r"non-finite"),
    ],
)
def test_bad_csv(tmp_path, text, match):
    (tmp_path / "bad.csv").write_text(text)
    with pytest.raises(InvalidParameterError, match=match) as err:
        load_file(tmp_path / "bad.csv")
    assert str(err.value).startswith("bad.csv") and str(tmp_path) not in str(err.value)


def test_missing_file_and_unknown_extension(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"No file at .*nothere\.npz"):
        load_file(tmp_path / "nothere.npz")
    (tmp_path / "data.txt").write_text("1 2 3\n")
    with pytest.raises(
        InvalidParameterError, match=r"^data\.txt: .*\.npz and \.csv files, not '\.txt'"
    ):
        load_file(tmp_path / "data.txt")
