"""Timings that keep their verdict under load: alone vs beside two CPU hogs.

Runs the Speed page's default configurations (its default sizes × complete/kNN × CG/matrix
inverse, on the default instance and its suggested σ range) and the loss page's default
view (exact curve + CG-20 fast sweep), first alone, then beside two CPU-bound processes
this script starts (busy loops, killed at the end; the whole run is bounded by
``--hog-seconds``). For each configuration it prints the robust timing
(:func:`sslviz.measure.timed`: minimum CPU time over repetitions) and, for contrast, one
plain wall-clock measurement, with the work counts; then the verdict per graph (CG vs
inverse) from each kind of timing, alone and under load. The robust verdicts and the
counts must be the same in both runs.

Run: ``python benchmarks/timing_load.py``; writes ``benchmarks/results/timing_load.{json,md}``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

from _common import machine, write

from sslviz import specs
from sslviz.export import to_dict
from sslviz.intervals import sweep
from sslviz.measure import Timing, timed, verdict
from sslviz.problem import build_problem, loss_curve, suggest_sigma_range
from sslviz.specs import ProblemSpec, SweepSettings
from ui.views import SpeedGrid

HOG = "import time\nt = time.time()\nwhile time.time() - t < {s}:\n    pass\n"


def configs() -> list[tuple[str, ProblemSpec, SweepSettings]]:
    base = ProblemSpec()
    out = []
    for n in specs.default(SpeedGrid, "sizes"):
        for fam in specs.default(SpeedGrid, "families"):
            for sv in specs.default(SpeedGrid, "solvers"):
                out.append(
                    (f"n={n} {fam} {sv}", base.replace(n=n, family=fam), SweepSettings(solver=sv))
                )
    return out


def measure_all(budget: float) -> dict:
    rows = {}
    for name, spec, settings in configs():
        p = build_problem(spec)
        lo, hi = suggest_sigma_range(p)

        def run(p=p, lo=lo, hi=hi, settings=settings):
            return sweep(p.model, p.y_unlabeled, lo, hi, settings)

        t0 = time.perf_counter()
        run()  # one plain wall-clock measurement, as a page would take it
        naive = time.perf_counter() - t0
        res, t = timed(run, budget=budget)
        rows[name] = {
            "timing": t,
            "naive_wall": naive,
            "work": to_dict(res, p)["work"],
            "M": len(res.intervals),
        }
    p = build_problem(ProblemSpec())
    lo, hi = suggest_sigma_range(p)

    def view():
        curve = loss_curve(p, lo, hi)
        return curve, sweep(p.model, p.y_unlabeled, lo, hi, SweepSettings())

    t0 = time.perf_counter()
    view()
    naive = time.perf_counter() - t0
    (curve, res), t = timed(view, budget=budget)
    rows["loss page default view"] = {
        "timing": t,
        "naive_wall": naive,
        "M": len(res.intervals),
        "work": {"exact curve": to_dict(curve, p)["work"], "sweep": to_dict(res, p)["work"]},
    }
    return rows


def verdicts(rows: dict) -> dict:
    out = {}
    for fam in specs.default(SpeedGrid, "families"):
        for n in specs.default(SpeedGrid, "sizes"):
            a, b = rows.get(f"n={n} {fam} cg"), rows.get(f"n={n} {fam} inverse")
            if a is None or b is None:
                continue
            naive = (
                Timing(a["naive_wall"], a["naive_wall"], 1, 0.0, 0),
                Timing(b["naive_wall"], b["naive_wall"], 1, 0.0, 0),
            )
            out[f"n={n} {fam}"] = {
                "robust": verdict(a["timing"], b["timing"], ("CG", "inverse")).split(" (")[0],
                "one wall-clock run": verdict(*naive, ("CG", "inverse")).split(" (")[0],
            }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=float, default=3.0, help="seconds per configuration")
    ap.add_argument(
        "--hog-seconds",
        type=float,
        default=300.0,
        help="the CPU hogs stop by themselves after this long",
    )
    args = ap.parse_args()
    alone = measure_all(args.budget)
    hogs = [
        subprocess.Popen([sys.executable, "-c", HOG.format(s=args.hog_seconds)]) for _ in range(2)
    ]
    try:
        time.sleep(0.5)
        loaded = measure_all(args.budget)
    finally:
        for h in hogs:
            h.kill()
            h.wait()
    v_alone, v_loaded = verdicts(alone), verdicts(loaded)
    same_counts = all(alone[k]["work"] == loaded[k]["work"] for k in alone)
    same_robust = all(v_alone[k]["robust"] == v_loaded[k]["robust"] for k in v_alone)
    md = [
        "# Timings alone and beside two CPU hogs (`python benchmarks/timing_load.py`)",
        "",
        "Robust = minimum CPU time of the computing thread over repetitions "
        f"(`sslviz.measure.timed`, budget {args.budget} s per configuration); plain = one "
        "wall-clock run. Machine: " + str(machine()),
        "",
        "| configuration | M | robust CPU s alone | under load | plain wall s alone | "
        "under load | repeats alone / load | work counts identical |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for k in alone:
        a, b = alone[k], loaded[k]
        same = "yes" if a["work"] == b["work"] else "NO"
        md.append(
            f"| {k} | {a['M']} | {a['timing'].cpu:.4f} | {b['timing'].cpu:.4f} | "
            f"{a['naive_wall']:.4f} | {b['naive_wall']:.4f} | {a['timing'].repeats} / "
            f"{b['timing'].repeats} | {same} |"
        )
    md += [
        "",
        "| graph | robust verdict alone | under load | plain verdict alone | under load |",
        "|---|---|---|---|---|",
    ]
    for k in v_alone:
        md.append(
            f"| {k} | {v_alone[k]['robust']} | {v_loaded[k]['robust']} | "
            f"{v_alone[k]['one wall-clock run']} | {v_loaded[k]['one wall-clock run']} |"
        )
    md += [
        "",
        f"Robust verdicts the same alone and under load: {same_robust}; work counts "
        f"identical: {same_counts}.",
        "",
    ]
    serial = {
        which: {
            k: {
                "timing": r["timing"].as_dict(),
                "naive_wall": r["naive_wall"],
                "work": r["work"],
                "M": r["M"],
            }
            for k, r in rows.items()
        }
        for which, rows in (("alone", alone), ("loaded", loaded))
    }
    write(
        "timing_load",
        {
            "machine": machine(),
            "runs": serial,
            "verdicts_alone": v_alone,
            "verdicts_loaded": v_loaded,
            "same_robust_verdicts": same_robust,
            "same_counts": same_counts,
        },
        "\n".join(md),
    )


if __name__ == "__main__":
    main()
