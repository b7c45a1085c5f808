"""The Loss page while a large graph's exact curve is searched (issue 50): its parts are kept
as they arrive (ui.cache.TRUTH_PARTS), the finished chart's exact loss is the curve computed
at once, and after a Stop the page draws the part that had arrived and says what is missing;
Run computes the rest."""

from __future__ import annotations

import numpy as np
from apptest_helpers import chart, start, values

from sslviz._memo import Memo
from sslviz.problem import build_problem, loss_curve
from sslviz.specs import ProblemSpec
from ui import cache, progress

# 350 unlabeled nodes on a complete graph: the Chebyshev search, in cells (σ ratio 2 each)
QUERY = {"n": "360", "labeled": "10", "family": "complete", "seed": "5"}
SPEC = ProblemSpec(n=360, n_labeled=10, family="complete", seed=5)


def test_the_parts_are_kept_and_a_stop_draws_the_last_one(monkeypatch):
    made: list[tuple[str, str]] = []  # each progress block's text and stop key
    init = progress.progress.__init__

    def recorded(self, text, *args, **kwargs):
        init(self, text, *args, **kwargs)
        made.append((text, self.key))

    monkeypatch.setattr(progress.progress, "__init__", recorded)
    at = start("pages/Loss_intervals.py", QUERY)
    assert not at.exception and not at.error
    lo, hi = cache.suggested_range(SPEC)
    assert cache.truth_done(SPEC, lo, hi)
    kept = cache.TRUTH_PARTS.get((SPEC, lo, hi))
    assert kept is not None and lo < kept.reached < hi
    whole = loss_curve(build_problem(SPEC), lo, hi)  # the curve computed at once, here
    shown = chart(at)["data"][0]
    assert shown["name"] == "true loss l(σ)"
    assert np.array_equal(values(shown), whole.loss.edges)
    k = int(np.searchsorted(whole.loss.edges, kept.reached))
    assert np.array_equal(kept.curve.loss.edges[:k], whole.loss.edges[:k])

    # stopped while the curve was searched: the part that had arrived, and what is missing
    key = next(k for text, k in made if text == "Computing…")
    monkeypatch.setattr(cache, "TRUTHS_DONE", Memo(64))  # as before the curve had finished
    at.session_state[progress.STOPPED] = {key}
    at.run()
    assert not at.exception
    assert kept.status() in chart(at)["layout"]["title"]["text"]
    assert any(c.value == kept.missing() for c in at.caption)
    assert any("Stopped: what had arrived is shown" in i.value for i in at.info)
    [run] = [b for b in at.button if b.label == "Run"]
    run.click().run()
    assert not at.exception and not at.error
    assert np.array_equal(values(chart(at)["data"][0]), whole.loss.edges)
