"""Datasets: the named ones and a user's files, read once per process (docs/method.md §2.1).

A *dataset* is a labelled point cloud (images are flattened, pixels scaled to [0, 1]);
problem instances are drawn from it by :func:`sslviz.data.make_instance`.

Datasets available by name (see :data:`DATASETS`):

``'digits'``
    scikit-learn's ``load_digits`` (1,797 images of 8x8). Needs no download; the default.
``'fashion-mnist'``
    The Fashion-MNIST training split (60,000 images of 28x28). Read from the data root,
    or from the Debian package ``dataset-fashion-mnist`` (``/usr/share/datasets/fashion-mnist``).
``'mnist'``
    The MNIST training split (60,000 images of 28x28), downloaded through torchvision.
``'usps'``
    The USPS training split (7,291 images of 16x16), through torchvision.

MNIST and Fashion-MNIST files on this machine are read directly (IDX, gzipped or not: the
arrays torchvision reads from them, tested), without importing torchvision, whose import
would cost more than the reading. torchvision downloads them, and reads USPS; it is imported
only inside the loaders that need it, never when this module is imported.

A user's file (:func:`load_file`) is a ``.npz`` or ``.csv`` of features and labels.
"""

from __future__ import annotations

import csv
import gzip
import os
import struct
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from sslviz._validation import InvalidParameterError, check_option, options_text, value_text
from sslviz.specs import DATASETS, ProblemSpec, default

__all__ = [
    "DATASETS",
    "DEFAULT_DATASET",
    "Dataset",
    "DatasetUnavailableError",
    "data_root",
    "load_dataset",
    "load_file",
]


DEFAULT_DATASET: str = default(ProblemSpec, "dataset")
"""The dataset that needs no download."""

DEBIAN_FASHION_MNIST = Path("/usr/share/datasets/fashion-mnist")
"""Where Debian's ``dataset-fashion-mnist`` package puts its gzipped IDX files."""

TORCH_INSTALL = "pip install torch==2.14.1 torchvision==0.29.1"

FASHION_MNIST_CLASSES = (
    "T-shirt/top",
    "Trouser",
    "Pullover",
    "Dress",
    "Coat",
    "Sandal",
    "Shirt",
    "Sneaker",
    "Bag",
    "Ankle boot",
)

# The un-gzipped names torchvision's MNIST/FashionMNIST ``_check_exists`` requires (all four,
# whichever split is loaded) under ROOT/<ClassName>/raw/.
_IDX_FILES = (
    "train-images-idx3-ubyte",
    "train-labels-idx1-ubyte",
    "t10k-images-idx3-ubyte",
    "t10k-labels-idx1-ubyte",
)
_USPS_FILE = "usps.bz2"
_DIGIT_NAMES = {d: str(d) for d in range(10)}


class DatasetUnavailableError(FileNotFoundError):
    """A named dataset is not on this machine and may not be downloaded.

    The message names the dataset, every place that was looked in and the command or option
    that gets it.
    """


# --------------------------------------------------------------------------------------
# Result types
# --------------------------------------------------------------------------------------


def readonly(a: np.ndarray) -> np.ndarray:
    """A read-only view of ``a`` (the caller's own array keeps its flags)."""
    v = a.view()
    v.flags.writeable = False
    return v


def kind_text(arr: np.ndarray) -> str:
    """What an array holds, in words (never a dtype): "text", "true/false values", ..."""
    return {
        "U": "text",
        "S": "text",
        "O": "Python objects",
        "b": "true/false values",
        "M": "dates",
        "m": "durations",
        "c": "complex numbers",
        "f": "numbers with fractions",
    }.get(arr.dtype.kind, "values that are not numbers")


def as_labels(y: Any, what: str) -> np.ndarray:
    """``y`` as int64, refusing non-integral values."""
    arr = np.asarray(y)
    if arr.dtype == np.bool_ or not (
        np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)
    ):
        raise InvalidParameterError(
            f"{what} must hold integer class labels; it holds {kind_text(arr)}."
        )
    if np.issubdtype(arr.dtype, np.floating):
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise InvalidParameterError(
                f"{what} must hold integer class labels; got non-integral or non-finite values."
            )
    return arr.astype(np.int64)


@dataclass(frozen=True, eq=False)
class Dataset:
    """A labelled point cloud: the source that instances are drawn from.

    Attributes
    ----------
    name : str
        ``'digits'``, ``'fashion-mnist'``, ``'mnist'``, ``'usps'`` or, for a user file,
        the file's name.
    X : ndarray of shape (n_samples, n_features), dtype float64
        Features. For image datasets the flattened pixels scaled to [0, 1]. Read-only.
    y : ndarray of shape (n_samples,), dtype int64
        Original class labels. Read-only.
    image_shape : tuple of (int, int) or None
        ``(height, width)`` of an image, with ``height * width == n_features``:
        ``(8, 8)`` digits, ``(28, 28)`` (Fashion-)MNIST, ``(16, 16)`` USPS; None for user
        files that do not give one.
    class_names : dict of int to str
        Name of each class label, e.g. ``{0: 'T-shirt/top', 1: 'Trouser', ...}``.
    labeled : ndarray of shape (n_samples,), dtype bool, or None
        A fixed labeled set, only for a user ``.npz`` that carries one. When present,
        :func:`make_instance` uses exactly the file's rows with this labeled set.

    Notes
    -----
    Compared by identity (``eq=False``), so a dataset can key a cache.
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    image_shape: tuple[int, int] | None
    class_names: dict[int, str]
    labeled: np.ndarray | None = None

    def __post_init__(self) -> None:
        X = np.asarray(self.X, dtype=np.float64)
        if X.ndim != 2:
            raise InvalidParameterError(
                f"{self.name}: X must be a table, one row per point (2-D); its shape is {X.shape}."
            )
        y = as_labels(self.y, f"{self.name}: y")
        if y.shape != (X.shape[0],):
            raise InvalidParameterError(
                f"{self.name}: y must have shape ({X.shape[0]},), one label per row of X; "
                f"its shape is {y.shape}."
            )
        if not np.all(np.isfinite(X)):
            raise InvalidParameterError(
                f"{self.name}: X holds {int(np.sum(~np.isfinite(X)))} non-finite values."
            )
        shape = self.image_shape
        if shape is not None:
            shape = (int(shape[0]), int(shape[1]))
            if shape[0] * shape[1] != X.shape[1]:
                raise InvalidParameterError(
                    f"{self.name}: image_shape {shape} does not match its "
                    f"{X.shape[1]} features (height × width must be their number)."
                )
        labeled = self.labeled
        if labeled is not None:
            labeled = np.asarray(labeled)
            if labeled.dtype != np.bool_ or labeled.shape != y.shape:
                raise InvalidParameterError(
                    f"{self.name}: labeled must hold one true/false value per row "
                    f"({X.shape[0]}); it holds {labeled.size} {kind_text(labeled)}."
                )
            labeled = readonly(labeled)
        names = {int(c): str(s) for c, s in dict(self.class_names).items()}
        for c in np.unique(y):
            names.setdefault(int(c), str(int(c)))
        object.__setattr__(self, "X", readonly(X))
        object.__setattr__(self, "y", readonly(y))
        object.__setattr__(self, "image_shape", shape)
        object.__setattr__(self, "class_names", names)
        object.__setattr__(self, "labeled", labeled)

    @property
    def n_samples(self) -> int:
        """Number of rows."""
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        """Number of columns of ``X``."""
        return int(self.X.shape[1])

    @property
    def classes(self) -> tuple[int, ...]:
        """The class labels present, sorted (−1, an unlabeled point's mark, is none)."""
        return tuple(int(c) for c in np.unique(self.y) if c != -1)

    def __repr__(self) -> str:
        return (
            f"Dataset(name={self.name!r}, n_samples={self.n_samples}, "
            f"n_features={self.n_features}, classes={self.classes}, "
            f"image_shape={self.image_shape}, labeled={self.labeled is not None})"
        )


# --------------------------------------------------------------------------------------
# Data root and named datasets
# --------------------------------------------------------------------------------------


def data_root(root: str | os.PathLike[str] | None = None) -> Path:
    """Folder that holds downloaded datasets.

    Parameters
    ----------
    root : str or path-like, optional
        Used when given. Otherwise ``$SSLVIZ_DATA`` when set and non-empty, otherwise
        ``~/.cache/sslviz``.

    Returns
    -------
    Path
        The folder, with ``~`` expanded. It is not created.
    """
    if root is None:
        root = os.environ.get("SSLVIZ_DATA") or Path.home() / ".cache" / "sslviz"
    if not isinstance(root, str | os.PathLike):
        raise TypeError(f"'root' must be a folder's path or None, not {value_text(root)}.")
    return Path(root).expanduser()


_DATASET_CACHE: dict[tuple[str, str | None], Dataset] = {}
"""The process's one dataset cache: named datasets by (name, folder), user files by
(path, size:mtime). Datasets are read-only, so every caller may share them."""
_MAX_FILES = 8  # user files kept (the oldest is dropped first)
_LOCK = threading.Lock()


def load_dataset(
    name: str = DEFAULT_DATASET,
    *,
    root: str | os.PathLike[str] | None = None,
    download: bool = False,
) -> Dataset:
    """Load a named dataset (training split).

    Parameters
    ----------
    name : {'digits', 'fashion-mnist', 'mnist', 'usps'}, default='digits'
        Which dataset. ``'digits'`` is bundled with scikit-learn and needs no download.
    root : str or path-like, optional
        Data folder; see :func:`data_root`. Ignored for ``'digits'``.
    download : bool, default=False
        Download ``'mnist'``, ``'usps'`` or ``'fashion-mnist'`` into ``root`` when they are
        not found there (needs torchvision and network access).

    Returns
    -------
    Dataset
        Pixels scaled to [0, 1] as float64, labels as int64. Loaded once per
        ``(name, root)`` in a process; later calls return the same object.

    Raises
    ------
    DatasetUnavailableError
        The dataset is not on this machine and ``download`` is False, or the download failed.
    ImportError
        torchvision is needed (to download, or to read USPS) and is not installed.

    Notes
    -----
    Fashion-MNIST is looked for in ``root/FashionMNIST/raw/`` (un-gzipped or gzipped) and
    then in Debian's ``/usr/share/datasets/fashion-mnist`` (gzipped, read in place).
    """
    name = check_option("name", name, "load_dataset", DATASETS)
    if not isinstance(download, bool):
        raise TypeError(f"'download' must be True or False, not {value_text(download)}.")
    folder = None if name == "digits" else data_root(root).resolve()
    key = (name, None if folder is None else str(folder))
    with _LOCK:
        cached = _DATASET_CACHE.get(key)
    if cached is not None:
        return cached
    if name == "digits":
        dataset = _load_digits()
    elif name == "usps":
        dataset = _load_usps(folder, download)
    else:
        dataset = _load_idx_dataset(name, folder, download)
    with _LOCK:
        return _DATASET_CACHE.setdefault(key, dataset)


def _digits_file() -> Path | None:
    """scikit-learn's ``datasets/data/digits.csv.gz``, found without importing scikit-learn
    (None when it is not where it was in scikit-learn 1.x)."""
    import importlib.util

    spec = importlib.util.find_spec("sklearn")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / "datasets" / "data" / "digits.csv.gz"
        if path.is_file():
            return path
    return None


def _load_digits() -> Dataset:
    """scikit-learn's digits, read the way ``sklearn.datasets.load_digits`` reads them
    (``np.loadtxt`` of its gzipped CSV: the same arrays, tested) but without importing
    scikit-learn, whose import is about half of the app's cold start."""
    path = _digits_file()
    if path is not None:
        with gzip.open(path, mode="rt", encoding="utf-8") as f:
            table = np.loadtxt(f, delimiter=",")
        data, target = table[:, :-1], table[:, -1].astype(int, copy=False)
    else:  # pragma: no cover - a scikit-learn that moved its data file
        from sklearn.datasets import load_digits

        bunch = load_digits()
        data, target = bunch.data, bunch.target
    return Dataset(
        name="digits",
        X=np.asarray(data, dtype=np.float64) / 16.0,
        y=np.asarray(target, dtype=np.int64),
        image_shape=(8, 8),
        class_names=dict(_DIGIT_NAMES),
    )


def _import_torchvision() -> ModuleType | None:
    """``torchvision.datasets``, or None when torchvision is not installed."""
    try:
        import torchvision.datasets as tvd
    except ImportError:
        return None
    return tvd


def _require_torchvision(what: str) -> ModuleType:
    tvd = _import_torchvision()
    if tvd is None:
        raise ImportError(f"{what} needs torchvision, which is not installed: {TORCH_INSTALL}")
    return tvd


def _unavailable(name: str, looked: Sequence[str], extra_fix: str = "") -> DatasetUnavailableError:
    """One line: the dataset, every place looked in, and how to get it (the command line's
    --download, which the app does not offer: it reads what this machine has)."""
    fix = (
        f"To get it, run sslviz once with --dataset {name} --download (it needs torchvision, "
        f"{TORCH_INSTALL}, and network access)."
    )
    if extra_fix:
        fix += f" {extra_fix}"
    fix += " Files in another folder: set $SSLVIZ_DATA to it (or --data-root)."
    return DatasetUnavailableError(
        f"Dataset {name!r} is not on this machine (looked in {'; '.join(looked)}). {fix}"
    )


def _idx_paths(folder: Path, gz: bool) -> list[Path]:
    return [folder / (f + ".gz" if gz else f) for f in _IDX_FILES]


def _read_idx(path: Path) -> np.ndarray:
    """Read an unsigned-byte IDX file (gzipped when the name ends in ``.gz``)."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as f:
        data = f.read()
    if len(data) < 4 or data[0] != 0 or data[1] != 0 or data[2] != 0x08:
        raise InvalidParameterError(f"{path} is not an unsigned-byte IDX file.")
    ndim = data[3]
    dims = struct.unpack(f">{ndim}I", data[4 : 4 + 4 * ndim])
    arr = np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim)
    if arr.size != int(np.prod(dims)):
        raise InvalidParameterError(f"{path}: {arr.size} values for IDX dimensions {dims}.")
    return arr.reshape(dims)


def _idx_dataset(name: str, images: np.ndarray, labels: np.ndarray) -> Dataset:
    images = np.asarray(images)
    n, h, w = images.shape
    X = images.reshape(n, h * w).astype(np.float64)
    X /= 255.0
    names = dict(enumerate(FASHION_MNIST_CLASSES)) if name == "fashion-mnist" else _DIGIT_NAMES
    return Dataset(
        name=name,
        X=X,
        y=np.asarray(labels, dtype=np.int64),
        image_shape=(h, w),
        class_names=dict(names),
    )


def _load_idx_dataset(name: str, root: Path, download: bool) -> Dataset:
    """MNIST or Fashion-MNIST, training split."""
    cls_name = "FashionMNIST" if name == "fashion-mnist" else "MNIST"
    raw = root / cls_name / "raw"
    gz_sources = [raw]
    if name == "fashion-mnist":
        gz_sources.append(DEBIAN_FASHION_MNIST)

    def read_direct(folder: Path, gz: bool) -> Dataset:
        images, labels = _idx_paths(folder, gz)[:2]
        return _idx_dataset(name, _read_idx(images), _read_idx(labels))

    # 1. Un-gzipped files where torchvision puts them, 2. gzipped ones (a manual copy in the
    # raw folder, or Debian's package): read directly.
    if all(p.is_file() for p in _idx_paths(raw, gz=False)):
        return read_direct(raw, gz=False)
    for folder in gz_sources:
        if all(p.is_file() for p in _idx_paths(folder, gz=True)):
            return read_direct(folder, gz=True)
    # 3. Download.
    looked = [f"{raw} (un-gzipped {', '.join(_IDX_FILES)})"]
    looked += [f"{folder} (the same files, gzipped: *.gz)" for folder in gz_sources]
    extra = ""
    if name == "fashion-mnist":
        extra = "Or install Debian's copy: apt-get install dataset-fashion-mnist."
    if download:
        tvd = _require_torchvision(f"Downloading {name!r}")
        try:
            getattr(tvd, cls_name)(str(root), train=True, download=True)  # into raw/
            return read_direct(raw, gz=False)
        except (RuntimeError, OSError) as exc:
            hint = _unavailable(name, looked, extra)
            raise DatasetUnavailableError(
                f"Downloading {name!r} into {raw} failed: {exc}\n{hint}"
            ) from exc
    raise _unavailable(name, looked, extra)


def _load_usps(root: Path, download: bool) -> Dataset:
    """USPS training split: torchvision reads ``root/usps.bz2`` (LIBSVM, values in [-1, 1],
    labels 1..10) into uint8 pixels and labels 0..9."""
    path = root / _USPS_FILE
    if not path.is_file() and not download:
        raise _unavailable("usps", [f"{path} (LIBSVM, bz2)"])
    tvd = _require_torchvision("Loading 'usps'")
    try:
        ds = tvd.USPS(str(root), train=True, download=download)
    except (RuntimeError, OSError) as exc:
        if path.is_file():
            raise
        raise DatasetUnavailableError(
            f"Downloading 'usps' into {root} failed: {exc}\n"
            f"{_unavailable('usps', [f'{path} (LIBSVM, bz2)'])}"
        ) from exc
    return _idx_dataset("usps", np.asarray(ds.data), np.asarray(ds.targets))


# --------------------------------------------------------------------------------------
# User files
# --------------------------------------------------------------------------------------


def load_file(path: str | os.PathLike[str]) -> Dataset:
    """Load a user dataset from a ``.npz`` or ``.csv`` file.

    Parameters
    ----------
    path : str or path-like
        ``.npz``: arrays ``X`` of shape (n_samples, n_features) and ``y`` of shape
        (n_samples,) with integer labels; optionally ``labeled``, a bool array of shape
        (n_samples,) that fixes the labeled set (then :func:`make_instance` uses exactly
        the file's rows, in order), and ``image_shape``, two ints whose product is
        n_features. Read with ``allow_pickle=False``: object arrays are refused.

        ``.csv``: comma-separated, with a header row. The label column is the one named
        ``label`` or ``y`` (a file with neither is refused, naming its columns); every
        other column is a feature.

    Returns
    -------
    Dataset
        Named after the file; features as float64, labels as int64. Loaded once per
        (path, size, modification time) in a process, like :func:`load_dataset`.

    Raises
    ------
    FileNotFoundError
        No file at ``path``.
    InvalidParameterError
        Unknown extension, missing arrays, wrong shapes, non-finite or non-numeric values.
    """
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"'path' must be a file's path, not {value_text(path)}.")
    p = Path(path).expanduser()
    if not p.is_file():
        raise FileNotFoundError(f"No file at {str(p)!r}: give the path of an .npz or .csv file.")
    ext = p.suffix.lower()
    if ext not in (".npz", ".csv"):
        raise InvalidParameterError(
            f"{p.name}: sslviz reads .npz and .csv files, not "
            f"{repr(ext) + ' files' if ext else 'files without an extension'}."
        )
    stat = p.resolve().stat()
    key = ("file:" + str(p.resolve()), f"{stat.st_size}:{stat.st_mtime_ns}")
    with _LOCK:
        cached = _DATASET_CACHE.get(key)
    if cached is not None:
        return cached
    dataset = _load_npz(p) if ext == ".npz" else _load_csv(p)
    with _LOCK:
        files = [k for k in _DATASET_CACHE if k[0].startswith("file:")]
        for old in files[: max(0, len(files) - _MAX_FILES + 1)]:
            del _DATASET_CACHE[old]
        return _DATASET_CACHE.setdefault(key, dataset)


UNLABELED = -1
"""scikit-learn's mark of an unlabeled point in y, whose label is unknown."""


def unlabeled_marks(y: np.ndarray, where: str) -> np.ndarray | None:
    """The labeled mask of a file whose ``y`` follows scikit-learn's convention (−1 for an
    unlabeled point, whose label is unknown; a class a whole number 0 or above), or None
    when y holds no −1 (every label known).

    Raises
    ------
    InvalidParameterError
        y holds other negative values, no point is labeled, or the labeled points are of one
        class: one line saying what to change.
    """
    y = np.asarray(y)
    marked = y == UNLABELED
    if not marked.any():
        return None
    others = sorted({int(v) for v in y[(y < 0) & ~marked]})
    if others:
        raise InvalidParameterError(
            f"{where}: y holds {options_text([f'−{-v}' for v in others], 'and')}: mark an "
            "unlabeled point with −1 and a class with a whole number 0 or above."
        )
    if marked.all():
        raise InvalidParameterError(
            f"{where}: no point is labeled (every y is −1): give at least one point of each "
            "class its label."
        )
    seen = np.unique(y[~marked])
    if seen.size < 2:
        raise InvalidParameterError(
            f"{where}: every labeled point is of class {int(seen[0])}: label at least one "
            "point of another class."
        )
    return ~marked


def _file_dataset(p: Path, X: Any, y: Any, labeled: Any = None, image_shape: Any = None) -> Dataset:
    where = p.name  # the file as its user named it: never this machine's path
    X = np.asarray(X)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise InvalidParameterError(
            f"{where}: X must be a non-empty table, one row per point and one column per "
            f"feature (2-D); its shape is {X.shape}."
        )
    if X.dtype == np.bool_ or not np.issubdtype(X.dtype, np.number):
        raise InvalidParameterError(f"{where}: X must hold numbers; it holds {kind_text(X)}.")
    if y.shape != (X.shape[0],):
        raise InvalidParameterError(
            f"{where}: y must have shape ({X.shape[0]},), one label per row of X; its shape "
            f"is {y.shape}."
        )
    X = X.astype(np.float64)
    bad = ~np.isfinite(X)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise InvalidParameterError(
            f"{where}: X holds {int(bad.sum())} non-finite values (first at row {r}, column {c})."
        )
    y = as_labels(y, f"{where}: y")
    given = labeled is not None
    if not given:  # scikit-learn's −1 for an unlabeled point: the labeled mask
        labeled = unlabeled_marks(y, where)
    if given:
        labeled = np.asarray(labeled)
        if labeled.shape != y.shape:
            raise InvalidParameterError(
                f"{where}: labeled must have shape ({X.shape[0]},), one true/false value per "
                f"row of X; its shape is {labeled.shape}."
            )
        if labeled.dtype != np.bool_:
            if not np.issubdtype(labeled.dtype, np.integer) or not np.all(np.isin(labeled, (0, 1))):
                holds = (
                    "other whole numbers"
                    if np.issubdtype(labeled.dtype, np.integer)
                    else kind_text(labeled)
                )
                raise InvalidParameterError(
                    f"{where}: labeled must hold true/false values (or 0 and 1); it holds {holds}."
                )
            labeled = labeled.astype(bool)
        if np.any(y[labeled] == -1):
            raise InvalidParameterError(
                f"{where}: labeled marks points whose y is −1 (unlabeled): give their labels."
            )
    if image_shape is not None:
        shape = np.asarray(image_shape)
        if (
            shape.shape != (2,)
            or not np.issubdtype(shape.dtype, np.integer)
            or int(shape[0]) * int(shape[1]) != X.shape[1]
        ):
            raise InvalidParameterError(
                f"{where}: image_shape must be two whole numbers, height and width, whose "
                f"product is the number of features, {X.shape[1]}; it is {shape.tolist()}."
            )
        image_shape = (int(shape[0]), int(shape[1]))
    return Dataset(
        name=p.name,
        X=X,
        y=y,
        image_shape=image_shape,
        class_names={},
        labeled=labeled,
    )


def _load_npz(p: Path) -> Dataset:
    where = p.name  # the file as its user named it: never this machine's path
    try:
        with np.load(p, allow_pickle=False) as npz:
            keys = set(npz.files)
            missing = [k for k in ("X", "y") if k not in keys]
            if missing:
                raise InvalidParameterError(
                    f"{where}: the .npz file must hold arrays 'X' and 'y'; missing "
                    f"{', '.join(repr(k) for k in missing)} (it holds "
                    f"{', '.join(sorted(keys)) or 'no arrays'})."
                )
            arrays = {k: npz[k] for k in ("X", "y", "labeled", "image_shape") if k in keys}
    except InvalidParameterError:
        raise
    except ValueError as exc:
        # Object arrays need pickle, which is never enabled (it can run arbitrary code).
        raise InvalidParameterError(
            f"{where}: it holds Python objects, which cannot be read without pickle (and "
            "pickle could run code). Save plain arrays of numbers."
        ) from exc
    except (OSError, EOFError) as exc:
        raise InvalidParameterError(f"{where}: not a readable .npz file ({exc}).") from exc
    return _file_dataset(
        p, arrays["X"], arrays["y"], arrays.get("labeled"), arrays.get("image_shape")
    )


def _load_csv(p: Path) -> Dataset:
    where = p.name  # the file as its user named it: never this machine's path
    with open(p, newline="", encoding="utf-8-sig") as f:
        rows = [r for r in csv.reader(f) if r and any(cell.strip() for cell in r)]
    if len(rows) < 2:
        raise InvalidParameterError(
            f"{where}: the .csv file needs a header row and at least one data row."
        )
    header = [h.strip() for h in rows[0]]
    width = len(header)
    lowered = [h.lower() for h in header]
    label_col = next((lowered.index(k) for k in ("label", "y") if k in lowered), None)
    if label_col is None:
        raise InvalidParameterError(
            f"{where} has no label column: name the column of class labels 'label' (or "
            f"'y'). Its columns are {', '.join(header)}."
        )
    if width < 2:
        raise InvalidParameterError(
            f"{where}: the .csv file needs at least one feature column beside 'label'."
        )
    for i, r in enumerate(rows[1:], start=2):
        if len(r) != width:
            raise InvalidParameterError(
                f"{where}: line {i} has {len(r)} fields; the header has {width}. Give every "
                "row one value per column."
            )
    try:
        values = np.array([[float(c) for c in r] for r in rows[1:]], dtype=np.float64)
    except ValueError as exc:
        bad = str(exc).rsplit(":", 1)[-1].strip()
        raise InvalidParameterError(
            f"{where}: non-numeric value {bad}; every feature and label must be a number."
        ) from exc
    y = values[:, label_col]
    X = np.delete(values, label_col, axis=1)
    return _file_dataset(p, X, y)
