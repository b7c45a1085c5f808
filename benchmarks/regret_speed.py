"""Time the online Exp3-Set experiment, old code against new, in one run.

Two configurations, all four feedback models, local joblib workers (as the CLI):

* ``readme``: the README example — digits 0 vs 1, n = 100, |L| = 10, kNN-6,
  σ ∈ [0.5, 5], CG-20, T = 100, R = 5;
* ``complete``: digits 3 vs 8, n = 80, |L| = 10, complete graph, σ ∈ [0.2, 3], CG-20,
  T = 40, R = 3.

The "old" side runs in a subprocess on a git worktree of ``--old`` (default: the commit
before the speed-ups, 5f98767), checked out under the system's temporary directory when
missing; the "new" side runs on this checkout. Both sides' regret arrays are compared
with ``np.array_equal``.

    python benchmarks/regret_speed.py            # writes benchmarks/results/regret.{json,md}
    python benchmarks/regret_speed.py --only complete
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OLD_COMMIT = "5f98767"

CONFIGS = {
    "readme": dict(
        spec=dict(dataset="digits", classes=(0, 1), n=100, n_labeled=10, family="knn", k=6),
        sigma=(0.5, 5.0),
        rounds=100,
        repeats=5,
        title="digits 0 vs 1, n = 100, |L| = 10, kNN-6, σ ∈ [0.5, 5], CG-20, T = 100, R = 5",
    ),
    "complete": dict(
        spec=dict(dataset="digits", classes=(3, 8), n=80, n_labeled=10, family="complete"),
        sigma=(0.2, 3.0),
        rounds=40,
        repeats=3,
        title="digits 3 vs 8, n = 80, |L| = 10, complete, σ ∈ [0.2, 3], CG-20, T = 40, R = 3",
    ),
}


def run_one(name: str) -> dict:
    """One configuration on the sslviz importable here: wall time and regret arrays."""
    from sslviz.experiment import regret_experiment
    from sslviz.problem import GraphRounds
    from sslviz.specs import ProblemSpec, SweepSettings

    cfg = CONFIGS[name]
    spec = ProblemSpec(**cfg["spec"])
    provider = GraphRounds(spec, *cfg["sigma"], SweepSettings(solver="cg", cg_iters=20))
    t0 = time.perf_counter()
    exp = regret_experiment(provider, rounds=cfg["rounds"], repeats=cfg["repeats"], n_jobs=-1)
    wall = time.perf_counter() - t0
    regrets = {m: [run.regret.tolist() for run in r.runs] for m, r in exp.models.items()}
    means = {m: float(r.regret_mean[-1]) for m, r in exp.models.items()}
    return {"wall": wall, "regrets": regrets, "final_mean": means}


def _side(name: str, tree: Path | None) -> dict:
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    code = (
        f"import sys, json; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
        f"import regret_speed as b; print(json.dumps(b.run_one({name!r})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=tempfile.gettempdir(),
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    from _common import machine, old_tree, write

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", default=OLD_COMMIT, help="commit of the old side")
    ap.add_argument("--only", choices=sorted(CONFIGS), help="one configuration")
    args = ap.parse_args()
    tree = old_tree(args.old)
    rows, payload = [], {"machine": machine(), "old_commit": args.old, "configs": {}}
    for name in [args.only] if args.only else list(CONFIGS):
        load = os.getloadavg()[0]
        old = _side(name, tree)
        new = _side(name, ROOT)
        same = all(
            np.array_equal(np.array(old["regrets"][m]), np.array(new["regrets"][m]))
            for m in old["regrets"]
        )
        ratio = old["wall"] / new["wall"]
        payload["configs"][name] = {
            "title": CONFIGS[name]["title"],
            "old_seconds": old["wall"],
            "new_seconds": new["wall"],
            "speedup": ratio,
            "regrets_identical": same,
            "final_regret_mean": new["final_mean"],
            "load_average_before": load,
        }
        rows.append(
            f"| {CONFIGS[name]['title']} | {old['wall']:.1f} | {new['wall']:.1f} | "
            f"{ratio:.1f}× | {'yes' if same else '**NO**'} | {load:.1f} |"
        )
        print(rows[-1], flush=True)
    md = [
        "# Online regret experiment: old against new (all four feedback models)",
        "",
        f"Command: `python benchmarks/regret_speed.py` (old side: commit {args.old}, in a "
        f"subprocess on a git worktree); {machine()['cpus']} local cores, joblib workers.",
        "",
        "| configuration | old wall (s) | new wall (s) | speed-up | regrets identical "
        "| load avg. before |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        "Old and new run one after the other; a load average above 0 means other work shared "
        "the cores (both sides slow down).",
    ]
    write("regret", payload, "\n".join(md) + "\n")


if __name__ == "__main__":
    main()
