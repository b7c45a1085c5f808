"""The Speed page's grid as a stream (sslviz.speed.speed_stream), without streamlit: one part
per configuration, each part's rows the first rows of the finished table, and the last
part's rows the table computed at once, bit for bit; a stopped stream says what is missing."""

from __future__ import annotations

import numpy as np

from sslviz.intervals import sweep
from sslviz.problem import build_problem
from sslviz.specs import ProblemSpec, SweepSettings
from sslviz.speed import SpeedPart, config_words, speed_stream

GRID = [(40, "complete", "cg"), (40, "complete", "inverse"), (60, "knn", "cg")]


def sweep_row(i: int, config: tuple) -> dict:
    """A configuration's sweep of its own instance (what a Speed row summarises), as
    arrays: every bit of its intervals."""
    n, family, solver = config
    p = build_problem(ProblemSpec(n=n, n_labeled=6, family=family))
    res = sweep(p.model, p.y_unlabeled, 0.6, 3.0, SweepSettings(solver=solver))
    ivs = res.intervals
    return {
        "i": i,
        "edges": np.array([(iv.lo, iv.hi) for iv in ivs]),
        "loss": np.array([iv.loss for iv in ivs]),
        "work": (res.solves, res.matvecs, res.factorizations),
    }


def test_parts_arrive_one_per_configuration_and_end_with_the_whole_table():
    parts = list(speed_stream(GRID, sweep_row))
    assert [p.done for p in parts] == [1, 2, 3]
    assert [p.complete for p in parts] == [False, False, True]
    assert [p.fraction for p in parts] == [1 / 3, 2 / 3, 1.0]
    at_once = [sweep_row(i, c) for i, c in enumerate(GRID)]
    for part in parts:  # each part's rows: the finished table's first ones
        for got, want in zip(part.rows, at_once, strict=False):
            assert (got["i"], got["work"]) == (want["i"], want["work"])
            assert got["edges"].tobytes() == want["edges"].tobytes()
            assert got["loss"].tobytes() == want["loss"].tobytes()
    assert len(parts[-1].rows) == len(at_once)
    assert parts[0].status() == "1 of 3 configurations so far"
    assert parts[-1].status() == "all 3 configurations"
    assert parts[-1].missing() == ""


def test_a_stopped_stream_keeps_its_rows_and_names_what_is_missing():
    stream = speed_stream(GRID, lambda i, c: {"i": i})
    kept = next(stream)  # a stop after the first configuration: the consumer goes away
    stream.close()
    assert kept.rows == ({"i": 0},) and not kept.complete
    assert kept.missing() == (
        "1 of 3 configurations timed; not timed yet: n = 40, complete graph, inverse "
        "solver; n = 60, knn graph, cg solver."
    )


def test_a_configuration_without_a_row_is_skipped_not_counted_as_timed():
    parts = list(speed_stream(GRID, lambda i, c: None if c[2] == "inverse" else i))
    assert parts[-1].rows == (0, 2) and parts[-1].skipped == (GRID[1],)
    assert parts[-1].complete
    assert parts[1].missing() == (
        "1 of 3 configurations timed; not timed yet: " + config_words(GRID[2]) + "."
    )


def test_an_empty_grid_is_one_complete_part():
    assert list(speed_stream([], lambda i, c: i)) == [SpeedPart(())]
