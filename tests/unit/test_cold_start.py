"""Cold start: the default view's path does not import scikit-learn, and what
replaced it on that path gives the same numbers, bit for bit (the digits, the PCA scores,
the neighbour distances, the suggested σ range, the instances)."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.decomposition import PCA
from sklearn.neighbors import NearestNeighbors

import sslviz.problem
from sslviz import data, datasets, graphs
from sslviz.problem import build_problem, suggest_sigma_range
from sslviz.specs import ProblemSpec

ROOT = Path(__file__).resolve().parents[2]


def _python(code: str) -> str:
    """What ``code`` prints, run in a fresh interpreter in the app's folder."""
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_the_default_path_does_not_import_scikit_learn():
    """Importing the app's modules, loading the digits, building the default instance and
    its suggested σ range (all the home page computes) leave Numba unimported (0.25 s); the
    exact loss curve and a kNN instance's fast sweep (the loss page) import it, and all of
    this leaves scikit-learn unimported: its import was about half of a cold start."""
    code = (
        "import sys, ui.cache, ui.sidebar, ui.widgets\n"
        "from sslviz import cli, plots\n"
        "from sslviz.problem import build_problem, loss_curve, suggest_sigma_range\n"
        "from sslviz.specs import ProblemSpec\n"
        "p = build_problem(ProblemSpec())\n"
        "lo, hi = suggest_sigma_range(p)\n"
        "print('numba' in sys.modules)\n"
        "loss_curve(p, lo, hi)\n"
        "from sslviz.intervals import sweep\n"
        "from sslviz.specs import SweepSettings\n"
        "q = build_problem(ProblemSpec(family='knn', k=6))\n"
        "sweep(q.model, q.y_unlabeled, 1.0, 7.0, SweepSettings(solver='cg', mode='fast'))\n"
        "print('numba' in sys.modules)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'sklearn'))\n"
    )
    out = _python(code)
    assert out.strip().splitlines()[-3:] == ["False", "True", "[]"]


def test_kernels_compile_at_their_first_call():
    """Importing the kernels does not import Numba; the first call of any kernel does,
    from whichever thread gets there first, and puts the dispatchers in place: two threads
    calling at once get the bits of the compiled kernel."""
    code = (
        "import sys, threading\n"
        "import numpy as np\n"
        "from sslviz import _kernels\n"
        "stand_in = _kernels.cg_dense\n"
        "before = 'numba' in sys.modules\n"
        "A, b = np.array([[4.0, 1.0], [1.0, 3.0]]), np.array([1.0, 2.0])\n"
        "k = _kernels\n"
        "args = (k.NO_X0, 5, 0.0, 0.0, np.empty(0), k.NO_TRACE_ONE, k.NO_PATH)\n"
        "out = [None, None]\n"
        "def run(i):\n"
        "    out[i] = stand_in(A, b, *args)[0]\n"
        "threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]\n"
        "for t in threads:\n"
        "    t.start()\n"
        "for t in threads:\n"
        "    t.join()\n"
        "again = _kernels.cg_dense(A, b, *args)[0]\n"
        "same = out[0].tobytes() == out[1].tobytes() == again.tobytes()\n"
        "print(before, type(_kernels.cg_dense).__name__, same)\n"
    )
    out = _python(code)
    assert out.split() == ["False", "CPUDispatcher", "True"]


def test_digits_are_scikit_learns():
    ds = datasets._load_digits()
    bunch = load_digits()
    assert datasets._digits_file() is not None  # read without importing scikit-learn
    assert ds.X.dtype == np.float64 and ds.y.dtype == np.int64
    assert np.array_equal(ds.X, np.asarray(bunch.data, dtype=np.float64) / 16.0)
    assert np.array_equal(ds.y, bunch.target)
    assert ds.image_shape == (8, 8)


def _sklearn_pca(X: np.ndarray, k: int) -> np.ndarray:
    return PCA(n_components=k, svd_solver="full").fit_transform(X)


def test_pca_scores_are_scikit_learns_bit_for_bit():
    ds = datasets.load_dataset("digits")
    cases = 0
    for c0, c1 in itertools.combinations(range(10), 2):
        X = ds.X[np.flatnonzero((ds.y == c0) | (ds.y == c1))]
        for k in (1, 2, 45, 64):
            ours, theirs = data.pca_full(X, k), _sklearn_pca(X, k)
            assert ours.shape == theirs.shape and ours.tobytes() == theirs.tobytes(), (c0, c1, k)
            cases += 1
    rng = np.random.default_rng(7)
    for n, p in ((30, 200), (200, 30), (64, 64), (5, 3)):  # wide, tall, square, tiny
        X = rng.normal(size=(n, p)) * 10.0 ** rng.uniform(-3, 3, size=p)
        for k in (1, min(n, p) // 2 + 1, min(n, p)):
            assert data.pca_full(X, k).tobytes() == _sklearn_pca(X, k).tobytes(), (n, p, k)
            cases += 1
    assert cases == 45 * 4 + 12


def _ball_tree(X: np.ndarray, k: int, query=None) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's ball tree search (what :func:`sslviz.graphs.neighbours` ran before)."""
    nn = NearestNeighbors(n_neighbors=k, algorithm="ball_tree").fit(X)
    return nn.kneighbors(query, n_neighbors=k)


@pytest.mark.dispatch
@pytest.mark.parametrize("kind", ["digits", "duplicates", "scaled"])
def test_neighbour_distances_are_the_ball_trees_bit_for_bit(kind):
    """The exhaustive search's distances (NumPy or compiled, by size) are the ball tree's,
    bit for bit (with ties and zero distances everywhere too); where distances differ, so
    are the neighbours."""
    rng = np.random.default_rng({"digits": 1, "duplicates": 2, "scaled": 3}[kind])
    ds = datasets.load_dataset("digits")
    for trial in range(12):
        n = int(rng.integers(8, 600))
        if kind == "digits":
            c0, c1 = (int(c) for c in rng.choice(10, 2, replace=False))
            rows = np.flatnonzero((ds.y == c0) | (ds.y == c1))[:n]
            X = data.pca_full(ds.X[rows], min(45, rows.size))
        elif kind == "duplicates":  # ties and zero distances everywhere
            X = rng.integers(0, 3, size=(n, int(rng.integers(1, 8)))).astype(float)
        else:
            X = rng.normal(size=(n, int(rng.integers(1, 70)))) * 10.0 ** rng.uniform(-4, 4)
        for k in sorted({1, 6, min(20, X.shape[0] - 1)}):
            dist, ind = graphs.neighbours(X, k)
            tree_dist, tree_ind = _ball_tree(X, k)
            assert dist.tobytes() == tree_dist.tobytes(), (trial, k)
            if kind != "duplicates":
                assert np.array_equal(ind, tree_ind), (trial, k)


SPECS = [
    ProblemSpec(),
    ProblemSpec(classes=(3, 8), n=60, n_labeled=6, seed=3),
    ProblemSpec(classes=(1, 7), n=300, family="knn", k=6, seed=1),
    ProblemSpec(classes=(4, 9), n=150, pca=10, family="mutual-knn", k=8),
    ProblemSpec(classes=(0, 6), n=80, pca=0, family="complete", seed=5),
]


def _sklearn_path(monkeypatch) -> None:
    """The code before this change: scikit-learn's PCA and its ball tree."""
    monkeypatch.setattr(data, "pca_full", _sklearn_pca)
    monkeypatch.setattr(graphs, "neighbours", _ball_tree)
    monkeypatch.setattr(sslviz.problem, "neighbours", _ball_tree)
    data._POOL_CACHE.clear()


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{s.classes}-{s.n}-{s.family}")
def test_instances_and_suggested_range_are_unchanged(monkeypatch, spec):
    ours = build_problem(spec)
    ours_range = suggest_sigma_range(ours)
    with monkeypatch.context() as m:
        _sklearn_path(m)
        theirs = build_problem(spec)
        assert suggest_sigma_range(theirs) == ours_range
    data._POOL_CACHE.clear()
    for a, b in (
        (ours.instance.X, theirs.instance.X),
        (ours.instance.y, theirs.instance.y),
        (ours.instance.labeled, theirs.instance.labeled),
    ):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    if ours.graph.is_dense:
        assert ours.graph.sqdist.tobytes() == theirs.graph.sqdist.tobytes()
    else:
        assert (ours.graph.sqdist != theirs.graph.sqdist).nnz == 0
