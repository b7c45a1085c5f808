"""Guided tours of the sslviz app: one question of the paper each, as data (no Streamlit).

A tour names the page it opens, its settings as URL query values (the app's URL keys, so a
tour is exactly the view of the link ``<page>?<settings>``), a few sentences in the
paper's terms, what to look at in the chart, one question to ask students, and the URL
keys of the controls it uses (presenter mode shows only those). ``?tour=<id>`` opens a
tour on any page; ``ui.presenter`` loads it.

The settings were chosen by measurement (digits, seed 0, PCA 45, scored with
``sslviz intervals --score``; numbers on a 2-core machine) so the point is visible and
the page computes in a few seconds. Every instance setting is given explicitly, so a
change of a default elsewhere does not change a tour's view.
"""

from __future__ import annotations

import math
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sslviz.words import class_pair


@dataclass(frozen=True)
class Tour:
    """One guided tour.

    Attributes
    ----------
    id : str
        URL slug (``?tour=<id>``).
    title, teaser : str
        Gallery card: the title and a one-line teaser.
    page : str
        Page file the tour opens, relative to the app root (``pages/Loss_intervals.py``).
    settings : dict of str to str
        URL query values (URL key → text, as in a link).
    text : str
        What the view shows, in the paper's terms (2–5 sentences, Markdown).
    look : str
        What to look at in the chart.
    ask : str
        One question to ask students.
    controls : tuple of str
        URL keys of the controls the tour uses (shown in presenter mode).
    """

    id: str
    title: str
    teaser: str
    page: str
    settings: dict[str, str] = field(default_factory=dict)
    text: str = ""
    look: str = ""
    ask: str = ""
    controls: tuple[str, ...] = ()


_INSTANCE = {
    "dataset": "digits",
    "seed": "0",
    "pca": "45",
    "labeling": "harmonic",
    "k": "6",
    "mode": "fast",
    "solver": "cg",
    "t": "20",
}

_DIGITS_38 = _INSTANCE | {"classes": "3,8", "n": "100", "labeled": "10"}
"""Digits 3 vs 8 with n = 100 and |L| = 10: the instance most tours start from."""

TOURS: tuple[Tour, ...] = (
    Tour(
        id="piecewise-loss",
        title="What l(σ) is, and why it is piecewise constant",
        teaser="The loss over σ is a staircase: each step is one unlabeled point whose soft "
        "label crosses ½.",
        page="pages/Loss_intervals.py",
        settings=_INSTANCE
        | {
            "classes": "3,8",
            "n": "60",
            "labeled": "6",
            "family": "complete",
            "solver": "exact",
            "compare": "nothing",
            "sigma_min": "0.6",
            "sigma_max": "3.4",
            "node": "59",
        },
        text="Each σ gives a Gaussian graph; the harmonic solution (Algorithm 2) gives every "
        "unlabeled node u a soft label f_u(σ), predicted 1 when f_u > ½. The loss l(σ) is "
        "the fraction of U misclassified, so it can change only where some f_u(σ) crosses "
        "½, and is constant in between. Here (digits 3 vs 8, n = 60, complete graph) "
        "Algorithm 4 runs with the exact solver, so its intervals are the true pieces.",
        look="The black staircase has {breakpoints} in [{lo}, {hi}] ({breakpoint_list}); "
        "l(σ) takes the values {loss_values} of |U| = {unlabeled}. One node: "
        "{node_crossings}.",
        ask="l(σ) takes only values k/|U| and is flat almost everywhere: why can't we tune σ "
        "by gradient descent on l, and what do we need to know instead?",
        controls=("solver", "node", "sigma_min", "sigma_max"),
    ),
    Tour(
        id="cg-misses",
        title="Why t-iteration CG misses intervals",
        teaser="Algorithm 4 with CG-5, CG-20 and an exact solve on the same loss: where the "
        "approximation loses breakpoints, and why.",
        page="pages/Loss_intervals.py",
        settings=_DIGITS_38
        | {
            "family": "complete",
            "t": "20",
            "compare": "CG t = 5",
            "sigma_min": "0.6",
            "sigma_max": "3.4",
        },
        text="Algorithm 4 finds the pieces by root finding on g_u(σ) = (f_u(σ) − ½)², with "
        "f_u and f'_u from t iterations of CG (Algorithm 2) instead of a matrix inverse. CG "
        "needs about √κ(I − P_UU) iterations; with fewer, f_u can sit on the wrong side of "
        "½, so a true breakpoint is missed or a spurious one appears (digits 3 vs 8, "
        "n = 100, complete graph).",
        look="Blue ({label}) against dotted orange ({compare_label}): of the {true} true "
        "breakpoints, Algorithm 4 with {label} misses {missed} and with {compare_label} "
        "{compare_missed} ({compare_M} intervals, {compare_spurious} spurious endpoints); "
        "the markers give each miss's cause. The trust panel shades where {label} cannot "
        "be trusted: {trust_where} ({trust_grid}). Set *compare with* to *exact solver* to "
        "see the true pieces as intervals.",
        ask="Switch the solver to pcg (Jacobi-preconditioned CG) at the same t: how many "
        "misses are left, and why does preconditioning help most at small σ?",
        controls=("t", "solver", "compare"),
    ),
    Tour(
        id="cg-converges",
        title="Watch t-iteration CG converge to the exact loss",
        teaser="Scrub t from one iteration up: the estimated loss closes on the truth and "
        "the missed breakpoints vanish, sooner with Jacobi-PCG.",
        page="pages/CG_iterations.py",
        settings=_DIGITS_38
        | {
            "family": "complete",
            "t": "20",
            "t_max": "150",
            "sigma_min": "0.6",
            "sigma_max": "3.4",
        },
        text="CG's iterates are nested: the first t iterations of a longer run are a "
        "t-iteration run, bit for bit. So one run per σ gives the estimate l̃_t(σ) that "
        "Algorithm 4 would see for every t at once, and the slider moves through t without "
        "computing anything. A breakpoint is missed at t when a node that flips there is on "
        "its wrong side just left or right of it.",
        look="At t = {t}, CG's own soft labels miss {cg_misses} of the "
        "{breakpoints} true breakpoints and Algorithm 4 with {cg_label} (the loss page) "
        "{cg_algorithm4}; Jacobi-PCG's miss {pcg_misses} and Algorithm 4 with {pcg_label} "
        "{pcg_algorithm4}: its search can find a breakpoint whose node CG puts on the wrong "
        "side, and miss one it puts right. Every node "
        "stays on its exact side at every σ read with CG {cg_settled}. Press play and watch "
        "the markers and the miss count in the lower panel as t grows.",
        ask="Jacobi-PCG only rescales the system by its degrees: why does it settle in fewer "
        "iterations than CG here, and on what kind of graph would it gain nothing?",
        controls=("t", "t_max", "sigma_min", "sigma_max"),
    ),
    Tour(
        id="sparse-vs-complete",
        title="Sparse vs complete graphs (Table 1)",
        teaser="Time per interval and number of pieces M on kNN and complete graphs, and "
        "why sparse graphs need fewer instances to learn σ.",
        page="pages/Speed.py",
        settings=_DIGITS_38
        | {
            "family": "knn",
            "sigma_min": "0.6",
            "sigma_max": "3.4",
            "sizes": "50,100",
            "speed_families": "complete,knn",
            "speed_solvers": "cg,inverse",
        },
        text="Table 1 of the paper: time per interval (TpI) and number of intervals M for "
        "CG (t = 20) against the matrix inverse (MI), on the complete graph and the kNN "
        "graph (k = 6). A CG iteration costs O(|E_G|): n² edges on the complete graph, "
        "about kn on kNN (here L_UU has {nonzeros_complete} nonzeros on the complete graph, "
        "{nonzeros_knn} on kNN). The paper's sample-complexity remark (Section 4) is the other "
        "side of sparsity: the kNN family's pseudo-dimension is O(K + log n) against Θ(n) "
        "for complete graphs, because a node's label can flip at only a few σ.",
        look="The right chart, M. With the inverse (exact pieces), M on the complete graph "
        "is {M_complete_inverse} while on the kNN graph it is {M_knn_inverse}. With CG, M "
        "is {M_complete_cg} (complete) and {M_knn_cg} (kNN): its extra intervals "
        "are spurious endpoints.",
        ask="Why does the number of pieces M stay small on the kNN graph as n grows, and "
        "why does that mean fewer training instances suffice to pick σ?",
        controls=("sizes", "speed_families", "speed_solvers", "t"),
    ),
    Tour(
        id="paper-vs-fast",
        title="Paper mode vs fast mode",
        teaser="Algorithm 4 node by node, as printed, against one shared search: the same "
        "solver, and how many solves each needs.",
        page="pages/Loss_intervals.py",
        settings=_DIGITS_38
        | {
            "family": "knn",
            "solver": "pcg",
            "t": "20",
            "mode": "paper",
            "step": "0.05",
            "compare": "other mode",
            "sigma_min": "0.6",
            "sigma_max": "3.4",
        },
        text="Paper mode runs Algorithm 4 as printed (with Appendix E.2's changes): node by "
        "node, a Newton / gradient hybrid from σ0, restarting at σ_h + 0.05 after each "
        "interval, so every node's iteration pays for its own solves. Fast mode searches "
        "for every crossing of the approximate f_u − ½ at once: one solve at a σ serves all "
        "nodes. Same instance (digits 3 vs 8, n = 100, kNN k = 6), same solver (PCG, t = 20).",
        look="Blue: paper mode's intervals; dotted orange: fast mode's. Paper mode needs "
        "{solves} solves, fast mode {compare_solves}; of the {true} true breakpoints, paper "
        "mode misses {missed_count} and fast mode {compare_missed_count}.",
        ask="Both modes use the same solver: where does the difference in solves come from, "
        "and what can paper mode's restart step of 0.05 skip?",
        controls=("mode", "compare", "solver", "t"),
    ),
    Tour(
        id="delalleau",
        title="Delalleau's subset method (Algorithm 3)",
        teaser="Solve on a small subset Ũ of U and extend: a smaller system that CG solves "
        "in a few iterations.",
        page="pages/Loss_intervals.py",
        settings=_INSTANCE
        | {
            "classes": "3,8",
            "n": "200",
            "labeled": "20",
            "family": "knn",
            "labeling": "delalleau",
            "subset": "20",
            "lam": "1.4",
            "t": "20",
            "compare": "CG t = 5",
            "sigma_min": "0.6",
            "sigma_max": "3.4",
        },
        text="Delalleau et al.'s method (Algorithm 3) solves only on L ∪ Ũ, a random subset "
        "of m unlabeled nodes, with a label-fit weight λ, and extends the soft labels to the "
        "rest of U by a Parzen-window average. Here the system has |L| + m = {unknowns} "
        "unknowns instead of |U| = {unlabeled}, so each solve is cheap and CG converges in "
        "far fewer iterations (at most {unknowns} in exact arithmetic).",
        look="With m = {subset}, {label} misses {missed} of the {true} true breakpoints, "
        "while {compare_label} (dotted orange) misses {compare_missed_count}. Raise m: the "
        "true loss itself changes, and so do the misses.",
        ask="A small m makes every solve cheap and accurate: what does it cost? (Watch the "
        "black true loss while you change m.)",
        controls=("subset", "lam", "t", "compare"),
    ),
    Tour(
        id="online-sigma",
        title="Learning σ online with Exp3-Set (Algorithm 1)",
        teaser="Tune σ over a stream of instances from interval feedback, and compare the "
        "regret with the √(T·M·log(RT)) rate.",
        page="pages/Online_regret.py",
        settings=_INSTANCE
        | {
            "classes": "1,7",
            "n": "50",
            "labeled": "5",
            "family": "complete",
            "sigma_min": "0.5",
            "sigma_max": "5.0",
            "rounds": "20",
            "repeats": "2",
            "feedback": "approx,exact,full,uniform",
        },
        text="Algorithm 1 (Approximate Continuous Exp3-Set) learns σ over a stream of "
        "instances: each round it samples σ_t from its weights, suffers l_t(σ_t) and "
        "updates on the feedback: the interval Algorithm 4 returns around σ_t (approx, "
        "CG-20), the true constant-loss interval (exact), the whole loss (full information, "
        "M = 1) or nothing (uniform). Theorem 3.1 bounds the regret by Õ(√(T·M·log(RT))), "
        "M the number of pieces.",
        look="The coloured lines: uniform does not learn; full information sees the whole "
        "loss each round; approx and exact see one interval. Where does each end after T "
        "rounds? The grey line is Theorem 3.1's rate on its own axis (right): compare its "
        "shape with the lines', not its height.",
        ask="Why does approximate feedback from CG-20 cost almost nothing here compared with "
        "the exact interval, and what would make it cost more?",
        controls=("rounds", "repeats", "feedback", "lr"),
    ),
    Tour(
        id="conditioning",
        title="Conditioning across σ (Figure 5)",
        teaser="Where √κ explodes, CG-t cannot be trusted: the σ range Algorithm 4 can "
        "search with t = 20.",
        page="pages/Conditioning.py",
        settings=_DIGITS_38
        | {
            "family": "knn",
            "sigma_min": "0.3",
            "sigma_max": "3.4",
            "families": "complete,knn",
            "cond_solver": "cg",
        },
        text="Figure 5 plots √κ(I − P_UU) against σ. CG's error after t iterations shrinks "
        "like ((√κ − 1)/(√κ + 1))^t (Theorems 5.1–5.3), so t = 20 is plenty where √κ is "
        "small and hopeless where it is large. As σ → 0 each node's weight concentrates on "
        "its nearest neighbour and the grounded Laplacian becomes nearly singular.",
        look="At σ = {lo}, √κ is {sqrt_kappa_lo} and CG needs {iterations_lo} iterations "
        "to reach the tolerance; at σ = {hi}, √κ is {sqrt_kappa_hi} and CG needs "
        "{iterations_hi}. On {trust_grid}, {label} cannot be trusted at {trust_where}.",
        ask="Switch the CG variant to pcg and read the iterations needed again: at which end "
        "of the σ range do they drop most? (PCG's rate is set by exactly the κ(I − P_UU) of "
        "this chart.)",
        controls=("families", "cond_solver", "t", "sigma_min"),
    ),
    Tour(
        id="learn-sigma",
        title="Learning σ from many instances, and what too few cost",
        teaser="ERM over the exact losses of m instances: it overfits with one instance and "
        "settles as m grows; learning on CG estimates instead can pick a much worse σ.",
        page="pages/Learn.py",
        settings=_DIGITS_38
        | {
            "family": "complete",
            "sigma_min": "0.63",
            "sigma_max": "3.4",
            "instances": "8",
            "test_instances": "8",
            "curve": "1,2,4,8",
            "curve_repeats": "4",
            "compare_t": "5,10,20",
            "learn_solver": "exact",
        },
        text="The paper's distributional setting (§2 and §4): instances come from one domain, "
        "here digits 3 vs 8 with n = 100 and |L| = 10 on the complete graph, and σ is "
        "learned by empirical risk minimisation on m of them. Every l_i(σ) is exact and "
        "piecewise constant, so the training average and its ERM set are exact, and so is "
        "σ̂'s loss on instances it never saw.",
        look="The grey staircases are the training instances, blue their average, green "
        "its ERM set and σ̂, red dashed the held-out average; the dotted lines are the "
        "training average as CG-5, CG-10 and CG-20 estimate it. Where does σ̂ sit on the red "
        "curve, and where is each dotted line lowest?",
        ask="Why does ERM on one instance do worse on new instances than ERM on several, when "
        "every loss it sees is exact? And why is the lowest point of CG-5's estimate a σ "
        "that the exact curves rank so badly?",
        controls=("instances", "test_instances", "curve", "compare_t"),
    ),
    # Chosen by measurement (digits, all ten classes, seed 0, PCA 45, CG-20 fast mode, the
    # suggested σ range; `sslviz intervals --dataset digits --classes all --n N --labeled L
    # --family F --score --json`, 2-core machine shared with other work):
    #   complete, n = 100, |L| = 10, σ in [0.72, 4.4]: 87 true breakpoints, CG-20 misses 17
    #     (every one a solver miss, all at σ from 0.791 to 1.27), 15 spurious; the loss runs
    #     from 25.6 % to 87.8 % (14.9 s for the command, attribution included).
    #   kNN-6, n = 100, |L| = 10: 24 breakpoints, 12 missed (10 of them below σ = 1.5),
    #     the loss between 20 % and 33 % (11.3 s).
    #   complete, n = 200, |L| = 20, σ in [0.66, 3.9]: 152 breakpoints, 22 missed (all at
    #     σ ≤ 1.07), loss 6.1 % to 82.2 % (37.3 s: too slow for a tour's first view).
    #   kNN-6, n = 200, |L| = 20: 13 breakpoints, 11 missed (σ 0.673 to 3.58), 5.6-11 % (15.7 s).
    # n = 100 on the complete graph: CG-20's one-vs-all misses sit at small σ, where the
    # trust panel shades, and the loss climbs with σ; switching to kNN flattens it.
    Tour(
        id="ten-digits",
        title="Ten digits at once",
        teaser="One-vs-all: one harmonic solve per class, the top score wins. Where CG-20 "
        "loses breakpoints at small σ, and what the kNN graph changes.",
        page="pages/Loss_intervals.py",
        settings=_INSTANCE
        | {
            "classes": "0,1,2,3,4,5,6,7,8,9",
            "n": "100",
            "labeled": "10",
            "family": "complete",
            "t": "20",
            "compare": "nothing",
            "sigma_min": "0.72",
            "sigma_max": "4.4",
        },
        text="The paper's algorithms extend to more classes by the one-vs-all trick: the "
        "harmonic system is solved once per class (the same matrix, one right-hand side per "
        "class) and each node is predicted its top score. Its prediction is right while its "
        "own class's score beats every rival's, so l(σ) steps where a gap between a node's "
        "true class and a rival closes. Algorithm 4 runs CG-t on every column.",
        look="All {classes_count} digits: the black staircase has {breakpoints} over [{lo}, "
        "{hi}], from {loss_lo} to {loss_hi} unlabeled nodes misclassified. {label} "
        "misses {missed} of the {true} true breakpoints, at {miss_span}; the trust panel "
        "shades {trust_where} (CG needs {t_needed} on its grid). The pair of classes met "
        "most often there: {top_pair}. Hover a red cross for its pair, e.g. {pair_example}.",
        ask="Switch the graph family to kNN: why does the loss stop climbing with σ on the "
        "kNN graph, and why are its misses fewer?",
        controls=("family", "t", "node"),
    ),
    # Chosen by measurement: `sslviz condition --dataset digits --classes 3 8 --n 100
    # --labeled 10 --seed 0 --pca 45 --family knn --labeling spreading --alpha A --sigmas
    # 0.3:3.4:12` gives κ(I − αS) from 1.5 down to 1.37 for A = 0.2, 19.0 down to 14.2 for
    # A = 0.9, 199 down to 147 for A = 0.99 (the harmonic model's κ(I − P_UU): 1.3e9 at
    # σ = 0.3, 25.6 at 3.4); with --sigmas 0.3:3.4:40 and A = 0.9, κ is 19.0 at σ = 0.3 on
    # both families (its largest value) and 10.2 (complete) or 14.4 (knn) at 3.4, CG
    # needing 24 iterations at 0.3. α = 0.9 puts the ceiling where √κ is readable.
    Tour(
        id="spreading-alpha",
        title="What α does in label spreading",
        teaser="Label spreading's α trades the graph against the given labels, and caps the "
        "condition number of its system whatever σ is.",
        page="pages/Conditioning.py",
        settings=_DIGITS_38
        | {
            "family": "knn",
            "labeling": "spreading",
            "alpha": "0.9",
            "sigma_min": "0.3",
            "sigma_max": "3.4",
            "families": "complete,knn",
            "cond_solver": "cg",
        },
        text="Label spreading (Zhou et al., scikit-learn's label spreading estimator) solves "
        "(I − αS) F = (1 − α) Y with "
        "S = D^(−1/2) W D^(−1/2): α weighs what the graph spreads against the labels given, "
        "and every label is held softly. S's eigenvalues lie in [−1, 1], so those of I − αS "
        "lie in [1 − α, 1 + α] and κ(I − αS) ≤ (1 + α)/(1 − α) at every σ, where the "
        "harmonic model's κ(I − P_UU) grows without bound as σ → 0.",
        look="At σ = {lo}, √κ is {sqrt_kappa_lo}, at its ceiling √((1 + α)/(1 − α)), and "
        "CG needs {iterations_lo} iterations; at σ = {hi}, √κ is {sqrt_kappa_hi} and CG "
        "needs {iterations_hi}.",
        ask="Move α towards 1 in the sidebar: what happens to the ceiling, and what does a "
        "value of α near 0 leave of the graph's influence on the unlabeled points?",
        controls=("alpha", "families", "t", "sigma_min"),
    ),
)

# -- the numbers of the tour texts, from the results the page draws --------------------------


def fields(text: str) -> list[str]:
    """The ``{field}`` names of a tour text (a template filled by :func:`fill`)."""
    return [f for _, f, _, _ in string.Formatter().parse(text) if f]


def fill(text: str, facts: Mapping[str, Any]) -> str:
    """``text`` with its fields filled from ``facts`` (a field with no fact: "…", so a text
    whose view failed shows no number it did not compute)."""
    return text.format_map(_Missing(facts))


class _Missing(dict):
    def __missing__(self, key: str) -> str:
        return "…"


def _g(x: float) -> str:
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.3g}"


def _count(k: int, total: int) -> str:
    return f"all {total}" if k == total and total > 1 else "none" if k == 0 else f"{k:,}"


def _plural(k: int, word: str) -> str:
    return f"{k:,} {word}{'s' * (k != 1)}"


def loss_facts(
    truth,
    *,
    score=None,
    sweep=None,
    compare_score=None,
    compare_sweep=None,
    trust=None,
    problem=None,
    node: int | None = None,
    lo: float | None = None,
    hi: float | None = None,
) -> dict[str, str]:
    """The numbers a loss-page tour states, each read off the result the page draws:
    ``truth`` (:class:`~sslviz.truth.LossCurve`), the scored sweep and its comparison
    (:class:`~sslviz.intervals.Score`, :class:`~sslviz.intervals.Sweep`), the trust panel
    (:class:`~sslviz.conditioning.TrustCurve`) and the drill-down's ``node`` (instance row;
    ``problem`` maps rows to unlabeled indices)."""
    bps = np.asarray(truth.breakpoints, float)
    values = np.asarray(truth.loss.values, float)
    n_u = int(truth.n_unlabeled) if hasattr(truth, "n_unlabeled") else None
    if n_u is None and problem is not None:
        n_u = int(problem.model.n_unlabeled)
    out: dict[str, str] = {"breakpoints": _plural(bps.size, "breakpoint")}
    out["breakpoint_list"] = "σ ≈ " + ", ".join(_g(b) for b in bps) if bps.size else "none"
    if lo is not None and hi is not None:
        out |= {"lo": f"{lo:g}", "hi": f"{hi:g}"}
    if n_u:
        ks = sorted({int(round(v * n_u)) for v in values})
        out["loss_values"] = ", ".join(f"{k}/{n_u}" for k in ks)
        out["unlabeled"] = f"{n_u}"
    if problem is not None and problem.spec.labeling == "delalleau":
        out["unknowns"] = f"{problem.spec.n_labeled + problem.spec.subset}"
        out["subset"] = f"{problem.spec.subset}"
    if node is not None and problem is not None:
        u = problem.rows(range(problem.model.n_unlabeled)).index(node)
        at = [b for b, nd in zip(bps, truth.nodes, strict=True) if u in set(np.ravel(nd))]
        out["node_crossings"] = (
            f"row {node}'s exact soft label f_u(σ) crosses ½ at σ ≈ "
            + ", ".join(_g(b) for b in at)
            + (" (a step of the staircase)" if len(at) == 1 else " (steps of the staircase)")
            if at
            else f"row {node}'s exact soft label f_u(σ) does not cross ½ in this range"
        )
    if score is not None:
        out |= {
            "true": f"{score.true_breakpoints:,}",
            "M": f"{score.M:,}",
            "missed": _count(score.missed, score.true_breakpoints),
            "missed_count": f"{score.missed:,}",
            "spurious": f"{score.spurious:,}",
        }
        if score.settings is not None:
            out["label"] = score.settings.label
    if sweep is not None:
        out["solves"] = f"{sweep.solves:,}"
        out.setdefault("label", sweep.settings.label)
    if compare_score is not None:
        out |= {
            "compare_missed": "misses "
            + _count(compare_score.missed, compare_score.true_breakpoints),
            "compare_missed_count": f"{compare_score.missed:,}",
            "compare_M": f"{compare_score.M:,}",
            "compare_spurious": f"{compare_score.spurious:,}",
        }
    if compare_sweep is not None:
        out["compare_solves"] = f"{compare_sweep.solves:,}"
        out["compare_label"] = compare_sweep.settings.label
    if trust is not None:
        out["trust_where"] = trust.where_untrusted() or "nowhere"
        out["trust_grid"] = trust.grid_words()
        out["t_needed"] = trust.needed_words("cg")
    if getattr(truth, "classes", None) is not None:
        out |= _class_facts(truth, score, problem, n_u)
    return out


def _class_facts(truth, score, problem, n_u: int | None) -> dict[str, str]:
    """The facts of more than two classes (docs/method.md §13): how many classes, the
    lowest and highest loss (of |U|), where the misses lie, the pair of classes that met
    at the most misses and one miss in words (:func:`sslviz.words.class_pair`)."""
    out = {"classes_count": f"{len(truth.classes)}"}
    values = np.asarray(truth.loss.values, float)
    if n_u:
        out["loss_lo"] = f"{round(values.min() * n_u)}"
        out["loss_hi"] = f"{round(values.max() * n_u)} of the {n_u}"
    recs = [] if score is None else list(score.miss_records)
    if recs:
        where = [r.sigma for r in recs]
        out["miss_span"] = (
            f"σ = {_g(where[0])}"
            if len(where) == 1
            else f"σ from {_g(min(where))} to {_g(max(where))}"
        )
        pairs = [
            tuple(sorted(r.evidence["classes"]))
            for r in recs
            if r.evidence.get("classes", [None, None])[1] is not None
        ]
        if pairs:
            (a, b), k = max(
                ((p, pairs.count(p)) for p in dict.fromkeys(pairs)), key=lambda pk: pk[1]
            )
            out["top_pair"] = f"{a} and {b} ({k} of the {len(recs)} misses)"
        first = recs[0]
        u = first.evidence.get("node", -1)
        if problem is not None and u is not None and u >= 0 and "classes" in first.evidence:
            row = problem.rows([u])[0]
            out["pair_example"] = class_pair(f"node {row}", first.evidence["classes"])
    return out


def condition_facts(curves: Mapping[str, Any], trusts: Mapping[str, Any]) -> dict[str, str]:
    """The numbers the conditioning tour states, per graph family in ``curves`` order
    (:class:`~sslviz.conditioning.ConditionCurve` and
    :class:`~sslviz.conditioning.TrustCurve` per family), at the grid's first and last σ."""
    fams = list(curves)
    c0 = curves[fams[0]]

    def per(fn) -> str:  # "36,094 (complete) and 36,246 (knn)"
        return " and ".join(f"{fn(curves[f])} ({f})" for f in fams)

    out = {
        "lo": _g(c0.sigma[0]),
        "hi": _g(c0.sigma[-1]),
        "sqrt_kappa_lo": per(lambda c: _g(math.sqrt(c.kappa[0]))),
        "sqrt_kappa_hi": per(lambda c: _g(math.sqrt(c.kappa[-1]))),
        "iterations_lo": per(lambda c: c.iterations_words(0)),
        "iterations_hi": per(lambda c: c.iterations_words(-1)),
    }
    out["trust_readings"] = " ".join(f"{f}: {trusts[f].reading()}" for f in fams if f in trusts)
    if trusts:
        first = next(iter(trusts.values()))
        out["trust_grid"] = first.grid_words().removeprefix("on ")
        out["label"] = first.label
        out["trust_where"] = " and ".join(
            f"{trusts[f].where_untrusted() or 'no σ'} ({f})" for f in fams if f in trusts
        )
    return out


def speed_facts(rows: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """M per graph family and solver of the Speed page's rows (``M_<family>_<solver>``:
    "16 at n = 50, 43 at n = 100"), and the nonzeros of L_UU on each graph
    (``nonzeros_<family>``, from the CG and PCG rows' work counts)."""
    by: dict[str, list[str]] = {}
    for r in sorted(rows, key=lambda r: r["n"]):
        by.setdefault(f"M_{r['family']}_{r['solver']}", []).append(f"{r['M']} at n = {r['n']}")
        if r["solver"] in ("cg", "pcg") and "graph_nonzeros" in r:
            nnz = f"{r['graph_nonzeros']:,} at n = {r['n']}"
            if nnz not in by.setdefault(f"nonzeros_{r['family']}", []):
                by[f"nonzeros_{r['family']}"].append(nnz)
    return {k: ", ".join(v) for k, v in by.items()}


BY_ID: dict[str, Tour] = {t.id: t for t in TOURS}
IDS: tuple[str, ...] = tuple(BY_ID)


def convergence_facts(conv, t: int, comparisons=(), trust=None) -> dict[str, str]:
    """The numbers the CG-iterations tour states, read off the page's
    :class:`~sslviz.convergence.Convergence` at the chart's first ``t``, its
    :class:`~sslviz.convergence.MissComparison` per solver against Algorithm 4 (the loss
    page's count) and the trust panel's :class:`~sslviz.conditioning.TrustCurve`."""
    out = {"t": f"{t}", "breakpoints": f"{conv.breakpoints.size}"}
    for s in conv.solvers:
        out[f"{s}_misses"] = _count(int(conv.misses(s)[t - 1]), int(conv.breakpoints.size))
        out[f"{s}_settled"] = conv.settled_words(s)
    for c in comparisons:
        k = len(c.algorithm4)
        out[f"{c.solver}_label"] = c.label
        same = "none either" if k == 0 else f"the same {_count(k, c.breakpoints)}"
        out[f"{c.solver}_algorithm4"] = "misses " + (
            same if c.own == c.algorithm4 else _count(k, c.breakpoints)
        )
        out[f"{c.solver}_comparison"] = c.sentence()
    if trust is not None:
        out["cg_needed"] = trust.needed_words("cg")
        out["trust_grid"] = trust.grid_words()
    return out


def get(tour_id: str | None) -> Tour | None:
    """The tour with id ``tour_id`` (None when there is none)."""
    return BY_ID.get(tour_id) if tour_id else None


def next_tour(tour_id: str) -> Tour:
    """The tour after ``tour_id`` in gallery order (the first after the last)."""
    i = IDS.index(tour_id)
    return TOURS[(i + 1) % len(TOURS)]


__all__ = [
    "BY_ID",
    "IDS",
    "TOURS",
    "Tour",
    "condition_facts",
    "convergence_facts",
    "fields",
    "fill",
    "get",
    "loss_facts",
    "next_tour",
    "speed_facts",
]
