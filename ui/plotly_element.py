"""The app's chart element: a Plotly figure redrawn in place by ``Plotly.react``.

``st.plotly_chart`` gives a chart an element id that includes its figure, so a changed
figure is a new chart: mounted again and drawn from nothing by ``Plotly.newPlot``. On a
cached redraw of the loss page that was most of the paint (``benchmarks/paint_floor.py``
times both, and the loss page before and after this element:
``benchmarks/results/paint_floor.md``). Here a chart is a
keyed ``st.components.v2`` component, which keeps its identity across runs: its
JavaScript hands each new figure to ``Plotly.react`` on the chart already drawn.

The chart looks as Streamlit draws it: Streamlit's chart template for the page's light or
dark theme (``static/chart_themes.json``, read off Streamlit's own charts in Chromium by
``scripts/capture_chart_themes.py``; ``tests/browser/test_browser_chart_element.py`` checks
it against the installed Streamlit), the title in bold, the mode bar on hover without
Plotly's logo or the selection tools, with a button for the whole screen. Plotly's
JavaScript is the plotly package's own ``plotly.min.js``, served gzipped by the app
(``ui.index_page.SRC``; the page may have loaded it already) or as a static file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import plotly.io as pio
import streamlit as st

from ui import index_page

NAME = "sslviz.chart"
CLICK = "click"
"""The trigger a point click sends: the clicked points, as ``[{curve_number, point_number,
point_index, x, y, customdata}]`` (the keys of Streamlit's ``selection.points``)."""

_EXPAND = (  # Streamlit's "fullscreen-expand" icon (Font Awesome's expand), 600 × 470
    "M32 32C14.3 32 0 46.3 0 64v96c0 17.7 14.3 32 32 32s32-14.3 32-32V96h64"
    "c17.7 0 32-14.3 32-32s-14.3-32-32-32H32zM64 352c0-17.7-14.3-32-32-32"
    "s-32 14.3-32 32v96c0 17.7 14.3 32 32 32h96c17.7 0 32-14.3 32-32s-14.3-32-32-32"
    "H64V352zM320 32c-17.7 0-32 14.3-32 32s14.3 32 32 32h64v64c0 17.7 14.3 32 32 32"
    "s32-14.3 32-32V64c0-17.7-14.3-32-32-32H320zM448 352c0-17.7-14.3-32-32-32"
    "s-32 14.3-32 32v64H320c-17.7 0-32 14.3-32 32s14.3 32 32 32h96"
    "c17.7 0 32-14.3 32-32V352z"
)

_JS = """
let loading = null;
function addScript(src) {
  const s = document.createElement("script");
  s.id = "__SCRIPT_ID__";
  s.src = src;
  document.head.appendChild(s);
  return s;
}
function plotlyJs() {  // the page's one script of Plotly (ui.index_page may have added it)
  if (window.Plotly) return Promise.resolve(window.Plotly);
  return new Promise((ok, fail) => {
    let s = document.getElementById("__SCRIPT_ID__");
    const fallback = () => {  // no ui.index_page route: Streamlit's static file
      s.remove();
      s = addScript("__FALLBACK__");
      const lost = () => fail(new Error("plotly.min.js was not served"));
      s.onload = () => window.Plotly ? ok(window.Plotly) : lost();
      s.onerror = lost;
    };
    const failed = () => { s.dataset.failed = "1"; fallback(); };
    if (s && s.dataset.failed) return fallback();
    if (!s) s = addScript("__SRC__");
    // a page of Streamlit's (its answer to a path it does not know) runs, but is no Plotly
    s.addEventListener("load", () => window.Plotly ? ok(window.Plotly) : failed());
    s.addEventListener("error", failed);
  });
}
function load() {
  if (!loading) loading = Promise.all([
    plotlyJs(), fetch("__THEMES__").then(r => r.json()),
  ]);
  return loading;
}
function dark(el) {  // the page's background (Streamlit's theme variable), dark or light
  const bg = getComputedStyle(el).getPropertyValue("--st-background-color").trim()
    || getComputedStyle(document.body).backgroundColor;
  const c = document.createElement("canvas").getContext("2d");
  c.fillStyle = bg;
  const hex = c.fillStyle.startsWith("#") ? c.fillStyle.slice(1) : "ffffff";
  const [r, g, b] = [0, 2, 4].map(i => parseInt(hex.slice(i, i + 2), 16));
  return 0.299 * r + 0.587 * g + 0.114 * b < 128;
}
function payload(data) {
  if (typeof data === "string") return JSON.parse(data);
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data))
    return JSON.parse(new TextDecoder().decode(data));
  return data;
}
const FULLSCREEN = {  // as Streamlit's charts have it (its icon), for the whole screen
  name: "Fullscreen", title: "Fullscreen",
  icon: { width: 600, height: 470, path: __EXPAND__ },
  click: gd => document.fullscreenElement ? document.exitFullscreen() : gd.requestFullscreen(),
};
function fullSize() {
  return { width: window.screen.width, height: window.screen.height };
}
// slot → its chart's div, the chart a new element of the slot takes (on the window: each
// element may load this module afresh)
const drawn = window.sslvizCharts || (window.sslvizCharts = new Map());
function ownedBy(host, slot) {  // whether an element's container is of the slot's keys
  const key = `st-key-${slot}`;
  return [...host.classList].some(c => c === key || c.startsWith(`${key}_part`));
}
function rescue() {  // a chart whose element was replaced: into its new element, at once
  for (const [slot, div] of drawn) {
    if (div.isConnected) continue;
    for (const host of document.querySelectorAll(`[class*="st-key-${CSS.escape(slot)}"]`)) {
      if (!ownedBy(host, slot) || host.querySelector("div.sslviz-chart")) continue;
      (host.querySelector(".stBidiComponentRegular") || host).appendChild(div);
      break;
    }
  }
}
if (!window.sslvizRescue) {
  window.sslvizRescue = new MutationObserver(rescue);
  window.sslvizRescue.observe(document.body, { childList: true, subtree: true });
}
export default function({ data, parentElement, setTriggerValue }) {
  const { figure, stretch, clickable, slot } = payload(data);
  let div = parentElement.querySelector("div.sslviz-chart") || drawn.get(slot);
  if (div && div.parentElement !== parentElement) parentElement.appendChild(div);  // taken
  if (!div) {
    div = document.createElement("div");
    div.className = "sslviz-chart";
    parentElement.appendChild(div);
    // the width of the column it is in, as it changes (a window resized, the sidebar shut)
    new ResizeObserver(() => div.sslvizDrawn && window.Plotly.Plots.resize(div)).observe(div);
    div.addEventListener("fullscreenchange", () => {
      const full = document.fullscreenElement === div;
      window.Plotly.relayout(div, full ? fullSize() : { width: null, height: div.sslvizHeight });
    });
  }
  drawn.set(slot, div);
  const layout = { ...(figure.layout || {}) };
  div.sslvizSend = setTriggerValue;
  div.sslvizClickable = clickable;
  if (stretch) {
    div.style.height = "100%";
    delete layout.height;
  } else {
    div.style.height = (layout.height || 450) + "px";
  }
  if (typeof layout.title === "string") layout.title = { text: layout.title };
  if (layout.title && layout.title.text)
    layout.title = { ...layout.title, text: `<b>${layout.title.text}</b>` };
  if (clickable) {
    layout.clickmode = layout.clickmode || "event+select";
    layout.hovermode = layout.hovermode || "closest";
    layout.dragmode = layout.dragmode || "pan";
  }
  const config = {
    displaylogo: false, showSendToCloud: false, displayModeBar: "hover",
    modeBarButtonsToRemove: ["lasso2d", "select2d", "sendChartToCloud"],
    modeBarButtonsToAdd: [FULLSCREEN],
  };
  div.sslvizHeight = layout.height;
  if (document.fullscreenElement === div) Object.assign(layout, fullSize());
  load().then(([Plotly, themes]) => {
    layout.template = themes[dark(parentElement) ? "dark" : "light"];
    if (div.sslvizFailed) div.textContent = div.sslvizFailed = "";  // drawn after all
    return Plotly.react(div, { data: figure.data || [], layout, config, frames: figure.frames });
  }).then(() => {
    if (div.sslvizDrawn) return;
    div.sslvizDrawn = true;
    div.on("plotly_click", ev => {
      if (!div.sslvizClickable) return;
      div.sslvizSend("click", (ev.points || []).map(p => ({
        curve_number: p.curveNumber, point_number: p.pointNumber, point_index: p.pointIndex,
        x: p.x, y: p.y, customdata: p.customdata,
      })));
    });
  }).catch(err => {
    div.sslvizFailed = div.textContent = "The chart could not be drawn: " + err.message;
  });
}
"""

_CSS = """div.sslviz-chart { width: 100%; }
div.sslviz-chart:fullscreen { background: var(--st-background-color, white); }"""

_JS = (
    _JS.replace("__EXPAND__", json.dumps(_EXPAND))
    .replace("__SCRIPT_ID__", index_page.SCRIPT_ID)
    .replace("__SRC__", index_page.SRC)
    .replace("__FALLBACK__", index_page.FALLBACK)
    .replace("__THEMES__", index_page.THEMES)
)
_chart = st.components.v2.component(NAME, js=_JS, css=_CSS, isolate_styles=False)


index_page.serve_plotly_js()  # also done at the server's start (index_page.routes)


def figure_json(fig: Any) -> str:
    """The JSON of a Plotly figure or a figure's dict, as ``st.plotly_chart`` sends it but
    without the figure's template, which is not sent: the element draws every chart with
    Streamlit's."""
    spec = fig.to_dict() if hasattr(fig, "to_dict") else fig
    layout = {k: v for k, v in spec.get("layout", {}).items() if k != "template"}
    return pio.to_json({**spec, "layout": layout}, validate=False)


def draw(
    container: Any,
    fig: Any,
    *,
    key: str,
    slot: str | None = None,
    stretch: bool = False,
    on_click: Callable[[list[Mapping]], None] | None = None,
) -> Any:
    """Draw Plotly figure ``fig`` (a figure or its dict) in ``container`` as the chart
    keyed ``key``, redrawn in place when a later run draws another figure there, or when
    another key of the same ``slot`` (default: ``key``) is drawn (a growing chart's parts,
    each with a key of its own, :class:`ui.progress.growing`): the browser's chart of the
    slot is then moved to the new element and redrawn there. ``stretch``: as tall as the
    element it is in (presenter mode's stage); otherwise the figure's height (450 px when
    it has none). ``on_click(points)`` is called, before the next run, with the points of
    a click (:data:`CLICK`)."""
    flags = {"stretch": stretch, "clickable": on_click is not None, "slot": slot or key}
    payload = f'{json.dumps(flags)[:-1]}, "figure": {figure_json(fig)}}}'.encode()
    callbacks = {}
    if on_click is not None:

        def clicked() -> None:
            points = getattr(st.session_state[key], CLICK, None)
            if points:
                on_click(points)

        callbacks[f"on_{CLICK}_change"] = clicked
    height = "stretch" if stretch else "content"
    if not hasattr(container, "__enter__"):  # the streamlit module: the page's main area
        return _chart(key=key, data=payload, height=height, **callbacks)
    with container:
        return _chart(key=key, data=payload, height=height, **callbacks)
