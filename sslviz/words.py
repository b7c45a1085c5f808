"""The names a person reads for what sslviz computes: each cause of a miss and each column
of a table, written down once.

The JSON documents, the CLI's output and the CSV downloads keep the machine keys (a cause
``'solver'``, a column ``lo_node``): they are for programs. Everything the app shows a
person (the loss chart's legend and hover, the verdict, a miss explained, every table's
header) takes its words from here: :data:`CAUSE_WORDS` through :func:`cause_words`, and
:data:`COLUMN_WORDS` through :func:`sslviz.export.shown_frame`.
"""

from __future__ import annotations

import re

from sslviz.specs import SweepSettings, table

CAUSE_WORDS: dict[str, str] = {
    "degenerate": "cut off from the labels",
    "solver": "too few iterations",
    "close pair": "two crossings too close",
    "search": "stepped over by the search",
    "unattributed": "unexplained",
}
"""Each cause of a miss or a spurious endpoint (:data:`sslviz.attribution.CAUSES`, the
JSON's values) in words."""

SOLVER_ERROR = "solver error"
"""The words of a ``'solver'`` cause where the solver has no iterations to be too few of
(a direct solver, or certified CG)."""

NOT_EXAMINED = "not examined"
"""What is said of an unexplained miss whose cause was not looked for (the score examined a
sample of the misses: ``score(..., max_attributed=)``)."""


def cause_words(cause: str, settings: SweepSettings | None = None) -> str:
    """The words of ``cause`` (:data:`CAUSE_WORDS`) for a sweep run with ``settings``
    (default: t-iteration CG): a direct or certified solver's ``'solver'`` misses are
    :data:`SOLVER_ERROR`.

    >>> cause_words("solver"), cause_words("solver", SweepSettings(solver="exact"))
    ('too few iterations', 'solver error')
    """
    s = settings or SweepSettings()
    if cause == "solver" and (s.solver not in ("cg", "pcg") or s.certify):
        return SOLVER_ERROR
    return CAUSE_WORDS[cause]


_SETTING_NAMES = {
    name: row.label for name, row in table(SweepSettings) if "_" in name and row.label
}
_SETTING_NAME = re.compile(r"\b(" + "|".join(map(re.escape, _SETTING_NAMES)) + r")\b")


def plain_text(text: str) -> str:
    """``text`` (a record's ``detail``, written for the JSON with the settings' field
    names, as the CLI's flags spell them) with every such name given by its label.

    >>> plain_text("|f − ½| ≤ root_tol 0.01")
    '|f − ½| ≤ root tolerance 0.01'
    """
    return _SETTING_NAME.sub(lambda m: _SETTING_NAMES[m.group(1)], text)


def class_pair(node: str, classes) -> str:
    """A miss's node and the pair of classes that met there (more than two classes), e.g.
    "node 17 (true 3): 3 against 8"; "node 17 (true 3)" when the rival is not known."""
    own, rival = classes
    return f"{node} (true {own})" + (f": {own} against {rival}" if rival is not None else "")


COLUMN_WORDS: dict[str, str] = {
    # pieces of a loss curve, Algorithm 4's intervals (sslviz.truth, sslviz.algorithm4)
    "lo": "lower end",
    "hi": "upper end",
    "loss": "loss",
    "sigma0": "σ0",
    "lo_node": "node at the lower end (instance row)",
    "hi_node": "node at the upper end (instance row)",
    "solves": "solves",
    # missed breakpoints (sslviz.scoring)
    "sigma": "σ",
    "nodes": "nodes changing side (instance rows)",
    "cause": "cause",
    "node": "node (instance row)",
    "error": "error |f_t − f|",
    "margin": "margin |f − ½|",
    "t_needed": "t needed",
    "classes": "classes met (own against rival)",
    "score_error": "error |m_t − m|",
    "score_margin": "margin |m| (own score − best rival's)",
    "distance": "distance to the other crossing",
    "detail": "what happened",
    # conditioning and the trust panel (sslviz.conditioning)
    "kappa": "κ",
    "sqrt_kappa": "√κ",
    "iterations_needed": "iterations needed",
    "cg_error": "largest error |f_t − f|",
    "degenerate": "nodes cut off from L",
    "family": "graph",
    "may_flip": "error ≥ margin",
    "wrong": "nodes on the wrong side",
    "t_needed_cg": "t needed (CG)",
    "t_needed_pcg": "t needed (Jacobi-PCG)",
    "underflow": "nodes whose weights underflow",
    # online regret (sslviz.experiment, sslviz.online)
    "model": "feedback model",
    "round": "round",
    "regret_mean": "mean regret",
    "regret_low": "regret, 95 % interval low",
    "regret_high": "regret, 95 % interval high",
    "rate": "Theorem 3.1's rate",
    "regret": "regret",
    "final_regret": "final regret (mean)",
    "best_sigma": "best σ range",
    "lr": "step size λ",
    "seconds": "seconds",
    # every t of CG and Jacobi-PCG (sslviz.convergence)
    "t": "t",
    "cg_misses": "breakpoints missed (CG)",
    "pcg_misses": "breakpoints missed (Jacobi-PCG)",
    "cg_sigmas_with_wrong_side": "σ read with a node on its wrong side (CG)",
    "pcg_sigmas_with_wrong_side": "σ read with a node on its wrong side (Jacobi-PCG)",
    # learning σ from instances (sslviz.learn)
    "solver": "solver",
    "sigma_hat": "σ̂",
    "train_loss": "training loss",
    "exact_train_loss": "exact training loss at σ̂",
    "test_loss": "held-out loss at σ̂",
    "excess_over_exact_erm": "excess over exact ERM",
    # the live Table 1 (sslviz.export.speed_row)
    "n": "n",
    "M": "intervals M",
    "cpu_per_interval": "CPU ms per interval (min)",
    "repeats": "timed runs",
    "spread": "spread of the runs",
    "busy": "other computations running",
    "time_per_interval": "wall ms per interval (one run)",
    "matvecs": "matrix-vector products",
    "graph_nonzeros": "graph nonzeros",
    "storage": "storage",
    "system_nonzeros": "system nonzeros",
    "nonzeros_touched": "nonzeros touched",
    "factorizations": "factorisations",
    "factorization": "factorisation",
    "flops": "flops",
    # the Algorithm 4 player's event log (sslviz.animation.event_rows)
    "step": "step",
    "kind": "kind",
    "σ0": "σ0",
    "σ_l": "σ_l",
    "σ_h": "σ_h",
    "nodes shown": "nodes shown",
    "σ": "σ",
    "caption": "what happened",
}
"""The header of every column a table of the app can have, by the column's field name
(the JSON's key, and the CSV's header)."""

MERGED: dict[str, str] = {
    "lo_node_u": "lo_node",
    "hi_node_u": "hi_node",
    "nodes_u": "nodes",
    "node_u": "node",
    "how": "detail",
    "reached_cg": "t_needed_cg",
    "reached_pcg": "t_needed_pcg",
    "reached": "iterations_needed",
}
"""Columns a table does not show, each with the column that shows what it holds: a node's
unlabeled index (shown as its instance row, the row the home page's instance has), the key
of the sentence ``detail`` says, whether the search for t needed succeeded (shown as
"> t_max" in the t needed column) and whether CG reached its tolerance within its cap
(shown as "> cap" in the iterations needed column)."""


def range_so_far(reached: float, lo: float, hi: float, complete: bool = False) -> str:
    """How far a computation along σ is, in words: "σ up to 1.82 of [0.7, 3.1] so far" (or,
    ``complete``, "σ over all of [0.7, 3.1]")."""
    if complete:
        return f"σ over all of [{lo:g}, {hi:g}]"
    return f"σ up to {reached:.4g} of [{lo:g}, {hi:g}] so far"


def range_missing(found: str, reached: float, hi: float) -> str:
    """What a computation along σ stopped at ``reached`` lacks, after what it ``found``:
    "3 intervals found, σ from 0.7 to 1.82; σ from 1.82 to 3.1 is missing."."""
    return f"{found}; σ from {reached:.4g} to {hi:g} is missing."
