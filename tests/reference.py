"""Brute-force references shared by the numerical tests, written independently of sslviz:
small seeded instances, pairwise squared distances, kNN masks and Gaussian weights, CG in
NumPy, the harmonic soft labels step by step in NumPy (:class:`NumpyHarmonic`), a model's
own soft labels searched in Python only (:class:`PythonSearch`) and regret rounds without
their precomputation (:class:`RoundsOneByOne`)."""

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from sslviz.labeling import SoftLabelModel, SoftLabels


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


UNDERFLOW = 1e-290  # a row's unscaled weights below this: not representable (held at 1/2)


def cg(A, b, t, diag_inv=None):
    """t steps of CG (Jacobi-PCG with ``diag_inv``) from zero on A x = b, textbook, in
    NumPy; it stops early once ‖r‖ falls below 1e-30·‖b‖ (rounding noise). Returns
    ``(x, products)``."""
    x = np.zeros(b.size)
    r = b.copy()
    stop = max(1e-30 * np.linalg.norm(b), np.finfo(float).tiny)
    p = rho_old = None
    products = 0
    for _ in range(t):
        if not np.linalg.norm(r) >= stop:
            break
        z = r if diag_inv is None else diag_inv * r
        rho = r @ z
        p = z.copy() if p is None else z + (rho / rho_old) * p
        q = A @ p
        products += 1
        if not p @ q > 0:
            break
        alpha = rho / (p @ q)
        x += alpha * p
        r -= alpha * q
        rho_old = rho
    return x, products


def gth_solve(W, leak, rhs):
    """Solve (diag(W 1 + leak) − W) x = rhs for each column of ``rhs`` by the
    subtraction-free (Grassmann–Taksar–Heyman) elimination, one pivot at a time in NumPy:
    each pivot is its row's remaining weight and leak, so nothing cancels. A pivot that
    underflows holds its node at 1/2 (its weight leaks). Returns ``(x, cut)``."""
    A = np.array(W, float)
    np.fill_diagonal(A, 0.0)
    s = np.array(leak, float)
    m = s.size
    piv = np.zeros(m)
    cut = np.zeros(m, bool)
    for k in range(m):
        piv[k] = s[k] + A[k, k + 1 :].sum()
        if not piv[k] > 0:
            cut[k] = True
            s[k + 1 :] += A[k + 1 :, k]
            continue
        mult = A[k + 1 :, k] / piv[k]
        A[k + 1 :, k] = mult
        A[k + 1 :, k + 1 :] += np.outer(mult, A[k, k + 1 :])  # a diagonal entry: unused
        s[k + 1 :] += mult * s[k]
    c = np.array(rhs, float)
    for k in range(m - 1):
        c[k + 1 :] += np.multiply.outer(A[k + 1 :, k], 0.5 if cut[k] else c[k])
    x = np.zeros_like(c)
    for k in range(m - 1, -1, -1):
        x[k] = 0.5 if cut[k] else (c[k] + A[k, k + 1 :] @ x[k + 1 :]) / piv[k]
    return x, cut


class NumpyHarmonic(SoftLabelModel):
    """Harmonic soft labels (eqs. (1)–(2)) on a model's graph, step by step in NumPy: the
    reference of every path :class:`sslviz.labeling.HarmonicModel` takes (compiled dense
    and batched CG, GTH, LU, SuperLU).

    Weights exp(−d²/σ²) by NumPy; nodes with no path of non-zero weights to L held at 1/2
    (and, for CG, rows whose unscaled weights sum below 1e-290); CG and Jacobi-PCG by
    :func:`cg` on L_UU, exact solves by :func:`gth_solve` on the row-scaled system (each
    row divided by its largest weight), f' from eq. (2) with the same solver. A search on
    it runs in Python (it offers no search of its own)."""

    def __init__(self, model):
        D2 = model.graph.sqdist
        D = np.array(D2, float) if isinstance(D2, np.ndarray) else np.full(D2.shape, np.inf)
        if sp.issparse(D2):  # non-edges at +inf
            rows = np.repeat(np.arange(D2.shape[0]), np.diff(D2.indptr))
            D[rows, D2.indices] = D2.data
        np.fill_diagonal(D, np.inf)
        U, L = model.unlabeled_idx, model.labeled_idx
        self.unlabeled_idx, self.labeled_idx = U, L
        self.D_UU, self.D_UL = D[np.ix_(U, U)], D[np.ix_(U, L)]
        self.y_l = model.y_l
        self.shift = np.minimum(self.D_UU.min(axis=1), self.D_UL.min(axis=1))

    @property
    def n_unlabeled(self) -> int:
        return self.unlabeled_idx.size

    def soft_labels_many(self, sigmas, *, solver="exact", cg_iters=20, derivative=True):
        return [
            self.soft_labels(x, solver=solver, cg_iters=cg_iters, derivative=derivative)
            for x in np.atleast_1d(np.asarray(sigmas, float))
        ]

    def soft_labels(self, sigma, *, solver="exact", cg_iters=20, derivative=True):
        direct = solver in ("exact", "inverse")
        shift = self.shift[:, None] if direct else 0.0
        s2 = sigma * sigma
        with np.errstate(invalid="ignore", over="ignore"):
            W, WL = (np.exp(-(D - shift) / s2) for D in (self.D_UU, self.D_UL))
        W[~np.isfinite(self.D_UU)] = 0.0
        WL[~np.isfinite(self.D_UL)] = 0.0
        dW, dWL = (
            np.where(w > 0, 2.0 * w * np.where(np.isfinite(D), D, 0.0) / (s2 * sigma), 0.0)
            for w, D in ((W, self.D_UU), (WL, self.D_UL))
        )
        to_l = WL.sum(axis=1)
        _, comp = connected_components(sp.csr_matrix(W > 0), directed=False)
        degenerate = ~np.isin(comp, comp[to_l > 0])
        status = "ok"
        if not direct and np.any(W.sum(axis=1) + to_l < UNDERFLOW):
            degenerate |= W.sum(axis=1) + to_l < UNDERFLOW
            status = "underflow"
        keep = ~degenerate
        n_u = self.n_unlabeled
        f, df = np.full(n_u, 0.5), np.zeros(n_u)
        b = WL @ self.y_l + 0.5 * W[:, degenerate].sum(axis=1)
        Wk = W[np.ix_(keep, keep)]
        leak = to_l + W[:, degenerate].sum(axis=1)
        M = np.diag(Wk.sum(axis=1) + leak[keep]) - Wk
        diag_inv = 1.0 / np.diag(M) if solver == "pcg" else None
        matvecs = 0
        if direct:
            (x, cut) = gth_solve(Wk, leak[keep], b[keep])
            f[keep] = x
        else:
            f[keep], matvecs = cg(M, b[keep], cg_iters, diag_inv)
        if derivative:
            if direct:  # eq. (2), edge by edge: Σ_j w'_ij (f_j − f_i) + Σ_l w'_il (y_l − f_i)
                rhs = (dW * (f[None, :] - f[:, None])).sum(axis=1)
                rhs += (dWL * (self.y_l[None, :] - f[:, None])).sum(axis=1)
                df[keep] = gth_solve(Wk, leak[keep], rhs[keep])[0]
            else:
                rhs = dWL @ self.y_l - ((dW.sum(axis=1) + dWL.sum(axis=1)) * f - dW @ f)
                df[keep], mv = cg(M, rhs[keep], cg_iters, diag_inv)
                matvecs += mv
        solves = 2 if derivative else 1
        return SoftLabels(
            sigma,
            f,
            df if derivative else None,
            degenerate,
            solves,
            matvecs,
            int(direct),
            status,
        )


class PythonSearch(SoftLabelModel):
    """A model's own soft labels, offering none of its own searches (the compiled search's
    system, the Chebyshev search's solves): a loss-curve search on it runs the Hermite grid
    search in Python, the reference of the compiled and the Chebyshev searches."""

    def __init__(self, model):
        self.model = model
        self.unlabeled_idx = model.unlabeled_idx

    @property
    def n_unlabeled(self) -> int:
        return self.model.n_unlabeled

    def batches(self, solver: str) -> bool:
        return self.model.batches(solver)

    def soft_labels(self, sigma, **kwargs):
        return self.model.soft_labels(sigma, **kwargs)

    def soft_labels_many(self, sigmas, **kwargs):
        return self.model.soft_labels_many(sigmas, **kwargs)

    def certified_labels(self, sigma, **kwargs):
        return self.model.certified_labels(sigma, **kwargs)


class RoundsOneByOne:
    """A regret experiment's rounds as ``provider`` gives them, without its ``precompute``:
    local parallel runs then compute them one task per repetition."""

    def __init__(self, provider):
        self.provider = provider
        self.sigma_min, self.sigma_max = provider.sigma_min, provider.sigma_max

    def true_loss(self, round_seed):
        return self.provider.true_loss(round_seed)

    def approx_loss(self, round_seed):
        return self.provider.approx_loss(round_seed)

    def approx_feedback(self, round_seed, sigma):
        return self.provider.approx_feedback(round_seed, sigma)


def assert_same_curve(a, b) -> None:
    """Two ``LossCurve`` of one search, bit for bit (its seconds aside): the same pieces and
    losses, nodes, first piece's wrong set, σ evaluated, degenerate ranges and work."""
    assert np.array_equal(a.loss.edges, b.loss.edges)
    assert np.array_equal(a.loss.values, b.loss.values)
    assert [list(n) for n in a.nodes] == [list(n) for n in b.nodes]
    assert np.array_equal(a.wrong_at_start, b.wrong_at_start)
    assert np.array_equal(a.evaluations, b.evaluations)
    assert a.degenerate_ranges == b.degenerate_ranges
    work = ("solves", "matvecs", "factorizations", "inconsistent", "complete")
    assert [getattr(a, w) for w in work] == [getattr(b, w) for w in work]


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
