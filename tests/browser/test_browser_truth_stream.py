"""A large graph's exact curve as its pieces are found, on the Loss page, in real Chromium
(issue 50).

The loss chart grows left to right while the exact curve of a large graph is searched (its
title saying "σ up to … of [lo, hi] so far"), and the finished chart's exact loss is the
curve computed at once (here, by :func:`sslviz.problem.loss_curve` in the test's process).
Screenshots of a partial and a finished state go to ``test-artifacts/`` (those looked at,
of these tests' runs, are ``benchmarks/results/exact_curve_{partial,finished}_1400x900.png``).
"""

from __future__ import annotations

import pytest
from browser_helpers import (
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    FINISHED,
    PARTIAL,
    SO_FAR,
    TIMEOUT_MS,
    TRACES,
    assert_same_traces,
    growth_script,
    no_exception,
    sync_playwright,
)

from sslviz import plots
from sslviz.problem import build_problem, loss_curve
from sslviz.specs import ProblemSpec

# Fashion-MNIST T-shirt against Trouser, 3,000 points (the app's cap) on a kNN-6 graph: the
# Chebyshev search (docs/method.md §5.3), its first two cells found 0.55 s apart here
SPEC = ProblemSpec(dataset="fashion-mnist", classes=(0, 1), n=3000, family="knn", k=6)
SIGMA = (1.3, 6.4)
URL = (
    "/Loss_intervals?dataset=fashion-mnist&classes=0,1&n=3000&family=knn&k=6"
    f"&sigma_min={SIGMA[0]}&sigma_max={SIGMA[1]}"
)
pytestmark = pytest.mark.data  # Debian's Fashion-MNIST
WAIT_MS = 8 * TIMEOUT_MS  # the instance is built, then searched, on a busy machine


def test_the_exact_curve_grows_and_ends_as_the_all_at_once_curve(server):
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.add_init_script(growth_script(0))
            page.goto(server + URL, timeout=WAIT_MS)
            page.wait_for_function(PARTIAL, timeout=WAIT_MS)
            page.screenshot(path=str(ARTIFACTS / "exact_curve_partial.png"))
            page.wait_for_function(FINISHED, arg="and where", timeout=WAIT_MS)
            page.screenshot(path=str(ARTIFACTS / "exact_curve_finished.png"))
            no_exception(page)
            growth = page.evaluate("window.sslvizGrowth")
            shown = page.evaluate(TRACES)
        finally:
            browser.close()
    partial = [(n, title) for n, title, _ in growth if "so far" in title]
    assert partial, growth
    covered = []
    for _, title in partial:
        m = SO_FAR.search(title)
        assert m and (float(m[2]), float(m[3])) == SIGMA, title
        covered.append(float(m[1]))
    assert covered == sorted(covered) and covered[-1] < SIGMA[1], growth  # left to right
    counts = [n for n, _ in partial]
    assert counts == sorted(counts), growth  # more of the true loss's vertices each time
    assert "so far" not in growth[-1][1]
    # the finished chart's exact loss: the curve computed at once, here
    problem = build_problem(SPEC)
    truth = loss_curve(problem, *SIGMA)
    rows = problem.rows(range(problem.model.n_unlabeled))
    ref = plots.loss_intervals_figure(truth, rows=rows)
    assert counts[-1] < len(ref.data[0].x)
    assert_same_traces(shown, ref, every=False)
