"""The tour on what α does in LabelSpreading: its numbers come from the conditioning view's
JSON, and its claim (κ(I − αS) at most (1 + α)/(1 − α), reached at the smallest σ) holds
on the tour's own view."""

import re

import numpy as np
import pytest
from apptest_helpers import start

from sslviz import export, tours
from sslviz import specs as S
from sslviz.conditioning import condition_curve
from sslviz.problem import build_problem
from ui import url

TOUR = "spreading-alpha"
NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _view():
    tour = tours.get(TOUR)
    cfg, _ = url.tour_cfg(tour)
    spec = url.spec_from_cfg(S.ProblemSpec, cfg)
    grid = np.linspace(float(cfg["sigma_min"]), float(cfg["sigma_max"]), 40)
    curves = {}
    for fam in ("complete", "knn"):
        curves[fam] = condition_curve(build_problem(spec.replace(family=fam)).model, grid)
    return tour, spec, curves


@pytest.mark.slow  # over 2 s: outside the quick run
def test_the_tours_numbers_come_from_its_json_and_its_claim_holds():
    tour, spec, curves = _view()
    assert spec.labeling == "spreading" and spec.alpha == 0.9
    facts = tours.condition_facts(curves, {})
    docs = {f: export.to_dict(c) for f, c in curves.items()}
    sources = {
        "lo": lambda d: [d["sigma"][0]],
        "hi": lambda d: [d["sigma"][-1]],
        "sqrt_kappa_lo": lambda d: [d["sqrt_kappa"][0]],
        "sqrt_kappa_hi": lambda d: [d["sqrt_kappa"][-1]],
        "iterations_lo": lambda d: [d["iterations_needed"][0]],
        "iterations_hi": lambda d: [d["iterations_needed"][-1]],
    }
    for text in (tour.text, tour.look, tour.ask):
        for field in tours.fields(text):
            assert field in sources, field
            shown = [float(x.replace(",", "")) for x in NUMBER.findall(facts[field])]
            source = [float(v) for d in docs.values() for v in sources[field](d)]
            assert shown and all(
                any(np.isclose(s, float(f"{v:.3g}"), rtol=1e-9) for v in source) for s in shown
            ), (field, facts[field], source)
    ceiling = (1 + spec.alpha) / (1 - spec.alpha)
    for c in curves.values():  # the text's claim, on the tour's view
        assert np.all(c.kappa <= ceiling * (1 + 1e-9))
        assert c.kappa[0] == pytest.approx(ceiling, rel=1e-3)  # reached at σ_min
        assert c.kappa[-1] < 0.8 * ceiling


@pytest.mark.slow  # over 2 s: outside the quick run
def test_the_tour_opens_on_the_conditioning_page_with_its_numbers():
    at = start("pages/Conditioning.py", {"tour": TOUR})
    assert not at.exception and not at.error
    cfg = at.session_state["cfg"]
    assert cfg["tour"] == TOUR and cfg["labeling"] == "spreading"
    shown = " ".join(m.value for m in at.markdown)
    assert "√κ is" in shown and "…" not in shown and "S = D^(−1/2) W D^(−1/2)" in shown
