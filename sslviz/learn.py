"""Learning σ (and k) from many instances: the distributional setting (docs/method.md §10,
paper §2 and §4).

Instances i = 1..m come from one domain: a dataset, two classes, n, |L|, a graph family and
a σ range, with fresh points and labeled nodes per seed (or one file per instance). Each
instance's loss l_i(σ) is piecewise constant with its breakpoints located exactly
(:func:`sslviz.problem.loss_curve`), so everything here is exact, not read off a grid:

- the training average L̄_m(σ) = (1/m) Σ_i l_i(σ) on the merged breakpoints ∪_i B_i
  (:func:`average_loss`). Losses are kept as integer counts of misclassified unlabeled
  nodes over a common denominator, so equal values are equal exactly: breakpoints where
  the average does not change are dropped, and the ERM set misses no tie;
- its ERM set, every maximal σ interval attaining the minimum, and σ̂ (:func:`erm`): the
  geometric middle √(lo·hi) of the ERM interval widest on a log axis (the first of equal
  widths);
- on held-out instances (:func:`held_out_report`): L̄_test(σ̂), min L̄_test, the excess, and the
  uniform gap sup_σ |L̄_train(σ) − L̄_test(σ)|, the maximum over the pieces of both sets'
  merged breakpoints.

:func:`learn` runs a domain end to end: the instances' curves in parallel (local workers
or a Dask cluster, the same results), the (k, σ) grid for kNN families (the kNN pattern of
each k does not depend on σ, so each k is one exact curve per instance), the same ERM on
Algorithm 4's estimated losses (CG-t) with its σ̂'s *true* test loss, and the learning
curve over m. The paper bounds the pseudo-dimension of these loss classes without
constants (each family's ``pseudo_dimension``, :mod:`sslviz.families`); the pieces of the
union of all instances' breakpoints (what its counting argument bounds) are reported as
measured numbers.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace

import numpy as np

from sslviz import registry
from sslviz._memo import Memo
from sslviz._threads import WORKERS, map_tasks, warm_workers
from sslviz.piecewise import PiecewiseLoss, piece_index
from sslviz.specs import ProblemSpec, SweepSettings

SIGMA_HAT_RULE = "the geometric middle √(lo·hi) of the ERM interval widest on a log axis"

TRAIN, TEST, CURVE = 0, 1, 2  # the seed streams of a domain


def instance_seeds(seed: int, count: int, stream: int, repetition: int = 0) -> list[int]:
    """Seeds of ``count`` instances of one stream (:data:`TRAIN`, :data:`TEST`, or the
    learning curve's :data:`CURVE` of ``repetition``), from ``SeedSequence(seed)``."""
    key = (stream,) if stream != CURVE else (stream, repetition)
    state = np.random.SeedSequence(seed, spawn_key=key).generate_state(count, np.uint32)
    return [int(s) for s in state]


@dataclass(frozen=True, eq=False)
class InstanceLoss:
    """One instance's loss as counts: ``wrong[i]`` unlabeled nodes misclassified on the
    piece ``[edges[i], edges[i+1])`` of σ, out of ``n_unlabeled``."""

    edges: np.ndarray
    wrong: np.ndarray
    n_unlabeled: int

    @classmethod
    def from_loss(cls, loss: PiecewiseLoss, n_unlabeled: int) -> InstanceLoss:
        """From a loss whose values are fractions of ``n_unlabeled`` nodes (every piece
        given: a σ with no value, NaN, is refused)."""
        if not np.isfinite(loss.values).all():
            raise ValueError("InstanceLoss: a piece of the loss has no value (NaN).")
        wrong = np.rint(loss.values * n_unlabeled).astype(np.int64)
        if np.any(np.abs(wrong - loss.values * n_unlabeled) > 1e-6):
            raise ValueError("InstanceLoss: the loss values are not counts over n_unlabeled.")
        return cls(loss.edges, wrong, int(n_unlabeled))

    def counts_at(self, sigma: np.ndarray) -> np.ndarray:
        """Misclassified nodes at each σ (right-continuous, as :class:`PiecewiseLoss`)."""
        return self.wrong[piece_index(self.edges, sigma)]


@dataclass(frozen=True, eq=False)
class AverageLoss:
    """The exact average of m instances' losses (:func:`average_loss`).

    Attributes
    ----------
    edges : ndarray of shape (n_pieces + 1,)
        σ range ends and the breakpoints where the average changes.
    numerators : ndarray of shape (n_pieces,), integer
        The average on each piece is ``numerators / denominator``.
    denominator : int
        m · lcm of the instances' |U|.
    instances : int
        m.
    union_breakpoints : int
        Distinct breakpoints of all the instances together (the union's pieces are one
        more): what the paper's counting argument bounds.
    """

    edges: np.ndarray
    numerators: np.ndarray
    denominator: int
    instances: int
    union_breakpoints: int

    @property
    def loss(self) -> PiecewiseLoss:
        """The average as a piecewise-constant function (fractions of U, in [0, 1])."""
        return PiecewiseLoss(self.edges, self.numerators / self.denominator)

    def at(self, sigma: float) -> float:
        """L̄(σ) (right-continuous)."""
        return float(self.loss(sigma))


def average_loss(instances: Sequence[InstanceLoss]) -> AverageLoss:
    """L̄_m(σ) = (1/m) Σ_i l_i(σ), exactly, on the merged breakpoints of the instances (all
    on one σ range), with the breakpoints where it does not change dropped."""
    if not instances:
        raise ValueError("average_loss needs at least one instance.")
    lo, hi = instances[0].edges[0], instances[0].edges[-1]
    for inst in instances:
        if inst.edges[0] != lo or inst.edges[-1] != hi:
            raise ValueError(
                f"average_loss: every instance must share one σ range; got "
                f"[{inst.edges[0]}, {inst.edges[-1]}] and [{lo}, {hi}]."
            )
    inner = np.unique(np.concatenate([inst.edges[1:-1] for inst in instances]))
    edges = np.r_[lo, inner, hi]
    mids = 0.5 * (edges[:-1] + edges[1:])
    common = math.lcm(*(inst.n_unlabeled for inst in instances))
    m = len(instances)
    big = m * common * max(inst.n_unlabeled for inst in instances) >= 2**62
    total = np.zeros(mids.size, dtype=object if big else np.int64)
    for inst in instances:
        scale = common // inst.n_unlabeled
        counts = inst.counts_at(mids)
        total = total + (counts.astype(object) if big else counts) * scale
    keep = np.r_[True, total[1:] != total[:-1]]
    return AverageLoss(np.r_[edges[:-1][keep], hi], total[keep], m * common, m, int(inner.size))


@dataclass(frozen=True)
class ERM:
    """Empirical risk minimisation over σ: the smallest average ``loss``, every maximal σ
    interval attaining it, and ``sigma_hat`` (:data:`SIGMA_HAT_RULE`)."""

    loss: float
    intervals: tuple[tuple[float, float], ...]
    sigma_hat: float


def erm(average: AverageLoss) -> ERM:
    """The ERM set of ``average`` (exact: the minimum is compared as integers)."""
    best = average.numerators.min()
    idx = np.flatnonzero(average.numerators == best)
    e = average.edges
    intervals = tuple((float(e[i]), float(e[i + 1])) for i in idx)
    widths = [math.log(b / a) for a, b in intervals]
    a, b = intervals[int(np.argmax(widths))]
    return ERM(float(best / average.denominator), intervals, math.sqrt(a * b))


@dataclass(frozen=True)
class HeldOutReport:
    """σ̂ on held-out instances: L̄_test(σ̂), min L̄_test, their difference (≥ 0) and the
    uniform gap sup_σ |L̄_train(σ) − L̄_test(σ)| (fractions of U)."""

    loss_at_sigma_hat: float
    best_loss: float
    excess: float
    uniform_gap: float


def uniform_gap(a: AverageLoss, b: AverageLoss) -> float:
    """sup_σ |a(σ) − b(σ)|, exactly: the largest difference over the pieces of the merged
    breakpoints of both (on one σ range)."""
    edges = np.unique(np.r_[a.edges, b.edges])
    mids = 0.5 * (edges[:-1] + edges[1:])
    na = a.numerators[piece_index(a.edges, mids)]
    nb = b.numerators[piece_index(b.edges, mids)]
    pairs = zip(na.tolist(), nb.tolist(), strict=True)
    diff = max(abs(x * b.denominator - y * a.denominator) for x, y in pairs)  # Python ints
    return diff / (a.denominator * b.denominator)


def held_out_report(train: AverageLoss, test: AverageLoss, sigma_hat: float) -> HeldOutReport:
    """How σ̂ learned on ``train`` does on ``test``."""
    at = test.at(sigma_hat)
    best = float(test.numerators.min() / test.denominator)
    return HeldOutReport(at, best, at - best, uniform_gap(train, test))


# -- a domain end to end --------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class InstanceCurves:
    """One instance's exact loss and Algorithm 4's estimated losses (one per sweep settings
    asked for), with the seconds each took."""

    exact: InstanceLoss | None  # None when it was not asked for (computed before)
    approx: tuple[InstanceLoss, ...]
    seconds_exact: float
    seconds_approx: tuple[float, ...]


def instance_curves(
    spec: ProblemSpec,
    sigma_range: tuple[float, float],
    approx: Sequence[SweepSettings] = (),
    exact: bool = True,
) -> InstanceCurves:
    """Build the instance of ``spec`` and compute its exact loss over ``sigma_range`` (unless
    ``exact`` is False), and Algorithm 4's estimated loss with each of ``approx`` (one-vs-all
    for more than two classes: docs/method.md §13.8)."""
    from sslviz.problem import build_problem, loss_curve, problem_sweep

    lo, hi = sigma_range
    problem = build_problem(spec)
    t0 = time.perf_counter()
    curve = loss_curve(problem, lo, hi) if exact else None
    seconds_exact = time.perf_counter() - t0
    n_u = int(problem.model.n_unlabeled)
    estimates, seconds = [], []
    for settings in approx:
        t0 = time.perf_counter()
        res = problem_sweep(problem, lo, hi, settings)
        estimates.append(InstanceLoss.from_loss(_estimate_everywhere(res.estimated_loss()), n_u))
        seconds.append(time.perf_counter() - t0)
    found = InstanceLoss.from_loss(curve.loss, n_u) if curve is not None else None
    return InstanceCurves(found, tuple(estimates), seconds_exact, tuple(seconds))


def _estimate_everywhere(estimate: PiecewiseLoss) -> PiecewiseLoss:
    """Algorithm 4's estimated loss with every σ it leaves uncovered (paper mode's restarts
    skip some) at loss 1, every node wrong: the learner has no estimate there, so its ERM
    never prefers such a σ to an estimated one (docs/method.md §10.6)."""
    values = np.where(np.isnan(estimate.values), 1.0, estimate.values)
    return PiecewiseLoss(estimate.edges, values)


def _instance_task(task: tuple) -> InstanceCurves:
    return instance_curves(*task)


_EXACT = Memo(4096)
"""This process's exact curves of :func:`learn`'s instances: ``(spec, σ_min, σ_max)`` →
``(InstanceLoss, seconds it took)``; a change that keeps instances (t, more instances, the
learning curve's repetitions) computes only the new ones."""

_ESTIMATES = Memo(4096)
"""The same for Algorithm 4's estimates: ``(spec, σ_min, σ_max, settings)`` →
``(InstanceLoss, seconds it took)``."""


def clear_instance_memo() -> None:
    """Forget every memoised curve (for comparisons of two paths that must each compute)."""
    _EXACT.clear()
    _ESTIMATES.clear()


def warm_up(seed: int = 0) -> None:
    """One small instance of the default dataset, exact and CG-20: run once in a fresh
    worker process, it leaves the modules imported, the compiled kernels loaded and the
    dataset read, so that the worker's first real instance pays none of it."""
    spec = ProblemSpec(n=40, n_labeled=6, seed=seed)
    instance_curves(spec, (1.0, 2.0), (SweepSettings(solver="cg", mode="fast"),))


def start_workers(n_jobs: int = WORKERS) -> None:
    """Warm this process with :func:`warm_up` (a server's first instance computed here, as
    one more instance of the learning page is, then loads no kernels), then start the
    ``n_jobs`` local worker processes that :func:`learn` runs its instances on where it
    cannot fork them (a server's threads), each warmed by :func:`warm_up`; they stay up
    between runs (:func:`sslviz._threads.warm_workers`)."""
    warm_up()
    warm_workers(warm_up, n_jobs)


@dataclass(frozen=True, eq=False)
class KRow:
    """One k of the (k, σ) map: the training average over σ and its ERM."""

    k: int
    average: AverageLoss
    erm: ERM


@dataclass(frozen=True, eq=False)
class LearningCurve:
    """Exact ERM on the first m instances of R fresh draws, for each m: arrays of shape
    (R, len(m)). ``excess``: L̄_test(σ̂_m) − min L̄_test; ``uniform_gap``: sup_σ |L̄_m −
    L̄_test|; ``union_pieces``: pieces of the union of the m instances' breakpoints."""

    m: np.ndarray
    excess: np.ndarray
    uniform_gap: np.ndarray
    union_pieces: np.ndarray


@dataclass(frozen=True, eq=False)
class ApproximateERM:
    """ERM on Algorithm 4's estimated losses with one solver (e.g. 'CG-20'): the estimated
    training ``average`` and its ``erm``; the exact training average at its σ̂; ``test``,
    σ̂'s *true* held-out report (the gap against the estimated average); its excess over
    exact ERM's held-out loss; and the seconds its estimates took (all instances)."""

    solver: str
    average: AverageLoss
    erm: ERM
    exact_train_loss: float
    test: HeldOutReport | None
    excess_over_exact: float | None
    seconds: float


@dataclass(frozen=True, eq=False)
class LearnResult:
    """What :func:`learn` found (σ in PCA-space distance units, losses as fractions of U).

    ``average``, ``erm`` and ``test`` are exact ERM's: the training average, its ERM and
    σ̂'s held-out report; ``test_average`` the held-out average. With a k range, ``grid``
    holds each k and the fields above are those of the best k (``k``; the smallest k
    among equal losses). ``train`` holds the training instances' exact losses at ``k``.
    ``approximate`` holds ERM on Algorithm 4's estimates, one entry per sweep settings
    asked for (at ``k``). ``seconds_exact`` is the time of all exact curves.
    """

    sigma_min: float
    sigma_max: float
    family: str
    k: int | None
    average: AverageLoss
    erm: ERM
    test: HeldOutReport | None
    test_average: AverageLoss | None
    train: tuple[InstanceLoss, ...]
    grid: tuple[KRow, ...]
    approximate: tuple[ApproximateERM, ...]
    curve: LearningCurve | None
    instances: int
    test_instances: int
    seconds_exact: float
    seconds: float


def learn(
    train: Sequence[ProblemSpec],
    test: Sequence[ProblemSpec],
    sigma_range: tuple[float, float],
    *,
    k_values: Sequence[int] | None = None,
    approx: Sequence[SweepSettings] = (),
    curve_sizes: Sequence[int] = (),
    curve_pools: Sequence[Sequence[ProblemSpec]] = (),
    n_jobs: int = -1,
    dask: str | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> LearnResult:
    """Exact ERM of σ (and k) on the training instances, measured on the test instances,
    beside ERM on Algorithm 4's estimates.

    Parameters
    ----------
    train, test : sequence of ProblemSpec
        One spec per instance (``test`` may be empty). With ``k_values`` their ``k`` is
        replaced by each value in turn.
    sigma_range : (float, float)
        [σ_min, σ_max] shared by every instance.
    k_values : sequence of int, optional
        The kNN families' k to learn jointly with σ (exact losses).
    approx : sequence of SweepSettings
        Also learn σ at the chosen k on Algorithm 4's estimated losses with each of these
        settings (e.g. CG-5, CG-10, CG-20 in fast mode); each σ̂ is measured by the exact
        curves.
    curve_sizes, curve_pools : optional
        The learning curve: for each pool (one per repetition, at least ``max(curve_sizes)``
        specs), exact ERM on its first m specs for each m of ``curve_sizes``, measured on
        ``test`` (needed), at the chosen k.
    n_jobs, dask
        Local worker processes (-1: all cores), or a Dask scheduler address; the results
        are the same either way.
    progress : callable, optional
        ``progress(fraction, message)`` as instances finish.
    """
    start = time.perf_counter()
    if not train:
        raise ValueError("learn needs at least one training instance.")
    if curve_sizes and not test:
        raise ValueError("learn: a learning curve is measured on test instances; give some.")
    lo, hi = float(sigma_range[0]), float(sigma_range[1])
    ks = [None] if k_values is None else [int(k) for k in k_values]
    approx = tuple(approx)
    exact: dict[ProblemSpec, InstanceLoss] = {}
    estimated: dict[ProblemSpec, InstanceCurves] = {}  # with the estimates of ``approx``
    planned = len(train) * len(ks) + len(test) + sum(len(p) for p in curve_pools)
    seconds = [0.0]

    def run(specs: list[ProblemSpec], with_estimates: Sequence[ProblemSpec] = ()) -> None:
        """Exact curves of ``specs`` (and Algorithm 4's estimates of ``with_estimates``)
        not computed yet, as one batch of independent tasks (one per instance); what this
        process computed before (:data:`_EXACT`, :data:`_ESTIMATES`) is not sent."""
        wanted = [s for s in dict.fromkeys(with_estimates) if s not in estimated] if approx else []
        found: dict = {}  # (spec, settings) → (estimate, seconds), this process's
        for s in dict.fromkeys([*specs, *wanted]):
            if s not in exact and (hit := _EXACT.get((s, lo, hi))) is not None:
                exact[s], took = hit
                seconds[0] += took
        for s in wanted:
            for a in approx:
                if (hit := _ESTIMATES.get((s, lo, hi, a))) is not None:
                    found[s, a] = hit
        asked = {s: tuple(a for a in approx if (s, a) not in found) for s in wanted}
        todo = [s for s in dict.fromkeys([*specs, *wanted]) if s not in exact or asked.get(s)]
        base = len(exact)

        def tick(i: int) -> None:
            if progress is not None:
                progress(min(1.0, (base + i) / planned), f"{base + i} of ~{planned} instances")

        tasks = [(s, (lo, hi), asked.get(s, ()), s not in exact) for s in todo]
        done = map_tasks(_instance_task, tasks, n_jobs=n_jobs, dask=dask, done=tick)
        for task, c in zip(tasks, done, strict=True):
            s = task[0]
            if c.exact is not None:
                seconds[0] += c.seconds_exact
                exact[s] = c.exact
                _EXACT.put((s, lo, hi), (c.exact, c.seconds_exact))
            for a, est, took in zip(task[2], c.approx, c.seconds_approx, strict=True):
                found[s, a] = (est, took)
                _ESTIMATES.put((s, lo, hi, a), (est, took))
        for s in wanted:
            estimated[s] = InstanceCurves(
                None,
                tuple(found[s, a][0] for a in approx),
                0.0,
                tuple(found[s, a][1] for a in approx),
            )

    def at_k(specs: Sequence[ProblemSpec], k: int | None) -> list[ProblemSpec]:
        return [s if k is None else replace(s, k=k) for s in specs]

    def held_out(k: int | None) -> list[ProblemSpec]:
        return at_k(test, k) + [s for pool in curve_pools for s in at_k(pool, k)]

    # One batch when k is given (the cores stay busy to the end); with a k range the
    # estimates and the held-out curves wait for the k that every k's training curves pick.
    if k_values is None:
        run(list(train) + held_out(None), with_estimates=train)
    else:
        run([s for k in ks for s in at_k(train, k)])
    rows = []
    for k in ks:
        avg = average_loss([exact[s] for s in at_k(train, k)])
        rows.append((k, avg, erm(avg)))
    k, average, found = min(rows, key=lambda r: r[2].loss)  # the first among equals
    chosen = at_k(train, k)
    run(chosen + held_out(k), with_estimates=chosen)
    test_avg = average_loss([exact[s] for s in at_k(test, k)]) if test else None
    report = held_out_report(average, test_avg, found.sigma_hat) if test_avg else None
    estimates = []
    for i, settings in enumerate(approx):
        curves = [estimated[s] for s in chosen]
        avg_t = average_loss([c.approx[i] for c in curves])
        found_t = erm(avg_t)
        rep_t = held_out_report(avg_t, test_avg, found_t.sigma_hat) if test_avg else None
        estimates.append(
            ApproximateERM(
                settings.label,
                avg_t,
                found_t,
                average.at(found_t.sigma_hat),
                rep_t,
                None if report is None else rep_t.loss_at_sigma_hat - report.loss_at_sigma_hat,
                float(sum(c.seconds_approx[i] for c in curves)),
            )
        )
    curve = None
    if curve_sizes and test_avg is not None:
        pools = [at_k(p, k) for p in curve_pools]
        curve = _learning_curve(curve_sizes, pools, exact, test_avg)
    return LearnResult(
        sigma_min=lo,
        sigma_max=hi,
        family=train[0].family,
        k=k,
        average=average,
        erm=found,
        test=report,
        test_average=test_avg,
        train=tuple(exact[s] for s in chosen),
        grid=tuple(KRow(kk, a, e) for kk, a, e in rows) if k_values is not None else (),
        approximate=tuple(estimates),
        curve=curve,
        instances=len(train),
        test_instances=len(test),
        seconds_exact=seconds[0],
        seconds=time.perf_counter() - start,
    )


@dataclass(frozen=True, eq=False)
class LearnPart:
    """What a learning stream (:func:`learn_stream`) has computed so far.

    Attributes
    ----------
    result : LearnResult
        Exact ERM on the training instances in so far (``result.instances`` of them), the
        first ones in order; held-out instances, Algorithm 4's estimates and the learning
        curve only in the last part, which is :func:`learn`'s result.
    instances : int
        The training instances asked for.
    complete : bool
        Whether this is the last part.
    later : tuple of str
        What only the last part has, in words (``"the held-out instances"``...).
    """

    result: LearnResult
    instances: int
    complete: bool
    later: tuple[str, ...] = ()

    @property
    def done(self) -> int:
        """Training instances in so far."""
        return self.result.instances

    @property
    def fraction(self) -> float:
        """The share of the training instances in (1 when complete)."""
        return 1.0 if self.complete else self.done / self.instances

    def status(self) -> str:
        """How far it is, in words: "training instances 1–8 of 40 so far"."""
        if self.complete:
            return f"all {self.instances} training instances"
        return f"training instances 1–{self.done} of {self.instances} so far"

    def missing(self) -> str:
        """What is missing, in words (nothing when complete)."""
        if self.complete:
            return ""
        left = self.instances - self.done
        first = (
            f"instance {self.instances}"
            if left == 1
            else f"instances {self.done + 1}–{self.instances}"
        )
        parts = [first, *self.later]
        listed = ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]
        return (
            f"{self.done} of {self.instances} training instances computed; {listed} "
            f"{'are' if len(parts) > 1 or left > 1 else 'is'} missing."
        )


def learn_stream(
    train: Sequence[ProblemSpec],
    test: Sequence[ProblemSpec],
    sigma_range: tuple[float, float],
    *,
    first: int = 2,
    first_jobs: int | None = None,
    **options,
) -> Iterator[LearnPart]:
    """:func:`learn`, its training instances arriving: a :class:`LearnPart` after the first
    ``first`` training instances, then after twice as many each time (exact ERM on the
    instances in so far, on ``options``' ``k_values``), then the whole result. The first
    part runs on ``first_jobs`` workers (None: ``options``' ``n_jobs``; 1: in this
    process, e.g. while a server's worker processes are still starting).

    Each part computes only its new instances (this process keeps every curve it computed
    or got back from its workers, :data:`_EXACT`), and the last part is :func:`learn` with
    the same arguments (``options`` are its keywords): the same result to the bit, as
    every curve is the same whoever computes it. Stopping the iteration stops the work
    after the part being computed.

    Yields
    ------
    LearnPart
    """
    if not train:
        raise ValueError("learn needs at least one training instance.")
    partial = {k: options[k] for k in ("k_values", "n_jobs", "dask") if k in options}
    later = tuple(
        words
        for words, there in (
            ("the held-out instances", test),
            ("Algorithm 4's estimates", options.get("approx")),
            ("the learning curve", options.get("curve_sizes") and test),
        )
        if there
    )
    m = max(1, int(first))
    while m < len(train):
        jobs = {"n_jobs": first_jobs} if first_jobs is not None and m == first else {}
        result = learn(train[:m], (), sigma_range, **(partial | jobs))
        yield LearnPart(result, len(train), False, later)
        m *= 2
    yield LearnPart(learn(train, test, sigma_range, **options), len(train), True)


def _learning_curve(sizes, pools, exact, test_avg: AverageLoss) -> LearningCurve:
    m = np.array(sorted(set(int(x) for x in sizes)))
    shape = (len(pools), m.size)
    excess, gap, pieces = np.zeros(shape), np.zeros(shape), np.zeros(shape, np.int64)
    for r, pool in enumerate(pools):
        for j, size in enumerate(m):
            avg = average_loss([exact[s] for s in pool[:size]])
            rep = held_out_report(avg, test_avg, erm(avg).sigma_hat)
            excess[r, j], gap[r, j] = rep.excess, rep.uniform_gap
            pieces[r, j] = avg.union_breakpoints + 1
    return LearningCurve(m, excess, gap, pieces)


# -- a domain's instances, and what the page says about a result -------------------------


def compared(settings) -> tuple[SweepSettings, ...]:
    """The approximate learners of ``settings`` (a :class:`sslviz.specs.LearnSettings`):
    its own solver and t first when it learns on estimates, then its variant (CG when it
    learns on exact losses) with each t of ``compare_t``."""
    variant = "cg" if settings.solver == "exact" else settings.solver
    ts = ([settings.cg_iters] if settings.solver != "exact" else []) + list(settings.compare_t)
    return tuple(
        SweepSettings(solver=variant, cg_iters=t, mode=settings.mode) for t in dict.fromkeys(ts)
    )


def drawn_instances(
    spec: ProblemSpec,
    instances: int,
    test_instances: int,
    curve_sizes: Sequence[int] = (),
    repeats: int = 0,
) -> tuple:
    """The specs of a domain drawn from ``spec``'s dataset: ``(train, test, pools)``, each
    instance ``spec.with_seed(s)`` with its seed from the streams of ``spec.seed``
    (:func:`instance_seeds`). ``pools``: the learning curve's ``max(curve_sizes)`` specs of
    each repetition (none without sizes or test instances); the first repetition starts
    with the training instances, so its largest m that fits is the ERM of ``train``."""
    train = [spec.with_seed(s) for s in instance_seeds(spec.seed, instances, TRAIN)]
    test = [spec.with_seed(s) for s in instance_seeds(spec.seed, test_instances, TEST)]
    pools = []
    if curve_sizes and test:
        most = max(curve_sizes)
        for r in range(repeats):
            first = train[:most] if r == 0 else []
            fresh = instance_seeds(spec.seed, most - len(first), CURVE, r)
            pools.append(first + [spec.with_seed(s) for s in fresh])
    return train, test, pools


def classes_words(classes: Sequence[int]) -> str | None:
    """The line learning on C ≥ 3 classes adds (docs/method.md §13.8): what its instances
    and losses are; None for two classes."""
    if len(classes) <= 2:
        return None
    C = len(classes)
    return (
        f"{C} classes ({', '.join(map(str, classes[:-1]))} and {classes[-1]}), one-vs-all: "
        f"every instance is a {C}-class draw whose labeled set holds every class; l_i(σ) is "
        "its exact one-vs-all loss (a node is wrong when its top score is not its class's), "
        "and the estimates are Algorithm 4 one-vs-all (fast mode: the search on the class "
        "gaps; paper mode: each node's iteration on the gap of its top two classes)."
    )


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _points(x: float) -> str:
    return f"{100 * x:.1f} points"


def _bound_sentence(family) -> str:
    """What the paper bounds the pseudo-dimension of the family's losses by (§10.4), and
    what the learning curve's guide lines are then."""
    if family.pseudo_dimension is None:
        return (
            f"No bound on the pseudo-dimension of the {family.label} family's losses is "
            "known here, so the dashed 1/√m and dotted ∝ m are shapes only."
        )
    return (
        f"The paper bounds the pseudo-dimension of these losses by {family.pseudo_dimension}"
        ": a rate without a constant, so the dashed 1/√m and dotted ∝ m are shapes, "
        "not predictions."
    )


def readings(result: LearnResult) -> dict[str, str]:
    """What the learning page says beside each chart, every number from ``result``:
    ``'erm'`` (the ERM set, σ̂ and its held-out loss), ``'curve'`` (the learning curve at
    its smallest and largest m), ``'approximate'`` (σ̂ of each approximate learner against
    exact ERM's), ``'grid'`` (the best k)."""
    r = result
    n_iv = len(r.erm.intervals)
    where = (
        f"[{r.erm.intervals[0][0]:.3g}, {r.erm.intervals[0][1]:.3g}]"
        if n_iv == 1
        else f"{n_iv} intervals"
    )
    out = {
        "erm": (
            f"ERM on m = {r.instances} training instances: the average loss is smallest, "
            f"{_pct(r.erm.loss)}, for σ in {where}; σ̂ = {r.erm.sigma_hat:.3g} ({SIGMA_HAT_RULE}). "
            f"The average changes at {r.average.edges.size - 2} of the "
            f"{r.average.union_breakpoints} breakpoints of the instances."
        )
    }
    if r.test is not None:
        out["erm"] += (
            f" On {r.test_instances} held-out instances σ̂ loses {_pct(r.test.loss_at_sigma_hat)}"
            f", {_points(r.test.excess)} above the best σ there ({_pct(r.test.best_loss)}); "
            f"training and held-out averages differ by up to {_points(r.test.uniform_gap)} "
            "over the range (the uniform gap)."
        )
    if r.curve is not None and r.curve.m.size > 1:
        c = r.curve
        ex, gap, pieces = (np.mean(a, axis=0) for a in (c.excess, c.uniform_gap, c.union_pieces))
        out["curve"] = (
            f"Mean over {c.excess.shape[0]} draws: with m = {c.m[0]} the held-out excess is "
            f"{_points(ex[0])} and the uniform gap {_points(gap[0])}; with m = {c.m[-1]}, "
            f"{_points(ex[-1])} and {_points(gap[-1])}. The union of the instances' "
            f"breakpoints grows from {pieces[0]:.0f} to {pieces[-1]:.0f} pieces. "
            + _bound_sentence(registry.family(r.family))
        )
    if r.approximate and r.test is not None:
        parts = [
            f"{a.solver} picks σ̂ = {a.erm.sigma_hat:.3g}, held-out loss "
            f"{_pct(a.test.loss_at_sigma_hat)} ({a.excess_over_exact * 100:+.1f} points)"
            for a in r.approximate
        ]
        out["approximate"] = (
            f"Exact ERM's σ̂ = {r.erm.sigma_hat:.3g} loses {_pct(r.test.loss_at_sigma_hat)} "
            "on held-out instances; learning on Algorithm 4's estimates instead: "
            + "; ".join(parts)
            + "."
        )
    if r.grid:
        out["grid"] = (
            f"Over k = {r.grid[0].k}..{r.grid[-1].k}, the smallest training average is "
            f"{_pct(r.erm.loss)}, at k̂ = {r.k} and σ̂ = {r.erm.sigma_hat:.3g}."
        )
    return out


class _CallableModule(type(registry)):
    """This module, callable as the Python API's :func:`sslviz.api.learn` (``sslviz.learn(...)``
    is that function wherever this module was imported first)."""

    def __call__(self, *args, **kwargs):
        # The API sits above this module (it reads the exact averages here): it is looked up
        # when called, not imported by this module.
        import importlib

        return importlib.import_module("sslviz.api").learn(*args, **kwargs)


import sys as _sys  # noqa: E402

_sys.modules[__name__].__class__ = _CallableModule
