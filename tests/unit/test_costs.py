"""The cost model of sslviz.costs: estimates grow with what they should, memory of a complete
graph grows as n², and the over-cap message names settings that fit."""

import pytest

from sslviz import costs
from sslviz.specs import ConditionSettings, ProblemSpec, RegretSettings, SweepSettings

REF = (1.0, 5.0)
SPEC = ProblemSpec(dataset="fashion-mnist", n=400)
FAST, PAPER = SweepSettings(), SweepSettings(mode="paper")


def loss(spec=SPEC, lo=1.0, hi=5.0):
    return costs.loss_curve(spec, lo, hi, REF)


@pytest.mark.parametrize("family", ["complete", "knn"])
def test_estimates_grow_with_n(family):
    sizes = (100, 300, 1000, 3000)
    for f in (
        lambda s: loss(s),
        lambda s: costs.sweep(s, *REF, FAST, REF),
        lambda s: costs.trust(s, 15),
        lambda s: costs.condition(s, ConditionSettings()),
        lambda s: costs.recording(s, *REF, FAST, REF),
    ):
        secs = [f(SPEC.replace(n=n, family=family)).seconds for n in sizes]
        assert secs == sorted(secs) and secs[-1] > 3 * secs[0], secs


def test_complete_graphs_cost_more_and_grow_about_as_n_cubed():
    small, big = (loss(SPEC.replace(n=n)).seconds for n in (1000, 2000))
    # n³ per dense solve; the Chebyshev search's evaluations grow slowly with n (97–154
    # on [1, 7] for n = 500–2000, benchmarks/exact_complete.py).
    assert 6 < big / small < 12
    for n in (1000, 3000):
        assert loss(SPEC.replace(n=n)).seconds > loss(SPEC.replace(n=n, family="knn")).seconds


def test_the_chebyshev_search_costs_by_cells_of_the_sigma_range():
    spec = SPEC.replace(n=1000)
    one, three = (costs.truth_evaluations(spec, 1.0, r) for r in (2.0, 7.0))
    assert three - one == pytest.approx(2 * costs.CONSTANTS["cheb_per_cell"])
    # Below 200 unlabeled nodes the Hermite search runs (its own count).
    small = SPEC.replace(n=150)
    assert costs.truth_evaluations(small, 1.0, 7.0) == costs.truth_evaluations(small, 1.0)


def test_memory_of_a_complete_graph_grows_as_n_squared():
    mb = [costs.memory(SPEC.replace(n=n)).memory_mb for n in (1000, 2000, 4000)]
    assert 3.5 < (mb[1] - 30) / (mb[0] - 30) < 4.5 and 3.5 < (mb[2] - 30) / (mb[1] - 30) < 4.5
    assert mb[1] == pytest.approx(30 + costs.DENSE_COPIES * 8 * 2000**2 / 2**20)
    knn = costs.memory(SPEC.replace(n=4000, family="knn")).memory_mb
    assert knn < mb[2] / 5
    assert costs.memory(SPEC.replace(n=4000, family="knn"), "inverse").memory_mb > knn


def test_estimates_grow_with_the_sigma_range():
    widths = [loss(lo=1.0, hi=1.0 + w).seconds for w in (1, 4, 8, 16)]
    assert widths == sorted(widths) and widths[-1] > 2 * widths[0]
    assert (
        costs.sweep(SPEC, 1.0, 9.0, FAST, REF).seconds > costs.sweep(SPEC, 1, 5, FAST, REF).seconds
    )
    assert costs.width(1.0, 3.0, REF) == 0.5 and costs.width(1.0, 3.0, None) == 1.0


def test_regret_grows_with_rounds_repeats_and_models():
    def secs(**kw):
        return costs.regret(SPEC, *REF, FAST, RegretSettings(**kw), REF).seconds

    assert secs(rounds=40) == pytest.approx(2 * secs(rounds=20))
    assert secs(repeats=4) == pytest.approx(2 * secs(repeats=2))
    assert secs(feedback=("exact",)) < secs(feedback=("exact", "uniform")) < secs()
    assert secs(feedback=("exact",)) < secs(feedback=("approx",))  # Algorithm 4 per round


def test_paper_mode_and_the_solver_change_the_sweep():
    assert (
        costs.sweep(SPEC, *REF, PAPER, REF).seconds
        > 10 * costs.sweep(SPEC, *REF, FAST, REF).seconds
    )
    t20, t200 = (costs.sweep(SPEC, *REF, FAST.replace(cg_iters=t), REF).seconds for t in (20, 200))
    assert t200 > t20
    big = SPEC.replace(n=3000, family="knn")
    assert (
        costs.sweep(big, *REF, FAST.replace(solver="inverse"), REF).seconds
        > costs.sweep(big, *REF, FAST.replace(solver="exact"), REF).seconds
    )


def test_over_cap_names_the_estimate_and_settings_that_fit():
    spec = SPEC.replace(n=2500)

    def est(sp, lo, hi):
        return costs.loss_curve(sp, lo, hi, REF)

    need = est(spec, *REF).seconds
    cap = need / 4
    msg = costs.over_cap("the exact loss", est, spec, *REF, cap, 1e6)
    assert msg.startswith("Not computed: the exact loss would take about")
    assert f"(cap {costs.seconds_text(cap)})" in msg
    n = costs.largest_n(est, spec, *REF, cap, 1e6)
    assert f"n ≤ {n} on a complete graph" in msg
    assert est(costs._with_n(spec, n), *REF).fits(cap, 1e6)
    assert not est(costs._with_n(spec, n + 20), *REF).fits(cap, 1e6)
    # On a complete graph the Chebyshev search's cost is mostly per solve: a narrower σ
    # range does not bring it under a quarter; on kNN it does.
    assert "the kNN family" in msg
    knn = spec.replace(family="knn", n=3000)
    msg_knn = costs.over_cap("x", est, knn, *REF, est(knn, *REF).seconds / 1.5, 1e6)
    assert "σ range" in msg_knn
    assert costs.over_cap("x", est, spec, *REF, 2 * need, 1e6) is None
    mem = costs.over_cap("x", est, spec, *REF, 2 * need, 10.0)
    assert "MB of memory (cap 10 MB)" in mem


def test_whole_class_pools_have_their_own_measured_counts():
    """Past the fitted sizes (kNN, n_U > fast_max_nodes_sparse), Algorithm 4's solves are
    the ceiling measured on whole class pools, not the small graphs' power law, and the
    trust panel's CG iterations per σ grow with n_U up to the doubling search's cap."""
    c = costs.CONSTANTS
    big = SPEC.replace(n=12000, family="knn")
    assert costs.sweep_solves(big, FAST) == c["fast_solves_large_sparse"]
    assert costs.sweep_solves(big, FAST, 2.0) == 2 * c["fast_solves_large_sparse"]
    small = SPEC.replace(n=1000, family="knn")
    assert costs.sweep_solves(small, FAST) == pytest.approx(
        c["fast_per_node_sparse"] * (1000 - small.n_labeled) ** c["fast_power_sparse"]
    )
    # 40 σ at 12,000 points: measured 40 s (20 σ: 23 s, benchmarks/costs.py)
    assert 20 < costs.trust(big, 40).seconds < 80
    assert (
        costs.trust(SPEC.replace(n=15000, family="knn"), 40).seconds
        < 2 * costs.trust(big, 40).seconds
    )
