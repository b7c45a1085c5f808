"""Real-browser test of the Algorithm 4 player: ``streamlit run app.py`` driven by
Playwright's headless Chromium. Opens the player page in paper mode on a small instance, plays
the animation, pauses, jumps with the slider and resets, checking the step counter and the
caption each time; screenshots go to test-artifacts/player_*.png."""

from __future__ import annotations

import re

from browser_helpers import (
    ARTIFACTS,
    CHART,
    CHROMIUM,
    CHROMIUM_ARGS,
    EXCEPTION,
    sync_playwright,
)

TIMEOUT_MS = 120_000
URL = "/Algorithm_4?n=60&labeled=6&family=knn&mode=paper"


def _annotations(page) -> list[str]:
    return page.evaluate(
        "() => document.querySelectorAll('.js-plotly-plot')[0].layout.annotations.map(a => a.text)"
    )


def _counter(page) -> tuple[int, int]:
    m = re.match(r"<b>step (\d+) / (\d+)</b>", _annotations(page)[0])
    assert m, _annotations(page)
    return int(m[1]), int(m[2])


def _button(page, text: str):
    return page.locator(".updatemenu-item-text", has_text=text).first


def test_player_plays_pauses_steps_and_resets(server):
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(server + URL)
            page.wait_for_function(
                "() => { const g = document.querySelectorAll('.js-plotly-plot')[0];"
                " return g && g.layout && g.layout.title.text.includes('paper mode'); }",
                timeout=TIMEOUT_MS,
            )
            page.wait_for_timeout(500)
            assert page.locator(EXCEPTION).count() == 0
            page.locator(CHART).first.scroll_into_view_if_needed()
            step, n = _counter(page)
            first_caption = _annotations(page)[1]
            assert step == 1 and n > 20 and first_caption.startswith("interval 1: σ0 = ")
            page.screenshot(path=ARTIFACTS / "player_start.png")

            # play at 4×, then pause: the counter moved on, the caption changed
            _button(page, "4×").click()
            page.wait_for_function(
                "() => !document.querySelectorAll('.js-plotly-plot')[0].layout.annotations[0]"
                ".text.startsWith('<b>step 1 /')",
                timeout=TIMEOUT_MS,
            )
            page.wait_for_timeout(800)
            _button(page, "pause").click()
            page.wait_for_timeout(500)
            paused, _ = _counter(page)
            assert 1 < paused <= n
            assert _annotations(page)[1] != first_caption
            page.screenshot(path=ARTIFACTS / "player_paused.png")
            page.wait_for_timeout(800)
            assert _counter(page)[0] == paused  # paused means paused

            # the slider's right end is the last step: the counter is exact there
            rail = page.locator(".slider-rail-rect").first.bounding_box()
            page.mouse.click(rail["x"] + rail["width"] - 2, rail["y"] + rail["height"] / 2)
            page.wait_for_function(
                "(n) => document.querySelectorAll('.js-plotly-plot')[0].layout.annotations[0]"
                ".text.startsWith(`<b>step ${n} / ${n}</b>`)",
                arg=n,
                timeout=TIMEOUT_MS,
            )
            assert _annotations(page)[1].startswith("interval ")  # the last interval found
            page.screenshot(path=ARTIFACTS / "player_end.png")

            # reset: back to step 1
            _button(page, "reset").click()
            page.wait_for_function(
                "() => document.querySelectorAll('.js-plotly-plot')[0].layout.annotations[0]"
                ".text.startsWith('<b>step 1 /')",
                timeout=TIMEOUT_MS,
            )
            assert _annotations(page)[1] == first_caption
            assert page.locator(EXCEPTION).count() == 0
        finally:
            browser.close()
