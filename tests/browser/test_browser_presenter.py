"""What a tour's text points at is on the first screen, in a real browser.

Presenter mode (``<page>?tour=<id>&present=1``) at 1920×1080 and 1280×720, every tour: the
stage's chart, the "Look at" and the "Ask" paragraphs and every control the tour uses are
wholly inside the viewport (bounding boxes, no scrolling), the chart takes most of the
screen, metric values are at least 48 px, no Deploy button or app menu. Outside presenter
mode at 1400×900: every tour's first chart starts in the upper half of the screen, and the
Algorithm 4 player's and the CG-iterations scrubber's buttons and slider sit above the
bottom of their plot, within the first screen.

One server, one browser, one page per screen size. Screenshots go to
test-artifacts/presenter/ with the measured boxes (``boxes.json``);
``benchmarks/presenter_screens.py`` copies them to benchmarks/results/presenter/.
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
"""Presenter mode's projector screens."""
DESK = (1400, 900)
"""A desktop screen, outside presenter mode."""
MIN_METRIC_PX = 48
CHART_SHARE = (0.6, 0.65)  # the least share of the screen's width and height the chart takes
FIRST_CHART_MS = 3 * TIMEOUT_MS  # a tour's first view computes it (cold caches, busy CI)
PLAYERS = {
    "Algorithm 4 player": "Algorithm_4?n=60&labeled=6&family=knn&mode=paper",
    "CG-iterations scrubber": f"CG_iterations?tour={tours.get('cg-converges').id}",
}
"""The pages whose first chart is a Plotly animation with buttons and a slider."""

_BOXES = """(controls) => {
  const box = e => { if (!e) return null; const r = e.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; };
  const union = es => { const bs = es.map(box); if (!bs.length) return null;
    return {left: Math.min(...bs.map(b => b.left)), top: Math.min(...bs.map(b => b.top)),
            right: Math.max(...bs.map(b => b.right)),
            bottom: Math.max(...bs.map(b => b.bottom))}; };
  const paragraphs = [...document.querySelectorAll('[data-testid="stMarkdownContainer"] p')];
  const para = s => paragraphs.find(p => p.innerText.startsWith(s));
  const chart = document.querySelector('.js-plotly-plot');
  return {
    chart: box(chart),
    plot: chart ? union([...chart.querySelectorAll('.nsewdrag')]) : null,
    buttons: chart ? box(chart.querySelector('.updatemenu-container')) : null,
    slider: chart ? box(chart.querySelector('.slider-container')) : null,
    look: box(para('Look at:')),
    ask: box(para('Ask:')),
    controls: Object.fromEntries(controls.map(
      c => [c, box(document.querySelector('.st-key-w_' + c))])),
    metrics_px: [...document.querySelectorAll('[data-testid="stMetricValue"]')]
      .map(m => parseFloat(getComputedStyle(m).fontSize)),
    deploy: [...document.querySelectorAll('[data-testid="stAppDeployButton"]')]
      .some(e => e.checkVisibility()),
    menu: [...document.querySelectorAll('[data-testid="stMainMenu"]')]
      .some(e => e.checkVisibility()),
  };
}"""
_FILLED = """() => {
  const p = [...document.querySelectorAll('[data-testid="stMarkdownContainer"] p')]
    .find(p => p.innerText.startsWith('Look at:'));
  return p && !p.innerText.includes('…'); }"""


def _path(tour: tours.Tour) -> str:
    return f"{tour.page.removeprefix('pages/').removesuffix('.py')}?tour={tour.id}"


def measure(page, url: str, controls: tuple[str, ...] = (), texts: bool = True) -> dict:
    """Open ``url``, wait for its first chart (and, with ``texts``, for the tour's texts to
    be filled with the view's numbers) and measure what the first screen shows: the boxes
    of the first chart, its plot area, its animation buttons and slider, the "Look at" and
    "Ask" paragraphs and the ``controls`` (URL keys), and the metric values' font sizes."""
    page.goto(url)
    page.wait_for_selector(CHART, timeout=FIRST_CHART_MS)
    if texts:
        page.wait_for_function(_FILLED, timeout=FIRST_CHART_MS)
    wait_idle(page)
    page.wait_for_timeout(500)  # Plotly's resize to its container
    no_exception(page)
    return page.evaluate(_BOXES, list(controls))


def _inside(box: dict | None, width: int, height: int) -> bool:
    return (
        box is not None
        and box["left"] >= 0
        and box["top"] >= 0
        and box["right"] <= width
        and box["bottom"] <= height
    )


def test_what_the_tour_text_points_at_is_on_the_first_screen(server):
    out = ARTIFACTS / "presenter"
    out.mkdir(parents=True, exist_ok=True)
    seen: dict[str, dict] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            width, height = DESK
            page = browser.new_page(viewport={"width": width, "height": height})
            for tour in tours.TOURS:  # outside presenter mode (and computing every view)
                m = measure(page, f"{server}/{_path(tour)}")
                page.screenshot(path=out / f"{tour.id}_{width}x{height}.png")
                seen[f"{tour.id} {width}x{height}"] = m | {"kind": "desk"}
                assert 0 <= m["chart"]["top"] < height / 2, (tour.id, m["chart"])
            for name, path in PLAYERS.items():
                m = measure(page, f"{server}/{path}", texts=False)
                seen[f"{name} {width}x{height}"] = m | {"kind": "player"}
                for part in ("buttons", "slider"):
                    where = (name, part, m[part], m["plot"])
                    assert _inside(m[part], width, height), where
                    assert m[part]["bottom"] <= m["plot"]["bottom"], where
            page.close()

            for width, height in SCREENS:
                page = browser.new_page(viewport={"width": width, "height": height})
                for tour in tours.TOURS:
                    m = measure(page, f"{server}/{_path(tour)}&present=1", tour.controls)
                    page.screenshot(path=out / f"{tour.id}_present_{width}x{height}.png")
                    seen[f"{tour.id} {width}x{height} presenter"] = m | {"kind": "presenter"}
                    for part in ("chart", "look", "ask"):
                        assert _inside(m[part], width, height), (tour.id, width, part, m[part])
                    for control, box in m["controls"].items():
                        assert _inside(box, width, height), (tour.id, width, control, box)
                    chart = m["chart"]
                    assert chart["right"] - chart["left"] >= CHART_SHARE[0] * width, m
                    assert chart["bottom"] - chart["top"] >= CHART_SHARE[1] * height, m
                    assert all(px >= MIN_METRIC_PX for px in m["metrics_px"]), m
                    assert not m["deploy"] and not m["menu"], m
                page.close()
        finally:
            browser.close()
            (out / "boxes.json").write_text(json.dumps(seen, indent=1))
    assert len(seen) == (1 + len(SCREENS)) * len(tours.TOURS) + len(PLAYERS)
