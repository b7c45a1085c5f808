"""Speed: Table 1 live — time per interval for CG vs matrix inverse, complete vs kNN."""

from typing import Any

import streamlit as st

from sslviz import costs, export, measure, plots, speed, tours
from sslviz.cli import command_line
from sslviz.specs import SigmaRange
from ui import cache, caps, frame, presenter, progress, widgets
from ui.views import SpeedGrid

s = frame.page(
    "Speed: CG vs matrix inverse (Table 1)",
    "Time per estimated interval and the number of intervals M, for t-iteration CG and the "
    "matrix inverse, on the complete and the kNN graph, at sizes you pick, with the work "
    "each one took (products, factorisations, flops). Uses the sidebar's instance, σ range "
    "and Algorithm 4 mode; each configuration is cached.",
)
spec, settings = s.spec, s.settings
lo, hi = s.sigma
cap = min(caps.MAX_N, 1000)
c = st.columns(3)
widgets.widget(c[0], SpeedGrid, "sizes", help=f"Instance sizes n to time (≤ {cap} here).")
widgets.widget(c[1], SpeedGrid, "families")
widgets.widget(c[2], SpeedGrid, "solvers")
try:
    grid = widgets.controls(SpeedGrid)
except (ValueError, TypeError):
    st.info("Pick at least one size, graph and solver.")
    st.stop()
configs = [
    (n, f, sv) for n in sorted(grid.sizes) for f in grid.families for sv in grid.solvers if n <= cap
]
key = (spec, lo, hi, settings, grid)


def time_configs(todo: list[tuple], pressed: bool = False) -> tuple[Any, tuple]:
    """Time the configurations ``todo`` (each cached: a revisit is instant), the chart
    drawn again as each one arrives (:func:`ui.progress.streamed`); returns the chart's
    place and ``(rows, command lines, configurations not timed, how many were tried)``."""

    def row(i: int, config: tuple, tick) -> tuple | None:
        """One configuration's ``(row, command line)``, None when it is not timed here."""
        n, fam, sv = config
        what = f"{speed.config_words(config)}: "
        tick(i / len(todo), what)
        try:
            spec_i = cache.speed_spec(spec, n, fam)
            settings_i = settings.with_solver(sv)
            errors = caps.cap_errors(spec_i)
            if errors:
                st.error(f"n = {n}, {fam}: " + " ".join(errors))
                return None
            over = caps.over_cap(
                speed.config_words(config),
                lambda sp, a, b, st_=settings_i: costs.speed_config(sp, a, b, st_, s.suggested),
                spec_i,
                lo,
                hi,
            )
            if caps.refuse(over):
                return None
            timed = cache.speed_row(
                spec_i,
                lo,
                hi,
                settings_i,
                _progress=cache.scaled(tick, i / len(todo), (i + 1) / len(todo), what),
            )
        except (ValueError, TypeError, FileNotFoundError) as exc:
            st.error(f"n = {n}, {fam}, {sv}: {exc}")
            return None
        line = command_line(
            "intervals",
            spec_i,
            SigmaRange(lo, hi),
            settings_i,
            out=f"speed_{n}_{fam}_{sv}.json",
            timings=True,
        )
        return {"config": f"{fam} / {sv}", **timed}, line

    place, part = progress.streamed(
        f"Timing {len(todo)} configurations…",
        lambda tick: cache.speed_stream(("speed", key), todo, lambda i, c: row(i, c, tick)),
        key=("speed", key),
        restart=pressed,
        kept=lambda: cache.SPEED_PARTS.get(("speed", key)),
        figure=lambda p: (  # nothing before a first configuration is timed
            cache.titled(plots.speed_figure([r for r, _ in p.rows]), p.status()) if p.rows else None
        ),
        chart_key="speed_chart",
    )
    rows = [r for r, _ in part.rows]
    lines = [line for _, line in part.rows]
    return place, (rows, lines, [speed.config_words(c) for c in part.skipped], len(todo))


stored = st.session_state.get("speed_result")
place = None  # the chart's place, where it grows while the configurations arrive
todo = None
if st.button(f"Run {len(configs)} configurations", key="speed_run", type="primary"):
    todo, pressed = configs, True
elif progress.pending(("speed", key)):  # stopped, or its Run pressed
    todo, pressed = configs, False
elif stored is None and configs:  # first visit: time a small grid by itself
    todo, pressed = cache.speed_autorun(configs, settings, spec, (lo, hi), s.suggested), False
if todo is not None:
    place, result = time_configs(todo, pressed)
    st.session_state["speed_result"] = (key, *result)
stored = st.session_state.get("speed_result")
if not stored or not stored[1]:
    st.info("Press the button to time the configurations.")
    st.stop()
if stored[0] != key:
    st.warning("The settings changed since this run; press the button to rerun.")
rows, lines = stored[1], stored[2]
skipped, tried = stored[3], stored[4]
if stored[0] == key and len(rows) < len(configs):
    st.info(
        f"Timed {len(rows)} of the {len(configs)} configurations"
        + (" by themselves (the cheapest)" if tried < len(configs) else "")
        + (f"; not timed here: {', '.join(skipped)}" if skipped else "")
        + ("; press the button for the full grid." if tried < len(configs) else ".")
    )
presenter.tour_facts(tours.speed_facts(rows))
if settings.certify and set(grid.solvers) - {"cg", "pcg"}:
    st.info(
        "Certify proves the sides of iterative solves: it applies to the CG and PCG rows; "
        "the exact and inverse rows are exact already and run as they are."
    )
if place is None:
    widgets.chart(st, plots.speed_figure(rows), key="speed_chart")
else:
    place.draw(lambda: plots.speed_figure(rows), key="speed_chart", last=True)
for (n, fam), text in measure.speed_verdicts(rows).items():
    st.markdown(f"**n = {n}, {fam} graph:** {text} per interval.")
busy = max((r.get("busy", 0) for r in rows), default=0)
st.caption(
    "What is timed: the whole Algorithm 4 sweep of each configuration, repeated "
    f"({cache.TIMING_RUNS} runs, fewer when they would take over "
    f"{cache.SPEED_BUDGET:g} s), keeping the **minimum CPU time** of the "
    "computing thread — waiting for a core while others compute is not counted, so the "
    "figures and the verdict hold on a busy server; a verdict is given only when the two "
    "differ by more than the noise (the spread of the repeats, at least 15 %). The work "
    "counts do not depend on the machine at all. "
    + (
        f"Taken while up to {busy} other computation{'s' * (busy != 1)} ran on this server."
        if busy
        else "Taken with no other computation running on this server."
    )
)
for r in rows:
    st.caption(
        f"{r['config']}, n = {r['n']}: "
        + measure.describe_work(r, per=r["M"], unit="per interval")
        + "."
    )
df = export.speed_frame(rows)
widgets.table(st, df)
widgets.downloads("speed", {"speed.csv": df.to_csv(index=False), "speed.json": export.dumps(rows)})
widgets.commands(*lines)
