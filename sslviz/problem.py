"""One problem instance end to end: settings → data → graph → labeling model.

:class:`ProblemSpec` is a frozen, hashable description of everything that fixes an
instance (dataset, classes, n, |L|, seed, PCA, graph family, k, labeling). The CLI, the
app and the online experiment all go through :func:`build_problem`, so the three compute
the same thing for the same settings.
"""

from __future__ import annotations

import functools
import os
from dataclasses import asdict, dataclass, replace

import numpy as np

from sslviz import data as _data
from sslviz._validation import check_int, check_option
from sslviz.graphs import FAMILIES, Graph, GraphSpec, build_graph
from sslviz.labeling import DelalleauModel, HarmonicModel, LabelingSpec, make_model
from sslviz.truth import TrueLossCurve, threshold_loss_curve, true_loss_curve


@dataclass(frozen=True)
class ProblemSpec:
    """Settings that fix a problem instance (hashable; usable as a cache key).

    Parameters
    ----------
    dataset : str, default='digits'
        A name from ``sslviz.data.DATASETS``; ignored when ``data_file`` is given.
    data_file : str, optional
        Path of a user ``.npz``/``.csv`` (see :func:`sslviz.data.load_file`).
    classes : (int, int), default=(0, 1)
    n, n_labeled, seed, pca : int
        See :func:`sslviz.data.make_instance` (defaults 100, 10, 0, 45).
    family : {'complete', 'knn', 'mutual-knn', 'threshold'}, default='knn'
    k : int, default=6
    labeling : {'harmonic', 'delalleau'}, default='harmonic'
    subset, lam : Delalleau's m (50) and λ (1.4).
    data_root : str, optional
        Data folder (default ``$SSLVIZ_DATA`` or ``~/.cache/sslviz``).
    download : bool, default=False
    """

    dataset: str = "digits"
    data_file: str | None = None
    classes: tuple[int, int] = (0, 1)
    n: int = 100
    n_labeled: int = 10
    seed: int = 0
    pca: int = 45
    family: str = "knn"
    k: int = 6
    labeling: str = "harmonic"
    subset: int = 50
    lam: float = 1.4
    data_root: str | None = None
    download: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "classes", tuple(int(c) for c in self.classes))
        if self.data_file is None:
            check_option("dataset", self.dataset, "ProblemSpec", _data.DATASETS)
        check_option("family", self.family, "ProblemSpec", FAMILIES)
        check_int("k", self.k, "ProblemSpec", low=1)

    @property
    def graph_spec(self) -> GraphSpec:
        return GraphSpec(self.family, self.k)

    @property
    def labeling_spec(self) -> LabelingSpec:
        return LabelingSpec(self.labeling, self.subset, self.lam, self.seed)

    def with_seed(self, seed: int) -> ProblemSpec:
        return replace(self, seed=int(seed))

    def to_dict(self) -> dict:
        d = asdict(self)
        d["classes"] = list(self.classes)
        return d


@dataclass(frozen=True, eq=False)
class Problem:
    """A built instance with its graph and labeling model.

    Attributes
    ----------
    spec : ProblemSpec
    dataset : sslviz.data.Dataset
    instance : sslviz.data.Instance
    model : HarmonicModel or DelalleauModel
    y_unlabeled : ndarray of shape (n_unlabeled,)
    """

    spec: ProblemSpec
    dataset: _data.Dataset
    instance: _data.Instance
    model: HarmonicModel | DelalleauModel
    y_unlabeled: np.ndarray

    @property
    def graph(self) -> Graph:
        return self.model.graph

    def rows(self, nodes) -> list[int]:
        """Instance rows (0-based) of unlabeled-node indices."""
        return [int(self.model.unlabeled_idx[u]) for u in np.atleast_1d(nodes)]


@functools.lru_cache(maxsize=16)
def _load(name: str, data_file: str | None, root: str | None, download: bool, mtime: float):
    if data_file is not None:
        return _data.load_file(data_file)
    return _data.load_dataset(name, root=root, download=download)


def load_source(spec: ProblemSpec) -> _data.Dataset:
    """The dataset of ``spec`` (loaded once per process)."""
    mtime = (
        os.path.getmtime(spec.data_file)
        if spec.data_file and os.path.exists(spec.data_file)
        else 0.0
    )
    return _load(spec.dataset, spec.data_file, spec.data_root, spec.download, mtime)


def build_problem(spec: ProblemSpec) -> Problem:
    """Load data, draw the instance, build the graph and the labeling model."""
    ds = load_source(spec)
    inst = _data.make_instance(
        ds, spec.classes, n=spec.n, n_labeled=spec.n_labeled, seed=spec.seed, pca=spec.pca
    )
    if spec.family != "complete":
        check_int("k", spec.k, "build_problem (k must be smaller than n)", low=1, high=inst.n - 1)
    labeling = spec.labeling_spec
    if labeling.method == "harmonic":
        model = make_model(inst.X, inst.labeled, inst.y, build_graph(inst.X, spec.graph_spec))
    else:
        model = make_model(inst.X, inst.labeled, inst.y, spec.graph_spec, labeling)
    return Problem(spec, ds, inst, model, np.asarray(inst.y)[model.unlabeled_idx])


def loss_curve(problem: Problem, sigma_min: float, sigma_max: float) -> TrueLossCurve:
    """The exact loss over [σ_min, σ_max] (over [r_min, r_max] for ``threshold``)."""
    if problem.spec.family == "threshold":
        return threshold_loss_curve(problem.model, problem.y_unlabeled, sigma_min, sigma_max)
    return true_loss_curve(problem.model, problem.y_unlabeled, sigma_min, sigma_max)


def curve_to_dict(problem: Problem, curve: TrueLossCurve) -> dict:
    """JSON form of a loss curve (the ``sslviz loss`` contract)."""
    e, v = curve.loss.edges, curve.loss.values
    best_loss, best_lo, best_hi = curve.best()
    n_u = problem.y_unlabeled.size
    return {
        "parameter": curve.parameter,
        "breakpoints": curve.breakpoints.tolist(),
        "nodes": [problem.rows(nd) for nd in curve.nodes],
        "pieces": [
            {"lo": float(e[i]), "hi": float(e[i + 1]), "loss": float(v[i])} for i in range(v.size)
        ],
        "best": {"loss": best_loss, "accuracy": 1.0 - best_loss, "lo": best_lo, "hi": best_hi},
        "degenerate": {
            "max_count": max([c for _, _, c in curve.degenerate_ranges], default=0),
            "ranges": [
                {"lo": float(a), "hi": float(b), "count": int(c)}
                for a, b, c in curve.degenerate_ranges
            ],
        },
        "n_unlabeled": int(n_u),
        "solves": curve.solves,
        "evaluations": int(curve.evaluations.size),
        "inconsistent": curve.inconsistent,
        "complete": curve.complete,
        "seconds": curve.seconds,
    }


def suggest_sigma_range(problem: Problem) -> tuple[float, float]:
    """A σ range from the data: from half the median nearest-neighbour distance to twice
    the median distance to the k-th neighbour (k = 6), rounded to 2 significant digits.
    For ``threshold`` it is the range of edge lengths."""
    if problem.spec.family == "threshold":
        lengths = problem.graph.edge_lengths()
        return float(lengths[0]), float(lengths[-1])
    from sklearn.neighbors import NearestNeighbors

    X = problem.instance.X
    k = min(6, X.shape[0] - 1)
    d, _ = NearestNeighbors(n_neighbors=k).fit(X).kneighbors()
    lo = 0.5 * float(np.median(d[:, 0]))
    hi = 2.0 * float(np.median(d[:, -1]))
    lo, hi = (float(f"{x:.2g}") for x in (lo, hi))
    return (lo, hi) if lo < hi else (lo, 2 * lo)
