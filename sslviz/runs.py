"""The command line's runs that the Python API shares (``sslviz regret``, ``sslviz learn``,
the checked problem of a command): each returns the command's JSON document and its result,
and refuses bad settings with a :class:`CommandError` in one line saying what to change."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from sslviz import specs as S


class CommandError(ValueError):
    """A command's settings cannot run: one line saying what to change."""


def _either(names: list[str]) -> str:
    """``['a', 'b', 'c']`` as "a, b or c"."""
    return ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else "".join(names)


def checked_problem(spec: S.ProblemSpec, *, unknown_ok: bool = False):
    """The problem of ``spec``, its data file checked (:func:`_problem`; the Python API's)."""
    from sslviz.problem import build_problem

    if spec.data_file is not None and not Path(spec.data_file).is_file():
        raise CommandError(
            f"--data-file {spec.data_file}: no such file; give an existing .npz or .csv"
        )
    problem = build_problem(spec)
    if problem.instance.unknown and not unknown_ok:
        raise CommandError(unknown_labels(Path(spec.data_file).name, problem.instance.unknown))
    return problem


def unknown_labels(name: str, count: int, where: str = "sslviz cv") -> str:
    """Why a view that measures the loss on the unlabeled points refuses a file whose y
    marks ``count`` of them with −1, and where such a file is read."""
    return (
        f"{name} marks {count:,} points unlabeled with y = −1, so their labels are unknown "
        f"and the loss on them cannot be measured: {where} scores the labeled points by "
        "cross-validation (or give every label in y and a boolean 'labeled' array)"
    )


def _gaussian(problem, command: str) -> None:
    if not problem.spec.gaussian:
        name = problem.spec.family
        extra = f"; the {name} family's exact loss is in sslviz loss" * (command != "regret")
        families = _either(list(S.GAUSSIAN_FAMILIES))
        raise CommandError(f"{command} needs a Gaussian family: use --family {families}{extra}")


def regret_run(
    problem, sigma: S.SigmaRange, settings, regret, progress=None
) -> tuple[dict, object]:
    """``sslviz regret``'s document and experiment on ``problem`` (the Python API's too)."""
    from sslviz.export import regret_document
    from sslviz.problem import run_regret, sigma_range

    _gaussian(problem, "regret")
    lo, hi = sigma_range(problem, sigma)
    exp = run_regret(problem.spec, (lo, hi), settings, regret, progress=progress)
    classes = problem.instance.classes
    return regret_document(problem.spec, (lo, hi), settings, regret, exp, classes), exp


def _instance_files(paths: list[str], classes: tuple[int, ...]) -> None:
    """Each learning instance file exists, reads, fixes its labeled set and labels every
    class of ``classes`` in it (``all``: every class its points have; checked before any
    work starts)."""
    from sslviz.datasets import load_file

    for path in paths:
        if not Path(path).is_file():
            raise CommandError(
                f"--data-file/--test-file {path}: no such file; give an .npz per instance"
            )
        ds = load_file(path)
        if ds.labeled is None:
            raise CommandError(
                f"{path}: no boolean 'labeled' array; a learning instance is used exactly "
                "as given, so its file must fix the labeled set"
            )
        unknown = int(np.count_nonzero(ds.y == -1))
        if unknown:
            raise CommandError(unknown_labels(Path(path).name, unknown))
        seen = sorted({int(c) for c in ds.y[ds.labeled]})
        wanted = classes or tuple(sorted({int(c) for c in ds.y}))
        if not set(wanted) <= set(seen):
            held = _either([str(c) for c in seen]) or "none"
            every = (
                f"both classes {wanted[0]} and {wanted[1]}"
                if len(wanted) == 2
                else f"every class ({', '.join(map(str, wanted[:-1]))} and {wanted[-1]})"
            )
            raise CommandError(
                f"{path}: its labeled nodes hold class{'es' * (len(seen) != 1)} {held}; label "
                f"nodes of {every}, or choose --classes among the labeled ones"
            )


def learn_run(
    base: S.ProblemSpec,
    settings: S.LearnSettings,
    sigma: S.SigmaRange,
    files: list[str] = (),
    test_files: list[str] = (),
    *,
    drawn: bool = True,
) -> tuple[dict, object]:
    """``sslviz learn``'s document and result: instances from ``files`` (one .npz each) or,
    with ``drawn``, drawn from ``base``'s domain (the Python API's too)."""
    from dataclasses import replace

    from sslviz import families
    from sslviz.export import learn_document
    from sslviz.learn import CURVE, compared, drawn_instances, learn
    from sslviz.problem import build_problem, sigma_range

    files, test_files = list(files), list(test_files)
    if files:
        _instance_files(files + test_files, base.classes)
        train = [replace(base, data_file=f) for f in files]
        test = [replace(base, data_file=f) for f in test_files]
        pools = []
    elif drawn:
        if test_files:
            raise CommandError(
                "--test-file goes with --data-file; with --dataset the test "
                "instances are drawn (--test-instances)"
            )
        train, test, pools = drawn_instances(
            base, settings.instances, settings.test_instances, settings.curve, settings.repeats
        )
    else:
        raise CommandError(
            "learn needs training instances: give --data-file FILE.npz once "
            "per instance, or --dataset NAME with --instances M"
        )
    if settings.k_values is not None and not base.graph_family.learns_k:
        learners = families.named(lambda f: f.learns_k)
        raise CommandError(f"--k-range needs the {learners} family, not {base.family}")
    if settings.solver != "exact" and not base.gaussian:
        raise CommandError(
            "--solver cg/pcg learns on Algorithm 4's estimate, which needs a Gaussian "
            f"family ({', '.join(S.GAUSSIAN_FAMILIES)}); use --solver exact"
        )
    first = build_problem(train[0])
    lo, hi = sigma_range(first, sigma)
    sizes = [m for m in settings.curve if not files or m <= len(files)] if test else []
    if files and sizes:  # a fresh order of the files for each repetition
        keys = [
            np.random.SeedSequence(base.seed, spawn_key=(CURVE, r)) for r in range(settings.repeats)
        ]
        pools = [
            [train[i] for i in np.random.default_rng(key).permutation(len(train))] for key in keys
        ]
    shown = [-1.0]

    def progress(fraction: float, message: str) -> None:
        if fraction - shown[0] >= 0.1 or fraction == 1.0:
            shown[0] = fraction
            print(f"{message} done", file=sys.stderr)

    result = learn(
        train,
        test,
        (lo, hi),
        k_values=settings.k_values,
        approx=compared(settings) if base.gaussian else (),
        curve_sizes=sizes,
        curve_pools=pools,
        n_jobs=settings.jobs,
        dask=settings.dask,
        progress=progress,
    )
    doc = learn_document(result, base, settings, files, test_files, first.instance.classes)
    return doc, result
