"""Exact loss curves on sparse kNN graphs, up to a full class pool: this checkout against
an older commit, in one run.

    python benchmarks/exact_knn.py                      # all sizes, old side capped
    python benchmarks/exact_knn.py --cap 120 --sizes 4000 12000

Fashion-MNIST T-shirt vs Trouser (n = 12,000 is the whole training pool of the two
classes; digits 3 vs 8 where Fashion-MNIST is missing), kNN-6, |L| = 10, harmonic labels.
The "new" side runs this checkout; the "old" side runs ``--old`` (default 97aaac9: minimum
degree order, no refinement, the Hermite search on kNN graphs) from a git worktree. Each
side runs in its own process with a wall-clock cap. Prints seconds, σ evaluations, GTH
redos, breakpoints, peak memory, the largest relative difference between the two sets of
breakpoints and whether the piece losses are equal. The new curve is also checked against
an independent exact reference (ours vs exact): at 12 sampled breakpoints, the nodes whose
side of 1/2 changes between σ(1 ∓ 1.2e-8) by the subtraction-free sparse GTH solve
(SuperLU's own order, no refinement) must be the curve's nodes; at 6 random σ the GTH loss
must equal the curve's. Writes benchmarks/results/exact_knn.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from _common import fashion_or_digits, machine, old_tree, write

OLD_COMMIT = "97aaac9"
# (n, σ_min, σ_max, seed): σ ∈ [1, 7] as in §1, and a small-σ range where LU pivots cancel.
INSTANCES = [
    (500, 0.5, 3.0, 2),
    (1000, 1.0, 7.0, 0),
    (2000, 1.0, 7.0, 0),
    (4000, 1.0, 7.0, 0),
    (12000, 1.0, 7.0, 0),
]


def _problem(dataset: str, n: int, seed: int):
    from sslviz.problem import build_problem
    from sslviz.specs import ProblemSpec

    classes = (0, 1) if dataset == "fashion-mnist" else (3, 8)
    return build_problem(
        ProblemSpec(dataset=dataset, classes=classes, n=n, n_labeled=10, seed=seed, family="knn")
    )


def side(dataset: str, n: int, lo: float, hi: float, seed: int, check: bool) -> dict:
    """One exact curve in this process (``--side``), on the sslviz importable here."""
    import sslviz.labeling as labeling
    from sslviz.truth import true_loss_curve

    p = _problem(dataset, n, seed)
    gth = [0]
    solve = labeling.HarmonicModel._solve

    def counted(self, *args, **kwargs):
        sl = solve(self, *args, **kwargs)
        gth[0] += sl.status == "gth"
        return sl

    labeling.HarmonicModel._solve = counted
    t0 = time.perf_counter()
    curve = true_loss_curve(p.model, p.y_unlabeled, lo, hi)
    out = {
        "seconds": time.perf_counter() - t0,
        "evaluations": int(curve.evaluations.size),
        "gth": gth[0],
        "breakpoints": curve.breakpoints.tolist(),
        "losses": curve.loss.values.tolist(),
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    if check:
        out["check"] = _check(p, curve, lo, hi)
    return out


def _check(p, curve, lo: float, hi: float) -> dict:
    """The curve against sparse GTH solves (see the module docstring)."""
    from sslviz.solvers import SparseGTHFactorization
    from sslviz.systems import rowsum as _rowsum

    m = p.model

    def h(sigma: float) -> np.ndarray:
        W_UU, W_UL, _, _ = m.blocks(sigma, row_scaled=True)
        return SparseGTHFactorization(W_UU, _rowsum(W_UL)).solve(W_UL @ m.y_l).x - 0.5

    rng = np.random.default_rng(0)
    bps = curve.breakpoints
    picked = rng.choice(bps.size, size=min(12, bps.size), replace=False) if bps.size else []
    nodes_ok = 0
    for i in picked:
        a, b = h(bps[i] * (1 - 1.2e-8)), h(bps[i] * (1 + 1.2e-8))
        nodes_ok += set(np.flatnonzero((a > 0) != (b > 0)).tolist()) == set(curve.nodes[i].tolist())
    loss_ok = 0
    sigmas = rng.uniform(lo, hi, 6)
    for s in sigmas:
        wrong = np.mean((h(s) > 0) != (p.y_unlabeled == 1))
        loss_ok += bool(wrong == float(curve.loss(s)))
    return {
        "breakpoints_checked": len(picked),
        "breakpoints_ok": nodes_ok,
        "sigmas_checked": len(sigmas),
        "losses_ok": loss_ok,
    }


def timed(args: list[str], cap: float, tree: Path | None) -> dict | None:
    """``side`` in a subprocess (on ``tree`` when given); None past ``cap`` seconds."""
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    cmd = [sys.executable, __file__, "--side", *args]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=cap, check=True, env=env)
    except subprocess.TimeoutExpired:
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cap", type=float, default=150.0, help="seconds per side and instance")
    ap.add_argument("--sizes", type=int, nargs="*", help="only these n")
    ap.add_argument("--old", default=OLD_COMMIT, help="commit of the old side")
    ap.add_argument("--side", nargs=6, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.side:
        ds, n, lo, hi, seed, check = a.side
        print(json.dumps(side(ds, int(n), float(lo), float(hi), int(seed), check == "check")))
        return
    dataset = fashion_or_digits()
    tree = old_tree(a.old)
    rows = []
    for n, lo, hi, seed in INSTANCES:
        if a.sizes and n not in a.sizes:
            continue
        if dataset == "digits" and n > 360:
            continue
        load = os.getloadavg()[0]
        args = [dataset, str(n), str(lo), str(hi), str(seed)]
        new = timed([*args, "check"], 4 * a.cap, None)  # the check's GTH solves are extra
        old = timed([*args, "-"], a.cap, tree)
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
        "# Exact loss curves on kNN-6 graphs: new against old",
        "",
        f"Command: `python benchmarks/exact_knn.py --cap {a.cap:.0f}`. {dataset}, |L| = 10, "
        "harmonic labels. New: this checkout (nested-dissection order, refinement of every "
        "LU solve, the Chebyshev search from 1,500 unlabeled nodes). Old: commit "
        f"{a.old} (minimum-degree order, no refinement, the Hermite search). Each side in "
        "its own process, one after the other. Check: the new curve against sparse GTH "
        "solves (breakpoint nodes at σ(1 ∓ 1.2e-8), losses at random σ).",
        "",
        "| n | σ range | new (s) | old (s) | speed-up | σ evaluated new / old | GTH redos "
        "new / old | breakpoints | largest relative difference | losses equal | check "
        "(breakpoints, losses) | new peak memory | load |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        new, old = r["new"], r["old"]
        ratio = (
            f"{old['seconds'] / new['seconds']:.1f}×"
            if new and old
            else (f"> {a.cap / new['seconds']:.0f}×" if new else "–")
        )
        diff = r.get("max_rel_diff")
        ck = new["check"] if new else None
        peak = f"{new['peak_mb']:,.0f} MB" if new else "–"
        check = (
            (
                f"{ck['breakpoints_ok']}/{ck['breakpoints_checked']}, "
                f"{ck['losses_ok']}/{ck['sigmas_checked']}"
            )
            if ck
            else "–"
        )
        lines.append(
            f"| {r['n']} | [{r['sigma'][0]}, {r['sigma'][1]}] | {cell(new, 'seconds', '.1f')} | "
            f"{cell(old, 'seconds', '.1f')} | {ratio} | "
            f"{new['evaluations'] if new else '–'} / {old['evaluations'] if old else '–'} | "
            f"{new['gth'] if new else '–'} / {old['gth'] if old else '–'} | "
            f"{len(new['breakpoints']) if new else '–'} | "
            f"{'–' if diff is None else f'{diff:.1e}'} | "
            f"{r.get('losses_equal', '–')} | {check} | "
            f"{peak} | {r['load']:.1f} |"
        )
    write(
        "exact_knn",
        {"machine": machine(), "cap": a.cap, "old_commit": a.old, "rows": rows},
        "\n".join(lines) + "\n",
    )


if __name__ == "__main__":
    main()
