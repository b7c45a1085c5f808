"""Where t-iteration CG can be trusted with more than two classes (docs/method.md §13.9): the
trust panel of :func:`sslviz.conditioning.trust_curve`, one-vs-all.

With C columns of scores a node's prediction is its top class, argmax_c F_uc. If every
column's error |F_t,uc − F_uc| is below half the node's top-two margin F_u(1) − F_u(2)
(its best score minus its second best, exact), the top class of the t-iteration scores is
the exact one: F_t,ua − F_t,ub ≥ (F_ua − F_ub) − 2 · error > 0. So the panel puts CG-t's
largest column error against **half the smallest top-two margin**; for two classes that
half margin is |f_u − ½| (F_u1 − F_u0 = 2f_u − 1), the binary panel's margin. A node is on
its *right side* at t when its top class at t is its exact top class; the t needed at σ is
the t at which every node is, searched as the binary panel searches it. The result is a
:class:`~sslviz.conditioning.TrustCurve` (bands, reading, the t needed read as there) with
the classes and its words.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from sslviz._threads import one_thread
from sslviz.conditioning import T_MAX, TrustCurve, _check_grid, _reporter, _search_t
from sslviz.labeling import SoftLabelModel
from sslviz.specs import CG_ITERS, solver_label

CLASS_TRUST_RULE = (
    "{label} can be trusted at a σ of the grid when its largest score error (over every "
    "node and every class column) is below half the smallest top-two margin (a node's best "
    "exact score minus its second best; so no node's top class can change), no node's top "
    "class differs from the exact one there and the t needed there is at most {t}. Shaded: "
    "where it cannot be trusted, each run of such grid σ widened halfway to its trusted "
    "neighbours."
)
"""The multi-class trust rule in words (format with ``label`` and ``t``), as
:data:`sslviz.conditioning.TRUST_RULE` says the binary one."""


@dataclass(frozen=True, eq=False)
class ClassTrustCurve(TrustCurve):
    """:class:`~sslviz.conditioning.TrustCurve` of C ≥ 3 classes (:func:`class_trust_curve`).

    ``error`` is max_{u,c} |F_t,uc − F_uc| (scores, in [0, 1]); ``margin`` is half of
    min_u (F_u(1) − F_u(2)), the smallest top-two margin of the exact scores; ``wrong``
    counts the nodes whose top class at t is not the exact one; the t needed put every
    node's top class right. Shapes as there.

    Attributes
    ----------
    classes : tuple of int
        The class labels (C of them).
    """

    classes: tuple[int, ...] = ()

    error_words = "largest score error"
    margin_words = "half the smallest top-two margin"
    side_words = "nodes whose top class differs from the exact one"
    rule = CLASS_TRUST_RULE


def top_two_margin(F: np.ndarray) -> np.ndarray:
    """Each row's best score minus its second best, shape (n,) of ``F`` (n, C), C ≥ 2."""
    part = np.partition(np.asarray(F, float), -2, axis=1)
    return part[:, -1] - part[:, -2]


@one_thread
def class_trust_curve(
    model: SoftLabelModel,
    y: np.ndarray,
    classes: tuple[int, ...],
    sigmas,
    *,
    solver: str = "cg",
    cg_iters: int = CG_ITERS,
    t_max: int = T_MAX,
    progress: Callable[[float, str], None] | None = None,
) -> ClassTrustCurve:
    """Where t-iteration CG (or PCG), one run per class column, can be trusted.

    Parameters
    ----------
    model : SoftLabelModel
    y : ndarray of shape (n,)
        Class indices of every point (only the labeled ones are read).
    classes : tuple of int
        The C class labels.
    sigmas : array-like of shape (n_sigma,)
        Positive bandwidths.
    solver : {'cg', 'pcg'}, default='cg'
    cg_iters : int, default=20
    t_max : int, default=1024
        Cap of the search for the t needed.
    progress : callable, optional
        ``progress(fraction, message)``; changes no number.

    Returns
    -------
    ClassTrustCurve
        Nodes cut off from L in the exact graph are left out, as in
        :func:`~sslviz.conditioning.trust_curve`.
    """
    caller = "class_trust_curve"
    sig, cg_iters = _check_grid(sigmas, solver, cg_iters, caller)
    report = _reporter(progress, caller)
    C, n = len(classes), sig.size
    y = np.asarray(y)

    def scores(idx, which: str, t: int):
        return model.scores(sig[idx], y, C, solver=which, cg_iters=t, derivative=False)

    report(0.0, f"exact scores at {n} σ")
    exact = scores(np.arange(n), "exact", 1)
    keeps = [~sc.degenerate for sc in exact]
    want = [np.argmax(sc.F, axis=1) for sc in exact]
    report(0.2, f"{solver_label(solver, cg_iters)} scores at {n} σ")
    approx = scores(np.arange(n), solver, cg_iters)
    error, margin = np.zeros(n), np.full(n, np.inf)
    wrong, under = np.zeros(n, int), np.zeros(n, int)
    for i, (ex, ap, k) in enumerate(zip(exact, approx, keeps, strict=True)):
        if k.any():
            error[i] = float(np.max(np.abs(ap.F[k] - ex.F[k])))
            margin[i] = 0.5 * float(np.min(top_two_margin(ex.F[k])))
        under[i] = int(np.sum(ap.degenerate[k]))
        off = (np.argmax(ap.F, axis=1) != want[i]) | ap.degenerate
        wrong[i] = int(np.sum(off[k]))

    def right(which: str):
        def check(idx: list[int], t: int) -> list[bool]:
            return [
                bool(
                    np.all(np.argmax(sc.F[keeps[i]], axis=1) == want[i][keeps[i]])
                    and not sc.degenerate[keeps[i]].any()
                )
                for i, sc in zip(idx, scores(idx, which, t), strict=True)
            ]

        return check

    needed = {}
    for j, w in enumerate(("cg", "pcg")):
        base = 0.3 + 0.35 * j

        def settled(k: int, trying=None, base=base, w=w) -> None:
            report(base + 0.35 * k / n, f"t needed, {w.upper()}: σ {k} of {n}")

        needed[w] = _search_t(n, keeps, under, t_max, right(w), settled)
    report(1.0, "done")
    return ClassTrustCurve(
        sig,
        error,
        margin,
        error >= margin,
        wrong,
        needed["cg"],
        needed["pcg"],
        np.array([int((~k).sum()) for k in keeps]),
        under,
        solver,
        cg_iters,
        t_max,
        tuple(int(c) for c in classes),
    )
