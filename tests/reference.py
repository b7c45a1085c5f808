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


def cut_off_model():
    """A kNN-4 harmonic model with a 12-point cluster far from the rest: no labeled node in
    it, so those 12 unlabeled nodes are cut off from L at every σ. Returns
    ``(model, X, labeled)``."""
    from sslviz.problem import make_model
    from sslviz.specs import GraphSpec

    rng = np.random.default_rng(8)
    X = np.vstack([0.4 * rng.normal(size=(20, 4)), 0.4 * rng.normal(size=(12, 4)) + 50.0])
    y = np.r_[np.arange(20) % 2, np.arange(12) % 2]
    labeled = np.zeros(32, bool)
    labeled[:4] = True
    return make_model(X, labeled, y, GraphSpec("knn", 4)), X, labeled


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


def algorithm4(labels_at, n_unlabeled, sigma0, lo, hi, eps, eta, max_iter, root_tol):
    """Algorithm 4 with Appendix E.2's changes, node by node exactly as the paper writes
    it: ``labels_at(σ)`` returns ``(f, df, degenerate)`` for all unlabeled nodes.
    Returns ``(σ_l, σ_h)``."""
    start = labels_at(sigma0)
    for u in range(n_unlabeled):
        sigma, y_prev, lam = sigma0, sigma0, 1.0
        f_all, df_all, deg_all = start
        f_prev, step, root = None, np.inf, None
        for _ in range(max_iter):
            if deg_all[u]:
                break
            f, df = float(f_all[u]), float(df_all[u])
            g, dg = (f - 0.5) ** 2, 2.0 * (f - 0.5) * df
            if f_prev is not None and abs(f - f_prev) < eps and abs(step) < eps:
                root = sigma if abs(f - 0.5) <= root_tol else None
                break
            if dg == 0.0:
                root = sigma if f == 0.5 else None
                break
            xi_gd, xi_n = eta * dg, 2.0 * g / dg
            y_next = sigma - min(xi_gd, xi_n, key=abs)
            if abs(xi_gd) < abs(xi_n):  # Nesterov step
                lam_next = (1.0 + np.sqrt(1.0 + 4.0 * lam * lam)) / 2.0
                gamma = (1.0 - lam) / lam_next
                new = (1.0 - gamma) * y_next + gamma * y_prev
                lam = lam_next
            else:
                new = y_next
            y_prev, step = y_next, new - sigma
            if not lo <= new <= hi:  # left the current interval (E.2)
                break
            f_prev, sigma = f, new
            f_all, df_all, deg_all = labels_at(sigma)
        if root is not None and sigma0 < root < hi:
            hi = root
        elif root is not None and lo < root < sigma0:
            lo = root
    return lo, hi


# Tolerances between two implementations of one computation (a NumPy reference against a
# compiled kernel, or two BLAS builds). Paths that share one kernel are compared bit for bit.
RTOL_VALUE = 1e-12  # a float computed by both from the same inputs (relative)
RTOL_BREAKPOINT = 1e-10  # a breakpoint located by both (relative)
RTOL_ITERATE = 1e-8  # a t-step CG iterate, relative to its norm: rounding grows with t
RTOL_CG_BREAKPOINT = 1e-6  # a crossing of t-step CG's f_u: its RTOL_ITERATE over |f_u'|


def assert_same_curve_to_tolerance(a, b, rtol: float = RTOL_BREAKPOINT) -> None:
    """Two implementations' piecewise-constant curves (``LossCurve`` or ``PiecewiseLoss``):
    the same pieces and losses, breakpoints to ``rtol`` (:data:`RTOL_CG_BREAKPOINT` for the
    curves of fixed-t CG, whose soft labels carry rounding)."""
    a, b = getattr(a, "loss", a), getattr(b, "loss", b)
    assert a.edges.shape == b.edges.shape
    np.testing.assert_allclose(a.edges, b.edges, rtol=rtol, atol=0.0)
    assert np.array_equal(a.values, b.values)


def plotly_json(fig) -> dict:
    """A figure's (or a figure dict's) JSON as Plotly writes it, without validating it."""
    import json

    import plotly.graph_objects as go

    if isinstance(fig, dict):
        fig = go.Figure(fig, _validate=False)
    return json.loads(fig.to_json())


def validated_json(fig) -> dict:
    """The JSON of a figure (or figure dict) after Plotly validates it from scratch (raises
    on a property Plotly does not know or a value it would not take): a figure built
    without validation is right when this equals :func:`plotly_json`."""
    import json

    import plotly.graph_objects as go

    return json.loads(go.Figure(plotly_json(fig)).to_json())
