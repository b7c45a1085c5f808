"""LabelSpreading (Zhou et al. 2004, "local and global consistency"; docs/method.md §3.4).

On every node of the graph (labeled rows soft-clamped, not held fixed), with
S = D^-½ W D^-½ (W: sslviz's weights, no self-loops; D = diag(W1)) and 0 < α < 1::

    A = I − αS,      A G = Y,      A G' = α S' G,                          (9)
    S' = D^-½ W' D^-½ − ½ (diag(q) S + S diag(q)),   q = (W'1) / (W1)

Y holds one column per class (one-hot on L, zero on U); Zhou's F = (1 − α) G, and the
factor (1 − α) cancels in everything below. Two classes: the soft label of node u is its
normalised class-1 score, f_u = G_u1 / (G_u0 + G_u1) (as scikit-learn normalises
``label_distributions_``), so f_u > ½ exactly when G_u1 > G_u0 (the argmax). A = I − αS
is symmetric positive definite with κ(A) ≤ (1 + α)/(1 − α), and its off-diagonal entries
are ≤ 0 with ρ(αS) ≤ α < 1: a nonsingular M-matrix, A⁻¹ ≥ 0, so exact scores are
non-negative and the certificate of docs/method.md §8 proves the sign of G_u1 − G_u0
(the solution of A z = Y_1 − Y_0) from any iterate. More than two classes: one-vs-all
through :meth:`SpreadingModel.relabeled`, whose soft labels are G_uc / Σ_c' G_uc'.

S is formed in the log domain (log d_i from the row-scaled weights, docs/method.md §2.2),
so no scale underflows at small σ. Every solver runs on A itself: 'exact' Cholesky (dense)
or SuperLU (sparse), 'inverse' the explicit inverse, 'cg' and 'pcg' t iterations of CG
per class column from zero (diag(A) = I: Jacobi-PCG takes CG's steps). A node with no path
of edges to L scores 0 in both columns: it is held at ½ and reported cut off.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from sslviz import systems
from sslviz._threads import one_thread
from sslviz._validation import check_option, check_real
from sslviz.graphs import Graph, build_graph
from sslviz.labeling import Scores, SoftLabelModel, SoftLabels, _check_sigmas
from sslviz.solvers import (
    jacobi,
    positive_supersolution,
    side_certificate,
    solve_cg,
    top_class_certificate,
)
from sslviz.specs import CERTIFY_CAP, CG_ITERS, SOLVERS


def _soft(g0: np.ndarray, g1: np.ndarray, live: np.ndarray) -> np.ndarray:
    """The soft label ½ + ½ (g1 − g0) / (|g0| + |g1|) of class scores g0, g1 (any shape):
    g1 / (g0 + g1) where both are non-negative (always for exact scores, A⁻¹ ≥ 0), on the
    side of ½ that the argmax says whatever their signs (CG-t's scores can be negative);
    ½ where not ``live`` (both zero, or cut off from L)."""
    a = np.where(live, np.abs(g0) + np.abs(g1), 1.0)
    return np.where(live, 0.5 + 0.5 * (g1 - g0) / a, 0.5)


class _Direct:
    """x ↦ A⁻¹x for the (n, c) columns of x: Cholesky or the inverse of a dense A, SuperLU
    of a sparse one."""

    def __init__(self, A, solver: str) -> None:
        if solver == "inverse":
            inverse = la.inv(A.toarray() if sp.issparse(A) else A)
            self.solve = lambda B: inverse @ B
        elif sp.issparse(A):
            self.solve = spla.splu(A.tocsc()).solve
        else:
            factor = la.cho_factor(A, lower=True, check_finite=False)
            self.solve = lambda B: la.cho_solve(factor, B, check_finite=False)


class SpreadingModel(SoftLabelModel):
    """LabelSpreading soft labels on a Gaussian graph (eq. (9); docs/method.md §3.4).

    Parameters
    ----------
    graph : Graph
        Built on the instance's points.
    labeled : ndarray of shape (n,), bool
    y : ndarray of shape (n,)
        Binary labels; only the labeled entries are read.
    alpha : float
        α in (0, 1): the weight of the neighbours against the labels (scikit-learn's
        default 0.2).
    """

    name = "spreading"
    label = "spreading"
    help = "LabelSpreading (Zhou et al. 2004: F = (1 − α)(I − αS)⁻¹Y, S = D^-½ W D^-½)"
    reads = ("alpha",)
    requirement = "a Gaussian graph family"
    system_label = "I − αS"
    nested_iterates = True
    sklearn_estimator = "LabelSpreading"

    @classmethod
    def accepts(cls, family) -> bool:
        """The Gaussian families: S is defined through the weights exp(−d²/σ²)."""
        return family.gaussian

    @classmethod
    def build(cls, X, labeled, y, graph, labeling) -> SpreadingModel:
        g = graph if isinstance(graph, Graph) else build_graph(X, graph)
        return cls(g, labeled, y, labeling.alpha)

    @classmethod
    def described(cls, settings, number) -> str:
        return f"spreading labeling (α = {number(settings['alpha'])})"

    def __init__(self, graph: Graph, labeled: np.ndarray, y: np.ndarray, alpha: float) -> None:
        labeled = np.asarray(labeled, bool)
        self.alpha = check_real(
            "alpha", alpha, "SpreadingModel", low=0.0, high=1.0, closed="neither"
        )
        self.graph = graph
        self.labeled_idx = np.flatnonzero(labeled)
        self.unlabeled_idx = np.flatnonzero(~labeled)
        self._Y = self._columns(np.asarray(y, float)[self.labeled_idx])
        self._D2 = graph.sqdist
        self._shift = graph.row_min_sqdist()
        self._structural = systems.unanchored(systems.pattern(self._D2, True), labeled)[
            self.unlabeled_idx
        ]
        systems.freeze(self.labeled_idx, self.unlabeled_idx, self._Y, self._shift)

    def _columns(self, y_l: np.ndarray) -> np.ndarray:
        """Y of shape (n, 2): the columns 1 − y and y on L (one-hot for binary y), 0 on U."""
        Y = np.zeros((self.graph.n, 2))
        Y[self.labeled_idx, 0] = 1.0 - y_l
        Y[self.labeled_idx, 1] = y_l
        return Y

    def relabeled(self, y: np.ndarray) -> SpreadingModel:
        """This model with ``y[labeled_idx]`` as the class-1 column of Y on L and
        1 − y as its class-0 column (the graph and its pattern shared).

        One-vs-all with y = 1[class c] (:meth:`SoftLabelModel.scores`, docs/method.md
        §3.4): the two columns are G_c and Σ_{c' ≠ c} G_c', whose sum A⁻¹1_L is the same
        for every c, so f_c = G_c / Σ_c' G_c' — scikit-learn's normalised
        ``label_distributions_`` — and the argmax over c is LabelSpreading's prediction.
        """
        out = copy.copy(self)
        out._Y = self._columns(np.asarray(y, float)[self.labeled_idx])
        systems.freeze(out._Y)
        return out

    @property
    def graph_nonzeros(self) -> int:
        """Nonzeros of A = I − αS: every edge both ways and the diagonal."""
        return 2 * self.graph.n_edges + self.graph.n

    # ----------------------------------------------------------------------------------
    # The system
    # ----------------------------------------------------------------------------------

    def _s(self, sigma: float, derivative: bool):
        """``(S, S')`` at σ (S' None unless asked), dense or CSR as the graph is."""
        s2 = sigma * sigma
        dense = isinstance(self._D2, np.ndarray)
        D2 = self._D2 if dense else self._D2.data
        if dense:
            rows = None
            with np.errstate(over="ignore"):
                W = np.exp((self._shift[:, None] - D2) / s2)  # row-scaled: each row's max is 1
            np.fill_diagonal(W, 0.0)
            d = W.sum(axis=1)
        else:
            rows = np.repeat(np.arange(self.graph.n), np.diff(self._D2.indptr))
            W = np.exp((self._shift[rows] - D2) / s2)
            d = np.bincount(rows, W, minlength=self.graph.n)
        with np.errstate(divide="ignore"):  # an isolated node: its row and column are 0
            half = 0.5 * (np.log(d) - self._shift / s2)
        half = np.where(np.isfinite(half), half, np.inf)
        if dense:
            with np.errstate(over="ignore"):  # the diagonal, zeroed next
                S = np.exp(-D2 / s2 - half[:, None] - half[None, :])
            np.fill_diagonal(S, 0.0)
        else:
            S = np.exp(-D2 / s2 - half[rows] - half[self._D2.indices])
        dS = None
        if derivative:
            dw = 2.0 * D2 / (s2 * sigma)  # ∂w/∂σ / w on each edge
            if dense:
                np.fill_diagonal(dw, 0.0)
                q = np.where(d > 0, (W * dw).sum(axis=1) / np.where(d > 0, d, 1.0), 0.0)
                dS = S * (dw - 0.5 * (q[:, None] + q[None, :]))
            else:
                q = np.bincount(rows, W * dw, minlength=self.graph.n)
                q = np.where(d > 0, q / np.where(d > 0, d, 1.0), 0.0)
                dS = S * (dw - 0.5 * (q[rows] + q[self._D2.indices]))
        if not dense:
            S = sp.csr_matrix((S, self._D2.indices, self._D2.indptr), self._D2.shape)
            if dS is not None:
                dS = sp.csr_matrix((dS, self._D2.indices, self._D2.indptr), self._D2.shape)
        return S, dS

    def matrix(self, sigma: float, *, derivative: bool = False):
        """``(A, S')`` at σ: A = I − αS of eq. (9) (dense, or CSR on a sparse graph), and
        S' = ∂S/∂σ (None unless ``derivative``)."""
        S, dS = self._s(sigma, derivative)
        if sp.issparse(S):
            A = (sp.identity(S.shape[0], format="csr") - self.alpha * S).tocsr()
        else:
            A = -self.alpha * S
            A.flat[:: A.shape[0] + 1] += 1.0
        return A, dS

    # ----------------------------------------------------------------------------------
    # Soft labels
    # ----------------------------------------------------------------------------------

    def _labels(self, sigma, G, dG, solves, matvecs, factorizations, exact, **extra):
        """SoftLabels of the unlabeled nodes from the class scores G (n, 2) and G'."""
        U = self.unlabeled_idx
        g0, g1 = G[U, 0], G[U, 1]
        a = np.abs(g0) + np.abs(g1)
        degenerate = self._structural | (a == 0.0 if exact else False)
        live = (a > 0) & ~degenerate
        safe = np.where(live, a, 1.0)
        f = _soft(g0, g1, live)
        df = None
        if dG is not None:
            d0, d1 = dG[U, 0], dG[U, 1]
            da = np.sign(g0) * d0 + np.sign(g1) * d1
            df = np.where(live, 0.5 * ((d1 - d0) * a - (g1 - g0) * da) / safe**2, 0.0)
        return SoftLabels(
            sigma, f, df, np.asarray(degenerate, bool), solves, matvecs, factorizations, **extra
        )

    def _cg(self, A, B, solver, iterations, starts=None, callbacks=None):
        """t iterations of CG (or Jacobi-PCG) on each column of B; ``(X, products)``."""
        pre = jacobi(A) if solver == "pcg" and A.shape[0] else None
        X = np.zeros(B.shape)
        matvecs = 0
        for c in range(B.shape[1]):
            x0 = None if starts is None else starts[:, c]
            back = None if callbacks is None else callbacks[c]
            r = solve_cg(A, B[:, c], x0, maxiter=iterations, rtol=0.0, M=pre, callback=back)
            X[:, c] = r.x
            matvecs += r.matvecs
        return X, matvecs

    @one_thread
    def soft_labels(
        self,
        sigma: float,
        *,
        solver: str = "exact",
        cg_iters: int = CG_ITERS,
        derivative: bool = True,
        x0: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> SoftLabels:
        """Soft labels f_u = G_u1 / (G_u0 + G_u1) (and ∂f/∂σ) of the unlabeled nodes at σ.

        Parameters
        ----------
        sigma : float
            Bandwidth σ > 0.
        solver : {'exact', 'inverse', 'cg', 'pcg'}, default='exact'
        cg_iters : int, default=20
            t, CG's iterations per class column (from zero, or from ``x0``).
        derivative : bool, default=True
        x0 : (G0, dG0), optional
            Warm starts of CG/PCG: class scores of shape (n, 2) (ignored by direct solvers).
        """
        sigma = check_real("sigma", sigma, "soft_labels", low=0.0, closed="neither")
        check_option("solver", solver, "soft_labels", SOLVERS)
        A, dS = self.matrix(sigma, derivative=derivative)
        if solver in ("exact", "inverse"):
            direct = _Direct(A, solver)
            G = direct.solve(self._Y)
            dG = direct.solve(self.alpha * (dS @ G)) if derivative else None
            return self._labels(sigma, G, dG, 2 + 2 * derivative, 0, 1, True)
        start, dstart = (None, None) if x0 is None else x0
        G, matvecs = self._cg(A, self._Y, solver, cg_iters, start)
        dG = None
        if derivative:
            dG, more = self._cg(A, self.alpha * (dS @ G), solver, cg_iters, dstart)
            matvecs += more
        return self._labels(sigma, G, dG, 2 + 2 * derivative, matvecs, 0, False)

    @one_thread
    def scores(
        self,
        sigmas,
        y: np.ndarray,
        n_classes: int,
        *,
        solver: str = "exact",
        cg_iters: int = CG_ITERS,
        derivative: bool = True,
    ) -> list[Scores]:
        """:meth:`SoftLabelModel.scores`; more than two classes with a direct solver: one
        factorisation of A per σ for all C columns of the one-hot Y, F_U = G_U / Σ_c G_Uc
        (what the one-vs-all columns of :meth:`relabeled` give, to rounding) and
        F' = (G' − F Σ_c G'_c) / Σ_c G_c; cut-off nodes at 1/C (docs/method.md §3.4)."""
        if n_classes <= 2 or solver not in ("exact", "inverse"):
            return super().scores(
                sigmas, y, n_classes, solver=solver, cg_iters=cg_iters, derivative=derivative
            )
        Y = self._one_hot(y, n_classes)
        U = self.unlabeled_idx
        out = []
        for x in _check_sigmas(sigmas, "scores").tolist():
            A, dS = self.matrix(x, derivative=derivative)
            direct = _Direct(A, solver)
            G_all = direct.solve(Y)
            G = G_all[U]
            total = G.sum(axis=1)
            degenerate = self._structural | (total == 0.0)
            safe = np.where(degenerate, 1.0, total)[:, None]
            F = np.where(degenerate[:, None], 1.0 / n_classes, G / safe)
            dF = None
            if derivative:
                dG = direct.solve(self.alpha * (dS @ G_all))[U]
                dF = np.where(degenerate[:, None], 0.0, (dG - F * dG.sum(1)[:, None]) / safe)
            solves = n_classes * (1 + derivative)
            out.append(Scores(x, F, dF, degenerate, solves, 0, 1))
        return out

    def _one_hot(self, y: np.ndarray, n_classes: int) -> np.ndarray:
        """Y of shape (n, C): one-hot class indices ``y`` on L, 0 on U."""
        Y = np.zeros((self.graph.n, n_classes))
        Y[self.labeled_idx, np.asarray(y)[self.labeled_idx].astype(int)] = 1.0
        return Y

    @one_thread
    def sides_by_t(self, sigmas, *, solver: str = "cg", iterations: int = CG_ITERS):
        """:meth:`SoftLabelModel.sides_by_t` from one run of ``iterations`` steps per class
        column and σ: CG's iterates are nested, each recorded by :func:`solve_cg`'s
        callback (the iterates :meth:`soft_labels` stops at)."""
        sig, iterations = self._sides_args(sigmas, solver, iterations)
        U = self.unlabeled_idx
        sides = np.zeros((sig.size, iterations, U.size), dtype=bool)
        degenerate = np.zeros((sig.size, U.size), dtype=bool)
        for j, x in enumerate(sig.tolist()):
            A, _ = self.matrix(x)
            paths: list[list[np.ndarray]] = [[], []]
            record: list[Callable] = [
                lambda v, out=paths[c]: out.append(v[U].copy()) for c in range(2)
            ]
            G, _ = self._cg(A, self._Y, solver, iterations, callbacks=record)
            for c in range(2):  # stopped early: the scores stay
                paths[c] += [G[U, c]] * (iterations - len(paths[c]))
            g0, g1 = np.array(paths[0]), np.array(paths[1])
            live = (np.abs(g0) + np.abs(g1) > 0) & ~self._structural
            sides[j] = _soft(g0, g1, live) > 0.5
            degenerate[j] = self._structural
        return sides, degenerate

    @one_thread
    def certified_labels(
        self,
        sigma: float,
        *,
        solver: str = "cg",
        cg_iters: int = CG_ITERS,
        cap: int = CERTIFY_CAP,
        derivative: bool = True,
        h0: np.ndarray | None = None,
        attempt: bool = True,
    ) -> SoftLabels:
        """CG/PCG soft labels with every node's side of ½ proven (docs/method.md §8).

        ``cg_iters`` iterations per class column from zero, then more (the budget doubling,
        warm-started) until :func:`sslviz.solvers.side_certificate` proves the sign of
        z = G_1 − G_0, the solution of A z = Y_1 − Y_0 (A = I − αS, a nonsingular
        M-matrix), at every unlabeled node with a path to L; past ``cap`` iterations the
        exact solve (``status`` 'fallback'). ∂f/∂σ: CG on A G' = α S' G to a relative
        residual of 1e-8. ``h0``: a supersolution from a nearby σ, reused when A h0 > 0
        still holds. ``attempt=False`` goes straight to the exact fallback.
        """

        def fallback(**work) -> SoftLabels:
            sl = self.soft_labels(sigma, solver="exact", derivative=derivative)
            more = {k: getattr(sl, k) + v for k, v in work.items() if k in ("solves", "matvecs")}
            return SoftLabels(
                sl.sigma,
                sl.f,
                sl.df,
                sl.degenerate,
                more.get("solves", sl.solves),
                more.get("matvecs", sl.matvecs),
                sl.factorizations,
                "fallback",
                iterations=work.get("iterations", 0),
                supersolution=work.get("supersolution"),
            )

        if not attempt:
            return fallback()
        A, dS = self.matrix(sigma, derivative=derivative)
        if A.shape[0] == 0:
            return fallback()
        b = self._Y[:, 1] - self._Y[:, 0]
        G, matvecs = self._cg(A, self._Y, solver, cg_iters)
        used, solves = cg_iters, 2
        pre = jacobi(A) if solver == "pcg" else None
        cert = None
        if h0 is not None and h0.shape == (A.shape[0],):
            h = h0
            cert = side_certificate(A, b, G[:, 1] - G[:, 0], h, center=0.0)
            matvecs += 4
        if cert is None or not cert.valid:
            h, mv = positive_supersolution(A, maxiter=cap, M=pre)
            cert = side_certificate(A, b, G[:, 1] - G[:, 0], h, center=0.0)
            matvecs += mv + 4
        wanted = self.unlabeled_idx[~self._structural]

        def proven() -> bool:
            return bool(cert.valid and cert.certified[wanted].all())

        while not proven() and used < cap:
            step = min(used, cap - used)
            G, mv = self._cg(A, self._Y, solver, step, G)
            used, matvecs, solves = used + step, matvecs + mv + 4, solves + 2
            cert = side_certificate(A, b, G[:, 1] - G[:, 0], h, center=0.0)
        if not proven():
            return fallback(
                solves=solves,
                matvecs=matvecs,
                iterations=used,
                supersolution=h if cert.valid else None,
            )
        dG = None
        if derivative:
            rhs = self.alpha * (dS @ G)
            dG = np.zeros(G.shape)
            for c in range(2):
                r = solve_cg(A, rhs[:, c], maxiter=cap, rtol=1e-8, M=pre)
                dG[:, c] = r.x
                matvecs, solves = matvecs + r.matvecs, solves + 1
        return self._labels(
            sigma,
            G,
            dG,
            solves,
            matvecs,
            0,
            False,
            status="certified",
            iterations=used,
            supersolution=h,
        )

    @one_thread
    def certified_scores(
        self,
        sigma: float,
        y: np.ndarray,
        n_classes: int,
        *,
        solver: str = "cg",
        cg_iters: int = CG_ITERS,
        cap: int = CERTIFY_CAP,
        derivative: bool = True,
        h0: np.ndarray | None = None,
        attempt: bool = True,
    ) -> Scores:
        """Scores with every node's top class proven (docs/method.md §3.4, §13.5); two
        classes: :meth:`SoftLabelModel.certified_scores`.

        Each one-hot column of A G = Y (A = I − αS, a nonsingular M-matrix) runs
        ``cg_iters`` iterations of ``solver`` from zero, then more (the budget doubling,
        warm-started) until :func:`sslviz.solvers.top_class_certificate` proves
        argmax_c G_uc at every unlabeled node with a path to L (one supersolution h for
        every column: A is the same), or ``cap`` iterations in all; past the cap the exact
        scores (``status`` 'fallback'). F_U = G_U / Σ_c |G_Uc|: G / Σ_c G_c for
        non-negative scores, and the proven argmax whatever the iterate's signs; cut-off
        nodes at 1/C. ∂F/∂σ by the quotient rule from CG on A G' = α S' G per column to a
        relative residual of 1e-8. ``h0``: a supersolution from a nearby σ, reused when
        A h0 > 0 still holds. ``attempt=False`` goes straight to the exact fallback.
        """
        if n_classes <= 2:
            return super().certified_scores(
                sigma,
                y,
                n_classes,
                solver=solver,
                cg_iters=cg_iters,
                cap=cap,
                derivative=derivative,
                h0=h0,
                attempt=attempt,
            )

        def fallback(**work) -> Scores:
            (sc,) = self.scores([sigma], y, n_classes, solver="exact", derivative=derivative)
            extra = {k: getattr(sc, k) + v for k, v in work.items() if k != "iterations"}
            return replace(sc, status="fallback", iterations=work.get("iterations", 0), **extra)

        if not attempt:
            return fallback()
        A, dS = self.matrix(sigma, derivative=derivative)
        if A.shape[0] == 0:
            return fallback()
        Y = self._one_hot(y, n_classes)
        G, matvecs = self._cg(A, Y, solver, cg_iters)
        used, solves = cg_iters, n_classes
        pre = jacobi(A) if solver == "pcg" else None
        cert = None
        if h0 is not None and h0.shape == (A.shape[0],):
            h = h0
            cert = top_class_certificate(A, Y, G, h)
            matvecs += 4 * n_classes
        if cert is None or not cert.valid:
            h, mv = positive_supersolution(A, maxiter=cap, M=pre)
            cert = top_class_certificate(A, Y, G, h)
            matvecs += mv + 4 * n_classes
        U = self.unlabeled_idx
        wanted = U[~self._structural]

        def proven() -> bool:
            return bool(cert.valid and cert.certified[wanted].all())

        while not proven() and used < cap:
            step = min(used, cap - used)
            G, mv = self._cg(A, Y, solver, step, G)
            used, matvecs = used + step, matvecs + mv + 4 * n_classes
            solves += n_classes
            cert = top_class_certificate(A, Y, G, h)
        if not proven():
            sc = fallback(matvecs=matvecs, solves=solves, iterations=used)
            return replace(sc, supersolution=h if cert.valid else None)
        G_U = G[U]
        total = np.abs(G_U).sum(axis=1)
        live = (total > 0) & ~self._structural
        safe = np.where(live, total, 1.0)[:, None]
        F = np.where(live[:, None], G_U / safe, 1.0 / n_classes)
        dF = None
        if derivative:
            rhs = self.alpha * (dS @ G)
            dG = np.zeros(G.shape)
            for c in range(n_classes):
                r = solve_cg(A, rhs[:, c], maxiter=cap, rtol=1e-8, M=pre)
                dG[:, c] = r.x
                matvecs, solves = matvecs + r.matvecs, solves + 1
            dG_U = dG[U]
            dtotal = (np.sign(G_U) * dG_U).sum(axis=1)[:, None]
            dF = np.where(live[:, None], (dG_U - F * dtotal) / safe, 0.0)
        return Scores(
            sigma,
            F,
            dF,
            self._structural.copy(),
            solves,
            matvecs,
            0,
            "certified",
            iterations=used,
            supersolution=h,
        )

    # ----------------------------------------------------------------------------------
    # Conditioning
    # ----------------------------------------------------------------------------------

    def condition_system(self, sigma: float):
        """``(A, A, Y_1 − Y_0, 0)`` at σ: A = I − αS over every node (it is nonsingular
        whatever the graph, so no node is left out), κ(A) ≤ (1 + α)/(1 − α)
        (docs/method.md §3.4)."""
        A, _ = self.matrix(sigma)
        return A, A, self._Y[:, 1] - self._Y[:, 0], 0

    def kappa_bound(self) -> float:
        """(1 + α)/(1 − α): the bound on κ(I − αS) that the spectrum of S in [−1, 1] gives."""
        return (1.0 + self.alpha) / (1.0 - self.alpha)
