"""The compiled steps of the breakpoint search against their NumPy forms, and the paths
that must agree bit for bit.

The Hermite split test (:func:`sslviz._kernels.hermite_split`), the root proposals and the
bracketed root step (:func:`sslviz._kernels.refine_step`) are checked against their NumPy
forms, kept here as independent references: on random inputs with zeros, NaN and
degenerate nodes, then whole loss curves with the references swapped in. Two libraries'
arithmetic may differ in the last bits on some CPUs, so floats are compared to stated
tolerances (``tests/reference.py``) and decisions, losses and counts
exactly.

Paths that share one kernel by construction (one σ against a batch, the compiled search
against the Python one, paused against unpaused) are compared bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest
from reference import RTOL_VALUE, PythonSearch, assert_same_curve, assert_same_curve_to_tolerance

import sslviz.crossings as crossings
import sslviz.truth as truth
from sslviz import _kernels
from sslviz._kernels import (
    NO_TRACE,
    cg_search,
    harmonic_cg,
    refine_step,
    root_proposals,
)
from sslviz.graphs import gaussian_weights
from sslviz.problem import _graph_round, clear_round_memo
from sslviz.specs import ProblemSpec, SweepSettings
from sslviz.systems import finite_entries

pytestmark = pytest.mark.dispatch  # bits compared across paths


def needs_split_numpy(a, b, ea, eb, touch) -> bool:
    """The split test as NumPy computed it (the reference)."""
    ha, da, ga = ea
    hb, db, gb = eb
    ok = ~(ga | gb)
    if not ok.any():
        return False
    ha, hb, da, db = ha[ok], hb[ok], da[ok], db[ok]
    s = crossings._S[None, :]
    h00 = 2 * s**3 - 3 * s**2 + 1
    h10 = s**3 - 2 * s**2 + s
    h01 = -2 * s**3 + 3 * s**2
    h11 = s**3 - s**2
    w = b - a
    H = h00 * ha[:, None] + h10 * w * da[:, None] + h01 * hb[:, None] + h11 * w * db[:, None]
    vals = np.column_stack([ha, H, hb])
    changes = np.count_nonzero(np.diff(np.sign(vals), axis=1) != 0, axis=1)
    ends_differ = np.sign(ha) != np.sign(hb)
    if np.any(changes > ends_differ.astype(int)):
        return True
    mag = np.abs(vals[~ends_differ])
    if not mag.size:
        return False
    k = np.argmin(mag, axis=1)
    low = mag[np.arange(mag.shape[0]), k]
    ends = np.minimum(mag[:, 0], mag[:, -1])
    interior = (k > 0) & (k < mag.shape[1] - 1)
    return bool(np.any(interior & (low < touch) & (low < 0.5 * ends)))


def refine_step_numpy(
    x, hn, dn, lo, hi, hlo, hhi, side, prop, prev_step, root, act, fast, newton_ok, rtol
):
    """One step of the root search as NumPy computed it (the reference), same signature."""
    act[:] = np.isnan(root) & (lo < x) & (x < hi)
    left = act & (np.sign(hn) == np.sign(hlo))
    right = act & ~left
    hhi[left & (side == 1)] *= 0.5
    hlo[right & (side == -1)] *= 0.5
    lo[left], hlo[left] = x, hn[left]
    hi[right], hhi[right] = x, hn[right]
    side[left], side[right] = 1, -1
    with np.errstate(divide="ignore", invalid="ignore"):
        step = np.where(dn != 0, hn / dn, np.inf)
        secant = lo - hlo * (hi - lo) / (hhi - hlo)
    newton = x - step
    fast[:] = False
    if newton_ok:
        fast[act] = (np.abs(step) <= 0.5 * prev_step)[act]
        prop[act] = np.where(fast[act], newton[act], 0.5 * (lo[act] + hi[act]))
        prev_step[act] = np.abs(step[act])
    else:
        prop[act] = secant[act]
        step = np.where(act, np.inf, step)
    tol = rtol * x
    exact = act & (hn == 0)
    root[exact] = x
    small = act & ~exact & (np.abs(step) < 1e-3 * tol) & (lo <= newton) & (newton <= hi)
    root[small] = newton[small]
    narrow = np.isnan(root) & (hi - lo <= rtol * lo)
    root[narrow] = 0.5 * (lo[narrow] + hi[narrow])
    open_ = np.flatnonzero(np.isnan(root))
    if not open_.size:
        return np.nan, -1
    j = int(open_[0])
    return (prop[j] if lo[j] < prop[j] < hi[j] else 0.5 * (lo[j] + hi[j])), j


def _values(rng, n):
    h = rng.normal(size=n) * 10.0 ** rng.integers(-6, 1)
    if rng.random() < 0.3:
        h[rng.integers(n)] = 0.0
    if rng.random() < 0.1:
        h[rng.integers(n)] = np.nan
    d = rng.normal(size=n) * 10.0 ** rng.integers(-3, 3)
    if rng.random() < 0.2:
        d[rng.integers(n)] = 0.0
    return h, d, rng.random(n) < 0.05


def test_hermite_split_matches_numpy():
    rng = np.random.default_rng(0)
    decisions = []
    for _ in range(5000):
        n = int(rng.integers(1, 30))
        a = rng.uniform(0.1, 2.0)
        b = a * rng.uniform(1.0001, 1.3)
        ea, eb = _values(rng, n), _values(rng, n)
        touch = float(rng.choice([0.05, 0.5, 1e-3]))
        got = crossings.needs_split(a, b, ea, eb, touch)
        assert got == needs_split_numpy(a, b, ea, eb, touch)
        decisions.append(got)
    assert 0.05 < np.mean(decisions) < 0.95  # both answers were exercised


def root_proposals_numpy(a, b, ha, hb, da, db, s, basis):
    """The root search's first points as NumPy computed them (the reference)."""
    s = np.asarray(s)
    t_ = s[None, :]
    w = b - a
    H = (
        (2 * t_**3 - 3 * t_**2 + 1) * ha[:, None]
        + (t_**3 - 2 * t_**2 + t_) * w * da[:, None]
        + (-2 * t_**3 + 3 * t_**2) * hb[:, None]
        + (t_**3 - t_**2) * w * db[:, None]
    )
    with np.errstate(divide="ignore", invalid="ignore"):  # random ends may be equal
        prop = a + (b - a) * ha / (ha - hb)
    for r in range(ha.size):
        idx = np.flatnonzero(np.sign(H[r, :-1]) != np.sign(H[r, 1:]))
        if idx.size:
            t = idx[0]
            prop[r] = a + (b - a) * (s[t] + (s[t + 1] - s[t]) * H[r, t] / (H[r, t] - H[r, t + 1]))
    return prop


def test_root_proposals_match_numpy():
    rng = np.random.default_rng(1)
    crossed = 0
    for _ in range(3000):
        k = int(rng.integers(1, 8))
        a = rng.uniform(0.1, 2.0)
        b = a * rng.uniform(1.0001, 1.3)
        ha, da, _ = _values(rng, k)
        hb, db, _ = _values(rng, k)
        args = (a, b, ha, hb, da, db, crossings._ROOT_S, crossings._ROOT_BASIS)
        got, want = root_proposals(*args), root_proposals_numpy(*args)
        np.testing.assert_allclose(got, want, rtol=RTOL_VALUE, atol=0.0, equal_nan=True)
        crossed += int(np.count_nonzero((ha > 0) != (hb > 0)))
    assert crossed > 1000


@pytest.mark.parametrize("newton_ok", [True, False])
@pytest.mark.slow  # over 2 s: outside the quick run
def test_refine_step_matches_numpy(newton_ok):
    rng = np.random.default_rng(2 + newton_ok)
    for _ in range(3000):
        k = int(rng.integers(1, 8))
        lo = rng.uniform(0.5, 1.0, k)
        hi = lo + rng.uniform(0.0, 0.5, k) * rng.choice([1.0, 1e-12], k)
        state = [
            lo,
            hi,
            rng.normal(size=k),
            rng.normal(size=k),
            rng.integers(-1, 2, k),
            rng.uniform(0.4, 1.6, k),
            rng.uniform(0.0, 0.5, k),
            np.where(rng.random(k) < 0.3, 0.7, np.nan),
            np.zeros(k, bool),
            np.zeros(k, bool),
        ]
        state[2][rng.random(k) < 0.1] = 0.0
        x = float(rng.uniform(0.5, 1.5)) if rng.random() < 0.8 else float(lo[0])
        hn, dn, _ = _values(rng, k)
        hn = np.where(rng.random(k) < 0.2, 1e-14 * rng.normal(size=k), hn)
        ref = [a.copy() for a in state]
        got = refine_step(x, hn, dn, *state, newton_ok, 1e-9)
        want = refine_step_numpy(x, hn, dn, *ref, newton_ok, 1e-9)
        assert got[1] == want[1]  # the node proposed next
        np.testing.assert_allclose(got[0], want[0], rtol=RTOL_VALUE, atol=0.0, equal_nan=True)
        for g, w in zip(state, ref, strict=True):
            if g.dtype == float:
                np.testing.assert_allclose(g, w, rtol=RTOL_VALUE, atol=0.0, equal_nan=True)
            else:  # sides and flags
                assert np.array_equal(g, w)


@pytest.mark.parametrize("derivative", [True, False])
def test_edge_weights_match_the_dense_block(derivative):
    rng = np.random.default_rng(5)
    for square in (True, False):
        D2 = rng.uniform(0.0, 30.0, (40, 40 if square else 7))
        D2[rng.random(D2.shape) < 0.85] = np.inf
        if square:
            np.fill_diagonal(D2, 0.0)
        edges = finite_entries(D2, diagonal=not square)
        for shift in (0.0, rng.uniform(0.0, 1.0, 40)):
            for sigma in (0.05, 0.7, 3.0):
                ref = gaussian_weights(D2, shift, sigma, derivative, square)
                got = gaussian_weights(D2, shift, sigma, derivative, square, edges)
                for g, r in zip(got, ref, strict=True):
                    assert (g is None and r is None) or np.array_equal(g, r)


KNN = ProblemSpec(dataset="digits", classes=(0, 1), n=100, n_labeled=10, family="knn", k=6)
COMPLETE = ProblemSpec(dataset="digits", classes=(3, 8), n=80, n_labeled=10, family="complete")
CONFIGS = [(KNN, 0.5, 5.0), (COMPLETE, 0.2, 3.0)]


@pytest.mark.slow  # over 1.5 s: outside the quick run
@pytest.mark.parametrize("spec, lo, hi", CONFIGS)
def test_curves_identical_with_the_numpy_steps(monkeypatch, spec, lo, hi):
    """Exact and approximate (CG-20) curves of eight rounds, with the compiled steps and
    with the NumPy references swapped in: the same pieces and losses, breakpoints to a
    tolerance."""
    settings = SweepSettings(solver="cg", cg_iters=20)

    def rounds():
        clear_round_memo()
        try:
            return [_graph_round(spec, lo, hi, settings, s) for s in range(1, 9)]
        finally:
            clear_round_memo()

    compiled = rounds()
    with monkeypatch.context() as m:
        m.setattr(truth, "needs_split", needs_split_numpy)
        m.setattr(_kernels, "refine_step", refine_step_numpy)
        m.setattr(_kernels, "root_proposals", root_proposals_numpy)
        reference = rounds()
    n_breakpoints = 0
    for got, want in zip(compiled, reference, strict=True):
        for g, w in zip(got, want, strict=True):
            assert_same_curve_to_tolerance(g, w)
            n_breakpoints += g.breakpoints.size
    assert n_breakpoints > 20


SEARCHES = [
    (KNN, 0.5, 5.0, "cg", 20, 4000),
    (
        ProblemSpec(dataset="digits", classes=(2, 3), n=300, n_labeled=20, family="knn", k=6),
        0.5,
        5.0,
        "cg",
        20,
        4000,
    ),
    (
        ProblemSpec(dataset="digits", classes=(4, 9), n=150, n_labeled=10, family="knn", k=8),
        1.5,
        5.0,
        "pcg",
        5,
        4000,
    ),
    (
        ProblemSpec(dataset="digits", classes=(3, 8), n=200, n_labeled=10, family="knn", k=4),
        0.3,
        6.0,
        "cg",
        3,
        60,
    ),  # the split budget runs out
    (KNN, 0.05, 0.5, "cg", 20, 4000),  # weights underflow: the search runs in Python
    (COMPLETE, 0.2, 3.0, "cg", 20, 4000),  # dense: harmonic_cg_dense, some weights 0
    (COMPLETE, 0.2, 3.0, "pcg", 20, 4000),  # and with its Jacobi preconditioner
    (COMPLETE, 0.05, 0.5, "cg", 20, 4000),  # nodes cut off from L: in Python
]


def _record_statuses(monkeypatch) -> list:
    """The statuses the compiled search returns, call by call, with 8 stored rows at first
    (so it has to grow them)."""
    monkeypatch.setattr(crossings, "_SEARCH_ROWS", 8)
    statuses = []

    def search(*args):
        out = cg_search(*args)
        statuses.append(out[0])
        return out

    monkeypatch.setattr(_kernels, "cg_search", search)
    return statuses


@pytest.mark.parametrize("spec, lo, hi, solver, t, budget", SEARCHES)
@pytest.mark.slow  # over 2 s: outside the quick run
def test_compiled_cg_search_gives_the_python_search_bits(
    monkeypatch, spec, lo, hi, solver, t, budget
):
    """Algorithm 4's fast mode on sparse and dense graphs, compiled and in Python (the
    model's soft labels through :class:`reference.PythonSearch`): the same σ evaluated,
    the same breakpoints, losses, nodes and work, bit for bit (with few stored rows at
    first, so the compiled search also has to grow them)."""
    from sslviz.problem import build_problem

    statuses = _record_statuses(monkeypatch)
    for seed in (1, 2, 3):
        p = build_problem(spec.with_seed(seed))
        curves = {}
        for compiled in (True, False):
            model = p.model if compiled else PythonSearch(p.model)
            curves[compiled] = truth.true_loss_curve(
                model,
                p.y_unlabeled,
                lo,
                hi,
                solver=solver,
                cg_iters=t,
                rtol=1e-4,
                max_evaluations=budget,
            )
        assert_same_curve(curves[True], curves[False])
    if lo < 0.1:  # a σ whose weights underflow: the search ran in Python
        assert set(statuses) == {-1}
    else:
        assert set(statuses) == {-2, 0} and statuses.count(0) == 3  # the rows grew, done


@pytest.mark.parametrize("spec, lo, hi, solver, t, budget", SEARCHES)
@pytest.mark.slow  # over 2 s: outside the quick run
def test_compiled_search_pauses_for_progress_with_the_same_bits(
    monkeypatch, spec, lo, hi, solver, t, budget
):
    """Under a progress callback (the app's sweeps) the compiled search pauses, here every
    3 σ and with 8 rows at first, reports and goes on from the stack it returned: the same
    curve, bit for bit, as without progress and as the Python search; the fractions go
    from 0 to 1 and never back."""
    from sslviz.problem import build_problem

    statuses = _record_statuses(monkeypatch)
    monkeypatch.setattr(crossings, "_search_chunk", lambda edges, cg_iters: 3)
    p = build_problem(spec.with_seed(1))
    kw = dict(solver=solver, cg_iters=t, rtol=1e-4, max_evaluations=budget)
    seen: list[float] = []
    paused = truth.true_loss_curve(
        p.model, p.y_unlabeled, lo, hi, progress=lambda f, m="": seen.append(f), **kw
    )
    assert_same_curve(paused, truth.true_loss_curve(p.model, p.y_unlabeled, lo, hi, **kw))
    python = truth.true_loss_curve(PythonSearch(p.model), p.y_unlabeled, lo, hi, **kw)
    assert_same_curve(paused, python)
    assert seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen)
    if lo < 0.1:  # a σ whose weights underflow: the search ran in Python
        assert set(statuses) == {-1}
    else:
        assert {-3, -2, 0} <= set(statuses)  # paused, grew its rows, done
        assert len(seen) > 2  # reported between the pauses


def test_one_sigma_cg_gives_the_batch_bits():
    """The compiled search's one-σ CG (``harmonic_cg`` on a batch of one σ) against the
    same σ among many (the batched soft labels): f, f' and the products, bit for bit, for
    CG and Jacobi-PCG, 1 to 60 steps, σ from underflowing weights to nearly equal ones."""
    from sslviz.problem import build_problem

    specs = [
        KNN,
        ProblemSpec(dataset="digits", classes=(3, 8), n=200, n_labeled=5, family="mutual-knn", k=4),
    ]
    sigmas = np.geomspace(0.05, 30.0, 25)
    checked = failed = 0
    for spec in specs:
        for seed in (1, 2):
            b = build_problem(spec.with_seed(seed)).model._batch
            for pre in (False, True):
                for t in (1, 3, 20, 60):
                    F, DF, OK, MV = harmonic_cg(
                        b.d, b.dl, sigmas, *b.pattern, t, pre, True, NO_TRACE
                    )
                    for j, x in enumerate(sigmas):
                        f, df, ok, mv = harmonic_cg(
                            b.d, b.dl, np.array([x]), *b.pattern, t, pre, True, NO_TRACE
                        )
                        assert ok[0] == OK[j]
                        if not ok[0]:
                            failed += 1
                            continue
                        assert np.array_equal(f[:, 0], F[:, j]) and np.array_equal(
                            df[:, 0], DF[:, j]
                        )
                        assert mv[0] == MV[j]
                        checked += 1
    assert checked > 300 and failed > 0
