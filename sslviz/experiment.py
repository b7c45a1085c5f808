"""Regret experiments: repetitions of the online learner over shared instance sequences.

Holds :func:`regret_experiment` (seeds per repetition, every feedback model on the same rounds,
Student-t bands) with its results :class:`ModelRegret` and :class:`RegretExperiment`, and runs
the repetitions sequentially, with joblib or on a Dask cluster, with identical results.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from sslviz._threads import can_fork, map_tasks, one_thread
from sslviz._validation import InvalidParameterError, check_int, check_option, check_real
from sslviz.online import (
    FEEDBACK_MODELS,
    LearnerRun,
    LearnerSteps,
    RoundProvider,
    check_provider,
    n_pieces,
    regret_rate,
    run_learner,
    theorem_step_size,
)

__all__ = [
    "ModelRegret",
    "RegretExperiment",
    "RegretPart",
    "regret_experiment",
    "regret_stream",
    "view_regret_stream",
]


@dataclass(frozen=True, eq=False)
class ModelRegret:
    """Regret of one feedback model over the repetitions.

    Attributes
    ----------
    name : str
        Feedback model.
    regret_mean : ndarray of shape (T,), dtype float64
        Mean cumulative regret over the repetitions.
    regret_low, regret_high : ndarray of shape (T,), dtype float64
        95% confidence band of the mean, per round: ``mean ± t_{0.975, R−1} · s / sqrt(R)``
        (Student t, sample standard deviation ``s``); equal to the mean when ``R = 1``.
    best_sigma : tuple of float
        ``(lo, hi)`` of the best σ range of the summed true losses of repetition 0 (the same
        for every model, as models share the instances of a repetition).
    best_value : float
        ``min_σ Σ_t l_t(σ)`` of repetition 0.
    seconds : float
        Total wall time of this model's runs.
    lr : float or None
        Step size used (``None`` for ``'uniform'``).
    M : float
        System size of the reference rate: 1 for ``'full'``, otherwise the measured mean
        number of pieces of the true losses.
    rate : ndarray of shape (T,), dtype float64
        :func:`regret_rate` with this ``M``.
    runs : tuple of LearnerRun
        The raw runs, one per repetition.
    """

    name: str
    regret_mean: np.ndarray
    regret_low: np.ndarray
    regret_high: np.ndarray
    best_sigma: tuple[float, float]
    best_value: float
    seconds: float
    lr: float | None
    M: float
    rate: np.ndarray
    runs: tuple[LearnerRun, ...] = field(repr=False)


@dataclass(frozen=True, eq=False)
class RegretExperiment:
    """Regret curves of several feedback models on shared instance sequences.

    Attributes
    ----------
    models : dict of str to ModelRegret
        One entry per feedback model, in the requested order.
    rate : ndarray of shape (T,), dtype float64
        :func:`regret_rate` with the measured semi-bandit ``M``.
    lr : float
        The semi-bandit step size (``lr`` itself when a float was given).
    M : float
        Measured mean number of pieces of all true losses (all rounds, all repetitions).
    M_first_round : float
        Mean over repetitions of the number of pieces of the first round's true loss, the
        ``M`` that ``lr='auto'`` uses (it must be known before the runs).
    R : float
        Radius of the σ domain, ``(sigma_max − sigma_min)/2``.
    rounds, repeats, seed : int
        As passed.
    seconds : float
        Wall time of the whole experiment.
    """

    models: dict[str, ModelRegret]
    rate: np.ndarray
    lr: float
    M: float
    M_first_round: float
    R: float
    rounds: int
    repeats: int
    seed: int
    seconds: float


def _run_task(task: tuple) -> list[LearnerRun]:
    """All models of one repetition, in one worker: a provider that memoises its rounds
    (as the graph provider does) then computes each instance once for every model."""
    provider, models, rounds, lrs, seed, round_seeds = task
    return [
        run_learner(provider, m, rounds=rounds, lr=lrs[m], seed=seed, round_seeds=round_seeds)
        for m in models
    ]


def _repetition_seeds(seed: int, r: int, rounds: int) -> tuple[int, list[int]]:
    """Learner seed and round seeds of repetition ``r``, from ``SeedSequence(seed)``."""
    learner = np.random.SeedSequence(seed, spawn_key=(r, 0)).generate_state(1, np.uint32)
    rs = np.random.SeedSequence(seed, spawn_key=(r, 1)).generate_state(rounds, np.uint32)
    return int(learner[0]), [int(s) for s in rs]


def _execute(
    tasks: list[tuple],
    n_jobs: int,
    dask: str | None,
    progress: Callable[[int, int], None] | None,
) -> list[list[LearnerRun]]:
    total = len(tasks)

    def tick(done: int) -> None:
        if progress is not None:
            progress(done, total)

    return map_tasks(_run_task, tasks, n_jobs=n_jobs, dask=dask, done=tick)


def mean_band(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean over repetitions (axis 0) and its 95 % Student-t interval: ``(mean, low, high)``
    (low = high = mean for one repetition)."""
    from scipy import stats

    mean = x.mean(axis=0)
    n = x.shape[0]
    if n < 2:
        return mean, mean.copy(), mean.copy()
    half = stats.t.ppf(0.975, n - 1) * x.std(axis=0, ddof=1) / math.sqrt(n)
    return mean, mean - half, mean + half


@one_thread
def regret_experiment(
    provider: RoundProvider,
    *,
    rounds: int,
    repeats: int,
    feedback: Sequence[str] | str = FEEDBACK_MODELS,
    lr: float | str = "auto",
    seed: int = 0,
    n_jobs: int = -1,
    dask: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> RegretExperiment:
    """Compare feedback models over repeated runs on shared instance sequences.

    Repetition ``r`` draws its learner seed and its ``rounds`` round seeds from
    ``np.random.SeedSequence(seed, spawn_key=(r, 0))`` and ``(r, 1)``; every feedback model
    of a repetition uses the same round seeds (identical instances) and the same learner
    seed. Results are identical whichever backend runs the tasks.

    Parameters
    ----------
    provider : RoundProvider
        Picklable source of rounds.
    rounds : int
        ``T >= 1``.
    repeats : int
        Number of repetitions ``>= 1``.
    feedback : sequence of {'approx', 'exact', 'full', 'uniform'}, default=all four
        Models to run, without duplicates.
    lr : float or 'auto', default='auto'
        Step size ``λ > 0``. ``'auto'`` uses :func:`theorem_step_size` with
        ``R = (sigma_max − sigma_min)/2`` and, for ``'approx'``/``'exact'``, ``M`` = the mean
        over repetitions of the number of pieces of the first round's true loss; ``'full'``
        uses ``M = 1`` (full information).
    seed : int, default=0
        Master seed ``>= 0``.
    n_jobs : int, default=-1
        joblib workers on this machine (``-1``: all cores; ``1``: sequential, no joblib).
        Ignored when ``dask`` is given.
    dask : str or None, default=None
        Address of a Dask scheduler (e.g. ``'tcp://127.0.0.1:8786'``); the tasks then run on
        that cluster through ``dask.distributed.Client``. Its workers must import ``sslviz``.
    progress : callable or None, default=None
        Called as ``progress(done, total)`` after each finished repetition.

    Returns
    -------
    RegretExperiment

    Notes
    -----
    docs/method.md §9; Algorithm 1 and Theorem 3.1 of the paper.

    Examples
    --------
    >>> from sslviz.online import SyntheticRounds
    >>> exp = regret_experiment(SyntheticRounds(), rounds=30, repeats=2, n_jobs=1)
    >>> sorted(exp.models), exp.models["exact"].regret_mean.shape
    (['approx', 'exact', 'full', 'uniform'], (30,))
    """
    start = time.perf_counter()
    models, rounds, repeats, lr, seed, n_jobs = _checked(
        "regret_experiment", provider, rounds, repeats, feedback, lr, seed, n_jobs, dask, progress
    )
    rep_seeds = [_repetition_seeds(seed, r, rounds) for r in range(repeats)]
    local = dask is None and n_jobs != 1
    if local and hasattr(provider, "precompute"):
        # The rounds are the cost: compute them on all workers split by round (balanced
        # whatever the number of repetitions), then run the learners: on forked workers,
        # else here (fresh workers would each spend seconds on imports).
        provider = provider.precompute([s for _, rs in rep_seeds for s in rs], n_jobs)
        n_jobs = n_jobs if can_fork() else 1
    m_first, lrs = _step_sizes(provider, rep_seeds, rounds, lr)
    tasks = [(provider, models, rounds, lrs, ls, rs) for ls, rs in rep_seeds]
    runs = [run for group in _execute(tasks, n_jobs, dask, progress) for run in group]
    return _assemble(runs, models, lrs, provider, m_first, rounds, repeats, seed, start)


def _checked(caller, provider, rounds, repeats, feedback, lr, seed, n_jobs, dask, progress):
    """The arguments of :func:`regret_experiment` checked: ``(models, rounds, repeats, lr,
    seed, n_jobs)``."""
    lo_s, hi_s = check_provider(provider, caller)
    rounds = check_int("rounds", rounds, caller, low=1)
    repeats = check_int("repeats", repeats, caller, low=1)
    models = [feedback] if isinstance(feedback, str) else list(feedback)
    if not models:
        raise InvalidParameterError(
            f"The 'feedback' parameter of {caller} must name at least one model. Got an empty "
            "sequence instead."
        )
    models = [check_option("feedback", m, caller, FEEDBACK_MODELS) for m in models]
    if len(set(models)) != len(models):
        raise InvalidParameterError(
            f"The 'feedback' parameter of {caller} must not repeat a model. Got {models!r} instead."
        )
    if isinstance(lr, str):
        check_option("lr", lr, caller, ["auto"])
    else:
        lr = check_real("lr", lr, caller, low=0.0, closed="neither")
    seed = check_int("seed", seed, caller, low=0)
    n_jobs = check_int("n_jobs", n_jobs, caller)
    if n_jobs == 0:
        raise InvalidParameterError(
            f"The 'n_jobs' parameter of {caller} must be a nonzero int (-1 for all cores). "
            "Got 0 instead."
        )
    if dask is not None and (not isinstance(dask, str) or not dask):
        raise InvalidParameterError(
            f"The 'dask' parameter of {caller} must be a scheduler address (non-empty str) or "
            f"None. Got {dask!r} instead."
        )
    if progress is not None and not callable(progress):
        raise TypeError(
            f"The 'progress' parameter of {caller} must be callable or None. "
            f"Got {progress!r} instead."
        )

    return models, rounds, repeats, lr, seed, n_jobs


def _step_sizes(provider, rep_seeds, rounds: int, lr) -> tuple[float, dict]:
    """``M`` of the first rounds and the step size of each model (``lr='auto'``: Theorem
    3.1's, from those ``M``)."""
    lo_s, hi_s = check_provider(provider, "regret_experiment")
    R = (hi_s - lo_s) / 2
    m_first = float(np.mean([n_pieces(provider.true_loss(rs[0])) for _, rs in rep_seeds]))
    if lr == "auto":
        lr_semi = theorem_step_size(rounds, max(m_first, 1.0), R)
        lr_full = theorem_step_size(rounds, 1.0, R)
    else:
        lr_semi = lr_full = float(lr)
    return m_first, {"approx": lr_semi, "exact": lr_semi, "full": lr_full, "uniform": None}


def _assemble(runs, models, lrs, provider, m_first, rounds, repeats, seed, start):
    """The experiment of ``runs`` (repetition-major: every model of repetition 0, then 1...),
    each of ``rounds`` rounds (the rounds played so far, for a partial experiment)."""
    lo_s, hi_s = check_provider(provider, "regret_experiment")
    R = (hi_s - lo_s) / 2
    m_measured = float(np.mean([run.mean_M for run in runs]))
    out: dict[str, ModelRegret] = {}
    for k, name in enumerate(models):
        mine = tuple(runs[r * len(models) + k] for r in range(repeats))
        mean, low, high = mean_band(np.stack([run.regret for run in mine]))
        m_model = 1.0 if name == "full" else max(m_measured, 1.0)
        out[name] = ModelRegret(
            name=name,
            regret_mean=mean,
            regret_low=low,
            regret_high=high,
            best_sigma=mine[0].best_sigma,
            best_value=mine[0].best_value,
            seconds=float(sum(run.seconds for run in mine)),
            lr=lrs[name],
            M=m_model,
            rate=regret_rate(rounds, m_model, R),
            runs=mine,
        )
    return RegretExperiment(
        models=out,
        rate=regret_rate(rounds, max(m_measured, 1.0), R),
        lr=lrs["approx"],
        M=m_measured,
        M_first_round=m_first,
        R=R,
        rounds=rounds,
        repeats=repeats,
        seed=seed,
        seconds=time.perf_counter() - start,
    )


@dataclass(frozen=True, eq=False)
class RegretPart:
    """What a regret stream (:func:`regret_stream`) has computed so far.

    Attributes
    ----------
    experiment : RegretExperiment
        The experiment over the rounds played so far (its ``rounds``), every repetition and
        model: each curve is the prefix of the finished one (regret against the best fixed
        σ of the prefix, docs/method.md §9).
    rounds : int
        The rounds asked for, ``T``.
    """

    experiment: RegretExperiment
    rounds: int

    @property
    def done(self) -> int:
        """Rounds played so far (by every repetition and model)."""
        return self.experiment.rounds

    @property
    def complete(self) -> bool:
        """Whether every round has been played: ``experiment`` is then the finished one."""
        return self.done == self.rounds

    @property
    def fraction(self) -> float:
        """The share of the rounds played."""
        return self.done / self.rounds

    def status(self) -> str:
        """How far it is, in words: "rounds 1–7 of 20 so far" (or "all 20 rounds")."""
        if self.complete:
            return f"all {self.rounds} rounds"
        return f"round{'s 1–' if self.done > 1 else ' '}{self.done} of {self.rounds} so far"

    def missing(self) -> str:
        """What is missing, in words: "7 of 20 rounds computed (both repetitions, every
        feedback model); rounds 8–20 are missing." (nothing when complete)."""
        if self.complete:
            return ""
        n = self.experiment.repeats
        reps = {1: "the one repetition", 2: "both repetitions"}.get(n, f"all {n} repetitions")
        left = self.rounds - self.done
        gap = (
            f"round {self.rounds} is missing"
            if left == 1
            else f"rounds {self.done + 1}–{self.rounds} are missing"
        )
        return (
            f"{self.done} of {self.rounds} rounds computed ({reps}, every feedback model); {gap}."
        )


def stream_chunk(n_jobs: int, repeats: int) -> int:
    """Rounds a stream plays between two parts after its first round: one when the rounds
    are computed here, else enough for four instances per worker process (a part's
    instances go to the workers together)."""
    if n_jobs == 1:
        return 1
    from joblib import cpu_count

    workers = cpu_count() if n_jobs < 0 else n_jobs
    return max(1, math.ceil(4 * workers / repeats))


def regret_stream(
    provider: RoundProvider,
    *,
    rounds: int,
    repeats: int,
    feedback: Sequence[str] | str = FEEDBACK_MODELS,
    lr: float | str = "auto",
    seed: int = 0,
    n_jobs: int = 1,
) -> Iterator[RegretPart]:
    """:func:`regret_experiment`, its rounds arriving: a :class:`RegretPart` after the first
    round, then after every :func:`stream_chunk` rounds, the last one ``complete``.

    Round by round, every repetition and model advance together
    (:class:`sslviz.online.LearnerSteps`, the arithmetic of
    :func:`sslviz.online.run_learner`); a provider with ``precompute`` (graph rounds in
    fast mode) gets each part's instances computed first, on ``n_jobs`` local workers when
    ``n_jobs != 1``. The last part's experiment equals :func:`regret_experiment`'s with the
    same arguments, every number to the bit (its timings aside). Parameters as there
    (no Dask: the stream runs on this machine). Stopping the iteration stops the work
    after the part being computed.

    Yields
    ------
    RegretPart

    Examples
    --------
    >>> from sslviz.online import SyntheticRounds
    >>> parts = list(regret_stream(SyntheticRounds(), rounds=3, repeats=2))
    >>> [p.done for p in parts], parts[-1].complete
    ([1, 2, 3], True)
    """
    start = time.perf_counter()
    models, rounds, repeats, lr, seed, n_jobs = _checked(
        "regret_stream", provider, rounds, repeats, feedback, lr, seed, n_jobs, None, None
    )
    rep_seeds = [_repetition_seeds(seed, r, rounds) for r in range(repeats)]
    size = stream_chunk(n_jobs, repeats)
    learners: list[LearnerSteps] = []
    done = 0
    while done < rounds:
        chunk = range(done, min(done + (1 if done == 0 else size), rounds))
        answers = provider
        if n_jobs != 1 and hasattr(provider, "precompute"):
            answers = provider.precompute([rs[t] for t in chunk for _, rs in rep_seeds], n_jobs)
        if not learners:  # the first rounds of every repetition are in: the step sizes
            m_first, lrs = one_thread(_step_sizes)(answers, rep_seeds, rounds, lr)
            learners = [
                LearnerSteps(provider, m, rounds=rounds, lr=lrs[m], seed=ls, round_seeds=rs)
                for ls, rs in rep_seeds
                for m in models
            ]
        _play(learners, len(chunk), answers)
        done = chunk.stop
        runs = [learner.run() for learner in learners]
        exp = _assemble(runs, models, lrs, provider, m_first, done, repeats, seed, start)
        yield RegretPart(exp, rounds)


@one_thread
def _play(learners: list[LearnerSteps], rounds: int, provider: RoundProvider) -> None:
    """``rounds`` more rounds of every learner, answered by ``provider``."""
    for _ in range(rounds):
        for learner in learners:
            learner.step(provider)


def view_regret_stream(
    provider: RoundProvider, regret, *, seed: int, n_jobs: int | None = None
) -> Iterator[RegretPart]:
    """The experiment of :func:`sslviz.problem.run_regret` on ``provider`` (a view's
    ``GraphRounds``) with the settings ``regret`` (a :class:`sslviz.specs.RegretSettings`),
    the stream and learners seeded by ``seed`` (the view's ``spec.seed``), as a
    :func:`regret_stream`; ``n_jobs`` overrides ``regret.jobs``. Its last part's experiment
    is ``run_regret``'s."""
    return regret_stream(
        provider,
        rounds=regret.rounds,
        repeats=regret.repeats,
        feedback=list(regret.feedback),
        lr="auto" if regret.lr is None else regret.lr,
        seed=seed,
        n_jobs=regret.jobs if n_jobs is None else n_jobs,
    )


def classes_words(classes: Sequence[int]) -> str | None:
    """The line an online experiment on C ≥ 3 classes adds (docs/method.md §13.8): what its
    rounds are; None for two classes."""
    if len(classes) <= 2:
        return None
    C = len(classes)
    return (
        f"{C} classes ({', '.join(map(str, classes[:-1]))} and {classes[-1]}), one-vs-all: "
        f"each round draws a {C}-class instance, its labeled set holding every class; l_t is "
        "its exact one-vs-all loss (a node is wrong when its top score is not its class's) "
        "and the approx feedback is the interval Algorithm 4 one-vs-all finds around σ_t "
        "(fast mode: the search on the class gaps; paper mode: each node's iteration on the "
        "gap of its top two classes)."
    )
