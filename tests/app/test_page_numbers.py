"""What a user reads is what the page computed: every number in the verdict,
captions and tour text of a page's default view is one of the numbers of the JSON and CSV
files the same page offers for download, or one of the view's settings. A number typed by
hand, or recomputed by a second rule that disagrees, has no source and fails.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re

import pytest
from apptest_helpers import download, open_tab, start

from sslviz import tours
from ui import nav

NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?")
REFERENCE = re.compile(
    r"(Figure|Table|Algorithms?|Theorems?|Section|Appendix|§|E\.)\s*[\d.–-]+"
    r"|[A-Za-z_]\w*-\d+|10⁻³|\d+/\d+"
)
"""Numbers that are names, not results: paper references, solver labels ('CG-20': its t
is a setting, checked below), the tolerance written as a power, and fractions k/|U| (both
parts are checked by the tour registry, tests/app/test_tour_facts.py)."""


def numbers_in(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in NUMBER.findall(REFERENCE.sub(" ", text))]


def json_numbers(obj, out: list[float]) -> list[float]:
    if isinstance(obj, bool) or obj is None:
        return out
    if isinstance(obj, int | float):
        out.append(float(obj))
    elif isinstance(obj, dict):
        for v in obj.values():
            json_numbers(v, out)
    elif isinstance(obj, list):
        for v in obj:
            json_numbers(v, out)
    elif isinstance(obj, str):
        out.extend(numbers_in(obj))
    return out


def csv_numbers(text: str) -> list[float]:
    out = []
    for row in csv.reader(io.StringIO(text)):
        for cell in row:
            try:
                out.append(float(cell))
            except ValueError:
                pass
    return out


def sourced(x: float, source: list[float]) -> bool:
    """``x`` is one of ``source`` as a text rounds it (to 2–6 significant digits, or to an
    integer), or a percentage of one."""
    for s in source:
        for v in (s, 100 * s):
            if math.isclose(x, v, rel_tol=1e-9, abs_tol=1e-12) or math.isclose(x, round(v)):
                return True
            if any(math.isclose(x, float(f"{v:.{d}g}")) for d in range(2, 7)):
                return True
    return False


def downloaded(at, prefix: str) -> list[float]:
    """Every number of the page's download buttons whose key starts with ``prefix``."""
    out: list[float] = []
    for b in at.get("download_button"):
        if not b.key or not b.key.startswith(prefix):
            continue
        data = download(at, b.key).decode()
        out += json_numbers(json.loads(data), []) if b.key.endswith(".json") else csv_numbers(data)
    return out


def settings_numbers(at) -> list[float]:
    return [
        float(v)
        for text in at.query_params.values()
        for v in re.findall(r"\d+(?:\.\d+)?", str(text))
    ]


def unsourced(texts: list[str], source: list[float]) -> list[tuple[str, float]]:
    return [(t, x) for t in texts for x in numbers_in(t) if not sourced(x, source)]


@pytest.mark.slow
def test_loss_page_default_view_states_only_computed_numbers():
    at = start(nav.page("loss").file)
    assert not at.exception
    source = downloaded(open_tab(at, "Export"), "li_") + settings_numbers(at)
    texts = [at.info[0].value]  # the verdict
    texts += [c.value for c in at.caption if "can be trusted" in c.value]  # the trust caption
    assert len(texts) == 2
    assert unsourced(texts, source) == []


@pytest.mark.slow
def test_conditioning_page_default_view_states_only_computed_numbers():
    at = start(nav.page("conditioning").file)
    assert not at.exception
    source = downloaded(at, "cond_") + settings_numbers(at)
    texts = [c.value for c in at.caption if "can be trusted" in c.value]
    assert texts
    assert unsourced(texts, source) == []


@pytest.mark.slow
@pytest.mark.parametrize("tour", ["cg-misses", "conditioning", "delalleau"])
def test_tour_text_states_only_computed_numbers(tour):
    t = tours.get(tour)
    at = start(None, {"tour": tour})
    assert not at.exception
    prefix = "li_" if t.page == nav.page("loss").file else "cond_"
    if prefix == "li_":  # the loss page builds its files in its Export tab, once open
        open_tab(at, "Export")
    source = downloaded(at, prefix) + settings_numbers(at)
    look = [m.value for m in at.markdown if m.value.startswith("**Look at:**")]
    assert look and "…" not in look[0]
    assert unsourced(look, source) == []


def test_a_typed_number_is_caught():
    assert unsourced(["CG-20 misses 8 of 27"], [8.0, 27.0]) == []
    assert unsourced(["CG-20 misses 9 of 27"], [8.0, 27.0]) == [("CG-20 misses 9 of 27", 9.0)]
    assert unsourced(["trusted from σ ≈ 1.14 on"], [1.1372]) == []
    assert numbers_in("Figure 3, Table 1, 12,878 solves, 10⁻³") == [12878.0]
