"""Real-browser test of the t-scrubber: ``streamlit run app.py`` driven by
Playwright's headless Chromium on the CG-iterations tour. Play, pause, the slider's end and
t = 1 move the chart through t, and none of it sends the server a message (nothing reruns,
nothing is recomputed); screenshots go to test-artifacts/cg_iterations_*.png."""

from __future__ import annotations

import re

from browser_helpers import (
    ARTIFACTS,
    CHART,
    CHROMIUM,
    CHROMIUM_ARGS,
    EXCEPTION,
    IDLE,
    sync_playwright,
)

from sslviz import tours

TIMEOUT_MS = 120_000
TOUR = tours.get("cg-converges")


def _t(page) -> int:
    text = page.evaluate(
        "() => document.querySelectorAll('.js-plotly-plot')[0].layout.annotations[0].text"
    )
    own = r"breakpoints its own soft labels miss: CG \d+, Jacobi-PCG \d+ of \d+"
    m = re.match(r"<b>t = (\d+)</b> · " + own, text)
    assert m, text
    return int(m[1])


def _wait_t(page, condition: str) -> None:
    page.wait_for_function(
        "() => { const g = document.querySelectorAll('.js-plotly-plot')[0];"
        " const a = g && g.layout && g.layout.annotations; if (!a || !a.length) return false;"
        " const m = a[0].text.match(/t = (\\d+)/); if (!m) return false;"
        " const t = +m[1]; return " + condition + "; }",
        timeout=TIMEOUT_MS,
    )


def test_the_scrubber_moves_through_t_without_the_server(server):
    T, t0 = int(TOUR.settings["t_max"]), int(TOUR.settings["t"])
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            sent: list[int] = []
            page.on("websocket", lambda ws: ws.on("framesent", lambda _: sent.append(1)))
            page.goto(f"{server}/CG_iterations?tour={TOUR.id}")
            _wait_t(page, f"t === {t0}")
            page.wait_for_selector(IDLE, timeout=TIMEOUT_MS)
            page.wait_for_timeout(1500)
            assert page.locator(EXCEPTION).count() == 0
            page.locator(CHART).first.scroll_into_view_if_needed()
            page.screenshot(path=ARTIFACTS / "cg_iterations_start.png")
            before = len(sent)

            page.locator(".updatemenu-item-text", has_text="play").first.click()
            _wait_t(page, f"t > {t0 + 3}")
            page.locator(".updatemenu-item-text", has_text="pause").first.click()
            page.wait_for_timeout(400)
            paused = _t(page)
            page.wait_for_timeout(600)
            assert t0 + 3 < paused <= T and _t(page) == paused  # paused means paused

            rail = page.locator(".slider-rail-rect").first.bounding_box()
            page.mouse.click(rail["x"] + rail["width"] - 2, rail["y"] + rail["height"] / 2)
            _wait_t(page, f"t === {T}")
            page.screenshot(path=ARTIFACTS / "cg_iterations_end.png")
            page.locator(".updatemenu-item-text", has_text="t = 1").first.click()
            _wait_t(page, "t === 1")
            page.wait_for_timeout(500)
            assert len(sent) == before, "scrubbing sent the server a message"
            assert page.locator(EXCEPTION).count() == 0
        finally:
            browser.close()
