"""Why a true breakpoint was missed (or an endpoint invented): the records of a score and
the re-solves that find each one's cause (docs/method.md §6.4).

A miss is put down to the first of :data:`MISS_CAUSES` that its evidence shows: a node
cut off from L ('degenerate'), the solver's error ('solver': t iterations put a node on
the wrong side within tol of the breakpoint; the t that fixes it is searched up to
``t_cap``), two crossings too close for the search ('close pair'), or the search itself
('search'). :class:`Attribution` does the re-solving for :func:`sslviz.scoring.score`.
The causes are the JSON's values; what a person reads of each (the legend, the hover, the
tables, the verdict) is its words in :data:`sslviz.words.CAUSE_WORDS`.

The causes and their evidence
-----------------------------
Every missed breakpoint σ* (nodes N changing side there) gets the first cause that
applies, in this order (``tol`` and ``t_cap`` are :func:`sslviz.scoring.score`'s);
"within tol" means at σ* and σ* ± tol·:data:`PROBE` (15 points from tol down to
1e-6·tol on each side), the approximate soft labels f_t coming from the sweep's solver
and t (certified labels when ``settings.certify``):

1. ``degenerate`` — a node of N is cut off from every labeled node within tol of σ*:
   in the exact graph (σ* is where the degenerate set changes, ``exact_degenerate``,
   judged at σ* and σ* ± tol) or for the sweep's solver at some probe point (weights
   not representable unscaled, ``approx_degenerate``).
2. ``solver`` — no node of N has an approximate side of 1/2 that changes within tol.
   Evidence: ``approx_value`` f_t,u(σ*), ``exact_value`` f_u(σ*), ``error``
   |f_t,u − f_u| at σ*, ``margin`` min |f_u − ½| at σ* ± tol (what the error had to
   stay below), ``t_needed`` the smallest t putting f_t,u on the exact side at both
   σ* ± tol (doubling from t, then bisecting between the last failing and the first
   working t; CG's side need not be monotone in t; None: more than ``t_cap``, or not
   an iterative solver), ``t_cap``.
3. ``close pair`` — the approximate side does change within tol, but another true
   crossing is closer than the search separates. Paper mode: σ* lies in a restart gap
   (σ_h, σ_h + step] together with another true breakpoint farther than tol from σ_h
   (the sweep jumps from σ_h to σ_h + step, whose search places one lower end in the
   gap, at the largest root it finds: one of the two is lost). Fast
   mode: the node's approximate crossings lie between two evaluated σ with the same
   side (the Hermite test did not split there) and the node's other true crossing lies
   between them too. Evidence: ``partner`` (its σ), ``distance``, ``separation`` (the
   restart step; the evaluated σ's spacing).
4. ``search`` — otherwise: the approximate side changes within tol and nothing was placed.
   Evidence ``how``: paper mode 'restart' (σ* lies in a restart gap alone), 'cap' (the
   node's iteration from the interval's σ0 hit ``max_iter``), 'root_tol' (it stopped short
   of σ*, farther than tol, at a point where |f − ½| ≤ root_tol counted as the root),
   'iterates' (it converged to another root, stalled, left the range, or reached σ* only
   through iterates outside the bracket, or another root nearer σ0 set the end), 'unswept'
   (the sweep stopped before σ*); with ``sigma0``, ``stop`` (root, stalled, left, flat,
   cap), ``end`` (last iterate), ``root``, ``iterations``, ``extent_lo``/``extent_hi`` and
   ``found_by`` (step rules whose iteration from σ0 does converge within tol of σ*), all
   from re-running the node's iteration from σ0 over the whole range (as
   :func:`sslviz.algorithm4.node_trace`); fast mode 'grid' (a pair of approximate crossings
   between the evaluated σ ``grid_lo`` and ``grid_hi``), 'budget' (the same, with the
   search's evaluation budget spent) or 'refine' (a sign change was bracketed but refined to
   another crossing).

Every miss record has ``node``, ``nearest_endpoint`` (distance to the nearest
estimated endpoint, None when there is none) and ``estimated_endpoint`` (its σ). A
spurious endpoint x (set by node u) is ``solver`` when the approximate side of u
changes within tol of x (the exact one does not: no true breakpoint is that close, so
nothing exact is solved), else ``search`` (an
endpoint at no crossing of the approximate soft labels, e.g. a paper-mode iterate
accepted as a root because |f − ½| ≤ root_tol: evidence ``root_tol``); evidence
``node``, ``approx_value`` (f_t,u(x)), ``nearest_breakpoint``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from sslviz.algorithm4 import Sweep, unchecked_trace
from sslviz.truth import LossCurve, true_loss_curve

MISS_CAUSES = ("degenerate", "solver", "close pair", "search")
"""Causes of a missed true breakpoint, in their order of precedence (see
:func:`sslviz.scoring.score`)."""
SPURIOUS_CAUSES = ("solver", "search")
"""Causes of a spurious endpoint, in their order of precedence."""
UNATTRIBUTED = "unattributed"
"""The cause given when :func:`sslviz.scoring.score` ran without the model (nothing solved)."""
CAUSES = (*MISS_CAUSES, UNATTRIBUTED)
"""The keys of :attr:`sslviz.scoring.Score.causes`, in order."""
T_CAP = 1024
"""Default cap of the search for the t that fixes a solver miss (``score(..., t_cap=)``)."""
PROBE = tuple(10.0**-k for k in range(7))
"""Offsets (× tol) on each side of a σ where :func:`sslviz.scoring.score` compares soft
labels: a side of 1/2 "changes within tol" of σ when it differs between any two of
σ ± tol·PROBE and σ (a t-iteration CG's f_t can flip within 1e-6 of σ at small σ)."""


@dataclass(frozen=True)
class Miss:
    """A missed true breakpoint, its cause and the evidence (:func:`sslviz.scoring.score`
    lists the keys).

    ``nodes`` are the unlabeled nodes (indices into ``model.unlabeled_idx``) that change
    side at ``sigma``; ``evidence["node"]`` is the one the evidence is about; ``detail``
    says it in one sentence.
    """

    sigma: float
    nodes: tuple[int, ...]
    cause: str
    detail: str
    evidence: dict = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class SpuriousEndpoint:
    """An estimated endpoint with no true breakpoint within the tolerance, and why.

    ``node`` set the endpoint (-1 when unknown).
    """

    sigma: float
    node: int
    cause: str
    detail: str
    evidence: dict = field(default_factory=dict, compare=False)


def _num(x) -> float | None:
    """A plain float for the evidence (None for NaN/inf: the JSON has no NaN)."""
    x = float(x)
    return x if np.isfinite(x) else None


def _up(sl: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Side of 1/2 per node: True above (degenerate nodes sit at 1/2: not above)."""
    f, deg = sl
    return (f > 0.5) & ~deg


class Attribution:
    """Re-solves around misses and spurious endpoints and assigns each its cause.

    The approximate soft labels around every item are computed first, all at once
    (:meth:`probe`: σ and σ ± tol, then the finer offsets of :data:`PROBE` only where
    those three show no change of side), keeping only the few nodes each item is about.
    """

    def __init__(self, result: Sweep, truth: LossCurve, tol, model, t_cap, ends) -> None:
        self.res, self.truth, self.tol, self.model = result, truth, tol, model
        self.s = result.settings
        self.lo, self.hi = result.sigma_min, result.sigma_max
        self.tb = truth.breakpoints
        self.ends = ends
        self.t_cap = t_cap
        self._curve: LossCurve | None = None
        self.end_node: dict[float, int] = {}
        for iv in result.intervals:
            for x, u in ((iv.lo, iv.lo_node), (iv.hi, iv.hi_node)):
                if self.end_node.get(x, -1) < 0:
                    self.end_node[x] = u
        self.iterative = self.s.solver in ("cg", "pcg") and not self.s.certify

    # -- soft labels ---------------------------------------------------------------------

    def _clip(self, pts) -> list[float]:
        return np.clip(np.asarray(pts, float), self.lo, self.hi).tolist()

    def exact(self, sigmas) -> list[tuple]:
        """``(f, degenerate)`` of the exact solve at each σ."""
        sls = self.model.soft_labels_many(list(sigmas), solver="exact", derivative=False)
        return [(sl.f, sl.degenerate) for sl in sls]

    def approx(self, sigmas, t: int | None = None) -> list[tuple]:
        """``(f, degenerate)`` from the sweep's solver at each σ (``t`` iterations, default
        the sweep's; certified labels when the sweep certifies)."""
        s, sigmas = self.s, list(sigmas)
        if s.solver == "exact" and not s.certify:
            return self.exact(sigmas)
        if s.certify and t is None:
            sls = [
                self.model.certified_labels(
                    x, solver=s.solver, cg_iters=s.cg_iters, cap=s.certify_cap, derivative=False
                )
                for x in sigmas
            ]
        else:
            it = s.cg_iters if t is None else t
            sls = self.model.soft_labels_many(
                sigmas, solver=s.solver, cg_iters=it, derivative=False
            )
        return [(sl.f, sl.degenerate) for sl in sls]

    def probe(self, items: list) -> list[dict]:
        """For each ``(x, nodes)``: the approximate side (``up``), degenerate flags and f_t
        of ``nodes`` at the probe points around x, and whether the side changes there."""
        out = [{"pts": self._clip([x - self.tol, x, x + self.tol])} for x, _ in items]
        self._fill(items, out, range(len(items)))
        d = self.tol * np.asarray(PROBE[1:])
        fine = [i for i, o in enumerate(out) if not o["changes"].any()]
        for i in fine:
            x = items[i][0]
            out[i]["pts"] = self._clip(np.r_[x - self.tol, x - d[::-1], x, x + d, x + self.tol])
        self._fill(items, out, fine)
        return out

    def _fill(self, items, out, which, chunk: int = 256) -> None:
        which = list(which)
        need: dict[float, list[int]] = {}
        for i in which:
            for x in out[i]["pts"]:
                need.setdefault(x, []).append(i)
        got: dict[tuple[int, float], tuple] = {}
        keys = list(need)
        for k in range(0, len(keys), chunk):
            part = keys[k : k + chunk]
            for x, (f, deg) in zip(part, self.approx(part), strict=True):
                for i in need[x]:
                    idx = items[i][1]
                    got[(i, x)] = (f[idx], deg[idx])
        for i in which:
            o, x = out[i], items[i][0]
            vals = [got[(i, p)] for p in o["pts"]]
            o["f"] = np.array([v[0] for v in vals])  # (points, nodes)
            o["deg"] = np.array([v[1] for v in vals])
            o["up"] = (o["f"] > 0.5) & ~o["deg"]
            o["changes"] = (o["up"] != o["up"][0]).any(axis=0)
            o["f_x"] = got[(i, float(np.clip(x, self.lo, self.hi)))][0]

    def _label(self) -> str:
        s = self.s
        name = {"cg": "CG", "pcg": "PCG"}.get(s.solver)
        if name is None:
            return f"the {s.solver} solver"
        return f"certified {name}" if s.certify else f"{name}-{s.cg_iters}"

    # -- misses ----------------------------------------------------------------------------

    def _near(self, x: float) -> dict:
        """``nearest_endpoint`` (its distance to ``x``) and ``estimated_endpoint`` (its σ)."""
        if not self.ends.size:
            return {"nearest_endpoint": None, "estimated_endpoint": None}
        e = float(self.ends[np.argmin(np.abs(self.ends - x))])
        return {"nearest_endpoint": abs(e - x), "estimated_endpoint": e}

    def miss(self, b: float, nodes, pr: dict | None) -> Miss:
        nd = tuple(int(u) for u in np.atleast_1d(nodes))
        ev: dict = {"node": nd[0] if nd else -1, **self._near(b)}
        if self.model is None:
            return self._miss_unsolved(b, nd, ev)
        ends = self._clip([b - self.tol, b + self.tol])
        ex = self.exact([ends[0], b, ends[1]])
        idx = np.array(nd, int)
        ex_deg = np.any([d[idx] for _, d in ex], axis=0) if nd else np.zeros(0, bool)
        ap_deg = pr["deg"].any(axis=0) if nd else np.zeros(0, bool)
        if ex_deg.any() or ap_deg.any():
            j = int(np.argmax(ex_deg | ap_deg))
            ev |= {
                "node": nd[j],
                "exact_degenerate": bool(ex_deg[j]),
                "approx_degenerate": bool(ap_deg[j]),
            }
            where = (
                "in the exact graph"
                if ex_deg[j]
                else f"for {self._label()} (its weights underflow unscaled)"
            )
            return Miss(
                b,
                nd,
                "degenerate",
                f"the node is cut off from every labeled node within tol of σ = {b:.5g} {where}",
                ev,
            )
        if not nd:  # a breakpoint no node explains (cannot happen on a complete curve)
            return Miss(b, nd, "search", "no node changes side here", ev | {"how": "unknown"})
        crosses = pr["changes"]
        j = int(np.argmax(crosses)) if crosses.any() else 0
        u = nd[j]
        f_t, f = float(pr["f_x"][j]), float(ex[1][0][u])  # at σ*
        margin = min(abs(ex[0][0][u] - 0.5), abs(ex[-1][0][u] - 0.5))
        ev |= {
            "node": u,
            "approx_value": f_t,
            "exact_value": f,
            "error": abs(f_t - f),
            "margin": float(margin),
        }
        if not crosses.any():
            ev |= {"t_needed": None, "t_cap": self.t_cap if self.iterative else None}
            want = np.array([_up(e)[idx] for e in (ex[0], ex[-1])])
            ev["_target"] = (ends, idx, want)
            return Miss(
                b,
                nd,
                "solver",
                f"the node's soft label from {self._label()} does not cross 1/2 within "
                f"{self.tol:.2g} of σ = {b:.5g}: error |f_t − f| = {abs(f_t - f):.2g} "
                f"against a margin |f − ½| = {margin:.2g}",
                ev,
            )
        if self.s.mode == "paper":
            return self._paper_search(b, nd, u, ev)
        return self._fast_search(b, nd, u, ev)

    def _miss_unsolved(self, b, nd, ev, why: str = "scored without the model") -> Miss:
        for a, c, count in self.truth.degenerate_ranges:
            for e in (a, c):
                if self.lo < e < self.hi and abs(e - b) <= self.tol:
                    ev |= {"range_lo": float(a), "range_hi": float(c), "count": int(count)}
                    return Miss(
                        b,
                        nd,
                        "degenerate",
                        f"{count} nodes are cut off from L on [{a:.4g}, {c:.4g}]; the "
                        f"degenerate set changes at σ = {b:.5g}",
                        ev,
                    )
        return Miss(b, nd, UNATTRIBUTED, f"{why}: nothing re-solved", ev)

    def unexamined(self, b: float, nodes, examined: int, missed: int) -> Miss:
        """A miss left out by ``max_attributed``: only what needs no solve (a change of
        the exact curve's degenerate set), else 'unattributed'."""
        nd = tuple(int(u) for u in np.atleast_1d(nodes))
        ev: dict = {"node": nd[0] if nd else -1, **self._near(b), "examined": examined}
        why = f"not examined (causes looked for at {examined} of the {missed} misses)"
        return self._miss_unsolved(b, nd, ev, why)

    def _true_partner(self, b: float, lo: float, hi: float, node: int | None = None):
        """The nearest other true breakpoint in [lo, hi] (of ``node`` when given)."""
        best = None
        for x, nodes in zip(self.tb, self.truth.nodes, strict=True):
            if x == b or not lo <= x <= hi or (node is not None and node not in set(nodes)):
                continue
            if best is None or abs(x - b) < abs(best - b):
                best = float(x)
        return best

    def _paper_search(self, b, nd, u, ev) -> Miss:
        s, ivs = self.s, self.res.intervals
        for k, iv in enumerate(ivs):
            start = ivs[k + 1].sigma0 if k + 1 < len(ivs) else iv.hi + s.step
            if not (iv.hi < b < start and iv.hi < self.hi):
                continue
            gap = {"restart_from": iv.hi, "restart_to": start}
            # Only one lower end falls in the gap: a pair there cannot both be found.
            partner = self._true_partner(b, np.nextafter(iv.hi + self.tol, np.inf), start)
            left = ""
            if start <= self.hi:  # the next interval's search from σ0 looks left too
                ev |= self._iteration(b, u, start)
                nxt_lo = ivs[k + 1].lo if k + 1 < len(ivs) else None
                left = f"; from there the node's iteration {self._classify(b, u, ev, nxt_lo)[1]}"
            if partner is not None:
                ev |= gap | {"partner": partner, "distance": abs(b - partner), "separation": s.step}
                return Miss(
                    b,
                    nd,
                    "close pair",
                    f"another true breakpoint at σ = {partner:.5g} is "
                    f"{abs(b - partner):.2g} away, inside the restart gap "
                    f"({iv.hi:.5g}, {start:.5g}] of step {s.step:g}{left}",
                    ev,
                )
            ev |= gap | {"how": "restart"}
            return Miss(
                b,
                nd,
                "search",
                f"the sweep restarted at σ_h + step = {start:.5g} after the endpoint "
                f"{iv.hi:.5g}, jumping over it{left}",
                ev,
            )
        for iv in ivs:
            if iv.lo < b < iv.hi:
                ev |= self._iteration(b, u, iv.sigma0)
                how, text = self._classify(b, u, ev)
                ev["how"] = how
                return Miss(
                    b,
                    nd,
                    "search",
                    f"from σ0 = {iv.sigma0:.5g} the node's hybrid iteration {text}",
                    ev,
                )
        ev["how"] = "unswept"
        return Miss(b, nd, "search", "the sweep stopped before reaching it (time budget)", ev)

    def _iteration(self, b, u, sigma0) -> dict:
        """Node u's iteration from σ0 over the whole range, for each step rule."""
        out: dict = {"sigma0": float(sigma0), "found_by": []}
        for rule in ("hybrid", "newton", "gradient"):
            trace, root, (stop, nxt) = unchecked_trace(
                self.model, u, sigma0, self.lo, self.hi, self.s, rule
            )
            if root is not None and abs(root - b) <= self.tol:
                out["found_by"].append(rule)
            if rule == "hybrid":
                sig = [it.sigma for it in trace] or [sigma0]
                out |= {
                    "stop": stop,
                    "root": root,
                    "end": float(sig[-1]),
                    "next": _num(nxt) if stop == "left" else None,
                    "iterations": len(trace),
                    "extent_lo": float(min(sig)),
                    "extent_hi": float(max(sig)),
                    "end_value": float(trace[-1].f) if trace else None,
                }
        return out

    def _short_of(self, b: float, u: int, r: float) -> bool:
        """Whether the accepted root r of node u is this crossing located loosely: no other
        true crossing of u between them and the approximate side at r is that of b's
        side facing r."""
        if self._true_partner(b, min(r, b), max(r, b), node=u) is not None:
            return False
        q = min(self.hi, max(self.lo, b + np.copysign(self.tol, r - b)))
        ur, uq = (_up(x)[u] for x in self.approx([r, q]))
        return bool(ur == uq)

    def _classify(self, b, u, ev, next_lo=None) -> tuple[str, str]:
        """``(how, text)`` of a paper-mode search miss from the node's re-run iteration."""
        stop, end, r = ev["stop"], ev["end"], ev["root"]
        if stop == "cap":
            how, text = "cap", f"hit the iteration cap ({self.s.max_iter}) at σ = {end:.5g}"
        elif stop == "root" and abs(r - b) <= self.tol:
            how = "iterates"
            if next_lo is not None and next_lo > b:
                text = (
                    f"reaches it, but a root nearer σ0 set that interval's lower end "
                    f"at {next_lo:.5g}"
                )
            else:
                text = (
                    f"reaches it, but only through iterates in [{ev['extent_lo']:.5g}, "
                    f"{ev['extent_hi']:.5g}], outside the bracket left by the nodes "
                    f"before it"
                )
        elif stop == "root" and self._short_of(b, u, r):
            how = "root_tol"
            text = (
                f"stopped {abs(r - b):.2g} short of it, at σ = {r:.5g} where |f − ½| = "
                f"{abs(ev['end_value'] - 0.5):.2g} ≤ root_tol {self.s.root_tol:g} was "
                f"taken for the root"
            )
        elif stop == "root":
            how, text = "iterates", f"converged to another root, σ = {r:.5g}"
        elif stop == "stalled":
            how = "iterates"
            text = (
                f"stalled at σ = {end:.5g} with |f − ½| = {abs(ev['end_value'] - 0.5):.2g}"
                f" > root_tol (a minimum of g, not a root)"
            )
        elif stop == "left":
            how, text = "iterates", f"stepped out of the range from σ = {end:.5g}"
        elif stop == "flat":
            how, text = "iterates", f"stopped at σ = {end:.5g} where g' = 0"
        else:
            how, text = "iterates", f"stopped at σ = {end:.5g} ({stop})"
        other = [x for x in ev["found_by"] if x != "hybrid"]
        if not other or "hybrid" in ev["found_by"]:
            return how, text
        return how, text + f"; the {' and '.join(other)} rule would find it"

    def _fast_curve(self) -> LossCurve:
        """The fast mode's search (kept on the sweep; re-run as
        :func:`sslviz.algorithm4.sweep` runs it for a sweep that did not keep it)."""
        if self._curve is None and self.res.curve is not None:
            self._curve = self.res.curve
        if self._curve is None:
            s = self.s
            rtol = {"rtol": min(1e-3, s.epsilon / self.hi)} if not s.certify else {}
            self._curve = true_loss_curve(
                self.model,
                np.zeros(self.model.n_unlabeled),
                self.lo,
                self.hi,
                solver=s.solver,
                cg_iters=s.cg_iters,
                certify_cap=s.certify_cap if s.certify else None,
                **rtol,
            )
        return self._curve

    def _fast_search(self, b, nd, u, ev) -> Miss:
        curve = self._fast_curve()
        e = curve.evaluations
        a = float(e[e <= b].max()) if np.any(e <= b) else self.lo
        c = float(e[e >= b].min()) if np.any(e >= b) else self.hi
        ua, uc = (_up(x)[u] for x in self.approx([a, c]))
        ev |= {"grid_lo": a, "grid_hi": c}
        if ua == uc:
            partner = self._true_partner(b, a, c, node=u)
            if partner is not None:
                ev |= {"partner": partner, "distance": abs(b - partner), "separation": c - a}
                return Miss(
                    b,
                    nd,
                    "close pair",
                    f"the node crosses again at σ = {partner:.5g} ({abs(b - partner):.2g} "
                    f"away); both crossings lie between the evaluated σ {a:.5g} and "
                    f"{c:.5g}, where its approximate side is the same",
                    ev,
                )
            how = "grid" if curve.complete else "budget"
            why = (
                "the Hermite test did not split there"
                if curve.complete
                else "the search's evaluation budget was spent"
            )
            ev["how"] = how
            return Miss(
                b,
                nd,
                "search",
                f"the node's soft label from {self._label()} crosses 1/2 twice between the "
                f"evaluated σ {a:.5g} and {c:.5g}: {why}",
                ev,
            )
        ev["how"] = "refine"
        return Miss(
            b,
            nd,
            "search",
            f"the search bracketed the node's sign change in [{a:.5g}, {c:.5g}] but "
            f"refined it to another crossing",
            ev,
        )

    # -- spurious endpoints ------------------------------------------------------------------

    def spurious(self, x: float, pr: dict | None) -> SpuriousEndpoint:
        u = int(self.end_node.get(x, -1))
        near = float(np.min(np.abs(self.tb - x))) if self.tb.size else None
        ev: dict = {"node": u, "nearest_breakpoint": near}
        if self.model is None:
            return SpuriousEndpoint(x, u, UNATTRIBUTED, "scored without the model", ev)
        crosses = pr["changes"]
        j = int(np.argmax(crosses)) if u < 0 and crosses.any() else 0
        if u < 0 and crosses.any():
            u = ev["node"] = j  # no node recorded: the probe ran on every node
        if u >= 0:
            ev["approx_value"] = float(pr["f_x"][j])
        if crosses.any():
            # No true breakpoint within tol: the exact side does not change there.
            detail = (
                f"the node's soft label from {self._label()} crosses 1/2 within tol of "
                f"this endpoint; the exact one does not"
            )
            return SpuriousEndpoint(x, u, "solver", detail, ev)
        if self.s.mode == "paper" and u >= 0:
            ev["root_tol"] = self.s.root_tol
            detail = (
                f"the node's iteration stopped here with |f_t − ½| = "
                f"{abs(ev['approx_value'] - 0.5):.2g} ≤ root_tol {self.s.root_tol:g} and "
                f"was taken for a root, but f_t does not cross 1/2 within tol"
            )
        else:
            detail = "no approximate soft label crosses 1/2 within tol of this endpoint"
        return SpuriousEndpoint(x, u, "search", detail, ev)

    # -- the iterations a solver record needed -------------------------------------------------

    def _right(self, targets, t: int) -> list[bool]:
        """Whether t iterations put f_t on the wanted side at every point of each target,
        for some node of it (one batched solve per call)."""
        pts = list(dict.fromkeys(x for p, _, _ in targets for x in p))
        labels = dict(zip(pts, self.approx(pts, t), strict=True))
        out = []
        for p, idx, want in targets:
            got = np.array([_up(labels[x])[idx] for x in p])
            out.append(bool(np.any(np.all(got == want, axis=0))))
        return out

    def fill_t_needed(self, misses: list, say: Callable[[str], None] | None = None) -> list:
        """``t_needed`` of every solver miss: doubling from the sweep's t until it works (or
        ``t_cap``), then bisecting between the last failing and the first working t until
        they are 1 apart, or 1/16 of t apart above t = 16 (all misses solved together).
        ``say(message)``, if given, hears each batched step before it runs."""

        def trying(t: int, count: int) -> None:
            if say is not None:
                say(f"the iterations each solver miss needed: trying t = {t} at {count:,} of them")

        recs = [r for r in misses if "_target" in r.evidence]
        need: dict[int, int | None] = {}
        if self.iterative and recs:
            targets = [r.evidence["_target"] for r in recs]
            lo = [self.s.cg_iters] * len(recs)  # fails
            hi: list[int | None] = [None] * len(recs)  # works
            t, todo = self.s.cg_iters, list(range(len(recs)))
            while todo and t < self.t_cap:  # doubling
                t = min(2 * t, self.t_cap)
                trying(t, len(todo))
                for i, ok in zip(todo, self._right([targets[i] for i in todo], t), strict=True):
                    if ok:
                        hi[i] = t
                    else:
                        lo[i] = t
                todo = [i for i in todo if hi[i] is None]

            def open_(i):
                return hi[i] is not None and hi[i] - lo[i] > max(1, lo[i] // 16)

            todo = [i for i in range(len(recs)) if open_(i)]
            while todo:  # bisection
                by_t: dict[int, list[int]] = {}
                for i in todo:
                    by_t.setdefault((lo[i] + hi[i]) // 2, []).append(i)
                for m, ids in by_t.items():
                    trying(m, len(ids))
                    for i, ok in zip(ids, self._right([targets[i] for i in ids], m), strict=True):
                        if ok:
                            hi[i] = m
                        else:
                            lo[i] = m
                todo = [i for i in todo if open_(i)]
            need = {id(r): h for r, h in zip(recs, hi, strict=True)}

        def done(r):
            if "_target" not in r.evidence:
                return r
            ev = {k: v for k, v in r.evidence.items() if k != "_target"}
            ev["t_needed"] = need.get(id(r))
            return replace(r, evidence=ev)

        return [done(r) for r in misses]


def _margins(sc, y_u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(½ + m, degenerate)`` of :class:`sslviz.labeling.Scores`: m_u = F_uτ − max_{c≠τ}
    F_uc, the node's margin over its strongest rival, so ½ + m is above ½ exactly where the
    node is right (the binary records' side of ½, for more than two classes)."""
    F = sc.F
    rows = np.arange(F.shape[0])
    other = F.copy()
    other[rows, y_u] = -np.inf
    return 0.5 + (F[rows, y_u] - other.max(axis=1)), sc.degenerate


_CLASS_WORDS = (
    ("soft label", "score margin"),
    ("crosses 1/2", "changes sign"),
    ("cross 1/2", "change sign"),
    ("|f_t − f|", "|m_t − m|"),
    ("|f − ½|", "|m|"),
    ("|f_t − ½|", "|m_t|"),
)
"""How a binary record's words read for more than two classes (m: a node's margin)."""


class ClassAttribution(Attribution):
    """:class:`Attribution` one-vs-all (docs/method.md §13): the same causes and evidence,
    read off each node's margin m = F_uτ − max_{c≠τ} F_uc (right where m > 0) in place of
    f − ½, from the sweep's scores (CG-t per column, or certified) and the exact ones.
    Every record names the pair of classes that met (``classes``: the node's own class,
    then its rival there); ``approx_margin`` and ``exact_margin`` replace the binary
    ``approx_value`` and ``exact_value``.

    Parameters
    ----------
    result, truth, tol, model, t_cap, ends
        As :class:`Attribution` (``truth`` a curve with ``classes``).
    y : ndarray of shape (n,)
        Class indices of every point.
    """

    def __init__(self, result, truth, tol, model, t_cap, ends, y) -> None:
        super().__init__(result, truth, tol, model, t_cap, ends)
        self.y = np.asarray(y)
        self.labels = truth.classes
        self.y_u = self.y[model.unlabeled_idx] if model is not None else None

    def exact(self, sigmas) -> list[tuple]:
        scs = self.model.scores(
            list(sigmas), self.y, len(self.labels), solver="exact", derivative=False
        )
        return [_margins(sc, self.y_u) for sc in scs]

    def approx(self, sigmas, t: int | None = None) -> list[tuple]:
        s, sigmas, C = self.s, list(sigmas), len(self.labels)
        if s.solver == "exact" and not s.certify:
            return self.exact(sigmas)
        if s.certify and t is None:
            scs = [
                self.model.certified_scores(
                    x,
                    self.y,
                    C,
                    solver=s.solver,
                    cg_iters=s.cg_iters,
                    cap=s.certify_cap,
                    derivative=False,
                )
                for x in sigmas
            ]
        else:
            it = s.cg_iters if t is None else t
            scs = self.model.scores(
                sigmas, self.y, C, solver=s.solver, cg_iters=it, derivative=False
            )
        return [_margins(sc, self.y_u) for sc in scs]

    def _pair(self, sigma: float, u: int) -> list[int] | None:
        """The node's own class and its rival at the true breakpoint ``sigma`` (labels)."""
        if u < 0 or self.y_u is None:
            return None
        own = self.labels[int(self.y_u[u])]
        hit = np.flatnonzero(self.tb == sigma)
        if hit.size:
            i = int(hit[0])
            nd = list(self.truth.nodes[i])
            if u in nd and self.truth.against[i][nd.index(u)] >= 0:
                return [own, self.labels[int(self.truth.against[i][nd.index(u)])]]
        return [own, None]

    def _words(self, record, sigma: float, u: int):
        ev = dict(record.evidence)
        for key, new in (("approx_value", "approx_margin"), ("exact_value", "exact_margin")):
            if key in ev:
                ev[new] = ev.pop(key) - 0.5
        pair = self._pair(sigma, u)
        detail = record.detail
        for old, new in _CLASS_WORDS:
            detail = detail.replace(old, new)
        if pair is not None:
            ev["classes"] = pair
            rival = "" if pair[1] is None else f" against class {pair[1]}"
            detail += f" (its class {pair[0]}{rival})"
        return replace(record, detail=detail, evidence=ev)

    def miss(self, b: float, nodes, pr: dict | None) -> Miss:
        m = super().miss(b, nodes, pr)
        return self._words(m, b, int(m.evidence.get("node", -1)))

    def unexamined(self, b: float, nodes, examined: int, missed: int) -> Miss:
        m = super().unexamined(b, nodes, examined, missed)
        return self._words(m, b, int(m.evidence.get("node", -1)))

    def spurious(self, x: float, pr: dict | None) -> SpuriousEndpoint:
        return self._words(super().spurious(x, pr), x, -1)
