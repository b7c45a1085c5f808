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
from sslviz._validation import check_int
from sslviz.graphs import Graph, build_graph, neighbours
from sslviz.labeling import DelalleauModel, HarmonicModel, make_model
from sslviz.online import RoundProvider
from sslviz.piecewise import PiecewiseLoss
from sslviz.specs import ProblemSpec, RegretSettings, SigmaRange, SweepSettings
from sslviz.truth import LossCurve, threshold_loss_curve, true_loss_curve


@dataclass(frozen=True, eq=False)
class Problem:
    """A built instance with its graph and labeling model.

    Attributes
    ----------
    spec : ProblemSpec
    dataset : sslviz.data.Dataset
    instance : sslviz.data.Instance
    model : HarmonicModel or DelalleauModel
    y_unlabeled : ndarray of shape (n_unlabeled,)
    """

    spec: ProblemSpec
    dataset: _data.Dataset
    instance: _data.Instance
    model: HarmonicModel | DelalleauModel
    y_unlabeled: np.ndarray

    @property
    def graph(self) -> Graph:
        return self.model.graph

    def rows(self, nodes) -> list[int]:
        """Instance rows (0-based) of unlabeled-node indices."""
        return [int(self.model.unlabeled_idx[u]) for u in np.atleast_1d(nodes)]


def load_source(spec: ProblemSpec) -> _data.Dataset:
    """The dataset of ``spec`` (from the process's one dataset cache in :mod:`sslviz.data`)."""
    if spec.data_file is not None:
        return _data.load_file(spec.data_file)
    return _data.load_dataset(spec.dataset, root=spec.data_root, download=spec.download)


def build_problem(spec: ProblemSpec) -> Problem:
    """Load data, draw the instance, build the graph and the labeling model."""
    ds = load_source(spec)
    inst = _data.make_instance(
        ds, spec.classes, n=spec.n, n_labeled=spec.n_labeled, seed=spec.seed, pca=spec.pca
    )
    if spec.family != "complete" and spec.k >= inst.n:  # a file's fixed instance sets n
        check_int("k", spec.k, "build_problem (k must be smaller than n)", low=1, high=inst.n - 1)
    labeling = spec.labeling_spec
    if labeling.method == "harmonic":
        model = make_model(inst.X, inst.labeled, inst.y, build_graph(inst.X, spec.graph_spec))
    else:
        model = make_model(inst.X, inst.labeled, inst.y, spec.graph_spec, labeling)
    return Problem(spec, ds, inst, model, np.asarray(inst.y)[model.unlabeled_idx])


def loss_curve(problem: Problem, sigma_min: float, sigma_max: float) -> LossCurve:
    """The exact loss over [σ_min, σ_max] (over [r_min, r_max] for ``threshold``)."""
    if problem.spec.family == "threshold":
        return threshold_loss_curve(problem.model, problem.y_unlabeled, sigma_min, sigma_max)
    return true_loss_curve(problem.model, problem.y_unlabeled, sigma_min, sigma_max)


def sigma_range(problem: Problem, rng: SigmaRange) -> tuple[float, float]:
    """The range ``rng`` asks for; an end left as None comes from the suggested range."""
    if rng.sigma_min is not None and rng.sigma_max is not None:
        return float(rng.sigma_min), float(rng.sigma_max)
    return rng.resolve(suggest_sigma_range(problem))


def suggest_sigma_range(problem: Problem) -> tuple[float, float]:
    """A σ range from the data: from half the median nearest-neighbour distance to twice
    the median distance to the k-th neighbour (k = 6), rounded to 2 significant digits.
    For ``threshold`` it is the range of edge lengths."""
    if problem.spec.family == "threshold":
        lengths = problem.graph.edge_lengths()
        return float(lengths[0]), float(lengths[-1])
    X = problem.instance.X
    d, _ = neighbours(X, min(6, X.shape[0] - 1))
    lo = 0.5 * float(np.median(d[:, 0]))
    hi = 2.0 * float(np.median(d[:, -1]))
    lo, hi = (float(f"{x:.2g}") for x in (lo, hi))
    return (lo, hi) if lo < hi else (lo, 2 * lo)


# --------------------------------------------------------------------------------------------
# Graph-based rounds of the online experiment (sslviz.online, sslviz.experiment)
# --------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=1024)
def _graph_round(
    spec: ProblemSpec, lo: float, hi: float, settings, round_seed: int
) -> tuple[PiecewiseLoss, PiecewiseLoss]:
    """(true loss, approximate loss) of one round; memoised per process so the feedback
    models of a repetition share each instance's computation. Only the two piecewise
    functions are kept (a few KB), not the instance and its graph."""
    from dataclasses import replace

    from sslviz.intervals import sweep

    problem = build_problem(spec.with_seed(round_seed))
    true = loss_curve(problem, lo, hi).loss
    fast = sweep(problem.model, problem.y_unlabeled, lo, hi, replace(settings, mode="fast"))
    return true, fast.estimated_loss()


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

    def approx_feedback(self, round_seed: int, sigma: float) -> tuple[float, float, float]:
        if self.settings.mode == "fast":
            return self.approx_loss(round_seed).piece(sigma)
        from sslviz.intervals import feedback_set

        problem = build_problem(self.spec.with_seed(int(round_seed)))
        iv = feedback_set(
            problem.model, problem.y_unlabeled, sigma, self.sigma_min, self.sigma_max, self.settings
        )
        return iv.lo, iv.hi, iv.loss


def run_regret(
    spec: ProblemSpec,
    sigma_range: tuple[float, float],
    settings: SweepSettings,
    regret: RegretSettings,
    *,
    progress: Callable[[int, int], None] | None = None,
    n_jobs: int | None = None,
):
    """The online experiment of a view on graph-backed rounds (CLI and app call this).

    The stream and the learners are seeded by ``spec.seed``; ``n_jobs`` overrides
    ``regret.jobs`` (the app runs sequentially). Returns a
    :class:`sslviz.experiment.RegretExperiment`.
    """
    from sslviz.experiment import regret_experiment

    lo, hi = sigma_range
    return regret_experiment(
        GraphRounds(spec, lo, hi, settings),
        rounds=regret.rounds,
        repeats=regret.repeats,
        feedback=list(regret.feedback),
        lr="auto" if regret.lr is None else regret.lr,
        seed=spec.seed,
        n_jobs=regret.jobs if n_jobs is None else n_jobs,
        dask=regret.dask,
        progress=progress,
    )
