"""Server time of a change of every control on the default loss view, and the
time to paint a few of them in Chromium: old tree against new in one run.

    python benchmarks/control_reruns.py [--old REV] [--rounds 2]
    # writes benchmarks/results/control_reruns.{json,md}
    python benchmarks/control_reruns.py --paint-only [--old REV] [--rounds 4]
    # the paint alone, medians: benchmarks/results/control_reruns_paint.{json,md}
    python benchmarks/control_reruns.py --pages conditioning regret learn \
        cg_iterations algorithm4 [--old REV]
    # other pages' controls, server time: benchmarks/results/control_reruns_pages.{json,md}
    python benchmarks/control_reruns.py --paint-pages conditioning regret learn \
        cg_iterations algorithm4 [--rounds 2]
    # a few changes on other pages, Chromium paint (this tree):
    # benchmarks/results/control_reruns_paint_pages.{json,md}
    python benchmarks/control_reruns.py --all-pages [--old REV] [--only loss sidebar]
        [--name NAME]
    # every control of every page's own default view and of the sidebar, both trees: the
    # server time to first feedback (a progress bar or chart sent) and to completion
    # (AppTest), and the Chromium paint of the numbers and boxes:
    # benchmarks/results/control_reruns_all.{json,md} (or NAME)

Each tree runs in its own process (``--measure ROOT``; the old one from a ``git worktree``
of REV, default ``HEAD~1``), rendered headless by Streamlit's AppTest as in the tests: the
first run of the loss page; once the worker processes the server starts after its first page
are up (a few seconds of both cores, once per server), a rerun with nothing changed, then
each settings control of the page changed once (a number up by its step, a choice to the
next option, a box toggled) and put back. The time of a change is the AppTest ``run()``
after it: the script, its computations and the figures, without a browser. The trees
alternate for ``--rounds`` rounds; each change keeps its smallest time (the machine is
shared).

The paint: each tree's ``streamlit run app.py`` on a free local port, the loss page opened
in headless Chromium at 1400×900 and the server left until it is idle (its worker processes
up); a number typed into a control and Enter pressed, then
the time until the app's script state has gone to running and back and the browser has
drawn two more frames (the chart and the tables on screen), and the time until the page's
time per interval is shown (taken after the page is drawn in trees since the
deferred timing). Then the tabs under the chart, clicked one after the other: the time until
the clicked tab's table or download buttons are visible (a tree that builds only the open
tab's content reruns its tables then).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _common import (
    RESULTS,
    free_port,
    last_json,
    machine,
    old_tree,
    start_server,
    stop_server,
    write,
)

ROOT = Path(__file__).resolve().parents[1]
PAGES = ("pages/Loss_intervals.py", "app_pages/1_Loss_intervals.py")
"""The loss page's file: in pages/ now, in app_pages/ in trees before the card's layout."""
SKIP = {"w_source", "w_dataset", "w_data_file", "w_download"}  # data sources: not offline
KINDS = ("number_input", "selectbox", "radio", "checkbox", "segmented_control")


def _changed(w):
    """The control's next value: a number up by its step, the next option, a box toggled."""
    kind = type(w).__name__.lower()
    if kind == "checkbox":
        return not w.value
    if kind == "numberinput":
        if w.value is None:  # an optional number left empty ("auto")
            return None
        step = w.step or 1
        return type(w.value)(w.value + step)
    options = list(w.options)
    if w.value is None or str(w.value) not in options:
        return None
    return w.options[(options.index(str(w.value)) + 1) % len(options)]


SIDEBAR = "the sidebar (on pages/Loss_intervals.py)"
"""``--all-pages``' name of the sidebar's controls, timed on the loss page."""

OTHER_PAGES = {
    "conditioning": "pages/Conditioning.py",
    "regret": "pages/Online_regret.py",
    "learn": "pages/Learn.py",
    "cg_iterations": "pages/CG_iterations.py",
    "algorithm4": "pages/Algorithm_4.py",
}
"""``--pages``: other pages whose default view's controls are timed (server time only)."""


def _wait_for_workers(timeout: float = 120.0) -> None:
    """Wait until the worker processes a server starts after its first page (``ui.nav``:
    the learning page's, warmed in a background thread for a few seconds of both cores) are
    up, so that the changes are timed on a server in its steady state, not against them."""
    import threading

    for thread in threading.enumerate():
        target = getattr(thread, "_target", None)
        if getattr(target, "__name__", "") == "start_workers":
            thread.join(timeout)


FIRST: dict[str, float] = {}
"""When this process's script run sent its first feedback (:func:`_watch_feedback`)."""
FEEDBACK = ("progress", "plotly_chart", "bidi_component")
"""The elements that are a change's first feedback on the page: a progress bar (the work
is said to be running) or a chart drawn (its result, or a first part of it: by
``st.plotly_chart`` in an old tree, by the app's chart element, ``ui.plotly_element``, a
``st.components.v2`` component, in a new one)."""


def _watch_feedback() -> None:
    """Note in :data:`FIRST` the time of the first :data:`FEEDBACK` element a script run of
    this process sends (Streamlit's queue of outgoing messages, as AppTest's runner uses)."""
    from streamlit.runtime.forward_msg_queue import ForwardMsgQueue

    enqueue = ForwardMsgQueue.enqueue

    def watched(self, msg):
        if "t" not in FIRST and msg.WhichOneof("type") == "delta":
            delta = msg.delta
            if delta.WhichOneof("type") == "new_element":
                if delta.new_element.WhichOneof("type") in FEEDBACK:
                    FIRST["t"] = time.perf_counter()
        return enqueue(self, msg)

    ForwardMsgQueue.enqueue = watched


def _timed_run(at, timeout: float = 600) -> tuple[float, float | None]:
    """``(completion, first feedback)`` of ``at.run()``, seconds from its start (first
    feedback None: no progress bar or chart was sent)."""
    FIRST.clear()
    t0 = time.perf_counter()
    at.run(timeout=timeout)
    done = time.perf_counter() - t0
    return done, (FIRST["t"] - t0 if "t" in FIRST else None)


def measure(
    root: Path, page: str | None = None, *, own: bool = False, sidebar: bool = False
) -> dict:
    """Time every control change of the default loss view (or of ``page``'s) in the tree
    at ``root`` (``own``: the page's own controls only, not the sidebar's; ``sidebar``: the
    sidebar's only). With ``own`` or ``sidebar`` (``--all-pages``), each change's value is
    ``[completion, first feedback]``."""
    own = own or sidebar
    sys.path[:0] = [str(root), str(root / "tests")]
    from apptest_helpers import start

    if own:
        _watch_feedback()

    page = page or next(p for p in PAGES if (root / p).is_file())
    t0 = time.perf_counter()
    at = start(page)
    out: dict = {"first run": time.perf_counter() - t0}
    _wait_for_workers()
    if own:
        out = {"first run": [out["first run"], None]}
        out["rerun, nothing changed"] = list(_timed_run(at))
        out["_controls"] = []
    else:
        t0 = time.perf_counter()
        at.run()
        out["rerun, nothing changed"] = time.perf_counter() - t0
    keys = [
        w.key
        for kind in KINDS
        for w in (at.sidebar if sidebar else at.main if own else at).get(kind)
        if w.key and w.key.startswith("w_") and w.key not in SKIP
    ]
    for key in keys:
        w = at.get_by_key(key)
        if w.disabled:  # as for a user: nothing to change
            continue
        before, after = w.value, _changed(w)
        if after is None or after == before:
            continue
        at.get_by_key(key).set_value(after)
        seconds, first = _timed_run(at)
        failed = bool(at.exception)
        at.get_by_key(key).set_value(before)
        back, back_first = _timed_run(at)
        was, now = (f"{v:g}" if isinstance(v, float) else str(v) for v in (before, after))
        if own:
            kind = type(w).__name__.lower()
            out["_controls"].append([key[2:], kind, was, now])
            out[f"{key[2:]} {was} → {now}"] = None if failed else [seconds, first]
            out[f"{key[2:]} back to {was} (cached)"] = [back, back_first]
            continue
        out[f"{key[2:]} {was} → {now}"] = seconds if not failed else None
        out[f"{key[2:]} back to {was} (cached)"] = back
    return out


PAINTED = (("t", "21"), ("t", "20"), ("sigma_max", "3.4"), ("points", "41"), ("n", "110"))
"""The controls whose paint is timed (URL key, value typed), one after the other."""

_TABLE = "[role=tabpanel]:not([hidden]) [data-testid=stDataFrame] canvas"  # the open tab's
TABS = (
    ("Missed breakpoints", _TABLE),
    ("Export", "[data-testid=stDownloadButton]"),
    ("Estimated intervals", _TABLE),
)
"""The tabs under the chart opened one after the other, each with what shows it opened (a
table, the download buttons): the time from the click until that is visible."""
_VISIBLE = """s => [...document.querySelectorAll(s)].some(e => e.offsetParent !== null)"""


def _session_cpu(session: int) -> float:
    """CPU seconds of every process in the session ``session`` (the server and the worker
    processes it started), from /proc."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone
            continue
        if int(fields[3]) == session:  # fields after the name: state, ppid, pgrp, session
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def _wait_until_idle(server, timeout: float = 120.0, quiet: float = 0.05) -> None:
    """Wait until the server and its workers use under ``quiet`` s of CPU in a second: the
    worker processes it warms after its first page (``ui.nav``) are up."""
    deadline = time.monotonic() + timeout
    before = _session_cpu(server.pid)
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = _session_cpu(server.pid)
        if now - before < quiet:
            return
        before = now


PAGE_PAINTED = {
    "conditioning": (("points", "16"), ("sigma_max", "3.4"), ("t", "21")),
    "regret": (("rounds", "21"), ("t", "21"), ("seed", "1")),
    "learn": (("instances", "9"), ("test_instances", "9"), ("seed", "1")),
    "cg_iterations": (("t", "21"), ("t_max", "101"), ("sigma_max", "3.4")),
    "algorithm4": (("t", "21"), ("n", "110"), ("sigma_max", "3.4")),
}
"""``--paint-pages``: on each other page, the controls whose paint is timed (URL key,
value typed), one after the other: a change that reads what is cached, one that computes
a little, and on the regret and learning pages a new instance stream (the seed)."""


def paint(root: Path, page_name: str | None = None) -> dict:
    """Time to paint each change of :data:`PAINTED` in Chromium, the tree at ``root`` served
    (of ``PAGE_PAINTED[page_name]`` on that page, with no tabs, when given)."""
    from playwright.sync_api import sync_playwright

    port = free_port()
    log = RESULTS / "control_reruns_server.log"
    server = start_server(port, log, root, env=os.environ | {"PYTHONPATH": str(root)})
    url, out = f"http://127.0.0.1:{port}", {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            # a page's URL path is its file's name (ui.nav)
            path = "Loss_intervals" if page_name is None else Path(OTHER_PAGES[page_name]).stem
            page.goto(f"{url}/{path}", timeout=120_000)
            page.wait_for_selector(".js-plotly-plot", timeout=120_000)
            page.wait_for_function(_SETTLED, timeout=120_000)
            _wait_until_idle(server)
            for key, value in PAINTED if page_name is None else PAGE_PAINTED[page_name]:
                field = page.locator(f".st-key-w_{key} input").first
                field.fill(value)
                page.evaluate(_WATCH)
                t0 = time.perf_counter()
                field.press("Enter")
                page.evaluate("() => window.sslvizRerun", None)
                out[f"{key} → {value}"] = time.perf_counter() - t0
                page.wait_for_function(_SETTLED, timeout=120_000)
                if page_name is None:
                    out[f"{key} → {value}, with its time per interval"] = time.perf_counter() - t0
            for tab, shown in TABS if page_name is None else ():
                t0 = time.perf_counter()
                page.get_by_role("tab", name=tab, exact=True).click()
                page.wait_for_function(_VISIBLE, arg=shown, timeout=120_000)
                out[f"tab {tab}"] = time.perf_counter() - t0
                page.wait_for_function(_SETTLED, timeout=120_000)
            browser.close()
    finally:
        stop_server(server)
    return out


_APP = "[data-testid=stApp]"
_SETTLED = """() => document.querySelector('[data-testid=stApp]')
  .getAttribute('data-test-script-state') === 'notRunning'
  && ![...document.querySelectorAll('[data-testid=stMetric]')]
    .some(m => m.innerText.includes('measuring'))"""
"""The page is drawn and idle, its time per interval shown (a tree that takes the timing
after the page is drawn shows "measuring…" until then)."""
_WATCH = """() => { const app = document.querySelector('[data-testid=stApp]');
  window.sslvizRerun = new Promise(done => { let ran = false;
    const seen = new MutationObserver(records => {
      // a run that started and stopped between two callbacks is seen in the old values
      if (records.some(r => r.attributeName === 'data-test-script-state'
          && r.oldValue !== null && r.oldValue !== 'notRunning')) ran = true;
      if (app.getAttribute('data-test-script-state') !== 'notRunning') { ran = true; return; }
      if (!ran) return;
      seen.disconnect();
      requestAnimationFrame(() => requestAnimationFrame(() => done(true)));
    });
    seen.observe(app, {attributes: true, attributeOldValue: true}); }); }"""
"""Resolves ``window.sslvizRerun`` once the script has run and stopped again and the browser
has drawn two frames after it."""


def paint_controls(root: Path, controls: dict[str, list]) -> dict:
    """The Chromium paint of each control of ``controls`` (page file → the
    ``_controls`` of :func:`measure`: ``[key, kind, value, new value]``), the tree at
    ``root`` served once: each page opened, the server left until idle, then each control
    changed (a number typed and Enter, a box clicked, a list opened and its option clicked,
    a radio's or segmented control's option clicked) and put back (a cached redraw): from
    the change to the script run and stopped and two frames drawn."""
    from playwright.sync_api import sync_playwright

    port = free_port()
    log = RESULTS / "control_reruns_server.log"
    env = os.environ | {"PYTHONPATH": str(root)}
    server = start_server(port, log, root, env=env, timeout=900)
    out: dict = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            for file, rows in controls.items():
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                try:
                    _paint_page(page, port, server, file, rows, out)
                except Exception as exc:  # noqa: BLE001 - a page that fails is said, not fatal
                    out[f"{file}: failed"] = repr(exc)[:200]
                page.close()
            browser.close()
    finally:
        stop_server(server)
    return out


def _paint_page(page, port: int, server, file: str, rows: list, out: dict) -> None:
    """:func:`paint_controls` on one page: open it, wait until idle, time each change."""
    stem = Path(file).stem
    page.goto(f"http://127.0.0.1:{port}/{'' if stem == 'home' else stem}")
    page.wait_for_function(_SETTLED, timeout=300_000)
    _wait_until_idle(server)
    for key, kind, was, now in rows:
        box = page.locator(f".st-key-w_{key}")
        if not box.count():
            continue
        if not box.first.is_visible():  # in a closed expander or popover: not typed into
            out[f"{file}: {key} not visible"] = None
            continue
        for value, name in ((now, f"{key} {was} → {now}"), (was, f"{key} back")):
            page.evaluate(_WATCH)
            t0 = time.perf_counter()
            try:
                if kind == "checkbox":
                    box.locator("label").first.click(timeout=30_000)
                elif kind == "numberinput":
                    field = box.locator("input").first
                    field.fill(value, timeout=30_000)
                    field.press("Enter")
                elif kind == "selectbox":  # open the list, click the option
                    field = box.locator("input[role=combobox]").first
                    field.click(timeout=30_000)
                    if not page.locator("[role=option]").count():  # a click that kept it shut
                        field.press("ArrowDown")
                    words = r"\s+".join(map(re.escape, value.split()))  # any space: &nbsp;
                    text = re.compile(rf"^\s*{words}\s*$")  # its text, not its name
                    page.locator("[role=option]", has_text=text).first.click(timeout=10_000)
                else:  # a radio or a segmented control: the option's own label
                    box.get_by_text(value, exact=True).first.click(timeout=10_000)
            except Exception as exc:  # noqa: BLE001 - this control is said, the rest go on
                out[f"{file}: {key} failed"] = repr(exc)[:200]
                break
            page.evaluate("() => window.sslvizRerun", None)
            out[f"{file}: {name}"] = time.perf_counter() - t0
            page.wait_for_function(_SETTLED, timeout=300_000)


def all_pages(old: Path, args: argparse.Namespace) -> None:
    """``--all-pages``: every page's own controls (the sidebar's are timed on the loss
    page), each changed and put back, in both trees one after the other: the server time
    to first feedback and to completion (AppTest), then the Chromium paint of the numbers
    and boxes (:func:`paint_controls`). Written after each page."""
    from ui.nav import NAV

    keys = args.only or [p.key for p in NAV] + ["sidebar"]  # in the order given
    loss = next(p.file for p in NAV if p.key == "loss")
    pages = [SIDEBAR if k == "sidebar" else next(p.file for p in NAV if p.key == k) for k in keys]
    found: dict[str, dict[str, dict]] = {"new": {}, "old": {}}
    lines = [
        "# Every control of every page's default view: old tree against new",
        "",
        f"`python benchmarks/control_reruns.py --all-pages --old {args.old}` (old = "
        f"{_head(old)}, new = the working tree); {machine()['cpus']} CPUs, shared (1-minute "
        f"load average {os.getloadavg()[0]:.1f} at the start). Each control of the page's own "
        "(the sidebar's in a table of their own, on the loss page) changed once and put back "
        "(the second: a cached redraw), in AppTest: **first feedback**, the server time "
        "from the change to the first progress bar or chart the run sends; **done**, to the "
        "run's end. **Paint**: Chromium at 1400×900, from the change (a number typed and "
        "Enter, a box clicked, an option clicked) to the run over and two frames drawn (—: "
        "not painted, said under the table). Seconds; over 0.3 s to first feedback or a "
        "cached redraw's paint over 0.5 s in bold.",
    ]
    payload: dict = {"old": _head(old), "machine": machine(), "pages": {}}
    for file in pages:
        for tree, root in (("new", ROOT), ("old", old)):
            if file == SIDEBAR:  # the sidebar's controls, on the loss page
                found[tree][file] = _run(root, "--measure", loss, "--sidebar")
            elif (root / file).is_file():
                found[tree][file] = _run(root, "--measure", file, "--own")
        shown = loss if file == SIDEBAR else file
        paints = {
            tree: {
                k.replace(shown, file, 1): v
                for k, v in _run(
                    root, "--paint-controls", json.dumps({shown: found[tree][file]["_controls"]})
                ).items()
            }
            for tree, root in (("new", ROOT), ("old", old))
            if file in found[tree]
        }
        rows = []
        for change, new in found["new"][file].items():
            if change.startswith("_"):
                continue
            old_v = found["old"].get(file, {}).get(change)
            short = change.split(" → ")[0] if " → " in change else change.replace(" (cached)", "")
            name = short.split(" back to ")[0]
            paint_key = f"{file}: {name} back" if "back to" in change else f"{file}: {change}"
            rows.append(
                {
                    "change": change,
                    "new": new,
                    "old": old_v,
                    "paint_new": paints.get("new", {}).get(paint_key),
                    "paint_old": paints.get("old", {}).get(paint_key),
                }
            )
        payload["pages"][file] = rows
        lines += [
            "",
            f"## `{file}`",
            "",
            "| change | first feedback: old | new | done: old | new | paint: old | new |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in rows:
            cached = "back to" in r["change"]

            def cell(v, i, limit):
                x = None if v is None else v[i]
                return "—" if x is None else (f"**{x:.2f}**" if x > limit else f"{x:.2f}")

            def paint(x, cached=cached):
                if x is None:
                    return "—"
                return f"**{x:.2f}**" if cached and x > 0.5 else f"{x:.2f}"

            lines.append(
                f"| {r['change']} | {cell(r['old'], 1, 0.3)} | {cell(r['new'], 1, 0.3)} | "
                f"{cell(r['old'], 0, 1e9)} | {cell(r['new'], 0, 1e9)} | "
                f"{paint(r['paint_old'])} | {paint(r['paint_new'])} |"
            )
        hidden: dict[str, list[str]] = {}
        for tree, got in paints.items():
            if f"{file}: failed" in got:
                lines += ["", f"The {tree} tree's paint stopped: {got[f'{file}: failed']}"]
            for k, v in got.items():
                name = k[len(file) + 2 :]
                if k.endswith(" not visible"):
                    hidden.setdefault(tree, []).append(name.removesuffix(" not visible"))
                elif k.endswith(" failed") and k != f"{file}: failed":
                    lines += ["", f"{name} in the {tree} tree: {v}"]
        for tree, names in hidden.items():
            both = all(hidden.get(other) == names for other in paints)
            if both and tree != next(iter(paints)):
                continue
            where = "either tree" if both else f"the {tree} tree"
            lines += ["", f"Not painted, not on screen in {where} (a closed expander): "]
            lines[-1] += ", ".join(names) + "."
        write(args.name, payload, "\n".join(lines) + "\n")


def _run(root: Path, what: str = "--measure", *more: str) -> dict:
    env = os.environ | {"PYTHONPATH": str(root)}
    return last_json([sys.executable, __file__, what, str(root), *more], root, env)


def other_pages(old: Path, args: argparse.Namespace) -> None:
    """``--pages``: the server time of every control change of other pages' default views,
    both trees alternating, each change's smallest time."""
    lines = [
        "# Control changes on other pages' default views: server time (AppTest)",
        "",
        f"`python benchmarks/control_reruns.py --pages {' '.join(args.pages)} --old {args.old} "
        f"--rounds {args.rounds}` (old = {_rev(args.old)}, new = the working tree); the "
        f"smallest of {args.rounds} rounds, trees alternating; {machine()['cpus']} CPUs. As "
        "for the loss page: each control changed once and put back. The regret and learning "
        "pages run an experiment over many instances: a change that the experiment reads "
        "runs it again.",
    ]
    payload: dict = {"old": _rev(args.old), "rounds": args.rounds, "machine": machine()}
    for name in args.pages:
        best: dict[str, dict[str, float | None]] = {"old": {}, "new": {}}
        for _ in range(args.rounds):
            for tree, root in (("new", ROOT), ("old", old)):
                for k, v in _run(root, "--measure", OTHER_PAGES[name]).items():
                    prev = best[tree].get(k)
                    best[tree][k] = v if prev is None or (v is not None and v < prev) else prev
        rows = [
            {"change": k, "old_s": best["old"].get(k), "new_s": v} for k, v in best["new"].items()
        ]
        payload[name] = rows
        lines += ["", f"## {name} (`{OTHER_PAGES[name]}`)", "", "| change | old (s) | new (s) |"]
        lines += ["|---|---|---|"] + [
            f"| {r['change']} | {_s(r['old_s'])} | {_s(r['new_s'])} |" for r in rows
        ]
    write("control_reruns_pages", payload, "\n".join(lines) + "\n")


def _s(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def _head(tree: Path) -> str:
    """The commit a tree is at (an old tree's worktree made before its revision moved)."""
    return subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=tree, capture_output=True, text=True
    ).stdout.strip()


def _rev(old: str) -> str:
    return subprocess.run(
        ["git", "rev-parse", "--short", old], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()


def _paint_times(old: Path, rounds: int) -> dict[str, dict[str, list[float]]]:
    """Each change's paint times in both trees (``"new"``, ``"old"``), the trees served and
    painted alternately for ``rounds`` rounds."""
    times: dict[str, dict[str, list[float]]] = {"old": {}, "new": {}}
    for _ in range(rounds):
        for name, root in (("new", ROOT), ("old", old)):
            for k, v in _run(root, "--paint").items():
                times[name].setdefault(k, []).append(v)
    return times


def paint_rounds(old: Path, args: argparse.Namespace) -> None:
    """``--paint-only``: the paint of both trees (:func:`_paint_times`); each change's
    median and smallest time (a paint varies more than a server run)."""
    times = _paint_times(old, args.rounds)
    rows = [
        {"change": k, "old_s": times["old"].get(k, []), "new_s": v} for k, v in times["new"].items()
    ]

    def cell(xs: list[float]) -> str:
        return f"{statistics.median(xs):.2f} ({min(xs):.2f})" if xs else "—"

    lines = [
        "# Paint of control changes and tabs on the default loss view (Chromium, 1400×900)",
        "",
        f"`python benchmarks/control_reruns.py --paint-only --old {args.old} --rounds "
        f"{args.rounds}` (old = {_rev(args.old)}, new = the working tree); each tree served "
        f"and painted {args.rounds} times, alternating; {machine()['cpus']} CPUs. A change: from "
        "Enter to the page drawn (and to its time per interval shown); a tab: from its click "
        "to its table or files shown. Median (smallest) of the rounds, seconds.",
        "",
        "| change | old | new |",
        "|---|---|---|",
    ] + [f"| {r['change']} | {cell(r['old_s'])} | {cell(r['new_s'])} |" for r in rows]
    payload = {"old": _rev(args.old), "rounds": args.rounds, "machine": machine(), "paint": rows}
    write("control_reruns_paint", payload, "\n".join(lines) + "\n")


def paint_pages(args: argparse.Namespace) -> None:
    """``--paint-pages``: the paint of :data:`PAGE_PAINTED`'s changes on other pages, this
    tree served afresh for each page and round; each change's median and smallest time."""
    times: dict[str, dict[str, list[float]]] = {}
    for _ in range(args.rounds):
        for name in args.paint_pages:
            for k, v in _run(ROOT, "--paint", name).items():
                times.setdefault(name, {}).setdefault(k, []).append(v)
    lines = [
        "# Paint of control changes on other pages' default views (Chromium, 1400×900)",
        "",
        f"`python benchmarks/control_reruns.py --paint-pages {' '.join(args.paint_pages)} "
        f"--rounds {args.rounds}` (this tree); each page served afresh and painted "
        f"{args.rounds} times; {machine()['cpus']} CPUs. From Enter to the page drawn (the "
        "script run and stopped, two frames drawn after it), seconds: median (smallest).",
    ]
    payload: dict = {"rounds": args.rounds, "machine": machine()}
    for name, changes in times.items():
        payload[name] = [{"change": k, "seconds": v} for k, v in changes.items()]
        lines += ["", f"## {name} (`{OTHER_PAGES[name]}`)", "", "| change | paint (s) |"]
        lines += ["|---|---|"] + [
            f"| {k} | {statistics.median(v):.2f} ({min(v):.2f}) |" for k, v in changes.items()
        ]
    write("control_reruns_paint_pages", payload, "\n".join(lines) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", default="HEAD~1", help="the old tree's git revision")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--measure", help=argparse.SUPPRESS)
    ap.add_argument(
        "--paint-only",
        action="store_true",
        help="only the Chromium paint, each change's median and smallest over the rounds "
        "(writes control_reruns_paint.{json,md})",
    )
    ap.add_argument("--paint", help=argparse.SUPPRESS)
    ap.add_argument("--own", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--sidebar", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--paint-controls", help=argparse.SUPPRESS)
    ap.add_argument(
        "--all-pages",
        action="store_true",
        help="every page's own controls, first feedback, completion and paint, old and new "
        "(writes control_reruns_all.{json,md})",
    )
    ap.add_argument(
        "--only", nargs="*", help="with --all-pages: these pages (ui.nav keys, or sidebar)"
    )
    ap.add_argument("--name", default="control_reruns_all", help="with --all-pages: the file")
    ap.add_argument(
        "--pages",
        nargs="+",
        choices=list(OTHER_PAGES),
        help="the server time of these pages' controls instead "
        "(writes control_reruns_pages.{json,md})",
    )
    ap.add_argument(
        "--paint-pages",
        nargs="+",
        choices=list(PAGE_PAINTED),
        help="the Chromium paint of a few changes on these pages, this tree only "
        "(writes control_reruns_paint_pages.{json,md})",
    )
    args, page = ap.parse_known_args()
    if args.measure:
        print(json.dumps(measure(Path(args.measure), *page, own=args.own, sidebar=args.sidebar)))
        return
    if args.paint_controls:
        print(json.dumps(paint_controls(Path(args.paint_controls), json.loads(page[0]))))
        return
    if args.paint:
        print(json.dumps(paint(Path(args.paint), *page)))
        return
    if args.paint_pages:
        paint_pages(args)
        return
    old = old_tree(args.old)
    if args.all_pages:
        all_pages(old, args)
        return
    if args.pages:
        other_pages(old, args)
        return
    if args.paint_only:
        paint_rounds(old, args)
        return
    best: dict[str, dict[str, float | None]] = {"old": {}, "new": {}}
    for _ in range(args.rounds):
        for name, root in (("new", ROOT), ("old", old)):
            for k, v in _run(root).items():
                prev = best[name].get(k)
                best[name][k] = v if prev is None or (v is not None and v < prev) else prev
    painted = {
        name: {k: min(v) for k, v in times.items()}
        for name, times in _paint_times(old, args.rounds).items()
    }
    rows = [{"change": k, "old_s": best["old"].get(k), "new_s": v} for k, v in best["new"].items()]
    paints = [
        {"change": k, "old_s": painted["old"].get(k), "new_s": v} for k, v in painted["new"].items()
    ]
    rev = _rev(args.old)

    lines = [
        "# Control changes on the default loss view: server time (AppTest)",
        "",
        f"`python benchmarks/control_reruns.py --old {args.old}` (old = {rev}, new = the "
        f"working tree); the smallest of {args.rounds} rounds, trees alternating; "
        f"{machine()['cpus']} CPUs. A tree whose loss page times its sweep after the page "
        "is drawn (a fragment reruns it then) has that timing outside these runs: a browser "
        "shows the time per interval a moment after the rest.",
        "",
        "| change | old (s) | new (s) |",
        "|---|---|---|",
    ] + [f"| {r['change']} | {_s(r['old_s'])} | {_s(r['new_s'])} |" for r in rows]
    lines += [
        "",
        "## Paint in Chromium (1400×900): from Enter to the page drawn (and to its time per "
        "interval shown); a tab from its click to its table or files shown",
        "",
        "| change | old (s) | new (s) |",
        "|---|---|---|",
    ] + [f"| {r['change']} | {_s(r['old_s'])} | {_s(r['new_s'])} |" for r in paints]
    payload = {
        "old": rev,
        "rounds": args.rounds,
        "machine": machine(),
        "rows": rows,
        "paint": paints,
    }
    write("control_reruns", payload, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
