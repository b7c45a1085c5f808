"""Load test of the app: many browser sessions on one server.

Starts ``streamlit run app.py`` on 127.0.0.1 (a free port), then

1. opens ``--sessions`` (default 8) Chromium contexts at once, each on a different page and
   settings, and records for each the time from navigation to its last chart with the
   app idle, and any exception box;
2. restarts the server (nothing cached) and opens every URL again alone, one at a time,
   and compares the charts' data with what the session under load saw (the same bytes =
   the session saw its own numbers, and they did not depend on the load; the Speed page's
   chart shows measured times, which differ from run to run by nature);
3. for every session on a page with a JSON download (loss/intervals, conditioning,
   regret), downloads each JSON file that a shown command line writes (``--out NAME``) —
   in the session under load and in the same URL alone (Playwright's
   ``page.expect_download``) — then runs that shown ``sslviz ... --no-timings`` command in
   a subprocess, and compares the three files byte for byte ("the same view
   computed by the CLI, by a page alone and by a page beside 7 other sessions gives the
   same bytes in its JSON export"); where they differ, it lists the JSON paths that do;
4. opens one long request, closes its tab after ``--close-after`` s, and samples the
   server's CPU use until it is idle (< 10 % of one core over 1 s) or ``--idle-cap`` s.

Traffic goes to 127.0.0.1 only; the run is bounded (every wait has a timeout, the server
is killed at the end). Reports the server's memory (RSS) before and after, and writes
``benchmarks/results/load_test.{json,md}``.

Run: ``python benchmarks/load_test.py [--sessions 8] [--no-json] [--cli-timeout 300]``
(needs Playwright and Debian's Chromium at /usr/bin/chromium, which
``scripts/install.sh test`` installs). The JSON files are compared after both browser
runs, so the CLI's subprocesses never add to the measured load.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import free_port, machine, start_server, stop_server, write
from browser_helpers import IDLE

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
CHART = ".js-plotly-plot"
EXCEPTION = '[data-testid="stException"]'
TIMEOUT_MS = 180_000

# (page path, query): different pages and settings, one per session (cycled if more)
VIEWS = [
    ("", "classes=2,3"),
    ("Loss_intervals", ""),
    ("Loss_intervals", "classes=3,8&seed=1"),
    ("Loss_intervals", "family=knn&classes=1,8&n=150"),
    ("Conditioning", ""),
    ("Conditioning", "classes=4,9&family=knn"),
    ("Online_regret", "rounds=10&repeats=1"),
    ("Speed", ""),
]
LONG_VIEW = ("Loss_intervals", "classes=2,3&n=200&labeled=10&family=complete&mode=paper")
"""Paper mode on a complete graph: node by node, tens of seconds (under the app's cap)."""

JSON_PAGES = ("Loss_intervals", "Conditioning", "Online_regret")
"""The pages whose JSON downloads a shown ``sslviz ... --no-timings`` command writes."""
SCREENSHOTS: Path | None = None
"""Where a failed session's screenshot goes (``--screenshots``; none by default)."""
DOWNLOAD = '[data-testid="stDownloadButton"]'
CODE = '[data-testid="stCode"] code'
DOWNLOAD_TIMEOUT_MS = 60_000
CLI = "import sys; from sslviz.cli import main; sys.exit(main(sys.argv[1:]))"
"""The shown ``sslviz ...`` line runs as ``python -c CLI ARGS`` (this interpreter's sslviz)."""

SIGNATURE = """() => JSON.stringify([...document.querySelectorAll('.js-plotly-plot')]
    .map(g => (g.data || []).map(t => [t.name, t.x, t.y, t.z])))"""


def source_state() -> str:
    """The commit the run used, and whether the working tree had uncommitted changes."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            timeout=10,
            capture_output=True,
            text=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain"], cwd=ROOT, timeout=10, capture_output=True, text=True
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head + (" + uncommitted changes" if dirty else "")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def screenshot(page, url: str) -> None:
    """A failed session's page, to ``SCREENSHOTS`` (when set)."""
    if SCREENSHOTS is None:
        return
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    name = "".join(ch if ch.isalnum() else "_" for ch in url.split("/", 3)[-1]) or "home"
    try:
        await page.screenshot(
            path=SCREENSHOTS / f"{name}_{time.time():.0f}.png", full_page=True, timeout=10_000
        )
    except Exception:  # a screenshot is a diagnosis aid only
        pass


async def diagnose(page) -> dict | str:
    """What a session that timed out shows: chart containers and drawn charts, whether the
    script still runs, exception boxes (a diagnosis of the failure, not a result)."""
    try:
        return await page.evaluate(
            """(idle) => ({
            chart_elements: document.querySelectorAll(
                '[data-testid="stPlotlyChart"], div.sslviz-chart').length,
            drawn_charts: document.querySelectorAll('.js-plotly-plot').length,
            running: !document.querySelector(idle),
            exceptions: [...document.querySelectorAll('[data-testid="stException"]')]
                .map(e => e.innerText.slice(0, 600)),
            plotly_loaded: typeof window.Plotly !== 'undefined'})""",
            IDLE,
        )
    except Exception as exc:  # the page itself may be gone
        return repr(exc)[:200]


async def wait_idle(page) -> None:
    await page.wait_for_timeout(300)
    await page.wait_for_selector(IDLE, timeout=TIMEOUT_MS)


def out_name(line: str) -> str | None:
    """The ``--out`` file name of a shown command line (None without one)."""
    argv = shlex.split(line)
    return argv[argv.index("--out") + 1] if "--out" in argv[:-1] else None


async def json_downloads(page) -> dict:
    """``{file name: {"bytes": ..., "command": shown line}}`` for every JSON download of the
    page that one of its shown command lines writes (``--out NAME``): opens the "Export"
    tab and the export expanders, clicks each download button and reads the file."""
    for tab in await page.get_by_role("tab", name="Export", exact=True).all():
        await tab.click()
    summaries = page.locator('[data-testid="stExpander"] summary').filter(has_text="export")
    for summary in await summaries.all():
        if await summary.locator("xpath=..").get_attribute("open") is None:
            await summary.click()
    await wait_idle(page)
    # the shown commands and the buttons are drawn with the tab/expander: wait for them
    await page.wait_for_function(
        """() => [...document.querySelectorAll('[data-testid="stCode"] code')]
            .some(c => c.textContent.includes('--out'))
            && document.querySelectorAll('[data-testid="stDownloadButton"]').length > 0""",
        timeout=DOWNLOAD_TIMEOUT_MS,
    )
    lines = []
    for code in await page.locator(CODE).all():
        lines += [x for x in (await code.text_content() or "").splitlines() if x.strip()]
    commands = {out_name(x): x for x in lines if x.startswith("sslviz ") and out_name(x)}
    names = [(await b.text_content() or "").strip() for b in await page.locator(DOWNLOAD).all()]
    out = {}
    for name in names:
        if not name.endswith(".json") or name not in commands:
            continue  # e.g. the Speed page's speed.json: measured times, no such command
        button = page.locator(DOWNLOAD).filter(has_text=name).locator("button")
        async with page.expect_download(timeout=DOWNLOAD_TIMEOUT_MS) as info:
            await button.first.click()
        download = await info.value
        path = await download.path()
        out[name] = {"bytes": Path(path).read_bytes(), "command": commands[name]}
        await wait_idle(page)  # a download button reruns the script
    if not out:
        raise RuntimeError(
            f"no JSON download written by a shown command; buttons {names}, "
            f"commands for {sorted(commands)}"
        )
    return out


async def open_view(browser, url: str, downloads: bool = False) -> dict:
    """Open ``url`` in a new context; time to the last chart with the app idle; with
    ``downloads``, then the page's JSON downloads (:func:`json_downloads`)."""
    ctx = await browser.new_context(viewport={"width": 1400, "height": 900}, accept_downloads=True)
    page = await ctx.new_page()
    t0 = time.perf_counter()
    out = {"url": url}
    try:
        try:
            await page.goto(url, timeout=TIMEOUT_MS)
            await page.wait_for_selector(CHART, timeout=TIMEOUT_MS)
            await wait_idle(page)
            out["seconds"] = time.perf_counter() - t0
            out["exceptions"] = await page.locator(EXCEPTION).count()
            out["signature"] = await page.evaluate(SIGNATURE)
        except Exception as exc:  # a timeout counts as a failure of this session
            out["seconds"], out["exceptions"], out["error"] = None, None, repr(exc)[:300]
            out["diagnosis"] = await diagnose(page)
            if isinstance(out["diagnosis"], dict):  # exception boxes of the failed session
                out["exceptions"] = len(out["diagnosis"]["exceptions"])
            await screenshot(page, url)
        path = url.split("/", 3)[-1].split("?")[0]
        if downloads and out["seconds"] is not None and path in JSON_PAGES:
            try:
                out["json"] = await json_downloads(page)
            except Exception as exc:  # recorded: the other sessions still count
                out["json_error"] = repr(exc)[:300]
                await screenshot(page, url)
    finally:
        await ctx.close()
    return out


def run_cli(line: str, folder: Path, timeout: float) -> dict:
    """Run a shown ``sslviz ...`` line (its ``--out`` redirected into ``folder``) in a
    subprocess; ``{"bytes", "seconds"}`` or ``{"error"}``."""
    argv = shlex.split(line)
    assert argv[0] == "sslviz" and "--no-timings" in argv, line
    out = folder / f"cli_{hashlib.sha256(line.encode()).hexdigest()[:12]}.json"
    argv[argv.index("--out") + 1] = str(out)
    t0 = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-c", CLI, *argv[1:]],
            cwd=ROOT,
            timeout=timeout,
            capture_output=True,
            text=True,
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout:g} s"}
    if done.returncode != 0 or not out.is_file():
        return {"error": f"exit {done.returncode}: {done.stderr.strip()[-300:]}"}
    return {"bytes": out.read_bytes(), "seconds": time.perf_counter() - t0}


def sha(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()[:16]


def json_diff(a, b, path: str = "$", out: list | None = None, limit: int = 20) -> list[str]:
    """The JSON paths where ``a`` and ``b`` differ (at most ``limit``), e.g.
    ``$.score.missed: 3 != 4``."""
    out = [] if out is None else out
    if len(out) >= limit:
        return out
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            out.append(f"{path}: keys {sorted(set(a) ^ set(b)) or 'in another order'}")
        for k in a:
            if k in b:
                json_diff(a[k], b[k], f"{path}.{k}", out, limit)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{path}: length {len(a)} != {len(b)}")
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            json_diff(x, y, f"{path}[{i}]", out, limit)
    elif a != b or type(a) is not type(b):
        out.append(f"{path}: {a!r:.60} != {b!r:.60}")
    return out[:limit]


def diff_bytes(a: bytes, b: bytes) -> list[str]:
    """Where two JSON files differ: JSON paths, or the first differing byte when the
    parsed documents are equal (formatting)."""
    try:
        paths = json_diff(json.loads(a), json.loads(b))
    except ValueError as exc:
        return [f"not JSON: {exc}"]
    if paths:
        return paths
    i = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return [f"same JSON, bytes differ from offset {i}: {a[i : i + 40]!r} != {b[i : i + 40]!r}"]


def compare_json(loaded: list[dict], alone: list[dict], timeout: float) -> list[dict]:
    """Per session and JSON file: the bytes under load, alone and from the shown command."""
    rows = []
    cli: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="sslviz_load_") as tmp:
        for a, b in zip(loaded, alone, strict=True):
            if a["url"].split("/", 3)[-1].split("?")[0] not in JSON_PAGES:
                continue
            docs_a, docs_b = a.get("json") or {}, b.get("json") or {}
            for name in sorted(set(docs_a) | set(docs_b)):
                da, db = docs_a.get(name, {}), docs_b.get(name, {})
                line = da.get("command") or db.get("command")
                if line not in cli:
                    cli[line] = run_cli(line, Path(tmp), timeout)
                c = cli[line]
                files = {"load": da.get("bytes"), "alone": db.get("bytes"), "cli": c.get("bytes")}
                equal = None not in files.values() and len(set(files.values())) == 1
                row = {
                    "url": a["url"].split("/", 3)[-1],
                    "file": name,
                    "command": line,
                    "same_command_alone": da.get("command") == db.get("command")
                    if da and db
                    else None,
                    "bytes_equal": equal,
                    "sha256": {k: sha(v) for k, v in files.items()},
                    "size": {k: None if v is None else len(v) for k, v in files.items()},
                    "cli_seconds": c.get("seconds"),
                    "cli_error": c.get("error"),
                }
                if not equal:
                    row["differences"] = {
                        f"{x} vs {y}": diff_bytes(files[x], files[y])
                        for x, y in (("load", "cli"), ("alone", "cli"), ("load", "alone"))
                        if files[x] is not None and files[y] is not None and files[x] != files[y]
                    }
                rows.append(row)
            for which, v in (("load", a), ("alone", b)):
                why = v.get("json_error")
                if not why and not v.get("json"):
                    why = f"no download: the page did not load ({v.get('error')})"
                if why:
                    rows.append(
                        {
                            "url": a["url"].split("/", 3)[-1],
                            "file": None,
                            "bytes_equal": False,
                            "error": f"{which}: {why}",
                        }
                    )
    return rows


async def long_request_then_close(browser, url: str, close_after: float) -> None:
    ctx = await browser.new_context(viewport={"width": 1400, "height": 900})
    page = await ctx.new_page()
    await page.goto(url, timeout=TIMEOUT_MS)
    await page.wait_for_timeout(int(1000 * close_after))
    await ctx.close()


async def run(args) -> dict:
    from playwright.async_api import async_playwright

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = ROOT / "benchmarks" / "results" / "load_test_server.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    t_start = time.perf_counter()
    proc = start_server(port, log)
    report: dict = {
        "machine": machine(),
        "source": source_state(),
        "sessions": args.sessions,
        "server_start_s": round(time.perf_counter() - t_start, 2),
    }
    try:
        views = (VIEWS * (1 + args.sessions // len(VIEWS)))[: args.sessions]
        urls = [f"{base}/{path}" + (f"?{q}" if q else "") for path, q in views]
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            report["rss_before_mb"] = round(rss_mb(proc.pid), 1)
            t0 = time.perf_counter()
            loaded = await asyncio.gather(*(open_view(browser, u, args.json) for u in urls))
            report["load_wall_s"] = round(time.perf_counter() - t0, 2)
            report["rss_after_mb"] = round(rss_mb(proc.pid), 1)
            # the same URLs alone, one at a time, on a fresh server (nothing cached)
            stop_server(proc)
            port = free_port()
            base2 = f"http://127.0.0.1:{port}"
            proc = start_server(port, log)
            alone = [await open_view(browser, u.replace(base, base2), args.json) for u in urls]
            base = base2
            rows = []
            for a, b in zip(loaded, alone, strict=True):
                rows.append(
                    {
                        "url": a["url"].split("/", 3)[-1],
                        "seconds_under_load": a["seconds"],
                        "seconds_alone": b["seconds"],
                        "exceptions": a["exceptions"],
                        "same_numbers_alone": a.get("signature") is not None
                        and a.get("signature") == b.get("signature"),
                        "error": a.get("error") or b.get("error"),
                    }
                    | ({"diagnosis": a["diagnosis"]} if a.get("diagnosis") else {})
                )
            report["views"] = rows
            times = [r["seconds_under_load"] for r in rows if r["seconds_under_load"] is not None]
            report["time_to_chart_s"] = (
                {
                    "min": round(min(times), 2),
                    "median": round(statistics.median(times), 2),
                    "max": round(max(times), 2),
                }
                if times
                else None
            )
            if args.json:
                report["json"] = compare_json(loaded, alone, args.cli_timeout)
            report["exceptions"] = sum(r["exceptions"] or 0 for r in rows)
            report["failed_sessions"] = sum(r["seconds_under_load"] is None for r in rows)
            # a long request whose tab is closed: how soon is the server idle again?
            long_url = f"{base}/{LONG_VIEW[0]}?{LONG_VIEW[1]}"
            await long_request_then_close(browser, long_url, args.close_after)
            t_closed = time.perf_counter()
            idle_after = None
            last = cpu_seconds(proc.pid)
            while time.perf_counter() - t_closed < args.idle_cap:
                await asyncio.sleep(1.0)
                now = cpu_seconds(proc.pid)
                if now - last < 0.1:
                    idle_after = round(time.perf_counter() - t_closed, 1)
                    break
                last = now
            report["long_request"] = {
                "url": long_url.removeprefix(base),
                "closed_after_s": args.close_after,
                "idle_after_close_s": idle_after,
                "idle_cap_s": args.idle_cap,
            }
            await browser.close()
    finally:
        stop_server(proc)
    return report


def markdown(r: dict) -> str:
    lines = [
        "# Load test (`python benchmarks/load_test.py`)",
        "",
        f"{r['sessions']} Chromium sessions at once on one server (127.0.0.1), then each "
        "URL alone. Machine: " + json.dumps(r["machine"]) + " (the machine was shared with "
        "other work while this ran). Source: " + r.get("source", "unknown") + ".",
        "",
        f"- time to chart under load (s): {r['time_to_chart_s']}; wall {r['load_wall_s']} s",
        f"- exceptions: {r['exceptions']}; failed sessions: {r['failed_sessions']}",
        f"- server memory (RSS): {r['rss_before_mb']} MB before, {r['rss_after_mb']} MB "
        "after the sessions",
        f"- long request closed after {r['long_request']['closed_after_s']} s: server idle "
        f"after {r['long_request']['idle_after_close_s']} s "
        f"(cap {r['long_request']['idle_cap_s']} s; None = still busy at the cap)",
        "",
        "| view | s under load | s alone | exceptions | same numbers alone |",
        "|---|---|---|---|---|",
    ]
    for v in r["views"]:
        f = lambda x: "timeout" if x is None else f"{x:.2f}"  # noqa: E731
        lines.append(
            f"| `{v['url'] or '/'}` | {f(v['seconds_under_load'])} | "
            f"{f(v['seconds_alone'])} | {v['exceptions']} | "
            f"{'yes' if v['same_numbers_alone'] else 'NO'} |"
        )
    for v in r["views"]:
        if v.get("error"):
            lines += [
                "",
                f"`{v['url'] or '/'}` failed: {v['error'].splitlines()[0]}"
                + (f"; page at the timeout: {v['diagnosis']}" if v.get("diagnosis") else ""),
            ]
    if "json" in r:
        js = r["json"]
        same = sum(bool(j["bytes_equal"]) for j in js)
        lines += [
            "",
            "## JSON export: beside 7 other sessions, alone, and the CLI",
            "",
            "Each JSON download that a command line shown on the page writes "
            "(`--out NAME`), downloaded in the session under load and in the same URL "
            "alone (Playwright `expect_download`), and written by that shown command "
            "(`sslviz ... --no-timings`, run in a subprocess after the browser runs). "
            "sha256: first 16 hex digits. The Speed page's speed.json holds measured "
            "times and no command writes it: not compared.",
            "",
            f"**{same} of {len(js)} files: the same bytes in all three** (a row "
            "without a file is a download that failed).",
            "",
            "| view | file | bytes equal | sha256 under load | alone | CLI | size B | CLI s |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for j in js:
            if j.get("file") is None:
                lines.append(f"| `{j['url'] or '/'}` | — | NO ({j['error']}) | | | | | |")
                continue
            h, size = j["sha256"], j["size"]["cli"] or j["size"]["load"]
            note = " (command differs alone)" if j["same_command_alone"] is False else ""
            cli_s = f"{j['cli_seconds']:.1f}" if j["cli_seconds"] is not None else j["cli_error"]
            lines.append(
                f"| `{j['url'] or '/'}` | {j['file']} | "
                f"{'yes' if j['bytes_equal'] else 'NO'}{note} | `{h['load']}` | "
                f"`{h['alone']}` | `{h['cli']}` | {size} | {cli_s} |"
            )
        for j in js:
            for pair, where in (j.get("differences") or {}).items():
                lines += ["", f"`{j['url']}` {j['file']}, {pair}: " + "; ".join(where)]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=8)
    ap.add_argument(
        "--close-after",
        type=float,
        default=5.0,
        help="seconds before the long request's tab is closed",
    )
    ap.add_argument(
        "--idle-cap",
        type=float,
        default=60.0,
        help="stop waiting for the server to be idle after this many seconds",
    )
    ap.add_argument(
        "--no-json",
        dest="json",
        action="store_false",
        help="skip the JSON downloads and their comparison with the CLI",
    )
    ap.add_argument(
        "--cli-timeout",
        type=float,
        default=300.0,
        help="seconds one shown command line may take in the CLI",
    )
    ap.add_argument(
        "--screenshots",
        type=Path,
        default=None,
        help="folder for screenshots of failed sessions (none by default)",
    )
    args = ap.parse_args()
    global SCREENSHOTS
    SCREENSHOTS = args.screenshots
    report = asyncio.run(run(args))
    write("load_test", report, markdown(report))


if __name__ == "__main__":
    main()
