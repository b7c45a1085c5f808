"""A toy labeling model: the harmonic model with row-normalised weights, as the paper writes
it (Algorithm 2): P = D⁻¹W and

    (I − P_UU) f_U = P_UL f_L,      (I − P_UU) f'_U = P'_UL f_L + P'_UU f_U,
    P' = D⁻¹(W' − diag(W'1) P).

Exact solves factor I − P_UU as it stands (SuperLU, or LAPACK when dense), on the
row-scaled weights (P does not change when a row of W is scaled). CG and Jacobi-PCG need a
symmetric system, so they run on D^½ (I − P_UU) D^-½ = I − D^-½ W_UU D^-½ in the variable
D^½ f, on the unscaled weights. A node with no path of non-zero weights to L is held at ½.
It declares no fast path of sslviz's (nested iterates, a compiled search, a certificate,
Cholesky solves): every search on it takes the general ones.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from sslviz.labeling import SoftLabelModel, SoftLabels
from sslviz.solvers import jacobi, solve_cg

UNDERFLOW = 1e-290  # a row's unscaled weights summing below this: CG cannot hold it


class RowNormalised(SoftLabelModel):
    name = "row-normalised"
    label = "row-normalised harmonic"
    help = "the harmonic model row-normalised, (I − P_UU) f = P_UL f_L with P = D⁻¹W as written"
    requirement = "a Gaussian graph family"
    system_label = "I − D^-½ W_UU D^-½"

    @classmethod
    def accepts(cls, family):
        return family.gaussian

    def __init__(self, graph, labeled, y):
        labeled = np.asarray(labeled, bool)
        self.graph = graph
        self.labeled_idx = np.flatnonzero(labeled)
        self.unlabeled_idx = np.flatnonzero(~labeled)
        self.y_l = np.asarray(y, float)[self.labeled_idx]

    def _blocks(self, sigma, scaled, derivative):
        """W and W' on all nodes, as CSR (rows and columns in the order U then L)."""
        W, dW = self.graph.kernel_and_derivative(sigma, row_scaled=scaled, derivative=derivative)
        order = np.r_[self.unlabeled_idx, self.labeled_idx]
        pick = (lambda A: sp.csr_matrix(A)[order][:, order]) if derivative else None
        W = sp.csr_matrix(W)[order][:, order]
        return W, (pick(dW) if derivative else None)

    def _cut_off(self, W):
        """Unlabeled nodes with no path along non-zero weights to a labeled node."""
        n_u = self.n_unlabeled
        reach = np.r_[np.zeros(n_u, bool), np.ones(self.labeled_idx.size, bool)]
        step = (W != 0).astype(float)
        while True:
            more = reach | (step @ reach.astype(float) > 0)
            if (more == reach).all():
                return ~reach[:n_u]
            reach = more

    def soft_labels(self, sigma, *, solver="exact", cg_iters=20, derivative=True, x0=None):
        if solver not in ("exact", "inverse", "cg", "pcg"):
            raise ValueError(f"solver must be exact, inverse, cg or pcg, not {solver!r}")
        direct = solver in ("exact", "inverse")
        W, dW = self._blocks(sigma, direct, derivative)
        n_u = self.n_unlabeled
        d = np.asarray(W.sum(axis=1)).ravel()
        cut = self._cut_off(W)
        status = "ok"
        if not direct and np.any(d[:n_u] < UNDERFLOW):
            cut |= d[:n_u] < UNDERFLOW
            status = "underflow"
        keep = np.flatnonzero(~cut)
        fixed = np.r_[np.full(n_u, 0.5), self.y_l]  # f of the cut-off nodes and of L
        P = sp.diags(1.0 / np.where(d > 0, d, 1.0)) @ W
        rest = np.r_[cut, np.ones(self.labeled_idx.size, bool)]  # what is held fixed
        A = sp.identity(keep.size, format="csr") - P[keep][:, keep]
        b = P[keep][:, rest] @ fixed[rest]
        f = np.full(n_u, 0.5)
        df = np.zeros(n_u) if derivative else None
        solves, matvecs = 0, 0
        if direct:
            solve = self._direct(A, solver)
            f[keep] = solve(b)
            solves += 1
        else:
            root = np.sqrt(d[keep])
            S = (sp.diags(root) @ A @ sp.diags(1.0 / root)).tocsr()  # symmetric
            pre = jacobi(S) if solver == "pcg" else None

            def solve(rhs, start=None):
                nonlocal matvecs
                y0 = None if start is None else root * np.asarray(start)[keep]
                r = solve_cg(S, root * rhs, y0, maxiter=cg_iters, rtol=0.0, M=pre)
                matvecs += r.matvecs
                return r.x / root

            f[keep] = solve(b, None if x0 is None else x0[0])
            solves += 1
        if derivative:
            full = np.r_[f, self.y_l]
            dd = np.asarray(dW.sum(axis=1)).ravel()
            dP = sp.diags(1.0 / np.where(d > 0, d, 1.0)) @ (dW - sp.diags(dd) @ P)
            rhs = (dP @ full)[keep]
            if direct:
                df[keep] = solve(rhs)
            else:
                df[keep] = solve(rhs, None if x0 is None else x0[1])
            solves += 1
        return SoftLabels(sigma, f, df, cut, solves, matvecs, int(direct), status)

    @staticmethod
    def _direct(A, solver):
        """x ↦ A⁻¹x: SuperLU on the sparse matrix, or the explicit inverse."""
        if solver == "inverse":
            inverse = la.inv(A.toarray()) if A.shape[0] else np.zeros((0, 0))
            return lambda v: inverse @ v
        if A.shape[0] == 0:
            return lambda v: np.zeros(0)
        lu = spla.splu(A.tocsc())
        return lu.solve

    def condition_system(self, sigma):
        """I − D^-½ W_UU D^-½ over the nodes with a path to L, on the unscaled weights."""
        W, _ = self._blocks(sigma, False, False)
        n_u = self.n_unlabeled
        d = np.asarray(W.sum(axis=1)).ravel()
        cut = self._cut_off(W) | (d[:n_u] < UNDERFLOW)
        keep = np.flatnonzero(~cut)
        root = 1.0 / np.sqrt(d[keep])
        S = sp.identity(keep.size, format="csr") - sp.diags(root) @ W[keep][:, keep] @ sp.diags(
            root
        )
        rest = np.r_[cut, np.ones(self.labeled_idx.size, bool)]
        fixed = np.r_[np.full(n_u, 0.5), self.y_l]
        b = root * (W[keep][:, rest] @ fixed[rest])
        return S.tocsr(), S.tocsr(), b, int(cut.sum())
