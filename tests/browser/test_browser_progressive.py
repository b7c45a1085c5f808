"""Results that arrive as they are computed, in real Chromium.

The Online regret page draws its chart as the experiment's rounds arrive: the chart grows
(more rounds on every redraw, its title saying how many of how many) while they run, and
its final chart is the chart of the experiment computed all at once (here, by
:func:`sslviz.problem.run_regret` in the test's process), trace by trace. The learning
page does the same with its training instances (against :func:`sslviz.learn.learn`). A change made
while a stream runs shows its own result without waiting for the old stream to end.
"""

from __future__ import annotations

import time

from browser_helpers import (
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    TIMEOUT_MS,
    TRACES,
    assert_same_traces,
    growth_script,
    no_exception,
    set_number,
    sync_playwright,
)

from sslviz import plots
from sslviz.problem import run_regret
from sslviz.specs import ProblemSpec, RegretSettings, SweepSettings

GROWTH = growth_script(0)
DATA = TRACES

ROUNDS, SIGMA = 20, (0.7, 3.1)
WAIT_MS = 3 * TIMEOUT_MS  # a fresh server on a busy machine: its first rounds are slow


def url_of(server: str, seed: int, rounds: int = ROUNDS) -> str:
    return (
        f"{server}/Online_regret?rounds={rounds}&repeats=2&seed={seed}"
        f"&sigma_min={SIGMA[0]}&sigma_max={SIGMA[1]}"
    )


def finished(page, rounds: int) -> None:
    """Wait for the page's run to end with the chart of all ``rounds`` rounds."""
    page.wait_for_function(
        "(r) => { const g = document.querySelector('.js-plotly-plot');"
        " return g && g._fullData && g._fullData.length && g._fullData[0].x.length === r"
        " && !/so far/.test(g.layout.title.text)"
        " && document.querySelector('[data-testid=stApp]')"
        ".getAttribute('data-test-script-state') === 'notRunning'; }",
        arg=rounds,
        timeout=WAIT_MS,
    )


def test_the_regret_chart_grows_and_ends_as_the_all_at_once_chart(server):
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.add_init_script(GROWTH)
            page.goto(url_of(server, 31), timeout=WAIT_MS)
            page.wait_for_function(
                "document.querySelector('.js-plotly-plot') && "
                "/so far/.test(document.querySelector('.js-plotly-plot').layout.title.text)",
                timeout=WAIT_MS,
            )
            page.screenshot(path=str(ARTIFACTS / "regret_partial.png"))
            finished(page, ROUNDS)
            page.screenshot(path=str(ARTIFACTS / "regret_finished.png"))
            no_exception(page)
            growth = page.evaluate("window.sslvizGrowth")
            shown = page.evaluate(DATA)
        finally:
            browser.close()
    partial = [(n, title) for n, title, _ in growth if "so far" in title]
    counts = [n for n, _ in partial]
    assert len(counts) >= 2, growth  # drawn at least twice before the end
    assert counts == sorted(counts) and counts[-1] < ROUNDS, growth  # it grew
    assert all(f"of {ROUNDS} so far" in title for _, title in partial)
    assert growth[-1][0] == ROUNDS and "so far" not in growth[-1][1]
    # the final chart: the experiment computed at once, in this process
    exp = run_regret(
        ProblemSpec(seed=31), SIGMA, SweepSettings(), RegretSettings(rounds=ROUNDS, repeats=2)
    )
    assert_same_traces(shown, plots.regret_figure(exp))


def test_a_change_during_a_stream_shows_its_own_result_at_once(server):
    """A long stream (60 rounds, started by its button) runs; the rounds are changed to 3
    (an experiment that runs by itself): the 3-round chart is drawn sooner than the long
    stream could have played its remaining rounds (at the rate it was playing them)."""
    count = "document.querySelector('.js-plotly-plot')._fullData[0].x.length"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(url_of(server, 37, rounds=60), timeout=WAIT_MS)
            page.get_by_role("button", name="Run the experiment").click(timeout=WAIT_MS)
            page.wait_for_function(
                "document.querySelector('.js-plotly-plot') && "
                "/of 60 so far/.test(document.querySelector('.js-plotly-plot').layout.title.text)",
                timeout=WAIT_MS,
            )
            n1, t1 = page.evaluate(count), time.perf_counter()
            page.wait_for_timeout(2000)
            n2, t0 = page.evaluate(count), time.perf_counter()
            set_number(page, "rounds T", 3)
            finished(page, 3)
            took = time.perf_counter() - t0
            no_exception(page)
        finally:
            browser.close()
    assert n1 <= n2 < 60
    rate = max(n2 - n1, 1) / (t0 - t1)  # rounds a second, at most
    assert took < (60 - n2) / rate, (took, n1, n2, rate)


def test_the_learning_chart_grows_and_ends_as_the_all_at_once_chart(server):
    from sslviz.learn import compared, drawn_instances, learn
    from sslviz.specs import LearnSettings

    settings = LearnSettings(instances=16, test_instances=4)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.add_init_script(GROWTH)
            sent: list[bytes] = []  # the server's messages, in order
            page.on(
                "websocket",
                lambda ws: ws.on(
                    "framereceived",
                    lambda f: sent.append(f if isinstance(f, bytes) else f.encode()),
                ),
            )
            page.goto(
                f"{server}/Learn?instances=16&test_instances=4&seed=43"
                f"&sigma_min={SIGMA[0]}&sigma_max={SIGMA[1]}",
                timeout=WAIT_MS,
            )
            page.wait_for_function(
                "() => { const g = document.querySelector('.js-plotly-plot');"
                " return g && g.layout && !/so far/.test(g.layout.title.text)"
                " && document.querySelector('[data-testid=stApp]')"
                ".getAttribute('data-test-script-state') === 'notRunning'; }",
                timeout=WAIT_MS,
            )
            no_exception(page)
            growth = page.evaluate("window.sslvizGrowth")
            shown = page.evaluate(DATA)
        finally:
            browser.close()
    # sent before the end, as its instances arrived: a partial chart's message before the
    # finished chart's (the browser may draw both in one frame when the last parts are quick)
    charts = [f for f in sent if b'"layout"' in f]  # a Plotly figure's JSON in a message
    partial = [i for i, f in enumerate(charts) if b"of 16 so far" in f]
    assert partial and b"so far" not in charts[-1], [len(f) for f in charts]
    drawn = [title for _, title, _ in growth if "so far" in title]
    assert all("of 16 so far" in title for title in drawn), growth
    spec = ProblemSpec(seed=43)
    train, test, pools = drawn_instances(spec, 16, 4, settings.curve, settings.repeats)
    result = learn(
        train,
        test,
        SIGMA,
        approx=compared(settings),
        curve_sizes=settings.curve,
        curve_pools=pools,
        n_jobs=1,
    )
    assert_same_traces(shown, plots.learn_figure(result))
