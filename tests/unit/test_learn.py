"""Learning σ (and k) from many instances (sslviz.learn, ``sslviz learn``): the exact
average, ERM set and held-out numbers against brute force on dense σ grids, the pieces on
hand-made losses, approximate ERM where CG misses, backends, and the CLI's contract."""

import json
import math
import threading

import numpy as np
import pytest

from sslviz._threads import can_fork
from sslviz.cli import main
from sslviz.learn import (
    InstanceLoss,
    average_loss,
    clear_instance_memo,
    erm,
    held_out_report,
    instance_curves,
    instance_seeds,
    learn,
    start_workers,
    uniform_gap,
)
from sslviz.piecewise import PiecewiseLoss
from sslviz.problem import build_problem
from sslviz.specs import ProblemSpec, SweepSettings

KNN = ProblemSpec(dataset="digits", classes=(4, 9), n=60, n_labeled=6, family="knn", k=5)
COMPLETE = ProblemSpec(dataset="digits", classes=(2, 3), n=50, n_labeled=6, family="complete")


def _loss(edges, wrong, n_u):
    return InstanceLoss(np.asarray(edges, float), np.asarray(wrong, np.int64), n_u)


# -- the exact average, by hand -------------------------------------------------------


def test_average_merges_breakpoints_and_drops_cancellations():
    a = _loss([1, 2, 3, 5], [1, 2, 1], 10)
    b = _loss([1, 2, 4, 5], [3, 2, 3], 10)  # at σ = 2 a rises by 1 and b falls by 1
    avg = average_loss([a, b])
    assert avg.edges.tolist() == [1, 3, 4, 5]  # σ = 2 dropped: the average does not change
    assert avg.numerators.tolist() == [4, 3, 4] and avg.denominator == 20
    assert avg.union_breakpoints == 3  # 2, 3 and 4
    found = erm(avg)
    assert found.loss == 3 / 20 and found.intervals == ((3.0, 4.0),)
    assert found.sigma_hat == math.sqrt(12.0)


def test_average_is_exact_with_different_unlabeled_counts():
    """1/3 + 1/6 + 1/2 over three: no rounding decides a tie or a dropped breakpoint."""
    thirds = _loss([0.5, 1.0, 2.0], [1, 0], 3)
    sixths = _loss([0.5, 1.5, 2.0], [1, 2], 6)
    halves = _loss([0.5, 0.7, 2.0], [0, 1], 2)
    avg = average_loss([thirds, sixths, halves])
    assert avg.denominator == 3 * 6
    want = {0.6: 1 / 3 + 1 / 6, 0.8: 1 / 3 + 1 / 6 + 1 / 2, 1.2: 1 / 6 + 1 / 2, 1.7: 2 / 6 + 1 / 2}
    for x, value in want.items():
        assert avg.at(x) == pytest.approx(value / 3, rel=1e-15)
    assert erm(avg).intervals == ((0.5, 0.7),)


def test_erm_keeps_every_tied_interval_and_sigma_hat_is_the_widest_on_a_log_axis():
    avg = average_loss([_loss([1, 2, 3, 9, 10], [0, 1, 0, 1], 4)])
    found = erm(avg)
    assert found.intervals == ((1.0, 2.0), (3.0, 9.0))
    assert found.sigma_hat == math.sqrt(27.0)  # [3, 9] spans log 3 > log 2
    one = average_loss([_loss([1, 2, 4], [0, 0], 4)])
    assert erm(one).intervals == ((1.0, 4.0),)  # merged: one maximal interval


def test_uniform_gap_and_held_out_report_by_hand():
    train = average_loss([_loss([1, 2, 3], [1, 3], 4)])
    test = average_loss([_loss([1, 2.5, 3], [0, 4], 4)])
    assert uniform_gap(train, test) == pytest.approx(3 / 4)  # on [2, 2.5): 3/4 against 0
    rep = held_out_report(train, test, erm(train).sigma_hat)
    assert rep.loss_at_sigma_hat == 0 and rep.best_loss == 0 and rep.excess == 0


def test_instances_must_share_the_range():
    with pytest.raises(ValueError, match="share one σ range"):
        average_loss([_loss([1, 2, 3], [0, 1], 4), _loss([1, 2, 4], [0, 1], 4)])


# -- against brute force on real instances -------------------------------------------


def _wrong_counts(spec: ProblemSpec, sigmas: np.ndarray) -> np.ndarray:
    """Misclassified unlabeled nodes at each σ, from exact solves one σ at a time."""
    p = build_problem(spec)
    out = []
    for x in sigmas:
        sl = p.model.soft_labels(float(x), derivative=False)
        out.append(int(np.sum(sl.degenerate | ((sl.f > 0.5) != (p.y_unlabeled == 1)))))
    return np.array(out), p.y_unlabeled.size


@pytest.mark.parametrize("spec, lo, hi", [(KNN, 1.0, 6.0), (COMPLETE, 0.5, 3.0)])
def test_average_and_erm_against_a_dense_grid(spec, lo, hi):
    specs = [spec.with_seed(s) for s in instance_seeds(3, 4, 0)]
    curves = [instance_curves(s, (lo, hi)).exact for s in specs]
    avg = average_loss(curves)
    found = erm(avg)
    grid = np.geomspace(lo, hi, 600)
    breaks = np.concatenate([c.edges[1:-1] for c in curves])
    clear = np.array([np.all(np.abs(breaks - x) > 1e-7 * x) for x in grid])
    counts, n_u = zip(*(_wrong_counts(s, grid) for s in specs), strict=True)
    brute = np.sum([c / u for c, u in zip(counts, n_u, strict=True)], axis=0) / len(specs)
    assert clear.sum() > 550
    np.testing.assert_allclose(avg.loss(grid)[clear], brute[clear], rtol=1e-12, atol=0)
    assert brute.min() >= found.loss - 1e-12
    # Each ERM interval attains the minimum inside and is maximal: just outside its ends
    # (bisected to 1e-9 of the end) the brute-force average is larger.
    for a, b in found.intervals:
        inside, _ = zip(
            *(_wrong_counts(s, np.array([math.sqrt(a * b)])) for s in specs), strict=True
        )
        assert sum(c[0] / u for c, u in zip(inside, n_u, strict=True)) / len(specs) == (
            pytest.approx(found.loss, abs=1e-12)
        )
        for end, outside in ((a, a * (1 - 1e-9)), (b, b * (1 + 1e-9))):
            if lo < end < hi:
                out, _ = zip(*(_wrong_counts(s, np.array([outside])) for s in specs), strict=True)
                value = sum(c[0] / u for c, u in zip(out, n_u, strict=True)) / len(specs)
                assert value > found.loss + 1e-12


def test_learn_measures_sigma_hat_on_held_out_instances():
    train = [KNN.with_seed(s) for s in instance_seeds(0, 5, 0)]
    test = [KNN.with_seed(s) for s in instance_seeds(0, 4, 1)]
    assert not set(train) & set(test)
    r = learn(train, test, (1.0, 6.0), n_jobs=1)
    test_avg = average_loss([instance_curves(s, (1.0, 6.0)).exact for s in test])
    assert r.test.loss_at_sigma_hat == test_avg.at(r.erm.sigma_hat)
    assert r.test.best_loss == test_avg.loss.values.min()
    assert r.test.excess >= 0 and r.test.uniform_gap >= abs(
        r.average.at(r.erm.sigma_hat) - r.test.loss_at_sigma_hat
    )
    grid = np.geomspace(1.0, 6.0, 2000)
    assert r.test.uniform_gap >= np.abs(r.average.loss(grid) - test_avg.loss(grid)).max()


def test_approximate_erm_where_cg_misses():
    """CG-2 misses breakpoints on these complete graphs: its average differs from the exact
    one; σ̂_2's exact training loss and true test loss are read off the exact curves."""
    train = [COMPLETE.with_seed(s) for s in instance_seeds(1, 4, 0)]
    test = [COMPLETE.with_seed(s) for s in instance_seeds(1, 3, 1)]
    approx = [SweepSettings(solver="cg", cg_iters=t) for t in (2, 20)]
    r = learn(train, test, (0.5, 3.0), approx=approx, n_jobs=1)
    exact = learn(train, test, (0.5, 3.0), n_jobs=1)
    assert [a.solver for a in r.approximate] == ["CG-2", "CG-20"]
    assert np.array_equal(r.average.edges, exact.average.edges) and r.erm == exact.erm
    cg2 = r.approximate[0]
    assert not np.array_equal(cg2.average.edges, exact.average.edges)
    assert cg2.exact_train_loss == exact.average.at(cg2.erm.sigma_hat) >= exact.erm.loss
    test_avg = average_loss([instance_curves(s, (0.5, 3.0)).exact for s in test])
    assert cg2.test.loss_at_sigma_hat == test_avg.at(cg2.erm.sigma_hat)
    assert cg2.excess_over_exact == cg2.test.loss_at_sigma_hat - exact.test.loss_at_sigma_hat
    assert cg2.test.uniform_gap == uniform_gap(cg2.average, test_avg)
    assert cg2.seconds > 0


def test_approximate_erm_on_paper_mode_estimates_never_picks_an_uncovered_sigma():
    """Paper mode leaves σ between its restarts uncovered: the learner has no estimate there
    (loss 1 in its average), so σ̂ lies in an interval the sweeps found, and every loss it
    reports is a fraction in [0, 1] (it was −2⁶³ / n when NaN was cast to counts)."""
    from sslviz.algorithm4 import sweep
    from sslviz.problem import build_problem

    spec = ProblemSpec(classes=(2, 3), n=60, n_labeled=6, family="complete")
    train, test = [spec.with_seed(s) for s in (1, 2)], [spec.with_seed(3)]
    paper = SweepSettings(mode="paper", solver="cg", cg_iters=20)
    r = learn(train, test, (1.0, 3.0), approx=[paper], n_jobs=1)
    (a,) = r.approximate
    assert 0.0 <= a.erm.loss <= 1.0 and 0.0 <= a.test.loss_at_sigma_hat <= 1.0
    assert np.all((a.average.loss.values >= 0) & (a.average.loss.values <= 1))
    for s in train:  # σ̂ is estimated on every training instance
        p = build_problem(s)
        res = sweep(p.model, p.y_unlabeled, 1.0, 3.0, paper)
        assert np.isfinite(res.estimated_loss()(np.array([a.erm.sigma_hat]))).all()
    uncovered = build_problem(train[0])
    est = sweep(uncovered.model, uncovered.y_unlabeled, 1.0, 3.0, paper).estimated_loss()
    assert np.isnan(est.values).any()  # this view has gaps to skip
    with pytest.raises(ValueError, match="no value"):
        InstanceLoss.from_loss(est, uncovered.model.n_unlabeled)


def test_k_and_sigma_grid():
    train = [KNN.with_seed(s) for s in instance_seeds(2, 3, 0)]
    r = learn(train, [], (1.0, 6.0), k_values=[3, 4, 5], n_jobs=1)
    assert [row.k for row in r.grid] == [3, 4, 5]
    best = min(r.grid, key=lambda row: row.erm.loss)
    assert r.k == best.k and r.erm == best.erm and r.test is None
    for row in r.grid:
        alone = learn([s.replace(k=row.k) for s in train], [], (1.0, 6.0), n_jobs=1)
        assert np.array_equal(alone.average.edges, row.average.edges)


def test_learning_curve_shapes_and_nesting():
    pools = [[COMPLETE.with_seed(s) for s in instance_seeds(4, 4, 2, r)] for r in range(2)]
    test = [COMPLETE.with_seed(s) for s in instance_seeds(4, 3, 1)]
    r = learn(pools[0][:2], test, (0.5, 3.0), curve_sizes=[1, 2, 4], curve_pools=pools, n_jobs=1)
    c = r.curve
    assert c.m.tolist() == [1, 2, 4] and c.excess.shape == (2, 3)
    assert np.all(c.excess >= 0) and np.all(c.uniform_gap >= 0)
    assert np.all(np.diff(c.union_pieces, axis=1) >= 0)  # more instances, more pieces
    alone = learn(pools[1][:2], test, (0.5, 3.0), n_jobs=1)
    assert c.excess[1, 1] == alone.test.excess and c.uniform_gap[1, 1] == alone.test.uniform_gap


def test_backends_give_the_same_result():
    train = [KNN.with_seed(s) for s in instance_seeds(5, 4, 0)]
    test = [KNN.with_seed(s) for s in instance_seeds(5, 2, 1)]
    clear_instance_memo()  # each backend computes every instance
    one = learn(train, test, (1.0, 6.0), n_jobs=1)
    clear_instance_memo()
    two = learn(train, test, (1.0, 6.0), n_jobs=2)
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        clear_instance_memo()
        dsk = learn(train, test, (1.0, 6.0), dask=cluster.scheduler_address)
    for other in (two, dsk):
        assert np.array_equal(one.average.edges, other.average.edges)
        assert np.array_equal(one.average.numerators, other.average.numerators)
        assert one.erm == other.erm and one.test == other.test


def test_warm_server_workers_give_the_same_result():
    """The app's way: joblib worker processes started and warmed ahead
    (:func:`start_workers`, as ``ui.nav`` does), then the instances run on them."""
    train = [KNN.with_seed(s) for s in instance_seeds(6, 3, 0)]
    test = [KNN.with_seed(s) for s in instance_seeds(6, 2, 1)]
    approx = (SweepSettings(solver="cg", cg_iters=5, mode="fast"),)
    clear_instance_memo()  # each way computes every instance
    one = learn(train, test, (1.0, 6.0), approx=approx, n_jobs=1)
    clear_instance_memo()
    done = threading.Event()
    server = threading.Thread(target=done.wait)  # the server's other threads: no fork
    server.start()
    try:
        assert not can_fork()
        start_workers(2)
        seen = []
        two = learn(
            train, test, (1.0, 6.0), approx=approx, n_jobs=2, progress=lambda f, m: seen.append(f)
        )
    finally:
        done.set()
        server.join()
    assert seen and seen[-1] == 1.0
    assert np.array_equal(one.average.edges, two.average.edges)
    assert np.array_equal(one.average.numerators, two.average.numerators)
    assert one.erm == two.erm and one.test == two.test
    assert one.approximate[0].erm == two.approximate[0].erm


def test_starting_the_workers_loads_the_kernels_here_too():
    """:func:`start_workers` (the server's warm-up) also loads the compiled kernels in the
    calling process, so a server's first instance computed there loads none (a fresh
    process: this one has them already)."""
    import subprocess
    import sys

    probe = (
        "from sslviz import _kernels\n"
        "from sslviz.learn import start_workers\n"
        "before = bool(_kernels._COMPILED)\n"
        "start_workers(1)\n"
        "print(before, bool(_kernels._COMPILED))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]


def test_a_second_run_computes_only_what_it_has_not(monkeypatch):
    """learn memoises each instance's curves in this process: a change of the compared t
    runs only the new sweeps, one more instance only its curves; the results are those of
    a run that computes everything."""
    import sslviz.learn as learn_module

    asked = []
    task = learn_module._instance_task

    def recording(t):
        asked.append((t[0].seed, tuple(a.cg_iters for a in t[2]), t[3]))
        return task(t)

    monkeypatch.setattr(learn_module, "_instance_task", recording)
    seeds = instance_seeds(8, 4, 0)
    train = [KNN.with_seed(s) for s in seeds[:3]]
    more = [*train, KNN.with_seed(seeds[3])]
    test = [KNN.with_seed(s) for s in instance_seeds(8, 2, 1)]
    t5, t6 = (SweepSettings(cg_iters=5),), (SweepSettings(cg_iters=6),)
    clear_instance_memo()
    learn(train, test, (1.0, 6.0), approx=t5, n_jobs=1)
    assert len(asked) == 5 and all(exact for _, _, exact in asked)
    asked.clear()
    r6 = learn(train, test, (1.0, 6.0), approx=t6, n_jobs=1)
    assert asked == [(s, (6,), False) for s in seeds[:3]]  # the sweeps only
    asked.clear()
    r_more = learn(more, test, (1.0, 6.0), approx=t6, n_jobs=1)
    assert asked == [(seeds[3], (6,), True)]  # the new instance only
    for specs, r in ((train, r6), (more, r_more)):
        clear_instance_memo()
        fresh = learn(specs, test, (1.0, 6.0), approx=t6, n_jobs=1)
        assert np.array_equal(r.average.numerators, fresh.average.numerators)
        assert r.erm == fresh.erm and r.test == fresh.test
        assert r.approximate[0].erm == fresh.approximate[0].erm
    clear_instance_memo()


def test_figures_draw_what_the_result_holds():
    from sslviz import plots

    train = [KNN.with_seed(s) for s in instance_seeds(6, 3, 0)]
    test = [KNN.with_seed(s) for s in instance_seeds(6, 2, 1)]
    pools = [[KNN.with_seed(s) for s in instance_seeds(6, 2, 2, r)] for r in range(2)]
    r = learn(
        train,
        test,
        (1.0, 6.0),
        k_values=[3, 5],
        curve_sizes=[1, 2],
        curve_pools=pools,
        approx=[SweepSettings(cg_iters=5)],
        n_jobs=1,
    )
    fig = plots.learn_figure(r)
    names = [t.name for t in fig.data]
    assert names.count("training instances") == 3 and "CG-5 estimate of the average" in names
    avg = next(t for t in fig.data if t.name.startswith("training average"))
    assert np.array_equal(avg.x, r.average.loss.edges)
    assert len(fig.layout.shapes) == len(r.erm.intervals) + 1  # the ERM set and σ̂'s line
    assert len(fig.layout.xaxis.tickvals) >= 3
    curve = plots.learning_curve_figure(r.curve)
    bands = [t for t in curve.data if t.name.endswith("95% band")]
    assert len(bands) == 3 and all(min(t.y) >= 0 for t in bands)  # cut at 0
    heat = plots.k_sigma_figure(r).data[0]
    edges = np.unique(np.concatenate([row.average.edges for row in r.grid]))
    assert np.array_equal(heat.x, edges) and list(heat.y) == [3, 5]


def test_piecewise_view_matches_counts():
    loss = PiecewiseLoss(np.array([1.0, 2.0, 3.0]), np.array([3 / 7, 1 / 7]))
    inst = InstanceLoss.from_loss(loss, 7)
    assert inst.wrong.tolist() == [3, 1]
    with pytest.raises(ValueError, match="counts"):
        InstanceLoss.from_loss(PiecewiseLoss(np.array([1.0, 2.0]), np.array([0.3])), 7)


# -- the command line ---------------------------------------------------------------------


def _instance_file(tmp_path, seed, *, labeled=True, one_class=False):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], 30)
    X = rng.normal(size=(60, 4)) + 1.5 * y[:, None]
    mask = np.zeros(60, bool)
    mask[[0, 1, 2] + ([3, 4, 5] if one_class else [30, 31, 32])] = True
    path = tmp_path / f"inst{seed}.npz"
    np.savez(path, X=X, y=y, **({"labeled": mask} if labeled else {}))
    return str(path)


COMMON = [
    "--classes",
    "0",
    "1",
    "--pca",
    "0",
    "--family",
    "knn",
    "--k",
    "5",
    "--sigma-min",
    "0.5",
    "--sigma-max",
    "5",
]


def _files(paths, flag="--data-file"):
    return [a for p in paths for a in (flag, p)]


def test_cli_learn_from_files(tmp_path):
    train = [_instance_file(tmp_path, s) for s in (1, 2, 3)]
    test = [_instance_file(tmp_path, 4)]
    out = tmp_path / "learn.json"
    args = ["learn", *_files(train), *_files(test, "--test-file"), *COMMON]
    assert main([*args, "--no-timings", "--out", str(out)]) == 0
    d = json.loads(out.read_text())
    assert (d["instances"], d["test_instances"]) == (3, 1)
    pieces = d["average_loss"]["pieces"]
    assert pieces[0]["lo"] == 0.5 and pieces[-1]["hi"] == 5.0
    assert [p["lo"] for p in pieces[1:]] == d["average_loss"]["breakpoints"]
    assert d["erm"]["loss"] == min(p["loss"] for p in pieces)
    assert any(q["lo"] <= d["sigma_hat"] <= q["hi"] for q in d["erm"]["intervals"])
    assert set(d["test"]) == {"loss_at_sigma_hat", "best_loss", "excess", "uniform_gap"}
    assert "seconds" not in d and d["settings"]["data_files"] == train
    # The same numbers from the library, on the same files.
    from sslviz.specs import ProblemSpec

    base = ProblemSpec(classes=(0, 1), pca=0, family="knn", k=5)
    r = learn(
        [base.replace(data_file=f) for f in train],
        [base.replace(data_file=test[0])],
        (0.5, 5.0),
        n_jobs=1,
    )
    assert d["sigma_hat"] == r.erm.sigma_hat and d["test"]["excess"] == r.test.excess


def test_cli_learn_drawn_with_k_range_curve_and_cg(tmp_path):
    out = tmp_path / "learn.json"
    args = [
        "learn",
        "--dataset",
        "digits",
        "--classes",
        "4",
        "9",
        "--n",
        "60",
        "--labeled",
        "6",
        "--family",
        "knn",
        "--sigma-min",
        "1",
        "--sigma-max",
        "6",
        "--instances",
        "3",
        "--test-instances",
        "2",
        "--k-range",
        "3:5",
        "--solver",
        "cg",
        "--cg-iters",
        "5",
        "--curve",
        "1,2",
        "--repeats",
        "2",
        "--jobs",
        "1",
        "--no-timings",
    ]
    assert main([*args, "--out", str(out)]) == 0
    d = json.loads(out.read_text())
    assert [g["k"] for g in d["grid"]] == [3, 4, 5] and d["erm_k"]["k"] == d["k"]
    assert d["solver"] == "CG-5" and "exact_loss_at_sigma_hat" in d and "exact" in d
    assert d["learning_curve"]["m"] == [1, 2] and len(d["learning_curve"]["excess"]["runs"]) == 2
    again = tmp_path / "again.json"
    assert main([*args, "--out", str(again)]) == 0
    assert again.read_bytes() == out.read_bytes()


LEARN_ERRORS = {
    "no instance": (lambda tmp: [], "needs training instances"),
    "no labeled mask": (lambda tmp: _files([_instance_file(tmp, 1, labeled=False)]), "labeled"),
    "one class labeled": (
        lambda tmp: _files([_instance_file(tmp, 1, one_class=True)]),
        "both classes",
    ),
    "missing file": (lambda tmp: ["--data-file", str(tmp / "nope.npz")], "no such file"),
    "empty range": (
        lambda tmp: [*_files([_instance_file(tmp, 1)]), "--sigma-min", "5"],
        "--sigma-min 5 must be smaller than --sigma-max",
    ),
    "k range on complete": (
        lambda tmp: [*_files([_instance_file(tmp, 1)]), "--k-range", "2:4", "--family", "complete"],
        "knn or mutual-knn",
    ),
    "bad k range": (
        lambda tmp: [*_files([_instance_file(tmp, 1)]), "--k-range", "4:2"],
        "--k-range '4:2' must start at 1 or more",
    ),
}


@pytest.mark.parametrize("name", sorted(LEARN_ERRORS))
def test_cli_learn_bad_input_exits_2_with_one_line(name, tmp_path, capsys):
    extra, match = LEARN_ERRORS[name]
    assert main(["learn", *COMMON, *extra(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("sslviz: error:")
    assert match in err and "Traceback" not in err
