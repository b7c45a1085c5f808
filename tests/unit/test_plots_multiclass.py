"""Figures and the trust panel of more than two classes (docs/method.md §13): the class
palette (two classes keep their colours), the instance view in C colours, the C-score
drill-down and its winner bands, the multi-class trust curve against a direct computation."""

import numpy as np
import pytest

from sslviz import plots
from sslviz.class_trust import class_trust_curve, top_two_margin
from sslviz.plots.classes import margin_of, winner_bands
from sslviz.plots.style import CLASS_COLORS, COLORS, class_colors
from sslviz.problem import build_problem
from sslviz.specs import ProblemSpec


@pytest.fixture(scope="module")
def three():
    return build_problem(ProblemSpec(classes=(0, 1, 2), n=60, n_labeled=6))


def test_two_classes_keep_their_colours_and_more_take_the_palette():
    assert class_colors(2) == COLORS[:2] == ("#1f77b4", "#d62728")
    assert class_colors(10) == CLASS_COLORS and len(set(CLASS_COLORS)) == 10
    assert class_colors(3) == CLASS_COLORS[:3]
    with pytest.raises(ValueError, match="at most 10 classes"):
        class_colors(11)


def test_instance_view_draws_every_class_in_its_colour():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 2)), np.arange(40) % 4
    labeled = np.arange(40) < 8
    fig = plots.instance_figure(X, y, labeled, ["zero", "one", "two", "three"])
    assert [t.name for t in fig.data] == [
        f"{c} ({w})" for c in ("zero", "one", "two", "three") for w in ("unlabeled", "labeled")
    ]
    for k, t in enumerate(fig.data):
        c, lab = divmod(k, 2)
        assert t.marker.color == CLASS_COLORS[c]
        assert list(t.x) == X[(y == c) & (labeled == bool(lab)), 0].tolist()
    two = plots.instance_figure(X, y % 2, labeled)  # two classes: blue and red, as always
    assert [t.marker.color for t in two.data] == [COLORS[0]] * 2 + [COLORS[1]] * 2
    assert [t.name for t in two.data][0] == "class 0 (unlabeled)"


def test_winner_bands_against_the_grid():
    s = np.linspace(0.0, 1.0, 11)
    F = np.zeros((11, 3))
    F[:4, 2] = 1  # class 2 wins at s[0..3], class 0 at s[4..7], class 1 after
    F[4:8, 0] = 1
    F[8:, 1] = 1
    expected = [(0.0, 0.35, 2), (0.35, 0.75, 0), (0.75, 1.0, 1)]
    assert np.allclose(np.array(winner_bands(s, F)), np.array(expected), rtol=0, atol=1e-15)
    assert [b[2] for b in winner_bands(s, F)] == [2, 0, 1]
    # a band ends at a breakpoint of the node between the two grid σ (exact), else halfway
    snapped = winner_bands(s, F, breakpoints=[0.33, 0.9])
    assert np.allclose(np.array(snapped), [(0.0, 0.33, 2), (0.33, 0.75, 0), (0.75, 1.0, 1)])
    assert margin_of(F, 0).tolist() == [-1] * 4 + [1] * 4 + [-1] * 3


def test_drill_down_draws_the_c_scores_bands_and_breakpoints(three):
    inst, model = three.instance, three.model
    s = np.linspace(0.8, 3.0, 40)
    exact = np.array([sc.F[5] for sc in model.scores(s, inst.y, 3, derivative=False)])
    cg = np.array(
        [sc.F[5] for sc in model.scores(s, inst.y, 3, solver="cg", cg_iters=3, derivative=False)]
    )
    own = inst.classes[int(three.y_unlabeled[5])]
    fig = plots.class_scores_figure(
        s,
        exact,
        F=cg,
        label="CG-3",
        u="row 9",
        classes=inst.classes,
        true_class=own,
        breakpoints=[1.5],
    )
    names = [t.name for t in fig.data]
    assert names[:3] == [f"class {c}" + " (true class)" * (c == own) for c in inst.classes]
    assert names[3:6] == [f"class {c}, CG-3" for c in inst.classes]
    for c in range(3):
        assert list(fig.data[c].y) == exact[:, c].tolist()
        assert list(fig.data[3 + c].y) == cg[:, c].tolist()
        assert fig.data[c].line.color == fig.data[3 + c].line.color == CLASS_COLORS[c]
    m = next(t for t in fig.data if t.name == "margin m, exact")
    assert list(m.y) == pytest.approx(margin_of(exact, inst.classes.index(own)).tolist())
    assert "true breakpoint" in names and "dashed: CG-3" in names
    bands = winner_bands(s, exact, [1.5])
    rects = [sh for sh in fig.layout.shapes if sh.type == "rect"]
    assert [(r.x0, r.x1) for r in rects] == [(lo, hi) for lo, hi, _ in bands]
    exact_only = plots.class_scores_figure(
        s, exact, F=exact, label="exact", u="row 9", classes=inst.classes, true_class=own
    )
    assert not [t for t in exact_only.data if (t.name or "").endswith(", exact")][1:]
    words = plots.winners_text(
        {"sigma": s, "F_exact": exact, "classes": inst.classes, "true_class": own}, [1.5]
    )
    assert words.count("class ") >= len(bands) and "σ ≈ 1.5." in words


def test_class_trust_curve_against_a_direct_computation(three):
    inst, model = three.instance, three.model
    sig = np.linspace(0.7, 3.5, 6)
    tc = class_trust_curve(model, inst.y, inst.classes, sig, cg_iters=5, t_max=64)
    assert tc.classes == inst.classes and tc.label == "CG-5"
    for i, x in enumerate(sig):
        (ex,) = model.scores([x], inst.y, 3, derivative=False)
        keep = ~ex.degenerate
        want = np.argmax(ex.F, axis=1)[keep]

        def at(t, solver="cg", x=x):
            (sc,) = model.scores([x], inst.y, 3, solver=solver, cg_iters=t, derivative=False)
            return sc

        ap = at(5)
        assert tc.error[i] == np.max(np.abs(ap.F - ex.F)[keep])
        part = np.sort(ex.F[keep], axis=1)
        assert tc.margin[i] == pytest.approx(0.5 * np.min(part[:, -1] - part[:, -2]), rel=1e-14)
        assert tc.wrong[i] == np.sum(np.argmax(ap.F, axis=1)[keep] != want)
        for solver, need in (("cg", tc.t_needed_cg[i]), ("pcg", tc.t_needed_pcg[i])):
            ok = [bool(np.all(np.argmax(at(t, solver).F, axis=1)[keep] == want)) for t in (1, 2)]
            if need <= 64:  # right at the t needed and not one before
                assert np.all(np.argmax(at(int(need), solver).F, axis=1)[keep] == want)
                assert need == 1 or not np.all(
                    np.argmax(at(int(need) - 1, solver).F, axis=1)[keep] == want
                )
            assert (need == 1) == ok[0]
    assert np.array_equal(tc.may_flip, tc.error >= tc.margin)
    assert top_two_margin(np.array([[0.2, 0.5, 0.3]])) == pytest.approx([0.2])
