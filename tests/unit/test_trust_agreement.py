"""One definition of "CG-t can be trusted" (sslviz.conditioning.TRUST_RULE): the loss
page's verdict, the trust panel's sentence and its shaded bands name the same σ bands of
the grid (the conditioning page's, on the same grid), and every breakpoint the solver
misses outside them is stated as lying between the grid's σ."""

from __future__ import annotations

import numpy as np
import pytest

from sslviz import plots
from sslviz.conditioning import trust_curve
from sslviz.intervals import score, sweep, verdict
from sslviz.problem import build_problem, loss_curve
from sslviz.specs import ConditionSettings, ProblemSpec, SweepSettings, default

INSTANCES = [  # (problem, CG iterations): complete and kNN graphs, several draws
    (ProblemSpec(classes=(3, 8), n=100, n_labeled=10, family="complete", seed=0), 20),
    (ProblemSpec(classes=(3, 8), n=100, n_labeled=10, family="complete", seed=1), 20),
    (ProblemSpec(classes=(3, 8), n=100, n_labeled=10, family="knn", k=6, seed=0), 10),
    (ProblemSpec(classes=(1, 7), n=80, n_labeled=8, family="complete", seed=2), 10),
    (ProblemSpec(classes=(4, 9), n=90, n_labeled=9, family="knn", k=6, seed=3), 10),
    (ProblemSpec(classes=(3, 8), n=60, n_labeled=6, family="complete", seed=4), 20),
]
LO, HI = 0.6, 3.4


def _view(spec: ProblemSpec, t: int):
    problem = build_problem(spec)
    settings = SweepSettings(solver="cg", cg_iters=t)
    res = sweep(problem.model, problem.y_unlabeled, LO, HI, settings)
    truth = loss_curve(problem, LO, HI)
    sc = score(res, truth, model=problem.model)
    grid = np.linspace(LO, HI, default(ConditionSettings, "points"))
    trust = trust_curve(problem.model, grid, solver="cg", cg_iters=t)
    return truth, res, sc, trust, settings


@pytest.mark.slow
def test_verdict_caption_and_band_name_the_same_sigma():
    with_solver_misses = outside = 0  # instances with solver misses; with some off the grid
    for spec, t in INSTANCES:
        truth, res, sc, trust, settings = _view(spec, t)
        missed, _ = trust.missed_by(sc)
        bands = trust.bands()
        where = trust.where_untrusted()
        text = verdict(sc, settings, trust)
        reading = trust.reading()
        beyond = [x for x in missed if not any(lo <= x <= hi for lo, hi in bands)]
        if missed:
            with_solver_misses += 1
        if beyond:  # a miss the grid does not see is said to fall between its σ
            outside += 1
            assert f"where the trust panel ({trust.grid_words()})" in text, text
        else:
            assert "between its grid σ" not in text, text
        if where is None:
            assert "whole range" in reading
        elif where.startswith("σ < "):
            assert trust.trusted_from() == bands[-1][1]
            assert f"from σ ≈ {bands[-1][1]:.3g} on" in reading
            assert where == f"σ < {bands[-1][1]:.3g}"
        assert trust.stated() == f"{reading[:-1]} ({trust.grid_words()})."
        # the chart shades exactly these bands, in both panel rows
        fig = plots.loss_intervals_figure(truth, res, score=sc, trust=trust)
        shaded = sorted(
            {
                (sh.x0, sh.x1)
                for sh in fig.layout.shapes
                if sh.fillcolor == plots.trust.TRUST["band"]
            }
        )
        assert shaded == bands
        # no grid σ outside the bands breaks the rule
        for i, x in enumerate(trust.sigma):
            if not any(lo <= x <= hi for lo, hi in bands):
                assert trust.error[i] < trust.margin[i] and trust.wrong[i] == 0
                assert trust.t_needed_cg[i] <= t
    assert with_solver_misses >= 3 and outside >= 1
