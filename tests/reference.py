"""Brute-force references shared by the numerical tests, written independently of sslviz:
small seeded instances, pairwise squared distances, kNN masks and Gaussian weights."""

import numpy as np


def instance(seed=0, n=40, p=5, offset=1.5, scale=0.35, n_lab=3):
    """Points with pairwise distances O(1), labeled set with both classes."""
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.arange(n) % 2)
    X = scale * (rng.normal(size=(n, p)) + offset * y[:, None])
    labeled = np.zeros(n, bool)
    for c in (0, 1):
        labeled[rng.choice(np.flatnonzero(y == c), n_lab, replace=False)] = True
    return X, labeled, y


def sqdist(X):
    return ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)


def mask(d2, family, k):
    n = d2.shape[0]
    if family == "complete":
        return ~np.eye(n, dtype=bool)
    d = d2.copy()
    np.fill_diagonal(d, np.inf)
    nn = np.argsort(d, axis=1, kind="stable")[:, :k]
    A = np.zeros((n, n), bool)
    A[np.repeat(np.arange(n), k), nn.ravel()] = True
    return (A | A.T) if family == "knn" else (A & A.T)


def weights(X, sigma, family, k):
    d2 = sqdist(X)
    return np.where(mask(d2, family, k), np.exp(-d2 / sigma**2), 0.0)
