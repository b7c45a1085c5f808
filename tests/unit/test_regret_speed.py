"""The dense paths of the soft labels (GTH or LAPACK getrf/getrs directly, CG and PCG in
:func:`sslviz._kernels.harmonic_cg_dense`, Delalleau's CG in :func:`sslviz.solvers.solve_cg`'s
compiled loop) against the same steps in NumPy and against the reference in
``tests/reference.py`` (:class:`reference.NumpyHarmonic`). The kernels reach BLAS through
SciPy's build and the references through NumPy's, whose kernels may round differently on
some CPUs, and their weights through different exponentials (libm's and NumPy's, which
differ in the last bit where it runs AVX-512 code), so the references are compared to
tolerances (``tests/reference.py``): the same pieces and losses, the same work to
:data:`WORK_RTOL`. The precomputed and forked rounds run the same code and are compared
bit for bit.
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
    NumpyHarmonic,
    RoundsOneByOne,
    assert_same_curve_to_tolerance,
    cg,
)

from sslviz import systems
from sslviz._kernels import (
    NO_PATH,
    NO_TRACE_ONE,
    NO_X0,
    _row_sums,
    cg_dense,
    gth_dense_factor,
    gth_dense_solve,
    harmonic_cg_dense,
    harmonic_gth_dense,
)
from sslviz.experiment import regret_experiment
from sslviz.problem import GraphRounds, _fast_round, _true_round, build_problem, clear_round_memo
from sslviz.solvers import lu_dense, lu_dense_solve
from sslviz.specs import ProblemSpec, SweepSettings
from sslviz.truth import true_loss_curve

KNN = ProblemSpec(dataset="digits", classes=(0, 1), n=100, n_labeled=10, family="knn", k=6)
COMPLETE = ProblemSpec(dataset="digits", classes=(3, 8), n=80, n_labeled=10, family="complete")
WORK_RTOL = 0.15
"""The solves, products and factorisations of a curve and of its reference, relative: a
curve's search evaluates the σ its splits and root steps ask for, which follow the last
bits of the soft labels (and CG-t's rounding, :data:`reference.RTOL_ITERATE`, near a
crossing); 13 % more σ on kNN-6 with CG-20, seed 2."""


NO_PRECONDITIONER = np.empty(0)


def _cg_dense(A, b, t, diag_inv):
    """:func:`cg_dense` for t steps from zero: ``(x, products)``."""
    x, _, matvecs, _, _ = cg_dense(A, b, NO_X0, t, 0.0, 0.0, diag_inv, NO_TRACE_ONE, NO_PATH)
    return x, matvecs


@pytest.mark.dispatch
@pytest.mark.parametrize("precondition", [False, True])
def test_cg_dense_matches_the_numpy_cg(precondition):
    """CG and Jacobi-PCG (``diag_inv`` = 1 / diag(A), as :func:`sslviz.solvers.jacobi`)
    against the textbook CG in NumPy (``tests/reference.py``)."""
    rng = np.random.default_rng(3)
    for _ in range(60):
        n = int(rng.integers(2, 90))
        X = rng.random((n, n))
        A = X @ X.T + rng.random() * np.eye(n) + np.diag(rng.random(n) * n)
        b = rng.random(n)
        diag_inv = 1.0 / np.diag(A) if precondition else NO_PRECONDITIONER
        for t in (1, 7, 20):
            ref, products = cg(A, b, t, diag_inv if precondition else None)
            x, mv = _cg_dense(A, b, t, diag_inv)
            assert mv == products
            assert np.linalg.norm(x - ref) <= RTOL_ITERATE * np.linalg.norm(ref)
    x, mv = _cg_dense(np.eye(3), np.zeros(3), 20, np.ones(3)[: 3 * precondition])
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
    f, mv = _cg_dense(M, gemv(WL, model.y_l), t, diag_inv)
    ddeg = dW.sum(axis=1) + dWL.sum(axis=1)
    rhs = gemv(dWL, model.y_l) - (ddeg * f - gemv(dW, f))
    df, mv2 = _cg_dense(M, rhs, t, diag_inv)
    return f, df, mv + mv2


@pytest.mark.dispatch
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


@pytest.mark.dispatch
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


def _delalleau_numpy(m, sigma, t, precondition):
    """Delalleau's soft labels by CG-t (PCG-t) at σ on a complete graph, step by step in
    NumPy (:func:`reference.cg`): A = λΔ_L + diag(W1) − W on L ∪ Ũ, A f = λy, A f' = −A' f,
    then the Parzen extension f̃ = E f / E 1 and its derivative."""
    s2 = sigma * sigma
    D2 = np.array(m._D2, float)
    W = np.exp(-D2 / s2)
    np.fill_diagonal(W, 0.0)
    dW = 2.0 * W * D2 / (s2 * sigma)
    A = np.diag(W.sum(axis=1) + m.lam * m.is_l) - W
    dA = np.diag(dW.sum(axis=1)) - dW
    diag_inv = 1.0 / np.diag(A) if precondition else None
    f, products = cg(A, m.lam * m.y_s, t, diag_inv)
    df, more = cg(A, -(dA @ f), t, diag_inv)
    E, dE = m._E.copy(), m._E.copy()  # the extension's edges, squared lengths
    E.data = np.exp(-m._E.data / s2)
    dE.data = 2.0 * E.data * m._E.data / (s2 * sigma)
    E, dE = E.toarray(), dE.toarray()
    s = E.sum(axis=1)
    ft = (E @ f) / s
    return ft, ((dE @ f) + (E @ df) - ft * dE.sum(axis=1)) / s, f, products + more


@pytest.mark.dispatch
@pytest.mark.parametrize("solver", ["cg", "pcg"])
def test_delalleau_dense_cg_matches_the_numpy_steps(solver):
    """Delalleau's soft labels by CG-t (PCG-t) on its dense system over L ∪ Ũ (in
    :func:`sslviz.solvers.solve_cg`'s compiled loop) against the same steps in NumPy: the
    same labels, derivatives and subset labels to the iterates' tolerance, the same work."""
    spec = COMPLETE.replace(labeling="delalleau", subset=30)
    m = build_problem(spec.with_seed(1)).model
    for sigma in np.geomspace(0.3, 4.0, 7):
        got = m.soft_labels(sigma, solver=solver, cg_iters=20)
        *ref, products = _delalleau_numpy(m, sigma, 20, solver == "pcg")
        assert (got.solves, got.matvecs, got.factorizations) == (2, products, 0)
        for a, b in zip((got.f, got.df, got.subset_f), ref, strict=True):
            assert np.linalg.norm(a - b) <= RTOL_ITERATE * np.linalg.norm(b)
        assert not got.degenerate.any()


def test_lu_dense_matches_scipy():
    rng = np.random.default_rng(4)
    A = rng.random((40, 40)) + 40 * np.eye(40)
    b = rng.random(40)
    lu, piv, pmin = lu_dense(A.copy())
    ref = la.lu_factor(A, check_finite=False)
    assert np.array_equal(lu, ref[0]) and np.array_equal(piv, ref[1])
    assert pmin == np.abs(np.diag(ref[0])).min()
    assert np.array_equal(lu_dense_solve(lu, piv, b), la.lu_solve(ref, b, check_finite=False))


CURVES = [(KNN, lo, 5.0, solver) for lo, solver in ((0.5, "exact"), (0.8, "cg"), (0.5, "pcg"))]
CURVES += [(COMPLETE, 0.6, 3.0, solver) for solver in ("exact", "cg", "pcg")]


@pytest.mark.dispatch
@pytest.mark.parametrize("spec, lo, hi, solver", CURVES)
def test_curves_the_same_as_the_numpy_reference(spec, lo, hi, solver):
    """The curves of the dense paths against those of :class:`reference.NumpyHarmonic`
    searched in Python: the same pieces and losses, breakpoints to a tolerance. (Below
    σ ≈ 0.8 CG-20 on this kNN graph amplifies rounding, κ ≈ 3·10⁵ at σ = 0.5: the batched
    kernel's sums in index order and NumPy's BLAS sums differ there by 10⁻³ in f.)"""
    rtol = RTOL_CG_BREAKPOINT if solver in ("cg", "pcg") else RTOL_BREAKPOINT
    for seed in (1, 2):
        p = build_problem(spec.with_seed(seed))
        got = true_loss_curve(p.model, p.y_unlabeled, lo, hi, solver=solver)
        ref = true_loss_curve(NumpyHarmonic(p.model), p.y_unlabeled, lo, hi, solver=solver)
        assert_same_curve_to_tolerance(ref, got, rtol)
        # The search's splits follow the last bits of f, and the weights differ there where
        # NumPy's exp runs AVX-512 code (README, Reproducibility): a few σ more or less.
        for work in ("solves", "matvecs", "factorizations"):
            x, y = getattr(ref, work), getattr(got, work)
            assert abs(x - y) <= WORK_RTOL * max(x, y), (work, x, y)


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


def test_no_linalg_warning_escapes():
    """Digits 3/8, n = 80, |L| = 10, complete, σ ∈ [0.2, 3], seed 0: exactly singular LU at
    small σ is handled by the GTH fallback, silently."""
    p = build_problem(COMPLETE.with_seed(0))
    with warnings.catch_warnings():
        warnings.simplefilter("error", la.LinAlgWarning)
        curve = true_loss_curve(p.model, p.y_unlabeled, 0.2, 3.0)
    assert curve.inconsistent == 0


@pytest.mark.dispatch
def test_precomputed_rounds_give_the_same_regrets():
    """Local parallel runs compute the rounds first, split by round: the same regret arrays
    as one task per repetition (the same rounds without ``precompute``)."""

    provider = GraphRounds(KNN, 0.5, 5.0, SweepSettings(solver="cg", cg_iters=20))

    def run(rounds):
        clear_round_memo()
        exp = regret_experiment(rounds, rounds=6, repeats=3, n_jobs=2)
        return exp, {m: [r.regret for r in exp.models[m].runs] for m in exp.models}

    (ref_exp, ref) = run(RoundsOneByOne(provider))
    fast_exp, fast = run(provider)
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
from sslviz._threads import can_fork
from sslviz.problem import GraphRounds, clear_round_memo
from sslviz.specs import ProblemSpec, SweepSettings
spec = ProblemSpec(dataset="digits", classes=(0, 1), n=100, n_labeled=10, family="knn", k=6)
provider = GraphRounds(spec, 0.5, 5.0, SweepSettings(solver="cg", cg_iters=20))
out = {}
for fork in (True, False):
    clear_round_memo()
    done = threading.Event()
    server = None if fork else threading.Thread(target=done.wait)  # another thread runs
    if server is not None:
        server.start()
    assert can_fork() == fork
    pre = provider.precompute(list(range(40, 52)), 2)
    done.set()
    out[fork] = {s: (t.edges, t.values, a.edges, a.values) for s, (t, a) in pre.table.items()}
sys.stdout.buffer.write(pickle.dumps(out))
"""


@pytest.mark.dispatch
@pytest.mark.slow  # over 2 s: outside the quick run
def test_forked_workers_compute_the_same_rounds():
    """process_map forks its workers from a process with no other thread (the CLI): the
    same rounds, bit for bit, as joblib's fresh workers (which it starts where another
    thread runs, as in the app's server)."""
    import pickle
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-c", _FORK_CHECK], capture_output=True, check=True)
    out = pickle.loads(run.stdout)
    assert sorted(out[True]) == sorted(out[False]) == list(range(40, 52))
    for s, forked in out[True].items():
        for a, b in zip(forked, out[False][s], strict=True):
            assert np.array_equal(a, b), s
