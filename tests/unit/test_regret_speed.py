"""The fast dense path of the soft labels against the general one.

``sslviz.labeling.FAST_DENSE`` switches between the lean dense path (LAPACK getrf/getrs
directly, CG and PCG in :func:`sslviz._kernels.cg_dense`) and the general reference path
(solver objects, :func:`sslviz.solvers.solve_cg`). The two reach BLAS through different
builds (NumPy's and SciPy's), whose kernels may round differently on some CPUs, and their
weights through different exponentials (libm's and NumPy's, which differ in the last bit
where it runs AVX-512 code), so they are compared to tolerances (``tests/reference.py``):
the same pieces and losses, the same work to :data:`WORK_RTOL`, the same regrets to 1e-9.
The precomputed and forked rounds run the same code and are compared bit for bit.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.linalg as la
import scipy.linalg.blas as blas
from reference import (
    RTOL_BREAKPOINT,
    RTOL_CG_BREAKPOINT,
    RTOL_ITERATE,
    assert_same_curve_to_tolerance,
)

from sslviz import systems
from sslviz._kernels import (
    NO_TRACE_ONE,
    _row_sums,
    cg_dense,
    gth_dense_factor,
    gth_dense_solve,
    harmonic_cg_dense,
    harmonic_gth_dense,
)
from sslviz.experiment import regret_experiment
from sslviz.paths import fast_paths
from sslviz.problem import GraphRounds, _fast_round, _true_round, build_problem, clear_round_memo
from sslviz.solvers import jacobi, lu_dense, lu_dense_solve, solve_cg
from sslviz.specs import ProblemSpec, SweepSettings
from sslviz.truth import true_loss_curve

KNN = ProblemSpec(dataset="digits", classes=(0, 1), n=100, n_labeled=10, family="knn", k=6)
COMPLETE = ProblemSpec(dataset="digits", classes=(3, 8), n=80, n_labeled=10, family="complete")
WORK_RTOL = 0.1
"""The two paths' solves and products, relative: a curve's search evaluates the σ its
splits and root steps ask for, which follow the last bits of the soft labels (and CG-t's
rounding, :data:`reference.RTOL_ITERATE`, near a crossing)."""


def _both(fn):
    """``fn()`` on the reference path, then on the fast path."""
    clear_round_memo()
    with fast_paths(fast_dense=False):
        ref = fn()
    clear_round_memo()
    return ref, fn()


NO_PRECONDITIONER = np.empty(0)


@pytest.mark.parametrize("precondition", [False, True])
def test_cg_dense_matches_solve_cg(precondition):
    """CG and Jacobi-PCG (``diag_inv`` = 1 / diag(A), as :func:`sslviz.solvers.jacobi`)."""
    rng = np.random.default_rng(3)
    for _ in range(60):
        n = int(rng.integers(2, 90))
        X = rng.random((n, n))
        A = X @ X.T + rng.random() * np.eye(n) + np.diag(rng.random(n) * n)
        b = rng.random(n)
        diag_inv = 1.0 / np.diag(A) if precondition else NO_PRECONDITIONER
        for t in (1, 7, 20):
            ref = solve_cg(A, b, maxiter=t, rtol=0.0, M=jacobi(A) if precondition else None)
            x, mv = cg_dense(A, b, t, diag_inv, NO_TRACE_ONE)
            assert mv == ref.matvecs
            assert np.linalg.norm(x - ref.x) <= RTOL_ITERATE * np.linalg.norm(ref.x)
    x, mv = cg_dense(np.eye(3), np.zeros(3), 20, np.ones(3)[: 3 * precondition], NO_TRACE_ONE)
    assert mv == 0 and not x.any()


def test_row_sums_are_numpys_pairwise_sums():
    """The dense CG kernel's row sums against NumPy's ``sum(axis=1)``, bit for bit: every
    length to 300 (the 8-way blocks and their rest), then lengths that split in halves,
    with signs, zeros, subnormals and a 1e±30 spread."""
    rng = np.random.default_rng(5)
    for n in [*range(301), 511, 512, 513, 1000, 2049, 12000]:
        A = rng.random((3, n)) * np.exp(rng.normal(0, 15, (3, n))) * rng.choice([-1, 1], (3, n))
        A[:, ::7] = 0.0
        A[:, ::11] = 5e-320
        assert np.array_equal(_row_sums(A), A.sum(axis=1)), n


def _dense_cg_reference(model, sigma, t, precondition):
    """Eqs. (1)–(2) by CG-t (Jacobi-PCG-t if ``precondition``) at σ on a dense graph, step
    by step in NumPy: libm's exponentials (``math.exp``, as the kernel's), NumPy's row sums
    and SciPy's BLAS for the products (the build the kernel calls), :func:`cg_dense` for the
    solves."""
    s2 = sigma * sigma

    def weights(D2, square):
        W = np.array([math.exp(-d / s2) for d in D2.ravel()]).reshape(D2.shape)
        if square:
            np.fill_diagonal(W, 0.0)
        dW = W * 2.0 * D2 / (s2 * sigma)
        dW[W == 0] = 0.0
        return W, dW

    def gemv(A, x):
        return blas.dgemv(1.0, A.T, x, trans=1)

    (W, dW), (WL, dWL) = weights(model._D2_UU, True), weights(model._D2_UL, False)
    deg = W.sum(axis=1) + WL.sum(axis=1)
    M = -W
    M[np.diag_indices_from(M)] += deg
    diag_inv = 1.0 / np.diag(M) if precondition else NO_PRECONDITIONER
    f, mv = cg_dense(M, gemv(WL, model.y_l), t, diag_inv, NO_TRACE_ONE)
    ddeg = dW.sum(axis=1) + dWL.sum(axis=1)
    rhs = gemv(dWL, model.y_l) - (ddeg * f - gemv(dW, f))
    df, mv2 = cg_dense(M, rhs, t, diag_inv, NO_TRACE_ONE)
    return f, df, mv + mv2


@pytest.mark.parametrize("solver", ["cg", "pcg"])
def test_dense_cg_kernel_repeats_the_numpy_steps(solver):
    """``harmonic_cg_dense`` (the soft labels of CG and PCG on dense graphs, and of the
    compiled search there) against the same steps in NumPy, bit for bit, from σ where
    weights underflow to nearly equal ones; where a node is cut off from L it hands over
    (−1)."""
    p = build_problem(COMPLETE.with_seed(1))
    m = p.model
    pre = solver == "pcg"
    handed_over = 0
    for sigma in np.geomspace(0.02, 20.0, 14):
        for t in (1, 20):
            f, df, mv = harmonic_cg_dense(
                m._D2_UU, m._D2_UL, m.y_l, sigma, t, pre, True, NO_TRACE_ONE
            )
            if mv < 0:
                handed_over += 1
                assert m.soft_labels(sigma, solver=solver, cg_iters=t).degenerate.any()
                continue
            ref = _dense_cg_reference(m, sigma, t, pre)
            assert np.array_equal(f, ref[0]) and np.array_equal(df, ref[1]) and mv == ref[2]
    assert 0 < handed_over < 28


def test_dense_gth_kernel_repeats_the_numpy_steps():
    """``harmonic_gth_dense`` (exact soft labels on dense graphs of at most GTH_DENSE_MAX
    unknowns) against the steps it replaces in NumPy, from the same weights, bit for bit:
    NumPy's row sums, the GTH kernels, eq. (2)'s right-hand side edge by edge
    (:func:`sslviz.systems.edge_flux`); where a weight underflows it hands over (−1)."""
    m = build_problem(COMPLETE.with_seed(1)).model
    handed_over = 0
    for sigma in np.geomspace(0.02, 20.0, 14):
        W, WL, dW, dWL = m.blocks(sigma, row_scaled=True, derivative=True)
        b = WL @ m.y_l
        for derivative in (True, False):
            dws = (dW, dWL) if derivative else (np.empty((0, 0)),) * 2
            f, df, solves = harmonic_gth_dense(W, WL, *dws, m.y_l, b, derivative, *m._n_edges)
            if solves < 0:
                handed_over += 1
                assert systems.count_weights(W) + systems.count_weights(WL) < sum(m._n_edges)
                continue
            A = W.copy()
            piv, cut = gth_dense_factor(A, WL.sum(axis=1))
            assert not cut.any()
            assert np.array_equal(f, gth_dense_solve(A, piv, cut, b))
            if derivative:
                rhs = systems.edge_flux(dW, dWL, m.y_l, f)
                assert np.array_equal(df, gth_dense_solve(A, piv, cut, rhs)) and solves == 2
            else:
                assert df.size == 0 and solves == 1
    assert 0 < handed_over < 28


@pytest.mark.parametrize("solver", ["cg", "pcg"])
def test_delalleau_dense_cg_matches_the_general_path(monkeypatch, solver):
    """Delalleau's soft labels by CG-t (PCG-t) on its dense system over L ∪ Ũ: in
    :func:`cg_dense` (FAST_DENSE) and by :func:`solve_cg` (the general path), the same
    labels (to the iterates' tolerance), derivatives and work."""
    import sslviz._kernels as kernels

    ran = []
    kernel = kernels.cg_dense
    monkeypatch.setattr(kernels, "cg_dense", lambda *a: ran.append(a[3].size) or kernel(*a))
    spec = COMPLETE.replace(labeling="delalleau", subset=30)
    m = build_problem(spec.with_seed(1)).model
    for sigma in np.geomspace(0.3, 4.0, 7):
        out = {}
        for fast in (True, False):
            with fast_paths(fast_dense=fast):
                out[fast] = m.soft_labels(sigma, solver=solver, cg_iters=20)
        got, ref = out[True], out[False]
        assert (got.solves, got.matvecs, got.factorizations) == (
            ref.solves,
            ref.matvecs,
            ref.factorizations,
        )
        for a, b in ((got.f, ref.f), (got.df, ref.df), (got.subset_f, ref.subset_f)):
            assert np.linalg.norm(a - b) <= RTOL_ITERATE * np.linalg.norm(b)
        assert np.array_equal(got.degenerate, ref.degenerate)
    assert len(ran) == 2 * 7 and all((size > 0) == (solver == "pcg") for size in ran)


def test_lu_dense_matches_scipy():
    rng = np.random.default_rng(4)
    A = rng.random((40, 40)) + 40 * np.eye(40)
    b = rng.random(40)
    lu, piv, pmin = lu_dense(A.copy())
    ref = la.lu_factor(A, check_finite=False)
    assert np.array_equal(lu, ref[0]) and np.array_equal(piv, ref[1])
    assert pmin == np.abs(np.diag(ref[0])).min()
    assert np.array_equal(lu_dense_solve(lu, piv, b), la.lu_solve(ref, b, check_finite=False))


@pytest.mark.parametrize("spec, lo, hi", [(KNN, 0.5, 5.0), (COMPLETE, 0.6, 3.0)])
@pytest.mark.parametrize("solver", ["exact", "cg", "pcg"])
def test_curves_identical_on_both_paths(spec, lo, hi, solver):
    def run():
        out = []
        for seed in (1, 2):
            p = build_problem(spec.with_seed(seed))
            c = true_loss_curve(p.model, p.y_unlabeled, lo, hi, solver=solver)
            out.append(c)
        return out

    ref, fast = _both(run)
    iterative = solver in ("cg", "pcg")
    for a, b in zip(ref, fast, strict=True):
        assert_same_curve_to_tolerance(a, b, RTOL_CG_BREAKPOINT if iterative else RTOL_BREAKPOINT)
        # The search's splits follow the last bits of f, and the paths' weights differ there
        # where NumPy's exp runs AVX-512 code (README, Reproducibility): a few σ more or less.
        assert a.factorizations == b.factorizations
        for work in ("solves", "matvecs"):
            x, y = getattr(a, work), getattr(b, work)
            assert abs(x - y) <= WORK_RTOL * max(x, y), (work, x, y)


@pytest.mark.parametrize(
    "spec, lo, hi, rounds, repeats", [(KNN, 0.5, 5.0, 12, 2), (COMPLETE, 0.2, 3.0, 3, 1)]
)
@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_regret_arrays_identical_on_both_paths(spec, lo, hi, rounds, repeats):
    provider = GraphRounds(spec, lo, hi, SweepSettings(solver="cg", cg_iters=20))

    def run():
        exp = regret_experiment(provider, rounds=rounds, repeats=repeats, n_jobs=1)
        return {m: [r.regret for r in exp.models[m].runs] for m in exp.models}

    ref, fast = _both(run)
    assert ref.keys() == fast.keys()
    for m in ref:
        for a, b in zip(ref[m], fast[m], strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, err_msg=m)


def test_graph_round_memo_hits():
    clear_round_memo()
    provider = GraphRounds(KNN, 0.5, 5.0, SweepSettings(solver="cg", cg_iters=20))
    provider.true_loss(5)
    provider.approx_loss(5)
    provider.approx_feedback(5, 1.0)
    for memo in (_true_round, _fast_round):
        info = memo.cache_info()
        assert (info.misses, info.hits) == (1, 2), memo
    # A change of t keeps the exact curve; a setting fast mode does not read keeps both.
    GraphRounds(KNN, 0.5, 5.0, SweepSettings(solver="cg", cg_iters=10)).true_loss(5)
    GraphRounds(KNN, 0.5, 5.0, SweepSettings(solver="cg", cg_iters=20, eta=2.0)).approx_loss(5)
    assert (_true_round.cache_info().misses, _true_round.cache_info().hits) == (1, 4)
    assert (_fast_round.cache_info().misses, _fast_round.cache_info().hits) == (2, 3)


@pytest.mark.parametrize("fast", [True, False])
def test_no_linalg_warning_escapes(fast):
    """Digits 3/8, n = 80, |L| = 10, complete, σ ∈ [0.2, 3], seed 0: exactly singular LU at
    small σ is handled by the GTH fallback, silently."""
    p = build_problem(COMPLETE.with_seed(0))
    with fast_paths(fast_dense=fast), warnings.catch_warnings():
        warnings.simplefilter("error", la.LinAlgWarning)
        curve = true_loss_curve(p.model, p.y_unlabeled, 0.2, 3.0)
    assert curve.inconsistent == 0


def test_precomputed_rounds_give_the_same_regrets():
    """Local parallel runs compute the rounds first, split by round (PRECOMPUTE): the same
    regret arrays as one task per repetition."""

    provider = GraphRounds(KNN, 0.5, 5.0, SweepSettings(solver="cg", cg_iters=20))

    def run():
        exp = regret_experiment(provider, rounds=6, repeats=3, n_jobs=2)
        return exp, {m: [r.regret for r in exp.models[m].runs] for m in exp.models}

    with fast_paths(precompute=False):
        (ref_exp, ref) = run()
    fast_exp, fast = run()
    for m in ref:
        for a, b in zip(ref[m], fast[m], strict=True):
            assert np.array_equal(a, b), m
    assert ref_exp.M == fast_exp.M and ref_exp.lr == fast_exp.lr
    # The precomputed provider answers exactly as the graph rounds do.
    seed = 123
    pre = provider.precompute([seed], 1)
    assert np.array_equal(pre.true_loss(seed).edges, provider.true_loss(seed).edges)
    assert pre.approx_feedback(seed, 1.3) == provider.approx_feedback(seed, 1.3)


def test_precompute_sends_the_workers_only_what_is_not_memoised(monkeypatch):
    """GraphRounds.precompute computes its first round here and sends the others' missing
    curves to the workers (in-process here: one job), memoising what they return: a change
    of t sends only the fast sweeps, the same settings again send nothing; the curves are
    those computed directly, without the memo."""
    import sslviz.problem as problem

    sent = []
    chunk = problem._graph_rounds_chunk

    def recording(rounds, wanted):
        sent.extend(wanted)
        return chunk(rounds, wanted)

    monkeypatch.setattr(problem, "_graph_rounds_chunk", recording)
    clear_round_memo()
    seeds = [11, 12, 13]
    runs = [
        (20, [(12, True, True), (13, True, True)]),
        (10, [(12, False, True), (13, False, True)]),  # t changed: the exact curves kept
        (10, []),  # nothing new
    ]
    for t, expected in runs:
        sent.clear()
        settings = SweepSettings(solver="cg", cg_iters=t)
        pre = GraphRounds(KNN, 0.5, 5.0, settings).precompute(seeds, 1)
        assert sent == expected, t
        for s in seeds:
            true, approx = pre._pair(s)
            ref_true = problem._true_curve(KNN, 0.5, 5.0, s)
            ref_approx = problem._fast_curve(KNN, 0.5, 5.0, problem._fast_settings(settings), s)
            for got, want in ((true, ref_true), (approx, ref_approx)):
                assert np.array_equal(got.edges, want.edges), (t, s)
                assert np.array_equal(got.values, want.values), (t, s)
    clear_round_memo()


_FORK_CHECK = """
import pickle, sys, threading
from sslviz.paths import fast_paths
from sslviz.problem import GraphRounds, clear_round_memo
from sslviz.specs import ProblemSpec, SweepSettings
spec = ProblemSpec(dataset="digits", classes=(0, 1), n=100, n_labeled=10, family="knn", k=6)
provider = GraphRounds(spec, 0.5, 5.0, SweepSettings(solver="cg", cg_iters=20))
out = {}
for fork in (True, False):
    clear_round_memo()
    assert threading.active_count() == 1
    with fast_paths(fork=fork):
        pre = provider.precompute(list(range(40, 52)), 2)
    out[fork] = {s: (t.edges, t.values, a.edges, a.values) for s, (t, a) in pre.table.items()}
sys.stdout.buffer.write(pickle.dumps(out))
"""


@pytest.mark.slow  # over 2 s: outside the quick run
def test_forked_workers_compute_the_same_rounds():
    """process_map forks its workers from a process with no other thread (the CLI): the
    same rounds, bit for bit, as joblib's fresh workers."""
    import pickle
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-c", _FORK_CHECK], capture_output=True, check=True)
    out = pickle.loads(run.stdout)
    assert sorted(out[True]) == sorted(out[False]) == list(range(40, 52))
    for s, forked in out[True].items():
        for a, b in zip(forked, out[False][s], strict=True):
            assert np.array_equal(a, b), s
