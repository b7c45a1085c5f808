"""``sslviz`` command line: the app's computations, written to JSON.

    sslviz loss       exact loss curve l(σ) with its breakpoints
    sslviz condition  κ(I − P_UU) (or κ(A)) on a σ grid
    sslviz intervals  Algorithm 4 (paper or fast mode), optionally scored against the truth
    sslviz regret     online Exp3-Set tuning of σ: regret of each feedback model

Bad arguments exit with status 2 and one line saying what to change.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from sslviz import __version__
from sslviz._validation import check_sigma_range
from sslviz.data import DATASETS


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one short line instead of the full usage text
        raise _UsageError(f"{message} (see 'sslviz {self.prog.split()[-1]} --help')")


def _instance_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("instance")
    src = g.add_mutually_exclusive_group()
    src.add_argument(
        "--dataset", default="digits", help=f"dataset name: {', '.join(DATASETS)} (default: digits)"
    )
    src.add_argument("--data-file", help=".npz (X, y[, labeled]) or .csv with a label column")
    g.add_argument(
        "--classes",
        nargs=2,
        type=int,
        default=[0, 1],
        metavar=("C0", "C1"),
        help="the two classes; C1 becomes label 1 (default: 0 1)",
    )
    g.add_argument("--n", type=int, default=100, help="number of points (default: 100)")
    g.add_argument("--labeled", type=int, default=10, help="|L| (default: 10)")
    g.add_argument("--seed", type=int, default=0, help="instance seed (default: 0)")
    g.add_argument("--pca", type=int, default=45, help="PCA components, 0 = none (default: 45)")
    g.add_argument("--data-root", help="data folder (default: $SSLVIZ_DATA or ~/.cache/sslviz)")
    g.add_argument("--download", action="store_true", help="download a missing dataset")
    g = p.add_argument_group("graph and labeling")
    g.add_argument(
        "--family",
        default="knn",
        choices=["complete", "knn", "mutual-knn", "threshold"],
        help="graph family (default: knn, the symmetrised 'or' kNN)",
    )
    g.add_argument("--k", type=int, default=6, help="nearest neighbours, self excluded (6)")
    g.add_argument("--labeling", default="harmonic", choices=["harmonic", "delalleau"])
    g.add_argument("--subset", type=int, default=50, help="Delalleau |Ũ| (default: 50)")
    g.add_argument("--lam", type=float, default=1.4, help="Delalleau λ (default: 1.4)")
    p.add_argument("--out", help="write JSON here (default: standard output)")


def _range_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--sigma-min", type=float, required=True, help="σ_min > 0 (r_min for the threshold family)"
    )
    p.add_argument(
        "--sigma-max",
        type=float,
        required=True,
        help="σ_max > σ_min (r_max for the threshold family)",
    )


def _sweep_args(p: argparse.ArgumentParser, mode_default: str = "fast") -> None:
    p.add_argument("--solver", default="cg", choices=["cg", "pcg", "exact", "inverse"])
    p.add_argument("--cg-iters", type=int, default=20, help="CG iterations t (default: 20)")
    p.add_argument("--epsilon", type=float, default=1e-4, help="ε of Algorithm 4 (1e-4)")
    p.add_argument("--eta", type=float, default=1.0, help="η, gradient step (default: 1)")
    p.add_argument("--step", type=float, default=0.05, help="sweep restart step (0.05)")
    p.add_argument("--mode", default=mode_default, choices=["fast", "paper"])


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="sslviz", description=__doc__.split("\n\n")[0])
    p.add_argument("--version", action="version", version=f"sslviz {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    q = sub.add_parser("loss", help="exact loss curve and breakpoints")
    _instance_args(q)
    _range_args(q)
    q = sub.add_parser("condition", help="condition numbers across σ")
    _instance_args(q)
    q.add_argument(
        "--sigmas", required=True, metavar="X:Y:COUNT", help="σ grid: COUNT values from X to Y"
    )
    q.add_argument("--solver", default="cg", choices=["cg", "pcg"])
    q.add_argument("--cg-iters", type=int, default=20)
    q.add_argument("--rtol", type=float, default=1e-6, help="tolerance for 'iterations needed'")
    q = sub.add_parser("intervals", help="Algorithm 4 constant-loss intervals")
    _instance_args(q)
    _range_args(q)
    _sweep_args(q)
    q.add_argument("--score", action="store_true", help="score against the exact curve")
    q.add_argument(
        "--tol",
        type=float,
        default=1e-3,
        help="scoring tolerance for endpoints (σ units, default 1e-3)",
    )
    q = sub.add_parser("regret", help="online Exp3-Set regret")
    _instance_args(q)
    _range_args(q)
    _sweep_args(q)
    q.add_argument("--rounds", type=int, default=100, help="T (default: 100)")
    q.add_argument("--repeats", type=int, default=5, help="R repetitions (default: 5)")
    q.add_argument(
        "--feedback",
        default="approx,exact,full,uniform",
        help="comma-separated models: approx, exact, full, uniform",
    )
    q.add_argument("--lr", default="auto", help="step size λ, or 'auto' (Theorem 3.1)")
    q.add_argument("--jobs", type=int, default=-1, help="local joblib workers (-1: all)")
    q.add_argument("--dask", help="Dask scheduler address; runs repetitions there")
    return p


def _spec(a: argparse.Namespace):
    from sslviz.problem import ProblemSpec

    if a.data_file is not None and not Path(a.data_file).is_file():
        raise _UsageError(f"--data-file {a.data_file}: no such file; give an existing .npz or .csv")
    return ProblemSpec(
        dataset=a.dataset,
        data_file=a.data_file,
        classes=tuple(a.classes),
        n=a.n,
        n_labeled=a.labeled,
        seed=a.seed,
        pca=a.pca,
        family=a.family,
        k=a.k,
        labeling=a.labeling,
        subset=a.subset,
        lam=a.lam,
        data_root=a.data_root,
        download=a.download,
    )


def _settings(a: argparse.Namespace):
    from sslviz.intervals import SweepSettings

    return SweepSettings(
        solver=a.solver, cg_iters=a.cg_iters, epsilon=a.epsilon, eta=a.eta, step=a.step, mode=a.mode
    )


def _sigma_grid(text: str) -> np.ndarray:
    try:
        x, y, c = text.split(":")
        x, y, c = float(x), float(y), int(c)
    except ValueError:
        raise _UsageError(f"--sigmas {text!r}: expected X:Y:COUNT, e.g. 1:7:13") from None
    if c < 1 or not 0 < x <= y or (c > 1 and x == y):
        raise _UsageError(f"--sigmas {text!r}: need 0 < X < Y and COUNT >= 1")
    return np.linspace(x, y, c)


def cmd_loss(a) -> dict:
    from sslviz.problem import build_problem, curve_to_dict, loss_curve

    lo, hi = check_sigma_range(a.sigma_min, a.sigma_max, "sslviz loss")
    problem = build_problem(_spec(a))
    out = curve_to_dict(problem, loss_curve(problem, lo, hi))
    out["settings"] = problem.spec.to_dict() | {"sigma_min": lo, "sigma_max": hi}
    return out


def cmd_condition(a) -> dict:
    from sslviz.conditioning import condition_curve
    from sslviz.problem import build_problem

    sig = _sigma_grid(a.sigmas)
    problem = build_problem(_spec(a))
    if problem.spec.family == "threshold":
        raise _UsageError("condition needs a Gaussian family (complete, knn, mutual-knn)")
    t0 = time.perf_counter()
    out = condition_curve(
        problem.model, sig, solver=a.solver, cg_iters=a.cg_iters, rtol=a.rtol
    ).to_dict()
    out["seconds"] = time.perf_counter() - t0
    out["settings"] = problem.spec.to_dict()
    return out


def cmd_intervals(a) -> dict:
    from sslviz.intervals import score, sweep
    from sslviz.problem import build_problem, loss_curve

    lo, hi = check_sigma_range(a.sigma_min, a.sigma_max, "sslviz intervals")
    settings = _settings(a)
    problem = build_problem(_spec(a))
    if problem.spec.family == "threshold":
        raise _UsageError(
            "intervals needs a Gaussian family (complete, knn, mutual-knn); "
            "the threshold family's loss is exact in 'sslviz loss'"
        )
    res = sweep(problem.model, problem.y_unlabeled, lo, hi, settings)
    rows = problem.model.unlabeled_idx

    def row(u):
        return int(rows[u]) if u >= 0 else None

    out = {
        "intervals": [
            {
                "lo": iv.lo,
                "hi": iv.hi,
                "loss": iv.loss,
                "sigma0": iv.sigma0,
                "lo_node": row(iv.lo_node),
                "hi_node": row(iv.hi_node),
            }
            for iv in res.intervals
        ],
        "M": len(res.intervals),
        "seconds": res.seconds,
        "time_per_interval": res.time_per_interval,
        "solves": res.solves,
        "matvecs": res.matvecs,
        "settings": problem.spec.to_dict()
        | {
            "sigma_min": lo,
            "sigma_max": hi,
            "solver": settings.solver,
            "cg_iters": settings.cg_iters,
            "epsilon": settings.epsilon,
            "eta": settings.eta,
            "step": settings.step,
            "mode": settings.mode,
        },
    }
    if a.score:
        sc = score(res, loss_curve(problem, lo, hi), tol=a.tol).to_dict()
        for m in sc["misses"]:
            m["nodes"] = problem.rows(m["nodes"])
        out["score"] = sc
    return out


def cmd_regret(a) -> dict:
    from sslviz.online import GraphRounds, regret_experiment

    lo, hi = check_sigma_range(a.sigma_min, a.sigma_max, "sslviz regret")
    spec = _spec(a)
    if spec.family == "threshold":
        raise _UsageError("regret needs a Gaussian family (complete, knn, mutual-knn)")
    try:
        lr = "auto" if a.lr == "auto" else float(a.lr)
    except ValueError:
        raise _UsageError(f"--lr {a.lr!r}: give a positive number or 'auto'") from None
    from sslviz.problem import build_problem

    build_problem(spec)  # fail fast, with a clear message, before starting workers
    provider = GraphRounds(spec, lo, hi, _settings(a))
    models = [m.strip() for m in a.feedback.split(",") if m.strip()]

    def progress(done, total):
        print(f"repetition {done}/{total} done", file=sys.stderr)

    exp = regret_experiment(
        provider,
        rounds=a.rounds,
        repeats=a.repeats,
        feedback=models,
        lr=lr,
        seed=a.seed,
        n_jobs=a.jobs,
        dask=a.dask,
        progress=progress,
    )
    out = exp.to_dict()
    out["settings"] = spec.to_dict() | {"sigma_min": lo, "sigma_max": hi}
    return out


COMMANDS = {
    "loss": cmd_loss,
    "condition": cmd_condition,
    "intervals": cmd_intervals,
    "regret": cmd_regret,
}


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:600]


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``sslviz`` command; returns the exit status."""
    from sslviz._validation import InvalidParameterError
    from sslviz.data import DatasetUnavailableError

    try:
        args = build_parser().parse_args(argv)
        result = COMMANDS[args.command](args)
    except (
        _UsageError,
        InvalidParameterError,
        DatasetUnavailableError,
        FileNotFoundError,
        TypeError,
        ValueError,
    ) as exc:
        print(f"sslviz: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    text = json.dumps(result, indent=1, allow_nan=False)
    if args.out:
        Path(args.out).write_text(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
