"""One problem instance end to end: settings → data → graph → labeling model.

:func:`build_problem` turns a :class:`sslviz.specs.ProblemSpec` into a :class:`Problem`
(instance, graph, labeling model). The CLI, the app and the online experiment all go
through it, so the three compute the same thing for the same settings.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from sslviz import data as _data
from sslviz import datasets as _datasets
from sslviz import families, registry
from sslviz._memo import memoised
from sslviz._threads import one_thread, process_map
from sslviz._validation import InvalidParameterError, check_int
from sslviz.graphs import Graph, GraphSpec, neighbours
from sslviz.labeling import SoftLabelModel
from sslviz.online import RoundProvider
from sslviz.piecewise import PiecewiseLoss
from sslviz.specs import LabelingSpec, ProblemSpec, RegretSettings, SigmaRange, SweepSettings
from sslviz.truth import (
    CurvePart,
    LossCurve,
    multiclass_loss_curve,
    multiclass_threshold_loss_curve,
    threshold_loss_curve,
    true_loss_curve,
)


@dataclass(frozen=True, eq=False)
class Problem:
    """A built instance with its graph and labeling model.

    Attributes
    ----------
    spec : ProblemSpec
    dataset : sslviz.datasets.Dataset
    instance : sslviz.data.Instance
    model : SoftLabelModel
    y_unlabeled : ndarray of shape (n_unlabeled,)
    """

    spec: ProblemSpec
    dataset: _datasets.Dataset
    instance: _data.Instance
    model: SoftLabelModel
    y_unlabeled: np.ndarray

    @property
    def graph(self) -> Graph:
        return self.model.graph

    def rows(self, nodes) -> list[int]:
        """Instance rows (0-based) of unlabeled-node indices."""
        return [int(self.model.unlabeled_idx[u]) for u in np.atleast_1d(nodes)]


def load_source(spec: ProblemSpec) -> _datasets.Dataset:
    """The dataset of ``spec`` (from the process's one dataset cache in :mod:`sslviz.datasets`)."""
    if spec.data_file is not None:
        return _datasets.load_file(spec.data_file)
    return _datasets.load_dataset(spec.dataset, root=spec.data_root, download=spec.download)


def make_model(
    X: np.ndarray,
    labeled: np.ndarray,
    y: np.ndarray,
    graph: GraphSpec | Graph,
    labeling: LabelingSpec | None = None,
) -> SoftLabelModel:
    """The labeling model of ``labeling`` on points ``X`` with graph ``graph``: its class
    from :data:`sslviz.registry.MODELS`, refused when it does not accept the family, then
    built by :meth:`SoftLabelModel.build`.

    Parameters
    ----------
    X : ndarray of shape (n, p)
    labeled : ndarray of shape (n,), bool
    y : ndarray of shape (n,), binary
    graph : GraphSpec or a prebuilt Graph on ``X``
    labeling : LabelingSpec, default=LabelingSpec()
    """
    labeling = LabelingSpec() if labeling is None else labeling
    spec = graph.spec if isinstance(graph, Graph) else graph
    cls = registry.model(labeling.method)
    if not cls.accepts(spec.graph_family):
        raise InvalidParameterError(
            f"The 'labeling' parameter {cls.name!r} needs {cls.requirement} "
            f"({families.named(cls.accepts)}); got family={spec.family!r}."
        )
    return cls.build(X, labeled, y, graph, labeling)


@one_thread
def build_problem(spec: ProblemSpec) -> Problem:
    """Load data, draw the instance, build the graph and the labeling model."""
    ds = load_source(spec)
    inst = _data.make_instance(
        ds, spec.classes, n=spec.n, n_labeled=spec.n_labeled, seed=spec.seed, pca=spec.pca
    )
    if "k" in spec.graph_family.reads and spec.k >= inst.n:  # a file's instance sets n
        check_int("k", spec.k, "build_problem (k must be smaller than n)", low=1, high=inst.n - 1)
    model = make_model(inst.X, inst.labeled, inst.y, spec.graph_spec, spec.labeling_spec)
    return Problem(spec, ds, inst, model, np.asarray(inst.y)[model.unlabeled_idx])


def loss_curve(
    problem: Problem,
    sigma_min: float,
    sigma_max: float,
    *,
    progress: Callable[[float, str], None] | None = None,
    on_part: Callable[[CurvePart], None] | None = None,
) -> LossCurve:
    """The exact loss over [σ_min, σ_max] (over [r_min, r_max] for a family that is not
    Gaussian: docs/method.md §5.5); more than two classes one-vs-all (§13).

    ``progress(fraction, message)`` is called as the search advances (fractions in [0, 1],
    non-decreasing; the threshold family's curve, read off the edge lengths at once,
    reports 1 when done). ``on_part(part)`` hears the curve as far as it is known while a
    large graph's search runs (:class:`sslviz.truth.CurvePart`, as
    :func:`sslviz.truth.true_loss_curve`'s). Neither changes a number.
    """
    inst = problem.instance
    if not problem.spec.gaussian:
        if inst.n_classes > 2:
            curve = multiclass_threshold_loss_curve(
                problem.model, inst.y, inst.classes, sigma_min, sigma_max
            )
        else:
            curve = threshold_loss_curve(problem.model, problem.y_unlabeled, sigma_min, sigma_max)
        if progress is not None:
            progress(1.0, "done")
        return curve
    if inst.n_classes > 2:
        return multiclass_loss_curve(
            problem.model,
            inst.y,
            inst.classes,
            sigma_min,
            sigma_max,
            progress=progress,
            on_part=on_part,
        )
    return true_loss_curve(
        problem.model,
        problem.y_unlabeled,
        sigma_min,
        sigma_max,
        progress=progress,
        on_part=on_part,
    )


def problem_sweep(
    problem: Problem,
    sigma_min: float,
    sigma_max: float,
    settings: SweepSettings,
    *,
    progress: Callable[[float, str], None] | None = None,
    record: bool = False,
):
    """Algorithm 4 on ``problem`` with ``settings`` (:func:`sslviz.algorithm4.sweep`), one-vs-all
    for more than two classes (:func:`sslviz.algorithm4.sweep_classes`, docs/method.md §13)."""
    from sslviz.algorithm4 import sweep, sweep_classes

    inst = problem.instance
    if inst.n_classes > 2:
        return sweep_classes(
            problem.model,
            inst.y,
            inst.classes,
            sigma_min,
            sigma_max,
            settings,
            progress=progress,
            record=record,
        )
    return sweep(
        problem.model,
        problem.y_unlabeled,
        sigma_min,
        sigma_max,
        settings,
        progress=progress,
        record=record,
    )


def sigma_range(problem: Problem, rng: SigmaRange) -> tuple[float, float]:
    """The range ``rng`` asks for; an end left as None comes from the suggested range."""
    if rng.sigma_min is not None and rng.sigma_max is not None:
        return float(rng.sigma_min), float(rng.sigma_max)
    return rng.resolve(suggest_sigma_range(problem))


def suggest_sigma_range(problem: Problem) -> tuple[float, float]:
    """A σ range from the data: from half the median nearest-neighbour distance to twice
    the median distance to the k-th neighbour (k = 6), rounded to 2 significant digits.
    For a family that is not Gaussian it is the range of edge lengths."""
    if not problem.spec.gaussian:
        lengths = problem.graph.edge_lengths()
        return float(lengths[0]), float(lengths[-1])
    X = problem.instance.X
    d = neighbours(X, min(6, X.shape[0] - 1))[0]
    lo = 0.5 * float(np.median(d[:, 0]))
    hi = 2.0 * float(np.median(d[:, -1]))
    lo, hi = (float(f"{x:.2g}") for x in (lo, hi))
    return (lo, hi) if lo < hi else (lo, 2 * lo)


# --------------------------------------------------------------------------------------------
# Graph-based rounds of the online experiment (sslviz.online, sslviz.experiment)
# --------------------------------------------------------------------------------------------


def _graph_round(
    spec: ProblemSpec, lo: float, hi: float, settings, round_seed: int
) -> tuple[PiecewiseLoss, PiecewiseLoss]:
    """(true loss, approximate loss) of one round: the exact curve, and the fast-mode sweep
    of ``settings`` (whatever their mode: full information reads the fast sweep's loss)."""
    fast = _fast_settings(settings)
    return _true_round(spec, lo, hi, round_seed), _fast_round(spec, lo, hi, fast, round_seed)


def _fast_settings(settings: SweepSettings) -> SweepSettings:
    """The settings of the fast-mode sweep a round runs whatever the mode of ``settings``
    (:meth:`sslviz.specs.SweepSettings.effective`: one memo entry for equal sweeps)."""
    from dataclasses import replace

    return replace(settings, mode="fast").effective()


# Memoised per process, so the feedback models of a repetition share each instance's
# computation, and a change of the sweep's settings (t, the solver) keeps every exact curve.
# Only the piecewise functions are kept (a few KB), not the instance and its graph.


def clear_round_memo() -> None:
    """Forget every memoised round (for comparisons of two paths that must each compute)."""
    _true_round.cache_clear()
    _fast_round.cache_clear()
    _round_problem.cache_clear()


@functools.lru_cache(maxsize=1)
def _round_problem(spec: ProblemSpec, round_seed: int) -> Problem:
    """The instance of a round, kept while its two curves are computed (built once)."""
    return build_problem(spec.with_seed(round_seed))


def _true_curve(spec: ProblemSpec, lo: float, hi: float, round_seed: int) -> PiecewiseLoss:
    """The exact loss curve of the round ``round_seed`` on [lo, hi]."""
    return loss_curve(_round_problem(spec, round_seed), lo, hi).loss


def _fast_curve(spec: ProblemSpec, lo: float, hi: float, fast, round_seed: int) -> PiecewiseLoss:
    """The estimated loss of the round's fast-mode sweep with the effective settings
    ``fast`` (:meth:`sslviz.specs.SweepSettings.effective`); one-vs-all for more than two
    classes (docs/method.md §13.8)."""
    return problem_sweep(_round_problem(spec, round_seed), lo, hi, fast).estimated_loss()


_true_round = memoised(1024)(_true_curve)
_fast_round = memoised(1024)(_fast_curve)


@dataclass(frozen=True)
class GraphRounds(RoundProvider):
    """Rounds drawn from a dataset: round seed s gives the instance ``spec.with_seed(s)``.

    The true loss is the exact curve (:func:`loss_curve`); ``approx`` feedback is the
    interval Algorithm 4 finds from σ_t with ``settings`` (its ``mode``: 'fast' reads it off
    the shared-solve sweep, 'paper' runs the per-node iteration from σ_t); full information
    gets the whole fast-mode approximate loss. A :class:`sslviz.online.RoundProvider` for
    :func:`sslviz.online.run_learner` and :func:`sslviz.experiment.regret_experiment`.

    Parameters
    ----------
    spec : ProblemSpec
    sigma_min, sigma_max : float
        The σ range (PCA-space distance units).
    settings : sslviz.specs.SweepSettings
    """

    spec: ProblemSpec
    sigma_min: float
    sigma_max: float
    settings: SweepSettings

    def true_loss(self, round_seed: int) -> PiecewiseLoss:
        return _graph_round(
            self.spec, self.sigma_min, self.sigma_max, self.settings, int(round_seed)
        )[0]

    def approx_loss(self, round_seed: int) -> PiecewiseLoss:
        return _graph_round(
            self.spec, self.sigma_min, self.sigma_max, self.settings, int(round_seed)
        )[1]

    def precompute(
        self,
        round_seeds,
        n_jobs: int,
        progress: Callable[[int, int], None] | None = None,
    ) -> RoundProvider:
        """This provider with the rounds of ``round_seeds`` computed by ``n_jobs`` local
        worker processes (:func:`sslviz._threads.process_map`), split by round rather than
        by repetition (balanced over the cores whatever the number of repetitions); the
        answers are the same. Only what this process has not memoised goes to the workers
        (a change of t sends the fast sweeps, not the exact curves), and what they compute
        is memoised here. The first round is computed here first, so that forked workers
        start with the data loaded and the kernels compiled. ``progress(done, total)``
        hears the rounds computed so far, of the ``total`` not memoised, as each worker's
        part comes back. Fast mode only (paper-mode feedback needs each instance again):
        otherwise ``self``."""
        if self.settings.mode != "fast":
            return self
        from joblib import cpu_count

        args = (self.spec, self.sigma_min, self.sigma_max)
        fast = _fast_settings(self.settings)
        seeds = list(dict.fromkeys(int(s) for s in round_seeds))
        table = {s: (_true_round.peek(*args, s), _fast_round.peek(*args, fast, s)) for s in seeds}
        todo = [s for s, pair in table.items() if None in pair]
        workers = cpu_count() if n_jobs < 0 else n_jobs
        k = max(1, min(len(todo) - 1, 4 * workers))
        chunks = [todo[1 + i :: k] for i in range(k)] if len(todo) > 1 else []
        if todo:  # here, first: then the workers fork from a process with it all loaded
            table[todo[0]] = _graph_round(*args, self.settings, todo[0])
            if progress is not None:
                progress(1, len(todo))

        def done(i: int) -> None:  # the first i parts are back
            if progress is not None:
                progress(1 + sum(len(c) for c in chunks[:i]), len(todo))

        wanted = [[(s, table[s][0] is None, table[s][1] is None) for s in c] for c in chunks]
        parts = process_map(functools.partial(_graph_rounds_chunk, self), wanted, n_jobs, done)
        for chunk, pairs in zip(wanted, parts, strict=True):
            for (s, _, _), (true, approx) in zip(chunk, pairs, strict=True):
                if true is not None:
                    _true_round.put((*args, s), true)
                if approx is not None:
                    _fast_round.put((*args, fast, s), approx)
                table[s] = (
                    table[s][0] if true is None else true,
                    table[s][1] if approx is None else approx,
                )
        return _PrecomputedRounds(self, table)

    def approx_feedback(self, round_seed: int, sigma: float) -> tuple[float, float, float]:
        if self.settings.mode == "fast":
            return self.approx_loss(round_seed).piece(sigma)
        from sslviz.algorithm4 import feedback_set, feedback_set_classes

        problem = build_problem(self.spec.with_seed(int(round_seed)))
        inst = problem.instance
        if inst.n_classes > 2:  # one-vs-all (docs/method.md §13.8)
            iv = feedback_set_classes(
                problem.model,
                inst.y,
                inst.classes,
                sigma,
                self.sigma_min,
                self.sigma_max,
                self.settings,
            )
            return iv.lo, iv.hi, iv.loss
        iv = feedback_set(
            problem.model, problem.y_unlabeled, sigma, self.sigma_min, self.sigma_max, self.settings
        )
        return iv.lo, iv.hi, iv.loss


def _graph_rounds_chunk(rounds: GraphRounds, wanted: list[tuple[int, bool, bool]]) -> list:
    """``(true, approx)`` of each ``(round seed, true wanted, approx wanted)``, None where not
    wanted (a worker task of :meth:`GraphRounds.precompute`)."""
    args = (rounds.spec, rounds.sigma_min, rounds.sigma_max)
    fast = _fast_settings(rounds.settings)
    return [
        (
            _true_round(*args, s) if want_true else None,
            _fast_round(*args, fast, s) if want_fast else None,
        )
        for s, want_true, want_fast in wanted
    ]


@dataclass(frozen=True, eq=False)
class _PrecomputedRounds(RoundProvider):
    """A fast-mode :class:`GraphRounds` with every round's two losses already computed
    (:meth:`GraphRounds.precompute`): the same answers, read from ``table``."""

    rounds: GraphRounds
    table: dict

    @property
    def sigma_min(self) -> float:
        return self.rounds.sigma_min

    @property
    def sigma_max(self) -> float:
        return self.rounds.sigma_max

    def _pair(self, round_seed: int) -> tuple[PiecewiseLoss, PiecewiseLoss]:
        hit = self.table.get(int(round_seed))
        if hit is None:
            return _graph_round(
                self.rounds.spec,
                self.sigma_min,
                self.sigma_max,
                self.rounds.settings,
                int(round_seed),
            )
        return hit

    def true_loss(self, round_seed: int) -> PiecewiseLoss:
        return self._pair(round_seed)[0]

    def approx_loss(self, round_seed: int) -> PiecewiseLoss:
        return self._pair(round_seed)[1]

    def approx_feedback(self, round_seed: int, sigma: float) -> tuple[float, float, float]:
        return self.approx_loss(round_seed).piece(sigma)


class _ReportingRounds:
    """A :class:`GraphRounds` that calls ``tick(fraction, message)`` after each instance
    it builds for the first time (``total`` of them in all), or each part of them its
    :meth:`precompute` finishes; runs that compute the rounds in this process only (the
    callback does not travel to workers). Delegates everything, so results are those of
    the wrapped rounds."""

    def __init__(self, rounds: GraphRounds, total: int, tick: Callable[[float, str], None]):
        self.rounds, self.total, self.tick = rounds, max(int(total), 1), tick
        self.sigma_min, self.sigma_max = rounds.sigma_min, rounds.sigma_max
        self._seen: set[int] = set()

    def _note(self, round_seed: int) -> None:
        if int(round_seed) not in self._seen:
            self._seen.add(int(round_seed))
            k = len(self._seen)
            self.tick(min(k / self.total, 1.0), f"instance {k} of {self.total}")

    def precompute(self, round_seeds, n_jobs: int) -> RoundProvider:
        """The wrapped rounds' :meth:`GraphRounds.precompute`, each part finished told as
        the instances it built; ``self`` where they are not precomputed (paper mode)."""

        def part(done: int, total: int) -> None:
            self.tick(done / total, f"instance {done} of {total}")

        out = self.rounds.precompute(round_seeds, n_jobs, part)
        return self if out is self.rounds else out

    def true_loss(self, round_seed: int) -> PiecewiseLoss:
        out = self.rounds.true_loss(round_seed)
        self._note(round_seed)
        return out

    def approx_loss(self, round_seed: int) -> PiecewiseLoss:
        out = self.rounds.approx_loss(round_seed)
        self._note(round_seed)
        return out

    def approx_feedback(self, round_seed: int, sigma: float) -> tuple[float, float, float]:
        out = self.rounds.approx_feedback(round_seed, sigma)
        self._note(round_seed)
        return out

    def exact_feedback(self, round_seed: int, sigma: float) -> tuple[float, float, float]:
        out = self.rounds.exact_feedback(round_seed, sigma)
        self._note(round_seed)
        return out


def run_regret(
    spec: ProblemSpec,
    sigma_range: tuple[float, float],
    settings: SweepSettings,
    regret: RegretSettings,
    *,
    progress: Callable[[int, int], None] | None = None,
    tick: Callable[[float, str], None] | None = None,
    n_jobs: int | None = None,
):
    """The online experiment of a view on graph-backed rounds (CLI and app call this).

    The stream and the learners are seeded by ``spec.seed``; ``n_jobs`` overrides
    ``regret.jobs`` (the app runs the rounds on its worker processes). Returns a
    :class:`sslviz.experiment.RegretExperiment`.

    ``progress(done, total)`` is called after each finished repetition. ``tick(fraction,
    message)`` (the app's progress bar) is called with non-decreasing fractions in [0, 1]:
    as the instances are built (rounds × repeats in all: they are the cost), one by one in
    a sequential run, a part at a time on local workers in fast mode; otherwise after each
    repetition. Neither changes a number.
    """
    from sslviz import experiment

    lo, hi = sigma_range
    jobs = regret.jobs if n_jobs is None else n_jobs
    provider = GraphRounds(spec, lo, hi, settings)
    report = progress
    # the rounds computed here, or first of all on local workers (GraphRounds.precompute)
    here = regret.dask is None and (jobs == 1 or settings.mode == "fast")
    if tick is not None:
        if here:
            provider = _ReportingRounds(provider, regret.rounds * regret.repeats, tick)
        else:

            def report(done: int, total: int) -> None:
                if progress is not None:
                    progress(done, total)
                tick(done / total, f"repetition {done} of {total}")

    return experiment.regret_experiment(
        provider,
        rounds=regret.rounds,
        repeats=regret.repeats,
        feedback=list(regret.feedback),
        lr="auto" if regret.lr is None else regret.lr,
        seed=spec.seed,
        n_jobs=jobs,
        dask=regret.dask,
        progress=report,
    )
