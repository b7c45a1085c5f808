"""Controls, charts and outputs, drawn the same way on every page.

Every control is drawn by :func:`widget` from its row in a settings table of
``sslviz.specs`` (label, bounds, options, help), so the app, the CLI and the URL share one
default, one bound and one help text per setting. Every chart goes through :func:`chart`,
so presenter mode enlarges them in one place.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

# Imported here, whole, before any session builds a figure: Plotly looks pandas up in
# sys.modules without importing it, and under load one session's figure could find it
# half-imported by another session's thread ("partially initialized module 'pandas' has
# no attribute 'Series'", seen by benchmarks/load_test.py).
import numpy as np
import pandas  # noqa: F401
import plotly.graph_objects as go
import streamlit as st

from sslviz import export, registry
from sslviz import specs as S
from sslviz._validation import in_range, rule_text, value_text
from ui import caps, plotly_element, presenter, url, views

METRIC_HELP = {
    "ε-volume": "Total σ length where the estimated loss differs from the true loss "
    "(Definition 4; uncovered σ counts too).",
    "spurious endpoints": "Estimated endpoints with no true breakpoint within 10⁻³.",
    "solves": "Linear systems solved (each CG solve runs t matrix-vector products).",
    "time per interval": "CPU time of the whole sweep divided by M: the minimum over a few "
    "runs, so it does not depend on what else the server is doing.",
}


BOUND_ERRORS = "bound_errors"
"""Session key: URL key → what is wrong with the value in its box, for the boxes drawn in
this run (:func:`bound_errors`)."""


def start_run() -> None:
    """Forget the last run's box errors (the sidebar calls it first in every run)."""
    st.session_state[BOUND_ERRORS] = {}


def bound_errors(cls: type | None = None) -> list[str]:
    """The messages of this run's boxes whose value is out of bounds (those of ``cls``'s
    settings only, when given), each also shown beside its box."""
    errors = st.session_state.get(BOUND_ERRORS, {})
    keys = None if cls is None else {row.url for _, row in S.table(cls)}
    return [m for k, m in errors.items() if keys is None or k in keys]


def out_of_bounds(
    row: S.Setting, name: str, value: Any, label: str, cap: Any = None, why: str | None = None
) -> str | None:
    """What is wrong with a number ``value`` of setting ``name``, one line in words, or None:
    its rule, and this server's ``cap`` on it (``why``: the reason of the cap, e.g. "the
    size of the pool of classes 2 and 3"). The tightest bound broken is the one named."""
    rule = row.rule.rule if isinstance(row.rule, S.Optional) else row.rule
    if value is None or not isinstance(rule, S.Int | S.Float) or isinstance(value, bool):
        return None
    integer = isinstance(rule, S.Int)
    closed = "both" if integer else rule.closed
    capped = cap is not None and (rule.high is None or cap < rule.high)
    high = cap if capped else rule.high
    if capped and closed in ("left", "neither"):  # the cap itself is allowed
        closed = {"left": "both", "neither": "right"}[closed]
    if in_range(float(value), rule.low, high, closed, integer):
        return None
    reason = ", " + (why or "this server's cap") if capped else ""
    return (
        f"{label} must be {rule_text(rule.low, high, closed, integer=integer)}{reason}, "
        f"not {value_text(value)}."
    )


def _fit(value: Any, options: list | None, rule: S.Rule) -> Any:
    """``value`` made acceptable to its widget: among the options (a number stays as typed,
    out of bounds or not: :func:`out_of_bounds` says what is wrong with it)."""
    if options is not None:
        if isinstance(rule, S.Tuple):
            return [v for v in value if v in options]
        return value if value in options else options[0]
    return list(value) if isinstance(value, tuple) else value


def widget(
    container: Any,
    cls: type,
    name: str,
    *,
    options: list | None = None,
    label: str | None = None,
    radio: bool = False,
    empty_ok: bool = False,
    high: Any = None,
    why: str | None = None,
    note: Any = None,
    **kwargs: Any,
) -> Any:
    """Draw the control of setting ``name`` of ``cls`` in ``container`` and return its value.

    Label, bounds, options and help come from the setting's row; ``options`` overrides the
    row's options (e.g. the classes of the loaded dataset); ``kwargs`` go to the widget
    (``disabled``, ``format_func``, ``step``, ``on_change``...). ``empty_ok``: a number box
    of an optional setting may be emptied (None, the row's "auto" meaning); otherwise it is
    empty only until the app fills it. ``high`` replaces this server's cap on the value
    (:data:`CAPS`; the large option's n), ``why`` says what it is ("the size of the pool
    of classes 2 and 3"). ``note``: where the reason of a value out of bounds is drawn
    (default: under the box; the sidebar's pairs of boxes: under the pair, full width).

    A number box takes any number: one out of its bounds (the rule's, or the cap) is kept
    as typed, and the reason is shown under the box in the same run and kept for
    :func:`bound_errors` (the sidebar's errors stop the page; :func:`controls` stops it for a
    page's own settings), so no result of other settings stays on screen.

    In presenter mode on a tour's page, a control the tour does not use is not drawn (its
    value is returned as if it were), and the tour's sidebar controls are drawn on the page.
    """
    row = S.setting(cls, name)
    cfg = url.session_cfg()
    if row.url not in url.ROWS:  # a table the app did not know at start: read its link value
        url.ROWS[row.url] = row
        values, warns = S.from_query(cls, dict(st.query_params))
        if name in values:
            cfg[row.url] = values[name]
        for w in warns:
            st.warning(w)
    key = f"w_{row.url}"
    rule = row.rule.rule if isinstance(row.rule, S.Optional) else row.rule
    cap = caps.CAPS.get(row.url) if high is None else high
    if options is None and isinstance(rule, S.Choice | S.Tuple) and rule.options:
        options = list(rule.options)
    text = label or row.label or name
    errors = st.session_state.setdefault(BOUND_ERRORS, {})
    errors.pop(row.url, None)
    placed = presenter.placement(container, row.url)
    note = note if note is not None and placed is container else placed
    container = placed
    if container is None:  # presenter mode: a control the tour does not use (not drawn)
        value = st.session_state[key] if key in st.session_state else cfg.get(row.url, row.default)
        if value is None:  # what the empty widget returns: no items, its first option, None
            out = () if isinstance(rule, S.Tuple) else options[0] if options else None
        else:
            value = _fit(value, options, rule) if options is None or options else value
            out = tuple(value) if isinstance(rule, S.Tuple) else value
        cfg[row.url] = out
        if (wrong := out_of_bounds(row, name, out, text, cap, why)) is not None:
            errors[row.url] = wrong
        return out
    # The widget's own state is the latest choice (changed in this run, or this control on
    # the page just left: widget ids include the page, so a switch starts the widget anew);
    # re-seed it every run so a page switch keeps the value instead of the widget default.
    value = st.session_state[key] if key in st.session_state else cfg.get(row.url, row.default)
    if value is not None:
        st.session_state[key] = _fit(value, options, rule)
    step = kwargs.pop("step", None)
    args = {"key": key, "help": row.help, **kwargs}
    if (
        isinstance(row.rule, S.Optional)
        and isinstance(rule, S.Int | S.Float)
        and options is None
        and (empty_ok or value is None)
    ):
        # an empty box means the row's None (e.g. λ = auto), not the widget's minimum; with
        # value=None as its default the box can be emptied again (its state is seeded above)
        args |= {"value": None, "placeholder": f"auto: {row.rule.none_means}"}
    if isinstance(rule, S.Tuple):
        out = tuple(container.multiselect(text, options, **args))
    elif isinstance(rule, S.Choice) or options is not None:
        pick = container.radio if radio else container.selectbox
        out = pick(text, options, **({"horizontal": True} if radio else {}), **args)
    elif isinstance(rule, S.Flag):
        out = container.checkbox(text, **args)
    elif isinstance(rule, S.Text):  # an optional text: empty means the row's None
        none = row.rule.none_means if isinstance(row.rule, S.Optional) else ""
        out = container.text_input(text, placeholder=none, **args).strip() or None
    elif isinstance(rule, S.Float):  # no min or max: the browser would refuse silently
        out = container.number_input(text, format=rule.fmt, step=step, **args)
    else:  # an int step keeps the box an int box
        out = container.number_input(text, step=step or 1, **args)
    cfg[row.url] = out
    if (wrong := out_of_bounds(row, name, out, text, cap, why)) is not None:
        errors[row.url] = wrong
        note.error(wrong, icon=":material/error:")
    return out


def more_controls(container: Any, cls: type, *drawn: str) -> None:
    """Draw, in table order, every setting of ``cls`` that has a URL key and is not among
    ``drawn`` (so a setting added to a table gets its control without an edit here)."""
    for name, row in S.table(cls):
        if row.url and name not in drawn:
            widget(container, cls, name, empty_ok=True)


def controls(cls: type, **overrides: Any):
    """The page spec ``cls`` built from the current settings (after its widgets are drawn),
    and the URL updated with them. A box of ``cls`` out of its bounds (its reason is under
    it) stops the page: nothing is drawn from other settings."""
    cfg = url.session_cfg()
    url.sync_url()
    if bound_errors(cls):
        st.stop()
    return url.spec_from_cfg(cls, cfg, **overrides)


def chart(
    container: Any,
    fig: Any,
    *,
    key: str,
    on_click: Callable[[list[Mapping]], None] | None = None,
) -> Any:
    """Draw a Plotly figure, or a figure's dict (:func:`ui.cache.figure`), drawn as it is,
    as the chart keyed ``key`` (:func:`ui.plotly_element.draw`: redrawn in place by a later
    run; ``on_click(points)`` on a point click). Every page's charts go through here, so
    presenter mode can enlarge them in one place. A tour's first chart goes on its stage
    (:func:`ui.presenter.chart_place`). In presenter mode the figure is drawn taller with
    larger fonts (:func:`ui.presenter.scale_figure`); on the stage, as tall as the stage
    leaves it (:func:`ui.presenter.stage_figure`)."""
    container, staged = presenter.chart_place(container)
    return placed_chart(container, fig, key=key, staged=staged, on_click=on_click)


def placed_chart(
    container: Any,
    fig: Any,
    *,
    key: str,
    staged: bool,
    slot: str | None = None,
    on_click: Callable[[list[Mapping]], None] | None = None,
) -> Any:
    """:func:`chart` in a place :func:`ui.presenter.chart_place` gave (``staged``: the
    stage), as it is (:class:`ui.progress.growing` draws its parts there, each part's key
    of the ``slot`` of its finished chart: :func:`ui.plotly_element.draw`)."""
    scaled = url.session_cfg().get("present")
    if (scaled or staged) and isinstance(fig, dict):  # changed below: a Figure
        fig = go.Figure(fig, _validate=False)
    if staged:
        fig = presenter.stage_figure(fig)
    elif scaled:
        fig = presenter.scale_figure(fig)
    return plotly_element.draw(
        container, fig, key=key, slot=slot, stretch=staged, on_click=on_click
    )


def metrics(values: dict) -> None:
    """A row of ``st.metric`` (label → value), with help for the paper's terms; counts are
    written with thousands separators (3,575), as in the verdict above them."""
    for col, (label, value) in zip(st.columns(len(values)), values.items(), strict=True):
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            value = f"{value:,}"
        col.metric(label, value, help=METRIC_HELP.get(label))


def table(container: Any, frame: Any, **kwargs: Any) -> Any:
    """Draw ``frame`` (a frame of ``sslviz.export``, or the player's event log) as a person
    reads it: :func:`sslviz.export.shown_frame` (headers and causes in words, no duplicated
    or empty column), without the index, a missing number as an empty cell; ``kwargs`` go
    to ``dataframe`` (``column_config``...). Every page's tables go through here."""
    shown = export.shown_frame(frame)
    return container.dataframe(shown, hide_index=True, placeholder="", **kwargs)


def downloads(prefix: str, files: dict[str, str]) -> None:
    """One download button per ``{file name: text}`` (CSV or JSON by extension). A click
    downloads the file and does not rerun the page: nothing is recomputed (with the rerun a
    click started, one download on a busy server was canceled in ``benchmarks/load_test.py``)."""
    for col, (name, text) in zip(st.columns(len(files)), files.items(), strict=True):
        mime = "application/json" if name.endswith(".json") else "text/csv"
        col.download_button(name, text, name, mime, key=f"{prefix}_dl_{name}", on_click="ignore")


def plugin_warnings(container: Any, *, short: bool = False) -> None:
    """Each plug-in left out (:func:`sslviz.registry.problems`: one that fails to import,
    fails its check or takes a name already taken), as a warning in ``container``; with
    ``short``, one warning naming them all (under the sidebar's pickers, where the home
    page's say why)."""
    names = registry.left_out()
    if short and names:
        which = ", ".join(f"'{n}'" for n in names)
        container.warning(
            f"{'A plug-in is' if len(names) == 1 else f'{len(names)} plug-ins are'} left out "
            f"({which}): the home page says why.",
            icon=":material/extension_off:",
        )
        return
    for line in registry.problems():
        container.warning(line, icon=":material/extension_off:")


def commands(*lines: str) -> None:
    """The command lines that reproduce every number of the page."""
    cfg = url.session_cfg()
    note = (
        " The data file is this server's copy of your upload: run it where that file is."
        if cfg.get("data_file")
        else ""
    )
    st.caption("Reproduce on the command line (nodes are instance rows there and here)." + note)
    st.code("\n".join(lines), language="bash")


_PARAMETER = re.compile(r"^(The '(\w+)' parameter of [\w.]+ (is inconsistent: )?|'(\w+)' )")


def _label(name: str) -> str:
    """The widget label of the setting whose field is ``name`` (the name itself if none)."""
    for cls in views.ALL_SPECS:
        for field_name, row in S.table(cls):
            if field_name == name:
                return S.label_of(row, name)
    return name.replace("_", " ")


def readable(exc: BaseException, labels: dict[str, str] | None = None) -> str:
    """An error as a person reads it on the page, in one line: an uploaded file by the name
    it was uploaded under (never this server's copy), a setting by its label (never the
    class or function that checked it, nor its field name; ``labels`` overrides some, as
    the threshold family's r_min)."""
    if isinstance(exc, S.SettingError):
        text = exc.text(labels=labels)
    else:
        text = str(exc)
    text = " ".join(text.split())
    cfg = url.session_cfg()
    if cfg.get("data_file") and cfg.get("data_file_name"):
        copy = str(cfg["data_file"])
        text = text.replace(copy, cfg["data_file_name"])
        text = text.replace(Path(copy).name, cfg["data_file_name"])
    m = _PARAMETER.match(text)
    if m:
        rest = text[m.end() :]
        name = m.group(2) or m.group(4)
        text = rest if m.group(3) else f"{(labels or {}).get(name) or _label(name)} {rest}"
    return text
