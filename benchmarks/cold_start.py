"""Cold start (issue 12 §6): where the time to the first chart goes.

1. In a fresh process, times each step of the home page's path: importing the app's
   modules (and the heaviest packages they pull in, from ``python -X importtime``),
   loading the embedded digits, building the default instance (PCA, graph, model), the
   first compiled-kernel call (Numba's cache load), the suggested σ range and the first
   exact loss curve of the default view.
2. Starts ``streamlit run app.py`` on 127.0.0.1 and measures, with Chromium, the time from
   starting the server to the home page's first chart, and from starting it to the loss
   page's first chart (two servers, each cold).

Run: ``python benchmarks/cold_start.py [--repeats 3]``; writes
``benchmarks/results/cold_start.{json,md}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import subprocess
import sys
import time
from pathlib import Path

from _common import machine, write
from load_test import ARGS, CHART, CHROMIUM, free_port, start_server, stop_server

ROOT = Path(__file__).resolve().parents[1]

STEPS = r"""
import json, time
t = {}
t0 = time.perf_counter()
import numpy, scipy.sparse
t["numpy + scipy"] = time.perf_counter() - t0; t1 = time.perf_counter()
import sklearn.neighbors
t["scikit-learn (neighbours)"] = time.perf_counter() - t1; t1 = time.perf_counter()
import numba
t["numba"] = time.perf_counter() - t1; t1 = time.perf_counter()
import sslviz.problem, sslviz.plots, sslviz.export
t["sslviz (rest)"] = time.perf_counter() - t1; t1 = time.perf_counter()
import streamlit, plotly.graph_objects
t["streamlit + plotly"] = time.perf_counter() - t1; t1 = time.perf_counter()
from sslviz.data import load_dataset
load_dataset("digits")
t["load digits"] = time.perf_counter() - t1; t1 = time.perf_counter()
from sslviz.problem import build_problem, loss_curve, suggest_sigma_range
from sslviz.specs import ProblemSpec
p = build_problem(ProblemSpec())
t["default instance (PCA, graph, model)"] = time.perf_counter() - t1; t1 = time.perf_counter()
lo, hi = suggest_sigma_range(p)
t["suggested σ range"] = time.perf_counter() - t1; t1 = time.perf_counter()
p.model.soft_labels_many([lo, hi], solver="cg")
t["first CG call (compiled kernels)"] = time.perf_counter() - t1; t1 = time.perf_counter()
loss_curve(p, lo, hi)
t["first exact loss curve"] = time.perf_counter() - t1
t["total"] = time.perf_counter() - t0
print(json.dumps(t))
"""


def import_top(n: int = 8) -> list[tuple[str, float]]:
    """The ``n`` packages with the largest import time (s) under ``import app_cache``: per
    top-level package, the cumulative time of its first (outermost) import."""
    err = subprocess.run([sys.executable, "-X", "importtime", "-c", "import app_cache"],
                         cwd=ROOT, capture_output=True, text=True).stderr  # fmt: skip
    out: dict[str, float] = {}
    for line in err.splitlines():
        m = re.match(r"import time:\s+\d+ \|\s+(\d+) \|\s*(\S+)", line)
        if m:
            root = m.group(2).split(".")[0]
            out[root] = max(out.get(root, 0.0), int(m.group(1)) / 1e6)
    return sorted(out.items(), key=lambda kv: -kv[1])[:n]


async def first_chart(path: str) -> tuple[float, float]:
    """(server start → healthy, server start → first chart on ``path``), seconds."""
    from playwright.async_api import async_playwright

    log = ROOT / "benchmarks" / "results" / "cold_start_server.log"
    port = free_port()
    t0 = time.perf_counter()
    proc = start_server(port, log)
    healthy = time.perf_counter() - t0
    try:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = await browser.new_page(viewport={"width": 1400, "height": 900})
            await page.goto(f"http://127.0.0.1:{port}/{path}", timeout=180_000)
            await page.wait_for_selector(CHART, timeout=180_000)
            chart = time.perf_counter() - t0
            await browser.close()
    finally:
        stop_server(proc)
    return healthy, chart


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    steps = []
    for _ in range(args.repeats):
        out = subprocess.run([sys.executable, "-c", STEPS], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout  # fmt: skip
        steps.append(json.loads(out.strip().splitlines()[-1]))
    best = {k: min(s[k] for s in steps) for k in steps[0]}
    imports = import_top()
    pages = {}
    for path in ("", "Loss_intervals"):
        runs = [asyncio.run(first_chart(path)) for _ in range(args.repeats)]
        pages[path or "home"] = {"healthy_s": min(r[0] for r in runs),
                                 "first_chart_s": min(r[1] for r in runs),
                                 "first_chart_max_s": max(r[1] for r in runs)}  # fmt: skip
    md = ["# Cold start (`python benchmarks/cold_start.py`)", "",
          f"Minimum over {args.repeats} fresh processes / servers. Machine: "
          + json.dumps(machine()), "", "## Server start to first chart (Chromium)", "",
          "| page | server healthy (s) | first chart (s, min) | first chart (s, max) |",
          "|---|---|---|---|"]  # fmt: skip
    for name, r in pages.items():
        md.append(f"| {name} | {r['healthy_s']:.2f} | {r['first_chart_s']:.2f} | "
                  f"{r['first_chart_max_s']:.2f} |")  # fmt: skip
    md += ["", "## The home page's path in one process (s, min)", "", "| step | s |", "|---|---|"]
    md += [f"| {k} | {v:.3f} |" for k, v in best.items()]
    md += ["", "## Heaviest imports under `import app_cache` (cumulative s, one run)", "",
           "| module | s |", "|---|---|"] + [f"| {k} | {v:.3f} |" for k, v in imports]  # fmt: skip
    write("cold_start", {"machine": machine(), "pages": pages, "steps": steps,
                         "imports": imports}, "\n".join(md) + "\n")  # fmt: skip


if __name__ == "__main__":
    main()
