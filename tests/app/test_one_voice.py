"""One definition per quantity across pages (docs/method.md, "One definition per quantity").

The same instance and settings are opened on the loss, CG-iterations, conditioning and
speed pages, and every quantity two of them state is read off what each page shows (its
markdown, captions, alerts, metrics and tables) and compared: the breakpoints Algorithm 4
misses at t, the trust boundary, the t needed on the trust grid, the speed ratios. Where a
page states a quantity that differs on purpose (CG-t's own misses against Algorithm 4's),
it must say why.
"""

from __future__ import annotations

import re

import pytest
from apptest_helpers import PAGES, metrics, start

from sslviz.words import COLUMN_WORDS as W

# The cg-misses tour's instance (digits 3 vs 8, n = 100, complete graph), with no tour open.
VIEW = {
    "dataset": "digits",
    "classes": "3,8",
    "n": "100",
    "labeled": "10",
    "seed": "0",
    "pca": "45",
    "family": "complete",
    "labeling": "harmonic",
    "sigma_min": "0.6",
    "sigma_max": "3.4",
    "mode": "fast",
    "t": "20",
}


def texts(at) -> str:
    """Everything the page says in words: markdown, captions and alerts."""
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [a.value for kind in (at.info, at.warning, at.error, at.success) for a in kind]
    return "\n".join(parts)


def trust_sentence(text: str, label: str) -> str:
    """The sentence saying where ``label`` can be trusted, with its grid."""
    m = re.search(rf"({re.escape(label)} (?:can|cannot) be trusted[^()]*\(on [^)]*\)\.)", text)
    assert m, f"no trust sentence of {label} in: {text[:2000]}"
    return m.group(1)


def grid_needed(text: str) -> str:
    m = re.search(r"CG needs (up to t = \d+|more than t = \d+) at the grid σ", text)
    assert m, text[:2000]
    return m.group(1)


def algorithm4_misses(text: str, label: str) -> int | str:
    """What the CG-iterations page says Algorithm 4 with ``label`` misses."""
    m = re.search(
        rf"{re.escape(label)}'s own soft labels miss (\d+) of the \d+ breakpoints?"
        rf"(?:, and Algorithm 4 with {re.escape(label)} \(its intervals, as on the loss "
        rf"page\) misses the same ones|; Algorithm 4 with {re.escape(label)} \(its intervals, "
        r"as on the loss page\) misses (\d+): ([^.]*))",
        text,
    )
    assert m, f"no comparison of {label} in: {text[:3000]}"
    own, other, why = m.groups()
    if other is None:
        return int(own)
    assert int(other) != int(own) or why  # a difference is always explained
    assert "anyway" in why or "did not find" in why, why
    return int(other)


@pytest.mark.slow
@pytest.mark.parametrize("solver", ["cg", "pcg"])
def test_misses_trust_and_t_needed_agree_across_pages(solver):
    view = VIEW | {"solver": solver}
    label = f"{solver.upper()}-20"
    loss = start(PAGES["loss"], view)
    assert not loss.exception and not loss.error
    loss_text = texts(loss)
    missed = int(metrics(loss)["missed"].replace(",", ""))
    assert re.search(rf"\b{missed} of \d+ true breakpoints missed|No true breakpoint", loss_text)

    cgi = start(PAGES["cg_iterations"], VIEW | {"solver": "cg"})
    assert not cgi.exception and not cgi.error
    cgi_text = texts(cgi)
    # misses at t: the CG-iterations page's Algorithm 4 count is the loss page's
    assert algorithm4_misses(cgi_text, label) == missed
    # t needed on the trust grid: the same grid, the same words
    grid = re.search(
        r"On the trust panel's grid \((on \d+ σ evenly spaced over \[[^\]]*\])", cgi_text
    )
    grid = grid.group(1)
    assert f"({grid})" in loss_text
    needed = re.search(
        r"the t that puts every node on its exact side is (up to t = \d+|more than t = \d+) "
        "for CG",
        cgi_text,
    ).group(1)
    assert needed == grid_needed(loss_text)

    cond = start(PAGES["conditioning"], view | {"families": "complete", "cond_solver": solver})
    assert not cond.exception and not cond.error
    # the trust boundary: the same sentence, grid included, on both pages
    assert trust_sentence(texts(cond), label) == trust_sentence(loss_text, label)


@pytest.mark.slow
def test_the_speed_pages_ratios_are_those_of_its_shown_times():
    at = start(PAGES["speed"], VIEW | {"sizes": "50,100", "speed_solvers": "cg,inverse"})
    assert not at.exception and not at.error
    text = texts(at)
    verdicts = re.findall(
        r"\*\*n = (\d+), (\w+) graph:\*\* (?:CG|inverse) faster \(([\d.]+) ms against "
        r"([\d.]+) ms, ×([\d.]+)\)",
        text,
    )
    assert verdicts, text
    table = at.dataframe[0].value
    for n, family, a, b, ratio in verdicts:
        assert ratio == f"{max(float(a), float(b)) / min(float(a), float(b)):.1f}"
        rows = table[(table[W["n"]] == int(n)) & (table[W["family"]] == family)]
        shown = {r[W["solver"]]: r[W["cpu_per_interval"]] for _, r in rows.iterrows()}
        assert (shown["cg"], shown["inverse"]) == (float(a), float(b))


def look_text(at) -> str:
    """The open tour's "Look at" paragraph, as the page shows it."""
    found = [m.value for m in at.markdown if "Look at" in m.value]
    assert found, texts(at)[:2000]
    return found[0]


@pytest.mark.slow
def test_the_two_cg_tours_give_one_count_for_one_question():
    """cg-misses (loss page) and cg-converges (CG-iterations page) show the same instance:
    the breakpoints Algorithm 4 with CG-20 misses are one number in both tours, and the
    second tour names CG-20's own count apart from it."""
    misses = start(PAGES["loss"], {"tour": "cg-misses"})
    converges = start(PAGES["cg_iterations"], {"tour": "cg-converges"})
    assert not misses.exception and not converges.exception
    first = re.search(r"Algorithm 4 with CG-20 misses (\d+|none|all \d+)", look_text(misses))
    second = re.search(
        r"CG's own soft labels miss (\d+) of the (\d+) true breakpoints and Algorithm 4 with "
        r"CG-20 \(the loss page\) misses (?:the same )?(\d+|none)",
        look_text(converges),
    )
    assert first and second, (look_text(misses), look_text(converges))
    assert first.group(1) == second.group(3)
    assert int(metrics(misses)["missed"].replace(",", "")) == int(second.group(3))
