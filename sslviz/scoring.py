"""Scoring Algorithm 4's intervals against the exact loss curve (docs/method.md §6.3): M, the
missed true breakpoints and spurious endpoints (each with its cause, from
:mod:`sslviz.attribution`), the ε-volume and the σ left uncovered.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from sslviz._threads import one_thread
from sslviz._validation import check_int, check_option, check_real
from sslviz.algorithm4 import Sweep
from sslviz.attribution import (
    CAUSES,
    SPURIOUS_CAUSES,
    T_CAP,
    UNATTRIBUTED,
    Attribution,
    ClassAttribution,
    Miss,
    SpuriousEndpoint,
)
from sslviz.labeling import SoftLabelModel
from sslviz.specs import ScoreSettings, SweepSettings, default
from sslviz.truth import LossCurve


@dataclass(frozen=True)
class Score:
    """An estimate measured against the truth (docs/method.md §6.3), with every miss explained.

    ``misses`` ([(σ, nodes)]) and ``spurious_endpoints`` ([σ]) are the plain lists;
    ``miss_records`` / ``spurious_records`` hold the same items in the same order with their
    cause and evidence; ``causes`` counts the causes of both (every key of :data:`CAUSES`,
    zeros included), so its values add up to ``missed + spurious``.
    """

    M: int
    true_breakpoints: int
    missed: int
    spurious: int
    eps_volume: float
    uncovered: float
    misses: list  # [(sigma, nodes)]
    spurious_endpoints: list  # [sigma]
    causes: dict = field(default_factory=dict)
    miss_records: list = field(default_factory=list)  # [Miss]
    spurious_records: list = field(default_factory=list)  # [SpuriousEndpoint]
    tol: float = default(ScoreSettings, "tol")
    sigma_min: float = float("nan")
    sigma_max: float = float("nan")
    settings: SweepSettings | None = None
    attributed: bool = False  # False: scored without the model (see score())

    def cause_counts(self, kind: str = "all") -> dict[str, int]:
        """Counts per cause of ``kind`` 'miss', 'spurious' or 'all' (= :attr:`causes`)."""
        check_option("kind", kind, "Score.cause_counts", ("all", "miss", "spurious"))
        recs = {
            "miss": self.miss_records,
            "spurious": self.spurious_records,
            "all": self.miss_records + self.spurious_records,
        }[kind]
        keys = CAUSES if kind != "spurious" else (*SPURIOUS_CAUSES, UNATTRIBUTED)
        out = dict.fromkeys(keys, 0)
        for r in recs:
            out[r.cause] += 1
        return out

    def record_at(self, u: int, sigma: float) -> Miss | SpuriousEndpoint | None:
        """The miss or spurious endpoint at ``sigma`` whose node is unlabeled node ``u``
        (what a click on its marker selects), else None."""
        for r in self.miss_records:
            if r.sigma == sigma and u in (r.evidence.get("node"), *r.nodes):
                return r
        for r in self.spurious_records:
            if r.sigma == sigma and r.node == u:
                return r
        return None

    def solver_misses(self) -> tuple[list[float], list[int]]:
        """The σ of the breakpoints missed (and endpoints invented) for want of solver
        accuracy (cause 'solver'), and the t needed of those misses whose t is known: what
        :meth:`sslviz.conditioning.TrustCurve.bands` marks as not trusted."""
        misses = [r for r in self.miss_records if r.cause == "solver"]
        invented = [r for r in self.spurious_records if r.cause == "solver"]
        known = [r.evidence.get("t_needed") for r in misses]
        return (
            [float(r.sigma) for r in misses + invented],
            [int(t) for t in known if t is not None],
        )


@one_thread
def score(
    result: Sweep,
    truth: LossCurve,
    *,
    tol: float = default(ScoreSettings, "tol"),
    gamma: float | None = None,
    model: SoftLabelModel | None = None,
    t_cap: int = T_CAP,
    max_attributed: int | None = None,
    progress: Callable[[float, str], None] | None = None,
    y: np.ndarray | None = None,
) -> Score:
    """Score estimated intervals against the exact curve, and say why each miss happened.

    Parameters
    ----------
    result : Sweep
    truth : LossCurve
        The exact curve (``truth.exact``; :func:`sslviz.truth.true_loss_curve`) on the same
        range.
    tol : float, default=1e-3
        A true breakpoint is *found* when an estimated endpoint lies within ``tol`` of it
        (σ units); an endpoint is *spurious* when no true breakpoint lies within ``tol``.
    gamma : float, optional
        ε-volume threshold of Definition 4: the total σ length where
        |l̃(σ) − l(σ)| > γ. Default: half of one node's share, 0.5/|U|, so any
        disagreement counts. σ covered by no interval counts too (reported also as
        ``uncovered``).
    model : SoftLabelModel, optional
        The model ``result`` was computed on. Needed to attribute misses (it re-solves
        around each one with the sweep's solver and exactly). Without it nothing is solved:
        a miss at an end of one of ``truth.degenerate_ranges`` is 'degenerate', every other
        miss and every spurious endpoint is 'unattributed' (the causes' precedence puts
        'solver' before the others, and telling it apart needs the solver).
    t_cap : int, default=1024
        Largest t tried when searching the iterations a solver miss needed.
    max_attributed : int, optional
        Look for the causes of at most this many misses, spread evenly over the missed
        breakpoints in σ order; the others are 'unattributed' ("not examined"). Each
        attribution costs exact solves of the whole system (see Cost below), and on large
        graphs a short CG misses thousands of breakpoints. Default: every miss.
    progress : callable, optional
        ``progress(fraction_done, message)`` called as the attribution advances (the
        probes, each examined miss's exact solves, the search of the t a solver miss
        needed); an exception raised there stops the scoring.
    y : ndarray of shape (n,), optional
        More than two classes (``truth.classes`` set): the class indices of every point,
        which the one-vs-all attribution needs with ``model``
        (:class:`sslviz.attribution.ClassAttribution`: each record names its pair of
        classes).

    Returns
    -------
    Score

    Notes
    -----
    Every missed breakpoint and every spurious endpoint gets the first cause that applies,
    with its evidence: :mod:`sslviz.attribution` defines the causes, their precedence and
    the evidence each records.

    Cost: the approximate soft labels at 3 σ per item (15 where those 3 show no change),
    batched; 3 exact solves per miss; the t search for solver misses; paper mode re-runs
    the node's iteration (three step rules) for each search or close-pair miss; fast mode
    re-runs its search once if a miss needs its evaluated σ.
    """
    tol = check_real("tol", tol, "score", low=0.0)
    t_cap = check_int("t_cap", t_cap, "score", low=1)
    if max_attributed is not None:
        max_attributed = check_int("max_attributed", max_attributed, "score", low=0)
    n_u = truth.wrong_at_start.size
    if model is not None and model.n_unlabeled != n_u:
        raise ValueError(
            f"score: the model has {model.n_unlabeled} unlabeled nodes but the truth has "
            f"{n_u}; pass the model both were computed on"
        )
    gamma = 0.5 / max(n_u, 1) if gamma is None else check_real("gamma", gamma, "score", low=0.0)
    tb = truth.breakpoints
    ends = np.unique(
        [
            x
            for iv in result.intervals
            for x in (iv.lo, iv.hi)
            if result.sigma_min < x < result.sigma_max
        ]
    )
    found = np.array([ends.size > 0 and np.min(np.abs(ends - b)) <= tol for b in tb], bool)
    missed_idx = [i for i in range(tb.size) if not found[i]]
    misses = [(float(tb[i]), list(truth.nodes[i])) for i in missed_idx]
    spur = [float(x) for x in ends if tb.size == 0 or np.min(np.abs(tb - x)) > tol]
    est = result.estimated_loss()
    cuts = np.unique(np.r_[est.edges, truth.loss.edges])
    mids = 0.5 * (cuts[:-1] + cuts[1:])
    width = np.diff(cuts)
    le, lt = est(mids), truth.loss(mids)
    bad = np.isnan(le) | (np.abs(np.nan_to_num(le) - lt) > gamma)
    if truth.classes is None:
        att = Attribution(result, truth, tol, model, t_cap, ends)
    else:
        if model is not None and y is None:
            raise ValueError("score: more than two classes need y, the class of every point")
        att = ClassAttribution(result, truth, tol, model, t_cap, ends, y)
    k = len(missed_idx)
    examined = list(range(k))
    if model is not None and max_attributed is not None and k > max_attributed:
        spread = np.linspace(0, k - 1, max_attributed).round()
        examined = sorted({int(j) for j in spread})
    probes: dict = {}
    if model is not None:
        items = [
            (float(tb[missed_idx[j]]), np.asarray(truth.nodes[missed_idx[j]], int))
            for j in examined
        ]
        every = np.arange(n_u)
        for x in spur:
            u = att.end_node.get(x, -1)
            items.append((x, np.array([u]) if u >= 0 else every))
        if progress is not None:
            progress(0.0, f"the sweep's solver around {len(items):,} σ")
        found_probes = att.probe(items)
        probes = dict(zip([*examined, *range(k, k + len(spur))], found_probes, strict=True))
    chosen = set(examined)
    miss_records, done = [], 0
    for j, i in enumerate(missed_idx):
        if j not in chosen:
            miss_records.append(att.unexamined(float(tb[i]), truth.nodes[i], len(examined), k))
            continue
        if progress is not None:
            progress(
                0.3 + 0.4 * done / len(examined),
                f"miss {done + 1:,} of {len(examined):,} (exact solves)",
            )
        miss_records.append(att.miss(float(tb[i]), truth.nodes[i], probes.get(j)))
        done += 1
    spurious_records = [att.spurious(x, probes.get(k + j)) for j, x in enumerate(spur)]
    miss_records = att.fill_t_needed(
        miss_records, None if progress is None else lambda message: progress(0.7, message)
    )
    sc = Score(
        M=len(result.intervals),
        true_breakpoints=int(tb.size),
        missed=len(misses),
        spurious=len(spur),
        eps_volume=float(width[bad].sum()),
        uncovered=float(width[np.isnan(le)].sum()),
        misses=misses,
        spurious_endpoints=spur,
        miss_records=miss_records,
        spurious_records=spurious_records,
        tol=float(tol),
        sigma_min=float(result.sigma_min),
        sigma_max=float(result.sigma_max),
        settings=result.settings,
        attributed=model is not None,
    )
    return replace(sc, causes=sc.cause_counts("all"))
