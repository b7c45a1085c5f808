"""Problem instances: PCA and the draw of points from a dataset (docs/method.md §2.1).

A problem *instance* picks two classes (c0, c1) of a :class:`~sslviz.datasets.Dataset`,
maps them to binary labels (c1 ↦ 1), projects the two-class pool onto its first principal
components (45, as in the paper's experiments) and draws ``n`` points, the first
``n_labeled`` of which are labeled.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np

from sslviz._threads import one_thread
from sslviz._validation import (
    InvalidParameterError,
    not_whole,
    options_text,
    rule_text,
    value_text,
)
from sslviz.datasets import UNLABELED, Dataset, as_labels, readonly
from sslviz.settings import SettingError, SettingTypeError, esc, table
from sslviz.specs import ALL_CLASSES, MAX_CLASSES, ProblemSpec, default

__all__ = ["Instance", "make_instance", "pca_full"]


@dataclass(frozen=True, eq=False)
class Instance:
    """A binary semi-supervised problem (docs/method.md §2.1).

    Attributes
    ----------
    X : ndarray of shape (n, n_components), dtype float64
        Features of the ``n`` points: PCA scores, or the dataset's features when
        ``pca=0``. Distances between rows are the d_ij of the graph (PCA-space units).
    y : ndarray of shape (n,), dtype int64
        Labels in {0, …, C − 1}: ``classes[i]`` ↦ i (two classes: binary, ``classes[1]``
        ↦ 1). Known for every point, so the loss on the unlabeled points can be measured.
    labeled : ndarray of shape (n,), dtype bool
        The labeled set L. For sampled instances the first ``n_labeled`` rows.
    rows : ndarray of shape (n,), dtype int64
        Row of each point in the source :class:`Dataset` (to show its image).
    classes : tuple of int
        The original labels (c0, c1, …), C of them (2 ≤ C ≤ 10).
    seed : int
        The seed the points were drawn with.
    known : ndarray of shape (n,), dtype bool
        Whether each point's label is known: every point's, but for a file whose y marks
        unlabeled points with −1 (scikit-learn's convention,
        :func:`sslviz.datasets.unlabeled_marks`); its unknown points' ``y`` is 0, never
        read by cross-validation, and the loss on the unlabeled points cannot be measured
        (:attr:`unknown`).

    All arrays are read-only.
    """

    X: np.ndarray
    y: np.ndarray
    labeled: np.ndarray
    rows: np.ndarray
    classes: tuple[int, ...]
    seed: int
    known: np.ndarray | None = None

    def __post_init__(self) -> None:
        X = np.asarray(self.X, dtype=np.float64)
        y = as_labels(self.y, "Instance.y")
        labeled = np.asarray(self.labeled)
        rows = np.asarray(self.rows)
        if X.ndim != 2:
            raise InvalidParameterError(f"Instance.X must be 2-D; got shape {X.shape}.")
        n = X.shape[0]
        if (
            y.shape != (n,)
            or labeled.shape != (n,)
            or rows.shape != (n,)
            or labeled.dtype != np.bool_
            or not np.issubdtype(rows.dtype, np.integer)
        ):
            raise InvalidParameterError(
                f"Instance needs X of shape (n, q), y of shape (n,), a bool labeled mask of "
                f"shape (n,) and integer rows of shape (n,); got X {X.shape}, y {y.shape}, "
                f"labeled {labeled.shape} {labeled.dtype}, rows {rows.shape} {rows.dtype}."
            )
        if not np.all(np.isin(y, np.arange(max(len(self.classes), 2)))):
            raise InvalidParameterError(
                "Instance.y must hold the class indices 0 to C − 1 of its C classes."
            )
        if not np.all(np.isfinite(X)):
            raise InvalidParameterError("Instance.X holds non-finite values.")
        if not labeled.any() or labeled.all():
            raise InvalidParameterError(
                f"Instance needs at least one labeled and one unlabeled point; got "
                f"{int(labeled.sum())} labeled of {n}."
            )
        classes = tuple(int(c) for c in self.classes)
        known = np.ones(n, bool) if self.known is None else np.asarray(self.known, bool)
        if known.shape != (n,) or not known[labeled].all():
            raise InvalidParameterError("Instance.known must be true at every labeled point.")
        object.__setattr__(self, "known", readonly(known))
        object.__setattr__(self, "X", readonly(X))
        object.__setattr__(self, "y", readonly(y))
        object.__setattr__(self, "labeled", readonly(labeled))
        object.__setattr__(self, "rows", readonly(rows.astype(np.int64)))
        object.__setattr__(self, "classes", classes)
        object.__setattr__(self, "seed", int(self.seed))

    @property
    def unknown(self) -> int:
        """How many points' labels are unknown (y = −1 in a file)."""
        return int(np.count_nonzero(~self.known))

    @property
    def n_classes(self) -> int:
        """C, the number of classes (2: the binary problem)."""
        return len(self.classes)

    @property
    def n(self) -> int:
        """Number of points, labeled and unlabeled."""
        return int(self.X.shape[0])

    @property
    def n_labeled(self) -> int:
        """Size of the labeled set |L|."""
        return int(np.count_nonzero(self.labeled))

    @property
    def labeled_idx(self) -> np.ndarray:
        """Indices of the labeled points, ndarray of shape (n_labeled,), dtype int64."""
        return np.flatnonzero(self.labeled).astype(np.int64)

    @property
    def unlabeled_idx(self) -> np.ndarray:
        """Indices of the unlabeled points, ndarray of shape (n - n_labeled,), dtype int64."""
        return np.flatnonzero(~self.labeled).astype(np.int64)

    @property
    def y_labeled(self) -> np.ndarray:
        """Binary labels of the labeled points, ndarray of shape (n_labeled,)."""
        return self.y[self.labeled]

    @property
    def y_unlabeled(self) -> np.ndarray:
        """Binary labels of the unlabeled points, ndarray of shape (n - n_labeled,)."""
        return self.y[~self.labeled]

    def __repr__(self) -> str:
        return (
            f"Instance(n={self.n}, n_labeled={self.n_labeled}, "
            f"n_components={self.X.shape[1]}, classes={self.classes}, seed={self.seed})"
        )


# --------------------------------------------------------------------------------------
# Problem instances
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class _Pool:
    rows: np.ndarray  # (pool_size,) int64 dataset rows of the two classes, in dataset order
    Z: np.ndarray  # (pool_size, q) float64 features after PCA
    y: np.ndarray  # (pool_size,) int64 class indices (binary for two classes)


_POOL_CACHE: weakref.WeakKeyDictionary[Dataset, OrderedDict[tuple[Any, ...], _Pool]] = (
    weakref.WeakKeyDictionary()
)
_POOL_CACHE_PER_DATASET = 8
_POOL_LOCK = threading.Lock()


def _pool(dataset: Dataset, classes: tuple[int, ...], rows: np.ndarray, pca: int) -> _Pool:
    """The classes' pool projected on ``pca`` components, cached per dataset object."""
    key = (classes, pca)
    with _POOL_LOCK:
        entry = _POOL_CACHE.get(dataset)
        if entry is not None and key in entry:
            entry.move_to_end(key)
            return entry[key]
    X = dataset.X[rows]
    if pca > 0:
        # Both solvers are exact and deterministic (signs fixed by svd_flip); the
        # covariance eigendecomposition is the faster one on tall pools such as
        # Fashion-MNIST's 12,000 x 784, with the same scores to ~1e-12.
        tall = X.shape[0] >= 10 * X.shape[1] and X.shape[1] <= 1000
        if tall:
            from sklearn.decomposition import PCA

            Z = PCA(n_components=pca, svd_solver="covariance_eigh").fit_transform(X)
        else:
            Z = pca_full(X, pca)
    else:
        Z = X
    pool = _Pool(
        rows=readonly(rows),
        Z=readonly(np.ascontiguousarray(Z, dtype=np.float64)),
        y=readonly(_class_index(dataset.y[rows], classes)),
    )
    with _POOL_LOCK:
        entry = _POOL_CACHE.setdefault(dataset, OrderedDict())
        entry[key] = pool
        while len(entry) > _POOL_CACHE_PER_DATASET:
            entry.popitem(last=False)
    return pool


def _class_index(y: np.ndarray, classes: tuple[int, ...]) -> np.ndarray:
    """Each label's index in ``classes`` (two classes: ``classes[1]`` ↦ 1, as always)."""
    if len(classes) == 2:
        return (y == classes[1]).astype(np.int64)
    out = np.zeros(y.shape, np.int64)
    for i, c in enumerate(classes):
        out[y == c] = i
    return out


def pca_full(X: np.ndarray, n_components: int) -> np.ndarray:
    """The scores of ``sklearn.decomposition.PCA(n_components, svd_solver="full")
    .fit_transform(X)``, bit for bit (tested), without importing scikit-learn: the same
    operations in the same order — centre a copy of X on the column means, SciPy's SVD
    (gesdd), signs fixed so each row of Vt has its largest |entry| positive (sklearn's
    ``svd_flip(u_based_decision=False)``), scores U[:, :k]·S[:k]."""
    import scipy.linalg

    X = np.asarray(X, dtype=np.float64)
    centred = np.array(X, copy=True)
    centred -= np.mean(X, axis=0)
    U, S, Vt = scipy.linalg.svd(centred, full_matrices=False)
    big = np.argmax(np.abs(Vt), axis=1)
    signs = np.sign(Vt[np.arange(Vt.shape[0]), big])
    U *= signs[np.newaxis, :]
    U = U[:, :n_components]
    U *= S[:n_components]
    return U


_ROWS = dict(table(ProblemSpec))


def _whole(name: str, value: object, low: int, high: int | None = None, why: str = "") -> int:
    """``value`` checked as a whole number in [low, high]; the message names the setting by
    its label (``n``, ``|L|``, ``PCA dims``) and says why the bound is there (``why``)."""
    kind = SettingTypeError if isinstance(value, bool) or not isinstance(value, Integral) else None
    if kind is None and low <= value and (high is None or value <= high):
        return int(value)
    rule = rule_text(low, high, integer=True)
    raise (kind or SettingError)(
        f"{{who[{name}]}} must be {rule}{esc(why)}, not {esc(not_whole(value))}.", _ROWS
    )


def _pair(c: tuple[int, ...]) -> str:
    return f"classes {options_text(list(c), 'and')}"


def _check_classes(classes: object, dataset: Dataset) -> tuple[int, ...]:
    if isinstance(classes, str) and classes.strip().lower() == "all":
        classes = ALL_CLASSES
    if (
        isinstance(classes, str | bytes)
        or not isinstance(classes, Sequence | np.ndarray)
        or not all(isinstance(c, Integral) and not isinstance(c, bool) for c in classes)
    ):
        raise SettingTypeError(
            f"{{who[classes]}} must be 2 to {MAX_CLASSES} class labels (whole numbers) or "
            f"all, not {esc(value_text(classes))}.",
            _ROWS,
        )
    if len(classes) == 0:  # all: every class of the dataset, in order
        classes = tuple(int(c) for c in dataset.classes)
        if not 2 <= len(classes) <= MAX_CLASSES:
            raise SettingError(
                f"{{who[classes]}} all: {esc(dataset.name)} has {len(classes)} classes; "
                f"name 2 to {MAX_CLASSES} of them.",
                _ROWS,
            )
    cls = tuple(int(c) for c in classes)
    if len(cls) == 1:
        raise SettingError(
            f"{{who[classes]}} names one class only ({cls[0]}): name at least two.", _ROWS
        )
    if len(cls) > MAX_CLASSES:
        raise SettingError(
            f"{{who[classes]}} names {len(cls)} classes: name at most {MAX_CLASSES}.", _ROWS
        )
    twice = [c for c in cls if cls.count(c) > 1]
    if twice:
        raise SettingError(
            f"{{who[classes]}} must name {'two ' * (len(cls) == 2)}different classes, not "
            f"{twice[0]} twice.",
            _ROWS,
        )
    available = dataset.classes
    missing = [c for c in cls if c not in available]
    if missing:
        raise SettingError(
            f"{{who[classes]}} must be classes of {esc(dataset.name)}, whose classes are "
            f"{options_text(available, 'and')}; {' and '.join(map(str, missing))} "
            f"{'is' if len(missing) == 1 else 'are'} not among them.",
            _ROWS,
        )
    return cls


def _check_pca(pca: object, pool_size: int, dataset: Dataset, cls: tuple[int, ...]) -> int:
    high = min(pool_size, dataset.n_features)
    why = (
        f", the number of features of {dataset.name}"
        if dataset.n_features <= pool_size
        else f", the number of rows of {_pair(cls)} in {dataset.name}"
    )
    return _whole("pca", pca, 0, high, why + " (0 keeps the features as given)")


@one_thread
def make_instance(
    dataset: Dataset,
    classes: tuple[int, ...] = default(ProblemSpec, "classes"),
    *,
    n: int = default(ProblemSpec, "n"),
    n_labeled: int = default(ProblemSpec, "n_labeled"),
    seed: int = default(ProblemSpec, "seed"),
    pca: int = default(ProblemSpec, "pca"),
) -> Instance:
    """Draw a binary semi-supervised problem from two classes of a dataset.

    Parameters
    ----------
    dataset : Dataset
        Source points, e.g. from :func:`sslviz.datasets.load_dataset` or
        :func:`sslviz.datasets.load_file`.
    classes : tuple of int, default=(2, 3)
        Original labels (c0, c1); c0 ↦ 0 and c1 ↦ 1. For Fashion-MNIST, (0, 1) is
        T-shirt/top vs Trouser, as in the paper. Up to ten classes (c0, …, c_{C−1}) make
        a multi-class problem, class c_i ↦ i (docs/method.md §13); ``()`` or ``"all"``:
        every class of the dataset, in order.
    n : int, default=100
        Number of points, ``2 < n <= pool size`` (rows of the two classes).
    n_labeled : int, default=10
        Size of the labeled set, ``2 <= n_labeled < n``.
    seed : int, default=0
        Seed of ``np.random.default_rng``, ``seed >= 0``.
    pca : int, default=45
        Number of principal components, ``0 <= pca <= min(pool size, n_features)``;
        0 keeps the features as given.

    Returns
    -------
    Instance
        ``X`` of shape (n, pca) (or (n, n_features) when ``pca=0``); the first
        ``n_labeled`` points are labeled.

    Raises
    ------
    InvalidParameterError
        A class is missing, named twice, or one class only; ``n``, ``n_labeled``, ``seed``
        or ``pca`` out of range; fewer labeled points than classes; for a dataset with a
        fixed labeled set, rows of other classes or a labeled set without every class.

    Notes
    -----
    docs/method.md §2.1. PCA (exact, deterministic: full SVD, or the eigendecomposition of the
    covariance when the pool has at least 10x more rows than features) is fitted on the
    whole two-class pool before sampling, so instances drawn with different seeds share one
    feature space; the projected pool is cached per (dataset object, classes, pca). The
    labeled points are drawn stratified: each class gets about its share of the pool, and
    at least one. The unlabeled points are a uniform draw, without replacement, from the
    rest of the pool.

    When ``dataset.labeled`` is set (a user ``.npz``), the instance is exactly the
    dataset's rows, in order, with that labeled set; ``n``, ``n_labeled`` and ``seed``
    are then ignored (``seed`` is only recorded).

    Examples
    --------
    >>> from sslviz.data import make_instance
    >>> from sslviz.datasets import load_dataset
    >>> inst = make_instance(load_dataset("digits"), (0, 1), n=50, n_labeled=6, seed=3)
    >>> inst.X.shape, inst.n_labeled, sorted(set(inst.y_labeled.tolist()))
    ((50, 45), 6, [0, 1])
    """
    if not isinstance(dataset, Dataset):
        raise TypeError(
            "'dataset' must be a dataset of sslviz.datasets (a named one or a user's "
            f"file), not {value_text(dataset)}."
        )
    cls = _check_classes(classes, dataset)
    seed = _whole("seed", seed, 0)
    in_pool = np.isin(dataset.y, cls)

    if dataset.labeled is not None:
        unknown = dataset.y == UNLABELED
        in_pool |= unknown
        if not in_pool.all():
            others = sorted(set(np.unique(dataset.y[~in_pool]).tolist()))
            raise InvalidParameterError(
                f"{dataset.name} fixes its labeled set, so an instance is all of its rows: "
                f"they must all be of {_pair(cls)}, but some are of class "
                f"{options_text(others, 'and')}."
            )
        lab_classes = set(np.unique(dataset.y[dataset.labeled]).tolist())
        if len(cls) > 2 and not set(cls) <= lab_classes:
            bare = [c for c in cls if c not in lab_classes]
            raise InvalidParameterError(
                f"{dataset.name}: its labeled mask labels no point of class "
                f"{options_text(bare, 'or')}; label at least one point of every class of "
                "--classes, or leave that class out."
            )
        if not set(cls) <= lab_classes:
            raise InvalidParameterError(
                f"{dataset.name}: its labeled set must hold both {_pair(cls)}; it holds "
                f"class {options_text(sorted(lab_classes), 'and')} only."
            )
        rows = np.arange(dataset.n_samples, dtype=np.int64)
        pca = _check_pca(pca, rows.size, dataset, cls)
        pool = _pool(dataset, cls, rows, pca)
        return Instance(
            X=pool.Z,
            y=np.where(unknown, 0, pool.y),
            labeled=dataset.labeled,
            rows=pool.rows,
            classes=cls,
            seed=seed,
            known=~unknown,
        )

    rows = np.flatnonzero(in_pool).astype(np.int64)
    size = int(rows.size)
    n = _whole("n", n, 3, size, f", the size of the pool of {_pair(cls)} in {dataset.name}")
    n_labeled = _whole("n_labeled", n_labeled, 2, n - 1, f" (below n = {n})")
    if n_labeled < len(cls):
        raise SettingError(
            f"{{eq[n_labeled]}} {n_labeled} cannot hold one labeled point of each of the "
            f"{len(cls)} classes: raise {{who[n_labeled]}} to at least {len(cls)}, or name "
            "fewer classes.",
            _ROWS,
        )
    pca = _check_pca(pca, size, dataset, cls)
    pool = _pool(dataset, cls, rows, pca)

    rng = np.random.default_rng(seed)
    if len(cls) > 2:
        lab = _stratified(rng, pool.y, len(cls), n_labeled)
    else:
        idx0 = np.flatnonzero(pool.y == 0)
        idx1 = np.flatnonzero(pool.y == 1)
        k1 = min(max(round(n_labeled * idx1.size / size), 1), n_labeled - 1)
        k1 = max(min(k1, idx1.size), n_labeled - idx0.size)  # feasible as n_labeled < size
        k0 = n_labeled - k1
        lab = np.concatenate(
            [rng.choice(idx0, size=k0, replace=False), rng.choice(idx1, size=k1, replace=False)]
        )
        rng.shuffle(lab)
    rest = np.setdiff1d(np.arange(size), lab, assume_unique=True)
    unl = rng.choice(rest, size=n - n_labeled, replace=False)
    sel = np.concatenate([lab, unl])
    return Instance(
        X=pool.Z[sel],
        y=pool.y[sel],
        labeled=np.arange(n) < n_labeled,
        rows=pool.rows[sel],
        classes=cls,
        seed=seed,
    )


def _stratified(rng: np.random.Generator, y: np.ndarray, n_classes: int, n_labeled: int):
    """The labeled draw of C ≥ 3 classes (docs/method.md §13): class c gets about its share
    round(|L| · |pool of c| / |pool|) of the |L| points, at least one and at most its pool;
    the counts are then moved one at a time (the largest-share class gives or takes) until
    they add up to |L|; drawn without replacement within each class, classes in order, then
    shuffled. Needs C ≤ |L| < pool size."""
    members = [np.flatnonzero(y == c) for c in range(n_classes)]
    sizes = np.array([m.size for m in members])
    k = np.clip(np.rint(n_labeled * sizes / sizes.sum()).astype(int), 1, sizes)
    while k.sum() != n_labeled:
        if k.sum() > n_labeled:
            c = int(np.argmax(np.where(k > 1, k, -1)))
            k[c] -= 1
        else:
            c = int(np.argmax(np.where(k < sizes, sizes - k, -1)))
            k[c] += 1
    lab = np.concatenate(
        [rng.choice(m, size=int(kc), replace=False) for m, kc in zip(members, k, strict=True)]
    )
    rng.shuffle(lab)
    return lab
