"""ui.cache's paper-mode stream (issue 50): what a stopped stream kept is where the next
stream goes on from, and the finished sweep is what :func:`ui.cache.intervals` returns
(bit for bit the sweep computed at once), without computing it again."""

from __future__ import annotations

from dataclasses import astuple, replace

from sslviz import algorithm4
from sslviz.problem import build_problem, problem_sweep
from sslviz.specs import ProblemSpec, SweepSettings
from ui import cache

SPEC = ProblemSpec(n=60, n_labeled=6, family="knn", k=5, seed=2)
LO, HI = 0.8, 3.0
PAPER = SweepSettings(mode="paper")


def untimed(sweep) -> list[tuple]:
    return [astuple(replace(iv, seconds=0.0)) for iv in sweep.intervals]


def test_a_stopped_stream_goes_on_and_its_sweep_is_the_intervals():
    key = cache.paper_key(SPEC, LO, HI, PAPER)
    cache.PAPER_RUNS.clear()
    cache.PAPER_PARTS.clear()
    stream = cache.paper_stream(SPEC, LO, HI, PAPER)
    next(stream)
    second = next(stream)
    stream.close()  # stopped after two intervals: the second part is kept
    assert cache.PAPER_PARTS.get(key) is second and not cache.paper_done(SPEC, LO, HI, PAPER)
    parts = list(cache.paper_stream(SPEC, LO, HI, PAPER))
    assert untimed(parts[0].sweep)[:2] == untimed(second.sweep)  # went on from it
    assert len(parts[0].sweep.intervals) == 3
    assert parts[-1].complete and cache.paper_done(SPEC, LO, HI, PAPER)
    one = problem_sweep(build_problem(SPEC), LO, HI, PAPER)
    assert untimed(parts[-1].sweep) == untimed(one)
    shown = cache.intervals(SPEC, LO, HI, PAPER)
    assert untimed(shown) == untimed(one) and shown.seconds == parts[-1].sweep.seconds
    assert (shown.solves, shown.matvecs) == (one.solves, one.matvecs)


def test_a_sweep_computed_at_once_is_not_streamed_again():
    """Paper mode computed by intervals() (as a comparison, say): the loss page in paper
    mode finds it done and draws it without a stream."""
    cache.PAPER_RUNS.clear()
    cache.PAPER_PARTS.clear()
    settings = PAPER.replace(step=0.1)  # a sweep no other test computed
    assert not cache.paper_done(SPEC, LO, HI, settings)
    res = cache.intervals(SPEC, LO, HI, settings)
    assert cache.paper_done(SPEC, LO, HI, settings)
    parts = list(cache.paper_stream(SPEC, LO, HI, settings))
    assert untimed(parts[-1].sweep) == untimed(res)


def test_the_finished_part_is_kept_and_a_stream_from_it_computes_nothing(monkeypatch):
    """The complete part stays in PAPER_PARTS (a stop of the page's later steps shows it);
    a stream that goes on from it (its sweep evicted from PAPER_RUNS) yields it again, the
    same intervals, with no solve of its own."""
    key = cache.paper_key(SPEC, LO, HI, PAPER)
    cache.PAPER_RUNS.clear()
    cache.PAPER_PARTS.clear()
    last = list(cache.paper_stream(SPEC, LO, HI, PAPER))[-1]
    assert last.complete and cache.PAPER_PARTS.get(key) is last
    cache.PAPER_RUNS.clear()

    def no_solve(*args, **kwargs):
        raise AssertionError("an interval computed again")

    monkeypatch.setattr(algorithm4, "_feedback_set", no_solve)
    [again] = list(cache.paper_stream(SPEC, LO, HI, PAPER))
    assert again.complete and untimed(again.sweep) == untimed(last.sweep)
    assert (again.sweep.solves, again.sweep.matvecs) == (last.sweep.solves, last.sweep.matvecs)
