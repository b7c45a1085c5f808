"""``sslviz`` command line: the app's computations, written to JSON.

    sslviz loss       exact loss curve l(σ) with its breakpoints
    sslviz condition  κ(I − P_UU) (or κ(A)) on a σ grid
    sslviz intervals  Algorithm 4 (paper or fast mode), optionally scored against the truth
    sslviz regret     online Exp3-Set tuning of σ: regret of each feedback model
    sslviz learn      σ (and k) learned by ERM over many instances, measured on held-out ones
    sslviz cv         the exact cross-validated accuracy over γ = 1/σ² and the best γ

Every option is generated from the settings tables of :mod:`sslviz.specs` (:data:`COMMANDS`
says which tables each command takes), and :func:`command_line` writes the command that
reproduces a set of settings. Bad arguments exit with status 2 and one line saying what to
change. The JSON documents come from :mod:`sslviz.export`; what a command prints follows
:data:`OUTPUT` (a short summary from :mod:`sslviz.summary`, or the JSON).
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from sslviz import __version__, registry
from sslviz import specs as S
from sslviz.runs import (
    _either,
    _gaussian,
    checked_problem,
    learn_run,
    regret_run,
)


class _UsageError(Exception):
    pass


def _choices(quoted: str) -> str:
    """argparse's "'a', 'b', 'c'" as "a, b or c"."""
    return _either(re.findall(r"'([^']*)'", quoted)) or quoted


def _plain(message: str) -> str:
    """An argparse message in words saying what to change: "--family foo: choose complete,
    knn, mutual-knn or threshold", "--n abc: not a whole number", "--classes: give 2
    values"; any other message as argparse says it."""
    if m := re.fullmatch(r"argument (\S+): invalid choice: '(.*)' \(choose from (.*)\)", message):
        if m[1] == "command":
            return f"{m[2]} is not a command: choose {_choices(m[3])}"
        return f"{m[1]} {m[2]}: choose {_choices(m[3])}"
    if m := re.fullmatch(r"argument (\S+): invalid (.+) value: '(.*)'", message):
        kind = "valid value (see its help)" if m[2] == "value" else m[2]
        return f"{m[1]} {m[3]}: not a {kind}" if m[3] else f"{m[1]}: give a {kind}"
    if m := re.fullmatch(r"argument (\S+): expected (\w+) arguments?", message):
        return f"{m[1]}: give {'a value' if m[2] == 'one' else m[2] + ' values'}"
    if m := re.fullmatch(r"unrecognized arguments: (.*)", message):
        return f"unknown option {m[1]}" if " " not in m[1] else f"unknown options {m[1]}"
    if message == "the following arguments are required: command":
        return f"give a command: {_either(list(COMMANDS))}"
    return message


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one short line instead of the full usage text
        command = " ".join(self.prog.split()[1:2])  # "" for sslviz itself
        raise _UsageError(f"{_plain(message)} (see 'sslviz {command} --help')".replace("  ", " "))


COMMANDS: dict[str, tuple[str, tuple[type, ...]]] = {
    "loss": (
        "exact loss curve and breakpoints",
        (S.ProblemSpec, S.SigmaRange, S.LossSettings),
    ),
    "condition": ("condition numbers across σ", (S.ProblemSpec, S.SigmaRange, S.ConditionSettings)),
    "intervals": (
        "Algorithm 4 constant-loss intervals",
        (S.ProblemSpec, S.SigmaRange, S.SweepSettings, S.ScoreSettings),
    ),
    "regret": (
        "online Exp3-Set regret",
        (S.ProblemSpec, S.SigmaRange, S.SweepSettings, S.RegretSettings),
    ),
    "learn": (
        "σ (and k) learned from many instances",
        (S.ProblemSpec, S.SigmaRange, S.LearnSettings),
    ),
    "cv": ("exact cross-validated accuracy over γ = 1/σ²", (S.ProblemSpec, S.SigmaRange)),
}
"""Each command: its help line and the settings tables its options come from."""

_TITLES = {
    S.ProblemSpec: "instance, graph and labeling",
    S.SigmaRange: "bandwidth range (default: the range suggested by the data)",
    S.SweepSettings: "solver and Algorithm 4",
    S.ScoreSettings: "scoring",
    S.LossSettings: "σ sub-ranges (three or more classes)",
    S.ConditionSettings: "conditioning grid",
    S.RegretSettings: "online experiment",
    S.LearnSettings: "learning from many instances",
}


OUTPUT = (
    "Output: with --out FILE the JSON goes to FILE and a short summary of what was computed "
    "is printed; without --out the summary is printed on a terminal, and the JSON when "
    "standard output is a pipe or a file (as scripts read it). --json prints the JSON "
    "instead of the summary (with --out FILE: the JSON goes to FILE only, and nothing is "
    "printed). The JSON is the same bytes in every case. Progress goes to standard error."
)
"""What a command prints (its help and docs/cli.md say the same)."""


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="sslviz", description=__doc__.split("\n\n")[0], epilog=OUTPUT)
    p.add_argument("--version", action="version", version=f"sslviz {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name, (help_text, tables) in COMMANDS.items():
        q = sub.add_parser(
            name, help=help_text, description=help_text, epilog=OUTPUT, conflict_handler="resolve"
        )
        for cls in tables:
            S.add_options(q, cls, title=_TITLES[cls])
        if name == "learn":  # one instance per file, each used exactly as given
            for flag, what in (("--data-file", "a training"), ("--test-file", "a held-out")):
                q.add_argument(
                    flag,
                    action="append",
                    metavar="FILE.npz",
                    help=f"{what} instance: a .npz with X, y and a boolean "
                    "'labeled' mask (repeat the option, once per instance)",
                )
        if name == "condition":
            q.add_argument(
                "--sigmas",
                metavar="X:Y:COUNT",
                help="σ grid shorthand: COUNT values from X to Y (sets --sigma-min, "
                "--sigma-max, --points)",
            )
        if name == "cv":
            q.add_argument(
                "--cv",
                type=int,
                default=CV_FOLDS,
                metavar="FOLDS",
                help="folds of the labeled points (stratified k-fold, shuffled with seed 0, "
                "where every class has that many labeled points, else k-fold; as "
                f"ExactGammaSearchCV's cv; default {CV_FOLDS})",
            )
            q.add_argument(
                "--gamma-range",
                nargs=2,
                type=float,
                metavar=("LOW", "HIGH"),
                help="the γ range searched (γ = 1/σ²), instead of --sigma-min/--sigma-max "
                "(default: the range suggested by the data)",
            )
        q.add_argument(
            "--out",
            metavar="FILE",
            help="write the JSON to FILE, and print a short summary (default: the summary "
            "on a terminal, the JSON on a pipe or file)",
        )
        q.add_argument(
            "--json",
            action="store_true",
            help="print the JSON, not the summary (with --out: write it to FILE only, "
            "and print nothing)",
        )
        q.add_argument(
            "--no-timings",
            dest="timings",
            action="store_false",
            help="leave out the measured times ('seconds', 'time_per_interval'): the rest "
            "is the same bytes from run to run on one machine, and equals the app's "
            "download of the same view; on another machine it is the same but for the "
            "last bits of floats (within 1e-10 relative)",
        )
    return p


def command_line(
    command: str,
    *specs: S.Spec,
    out: str | None = None,
    timings: bool = False,
    extra: tuple[str, ...] = (),
) -> str:
    """The ``sslviz`` command that reproduces ``specs`` (each must be a table of ``command``)
    and the command's own options ``extra`` (``sslviz cv``'s ``--cv FOLDS``): with
    ``--no-timings`` unless ``timings``, so its output is the app's download, byte for
    byte."""
    tables = COMMANDS[command][1]
    args = ["sslviz", command]
    for spec in specs:
        if type(spec) not in tables:
            what = _TITLES.get(type(spec), "these").split(" (")[0]
            raise ValueError(
                f"sslviz {command} does not take the {what} settings; it takes those of: "
                + "; ".join(_TITLES[cls].split(" (")[0] for cls in tables)
            )
        args += S.to_command(spec)
    return shlex.join(
        args + list(extra) + ([] if timings else ["--no-timings"]) + (["--out", out] if out else [])
    )


def _problem(a: argparse.Namespace, *, unknown_ok: bool = False):
    """The problem of the options; ``unknown_ok``: a file whose y marks unlabeled points
    with −1 (their labels unknown) is taken (``sslviz cv`` reads the labeled points only)."""
    return checked_problem(S.from_options(a, S.ProblemSpec), unknown_ok=unknown_ok)


def _range(a: argparse.Namespace, problem) -> tuple[float, float]:
    from sslviz.problem import sigma_range

    return sigma_range(problem, S.from_options(a, S.SigmaRange))


def _sigma_grid(text: str) -> tuple[float, float, int]:
    try:
        x, y, c = text.split(":")
        x, y, c = float(x), float(y), int(c)
    except ValueError:
        raise _UsageError(
            f"--sigmas {text}: write X:Y:COUNT (COUNT σ from X to Y), e.g. 1:7:13"
        ) from None
    if c < 1 or not 0 < x <= y or (c > 1 and x == y):
        raise _UsageError(
            f"--sigmas {text}: X must be above 0 and below Y, and COUNT at least 1, e.g. 1:7:13"
        )
    return x, y, c


Summarize = Callable[[dict], list[str]]
"""The summary of a command's document (as written): its lines (:mod:`sslviz.summary`)."""


def cmd_loss(a) -> tuple[dict, Summarize]:
    from sslviz.export import loss_document
    from sslviz.problem import loss_curve
    from sslviz.summary import loss_summary

    split = S.from_options(a, S.LossSettings)
    problem = _problem(a)
    lo, hi = _range(a, problem)
    if split.parts == 1:
        if given := set(S.given_options(a, S.LossSettings)) - {"parts"}:
            flags = " and ".join(S.setting(S.LossSettings, n).flag for n in sorted(given))
            raise _UsageError(f"{flags} run the σ sub-ranges: give --parts 2 or more")
        return loss_document(problem, loss_curve(problem, lo, hi), (lo, hi)), loss_summary
    if problem.instance.n_classes == 2 or not problem.spec.gaussian:
        raise _UsageError(
            "--parts splits the search of three or more classes on a Gaussian family: "
            "leave it out here (one search of the whole range)"
        )
    from sslviz.truth import split_loss_curve

    inst = problem.instance
    try:
        curve = split_loss_curve(
            problem.model,
            inst.y,
            inst.classes,
            lo,
            hi,
            split.parts,
            n_jobs=split.jobs,
            dask=split.dask,
        )
    except (OSError, ImportError) as exc:  # only the Dask route connects or imports
        if split.dask is None:
            raise
        raise _UsageError(
            f"cannot run on the Dask scheduler at {split.dask} ({_one_line(exc)}): check "
            "--dask, or leave it out to run on local processes"
        ) from None
    return loss_document(problem, curve, (lo, hi), split.parts), loss_summary


def cmd_condition(a) -> tuple[dict, Summarize]:
    from sslviz.class_trust import class_trust_curve
    from sslviz.conditioning import condition_curve, trust_curve
    from sslviz.export import condition_document
    from sslviz.summary import condition_summary

    grid = _sigma_grid(a.sigmas) if a.sigmas else None
    problem = _problem(a)
    _gaussian(problem, "condition")
    inst = problem.instance
    if grid is not None:
        settings = S.from_options(a, S.ConditionSettings, points=grid[2])
        sigmas = np.linspace(*grid)
    else:
        settings = S.from_options(a, S.ConditionSettings)
        sigmas = np.linspace(*_range(a, problem), settings.points)
    t0 = time.perf_counter()
    curve = condition_curve(
        problem.model,
        sigmas,
        solver=settings.solver,
        cg_iters=settings.cg_iters,
        rtol=settings.rtol,
        y=inst.y,
        classes=inst.classes,
    )
    trust = None
    if settings.trust and inst.n_classes > 2:  # one-vs-all (docs/method.md §13.9)
        trust = class_trust_curve(
            problem.model,
            inst.y,
            inst.classes,
            sigmas,
            solver=settings.solver,
            cg_iters=settings.cg_iters,
        )
    elif settings.trust:
        trust = trust_curve(
            problem.model, sigmas, solver=settings.solver, cg_iters=settings.cg_iters
        )
    doc = condition_document(problem, curve, settings, time.perf_counter() - t0, trust)
    return doc, lambda d: condition_summary(d, curve.iteration_cap.tolist())


def cmd_intervals(a) -> tuple[dict, Summarize]:
    from sslviz.export import intervals_document
    from sslviz.problem import loss_curve, problem_sweep
    from sslviz.scoring import score
    from sslviz.summary import intervals_summary

    settings = S.from_options(a, S.SweepSettings)
    scoring = S.from_options(a, S.ScoreSettings)
    problem = _problem(a)
    _gaussian(problem, "intervals")
    lo, hi = _range(a, problem)
    inst = problem.instance
    res = problem_sweep(problem, lo, hi, settings)
    sc = (
        score(
            res,
            loss_curve(problem, lo, hi),
            tol=scoring.tol,
            model=problem.model,
            max_attributed=scoring.max_attributed,
            y=inst.y,
        )
        if scoring.score
        else None
    )
    doc = intervals_document(problem, res, settings, sc, scoring if scoring.score else None)
    return doc, intervals_summary


def cmd_regret(a) -> tuple[dict, Summarize]:
    from sslviz.summary import regret_summary

    problem = _problem(a)  # fails fast, with a clear message, before starting workers

    def progress(done, total):
        print(f"repetition {done}/{total} done", file=sys.stderr)

    doc, _ = regret_run(
        problem,
        S.from_options(a, S.SigmaRange),
        S.from_options(a, S.SweepSettings),
        S.from_options(a, S.RegretSettings),
        progress,
    )
    return doc, regret_summary


def cmd_learn(a) -> tuple[dict, Summarize]:
    from sslviz.summary import learn_summary

    base = S.from_options(a, S.ProblemSpec, data_file=None)
    drawn = "dataset" in S.given_options(a, S.ProblemSpec)
    doc, _ = learn_run(
        base,
        S.from_options(a, S.LearnSettings),
        S.from_options(a, S.SigmaRange),
        a.data_file or [],
        a.test_file or [],
        drawn=drawn,
    )
    return doc, learn_summary


CV_FOLDS = 5
"""``sslviz cv``'s default number of folds (ExactGammaSearchCV's)."""


def cmd_cv(a) -> tuple[dict, Summarize]:
    from sslviz import api
    from sslviz.export import settings_dict

    given = S.given_options(a, S.SigmaRange)
    if a.gamma_range is not None and given:
        raise _UsageError("give --gamma-range or --sigma-min/--sigma-max, not both")
    problem = _problem(a, unknown_ok=True)
    _gaussian(problem, "cv")
    if a.gamma_range is not None:
        g_lo, g_hi = a.gamma_range
        if not (np.isfinite(g_lo) and np.isfinite(g_hi) and 0 < g_lo < g_hi):
            raise _UsageError("--gamma-range LOW HIGH: give two positive numbers, LOW below HIGH")
        bounds = api.sigma_bounds(None, a.gamma_range)
    elif given:
        bounds = _range(a, problem)
    else:
        bounds = None
    t0 = time.perf_counter()
    search = api.problem_search(problem, a.cv, bounds)
    lo, hi = search.sigma_range
    doc = search.document(
        settings_dict(problem.spec, sigma_min=lo, sigma_max=hi, cv=search.n_folds),
        time.perf_counter() - t0,
    )
    return doc, api.cv_summary


HANDLERS = {
    "loss": cmd_loss,
    "condition": cmd_condition,
    "intervals": cmd_intervals,
    "regret": cmd_regret,
    "learn": cmd_learn,
    "cv": cmd_cv,
}


def _one_line(exc: BaseException) -> str:
    """The error in one line, a setting named by its flag (``--n``, not ``n``)."""
    text = exc.text(cli=True) if isinstance(exc, S.SettingError) else str(exc)
    return " ".join(text.split())[:600]


def _check_out(path: str | None) -> None:
    """``--out``'s folder exists and the path is not a folder (checked before any work)."""
    if path is None:
        return
    out = Path(path)
    if out.is_dir():
        raise _UsageError(f"--out {path} is a folder; give a file name, e.g. {out / 'out.json'}")
    if not out.parent.is_dir():
        raise _UsageError(f"--out {path}: no folder {out.parent}; create it or write elsewhere")


def _where(out: str | None) -> str:
    """The summary's last line: where the JSON went."""
    if out:
        return f"JSON written to {out}"
    return "JSON not written: add --out FILE to keep it, or --json to print it"


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``sslviz`` command; returns the exit status. What it prints
    follows :data:`OUTPUT`."""
    from sslviz._validation import InvalidParameterError
    from sslviz.datasets import DatasetUnavailableError
    from sslviz.export import dumps, without_timings

    for line in registry.problems():  # a plug-in left out: said, and the rest works
        print(f"sslviz: warning: {line}", file=sys.stderr)
    try:
        args = build_parser().parse_args(argv)
        _check_out(args.out)
        result, summarize = HANDLERS[args.command](args)
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
    document = result if args.timings else without_timings(result)  # what the JSON holds
    text = dumps(document)
    if args.out:
        try:
            Path(args.out).write_text(text)
        except OSError as exc:
            print(f"sslviz: error: cannot write --out {args.out}: {exc.strerror}", file=sys.stderr)
            return 2
    if args.json:
        if not args.out:
            print(text)
    elif args.out or sys.stdout.isatty():
        print("\n".join([*summarize(document), _where(args.out)]))
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
