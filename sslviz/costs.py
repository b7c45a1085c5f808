"""Estimated wall time and peak memory of the computations the app can start.

The app refuses a request whose estimate is over its caps before computing anything, and
says which nearby setting would fit (:func:`advice`). Every estimate is a count of
operations times a per-operation cost measured on this machine:

* one exact σ evaluation (soft labels of all of U): a dense LU of the n_U × n_U harmonic
  system on the complete graph (O(n³)), a sparse LU on kNN graphs (≈ n_U^1.5·k); plus
  forming the weights (n² entries on the complete graph, n·k on kNN);
* one t-iteration CG / Jacobi-PCG solve: 2t matrix-vector products (soft labels and their
  σ-derivative), dense n_U² or sparse n·k;
* the number of evaluations: the exact loss curve evaluates σ about ``base + per_node ·
  n_U · w`` times, where ``w`` is the σ range's width relative to the data's suggested range
  (the number of true breakpoints grows with n on complete graphs and with the range);
  Algorithm 4's fast mode scans a grid and refines crossings (same shape); paper mode
  iterates every node on its own (``paper_factor`` times fast mode's time, measured);
* a few measured correction factors (``truth_factor``, ``sweep_factor``: measured time over
  counts × unit cost) absorb what the counts leave out (derivatives, refinements, Python).

The constants in :data:`CONSTANTS` are read from ``sslviz/costs.json``, which a run of
``benchmarks/costs.py`` writes; it also prints the estimate against the measured time on ~10
configurations (``benchmarks/results/costs.md``). Rerun it after a speed-up.

No Streamlit here: the app's caps (``ui.caps``) and auto-run budgets (``ui.cache``)
call these functions.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from sslviz import registry
from sslviz.specs import (
    ConditionSettings,
    ProblemSpec,
    RegretSettings,
    SweepSettings,
)

CONSTANTS_FILE = Path(__file__).with_name("costs.json")
"""The measured constants, with a note on each one measured by hand: written by
``python benchmarks/costs.py`` (never pasted here)."""
CONSTANTS: dict[str, float] = json.loads(CONSTANTS_FILE.read_text())["constants"]
"""Seconds per operation and evaluation counts (their units in :data:`CONSTANTS_FILE`'s notes)."""

DENSE_COPIES = 6
"""Dense n×n float64 arrays a complete-graph instance holds at once (distances, weights,
the harmonic system, its factors)."""

DENSE_EIG_MAX = 2000
"""Above this many unknowns the condition curve uses ARPACK, not dense eigenvalues."""

FEATURES = 45
"""Feature dimension assumed for the build cost when the spec has no PCA (``pca``)."""


@dataclass(frozen=True)
class Cost:
    """An estimate: ``seconds`` of wall time and ``memory_mb`` of peak memory."""

    seconds: float
    memory_mb: float

    def __add__(self, other: Cost) -> Cost:  # sequential parts: times add, memory peaks
        return Cost(self.seconds + other.seconds, max(self.memory_mb, other.memory_mb))

    def times(self, k: float) -> Cost:
        return Cost(self.seconds * k, self.memory_mb)

    def fits(self, max_seconds: float, max_memory_mb: float) -> bool:
        return self.seconds <= max_seconds and self.memory_mb <= max_memory_mb


ZERO = Cost(0.0, 0.0)


def _dense(spec: ProblemSpec) -> bool:
    """The cost class of the spec's family: its storage (the constants are fitted on the
    complete graph, dense, and on kNN, sparse)."""
    return not spec.graph_family.sparse


def _sfx(spec: ProblemSpec) -> str:
    """Suffix of a constant's sparse (kNN) version."""
    return "" if _dense(spec) else "_sparse"


def _sizes(spec: ProblemSpec) -> tuple[int, int, int]:
    """(n, n_U, stored graph entries)."""
    n = int(spec.n)
    nu = max(n - int(spec.n_labeled), 1)
    nnz = n * n if _dense(spec) else n * max(int(spec.k), 1)
    return n, nu, nnz


def _large_sparse(spec: ProblemSpec) -> bool:
    """A kNN graph past the fitted sizes (:data:`CONSTANTS`' ``fast_max_nodes_sparse``)."""
    return not _dense(spec) and _sizes(spec)[1] > CONSTANTS["fast_max_nodes_sparse"]


def width(lo: float, hi: float, ref: tuple[float, float] | None) -> float:
    """The σ range's width relative to the reference (suggested) range; 1 without one."""
    if ref is None or ref[1] <= ref[0]:
        return 1.0
    return max((hi - lo) / (ref[1] - ref[0]), 0.05)


def memory(spec: ProblemSpec, solver: str = "exact") -> Cost:
    """Peak memory of one instance and its solves (no time): dense n×n arrays on the
    complete graph; on kNN the sparse graph, its LU fill, or a dense inverse."""
    n, nu, nnz = _sizes(spec)
    if _dense(spec):
        b = DENSE_COPIES * 8 * n * n
    else:
        b = 12 * 8 * nnz + 4 * 8 * nu**1.5 * max(spec.k, 1)
        if solver == "inverse":
            b += 3 * 8 * nu * nu
    return Cost(0.0, 30.0 + b / 2**20)


def build(spec: ProblemSpec) -> Cost:
    """Building the instance, graph and model."""
    n, _, nnz = _sizes(spec)
    c = CONSTANTS
    d = spec.pca or FEATURES
    return Cost(c["build"] * n * d * (1 + n / 500) + c["weights"] * nnz, memory(spec).memory_mb)


def solve_seconds(spec: ProblemSpec, solver: str = "exact", t: int = 20) -> float:
    """One σ evaluation of every unlabeled node's soft label (and its derivative)."""
    c = CONSTANTS
    n, nu, nnz = _sizes(spec)
    per = c["overhead"] + c["weights"] * nnz
    if solver in ("cg", "pcg"):
        mv = c["dense_mv"] * nu * nu if _dense(spec) else c["sparse_mv"] * nnz
        return per + 2 * t * mv
    if solver == "inverse" or _dense(spec):
        return per + c["dense_lu"] * nu**3 * (2 if solver == "inverse" else 1)
    return per + c["sparse_lu"] * nu**1.5 * max(spec.k, 1)


def _chebyshev(spec: ProblemSpec) -> bool:
    """True where the exact curve is searched by Chebyshev cells (:mod:`sslviz.truth`)."""
    from sslviz.crossings import chebyshev_min_unlabeled

    return spec.gaussian and _sizes(spec)[1] >= chebyshev_min_unlabeled(_dense(spec))


def truth_evaluations(spec: ProblemSpec, w: float = 1.0, ratio: float | None = None) -> float:
    """σ evaluations of the exact loss curve (``ratio``: σ_max / σ_min, where known)."""
    c = CONSTANTS
    _, nu, _ = _sizes(spec)
    if _chebyshev(spec) and ratio is not None:
        # Cells of ratio ≤ 2, each 33 solves when resolved at degree 32, plus the doublings
        # and polishing that grow slowly with n (measured: 97–216 on [1, 7], n = 500–2000).
        cells = max(1.0, np.ceil(np.log(ratio) / np.log(2.0) - 1e-9))
        return c["cheb_per_cell"] * cells + c["cheb_per_node" + _sfx(spec)] * nu
    sfx = _sfx(spec)
    return (
        c["truth_base"] * max(w, 0.5) + c[f"truth_per_node{sfx}"] * nu ** c[f"truth_power{sfx}"] * w
    )


def loss_curve(
    spec: ProblemSpec, lo: float, hi: float, ref: tuple[float, float] | None = None
) -> Cost:
    """The exact loss curve l(σ) on [lo, hi] (``ref``: the suggested range)."""
    if not spec.gaussian:  # read off the edge lengths (docs/method.md §5.5)
        return build(spec)
    evals = truth_evaluations(spec, width(lo, hi, ref), hi / lo if lo > 0 else None)
    if _chebyshev(spec) and not _dense(spec):
        f = CONSTANTS["cheb_factor_sparse"]  # parallel solves, no extra derivative work
    else:
        f = CONSTANTS["truth_factor" + _sfx(spec)]
    return build(spec) + Cost(f * evals * solve_seconds(spec), memory(spec).memory_mb)


def sweep_solves(spec: ProblemSpec, settings: SweepSettings, w: float = 1.0) -> float:
    """Solves of Algorithm 4 over a range of relative width ``w``."""
    c = CONSTANTS
    _, nu, _ = _sizes(spec)
    sfx = _sfx(spec)
    large = _large_sparse(spec)
    if large:
        nu = c["fast_max_nodes_sparse"]
    fast = c["fast_base"] * max(w, 0.5) + c[f"fast_per_node{sfx}"] * nu ** c[f"fast_power{sfx}"] * w
    if large:
        fast = min(fast, c["fast_solves_large_sparse"] * max(w, 1.0))
    paper = c["paper_factor"] if _dense(spec) else c["paper_factor_sparse"]
    return fast * (paper if settings.mode == "paper" else 1.0)


def sweep(
    spec: ProblemSpec,
    lo: float,
    hi: float,
    settings: SweepSettings,
    ref: tuple[float, float] | None = None,
) -> Cost:
    """Algorithm 4's intervals (fast or paper mode, any solver)."""
    w = width(lo, hi, ref)
    solves = sweep_solves(spec, settings, w)
    if not _dense(spec) and settings.solver in ("exact", "inverse"):
        # one factorization serves every node at a σ: about as many as the exact loss's
        solves = min(solves, truth_evaluations(spec, w))
    f = CONSTANTS["sweep_factor" + ("_large_sparse" if _large_sparse(spec) else _sfx(spec))]
    s = f * solves * solve_seconds(spec, settings.solver, settings.cg_iters)
    return build(spec) + Cost(s, memory(spec, settings.solver).memory_mb)


def trust(spec: ProblemSpec, points: int, cg_iters: int = 20) -> Cost:
    """The trust curve on ``points`` σ: an exact solve and a doubling search over t (CG
    and Jacobi-PCG, each up to 2 × ``T_MAX`` iterations) per σ."""
    from sslviz.conditioning import T_MAX

    c = CONSTANTS
    t = c["trust_t"]
    if not _dense(spec):
        t = min(max(t, c["trust_t_per_node_sparse"] * _sizes(spec)[1]), 4 * T_MAX)
    per = solve_seconds(spec, "exact") + 2 * solve_seconds(spec, "cg", int(t) // 2)
    per += solve_seconds(spec, "cg", cg_iters)
    return build(spec) + Cost(points * per, memory(spec).memory_mb)


def convergence(spec: ProblemSpec, iterations: int, breakpoints: int = 50) -> Cost:
    """The t-scrubber (:func:`sslviz.convergence.convergence`): one run of ``iterations``
    CG steps and one of Jacobi-PCG per σ read (its grid and 3 σ per breakpoint); the sides
    after every step are kept (3 bytes per node, step and σ while they are compared)."""
    from sslviz.convergence import GRID

    points = GRID + 3 * breakpoints
    s = points * 2 * solve_seconds(spec, "cg", iterations)
    mb = points * iterations * _sizes(spec)[1] * 3 / 1e6
    return build(spec) + Cost(s, memory(spec).memory_mb + mb)


def attribution(spec: ProblemSpec, settings: SweepSettings, misses: int) -> Cost:
    """Looking for the causes of ``misses`` missed breakpoints
    (:func:`sslviz.intervals.score`): per miss 3 exact solves, the sweep's solver at up to
    15 probe σ, and for a solver miss the search of the t it needed (doubling up to
    ``T_CAP`` iterations, then bisecting: about two solves of ``T_CAP`` iterations where
    CG needs many, as on large kNN graphs; measured 2.4 s per miss at 12,000 points)."""
    from sslviz.attribution import T_CAP

    per = 3 * solve_seconds(spec, "exact")
    per += 15 * solve_seconds(spec, settings.solver, settings.cg_iters)
    if settings.solver in ("cg", "pcg"):
        per += 2 * solve_seconds(spec, settings.solver, T_CAP)
    return Cost(misses * per, memory(spec).memory_mb)


def attributed_misses(spec: ProblemSpec, settings: SweepSettings, seconds: float) -> int:
    """How many misses :func:`attribution` fits in ``seconds`` (at least 10)."""
    return max(10, int(seconds / attribution(spec, settings, 1).seconds))


def condition(spec: ProblemSpec, settings: ConditionSettings) -> Cost:
    """The condition curve on ``settings.points`` σ: extreme eigenvalues (dense on small or
    complete graphs), CG to the tolerance and t-iteration CG per σ."""
    c = CONSTANTS
    _, nu, _ = _sizes(spec)
    eig = c["eig_factor"] * c["dense_lu"] * min(nu, DENSE_EIG_MAX) ** 3
    if nu > DENSE_EIG_MAX:  # ARPACK (shift-invert for the smallest eigenvalue)
        eig += 10 * solve_seconds(spec, "exact")
    per = eig + solve_seconds(spec, settings.solver, int(c["cond_t"]))
    per += solve_seconds(spec, settings.solver, settings.cg_iters)
    return build(spec) + Cost(settings.points * per, memory(spec).memory_mb)


def regret(
    spec: ProblemSpec,
    lo: float,
    hi: float,
    settings: SweepSettings,
    regret: RegretSettings,
    ref: tuple[float, float] | None = None,
) -> Cost:
    """The online experiment: every round of every repetition builds an instance and its
    exact loss (shared by the feedback models); ``approx`` and ``full`` feedback run
    Algorithm 4 on it too."""
    per = loss_curve(spec, lo, hi, ref)
    if {"approx", "full"} & set(regret.feedback):
        per = per + sweep(spec, lo, hi, settings, ref)
    per = per.times(1 + 0.02 * len(regret.feedback))  # the learners' own updates
    return per.times(regret.rounds * regret.repeats)


def learn(
    spec: ProblemSpec,
    lo: float,
    hi: float,
    settings,
    approx: Sequence = (),
    ref: tuple[float, float] | None = None,
) -> Cost:
    """Learning from many instances (:func:`sslviz.learn.learn` with ``settings``, a
    :class:`sslviz.specs.LearnSettings`, drawn from ``spec``'s dataset): an exact loss curve
    per instance (every k of a k range for the training ones), and Algorithm 4 with each of
    ``approx`` (sweep settings) on the training instances."""
    ks = 1 if settings.k_values is None else len(settings.k_values)
    with_curve = bool(settings.curve) and settings.test_instances > 0
    curve = settings.repeats * max(settings.curve) if with_curve else 0
    count = settings.instances * ks + settings.test_instances + curve
    per = loss_curve(spec, lo, hi, ref)
    total = per.times(count)
    for s in approx:
        total = total + sweep(spec, lo, hi, s, ref).times(settings.instances)
    return total


def speed_config(
    spec: ProblemSpec,
    lo: float,
    hi: float,
    settings: SweepSettings,
    ref: tuple[float, float] | None = None,
) -> Cost:
    """One configuration of the Speed page: build the instance, time Algorithm 4."""
    return sweep(spec, lo, hi, settings, ref)


def recording(
    spec: ProblemSpec,
    lo: float,
    hi: float,
    settings: SweepSettings,
    ref: tuple[float, float] | None = None,
) -> Cost:
    """The Algorithm 4 player: the exact loss and a recorded sweep (the event log adds
    memory: ~300 bytes per event, at most a few per solve)."""
    sw = sweep(spec, lo, hi, settings, ref)
    log = Cost(
        0.0, sw.memory_mb + 3 * 300 * sweep_solves(spec, settings, width(lo, hi, ref)) / 2**20
    )
    return loss_curve(spec, lo, hi, ref) + sw + log


# --------------------------------------------------------------------------------------------
# Over the cap: what would fit
# --------------------------------------------------------------------------------------------

Estimate = Callable[[ProblemSpec, float, float], Cost]
"""``estimate(spec, lo, hi)``: the cost of a request at other settings (for :func:`advice`)."""


def _with_n(spec: ProblemSpec, n: int) -> ProblemSpec:
    return replace(
        spec,
        n=n,
        n_labeled=min(spec.n_labeled, n - 1),
        k=min(spec.k, n - 1),
        subset=min(spec.subset, n),
    )


def largest_n(
    estimate: Estimate, spec: ProblemSpec, lo: float, hi: float, max_seconds: float, max_mb: float
) -> int | None:
    """The largest n (a multiple of 10 when ≥ 100) whose estimate fits, None if none ≥ 20."""
    low, high = 20, int(spec.n)
    if low >= high or not estimate(_with_n(spec, low), lo, hi).fits(max_seconds, max_mb):
        return None
    while high - low > 1:
        mid = (low + high) // 2
        if estimate(_with_n(spec, mid), lo, hi).fits(max_seconds, max_mb):
            low = mid
        else:
            high = mid
    return low - low % 10 if low >= 100 else low


def advice(
    estimate: Estimate,
    spec: ProblemSpec,
    lo: float,
    hi: float,
    max_seconds: float,
    max_mb: float,
    extra: tuple[str, ...] = (),
) -> list[str]:
    """Nearby settings whose estimate fits the caps: a smaller n, the first sparse Gaussian
    family (kNN, for a dense graph), a narrower σ range (same centre), and ``extra`` (the
    page's own)."""
    out = []
    n = largest_n(estimate, spec, lo, hi, max_seconds, max_mb)
    family = spec.graph_family
    if n is not None:
        out.append(f"n ≤ {n}" + (f" on a {family.label} graph" if _dense(spec) else ""))
    if _dense(spec):
        sparse = next(f for f in registry.FAMILIES.values() if f.sparse and f.gaussian)
        other = replace(spec, family=sparse.name, k=min(spec.k, spec.n - 1))
        if estimate(other, lo, hi).fits(max_seconds, max_mb):
            out.append(f"the {sparse.label} family")
    mid = 0.5 * (lo + hi)
    for frac, name in (
        (0.5, "half as wide"),
        (0.25, "a quarter as wide"),
        (0.1, "a tenth as wide"),
    ):
        half = 0.5 * frac * (hi - lo)
        if estimate(spec, mid - half, mid + half).fits(max_seconds, max_mb):
            out.append(f"a σ range {name} ([{mid - half:.3g}, {mid + half:.3g}])")
            break
    return out + list(extra)


def describe(cost: Cost, max_seconds: float, max_mb: float) -> str:
    """``about 240 s estimated (cap 60 s)`` and/or the memory part, whichever is over."""
    parts = []
    if cost.seconds > max_seconds:
        parts.append(
            f"about {seconds_text(cost.seconds)} estimated (cap {seconds_text(max_seconds)})"
        )
    if cost.memory_mb > max_mb:
        parts.append(f"about {cost.memory_mb:,.0f} MB of memory (cap {max_mb:,.0f} MB)")
    return " and ".join(parts)


def seconds_text(s: float) -> str:
    """Seconds for a reader: ``4.2 s``, ``35 s``, ``6 min``, ``2 h``."""
    if s < 120:
        return f"{s:.0f} s" if s >= 10 else f"{s:.2g} s"
    if s < 7200:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.0f} h"


def over_cap(
    what: str,
    estimate: Estimate,
    spec: ProblemSpec,
    lo: float,
    hi: float,
    max_seconds: float,
    max_mb: float,
    extra: tuple[str, ...] = (),
) -> str | None:
    """The message refusing ``what`` when its estimate is over the caps, else None."""
    cost = estimate(spec, lo, hi)
    if cost.fits(max_seconds, max_mb):
        return None
    ways = advice(estimate, spec, lo, hi, max_seconds, max_mb, extra)
    fix = f": {', or '.join(ways)}" if ways else ""
    return (
        f"Not computed: {what} would take {describe(cost, max_seconds, max_mb)} on this "
        f"server. Settings that fit{fix}."
        if ways
        else f"Not computed: {what} would take {describe(cost, max_seconds, max_mb)} on this "
        "server; choose smaller settings."
    )
