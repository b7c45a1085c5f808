"""Time learning σ (and k) from many instances (``sslviz.learn``) on this machine.

Five runs, the targets of the learning page and ``sslviz learn``, on all cores
(local worker processes, as the CLI and the server run them):

* ``page``: the learning page's default view (the learn-sigma tour) in a running server
  (AppTest), every cache dropped, :data:`ROUNDS` times, against the same with the
  instances run one after another in the server's process (target < 3 s);

* ``curve``: a learning curve, m ∈ {1, 2, 4, 8, 16, 32} over R = 5 fresh draws, with 16
  test instances, digits 2 vs 3, n = 100, |L| = 10, complete graph (target < 20 s);
* ``kmap``: the (k, σ) map, k = 2..16, m = 16, digits 2 vs 3, n = 300, |L| = 20, kNN
  (target < 30 s);
* ``many``: 64 training instances at n = 1,000 on kNN-6, Fashion-MNIST 0 vs 1 (digits
  when Fashion-MNIST is not on the machine; target < 60 s), then the same on a Dask
  LocalCluster of 2 worker processes: the two results are compared bit for bit;
* ``approx``: the same domain as ``curve`` with m = 16, exact ERM against ERM on
  Algorithm 4's CG-t estimates (t = 5, 10, 20): σ̂, its true test loss and the seconds
  spent on the curves of each.

    python benchmarks/learn_speed.py                 # all; benchmarks/results/learn.{json,md}
    python benchmarks/learn_speed.py --only kmap
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from _common import RESULTS, fashion_or_digits, machine, write

from sslviz.learn import CURVE, TEST, TRAIN, instance_seeds, learn
from sslviz.problem import build_problem, suggest_sigma_range
from sslviz.specs import ProblemSpec, SweepSettings


def _domain(spec: ProblemSpec, m: int, m_test: int, seed: int = 0):
    train = [spec.with_seed(s) for s in instance_seeds(seed, m, TRAIN)]
    test = [spec.with_seed(s) for s in instance_seeds(seed, m_test, TEST)]
    return train, test, suggest_sigma_range(build_problem(train[0]))


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def run_curve() -> dict:
    spec = ProblemSpec(dataset="digits", classes=(2, 3), n=100, n_labeled=10, family="complete")
    _, test, rng = _domain(spec, 1, 16)
    sizes = [1, 2, 4, 8, 16, 32]
    pools = [[spec.with_seed(s) for s in instance_seeds(0, 32, CURVE, r)] for r in range(5)]
    r, seconds = _timed(lambda: learn(pools[0], test, rng, curve_sizes=sizes, curve_pools=pools))
    c = r.curve
    return {
        "title": "learning curve, digits 2 vs 3, n = 100, complete, M = 32, R = 5, 16 test",
        "seconds": seconds,
        "target": 20,
        "sigma_range": rng,
        "m": c.m.tolist(),
        "excess_mean": c.excess.mean(axis=0).tolist(),
        "gap_mean": c.uniform_gap.mean(axis=0).tolist(),
        "union_pieces_mean": c.union_pieces.mean(axis=0).tolist(),
    }


def run_kmap() -> dict:
    spec = ProblemSpec(dataset="digits", classes=(2, 3), n=300, n_labeled=20, family="knn")
    train, test, rng = _domain(spec, 16, 0)
    r, seconds = _timed(lambda: learn(train, test, rng, k_values=range(2, 17)))
    return {
        "title": "(k, σ) map, k = 2..16, m = 16, digits 2 vs 3, n = 300, |L| = 20, kNN",
        "seconds": seconds,
        "target": 30,
        "sigma_range": rng,
        "k_hat": r.k,
        "erm_loss": r.erm.loss,
        "sigma_hat": r.erm.sigma_hat,
        "pieces_per_k": [row.average.edges.size - 1 for row in r.grid],
    }


def run_many() -> dict:
    dataset = fashion_or_digits()
    spec = ProblemSpec(dataset=dataset, classes=(0, 1), n=1000, n_labeled=20, family="knn")
    train, test, rng = _domain(spec, 64, 0)
    local, seconds = _timed(lambda: learn(train, test, rng))
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
        dsk, dask_seconds = _timed(lambda: learn(train, test, rng, dask=cluster.scheduler_address))
    same = (
        np.array_equal(local.average.edges, dsk.average.edges)
        and np.array_equal(local.average.numerators, dsk.average.numerators)
        and local.erm == dsk.erm
    )
    return {
        "title": f"64 instances, {dataset} 0 vs 1, n = 1,000, |L| = 20, kNN-6",
        "seconds": seconds,
        "target": 60,
        "dask_seconds": dask_seconds,
        "same_bits": same,
        "sigma_range": rng,
        "union_pieces": local.average.union_breakpoints + 1,
        "sigma_hat": local.erm.sigma_hat,
    }


def run_approx() -> dict:
    spec = ProblemSpec(dataset="digits", classes=(2, 3), n=100, n_labeled=10, family="complete")
    train, test, rng = _domain(spec, 16, 16)
    approx = [SweepSettings(solver="cg", cg_iters=t) for t in (5, 10, 20)]
    r, seconds = _timed(lambda: learn(train, test, rng, approx=approx))
    rows = [
        {
            "solver": "exact",
            "sigma_hat": r.erm.sigma_hat,
            "test_loss": r.test.loss_at_sigma_hat,
            "excess_over_exact_erm": 0.0,
            "curve_seconds": r.seconds_exact,
        }
    ]
    rows += [
        {
            "solver": a.solver,
            "sigma_hat": a.erm.sigma_hat,
            "test_loss": a.test.loss_at_sigma_hat,
            "excess_over_exact_erm": a.excess_over_exact,
            "curve_seconds": a.seconds,
        }
        for a in r.approximate
    ]
    return {
        "title": "exact against approximate ERM, digits 2 vs 3, n = 100, complete, m = 16, 16 test",
        "sigma_range": rng,
        "rows": rows,
        "seconds": seconds,
    }


_PAGE = """
import time
ROUNDS = {rounds}
t0 = time.perf_counter()
from streamlit.testing.v1 import AppTest
def page(path):
    at = AppTest.from_file("app.py", default_timeout=300)
    if path:
        at.switch_page(path)
    t = time.perf_counter()
    at.run()
    assert not at.exception
    return at, time.perf_counter() - t
at, cold = page("pages/Learn.py")
assert len(at.get("plotly_chart")) + len(at.get("bidi_component")) == 2  # old tree, new
process = time.perf_counter() - t0
import streamlit as st
from ui import cache
time.sleep(10)  # the server's worker processes finish starting (ui.nav warms them)
warm = []
for _ in range(ROUNDS):
    cache.LEARN_RUNS.clear()
    st.cache_data.clear()
    t = time.perf_counter()
    at.run()
    warm.append(time.perf_counter() - t)
    assert not at.exception and len(at.get("plotly_chart")) + len(at.get("bidi_component")) == 2
t = time.perf_counter()
at.run()  # nothing changed: the page drawn from the memo, no instance computed
drawn = time.perf_counter() - t
print(process, cold, drawn, *warm)
"""

ROUNDS = 3
"""Cold reruns of the page per configuration (each with every cache dropped)."""


def _page_seconds(workers: int | None) -> tuple[list[float], float, float]:
    import os
    import subprocess
    import sys

    from _common import ROOT

    env = dict(os.environ)
    if workers is not None:
        env["SSLVIZ_WORKERS"] = str(workers)
    code = _PAGE.replace("{rounds}", str(ROUNDS))
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True, env=env
    )
    process, _, drawn, *warm = (float(x) for x in out.stdout.split()[-(3 + ROUNDS) :])
    return warm, process, drawn


def run_page() -> dict:
    """The learning page's default view (the learn-sigma tour) rendered headless by
    Streamlit's AppTest (the server's side of a visit): in a fresh process (imports and
    the start of the worker processes included), then rerun with every cache dropped (a
    running server whose workers are up, nothing cached). The same with the instances
    run one after another in the server's process (``SSLVIZ_WORKERS=1``), in the same run."""
    serial, _, _ = _page_seconds(1)
    warm, process, drawn = _page_seconds(None)
    return {
        "title": "the learning page's default view, computed with nothing cached in a "
        f"running server (AppTest), median of {ROUNDS}",
        "seconds": float(np.median(warm)),
        "runs_seconds": warm,
        "target": 3,
        "fresh_process_seconds": process,
        "drawn_seconds": drawn,
        "serial_seconds": float(np.median(serial)),
    }


RUNS = {
    "page": run_page,
    "curve": run_curve,
    "kmap": run_kmap,
    "many": run_many,
    "approx": run_approx,
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", choices=sorted(RUNS))
    args = ap.parse_args()
    out = {name: fn() for name, fn in RUNS.items() if args.only in (None, name)}
    saved = RESULTS / "learn.json"
    if args.only and saved.is_file():  # one run again: the others' last figures stay
        kept = json.loads(saved.read_text())
        out = {name: out.get(name, kept.get(name)) for name in RUNS if name in out or name in kept}
    lines = [
        "# Learning from many instances: speed",
        "",
        "`python benchmarks/learn_speed.py`, all cores (2 here).",
        "",
    ]
    for name, res in out.items():
        if name == "approx":
            lines += [
                "",
                f"## {res['title']}",
                "",
                "| learned on | σ̂ | true test loss | excess over exact ERM | curves (s) |",
                "|---|---|---|---|---|",
            ]
            lines += [
                f"| {w['solver']} | {w['sigma_hat']:.4g} | {w['test_loss']:.4f} | "
                f"{w['excess_over_exact_erm']:+.4f} | {w['curve_seconds']:.2f} |"
                for w in res["rows"]
            ]
            lines.append("")
            continue
        extra = ""
        if name == "page":
            runs = ", ".join(f"{x:.1f}" for x in res["runs_seconds"])
            extra = (
                f" (runs: {runs} s; the page drawn again from its memo: "
                f"{res['drawn_seconds']:.2f} s)"
                f"; {res['serial_seconds']:.1f} s with the instances run one after another in "
                f"the server's process (`SSLVIZ_WORKERS=1`, same run); in a fresh process, "
                f"imports and the workers' start included: {res['fresh_process_seconds']:.1f} s"
            )
        if name == "many":
            extra = (
                f"; Dask LocalCluster {res['dask_seconds']:.1f} s, same bits: {res['same_bits']}"
            )
        lines += [
            f"- **{res['title']}**: {res['seconds']:.1f} s (target < {res['target']} s){extra}"
        ]
    write("learn", {"machine": machine(), **out}, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
