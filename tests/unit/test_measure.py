"""Robust timings and machine-independent work counts (sslviz.measure)."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from sslviz import _threads
from sslviz.export import to_dict
from sslviz.intervals import sweep
from sslviz.measure import (
    Timing,
    describe_work,
    shown_ms,
    speed_verdicts,
    timed,
    verdict,
    work_counts,
)
from sslviz.problem import build_problem
from sslviz.specs import ProblemSpec, SweepSettings


def spin(seconds: float) -> float:
    """Burn CPU in this thread for about ``seconds``."""
    import time

    t0 = time.thread_time()
    x = 0.0
    while time.thread_time() - t0 < seconds:
        x += 1.0
    return x


def test_timed_keeps_the_first_result_and_the_minimum():
    calls = []

    def job():
        calls.append(1)
        spin(0.002)
        return len(calls)

    result, t = timed(job, min_repeats=3, max_repeats=5, budget=1.0)
    assert result == 1 and t.repeats == len(calls) and 3 <= t.repeats <= 5
    assert 0.0015 < t.cpu <= t.wall + 1e-3 and t.spread >= 0.0


def test_a_run_longer_than_the_budget_runs_once():
    _, t = timed(lambda: spin(0.05), min_repeats=3, budget=0.01)
    assert t.repeats == 1


def test_cpu_time_ignores_waiting():
    import time

    _, t = timed(lambda: time.sleep(0.02), min_repeats=2, budget=1.0)
    assert t.wall >= 0.02 and t.cpu < 0.01


def test_busy_counts_other_running_computations():
    started, release = threading.Event(), threading.Event()

    @_threads.one_thread
    def other():
        started.set()
        release.wait(5)

    th = threading.Thread(target=other)
    th.start()
    started.wait(5)
    try:
        _, t = timed(lambda: spin(0.001), min_repeats=1, budget=0.1)
    finally:
        release.set()
        th.join()
    assert t.busy == 1
    _, alone = timed(lambda: spin(0.001), min_repeats=1, budget=0.1)
    assert alone.busy == 0


@pytest.mark.parametrize(
    "a, b, expected",
    [
        (1.0, 1.05, "undecided"),  # within the 15 % floor
        (1.0, 3.0, "a faster (1000 ms against 3000 ms, ×3.0)"),
        (2.0, 1.0, "b faster (2000 ms against 1000 ms, ×2.0)"),
    ],
)
def test_verdict_only_decides_outside_the_noise(a, b, expected):
    ta, tb = (Timing(x, x, 5, 0.02, 0) for x in (a, b))
    assert verdict(ta, tb).startswith(expected)


def test_verdict_widens_with_the_measured_spread():
    noisy = Timing(1.0, 1.0, 5, 0.6, 3)
    assert verdict(noisy, Timing(1.5, 1.5, 5, 0.05, 0)).startswith("undecided")
    assert verdict(noisy, Timing(1.7, 1.7, 5, 0.05, 0)).startswith("a faster")


@pytest.fixture(scope="module")
def knn_big(tmp_path_factory):
    """kNN-6 on 600 points: above 400 nodes the system is stored sparse (CSR)."""
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 300)
    X = rng.normal(size=(600, 5)) + 1.5 * y[:, None]
    path = tmp_path_factory.mktemp("measure") / "blobs.npz"
    np.savez(path, X=X, y=y)
    return build_problem(
        ProblemSpec(data_file=str(path), classes=(0, 1), n=600, n_labeled=20, pca=0, family="knn")
    )


def test_work_counts_of_cg_on_a_sparse_system(knn_big):
    p = knn_big
    res = sweep(p.model, p.y_unlabeled, 1.0, 3.0, SweepSettings(solver="cg", cg_iters=20))
    w = work_counts(
        p.model, 2.0, solves=res.solves, matvecs=res.matvecs, factorizations=res.factorizations
    )
    L = p.model.laplacian_system(2.0)[0]
    m = p.model.n_unlabeled
    assert not isinstance(L, np.ndarray)  # CSR
    assert w["system_size"] == m and w["system_nonzeros"] == L.nnz < m * m / 10
    assert w["factorizations"] == 0 and w["factorization"] is None
    assert w["matvecs"] == res.matvecs == 20 * res.solves  # t products per solve
    assert w["nonzeros_touched"] == res.matvecs * w["system_nonzeros"]
    assert w["flops"] == 2 * w["nonzeros_touched"]
    assert w["graph_nonzeros"] == w["system_nonzeros"] and w["storage"] == "sparse"
    assert "20 " in describe_work(w) and f"{w['system_nonzeros']:,} nonzeros" in describe_work(w)


def test_work_counts_of_a_small_knn_graph_count_its_edges_not_its_dense_storage():
    """A small kNN system runs dense (faster), but its work is the graph's: ~(k + 1)·|U|
    nonzeros per product, as Table 1 counts it, and the sentence says what ran."""
    p = build_problem(
        ProblemSpec(dataset="digits", classes=(3, 8), n=100, n_labeled=10, family="knn", k=6)
    )
    res = sweep(p.model, p.y_unlabeled, 0.6, 3.4, SweepSettings(solver="cg", cg_iters=20))
    w = to_dict(res, p)["work"]
    m = p.model.n_unlabeled
    assert w["storage"] == "dense" and w["system_nonzeros"] == m * m
    L = p.model.laplacian_system(2.0)[0]
    U = p.model.unlabeled_idx
    block = p.model.graph.sqdist[U][:, U].tocoo()  # the kNN graph's edges among U
    edges = int(np.sum(block.row != block.col))
    assert w["graph_nonzeros"] == edges + m < m * m / 5
    assert np.count_nonzero(L) <= w["graph_nonzeros"]  # weights may underflow to 0
    assert w["nonzeros_touched"] == res.matvecs * w["graph_nonzeros"]
    text = describe_work(w)
    assert f"L_UU's {w['graph_nonzeros']:,} nonzeros" in text and "run dense" in text


def test_work_counts_of_exact_solves_on_a_complete_graph():
    p = build_problem(
        ProblemSpec(dataset="digits", classes=(2, 3), n=60, n_labeled=6, family="complete")
    )
    res = sweep(p.model, p.y_unlabeled, 0.8, 2.5, SweepSettings(solver="exact"))
    w = to_dict(res, p)["work"]
    m = p.model.n_unlabeled
    assert w["system_nonzeros"] == m * m and w["factorization"] == "dense"
    assert w["factorizations"] == res.factorizations > 0 and w["matvecs"] == 0
    assert w["flops"] == w["factorizations"] * (2 * m**3 // 3) + w["solves"] * 2 * m * m
    assert f"{m}×{m}" in describe_work(w)


def test_work_counts_do_not_depend_on_threads_or_repeats(knn_big):
    p = knn_big
    counts = []
    for th in (1, 2, 1):
        with threadpool_limits(limits=th):
            res = sweep(p.model, p.y_unlabeled, 1.0, 3.0, SweepSettings())
        counts.append(to_dict(res, p)["work"])
    assert counts[0] == counts[1] == counts[2]


def test_speed_verdicts_pair_cg_and_inverse_per_graph():
    def row(n, fam, solver, cpu, spread=0.02, M=10):
        return {
            "n": n,
            "family": fam,
            "solver": solver,
            "M": M,
            "cpu_seconds": cpu,
            "cpu_per_interval": cpu / M,
            "time_per_interval": cpu / M,
            "repeats": 5,
            "spread": spread,
            "busy": 0,
        }

    rows = [
        row(100, "knn", "cg", 1.0),
        row(100, "knn", "inverse", 3.0),
        row(100, "complete", "cg", 1.0),
        row(100, "complete", "inverse", 1.05),
        row(200, "knn", "cg", 1.0),
    ]
    v = speed_verdicts(rows)
    assert v[(100, "knn")].startswith("CG faster")
    assert v[(100, "complete")].startswith("undecided")
    assert (200, "knn") not in v  # no inverse row to compare with


def test_speed_ratio_is_the_ratio_of_the_shown_times():
    """A reader can check the stated ratio from the two times the sentence (and the table)
    shows, each rounded to 3 significant digits (:func:`sslviz.measure.shown_ms`)."""
    import re

    for cg, inv in ((0.000252, 0.003943), (0.00031, 0.00388), (0.0123, 0.00456)):
        text = verdict(Timing(cg, cg, 5, 0.01, 0), Timing(inv, inv, 5, 0.01, 0), ("CG", "inverse"))
        a, b, r = re.search(r"\(([\d.e+]+) ms against ([\d.e+]+) ms, ×([\d.]+)\)", text).groups()
        assert float(a) == shown_ms(cg) and float(b) == shown_ms(inv)
        assert r == f"{max(float(a), float(b)) / min(float(a), float(b)):.1f}", text
