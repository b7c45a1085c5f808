"""Small instances shared by the unit tests."""

from __future__ import annotations

import numpy as np

from sslviz.problem import make_model
from sslviz.specs import GraphSpec, LabelingSpec


def two_clouds(seed=0, n=60, family="knn", labeling="harmonic", subset=25):
    """Two Gaussian clouds in 4-D, 3 labeled points per class: ``(model, y_unlabeled)``."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, 4)) + 1.0 * y[:, None]
    labeled = np.zeros(n, bool)
    labeled[[0, 1, 2, n // 2, n // 2 + 1, n // 2 + 2]] = True
    model = make_model(X, labeled, y, GraphSpec(family, 5), LabelingSpec(labeling, subset))
    return model, y[model.unlabeled_idx]
