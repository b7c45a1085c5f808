"""Harmonic soft labels f_U(σ) and their σ-derivatives (docs/method.md §3.1; Algorithm 2).

Harmonic objective (Zhu et al. 2003), with L = D − W split into blocks::

    L_UU f_U  = W_UL f_L                         (1)
    L_UU f'_U = W'_UL f_L − L'_UU f_U            (2)   L' = diag(W'1) − W'

This is the paper's (I − P_UU) f = P_UL f_L, but L_UU is symmetric positive definite, so
CG and Jacobi-PCG run on it. Exact solves use the row-scaled form (each row of W divided
by its largest weight), which leaves f unchanged and does not underflow at small σ.

:class:`SoftLabelModel` is what every model states and answers (its name, settings and
families, soft labels at many σ, certified labels, every t's side of ½, and the
capabilities that fast paths test); Delalleau et al.'s model is :mod:`sslviz.delalleau`.
All models are in one table, :data:`sslviz.registry.MODELS`, with the plug-ins of other
packages (entry-point group ``sslviz.models``; ``docs/extending.md``).

Unlabeled nodes that cannot reach a labeled node through numerically non-zero weights
get f = 1/2, f' = 0 and are reported in ``SoftLabels.degenerate`` (docs/method.md §4.2).

Models are immutable once built (they are shared between threads and app sessions); every
call returns new arrays. The counted solve oracle the loss-curve search and Algorithm 4
call is :class:`sslviz.oracle.LabelOracle`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar, NamedTuple

import numpy as np
import scipy.sparse as sp

from sslviz import _kernels, exact_solves, systems
from sslviz._kernels import UNDERFLOW
from sslviz._threads import one_thread, parallel_map
from sslviz._validation import InvalidParameterError, check_int, check_option, check_real
from sslviz.graphs import (
    Graph,
    build_graph,
    gaussian_weights,
    threshold_weights,
)
from sslviz.solvers import (
    GTHFactorization,
    LinearSolver,
    SparseGTHFactorization,
    cholesky_dense,
    cholesky_dense_solve,
    jacobi,
    lu_dense,
    lu_dense_solve,
    nested_dissection,
    positive_supersolution,
    side_certificate,
    solve_cg,
    top_class_certificate,
)
from sslviz.specs import CERTIFY_CAP, CG_ITERS, SOLVERS

_ALL = slice(None)


@dataclass(frozen=True, eq=False)
class SoftLabels:
    """Soft labels of the unlabeled nodes at one σ, and the work they took.

    Attributes
    ----------
    sigma : float
    f : ndarray of shape (n_unlabeled,)
        Soft labels in the order of ``instance.unlabeled_idx``.
    df : ndarray of shape (n_unlabeled,) or None
        ∂f/∂σ (None when not asked for).
    degenerate : ndarray of shape (n_unlabeled,), bool
        Nodes with no numerically non-zero path to a labeled node (f = 1/2, f' = 0).
    solves, matvecs, factorizations : int
        Linear systems solved, CG matrix-vector products, LU factorisations / inverses.
    status : {'ok', 'underflow', 'gth'}
        'underflow' when some row's unscaled weights were below 1e-290 (CG/PCG only):
        those nodes are reported degenerate rather than solved on noise. 'gth' when the
        LU pivots showed cancellation and the exact solve was redone subtraction-free.
    subset_f : ndarray of shape (n_labeled + m,) or None
        Delalleau only: the solution f of ``A f = λ y`` on L ∪ Ũ (``model.nodes`` order),
        before the Parzen extension; None for the harmonic model.
    subset_df : ndarray of shape (n_labeled + m,) or None
        Delalleau only: ∂f/∂σ on L ∪ Ũ (None when ``df`` is None or for the harmonic model).
    iterations : int
        Certified solves: CG/PCG iterations of f (0 otherwise).
    supersolution : ndarray or None
        Certified solves: the h with L_UU h > 0 behind the certificate (non-degenerate
        nodes), reusable at a nearby σ.
    """

    sigma: float
    f: np.ndarray
    df: np.ndarray | None
    degenerate: np.ndarray
    solves: int
    matvecs: int
    factorizations: int
    status: str = "ok"
    subset_f: np.ndarray | None = None
    subset_df: np.ndarray | None = None
    iterations: int = 0
    supersolution: np.ndarray | None = None


@dataclass(frozen=True, eq=False)
class Scores:
    """One-vs-all scores of the unlabeled nodes at one σ, one column per class
    (docs/method.md §13), and the work they took.

    Attributes
    ----------
    sigma : float
    F : ndarray of shape (n_unlabeled, C)
        F_uc: the soft label of u for "class c against the rest" (the model with the one-hot
        labels of class c); exact rows sum to 1 (the one-hot columns do; t-iteration CG
        per column need not). Predicted class: argmax_c F_uc. Cut-off nodes: 1/C in
        every column.
    dF : ndarray of shape (n_unlabeled, C) or None
        ∂F/∂σ (None when not asked for); 0 on cut-off nodes.
    degenerate : ndarray of shape (n_unlabeled,), bool
        Nodes with no numerically non-zero path to a labeled node (counted wrong).
    solves, matvecs, factorizations : int
        Over every column (see :class:`SoftLabels`).
    status : str
        'gth' when some column's exact solve was redone subtraction-free, 'underflow' when
        some CG row could not be represented, else 'ok'; certified scores: 'certified' or
        'fallback' (:meth:`SoftLabelModel.certified_scores`).
    iterations : int
        Certified scores: CG/PCG iterations of each column (0 otherwise).
    supersolution : ndarray or None
        Certified scores: the h with L_UU h > 0 behind the bounds, reusable nearby.
    """

    sigma: float
    F: np.ndarray
    dF: np.ndarray | None
    degenerate: np.ndarray
    solves: int
    matvecs: int
    factorizations: int
    status: str = "ok"
    iterations: int = 0
    supersolution: np.ndarray | None = None


def _one_hot(y_labeled: np.ndarray, n_classes: int) -> np.ndarray:
    """Y_L, the one-hot (n_labeled, C) labels, stored by columns (each column contiguous)."""
    return np.asfortranarray(y_labeled[:, None] == np.arange(n_classes)[None, :], dtype=float)


def _labeled_rhs(W_UL, Y: np.ndarray) -> np.ndarray:
    """W_UL Y_L (n_u, C), one matrix-vector product per column: each column the bits of the
    binary problem's ``W_UL @ y_l`` (a matrix-matrix product may sum in another order, as
    OpenBLAS's AVX-512 kernels do, and differ from it in the last bit)."""
    return np.column_stack(
        [np.asarray(W_UL @ np.ascontiguousarray(Y[:, c])) for c in range(Y.shape[1])]
    )


def stack_scores(columns: list[SoftLabels]) -> Scores:
    """:class:`Scores` from one :class:`SoftLabels` per class at one σ (column c: the model
    with the one-hot labels of class c): F = [f_0 … f_{C−1}], cut-off nodes (in any
    column) at 1/C with derivative 0, the work summed."""
    C = len(columns)
    F = np.column_stack([sl.f for sl in columns])
    dF = None if columns[0].df is None else np.column_stack([sl.df for sl in columns])
    degenerate = np.logical_or.reduce([sl.degenerate for sl in columns])
    if degenerate.any():
        F[degenerate] = 1.0 / C
        if dF is not None:
            dF[degenerate] = 0.0
    statuses = {sl.status for sl in columns}
    status = next((st for st in ("underflow", "gth") if st in statuses), "ok")
    return Scores(
        columns[0].sigma,
        F,
        dF,
        degenerate,
        sum(sl.solves for sl in columns),
        sum(sl.matvecs for sl in columns),
        sum(sl.factorizations for sl in columns),
        status,
    )


class SearchSystem(NamedTuple):
    """What :func:`sslviz._kernels.cg_search` solves at each σ (from
    :meth:`HarmonicModel.search_system`): a sparse pattern (``d``, ``dl``, ``pattern`` of
    :class:`_HarmonicBatch`) or dense blocks (``dense`` = (D2_UU, D2_UL, y_l)), the other
    empty; ``degenerate`` (n_u,) bool; ``entries``: the stored entries of L_UU (the work of
    a product)."""

    d: np.ndarray
    dl: np.ndarray
    pattern: tuple
    dense: tuple
    degenerate: np.ndarray
    entries: int


def _empty(dtype, ndim: int = 1, writeable: bool = True) -> np.ndarray:
    a = np.zeros((0,) * ndim, dtype)
    a.flags.writeable = writeable
    return a


# The half of a SearchSystem that is not solved, typed as the other half's arrays are (the
# batch's writable, the model's read-only), so cg_search has one signature for both.
_NO_SPARSE = (
    _empty(float),
    _empty(float),
    (*(_empty(np.int64) for _ in range(3)), _empty(float), _empty(bool), _empty(np.int64))
    + (_empty(np.uint64), _empty(np.uint64), _empty(np.int64)),
)
_NO_DENSE = (
    _empty(float, 2, False),
    _empty(float, 2, False),
    _empty(float, 1, False),
)


class _HarmonicBatch:
    """Fixed-t CG/PCG soft labels of a :class:`HarmonicModel` at many σ at once.

    Serves every σ at which no weight underflows (then the degenerate nodes are the
    structural ones and every row sum is representable); the model solves the other σ
    one at a time. All systems L_UU(σ) share one sparsity pattern, so they are solved
    side by side by :func:`sslviz._kernels.harmonic_cg`. Built once with the model (only
    where :func:`_batch_pays`) and never changed.
    """

    _BUDGET = 2_000_000  # weights per chunk of systems (16 MB)

    def __init__(self, model: HarmonicModel) -> None:
        n_u = model.n_unlabeled
        r, c, self.d = systems.edges(model._D2_UU, True)
        rl, cl, self.dl = systems.edges(model._D2_UL, False)
        self.keep = ~model._structural
        self.kept = np.flatnonzero(self.keep)
        nk = self.kept.size
        pos = np.full(n_u, -1)
        pos[self.kept] = np.arange(nk)
        kk = np.flatnonzero(self.keep[r] & self.keep[c])
        # L_kk = diag(deg) − W_kk in CSR over the kept nodes, each row's diagonal first.
        rk = np.r_[np.arange(nk), pos[r[kk]]]
        order = np.argsort(rk, kind="stable")
        L_idx = np.r_[np.arange(nk), pos[c[kk]]][order]
        L_src = np.r_[np.full(nk, -1), kk][order]
        self.pattern = (
            systems.csr_ptr(r, n_u),
            c.astype(np.int64),
            systems.csr_ptr(rl, n_u),
            model.y_l[cl].astype(float),
            self.keep,
            self.kept.astype(np.int64),
            systems.csr_ptr(rk, nk).astype(np.uint64),  # unsigned: no negative-index checks
            L_idx.astype(np.uint64),
            L_src.astype(np.int64),
        )
        self.per_system = max(self.d.size + self.dl.size, 1)
        self._label_cols = cl

    def relabeled(self, y_l: np.ndarray) -> _HarmonicBatch:
        """This batch with the labels ``y_l`` (the model's :meth:`HarmonicModel.relabeled`)."""
        out = copy.copy(self)
        p = self.pattern
        out.pattern = (*p[:3], y_l[self._label_cols].astype(float), *p[4:])
        return out

    def solve(
        self,
        sigmas: np.ndarray,
        solver: str,
        cg_iters: int,
        derivative: bool,
        sides: np.ndarray | None = None,
    ) -> list[SoftLabels | None]:
        """SoftLabels at each σ, or None where a weight underflows (solve it singly).
        ``sides`` (m, t, n_u) bool, if given, gets f > ½ after each iteration (σ by row)."""
        chunk = max(1, self._BUDGET // self.per_system)
        if sides is not None:  # t sides per kept node and system: 16 MB of them a chunk
            chunk = max(1, min(chunk, 16_000_000 // max(cg_iters * self.kept.size, 1)))
        out: list[SoftLabels | None] = []
        for i in range(0, sigmas.size, chunk):
            part = None if sides is None else sides[i : i + chunk]
            out.extend(self._solve(sigmas[i : i + chunk], solver, cg_iters, derivative, part))
        return out

    def _solve(self, sigmas, solver, cg_iters, derivative, sides=None):
        trace = _kernels.NO_TRACE
        if sides is not None:
            trace = np.zeros((cg_iters, self.kept.size, sigmas.size), dtype=bool)
        f, df, ok, mv = _kernels.harmonic_cg(
            self.d, self.dl, sigmas, *self.pattern, cg_iters, solver == "pcg", derivative, trace
        )
        if sides is not None:
            sides[:, :, self.kept] = trace.transpose(2, 0, 1)
        solves = 2 if derivative else 1
        degenerate = ~self.keep
        return [
            SoftLabels(
                float(x),
                f[:, j].copy(),
                df[:, j].copy() if derivative else None,
                degenerate.copy(),
                solves,
                int(mv[j]),
                0,
            )
            if ok[j]
            else None
            for j, x in enumerate(sigmas)
        ]


def _check_sigmas(sigmas, caller: str) -> np.ndarray:
    """``sigmas`` as a 1-d float array, each σ checked positive."""
    out = np.array(sigmas, dtype=float, ndmin=1)
    if not (np.isfinite(out).all() and (out > 0).all()):  # the first bad one says why
        for x in out:
            check_real("sigma", float(x), caller, low=0.0, closed="neither")
    return out


class SoftLabelModel:
    """A labeling model (docs/method.md §3): soft labels f_U(σ) of the unlabeled nodes and
    their σ-derivatives on one instance. A subclass states what it is and what it can do in
    class attributes and methods, and the paths that use a capability test the attribute
    or call the method, never the model's type; :func:`sslviz.checks.check_model` checks a
    subclass. ``docs/extending.md`` walks through writing one.

    What a model is (class attributes):

    ``name``
        What ``--labeling``, the link and the JSON write (lower-case words joined by
        hyphens).
    ``label``
        The model in sentences ("harmonic", "Delalleau").
    ``help``
        One clause of ``--labeling``'s help, in the paper's terms.
    ``reads``
        The labeling settings it reads besides the family (Delalleau's ``("subset",
        "lam")``): their widgets show and they travel in the link only for it. They are
        rows of :class:`sslviz.specs.LabelingSpec`; a model cannot add one.
    ``requirement``, :meth:`accepts`
        The graph families it takes, in words and as a test.
    ``system_label``
        The matrix whose condition number the conditioning page reports ("I − P_UU").

    What every model answers: :meth:`build` (the model of an instance), :meth:`soft_labels`
    (the one method a subclass must write), :meth:`soft_labels_many`,
    :meth:`certified_labels`, :meth:`sides_by_t`, and the attributes ``graph``,
    ``labeled_idx``, ``unlabeled_idx`` and ``n_unlabeled``.

    What it may do faster (each off here, the general path taken instead):

    ``nested_iterates``
        :meth:`sides_by_t` reads every t off one CG run per σ (the CG-iterations page).
    :meth:`batches`
        :meth:`soft_labels_many` solves several σ together.
    :meth:`search_system`
        The system the compiled search solves at every σ (Algorithm 4's fast mode).
    :meth:`certified_labels`
        Sides of ½ proven from an iterative solve (§8); here the exact fallback.
    ``cholesky_exact``
        :meth:`exact_cholesky_many`, exact solves by Cholesky, and with them the Chebyshev
        search of large exact curves (§5.3).
    :meth:`condition_system`
        The symmetric system whose κ the conditioning page reports and CG runs on (§7.1).
    :meth:`soft_labels_at_radius`
        Soft labels on an unweighted graph (the threshold family, §5.5).

    Models are immutable once built (they are shared between threads and app sessions).
    """

    name: ClassVar[str] = ""
    label: ClassVar[str] = ""
    help: ClassVar[str] = ""
    reads: ClassVar[tuple[str, ...]] = ()
    requirement: ClassVar[str] = "any graph family"
    system_label: ClassVar[str] = "the model's system"

    nested_iterates: bool = False
    """Whether :meth:`sides_by_t` reads every t off one run per σ (else: one solve per t)."""

    cholesky_exact: bool = False
    """Whether :meth:`exact_cholesky_many` has a path of its own (Cholesky) that exact
    curve searches may take, the Chebyshev search of large graphs among them."""

    graph_nonzeros: int | None = None
    """Nonzeros of the graph's system a CG product touches (the work counts' unit), where
    it differs from those of :meth:`work_matrix`."""

    sklearn_estimator: ClassVar[str | None] = None
    """The scikit-learn estimator (a class name of ``sklearn.semi_supervised``) whose
    solution this model is on the complete graph with γ = 1/σ², or None
    (:class:`sslviz.sklearn.ExactGammaSearchCV` reads it)."""

    @classmethod
    def accepts(cls, family: Any) -> bool:
        """Whether the model is defined on the graphs of ``family``
        (a :class:`sslviz.families.GraphFamily`)."""
        return True

    @classmethod
    def build(
        cls,
        X: np.ndarray,
        labeled: np.ndarray,
        y: np.ndarray,
        graph: Any,
        labeling: Any,
    ) -> SoftLabelModel:
        """The model of one instance (:func:`sslviz.problem.make_model` calls it).

        Parameters
        ----------
        X : ndarray of shape (n, p)
        labeled : ndarray of shape (n,), bool
        y : ndarray of shape (n,), binary (the labeled entries are read)
        graph : GraphSpec or Graph
            The family's settings, or its graph already built on ``X``.
        labeling : LabelingSpec
            The settings the model reads (``reads``) and the seed.

        Here ``cls(graph, labeled, y)`` on the graph of ``X``; a model built on other
        nodes (Delalleau's subset) overrides it.
        """
        g = graph if isinstance(graph, Graph) else build_graph(X, graph)
        return cls(g, labeled, y)

    @classmethod
    def described(cls, settings: Mapping[str, Any], number: Callable[[float], str]) -> str:
        """The model in a command's summary ("harmonic labeling"), from a document's
        settings (``number`` writes a value as the summary does)."""
        return f"{cls.label} labeling"

    @property
    def n_unlabeled(self) -> int:
        return self.unlabeled_idx.size

    def soft_labels(
        self,
        sigma: float,
        *,
        solver: str = "exact",
        cg_iters: int = CG_ITERS,
        derivative: bool = True,
        x0: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> SoftLabels:
        """Soft labels (and ∂f/∂σ) of the unlabeled nodes at σ, by ``solver`` ('exact' and
        'inverse' exact; 'cg' and 'pcg' ``cg_iters`` iterations from zero, or from ``x0``),
        in the order of ``unlabeled_idx``."""
        raise NotImplementedError

    def soft_labels_at_radius(self, r: float, *, solver: str = "exact") -> SoftLabels:
        """Soft labels on the unweighted graph 1[d_ij ≤ r] (Definition 1a)."""
        raise InvalidParameterError(
            f"The {self.label} labeling has no form on an unweighted graph: pick a "
            "Gaussian graph family."
        )

    def search_system(self, solver: str) -> SearchSystem | None:
        """The system :func:`sslviz._kernels.cg_search` solves at every σ for fixed-t
        ``solver``; None: the search runs in Python on :meth:`soft_labels_many`."""
        return None

    def exact_cholesky_many(self, sigmas) -> list[SoftLabels]:
        """Exact soft labels at each σ (``cholesky_exact``: by a path of the model's own;
        here :meth:`soft_labels_many`)."""
        return self.soft_labels_many(sigmas, solver="exact")

    def condition_system(self, sigma: float) -> tuple[Any, Any, np.ndarray, int] | None:
        """``(S, M, b, cut off)`` at σ: the symmetric matrix whose κ is reported, the one CG
        runs on, its right-hand side, and the number of unlabeled nodes left out (no path to
        L), the matrices over the others; None when the model states no such system (the
        conditioning page then says so)."""
        return None

    def work_matrix(self, sigma: float) -> Any:
        """The matrix whose size and nonzeros measure the work of a solve at σ
        (:func:`sslviz.measure.system_size`): here :meth:`condition_system`'s CG matrix,
        None without one (the unlabeled block, dense, is then assumed)."""
        system = self.condition_system(sigma)
        return None if system is None else system[1]

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
        """Soft labels whose side of 1/2 is proven for every node (docs/method.md §8; see
        the harmonic model). Here the exact fallback: a certificate needs an entrywise
        bound on the system's inverse, which Delalleau's A = λΔ_L + L, for one, does not
        have (not an M-matrix in general)."""
        sl = self.soft_labels(sigma, solver="exact", derivative=derivative)
        return replace(sl, status="fallback")

    def batches(self, solver: str) -> bool:
        """Whether :meth:`soft_labels_many` solves several σ together with ``solver``."""
        return False

    def sides_by_t(self, sigmas, *, solver: str = "cg", iterations: int = CG_ITERS):
        """Which side of ½ each unlabeled node's soft label is on after t = 1..T iterations
        of ``solver`` ('cg' or 'pcg'), at each σ of ``sigmas`` (m,).

        Returns ``(sides, degenerate)``: ``sides`` (m, T, n_u) bool, f_u > ½ after t
        iterations in row t − 1, the same bits as :meth:`soft_labels` with ``cg_iters=t``;
        ``degenerate`` (m, n_u) bool, nodes held at ½ (no path to L, or underflow). Here one
        solve per t; a model with ``nested_iterates`` reads every t off one run per σ (CG's
        iterates are nested).
        """
        sig, iterations = self._sides_args(sigmas, solver, iterations)
        sides = np.zeros((sig.size, iterations, self.n_unlabeled), dtype=bool)
        degenerate = np.zeros((sig.size, self.n_unlabeled), dtype=bool)
        for j, x in enumerate(sig.tolist()):
            for t in range(1, iterations + 1):
                sl = self.soft_labels(x, solver=solver, cg_iters=t, derivative=False)
                sides[j, t - 1] = sl.f > 0.5
            degenerate[j] = sl.degenerate
        return sides, degenerate

    @staticmethod
    def _sides_args(sigmas, solver: str, iterations: int) -> tuple[np.ndarray, int]:
        check_option("solver", solver, "sides_by_t", ("cg", "pcg"))
        iterations = check_int("iterations", iterations, "sides_by_t", low=1)
        return _check_sigmas(sigmas, "sides_by_t"), iterations

    def relabeled(self, y: np.ndarray) -> SoftLabelModel:
        """The same model (graph, labeled set, settings) with the values ``y`` (n,) on its
        labeled nodes (read as :meth:`build` reads its ``y``): the one hook the one-vs-all
        :meth:`scores` needs from a model that is linear in its labels. Here refused: a
        model that cannot be relabeled has no multi-class scores yet."""
        raise InvalidParameterError(
            f"The {self.label} labeling handles two classes yet: give two classes."
        )

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
        """One-vs-all scores F_U(σ) (n_u × C) and ∂F/∂σ at each σ of ``sigmas``
        (docs/method.md §13): column c is this model's soft labels with the one-hot labels
        1[y = c] on the labeled nodes (:meth:`relabeled`), solved by ``solver`` as
        :meth:`soft_labels_many` solves (exact, or ``cg_iters`` iterations of CG/PCG from
        zero per column). For two classes column 1 is :meth:`soft_labels`' f, bit for bit,
        and with an exact solver column 0 is 1 − f to rounding (t iterations of CG per
        column do not add up to 1: the binary problem keeps f > ½, never these scores).

        Parameters
        ----------
        sigmas : float or array-like of shape (m,)
        y : ndarray of shape (n,)
            Class indices in {0, …, C − 1}; only the labeled entries are read.
        n_classes : int
            C ≥ 2.

        Returns
        -------
        list of Scores, one per σ
        """
        y = np.asarray(y)
        per_class = [
            self.relabeled((y == c).astype(float)).soft_labels_many(
                sigmas, solver=solver, cg_iters=cg_iters, derivative=derivative
            )
            for c in range(n_classes)
        ]
        return [stack_scores(list(cols)) for cols in zip(*per_class, strict=True)]

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
        """:meth:`scores` at σ with every node's top class proven (docs/method.md §13; see
        the harmonic model). Here the exact fallback (``status`` 'fallback'), as
        :meth:`certified_labels`."""
        (sc,) = self.scores([sigma], y, n_classes, solver="exact", derivative=derivative)
        return replace(sc, status="fallback")

    @one_thread
    def soft_labels_many(
        self,
        sigmas,
        *,
        solver: str = "exact",
        cg_iters: int = CG_ITERS,
        derivative: bool = True,
    ) -> list[SoftLabels]:
        """:meth:`soft_labels` at each σ of ``sigmas`` (same results, batched where the
        model can share the work)."""
        return [
            self.soft_labels(x, solver=solver, cg_iters=cg_iters, derivative=derivative)
            for x in np.atleast_1d(np.asarray(sigmas, float))
        ]


class HarmonicModel(SoftLabelModel):
    """Harmonic soft labels on a fixed graph and labeled set (Algorithm 2, eqs. (1)–(2);
    docs/method.md §3.1), with every fast path: nested CG iterates, batched and compiled
    solves, the certificate (§8), Cholesky exact solves and the unweighted form.

    Parameters
    ----------
    graph : Graph
        Built on the instance's points (unweighted families use :meth:`soft_labels_at_radius`).
    labeled : ndarray of shape (n,), bool
    y : ndarray of shape (n,)
        Binary labels; only the labeled entries are read.
    """

    name = "harmonic"
    label = "harmonic"
    help = "Harmonic objective (Zhu et al. 2003; Algorithm 2)"
    system_label = "I − P_UU"
    nested_iterates = True
    cholesky_exact = True
    sklearn_estimator = "LabelPropagation"  # hard clamping; its self-loops change nothing

    def __init__(self, graph: Graph, labeled: np.ndarray, y: np.ndarray) -> None:
        labeled = np.asarray(labeled, bool)
        self.graph = graph
        self.labeled_idx = np.flatnonzero(labeled)
        self.unlabeled_idx = np.flatnonzero(~labeled)
        self.y_l = np.asarray(y, float)[self.labeled_idx]
        U, L = self.unlabeled_idx, self.labeled_idx
        self._D2_UU = systems.block(graph.sqdist, U, U)
        self._D2_UL = systems.block(graph.sqdist, U, L)
        if not graph.is_dense and graph.n <= systems.DENSE_MAX:
            # Small sparse graphs run faster dense: non-edges at distance +inf (weight 0).
            self._D2_UU, self._D2_UL = (systems.masked_dense(D) for D in (self._D2_UU, self._D2_UL))
            # Their edges: the weights are computed there only (a few % of the entries).
            self._edges_UU = systems.finite_entries(self._D2_UU, diagonal=False)
            self._edges_UL = systems.finite_entries(self._D2_UL, diagonal=True)
        else:
            self._edges_UU = self._edges_UL = None
        self._shift = graph.row_min_sqdist()[U]
        ones_uu, ones_ul = (
            systems.pattern(D, z) for D, z in ((self._D2_UU, True), (self._D2_UL, False))
        )
        self._n_edges = (systems.count_weights(ones_uu), systems.count_weights(ones_ul))
        # Cut off by the pattern itself: the answer whenever no weight underflows.
        self._structural = systems.unanchored(ones_uu, systems.rowsum(ones_ul) > 0)
        # Built now, not on first use: the model is shared between threads and sessions,
        # so nothing is assigned after construction.
        self._batch = (
            _HarmonicBatch(self) if systems.batch_pays(self._D2_UU, ~self._structural) else None
        )
        # The exact solves' elimination order: the pattern is the same at every σ.
        self._order = nested_dissection(self._D2_UU) if sp.issparse(self._D2_UU) else None
        systems.freeze(
            self.labeled_idx,
            self.unlabeled_idx,
            self.y_l,
            self._D2_UU,
            self._D2_UL,
            self._shift,
            self._structural,
            *([] if self._order is None else [self._order]),
            *([] if self._edges_UU is None else [self._edges_UU, self._edges_UL]),
        )

    def relabeled(self, y: np.ndarray) -> HarmonicModel:
        """This model with ``y[labeled_idx]`` as f_L (the graph, its pattern and every
        precomputed structure shared; the batched CG's labels replaced)."""
        out = copy.copy(self)
        out.y_l = np.asarray(y, float)[self.labeled_idx]
        systems.freeze(out.y_l)
        if self._batch is not None:
            out._batch = self._batch.relabeled(out.y_l)
        return out

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
        """:meth:`SoftLabelModel.scores`; exact solves of dense systems of at most 400
        unknowns share one subtraction-free factorisation (GTH, docs/method.md §4.3) per σ
        for every column of eqs. (1)–(2), and CG-t / PCG-t on dense graphs one assembly of
        the weights and L_UU, where no weight underflows and no node is cut off (elsewhere
        one solve per column, as the general path); the same bits as that path."""
        dense = isinstance(self._D2_UU, np.ndarray) and not self._structural.any()
        gth = solver == "exact" and dense and exact_solves.gth_first("exact", self._D2_UU)
        cg = self._dense_cg(solver) and not self.batches(solver)  # as soft_labels_many
        lu = solver == "exact" and sp.issparse(self._D2_UU) and not self._structural.any()
        if not (gth or cg or lu):
            return super().scores(
                sigmas, y, n_classes, solver=solver, cg_iters=cg_iters, derivative=derivative
            )
        check_int("cg_iters", cg_iters, "scores", low=1)
        y = np.asarray(y)
        Y = _one_hot(y[self.labeled_idx], n_classes)

        def one(x: float) -> Scores:
            if gth:
                sc = self._scores_gth(x, Y, derivative)
            elif cg:
                sc = self._scores_cg(x, Y, derivative, solver, cg_iters)
            else:
                sc = self._scores_lu(x, Y, derivative)
            if sc is None:
                (sc,) = super(HarmonicModel, self).scores(
                    [x], y, n_classes, solver=solver, cg_iters=cg_iters, derivative=derivative
                )
            return sc

        sig = _check_sigmas(sigmas, "scores").tolist()
        # Sparse exact solves of big systems are independent: side by side on the cores.
        return parallel_map(one, sig) if lu else [one(x) for x in sig]

    def _scores_gth(self, sigma: float, Y: np.ndarray, derivative: bool) -> Scores | None:
        """Exact scores at σ from one GTH factorisation
        (:func:`sslviz._kernels.harmonic_gth_dense_scores`; each column the bits of
        :meth:`soft_labels`); None where a weight underflows or a pivot does (the general
        path decides those)."""
        W_UU, W_UL, dW_UU, dW_UL = self.blocks(sigma, row_scaled=True, derivative=derivative)
        empty = np.empty((0, 0))
        F, dF, solves = _kernels.harmonic_gth_dense_scores(
            W_UU,
            W_UL,
            dW_UU if derivative else empty,
            dW_UL if derivative else empty,
            np.ascontiguousarray(Y),
            np.ascontiguousarray(_labeled_rhs(W_UL, Y)),  # NumPy's BLAS, as the general path
            derivative,
            *self._n_edges,
        )
        if solves < 0:
            return None
        dF = dF if derivative else None
        return Scores(sigma, F, dF, self._structural.copy(), solves, 0, 1)

    def _scores_lu(self, sigma: float, Y: np.ndarray, derivative: bool) -> Scores | None:
        """Exact scores at σ on a sparse graph from one LU factorisation for every column,
        each column's solves and refinement those of :meth:`soft_labels` (:meth:`_solve`),
        so the same bits; None where that path would do more for some column (a cut-off
        node, a small pivot, a refinement that does not converge, a label outside [0, 1]:
        the general path, one solve per column, decides those)."""
        W_UU, W_UL, dW_UU, dW_UL = self.blocks(sigma, row_scaled=True, derivative=derivative)
        to_l = systems.rowsum(W_UL)
        deg = systems.rowsum(W_UU) + to_l
        degenerate = self._degenerate(W_UU, W_UL, to_l)
        if degenerate.any():
            return None
        keep = ~degenerate
        M = systems.laplacian_block(deg, W_UU)
        order = self._elimination_order(keep)
        lin = LinearSolver(M, "exact", dominant=True, order=order)
        n_u, C = self.n_unlabeled, Y.shape[1]
        F, dF = np.empty((n_u, C)), np.empty((n_u, C)) if derivative else None
        for c in range(C):
            y_l = np.ascontiguousarray(Y[:, c])
            b = W_UL @ y_l
            f = np.full(n_u, 0.5)
            f[keep] = lin.solve(b[keep])
            if lin.min_pivot < exact_solves.PIVOT_TOL:
                return None
            trusted = exact_solves.refine(f, keep, lin.solve, W_UU, W_UL, y_l=y_l)
            if not trusted or not exact_solves.in_unit(f):
                return None
            F[:, c] = f
            if derivative:
                rhs = systems.derivative_rhs(dW_UU, dW_UL, y_l, f, accurate=True)
                df = np.zeros(n_u)
                df[keep] = lin.solve(rhs[keep])
                exact_solves.refine(df, keep, lin.solve, W_UU, W_UL, rhs=rhs)
                dF[:, c] = df
        return Scores(sigma, F, dF, degenerate, lin.solves, lin.matvecs, lin.factorizations, "ok")

    def _scores_cg(self, sigma: float, Y, derivative: bool, solver: str, cg_iters: int):
        """CG-t or PCG-t scores at σ on a dense graph, the weights and L_UU formed once for
        every column (:func:`sslviz._kernels.harmonic_cg_dense_scores`; each column the bits
        of :meth:`soft_labels`); None where a row underflows or a node is cut off (the
        general path decides those)."""
        F, dF, matvecs = _kernels.harmonic_cg_dense_scores(
            self._D2_UU,
            self._D2_UL,
            np.ascontiguousarray(Y.T),
            sigma,
            cg_iters,
            solver == "pcg",
            derivative,
        )
        if matvecs < 0:
            return None
        solves = Y.shape[1] * (2 if derivative else 1)
        dF = dF if derivative else None
        return Scores(sigma, F, dF, self._structural.copy(), solves, matvecs, 0)

    def search_system(self, solver: str) -> SearchSystem | None:
        """The system :func:`sslviz._kernels.cg_search` solves for fixed-t ``solver`` at
        every σ: the batch's sparse pattern, or the dense blocks where CG and PCG run in
        :func:`sslviz._kernels.harmonic_cg_dense`; None elsewhere (a structurally degenerate
        node: the Python search runs)."""
        if self._batch is not None:
            b = self._batch
            return SearchSystem(b.d, b.dl, b.pattern, _NO_DENSE, ~b.keep, b.pattern[1].size)
        if self._dense_cg(solver):
            dense = (self._D2_UU, self._D2_UL, self.y_l)
            return SearchSystem(*_NO_SPARSE, dense, self._structural.copy(), self._D2_UU.size)
        return None

    def _dense_cg(self, solver: str) -> bool:
        """Whether CG or PCG at one σ runs in :func:`sslviz._kernels.harmonic_cg_dense`: a dense
        graph with no structurally degenerate node (the general path takes the σ where
        underflowing weights cut a node off from L)."""
        return (
            solver in ("cg", "pcg")
            and isinstance(self._D2_UU, np.ndarray)
            and not self._structural.any()
        )

    def _elimination_order(self, keep: np.ndarray) -> np.ndarray | None:
        """:func:`sslviz.solvers.nested_dissection`'s order of the kept unlabeled nodes
        (indices into them), for sparse exact solves; None on dense graphs."""
        if self._order is None:
            return None
        if keep.all():
            return self._order
        rank = np.cumsum(keep) - 1
        return rank[self._order[keep[self._order]]]

    def _degenerate(self, W_UU, W_UL, to_l: np.ndarray) -> np.ndarray:
        """Unlabeled nodes with no numerically non-zero path to a labeled node."""
        if (systems.count_weights(W_UU), systems.count_weights(W_UL)) == self._n_edges:
            return self._structural.copy()
        return systems.unanchored(W_UU, to_l > 0)

    @property
    def n_unlabeled(self) -> int:
        return self.unlabeled_idx.size

    @property
    def batched(self):
        """The batched CG/PCG solver of this graph's fixed pattern (``keep``: the nodes it
        solves for; ``pattern``: its edges), or None where batching does not pay."""
        return self._batch

    @property
    def graph_nonzeros(self) -> int:
        """Nonzeros of L_UU on the graph: its edges among U and the diagonal (|U|² on the
        complete graph, about (k + 1)·|U| on kNN), whatever storage the solvers use (small
        sparse graphs run dense)."""
        return self._n_edges[0] + self.n_unlabeled

    def blocks(self, sigma: float, *, row_scaled: bool, derivative: bool = False):
        """``(W_UU, W_UL, dW_UU, dW_UL)`` at σ (derivatives None unless asked)."""
        shift = self._shift if row_scaled else 0.0
        W_UU, dW_UU = gaussian_weights(self._D2_UU, shift, sigma, derivative, True, self._edges_UU)
        W_UL, dW_UL = gaussian_weights(self._D2_UL, shift, sigma, derivative, False, self._edges_UL)
        return W_UU, W_UL, dW_UU, dW_UL

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
        """Soft labels (and ∂f/∂σ) of the unlabeled nodes at σ.

        Parameters
        ----------
        sigma : float
            Bandwidth σ > 0 (PCA-space distance units).
        solver : {'exact', 'inverse', 'cg', 'pcg'}, default='exact'
            'exact'/'inverse' solve the row-scaled system; 'cg'/'pcg' run ``cg_iters``
            iterations on the symmetric L_UU (docs/method.md §3.1).
        cg_iters : int, default=20
        derivative : bool, default=True
        x0 : (f0, df0), optional
            Warm starts for CG/PCG (ignored by direct solvers).
        """
        sigma = check_real("sigma", sigma, "soft_labels", low=0.0, closed="neither")
        check_option("solver", solver, "soft_labels", SOLVERS)
        if x0 is None and solver in ("cg", "pcg"):
            (sl,) = self.soft_labels_many(
                [sigma], solver=solver, cg_iters=cg_iters, derivative=derivative
            )
            return sl
        return self._soft_labels_one(sigma, solver, cg_iters, derivative, x0)

    def _soft_labels_one(self, sigma, solver, cg_iters, derivative, x0, sides=None) -> SoftLabels:
        if self._dense_cg(solver) and x0 is None:
            trace = _kernels.NO_TRACE_ONE if sides is None else sides
            f, df, matvecs = _kernels.harmonic_cg_dense(
                self._D2_UU,
                self._D2_UL,
                self.y_l,
                sigma,
                cg_iters,
                solver == "pcg",
                derivative,
                trace,
            )
            if matvecs >= 0:
                solves = 2 if derivative else 1
                df = df if derivative else None
                return SoftLabels(sigma, f, df, self._structural.copy(), solves, matvecs, 0)
        direct = solver in ("exact", "inverse")
        W_UU, W_UL, dW_UU, dW_UL = self.blocks(sigma, row_scaled=direct, derivative=derivative)
        if x0 is None and solver == "exact" and isinstance(W_UU, np.ndarray):
            sl = self._solve_dense(sigma, W_UU, W_UL, dW_UU, dW_UL)
            if sl is not None:
                return sl
        return self._solve(sigma, W_UU, W_UL, dW_UU, dW_UL, solver, cg_iters, x0, sides)

    def _solve_dense(self, sigma, W_UU, W_UL, dW_UU, dW_UL):
        """:meth:`_solve` for an exact solve on a dense graph with no degenerate node: the
        same operations (GTH up to ``GTH_DENSE_MAX`` unknowns, else LAPACK getrf/getrs), so
        the same bits, without the solver objects and wrappers (CG's counterpart is
        :func:`sslviz._kernels.harmonic_cg_dense`). None where :meth:`_solve` has more to
        do (a degenerate node, an underflowing row, an LU pivot or a refinement
        (:func:`_refine`) asking for GTH, a GTH pivot that underflowed).
        """
        if self._structural.any() or W_UU.shape[0] == 0:
            return None
        if exact_solves.gth_first("exact", W_UU):
            # GTHFactorization's kernels and eq. (2) in one call, without the wrappers
            derivative = dW_UU is not None
            empty = np.empty((0, 0))
            f, df, solves = _kernels.harmonic_gth_dense(
                W_UU,
                W_UL,
                dW_UU if derivative else empty,
                dW_UL if derivative else empty,
                self.y_l,
                W_UL @ self.y_l,  # NumPy's BLAS, as the general path
                derivative,
                *self._n_edges,
            )
            if solves < 0:
                return None
            df = df if derivative else None
            return SoftLabels(sigma, f, df, self._structural.copy(), solves, 0, 1)
        if (systems.count_weights(W_UU), systems.count_weights(W_UL)) != self._n_edges:
            return None
        solves = 0
        M = -W_UU
        M.flat[:: M.shape[0] + 1] += W_UU.sum(axis=1) + W_UL.sum(axis=1)
        lu, piv, min_pivot = lu_dense(M)

        def solve(v):
            nonlocal solves
            solves += 1
            return lu_dense_solve(lu, piv, v)

        f = solve(W_UL @ self.y_l)
        if min_pivot < exact_solves.PIVOT_TOL or not (
            exact_solves.refine(f, _ALL, solve, W_UU, W_UL, y_l=self.y_l)
            and exact_solves.in_unit(f)
        ):
            return None
        df = None
        if dW_UU is not None:
            rhs = systems.derivative_rhs(dW_UU, dW_UL, self.y_l, f, accurate=True)
            df = solve(rhs)
            exact_solves.refine(df, _ALL, solve, W_UU, W_UL, rhs=rhs)
        return SoftLabels(sigma, f, df, self._structural.copy(), solves, 0, 1)

    def exact_cholesky_many(self, sigmas) -> list[SoftLabels]:
        """Exact soft labels (and ∂f/∂σ) at each σ on a complete graph, by Cholesky of the
        symmetrically scaled system instead of LU of the row-scaled one (half the flops).

        With D the degrees, S = D^{-1/2} L_UU D^{-1/2} = I − K is symmetric positive
        definite; S y = D^{-1/2} b and f = D^{-1/2} y (eq. (1)), and the same for ∂f/∂σ
        (eq. (2)). K_ij = Ŵ_ij p_i q_j from the row-scaled weights Ŵ = e^{(m_i − d_ij²)/σ²}
        (m_i the row's smallest d²) with p_i = e^{−m_i/2σ²}/√d̂_i, q_i = e^{m_i/2σ²}/√d̂_i and
        d̂ the row-scaled degrees, so nothing underflows. The values agree with
        :meth:`soft_labels` to rounding (not to the bit); a σ where this cannot be trusted
        (sparse or degenerate graph, m/σ² > 1000, a pivot below 1e-10, an iterative refinement
        that does not converge (:func:`_refine`), f outside [0, 1]) is
        solved by :meth:`soft_labels`. Used by the Chebyshev search of exact curves.
        """
        return parallel_map(self._exact_cholesky_one, [float(x) for x in sigmas])

    def _exact_cholesky_one(self, sigma: float) -> SoftLabels:
        if not isinstance(self._D2_UU, np.ndarray) or self._structural.any():
            return self._soft_labels_one(sigma, "exact", CG_ITERS, True, None)
        sl = self._solve_cholesky(sigma)
        if sl is not None:
            return sl
        sl = self._soft_labels_one(sigma, "exact", CG_ITERS, True, None)
        if sl.status == "ok" and exact_solves.gth_first("exact", self._D2_UU):
            # Cholesky could not be trusted and GTH solved it (small dense systems go to GTH
            # directly): say so, as the LU path does, so the Chebyshev search leaves the cell.
            sl = replace(sl, status="gth")
        return sl

    def _solve_cholesky(self, sigma: float) -> SoftLabels | None:
        s2 = sigma * sigma
        if self._shift.size == 0 or self._shift.max() / s2 > 1000.0:
            return None
        W_UU, W_UL, dW_UU, dW_UL = self.blocks(sigma, row_scaled=True, derivative=True)
        if (systems.count_weights(W_UU), systems.count_weights(W_UL)) != self._n_edges:
            return None  # an underflowed weight: the general path decides degeneracy
        deg = W_UU.sum(axis=1) + W_UL.sum(axis=1)
        half = 0.5 * self._shift / s2
        p = np.exp(-half) / np.sqrt(deg)
        q = np.exp(half) / np.sqrt(deg)
        S = W_UU * p[:, None]
        S *= -q[None, :]
        np.fill_diagonal(S, 1.0)
        c, min_pivot = cholesky_dense(S.T)  # Fortran order: factored in place
        if min_pivot < exact_solves.PIVOT_TOL:
            return None
        solves = 0

        def solve(v):
            nonlocal solves
            solves += 1
            return q * cholesky_dense_solve(c, p * v)

        f = solve(W_UL @ self.y_l)
        if not (
            exact_solves.refine(f, _ALL, solve, W_UU, W_UL, y_l=self.y_l)
            and exact_solves.in_unit(f)
        ):
            return None
        rhs = systems.derivative_rhs(dW_UU, dW_UL, self.y_l, f, accurate=True)
        df = solve(rhs)
        exact_solves.refine(df, _ALL, solve, W_UU, W_UL, rhs=rhs)
        return SoftLabels(sigma, f, df, self._structural.copy(), solves, 0, 1)

    def batches(self, solver: str) -> bool:
        """True for CG/PCG on a sparse graph: :meth:`soft_labels_many` then solves all σ
        at once (the systems share one sparsity pattern)."""
        return solver in ("cg", "pcg") and self._batch is not None

    @one_thread
    def sides_by_t(self, sigmas, *, solver: str = "cg", iterations: int = CG_ITERS):
        """:meth:`SoftLabelModel.sides_by_t` from one run of ``iterations`` steps per σ,
        on the path :meth:`soft_labels` takes there (so the same bits): the batched kernel,
        the dense kernel or :func:`sslviz.solvers.solve_cg`, each recording f > ½ after
        every iteration."""
        sig, iterations = self._sides_args(sigmas, solver, iterations)
        sides = np.zeros((sig.size, iterations, self.n_unlabeled), dtype=bool)
        out: list[SoftLabels | None] = [None] * sig.size
        if self.batches(solver):
            out = self._batch.solve(sig, solver, iterations, False, sides)
        for j, x in enumerate(sig.tolist()):
            if out[j] is None:  # a weight underflows here: solved on its own
                out[j] = self._soft_labels_one(x, solver, iterations, False, None, sides[j])
        return sides, np.array([sl.degenerate for sl in out]).reshape(sig.size, -1)

    @one_thread
    def soft_labels_many(
        self,
        sigmas,
        *,
        solver: str = "exact",
        cg_iters: int = CG_ITERS,
        derivative: bool = True,
    ) -> list[SoftLabels]:
        """Soft labels at each σ of ``sigmas``; CG/PCG systems are solved all at once
        (a σ where some weight underflows is solved on its own, as :meth:`soft_labels`).
        """
        check_option("solver", solver, "soft_labels", SOLVERS)
        check_int("cg_iters", cg_iters, "soft_labels", low=1)
        sig = _check_sigmas(sigmas, "soft_labels")
        out: list[SoftLabels | None] = [None] * sig.size
        if self.batches(solver):
            out = self._batch.solve(sig, solver, cg_iters, derivative)
        todo = [x for x, sl in zip(sig.tolist(), out, strict=True) if sl is None]

        def one(x: float) -> SoftLabels:
            return self._soft_labels_one(x, solver, cg_iters, derivative, None)

        # Direct solves of big systems are independent: side by side on the cores.
        big = solver in ("exact", "inverse") and self.n_unlabeled >= exact_solves.PARALLEL_MIN
        done = iter(parallel_map(one, todo) if big else [one(x) for x in todo])
        return [sl if sl is not None else next(done) for sl in out]

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
        """Iterative soft labels with every node's side of 1/2 proven (docs/method.md §8).

        ``cg_iters`` iterations of ``solver`` ('cg' or 'pcg') from zero on eq. (1), then
        more (the budget doubling, warm-started) until :func:`sslviz.solvers.side_certificate`
        proves every node's side, or ``cap`` iterations in all; past the cap, or where a
        weight is not representable unscaled, the exact solve (``status`` 'fallback').
        ``status`` 'certified' otherwise, with ``iterations`` the CG iterations of f.
        ∂f/∂σ: CG on eq. (2) to a relative residual of 1e-8 (at most ``cap`` iterations).
        Degenerate nodes (no path to L) are excluded, so L_UU of the rest is a nonsingular
        M-matrix and the certificate applies; they sit at 1/2, as in the exact solve.

        On a dense graph the cap is also held to n/6 iterations, about the cost of the LU
        factorisation that the fallback runs. ``h0``: a supersolution from a nearby σ
        (``SoftLabels.supersolution``), reused when A h0 > 0 still holds here.
        ``attempt=False`` goes straight to the exact fallback (no iterations).
        """

        def fallback() -> SoftLabels:
            sl = self._soft_labels_one(sigma, "exact", cg_iters, derivative, None)
            return replace(sl, status="fallback")

        if not attempt:
            return fallback()
        system = self._certify_system(sigma, derivative)
        if system is None:
            return fallback()
        (W_UU, W_UL, dW_UU, dW_UL), A, degenerate = system
        keep = ~degenerate
        b = (W_UL @ self.y_l)[keep]
        if isinstance(A, np.ndarray):
            cap = min(cap, max(cg_iters, A.shape[0] // 6))
        pre = jacobi(A) if solver == "pcg" and A.shape[0] else None
        first = solve_cg(A, b, maxiter=cg_iters, rtol=0.0, M=pre)
        x, used, matvecs, solves = first.x, cg_iters, first.matvecs, 1
        cert = None
        if h0 is not None and h0.shape == x.shape:
            h = h0
            cert = side_certificate(A, b, x, h)
            matvecs += 4  # the certificate: A x, |A||x|, A h, |A||h|
        if cert is None or not cert.valid:
            h, mv = positive_supersolution(A, maxiter=cap, M=pre)
            cert = side_certificate(A, b, x, h)
            matvecs += mv + 4
        while not cert.all and used < cap:
            step = min(used, cap - used)
            more = solve_cg(A, b, x, maxiter=step, rtol=0.0, M=pre)
            x, used, matvecs, solves = more.x, used + step, matvecs + more.matvecs + 4, solves + 1
            cert = side_certificate(A, b, x, h)
        if not cert.all:
            sl = self._soft_labels_one(sigma, "exact", cg_iters, derivative, None)
            return replace(
                sl,
                status="fallback",
                matvecs=sl.matvecs + matvecs,
                solves=sl.solves + solves,
                iterations=used,
                supersolution=h if cert.valid else None,
            )
        f = np.full(self.n_unlabeled, 0.5)
        f[keep] = x
        df = None
        if derivative:
            rhs = systems.derivative_rhs(dW_UU, dW_UL, self.y_l, f, accurate=True)[keep]
            d = solve_cg(A, rhs, maxiter=cap, rtol=1e-8, M=pre)
            df = np.zeros(self.n_unlabeled)
            df[keep] = d.x
            matvecs, solves = matvecs + d.matvecs, solves + 1
        return SoftLabels(
            sigma,
            f,
            df,
            degenerate,
            solves,
            matvecs,
            0,
            "certified",
            iterations=used,
            supersolution=h,
        )

    def _certify_system(self, sigma: float, derivative: bool):
        """``(blocks, A, degenerate)`` of the certified solves at σ: the unscaled blocks,
        L_UU over the nodes not cut off, and the cut-off nodes; None where a weight is not
        representable unscaled (the exact fallback then)."""
        W_UU, W_UL, dW_UU, dW_UL = self.blocks(sigma, row_scaled=False, derivative=derivative)
        to_l = systems.rowsum(W_UL)
        deg = systems.rowsum(W_UU) + to_l
        if (systems.count_weights(W_UU), systems.count_weights(W_UL)) != self._n_edges or np.any(
            deg < UNDERFLOW
        ):
            return None
        degenerate = self._structural.copy()
        keep = ~degenerate
        A = systems.laplacian_block(deg, W_UU)
        if degenerate.any():
            A = A[np.ix_(keep, keep)] if isinstance(A, np.ndarray) else A[keep][:, keep]
        return (W_UU, W_UL, dW_UU, dW_UL), A, degenerate

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
        """One-vs-all scores with every node's top class proven (docs/method.md §13).

        Each column runs ``cg_iters`` iterations of ``solver`` from zero on eq. (1) with
        its one-hot labels, then more, the budget doubling and warm-started, until
        :func:`sslviz.solvers.top_class_certificate` proves every node's top class (the
        M-matrix bound of §8.1 per column, one supersolution for all: the matrix is the
        same), or ``cap`` iterations in all; past the cap, or where a weight is not
        representable unscaled, the exact scores (``status`` 'fallback'). ∂F/∂σ: CG on
        eq. (2) per column to a relative residual of 1e-8. Cut-off nodes sit at 1/C. On a
        dense graph the cap is also held to n/6 iterations, as :meth:`certified_labels`.
        """
        y = np.asarray(y)

        def fallback(**work) -> Scores:
            (sc,) = self.scores([sigma], y, n_classes, solver="exact", derivative=derivative)
            extra = {k: getattr(sc, k) + v for k, v in work.items() if k != "iterations"}
            return replace(sc, status="fallback", iterations=work.get("iterations", 0), **extra)

        if not attempt:
            return fallback()
        system = self._certify_system(sigma, derivative)
        if system is None:
            return fallback()
        (W_UU, W_UL, dW_UU, dW_UL), A, degenerate = system
        keep = ~degenerate
        Y = _one_hot(y[self.labeled_idx], n_classes)
        B = np.asfortranarray(_labeled_rhs(W_UL, Y)[keep])  # columns contiguous
        if isinstance(A, np.ndarray):
            cap = min(cap, max(cg_iters, A.shape[0] // 6))
        pre = jacobi(A) if solver == "pcg" and A.shape[0] else None
        X = np.zeros_like(B)
        matvecs = solves = 0
        for c in range(n_classes):
            run = solve_cg(A, B[:, c], maxiter=cg_iters, rtol=0.0, M=pre)
            X[:, c], matvecs, solves = run.x, matvecs + run.matvecs, solves + 1
        used = cg_iters
        cert = None
        if h0 is not None and h0.shape == (A.shape[0],):
            h = h0
            cert = top_class_certificate(A, B, X, h)
            matvecs += 4 * n_classes
        if cert is None or not cert.valid:
            h, mv = positive_supersolution(A, maxiter=cap, M=pre)
            cert = top_class_certificate(A, B, X, h)
            matvecs += mv + 4 * n_classes
        while not cert.all and used < cap:
            step = min(used, cap - used)
            for c in range(n_classes):
                more = solve_cg(A, B[:, c], X[:, c], maxiter=step, rtol=0.0, M=pre)
                X[:, c], matvecs, solves = more.x, matvecs + more.matvecs + 4, solves + 1
            used += step
            cert = top_class_certificate(A, B, X, h)
        if not cert.all:
            sc = fallback(matvecs=matvecs, solves=solves, iterations=used)
            return replace(sc, supersolution=h if cert.valid else None)
        F = np.full((self.n_unlabeled, n_classes), 1.0 / n_classes, order="F")
        F[keep] = X
        dF = None
        if derivative:
            dF = np.zeros_like(F)
            for c in range(n_classes):
                rhs = systems.derivative_rhs(dW_UU, dW_UL, Y[:, c], F[:, c], accurate=True)
                d = solve_cg(A, rhs[keep], maxiter=cap, rtol=1e-8, M=pre)
                dF[keep, c], matvecs, solves = d.x, matvecs + d.matvecs, solves + 1
        return Scores(
            sigma,
            F,
            dF,
            degenerate,
            solves,
            matvecs,
            0,
            "certified",
            iterations=used,
            supersolution=h,
        )

    @one_thread
    def soft_labels_at_radius(self, r: float, *, solver: str = "exact") -> SoftLabels:
        """Soft labels on the unweighted graph 1[d_ij ≤ r] (Definition 1a)."""

        W_UU = threshold_weights(self._D2_UU, r, True)
        W_UL = threshold_weights(self._D2_UL, r, False)
        return self._solve(r, W_UU, W_UL, None, None, solver, 20, None)

    def _solve(self, sigma, W_UU, W_UL, dW_UU, dW_UL, solver, cg_iters, x0, sides=None):
        n_u = self.n_unlabeled
        to_l = systems.rowsum(W_UL)
        deg = systems.rowsum(W_UU) + to_l
        status = "ok"
        degenerate = self._degenerate(W_UU, W_UL, to_l)
        if solver in ("cg", "pcg") and np.any(deg < UNDERFLOW):
            # The unscaled symmetric system cannot hold these rows: say so, don't solve noise.
            status = "underflow"
            degenerate = degenerate | (deg < UNDERFLOW)
        f = np.full(n_u, 0.5)
        df = np.zeros(n_u) if dW_UU is not None else None
        keep = ~degenerate
        b = W_UL @ self.y_l
        if degenerate.any():
            b = b + 0.5 * (W_UU[:, degenerate] @ np.ones(degenerate.sum()))
        M = systems.laplacian_block(deg, W_UU)
        if degenerate.any():
            M = M[np.ix_(keep, keep)] if isinstance(M, np.ndarray) else M[keep][:, keep]
        order = self._elimination_order(keep) if sp.issparse(M) else None
        lin = LinearSolver(M, solver, cg_iters=cg_iters, dominant=True, order=order)
        f0 = df0 = None
        if x0 is not None and solver in ("cg", "pcg"):
            f0, df0 = (None if v is None else np.asarray(v)[keep] for v in x0)
        gth_first = exact_solves.gth_first(solver, M)
        refine = not gth_first and solver == "exact"
        trusted = True
        if not gth_first:
            traced = sides is not None and solver in ("cg", "pcg")
            done: list[np.ndarray] = []  # f > ½ after each CG iteration (for ``sides``)
            f[keep] = lin.solve(  # an exactly singular LU: GTH redoes it below
                b[keep], f0, callback=(lambda x: done.append(x > 0.5)) if traced else None
            )
            if traced:
                sides[:] = False  # the nodes held at ½
                for it, side in enumerate(done):
                    sides[it, keep] = side
                sides[len(done) :, keep] = f[keep] > 0.5  # stopped early: f stays
            if refine and lin.min_pivot >= exact_solves.PIVOT_TOL:
                trusted = exact_solves.refine(f, keep, lin.solve, W_UU, W_UL, y_l=self.y_l)
        if gth_first or (
            solver in ("exact", "inverse")
            and (
                lin.min_pivot < exact_solves.PIVOT_TOL or not trusted or not exact_solves.in_unit(f)
            )
        ):
            # Small dense systems, or LU pivots showing cancellation (a cluster that barely
            # leaks to the labeled set): subtraction-free. The leak is the weight to L and
            # to the nodes fixed at ½.
            leak = to_l + (systems.rowsum(W_UU[:, degenerate]) if degenerate.any() else 0.0)
            W_kk = (
                W_UU[np.ix_(keep, keep)] if isinstance(W_UU, np.ndarray) else (W_UU[keep][:, keep])
            )
            gth = (
                SparseGTHFactorization(W_kk, leak[keep], order)
                if sp.issparse(W_kk)
                else GTHFactorization(W_kk, leak[keep])
            )
            lin = exact_solves.GTHSolver(gth, lin)
            refine = False
            f[keep] = lin.solve(b[keep])
            status = status if gth_first else "gth"
            if gth.cut.any():  # links lost to underflow: reported, held at 1/2
                degenerate = degenerate.copy()
                degenerate[np.flatnonzero(keep)[gth.cut]] = True
        if dW_UU is not None:
            exact = solver in ("exact", "inverse")
            rhs = systems.derivative_rhs(dW_UU, dW_UL, self.y_l, f, accurate=exact)
            df[keep] = lin.solve(rhs[keep], df0)
            if refine:
                exact_solves.refine(df, keep, lin.solve, W_UU, W_UL, rhs=rhs)
            df[degenerate] = 0.0
        return SoftLabels(
            sigma, f, df, degenerate, lin.solves, lin.matvecs, lin.factorizations, status
        )

    def laplacian_system(self, sigma: float):
        """``(L_UU, b)`` of eq. (1), ``L_UU f_U = b = W_UL f_L``, at σ with unscaled weights.

        The symmetric positive (semi)definite system CG/PCG run on (docs/method.md §3.1), for every
        unlabeled node (degenerate ones included; see :meth:`system` to drop them).

        Parameters
        ----------
        sigma : float
            Bandwidth σ > 0 (PCA-space distance units).

        Returns
        -------
        L_UU : ndarray or csr_matrix of shape (n_unlabeled, n_unlabeled)
            ``diag(W_UU 1 + W_UL 1) − W_UU``.
        b : ndarray of shape (n_unlabeled,)
            ``W_UL f_L``.
        """
        W_UU, W_UL, _, _ = self.blocks(sigma, row_scaled=False)
        return systems.laplacian_block(
            systems.rowsum(W_UU) + systems.rowsum(W_UL), W_UU
        ), W_UL @ self.y_l

    def system(self, sigma: float):
        """Symmetric D_UU^{-1/2} L_UU D_UU^{-1/2} at σ, built in the log domain so no scale
        underflows; rows of degenerate nodes removed. Same spectrum as I − P_UU (§6).

        Returns
        -------
        S : ndarray or csr_matrix of shape (m, m)
        degenerate : ndarray of shape (n_unlabeled,), bool
        """
        W_UU, W_UL, _, _ = self.blocks(sigma, row_scaled=True)
        to_l = systems.rowsum(W_UL)
        degenerate = self._degenerate(W_UU, W_UL, to_l)
        keep = ~degenerate
        # log d_i (unscaled) = log(scaled row sum) - rowmin_i / σ²
        with np.errstate(divide="ignore"):  # isolated nodes are degenerate, dropped below
            logd = np.log(systems.rowsum(W_UU) + to_l) - self._shift / sigma**2
        half = 0.5 * logd
        if isinstance(self._D2_UU, np.ndarray):
            with np.errstate(over="ignore", invalid="ignore"):  # diagonal/isolated rows
                K = np.exp(-self._D2_UU / sigma**2 - half[:, None] - half[None, :])
            np.fill_diagonal(K, 0.0)
            S = np.eye(K.shape[0]) - K
            return S[np.ix_(keep, keep)], degenerate
        D2 = self._D2_UU
        rows = np.repeat(np.arange(D2.shape[0]), np.diff(D2.indptr))
        k = np.exp(-D2.data / sigma**2 - half[rows] - half[D2.indices])
        S = (
            sp.identity(D2.shape[0], format="csr")
            - sp.csr_matrix((k, D2.indices, D2.indptr), D2.shape)
        ).tocsr()
        return S[keep][:, keep].tocsr(), degenerate

    def condition_system(self, sigma: float):
        """``(S, L_UU, b, cut off)`` at σ: S of :meth:`system`, whose κ is κ(I − P_UU)
        (docs/method.md §7.1), and eq. (1) of :meth:`laplacian_system`, both over the nodes
        with a path to L."""
        S, deg = self.system(sigma)
        M, b = self.laplacian_system(sigma)
        keep = ~deg
        M = M[np.ix_(keep, keep)] if isinstance(M, np.ndarray) else M[keep][:, keep]
        return S, M, b[keep], int(deg.sum())

    def work_matrix(self, sigma: float):
        """L_UU of eq. (1), every unlabeled node (stored dense where the solvers run dense)."""
        return self.laplacian_system(sigma)[0]
