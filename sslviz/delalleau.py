"""Delalleau et al. (2005) soft labels with Parzen extension (Algorithm 3; docs/method.md §3.2).

On L ∪ Ũ with |Ũ| = m and λ > 0::

    A = λΔ_L + diag(W1) − W,   A f = λ y,   A f' = −A' f
    f̃_i  = Σ_j W_ij f_j / Σ_j W_ij
    f̃'_i = (Σ_j W'_ij f_j + Σ_j W_ij f'_j − f̃_i Σ_j W'_ij) / Σ_j W_ij

(minus in the last term: the paper's "+" is a sign typo, docs/method.md §3.2). The model states what
:class:`sslviz.labeling.SoftLabelModel` asks: its settings |Ũ| and λ, the Gaussian
families it takes, its system A for the conditioning page; it has no certificate (the
exact fallback) and no compiled search.
"""

from __future__ import annotations

import copy

import numpy as np
import scipy.sparse as sp
from scipy.spatial.distance import cdist

from sslviz import systems
from sslviz._threads import one_thread
from sslviz._validation import check_int, check_option, check_real
from sslviz.graphs import Graph, GraphSpec, build_graph, gaussian_weights, neighbours, row_min
from sslviz.labeling import SoftLabelModel, SoftLabels
from sslviz.solvers import LinearSolver, jacobi, solve_cg
from sslviz.specs import CG_ITERS, SOLVERS, LabelingSpec

_EXTEND_BLOCK = 128
"""Iterates extended at once by :meth:`DelalleauModel.sides_by_t` (one sparse product of E
by a block: each column the bits of E f, the same sums in the same order)."""


def _kept(A, keep: np.ndarray):
    """The block of the dense or sparse ``A`` on the nodes ``keep``: ``A`` itself when it
    keeps them all (indexing would copy the same arrays)."""
    if keep.all():
        return A
    return A[np.ix_(keep, keep)] if isinstance(A, np.ndarray) else A[keep][:, keep]


class DelalleauModel(SoftLabelModel):
    """Delalleau et al. (2005) soft labels with Parzen extension (Algorithm 3).

    The graph of the chosen family is built on L ∪ Ũ (|Ũ| = ``subset``, drawn from U with
    ``seed``); each unlabeled node is extended from all of L ∪ Ũ (dense families) or from
    its k nearest points of L ∪ Ũ (sparse families), itself excluded.
    """

    name = "delalleau"
    label = "Delalleau"
    help = "Delalleau et al. 2005 (Algorithm 3: solve on L ∪ Ũ, extend to the rest of U)"
    reads = ("subset", "lam")
    requirement = "a Gaussian graph family"
    system_label = "A"

    @classmethod
    def accepts(cls, family) -> bool:
        """The Gaussian families: the model is defined through σ (its extension too)."""
        return family.gaussian

    @classmethod
    def build(cls, X, labeled, y, graph, labeling) -> DelalleauModel:
        """The model on ``X`` (a prebuilt ``graph`` only gives its settings: the model
        builds its own graph on L ∪ Ũ)."""
        return cls(X, labeled, y, graph.spec if isinstance(graph, Graph) else graph, labeling)

    @classmethod
    def described(cls, settings, number) -> str:
        return f"Delalleau labeling (m = {settings['subset']}, λ = {number(settings['lam'])})"

    def __init__(
        self,
        X: np.ndarray,
        labeled: np.ndarray,
        y: np.ndarray,
        spec: GraphSpec,
        labeling: LabelingSpec,
    ) -> None:
        labeled = np.asarray(labeled, bool)
        X = np.asarray(X, float)
        self.labeled_idx = np.flatnonzero(labeled)
        self.unlabeled_idx = np.flatnonzero(~labeled)
        n_u = self.unlabeled_idx.size
        m = check_int("subset", labeling.subset, "DelalleauModel", low=1, high=n_u)
        rng = np.random.default_rng(labeling.seed)
        sub = np.sort(rng.choice(self.unlabeled_idx, size=m, replace=False))
        self.nodes = np.r_[self.labeled_idx, sub]  # L first, then Ũ
        self.lam = float(labeling.lam)
        n_l = self.labeled_idx.size
        self.is_l = np.r_[np.ones(n_l, bool), np.zeros(m, bool)]
        self.y_s = np.r_[np.asarray(y, float)[self.labeled_idx], np.zeros(m)]
        sparse = spec.graph_family.sparse
        if sparse:
            check_int(
                "k", spec.k, "DelalleauModel (k < |L| + subset)", low=1, high=self.nodes.size - 1
            )
        self.graph = build_graph(X[self.nodes], spec)
        self._D2 = self.graph.sqdist
        # Its CG runs on a dense system (complete graphs) record their iterates.
        self.nested_iterates = isinstance(self._D2, np.ndarray)
        # Extension distances, (n_u, |S|), the node itself excluded.
        XU, XS = X[self.unlabeled_idx], X[self.nodes]
        pos = {int(v): i for i, v in enumerate(self.nodes)}
        self_col = np.array([pos.get(int(u), -1) for u in self.unlabeled_idx])
        if not sparse:
            D = cdist(XU, XS, "sqeuclidean")
            mask = np.ones_like(D, bool)
            has = self_col >= 0
            mask[np.flatnonzero(has), self_col[has]] = False
            rows, cols = np.nonzero(mask)
            E = sp.csr_matrix((D[rows, cols], (rows, cols)), shape=D.shape)
        else:
            k = spec.k
            _, ind = neighbours(XS, k + 1, XU)
            keep = ind != self_col[:, None]
            # drop self when present, else the (k+1)-th neighbour
            keep[keep.all(axis=1), -1] = False
            cols = ind[keep].reshape(n_u, k)
            rows = np.repeat(np.arange(n_u), k)
            d2 = np.sum((XU[rows] - XS[cols.ravel()]) ** 2, axis=1)
            E = sp.csr_matrix((d2, (rows, cols.ravel())), shape=(n_u, self.nodes.size))
        E.sort_indices()
        self._E = E
        self._E_shift = row_min(E)
        systems.freeze(
            self.labeled_idx,
            self.unlabeled_idx,
            self.nodes,
            self.is_l,
            self.y_s,
            self._D2,
            self._E,
            self._E_shift,
        )

    def matrix(self, sigma: float, *, derivative: bool = False):
        """``(A, A', degenerate_S)`` on L ∪ Ũ at σ, A = λΔ_L + diag(W1) − W."""
        W, dW = gaussian_weights(self._D2, 0.0, sigma, derivative, True)
        deg = systems.rowsum(W)
        A = systems.laplacian_block(deg + self.lam * self.is_l, W)
        dA = systems.laplacian_block(systems.rowsum(dW), dW) if derivative else None
        degenerate = systems.unanchored(W, self.is_l.copy())
        return A, dA, degenerate

    def _extension(self, sigma: float, derivative: bool, keep: np.ndarray):
        """``(E, E', E1, degenerate)`` of the Parzen extension at σ: its weights (n_u, |S|),
        their row sums, and the extended nodes whose weight all sits on degenerate nodes."""
        E, dE = gaussian_weights(self._E, self._E_shift, sigma, derivative, False)
        s = systems.rowsum(E)
        deg_u = (E @ keep.astype(float)) <= 0 if not keep.all() else np.zeros(s.size, bool)
        return E, dE, s, deg_u

    @one_thread
    def sides_by_t(self, sigmas, *, solver: str = "cg", iterations: int = CG_ITERS):
        """:meth:`SoftLabelModel.sides_by_t` from one run of ``iterations`` steps per σ on
        L ∪ Ũ where that system is dense (complete graphs: ``nested_iterates``), each
        iterate (:func:`sslviz.solvers.solve_cg`'s callback: the bits of :meth:`soft_labels`'
        solve at each t) extended as :meth:`soft_labels` extends it; one solve per t where
        it is sparse (kNN families: a search for the t needed solves only the t it tries)."""
        sig, iterations = self._sides_args(sigmas, solver, iterations)
        sides = np.zeros((sig.size, iterations, self.n_unlabeled), dtype=bool)
        degenerate = np.zeros((sig.size, self.n_unlabeled), dtype=bool)
        for j, x in enumerate(sig.tolist()):
            A, _, deg_s = self.matrix(x)
            keep = ~deg_s
            Ak = _kept(A, keep)
            if not (isinstance(Ak, np.ndarray) and Ak.size > 0):
                one, deg = super().sides_by_t([x], solver=solver, iterations=iterations)
                sides[j], degenerate[j] = one[0], deg[0]
                continue
            iterates: list[np.ndarray] = []
            pre = jacobi(Ak) if solver == "pcg" else None
            res = solve_cg(
                Ak,
                self.lam * self.y_s[keep],
                maxiter=iterations,
                rtol=0.0,
                M=pre,
                callback=lambda x, out=iterates: out.append(x.copy()),
            )
            iterates += [res.x] * (iterations - len(iterates))  # stopped early: f stays
            E, _, s, degenerate[j] = self._extension(x, False, keep)
            for t in range(0, iterations, _EXTEND_BLOCK):  # E f for a block of t at once
                F = np.full((self.nodes.size, min(_EXTEND_BLOCK, iterations - t)), 0.5)
                F[keep] = np.array(iterates[t : t + F.shape[1]]).T
                sides[j, t : t + F.shape[1]] = ((E @ F) / s[:, None] > 0.5).T
        return sides, degenerate

    @one_thread
    def relabeled(self, y: np.ndarray) -> DelalleauModel:
        """This model with ``y[labeled_idx]`` as its labels on L (Ũ, the graph and the
        extension shared)."""
        out = copy.copy(self)
        m = self.nodes.size - self.labeled_idx.size
        out.y_s = np.r_[np.asarray(y, float)[self.labeled_idx], np.zeros(m)]
        systems.freeze(out.y_s)
        return out

    def soft_labels(
        self,
        sigma: float,
        *,
        solver: str = "exact",
        cg_iters: int = CG_ITERS,
        derivative: bool = True,
        x0: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> SoftLabels:
        """Extended soft labels f̃ (and ∂f̃/∂σ) of every unlabeled node at σ.

        ``x0`` warm-starts CG on L ∪ Ũ: a pair of arrays of shape (|L| + |Ũ|,).
        """
        sigma = check_real("sigma", sigma, "soft_labels", low=0.0, closed="neither")
        check_option("solver", solver, "soft_labels", SOLVERS)
        A, dA, deg_s = self.matrix(sigma, derivative=derivative)
        keep = ~deg_s
        f = np.full(self.nodes.size, 0.5)
        df = np.zeros(self.nodes.size)
        lin = LinearSolver(_kept(A, keep), solver, cg_iters=cg_iters)
        f0 = df0 = None
        if x0 is not None and solver in ("cg", "pcg"):
            f0, df0 = (None if v is None else np.asarray(v)[keep] for v in x0)
        f[keep] = lin.solve(self.lam * self.y_s[keep], f0)
        if derivative:
            df[keep] = lin.solve(-(dA @ f)[keep], df0)
        E, dE, s, deg_u = self._extension(sigma, derivative, keep)
        ft = (E @ f) / s
        dft = None
        if derivative:
            dft = ((dE @ f) + (E @ df) - ft * systems.rowsum(dE)) / s
        return SoftLabels(
            sigma,
            ft,
            dft,
            deg_u,
            lin.solves,
            lin.matvecs,
            lin.factorizations,
            subset_f=f,
            subset_df=df if derivative else None,
        )

    def condition_system(self, sigma: float):
        """``(A, A, λ y⃗, cut off)`` at σ: eq. (3)'s A over the nodes of L ∪ Ũ with a path to
        L, symmetric positive definite (docs/method.md §7.1)."""
        A, _, deg = self.matrix(sigma)
        keep = ~deg
        A = A[np.ix_(keep, keep)] if isinstance(A, np.ndarray) else A[keep][:, keep]
        return A, A, (self.lam * self.y_s)[keep], int(deg.sum())

    def work_matrix(self, sigma: float):
        """W on L ∪ Ũ: the pattern of A but its diagonal (the work counts add it)."""
        return self.graph.kernel(sigma)
