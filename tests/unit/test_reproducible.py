"""Results identical to the bit whatever the BLAS threads.

Every computation runs with one BLAS thread inside (``sslviz._threads.one_thread``), so the
caller's thread count, and other computations running at the same time in other threads,
change no bit of a result. Compared with ``np.array_equal``, never ``allclose``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from sslviz import _threads
from sslviz.conditioning import condition_curve, trust_curve
from sslviz.intervals import score, sweep
from sslviz.problem import build_problem, loss_curve, run_regret
from sslviz.specs import ProblemSpec, RegretSettings, SweepSettings

pytestmark = pytest.mark.dispatch  # bits compared across paths

SPEC = ProblemSpec(dataset="digits", classes=(3, 8), n=220, n_labeled=12, family="complete")
LO, HI = 0.6, 3.0


@pytest.fixture(scope="module")
def problem():
    return build_problem(SPEC)


def arrays(p) -> list[np.ndarray]:
    """Every number of the default views of one instance, as arrays."""
    curve = loss_curve(p, LO, HI)
    res = sweep(p.model, p.y_unlabeled, LO, HI, SweepSettings())
    sc = score(res, curve, model=p.model)
    grid = np.linspace(LO, HI, 9)
    cond = condition_curve(p.model, grid)
    trust = trust_curve(p.model, grid)
    sl = p.model.soft_labels(1.3)
    return [
        np.asarray(curve.breakpoints),
        curve.loss.values,
        np.array([(iv.lo, iv.hi, iv.loss) for iv in res.intervals]),
        np.array([m.sigma for m in sc.miss_records] + [sc.eps_volume]),
        np.array([m.evidence.get("t_needed") or -1 for m in sc.miss_records], float),
        cond.kappa,
        cond.iterations_needed,
        cond.cg_error,
        *(np.asarray(getattr(trust, f)) for f in ("error", "margin")),
        sl.f,
        sl.df,
    ]


def assert_same(a: list[np.ndarray], b: list[np.ndarray]) -> None:
    assert len(a) == len(b)
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        assert x.shape == y.shape and np.array_equal(x, y, equal_nan=True), f"array {i} differs"


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_one_and_two_blas_threads_give_the_same_bits(problem):
    with threadpool_limits(limits=1):
        one = arrays(problem)
    with threadpool_limits(limits=2):
        two = arrays(problem)
    assert_same(one, two)


@pytest.mark.slow  # over 2 s: outside the quick run
def test_two_computations_at_once_give_the_same_bits(problem):
    """As in the app server: session threads computing at the same time."""
    alone = arrays(problem)
    with ThreadPoolExecutor(2) as pool:
        a, b = pool.map(lambda _: arrays(problem), range(2))
    assert_same(alone, a)
    assert_same(alone, b)


def test_importing_sslviz_pins_one_thread_for_the_process():
    code = (
        "import sslviz, threadpoolctl; print(max(i['num_threads'] for i in "
        "threadpoolctl.threadpool_info() if i['user_api'] == 'blas'))"
    )
    env = os.environ | {"OPENBLAS_NUM_THREADS": "2"}
    env.pop("SSLVIZ_THREADS", None)
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "1"


def test_the_callers_thread_count_comes_back():
    with threadpool_limits(limits=2):
        before = _threads.blas_threads()
        inside = _threads.one_thread(_threads.blas_threads)()
        assert (before, inside, _threads.blas_threads()) == (2, _threads.THREADS, 2)


def test_regret_is_the_same_with_one_and_two_threads():
    spec = ProblemSpec(dataset="digits", classes=(2, 3), n=40, n_labeled=6, family="complete")
    regret = RegretSettings(rounds=4, repeats=1, feedback=("approx", "exact"), jobs=1)
    runs = []
    for th in (1, 2):
        with threadpool_limits(limits=th):
            exp = run_regret(spec, (0.6, 3.0), SweepSettings(), regret, n_jobs=1)
        runs.append([m.regret_mean for m in exp.models.values()])
    assert_same(*runs)
