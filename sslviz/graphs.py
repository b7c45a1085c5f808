"""Graphs on the points: a σ-independent pattern, and the weights evaluated on it.

A :class:`Graph` holds the edges of a graph family (:mod:`sslviz.families`, one class per
family; docs/method.md §2.3) with the squared distances on them. The Gaussian kernel is
monotone in d, so the pattern does not depend on σ: it is built once, and the weights
exp(−d²/σ²) and ∂W/∂σ = 2·W∘d²/σ³ are evaluated on it at any σ (§2.2; Algorithm 2), or
the unweighted 1[d ≤ r] of the threshold family (Definition 1a). :func:`build_graph`
builds the pattern of a spec's family; :func:`neighbours` and :func:`knn_pattern` are the
kNN rule (the point itself excluded, ties in index order).

Dense families are stored as (n, n) arrays, the others as CSR patterns.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from sslviz import _kernels, registry
from sslviz.specs import GraphSpec


@dataclass(frozen=True, eq=False)
class Graph:
    """The σ-independent part of a graph on n points.

    Attributes
    ----------
    spec : GraphSpec
    n : int
        Number of nodes.
    sqdist : ndarray of shape (n, n) or csr_matrix of shape (n, n)
        Squared Euclidean distances on the edge pattern (PCA-space units²). Dense for
        the complete graph (the diagonal is not an edge); CSR for the kNN families,
        whose stored entries are exactly the edges (explicit zeros included).
    """

    spec: GraphSpec
    n: int
    sqdist: np.ndarray | sp.csr_matrix

    @property
    def is_dense(self) -> bool:
        return isinstance(self.sqdist, np.ndarray)

    @property
    def n_edges(self) -> int:
        """Number of undirected edges."""
        if self.is_dense:
            return self.n * (self.n - 1) // 2
        return int(self.sqdist.nnz // 2)

    def degrees(self) -> np.ndarray:
        """Number of neighbours of each node, shape (n,)."""
        if self.is_dense:
            return np.full(self.n, self.n - 1)
        return np.diff(self.sqdist.indptr)

    def n_components(self) -> int:
        """Connected components of the edge pattern."""
        if self.is_dense:
            return 1 if self.n > 1 else self.n
        return int(connected_components(self.sqdist, directed=False)[0])

    def edge_lengths(self) -> np.ndarray:
        """Sorted distinct edge lengths d_ij (not squared), shape (n_distinct,)."""
        if self.is_dense:
            iu = np.triu_indices(self.n, 1)
            d2 = self.sqdist[iu]
        else:
            d2 = self.sqdist.data
        return np.unique(np.sqrt(d2))

    def kernel(self, sigma: float, *, row_scaled: bool = False) -> np.ndarray | sp.csr_matrix:
        """Gaussian weights W(σ) on the pattern, same layout as :attr:`sqdist`.

        With ``row_scaled=True`` row i is multiplied by exp(min_j d_ij²/σ²), so its largest
        weight is 1 (docs/method.md §2.2): the harmonic solution is unchanged and nothing
        underflows row-wide.
        """
        return self.kernel_and_derivative(sigma, row_scaled=row_scaled, derivative=False)[0]

    def kernel_and_derivative(
        self, sigma: float, *, row_scaled: bool = False, derivative: bool = True
    ) -> tuple[np.ndarray | sp.csr_matrix, np.ndarray | sp.csr_matrix | None]:
        """``(W, ∂W/∂σ)`` with ∂w_ij/∂σ = 2·w_ij·d_ij²/σ³ (Algorithm 2)."""
        shift = self.row_min_sqdist() if row_scaled else 0.0
        return gaussian_weights(self.sqdist, shift, sigma, derivative, True)

    def threshold(self, r: float) -> np.ndarray | sp.csr_matrix:
        """Unweighted adjacency 1[d_ij ≤ r] on the pattern (Definition 1a)."""
        return threshold_weights(self.sqdist, r, True)

    def row_min_sqdist(self) -> np.ndarray:
        """min_j d_ij² over each row's edges, shape (n,) (0 for an isolated node)."""
        return row_min(self.sqdist)


def row_min(sqdist: np.ndarray | sp.csr_matrix) -> np.ndarray:
    """Smallest stored entry of each row (diagonal excluded when dense; 0 if empty)."""
    if isinstance(sqdist, np.ndarray):
        d = sqdist.copy()
        np.fill_diagonal(d, np.inf)
        m = d.min(axis=1) if d.shape[1] else np.zeros(d.shape[0])
        return np.where(np.isfinite(m), m, 0.0)
    m = np.zeros(sqdist.shape[0])
    nz = np.diff(sqdist.indptr) > 0
    if sqdist.nnz:
        m[nz] = np.minimum.reduceat(sqdist.data, sqdist.indptr[:-1][nz])
    return m


def gaussian_weights(
    D2,
    shift: np.ndarray | float,
    sigma: float,
    derivative: bool,
    zero_diag: bool,
    edges: np.ndarray | None = None,
):
    """``(W, ∂W/∂σ)`` on a dense or CSR block of squared distances ``D2``.

    W = exp(-(D2 − shift_row)/σ²) (shift: a per-row array or 0), ∂W/∂σ = 2·W·D2/σ³ (None
    unless ``derivative``). Dense blocks may hold +inf for non-edges (weight 0);
    ``zero_diag`` clears the diagonal of a square dense block. ``edges``, for a dense block
    that is mostly +inf: the flat indices of its finite off-diagonal entries, the only ones
    computed (the same numbers, a fraction of the work).
    """
    s2 = sigma * sigma
    if isinstance(D2, np.ndarray) and edges is not None:
        d2 = D2.ravel()[edges]
        sh = shift[edges // D2.shape[1]] if isinstance(shift, np.ndarray) else shift
        w = np.exp(-(d2 - sh) / s2)
        W = np.zeros(D2.shape)
        W.ravel()[edges] = w
        dW = None
        if derivative:
            dw = 2.0 * w * d2 / (s2 * sigma)
            dw[w == 0] = 0.0
            dW = np.zeros(D2.shape)
            dW.ravel()[edges] = dw
        return W, dW
    if isinstance(D2, np.ndarray):  # in place: (shift − D2) is −(D2 − shift) exactly
        # the diagonal (d² = 0) may overflow, zeroed next; 0·inf at non-edges, zeroed below
        with np.errstate(over="ignore", invalid="ignore"):
            W = np.subtract(shift[:, None] if isinstance(shift, np.ndarray) else shift, D2)
            W /= s2
            np.exp(W, out=W)
            if zero_diag:
                np.fill_diagonal(W, 0.0)
            dW = None
            if derivative:
                dW = np.multiply(W, 2.0)
                dW *= D2
                dW /= s2 * sigma
                dW[W == 0] = 0.0  # non-edges (+inf distance) and underflowed weights
        return W, dW
    sh = np.repeat(shift, np.diff(D2.indptr)) if isinstance(shift, np.ndarray) else shift
    w = np.exp(-(D2.data - sh) / s2)
    W = sp.csr_matrix((w, D2.indices, D2.indptr), shape=D2.shape)
    dW = None
    if derivative:
        dW = sp.csr_matrix((2.0 * w * D2.data / (s2 * sigma), D2.indices, D2.indptr), D2.shape)
    return W, dW


def threshold_weights(D2, r: float, zero_diag: bool):
    """1[d ≤ r] on a dense or CSR block of squared distances (+inf = no edge).

    Lengths are compared, not squares: r is usually an edge length sqrt(d²), and
    sqrt(d²)² may round below d², which would drop the edge at its own length.
    """
    if isinstance(D2, np.ndarray):
        A = (np.sqrt(D2) <= r).astype(float)
        if zero_diag:
            np.fill_diagonal(A, 0.0)
        return A
    return sp.csr_matrix(((np.sqrt(D2.data) <= r).astype(float), D2.indices, D2.indptr), D2.shape)


_NUMPY_MAX = 300
"""Up to this many points :func:`neighbours` runs on NumPy (no compiled kernel to load)."""
_EXHAUSTIVE_MAX = 2000
"""Up to this many points :func:`neighbours` tries every pair; above, it runs
scikit-learn's brute search."""


def neighbours(
    X: np.ndarray, k: int, query: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Distances and indices of the k nearest rows of ``X`` (Euclidean), each of shape
    (m, k), ascending: for every row of ``query``, or for every row of ``X`` itself
    excluded.

    Up to :data:`_EXHAUSTIVE_MAX` points every pair is tried: the squared coordinate
    differences of a pair summed in feature order, then the square root, as scikit-learn's
    ball tree computes them, so the same distances bit for bit, and the same neighbours
    wherever distances differ (the same arrays on 405 digits instances and Fashion-MNIST
    instances up to 2,000 points; ``tests/unit/test_graphs.py``). Exactly equal distances
    (duplicate points) are ordered by index; the tree orders them as it happens to visit
    them. No scikit-learn import on this path (it is slow to import). Up to
    :data:`_NUMPY_MAX` points with NumPy, one feature at a time over all pairs (no compiled
    kernel to load on a small first view), above with :func:`sslviz._kernels.knn_exhaustive`
    (the same numbers). Above :data:`_EXHAUSTIVE_MAX`, scikit-learn's brute search.
    Timings: ``benchmarks/cold_start.py``.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    Q = X if query is None else np.ascontiguousarray(query, dtype=np.float64)
    n = X.shape[0]
    if not 1 <= k <= n - (query is None):
        raise ValueError(
            f"Expected 1 <= n_neighbors {'<' if query is None else '<='} "
            f"n_samples_fit, but n_neighbors = {k}, n_samples_fit = {n}"
        )
    if n > _EXHAUSTIVE_MAX:
        from sklearn.neighbors import NearestNeighbors  # not at import: slow to import

        return NearestNeighbors(n_neighbors=k, algorithm="brute").fit(X).kneighbors(query, k)
    if not (np.isfinite(X).all() and np.isfinite(Q).all()):
        raise ValueError("Input contains NaN or infinity: every feature must be finite.")
    if n > _NUMPY_MAX:
        return _kernels.knn_exhaustive(X, Q, k, query is None)
    d2 = np.zeros((Q.shape[0], n))
    diff = np.empty_like(d2)
    for j in range(X.shape[1]):  # d² += (q_j − x_j)², in feature order, as the tree sums
        np.subtract(Q[:, j, None], X[None, :, j], out=diff)
        np.multiply(diff, diff, out=diff)
        np.add(d2, diff, out=d2)
    if query is None:
        np.fill_diagonal(d2, np.inf)  # a point is not its own neighbour (its duplicates are)
    ind = np.argsort(d2, axis=1, kind="stable")[:, :k]  # equal distances in index order
    return np.sqrt(np.take_along_axis(d2, ind, axis=1)), ind


def knn_pattern(X: np.ndarray, k: int) -> sp.csr_matrix:
    """Directed kNN pattern (row i holds the k nearest neighbours of i, itself excluded)
    with squared distances as data, shape (n, n)."""
    n = X.shape[0]
    _, ind = neighbours(X, k)  # the query point is not its own neighbour
    rows = np.repeat(np.arange(n), k)
    cols = ind.ravel()
    d2 = np.sum((X[rows] - X[cols]) ** 2, axis=1)
    return sp.csr_matrix((d2, (rows, cols)), shape=(n, n))


def build_graph(X: np.ndarray, spec: GraphSpec | None = None) -> Graph:
    """Build the σ-independent graph of ``spec`` on the rows of ``X``: the pattern of its
    family (:meth:`sslviz.families.GraphFamily.pattern`).

    Parameters
    ----------
    X : ndarray of shape (n, p)
        Points (PCA space).
    spec : GraphSpec, default=GraphSpec()
        Family and k; ``k`` must be smaller than n for the families that read it.

    Returns
    -------
    Graph
    """
    spec = GraphSpec() if spec is None else spec
    return registry.family(spec.family).pattern(np.asarray(X, dtype=float), spec)
