"""Figure builders of sslviz.plots on small real results (no Streamlit)."""

import subprocess
import sys
from dataclasses import replace

import numpy as np
import plotly.graph_objects as go
import pytest

from sslviz import plots
from sslviz.conditioning import condition_curve
from sslviz.experiment import regret_experiment
from sslviz.intervals import node_trace, score, sweep
from sslviz.online import SyntheticRounds
from sslviz.problem import build_problem, loss_curve, suggest_sigma_range
from sslviz.specs import ProblemSpec, SweepSettings


@pytest.fixture(scope="module")
def problem():
    return build_problem(ProblemSpec(n=60, n_labeled=6, classes=(3, 8), family="complete"))


@pytest.fixture(scope="module")
def sigma_range(problem):
    return suggest_sigma_range(problem)


@pytest.fixture(scope="module")
def truth(problem, sigma_range):
    return loss_curve(problem, *sigma_range)


@pytest.fixture(scope="module")
def estimate(problem, sigma_range):
    return sweep(problem.model, problem.y_unlabeled, *sigma_range, SweepSettings(cg_iters=5))


def names(fig: go.Figure) -> list[str]:
    return [t.name for t in fig.data]


def test_plots_does_not_import_streamlit():
    code = "import sslviz.plots, sys; assert 'streamlit' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_loss_intervals_figure(problem, truth, estimate):
    sc = score(estimate, truth)
    assert sc.missed > 0  # t = 5 CG on a complete graph misses breakpoints
    rows = problem.rows(range(problem.model.n_unlabeled))
    fig = plots.loss_intervals_figure(truth, estimate, score=sc, rows=rows)
    assert names(fig) == ["true loss l(σ)", "estimated intervals", "missed breakpoint"]
    assert fig.layout.xaxis.title.text == plots.SIGMA_TITLE
    assert fig.layout.yaxis.title.text == plots.LOSS_TITLE
    # one segment (lo, hi, gap) per interval, hover naming the endpoint nodes
    seg = fig.data[1]
    assert len(seg.x) == 3 * len(estimate.intervals)
    assert "set by" in seg.text[0] and "true loss" in seg.text[0]
    assert len(fig.data[2].x) == sc.missed
    # the true loss step function spans the range
    assert fig.data[0].x[0] == pytest.approx(truth.loss.lo)
    assert fig.data[0].x[-1] == pytest.approx(truth.loss.hi)


def test_loss_intervals_figure_compare_and_degenerate(problem, truth, estimate, sigma_range):
    other = sweep(problem.model, problem.y_unlabeled, *sigma_range, SweepSettings(cg_iters=50))
    lo, hi = sigma_range
    shaded = replace(truth, degenerate_ranges=[(lo, lo + 0.1, 3)])
    fig = plots.loss_intervals_figure(shaded, estimate, compare=other, compare_name="t = 50")
    assert names(fig) == [
        "true loss l(σ)",
        "estimated intervals",
        "t = 50",
        "degenerate σ (nodes cut off from L)",
    ]
    assert len(fig.layout.shapes) == 1
    assert fig.layout.shapes[0].x0 == lo


def test_loss_intervals_figure_truth_only(truth):
    fig = plots.loss_intervals_figure(truth)
    assert names(fig) == ["true loss l(σ)"]


def test_soft_label_figure(problem, truth, sigma_range):
    lo, hi = sigma_range
    u = int(truth.nodes[0][0])
    grid = np.linspace(lo, hi, 15)
    f = np.array([problem.model.soft_labels(s, solver="cg", cg_iters=5).f[u] for s in grid])
    fe = np.array([problem.model.soft_labels(s).f[u] for s in grid])
    traces = {
        rule: node_trace(problem.model, u, lo, lo, hi, rule=rule)[0]
        for rule in ("gradient", "newton", "hybrid")
    }
    fig = plots.soft_label_figure(
        grid, f, u=u, f_exact=fe, traces=traces, breakpoints=[truth.breakpoints[0]]
    )
    assert names(fig) == [
        "f_u(σ)",
        "g_u(σ)",
        "exact f_u(σ)",
        "exact g_u(σ)",
        *[f"{r} iterates" for r in traces for _ in (1, 2)],
    ]
    assert sum(t.showlegend is not False for t in fig.data) == 4 + 3
    assert fig.layout.yaxis.title.text == "f_u(σ)"
    assert fig.layout.yaxis2.type == "log"
    assert fig.layout.xaxis2.title.text == plots.SIGMA_TITLE
    assert len(fig.data[4].x) == len(traces["gradient"])


def test_condition_and_cg_figures(problem, sigma_range):
    knn = build_problem(ProblemSpec(n=60, n_labeled=6, classes=(3, 8)))
    grid = np.linspace(*sigma_range, 4)
    curves = {
        "complete": condition_curve(problem.model, grid, cg_iters=5),
        "knn": condition_curve(knn.model, grid, cg_iters=5),
    }
    fig = plots.condition_figure(curves)
    assert names(fig) == ["√κ (complete)", "√κ (knn)"]
    assert fig.layout.yaxis.type == "log" and fig.layout.yaxis2.type == "log"
    assert fig.layout.yaxis.title.text == "√κ (log)"
    assert [a.text for a in fig.layout.annotations] == ["complete", "knn"]
    np.testing.assert_allclose(fig.data[0].y, np.sqrt(curves["complete"].kappa))
    fig = plots.cg_figure(curves)
    assert names(fig) == [
        "iterations needed (complete)",
        "t-iteration error (complete)",
        "iterations needed (knn)",
        "t-iteration error (knn)",
        "t (iterations used)",
    ]
    assert fig.layout.yaxis.title.text == "iterations"
    assert fig.layout.yaxis2.type == "log"


def test_regret_figures():
    exp = regret_experiment(
        SyntheticRounds(), rounds=12, repeats=3, n_jobs=1, feedback=["approx", "uniform"]
    )
    fig = plots.regret_figure(exp)
    assert names(fig) == [
        "approx 95% band",
        "approx",
        "uniform 95% band",
        "uniform",
        "theoretical rate",
    ]
    assert fig.layout.xaxis.title.text == "round t"
    assert fig.layout.yaxis.title.text == "cumulative regret R_t"
    assert len(fig.data[1].y) == 12
    fig = plots.average_regret_figure(exp)
    assert names(fig) == ["approx", "uniform", "theoretical rate / t"]
    np.testing.assert_allclose(fig.data[0].y, exp.models["approx"].regret_mean / np.arange(1, 13))
    run = exp.models["approx"].runs[0]
    fig = plots.density_figure(run)
    assert names(fig) == ["density p_t(σ)", "σ_t played"]
    assert np.shape(fig.data[0].z) == run.density_snapshots.shape
    assert fig.layout.yaxis.title.text == "round t"


def test_speed_figure():
    rows = [
        {"config": f"{f} / {s}", "n": n, "time_per_interval": 0.01 * n, "M": 5}
        for n in (50, 100)
        for f in ("complete", "knn")
        for s in ("cg", "inverse")
    ]
    fig = plots.speed_figure(rows)
    assert names(fig) == [
        "time per interval (n=50)",
        "M (n=50)",
        "time per interval (n=100)",
        "M (n=100)",
    ]
    assert list(fig.data[0].x) == [
        "complete / cg",
        "complete / inverse",
        "knn / cg",
        "knn / inverse",
    ]
    assert fig.layout.yaxis.type == "log"


def test_home_figures(problem):
    from sslviz.data import load_dataset

    ds = load_dataset("digits")
    imgs = [ds.X[i] for i in np.flatnonzero(ds.y == 3)[:8]] + [
        ds.X[i] for i in np.flatnonzero(ds.y == 8)[:8]
    ]
    fig = plots.samples_figure(imgs, ["3", "8"], ds.image_shape)
    assert names(fig) == ["samples"]
    assert np.shape(fig.data[0].z) == (2 * (2 * 9 + 2), 4 * 9)
    assert list(fig.layout.yaxis.ticktext) == ["3", "8"]
    inst = problem.instance
    fig = plots.instance_figure(inst.X, inst.y, inst.labeled, ["3", "8"])
    assert names(fig) == ["3 (unlabeled)", "3 (labeled)", "8 (unlabeled)", "8 (labeled)"]
    assert sum(len(t.x) for t in fig.data) == inst.n
    assert fig.layout.xaxis.title.text == "PC 1"
