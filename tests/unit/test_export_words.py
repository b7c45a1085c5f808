"""The tables a person reads: every column of every frame has words (sslviz.words), and
sslviz.export.shown_frame shows them without field names, duplicated or empty columns,
"None" cells or booleans; each cause has one name on every surface (legend, hover, table,
verdict, a miss explained)."""

from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from sslviz import animation, attribution, export, plots, sentences
from sslviz.conditioning import condition_curve, trust_curve
from sslviz.convergence import convergence
from sslviz.experiment import regret_experiment
from sslviz.intervals import score, sweep
from sslviz.learn import learn
from sslviz.measure import Timing
from sslviz.online import SyntheticRounds
from sslviz.problem import build_problem, loss_curve, suggest_sigma_range
from sslviz.specs import ProblemSpec, SweepSettings
from sslviz.words import CAUSE_WORDS, COLUMN_WORDS, MERGED, cause_words, plain_text

FIELD_NAME = re.compile(r"[A-Za-z]\w*_\w+")  # what a header in words never is
MATH = {"σ_l", "σ_h", "f_t"}  # the paper's notation, which headers may use


@pytest.fixture(scope="module")
def case() -> SimpleNamespace:
    """Digits 3 vs 8, n = 60, complete graph, CG-5 in fast mode: misses by the solver and
    spurious endpoints; its trust panel with t_max 8, so that the search for t needed
    fails at some σ ("> 8")."""
    p = build_problem(ProblemSpec(n=60, n_labeled=6, classes=(3, 8), family="complete"))
    rng = suggest_sigma_range(p)
    truth = loss_curve(p, *rng)
    fast = sweep(p.model, p.y_unlabeled, *rng, SweepSettings(cg_iters=5))
    return SimpleNamespace(
        problem=p,
        sigma_range=rng,
        truth=truth,
        fast=fast,
        scored=score(fast, truth, model=p.model),
        trust=trust_curve(p.model, np.linspace(*rng, 8), cg_iters=5, t_max=8),
    )


@pytest.fixture(scope="module")
def frames(case) -> dict:
    """Every frame sslviz makes, by what it is of (each registered type of to_frame, and
    the frames of their own functions)."""
    problem, sigma_range, truth, fast = case.problem, case.sigma_range, case.truth, case.fast
    paper = sweep(
        problem.model,
        problem.y_unlabeled,
        *sigma_range,
        SweepSettings(cg_iters=5, mode="paper"),
        record=True,
    )
    cond = condition_curve(problem.model, np.linspace(*sigma_range, 4), cg_iters=5)
    exp = regret_experiment(
        SyntheticRounds(), rounds=5, repeats=2, n_jobs=1, feedback=["approx", "uniform"]
    )
    conv = convergence(problem.model, problem.y_unlabeled, truth, iterations=6)
    spec = ProblemSpec(classes=(3, 8), n=40, n_labeled=6, family="knn", k=5)
    learned = learn(
        [spec.with_seed(s) for s in (1, 2)],
        [],
        sigma_range,
        approx=[SweepSettings(cg_iters=5)],
        n_jobs=1,
    )
    timing = Timing(0.01, 0.012, 3, 0.05, 0)
    rows = problem.rows(range(problem.model.n_unlabeled))
    return {
        "LossCurve": export.to_frame(truth, problem),
        "Sweep": export.to_frame(fast, problem),
        "Sweep (paper mode)": export.to_frame(paper, problem),
        "Score": export.to_frame(case.scored, problem),
        "ConditionCurve": export.to_frame(cond).assign(family="complete"),
        "TrustCurve": export.to_frame(case.trust),
        "RegretExperiment": export.to_frame(exp),
        "LearnerRun": export.to_frame(exp.models["approx"].runs[0]),
        "Convergence": export.to_frame(conv),
        "regret summary": export.regret_summary_frame(exp),
        "learning": export.learn_frame(learned),
        "speed": export.speed_frame([export.speed_row(problem, fast, timing)]),
        "player": pd.DataFrame(animation.event_rows(paper.events[:50], rows)),
    }


def test_every_frame_type_is_checked(frames):
    """A result type that gets a frame, or a frame function of its own, gets a row in
    ``frames`` (and so its words checked)."""
    registered = {cls.__name__ for cls in export.to_frame.registry if cls is not object}
    assert registered <= set(frames)
    own = {n for n in dir(export) if n.endswith("_frame") and not n.startswith("_")}
    assert own == {"to_frame", "shown_frame", "regret_summary_frame", "learn_frame", "speed_frame"}


def test_every_column_has_words(frames):
    for name, frame in frames.items():
        unworded = [c for c in frame.columns if c not in COLUMN_WORDS and c not in MERGED]
        assert not unworded, (name, unworded)
    assert set(MERGED.values()) <= set(COLUMN_WORDS)


def test_a_column_without_words_fails(frames):
    with pytest.raises(KeyError, match="no_words_yet"):
        export.shown_frame(frames["Sweep"].assign(no_words_yet=1))


@pytest.mark.parametrize(
    "name",
    [
        "LossCurve",
        "Sweep",
        "Sweep (paper mode)",
        "Score",
        "ConditionCurve",
        "TrustCurve",
        "RegretExperiment",
        "LearnerRun",
        "Convergence",
        "regret summary",
        "learning",
        "speed",
        "player",
    ],
)
def test_shown_tables_are_words(frames, name):
    frame = frames[name]
    shown = export.shown_frame(frame)
    assert len(shown) == len(frame)
    headers = list(shown.columns)
    assert len(set(headers)) == len(headers)  # no two columns under one header
    assert set(headers) <= set(COLUMN_WORDS.values())
    for h in headers:
        assert set(FIELD_NAME.findall(h)) <= MATH, h
    for col in shown.columns:
        cells = shown[col]
        assert not pd.isna(cells).all() and not (cells.astype(object) == "").all(), col
        if cells.dtype.kind in "iufc" or str(cells.dtype) == "Int64":
            continue  # a number (a missing one is an empty cell: ui.widgets.table)
        for v in cells:
            assert isinstance(v, str), (col, v)  # never None, a bool or a list
            assert v not in {"None", "True", "False", "nan", "<NA>"}, (col, v)
            assert set(FIELD_NAME.findall(v)) <= MATH | {"f_t,u", "g_u"}, (col, v)


def test_shown_intervals_give_each_node_once_as_its_row(frames, case):
    fast, problem = case.fast, case.problem
    shown = export.shown_frame(frames["Sweep"])
    assert list(shown.columns) == [
        "lower end",
        "upper end",
        "loss",
        "σ0",
        "node at the lower end (instance row)",
        "node at the upper end (instance row)",
    ]
    low = shown["node at the lower end (instance row)"]
    assert str(low.dtype) == "Int64" and pd.isna(low[0])  # the range's start: no node
    assert list(low[1:]) == problem.rows([iv.lo_node for iv in fast.intervals[1:]])


def test_shown_trust_panel_merges_the_search_flags(frames, case):
    trust = case.trust
    shown = export.shown_frame(frames["TrustCurve"])
    assert not {"reached_cg", "t_needed_cg", "may_flip"} & set(shown.columns)
    want = [str(t) if t <= trust.t_max else f"> {trust.t_max}" for t in trust.t_needed_cg.tolist()]
    assert list(shown["t needed (CG)"]) == want and any(w.startswith(">") for w in want)
    assert set(shown["error ≥ margin"]) <= {"yes", "no"}
    # the CSV keeps the machine names and values
    assert list(frames["TrustCurve"]["t_needed_cg"]) == trust.t_needed_cg.tolist()


def test_shown_misses_name_causes_in_words_and_drop_empty_columns(frames, case):
    scored = case.scored
    frame = frames["Score"]
    assert frame["distance"].isna().all() and frame["how"].isna().all()  # all None here
    shown = export.shown_frame(frame)
    assert "distance to the other crossing" not in shown and "nodes_u" not in shown
    assert list(shown["cause"]) == [cause_words(r.cause) for r in scored.miss_records]
    assert list(frame["cause"]) == [r.cause for r in scored.miss_records]  # CSV: the keys
    # one node changing side per miss: its row once, not again as "node"
    if all(len(r.nodes) == 1 for r in scored.miss_records):
        assert "node (instance row)" not in shown


def test_shown_learning_table_has_no_empty_column(frames):
    """Learned with no held-out instances: the held-out columns are all None, left out."""
    frame = frames["learning"]
    assert frame["test_loss"].isna().all()
    shown = export.shown_frame(frame)
    assert "held-out loss at σ̂" not in shown and "excess over exact ERM" not in shown
    assert list(shown["solver"]) == ["exact", "CG-5"]


def test_text_cells_name_settings_by_their_labels():
    assert plain_text("≤ root_tol 0.01 after max_iter steps") == (
        "≤ root tolerance 0.01 after iteration cap steps"
    )
    frame = pd.DataFrame({"detail": ["stopped at root_tol 0.01", None]})
    assert list(export.shown_frame(frame)["what happened"]) == [
        "stopped at root tolerance 0.01",
        "",
    ]


# -- one name per cause ----------------------------------------------------------------------


def test_every_cause_has_words():
    assert set(CAUSE_WORDS) == set(attribution.CAUSES)
    assert set(attribution.SPURIOUS_CAUSES) <= set(CAUSE_WORDS)
    assert len(set(CAUSE_WORDS.values())) == len(CAUSE_WORDS)
    direct = SweepSettings(solver="exact")
    assert cause_words("solver", direct) == "solver error" != cause_words("solver")
    assert cause_words("search", direct) == CAUSE_WORDS["search"]


def test_every_surface_names_a_cause_by_its_words(case):
    """The legend, the hover, the table, the verdict and a miss explained: each cause of
    the score under its words, never its key."""
    problem, truth, fast, scored = case.problem, case.truth, case.fast, case.scored
    causes = {r.cause for r in scored.miss_records}
    spurious = {r.cause for r in scored.spurious_records}
    assert causes and spurious
    rows = problem.rows(range(problem.model.n_unlabeled))
    fig = plots.loss_intervals_figure(truth, fast, score=scored, rows=rows)
    legend = [t.name for t in fig.data]
    hover = " ".join(
        t for tr in fig.data if tr.name.startswith(("missed", "spur")) for t in tr.text
    )
    table = set(export.shown_frame(export.to_frame(scored, problem))["cause"])
    line = sentences.verdict(scored)
    explained = sentences.explain_miss(scored.miss_records[0], scored, rows)
    for c in causes:
        words = cause_words(c, scored.settings)
        assert f"missed: {words}" in legend and f"cause: {words}<br>" in hover
        assert words in table and f" {words} — " in line
    for c in spurious:
        assert f"spurious endpoint: {cause_words(c)}" in legend
    assert f"Cause: {cause_words(scored.miss_records[0].cause)}" in explained
    keys = {c for c in CAUSE_WORDS if c not in CAUSE_WORDS.values()}
    for text in [*legend, hover, line, explained, *table]:
        assert not any(f"missed: {k}" in text or f"cause: {k}<" in text for k in keys), text
    assert not keys & table
