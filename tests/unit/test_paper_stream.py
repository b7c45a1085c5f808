"""Paper mode as a stream (sslviz.algorithm4.paper_stream, issue 50): its parts arrive in
σ order, each the prefix of the whole sweep, and its last part is the sweep computed at
once, bit for bit, with the same JSON document; a stopped stream resumed from a part ends
the same."""

from __future__ import annotations

from dataclasses import astuple, replace

import pytest

from sslviz import export
from sslviz.algorithm4 import paper_stream
from sslviz.problem import build_problem, problem_sweep
from sslviz.specs import ProblemSpec, SweepSettings

PAPER = SweepSettings(mode="paper")
RANGE = (0.8, 3.0)
TWO = ProblemSpec(n=60, n_labeled=6, family="knn", k=5, seed=2)
THREE = ProblemSpec(n=60, n_labeled=9, family="knn", k=5, seed=4, classes=(0, 1, 2))


def untimed(iv) -> tuple:
    """An interval's fields but its measured seconds."""
    return astuple(replace(iv, seconds=0.0))


def stream(problem, **kwargs):
    inst = problem.instance
    if inst.n_classes > 2:
        return paper_stream(problem.model, inst.y, *RANGE, PAPER, classes=inst.classes, **kwargs)
    return paper_stream(problem.model, problem.y_unlabeled, *RANGE, PAPER, **kwargs)


def document(problem, sweep) -> str:
    return export.download_text(export.intervals_document(problem, sweep, PAPER))


def assert_same_sweep(a, b) -> None:
    assert [untimed(iv) for iv in a.intervals] == [untimed(iv) for iv in b.intervals]
    for name in ("sigma_min", "sigma_max", "solves", "matvecs", "factorizations", "complete"):
        assert getattr(a, name) == getattr(b, name), name


@pytest.mark.parametrize("spec", [TWO, THREE], ids=["two classes", "three classes"])
def test_stream_ends_with_the_all_at_once_sweep(spec):
    problem = build_problem(spec)
    one = problem_sweep(problem, *RANGE, PAPER)
    parts = list(stream(problem))
    assert len(parts) == len(one.intervals)  # one part per interval found
    assert [p.complete for p in parts] == [False] * (len(parts) - 1) + [True]
    assert_same_sweep(parts[-1].sweep, one)
    assert document(problem, parts[-1].sweep) == document(problem, one)
    assert parts[-1].fraction == 1.0 and parts[-1].missing() == ""
    assert parts[-1].status() == "σ over all of [0.8, 3]"


def test_parts_arrive_in_sigma_order_as_prefixes():
    problem = build_problem(TWO)
    parts = list(stream(problem))
    assert len(parts) >= 3  # the instance has several intervals
    final = [untimed(iv) for iv in parts[-1].sweep.intervals]
    reached = [p.reached for p in parts]
    assert reached == sorted(reached) and len(set(reached)) == len(reached)
    fractions = [p.fraction for p in parts]
    assert fractions == sorted(fractions) and 0.0 < fractions[0] < 1.0
    for k, p in enumerate(parts[:-1], start=1):
        assert [untimed(iv) for iv in p.sweep.intervals] == final[:k]
        assert not p.sweep.complete
        assert p.reached == p.sweep.intervals[-1].hi
        assert p.next_sigma0 == p.reached + PAPER.step
        assert p.sweep.solves == sum(iv.solves for iv in p.sweep.intervals)


def test_a_partial_says_how_far_and_what_is_missing():
    problem = build_problem(TWO)
    first = next(iter(stream(problem)))
    r = f"{first.reached:.4g}"
    assert first.status() == f"σ up to {r} of [0.8, 3] so far"
    assert first.missing() == f"1 interval found, σ from 0.8 to {r}; σ from {r} to 3 is missing."


def test_a_stream_resumed_from_a_part_ends_the_same():
    problem = build_problem(TWO)
    parts = list(stream(problem))
    middle = parts[len(parts) // 2 - 1]
    rest = list(stream(problem, resume=middle))
    assert len(rest) == len(parts) - len(parts) // 2
    assert_same_sweep(rest[-1].sweep, parts[-1].sweep)
    assert rest[-1].sweep.seconds >= middle.sweep.seconds  # the time adds up


def test_stream_refuses_fast_mode():
    problem = build_problem(TWO)
    with pytest.raises(ValueError, match="paper mode"):
        next(paper_stream(problem.model, problem.y_unlabeled, *RANGE, SweepSettings()))
