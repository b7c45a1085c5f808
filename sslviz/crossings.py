"""Where soft labels cross ½ on a σ range: the searches behind the exact loss curve.

Three searches find every σ where some node's f_u(σ) − ½ changes sign, each the fastest
where it applies (:func:`sslviz.truth.true_loss_curve` picks one):

- the Hermite grid search (:func:`hermite_grid`, :func:`needs_split`,
  :func:`refine_roots`): a geometric grid, intervals split while a node's cubic Hermite
  interpolant of f_u − ½ (values and exact derivatives at both ends) dips towards zero or
  has a sign pattern the ends do not explain, then safeguarded Newton on each sign change;
- the Chebyshev search (:func:`chebyshev_search`, where :func:`chebyshev_pays`): every
  node's f_u on a cell interpolated by a Chebyshev series whose degree doubles until it is
  resolved, roots from the series, each polished by the Hermite refinement;
- the compiled search (:func:`compiled_search`): the Hermite search run whole in compiled
  code for fixed-t CG/PCG on a model that offers its system
  (:meth:`sslviz.labeling.SoftLabelModel.search_system`: the harmonic model, sparse and
  dense), the same σ and bits.

A model that offers neither the Chebyshev search's solves (``cholesky_exact``) nor the
compiled search's system is searched by the Hermite grid search in Python (Delalleau's
model, plug-ins that declare neither, and the tests' reference models).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from sslviz import _kernels
from sslviz.oracle import LabelOracle


def _hermite_basis(s: np.ndarray) -> np.ndarray:
    """Cubic Hermite basis functions (h00, h10, h01, h11) at fractions ``s`` (q,) → (4, q)."""
    return np.stack(
        [2 * s**3 - 3 * s**2 + 1, s**3 - 2 * s**2 + s, -2 * s**3 + 3 * s**2, s**3 - s**2]
    )


_S = np.linspace(0, 1, 17)[1:-1]


_S_BASIS = _hermite_basis(_S)  # the split test's 15 interior points


_ROOT_S = np.linspace(0, 1, 65)


_ROOT_BASIS = _hermite_basis(_ROOT_S)  # the first root proposals' grid


def needs_split(a, b, ea, eb, touch) -> bool:
    """True when some node's Hermite cubic on [a, b] may hide crossings: its sign changes
    more often than its ends say, or an interior dip of |h_u| towards 0 halves it and comes
    within ``touch`` of 0 (the shape a pair of crossings would leave in a coarse cubic).
    Compiled: :func:`sslviz._kernels.hermite_split`."""
    return _kernels.hermite_split(
        float(a), float(b), ea[0], eb[0], ea[1], eb[1], ea[2], eb[2], _S_BASIS, float(touch)
    )


def refine_roots(
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


def refine_degenerate(ev: LabelOracle, a: float, b: float, rtol: float) -> list[float]:
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
    return [*refine_degenerate(ev, a, lo, rtol), hi, *refine_degenerate(ev, hi, b, rtol)]


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


def chebyshev_pays(model, solver: str, certify_cap, on_event) -> bool:
    """Exact curves on complete graphs of ``_CHEB_MIN_UNLABELED`` unlabeled nodes or more,
    and on sparse graphs of ``_CHEB_MIN_UNLABELED_SPARSE`` or more: there breakpoints are
    many and every solve is a full factorisation, so one set of solves for all of them
    pays. On smaller graphs the Hermite search needs as few solves or fewer (the σ
    evaluations of both are compared in ``benchmarks/exact_knn.py``). Models with a
    Cholesky path of their own only (``cholesky_exact``): the cells' solves are its.
    """
    if solver != "exact" or certify_cap is not None or on_event is not None:
        return False
    if not model.cholesky_exact:
        return False
    return model.n_unlabeled >= chebyshev_min_unlabeled(model.graph.is_dense)


def chebyshev_pays_gaps(model, solver: str, certify_cap) -> bool:
    """:func:`chebyshev_pays` for the class gaps of the multi-class curve (docs/method.md
    §13): there each σ's solves serve every pair (node, rival class), and the breakpoints
    are many more, so the Chebyshev cells pay for the exact scores and for fixed-t CG/PCG
    scores too (t iterations from zero are a rational, analytic function of σ, resolved by
    the same interpolants: Algorithm 4's fast mode one-vs-all). Certified scores stay with
    the Hermite search (each σ's iterations are chosen per σ, so the scores are not one
    smooth function)."""
    if solver not in ("exact", "cg", "pcg") or certify_cap is not None:
        return False
    if not model.cholesky_exact:
        return False
    return model.n_unlabeled >= chebyshev_min_unlabeled(model.graph.is_dense)


def chebyshev_min_unlabeled(dense: bool) -> int:
    """Unlabeled nodes from which exact curves are searched by Chebyshev cells."""
    return _CHEB_MIN_UNLABELED if dense else _CHEB_MIN_UNLABELED_SPARSE


def chebyshev_search(
    ev: LabelOracle,
    lo: float,
    hi: float,
    rtol: float,
    max_evaluations: int,
    tick,
    reached: Callable[[float, list], None] | None = None,
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

    The cells are searched in σ order. ``reached(s, roots)``, if given, is called each
    time the σ up to which every crossing is found grows: ``s`` the end of the last cell
    resolved, with no cell before it left to search, and ``roots`` the pairs found so far
    (read them before returning; the search goes on appending). It changes nothing.

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
        _chebyshev_cells(ev, todo, roots, rest, rtol, max_evaluations, tick, reached)
    finally:
        ev.cholesky = False
    return roots, rest


def _chebyshev_cells(ev, todo, roots, rest, rtol, max_evaluations, tick, reached) -> None:
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
        if reached is not None and not rest:
            reached(float(b), roots)


def _polish(ev: LabelOracle, u: int, x: float, a: float, b: float, rtol: float) -> list:
    """Node u's root near x located by exact solves (a bracket widened from x until its
    ends differ in sign, within [a, b]); ``[(x, u)]`` as it is when no bracket is found."""
    w = max(1e-6 * x, rtol * x)
    while True:
        p, q = max(a, x - w), min(b, x + w)
        hp, hq = ev(p)[0][u], ev(q)[0][u]
        if (hp > 0) != (hq > 0):
            found = refine_roots(ev, np.array([u]), p, q, rtol)
            return [(float(found[0]), u)]
        if p == a and q == b:
            return [(x, u)]
        w *= 8


_PREFETCH_STEP = 8
"""σ of a Chebyshev cell solved between two progress notes (:meth:`_Progress.note`): on
large graphs a cell's solves take long enough to need notes of their own."""


class SearchProgress:
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


_SEARCH_ROWS = 256  # σ the compiled search stores at first (×4 and again when full)


MIN_WIDTH = 1e-6  # the Hermite search splits no interval narrower (relative): pairs of


def hermite_grid(a: float, b: float, grid_ratio: float) -> np.ndarray:
    """The starting grid of the Hermite search on [a, b]: geometric, ratio ≤ grid_ratio."""
    n0 = int(np.ceil(np.log(b / a) / np.log(grid_ratio))) + 1
    grid = np.geomspace(a, b, max(n0, 3))
    grid[0], grid[-1] = a, b
    return grid


def compiled_search(
    ev, lo, hi, grid_ratio, rtol, touch, max_evaluations, tick: SearchProgress | None = None
) -> list | None:
    """Run the whole search compiled where it applies: fixed-t CG/PCG on a model that
    offers the system (:meth:`sslviz.labeling.SoftLabelModel.search_system`; the harmonic
    model, sparse or dense), as Algorithm 4's fast mode runs (the app's sweeps, pausing to
    report progress, and the regret experiment's feedback), in
    :func:`sslviz._kernels.cg_search`, the same σ and bits as the search in Python. Fill
    ``ev``'s cache and work counts and return the roots ``[(σ, node)]``; None where it does
    not apply or a weight underflows at some σ (the caller's search then runs, from
    scratch). With ``tick``, the search pauses every :func:`_search_chunk` σ to report its
    progress (a stop request raises there); the σ, bits and roots are the same."""
    model = ev.model
    if not (ev.solver in ("cg", "pcg") and ev.certify_cap is None):
        return None
    system = model.search_system(ev.solver)
    if system is None:
        return None
    grid = hermite_grid(lo, hi, grid_ratio)
    degenerate = system.degenerate
    n = degenerate.size
    chunk = _search_chunk(system.entries, ev.cg_iters) if tick is not None else None
    # σ of each row (an array: a Numba typed dict would be compiled in every process).
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
            system.d,
            system.dl,
            system.pattern,
            system.dense,
            ev.cg_iters,
            ev.solver == "pcg",
            degenerate,
            _S_BASIS,
            _ROOT_S,
            _ROOT_BASIS,
            float(rtol),
            float(touch),
            MIN_WIDTH,
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
    """σ per call of the compiled search when it reports progress: about 2·10⁷
    multiply-adds each (one σ costs about ``cg_iters`` × ``edges`` of them, twice: f and f')."""
    return max(8, int(2e7 / max(edges * cg_iters, 1)))
