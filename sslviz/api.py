"""The Python API: sslviz's exact curves on a scikit-learn user's arrays (docs/python.md).

    import sslviz
    curve = sslviz.loss_curve(X, y, family="knn", k=6, labeling="spreading", alpha=0.2,
                              sigma_range=(1.0, 7.0))
    curve.breakpoints, curve.pieces, curve.loss_at(1.3), curve.figure()

X (n, p) is used as given (no PCA); y follows scikit-learn: −1 marks an unlabeled point.
Where every point's label is known, a ``labeled`` mask says which are given to the model,
and the loss is the paper's l(σ) on the others. Where the unlabeled points' labels are
unknown (y holds −1), the loss is the transductive cross-validated loss over the labeled
points (``cv`` folds: each fold's labels hidden, the model fit on every point with the other
labels, the fold's points scored), exact over σ as well (:func:`cv_loss`). The weights are
sslviz's W = exp(−d²/σ²), so scikit-learn's RBF γ is 1/σ²: every function takes
``sigma_range`` or ``gamma_range``. More than two classes: one-vs-all, the predicted
class the argmax of the class scores (docs/method.md §13).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sslviz._validation import InvalidParameterError
from sslviz.piecewise import PiecewiseLoss
from sslviz.specs import MAX_CLASSES, ProblemSpec, default

_DEFAULTS = {
    name: default(ProblemSpec, name)
    for name in ("family", "k", "labeling", "alpha", "subset", "lam", "seed")
}
"""The instance settings' defaults, from :mod:`sslviz.specs` (the one place they are set)."""

ARRAYS = "the arrays given in Python"
"""What the documents' settings write as the data source (``data_file``)."""


# --------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Inputs:
    """A user's arrays, checked: X (n, p) floats, ``codes`` (n,) the class indices in
    {0, …, C − 1} where known (0 where not), ``labeled`` (n,) bool, ``known`` (n,) bool (the
    label is known), the C original class labels (sorted; ``classes[i]`` is index i, so
    for two classes the second is class 1)."""

    X: np.ndarray
    codes: np.ndarray
    labeled: np.ndarray
    known: np.ndarray
    classes: tuple

    @property
    def truth(self) -> bool:
        """Whether every unlabeled point's label is known (the loss on U can be measured)."""
        return bool(self.known.all())


def check_inputs(X: Any, y: Any, labeled: Any = None, *, unlabeled: bool = True) -> Inputs:
    """Check the arrays of a call (messages in words saying what to change).

    Parameters
    ----------
    X : array-like of shape (n, p)
    y : array-like of shape (n,)
        Integer class labels, −1 for an unlabeled point whose label is unknown.
    labeled : array-like of shape (n,), bool, optional
        Which points are labeled; default: those whose y is not −1.
    unlabeled : bool, default=True
        Whether some point must be unlabeled (cross-validation over the labeled points
        needs none).
    """
    X = np.asarray(X, dtype=float) if not isinstance(X, np.ndarray) else X.astype(float)
    if X.ndim != 2 or X.shape[0] < 3:
        raise InvalidParameterError(
            f"X must be a table of points, one row each (at least 3 rows); its shape is {X.shape}."
        )
    if not np.all(np.isfinite(X)):
        raise InvalidParameterError(
            "X holds values that are not finite numbers: drop or fill them."
        )
    y = np.asarray(y)
    if y.shape != (X.shape[0],):
        raise InvalidParameterError(
            f"y must hold one label per row of X ({X.shape[0]}); its shape is {y.shape}."
        )
    if y.dtype.kind == "f" and np.any(y != np.round(y)):
        raise InvalidParameterError("y must hold class labels, −1 for unlabeled, not fractions.")
    if y.dtype.kind not in "biuUSO" and y.dtype.kind != "f":
        raise InvalidParameterError(
            "y must hold class labels (numbers or texts), −1 for unlabeled."
        )
    known = np.array([not _unlabeled(v) for v in y.tolist()], dtype=bool)
    if labeled is None:
        labeled = known
    else:
        labeled = np.asarray(labeled)
        if labeled.dtype != np.bool_ or labeled.shape != y.shape:
            raise InvalidParameterError(
                f"labeled must hold one true/false value per row of X ({X.shape[0]})."
            )
        if np.any(labeled & ~known):
            raise InvalidParameterError("labeled marks points whose y is −1: give their labels.")
    classes = np.unique(y[known])
    if not 2 <= classes.size <= MAX_CLASSES:
        raise InvalidParameterError(
            f"sslviz's curves take 2 to {MAX_CLASSES} classes; y has {classes.size}"
            + (f" ({classes[0]})" if classes.size == 1 else "")
            + (": label points of another class." if classes.size < 2 else ": keep fewer.")
        )
    if not set(classes.tolist()) <= set(np.unique(y[labeled]).tolist()):
        raise InvalidParameterError(
            "The labeled points must include every class: label a point of each."
        )
    if unlabeled and labeled.all():
        raise InvalidParameterError("Every point is labeled: leave some unlabeled (y = −1).")
    codes = np.zeros(y.shape, np.int64)
    codes[known] = np.searchsorted(classes, y[known])
    return Inputs(X, codes, labeled.copy(), known, tuple(classes.tolist()))


def _unlabeled(value: Any) -> bool:
    """scikit-learn's mark of an unlabeled point: −1 (as a number)."""
    return not isinstance(value, (str, bytes)) and value == -1


def sigma_bounds(
    sigma_range: Sequence[float] | None, gamma_range: Sequence[float] | None
) -> tuple[float, float] | None:
    """The σ range asked for, from ``sigma_range`` or ``gamma_range`` (γ = 1/σ²); None for
    the suggested one."""
    if sigma_range is not None and gamma_range is not None:
        raise InvalidParameterError("Give sigma_range or gamma_range (γ = 1/σ²), not both.")
    given = sigma_range if sigma_range is not None else gamma_range
    if given is None:
        return None
    name = "sigma_range" if sigma_range is not None else "gamma_range"
    try:
        lo, hi = (float(v) for v in given)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{name} must be two numbers (low, high).") from None
    if not (np.isfinite(lo) and np.isfinite(hi) and 0 < lo < hi):
        raise InvalidParameterError(f"{name} must be two positive numbers, low < high.")
    return (lo, hi) if sigma_range is not None else (1.0 / np.sqrt(hi), 1.0 / np.sqrt(lo))


def _spec(inputs: Inputs, settings: dict, labeled: np.ndarray):
    from sslviz.specs import ProblemSpec

    whole = all(isinstance(c, int) and c >= 0 for c in inputs.classes)
    return ProblemSpec(
        data_file=ARRAYS,
        classes=inputs.classes if whole else tuple(range(len(inputs.classes))),
        n=int(inputs.X.shape[0]),
        n_labeled=int(labeled.sum()),
        pca=0,
        **settings,
    )


def _problem(inputs: Inputs, settings: dict, labeled: np.ndarray | None = None):
    """The :class:`sslviz.problem.Problem` of the arrays (``labeled`` overrides the mask:
    a cross-validation fold's instance)."""
    from sslviz import data, datasets
    from sslviz.problem import Problem, make_model

    lab = inputs.labeled if labeled is None else labeled
    spec = _spec(inputs, settings, lab)
    n = inputs.X.shape[0]
    names = {i: str(c) for i, c in enumerate(inputs.classes)}
    ds = datasets.Dataset(ARRAYS, inputs.X, inputs.codes, None, names, lab)
    inst = data.Instance(inputs.X, inputs.codes, lab, np.arange(n), spec.classes, spec.seed)
    model = make_model(inputs.X, lab, inputs.codes, spec.graph_spec, spec.labeling_spec)
    return Problem(spec, ds, inst, model, inputs.codes[model.unlabeled_idx])


def _range(problem, bounds: tuple[float, float] | None) -> tuple[float, float]:
    from sslviz.problem import suggest_sigma_range

    return bounds if bounds is not None else suggest_sigma_range(problem)


# --------------------------------------------------------------------------------------
# Exact cross-validation over σ
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class CVLoss:
    """The exact transductive cross-validated loss over σ (:func:`cv_loss`).

    Attributes
    ----------
    average : sslviz.learn.AverageLoss
        The mean over folds of each fold's error rate, exact on the merged breakpoints.
    folds : list of sslviz.learn.InstanceLoss
        Each fold's wrong count on its points, piece by piece.
    complete : bool
        False when some fold's search stopped at its evaluation budget.
    solves : int
        Soft-label solves of every fold's search.
    """

    average: Any
    folds: list
    complete: bool
    solves: int


def cv_loss(
    inputs: Inputs,
    settings: dict,
    sigma_min: float,
    sigma_max: float,
    folds: Sequence[np.ndarray],
) -> CVLoss:
    """Each fold's error rate over σ, exactly, and their mean.

    For each fold (row indices of labeled points) the fold's labels are hidden, the model is
    built on every point with the other labels, and its exact loss curve on the fold's
    points only (:class:`_Nodes`: the search tracks no other node) is searched on
    [σ_min, σ_max]; the fold's points are scored piece by piece from that curve's
    per-node breakpoints (each breakpoint lists the nodes whose rightness changes there, so
    a fold point's misclassification flips exactly there; docs/method.md §5.1, more than two
    classes the argmax's, §13). The mean over folds is :func:`sslviz.learn.average_loss`,
    exact.
    """
    from sslviz.learn import InstanceLoss, average_loss
    from sslviz.truth import multiclass_loss_curve, true_loss_curve

    per_fold, complete, solves = [], True, 0
    for rows in folds:
        rows = np.asarray(rows, dtype=np.int64)
        lab = inputs.labeled.copy()
        lab[rows] = False
        problem = _problem(inputs, settings, lab)
        inst = problem.instance
        at = np.searchsorted(problem.model.unlabeled_idx, np.sort(rows))
        model = _Nodes(problem.model, at)
        if inst.n_classes > 2:
            curve = multiclass_loss_curve(model, inst.y, inst.classes, sigma_min, sigma_max)
        else:
            curve = true_loss_curve(model, problem.y_unlabeled[at], sigma_min, sigma_max)
        complete &= curve.complete
        solves += curve.solves
        wrong = curve.wrong_at_start.copy()
        counts = [int(wrong.sum())]
        for nodes in curve.nodes:
            wrong[nodes] ^= True
            counts.append(int(wrong.sum()))
        per_fold.append(InstanceLoss(curve.loss.edges, np.array(counts), int(rows.size)))
    return CVLoss(average_loss(per_fold), per_fold, bool(complete), solves)


class _Nodes:
    """A model seen on some of its unlabeled nodes, ``at`` (indices into its
    ``unlabeled_idx``): the same solves, their soft labels and scores cut to those nodes, so
    a loss-curve search tracks the crossings of those nodes only (a fold's points)."""

    def __init__(self, model: Any, at: np.ndarray) -> None:
        self._model, self._at = model, np.asarray(at, np.int64)
        self.unlabeled_idx = model.unlabeled_idx[self._at]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)

    @property
    def n_unlabeled(self) -> int:
        return int(self._at.size)

    def _cut(self, r: Any) -> Any:
        from dataclasses import replace

        at = self._at
        if hasattr(r, "F"):  # Scores
            dF = None if r.dF is None else r.dF[at]
            return replace(r, F=r.F[at], dF=dF, degenerate=r.degenerate[at])
        df = None if r.df is None else r.df[at]
        return replace(r, f=r.f[at], df=df, degenerate=r.degenerate[at])

    def soft_labels_many(self, sigmas, **kw: Any) -> list:
        return [self._cut(r) for r in self._model.soft_labels_many(sigmas, **kw)]

    def exact_cholesky_many(self, sigmas) -> list:
        return [self._cut(r) for r in self._model.exact_cholesky_many(sigmas)]

    def scores(self, sigmas, y: np.ndarray, n_classes: int, **kw: Any) -> list:
        return [self._cut(r) for r in self._model.scores(sigmas, y, n_classes, **kw)]


def _in_gamma(sigma_edges: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A piecewise-constant function of σ as one of γ = 1/σ² (edges increasing)."""
    return 1.0 / np.asarray(sigma_edges, float)[::-1] ** 2, np.asarray(values, float)[::-1]


@dataclass(frozen=True, eq=False)
class GammaSearch:
    """The exact cross-validated accuracy over γ = 1/σ² and its best γ (:func:`gamma_search`):
    what ``ExactGammaSearchCV``, ``sslviz cv`` and the app's cross-validated γ view show.

    Attributes
    ----------
    cv : CVLoss
        The folds' exact losses over σ and their mean.
    best_score : float
        The largest cross-validated accuracy.
    best_gamma : float
        The geometric middle √(γ_lo γ_hi) of the widest (on a log axis) maximal γ interval
        of ``best_score`` (the rule of σ̂, docs/method.md §10.2).
    best_interval : (float, float)
        That interval, in γ.
    """

    cv: CVLoss
    best_score: float
    best_gamma: float
    best_interval: tuple[float, float]

    @property
    def n_folds(self) -> int:
        """The number of folds."""
        return len(self.cv.folds)

    @property
    def sigma_range(self) -> tuple[float, float]:
        """The σ range searched."""
        loss = self.cv.average.loss
        return float(loss.lo), float(loss.hi)

    @property
    def gamma_range(self) -> tuple[float, float]:
        """The γ range searched, 1/σ_max² to 1/σ_min²."""
        lo, hi = self.sigma_range
        return 1.0 / hi**2, 1.0 / lo**2

    def curve(self, axis: str = "gamma") -> tuple[np.ndarray, np.ndarray]:
        """``(edges, accuracy)``: the range ends and breakpoints, increasing, shape
        (pieces + 1,), and the accuracy on each piece, over γ (or ``axis='sigma'``)."""
        loss = self.cv.average.loss
        if axis == "sigma":
            return np.asarray(loss.edges, float), 1.0 - np.asarray(loss.values, float)
        return _in_gamma(loss.edges, 1.0 - loss.values)

    def fold_curves(self, axis: str = "gamma") -> list[tuple[int, np.ndarray, np.ndarray]]:
        """Each fold's ``(size, edges, accuracy)``, as :meth:`curve`."""
        out = []
        for f in self.cv.folds:
            acc = 1.0 - f.wrong / f.n_unlabeled
            e, a = (f.edges, acc) if axis == "sigma" else _in_gamma(f.edges, acc)
            out.append((int(f.n_unlabeled), np.asarray(e, float), np.asarray(a, float)))
        return out

    def score_at(self, gamma: float) -> float:
        """The exact cross-validated accuracy at γ (inside :attr:`gamma_range`)."""
        gamma = float(gamma)
        if not np.isfinite(gamma) or gamma <= 0:
            raise ValueError(f"γ must be a positive number, not {gamma!r}.")
        sigma = 1.0 / np.sqrt(gamma)
        lo, hi = self.sigma_range
        if not lo * (1 - 1e-12) <= sigma <= hi * (1 + 1e-12):
            g_lo, g_hi = self.gamma_range
            raise ValueError(
                f"γ = {gamma:.6g} is outside the range searched, [{g_lo:.6g}, {g_hi:.6g}]."
            )
        return 1.0 - float(self.cv.average.loss(min(max(sigma, lo), hi)))

    def document(self, settings: dict, seconds: float | None = None) -> dict:
        """The JSON document (``sslviz cv``'s): breakpoints in γ and σ, the pieces over γ
        (``lo``, ``hi``, ``score``), the best γ, its interval and score, each fold's curve,
        and ``settings``."""
        edges, acc = self.curve()
        sigma_edges = self.curve("sigma")[0]
        doc = {
            "parameter": "gamma",
            "measure": "cross-validated accuracy on the labeled points",
            "breakpoints": edges[1:-1].tolist(),
            "sigma_breakpoints": sigma_edges[1:-1].tolist(),
            "pieces": [
                {"lo": float(a), "hi": float(b), "score": float(v)}
                for a, b, v in zip(edges[:-1], edges[1:], acc, strict=True)
            ],
            "best_gamma": self.best_gamma,
            "best_score": self.best_score,
            "best_interval": {"lo": self.best_interval[0], "hi": self.best_interval[1]},
            "folds": [
                {"size": size, "edges": e.tolist(), "scores": a.tolist()}
                for size, e, a in self.fold_curves()
            ],
            "complete": self.cv.complete,
            "solves": self.cv.solves,
            "settings": settings,
        }
        return doc | ({} if seconds is None else {"seconds": seconds})


def cv_summary(doc: dict) -> list[str]:
    """What a cross-validated γ document (:meth:`GammaSearch.document`) says, in a few
    lines, every number read off it (``sslviz cv``'s summary and the app's caption)."""
    iv, pieces = doc["best_interval"], doc["pieces"]
    n = len(doc["breakpoints"])
    return [
        f"{len(doc['folds'])}-fold cross-validated accuracy over γ in "
        f"[{pieces[0]['lo']:.4g}, {pieces[-1]['hi']:.4g}]: {_count(n, 'breakpoint')}, "
        f"{_count(len(pieces), 'piece')}",
        f"best accuracy {doc['best_score']:.4f} at γ = {doc['best_gamma']:.4g} "
        f"(σ = {doc['best_gamma'] ** -0.5:.4g}), the middle of its widest interval, γ in "
        f"[{iv['lo']:.4g}, {iv['hi']:.4g}]",
    ] + ([] if doc["complete"] else ["some fold's search stopped at its evaluation budget"])


def problem_search(problem: Any, cv: Any = 5, bounds: tuple[float, float] | None = None):
    """:func:`gamma_search` on the instance of ``problem`` (a :class:`sslviz.problem.Problem`:
    the command line's and the app's), its unlabeled points' labels unread, ``cv`` folds of
    its labeled points as :func:`label_folds` (seed 0: ExactGammaSearchCV's)."""
    inst = problem.instance
    lab = np.asarray(inst.labeled, bool)
    inputs = Inputs(np.asarray(inst.X, float), np.asarray(inst.y), lab, lab.copy(), inst.classes)
    settings = instance_settings(**{name: getattr(problem.spec, name) for name in _DEFAULTS})
    return gamma_search(inputs, settings, label_folds(inputs, cv), bounds)


def rbf_family() -> str:
    """The Gaussian family whose pattern is every pair (dense): scikit-learn's RBF graph."""
    from sslviz import registry

    return next(f.name for f in registry.FAMILIES.values() if f.gaussian and not f.sparse)


def sklearn_snippet(spec: Any, gamma_range: tuple[float, float], folds: int) -> str | None:
    """The Python that reproduces a cross-validated γ view with scikit-learn's estimator
    (``ExactGammaSearchCV`` on the instance of ``spec``, a :class:`sslviz.specs.ProblemSpec`,
    over ``gamma_range`` with ``folds`` folds); None where scikit-learn has no estimator of
    its model on its graph (only the complete graph is scikit-learn's RBF kernel)."""
    from dataclasses import fields

    from sslviz import registry

    model = registry.MODELS.get(spec.labeling)
    name = getattr(model, "sklearn_estimator", None)
    if name is None or spec.family != rbf_family():
        return None
    skip = ("family", "labeling", "alpha")  # the estimator's
    args = ", ".join(
        f"{f.name}={getattr(spec, f.name)!r}"
        for f in fields(spec)
        if f.name not in skip and getattr(spec, f.name) != f.default
    )
    params = 'kernel="rbf"' + (f", alpha={spec.alpha!r}" if "alpha" in model.reads else "")
    lo, hi = (float(g) for g in gamma_range)
    return "\n".join(
        [
            "import numpy as np",
            f"from sklearn.semi_supervised import {name}",
            "",
            "from sslviz.problem import build_problem",
            "from sslviz.sklearn import ExactGammaSearchCV",
            "from sslviz.specs import ProblemSpec",
            "",
            f"inst = build_problem(ProblemSpec({args})).instance",
            "y = np.where(inst.labeled, np.asarray(inst.classes)[inst.y], -1)  # -1: unlabeled",
            "search = ExactGammaSearchCV(",
            f"    {name}({params}), gamma_range=({lo!r}, {hi!r}), cv={int(folds)}",
            ").fit(inst.X, y)",
            "print(search.best_gamma_, search.best_score_, search.best_interval_)",
        ]
    )


def gamma_search(
    inputs: Inputs,
    settings: dict,
    folds: Sequence[np.ndarray],
    bounds: tuple[float, float] | None = None,
) -> GammaSearch:
    """The exact cross-validated accuracy of ``settings``' model over σ in ``bounds`` (None:
    the range suggested by X, as for any fold's instance) and its best γ (:class:`GammaSearch`).
    """
    from sslviz.learn import erm

    first = inputs.labeled.copy()  # any fold's instance: the suggested range reads X only
    first[folds[0]] = False
    lo, hi = _range(_problem(inputs, settings, first), bounds)
    cvl = cv_loss(inputs, settings, lo, hi, folds)
    best = erm(cvl.average)
    widest = max(best.intervals, key=lambda iv: np.log(iv[1] / iv[0]))
    return GammaSearch(
        cvl,
        1.0 - float(best.loss),
        1.0 / best.sigma_hat**2,
        (1.0 / widest[1] ** 2, 1.0 / widest[0] ** 2),
    )


def label_folds(inputs: Inputs, cv: Any = 5, seed: int = 0) -> list[np.ndarray]:
    """The labeled rows split into folds by ``cv``: an int (stratified k-fold where each
    class has that many labeled points, else k-fold; shuffled with ``seed``) or any
    scikit-learn splitter. Each fold as row indices of X."""
    from sklearn.model_selection import KFold, StratifiedKFold

    rows = np.flatnonzero(inputs.labeled)
    y = inputs.codes[rows]
    if isinstance(cv, (int, np.integer)) and not isinstance(cv, bool):
        if cv < 2 or cv > rows.size:
            raise InvalidParameterError(
                f"cv = {cv} folds: give between 2 and the number of labeled points ({rows.size})."
            )
        stratify = np.bincount(y, minlength=len(inputs.classes)).min() >= cv
        cv = (StratifiedKFold if stratify else KFold)(int(cv), shuffle=True, random_state=seed)
    return [rows[test] for _, test in cv.split(np.zeros((rows.size, 1)), y)]


# --------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("s" * (n != 1))


def _pieces(loss: PiecewiseLoss) -> list[tuple[float, float, float]]:
    return [
        (float(a), float(b), float(v))
        for a, b, v in zip(loss.edges[:-1], loss.edges[1:], loss.values, strict=True)
    ]


def _table(rows: list[tuple[float, float, float]], head: str, at_most: int = 12) -> str:
    """An HTML table of the first pieces (a notebook's view of a result)."""
    cells = "".join(
        f"<tr><td>{lo:.6g}</td><td>{hi:.6g}</td><td>{v:.4g}</td></tr>"
        for lo, hi, v in rows[:at_most]
    )
    more = (
        f"<tr><td colspan=3>… {len(rows) - at_most} more pieces</td></tr>"
        if len(rows) > at_most
        else ""
    )
    return (
        f"<table><tr><th>σ from</th><th>σ to</th><th>{html.escape(head)}</th></tr>"
        f"{cells}{more}</table>"
    )


@dataclass(frozen=True, eq=False)
class LossCurveResult:
    """An exact loss curve over σ (:func:`loss_curve`), as a notebook shows it.

    Attributes
    ----------
    loss : sslviz.piecewise.PiecewiseLoss
        The loss on each piece (fractions in [0, 1]).
    what : str
        What the loss measures, in words.
    document : dict
        The JSON document (:meth:`to_dict`).
    """

    loss: PiecewiseLoss
    what: str
    document: dict = field(repr=False)
    _figure: Any = field(repr=False)

    @property
    def breakpoints(self) -> np.ndarray:
        """The σ where the loss changes, shape (n_breakpoints,), increasing."""
        return self.loss.breakpoints

    @property
    def pieces(self) -> list[tuple[float, float, float]]:
        """``(σ_lo, σ_hi, loss)`` of each piece, in order (one more than the breakpoints)."""
        return _pieces(self.loss)

    def loss_at(self, sigma: float | None = None, *, gamma: float | None = None) -> float:
        """The exact loss at σ (or at γ = 1/σ²)."""
        if (sigma is None) == (gamma is None):
            raise InvalidParameterError("loss_at takes sigma or gamma (γ = 1/σ²), one of them.")
        s = float(sigma) if sigma is not None else 1.0 / np.sqrt(float(gamma))
        if not self.loss.lo <= s <= self.loss.hi:
            raise InvalidParameterError(
                f"σ = {s:.6g} is outside the curve's range [{self.loss.lo:.6g}, "
                f"{self.loss.hi:.6g}]."
            )
        return float(self.loss(s))

    @property
    def best(self) -> tuple[float, float, float]:
        """``(loss, σ_lo, σ_hi)``: the smallest loss and the widest σ piece attaining it."""
        return tuple(float(v) for v in self.loss.minimum())

    def figure(self):
        """The curve as a Plotly figure (the app's figure)."""
        return self._figure()

    def to_dict(self) -> dict:
        """The JSON document (``sslviz loss``'s, for the loss on U)."""
        return self.document

    def __repr__(self) -> str:
        loss, lo, hi = self.best
        return (
            f"LossCurveResult({self.what}: {_count(self.breakpoints.size, 'breakpoint')} on σ in "
            f"[{self.loss.lo:.4g}, {self.loss.hi:.4g}]; best {loss:.4g} for σ in "
            f"[{lo:.4g}, {hi:.4g}])"
        )

    def _repr_html_(self) -> str:
        return f"<p>{html.escape(repr(self))}</p>" + _table(self.pieces, "loss")


@dataclass(frozen=True, eq=False)
class IntervalsResult:
    """Algorithm 4's intervals (:func:`intervals`), scored against the exact curve.

    Attributes
    ----------
    intervals : list of (σ_lo, σ_hi, loss)
        The constant-loss intervals found, their estimated loss.
    score : dict or None
        Missed and spurious breakpoints and the ε-volume (Definition 4), as in the JSON.
    document : dict
        ``sslviz intervals``' JSON document (:meth:`to_dict`).
    """

    intervals: list
    score: dict | None
    document: dict = field(repr=False)
    _figure: Any = field(repr=False)

    def figure(self):
        """The app's loss figure: true loss, the intervals, the misses by cause."""
        return self._figure()

    def to_dict(self) -> dict:
        return self.document

    def __repr__(self) -> str:
        sc = self.score
        scored = (
            f"; {sc['missed']} of {sc['true_breakpoints']} true breakpoints missed, "
            f"{sc['spurious']} spurious, ε-volume {sc['eps_volume']:.3g}"
            if sc
            else ""
        )
        return f"IntervalsResult({_count(len(self.intervals), 'interval')}{scored})"

    def _repr_html_(self) -> str:
        return f"<p>{html.escape(repr(self))}</p>" + _table(self.intervals, "estimated loss")


def curve_figure(edges, values, *, x_title: str, y_title: str, name: str, folds=()):
    """A step curve over a logarithmic x axis, ``folds`` (``(size, edges, values)`` each)
    faint under it."""
    import plotly.graph_objects as go

    from sslviz.plots.cv import add_folds
    from sslviz.plots.style import new_figure

    fig = new_figure()
    add_folds(fig, folds)
    fig.add_trace(
        go.Scatter(
            x=edges, y=np.r_[values, values[-1]], mode="lines", line=dict(shape="hv"), name=name
        )
    )
    fig.update_xaxes(type="log", title=x_title)
    fig.update_yaxes(title=y_title)
    return fig


# --------------------------------------------------------------------------------------
# The functions
# --------------------------------------------------------------------------------------


def _instance(inputs: Inputs, given: dict) -> tuple[dict, Any, tuple[float, float]]:
    """The settings, the problem and the σ range of a call whose arguments are ``given``
    (its ``locals()``: the instance settings and ``sigma_range`` or ``gamma_range``)."""
    chosen = instance_settings(**{name: given[name] for name in _DEFAULTS})
    problem = _problem(inputs, chosen)
    return (
        chosen,
        problem,
        _range(problem, sigma_bounds(given["sigma_range"], given["gamma_range"])),
    )


def instance_settings(**given: Any) -> dict:
    """The instance's settings: ``given`` over sslviz's defaults (:mod:`sslviz.specs`)."""
    return _DEFAULTS | given


def loss_curve(
    X: Any,
    y: Any,
    *,
    labeled: Any = None,
    family: str = _DEFAULTS["family"],
    k: int = _DEFAULTS["k"],
    labeling: str = _DEFAULTS["labeling"],
    alpha: float = _DEFAULTS["alpha"],
    subset: int = _DEFAULTS["subset"],
    lam: float = _DEFAULTS["lam"],
    seed: int = _DEFAULTS["seed"],
    sigma_range: Sequence[float] | None = None,
    gamma_range: Sequence[float] | None = None,
    cv: Any = 5,
) -> LossCurveResult:
    """The exact loss over σ of a labeling model on the graph of X (docs/method.md §5).

    Parameters
    ----------
    X : array-like of shape (n, p)
        The points, used as given (no PCA): d_ij are their Euclidean distances.
    y : array-like of shape (n,)
        Class labels (2 to 10 classes), −1 for an unlabeled point.
    labeled : array-like of shape (n,), bool, optional
        Which points are labeled, when y gives every label: the loss is then the paper's
        l(σ) on the unlabeled points. Without it, and with −1 in y, the loss is the exact
        transductive ``cv``-fold cross-validated loss over the labeled points.
    family : str, default: ``sslviz loss``'s (the complete graph)
        Graph family (``sslviz loss --help`` lists them, plug-ins included).
    k : int, default=6
        Neighbours per node (kNN families).
    labeling : str, default: ``sslviz loss``'s (the harmonic model)
        Labeling model: the registry's (LabelSpreading is ``spreading``).
    alpha : float, default=0.2
        LabelSpreading's α in (0, 1).
    subset, lam : int, float
        Delalleau's m and λ.
    seed : int, default=0
        Delalleau's draw of Ũ; the folds' shuffle.
    sigma_range, gamma_range : (low, high), optional
        The range, in σ or in γ = 1/σ² (weights exp(−d²/σ²) = exp(−γ d²)); default the
        range suggested by the data.
    cv : int or scikit-learn splitter, default=5
        The folds of the cross-validated loss (without ``labeled``).

    Returns
    -------
    LossCurveResult
    """
    from sslviz.export import loss_document
    from sslviz.problem import loss_curve as search

    inputs = check_inputs(X, y, labeled)
    chosen, problem, (lo, hi) = _instance(inputs, locals())
    if inputs.truth:
        curve = search(problem, lo, hi)
        doc = loss_document(problem, curve, (lo, hi))
        from sslviz.plots import loss_intervals_figure

        rows = problem.model.unlabeled_idx.tolist()
        what = "the loss on the unlabeled points"
        return LossCurveResult(
            curve.loss, what, doc, lambda: loss_intervals_figure(curve, rows=rows)
        )
    folds = label_folds(inputs, cv, seed)
    cvl = cv_loss(inputs, chosen, lo, hi, folds)
    loss = cvl.average.loss
    what = f"the {len(folds)}-fold cross-validated loss on the labeled points"
    doc = cv_document(problem, cvl, (lo, hi), len(folds))

    def figure():
        return curve_figure(
            loss.edges,
            loss.values,
            x_title="σ",
            y_title="cross-validated loss",
            name="cross-validated loss",
            folds=[(f.n_unlabeled, f.edges, f.wrong / f.n_unlabeled) for f in cvl.folds],
        )

    return LossCurveResult(loss, what, doc, figure)


def cv_document(problem, cvl: CVLoss, sigma_range: tuple[float, float], n_folds: int) -> dict:
    """The cross-validated loss as a JSON document: the keys of ``sslviz loss``'s where they
    mean the same (breakpoints, pieces, best, settings), and the folds'."""
    from sslviz.export import settings_dict

    loss = cvl.average.loss
    best, lo, hi = loss.minimum()
    return {
        "parameter": "sigma",
        "measure": "cross-validated loss on the labeled points",
        "breakpoints": loss.breakpoints.tolist(),
        "pieces": [{"lo": a, "hi": b, "loss": v} for a, b, v in _pieces(loss)],
        "best": {
            "loss": float(best),
            "accuracy": 1.0 - float(best),
            "lo": float(lo),
            "hi": float(hi),
        },
        "folds": [
            {"size": f.n_unlabeled, "edges": f.edges.tolist(), "wrong": f.wrong.tolist()}
            for f in cvl.folds
        ],
        "complete": cvl.complete,
        "solves": cvl.solves,
        "settings": settings_dict(
            problem.spec, sigma_min=sigma_range[0], sigma_max=sigma_range[1], cv=n_folds
        ),
    }


def intervals(
    X: Any,
    y: Any,
    *,
    labeled: Any = None,
    family: str = _DEFAULTS["family"],
    k: int = _DEFAULTS["k"],
    labeling: str = _DEFAULTS["labeling"],
    alpha: float = _DEFAULTS["alpha"],
    subset: int = _DEFAULTS["subset"],
    lam: float = _DEFAULTS["lam"],
    seed: int = _DEFAULTS["seed"],
    sigma_range: Sequence[float] | None = None,
    gamma_range: Sequence[float] | None = None,
    solver: str = "cg",
    cg_iters: int = 20,
    mode: str = "fast",
    certify: bool = False,
    score: bool = True,
) -> IntervalsResult:
    """Algorithm 4's constant-loss intervals (docs/method.md §6), scored against the exact
    curve (missed and spurious breakpoints, ε-volume).

    The arguments are :func:`loss_curve`'s (the loss is on U: y gives every label, and
    ``labeled`` says which are given to the model), and Algorithm 4's: ``solver`` ('cg',
    'pcg', 'exact', 'inverse'), ``cg_iters`` (t), ``mode`` ('fast', 'paper'), ``certify``
    (fast mode, CG/PCG); ``score`` scores them against the exact curve.

    Returns
    -------
    IntervalsResult
    """
    from sslviz.algorithm4 import sweep, sweep_classes
    from sslviz.export import intervals_document
    from sslviz.plots import loss_intervals_figure
    from sslviz.problem import loss_curve as search
    from sslviz.scoring import score as score_of
    from sslviz.specs import ScoreSettings, SweepSettings

    inputs = check_inputs(X, y, labeled)
    if not inputs.truth:
        raise InvalidParameterError(
            "Algorithm 4's intervals carry the loss on the unlabeled points, so it needs "
            "their labels: give every label in y and say which are given with labeled=mask."
        )
    chosen, problem, (lo, hi) = _instance(inputs, locals())
    settings = SweepSettings(solver=solver, cg_iters=cg_iters, mode=mode, certify=certify)
    inst = problem.instance
    many = inst.n_classes > 2
    if many:
        res = sweep_classes(problem.model, inst.y, inst.classes, lo, hi, settings)
    else:
        res = sweep(problem.model, problem.y_unlabeled, lo, hi, settings)
    truth = search(problem, lo, hi) if score else None
    sc = score_of(res, truth, model=problem.model, y=inst.y if many else None) if score else None
    scoring = ScoreSettings(score=True) if score else None
    doc = intervals_document(problem, res, settings, sc, scoring)
    found = [(iv["lo"], iv["hi"], iv["loss"]) for iv in doc["intervals"]]
    rows = problem.model.unlabeled_idx.tolist()
    return IntervalsResult(
        found,
        doc.get("score"),
        doc,
        lambda: (
            loss_intervals_figure(truth, res, score=sc, rows=rows)
            if truth is not None
            else loss_intervals_figure(search(problem, lo, hi), res, rows=rows)
        ),
    )


@dataclass(frozen=True, eq=False)
class ConditionResult:
    """κ of the model's system and CG's behaviour on a σ grid (:func:`condition`).

    Attributes
    ----------
    sigma, kappa : ndarray of shape (points,)
        The grid and κ there (κ(I − P_UU), κ(A), κ(I − αS): the model's system).
    iterations_needed : ndarray of shape (points,)
        CG iterations to a relative residual of 1e-6 (a value with ``reached`` False is
        its cap: "> cap").
    reached : ndarray of shape (points,), bool
    document : dict
        ``sslviz condition``'s JSON document (:meth:`to_dict`).
    """

    sigma: np.ndarray
    kappa: np.ndarray
    iterations_needed: np.ndarray
    reached: np.ndarray
    document: dict = field(repr=False)
    _figure: Any = field(repr=False)

    def figure(self):
        """√κ against σ (the conditioning page's figure)."""
        return self._figure()

    def to_dict(self) -> dict:
        return self.document

    def __repr__(self) -> str:
        return (
            f"ConditionResult(κ from {self.kappa.min():.4g} to {self.kappa.max():.4g} on "
            f"{self.sigma.size} σ in [{self.sigma[0]:.4g}, {self.sigma[-1]:.4g}])"
        )

    def _repr_html_(self) -> str:
        needed = [
            f"{int(t)}" if ok else f"> {int(t)}"
            for t, ok in zip(self.iterations_needed, self.reached, strict=True)
        ]
        cells = "".join(
            f"<tr><td>{s:.4g}</td><td>{k:.4g}</td><td>{t}</td></tr>"
            for s, k, t in zip(self.sigma, self.kappa, needed, strict=True)
        )
        head = "<tr><th>σ</th><th>κ</th><th>CG iterations needed</th></tr>"
        return f"<p>{html.escape(repr(self))}</p><table>{head}{cells}</table>"


def condition(
    X: Any,
    y: Any,
    *,
    labeled: Any = None,
    family: str = _DEFAULTS["family"],
    k: int = _DEFAULTS["k"],
    labeling: str = _DEFAULTS["labeling"],
    alpha: float = _DEFAULTS["alpha"],
    subset: int = _DEFAULTS["subset"],
    lam: float = _DEFAULTS["lam"],
    seed: int = _DEFAULTS["seed"],
    sigma_range: Sequence[float] | None = None,
    gamma_range: Sequence[float] | None = None,
    points: int = 40,
    solver: str = "cg",
    cg_iters: int = 20,
) -> ConditionResult:
    """κ of the model's system, the CG iterations it needs and CG-t's largest soft-label
    error at ``points`` σ evenly spaced over the range (docs/method.md §7).

    The arguments are :func:`loss_curve`'s (the labels of the unlabeled points are not
    read: y may hold −1) and the conditioning view's: ``points``, ``solver`` ('cg' or
    'pcg'), ``cg_iters`` (t).

    Returns
    -------
    ConditionResult
    """
    import time

    from sslviz.conditioning import condition_curve
    from sslviz.export import condition_document
    from sslviz.plots import condition_figure
    from sslviz.specs import ConditionSettings

    inputs = check_inputs(X, y, labeled)
    if len(inputs.classes) > 2:
        raise InvalidParameterError(
            f"condition handles two classes yet, not {len(inputs.classes)}: keep two of them."
        )
    chosen, problem, (lo, hi) = _instance(inputs, locals())
    view = ConditionSettings(points=points, solver=solver, cg_iters=cg_iters)
    t0 = time.perf_counter()
    curve = condition_curve(
        problem.model,
        np.linspace(lo, hi, view.points),
        solver=view.solver,
        cg_iters=view.cg_iters,
        rtol=view.rtol,
    )
    doc = condition_document(problem, curve, view, time.perf_counter() - t0)
    return ConditionResult(
        curve.sigma,
        curve.kappa,
        curve.iterations_needed,
        curve.reached,
        doc,
        lambda: condition_figure({problem.spec.family: curve}),
    )


# --------------------------------------------------------------------------------------
# Regret and learn: the command line's experiments, on arrays or the dataset options
# --------------------------------------------------------------------------------------


def _arrays_file(X: Any, y: Any, labeled: Any) -> str:
    """The arrays as an ``.npz`` the command line reads (``--data-file``), named by their
    content (the same arrays, the same file) in the system's temporary folder."""
    import hashlib
    import tempfile
    from pathlib import Path

    arrays = {"X": np.asarray(X, dtype=float), "y": np.asarray(y)}
    if labeled is not None:
        arrays["labeled"] = np.asarray(labeled)
    digest = hashlib.sha256()
    for name, a in arrays.items():
        digest.update(f"{name}{a.dtype.str}{a.shape}".encode())
        digest.update(np.ascontiguousarray(a).tobytes())
    folder = Path(tempfile.gettempdir()) / "sslviz_arrays"
    folder.mkdir(exist_ok=True)
    path = folder / f"{digest.hexdigest()[:20]}.npz"
    if not path.is_file():
        np.savez(path, **arrays)
    return str(path)


def _command_specs(
    command: str, X: Any, y: Any, labeled: Any, given: dict, ranges: tuple
) -> tuple[list, Any]:
    """The settings of ``sslviz command`` from keyword arguments named as its options'
    fields (``n_labeled``, ``rounds``, ``cg_iters``, …): one spec per table of the command
    (the range from ``ranges``, ``(sigma_range, gamma_range)``); with arrays X, y, they are
    the data file (``pca`` 0 and ``classes`` every class of y unless given: X as given)."""
    from dataclasses import fields

    from sslviz import specs as S

    tables = {
        "regret": [S.ProblemSpec, S.SweepSettings, S.RegretSettings],
        "learn": [S.ProblemSpec, S.LearnSettings],
    }[command]  # the tables of the command's options but its range (sslviz.cli.COMMANDS)
    names = {f.name: cls for cls in tables for f in fields(cls)}
    unknown = sorted(set(given) - set(names))
    if unknown:
        raise TypeError(
            f"{command}() takes no setting {', '.join(map(repr, unknown))}; its settings are "
            f"{', '.join(sorted(names))} (sslviz {command} --help says what each means)."
        )
    if X is not None or y is not None:
        if X is None or y is None:
            raise InvalidParameterError("Give both X and y (or neither, and dataset=...).")
        if "dataset" in given or "data_file" in given:
            raise InvalidParameterError("Give arrays X, y or dataset=..., not both.")
        classes = tuple(int(c) for c in np.unique(np.asarray(y)) if c != -1)
        given = {"pca": 0, "classes": classes} | given
        given |= {"data_file": _arrays_file(X, y, labeled)}
    specs = [cls(**{k: v for k, v in given.items() if names[k] is cls}) for cls in tables]
    bounds = sigma_bounds(*ranges)
    sigma = S.SigmaRange(*(bounds if bounds is not None else (None, None)))
    return specs, sigma


def _run(command: str, run: Any) -> Any:
    """``run()``, the command line's refusals as this API's errors (one line each)."""
    from sslviz.runs import CommandError

    try:
        return run()
    except CommandError as exc:
        raise InvalidParameterError(str(exc)) from None


def _summary_table(rows: list[tuple], head: tuple[str, ...]) -> str:
    """An HTML table: ``head`` and ``rows`` (already written as text)."""
    th = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    cells = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>" for r in rows
    )
    return f"<table><tr>{th}</tr>{cells}</table>"


@dataclass(frozen=True, eq=False)
class RegretResult:
    """An online Exp3-Set experiment (:func:`regret`), as a notebook shows it.

    Attributes
    ----------
    document : dict
        ``sslviz regret``'s JSON document (:meth:`to_dict`).
    experiment : sslviz.experiment.RegretExperiment
        The runs.
    """

    document: dict = field(repr=False)
    experiment: Any = field(repr=False)

    @property
    def final_regret(self) -> dict[str, float]:
        """Each feedback model's mean cumulative regret after the last round."""
        return {m: float(v["regret_mean"][-1]) for m, v in self.document["models"].items()}

    def figure(self):
        """Cumulative regret per feedback model with its band (the regret page's figure)."""
        from sslviz.plots import regret_figure

        return regret_figure(self.experiment)

    def to_dict(self) -> dict:
        return self.document

    def __repr__(self) -> str:
        d = self.document
        final = ", ".join(f"{m} {v:.4g}" for m, v in self.final_regret.items())
        return (
            f"RegretResult({d['rounds']} rounds × {_count(d['repeats'], 'repetition')}; "
            f"final regret: {final})"
        )

    def _repr_html_(self) -> str:
        models = self.document["models"]
        rows = [
            (m, f"{final:.4g}", "[{:.4g}, {:.4g}]".format(*models[m]["best_sigma"]))
            for m, final in self.final_regret.items()
        ]
        head = ("feedback model", "final regret (mean over repetitions)", "best fixed σ")
        return f"<p>{html.escape(repr(self))}</p>" + _summary_table(rows, head)


def regret(
    X: Any = None,
    y: Any = None,
    *,
    labeled: Any = None,
    sigma_range: Sequence[float] | None = None,
    gamma_range: Sequence[float] | None = None,
    **settings: Any,
) -> RegretResult:
    """The online tuning of σ by Exp3-Set (Algorithm 1, docs/method.md §8): each feedback
    model's regret, as ``sslviz regret`` computes it.

    Parameters
    ----------
    X, y : array-like of shape (n, p) and (n,), optional
        The instance (every label known, ``labeled`` the mask of those given; X used as
        given, ``pca`` 0). Without them, the dataset options draw the rounds' instances.
    labeled : array-like of shape (n,), bool, optional
    sigma_range, gamma_range : (low, high), optional
        The range, in σ or γ = 1/σ²; default the suggested one.
    **settings
        The command's settings by their field names: the instance's (``dataset``,
        ``classes``, ``n``, ``n_labeled``, ``seed``, ``pca``, ``family``, ``k``,
        ``labeling``, ``alpha``, …), Algorithm 4's (``solver``, ``cg_iters``, ``mode``, …)
        and the experiment's (``rounds``, ``repeats``, ``feedback``, ``lr``, ``jobs``);
        defaults the command line's.

    Returns
    -------
    RegretResult
        ``to_dict()`` is ``sslviz regret``'s document for the same settings.
    """
    from sslviz import runs

    def run():
        (spec, sweep, reg), sigma = _command_specs(
            "regret", X, y, labeled, settings, (sigma_range, gamma_range)
        )
        return runs.regret_run(runs.checked_problem(spec), sigma, sweep, reg)

    doc, exp = _run("regret", run)
    return RegretResult(doc, exp)


@dataclass(frozen=True, eq=False)
class LearnResult:
    """σ (and k) learned by exact ERM over many instances (:func:`learn`).

    Attributes
    ----------
    document : dict
        ``sslviz learn``'s JSON document (:meth:`to_dict`).
    result : sslviz.learn.LearnResult
    """

    document: dict = field(repr=False)
    result: Any = field(repr=False)

    @property
    def sigma_hat(self) -> float:
        """σ̂: the geometric middle of the widest ERM interval."""
        return float(self.document["sigma_hat"])

    def figure(self):
        """The training losses, their average and its ERM set (the learn page's figure)."""
        from sslviz.plots import learn_figure

        return learn_figure(self.result)

    def to_dict(self) -> dict:
        return self.document

    def __repr__(self) -> str:
        d = self.document
        test = d.get("test")
        held = f"; held-out loss at σ̂ {test['loss_at_sigma_hat']:.4g}" if test else ""
        return (
            f"LearnResult(σ̂ = {self.sigma_hat:.4g} from {_count(d['instances'], 'instance')}, "
            f"training loss {d['erm']['loss']:.4g}{held})"
        )

    def _repr_html_(self) -> str:
        rows = [
            (a["solver"], f"{a['sigma_hat']:.4g}", f"{a['test_loss']:.4g}")
            for a in self.document.get("approximate", [])
            if a.get("test_loss") is not None
        ]
        head = ("learner", "σ̂", "held-out loss at σ̂")
        table = _summary_table(rows, head) if rows else ""
        return f"<p>{html.escape(repr(self))}</p>" + table


def learn(
    X: Any = None,
    y: Any = None,
    *,
    labeled: Any = None,
    sigma_range: Sequence[float] | None = None,
    gamma_range: Sequence[float] | None = None,
    **settings: Any,
) -> LearnResult:
    """σ (and k) learned by exact ERM over many instances drawn from one domain, measured
    on held-out instances (the paper's §2 and §4, docs/method.md §10), as ``sslviz learn``
    computes it.

    Parameters
    ----------
    X, y, labeled : optional
        One instance as arrays (then it is the one training instance); without them the
        dataset options draw ``instances`` training and ``test_instances`` held-out ones.
    sigma_range, gamma_range : (low, high), optional
    **settings
        The command's settings by their field names: the instance's (``dataset``,
        ``classes``, ``n``, ``n_labeled``, ``seed``, ``family``, …) and the learning's
        (``instances``, ``test_instances``, ``k_range``, ``solver``, ``compare_t``,
        ``curve``, ``repeats``, ``jobs``); defaults the command line's.

    Returns
    -------
    LearnResult
        ``to_dict()`` is ``sslviz learn``'s document for the same settings.
    """
    from dataclasses import replace

    from sslviz import runs

    def run():
        (spec, learning), sigma = _command_specs(
            "learn", X, y, labeled, settings, (sigma_range, gamma_range)
        )
        files = [spec.data_file] if spec.data_file is not None else []
        base = replace(spec, data_file=None)
        return runs.learn_run(base, learning, sigma, files, drawn=not files)

    doc, result = _run("learn", run)
    return LearnResult(doc, result)
