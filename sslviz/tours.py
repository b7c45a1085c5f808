"""Guided tours of the sslviz app: one question of the paper each, as data (no Streamlit).

A tour names the page it opens, its settings as URL query values (the app's URL keys, so a
tour is exactly the view of the link ``<page>?<settings>``), a few sentences in the
paper's terms, what to look at in the chart, one question to ask students, and the URL
keys of the controls it uses (presenter mode shows only those). ``?tour=<id>`` opens a
tour on any page; ``app_state`` loads it.

The settings were chosen by measurement (digits, seed 0, PCA 45, scored with
``sslviz intervals --score``; numbers on a 2-core machine) so the point is visible and
the page computes in a few seconds. Every instance setting is given explicitly, so a
change of a default elsewhere does not change a tour's view.
"""

from __future__ import annotations

from dataclasses import dataclass, field

LOSS = "app_pages/1_Loss_intervals.py"
CONDITIONING = "app_pages/2_Conditioning.py"
REGRET = "app_pages/3_Online_regret.py"
SPEED = "app_pages/4_Speed.py"
LEARN = "app_pages/6_Learn.py"


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
        Page file the tour opens, relative to the app root (``app_pages/1_Loss_intervals.py``).
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


_INSTANCE = {"dataset": "digits", "seed": "0", "pca": "45", "labeling": "harmonic",
             "k": "6", "mode": "fast", "solver": "cg", "t": "20"}  # fmt: skip

_DIGITS_38 = _INSTANCE | {"classes": "3,8", "n": "100", "labeled": "10"}
"""Digits 3 vs 8 with n = 100 and |L| = 10: the instance most tours start from."""

TOURS: tuple[Tour, ...] = (
    Tour(
        id="piecewise-loss",
        title="What l(σ) is, and why it is piecewise constant",
        teaser="The loss over σ is a staircase: each step is one unlabeled point whose soft "
        "label crosses ½.",
        page=LOSS,
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
        },  # fmt: skip
        text="Each σ gives a Gaussian graph; the harmonic solution (Algorithm 2) gives every "
        "unlabeled node u a soft label f_u(σ), predicted 1 when f_u > ½. The loss l(σ) is "
        "the fraction of U misclassified, so it can change only where some f_u(σ) crosses "
        "½, and is constant in between. Here (digits 3 vs 8, n = 60, complete graph) "
        "Algorithm 4 runs with the exact solver, so its intervals are the true pieces.",
        look="The black staircase has 3 breakpoints in [0.6, 3.4] (σ ≈ 0.69, 0.82, 1.59); "
        "each adds one of the 54 unlabeled points to the errors (l goes from 1/54 to 4/54). "
        "In the drill-down below (Figure 2), row 59's soft label f_u(σ) crosses ½ exactly "
        "at the last step.",
        ask="l(σ) takes only values k/|U| and is flat almost everywhere: why can't we tune σ "
        "by gradient descent on l, and what do we need to know instead?",
        controls=("solver", "node", "sigma_min", "sigma_max"),
    ),
    Tour(
        id="cg-misses",
        title="Why t-iteration CG misses intervals",
        teaser="Algorithm 4 with CG-5, CG-20 and an exact solve on the same loss: where the "
        "approximation loses breakpoints, and why.",
        page=LOSS,
        settings=_DIGITS_38
        | {
            "family": "complete",
            "t": "20",
            "compare": "CG t = 5",
            "sigma_min": "0.6",
            "sigma_max": "3.4",
        },  # fmt: skip
        text="Algorithm 4 finds the pieces by root finding on g_u(σ) = (f_u(σ) − ½)², with "
        "f_u and f'_u from t iterations of CG (Algorithm 2) instead of a matrix inverse. CG "
        "needs about √κ(I − P_UU) iterations; with fewer, f_u can sit on the wrong side of "
        "½, so a true breakpoint is missed or a spurious one appears (digits 3 vs 8, "
        "n = 100, complete graph).",
        look="Blue (t = 20) against dotted orange (t = 5): of the 27 true breakpoints, t = 5 "
        "misses all 27 (about 40 intervals, almost all endpoints spurious) and t = 20 misses "
        "8; the markers give each miss's cause. The trust panel shades the small σ where "
        "CG-t's error exceeds the margin |f_u − ½|. Set *compare with* to *exact solver* "
        "to see the true pieces as intervals.",
        ask="Switch the solver to pcg (Jacobi-preconditioned CG) at the same t = 20: it "
        "misses only about 3. Why does preconditioning help most at small σ?",
        controls=("t", "solver", "compare"),
    ),
    Tour(
        id="sparse-vs-complete",
        title="Sparse vs complete graphs (Table 1)",
        teaser="Time per interval and number of pieces M on kNN and complete graphs, and "
        "why sparse graphs need fewer instances to learn σ.",
        page=SPEED,
        settings=_DIGITS_38
        | {
            "family": "knn",
            "sigma_min": "0.6",
            "sigma_max": "3.4",
            "sizes": "50,100",
            "speed_families": "complete,knn",
            "speed_solvers": "cg,inverse",
        },  # fmt: skip
        text="Table 1 of the paper: time per interval (TpI) and number of intervals M for "
        "CG (t = 20) against the matrix inverse (MI), on the complete graph and the kNN "
        "graph (k = 6). A CG iteration costs O(|E_G|): n² edges on the complete graph, "
        "about kn on kNN. The paper's sample-complexity remark (Section 4) is the other "
        "side of sparsity: the kNN family's pseudo-dimension is O(K + log n) against Θ(n) "
        "for complete graphs, because a node's label can flip at only a few σ.",
        look="Press **Run** (a few seconds). With the inverse (exact pieces), M on the "
        "complete graph grows with n (about 8 at n = 50, 28 at n = 100, 119 at n = 200) "
        "while kNN stays at 3–9. CG's M is larger: its extra intervals are spurious "
        "endpoints (the loss page scores them).",
        ask="Why does the number of pieces M stay small on the kNN graph as n grows, and "
        "why does that mean fewer training instances suffice to pick σ?",
        controls=("sizes", "speed_families", "speed_solvers", "t"),
    ),
    Tour(
        id="paper-vs-fast",
        title="Paper mode vs fast mode",
        teaser="Algorithm 4 node by node, as printed, against one shared search: same "
        "intervals, a hundred times fewer solves.",
        page=LOSS,
        settings=_DIGITS_38
        | {
            "family": "knn",
            "solver": "pcg",
            "t": "20",
            "mode": "paper",
            "compare": "other mode",
            "sigma_min": "0.6",
            "sigma_max": "3.4",
        },  # fmt: skip
        text="Paper mode runs Algorithm 4 as printed (with Appendix E.2's changes): node by "
        "node, a Newton / gradient hybrid from σ0, restarting at σ_h + 0.05 after each "
        "interval, so every node's iteration pays for its own solves. Fast mode searches "
        "for every crossing of the approximate f_u − ½ at once: one solve at a σ serves all "
        "nodes. Same instance (digits 3 vs 8, n = 100, kNN k = 6), same solver (PCG, t = 20).",
        look="The *solves* metric (paper mode) against the comparison caption (fast mode): "
        "about 12,900 solves against about 120, for intervals of similar quality (the same "
        "2 true breakpoints, one missed by both).",
        ask="Both modes use the same solver: where does a hundredfold difference in solves "
        "come from, and what can paper mode's restart step of 0.05 skip?",
        controls=("mode", "compare", "solver", "t"),
    ),
    Tour(
        id="delalleau",
        title="Delalleau's subset method (Algorithm 3)",
        teaser="Solve on a small subset Ũ of U and extend: a smaller system that CG solves "
        "in a few iterations.",
        page=LOSS,
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
        },  # fmt: skip
        text="Delalleau et al.'s method (Algorithm 3) solves only on L ∪ Ũ, a random subset "
        "of m unlabeled nodes, with a label-fit weight λ, and extends the soft labels to the "
        "rest of U by a Parzen-window average. Here the system has |L| + m = 40 unknowns "
        "instead of |U| = 180, so each solve is cheap and CG converges in far fewer "
        "iterations (at most 40 in exact arithmetic).",
        look="With m = 20, CG with t = 20 finds all 8 true breakpoints, while t = 5 (dotted "
        "orange) misses 7. Raise m to 50: the true loss itself changes (7 breakpoints) and "
        "CG-20 now misses 5.",
        ask="A small m makes every solve cheap and accurate: what does it cost? (Watch the "
        "black true loss while you change m.)",
        controls=("subset", "lam", "t", "compare"),
    ),
    Tour(
        id="online-sigma",
        title="Learning σ online with Exp3-Set (Algorithm 1)",
        teaser="Tune σ over a stream of instances from interval feedback, and compare the "
        "regret with the √(T·M·log(RT)) rate.",
        page=REGRET,
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
        },  # fmt: skip
        text="Algorithm 1 (Approximate Continuous Exp3-Set) learns σ over a stream of "
        "instances: each round it samples σ_t from its weights, suffers l_t(σ_t) and "
        "updates on the feedback: the interval Algorithm 4 returns around σ_t (approx, "
        "CG-20), the true constant-loss interval (exact), the whole loss (full information, "
        "M = 1) or nothing (uniform). Theorem 3.1 bounds the regret by Õ(√(T·M·log(RT))), "
        "M the number of pieces.",
        look="The coloured lines (press **Run the experiment** if they are not drawn yet): "
        "uniform does not learn; full information sees the whole loss each round; approx "
        "and exact see one interval. Where does each end after T rounds, and how far "
        "below the grey rate curve (its own axis, on the right)?",
        ask="Why does approximate feedback from CG-20 cost almost nothing here compared with "
        "the exact interval, and what would make it cost more?",
        controls=("rounds", "repeats", "feedback", "lr"),
    ),
    Tour(
        id="conditioning",
        title="Conditioning across σ (Figure 5)",
        teaser="Where √κ explodes, CG-t cannot be trusted: the σ range Algorithm 4 can "
        "search with t = 20.",
        page=CONDITIONING,
        settings=_DIGITS_38
        | {
            "family": "knn",
            "sigma_min": "0.3",
            "sigma_max": "3.4",
            "families": "complete,knn",
            "points": "15",
            "cond_solver": "cg",
        },  # fmt: skip
        text="Figure 5 plots √κ(I − P_UU) against σ. CG's error after t iterations shrinks "
        "like ((√κ − 1)/(√κ + 1))^t (Theorems 5.1–5.3), so t = 20 is plenty where √κ is "
        "small and hopeless where it is large. As σ → 0 each node's weight concentrates on "
        "its nearest neighbour and the grounded Laplacian becomes nearly singular.",
        look="At σ = 0.3, √κ ≈ 36,000 on both graphs and CG needs about 900 iterations; "
        "from σ ≈ 1 on, √κ is 3–5 and 8–30 iterations suffice. The trust panels give the σ "
        "from which CG-20 is enough (about 1.0 on the complete graph, 1.2 on kNN).",
        ask="Switch the CG variant to pcg: where do the iterations needed drop most? (PCG's "
        "rate is set by exactly the κ(I − P_UU) of the top chart.)",
        controls=("families", "cond_solver", "t", "sigma_min"),
    ),
    Tour(
        id="learn-sigma",
        title="Learning σ from many instances, and what too few cost",
        teaser="ERM over the exact losses of m instances: it overfits with one instance and "
        "settles as m grows; learning on CG estimates instead can pick a much worse σ.",
        page=LEARN,
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
        },  # fmt: skip
        text="The paper's distributional setting (§3): instances come from one domain, "
        "here digits 3 vs 8 with n = 100 and |L| = 10 on the complete graph, and σ is "
        "learned by empirical risk minimisation on m of them. Every l_i(σ) is exact and "
        "piecewise constant, so the training average and its ERM set are exact, and so is "
        "σ̂'s loss on instances it never saw. The sentences under each chart are computed "
        "from the same run.",
        look="First chart: the grey staircases are the training instances, blue their "
        "average, green its ERM set and σ̂, red dashed the held-out average. Second chart: "
        "how σ̂'s held-out excess and the uniform gap fall as m grows. The table: σ̂ learned "
        "on CG-5, CG-10 and CG-20 estimates, measured by the exact held-out loss.",
        ask="Why does ERM on one instance do worse on new instances than ERM on several, when "
        "every loss it sees is exact? And why does learning on CG-5's intervals pick a σ "
        "that the exact curves rank so badly?",
        controls=("instances", "test_instances", "curve", "compare_t"),
    ),
)

BY_ID: dict[str, Tour] = {t.id: t for t in TOURS}
IDS: tuple[str, ...] = tuple(BY_ID)


def get(tour_id: str | None) -> Tour | None:
    """The tour with id ``tour_id`` (None when there is none)."""
    return BY_ID.get(tour_id) if tour_id else None


def next_tour(tour_id: str) -> Tour:
    """The tour after ``tour_id`` in gallery order (the first after the last)."""
    i = IDS.index(tour_id)
    return TOURS[(i + 1) % len(TOURS)]


__all__ = ["BY_ID", "IDS", "TOURS", "Tour", "get", "next_tour"]
