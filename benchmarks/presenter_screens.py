"""Screenshots of every tour in presenter mode at 1920×1080 and 1280×720, and where the
first chart sits on the screen (issue 26 §3).

Runs the browser test ``tests/browser/test_browser_presenter.py`` (which opens each tour with
``?tour=<id>&present=1`` and checks the chart is wholly on the first screen), then copies
its screenshots (colours reduced to 128, for the repository) and the measured boxes to
``results/presenter/``, with a table in ``results/presenter.md``.

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
    OUT.mkdir(parents=True, exist_ok=True)
    for png in sorted(SHOTS.glob("*.png")):
        image = Image.open(png).convert("RGB").quantize(colors=128)
        image.save(OUT / png.name, optimize=True)
    shutil.copy(SHOTS / "boxes.json", OUT / "boxes.json")
    boxes = json.loads((SHOTS / "boxes.json").read_text())
    lines = [
        "# Presenter mode: the first chart of every tour",
        "",
        "`python benchmarks/presenter_screens.py`; screenshots in `presenter/`.",
        "",
        "| tour, screen | chart top (px) | chart bottom (px) | metric values (px) |",
        "|---|---|---|---|",
    ]
    for name, b in boxes.items():
        px = ", ".join(f"{v:g}" for v in sorted(set(b["metrics_px"]))) or "no metrics"
        lines.append(f"| {name} | {b['top']:.0f} | {b['bottom']:.0f} | {px} |")
    (OUT.parent / "presenter.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
