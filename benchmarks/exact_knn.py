"""Exact loss curves on sparse kNN graphs: sparse GTH and diagonal-pivot SuperLU against
SuperLU's defaults and the dense GTH elimination, in one run (issue 12 §2).

    python benchmarks/exact_knn.py                 # the instances below, old side capped
    python benchmarks/exact_knn.py --cap 120 --sizes 1000 2000

Fashion-MNIST T-shirt vs Trouser (digits 3 vs 8 where Fashion-MNIST is missing), kNN-6,
|L| = 10, harmonic labels. Each side runs in its own process (``sslviz.labeling.
SPARSE_EXACT`` True for new, False for old) with a wall-clock cap: the old side's dense
GTH costs O(m³) per σ and may not finish. Prints seconds, σ evaluations, GTH redos,
breakpoints, the largest relative difference between the two sets of breakpoints and
whether the piece losses are equal. Writes benchmarks/results/exact_knn.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np
from _common import fashion_or_digits, machine, write

# (n, σ_min, σ_max, seed): σ ∈ [1, 7] as in §1, and a small-σ range where LU pivots cancel.
INSTANCES = [(500, 0.5, 3.0, 2), (1000, 1.0, 7.0, 0), (2000, 1.0, 7.0, 0), (4000, 1.0, 7.0, 0)]


def side(dataset: str, n: int, lo: float, hi: float, seed: int, new: bool) -> dict:
    """One exact curve in this process (``--side``)."""
    import sslviz.labeling as labeling
    from sslviz.problem import build_problem
    from sslviz.specs import ProblemSpec
    from sslviz.truth import true_loss_curve

    labeling.SPARSE_EXACT = new
    classes = (0, 1) if dataset == "fashion-mnist" else (3, 8)
    spec = ProblemSpec(dataset=dataset, classes=classes, n=n, n_labeled=10, seed=seed,
                       family="knn")  # fmt: skip
    p = build_problem(spec)
    gth = [0]
    solve = labeling.HarmonicModel._solve

    def counted(self, *args, **kwargs):
        sl = solve(self, *args, **kwargs)
        gth[0] += sl.status == "gth"
        return sl

    labeling.HarmonicModel._solve = counted
    t0 = time.perf_counter()
    curve = true_loss_curve(p.model, p.y_unlabeled, lo, hi)
    return {
        "seconds": time.perf_counter() - t0,
        "evaluations": int(curve.evaluations.size),
        "gth": gth[0],
        "breakpoints": curve.breakpoints.tolist(),
        "losses": curve.loss.values.tolist(),
    }


def timed(args: list[str], cap: float) -> dict | None:
    """``side`` in a subprocess; None past ``cap`` seconds."""
    cmd = [sys.executable, __file__, "--side", *args]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=cap, check=True)
    except subprocess.TimeoutExpired:
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cap", type=float, default=300.0, help="seconds per side and instance")
    ap.add_argument("--sizes", type=int, nargs="*", help="only these n")
    ap.add_argument("--side", nargs=6, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.side:
        ds, n, lo, hi, seed, new = a.side
        print(json.dumps(side(ds, int(n), float(lo), float(hi), int(seed), new == "new")))
        return
    dataset = fashion_or_digits()
    rows = []
    for n, lo, hi, seed in INSTANCES:
        if a.sizes and n not in a.sizes:
            continue
        if dataset == "digits" and n > 360:
            continue
        load = os.getloadavg()[0]
        args = [dataset, str(n), str(lo), str(hi), str(seed)]
        new = timed([*args, "new"], a.cap)
        old = timed([*args, "old"], a.cap)
        row = {"n": n, "sigma": [lo, hi], "seed": seed, "load": load, "new": new, "old": old}
        if new and old:
            bn, bo = np.array(new["breakpoints"]), np.array(old["breakpoints"])
            same = bn.size == bo.size
            row["same_count"] = same
            row["max_rel_diff"] = float(np.max(np.abs(bn - bo) / bo, initial=0.0)) if same else None
            row["losses_equal"] = same and new["losses"] == old["losses"]
        rows.append(row)
        print(json.dumps({k: v for k, v in row.items() if k not in ("new", "old")}), flush=True)

    def cell(r: dict | None, key: str, fmt: str) -> str:
        return f"> {a.cap:.0f} s (stopped)" if r is None else format(r[key], fmt)

    lines = [
        "# Exact loss curves on kNN-6 graphs: sparse exact solves, new against old",
        "",
        f"Command: `python benchmarks/exact_knn.py --cap {a.cap:.0f}`. {dataset}, |L| = 10, "
        "harmonic labels. New: SuperLU with diagonal pivots on the row-scaled systems, GTH "
        "redos on the sparse structure; old: SuperLU's defaults, dense GTH redos (both sum "
        "eq. (2) edge by edge). Each side in its own process, one after the other.",
        "",
        "| n | σ range | new (s) | old (s) | speed-up | σ evaluated new / old | GTH redos "
        "new / old | breakpoints | largest relative difference | losses equal | load |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        new, old = r["new"], r["old"]
        ratio = f"{old['seconds'] / new['seconds']:.1f}×" if new and old else (
            f"> {a.cap / new['seconds']:.0f}×" if new else "–")  # fmt: skip
        diff = r.get("max_rel_diff")
        lines.append(
            f"| {r['n']} | [{r['sigma'][0]}, {r['sigma'][1]}] | {cell(new, 'seconds', '.1f')} | "
            f"{cell(old, 'seconds', '.1f')} | {ratio} | "
            f"{new['evaluations'] if new else '–'} / {old['evaluations'] if old else '–'} | "
            f"{new['gth'] if new else '–'} / {old['gth'] if old else '–'} | "
            f"{len(new['breakpoints']) if new else '–'} | "
            f"{'–' if diff is None else f'{diff:.1e}'} | "
            f"{r.get('losses_equal', '–')} | {r['load']:.1f} |"
        )
    write("exact_knn", {"machine": machine(), "cap": a.cap, "rows": rows}, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
