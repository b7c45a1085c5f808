"""scikit-learn's LabelSpreading and LabelPropagation with γ chosen by exact cross-validation.

    from sklearn.semi_supervised import LabelSpreading
    from sslviz.sklearn import ExactGammaSearchCV

    search = ExactGammaSearchCV(LabelSpreading(kernel="rbf", alpha=0.2), cv=5).fit(X, y)
    search.best_gamma_, search.best_score_, search.score_at(0.3), search.figure()

Each fold's accuracy is piecewise constant in γ, so the cross-validated accuracy is too:
sslviz computes every fold's exact curve and their exact mean (docs/python.md), where a grid
search samples it and can step over its narrow pieces.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from sslviz import api

EXPECTED_FAILED_CHECKS = {
    "check_classifiers_classes": (
        "its last part fits the labels −1 and 1, and −1 marks an unlabeled point here (as "
        "in scikit-learn's LabelSpreading and LabelPropagation, which that check exempts by "
        "name): those data have one class"
    ),
}
"""The scikit-learn checks that cannot apply to a transductive search, and why: pass as
``check_estimator(..., expected_failed_checks=EXPECTED_FAILED_CHECKS)`` (docs/python.md)."""


def _model_of(estimator: Any) -> Any:
    """The sslviz model whose solution ``estimator`` computes (its ``sklearn_estimator``)."""
    from sslviz import registry

    name = type(estimator).__name__
    for model in registry.MODELS.values():
        if model.sklearn_estimator == name:
            return model
    known = [m.sklearn_estimator for m in registry.MODELS.values() if m.sklearn_estimator]
    raise ValueError(
        f"ExactGammaSearchCV searches the γ of scikit-learn's {' or '.join(known)}; it was "
        f"given {name}."
    )


class ExactGammaSearchCV(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """The RBF γ of a LabelSpreading or LabelPropagation, chosen by exact transductive
    cross-validation.

    scikit-learn's RBF weights exp(−γ‖x − y‖²) are sslviz's exp(−d²/σ²) on the complete
    graph: **γ = 1/σ²**. The labeled points (y ≠ −1) are split into ``cv`` folds; for each
    fold its labels are hidden, the model is fit on every point with the other labels, and
    the fold's points are scored (accuracy). Each fold's accuracy is piecewise constant in
    γ with exact breakpoints, and so is their mean, the cross-validated accuracy: it is
    computed exactly on the whole ``gamma_range`` (docs/python.md).

    Parameters
    ----------
    estimator : LabelSpreading or LabelPropagation
        With ``kernel="rbf"`` (a kNN kernel has no γ); its other parameters (α) are used.
    gamma_range : (low, high), optional
        The γ searched; default the range that sslviz suggests for the data (half the median
        nearest-neighbour distance to twice the median 6th-neighbour distance, in σ).
    cv : int or scikit-learn splitter, default=5
        Folds of the labeled points: an int is stratified k-fold (shuffled, seed 0) where
        every class has that many labeled points, else k-fold.

    Attributes
    ----------
    best_gamma_ : float
        The geometric middle √(γ_lo γ_hi) of the widest (on a log axis) maximal γ interval
        of the best cross-validated accuracy.
    best_score_ : float
        That accuracy.
    best_interval_ : (float, float)
        The interval.
    cv_curve_ : dict
        ``breakpoints`` (the γ where the accuracy changes, increasing) and ``pieces``
        (``(γ_lo, γ_hi, accuracy)`` in order).
    cv_folds_ : list of dict
        Each fold's ``size``, ``edges`` (γ, increasing) and ``accuracy`` per piece.
    best_estimator_ : estimator
        ``estimator`` refit on every label with ``gamma=best_gamma_``.
    classes_, transduction_, label_distributions_ : ndarray
        The refit estimator's.
    n_splits_ : int
    complete_ : bool
        False when some fold's search stopped at its evaluation budget.
    """

    def __init__(self, estimator: Any, *, gamma_range: Any = None, cv: Any = 5) -> None:
        self.estimator = estimator
        self.gamma_range = gamma_range
        self.cv = cv

    def _labeling(self) -> dict:
        """The sslviz settings of ``estimator``: its model, the RBF family, its α."""
        model = _model_of(self.estimator)
        params = self.estimator.get_params()
        if params.get("kernel") != "rbf":
            raise ValueError(
                f"The estimator's kernel is {params.get('kernel')!r}: only the RBF kernel has "
                "a γ (a kNN kernel has none). Use kernel='rbf'."
            )
        out = {"family": api.rbf_family(), "labeling": model.name}
        return out | ({"alpha": params["alpha"]} if "alpha" in model.reads else {})

    def fit(self, X: Any, y: Any) -> ExactGammaSearchCV:
        """Search γ, then refit ``estimator`` on every label with the best γ.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels, −1 for an unlabeled point (scikit-learn's convention).
        """
        settings = api.instance_settings(**self._labeling())
        X, y = validate_data(self, X, y, ensure_min_samples=3)
        check_classification_targets(y)
        inputs = api.check_inputs(X, y, unlabeled=False)
        folds = api.label_folds(inputs, self.cv)
        search = api.gamma_search(inputs, settings, folds, api.sigma_bounds(None, self.gamma_range))
        self._search = search  # score_at and figure read it
        self.n_splits_ = len(folds)
        self.complete_ = search.cv.complete
        self.best_score_ = search.best_score
        self.best_gamma_ = search.best_gamma
        self.best_interval_ = search.best_interval
        edges, acc = search.curve()
        self.cv_curve_ = {
            "breakpoints": edges[1:-1],
            "pieces": list(zip(edges[:-1].tolist(), edges[1:].tolist(), acc.tolist(), strict=True)),
        }
        self.cv_folds_ = [
            {"size": size, "edges": e, "accuracy": a} for size, e, a in search.fold_curves()
        ]
        self.best_estimator_ = clone(self.estimator).set_params(gamma=self.best_gamma_)
        self.best_estimator_.fit(X, y)
        self.classes_ = self.best_estimator_.classes_
        self.transduction_ = self.best_estimator_.transduction_
        self.label_distributions_ = self.best_estimator_.label_distributions_
        return self

    def score_at(self, gamma: float) -> float:
        """The exact cross-validated accuracy at γ (inside ``gamma_range``)."""
        check_is_fitted(self)
        return self._search.score_at(gamma)

    def predict(self, X: Any) -> np.ndarray:
        """The refit estimator's predictions."""
        check_is_fitted(self)
        return self.best_estimator_.predict(X)

    def predict_proba(self, X: Any) -> np.ndarray:
        """The refit estimator's class probabilities."""
        check_is_fitted(self)
        return self.best_estimator_.predict_proba(X)

    def figure(self, *, axis: str = "gamma"):
        """The cross-validated accuracy against γ (``axis='sigma'``: σ = 1/√γ), the folds'
        faintly, ``best_gamma_`` marked."""
        check_is_fitted(self)
        from sslviz.plots.cv import cv_figure

        return cv_figure(self._search, axis=axis)
