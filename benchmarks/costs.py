"""Calibrate ``sslviz.costs``: measure per-operation costs and evaluation counts on this
machine, fit the constants, and compare the estimates with measured wall times.

Command: ``python benchmarks/costs.py`` (about 5 minutes; ``--check``: only the table,
with the module's constants, about 3 minutes). It prints the fitted
``CONSTANTS``, writes them into ``sslviz/costs.json`` (which ``sslviz.costs`` reads; a full
run only), ``benchmarks/results/costs.json`` and ``costs.md`` (estimate vs measured on ~10
configurations, with the ratio). The check
table uses the fitted constants, so it shows how good the model is, not the module's copy.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from scipy.optimize import nnls

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import fashion_or_digits, machine, write  # noqa: E402

from sslviz import costs  # noqa: E402
from sslviz.conditioning import condition_curve, trust_curve  # noqa: E402
from sslviz.intervals import sweep  # noqa: E402
from sslviz.problem import build_problem, loss_curve, run_regret, suggest_sigma_range  # noqa: E402
from sslviz.specs import ConditionSettings, ProblemSpec, RegretSettings, SweepSettings  # noqa: E402

BASE = ProblemSpec(dataset=fashion_or_digits(), classes=(3, 8))


def clock(f, repeat: int = 1) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best


def per_eval(spec: ProblemSpec, solver: str, t: int = 20, k: int = 6) -> float:
    """Seconds of one soft-label evaluation (with derivative) at mid-range σ."""
    p = build_problem(spec)
    lo, hi = suggest_sigma_range(p)
    sig = np.linspace(lo, hi, k)
    p.model.soft_labels(sig[0], solver=solver, cg_iters=t)  # warm
    return clock(lambda: [p.model.soft_labels(s, solver=solver, cg_iters=t) for s in sig], 2) / k


def fit_solves() -> dict:
    """Per-evaluation costs: rows (overhead, weights·nnz, lu·n_U³ | lu_sparse | mv) → time."""
    c = {}
    rows, ys = [], []
    for n in (100, 300, 600, 1000):
        spec = replace(BASE, n=n)
        _, nu, nnz = costs._sizes(spec)
        rows.append([1.0, nnz, nu**3])
        ys.append(per_eval(spec, "exact"))
    sol, _ = nnls(np.array(rows) / np.array(ys)[:, None], np.ones(len(ys)))  # relative error
    c["overhead"], c["weights"], c["dense_lu"] = (float(x) for x in sol)
    c["overhead"] = max(c["overhead"], 5e-5)
    # dense matvec: CG-t on the complete graph minus the per-evaluation part
    rows, ys = [], []
    for n in (300, 1000):
        spec = replace(BASE, n=n)
        _, nu, nnz = costs._sizes(spec)
        rest = c["overhead"] + c["weights"] * nnz
        ys.append(max(per_eval(spec, "cg", 40) - rest, 1e-6) / (2 * 40 * nu * nu))
    c["dense_mv"] = float(np.mean(ys))
    # kNN: sparse exact and sparse CG
    lu, mv = [], []
    for n in (500, 1500):
        spec = replace(BASE, n=n, family="knn")
        _, nu, nnz = costs._sizes(spec)
        rest = c["overhead"] + c["weights"] * nnz
        lu.append(max(per_eval(spec, "exact") - rest, 1e-6) / (nu**1.5 * spec.k))
        mv.append(max(per_eval(spec, "cg", 40) - rest, 1e-6) / (2 * 40 * nnz))
    c["sparse_lu"], c["sparse_mv"] = float(np.mean(lu)), float(np.mean(mv))
    # eigenvalues relative to a dense LU
    a = np.random.default_rng(0).standard_normal((600, 600))
    a = a @ a.T + 600 * np.eye(600)
    c["eig_factor"] = clock(lambda: np.linalg.eigvalsh(a), 2) / clock(
        lambda: np.linalg.solve(a, np.ones(600)), 3
    )
    # build
    bt = []
    for n in (300, 1500):
        spec = replace(BASE, n=n, seed=n)
        d = spec.pca or costs.FEATURES
        bt.append(clock(lambda s=spec: build_problem(s)) / (n * d * (1 + n / 500)))
    c["build"] = float(np.mean(bt))
    return c


def _fit_count(rows: list[tuple], base: float | None = None) -> tuple[float, float, float]:
    """(base, per_node, power) of ``count ≈ base·max(w, ½) + per_node·n_U^power·w`` from rows
    (w, n_U, count): least relative error over a grid of powers."""
    best = None
    for power in np.arange(0.5, 2.51, 0.1):
        a = np.array([[max(w, 0.5), nu**power * w] for w, nu, _ in rows])
        y = np.array([r[2] for r in rows], float)
        if base is None:
            sol, res = nnls(a / y[:, None], np.ones(len(y)))
        else:
            rest = np.maximum(y - base * a[:, 0], 1e-9)
            k = float(np.sum(rest * a[:, 1]) / np.sum(a[:, 1] ** 2))
            sol = np.array([base, k])
            res = float(np.linalg.norm((a @ sol - y) / y))
        if best is None or res < best[0]:
            best = (res, float(sol[0]), float(sol[1]), float(power))
    return best[1:]


def fit_counts(c: dict) -> dict:
    """Evaluation counts of the exact loss and of Algorithm 4 (fast, paper), and the factor
    between their measured time and counts × one evaluation (with ``c``'s unit costs)."""
    costs.CONSTANTS.update(c)
    out = {}
    sizes = {"complete": (100, 200, 350, 500), "knn": (300, 1000, 2000)}
    rows = {(k, f): [] for k in ("truth", "fast") for f in sizes}
    factors = {(k, f): [] for k in ("truth", "fast") for f in sizes}
    for fam, ns in sizes.items():
        for n in ns:
            spec = replace(BASE, n=n, family=fam)
            p = build_problem(spec)
            ref = suggest_sigma_range(p)
            nu = n - spec.n_labeled
            for w in (1.0, 2.0) if n <= 350 or fam == "knn" else (1.0,):
                lo, hi = ref[0], ref[0] + w * (ref[1] - ref[0])
                t0 = time.perf_counter()
                cv = loss_curve(p, lo, hi)
                secs = time.perf_counter() - t0
                rows["truth", fam].append((w, nu, cv.evaluations.size))
                factors["truth", fam].append(
                    secs / (cv.evaluations.size * costs.solve_seconds(spec))
                )
                t0 = time.perf_counter()
                sw = sweep(p.model, p.y_unlabeled, lo, hi, SweepSettings())
                secs = time.perf_counter() - t0
                rows["fast", fam].append((w, nu, sw.solves))
                factors["fast", fam].append(secs / (sw.solves * costs.solve_seconds(spec, "cg")))
                print(
                    f"  {fam} n={n} w={w}: {cv.evaluations.size} evaluations, "
                    f"{sw.solves} sweep solves",
                    flush=True,
                )
    for k, fac in (("truth", "truth_factor"), ("fast", "sweep_factor")):
        out[f"{k}_base"], out[f"{k}_per_node"], out[f"{k}_power"] = _fit_count(rows[k, "complete"])
        _, out[f"{k}_per_node_sparse"], out[f"{k}_power_sparse"] = _fit_count(
            rows[k, "knn"], base=out[f"{k}_base"]
        )
        out[fac] = float(np.median(factors[k, "complete"]))
        out[f"{fac}_sparse"] = float(np.median(factors[k, "knn"]))
    out["paper_factor"], out["paper_factor_sparse"] = paper_factors()
    out["trust_t"], out["cond_t"] = 60.0, 60.0  # iteration counts: not worth a fit
    return out


def paper_factors() -> tuple[float, float]:
    """Paper-mode time relative to fast mode, complete (n = 100) and kNN (n = 300)."""
    out = []
    for n, fam in ((100, "complete"), (300, "knn")):
        p = build_problem(replace(BASE, n=n, family=fam))
        lo, hi = suggest_sigma_range(p)
        fast = clock(
            lambda p=p, lo=lo, hi=hi: sweep(p.model, p.y_unlabeled, lo, hi, SweepSettings())
        )
        paper = clock(
            lambda p=p, lo=lo, hi=hi: sweep(
                p.model, p.y_unlabeled, lo, hi, SweepSettings(mode="paper")
            )
        )
        out.append(paper / fast)
    return out[0], out[1]


def checks() -> list[dict]:
    """~10 configurations: estimate (with the module's current CONSTANTS) vs measured."""
    out = []

    def row(name, spec, estimate, run):
        p = build_problem(spec)
        ref = suggest_sigma_range(p)
        est = estimate(spec, *ref, ref)
        secs = clock(lambda: run(spec, *ref))
        out.append(
            {
                "what": name,
                "estimate_s": est.seconds,
                "measured_s": secs,
                "ratio": est.seconds / max(secs, 1e-9),
                "memory_mb": est.memory_mb,
            }
        )
        print(
            f"{name:48s} est {est.seconds:8.2f} s  measured {secs:8.2f} s  "
            f"ratio {out[-1]['ratio']:.2f}",
            flush=True,
        )

    def truth_run(spec, lo, hi):
        loss_curve(build_problem(spec), lo, hi)

    def sweep_run(settings):
        # As the app runs it, with a progress callback: the estimates cap the app's views.
        # (CG on kNN graphs runs the compiled search, which pauses to report progress.)
        def run(spec, lo, hi):
            p = build_problem(spec)
            sweep(p.model, p.y_unlabeled, lo, hi, settings, progress=lambda f, m: None)

        return run

    for n, fam in ((300, "complete"), (600, "complete"), (1500, "knn")):
        row(
            f"exact loss, {fam} n={n}",
            replace(BASE, n=n, family=fam, seed=7 + n),
            costs.loss_curve,
            truth_run,
        )
    for n, fam, solver in (
        (500, "complete", "cg"),
        (400, "complete", "inverse"),
        (1500, "knn", "exact"),
    ):
        st = SweepSettings(solver=solver)
        row(
            f"sweep fast {solver}, {fam} n={n}",
            replace(BASE, n=n, family=fam, seed=9 + n),
            lambda s, lo, hi, r, st=st: costs.sweep(s, lo, hi, st, r),
            sweep_run(st),
        )
    st = SweepSettings(mode="paper")
    for n, fam in ((100, "complete"), (150, "knn")):
        row(
            f"sweep paper cg, {fam} n={n}",
            replace(BASE, n=n, family=fam, seed=11),
            lambda s, lo, hi, r: costs.sweep(s, lo, hi, st, r),
            sweep_run(st),
        )
    cs = ConditionSettings(points=15)
    row(
        "condition curve, complete n=400",
        replace(BASE, n=400, seed=13),
        lambda s, lo, hi, r: costs.condition(s, cs),
        lambda s, lo, hi: condition_curve(build_problem(s).model, np.linspace(lo, hi, 15)),
    )
    row(
        "trust curve, knn n=1000",
        replace(BASE, n=1000, family="knn", seed=17),
        lambda s, lo, hi, r: costs.trust(s, 30),
        lambda s, lo, hi: trust_curve(build_problem(s).model, np.linspace(lo, hi, 30)),
    )
    if BASE.dataset == "fashion-mnist":  # the app's large option: a whole class pool
        big = replace(BASE, classes=(0, 1), n=12000, family="knn")
        st = SweepSettings()
        row("exact loss, knn n=12000 (whole pool)", big, costs.loss_curve, truth_run)
        row(
            "sweep fast cg, knn n=12000 (whole pool)",
            big,
            lambda s, lo, hi, r: costs.sweep(s, lo, hi, st, r),
            sweep_run(st),
        )
        row(
            "trust curve, knn n=12000 (whole pool)",
            big,
            lambda s, lo, hi, r: costs.trust(s, 20),
            lambda s, lo, hi: trust_curve(build_problem(s).model, np.linspace(lo, hi, 20)),
        )
    rs = RegretSettings(rounds=6, repeats=1)
    row(
        "regret 6 rounds x 1, complete n=100",
        replace(BASE, n=100, seed=19),
        lambda s, lo, hi, r: costs.regret(s, lo, hi, SweepSettings(), rs, r),
        lambda s, lo, hi: run_regret(s, (lo, hi), SweepSettings(), rs, n_jobs=1),
    )
    return out


def main() -> None:
    t0 = time.perf_counter()
    if "--check" in sys.argv:  # only the table, with the module's constants
        fitted = dict(costs.CONSTANTS)
    else:
        unit = fit_solves()
        print("unit costs:", unit, flush=True)
        fitted = unit | fit_counts(unit)
        fitted = {k: float(f"{v:.3g}") for k, v in fitted.items()}
    print("CONSTANTS =", fitted, flush=True)
    costs.CONSTANTS.update(fitted)
    table = checks()
    ratios = np.array([r["ratio"] for r in table])
    md = [
        "# Cost model calibration (sslviz.costs)",
        "",
        f"Command: `python {' '.join(sys.argv)}`",
        "",
        (
            "Constants of `sslviz/costs.py` (from the last full run):"
            if "--check" in sys.argv
            else "Fitted constants (written into `sslviz/costs.json`):"
        ),
        "",
        "```",
        *(f"{k}: {v:.3g}" for k, v in fitted.items()),
        "```",
        "",
        "| computation | estimate s | measured s | estimate / measured |",
        "|---|---|---|---|",
        *(
            f"| {r['what']} | {r['estimate_s']:.2f} | {r['measured_s']:.2f} | {r['ratio']:.2f} |"
            for r in table
        ),
        "",
        f"Ratio range {ratios.min():.2f}–{ratios.max():.2f}, geometric mean "
        f"{np.exp(np.mean(np.log(ratios))):.2f}; "
        f"{time.perf_counter() - t0:.0f} s in all.",
    ]
    write("costs", {"machine": machine(), "constants": fitted, "checks": table}, "\n".join(md))
    if "--check" not in sys.argv:  # the module's constants: the fitted ones, hand-measured kept
        doc = json.loads(costs.CONSTANTS_FILE.read_text())
        doc["constants"] = costs.CONSTANTS | fitted
        costs.CONSTANTS_FILE.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
