"""The exact multi-class loss l(σ) (docs/method.md §13) against an independent brute force
written here: one dense LU solve per σ on a fine grid (numpy, the weights formed from the
points), every change of a node's rightness between grid neighbours bisected."""

import numpy as np
import pytest

from sslviz.problem import build_problem, loss_curve
from sslviz.specs import ProblemSpec

LO, HI = 1.5, 8.0


def problem(classes, family, labeling="harmonic", n=60, labeled=8, seed=0, **more):
    spec = ProblemSpec(
        dataset="digits",
        classes=classes,
        n=n,
        n_labeled=labeled,
        seed=seed,
        family=family,
        k=6,
        labeling=labeling,
        subset=25,
        **more,
    )
    return build_problem(spec)


class Dense:
    """F_U(σ) by dense numpy solves of the one-vs-all systems, from the points alone."""

    def __init__(self, p):
        inst, m = p.instance, p.model
        self.C = inst.n_classes
        self.y_u = inst.y[m.unlabeled_idx]
        self.delalleau = p.spec.labeling == "delalleau"
        X = inst.X
        Y = (inst.y[:, None] == np.arange(self.C)).astype(float)
        nodes = m.nodes if self.delalleau else np.arange(inst.n)
        XS = X[nodes]
        self.D2 = ((XS[:, None] - XS[None]) ** 2).sum(-1)
        np.fill_diagonal(self.D2, np.inf)
        if p.spec.family == "knn":  # the "or" graph of each point's k nearest (itself excluded)
            near = np.argsort(self.D2, axis=1, kind="stable")[:, : p.spec.k]
            edge = np.zeros(self.D2.shape, bool)
            edge[np.repeat(np.arange(len(XS)), p.spec.k), near.ravel()] = True
            self.D2 = np.where(edge | edge.T, self.D2, np.inf)
        if self.delalleau:
            self.n_l = m.labeled_idx.size
            self.Y = np.zeros((nodes.size, self.C))
            self.Y[: self.n_l] = Y[m.labeled_idx]
            self.lam = m.lam
            XU = X[m.unlabeled_idx]
            self.E2 = ((XU[:, None] - XS[None]) ** 2).sum(-1)
            self.E2[np.equal.outer(m.unlabeled_idx, nodes)] = np.inf
            if p.spec.family == "knn":
                far = np.argsort(self.E2, axis=1, kind="stable")[:, p.spec.k :]
                np.put_along_axis(self.E2, far, np.inf, axis=1)
        else:
            self.U, self.L = m.unlabeled_idx, m.labeled_idx
            self.Y = Y[self.L]
        self.alpha = p.spec.alpha if p.spec.labeling == "spreading" else None

    def scores(self, sigma):
        W = np.exp(-self.D2 / sigma**2)
        if self.delalleau:
            A = np.diag(W.sum(1)) - W
            A[np.arange(self.n_l), np.arange(self.n_l)] += self.lam
            Fs = np.linalg.solve(A, self.lam * self.Y)
            E = np.exp(-self.E2 / sigma**2)
            return (E @ Fs) / E.sum(1, keepdims=True)
        if self.alpha is not None:  # LabelSpreading: (I − αS) F = Y on every node
            d = W.sum(1)
            Y = np.zeros((W.shape[0], self.C))
            Y[self.L] = self.Y
            A = np.eye(W.shape[0]) - self.alpha * W / np.sqrt(np.outer(d, d))
            return np.linalg.solve(A, Y)[self.U]
        Lap = np.diag(W.sum(1)) - W
        return np.linalg.solve(Lap[np.ix_(self.U, self.U)], W[np.ix_(self.U, self.L)] @ self.Y)

    def right(self, sigma):
        F = self.scores(sigma)
        return np.argmax(F, axis=1) == self.y_u

    def flips(self, points=2001):
        """Every (σ, node) where a node's rightness flips, from the grid and bisection."""
        grid = np.geomspace(LO, HI, points)
        sides = np.array([self.right(s) for s in grid])
        out = []
        for i in np.flatnonzero((sides[1:] != sides[:-1]).any(axis=1)):
            for u in np.flatnonzero(sides[i + 1] != sides[i]):
                a, b, ra = grid[i], grid[i + 1], sides[i, u]
                while b - a > 1e-12 * a:
                    mid = 0.5 * (a + b)
                    if self.right(mid)[u] == ra:
                        a = mid
                    else:
                        b = mid
                out.append((0.5 * (a + b), int(u)))
        return sorted(out), sides[0]


def curve_flips(curve):
    pairs = zip(curve.breakpoints, curve.nodes, strict=True)
    return sorted((float(b), int(u)) for b, nd in pairs for u in nd)


def check_against_brute_force(p, points=2001):
    curve = loss_curve(p, LO, HI)
    ref, right0 = Dense(p).flips(points)
    got = curve_flips(curve)
    assert curve.classes == p.instance.classes and curve.inconsistent == 0 and curve.complete
    assert [u for _, u in got] == [u for _, u in ref]
    assert np.allclose([s for s, _ in got], [s for s, _ in ref], rtol=1e-8, atol=0)
    assert np.array_equal(curve.wrong_at_start, ~right0)
    # every piece's loss is the brute force's at its middle
    e = curve.loss.edges
    for lo, hi, value in zip(e[:-1], e[1:], curve.loss.values, strict=True):
        assert value == pytest.approx(1 - Dense(p).right(0.5 * (lo + hi)).mean(), abs=1e-12)
    return curve


@pytest.mark.parametrize("family", ["complete", "knn"])
def test_three_classes_match_brute_force(family):
    curve = check_against_brute_force(problem((3, 5, 8), family, labeled=6))
    assert curve.breakpoints.size >= 3


@pytest.mark.parametrize("family", ["complete", "knn"])
def test_ten_classes_match_brute_force(family):
    p = problem(tuple(range(10)), family, n=80, labeled=12, seed=2)
    curve = check_against_brute_force(p, points=1201)
    assert curve.breakpoints.size >= 3


def test_delalleau_three_classes_match_brute_force():
    check_against_brute_force(problem((3, 5, 8), "complete", "delalleau", n=70, seed=1))


def test_each_breakpoint_names_its_rival_class():
    p = problem((0, 1, 2), "complete")
    curve = loss_curve(p, LO, HI)
    dense = Dense(p)
    y_u = p.y_unlabeled
    for b, nd, rivals in zip(curve.breakpoints, curve.nodes, curve.against, strict=True):
        assert len(rivals) == len(nd)
        below, above = dense.scores(b * (1 - 1e-7)), dense.scores(b * (1 + 1e-7))
        for u, c in zip(nd, rivals, strict=True):
            assert c != y_u[u]
            # the rival is the class that beats, or stops beating, the true class there
            winner = {np.argmax(below[u]), np.argmax(above[u])} - {y_u[u]}
            assert winner == {c}


def test_loss_json_adds_classes_and_rivals_only_for_more_than_two(tmp_path):
    import json

    from sslviz.cli import main

    rng = np.random.default_rng(3)
    y = np.repeat([0, 1, 2], 30)
    X = rng.normal(size=(90, 4)) + 2.0 * np.eye(4)[y]
    labeled = np.isin(np.arange(90), [0, 1, 30, 31, 60, 61])
    f = tmp_path / "three.npz"
    np.savez(f, X=X, y=y, labeled=labeled)
    args = ["loss", "--data-file", str(f), "--pca", "0", "--family", "knn", "--k", "6"]
    args += ["--sigma-min", "0.5", "--sigma-max", "6", "--out", str(tmp_path / "o.json")]
    assert main([*args, "--classes", "0", "1", "2"]) == 0
    d = json.loads((tmp_path / "o.json").read_text())
    assert d["classes"] == [0, 1, 2] and len(d["breakpoints"]) > 0
    assert [len(a) for a in d["against"]] == [len(nd) for nd in d["nodes"]]
    for rivals, own in zip(d["against"], d["true_classes"], strict=True):
        assert all(r in (0, 1, 2) and r != t for r, t in zip(rivals, own, strict=True))
    two = np.isin(y, [0, 1])
    g = tmp_path / "two.npz"
    np.savez(g, X=X[two], y=y[two], labeled=labeled[two])
    args[2] = str(g)
    assert main([*args, "--classes", "0", "1"]) == 0
    d = json.loads((tmp_path / "o.json").read_text())
    assert not {"classes", "against", "true_classes"} & set(d)


@pytest.fixture
def chebyshev_everywhere(monkeypatch):
    """The Chebyshev search (large graphs only in the app) on these small instances."""
    from sslviz import crossings

    monkeypatch.setattr(crossings, "_CHEB_MIN_UNLABELED", 0)
    monkeypatch.setattr(crossings, "_CHEB_MIN_UNLABELED_SPARSE", 0)


@pytest.mark.parametrize("family", ["complete", "knn"])
@pytest.mark.parametrize("classes", [(3, 5, 8), tuple(range(10))])
def test_chebyshev_search_of_the_gaps_matches_brute_force(chebyshev_everywhere, family, classes):
    """The gaps interpolated on Chebyshev cells, every root from the series (or polished by
    exact solves): the brute force's flips, with far fewer σ than the Hermite search."""
    ten = len(classes) == 10
    size = dict(n=80, labeled=12, seed=2) if ten else dict(n=60, labeled=6, seed=0)
    p = problem(classes, family, **size)
    curve = check_against_brute_force(p, points=1201 if ten else 2001)
    assert curve.breakpoints.size >= 3
    # the Chebyshev cells' σ are shared by every pair: no σ is one pair's refinement alone
    assert curve.evaluations.size <= 2 * 129


def test_chebyshev_and_hermite_searches_agree_on_the_gaps(monkeypatch):
    """Ten classes on a graph above the Chebyshev threshold: the same flips as the Hermite
    search (switched off the Chebyshev search) to 1e-9 relative, the same piece losses."""
    from sslviz import crossings

    p = problem(tuple(range(10)), "complete", n=240, labeled=20, seed=1)
    assert p.model.n_unlabeled >= crossings.chebyshev_min_unlabeled(True)
    cheb = loss_curve(p, LO, HI)
    monkeypatch.setattr(crossings, "_CHEB_MIN_UNLABELED", 10**9)
    herm = loss_curve(p, LO, HI)
    assert cheb.evaluations.size < herm.evaluations.size
    assert curve_flips(cheb)[1:] and [u for _, u in curve_flips(cheb)] == [
        u for _, u in curve_flips(herm)
    ]
    assert np.allclose(
        [s for s, _ in curve_flips(cheb)], [s for s, _ in curve_flips(herm)], rtol=1e-9, atol=0
    )
    assert np.array_equal(cheb.loss.values, herm.loss.values)
    assert cheb.inconsistent == herm.inconsistent == 0


def test_split_curve_joins_to_the_brute_force_and_is_the_same_bits_in_processes():
    """The σ range in sub-ranges searched as separate tasks and joined: the brute force's
    flips; the same bits serially and on two worker processes."""
    from sslviz.truth import split_loss_curve

    p = problem((3, 5, 8), "knn", labeled=6)
    args = (p.model, p.instance.y, p.instance.classes, LO, HI, 4)
    one = split_loss_curve(*args)
    ref, right0 = Dense(p).flips()
    got = curve_flips(one)
    assert [u for _, u in got] == [u for _, u in ref]
    assert np.allclose([s for s, _ in got], [s for s, _ in ref], rtol=1e-8, atol=0)
    assert np.array_equal(one.wrong_at_start, ~right0) and one.inconsistent == 0
    whole = loss_curve(p, LO, HI)
    assert np.array_equal(one.loss.values, whole.loss.values)
    two = split_loss_curve(*args, n_jobs=2)
    assert np.array_equal(one.loss.edges, two.loss.edges)
    assert np.array_equal(one.loss.values, two.loss.values)
    assert all(np.array_equal(a, b) for a, b in zip(one.against, two.against, strict=True))
    assert np.array_equal(one.evaluations, two.evaluations)


def test_threshold_family_matches_brute_force():
    """The thresholded mutual-kNN family, three classes: against unweighted dense solves of
    the one-vs-all systems between consecutive edge lengths (the pattern found from the
    points here), nodes cut off from L wrong."""
    p = problem((3, 5, 8), "threshold", n=60, labeled=6)
    inst, m = p.instance, p.model
    X, C = inst.X, inst.n_classes
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    np.fill_diagonal(D, np.inf)
    near = np.argsort(D, axis=1, kind="stable")[:, : p.spec.k]
    edge = np.zeros(D.shape, bool)
    edge[np.repeat(np.arange(inst.n), p.spec.k), near.ravel()] = True
    edge &= edge.T  # mutual
    U, L = m.unlabeled_idx, m.labeled_idx
    Y = (inst.y[L, None] == np.arange(C)).astype(float)
    y_u = inst.y[U]

    def wrong(r):
        W = (edge & (D <= r)).astype(float)
        reach = W[np.ix_(U, L)].sum(axis=1) > 0
        while True:
            grown = reach | (W[np.ix_(U, U)] @ reach > 0)
            if np.array_equal(grown, reach):
                break
            reach = grown
        k = U[reach]
        Lap = np.diag(W[k].sum(axis=1)) - W[np.ix_(k, k)]
        F = np.linalg.solve(Lap, W[np.ix_(k, L)] @ Y)
        out = np.ones(U.size, bool)
        out[reach] = np.argmax(F, axis=1) != y_u[reach]
        return out

    lo, hi = 2.0, 9.0
    lengths = np.unique(D[edge])
    lengths = lengths[(lengths > lo) & (lengths < hi)]
    ends = np.concatenate([[lo], lengths, [hi]])
    sets = [wrong(0.5 * (a + b)) for a, b in zip(ends[:-1], ends[1:], strict=True)]
    ref = [lengths[i] for i in range(lengths.size) if not np.array_equal(sets[i], sets[i + 1])]
    curve = loss_curve(p, lo, hi)
    assert curve.classes == inst.classes and curve.parameter == "r" and len(ref) >= 3
    assert np.allclose(curve.breakpoints, ref, rtol=1e-12, atol=0)
    assert np.array_equal(curve.wrong_at_start, sets[0])
    expected = [sets[0].mean()] + [
        sets[i + 1].mean() for i in range(lengths.size) if not np.array_equal(sets[i], sets[i + 1])
    ]
    assert np.allclose(curve.loss.values, expected, rtol=0, atol=1e-12)
    for nd, rivals in zip(curve.nodes, curve.against, strict=True):
        assert len(rivals) == len(nd)
        assert all(-1 <= r < C and r != y_u[u] for u, r in zip(nd, rivals, strict=True))


def test_cli_loss_on_the_threshold_family_with_three_classes(tmp_path):
    import json

    from sslviz.cli import main

    out = tmp_path / "t.json"
    args = ["loss", "--dataset", "digits", "--classes", "0", "1", "2", "--n", "60"]
    args += ["--labeled", "6", "--family", "threshold", "--sigma-min", "2", "--sigma-max", "9"]
    assert main([*args, "--out", str(out)]) == 0
    d = json.loads(out.read_text())
    assert d["classes"] == [0, 1, 2] and len(d["breakpoints"]) == len(d["against"]) > 0
