"""The exact curve as far as it is known while a large graph's search runs
(``on_part`` of :func:`sslviz.truth.true_loss_curve` and ``multiclass_loss_curve``, through
:func:`sslviz.problem.loss_curve`): parts in σ order whose pieces are the whole curve's,
and a result the same bits as without them."""

from __future__ import annotations

import numpy as np
import pytest
from reference import assert_same_curve

from sslviz.problem import build_problem, loss_curve
from sslviz.specs import ProblemSpec

SPECS = {
    "two classes": (ProblemSpec(n=300, n_labeled=10, family="complete"), 0.8, 8.0),
    "ten classes": (
        ProblemSpec(classes=tuple(range(10)), n=260, n_labeled=30, family="complete"),
        1.0,
        6.0,
    ),
}


@pytest.fixture(scope="module", params=sorted(SPECS))
def searched(request):
    spec, lo, hi = SPECS[request.param]
    problem = build_problem(spec)
    parts = []
    whole = loss_curve(problem, lo, hi, on_part=parts.append)
    return problem, lo, hi, parts, whole


def test_a_part_says_how_far_it_is_and_what_is_missing(searched):
    problem, lo, hi, parts, whole = searched
    first = parts[0]
    assert first.sigma_max == hi and not first.complete and 0 < first.fraction < 1
    assert first.status() == f"σ up to {first.reached:.4g} of [{lo:g}, {hi:g}] so far"
    m = first.curve.breakpoints.size
    assert first.missing() == (
        f"{m} breakpoints found, σ from {lo:g} to {first.reached:.4g}; "
        f"σ from {first.reached:.4g} to {hi:g} is missing."
    )


def test_the_result_is_the_same_bits_with_parts_or_without(searched):
    problem, lo, hi, parts, whole = searched
    assert_same_curve(whole, loss_curve(problem, lo, hi))


def test_parts_arrive_in_sigma_order_with_the_whole_curves_pieces(searched):
    problem, lo, hi, parts, whole = searched
    assert len(parts) >= 2  # a range of several cells (σ ratio 2 each)
    ends = [p.reached for p in parts]
    assert ends == sorted(ends) and len(set(ends)) == len(ends) and ends[-1] < hi
    for part, end in zip((p.curve for p in parts), ends, strict=True):
        assert not part.complete and part.loss.edges[0] == lo
        assert part.classes == whole.classes
        # every piece that starts below the part's end is the whole curve's, nodes included
        k = int(np.searchsorted(whole.loss.edges, end, side="left"))
        assert np.array_equal(part.loss.edges[:k], whole.loss.edges[:k])
        assert np.array_equal(part.loss.values[:k], whole.loss.values[:k])
        assert part.breakpoints.size == k - 1
        assert all(
            np.array_equal(x, y) for x, y in zip(part.nodes, whole.nodes[: k - 1], strict=True)
        )
        assert np.all(part.evaluations <= end) and part.inconsistent == 0


def test_no_parts_where_the_search_has_none():
    problem = build_problem(ProblemSpec(n=100, family="complete"))  # the Hermite search
    parts = []
    loss_curve(problem, 1.0, 4.0, on_part=parts.append)
    assert parts == []
