"""Figure builders of sslviz.plots on small real results (no Streamlit)."""

import json
import subprocess
import sys
from dataclasses import replace

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from reference import plotly_json, validated_json

from sslviz import plots
from sslviz.conditioning import condition_curve, trust_curve
from sslviz.experiment import regret_experiment
from sslviz.intervals import Interval, Sweep, node_trace, score, sweep
from sslviz.online import SyntheticRounds
from sslviz.plots.style import TEMPLATE, new_figure
from sslviz.problem import build_problem, loss_curve, suggest_sigma_range
from sslviz.specs import ProblemSpec, SweepSettings
from sslviz.truth import CurvePart
from sslviz.words import cause_words


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


@pytest.fixture(scope="module")
def scored(problem, truth, estimate):
    return score(estimate, truth, model=problem.model)


@pytest.fixture(scope="module")
def trust(problem, sigma_range):
    return trust_curve(problem.model, np.linspace(*sigma_range, 12), cg_iters=5, t_max=256)


def _rows(problem):
    return problem.rows(range(problem.model.n_unlabeled))


def test_loss_intervals_figure(problem, truth, estimate, scored):
    assert scored.missed > 0  # t = 5 CG on a complete graph misses breakpoints
    rows = _rows(problem)
    fig = plots.loss_intervals_figure(truth, estimate, score=scored, rows=rows)
    causes = [c for c in plots.CAUSE_STYLE if scored.cause_counts("miss")[c]]
    spurious = [c for c in plots.CAUSE_STYLE if scored.cause_counts("spurious").get(c)]
    assert names(fig) == [
        "true loss l(σ)",
        "estimated intervals",
        *[f"missed: {cause_words(c)}" for c in causes],
        *[f"spurious endpoint: {cause_words(c)}" for c in spurious],
    ]
    assert fig.layout.xaxis.title.text == plots.SIGMA_TITLE
    assert fig.layout.yaxis.title.text == plots.LOSS_TITLE
    # one segment (lo, hi, gap) per interval, hover naming the endpoint nodes
    seg = fig.data[1]
    assert len(seg.x) == 3 * len(estimate.intervals)
    assert "set by" in seg.text[0] and "true loss" in seg.text[0]
    missed = [t for t in fig.data if t.name.startswith("missed: ")]
    assert sum(len(t.x) for t in missed) == scored.missed
    # the true loss step function spans the range
    assert fig.data[0].x[0] == pytest.approx(truth.loss.lo)
    assert fig.data[0].x[-1] == pytest.approx(truth.loss.hi)
    # every miss marker names its node (row, unlabeled index), σ and the drill-down's σ0
    m = scored.miss_records[0]
    t = next(t for t in missed if t.name == f"missed: {cause_words(m.cause)}")
    row, u, sigma, sigma0 = t.customdata[0]
    assert (u, row, sigma) == (m.evidence["node"], rows[m.evidence["node"]], m.sigma)
    assert sigma0 == plots.algorithm4_start(estimate, m.sigma, m.evidence)
    assert m.detail[:40] in t.text[0].replace("<br>", " ")
    assert f"cause: {cause_words(m.cause)}<br>" in t.text[0]


def test_miss_markers_are_coloured_and_shaped_by_cause(problem, truth, estimate, scored):
    """One legend entry per cause; misses filled, spurious endpoints open; smaller than
    the old 13 px red ×, so the true loss under them stays visible."""
    causes = ["solver", "search", "close pair", "degenerate"]
    recs = [replace(m, cause=causes[i % 4]) for i, m in enumerate(scored.miss_records * 2)]
    spur = [
        replace(x, cause=("solver", "search")[i % 2])
        for i, x in enumerate(scored.spurious_records[:4])
    ]
    sc = replace(scored, miss_records=recs, spurious_records=spur)
    fig = plots.loss_intervals_figure(truth, estimate, score=sc, rows=_rows(problem))
    by_name = {t.name: t for t in fig.data}
    symbols = set()
    for cause in causes[: len(recs)]:
        t = by_name[f"missed: {cause_words(cause)}"]
        color, symbol = plots.CAUSE_STYLE[cause]
        assert t.marker.symbol == symbol and t.marker.color == color
        assert t.marker.size < 13 and t.showlegend is not False
        symbols.add(symbol)
    assert len(symbols) == len(causes[: len(recs)])  # a distinct shape per cause
    for cause in ("solver", "search"):
        t = by_name[f"spurious endpoint: {cause_words(cause)}"]
        assert t.marker.symbol == plots.CAUSE_STYLE[cause][1] + "-open"
        assert t.marker.color == plots.CAUSE_STYLE[cause][0]
    assert sum(n.startswith("missed: ") for n in by_name) == min(4, len(recs))


TRUST_PANEL = [
    "CG-5 cannot be trusted here",
    "CG-5 error max|f_t − f|",
    "margin min|f − ½|",
    "t needed, CG",
    "t needed, PCG",
    "t used (CG-5)",
]
"""The trust traces, in order, of a CG-5 sweep (the loss figure's panel and trust_figure)."""


def test_loss_figure_trust_panel_shares_the_sigma_axis(problem, truth, estimate, scored, trust):
    fig = plots.loss_intervals_figure(
        truth, estimate, score=scored, rows=_rows(problem), trust=trust
    )
    assert names(fig)[-6:] == TRUST_PANEL
    axes = {t.name: (t.xaxis, t.yaxis) for t in fig.data}
    assert axes["true loss l(σ)"] == ("x", "y")
    assert axes["CG-5 error max|f_t − f|"] == ("x2", "y2")
    assert axes["t needed, PCG"] == ("x3", "y3")
    lay = fig.layout
    assert lay.xaxis.matches == lay.xaxis2.matches == "x3"  # one σ axis for the three rows
    assert lay.xaxis3.title.text == plots.SIGMA_TITLE and not lay.xaxis.title.text
    assert lay.yaxis2.type == "log" and lay.yaxis3.type == "log"
    measured = np.where(trust.t_needed_cg > trust.t_max, np.nan, trust.t_needed_cg)
    measured = np.where(trust.t_needed_cg <= 0, np.nan, measured)
    np.testing.assert_array_equal(fig.data[names(fig).index("t needed, CG")].y, measured)
    # the shaded bands: one rectangle per band of the grid in each of the two panel rows
    bands = [sh for sh in lay.shapes if sh.fillcolor == plots.trust.TRUST["band"]]
    assert len(bands) == 2 * len(trust.bands()) > 0
    assert {(sh.xref, sh.yref) for sh in bands} == {("x2", "y2 domain"), ("x3", "y3 domain")}


def test_loss_figure_keeps_the_trust_panels_place(problem, truth, estimate, scored, trust):
    """A partial chart (paper mode's stream) is as tall as the finished one, on the same
    grid and axis titles, its panel rows empty but for the text saying it follows."""
    done = plots.loss_intervals_figure(truth, estimate, score=scored, trust=trust)
    text = "The trust panel follows."
    part = plots.loss_intervals_figure(truth, estimate, trust_pending=text)
    assert part.layout.height == done.layout.height
    for axis in ("xaxis", "xaxis2", "xaxis3", "yaxis", "yaxis2", "yaxis3"):
        assert part.layout[axis].domain == done.layout[axis].domain
    for axis in ("xaxis3", "yaxis"):  # the σ axis under the grid, the loss axis
        assert part.layout[axis].title.text == done.layout[axis].title.text
    assert names(part) == ["true loss l(σ)", "estimated intervals"]
    assert [a.text for a in part.layout.annotations] == [text]
    assert not part.layout.yaxis2.showticklabels and not part.layout.yaxis3.showticklabels
    assert validated_json(part) == plotly_json(part)  # what Plotly's validation accepts


def test_loss_part_figure_spans_the_whole_range(problem, truth, trust):
    """A part of an exact curve (the loss page while a large graph is searched) is drawn on
    the σ range of the whole search, so it grows to the right, as tall as the finished
    chart, the trust panel's place saying what follows."""
    lo, end = float(truth.loss.edges[0]), float(truth.loss.edges[-1])
    part = CurvePart(truth, 2 * end)  # found up to ``end`` of [lo, 2·end]
    text = "The rest follows."
    fig = plots.loss_part_figure(part, rows=_rows(problem), trust_pending=text)
    done = plots.loss_intervals_figure(truth, trust=trust)
    assert fig.layout.height == done.layout.height
    for axis in ("xaxis", "xaxis2", "xaxis3"):
        assert tuple(fig.layout[axis].range) == (lo, 2 * end)
    assert names(fig) == ["true loss l(σ)"]
    assert [a.text for a in fig.layout.annotations] == [text]
    assert part.status() == f"σ up to {end:.4g} of [{lo:g}, {2 * end:g}] so far"
    assert validated_json(fig) == plotly_json(fig)  # what Plotly's validation accepts


def test_trust_figure(trust):
    fig = plots.trust_figure(trust, name="complete graph")
    assert names(fig) == TRUST_PANEL
    assert fig.layout.title.text == "Where CG-5 can be trusted (complete graph)"
    assert fig.layout.yaxis.type == "log" and fig.layout.yaxis2.type == "log"
    assert fig.layout.xaxis.matches == "x2" and fig.layout.xaxis2.title.text == plots.SIGMA_TITLE
    np.testing.assert_allclose(fig.data[1].y, np.maximum(trust.error, 1e-17))
    np.testing.assert_allclose(fig.data[2].y, trust.margin)
    # a capped search is drawn as a lower bound at the cap, never on the measured line
    capped = replace(trust, t_needed_pcg=np.full(trust.sigma.size, trust.t_max + 1))
    fig = plots.trust_figure(capped)
    line = fig.data[names(fig).index("t needed, PCG")]
    assert np.isnan(np.asarray(line.y, float)).all()
    t = fig.data[names(fig).index(f"t needed, PCG: more than {trust.t_max}")]
    assert t.marker.symbol == "triangle-up-open" and list(t.y) == [trust.t_max] * trust.sigma.size
    assert f"more than {trust.t_max}" in t.hovertemplate


def test_selection_maps_to_node_and_sigma0(problem, truth, estimate, scored):
    """What the loss page does with a click: Plotly's selected points (as Streamlit hands
    them over) → the instance row and the σ0 Algorithm 4 starts from."""
    fig = plots.loss_intervals_figure(truth, estimate, score=scored, rows=_rows(problem))
    missed = next(t for t in fig.data if t.name.startswith("missed: "))
    cd = [float(v) for v in missed.customdata[0]]
    point = {"curve_number": 2, "point_index": 0, "x": cd[2], "y": 0.1, "customdata": cd}
    assert plots.selected_node([point]) == (int(cd[0]), cd[3])
    true_loss = fig.data[0]  # the true loss's vertices: its first is the range start
    start = {"curve_number": 0, "customdata": list(true_loss.customdata[0])}
    assert plots.selected_node([start]) is None  # no node at a range end
    assert plots.selected_node([start, point]) == (int(cd[0]), cd[3])
    assert plots.selected_node([]) is None and plots.selected_node(None) is None
    assert plots.selected_node([{"x": 1.0}]) is None  # a point without customdata
    # a true breakpoint's vertex names its crossing node
    b, nd = truth.breakpoints[0], truth.nodes[0]
    i = list(true_loss.x).index(b)
    assert (
        plots.selected_node([{"customdata": list(true_loss.customdata[i])}])[0]
        == (_rows(problem)[nd[0]])
    )


def test_algorithm4_start(problem, estimate):
    """Paper mode: inside an interval, the σ0 its search started from (overlapping intervals:
    the first); in a restart gap (σ_h, σ_h + step], the next start. Fast mode: the piece's
    midpoint. Evidence that recorded a σ0 wins."""
    ivs = [
        Interval(1.0, 1.2, 0.1, 1.0),
        Interval(1.0, 1.4, 0.2, 1.25),
        Interval(1.45, 2.0, 0.3, 1.45),
    ]
    paper = Sweep(ivs, 1.0, 2.0, SweepSettings(mode="paper"), 0, 0, 0.0)
    assert plots.algorithm4_start(paper, 1.1) == 1.0
    assert plots.algorithm4_start(paper, 1.3) == 1.25
    assert plots.algorithm4_start(paper, 1.42) == 1.45  # in the gap (1.4, 1.45]
    assert plots.algorithm4_start(paper, 1.9) == 1.45
    assert plots.algorithm4_start(paper, 1.1, {"sigma0": 1.234}) == 1.234
    iv = estimate.intervals[len(estimate.intervals) // 2]
    assert plots.algorithm4_start(estimate, 0.25 * iv.lo + 0.75 * iv.hi) == iv.sigma0
    assert iv.sigma0 == pytest.approx(0.5 * (iv.lo + iv.hi))


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
        grid,
        f,
        u=u,
        f_exact=fe,
        traces=traces,
        label="CG-5",
        breakpoints=[truth.breakpoints[0]],
        sigma0=lo,
    )
    assert names(fig) == [
        "f_u, CG-5",
        "f_u, exact",
        "g_u, CG-5",
        "g_u, exact",
        "true breakpoint",
        "true breakpoint",
        "start σ0",
        *[f"{r} iterates" for r in traces for _ in (1, 2)],
    ]
    # one legend beside each panel, titled with its panel; the breakpoints in both
    shown = [t for t in fig.data if t.showlegend is not False]
    top = [t.name for t in shown if t.legend in (None, "legend")]
    bottom = [t.name for t in shown if t.legend == "legend2"]
    assert top == [
        "f_u, CG-5",
        "f_u, exact",
        "true breakpoint",
        "start σ0",
        "gradient iterates",
        "newton iterates",
        "hybrid iterates",
    ]
    assert bottom == ["g_u, CG-5", "g_u, exact", "true breakpoint"]
    assert "top panel" in fig.layout.legend.title.text
    assert "bottom panel" in fig.layout.legend2.title.text
    # the four curves differ in style: approximate solid, exact dashed or dotted, and f_u's
    # exact curve does not look like g_u's
    styles = [(t.line.color, t.line.dash or "solid") for t in fig.data[:4]]
    assert len(set(styles)) == 4
    assert fig.data[0].line.dash in (None, "solid") and fig.data[1].line.dash == "dash"
    assert fig.data[3].line.dash == "dot" and fig.data[3].line.color != fig.data[1].line.color
    its = [t for t in fig.data if t.name.endswith(" iterates") and t.showlegend is not False]
    assert len({t.marker.symbol for t in its}) == len({t.line.dash for t in its}) == 3
    assert len({t.marker.color for t in its}) == 3
    assert fig.layout.annotations[0].text == f"soft label f_u(σ), node {u}"
    assert fig.layout.yaxis.title.text == "f_u(σ): its label flips at ½"
    assert list(fig.layout.yaxis.ticktext) == ["0", "0.25", "½", "0.75", "1"]  # ½ named
    assert fig.layout.yaxis2.type == "log"
    assert fig.layout.xaxis2.title.text == plots.SIGMA_TITLE
    assert len(fig.data[7].x) == len(traces["gradient"])
    np.testing.assert_allclose(fig.data[3].y, np.maximum((fe - 0.5) ** 2, 1e-300))
    assert list(fig.data[4].x) == [truth.breakpoints[0]] * 2 + [None]
    assert fig.data[4].yaxis == "y" and fig.data[5].yaxis == "y2"


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
    # where CG stops at its cap without reaching the tolerance, the count is a lower bound:
    # left off the measured line, drawn as an open triangle and said "more than" in words
    c = curves["complete"]
    capped = replace(c, reached=np.r_[False, c.reached[1:]])
    fig = plots.cg_figure({"complete": capped})
    line = fig.data[names(fig).index("iterations needed (complete)")]
    assert np.isnan(line.y[0]) and line.y[1] == c.iterations_needed[1]
    marks = fig.data[names(fig).index("more than the cap: not reached (complete)")]
    assert list(marks.x) == [c.sigma[0]] and list(marks.y) == [c.iterations_needed[0]]
    assert marks.marker.symbol == "triangle-up-open"
    assert capped.iterations_words(0) == f"more than {c.iterations_needed[0]:,}"
    assert capped.iterations_words(1) == f"{c.iterations_needed[1]:,}"


def test_regret_figures():
    exp = regret_experiment(
        SyntheticRounds(),
        rounds=12,
        repeats=plots.BAND_REPEATS,
        n_jobs=1,
        feedback=["approx", "uniform"],
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
    # the rate has its own scale (right axis): the learners' curves fill the left one
    assert [t.yaxis for t in fig.data] == ["y"] * 4 + ["y2"]
    lay = fig.layout
    assert lay.yaxis2.overlaying == "y" and lay.yaxis2.side == "right"
    top = max(max(t.y) for t in fig.data[:4])
    assert lay.yaxis.range[1] == pytest.approx(1.05 * top)
    assert lay.yaxis2.range[1] == pytest.approx(1.05 * max(exp.rate))
    lo, hi = lay.yaxis.range
    assert lay.yaxis2.range[0] / lay.yaxis2.range[1] == pytest.approx(lo / hi)  # zero aligned
    # each model its own dash and markers, so equal lines stay visible
    lines = [t for t in fig.data if t.name in ("approx", "uniform")]
    assert len({t.line.dash for t in lines}) == 2 and len({t.marker.symbol for t in lines}) == 2
    few = regret_experiment(
        SyntheticRounds(), rounds=12, repeats=2, n_jobs=1, feedback=["approx", "uniform"]
    )
    assert names(plots.regret_figure(few)) == ["approx", "uniform", "theoretical rate"]
    fig = plots.average_regret_figure(exp)
    assert names(fig) == ["approx", "uniform", "theoretical rate / t"]
    assert [t.yaxis for t in fig.data] == ["y", "y", "y2"]
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
    from sslviz.datasets import load_dataset

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


def _log_axes(fig: go.Figure) -> list:
    lay = fig.layout
    return [lay[k] for k in lay if k.startswith(("xaxis", "yaxis")) and lay[k].type == "log"]


def test_figures_built_as_dicts_are_what_plotly_validates(
    problem, truth, estimate, scored, trust, sigma_range
):
    """Figures built as dicts (style.dict_figure, drawn without Plotly's validation) are
    valid and already in the form Plotly's validation gives: the same JSON once validated.
    Covered: Figure 3 with and without its trust panel, a comparison and σ cut off from L;
    the trust figure; the node drill-down with and without each optional part; and the
    miss up close, which adds to it with Plotly's own calls (a band on both rows, a line
    per row)."""
    lo, hi = sigma_range
    u = int(truth.nodes[0][0])
    grid = np.linspace(lo, hi, 12)
    f = np.array([problem.model.soft_labels(s, solver="cg", cg_iters=5).f[u] for s in grid])
    traces = {rule: node_trace(problem.model, u, lo, lo, hi, rule=rule)[0] for rule in ("newton",)}
    b = float(truth.breakpoints[0])
    zoom = dict(sigma=grid, f=f, f_exact=f * 0.98, label="CG-5")
    cut = replace(truth, degenerate_ranges=[(lo, lo + 0.1 * (hi - lo), 2)])
    figs = [
        plots.loss_intervals_figure(truth),
        plots.loss_intervals_figure(cut, estimate, score=scored, compare=estimate),
        plots.loss_intervals_figure(cut, estimate, score=scored, trust=trust, rows=list(range(99))),
        plots.trust_figure(trust, name="complete"),
        plots.soft_label_figure(grid, f, u=u),
        plots.soft_label_figure(grid, f, u="row 3", f_exact=f * 0.98, label="exact"),
        plots.soft_label_figure(
            grid, f, u=u, f_exact=f * 0.98, traces=traces, breakpoints=[b], sigma0=lo
        ),
        plots.miss_figure(zoom, u="node 4", sigma_true=b, tol=1e-3, estimate=b + 0.01),
        plots.miss_figure(zoom, u="node 4", sigma_true=b, tol=1e-3, estimate=None),
    ]
    for fig in figs:
        assert plotly_json(fig) == validated_json(fig)
        assert fig.layout.template.layout.font.color  # the template is in


def test_every_log_axis_is_labelled_in_powers_of_ten(
    problem, truth, estimate, scored, trust, sigma_range
):
    """No "1µ, 1n, 1p, 1f" SI labels and no labelled minor digits on any log axis."""
    grid = np.linspace(*sigma_range, 4)
    curves = {"complete": condition_curve(problem.model, grid, cg_iters=5)}
    u = int(truth.nodes[0][0])
    f = np.array([problem.model.soft_labels(x, solver="cg", cg_iters=5).f[u] for x in grid])
    rows = [
        {"config": c, "n": 50, "time_per_interval": t, "M": 3}
        for c, t in (("knn / cg", 0.002), ("knn / inverse", 0.03))
    ]
    figs = {
        "loss": plots.loss_intervals_figure(truth, estimate, score=scored, trust=trust),
        "trust": plots.trust_figure(trust),
        "soft": plots.soft_label_figure(grid, f, u=u, f_exact=f * 0.99),
        "condition": plots.condition_figure(curves),
        "cg": plots.cg_figure(curves),
        "speed": plots.speed_figure(rows),
    }
    for name, fig in figs.items():
        axes = _log_axes(fig)
        assert axes, name
        for ax in axes:
            assert ax.exponentformat == "power", name
            assert ax.minor.ticks == "" and ax.minor.showgrid is False, name
            assert ax.dtick != "D2" and ax.dtick != "D1", name
            for text in ax.ticktext or ():
                assert not any(c in text for c in "µnpf"), (name, text)
    # a narrow range gets 1-2-5 ticks written in full
    ticks = plots.style.log_ticks([8.0, 95.0])
    assert ticks["ticktext"] == ["5", "10", "20", "50", "100", "200"]
    # narrower: at least three labels on the data itself, whatever its span
    for lo, hi in ((0.8, 1.3), (2.0, 2.6), (1.01, 1.05), (30.0, 90.0)):
        vals = plots.style.log_ticks([lo, hi])["tickvals"]
        assert sum(lo <= x <= hi for x in vals) >= 3, (lo, hi, vals)
    assert plots.style.number(2e-6) == "2·10⁻⁶" and plots.style.number(1e-9) == "10⁻⁹"


def test_cause_markers_stay_under_the_true_loss(truth, estimate, scored):
    """Small, half-transparent markers drawn under the black line (z-order)."""
    fig = plots.loss_intervals_figure(truth, estimate, score=scored)
    line = fig.data[0]
    assert line.name == "true loss l(σ)" and line.line.color == "black"
    markers = [t for t in fig.data if t.name.startswith(("missed: ", "spurious endpoint: "))]
    assert markers
    for t in markers:
        assert (t.zorder or 0) < line.zorder and (t.zorder or 0) < fig.data[1].zorder
        assert t.marker.size <= 8 and t.marker.opacity < 1
    assert "% of U misclassified" in line.text[0]


def test_threshold_loss_is_labelled_in_r():
    p = build_problem(ProblemSpec(n=40, n_labeled=6, classes=(3, 8), family="threshold"))
    lo, hi = suggest_sigma_range(p)
    curve = loss_curve(p, lo, hi)
    fig = plots.loss_intervals_figure(curve)
    assert names(fig)[0] == "true loss l(r)"
    assert "l(r)" in fig.layout.yaxis.title.text and "σ" not in fig.layout.yaxis.title.text
    assert fig.layout.xaxis.title.text == plots.R_TITLE
    assert "σ" not in fig.layout.title.text and "r = " in fig.data[0].hovertemplate


def test_long_class_names_fit_the_sample_mosaic():
    imgs = [np.zeros(4)] * 4
    fig = plots.samples_figure(imgs, ["0: T-shirt/top", "1: Trouser"], (2, 2), per_row=2)
    assert list(fig.layout.yaxis.ticktext) == ["0:<br>T-shirt/top", "1: Trouser"]
    assert fig.layout.margin.l >= 45 + 9 * len("T-shirt/top")


def test_density_figure_says_what_it_shows():
    exp = regret_experiment(SyntheticRounds(), rounds=5, repeats=1, n_jobs=1, feedback=["exact"])
    fig = plots.density_figure(exp.models["exact"].runs[0])
    assert "exact learner" in fig.layout.title.text
    assert "density" in fig.data[0].colorbar.title.text
    assert "round" in fig.data[0].hovertemplate and "σ" in fig.data[0].hovertemplate


def test_new_figure_has_the_template_and_leaves_plotlys_default_alone():
    default = pio.templates.default
    for fig in (new_figure(), new_figure(rows=2, cols=1, shared_xaxes=True)):
        assert fig.layout.template == pio.templates[TEMPLATE]
    assert pio.templates.default == default


@pytest.mark.parametrize(
    "args",
    [
        dict(
            rows=3, cols=1, shared_xaxes=True, vertical_spacing=0.05, row_heights=[0.56, 0.22, 0.22]
        ),
        dict(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08, subplot_titles=("a", "b")),
        dict(rows=1, cols=3, subplot_titles=("x", "y", "z"), shared_yaxes=False),
        dict(specs=[[{"secondary_y": True}]]),
    ],
)
def test_subplot_figures_are_make_subplots_figures(args):
    """A subplot figure's layout is computed once per arguments (style._subplots); every
    figure after the first is the same, byte for byte, and all are make_subplots' figure
    in the template, with traces going to the same axes."""
    from plotly.subplots import make_subplots

    def filled(fig):
        rows, cols = args.get("rows", 1), args.get("cols", 1)
        for r in range(1, rows + 1):
            for c in range(1, cols + 1):
                fig.add_scatter(x=[r, c], y=[c, r], row=r, col=c)
        if "specs" in args:
            fig.add_scatter(x=[0, 1], y=[1, 0], row=1, col=1, secondary_y=True)
        fig.update_yaxes(title="y", row=1, col=1)
        return pio.to_json(fig)

    ref = json.loads(filled(make_subplots(**args).update_layout(template=TEMPLATE)))
    first, again, third = (filled(new_figure(**args)) for _ in range(3))
    assert first == again == third
    assert json.loads(first) == ref
