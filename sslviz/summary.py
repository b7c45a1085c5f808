"""What ``sslviz COMMAND`` computed, in a few lines a person reads.

Each function takes the document the command writes as JSON (:mod:`sslviz.export`'s
``*_document``, as written: without its timings under ``--no-timings``) and returns its
summary as lines of plain text, every number read off that document, so the summary and
the JSON cannot disagree (:func:`condition_summary` also takes each σ's iteration cap,
which the document does not hold). Words are the app's own: "true breakpoints", "missed",
"spurious endpoints", the causes of :func:`sslviz.sentences.cause_words`, "σ̂", "held-out",
"uniform gap"; a count that stopped at its cap is written "> cap".

=========================  ===========================================================
:func:`loss_summary`       ``sslviz loss``: breakpoints, pieces, the best loss
:func:`condition_summary`  ``sslviz condition``: √κ, iterations needed, the trust boundary
:func:`intervals_summary`  ``sslviz intervals``: Algorithm 4's intervals, work, the score
:func:`regret_summary`     ``sslviz regret``: final regret per feedback model
:func:`learn_summary`      ``sslviz learn``: σ̂ (and k̂), training and held-out losses
=========================  ===========================================================
"""

from __future__ import annotations

from collections.abc import Sequence

from sslviz import registry
from sslviz.measure import describe_work
from sslviz.sentences import cause_words
from sslviz.specs import SweepSettings, solver_label

__all__ = [
    "condition_summary",
    "intervals_summary",
    "learn_summary",
    "loss_summary",
    "regret_summary",
]


def _g(x: float) -> str:
    return f"{x:.3g}"


def _s(x: float) -> str:
    """A σ (an end, a breakpoint): one digit more, so near ends stay apart."""
    return f"{x:.4g}"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _points(x: float) -> str:
    return f"{100 * x:.1f} points"


def _plural(k: int, word: str) -> str:
    return f"{k:,} {word}{'s' * (k != 1)}"


def _interval(lo: float, hi: float) -> str:
    return f"[{_s(lo)}, {_s(hi)}]"


def _instance(s: dict, files: str | None = None) -> str:
    """The instance (or the domain instances are drawn from) in one line, from a
    document's settings; ``files``: the instances are files, said so instead."""
    cls = list(s["classes"])
    if len(cls) == 2:
        classes = f"classes {cls[0]} vs {cls[1]}"
    elif cls:
        classes = f"classes {', '.join(map(str, cls[:-1]))} and {cls[-1]} (one-vs-all)"
    else:
        classes = "every class (one-vs-all)"
    if files or s.get("data_file"):
        source = files or f"file {s['data_file']}"
        drawn = ""
    else:
        source = s["dataset"]
        drawn = f", n = {s['n']}, |L| = {s['n_labeled']} labeled, seed {s['seed']}"
    reads = registry.family(s["family"]).reads
    graph = f"{s['family']} graph" + (f" (k = {s['k']})" if "k" in reads else "")
    labeling = registry.model(s["labeling"]).described(s, _g)
    return f"{source}, {classes}{drawn}; {graph}; {labeling}"


def _range(s: dict, symbol: str = "σ") -> str:
    return f"{symbol} range: {_s(s['sigma_min'])} to {_s(s['sigma_max'])}"


def _sweep_settings(s: dict) -> SweepSettings:
    """The solver settings a document's ``settings`` holds (for the app's labels and cause
    words)."""
    return SweepSettings(
        solver=s["solver"], cg_iters=s["cg_iters"], mode=s["mode"], certify=s["certify"]
    )


def _cut_off(ranges: list[dict], of: int | None, symbol: str) -> str:
    """'cut off from the labels: ...' of a loss curve's degenerate ranges."""
    if not ranges:
        return "cut off from the labels: no node anywhere in the range"
    most = max(r["count"] for r in ranges)
    where = _interval(ranges[0]["lo"], ranges[-1]["hi"])
    pieces = f", {_plural(len(ranges), 'range')}" if len(ranges) > 1 else ""
    total = f" of the {of:,} unlabeled nodes" if of else " nodes"
    return f"cut off from the labels: up to {most:,}{total}, for {symbol} in {where}{pieces}"


def _fraction(loss: float, n_u: int | None) -> str:
    """A loss as the pages write it: k/|U| and its percentage (the percentage alone when it
    is not a whole count of nodes)."""
    if n_u:
        k = round(loss * n_u)
        if abs(loss * n_u - k) < 1e-9:
            return f"{k}/{n_u} ({_pct(loss)})"
    return _pct(loss)


def _list(values: Sequence[float], most: int = 6) -> str:
    """Values in increasing order: all of them up to ``most``, else the first two and the
    last."""
    if len(values) <= most:
        return ", ".join(_s(v) for v in values)
    return f"{_s(values[0])}, {_s(values[1])}, … {_s(values[-1])}"


def loss_summary(doc: dict) -> list[str]:
    """``sslviz loss``: the instance, the range, the breakpoints and pieces of the exact
    loss l(σ), its best piece and the nodes cut off from the labels.

    Parameters
    ----------
    doc : dict
        :func:`sslviz.export.loss_document`, as written.

    Returns
    -------
    list of str
        One line per fact (about 7).
    """
    s = doc["settings"]
    sym = "r" if doc["parameter"] == "r" else "σ"
    n_u = doc.get("n_unlabeled")
    b = doc["breakpoints"]
    losses = [p["loss"] for p in doc["pieces"]]
    best = doc["best"]
    out = [
        f"exact loss l({sym}) of {_instance(s)}",
        _range(s, sym),
        f"breakpoints: {len(b):,}" + (f", at {sym} ≈ {_list(b)}" if b else ""),
        f"pieces: {len(losses):,}, loss from {_fraction(min(losses), n_u)} to "
        f"{_fraction(max(losses), n_u)}",
        f"best loss: {_fraction(best['loss'], n_u)}, for {sym} in "
        f"{_interval(best['lo'], best['hi'])}",
        _cut_off(doc["degenerate"]["ranges"], n_u, sym),
        f"exact solves: {doc['solves']:,}, at {doc['evaluations']:,} {sym}",
    ]
    if not doc["complete"]:
        out.append("the evaluation budget stopped the search: a breakpoint may be missing")
    if doc["inconsistent"]:
        out.append(f"{doc['inconsistent']:,} evaluated {sym} disagree with the pieces")
    return out


def _time(seconds: float) -> str:
    ms = 1e3 * seconds
    return f"{ms:.3g} ms" if ms < 1000 else f"{seconds:.3g} s"


def _causes(counts: dict, settings: SweepSettings) -> str:
    """'2 too few iterations, 1 stepped over by the search' (nonzero counts only)."""
    return ", ".join(f"{k:,} {cause_words(c, settings)}" for c, k in counts.items() if k)


def intervals_summary(doc: dict) -> list[str]:
    """``sslviz intervals``: the solver and mode, Algorithm 4's M intervals and their work
    (time per interval where the document has it), a certified search's proofs, and with
    ``--score`` the true breakpoints missed and the spurious endpoints, by cause.

    Parameters
    ----------
    doc : dict
        :func:`sslviz.export.intervals_document`, as written.

    Returns
    -------
    list of str
        One line per fact (about 5; 8 with a score).
    """
    s = doc["settings"]
    sweep = _sweep_settings(s)
    certified = "certified " if sweep.certify else ""
    out = [
        f"Algorithm 4's intervals of {_instance(s)}",
        _range(s),
        f"solver {certified}{sweep.label}, {sweep.mode} mode: M = {_plural(doc['M'], 'interval')}",
        f"work: {_plural(doc['solves'], 'solve')}"
        + (f", {doc['matvecs']:,} matrix-vector products" if doc["matvecs"] else "")
        + (
            f"; {_time(doc['time_per_interval'])} per interval (wall time of this run)"
            if "time_per_interval" in doc
            else ""
        ),
        f"work per interval: {describe_work(doc['work'], per=doc['M'])}",
    ]
    if "certify" in doc:
        c = doc["certify"]
        its = c["iterations"]
        out.append(
            f"certified: {c['certified_sigmas']:,} of {c['evaluations']:,} σ proven by CG, "
            f"{c['exact_fallbacks']:,} by an exact solve; CG iterations per σ {its['min']:,} "
            f"to {its['max']:,}"
        )
    if "score" in doc:
        sc = doc["score"]
        missed = (
            f"{sc['missed']:,} of {_plural(sc['true_breakpoints'], 'true breakpoint')} missed"
            if sc["true_breakpoints"]
            else "no true breakpoint in the range"
        )
        out.append(
            f"score (tolerance {s['tol']:g}): {missed}, "
            f"{_plural(sc['spurious'], 'spurious endpoint')}, ε-volume {_g(sc['eps_volume'])}"
        )
        if sc["missed"]:
            out.append(f"missed: {_causes(sc['miss_causes'], sweep)}")
        if sc["spurious"]:
            out.append(f"spurious: {_causes(sc['spurious_causes'], sweep)}")
    return out


def _extremes(values: Sequence[float], sigmas: Sequence[float]) -> tuple[str, str]:
    """The smallest and largest of ``values``, each with its σ: ('4.15 (σ = 3)', ...)."""
    lo = min(range(len(values)), key=values.__getitem__)
    hi = max(range(len(values)), key=values.__getitem__)
    return (
        f"{_g(values[lo])} (σ = {_g(sigmas[lo])})",
        f"{_g(values[hi])} (σ = {_g(sigmas[hi])})",
    )


def _iterations_needed(doc: dict, caps: Sequence[int]) -> str:
    """The 'iterations needed' line: measured counts from the smallest, a count that
    stopped at its cap as "> cap" (never as a measurement), σ where the system cannot be
    represented counted apart."""
    sig, its = doc["sigma"], doc["iterations_needed"]
    name = solver_label(doc["solver"], doc["cg_iters"]).split("-")[0]
    head = f"{name} iterations needed (relative residual {doc['rtol']:g}): "
    capped = [i for i, t in enumerate(its) if t >= 0 and t >= caps[i]]
    measured = [i for i, t in enumerate(its) if 0 <= t < caps[i]]
    parts = []
    if measured:
        lo = min(measured, key=lambda i: its[i])
        hi = max(measured, key=lambda i: its[i])
        parts.append(
            f"{its[lo]:,} (σ = {_g(sig[lo])})"
            if its[lo] == its[hi]
            else f"{its[lo]:,} (σ = {_g(sig[lo])}) to {its[hi]:,} (σ = {_g(sig[hi])})"
        )
    if capped:
        cap = min(caps[i] for i in capped)
        where = _g(sig[capped[0]]) if len(capped) == 1 else _list([sig[i] for i in capped], 3)
        parts.append(
            f"> {cap:,} at {len(capped):,} σ ({'σ = ' * (len(capped) == 1)}{where}: "
            "stopped at the cap, 10 iterations per unknown)"
        )
    unrepresentable = len(its) - len(measured) - len(capped)
    if unrepresentable:
        parts.append(f"none at {unrepresentable:,} σ (the system is not representable)")
    return head + "; ".join(parts)


def condition_summary(doc: dict, caps: Sequence[int]) -> list[str]:
    """``sslviz condition``: the σ grid, √κ across it, the CG iterations needed (a capped
    count as "> cap"), the t-iteration error, nodes cut off, and with ``--trust`` where
    t-iteration CG can be trusted on the same grid (the app's sentence).

    Parameters
    ----------
    doc : dict
        :func:`sslviz.export.condition_document`, as written.
    caps : sequence of int, shape (n_sigma,)
        The cap of each grid σ's "iterations needed": the iteration count at which
        :func:`sslviz.conditioning.condition_curve`'s CG run stops without having reached
        its tolerance (10 per row of the system it ran on). A count equal to its cap is
        written "> cap".

    Returns
    -------
    list of str
        One line per fact (about 7).
    """
    s = doc["settings"]
    sig = doc["sigma"]
    kappa = f"√κ({registry.model(s['labeling']).system_label})"
    small, large = _extremes(doc["sqrt_kappa"], sig)
    err_lo, err_hi = _extremes(doc["cg_error"], sig)
    label = solver_label(doc["solver"], doc["cg_iters"])
    cut = max(doc["degenerate"], default=0)
    out = [
        f"conditioning of {_instance(s)}",
        f"σ grid: {_plural(len(sig), 'point')} from {_g(sig[0])} to {_g(sig[-1])}",
        f"{kappa}: from {small} to {large}",
        _iterations_needed(doc, caps),
        f"{label}'s largest {'score' if 'classes' in doc else 'soft-label'} error: from "
        f"{err_lo} to {err_hi}" + (" (the worst class's column)" if "classes" in doc else ""),
        "cut off from the labels: " + (f"up to {cut:,} nodes" if cut else "no node at any grid σ"),
    ]
    if "trust" in doc:
        out.append(f"trust (the same {len(sig)}-point grid): {doc['trust']['reading']}")
    return out


def regret_summary(doc: dict) -> list[str]:
    """``sslviz regret``: the instance stream, rounds and repetitions, the best fixed σ in
    hindsight, and each feedback model's final regret (mean over the repetitions and its
    95% band), with Theorem 3.1's rate at the last round.

    Parameters
    ----------
    doc : dict
        :func:`sslviz.export.regret_document`, as written.

    Returns
    -------
    list of str
        Five lines and one per feedback model.
    """
    s = doc["settings"]
    rounds, repeats = doc["rounds"], doc["repeats"]
    models = doc["models"]
    first = next(iter(models.values()))
    lr = f"step size λ = {_g(doc['lr'])}" if doc["lr"] is not None else "no step size"
    band = "mean and 95% band" if repeats > 1 else "one repetition, no band"
    out = [
        f"online tuning of σ (Exp3-Set) on {_instance(s)}: a new instance each round",
        _range(s),
        f"{_plural(rounds, 'round')} × {_plural(repeats, 'repetition')}; {lr}; "
        f"M = {_g(doc['M'])} pieces of the true loss on average",
        f"best fixed σ in hindsight (first repetition): σ in "
        f"{_interval(*first['best_sigma'])}, total loss {_g(first['best_value'])} over "
        f"{_plural(rounds, 'round')}",
        f"regret after {_plural(rounds, 'round')} ({band}):",
    ]
    approx = solver_label(s["solver"], s["cg_iters"])
    for name, m in models.items():
        mean = m["regret_mean"][-1]
        spread = (
            f" ({_g(m['regret_low'][-1])} to {_g(m['regret_high'][-1])})" if repeats > 1 else ""
        )
        by = f" ({approx})" if name == "approx" else ""
        out.append(f"  {name} feedback{by}: {_g(mean)}{spread}")
    out.append(f"Theorem 3.1's rate after {_plural(rounds, 'round')}: {_g(doc['rate'][-1])}")
    return out


def _erm_set(erm: dict) -> str:
    ivs = erm["intervals"]
    where = ", ".join(_interval(iv["lo"], iv["hi"]) for iv in ivs[:3])
    more = f" and {len(ivs) - 3:,} more" if len(ivs) > 3 else ""
    return f"σ in {where}{more}" if len(ivs) == 1 else f"σ in {len(ivs)} intervals: {where}{more}"


def _held_out(test: dict) -> str:
    return (
        f"held-out: σ̂ loses {_pct(test['loss_at_sigma_hat'])}, {_points(test['excess'])} "
        f"above the best σ there ({_pct(test['best_loss'])}); uniform gap "
        f"{_points(test['uniform_gap'])}"
    )


def learn_summary(doc: dict) -> list[str]:
    """``sslviz learn``: the instances, k̂ where k was learned, the ERM set and σ̂ of the
    learner asked for, its training and held-out losses (the excess over the best σ and
    the uniform gap), exact ERM beside an approximate learner, the learning curve's ends
    and each compared CG-t's σ̂.

    Parameters
    ----------
    doc : dict
        :func:`sslviz.export.learn_document`, as written.

    Returns
    -------
    list of str
        One line per fact (about 6 to 9).
    """
    s = doc["settings"]
    files = s.get("data_files")
    if files:
        held = _plural(len(s["test_files"]), "held-out file")
        source = _instance(s, f"{_plural(len(files), 'training file')} and {held}")
    else:
        source = (
            f"m = {doc['instances']:,} training and {doc['test_instances']:,} held-out "
            f"instances of {_instance(s)}"
        )
    out = [f"σ learned from {source}", _range(s)]
    if "erm_k" in doc:
        ks = [row["k"] for row in doc["grid"]]
        out.append(
            f"k̂ = {doc['k']}, the k of the smallest training average over k = {ks[0]}..{ks[-1]}"
        )
    on = "the exact losses" if doc["solver"] == "exact" else f"{doc['solver']}'s estimates"
    erm = doc["erm"]
    out.append(
        f"ERM on {on}: training average {_pct(erm['loss'])} for {_erm_set(erm)}; "
        f"σ̂ = {_g(doc['sigma_hat'])}"
    )
    if "test" in doc:
        out.append(_held_out(doc["test"]))
    if doc["solver"] != "exact":
        exact = doc["exact"]
        out.append(
            f"the exact training average at σ̂: {_pct(doc['exact_loss_at_sigma_hat'])}; exact "
            f"ERM: σ̂ = {_g(exact['erm']['sigma_hat'])}, training average "
            f"{_pct(exact['erm']['loss'])}"
            + (
                f", held-out {_pct(exact['test']['loss_at_sigma_hat'])} ({doc['solver']}'s σ̂: "
                f"{100 * doc['excess_over_exact_erm']:+.1f} points)"
                if "test" in exact
                else ""
            )
        )
    if "learning_curve" in doc:
        c = doc["learning_curve"]
        ex, gap, m = c["excess"]["mean"], c["uniform_gap"]["mean"], c["m"]
        ends = [0, len(m) - 1] if len(m) > 1 else [0]
        out.append(
            f"learning curve (mean of {_plural(c['repeats'], 'draw')}): "
            + "; ".join(
                f"m = {m[j]}: excess {_points(ex[j])}, uniform gap {_points(gap[j])}" for j in ends
            )
        )
    shown = [a for a in doc["approximate"] if a["solver"] != doc["solver"]]
    if shown:
        out.append(
            "on Algorithm 4's estimates: "
            + "; ".join(
                f"{a['solver']} σ̂ = {_g(a['sigma_hat'])}"
                + (
                    f", held-out {_pct(a['test_loss'])} "
                    f"({100 * a['excess_over_exact_erm']:+.1f} points)"
                    if a["test_loss"] is not None
                    else ""
                )
                for a in shown
            )
        )
    return out
