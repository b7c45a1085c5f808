"""The loss page's sentences about a score: the one-line verdict and a miss explained, with
the causes in the words of :data:`sslviz.words.CAUSE_WORDS` (as the chart's legend and the
tables say them). Every number in them is read off the :class:`sslviz.scoring.Score` they
are given.
"""

from __future__ import annotations

import numpy as np

from sslviz.attribution import CAUSES, Miss, SpuriousEndpoint
from sslviz.scoring import Score
from sslviz.specs import SweepSettings
from sslviz.words import CAUSE_WORDS, NOT_EXAMINED, cause_words, class_pair, plain_text

__all__ = ["CAUSE_WORDS", "cause_words", "class_pair", "explain_miss", "verdict"]

# -- the one-line verdict ------------------------------------------------------------------------

_HOW = {
    "restart": "the restart step {step:g} jumped over them",
    "cap": "the iteration cap ({max_iter}) stopped the node's iteration",
    "root_tol": "the node's iteration stopped short, at |f − ½| ≤ the root tolerance {root_tol:g}",
    "iterates": "the node's iteration from σ0 went elsewhere",
    "grid": "a pair of crossings fell between two evaluated σ",
    "budget": "the search's evaluation budget ran out",
    "refine": "the root refinement went to another crossing",
    "unswept": "the sweep stopped before reaching them",
    "unknown": "no node explains them",
}


def _where(sigmas: list[float], lo: float, hi: float) -> str:
    a, b = min(sigmas), max(sigmas)
    span = hi - lo if np.isfinite(hi - lo) else 0.0
    if a == b:
        return f"σ = {a:.3g}"
    if span and b >= hi - 0.1 * span and a > lo + 0.1 * span:
        return f"σ ≥ {a:.3g}"
    if span and a <= lo + 0.1 * span and b < hi - 0.1 * span:
        return f"σ ≤ {b:.3g}"
    return f"σ in [{a:.3g}, {b:.3g}]"


def explain_miss(record: Miss | SpuriousEndpoint, score: Score, rows=None) -> str:
    """What happened at one miss (or spurious endpoint), in words with its numbers: the
    node (instance row, from ``rows``), the true crossing, the nearest estimated endpoint
    against the tolerance, the solver's error against the margin, and the t that fixes it.
    """
    s = score.settings or SweepSettings()
    ev = record.evidence
    u = ev.get("node", getattr(record, "node", -1))
    node = f"node {rows[u]}" if rows is not None and u is not None and u >= 0 else "no node"
    words = cause_words(record.cause, s)
    if isinstance(record, SpuriousEndpoint):
        return (
            f"Spurious endpoint at σ = {record.sigma:.5g} ({node}): no true breakpoint "
            f"within the tolerance {score.tol:g}. Cause: {words}: "
            f"{plain_text(record.detail)}."
        )
    near = ev.get("estimated_endpoint")
    est = (
        "no estimated endpoint"
        if near is None
        else f"{s.label}'s nearest estimated endpoint is at σ = {near:.5g}, "
        f"{abs(near - record.sigma):.2g} away (the tolerance is {score.tol:g})"
    )
    if "classes" in ev:  # more than two classes: the pair that met (docs/method.md §13.6)
        out = (
            f"Missed breakpoint of {class_pair(node, ev['classes'])}: its exact score margin "
            f"changes sign at σ = {record.sigma:.5g}; {est}."
        )
        if "error" in ev:
            out += (
                f" There {s.label} gives the margin {ev['approx_margin']:.3g} against the "
                f"exact {ev['exact_margin']:.3g}: an error of {ev['error']:.2g} against a "
                f"margin |m| of {ev['margin']:.2g}."
            )
    else:
        out = (
            f"Missed breakpoint of {node}: its exact soft label crosses ½ at σ = "
            f"{record.sigma:.5g}; {est}."
        )
        if "error" in ev:
            out += (
                f" There {s.label} gives f = {ev['approx_value']:.4g} against the exact "
                f"{ev['exact_value']:.4g}: an error of {ev['error']:.2g} against a margin "
                f"|f − ½| of {ev['margin']:.2g}."
            )
    out += f" Cause: {words}"
    t = ev.get("t_needed")
    if record.cause == "solver" and t is not None:
        out += f"; with t = {t} iterations {s.label.split('-')[0]} puts it on its right side."
    elif record.cause == "solver" and ev.get("t_cap"):
        out += f"; even t = {ev['t_cap']} iterations do not put it on its right side."
    else:
        out += f": {plain_text(record.detail)}."
    return out


def _beyond_grid(sigmas, trust) -> str:
    """The solver misses at ``sigmas`` that lie where ``trust`` (the trust panel's grid)
    shows no sign of trouble, in words ("" when none): the grid is too coarse there."""
    bands = trust.bands()
    out = [x for x in sigmas if not any(lo <= x <= hi for lo, hi in bands)]
    if not out:
        return ""
    k = len(out)
    some = "all" if k == len(sigmas) and k > 1 else f"{k}"
    lie, fall = ("lie", "they fall") if k > 1 else ("lies", "it falls")
    return (
        f"; {some} of them {lie} where the trust panel ({trust.grid_words()}) shows no error "
        f"reaching the margin: {fall} between its grid σ"
    )


def verdict(score: Score, settings: SweepSettings | None = None, trust=None) -> str:
    """One line saying how many true breakpoints were missed and why, by cause.

    E.g. "30 of 45 true breakpoints missed: 28 too few iterations — CG-20 is too few
    iterations for σ ≥ 3.1 (up to t = 160 needed); 2 stepped over by the search — the
    restart step 0.05 jumped over them. 3 spurious endpoints: 3 too few iterations." (causes
    in :func:`cause_words`). ``settings`` defaults to the scored sweep's. With
    ``trust`` (the sweep's :class:`~sslviz.conditioning.TrustCurve`), the solver's misses
    that lie outside the trust panel's bands (its grid's rule,
    ``sslviz.conditioning.TRUST_RULE``) are counted.
    """
    s = settings or score.settings or SweepSettings()
    name = {"cg": "CG", "pcg": "PCG"}.get(s.solver)
    label = (
        f"{name}-{s.cg_iters}"
        if name and not s.certify
        else (f"certified {name}" if name else f"the {s.solver} solver")
    )
    if score.missed == 0:
        head = (
            f"No true breakpoint missed (of {score.true_breakpoints:,})."
            if score.true_breakpoints
            else "No true breakpoint in the range."
        )
    else:
        parts = []
        by: dict[str, list] = {}
        for r in score.miss_records:
            by.setdefault(r.cause, []).append(r)
        for cause in CAUSES:
            recs = by.get(cause)
            if not recs:
                continue
            k = len(recs)
            if cause == "solver":
                where = _where([r.sigma for r in recs], score.sigma_min, score.sigma_max)
                if name and not s.certify:
                    need = [r.evidence.get("t_needed") for r in recs]
                    known = [t for t in need if t is not None]
                    cap = recs[0].evidence.get("t_cap")
                    extra = (
                        f" (up to t = {max(known)} needed at these breakpoints)"
                        if known and len(known) == k
                        else f" (some need more than t = {cap})"
                        if cap
                        else ""
                    )
                    why = f"{label} is too few iterations for {where}{extra}"
                    if trust is not None and trust.missed_by(score)[0]:
                        why += _beyond_grid([r.sigma for r in recs], trust)
                else:
                    why = f"{label}'s soft labels are on the wrong side at {where}"
            elif cause == "search":
                hows: dict[str, int] = {}
                for r in recs:
                    how = r.evidence.get("how", "unknown")
                    hows[how] = hows.get(how, 0) + 1
                ranked = sorted(hows.items(), key=lambda kv: -kv[1])
                texts = [
                    _HOW.get(h, h).format(step=s.step, max_iter=s.max_iter, root_tol=s.root_tol)
                    for h, _ in ranked
                ]
                why = (
                    texts[0]
                    if len(texts) == 1
                    else ", ".join(f"{c}: {t}" for (_, c), t in zip(ranked, texts, strict=True))
                )
            elif cause == "close pair":
                why = (
                    f"closer than the restart step {s.step:g} to another true breakpoint, "
                    f"in one restart gap"
                    if s.mode == "paper"
                    else "two crossings of one node between the same two evaluated σ"
                )
            elif cause == "degenerate":
                why = "their nodes are cut off from every labeled node there"
            elif "examined" in recs[0].evidence:
                why = NOT_EXAMINED
            else:
                why = "scored without the model"
            parts.append(f"{k:,} {cause_words(cause, s)} — {why}")
        seen = [r.evidence["examined"] for r in score.miss_records if "examined" in r.evidence]
        sample = f" (causes looked for at {seen[0]:,} of them, spread over σ)" if seen else ""
        head = (
            f"{score.missed:,} of {score.true_breakpoints:,} true breakpoints missed"
            f"{sample}: " + "; ".join(parts) + "."
        )
    if score.spurious:
        sp = score.cause_counts("spurious")
        head += (
            f" {score.spurious:,} spurious endpoint{'s' * (score.spurious > 1)}: "
            + ", ".join(f"{c:,} {cause_words(k, s)}" for k, c in sp.items() if c)
            + "."
        )
    return head
