"""The linear systems of the labeling models (eqs. (1)–(2) of :mod:`sslviz.labeling`):
blocks of the weight matrix, the Laplacian block L_UU, the right-hand sides of f and f',
and the edge lists and patterns the batched and compiled solves use."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order


def block(D2, rows: np.ndarray, cols: np.ndarray):
    """Sub-block of a dense or CSR distance matrix, same kind."""
    if isinstance(D2, np.ndarray):
        return D2[np.ix_(rows, cols)]
    return D2[rows][:, cols].tocsr()


DENSE_MAX = 400  # sparse graphs up to this many nodes are solved dense (less overhead)


def masked_dense(D2: sp.csr_matrix) -> np.ndarray:
    """Dense copy of a CSR distance block with +inf where there is no edge."""
    out = np.full(D2.shape, np.inf)
    rows, cols, d2 = edges(D2, False)
    out[rows, cols] = d2
    return out


def finite_entries(D2: np.ndarray, diagonal: bool) -> np.ndarray:
    """Flat indices of the finite entries of a dense distance block, its diagonal left out
    unless ``diagonal`` (:func:`sslviz.graphs.gaussian_weights`' ``edges``)."""
    finite = np.isfinite(D2)
    if not diagonal:
        np.fill_diagonal(finite, False)
    return np.flatnonzero(finite)


def pattern(D2, zero_diag: bool):
    """The edge pattern of a distance block as 0/1 weights, same kind."""
    if isinstance(D2, np.ndarray):
        P = np.isfinite(D2).astype(float)
        if zero_diag:
            np.fill_diagonal(P, 0.0)
        return P
    return sp.csr_matrix((np.ones(D2.nnz), D2.indices, D2.indptr), shape=D2.shape)


def count_weights(W) -> int:
    """Number of non-zero weights (an underflowed edge weighs 0)."""
    return int(np.count_nonzero(W if isinstance(W, np.ndarray) else W.data))


def rowsum(W) -> np.ndarray:
    return np.asarray(W.sum(axis=1)).ravel()


def edge_flux(W_UU, W_UL, target_l: np.ndarray, f: np.ndarray) -> np.ndarray:
    """Σ_j w_ij (f_j − f_i) + Σ_l w_il (t_l − f_i) for each unlabeled i, summed edge by edge
    (dense or CSR blocks): b − L_UU f of eq. (1) with ``target_l`` = f_L, and −L_UU f with
    ``target_l`` = 0, without the row sum that cancels where a cluster barely leaks."""
    if isinstance(W_UU, np.ndarray):
        flux_u = np.subtract(f[None, :], f[:, None])
        flux_u *= W_UU
        flux_l = np.subtract(target_l[None, :], f[:, None])
        flux_l *= W_UL
        return flux_u.sum(axis=1) + flux_l.sum(axis=1)
    out = np.zeros(f.size)
    for W, target in ((W_UU, f), (W_UL, target_l)):
        rows = np.repeat(np.arange(f.size), np.diff(W.indptr))
        out += np.bincount(rows, W.data * (target[W.indices] - f[rows]), minlength=f.size)
    return out


def derivative_rhs(dW_UU, dW_UL, y_l: np.ndarray, f: np.ndarray, *, accurate: bool = False):
    """Right-hand side of eq. (2), W'_UL f_L − L'_UU f_U with L' = diag(W'1) − W'.

    ``accurate`` (exact and certified solves) sums it edge by edge (:func:`_edge_flux`):
    where a cluster barely leaks to L its soft labels are nearly equal and the assembled
    form (W'1)_i f_i − (W'f)_i cancels to noise, where the sum edge by edge agrees with
    finite differences (``tests/unit/test_exact_accuracy.py``). Fixed-t CG keeps the
    assembled form: its ∂f/∂σ is not a derivative anyway, and the bits of the fast sweeps
    (and of the regret experiments' feedback) stay.
    """
    if not accurate:
        ddeg = rowsum(dW_UU) + rowsum(dW_UL)
        return dW_UL @ y_l - (ddeg * f - dW_UU @ f)
    return edge_flux(dW_UU, dW_UL, y_l, f)


def laplacian_block(deg: np.ndarray, W_UU):
    """diag(deg) − W_UU, same kind as W_UU."""
    if isinstance(W_UU, np.ndarray):
        M = -W_UU
        M[np.diag_indices_from(M)] += deg
        return M
    return (sp.diags(deg) - W_UU).tocsr()


def unanchored(W_UU, anchor: np.ndarray) -> np.ndarray:
    """Nodes that cannot reach an anchor along edges i→j where W_UU[i, j] > 0.

    Parameters
    ----------
    W_UU : ndarray or sparse matrix of shape (m, m)
    anchor : ndarray of shape (m,), bool
        Nodes with a non-zero weight to a labeled node.

    Returns
    -------
    ndarray of shape (m,), bool
    """
    m = anchor.size
    if anchor.all():
        return np.zeros(m, bool)
    if m <= DENSE_MAX:
        # Small blocks: grow the anchored set by one edge at a time (at most the graph's
        # diameter of steps; cheaper here than a sparse BFS's set-up).
        reached = np.asarray(anchor, bool).copy()
        if isinstance(W_UU, np.ndarray):
            P = W_UU > 0

            def grow(r: np.ndarray) -> np.ndarray:
                return r | P[:, r].any(axis=1)
        else:
            P = W_UU.tocsr()
            if not P.has_canonical_format:
                P = P.copy()
                P.sum_duplicates()
            rows = np.repeat(np.arange(m), np.diff(P.indptr))
            edge = P.data > 0
            rows, cols = rows[edge], P.indices[edge]

            def grow(r: np.ndarray) -> np.ndarray:
                out = r.copy()
                out[rows[r[cols]]] = True
                return out

        while True:
            grown = grow(reached)
            if np.array_equal(grown, reached):
                return ~reached
            reached = grown
    P = sp.csr_matrix(W_UU > 0) if isinstance(W_UU, np.ndarray) else (W_UU > 0).tocsr()
    # Reverse edges (j -> i when i uses j), plus a virtual source m pointing at anchors.
    src = np.flatnonzero(anchor)
    top = sp.hstack([P.T, sp.csr_matrix((m, 1))])
    bottom = sp.csr_matrix((np.ones(src.size), (np.zeros(src.size, int), src)), shape=(1, m + 1))
    G = sp.vstack([top, bottom], format="csr")
    reached = breadth_first_order(G, m, directed=True, return_predecessors=False)
    out = np.ones(m, bool)
    out[reached[reached < m]] = False
    return out


def edges(D2, square: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(rows, cols, d²)`` of the edges of a dense (+inf = none) or CSR block, row-major;
    the diagonal of a square block is left out."""
    if isinstance(D2, np.ndarray):
        ok = np.isfinite(D2)
        if square:
            np.fill_diagonal(ok, False)
        r, c = np.nonzero(ok)
        return r, c, D2[r, c]
    D2 = D2.tocsr()
    r = np.repeat(np.arange(D2.shape[0]), np.diff(D2.indptr))
    ok = r != D2.indices if square else np.ones(r.size, bool)
    return r[ok], D2.indices[ok], D2.data[ok]


def csr_ptr(rows: np.ndarray, n: int) -> np.ndarray:
    return np.r_[0, np.cumsum(np.bincount(rows, minlength=n))].astype(np.int64)


def batch_pays(D2_UU, keep: np.ndarray) -> bool:
    """Whether CG/PCG on this pattern are solved in batches (:class:`_HarmonicBatch`): when
    the edges between kept nodes are at most half of all ``|kept|²`` pairs.

    Dense graphs are left to the one-σ path: a dense matrix stays in cache through its
    t products there, while a batch streams every matrix t times (and, with many roots,
    Algorithm 4 runs far ahead of its settled nodes).
    """
    nk = int(np.count_nonzero(keep))
    if isinstance(D2_UU, np.ndarray):
        fin = np.isfinite(D2_UU if keep.all() else D2_UU[np.ix_(keep, keep)])
        n_kk = np.count_nonzero(fin) - np.count_nonzero(np.diagonal(fin))
    else:
        r, c, _ = edges(D2_UU, True)
        n_kk = np.count_nonzero(keep[r] & keep[c])
    return n_kk <= 0.5 * nk * nk


def freeze(*arrays) -> None:
    """Make a model's own arrays read-only (ndarrays, and the arrays of CSR matrices)."""
    for a in arrays:
        parts = (a.data, a.indices, a.indptr) if sp.issparse(a) else (a,)
        for x in parts:
            if isinstance(x, np.ndarray):
                x.flags.writeable = False
