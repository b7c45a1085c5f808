"""Every number a tour states comes from the view's JSON export.

A registry maps each field of the tour texts (sslviz.tours.*_facts) to the JSON it is read
from: the export documents the page offers for download (``sslviz.export.to_dict`` of the
same results). A field with no entry in the registry fails the test, and every number in a
filled field must be one of the numbers its JSON source gives.
"""

from __future__ import annotations

import math
import re
import string

import numpy as np
import pytest

from sslviz import export, tours
from sslviz import specs as S
from sslviz.algorithm4 import sweep_classes
from sslviz.class_trust import class_trust_curve
from sslviz.conditioning import condition_curve, trust_curve
from sslviz.convergence import compare_misses, convergence
from sslviz.intervals import score, sweep
from sslviz.problem import build_problem, loss_curve
from ui import cache, nav, url, views

NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def numbers(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in NUMBER.findall(text)]


def close(shown: float, source: list[float]) -> bool:
    """``shown`` is one of ``source``, as the text rounds it (3 significant digits or more)."""
    return any(
        math.isclose(shown, float(f"{s:.3g}"), rel_tol=1e-9)
        or math.isclose(shown, round(s), rel_tol=1e-9)
        or math.isclose(shown, float(f"{s:.5g}"), rel_tol=1e-9)
        for s in source
    )


def _loss_view(tour: tours.Tour) -> tuple[dict, dict]:
    """The tour's loss-page view computed as the page does: its facts, and the JSON."""
    cfg, _ = url.tour_cfg(tour)
    spec = url.spec_from_cfg(S.ProblemSpec, cfg)
    settings = url.spec_from_cfg(S.SweepSettings, cfg)
    view = url.spec_from_cfg(views.LossView, cfg)
    points = url.spec_from_cfg(S.ConditionSettings, cfg).points
    lo, hi = cfg["sigma_min"], cfg["sigma_max"]
    p = build_problem(spec)
    truth = loss_curve(p, lo, hi)
    many = p.instance.n_classes > 2  # one-vs-all (docs/method.md §13)
    y = {"y": p.instance.y} if many else {}
    res = (
        sweep_classes(p.model, p.instance.y, p.instance.classes, lo, hi, settings)
        if many
        else sweep(p.model, p.y_unlabeled, lo, hi, settings)
    )
    sc = score(res, truth, model=p.model, **y)
    grid = np.linspace(lo, hi, points)
    trust = (
        class_trust_curve(
            p.model, p.instance.y, p.instance.classes, grid, cg_iters=settings.cg_iters
        )
        if many
        else trust_curve(
            p.model, grid, solver=cache.trust_solver(settings), cg_iters=settings.cg_iters
        )
    )
    cmp_settings = cache.comparison(settings, view.compare)
    cmp_res = cmp_sc = None
    if cmp_settings is not None:
        cmp_res = sweep(p.model, p.y_unlabeled, lo, hi, cmp_settings)
        cmp_sc = score(cmp_res, truth, model=p.model)
    facts = tours.loss_facts(
        truth,
        score=sc,
        sweep=res,
        compare_score=cmp_sc,
        compare_sweep=cmp_res,
        trust=trust,
        problem=p,
        lo=lo,
        hi=hi,
        node=cfg.get("node"),
    )
    truth_json = export.to_dict(truth, p)
    node_u = p.rows(range(p.model.n_unlabeled)).index(cfg["node"]) if cfg.get("node") else None
    json = {
        "truth": truth_json,
        "sweep": export.to_dict(res, p),
        "score": export.to_dict(sc, p),
        "compare": export.to_dict(cmp_res, p) if cmp_res is not None else {},
        "compare_score": export.to_dict(cmp_sc, p) if cmp_sc is not None else {},
        "trust": export.to_dict(trust),
        "node_breakpoints": [
            b
            for b, nd in zip(truth.breakpoints, truth.nodes, strict=True)
            if node_u in set(np.ravel(nd))
        ],
        "settings": {
            "lo": lo,
            "hi": hi,
            "subset": spec.subset,
            "labeled": spec.n_labeled,
            "cg_iters": settings.cg_iters,
            "compare_cg_iters": cmp_settings.cg_iters if cmp_settings else None,
        },
    }
    return facts, json


def _pieces(j: dict) -> list[float]:
    return [x for p in j["truth"]["pieces"] for x in (p["loss"] * j["truth"]["n_unlabeled"],)]


REGISTRY = {  # field → the JSON numbers it may state
    "breakpoints": lambda j: [len(j["truth"]["breakpoints"])],
    "breakpoint_list": lambda j: j["truth"]["breakpoints"],
    "lo": lambda j: [j["settings"]["lo"]],
    "hi": lambda j: [j["settings"]["hi"]],
    "loss_values": lambda j: _pieces(j) + [j["truth"]["n_unlabeled"]],
    "unlabeled": lambda j: [j["truth"]["n_unlabeled"]],
    "node_crossings": lambda j: j["node_breakpoints"] + [j["node_row"]],
    "true": lambda j: [j["score"]["true_breakpoints"]],
    "missed": lambda j: [j["score"]["missed"], j["score"]["true_breakpoints"]],
    "missed_count": lambda j: [j["score"]["missed"]],
    "compare_missed": lambda j: [
        j["compare_score"]["missed"],
        j["compare_score"]["true_breakpoints"],
    ],
    "compare_missed_count": lambda j: [j["compare_score"]["missed"]],
    "compare_M": lambda j: [j["compare_score"]["M"]],
    "compare_spurious": lambda j: [j["compare_score"]["spurious"]],
    "solves": lambda j: [j["sweep"]["solves"]],
    "compare_solves": lambda j: [j["compare"]["solves"]],
    "label": lambda j: [j["settings"]["cg_iters"]],
    "compare_label": lambda j: [j["settings"]["compare_cg_iters"]],
    # band edges: the export's bands, or grid σ (a missed breakpoint's grid step)
    "trust_where": lambda j: (
        [b[k] for b in j["trust"]["flip_bands"] for k in ("lo", "hi")] + j["trust"]["sigma"]
    ),
    "trust_grid": lambda j: (
        [len(j["trust"]["sigma"]), j["trust"]["sigma"][0]] + [j["trust"]["sigma"][-1]]
    ),
    "subset": lambda j: [j["settings"]["subset"]],
    "t_needed": lambda j: j["trust"]["t_needed_cg"] + [j["trust"]["t_max"]],
    # more than two classes (docs/method.md §13)
    "classes_count": lambda j: [len(j["truth"]["classes"])],
    "loss_lo": _pieces,
    "loss_hi": lambda j: _pieces(j) + [j["truth"]["n_unlabeled"]],
    "miss_span": lambda j: [m["sigma"] for m in j["score"]["misses"]],
    "top_pair": lambda j: (
        [c for m in j["score"]["misses"] for c in m["classes"] if c is not None]
        + _pair_counts(j)
        + [len(j["score"]["misses"])]
    ),
    "pair_example": lambda j: [x for m in j["score"]["misses"] for x in (m["node"], *m["classes"])],
    "unknowns": lambda j: [j["settings"]["subset"] + j["settings"]["labeled"]],
}


def _pair_counts(j: dict) -> list[int]:
    """How many misses each unordered pair of classes met at."""
    pairs = [tuple(sorted(m["classes"])) for m in j["score"]["misses"] if None not in m["classes"]]
    return [pairs.count(p) for p in set(pairs)]


def _fields(tour: tours.Tour) -> set[str]:
    return {f for part in (tour.text, tour.look, tour.ask) for f in tours.fields(part)}


LOSS_TOURS = [t for t in tours.TOURS if t.page == nav.page("loss").file]


@pytest.mark.slow
@pytest.mark.parametrize("tour", LOSS_TOURS, ids=[t.id for t in LOSS_TOURS])
def test_every_number_of_a_loss_tour_comes_from_its_json(tour):
    facts, json = _loss_view(tour)
    json["node_row"] = int(url.tour_cfg(tour)[0].get("node") or 0)
    for field in _fields(tour):
        assert field in REGISTRY, f"{tour.id}: field {field!r} has no JSON source"
        assert field in facts, f"{tour.id}: the page does not compute {field!r}"
        source = [float(x) for x in REGISTRY[field](json)]
        for shown in numbers(facts[field]):
            assert close(shown, source), (tour.id, field, facts[field], source)


def test_conditioning_tour_numbers_come_from_its_json():
    tour = tours.get("conditioning")
    cfg, _ = url.tour_cfg(tour)
    spec = url.spec_from_cfg(S.ProblemSpec, cfg).replace(n=60, n_labeled=6)
    curves, trusts, docs = {}, {}, {}
    for fam in ("complete", "knn"):
        p = build_problem(spec.replace(family=fam))
        grid = np.linspace(0.4, 3.0, 6)
        curves[fam] = condition_curve(p.model, grid)
        trusts[fam] = trust_curve(p.model, grid)
        docs[fam] = export.to_dict(curves[fam]) | {"trust": export.to_dict(trusts[fam])}
    facts = tours.condition_facts(curves, trusts)
    registry = {
        "lo": lambda d: [d["sigma"][0]],
        "hi": lambda d: [d["sigma"][-1]],
        "sqrt_kappa_lo": lambda d: [d["sqrt_kappa"][0]],
        "sqrt_kappa_hi": lambda d: [d["sqrt_kappa"][-1]],
        "iterations_lo": lambda d: [d["iterations_needed"][0]],
        "iterations_hi": lambda d: [d["iterations_needed"][-1]],
        "trust_readings": lambda d: numbers(d["trust"]["reading"]) + [d["trust"]["cg_iters"]],
        "trust_grid": lambda d: [len(d["trust"]["sigma"]), d["sigma"][0], d["sigma"][-1]],
        "label": lambda d: [d["trust"]["cg_iters"]],
        "trust_where": lambda d: [b[k] for b in d["trust"]["flip_bands"] for k in ("lo", "hi")],
    }
    for field in _fields(tour):
        assert field in registry, f"field {field!r} has no JSON source"
        source = [float(x) for d in docs.values() for x in registry[field](d)]
        for shown in numbers(facts[field]):
            assert close(shown, source), (field, facts[field], source)
    # the trust sentences are the export's, word for word
    for fam in curves:
        assert f"{fam}: {docs[fam]['trust']['reading']}" in facts["trust_readings"]


def test_cg_iterations_tour_numbers_come_from_its_json():
    """The CG-iterations tour states its facts as the page computes them, each a number of
    the page's download (``convergence.json``) or the tour's t."""
    tour = tours.get("cg-converges")
    cfg, _ = url.tour_cfg(tour)
    spec = url.spec_from_cfg(S.ProblemSpec, cfg)
    view = url.spec_from_cfg(S.ConvergenceView, cfg)
    lo, hi = cfg["sigma_min"], cfg["sigma_max"]
    p = build_problem(spec)
    conv = convergence(p.model, p.y_unlabeled, loss_curve(p, lo, hi), iterations=view.iterations)
    t = int(cfg["t"])
    sweep_settings = url.spec_from_cfg(S.SweepSettings, cfg)
    truth = loss_curve(p, lo, hi)
    scores, docs = [], {}
    for sv in ("cg", "pcg"):
        sv_settings = sweep_settings.with_solver(sv).replace(cg_iters=t)
        res = sweep(p.model, p.y_unlabeled, lo, hi, sv_settings)
        scores.append(compare_misses(conv, sv, t, score(res, truth)))
        docs[sv] = export.to_dict(score(res, truth), p)
    grid = np.linspace(lo, hi, url.spec_from_cfg(S.ConditionSettings, cfg).points)
    trust = trust_curve(p.model, grid)
    facts = tours.convergence_facts(conv, t, scores, trust)
    doc = export.convergence_document(p, conv, (lo, hi))
    trust_doc = export.to_dict(trust)
    registry = {
        "t": lambda d: [t],
        "breakpoints": lambda d: [len(d["breakpoints"])],
        "cg_misses": lambda d: [d["solvers"]["cg"]["misses"][t - 1], len(d["breakpoints"])],
        "pcg_misses": lambda d: [d["solvers"]["pcg"]["misses"][t - 1], len(d["breakpoints"])],
        "cg_settled": lambda d: [d["solvers"]["cg"]["all_right_from"] or d["iterations"]],
        "pcg_settled": lambda d: [d["solvers"]["pcg"]["all_right_from"] or d["iterations"]],
        "cg_label": lambda d: [t],
        "pcg_label": lambda d: [t],
        "cg_algorithm4": lambda d: [docs["cg"]["missed"], docs["cg"]["true_breakpoints"]],
        "pcg_algorithm4": lambda d: [docs["pcg"]["missed"], docs["pcg"]["true_breakpoints"]],
        "cg_needed": lambda d: trust_doc["t_needed_cg"] + [trust_doc["t_max"]],
    }
    for field in _fields(tour):
        assert field in registry, f"field {field!r} has no JSON source"
        source = [float(x) for x in registry[field](doc)]
        for shown in numbers(facts[field]):
            assert close(shown, source), (field, facts[field], source)


def test_speed_tour_numbers_come_from_its_rows():
    rows = [
        {"n": n, "family": f, "solver": s, "M": m, "graph_nonzeros": z}
        for n, f, s, m, z in [
            (50, "complete", "cg", 16, 2025),
            (50, "knn", "cg", 10, 301),
            (100, "complete", "inverse", 28, 8100),
            (100, "knn", "inverse", 3, 640),
        ]
    ]
    facts = tours.speed_facts(rows)
    assert facts["M_complete_cg"] == "16 at n = 50" and facts["M_knn_inverse"] == "3 at n = 100"
    assert (
        facts["nonzeros_complete"] == "2,025 at n = 50" and facts["nonzeros_knn"] == "301 at n = 50"
    )
    tour = tours.get("sparse-vs-complete")
    for field in _fields(tour):
        kind = field.split("_")[0]
        assert kind in ("M", "nonzeros"), f"field {field!r} has no source in the rows"


def test_fill_leaves_no_number_it_was_not_given():
    text = "of the {true} true breakpoints, {label} misses {missed}"
    assert tours.fill(text, {"true": "27", "label": "CG-20"}) == (
        "of the 27 true breakpoints, CG-20 misses …"
    )
    assert tours.fields(text) == ["true", "label", "missed"]
    assert [f for _, f, *_ in string.Formatter().parse(text) if f] == tours.fields(text)
