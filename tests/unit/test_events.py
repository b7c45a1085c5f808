"""Issue 11: the event log of a sweep (``sweep(..., record=True)``), progress callbacks, and
the player figure built from the log (sslviz.animation)."""

import math
import re
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest
from instances import two_clouds
from reference import plotly_json, validated_json

from sslviz.animation import KEY_KINDS, event_rows, frame_steps, player_figure
from sslviz.intervals import EVENT_KINDS, Event, sweep
from sslviz.specs import SweepSettings
from sslviz.truth import true_loss_curve

LO, HI = 0.6, 6.0
PAPER = ("start", "step", "bracket", "interval")
FAST = ("grid", "split", "degenerate", "refine", "breakpoint", "interval")


def _problem(seed=0, n=60, family="knn", labeling="harmonic"):
    return two_clouds(seed, n, family, labeling, subset=20)


def _same(ivs):
    """Intervals without their measured wall time (everything else must match exactly)."""
    return [replace(iv, seconds=0.0) for iv in ivs]


@pytest.fixture(scope="module")
def harmonic():
    return _problem(3)


@pytest.fixture(
    scope="module", params=[pytest.param("paper", marks=pytest.mark.slow), "fast"]
)  # paper mode: a sweep over 1.5 s, outside the quick run
def recorded(request, harmonic):
    model, y_u = harmonic
    s = SweepSettings(mode=request.param)
    return model, y_u, s, sweep(model, y_u, LO, HI, s), sweep(model, y_u, LO, HI, s, record=True)


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_recording_changes_nothing(recorded):
    _, _, _, plain, rec = recorded
    assert plain.events is None
    assert _same(rec.intervals) == _same(plain.intervals)
    assert [iv.lo for iv in rec.intervals] == [iv.lo for iv in plain.intervals]  # bit for bit
    assert (rec.solves, rec.matvecs) == (plain.solves, plain.matvecs)
    assert len(rec.intervals) > 1


@pytest.mark.slow  # over 1.5 s: outside the quick run
@pytest.mark.parametrize("labeling", ["harmonic", "delalleau"])
@pytest.mark.parametrize("mode", ["paper", "fast"])
def test_recording_changes_nothing_other_models(labeling, mode):
    """Complete graph (paper mode: one node at a time) and Delalleau's model."""
    model, y_u = _problem(
        4, n=30, family="complete" if labeling == "harmonic" else "knn", labeling=labeling
    )
    s = SweepSettings(mode=mode, max_iter=30)  # small: these models run one node at a time
    plain = sweep(model, y_u, 1.0, 3.0, s)
    rec = sweep(model, y_u, 1.0, 3.0, s, record=True)
    assert _same(rec.intervals) == _same(plain.intervals)
    assert rec.events and {e.kind for e in rec.events} <= set(PAPER if mode == "paper" else FAST)


def test_log_ends_with_the_sweeps_intervals(recorded):
    _, _, s, _, rec = recorded
    ev = rec.events
    assert [e.step for e in ev] == list(range(len(ev)))
    assert {e.kind for e in ev} <= set(EVENT_KINDS)
    assert [e.interval for e in ev if e.kind == "interval"] == rec.intervals  # same objects
    assert ev[-1].kind == "interval" and ev[-1].interval == rec.intervals[-1]
    if s.mode == "paper":
        # every interval's search starts, runs and ends with that interval's bracket
        starts = [e for e in ev if e.kind == "start"]
        assert [e.sigma0 for e in starts] == [iv.sigma0 for iv in rec.intervals]
        assert all(e.bracket == (LO, HI) for e in starts)
    else:
        # every interior endpoint is a crossing the search located
        found = {e.at for e in ev if e.kind == "breakpoint"}
        ends = {iv.lo for iv in rec.intervals[1:]}
        assert ends <= found


@pytest.mark.slow  # a paper-mode sweep, over 1.5 s: outside the quick run
@pytest.mark.parametrize("recorded", ["paper"], indirect=True)
def test_paper_brackets_only_shrink_and_captions_name_nodes_and_values(recorded, harmonic):
    model, _, s, _, rec = recorded
    assert s.mode == "paper"
    n_u = model.n_unlabeled
    rows = [1000 + u for u in range(n_u)]
    brackets = 0
    for e in rec.events:
        assert all(0 <= u < n_u for u in e.names)
        for u in e.names:
            assert f"node {u}" in e.caption and f"row {1000 + u}" in e.describe(rows)
        assert e.nodes.shape == e.sigma.shape == e.f.shape == e.g.shape
        if e.kind in ("step", "bracket"):
            assert f"bracket [{e.bracket[0]:.4g}, {e.bracket[1]:.4g}]" in e.caption
        if e.kind == "bracket":
            brackets += 1
            prev = rec.events[e.step - 1]
            lo0, hi0 = prev.bracket
            assert lo0 <= e.bracket[0] and e.bracket[1] <= hi0 and e.bracket != prev.bracket
            # the node whose root moved the bracket is named, with the new end(s)
            assert e.node >= 0 and f"node {e.node}" in e.caption
            if e.bracket[1] < hi0:
                assert f"lowers σ_h to {e.bracket[1]:.4g}" in e.caption
            if e.bracket[0] > lo0:
                assert f"raises σ_l to {e.bracket[0]:.4g}" in e.caption
            assert e.at in e.bracket
    assert brackets > 0
    for e, iv in zip([e for e in rec.events if e.kind == "interval"], rec.intervals, strict=True):
        prev = rec.events[e.step - 1]
        assert prev.bracket == (iv.lo, iv.hi) == e.bracket
        for side, u in (("σ_l", iv.lo_node), ("σ_h", iv.hi_node)):
            assert (f"{side} set by node {u}" if u >= 0 else f"{side} by the range end") in (
                e.caption
            )


@pytest.mark.parametrize("recorded", ["fast"], indirect=True)
def test_fast_refine_steps_stay_in_their_bracket(recorded):
    _, _, s, _, rec = recorded
    assert s.mode == "fast"
    kinds = {e.kind for e in rec.events}
    assert {"grid", "refine", "breakpoint"} <= kinds
    for e in rec.events:
        if e.kind == "refine":
            a, b = e.bracket
            assert a <= e.at <= b and e.node in set(e.nodes.tolist())
            assert f"node {e.node}'s crossing" in e.caption and f"{e.at:.4g}" in e.caption
        elif e.kind == "grid":
            assert math.isnan(e.sigma0) and 0.0 <= e.loss <= 1.0
            assert (np.abs(e.f - 0.5)[:-1] <= np.abs(e.f - 0.5)[1:] + 1e-15).all()


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_events_are_frozen(recorded):
    e = recorded[-1].events[0]
    with pytest.raises(AttributeError):
        e.kind = "x"
    with pytest.raises(ValueError):
        e.f[0] = 0.0


# -- progress -------------------------------------------------------------------------------


def _calls():
    calls = []
    return calls, lambda frac, msg: calls.append((frac, msg))


def _monotone(calls):
    fr = [c[0] for c in calls]
    assert fr and all(0.0 <= f <= 1.0 for f in fr)
    assert all(a <= b for a, b in zip(fr[:-1], fr[1:], strict=True)), fr
    assert fr[0] == 0.0 and fr[-1] == 1.0
    assert all(isinstance(m, str) and m for _, m in calls)


def test_true_loss_curve_progress(harmonic):
    model, y_u = harmonic
    calls, cb = _calls()
    plain = true_loss_curve(model, y_u, LO, HI)
    with_cb = true_loss_curve(model, y_u, LO, HI, progress=cb)
    _monotone(calls)
    assert len(calls) >= 3
    assert "evaluated" in calls[-1][1] and "breakpoints" in calls[-1][1]
    assert f"{with_cb.breakpoints.size} breakpoints" in calls[-1][1]
    assert np.array_equal(plain.breakpoints, with_cb.breakpoints)
    assert np.array_equal(plain.evaluations, with_cb.evaluations)
    assert np.array_equal(plain.loss.values, with_cb.loss.values)


@pytest.mark.slow  # over 1.5 s: outside the quick run
@pytest.mark.parametrize("mode", ["paper", "fast"])
def test_sweep_progress_in_both_modes(harmonic, mode):
    model, y_u = harmonic
    s = SweepSettings(mode=mode)
    calls, cb = _calls()
    plain = sweep(model, y_u, LO, HI, s)
    res = sweep(model, y_u, LO, HI, s, progress=cb, record=True)
    _monotone(calls)
    assert _same(res.intervals) == _same(plain.intervals)


def test_sslviz_never_imports_streamlit():
    code = (
        "import sys, sslviz.animation, sslviz.intervals, sslviz.truth; "
        "assert 'streamlit' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# -- frames of the player ---------------------------------------------------------------------


class _E:  # the two attributes frame_steps reads
    def __init__(self, kind):
        self.kind = kind


@pytest.mark.parametrize("n", [1, 2, 50, 151, 1000, 30000])
def test_frame_thinning_keeps_ends_and_key_events(n):
    rng = np.random.default_rng(n)
    events = [_E("bracket" if rng.random() < 0.02 else "step") for _ in range(n)]
    keep = frame_steps(events, 150)
    assert keep == sorted(set(keep)) and len(keep) <= 150
    assert keep[0] == 0 and keep[-1] == n - 1
    if n <= 150:
        assert keep == list(range(n))
    key = [i for i, e in enumerate(events) if e.kind in KEY_KINDS]
    if 0 < len(key) <= 70:  # key events fit in half the budget: all kept
        assert set(key) <= set(keep)
    with pytest.raises(ValueError, match="max_frames"):
        frame_steps(events, 1)


def _trace(fig_or_frame, name, names):
    return fig_or_frame.data[names.index(name)]


def test_player_figure_frames_counters_and_final_intervals(recorded):
    model, y_u, s, _, rec = recorded
    truth = true_loss_curve(model, y_u, LO, HI)
    rows = list(range(500, 500 + model.n_unlabeled))
    fig = player_figure(rec.events, (LO, HI), truth=truth, rows=rows, max_frames=40)
    n = len(rec.events)
    assert 2 <= len(fig.frames) <= 40
    names = [t.name for t in fig.data]
    assert names[0] == "true loss l(σ)"
    animated = names[1:]
    steps = [int(f.name[1:]) for f in fig.frames]
    assert steps[0] == 0 and steps[-1] == n - 1
    for f, k in zip(fig.frames, steps, strict=True):
        e = rec.events[k]
        assert f.layout.annotations[0].text.startswith(f"<b>step {k + 1} / {n}</b>")
        cap = f.layout.annotations[1].text.replace("<br>", " ")
        assert not re.search(r"node \d", cap)  # nodes are named by row
        assert cap.rstrip(" …").split(" …")[0][:40] == e.describe(rows)[:40]
    assert [st.label for st in fig.layout.sliders[0].steps] == [str(k + 1) for k in steps]
    last = fig.frames[-1].data[animated.index("intervals found")]
    want_x = [x for iv in rec.intervals for x in (iv.lo, iv.hi, None)]
    want_y = [y for iv in rec.intervals for y in (iv.loss, iv.loss, None)]
    assert list(last.x) == want_x and list(last.y) == want_y
    first = fig.frames[0].data[animated.index("intervals found")]
    assert list(first.x) == [None]  # nothing found before the first step
    labels = [b.label for b in fig.layout.updatemenus[0].buttons]
    assert labels[:3] == ["▶ 1×", "▶ 2×", "▶ 4×"] and "■ pause" in labels


def test_event_rows_use_instance_rows(recorded):
    model, _, _, _, rec = recorded
    rows = list(range(700, 700 + model.n_unlabeled))
    table = event_rows(rec.events, rows)
    assert len(table) == len(rec.events)
    assert [r["step"] for r in table] == [e.step + 1 for e in rec.events]
    for r, e in zip(table, rec.events, strict=True):
        assert r["node"] == (rows[e.node] if e.node >= 0 else None)
        assert r["caption"] == e.describe(rows)


def test_player_figures_are_what_plotly_validates(recorded):
    """The player's figure and its single-step figure, built with frames as dicts never
    validated: the same JSON once Plotly validates it, as a dict and as a Figure."""
    model, y_u, _, _, rec = recorded
    truth = true_loss_curve(model, y_u, LO, HI)
    for at_step in (None, 3):
        args = dict(truth=truth, rows=list(range(model.n_unlabeled)), at_step=at_step)
        d = player_figure(rec.events, (LO, HI), as_dict=True, max_frames=30, **args)
        fig = player_figure(rec.events, (LO, HI), max_frames=30, **args)
        assert plotly_json(d) == validated_json(d) == plotly_json(fig)
        frames = len(d.get("frames", []))
        assert frames == len(fig.frames) and (frames == 0 if at_step else 2 <= frames <= 30)


def test_player_figure_needs_events():
    with pytest.raises(ValueError, match="empty"):
        player_figure([], (LO, HI))


def test_event_describe_placeholders():
    e = Event(
        0,
        "step",
        1.0,
        (1.0, 2.0),
        np.zeros(0, int),
        np.zeros(0),
        np.zeros(0),
        text="{0}'s root lowers σ_h to 1.5; {1} stalled",
        names=(3, 7),
    )
    assert e.caption == "node 3's root lowers σ_h to 1.5; node 7 stalled"
    assert e.describe([10, 11, 12, 13, 14, 15, 16, 17]) == (
        "row 13's root lowers σ_h to 1.5; row 17 stalled"
    )
