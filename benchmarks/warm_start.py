"""A fresh server's start: when it answers, and when its background warm-up (``ui.warm``)
has run every page's first view and tour link.

    python benchmarks/warm_start.py   # writes benchmarks/results/warm_start.{json,md}
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

from _common import free_port, machine, start_server, stop_server, write

from ui import warm


def main() -> None:
    log = Path(tempfile.gettempdir()) / "sslviz_warm_start_server.log"
    load = os.getloadavg()
    t0 = time.perf_counter()
    proc = start_server(free_port(), log)
    answered = time.perf_counter() - t0
    try:
        while not (lines := [ln for ln in log.read_text().splitlines() if warm.LOG_LINE in ln]):
            if time.perf_counter() - t0 > 900 or proc.poll() is not None:
                raise SystemExit(f"no warm-up line in {log}")
            time.sleep(0.5)
        warmed = time.perf_counter() - t0
    finally:
        stop_server(proc)
    line = lines[0][lines[0].index(warm.LOG_LINE) + len(warm.LOG_LINE) :]
    steps = json.loads(line)
    left = sum(v is None for v in steps.values())
    md = (
        "# A fresh server's start (`python benchmarks/warm_start.py`)\n\n"
        f"Machine: {machine()['cpus']} CPUs, shared; 1-minute load average at the start "
        f"{load[0]:.2f}.\n\n"
        "| server answers (health) | warm-up over | worker processes | page runs left |\n"
        "|---|---|---|---|\n"
        f"| {answered:.1f} s | {warmed:.1f} s | {steps['workers']:.1f} s | {left} |\n"
    )
    write(
        "warm_start",
        {
            "machine": machine(),
            "load": load,
            "answered": answered,
            "warmed": warmed,
            "steps": steps,
        },
        md,
    )


if __name__ == "__main__":
    main()
