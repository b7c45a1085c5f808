"""Paper mode's intervals as they arrive on the Loss page, in real Chromium (issue 50).

The loss chart grows left to right while paper mode runs (its title saying "σ up to … of
[lo, hi] so far"), and its final intervals are those of the sweep computed at once (here,
by :func:`sslviz.problem.problem_sweep` in the test's process), trace by trace. A change
made while paper mode runs (the mode back to fast) shows its own result sooner than the
paper run could have finished, at the rate it was covering σ; a first visit at a paper-mode
URL draws its controls while the paper run goes on, so that change can be made then too.
Screenshots of a partial and a finished state go to ``test-artifacts/`` (those looked at,
of these tests' runs, are ``benchmarks/results/paper_mode_{partial,finished}_1400x900.png``).
"""

from __future__ import annotations

import re
import time

from browser_helpers import (
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    CONTROLS_DRAWN,
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
from sslviz.problem import build_problem, loss_curve, problem_sweep
from sslviz.specs import ProblemSpec, SweepSettings

SIGMA = (0.6, 3.3)
SEED_GROW, SEED_CHANGE = 2, 0  # seed 2: paper mode finds 42 intervals (26 s at load 14)
SEED_FIRST = 3  # a first visit in paper mode: a seed no other test of this server computes
WAIT_MS = 6 * TIMEOUT_MS  # paper mode on a busy machine
GROWTH = growth_script(1)
DATA = TRACES


def url_of(server: str, seed: int, mode: str = "paper") -> str:
    return (
        f"{server}/Loss_intervals?mode={mode}&seed={seed}&sigma_min={SIGMA[0]}&sigma_max={SIGMA[1]}"
    )


def reached(title: str) -> float:
    """The σ a partial chart's title says the intervals cover up to."""
    m = SO_FAR.search(title)
    assert m, title
    assert (float(m[2]), float(m[3])) == SIGMA, title
    return float(m[1])


def reference(seed: int, settings: SweepSettings):
    """The loss chart's exact loss and intervals of the view, computed at once here."""
    problem = build_problem(ProblemSpec(seed=seed))
    truth = loss_curve(problem, *SIGMA)
    sweep = problem_sweep(problem, *SIGMA, settings)
    rows = problem.rows(range(problem.model.n_unlabeled))
    return plots.loss_intervals_figure(truth, sweep, rows=rows)


def test_paper_mode_grows_and_ends_as_the_all_at_once_sweep(server):
    seed = SEED_GROW
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.add_init_script(GROWTH)
            page.goto(url_of(server, seed), timeout=WAIT_MS)
            page.wait_for_function(FINISHED, arg="and where", timeout=WAIT_MS)
            page.screenshot(path=str(ARTIFACTS / "paper_mode_finished.png"))
            no_exception(page)
            growth = page.evaluate("window.sslvizGrowth")
            shown = page.evaluate(DATA)
        finally:
            browser.close()
    partial = [(n, title) for n, title, _ in growth if "so far" in title]
    assert len(partial) >= 2, growth  # drawn at least twice before the end
    covered = [reached(title) for _, title in partial]
    assert covered == sorted(covered) and covered[-1] < SIGMA[1], growth  # left to right
    counts = [n for n, _ in partial]
    assert counts == sorted(counts) and counts[0] < counts[-1], growth  # more intervals
    assert "so far" not in growth[-1][1]
    # the final chart's exact loss and intervals: the sweep computed at once, here
    assert_same_traces(shown, reference(seed, SweepSettings(mode="paper")), every=False)


def test_a_change_during_paper_mode_shows_its_own_result_at_once(server):
    """The page in fast mode, then paper mode (its chart growing: the partial screenshot),
    then the mode back to fast: the fast mode's chart is drawn sooner than paper mode could
    have covered the rest of the range, at the rate it was covering it (the paper run is
    not waited for). The page is first drawn in fast mode (a first visit in paper mode is
    the next test's)."""
    title = "document.querySelector('.js-plotly-plot').layout.title.text"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(url_of(server, SEED_CHANGE, "fast"), timeout=WAIT_MS)
            page.wait_for_function(FINISHED, arg="and where", timeout=WAIT_MS)
            mode = page.locator('[data-testid="stRadio"]').filter(
                has=page.get_by_text("mode", exact=True)
            )
            mode.first.get_by_text("paper", exact=True).click(timeout=WAIT_MS)
            page.wait_for_function(PARTIAL, timeout=WAIT_MS)
            page.screenshot(path=str(ARTIFACTS / "paper_mode_partial.png"))
            page.wait_for_function(PARTIAL, timeout=WAIT_MS)
            s1, t1 = reached(page.evaluate(title)), time.perf_counter()
            page.wait_for_timeout(2000)  # the rate over 2 s at least (parts come in bursts)
            page.wait_for_function(  # the next interval: the rate it covers σ at
                f"(s) => {{ const m = {PARTIAL} && /σ up to ([0-9.e+-]+) of/.exec({title});"
                " return m && parseFloat(m[1]) > s; }",
                arg=s1,
                timeout=WAIT_MS,
            )
            s2, t0 = reached(page.evaluate(title)), time.perf_counter()
            mode.first.get_by_text("fast", exact=True).click(timeout=WAIT_MS)
            page.wait_for_function(FINISHED, arg="and where", timeout=WAIT_MS)
            took = time.perf_counter() - t0
            no_exception(page)
            shown = page.evaluate(DATA)
        finally:
            browser.close()
    assert SIGMA[0] <= s1 < s2 < SIGMA[1]
    rate = (s2 - s1) / (t0 - t1)  # σ covered a second (at most: from the first partial)
    print(f"paper mode: σ {s1:g} → {s2:g} in {t0 - t1:.1f} s; fast mode's chart {took:.1f} s")
    assert took < (SIGMA[1] - s2) / rate, (took, s1, s2, rate)
    fast = reference(SEED_CHANGE, SweepSettings())  # fast mode's own
    assert_same_traces(shown, fast, every=False)


WIDGETS_DRAWN = CONTROLS_DRAWN + " && document.querySelectorAll('[data-testid=stRadio]').length > 0"
"""The page's controls are drawn, its mode radio among them."""


def test_a_first_visit_in_paper_mode_draws_its_widgets_while_paper_mode_runs(server):
    """A new tab opened at a paper-mode URL (nothing of it computed) draws its controls
    while the paper run is still going, and a change made then (the mode back to fast)
    shows fast mode's own chart. Streamlit's "Running..." figure in the top bar, redrawn
    every 0.2 s while a script runs, kept React from finishing the render that replaces the
    controls' placeholders (``ui.hideTopBar`` in ``.streamlit/config.toml``): the controls
    stayed grey for seconds, in some runs until paper mode had ended."""
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            before = browser.new_page(viewport={"width": 1400, "height": 900})
            before.goto(url_of(server, SEED_CHANGE, "fast"), timeout=WAIT_MS)  # a running
            before.wait_for_function(FINISHED, arg="and where", timeout=WAIT_MS)  # server
            before.close()
            page = browser.new_page(viewport={"width": 1400, "height": 900})  # a new tab
            page.add_init_script(GROWTH)
            page.goto(url_of(server, SEED_FIRST), timeout=WAIT_MS)
            page.wait_for_function(WIDGETS_DRAWN, timeout=WAIT_MS, polling=100)
            finished_then = page.evaluate(f"({FINISHED})('and where')")
            page.screenshot(path=str(ARTIFACTS / "paper_mode_first_visit_widgets.png"))
            mode = page.locator('[data-testid="stRadio"]').filter(
                has=page.get_by_text("mode", exact=True)
            )
            mode.first.get_by_text("fast", exact=True).click(timeout=WAIT_MS)
            page.wait_for_function(FINISHED, arg="and where", timeout=WAIT_MS)
            no_exception(page)
            growth = page.evaluate("window.sslvizGrowth")
            shown = page.evaluate(DATA)
        finally:
            browser.close()
    assert not finished_then, growth  # the controls came before paper mode's last chart
    assert_same_traces(shown, reference(SEED_FIRST, SweepSettings()), every=False)


def test_stop_during_paper_mode_keeps_the_intervals_and_run_goes_on(server):
    """Stop while paper mode runs: the chart of the intervals that had arrived stays, with a
    line saying which σ are missing; Run goes on and ends with the finished chart."""
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(url_of(server, SEED_GROW, "fast") + "&t=19", timeout=WAIT_MS)
            page.wait_for_function(FINISHED, arg="and where", timeout=WAIT_MS)
            mode = page.locator('[data-testid="stRadio"]').filter(
                has=page.get_by_text("mode", exact=True)
            )
            mode.first.get_by_text("paper", exact=True).click(timeout=WAIT_MS)
            page.wait_for_function(PARTIAL, timeout=WAIT_MS)
            page.get_by_role("button", name="Stop").last.click(timeout=WAIT_MS)
            page.get_by_text("Stopped: what had arrived is shown").wait_for(timeout=WAIT_MS)
            missing = page.get_by_text(re.compile(r"σ from .* is missing\.")).inner_text()
            page.wait_for_function(PARTIAL, timeout=WAIT_MS)
            kept = reached(
                page.evaluate("document.querySelector('.js-plotly-plot').layout.title.text")
            )
            no_exception(page)
            page.get_by_role("button", name="Run").click(timeout=WAIT_MS)
            page.wait_for_function(FINISHED, arg="and where", timeout=WAIT_MS)
            no_exception(page)
        finally:
            browser.close()
    assert re.fullmatch(
        rf"\d+ intervals? found, σ from 0\.6 to {kept:.4g}; σ from {kept:.4g} to 3\.3 is missing\.",
        missing,
    ), (missing, kept)
