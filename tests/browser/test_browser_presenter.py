"""Presenter mode on a projector, in a real browser (issue 26 §3): every tour opened with
``?tour=<id>&present=1`` at 1920×1080 and 1280×720 shows its first chart wholly on the first
screen and filling most of its height, metric values of at least 48 px, no Deploy button or
app menu, no exception.

Screenshots go to test-artifacts/presenter/ (benchmarks/results/presenter/ holds a set
that was looked at).
"""

from __future__ import annotations

import json

from browser_helpers import (
    ARTIFACTS,
    CHART,
    CHROMIUM,
    CHROMIUM_ARGS,
    TIMEOUT_MS,
    no_exception,
    sync_playwright,
    wait_idle,
)

from sslviz import tours

SCREENS = ((1920, 1080), (1280, 720))
MIN_METRIC_PX = 48
FILLED = 0.8  # the least part of the screen's height the first chart takes
FIRST_CHART_MS = 3 * TIMEOUT_MS  # a tour's first view computes it (cold caches, busy CI)


def first_screen(page, url: str) -> dict:
    """Open ``url`` and measure what a projector shows: the first chart's box, the size of
    the metric values, whether the Deploy button and the app menu are visible."""
    page.goto(url)
    page.wait_for_selector(CHART, timeout=FIRST_CHART_MS)
    wait_idle(page)
    no_exception(page)
    box = page.locator(CHART).first.bounding_box()
    metric = page.evaluate(
        """() => [...document.querySelectorAll('[data-testid="stMetricValue"]')]
                 .map(m => parseFloat(getComputedStyle(m).fontSize))"""
    )
    visible = {
        name: any(e.is_visible() for e in page.locator(sel).all())
        for name, sel in (
            ("deploy", '[data-testid="stAppDeployButton"]'),
            ("menu", '[data-testid="stMainMenu"]'),
        )
    }
    return {
        "top": box["y"],
        "bottom": box["y"] + box["height"],
        "left": box["x"],
        "right": box["x"] + box["width"],
        "metrics_px": metric,
        **visible,
    }


def test_every_tour_chart_is_on_a_projectors_first_screen(server):  # noqa: F811
    out = ARTIFACTS / "presenter"
    out.mkdir(parents=True, exist_ok=True)
    seen = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            for width, height in SCREENS:
                for tour in tours.TOURS:
                    page = browser.new_page(viewport={"width": width, "height": height})
                    m = first_screen(page, f"{server}/?tour={tour.id}&present=1")
                    page.screenshot(path=out / f"{tour.id}_{width}x{height}.png")
                    page.close()
                    seen[f"{tour.id} {width}x{height}"] = m
                    where = (tour.id, width, height, m)
                    assert 0 <= m["top"] and m["bottom"] <= height, where
                    # and it fills that screen: no blank lower part on a large projector
                    assert m["bottom"] - m["top"] >= FILLED * height, where
                    assert 0 <= m["left"] and m["right"] <= width, where
                    assert all(px >= MIN_METRIC_PX for px in m["metrics_px"]), where
                    assert not m["deploy"] and not m["menu"], where
        finally:
            browser.close()
            (out / "boxes.json").write_text(json.dumps(seen, indent=1))
    assert len(seen) == len(SCREENS) * len(tours.TOURS)
