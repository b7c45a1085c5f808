"""Screenshots of every tour at 1400×900 and in presenter mode at 1920×1080 and 1280×720, and
where the chart, the "Look at", the "Ask" and the tour's controls sit on the first screen.

Runs the browser test ``tests/browser/test_browser_presenter.py`` (which opens each tour,
checks that what its text points at is on the first screen, and measures the boxes), then
copies its screenshots (colours reduced to 128, for the repository) and the measured boxes
to ``results/presenter/``, with a table in ``results/presenter.md``.

    python benchmarks/presenter_screens.py
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "test-artifacts" / "presenter"
OUT = ROOT / "benchmarks" / "results" / "presenter"


def _span(box: dict | None) -> str:
    return "–" if box is None else f"{box['top']:.0f}–{box['bottom']:.0f}"


def table(boxes: dict) -> list[str]:
    """The table of ``boxes.json``: per tour and screen, the vertical extent (px from the
    top of the screen) of the chart, the texts and the controls, and the metrics' size."""
    lines = [
        "| tour, screen | chart (px) | Look at (px) | Ask (px) | controls, lowest (px) "
        "| chart size (px) | metric values (px) |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, b in boxes.items():
        if b["kind"] == "player":  # its buttons and slider instead, below
            continue
        low = max((c["bottom"] for c in b["controls"].values() if c), default=None)
        chart = b["chart"]
        size = f"{chart['right'] - chart['left']:.0f} × {chart['bottom'] - chart['top']:.0f}"
        px = ", ".join(f"{v:g}" for v in sorted(set(b["metrics_px"]))) or "–"
        lines.append(
            f"| {name} | {_span(chart)} | {_span(b['look'])} | {_span(b['ask'])} "
            f"| {'–' if low is None else f'{low:.0f}'} | {size} | {px} |"
        )
    players = [(n, b) for n, b in boxes.items() if b["kind"] == "player"]
    if players:
        lines += [
            "",
            "| player, screen | buttons (px) | slider (px) | plot (px) |",
            "|---|---|---|---|",
        ]
        lines += [
            f"| {n} | {_span(b['buttons'])} | {_span(b['slider'])} | {_span(b['plot'])} |"
            for n, b in players
        ]
    return lines


def main() -> int:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-m",
            "slow or not slow",
            "tests/browser/test_browser_presenter.py",
        ],
        cwd=ROOT,
    )
    if done.returncode:
        print("the presenter browser test failed: screenshots not copied")
        return done.returncode
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    for png in sorted(SHOTS.glob("*.png")):
        image = Image.open(png).convert("RGB").quantize(colors=128)
        image.save(OUT / png.name, optimize=True)
    shutil.copy(SHOTS / "boxes.json", OUT / "boxes.json")
    lines = [
        "# What a tour's text points at, on the first screen",
        "",
        "`python benchmarks/presenter_screens.py`; screenshots in `presenter/` "
        "(`<tour>_1400x900.png` outside presenter mode, `<tour>_present_<screen>.png` in it). "
        "Rows: 1400×900 outside presenter mode (the chart's top must be in the upper half), "
        "then presenter mode (chart, Look at, Ask and controls wholly on the screen).",
        "",
        *table(json.loads((SHOTS / "boxes.json").read_text())),
    ]
    (OUT.parent / "presenter.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
