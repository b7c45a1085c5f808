"""The estimate l̃_t(σ) for every t ≤ T against the exact loss l(σ) (the t-scrubber).

CG's iterates are nested: the first t iterations of a run from zero are a t-iteration run.
One run of T iterations per σ therefore gives the t-iteration soft labels for every t ≤ T,
the same bits as T separate runs (:meth:`sslviz.labeling.HarmonicModel.sides_by_t`). They
are read at the σ of a grid and at the middle of every piece of the exact loss curve, for
CG and for Jacobi-PCG, and compared with the exact labels there:

- l̃_t(σ), the share of U that t iterations misclassify (the loss Algorithm 4 estimates
  with t iterations at that σ);
- the nodes on the other side of ½ than the exact solution;
- the breakpoints CG-t misses: a true breakpoint b is *missed at t* when a node that flips
  at b is on its wrong side at b − tol or at b + tol (tol = 10⁻³ σ, the scoring
  tolerance), so CG-t does not flip it within tol of b as the truth does; where it is
  right on both, t iterations put a crossing of ½ within tol of b for Algorithm 4 to find.

Nothing here is recomputed while t changes: every t is in the arrays.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from sslviz._validation import check_int, check_option, check_real
from sslviz.specs import ConvergenceView, ScoreSettings, default, setting
from sslviz.truth import LossCurve

SOLVERS = ("cg", "pcg")
"""The iterative solvers traced: CG and Jacobi-preconditioned CG."""
SOLVER_NAMES = {"cg": "CG", "pcg": "Jacobi-PCG"}
"""Each traced solver as the sentences and the figure name it."""
TOL = default(ScoreSettings, "tol")
"""How near (σ units) a crossing must be to a true breakpoint to find it (the scorer's)."""
GRID = 120
"""σ read between σ_min and σ_max besides the middle of every exact piece."""
T_MAX = setting(ConvergenceView, "iterations").rule.high
"""The largest T (the bound of the page's control)."""


@dataclass(frozen=True, eq=False)
class Convergence:
    """l̃_t and its errors for t = 1..T, per solver (:func:`convergence`).

    Attributes
    ----------
    sigmas : ndarray of shape (m,)
        The σ read, sorted (:func:`reading_points`).
    exact : ndarray of shape (m,)
        l(σ) there (share of U misclassified by the exact solution).
    breakpoints : ndarray of shape (B,)
        The exact curve's breakpoints.
    loss : dict of str to ndarray of shape (T, m)
        Per solver, l̃_t(σ) in row t − 1.
    wrong_nodes : dict of str to ndarray of shape (T, m), int
        Per solver, the nodes whose t-iteration side of ½ is not the exact one.
    missed : dict of str to ndarray of shape (T, B), bool
        Per solver, the breakpoints missed at t (see the module's docstring).
    tol : float
        A breakpoint b counts as found at t when its nodes are right at b ∓ tol (σ units).
    seconds : float
        Time of the runs (not of the exact curve, given).
    """

    sigmas: np.ndarray
    exact: np.ndarray
    breakpoints: np.ndarray
    loss: dict
    wrong_nodes: dict
    missed: dict
    tol: float
    seconds: float

    @property
    def iterations(self) -> int:
        """T, the longest run."""
        return next(iter(self.loss.values())).shape[0]

    @property
    def solvers(self) -> tuple[str, ...]:
        return tuple(self.loss)

    def misses(self, solver: str) -> np.ndarray:
        """Breakpoints missed at t = 1..T, shape (T,)."""
        return self.missed[solver].sum(axis=1)

    def no_miss_from(self, solver: str) -> int | None:
        """The smallest t from which no breakpoint is missed through T (None: not by T)."""
        return _settled(self.misses(solver) == 0)

    def all_right_from(self, solver: str) -> int | None:
        """The smallest t from which every node is on its exact side at every σ read,
        through T (None: not by T)."""
        return _settled(self.wrong_nodes[solver].sum(axis=1) == 0)

    def settled_words(self, solver: str) -> str:
        """:meth:`all_right_from` in words: "from t = 34 on", or "not by t = 150"."""
        k = self.all_right_from(solver)
        return f"from t = {k} on" if k is not None else f"not by t = {self.iterations}"

    def reading(self, t: int, comparisons=(), trust=None) -> str:
        """The view in words: each solver's own misses at ``t`` (or, for a solver in
        ``comparisons``, its :meth:`MissComparison.sentence` against Algorithm 4), the t
        from which every node stays on its exact side at every σ read, and, with ``trust``
        (the trust panel's :class:`~sslviz.conditioning.TrustCurve` on the loss and
        conditioning pages' grid), the t needed on that grid, which reads no σ right beside
        a breakpoint (all numbers from these results)."""
        t = check_int("t", t, "Convergence.reading", low=1, high=self.iterations)
        b = self.breakpoints.size
        by = {c.solver: c for c in comparisons}
        at = []
        for s in self.solvers:
            wrong = int(np.count_nonzero(self.wrong_nodes[s][t - 1]))
            right = (
                f"{wrong} of the {self.sigmas.size} σ read have a node on the wrong side at t = {t}"
            )
            if s in by:
                at.append(f"{by[s].sentence()[:-1]} ({right}).")
            else:
                at.append(
                    f"{SOLVER_NAMES[s]}-{t}'s own soft labels miss {int(self.misses(s)[t - 1])} "
                    f"of the {b} breakpoint{'s' * (b != 1)} ({right})."
                )
        settled = ", ".join(f"{SOLVER_NAMES[s]} {self.settled_words(s)}" for s in self.solvers)
        out = (
            " ".join(at) + " Every node stays on its exact side at every σ read (these include "
            f"σ just {self.tol:g} either side of every breakpoint, where margins are smallest): "
            f"{settled}."
        )
        if trust is not None:
            out += (
                f" On the trust panel's grid ({trust.grid_words()}, as the loss and "
                f"conditioning pages), the t that puts every node on its exact side is "
                f"{trust.needed_words('cg')} for CG and {trust.needed_words('pcg')} for "
                "Jacobi-PCG."
            )
        return out


@dataclass(frozen=True)
class MissComparison:
    """The breakpoints CG-t's own soft labels miss (:attr:`Convergence.missed`) against the
    breakpoints Algorithm 4 with the same solver and t misses (its score, as the loss page
    shows it), as sets of breakpoint indices (:func:`compare_misses`).

    The two differ on purpose (docs/method.md, "Missed at t"): the first is the solver's
    alone; Algorithm 4's also depends on its search, which can find a breakpoint whose
    node CG-t puts on the wrong side (an endpoint of another crossing lies within the
    tolerance) and can miss one whose node CG-t puts right on both sides (it did not find
    that crossing).
    """

    solver: str
    label: str
    breakpoints: int
    own: frozenset
    algorithm4: frozenset
    tol: float

    @property
    def found_anyway(self) -> frozenset:
        """Missed by the solver's labels, found by Algorithm 4's intervals."""
        return self.own - self.algorithm4

    @property
    def search_missed(self) -> frozenset:
        """Found by the solver's labels, missed by Algorithm 4's search."""
        return self.algorithm4 - self.own

    def sentence(self) -> str:
        """Both counts in one sentence, and why they differ when they do."""
        b, lab = self.breakpoints, self.label
        head = f"{lab}'s own soft labels miss {len(self.own)} of the {b} breakpoint{'s' * (b != 1)}"
        if self.own == self.algorithm4:
            return (
                f"{head}, and Algorithm 4 with {lab} (its intervals, as on the loss page) "
                "misses the same ones."
            )
        why = []
        if self.found_anyway:
            k = len(self.found_anyway)
            why.append(
                f"it finds {k} of those anyway, because an endpoint of another crossing lies "
                f"within {self.tol:g} of {'them' if k > 1 else 'it'}"
            )
        if self.search_missed:
            k = len(self.search_missed)
            why.append(
                f"it misses {k} more, where {lab}'s labels are right on both sides: its "
                f"search did not find {'those crossings' if k > 1 else 'that crossing'}"
            )
        return (
            f"{head}; Algorithm 4 with {lab} (its intervals, as on the loss page) misses "
            f"{len(self.algorithm4)}: " + ", and ".join(why) + "."
        )


def compare_misses(conv: Convergence, solver: str, t: int, score) -> MissComparison:
    """The breakpoints ``solver`` misses at ``t`` by its own labels (``conv``) against those
    Algorithm 4 with it misses (``score``: :func:`sslviz.intervals.score` of its sweep on
    the same exact curve, with the same solver and ``cg_iters = t``)."""
    check_option("solver", solver, "compare_misses", conv.solvers)
    t = check_int("t", t, "compare_misses", low=1, high=conv.iterations)
    s = score.settings
    if s is not None and (s.solver, s.cg_iters) != (solver, t):
        raise ValueError(
            f"compare_misses: the score is of {s.label}, not of {solver.upper()}-{t}; score "
            "the sweep of the same solver and t."
        )
    index = {float(b): i for i, b in enumerate(conv.breakpoints)}
    missed = [index.get(float(x)) for x, _ in score.misses]
    if None in missed or score.true_breakpoints != conv.breakpoints.size:
        raise ValueError(
            "compare_misses: the score was computed on another exact curve; score the sweep "
            "against the curve the convergence was read on."
        )
    label = s.label if s is not None else f"{solver.upper()}-{t}"
    return MissComparison(
        solver=solver,
        label=("certified " if s is not None and s.certify else "") + label,
        breakpoints=int(conv.breakpoints.size),
        own=frozenset(int(i) for i in np.flatnonzero(conv.missed[solver][t - 1])),
        algorithm4=frozenset(missed),
        tol=conv.tol,
    )


def _settled(ok: np.ndarray) -> int | None:
    """1 + the index from which ``ok`` holds to the end, or None when its last is False."""
    if ok.size == 0 or not ok[-1]:
        return None
    bad = np.flatnonzero(~ok)
    return int(bad[-1]) + 2 if bad.size else 1


def reading_points(
    truth: LossCurve, grid: int = GRID, tol: float = TOL, also=()
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(sigmas, left, right)``: the σ read (sorted, unique: a grid, the middle of every
    exact piece, b ∓ ``tol`` for every breakpoint b within the range, and the σ of ``also``
    in it) and, per breakpoint, the σ just left and just right of it (in ``sigmas``)."""
    edges = truth.loss.edges
    b = truth.breakpoints
    left = np.maximum(b - tol, edges[0])
    right = np.minimum(b + tol, edges[-1])
    middles = 0.5 * (edges[:-1] + edges[1:])
    also = np.asarray(also, dtype=float)
    also = also[(also >= edges[0]) & (also <= edges[-1])]
    sigmas = np.unique(np.r_[np.linspace(edges[0], edges[-1], grid), middles, left, right, also])
    return sigmas, left, right


def exact_wrong(truth: LossCurve, sigmas: np.ndarray) -> np.ndarray:
    """Which unlabeled nodes the exact solution misclassifies at each σ, (m, n_u) bool,
    read off the curve: the first piece's set, toggled by the nodes of each breakpoint
    passed (a σ on a breakpoint takes the piece to its right)."""
    wrong = truth.wrong_at_start.copy()
    on_piece = [wrong.copy()]
    for nodes in truth.nodes:
        wrong[np.asarray(nodes, dtype=int)] ^= True
        on_piece.append(wrong.copy())
    index = np.searchsorted(truth.breakpoints, sigmas, side="right")
    return np.array(on_piece)[index]


def convergence(
    model,
    y_unlabeled: np.ndarray,
    truth: LossCurve,
    *,
    iterations: int = default(ConvergenceView, "iterations"),
    solvers=SOLVERS,
    grid: int = GRID,
    tol: float = TOL,
    also=(),
) -> Convergence:
    """l̃_t(σ) for t = 1..``iterations`` from one run per σ and solver, against ``truth``.

    Parameters
    ----------
    model : SoftLabelModel
        The model ``truth`` was computed on.
    y_unlabeled : ndarray of shape (n_u,)
        True labels (0/1) of the unlabeled nodes.
    truth : LossCurve
        The exact loss curve (:func:`sslviz.truth.true_loss_curve`).
    iterations : int, default=ConvergenceView's default
        T (1 to :data:`T_MAX`).
    solvers : sequence of {'cg', 'pcg'}
    grid : int, default=GRID
        σ read evenly on the curve's range, besides the middle of every piece.
    tol : float, default=TOL
        A breakpoint is found at t when its nodes are right at b ∓ tol (σ units).
    also : sequence of float
        More σ to read, e.g. those a sweep evaluated (``Sweep.curve.evaluations``).
    """
    iterations = check_int("iterations", iterations, "convergence", low=1, high=T_MAX)
    grid = check_int("grid", grid, "convergence", low=2)
    tol = check_real("tol", tol, "convergence", low=0.0, closed="neither")
    if not truth.exact:
        raise ValueError("convergence: truth must be the exact loss curve (solver 'exact').")
    y1 = np.asarray(y_unlabeled) == 1
    sigmas, left, right = reading_points(truth, grid, tol, also)
    wrong_exact = exact_wrong(truth, sigmas)
    at_left, at_right = np.searchsorted(sigmas, left), np.searchsorted(sigmas, right)
    flips = [np.asarray(nodes, dtype=int) for nodes in truth.nodes]
    start = time.perf_counter()
    loss, wrong_nodes, missed = {}, {}, {}
    for solver in solvers:
        sides, degenerate = model.sides_by_t(sigmas, solver=solver, iterations=iterations)
        wrong = degenerate[:, None, :] | (sides != y1)  # (m, T, n_u)
        off = wrong != wrong_exact[:, None, :]
        loss[solver] = wrong.mean(axis=2).T
        wrong_nodes[solver] = off.sum(axis=2).T
        missed[solver] = np.zeros((iterations, len(flips)), dtype=bool)
        for b, u in enumerate(flips):  # a node of b on its wrong side left or right of b
            missed[solver][:, b] = (off[at_left[b]][:, u] | off[at_right[b]][:, u]).any(axis=1)
    return Convergence(
        sigmas=sigmas,
        exact=wrong_exact.mean(axis=1),
        breakpoints=truth.breakpoints.copy(),
        loss=loss,
        wrong_nodes=wrong_nodes,
        missed=missed,
        tol=tol,
        seconds=time.perf_counter() - start,
    )


__all__ = [
    "SOLVERS",
    "SOLVER_NAMES",
    "Convergence",
    "MissComparison",
    "compare_misses",
    "convergence",
    "exact_wrong",
    "reading_points",
]
