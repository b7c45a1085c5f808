"""Every result as a dict (JSON) or a table: one schema for the CLI and the app.

:func:`to_dict` and :func:`to_frame` take any result of sslviz (exact or approximate loss
curve, sweep of intervals, score, conditioning curve, regret experiment, speed row) and
the :class:`~sslviz.problem.Problem` it was computed on. Nodes are *instance rows*
everywhere (the row of the point in the drawn instance, 0-based; ``None`` for "an end of
the range"); tables carry the unlabeled-node index as an extra ``*_u`` column.

A frame's columns are the JSON's field names (the CSV downloads write them as they are);
:func:`shown_frame` turns a frame into the table a person reads: headers in words
(:data:`sslviz.words.COLUMN_WORDS`), causes in words, no duplicated or empty column, an
empty cell for "none" and booleans as "yes" / "no".

The ``*_document`` functions build what ``sslviz <command> --out F.json`` writes, and
the app's download buttons write the same documents through :func:`dumps`, so the CLI's
JSON for a view is the app's download for it (timings aside: ``seconds`` and
``time_per_interval`` are measured anew by each run).
"""

from __future__ import annotations

import json
from functools import singledispatch
from typing import TYPE_CHECKING, Any

import numpy as np

from sslviz import registry
from sslviz.measure import work_counts
from sslviz.specs import Spec
from sslviz.words import COLUMN_WORDS, MERGED, cause_words, plain_text

if TYPE_CHECKING:
    import pandas as pd

TIMING_KEYS = frozenset({"seconds", "time_per_interval", "wall"})


def dumps(document: dict | list) -> str:
    """The JSON text of a document (the CLI's output and the app's downloads)."""
    return json.dumps(document, indent=1, allow_nan=False)


def download_text(document: Any) -> str:
    """The app's download of a view document: its JSON without the measured times, so the
    same view gives the same bytes in every run, session and server, and equals
    ``sslviz COMMAND ... --no-timings``."""
    return dumps(without_timings(document))


def without_timings(document: Any) -> Any:
    """``document`` with every timing key removed, at any depth (for comparisons)."""
    if isinstance(document, dict):
        return {k: without_timings(v) for k, v in document.items() if k not in TIMING_KEYS}
    if isinstance(document, list):
        return [without_timings(v) for v in document]
    return document


def settings_dict(*specs: Spec, **extra: Any) -> dict:
    """The settings of a view: every spec's fields, then ``extra`` (e.g. the σ range)."""
    out: dict = {}
    for spec in specs:
        out |= spec.to_dict()
    return out | extra


def _row(problem, u: int) -> int | None:
    return None if problem is None or u < 0 else int(problem.model.unlabeled_idx[u])


def _rows(problem, nodes) -> list[int]:
    nodes = [int(u) for u in np.atleast_1d(nodes)]
    return nodes if problem is None else [_row(problem, u) for u in nodes]


@singledispatch
def to_dict(result: Any, problem=None, **options: Any) -> dict:
    """JSON-ready dict of a result; node indices become instance rows of ``problem``.

    Results: LossCurve, Sweep, Score, ConditionCurve, TrustCurve, RegretExperiment (option
    ``include_runs``), LearnerRun.
    """
    raise TypeError(f"to_dict: no export for {type(result).__name__}")


@singledispatch
def to_frame(result: Any, problem=None):
    """A pandas DataFrame of a result (the app's tables and CSV downloads)."""
    raise TypeError(f"to_frame: no table for {type(result).__name__}")


def _register(cls_path: str):
    """Register the decorated pair of exporters for a class named by its import path."""
    import importlib

    module, name = cls_path.rsplit(".", 1)
    cls = getattr(importlib.import_module(module), name)

    def wrap(pair):
        dict_fn, frame_fn = pair
        to_dict.register(cls)(dict_fn)
        to_frame.register(cls)(frame_fn)
        return pair

    return wrap


def _frame(records: list[dict] | dict, columns: list[str] | None = None):
    import pandas as pd

    return pd.DataFrame(records, columns=columns)


# -- loss curves (exact or approximate) ------------------------------------------------


def _curve_dict(curve, problem=None) -> dict:
    e, v = curve.loss.edges, curve.loss.values
    best_loss, best_lo, best_hi = curve.best()
    return (
        {
            "parameter": curve.parameter,
            "breakpoints": curve.breakpoints.tolist(),
            "nodes": [_rows(problem, nd) for nd in curve.nodes],
            "pieces": [
                {"lo": float(e[i]), "hi": float(e[i + 1]), "loss": float(v[i])}
                for i in range(v.size)
            ],
            "best": {"loss": best_loss, "accuracy": 1.0 - best_loss, "lo": best_lo, "hi": best_hi},
            "degenerate": {
                "max_count": max([c for _, _, c in curve.degenerate_ranges], default=0),
                "ranges": [
                    {"lo": float(a), "hi": float(b), "count": int(c)}
                    for a, b, c in curve.degenerate_ranges
                ],
            },
            "n_unlabeled": int(curve.wrong_at_start.size),
            "solves": curve.solves,
            "evaluations": int(curve.evaluations.size),
            "inconsistent": curve.inconsistent,
            "complete": curve.complete,
            "seconds": curve.seconds,
        }
        | _work(problem, curve.loss.edges[-1], curve)
        | _classes_dict(curve, problem)
    )


def _classes_dict(curve, problem=None) -> dict:
    """More than two classes (docs/method.md §13): ``classes`` (the original labels), and
    per breakpoint, parallel to ``nodes``, ``against`` (the class each node wins or loses
    against there, null where its link to L changed) and ``true_classes`` (its own);
    nothing for the binary problem, whose JSON stays as it was."""
    if curve.classes is None:
        return {}
    cls = list(curve.classes)
    out = {
        "classes": cls,
        "against": [[cls[c] if c >= 0 else None for c in rivals] for rivals in curve.against],
    }
    if problem is not None:
        y_u = problem.y_unlabeled
        out["true_classes"] = [[cls[int(y_u[u])] for u in nd] for nd in curve.nodes]
    return out


def _work(problem, sigma: float, result) -> dict:
    """``{"work": ...}``: the counts of :func:`sslviz.measure.work_counts` (needs the
    problem for the system's size; ``{}`` without it)."""
    if problem is None:
        return {}
    return {
        "work": work_counts(
            problem.model,
            float(sigma),
            solves=result.solves,
            matvecs=result.matvecs,
            factorizations=result.factorizations,
        )
    }


def _curve_frame(curve, problem=None):
    e, v = curve.loss.edges, curve.loss.values
    return _frame({"lo": e[:-1], "hi": e[1:], "loss": v})


# -- sweeps and scores ------------------------------------------------------------------


def _sweep_dict(res, problem=None) -> dict:
    return (
        {
            "intervals": [
                {
                    "lo": iv.lo,
                    "hi": iv.hi,
                    "loss": iv.loss,
                    "sigma0": iv.sigma0,
                    "lo_node": _row(problem, iv.lo_node),
                    "hi_node": _row(problem, iv.hi_node),
                }
                for iv in res.intervals
            ],
            "M": len(res.intervals),
            "seconds": res.seconds,
            "time_per_interval": res.time_per_interval,
            "solves": res.solves,
            "matvecs": res.matvecs,
        }
        | _work(problem, res.sigma_max, res)
        | ({"certify": _certificates_dict(res.certificates)} if res.certificates else {})
    )


def _certificates_dict(c) -> dict:
    """Certified fast mode: how many σ were proven, how many fell back, iterations per σ."""
    its = c.iterations
    return {
        "evaluations": int(c.sigma.size),
        "certified_sigmas": int(np.count_nonzero(c.certified)),
        "exact_fallbacks": c.exact_fallbacks,
        "iterations": {
            "total": int(its.sum()),
            "min": int(its.min(initial=0)),
            "median": float(np.median(its)) if its.size else 0.0,
            "max": int(its.max(initial=0)),
        },
        "per_sigma": [
            {"sigma": float(s), "iterations": int(i), "certified": bool(ok)}
            for s, i, ok in zip(c.sigma, its, c.certified, strict=True)
        ],
    }


def _sweep_frame(res, problem=None):
    """One row per interval; paper mode adds each interval's solves (fast mode's solves
    are shared by the whole search, see the sweep's ``solves``)."""
    records = [
        d
        | {
            "lo_node_u": iv.lo_node if iv.lo_node >= 0 else None,
            "hi_node_u": iv.hi_node if iv.hi_node >= 0 else None,
            "solves": iv.solves,
        }
        for d, iv in zip(_sweep_dict(res, problem)["intervals"], res.intervals, strict=True)
    ]
    cols = ["lo", "hi", "loss", "sigma0", "lo_node", "hi_node", "lo_node_u", "hi_node_u"]
    per_interval = res.settings is None or res.settings.mode == "paper"
    return _frame(records, cols + ["solves"] * per_interval)


def _score_dict(sc, problem=None) -> dict:
    """The score with every miss and spurious endpoint explained: ``causes`` counts both
    (values add up to ``missed + spurious``), ``miss_causes``/``spurious_causes`` each;
    ``misses`` = [{sigma, nodes, cause, detail, node, ...evidence}], ``spurious_endpoints``
    = [{sigma, node, cause, detail, ...evidence}] (see :func:`sslviz.intervals.score`)."""

    def plain(v):
        if isinstance(v, (bool, np.bool_)):
            return bool(v)
        if isinstance(v, (int, np.integer)):
            return int(v)
        if isinstance(v, (float, np.floating)):
            return float(v) if np.isfinite(v) else None
        return [plain(x) for x in v] if isinstance(v, (list, tuple)) else v

    def evidence(ev: dict) -> dict:
        out = {k: plain(v) for k, v in ev.items()}
        u = int(ev.get("node", -1))
        out["node"] = _rows(problem, u)[0] if u >= 0 else None
        return out

    return {
        "M": sc.M,
        "true_breakpoints": sc.true_breakpoints,
        "missed": sc.missed,
        "spurious": sc.spurious,
        "eps_volume": sc.eps_volume,
        "uncovered": sc.uncovered,
        "causes": dict(sc.causes),
        "miss_causes": sc.cause_counts("miss"),
        "spurious_causes": sc.cause_counts("spurious"),
        "attributed": sc.attributed,
        "misses": [
            {
                "sigma": m.sigma,
                "nodes": _rows(problem, list(m.nodes)),
                "cause": m.cause,
                "detail": m.detail,
            }
            | evidence(m.evidence)
            for m in sc.miss_records
        ],
        "spurious_endpoints": [
            {"sigma": x.sigma, "cause": x.cause, "detail": x.detail} | evidence(x.evidence)
            for x in sc.spurious_records
        ],
    }


def _t_needed_text(ev: dict) -> str | None:
    """A miss's ``t_needed`` for a table: the t, "> t_cap" where none up to the cap worked,
    None (an empty cell, like the other columns') where no t was looked for (not a solver
    miss, or not examined)."""
    if ev.get("t_needed") is not None:
        return str(int(ev["t_needed"]))
    return f"> {ev['t_cap']}" if ev.get("t_cap") else None


def _score_frame(sc, problem=None):
    """One row per missed true breakpoint: its nodes, cause, the main evidence, detail."""
    records = []
    for m in sc.miss_records:
        ev = m.evidence
        u = int(ev.get("node", -1))
        records.append(
            {
                "sigma": m.sigma,
                "nodes": ", ".join(map(str, _rows(problem, list(m.nodes)))),
                "nodes_u": ", ".join(str(int(v)) for v in m.nodes),
                "cause": m.cause,
                "node": _rows(problem, u)[0] if u >= 0 else None,
                "node_u": u if u >= 0 else None,
                "error": ev.get("error"),
                "margin": ev.get("margin"),
                "t_needed": _t_needed_text(ev),
                "distance": ev.get("distance"),
                "how": ev.get("how"),
                "detail": m.detail,
            }
        )
    cols = [
        "sigma",
        "nodes",
        "nodes_u",
        "cause",
        "node",
        "node_u",
        "error",
        "margin",
        "t_needed",
        "distance",
        "how",
        "detail",
    ]
    if any("classes" in m.evidence for m in sc.miss_records):  # more than two classes
        for r, m in zip(records, sc.miss_records, strict=True):
            own, rival = m.evidence.get("classes", (None, None))
            r["classes"] = (
                None if own is None else f"{own}" + f" against {rival}" * (rival is not None)
            )
            r["score_error"], r["score_margin"] = r.pop("error"), r.pop("margin")
        cols[cols.index("node_u") + 1 : cols.index("t_needed")] = [
            "classes",
            "score_error",
            "score_margin",
        ]
    frame = _frame(records, cols)
    frame.attrs["settings"] = sc.settings  # the words of a "solver" cause (shown_frame)
    return frame


# -- conditioning -------------------------------------------------------------------------


def _condition_dict(c, problem=None) -> dict:
    return {
        "sigma": c.sigma.tolist(),
        "kappa": c.kappa.tolist(),
        "sqrt_kappa": np.sqrt(c.kappa).tolist(),
        "lambda_min": c.lambda_min.tolist(),
        "lambda_max": c.lambda_max.tolist(),
        "iterations_needed": c.iterations_needed.tolist(),
        "cg_error": c.cg_error.tolist(),
        "degenerate": c.degenerate.tolist(),
        "solver": c.solver,
        "cg_iters": c.cg_iters,
        "rtol": c.rtol,
    } | ({} if c.classes is None else {"classes": list(c.classes)})


def _condition_frame(c, problem=None):
    d = _condition_dict(c)
    cols = ["sigma", "kappa", "sqrt_kappa", "iterations_needed", "cg_error", "degenerate"]
    reached = {} if c.reached is None else {"reached": [bool(v) for v in c.reached]}
    return _frame({k: d[k] for k in cols} | reached)


def _trust_dict(c, problem=None, score=None) -> dict:
    """A :class:`sslviz.conditioning.TrustCurve`: per σ the error of ``solver`` with
    ``cg_iters`` iterations, the margin (None where no node is to be decided), the flip flag,
    nodes on the wrong side and the t needed by CG and PCG (``t_max + 1``: more than
    ``t_max``, see ``reached_*``); ``untrusted`` flags the σ where ``solver`` cannot be
    trusted (:data:`sslviz.conditioning.TRUST_RULE`), ``flip_bands`` are the shaded σ bands
    around them, ``trusted_from`` the σ from which it can be trusted to the range end (None:
    not at the end); ``reading`` the one-line summary. With ``score`` (Algorithm 4's
    :class:`~sslviz.intervals.Score` of the same solver) the bands, ``trusted_from`` and
    ``reading`` include its misses (:meth:`~sslviz.conditioning.TrustCurve.missed_by`), as
    the loss page shows them; ``missed`` lists their σ."""
    missed, need = c.missed_by(score) if score is not None else ([], [])

    def finite(x):
        return [float(v) if np.isfinite(v) else None for v in np.asarray(x, float)]

    return {
        "sigma": c.sigma.tolist(),
        "error": finite(c.error),
        "margin": finite(c.margin),
        "may_flip": [bool(v) for v in c.may_flip],
        "wrong": [int(v) for v in c.wrong],
        "t_needed_cg": [int(v) for v in c.t_needed_cg],
        "t_needed_pcg": [int(v) for v in c.t_needed_pcg],
        "reached_cg": [bool(v) for v in c.reached("cg")],
        "reached_pcg": [bool(v) for v in c.reached("pcg")],
        "degenerate": [int(v) for v in c.degenerate],
        "underflow": [int(v) for v in c.underflow],
        "untrusted": [bool(v) for v in c.untrusted],
        "missed": missed,
        "flip_bands": [{"lo": lo, "hi": hi} for lo, hi in c.bands(missed)],
        "trusted_from": c.trusted_from(missed),
        "solver": c.solver,
        "cg_iters": c.cg_iters,
        "t_max": c.t_max,
        "reading": c.reading(missed, need),
    }


def _trust_frame(c, problem=None):
    d = _trust_dict(c)
    cols = [
        "sigma",
        "error",
        "margin",
        "may_flip",
        "wrong",
        "t_needed_cg",
        "t_needed_pcg",
        "reached_cg",
        "reached_pcg",
        "degenerate",
        "underflow",
    ]
    return _frame({k: d[k] for k in cols})


# -- online regret ------------------------------------------------------------------------


def _run_dict(run, problem=None) -> dict:
    """Every field of one learner run (:class:`sslviz.online.LearnerRun`)."""
    return {
        "feedback": run.feedback,
        "lr": run.lr,
        "seed": run.seed,
        "sigmas": run.sigmas.tolist(),
        "losses_played": run.losses_played.tolist(),
        "regret": run.regret.tolist(),
        "best_sigma": [float(x) for x in run.best_sigma],
        "best_value": run.best_value,
        "density_grid": run.density_grid.tolist(),
        "snapshot_rounds": run.snapshot_rounds.tolist(),
        "density_snapshots": run.density_snapshots.tolist(),
        "seconds": run.seconds,
        "n_feedback_calls": run.n_feedback_calls,
        "mean_M": run.mean_M,
        "n_cells": run.n_cells,
    }


def _run_frame(run, problem=None):
    return _frame(
        {
            "round": range(1, run.regret.size + 1),
            "sigma": run.sigmas,
            "loss": run.losses_played,
            "regret": run.regret,
        }
    )


def _regret_dict(exp, problem=None, *, include_runs: bool = False) -> dict:
    """``{"models": {name: {"regret_mean", "regret_low", "regret_high", "best_sigma",
    "best_value", "seconds", "lr", "M", "rate", "final_regret"[, "runs"]}}, "rate", "lr",
    "M", "M_first_round", "R", "rounds", "repeats", "seed", "seconds"}``; with
    ``include_runs`` every raw run too."""
    models: dict[str, Any] = {}
    for name, m in exp.models.items():
        entry: dict[str, Any] = {
            "regret_mean": m.regret_mean.tolist(),
            "regret_low": m.regret_low.tolist(),
            "regret_high": m.regret_high.tolist(),
            "best_sigma": [float(x) for x in m.best_sigma],
            "best_value": m.best_value,
            "seconds": m.seconds,
            "lr": m.lr,
            "M": m.M,
            "rate": m.rate.tolist(),
            "final_regret": [float(r.regret[-1]) for r in m.runs],
        }
        if include_runs:
            entry["runs"] = [_run_dict(r) for r in m.runs]
        models[name] = entry
    return {
        "models": models,
        "rate": exp.rate.tolist(),
        "lr": exp.lr,
        "M": exp.M,
        "M_first_round": exp.M_first_round,
        "R": exp.R,
        "rounds": exp.rounds,
        "repeats": exp.repeats,
        "seed": exp.seed,
        "seconds": exp.seconds,
    }


def _regret_frame(exp, problem=None):
    return _frame(
        [
            {
                "model": name,
                "round": t + 1,
                "regret_mean": float(m.regret_mean[t]),
                "regret_low": float(m.regret_low[t]),
                "regret_high": float(m.regret_high[t]),
                "rate": float(m.rate[t]),
            }
            for name, m in exp.models.items()
            for t in range(exp.rounds)
        ]
    )


def regret_summary_frame(exp):
    """One row per feedback model: final regret, best σ range, λ, seconds."""
    return _frame(
        [
            {
                "model": n,
                "final_regret": float(m.regret_mean[-1]),
                "best_sigma": f"[{m.best_sigma[0]:.4g}, {m.best_sigma[1]:.4g}]",
                "lr": m.lr,
                "seconds": m.seconds,
            }
            for n, m in exp.models.items()
        ]
    )


def _convergence_dict(c, problem=None) -> dict:
    """A :class:`sslviz.convergence.Convergence`: the σ read, l(σ) there, and per solver
    l̃_t(σ) (``loss[t - 1]``), the nodes on their wrong side, the breakpoints missed at each
    t (``tol``: how near b their nodes must be right), and the t from which nothing is missed
    / every side is right (None: not by T)."""
    return {
        "sigma": c.sigmas.tolist(),
        "exact_loss": c.exact.tolist(),
        "breakpoints": c.breakpoints.tolist(),
        "iterations": c.iterations,
        "tol": c.tol,
        "solvers": {
            s: {
                "loss": c.loss[s].tolist(),
                "wrong_nodes": c.wrong_nodes[s].tolist(),
                "misses": c.misses(s).tolist(),
                "missed": [np.flatnonzero(row).tolist() for row in c.missed[s]],
                "no_miss_from": c.no_miss_from(s),
                "all_right_from": c.all_right_from(s),
            }
            for s in c.solvers
        },
        "seconds": c.seconds,
    }


def _convergence_frame(c, problem=None):
    rows = {"t": np.arange(1, c.iterations + 1)}
    for s in c.solvers:
        rows[f"{s}_misses"] = c.misses(s)
        rows[f"{s}_sigmas_with_wrong_side"] = np.count_nonzero(c.wrong_nodes[s], axis=1)
    return _frame(rows)


# -- the tables a person reads ------------------------------------------------------------


def _is_empty(cells) -> np.ndarray:
    """Per cell: nothing to show (None, NaN, pd.NA or an empty text)."""
    import pandas as pd

    values = np.asarray(cells, dtype=object)
    return np.asarray(pd.isna(values), bool) | np.array([v == "" for v in values.astype(str)])


def _plain_cells(frame, col: str):
    """Booleans as "yes" / "no", texts with an empty cell for none; numbers as they are."""
    cells = frame[col]
    empty = _is_empty(cells)
    if cells.dtype.kind in "iufc":
        return cells
    values = cells.astype(object)
    if all(isinstance(v, (bool, np.bool_)) for v in values[~empty]):
        values = values.map(lambda v: "yes" if v is True or v is np.True_ else "no")
    return values.where(~empty, "")


def _node_cells(frame, col: str):
    """A node's instance row, a whole number (an empty cell for a range end); ``node`` is
    left out where it is the only node changing side, as ``nodes`` says already."""
    cells = frame[col].astype("Int64")
    if col == "node" and "nodes" in frame:
        same = [str(v) == w for v, w in zip(frame["node"], frame["nodes"], strict=True)]
        if all(same):
            return cells.where(np.zeros(len(cells), bool))
    return cells


def _t_needed_cells(frame, col: str):
    """The t needed with "> t_max" where the search for it did not succeed (``reached_*``:
    the column holds ``t_max + 1`` there)."""
    reached = frame.get(col.replace("t_needed", "reached"))
    if reached is None:
        return frame[col]
    return [
        str(int(t)) if ok else f"> {int(t) - 1}" for t, ok in zip(frame[col], reached, strict=True)
    ]


def _iterations_cells(frame, col: str):
    """The iterations needed, "> cap" where CG stopped at its cap without reaching the
    tolerance (``reached`` False: a lower bound, not a count), an empty cell where the
    system is not representable (-1)."""
    cells = frame[col]
    reached = frame.get("reached")
    if reached is None or reached.all():
        return cells.where(cells >= 0).astype("Int64")
    return [
        "" if t < 0 else f"{int(t):,}" if ok else f"> {int(t):,}"
        for t, ok in zip(cells, reached, strict=True)
    ]


def _ms_cells(frame, col: str):
    """Seconds shown in milliseconds to 3 significant digits
    (:func:`sslviz.measure.shown_ms`: the numbers the speed verdicts quote)."""
    from sslviz.measure import shown_ms

    return [shown_ms(x) for x in frame[col]]


def _cause_cells(frame, col: str):
    settings = frame.attrs.get("settings")
    return [cause_words(c, settings) for c in frame[col]]


def _text_cells(frame, col: str):
    return [plain_text(v) if isinstance(v, str) else "" for v in frame[col]]


_CELLS = {
    "lo_node": _node_cells,
    "hi_node": _node_cells,
    "node": _node_cells,
    "t_needed_cg": _t_needed_cells,
    "t_needed_pcg": _t_needed_cells,
    "iterations_needed": _iterations_cells,
    "cpu_per_interval": _ms_cells,
    "time_per_interval": _ms_cells,
    "cause": _cause_cells,
    "detail": _text_cells,
    "caption": _text_cells,
}
"""Columns whose cells are shown otherwise than :func:`_plain_cells` does."""


def shown_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The table a person reads of ``frame`` (any frame of this module, the player's event
    log): every header in words (:data:`~sslviz.words.COLUMN_WORDS`), the columns of
    :data:`~sslviz.words.MERGED` left out (what they hold is in another column), a column
    with nothing to show left out, causes in words (:func:`~sslviz.words.cause_words`),
    booleans as "yes" / "no", texts with an empty cell for none; numbers stay numbers (a
    missing one is shown as an empty cell: ``ui.widgets.table``).

    Raises
    ------
    KeyError
        For a column with no words in :data:`~sslviz.words.COLUMN_WORDS`.
    """
    import pandas as pd

    frame = frame.reset_index(drop=True)
    out = {}
    for col in frame.columns:
        if col in MERGED:
            continue
        if col not in COLUMN_WORDS:
            raise KeyError(f"the column {col!r} has no words in sslviz.words.COLUMN_WORDS")
        cells = pd.Series(_CELLS.get(col, _plain_cells)(frame, col), index=frame.index)
        if not _is_empty(cells).all() or frame.empty:
            out[COLUMN_WORDS[col]] = cells
    return pd.DataFrame(out, index=frame.index)


for _path, _pair in {
    "sslviz.convergence.Convergence": (_convergence_dict, _convergence_frame),
    "sslviz.truth.LossCurve": (_curve_dict, _curve_frame),
    "sslviz.algorithm4.Sweep": (_sweep_dict, _sweep_frame),
    "sslviz.scoring.Score": (_score_dict, _score_frame),
    "sslviz.conditioning.ConditionCurve": (_condition_dict, _condition_frame),
    "sslviz.conditioning.TrustCurve": (_trust_dict, _trust_frame),
    "sslviz.experiment.RegretExperiment": (_regret_dict, _regret_frame),
    "sslviz.online.LearnerRun": (_run_dict, _run_frame),
}.items():
    _register(_path)(_pair)


# -- the documents of the four views ---------------------------------------------------


def loss_document(problem, curve, sigma_range: tuple[float, float], parts: int = 1) -> dict:
    """``sslviz loss``: the exact loss curve and its settings; ``parts``, the σ sub-ranges
    searched separately (recorded when more than one)."""
    lo, hi = sigma_range
    split = {"parts": parts} if parts > 1 else {}
    return to_dict(curve, problem) | {
        "settings": settings_dict(problem.spec, sigma_min=lo, sigma_max=hi) | split
    }


def intervals_document(problem, sweep, settings, score=None, score_settings=None) -> dict:
    """``sslviz intervals``: Algorithm 4's intervals, their work, and optionally the score;
    for more than two classes also ``classes``, as ``sslviz loss`` writes them."""
    out = to_dict(sweep, problem)
    if problem.instance.n_classes > 2:
        out["classes"] = [int(c) for c in problem.instance.classes]
    specs = (problem.spec, settings) + ((score_settings,) if score_settings else ())
    out["settings"] = settings_dict(*specs, sigma_min=sweep.sigma_min, sigma_max=sweep.sigma_max)
    if score is not None:
        out["score"] = to_dict(score, problem)
    return out


def condition_document(problem, curve, settings, seconds: float, trust=None) -> dict:
    """``sslviz condition``: κ, CG iterations needed and t-iteration error on a σ grid;
    with ``trust`` (``--trust``) where t-iteration CG can be trusted on the same grid."""
    cond = settings.to_dict()
    cond.pop("families", None)
    lo, hi = float(curve.sigma[0]), float(curve.sigma[-1])
    return (
        to_dict(curve, problem)
        | ({"trust": to_dict(trust)} if trust is not None else {})
        | {
            "seconds": seconds,
            "settings": settings_dict(problem.spec, sigma_min=lo, sigma_max=hi) | cond,
        }
    )


def convergence_document(problem, convergence, sigma_range: tuple[float, float]) -> dict:
    """The CG-iterations view: :func:`to_dict` of the convergence and the settings."""
    lo, hi = sigma_range
    return to_dict(convergence, problem) | {
        "settings": settings_dict(problem.spec, sigma_min=lo, sigma_max=hi)
    }


def regret_document(
    spec, sigma_range, sweep_settings, regret_settings, experiment, classes=None
) -> dict:
    """``sslviz regret``: regret curves of each feedback model and their settings; with
    more than two ``classes`` (the instances' labels) also ``classes``, as ``sslviz loss``
    writes them (docs/method.md §13.8)."""
    lo, hi = sigma_range
    reg = regret_settings.to_dict()
    for local in ("jobs", "dask"):  # how it ran, not what it computed
        reg.pop(local, None)
    many = {} if classes is None or len(classes) <= 2 else {"classes": [int(c) for c in classes]}
    return (
        to_dict(experiment)
        | many
        | {"settings": settings_dict(spec, sweep_settings, sigma_min=lo, sigma_max=hi) | reg}
    )


def speed_row(problem, sweep, timing=None) -> dict:
    """One row of the live Table 1 (a summary of an ``sslviz intervals`` document), with
    its work counts and, given a :class:`sslviz.measure.Timing`, the robust timing (CPU
    seconds per interval from the minimum over repetitions)."""
    d = to_dict(sweep, problem)
    row = {
        "n": problem.instance.n,
        "family": problem.spec.family,
        "solver": sweep.settings.solver,
        "M": d["M"],
        "seconds": d["seconds"],
        "time_per_interval": d["time_per_interval"],
        "solves": d["solves"],
        "matvecs": d["matvecs"],
    } | {k: v for k, v in d["work"].items() if k not in ("solves", "matvecs")}
    if timing is not None:
        row |= timing.as_dict() | {"cpu_per_interval": timing.cpu / max(d["M"], 1)}
    return row


SPEED_COLUMNS = (
    "n",
    "family",
    "solver",
    "M",
    "cpu_per_interval",
    "repeats",
    "spread",
    "busy",
    "time_per_interval",
    "solves",
    "matvecs",
    "graph_nonzeros",
    "storage",
    "system_nonzeros",
    "nonzeros_touched",
    "factorizations",
    "factorization",
    "flops",
)
"""The live Table 1's columns, in order (of the :func:`speed_row` keys)."""


def speed_frame(rows: list[dict]) -> pd.DataFrame:
    """The live Table 1: one row per configuration (:func:`speed_row` dicts), the columns
    of :data:`SPEED_COLUMNS` that the rows have."""
    return _frame(rows)[[c for c in SPEED_COLUMNS if rows and c in rows[0]]]


# -- learning from many instances (sslviz.learn) -----------------------------------------


def _average_dict(avg) -> dict:
    """An exact average loss: its pieces as ``loss`` writes them, and its counts."""
    loss = avg.loss
    e, v = loss.edges, loss.values
    return {
        "breakpoints": loss.breakpoints.tolist(),
        "pieces": [
            {"lo": float(e[i]), "hi": float(e[i + 1]), "loss": float(v[i])} for i in range(v.size)
        ],
        "instances": avg.instances,
        "union_pieces": avg.union_breakpoints + 1,
    }


def _erm_dict(found) -> dict:
    return {
        "loss": found.loss,
        "intervals": [{"lo": a, "hi": b} for a, b in found.intervals],
        "sigma_hat": found.sigma_hat,
    }


def _held_out_dict(report) -> dict:
    return {
        "loss_at_sigma_hat": report.loss_at_sigma_hat,
        "best_loss": report.best_loss,
        "excess": report.excess,
        "uniform_gap": report.uniform_gap,
    }


def _band_dict(x: np.ndarray) -> dict:
    from sslviz.experiment import mean_band

    mean, low, high = mean_band(np.asarray(x, dtype=float))
    return {"mean": mean.tolist(), "low": low.tolist(), "high": high.tolist(), "runs": x.tolist()}


def _approximate_dict(a) -> dict:
    return {
        "solver": a.solver,
        "sigma_hat": a.erm.sigma_hat,
        "train_loss": a.erm.loss,
        "exact_train_loss": a.exact_train_loss,
        "test_loss": None if a.test is None else a.test.loss_at_sigma_hat,
        "excess_over_exact_erm": a.excess_over_exact,
        "seconds": a.seconds,
    }


def learn_frame(result):
    """One row per learner: exact ERM, then each approximate one (σ̂, its own training
    loss, the exact training loss and the true held-out loss at σ̂, seconds of curves)."""
    r = result
    exact = {
        "solver": "exact",
        "sigma_hat": r.erm.sigma_hat,
        "train_loss": r.erm.loss,
        "exact_train_loss": r.erm.loss,
        "test_loss": None if r.test is None else r.test.loss_at_sigma_hat,
        "excess_over_exact_erm": None if r.test is None else 0.0,
        "seconds": r.seconds_exact,
    }
    rows = [exact] + [_approximate_dict(a) for a in r.approximate]
    return _frame(rows, list(exact))


def learn_document(result, spec, settings, data_files=(), test_files=(), classes=None) -> dict:
    """``sslviz learn``: the training average, ERM and σ̂ of the learner ``settings`` asks
    for (exact, or Algorithm 4's estimate with ``--solver cg``/``pcg``: then ``exact``
    holds exact ERM's and ``exact_loss_at_sigma_hat`` the exact training average at the
    estimate's σ̂), σ̂'s true held-out loss, every approximate learner beside exact ERM
    (``approximate``), and (as asked) the (k, σ) grid and the learning curve; with more than
    two ``classes`` (the instances' labels) also ``classes``, as ``sslviz loss`` writes them
    (docs/method.md §13.8)."""
    from sslviz.learn import SIGMA_HAT_RULE

    r = result
    exact = {"average_loss": _average_dict(r.average), "erm": _erm_dict(r.erm)}
    if r.test is not None:
        exact["test"] = _held_out_dict(r.test)
    out: dict[str, Any] = {}
    if settings.solver != "exact":
        a = r.approximate[0]
        out |= {
            "average_loss": _average_dict(a.average),
            "erm": _erm_dict(a.erm),
            "sigma_hat": a.erm.sigma_hat,
            "solver": a.solver,
        }
        if a.test is not None:
            out["test"] = _held_out_dict(a.test)
        out |= {
            "exact_loss_at_sigma_hat": a.exact_train_loss,
            "exact": exact,
            "excess_over_exact_erm": a.excess_over_exact,
        }
    else:
        out |= exact | {"sigma_hat": r.erm.sigma_hat, "solver": "exact"}
    out["approximate"] = [_approximate_dict(a) for a in r.approximate]
    out |= {
        "sigma_hat_rule": SIGMA_HAT_RULE,
        "family": r.family,
        "k": r.k if "k" in registry.family(r.family).reads else None,
        "instances": r.instances,
        "test_instances": r.test_instances,
        "pseudo_dimension_bound": registry.family(r.family).pseudo_dimension,
    }
    if classes is not None and len(classes) > 2:
        out["classes"] = [int(c) for c in classes]
    if r.grid:
        out["grid"] = [
            {"k": row.k, "average_loss": _average_dict(row.average), "erm": _erm_dict(row.erm)}
            for row in r.grid
        ]
        out["erm_k"] = {"k": r.k} | _erm_dict(r.erm)
    if r.curve is not None:
        c = r.curve
        out["learning_curve"] = {
            "m": c.m.tolist(),
            "repeats": int(c.excess.shape[0]),
            "excess": _band_dict(c.excess),
            "uniform_gap": _band_dict(c.uniform_gap),
            "union_pieces": _band_dict(c.union_pieces),
        }
    learn = settings.to_dict()
    for local in ("jobs", "dask"):  # how it ran, not what it computed
        learn.pop(local, None)
    files = {"data_files": list(data_files), "test_files": list(test_files)} if data_files else {}
    out["seconds"] = {"exact": r.seconds_exact, "total": r.seconds} | {
        a.solver: a.seconds for a in r.approximate
    }
    sigma = {"sigma_min": r.sigma_min, "sigma_max": r.sigma_max}
    out["settings"] = settings_dict(spec, **sigma) | learn | files
    return out
