"""The soft labels a search asks for, from one model and one solver, counted and cached.

:class:`LabelOracle` is what the loss-curve searches (:mod:`sslviz.truth`) and Algorithm 4
(:mod:`sslviz.algorithm4`) call for f_u(σ) and f'_u(σ): it chooses the model's solve
(exact, t-iteration CG/PCG, or certified), counts the work every call took, and keeps
every σ it was asked for. The models themselves are in :mod:`sslviz.labeling`.
"""

from __future__ import annotations

import numpy as np

from sslviz.labeling import SoftLabelModel, SoftLabels
from sslviz.specs import CG_ITERS


class LabelOracle:
    """Soft labels of one model from one solver, with the work they took counted.

    The oracle of the loss-curve search (:mod:`sslviz.truth`) and of Algorithm 4
    (:mod:`sslviz.algorithm4`). ``oracle(σ)`` returns ``(h, df, degenerate)`` at σ and caches
    it; :meth:`labels` and :meth:`labels_many` return :class:`SoftLabels` uncached (Algorithm
    4 counts every solve). Every call that reaches the model adds its work to the counters.

    Parameters
    ----------
    model : SoftLabelModel
        Only read, never written to.
    y_u : ndarray of shape (n_unlabeled,) or None
        True binary labels of the unlabeled nodes (``model.unlabeled_idx`` order), for
        :meth:`wrong`; None when only soft labels are needed.
    solver : {'exact', 'inverse', 'cg', 'pcg'}, default='exact'
    cg_iters : int, default=20
        t, iterations per CG/PCG solve (where certified solves start).
    certify_cap : int or None, default=None
        When given (CG/PCG only), every σ is solved by :meth:`SoftLabelModel.certified_labels`
        with this cap: each node's side of 1/2 is proven, or the σ falls back to an exact
        solve.

    Attributes
    ----------
    solves : int
        Linear-system solves: one for f and one for ∂f/∂σ per σ (a subtraction-free redo
        of an exact solve counts again).
    matvecs : int
        CG/PCG matrix–vector products (0 for direct solvers).
    factorizations : int
        LU factorisations or inverses, GTH re-eliminations included (0 for CG/PCG).
    iterations : dict of float to int
        Certified mode: CG iterations of f at each σ solved (before any fallback).
    fallbacks : list of float
        Certified mode: σ where the certificate failed within the cap (solved exactly).
    gth : set of float
        σ where an exact solve was redone subtraction-free (LU pivots showed
        cancellation: a cluster that barely leaks to the labeled set).
    cholesky : bool
        Exact solves by the model's :meth:`SoftLabelModel.exact_cholesky_many` where it has
        that path (``cholesky_exact``; the harmonic model on a complete graph: the same
        values to rounding, half the flops); False unless a search sets it.
    cache : dict of float to (ndarray, ndarray, ndarray)
        σ → ``(h, df, degenerate)`` for every σ evaluated through ``oracle(σ)`` or
        :meth:`prefetch`: ``h = f − 1/2`` and ``df = ∂f/∂σ`` (per σ unit) float arrays and
        ``degenerate`` a bool array, all of shape (n_unlabeled,).

    Notes
    -----
    The oracle itself is mutable (counters, cache): make one per computation.
    """

    def __init__(
        self,
        model: SoftLabelModel,
        y_u: np.ndarray | None,
        solver: str = "exact",
        cg_iters: int = CG_ITERS,
        certify_cap: int | None = None,
    ) -> None:
        self.model = model
        self.y_u = y_u
        self.solver = solver
        self.cg_iters = cg_iters
        self.certify_cap = certify_cap
        self.iterations: dict[float, int] = {}
        self.fallbacks: list[float] = []
        self._supersolution: np.ndarray | None = None  # the last certified σ's h
        self._failed: list[bool] = []  # certified mode: which σ fell back, in order
        self.matvecs = 0
        self.cache: dict[float, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self.solves = 0
        self.factorizations = 0
        self.cholesky = False

    @property
    def exact(self) -> bool:
        """True for direct solvers ('exact', 'inverse'): ``df`` is then the derivative of
        ``f`` (a t-iteration CG's ∂f/∂σ is not the derivative of its f)."""
        return self.solver in ("exact", "inverse")

    @property
    def smooth(self) -> bool:
        """True when ``df`` is (to solver accuracy) the derivative of ``f``: direct solves,
        and certified ones (f within its proven bound g < |f − 1/2| of the exact value, ∂f/∂σ
        from eq. (2) to a relative residual of 1e-8), so Newton steps may locate roots."""
        return self.exact or self.certify_cap is not None

    def labels(self, sigma: float) -> SoftLabels:
        """Soft labels at σ, uncached, work counted."""
        return self.labels_many([sigma])[0]

    def labels_many(self, sigmas) -> list[SoftLabels]:
        """Soft labels at each σ (solved together where the model can), work counted."""
        if self.certify_cap is not None:
            out = self._certified(sigmas, self.model.certified_labels)
        elif self.cholesky and self.solver == "exact" and self.model.cholesky_exact:
            out = self.model.exact_cholesky_many(sigmas)
        else:
            out = self.model.soft_labels_many(sigmas, solver=self.solver, cg_iters=self.cg_iters)
        for sl in out:
            self.solves += sl.solves
            self.matvecs += sl.matvecs
            self.factorizations += sl.factorizations
        return out

    def _certified(self, sigmas, solve) -> list:
        """``solve(σ, solver=, cg_iters=, cap=, h0=, attempt=)`` at each σ (the model's
        certified labels or scores), the supersolution carried from σ to σ and every
        fallback recorded."""
        out = []
        for x in np.atleast_1d(np.asarray(sigmas, float)):
            # Where proofs keep failing (7 of the last 8 σ), try one σ in 8 and solve
            # the rest exactly at once: a failed attempt costs up to the cap in CG.
            skip = sum(self._failed[-8:]) >= 7 and len(self._failed) % 8 != 0
            sl = solve(
                float(x),
                solver=self.solver,
                cg_iters=self.cg_iters,
                cap=self.certify_cap,
                h0=self._supersolution,
                attempt=not skip,
            )
            self._failed.append(sl.status == "fallback")
            if sl.supersolution is not None:
                self._supersolution = sl.supersolution
            self.iterations[sl.sigma] = sl.iterations
            if sl.status == "fallback":
                self.fallbacks.append(sl.sigma)
            out.append(sl)
        return out

    def idle(self, crossing: np.ndarray, ea: tuple, eb: tuple) -> np.ndarray:
        """Which of the functions ``crossing`` (each changes sign between two evaluated σ,
        ``ea`` and ``eb`` their values) cannot change the loss there, so that the search
        need not locate their roots: here none (every crossing of ½ flips a node)."""
        return np.zeros(crossing.size, bool)

    def __call__(self, sigma: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(h, df, degenerate)`` at σ (see ``cache``), computed once per σ."""
        hit = self.cache.get(sigma)
        if hit is not None:
            return hit
        self.prefetch([sigma])
        return self.cache[sigma]

    def prefetch(self, sigmas) -> None:
        """Evaluate and cache every σ not cached yet, in one call to the model."""
        todo = [x for x in dict.fromkeys(float(v) for v in sigmas) if x not in self.cache]
        for sl in self.labels_many(todo) if todo else ():
            self.cache[sl.sigma] = (sl.f - 0.5, sl.df, sl.degenerate)

    def wrong(self, sigma: float) -> np.ndarray:
        """Bool array of shape (n_unlabeled,): nodes misclassified by 1[f_u > 1/2] at σ
        (degenerate nodes count as wrong)."""
        h, _, deg = self(sigma)
        return deg | ((h > 0) != (self.y_u == 1))


def true_class_pairs(y_u: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The gaps of the exact multi-class loss (docs/method.md §13): for every unlabeled node
    u and every class c other than its true class τ(u), the pair (u, τ(u), c), node by node,
    rivals in class order. Returns ``(node, a, b)``, int arrays of shape
    (n_unlabeled · (C − 1),)."""
    y_u = np.asarray(y_u, np.int64)
    others = np.array([[c for c in range(n_classes) if c != t] for t in range(n_classes)])
    node = np.repeat(np.arange(y_u.size), n_classes - 1)
    return node, y_u[node], others[y_u].ravel().astype(np.int64)


class GapOracle(LabelOracle):
    """The gaps between one-vs-all scores that the multi-class searches ask for
    (docs/method.md §13): ``oracle(σ)`` returns ``(h, dh, degenerate)`` over the pairs
    (u, a, b) given, h = F_ua − F_ub and dh its σ-derivative, ``degenerate`` that of node u;
    so the searches of :mod:`sslviz.crossings` run on pairs as they run on nodes.

    Parameters
    ----------
    model : SoftLabelModel
        Its :meth:`SoftLabelModel.scores` are solved (one column per class).
    y : ndarray of shape (n,)
        Class indices of the instance's points (labeled ones read by the model).
    n_classes : int
        C ≥ 2.
    pairs : (node, a, b)
        From :func:`true_class_pairs`.
    solver, cg_iters, certify_cap
        As :class:`LabelOracle`; with ``certify_cap`` every σ's scores come from
        :meth:`SoftLabelModel.certified_scores` (each node's top class proven, or an exact
        fallback).

    Attributes
    ----------
    scores : dict of float to (ndarray, ndarray)
        σ → ``(F, degenerate)`` at every σ evaluated: F (n_unlabeled, C).
    (and those of :class:`LabelOracle`: work counters, ``cache`` over pairs)
    """

    def __init__(
        self,
        model: SoftLabelModel,
        y: np.ndarray,
        n_classes: int,
        pairs: tuple[np.ndarray, np.ndarray, np.ndarray],
        solver: str = "exact",
        cg_iters: int = CG_ITERS,
        certify_cap: int | None = None,
    ) -> None:
        y = np.asarray(y)
        super().__init__(model, y[model.unlabeled_idx], solver, cg_iters, certify_cap)
        self.y, self.n_classes = y, int(n_classes)
        self.node, self.a, self.b = (np.asarray(v, np.int64) for v in pairs)
        self.scores: dict[float, tuple[np.ndarray, np.ndarray]] = {}

    def labels_many(self, sigmas) -> list:
        """:class:`sslviz.labeling.Scores` at each σ (certified ones with ``certify_cap``),
        work counted."""
        if self.certify_cap is not None:

            def solve(x, **kw):
                return self.model.certified_scores(x, self.y, self.n_classes, **kw)

            out = self._certified(sigmas, solve)
        else:
            out = self.model.scores(
                sigmas, self.y, self.n_classes, solver=self.solver, cg_iters=self.cg_iters
            )
        for sc in out:
            self.solves += sc.solves
            self.matvecs += sc.matvecs
            self.factorizations += sc.factorizations
        return out

    def prefetch(self, sigmas) -> None:
        todo = [x for x in dict.fromkeys(float(v) for v in sigmas) if x not in self.cache]
        for sc in self.labels_many(todo) if todo else ():
            self.put(sc)

    def put(self, sc) -> None:
        """Cache the :class:`sslviz.labeling.Scores` ``sc`` at its σ."""
        F, dF = sc.F, sc.dF
        h = F[self.node, self.a] - F[self.node, self.b]
        dh = dF[self.node, self.a] - dF[self.node, self.b]
        self.cache[sc.sigma] = (h, dh, sc.degenerate[self.node])
        self.scores[sc.sigma] = (F, sc.degenerate)

    def idle(self, crossing: np.ndarray, ea: tuple, eb: tuple) -> np.ndarray:
        """A gap's root cannot flip its node where another of the node's gaps is negative
        at both ends of the cell (the node is wrong throughout, up to the search's residual
        risk of hidden pairs of crossings, which the split test looks for on every gap)."""
        n_u = self.y_u.size
        stuck = ((ea[0] <= 0) & (eb[0] <= 0)).reshape(n_u, -1).any(axis=1)
        return stuck[self.node[crossing]]

    def predicted(self, sigma: float) -> np.ndarray:
        """Predicted class index of every unlabeled node at σ (argmax of its scores; the
        first of equal ones), shape (n_unlabeled,)."""
        self(sigma)
        return np.argmax(self.scores[sigma][0], axis=1)

    def wrong(self, sigma: float) -> np.ndarray:
        """Nodes misclassified by argmax_c F_uc at σ (cut-off nodes count as wrong)."""
        self(sigma)
        return self.scores[sigma][1] | (self.predicted(sigma) != self.y_u)
