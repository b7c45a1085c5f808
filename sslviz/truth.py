"""The exact loss curve l(σ) and its breakpoints (DESIGN §5.1).

l(σ) — the fraction of unlabeled nodes misclassified by 1[f_u(σ) > 1/2] — changes only
where some f_u(σ) = 1/2 (or where a node's link to the labeled set underflows, §4.3).
:func:`true_loss_curve` finds every such σ on [σ_min, σ_max]:

1. exact soft labels and derivatives (row-scaled LU, eqs. (1)–(2)) on a geometric grid
   with ratio ``grid_ratio`` between neighbours;
2. each grid interval is split while some node's cubic Hermite interpolant of
   h_u = f_u − 1/2 (built from values and exact derivatives at both ends) has a sign
   pattern the end values do not explain, or dips towards zero inside the interval — this is
   what catches a pair of crossings between two grid points;
3. every sign change is refined by safeguarded Newton (exact derivative, bisection
   fallback) until the bracket or the Newton step is below ``rtol``·σ.

Residual risk: a pair of crossings closer together than the Hermite test can see (the
cubic misses a dip narrower than the grid interval and deeper than ``touch``) is not
found. The loss on every piece is checked against every grid evaluation; disagreements
are counted in ``LossCurve.inconsistent`` (0 on every instance we have run).

The same search runs on any solver (:attr:`LossCurve.solver`): with CG/PCG it finds every
crossing of the *approximate* f_u − 1/2, the fast mode of Algorithm 4, and the result is an
approximate curve (``LossCurve.exact`` False).

For the ``threshold`` family l(r) changes only at edge lengths, which are enumerated.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from sslviz import _kernels
from sslviz._threads import one_thread
from sslviz._validation import check_real, check_sigma_range
from sslviz.labeling import DelalleauModel, HarmonicModel
from sslviz.oracle import LabelOracle
from sslviz.piecewise import PiecewiseLoss
from sslviz.specs import CG_ITERS


@dataclass(frozen=True, eq=False)
class Certificates:
    """What a certified search proved (DESIGN §8), per σ it evaluated (sorted).

    Attributes
    ----------
    sigma : ndarray of shape (n_eval,)
    iterations : ndarray of int, shape (n_eval,)
        CG/PCG iterations of f at that σ (before any fallback).
    certified : ndarray of bool, shape (n_eval,)
        Every node's side of 1/2 proven by the iterative solve; False: the σ fell back to
        an exact solve (the certificate failed within the cap, or a weight underflows).
    """

    sigma: np.ndarray
    iterations: np.ndarray
    certified: np.ndarray

    @property
    def exact_fallbacks(self) -> int:
        return int(np.count_nonzero(~self.certified))


@dataclass(frozen=True, eq=False)
class LossCurve:
    """A piecewise-constant loss on [σ_min, σ_max], exact or from an approximate solver.

    Attributes
    ----------
    loss : PiecewiseLoss
        Pieces between consecutive breakpoints and their loss (fraction of U wrong).
    nodes : list of ndarray
        For each breakpoint, the unlabeled nodes that crossed 1/2 (or changed
        degenerate status) there, as indices into ``model.unlabeled_idx``.
    wrong_at_start : ndarray of shape (n_unlabeled,), bool
        Which nodes are misclassified on the first piece.
    degenerate_ranges : list of (lo, hi, count)
        σ ranges where ``count`` > 0 unlabeled nodes had no path to a labeled node.
    evaluations : ndarray of shape (n_eval,)
        Every σ where soft labels were computed (sorted).
    solves, matvecs, factorizations : int
        Work of the search (see :class:`sslviz.oracle.LabelOracle`).
    seconds : float
    solver : {'exact', 'inverse', 'cg', 'pcg'}
        The solver of every soft label the curve was built from: 'exact'/'inverse' give the
        true loss l(σ); 'cg'/'pcg' (t iterations) the approximate loss of the fast mode.
    inconsistent : int
        Grid evaluations whose misclassified set disagrees with the pieces (0 when the
        curve is complete).
    parameter : {'sigma', 'r'}
    complete : bool
        False when the evaluation budget stopped the search for hidden crossing pairs.
    """

    loss: PiecewiseLoss
    nodes: list
    wrong_at_start: np.ndarray
    degenerate_ranges: list
    evaluations: np.ndarray
    solves: int
    matvecs: int
    factorizations: int
    seconds: float
    solver: str
    inconsistent: int = 0
    parameter: str = "sigma"
    complete: bool = True
    certificates: Certificates | None = None

    @property
    def exact(self) -> bool:
        """True when the curve is the true loss (built from exact or inverse solves)."""
        return self.solver in ("exact", "inverse")

    @property
    def breakpoints(self) -> np.ndarray:
        return self.loss.breakpoints

    def best(self) -> tuple[float, float, float]:
        """``(loss, lo, hi)``: smallest loss and the widest σ range achieving it."""
        return self.loss.minimum()


def _hermite_basis(s: np.ndarray) -> np.ndarray:
    """Cubic Hermite basis functions (h00, h10, h01, h11) at fractions ``s`` (q,) → (4, q)."""
    return np.stack(
        [2 * s**3 - 3 * s**2 + 1, s**3 - 2 * s**2 + s, -2 * s**3 + 3 * s**2, s**3 - s**2]
    )


_S = np.linspace(0, 1, 17)[1:-1]
_S_BASIS = _hermite_basis(_S)  # the split test's 15 interior points
_ROOT_S = np.linspace(0, 1, 65)
_ROOT_BASIS = _hermite_basis(_ROOT_S)  # the first root proposals' grid


def _needs_split(a, b, ea, eb, touch) -> bool:
    """True when some node's Hermite cubic on [a, b] may hide crossings: its sign changes
    more often than its ends say, or an interior dip of |h_u| towards 0 halves it and comes
    within ``touch`` of 0 (the shape a pair of crossings would leave in a coarse cubic).
    Compiled: :func:`sslviz._kernels.hermite_split`."""
    return _kernels.hermite_split(
        float(a), float(b), ea[0], eb[0], ea[1], eb[1], ea[2], eb[2], _S_BASIS, float(touch)
    )


def _refine_roots(
    ev: LabelOracle, nodes: np.ndarray, a: float, b: float, rtol: float, on_event=None
) -> np.ndarray:
    """Roots of h_u in [a, b] for every node u in ``nodes`` (each changes sign there).

    Safeguarded Newton on all nodes at once: every evaluation updates the bracket of
    each node it falls in, the next point is the Newton step of the first unfinished
    node from its latest value (a bisection when that step leaves the bracket or the
    bracket failed to halve). Starts from the roots of the Hermite cubics. ``on_event``
    (see :func:`true_loss_curve`) hears of every step ('refine') and root ('breakpoint').
    """
    ea, eb = ev(a), ev(b)
    k = nodes.size
    lo, hi = np.full(k, a), np.full(k, b)
    hlo, hhi = ea[0][nodes].copy(), eb[0][nodes].copy()
    side = np.zeros(k, int)  # which end moved last (+1 lo, -1 hi): Illinois weighting
    newton_ok = ev.smooth  # a t-iteration CG's f' is not the derivative of its f
    # The roots of the nodes' Hermite cubics (secant roots where a cubic does not cross).
    prop = _kernels.root_proposals(
        float(a), float(b), hlo, hhi, ea[1][nodes], eb[1][nodes], _ROOT_S, _ROOT_BASIS
    )
    root = np.full(k, np.nan)
    prev_step = np.full(k, b - a)
    if on_event is not None:  # how each node's proposal was made (for the event log)
        how = np.full(k, "Hermite-cubic root", dtype=object)
    act, fast = np.zeros(k, bool), np.zeros(k, bool)
    j = 0
    x = prop[j] if lo[j] < prop[j] < hi[j] else 0.5 * (lo[j] + hi[j])
    for _ in range(100 * k):
        if j < 0:
            break
        h, d, _ = ev(x)
        hn, dn = h[nodes], d[nodes]
        if on_event is not None:
            rule = how[j] if lo[j] < prop[j] < hi[j] else "bisection"
            on_event(
                "refine",
                at=x,
                bracket=(float(lo[j]), float(hi[j])),
                nodes=nodes,
                f=hn + 0.5,
                node=int(nodes[j]),
                rule=rule,
                cell=(a, b),
                loss=float(ev.wrong(x).mean()),
            )
            found = np.isnan(root)
        # Move the brackets holding x, propose the next points, close the roots found.
        x, j = _kernels.refine_step(
            float(x),
            hn,
            dn,
            lo,
            hi,
            hlo,
            hhi,
            side,
            prop,
            prev_step,
            root,
            act,
            fast,
            newton_ok,
            float(rtol),
        )
        if on_event is not None:
            rules = np.where(fast[act], "Newton", "bisection")
            how[act] = rules if newton_ok else "secant (Illinois)"
            _found(on_event, nodes, root, lo, hi, found & ~np.isnan(root), (a, b))
    left_over = np.isnan(root)
    root[left_over] = 0.5 * (lo[left_over] + hi[left_over])
    if on_event is not None:
        _found(on_event, nodes, root, lo, hi, left_over, (a, b))
    return root


def _found(on_event, nodes, root, lo, hi, which, cell) -> None:
    for i in np.flatnonzero(which):
        on_event(
            "breakpoint",
            at=float(root[i]),
            bracket=(float(lo[i]), float(hi[i])),
            nodes=nodes[i : i + 1],
            f=np.array([0.5]),
            node=int(nodes[i]),
            cell=cell,
        )


def _refine_degenerate(ev: LabelOracle, a: float, b: float, rtol: float) -> list[float]:
    """σ values in (a, b) where the degenerate set changes (bisection)."""
    ga, gb = ev(a)[2], ev(b)[2]
    if np.array_equal(ga, gb):
        return []
    lo, hi = a, b
    while hi - lo > rtol * lo:
        m = 0.5 * (lo + hi)
        if np.array_equal(ev(m)[2], ga):
            lo = m
        else:
            hi = m
    return [*_refine_degenerate(ev, a, lo, rtol), hi, *_refine_degenerate(ev, hi, b, rtol)]


CHEBYSHEV = True
"""Exact curves (solver 'exact', no event log) are searched by Chebyshev interpolation of
f_U(σ) on cells (:func:`_chebyshev_search`); False runs the Hermite grid search on the whole
range (the tests compare the two).
Chosen with :func:`sslviz.paths.fast_paths`."""

_CHEB_RATIO = 2.0  # first cells: σ_max / σ_min at most this
_CHEB_RATIO_MIN = 1.05  # unresolved cells are halved down to this ratio, then searched as before
_CHEB_MIN_UNLABELED = 200  # below this many unlabeled nodes the Hermite search is as fast
_CHEB_MIN_UNLABELED_SPARSE = 1500  # the same on sparse (kNN) graphs (fewer breakpoints)
_CHEB_START = 16  # first degree on a cell; doubled (the points are reused) up to _CHEB_MAX
_CHEB_MAX = 128
_CHEB_TAIL = 1e-11  # resolved: the last quarter of the coefficients below this (f units)
_CHEB_NOISE = 1e-7  # ... or below this and no longer falling as the degree doubles (noise)
_CHEB_FINE = 8  # the root search's grid: this many θ points per degree
_CHEB_SUB = 64  # a grid step that may hide a pair of roots is looked at on this many points


def _cheb_points(a: float, b: float, degree: int) -> np.ndarray:
    """σ at the Chebyshev points cos(πk/N), k = 0..N, of [a, b]: from b down to a, ends exact."""
    x = 0.5 * (a + b) + 0.5 * (b - a) * np.cos(np.pi * np.arange(degree + 1) / degree)
    x[0], x[-1] = b, a
    return x


def _cheb_coefficients(values: np.ndarray) -> np.ndarray:
    """Coefficients c (N + 1, n) of Σ_k c_k T_k through ``values`` (N + 1, n) at cos(πk/N)."""
    N = values.shape[0] - 1
    c = np.fft.rfft(np.concatenate([values, values[-2:0:-1]]), axis=0).real[: N + 1] / N
    c[0] /= 2
    c[N] /= 2
    return c


def _cheb_eval(c: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """p_j(cos θ_j) = Σ_k c_kj cos(kθ_j) for coefficient columns c (N + 1, q), θ (q,)."""
    return np.einsum("qk,kq->q", np.cos(theta[:, None] * np.arange(c.shape[0])), c)


def _cheb_steps(t, vals, cols, bound, h) -> tuple[tuple, tuple]:
    """The steps of rows of grid values ``vals`` (q, S + 1) at θ ``t`` (same shape) of
    columns ``cols`` (q,): ``(brackets, suspects)``. Brackets ``(θ_lo, θ_hi, p(θ_lo), col,
    |Δp/Δθ|)`` are the steps where p changes sign; suspects ``(θ_a, θ_b, p(θ_a), p(θ_b),
    col)`` the steps of one sign whose smaller |p| is within the most a pair of roots could
    dip below the chord: ``bound[col]``·h²/8, with ``h`` (q,) the row's step."""
    pos = vals > 0
    qi, si = np.nonzero(pos[:, :-1] != pos[:, 1:])
    lo, hi, vlo = t[qi, si], t[qi, si + 1], vals[qi, si]
    brackets = (lo, hi, vlo, cols[qi], np.abs(vals[qi, si + 1] - vlo) / (hi - lo))
    low = np.minimum(np.abs(vals[:, :-1]), np.abs(vals[:, 1:]))
    qi, si = np.nonzero((pos[:, :-1] == pos[:, 1:]) & (low <= (bound[cols] * h * h / 8)[:, None]))
    suspects = (t[qi, si], t[qi, si + 1], vals[qi, si], vals[qi, si + 1], cols[qi])
    return brackets, suspects


def _cheb_roots(c: np.ndarray, ends: tuple[np.ndarray, np.ndarray]) -> tuple:
    """Every sign change of each column's interpolant p_u(cos θ), θ ∈ [0, π].

    Sign changes on a grid of ``_CHEB_FINE``·N steps in θ, located by bisection to the
    last bit; a step whose ends have one sign is looked at more closely when its smaller
    |p_u| is within the most a pair of roots could dip below the chord there
    (|p_u''(θ)| ≤ Σ k²|c_ku|, so the dip is at most that times step²/8). ``ends`` are the
    data at θ = 0 and π, used there so neighbouring cells agree on the sign at their
    common end. Returns ``(θ, u, slope)``: roots, their columns, and |Δp/Δθ| over the
    grid step each was found in.
    """
    N, n = c.shape[0] - 1, c.shape[1]
    k = np.arange(N + 1)
    M = _CHEB_FINE * N
    theta = np.pi * np.arange(M + 1) / M
    V = np.cos(np.outer(theta, k)) @ c
    V[0], V[-1] = ends
    bound = (k[:, None] ** 2 * np.abs(c)).sum(axis=0)
    found, suspects = _cheb_steps(
        np.broadcast_to(theta, (n, M + 1)), V.T, np.arange(n), bound, np.full(n, np.pi / M)
    )
    parts = [found]
    s = np.linspace(0.0, 1.0, _CHEB_SUB + 1)
    for _ in range(2):  # two closer looks: the dip bound shrinks by _CHEB_SUB² each time
        a_t, b_t, va, vb, cu = suspects
        if not cu.size:
            break
        t = a_t[:, None] + (b_t - a_t)[:, None] * s  # (q, S + 1)
        vals = np.einsum("qsk,kq->qs", np.cos(t[..., None] * k), c[:, cu])
        vals[:, 0], vals[:, -1] = va, vb
        found, suspects = _cheb_steps(t, vals, cu, bound, (b_t - a_t) / _CHEB_SUB)
        parts.append(found)
    lo, hi, vlo, uu, slope = (np.concatenate(x) for x in zip(*parts, strict=True))
    cu = c[:, uu]
    for _ in range(60):  # bisection in θ, all roots at once
        mid = 0.5 * (lo + hi)
        vm = _cheb_eval(cu, mid)
        left = (vm > 0) == (vlo > 0)
        lo, vlo = np.where(left, mid, lo), np.where(left, vm, vlo)
        hi = np.where(left, hi, mid)
    return 0.5 * (lo + hi), uu, slope


def _chebyshev_pays(model, solver: str, certify_cap, on_event) -> bool:
    """Exact curves on complete graphs of ``_CHEB_MIN_UNLABELED`` unlabeled nodes or more,
    and on sparse graphs of ``_CHEB_MIN_UNLABELED_SPARSE`` or more: there breakpoints are
    many and every solve is a full factorisation, so one set of solves for all of them
    pays. On smaller graphs the Hermite search needs as few solves or fewer. Measured σ
    evaluations, Hermite / Chebyshev: digits complete n = 100, 129 / 202; Fashion-MNIST
    kNN-6 on [1, 7] (``benchmarks/exact_knn.py``), n = 1000, 84 / 97; n = 2000, 125 / 97;
    n = 4000, 774 / 385; n = 12,000, Chebyshev 97 (4,132 breakpoints).
    """
    if not (
        CHEBYSHEV
        and solver == "exact"
        and certify_cap is None
        and on_event is None
        and isinstance(model, HarmonicModel)
    ):
        return False
    return model.n_unlabeled >= chebyshev_min_unlabeled(model.graph.is_dense)


def chebyshev_min_unlabeled(dense: bool) -> int:
    """Unlabeled nodes from which exact curves are searched by Chebyshev cells."""
    return _CHEB_MIN_UNLABELED if dense else _CHEB_MIN_UNLABELED_SPARSE


def _chebyshev_search(
    ev: LabelOracle, lo: float, hi: float, rtol: float, max_evaluations: int, tick
) -> tuple[list, list]:
    """Every crossing of 1/2 on [lo, hi] from Chebyshev interpolants of f_U(σ).

    f_U is analytic in σ, so on a cell [a, b] its interpolant through the N + 1 Chebyshev
    points converges geometrically in N: every unlabeled node's curve is resolved by the
    same N + 1 exact solves, however many crossings it has (Trefethen, *Approximation
    Theory and Approximation Practice*, ch. 8 and 18; the degree is chosen as Chebfun does,
    by the decay of the coefficients). A cell is resolved when the last quarter of its
    coefficients is below ``_CHEB_TAIL`` for every node, or below ``_CHEB_NOISE`` and no
    longer falling (the node's noise floor); otherwise its degree is doubled up to
    ``_CHEB_MAX`` (reusing the solves), then, while the tail still falls, it is halved
    down to a ratio of ``_CHEB_RATIO_MIN``. Roots of the interpolants
    (:func:`_cheb_roots`) are the breakpoints; a root whose location the interpolation
    error (the tail's size over the slope) does not pin to ``rtol`` is refined by exact
    solves (:func:`_refine_roots`). Cells whose degenerate set changes or that stay
    unresolved are returned for the Hermite search.

    Returns ``(roots, rest)``: ``(σ, node)`` pairs and the σ intervals left to search.
    """
    cells = np.geomspace(lo, hi, int(np.ceil(np.log(hi / lo) / np.log(_CHEB_RATIO))) + 1)
    cells[0], cells[-1] = lo, hi
    todo = [(a, b, _CHEB_START, None) for a, b in zip(cells[:-1], cells[1:], strict=True)]
    todo.reverse()
    roots: list[tuple[float, int]] = []
    rest: list[tuple[float, float]] = []
    ev.cholesky = True  # half the flops of LU; where untrusted, LU as before
    try:
        _chebyshev_cells(ev, todo, roots, rest, rtol, max_evaluations, tick)
    finally:
        ev.cholesky = False
    return roots, rest


def _chebyshev_cells(ev, todo, roots, rest, rtol, max_evaluations, tick) -> None:
    """The loop of :func:`_chebyshev_search` over its cells (appends to roots and rest)."""
    while todo:
        a, b, N, before = todo.pop()
        if len(ev.cache) >= max_evaluations:
            rest.append((a, b))
            continue
        xs = _cheb_points(a, b, N)
        step = xs.size if tick is None else _PREFETCH_STEP  # σ are solved independently
        for i in range(0, xs.size, step):
            ev.prefetch(xs[i : i + step])
            if tick is not None:
                tick.note(len(ev.cache), len(roots))
        got = [ev(x) for x in xs]
        degenerate = got[0][2]
        # A σ that needed a subtraction-free solve no longer sends its cell to the Hermite
        # search: every LU / Cholesky solve is refined to 1e-13 or redone by GTH, so the
        # values next to it are as accurate (before refinement they were off by up to 1e-5).
        if any(not np.array_equal(g[2], degenerate) for g in got[1:]):
            rest.append((a, b))
            continue
        live = np.flatnonzero(~degenerate)
        H = np.array([g[0][live] for g in got])
        c = _cheb_coefficients(H)
        tail = np.abs(c[N - N // 4 :]).max(axis=0)
        # A node's noise floor (solve error, e.g. a cluster that barely leaks to L) shows
        # as a tail that stops falling when the degree doubles.
        noise = (tail <= _CHEB_NOISE) & (tail >= 0.25 * before) if before is not None else False
        if np.any((tail > _CHEB_TAIL) & ~noise):
            if N < _CHEB_MAX:
                todo.append((a, b, 2 * N, tail))
            elif b > a * _CHEB_RATIO_MIN and tail.max() < 0.25 * before.max():
                # Still converging: a complicated but smooth stretch, halve it.
                m = float(np.sqrt(a * b))
                todo.extend([(m, b, _CHEB_START, None), (a, m, _CHEB_START, None)])
            else:
                rest.append((a, b))
            continue
        theta, idx, slope = _cheb_roots(c, (H[0], H[-1]))
        half = 0.5 * (b - a)
        sig = 0.5 * (a + b) + half * np.cos(theta)
        # |dp/dσ| = |dp/dθ| / (half·sin θ); location error ≈ interpolation error / slope.
        err = (N + 1) * tail[idx] * half * np.abs(np.sin(theta)) / np.maximum(slope, 1e-300)
        sure = err <= 0.1 * rtol * sig
        roots.extend(zip(sig[sure].tolist(), live[idx[sure]].tolist(), strict=True))
        for x, u in zip(sig[~sure], live[idx[~sure]], strict=True):
            roots.extend(_polish(ev, int(u), float(x), a, b, rtol))
        if tick is not None:
            tick(b, len(ev.cache), len(roots))


def _polish(ev: LabelOracle, u: int, x: float, a: float, b: float, rtol: float) -> list:
    """Node u's root near x located by exact solves (a bracket widened from x until its
    ends differ in sign, within [a, b]); ``[(x, u)]`` as it is when no bracket is found."""
    w = max(1e-6 * x, rtol * x)
    while True:
        p, q = max(a, x - w), min(b, x + w)
        hp, hq = ev(p)[0][u], ev(q)[0][u]
        if (hp > 0) != (hq > 0):
            found = _refine_roots(ev, np.array([u]), p, q, rtol)
            return [(float(found[0]), u)]
        if p == a and q == b:
            return [(x, u)]
        w *= 8


class _Watched(LabelOracle):
    """A :class:`LabelOracle` that reports every σ it evaluates (search event log)."""

    def __init__(self, *args, on_event: Callable, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.on_event = on_event
        self.context = "grid"  # what the search is doing: grid, split, degenerate, refine
        self.cell = (np.nan, np.nan)

    def prefetch(self, sigmas) -> None:
        before = len(self.cache)
        super().prefetch(sigmas)
        if self.context == "refine":  # _refine_roots reports its own steps
            return
        for x in list(self.cache)[before:]:
            h, _, deg = self.cache[x]
            near = np.argsort(np.where(deg, np.inf, np.abs(h)), kind="stable")[:_NEAR]
            near = near[~deg[near]]
            self.on_event(
                self.context,
                at=x,
                bracket=self.cell,
                nodes=near,
                f=h[near] + 0.5,
                loss=float(self.wrong(x).mean()) if h.size else 0.0,
                degenerate=int(deg.sum()),
            )


_NEAR = 24
"""Evaluation events list the nodes nearest to 1/2 there, at most this many."""


_PREFETCH_STEP = 8
"""σ of a Chebyshev cell solved between two progress notes (:meth:`_Progress.note`): a cell
of 33 exact solves took 11 s at 12,000 points with one unchanged message."""


class _Progress:
    """``progress(fraction, message)`` of the search: the σ range (log scale) done, at most
    about every 1 % (fractions non-decreasing, from 0 to 1)."""

    def __init__(self, progress: Callable, lo: float, hi: float) -> None:
        self.progress, self.lo, self.span = progress, lo, np.log(hi / lo)
        self.last = 0.0
        self.said = time.monotonic()
        progress(0.0, "starting")

    def note(self, evaluations: int, breakpoints: int) -> None:
        """The same fraction, the counts so far (inside a long step; at most every 0.5 s)."""
        if time.monotonic() - self.said >= 0.5:
            self.said = time.monotonic()
            self.progress(self.last, f"σ {evaluations} evaluated, {breakpoints} breakpoints")

    def __call__(self, b: float, evaluations: int, breakpoints: int, *, final=False) -> None:
        frac = 1.0 if final else min(max(float(np.log(b / self.lo) / self.span), 0.0), 1.0)
        if not final and frac < self.last + 0.01:
            return
        self.last = max(frac, self.last)
        self.said = time.monotonic()
        total = f" of ~{round(evaluations / frac)}" if 0.05 < frac < 1.0 else ""
        self.progress(self.last, f"σ {evaluations}{total} evaluated, {breakpoints} breakpoints")


@one_thread
def true_loss_curve(
    model: HarmonicModel | DelalleauModel,
    y_unlabeled: np.ndarray,
    sigma_min: float,
    sigma_max: float,
    *,
    rtol: float = 1e-9,
    grid_ratio: float = 1.05,
    touch: float = 0.05,
    solver: str = "exact",
    cg_iters: int = CG_ITERS,
    certify_cap: int | None = None,
    max_evaluations: int = 4000,
    progress: Callable[[float, str], None] | None = None,
    on_event: Callable[..., None] | None = None,
) -> LossCurve:
    """Exact piecewise-constant loss l(σ) with every breakpoint located to ``rtol``.

    With ``solver='cg'`` or ``'pcg'`` the same search runs on the t-iteration CG soft
    labels instead: that is the fast mode of Algorithm 4 (DESIGN §5.4), which finds every
    crossing of the *approximate* f_u − 1/2 while sharing each solve across all nodes; the
    result is then an approximate curve (``solver`` 'cg'/'pcg', ``exact`` False).

    Parameters
    ----------
    model : HarmonicModel or DelalleauModel
    y_unlabeled : ndarray of shape (n_unlabeled,)
        True binary labels of the unlabeled nodes (``model.unlabeled_idx`` order).
    sigma_min, sigma_max : float
        The σ range, 0 < σ_min < σ_max (PCA-space distance units).
    rtol : float, default=1e-9
        Relative location tolerance of each breakpoint.
    grid_ratio : float, default=1.05
        Largest ratio between neighbouring σ of the starting grid.
    touch : float, default=0.05
        Split an interval where some node's interpolant of |f_u − 1/2| dips inside it to
        below ``touch`` and below half its smaller end value.
    solver : {'exact', 'inverse', 'cg', 'pcg'}, default='exact'
    cg_iters : int, default=20
    certify_cap : int, optional
        CG/PCG only: the certified search. Every σ's soft labels come from
        :meth:`HarmonicModel.certified_labels` (each node's side of 1/2 proven, or an exact
        fallback), so the curve has the exact curve's pieces; ``certificates`` says where
        the proofs held.
    max_evaluations : int, default=4000
        Budget for the search of hidden pairs of crossings (interval splitting). Past it,
        only sign changes between evaluated σ are refined and ``complete`` is False —
        this happens at very small σ, where derivatives lose accuracy.
    progress : callable, optional
        ``progress(fraction_done, message)``: fraction of the σ range searched (log scale;
        non-decreasing, 0 first and 1 last, about every 1 %), message such as
        "σ 412 of ~900 evaluated, 37 breakpoints".
    on_event : callable, optional
        The search's event log (:func:`sslviz.intervals.sweep` with ``record=True`` builds
        :class:`sslviz.intervals.Event` from it): ``on_event(kind, **fields)`` in the order
        things happen. ``kind`` 'grid' (a σ of the starting grid evaluated), 'split' (a
        midpoint the Hermite test asked for), 'degenerate' (a σ evaluated to locate a change
        of the degenerate set): fields ``at`` (σ), ``bracket`` (the σ cell searched, NaN for
        the grid), ``loss`` (the curve's loss at σ), ``degenerate`` (count), ``nodes`` (up
        to 24 nodes nearest to 1/2 there) and ``f`` (their soft labels); 'refine' (one step
        of the crossing search): ``at``, ``node`` (whose proposal was evaluated),
        ``bracket`` (that node's before the step), ``rule`` ('Hermite-cubic root', 'Newton',
        'bisection', 'secant (Illinois)'), ``nodes`` (all nodes refined in the cell), ``f``
        (theirs at σ), ``cell``, ``loss``; 'breakpoint' (a node's crossing located):
        ``at``, ``node``, ``bracket``, ``cell``, ``nodes``, ``f``. Neither argument changes
        the result.

    Returns
    -------
    LossCurve
        With ``solver`` as given.
    """
    t0 = time.perf_counter()
    caller = "true_loss_curve"
    lo, hi = check_sigma_range(sigma_min, sigma_max, caller)
    rtol = check_real("rtol", rtol, caller, low=1e-15, high=1e-3)
    grid_ratio = check_real("grid_ratio", grid_ratio, caller, low=1.0, closed="neither")
    y_u = np.asarray(y_unlabeled)
    if on_event is None:
        ev = LabelOracle(model, y_u, solver, cg_iters, certify_cap)
    else:
        ev = _Watched(model, y_u, solver, cg_iters, certify_cap, on_event=on_event)
    tick = _Progress(progress, lo, hi) if progress is not None else None
    roots: list[tuple[float, int]] = []
    rest = [(lo, hi)]
    if _chebyshev_pays(model, solver, certify_cap, on_event):
        roots, rest = _chebyshev_search(ev, lo, hi, rtol, max_evaluations, tick)
    elif on_event is None:
        found = _compiled_search(ev, lo, hi, grid_ratio, rtol, touch, max_evaluations, tick)
        if found is not None:
            curve = _assemble(ev, lo, hi, found, [], y_u, t0, rtol)
            if tick is not None:
                tick(hi, len(ev.cache), curve.breakpoints.size, final=True)
            return replace(curve, complete=len(ev.cache) < max_evaluations)
    stack = []
    for a0, b0 in rest:
        grid = _grid(a0, b0, grid_ratio)
        ev.prefetch(grid)  # one batched call where the model solves many σ at once
        stack.extend((grid[i], grid[i + 1]) for i in range(grid.size - 1))
    stack.reverse()
    deg_changes: list[float] = []
    while stack:
        a, b = stack.pop()
        if on_event is not None:
            ev.context = "split"  # a new σ here is the midpoint of the last split, ev.cell
        ea, eb = ev(a), ev(b)
        if tick is not None:
            tick(a, len(ev.cache), len(roots))
        if not np.array_equal(ea[2], eb[2]):
            if on_event is not None:
                ev.context, ev.cell = "degenerate", (a, b)
            cuts = _refine_degenerate(ev, a, b, rtol)
            deg_changes.extend(cuts)
            pts = [a, *cuts, b]
            # Search crossings on each side, just off the change points.
            for p, q in zip(pts[:-1], pts[1:], strict=True):
                p2 = p if p == a else p * (1 + rtol)
                q2 = q if q == b else q * (1 - rtol)
                if q2 > p2 and np.array_equal(ev(p2)[2], ev(q2)[2]):
                    stack.append((p2, q2))
            continue
        if (
            (b - a) > _MIN_WIDTH * a
            and len(ev.cache) < max_evaluations
            and _needs_split(a, b, ea, eb, touch)
        ):
            m = 0.5 * (a + b)
            stack.extend([(m, b), (a, m)])
            if on_event is not None:
                ev.cell = (a, b)
            continue
        ok = ~(ea[2] | eb[2])
        # A root exactly at a is counted by the interval ending at a.
        crossing = np.flatnonzero(ok & (np.sign(ea[0]) != np.sign(eb[0])) & (ea[0] != 0))
        if crossing.size:
            if on_event is not None:
                ev.context = "refine"
            found = _refine_roots(ev, crossing, a, b, rtol, on_event)
            roots.extend(zip(found.tolist(), crossing.tolist(), strict=True))
    if on_event is not None:
        ev.context, ev.cell = "degenerate", (lo, hi)  # _assemble reads right of a change
    curve = _assemble(ev, lo, hi, roots, deg_changes, y_u, t0, rtol)
    if tick is not None:
        tick(hi, len(ev.cache), curve.breakpoints.size, final=True)
    certs = None
    if certify_cap is not None:
        fallback = set(ev.fallbacks)
        certs = Certificates(
            curve.evaluations,
            np.array([ev.iterations[s] for s in curve.evaluations], int),
            np.array([s not in fallback for s in curve.evaluations], bool),
        )
    return replace(curve, complete=len(ev.cache) < max_evaluations, certificates=certs)


COMPILED_SEARCH = True
"""Fixed-t CG/PCG searches on sparse harmonic models (Algorithm 4's fast mode: the app's
sweeps, pausing to report progress, and the regret experiment's feedback) run compiled
(:func:`sslviz._kernels.cg_search`): the same σ, the same bits; False runs them here (the
tests compare the two). Chosen with :func:`sslviz.paths.fast_paths`."""


_SEARCH_ROWS = 256  # σ the compiled search stores at first (×4 and again when full)
_MIN_WIDTH = 1e-6  # the Hermite search splits no interval narrower (relative): pairs of
# crossings closer than this may be missed


def _grid(a: float, b: float, grid_ratio: float) -> np.ndarray:
    """The starting grid of the Hermite search on [a, b]: geometric, ratio ≤ grid_ratio."""
    n0 = int(np.ceil(np.log(b / a) / np.log(grid_ratio))) + 1
    grid = np.geomspace(a, b, max(n0, 3))
    grid[0], grid[-1] = a, b
    return grid


def _compiled_search(
    ev, lo, hi, grid_ratio, rtol, touch, max_evaluations, tick: _Progress | None = None
) -> list | None:
    """Run the whole search compiled where it applies (:data:`COMPILED_SEARCH`): fill
    ``ev``'s cache and work counts and return the roots ``[(σ, node)]``; None where it does
    not apply or a weight underflows at some σ (the caller's search then runs, from
    scratch). With ``tick``, the search pauses every :func:`_search_chunk` σ to report its
    progress (a stop request raises there); the σ, bits and roots are the same."""
    model = ev.model
    batch = getattr(model, "batched", None)
    if not (
        COMPILED_SEARCH
        and ev.solver in ("cg", "pcg")
        and ev.certify_cap is None
        and isinstance(model, HarmonicModel)
        and batch is not None
    ):
        return None
    grid = _grid(lo, hi, grid_ratio)
    degenerate = ~batch.keep
    n = degenerate.size
    chunk = _search_chunk(batch.pattern[1].size, ev.cg_iters) if tick is not None else None
    # σ of each row (a Numba typed dict here cost 1.5 s of compiling in every process).
    S = np.empty(_SEARCH_ROWS)
    H, D = np.empty((_SEARCH_ROWS, n)), np.empty((_SEARCH_ROWS, n))
    mv, count = np.zeros(_SEARCH_ROWS, np.int64), np.zeros(1, np.int64)
    todo, roots = np.empty((0, 2)), []
    while True:
        pause_at = int(count[0]) + chunk if chunk is not None else np.iinfo(np.int64).max
        status, roots_s, roots_u, todo = _kernels.cg_search(
            grid,
            todo,
            (S, H, D, mv, count),
            batch.d,
            batch.dl,
            batch.pattern,
            ev.cg_iters,
            ev.solver == "pcg",
            degenerate,
            _S_BASIS,
            _ROOT_S,
            _ROOT_BASIS,
            float(rtol),
            float(touch),
            _MIN_WIDTH,
            int(max_evaluations),
            pause_at,
        )
        roots += zip(roots_s, [int(u) for u in roots_u], strict=True)
        if status == -3:  # paused: report, then go on from the stack it returned
            tick(float(todo[-1, 0]), int(count[0]), len(roots))
            continue
        if status != -2:
            break
        # Rows full: 4× the rows, the σ evaluated so far kept (the search goes on from the
        # stack it returned, and every σ it has seen is read from ``S``, not solved again).
        grown = 4 * H.shape[0]
        H, D = (np.concatenate([A, np.empty((grown - A.shape[0], n))]) for A in (H, D))
        S = np.concatenate([S, np.empty(grown - S.size)])
        mv = np.concatenate([mv, np.zeros(grown - mv.size, np.int64)])
    if status != 0:
        return None
    k = int(count[0])
    for r in range(k):  # the evaluation order
        ev.cache[float(S[r])] = (H[r].copy(), D[r].copy(), degenerate.copy())
    ev.solves += 2 * k
    ev.matvecs += int(mv[:k].sum())
    return roots


def _search_chunk(edges: int, cg_iters: int) -> int:
    """σ per call of the compiled search when it reports progress: about 0.05 s of CG each
    (one σ costs about ``cg_iters`` × ``edges`` multiply-adds, twice: f and f')."""
    return max(8, int(2e7 / max(edges * cg_iters, 1)))


def _assemble(
    ev: LabelOracle, lo, hi, roots, deg_changes, y_u, t0, rtol, parameter: str = "sigma"
) -> LossCurve:
    events = sorted(
        [(r, u) for r, u in roots if lo < r < hi] + [(c, -1) for c in deg_changes if lo < c < hi]
    )
    # Merge events closer than the location tolerance into one breakpoint.
    groups: list[list[tuple[float, int]]] = []
    for e in events:
        if groups and e[0] - groups[-1][-1][0] <= 2 * rtol * e[0]:
            groups[-1].append(e)
        else:
            groups.append([e])
    wrong = ev.wrong(lo).copy()
    start = wrong.copy()
    n_u = y_u.size
    edges, values, nodes = [lo], [wrong.mean() if n_u else 0.0], []
    for g in groups:
        x = g[-1][0]
        changed = np.zeros(n_u, bool)
        for _, u in g:
            if u >= 0:
                changed[u] ^= True
        if any(u < 0 for _, u in g):  # degenerate-set change: read the right side
            after = ev.wrong(x * (1 + rtol))
            changed = after != wrong
        if not changed.any():
            continue
        wrong = wrong ^ changed
        edges.append(float(g[len(g) // 2][0]))  # an event value, not an average
        values.append(wrong.mean())
        nodes.append(np.flatnonzero(changed))
    edges.append(hi)
    loss = PiecewiseLoss(np.array(edges), np.array(values))
    # Check every evaluation against the pieces (evaluations at a breakpoint excluded).
    inconsistent = 0
    sig = np.array(sorted(ev.cache))
    brk = loss.breakpoints
    piece_wrong = [start]
    for nd in nodes:
        w = piece_wrong[-1].copy()
        w[nd] ^= True
        piece_wrong.append(w)
    if sig.size:
        # Distance to the nearest breakpoint: one of the two around σ's insertion point.
        near = np.zeros(sig.size, bool)
        if brk.size:
            at = np.searchsorted(brk, sig)
            below = np.abs(brk[np.maximum(at - 1, 0)] - sig)
            above = np.abs(brk[np.minimum(at, brk.size - 1)] - sig)
            near = np.minimum(below, above) <= 4 * rtol * sig
        check = np.flatnonzero(~near)
        seen = np.array([ev.wrong(s) for s in sig[check]]).reshape(check.size, n_u)
        expected = np.array(piece_wrong)[loss.piece_index(sig[check])].reshape(check.size, n_u)
        inconsistent = int(np.count_nonzero((seen != expected).any(axis=1)))
    deg_ranges = []
    for a, b in zip(sig[:-1], sig[1:], strict=True):
        c = int(ev.cache[a][2].sum())
        if c:
            if deg_ranges and deg_ranges[-1][1] == a and deg_ranges[-1][2] == c:
                deg_ranges[-1] = (deg_ranges[-1][0], b, c)
            else:
                deg_ranges.append((a, b, c))
    return LossCurve(
        loss,
        nodes,
        start,
        deg_ranges,
        sig,
        ev.solves,
        ev.matvecs,
        ev.factorizations,
        time.perf_counter() - t0,
        ev.solver,
        inconsistent,
        parameter,
    )


@one_thread
def threshold_loss_curve(
    model: HarmonicModel, y_unlabeled: np.ndarray, r_min: float, r_max: float
) -> LossCurve:
    """Exact l(r) of the thresholded mutual-kNN family on [r_min, r_max].

    The graph 1[d_ij ≤ r] only changes at edge lengths, so l(r) is evaluated once per
    distinct edge length in the range (right-continuous pieces: an edge of length d is
    present from r = d on).
    """
    t0 = time.perf_counter()
    lo, hi = check_sigma_range(r_min, r_max, "threshold_loss_curve")
    y_u = np.asarray(y_unlabeled)
    lengths = model.graph.edge_lengths()
    cuts = lengths[(lengths > lo) & (lengths < hi)]

    class _R(LabelOracle):
        def __call__(self, r):
            hit = self.cache.get(r)
            if hit is None:
                sl = self.model.soft_labels_at_radius(r)
                self.solves += sl.solves
                self.factorizations += sl.factorizations
                hit = self.cache[r] = (sl.f - 0.5, np.zeros_like(sl.f), sl.degenerate)
            return hit

    ev = _R(model, y_u)
    prev = ev.wrong(lo)
    roots = []
    for c in cuts:
        w = ev.wrong(c)
        roots.extend((float(c), int(u)) for u in np.flatnonzero(w != prev))
        prev = w
    return _assemble(ev, lo, hi, roots, [], y_u, t0, 1e-12, parameter="r")
