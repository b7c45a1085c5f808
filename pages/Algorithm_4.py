"""Algorithm 4, step by step: a recorded sweep replayed as an animation (docs/method.md §6)."""

import streamlit as st

from sslviz import animation, costs
from ui import cache, caps, frame, player, progress, url, widgets

s = frame.page("Algorithm 4, step by step", stop_on_errors=False, many_classes=True)
st.markdown(
    "Algorithm 4 finds the constant-loss interval around a start **σ0**: every unlabeled node "
    "u iterates on g_u(σ) = (f_u(σ) − ½)² with the smaller of a gradient and a Newton step; a "
    "root right of σ0 lowers **σ_h**, one left of it raises **σ_l**, and a node whose iterate "
    "leaves the bracket [σ_l, σ_h] stops. The sweep then restarts at σ_h + step. Fast mode "
    "instead solves once per σ for all nodes, scans σ on a grid and refines every crossing "
    "of ½ with safeguarded Newton steps. Top: each dot is a node at its current σ and soft "
    "label f_u (blue below ½, red above); bottom: the true loss and the intervals found so far."
)
if not s.show_errors():
    st.stop()
spec, settings = s.spec, s.settings
lo, hi = s.sigma
many = len(cache.problem(spec).instance.classes) > 2
modes = player.CLASS_MODES if many else player.MODES
if many:
    st.caption(animation.PLAYER_CLASSES)
if not spec.gaussian:
    st.info(
        f"The {spec.graph_family.label} family has no Algorithm 4: its loss over r changes "
        "only at edge lengths and is computed exactly (see Loss intervals). Pick a Gaussian "
        "family."
    )
    st.stop()

# The replay follows the sidebar's mode until changed here (paper mode tells the per-node story).
opening = settings.mode if settings.mode in modes else modes[0]
if st.session_state.get("player_sidebar_mode") != settings.mode:
    st.session_state["player_sidebar_mode"] = settings.mode
    st.session_state["player_mode"] = opening
if st.session_state.get("player_mode") not in modes:
    st.session_state["player_mode"] = opening
url.carry("replay", "player_mode", modes, default=opening)  # in the link
mode = st.radio(
    "replay",
    modes,
    key="player_mode",
    horizontal=True,
    format_func=lambda m: f"{m} mode" + (" (sidebar)" if m == settings.mode else ""),
    help="Paper mode: each node's own iteration, side by side. Fast mode: shared solves, a "
    "σ grid and the crossing search.",
)
rs = player.replay_settings(settings, mode)
if caps.refuse(
    caps.over_cap(
        f"recording Algorithm 4 ({mode} mode)",
        lambda sp, a, b: costs.recording(sp, a, b, rs, s.suggested),
        spec,
        lo,
        hi,
    )
):
    st.stop()
try:
    with progress.progress(
        f"Recording Algorithm 4 ({mode} mode)…", key=("record", spec, lo, hi, rs)
    ) as tick:
        cache.truth(
            spec,
            lo,
            hi,
            _progress=cache.scaled(tick, 0.0, 0.3, f"the exact loss l(σ) on [{lo:g}, {hi:g}]: "),
        )
        player.record(spec, lo, hi, rs, progress=cache.scaled(tick, 0.3, 1.0))
    with progress.progress("Building the animation…", key=("animation", spec, lo, hi, rs)):
        v = player.view(spec, lo, hi, rs)
except (ValueError, TypeError, FileNotFoundError, MemoryError) as exc:
    st.error(widgets.readable(exc))
    st.stop()

thinned = (
    f"; {v['frames']} of them are frames (the slider's steps), the counter shows the real step"
    if v["frames"] < v["steps"]
    else ""
)
st.caption(
    f"{v['steps']} steps, {len(v['intervals'])} interval{'s' * (len(v['intervals']) != 1)}, "
    f"{v['solves']} solves{thinned}. "
    "▶ plays (1×, 2×, 4×), ■ pauses, ◀◀ goes back to the start; drag or click the slider to "
    "step back and forth. *One step at a time* shows every real step (◀ / ▶ or ← →)."
)
if settings.certify and mode == "paper":
    st.caption("Paper mode replays the uncertified iteration (the certified search is fast mode).")
VIEWS = ("play", "one step at a time")
url.carry("player", "player_view", VIEWS, default=VIEWS[0])  # the view and step: in the link
st.session_state.setdefault("player_view", VIEWS[0])
how = st.segmented_control(
    "view",
    VIEWS,
    key="player_view",
    help="Play: the animation (its slider jumps between recorded frames). One step at a "
    "time: every real step, with ◀ / ▶ (or the ← → keys) and a slider over all of them.",
)
if how == "one step at a time":
    n = v["steps"]
    url.carry("replay_step", "player_step")
    st.session_state["player_step"] = min(max(st.session_state.get("player_step", 1), 1), n)

    def _move(by: int) -> None:
        st.session_state["player_step"] = min(max(st.session_state["player_step"] + by, 1), n)

    c = st.columns([1, 8, 1], vertical_alignment="bottom")
    c[0].button(
        "◀ step",
        key="player_prev",
        shortcut="Left",
        on_click=_move,
        args=(-1,),
        disabled=st.session_state["player_step"] <= 1,
    )
    c[1].slider(f"step (1 to {n})", 1, max(n, 2), key="player_step", disabled=n < 2)
    c[2].button(
        "step ▶",
        key="player_next",
        shortcut="Right",
        on_click=_move,
        args=(1,),
        disabled=st.session_state["player_step"] >= n,
    )
    fig = player.step_figure(spec, lo, hi, rs, st.session_state["player_step"] - 1)
    widgets.chart(st, fig, key="player_step_chart")
else:
    url.forget("replay_step")
    widgets.chart(st, v["figure"], key="player_chart")
with st.expander(f"Event log ({v['steps']} steps; nodes are instance rows)"):
    widgets.table(st, v["table"])
    widgets.downloads("player", {"algorithm4_events.csv": v["table"].to_csv(index=False)})
