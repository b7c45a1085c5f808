"""The shared sidebar: the data, the instance, the graph, the σ range and the solver.

The σ range follows the data: it moves to the suggested range whenever the data settings
change, unless the user typed a range for those data (remembered per session). Each data
source keeps its own classes, n, |L| and PCA dims (back on digits after an upload, digits'
own return), and a new file gets the ones that fit it at once. Whatever the app changes of
what the user set is said under the controls it changed, with a button that undoes it; a
number out of its bounds is said under its box (:func:`ui.widgets.widget`).
"""

from __future__ import annotations

import hashlib
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import streamlit as st

from sslviz import costs
from sslviz import specs as S
from sslviz._validation import options_text
from sslviz.specs import ProblemSpec, SigmaRange, SweepSettings
from ui import cache, caps, nav, presenter, progress, url, widgets

UPLOAD = "upload a file…"


@dataclass
class AppSettings:
    """What a page needs: the validated settings or the reasons it cannot compute."""

    cfg: dict
    spec: ProblemSpec | None = None
    settings: SweepSettings | None = None
    sigma_range: SigmaRange | None = None
    suggested: tuple[float, float] | None = None
    errors: list[str] = field(default_factory=list)
    unknown: int = 0  # points of the data file whose y is −1 (their labels unknown)

    @property
    def ok(self) -> bool:
        return not self.errors and self.spec is not None and self.sigma_range is not None

    @property
    def sigma(self) -> tuple[float, float]:
        return float(self.sigma_range.sigma_min), float(self.sigma_range.sigma_max)

    def show_errors(self) -> bool:
        """Show each error with ``st.error``; True when the page may compute."""
        for e in self.errors:
            st.error(e)
        return self.ok


def range_warning(lo: float, hi: float, suggested: tuple[float, float]) -> str | None:
    """A warning when [lo, hi] is far outside the data's distance scale, else None."""
    s_lo, s_hi = suggested
    if hi <= s_lo or lo >= s_hi:
        return (
            f"The range [{lo:g}, {hi:g}] lies outside the data's distance scale "
            f"(suggested [{s_lo:g}, {s_hi:g}]): every node sees almost the same graph "
            "there, so the loss is flat."
        )
    if lo < 0.25 * s_lo:
        return (
            f"σ_min = {lo:g} is far below the suggested {s_lo:g}: at very small "
            "bandwidths weights underflow and the exact loss can take minutes."
        )
    if hi > 4 * s_hi:
        return (
            f"σ_max = {hi:g} is far above the suggested {s_hi:g}: beyond it the graph is "
            "nearly uniform and the loss no longer changes."
        )
    return None


def _save_upload(upload) -> tuple[str, str]:
    data = upload.getvalue()
    ext = Path(upload.name).suffix.lower()
    folder = Path(tempfile.gettempdir()) / "sslviz_uploads"
    folder.mkdir(exist_ok=True)
    path = folder / f"{hashlib.sha256(data).hexdigest()[:16]}{ext}"
    if not path.exists():
        path.write_bytes(data)
    return str(path), upload.name


def _set_range(lo: float, hi: float) -> None:
    cfg = url.session_cfg()
    cfg["sigma_min"], cfg["sigma_max"] = float(lo), float(hi)
    st.session_state["w_sigma_min"], st.session_state["w_sigma_max"] = float(lo), float(hi)


def _range_typed() -> None:
    """The user typed a range: remember it for the current data."""
    fp = st.session_state.get("range_for")
    lo, hi = st.session_state.get("w_sigma_min"), st.session_state.get("w_sigma_max")
    st.session_state.setdefault("typed_ranges", {})[fp] = (lo, hi)


def _use_suggested(lo: float, hi: float) -> None:
    _set_range(lo, hi)
    st.session_state.setdefault("typed_ranges", {}).pop(st.session_state.get("range_for"), None)


def _data_source(sb, out: AppSettings):
    """Dataset picker / uploader; returns the loaded dataset or None (errors in ``out``)."""
    cfg = url.session_cfg()
    choices = [*S.DATASETS, UPLOAD]
    if st.session_state.get("w_source") not in choices:  # re-seeded every run: see widget()
        st.session_state["w_source"] = (
            UPLOAD
            if cfg.get("data_file")
            else cfg.get("dataset", S.default(ProblemSpec, "dataset"))
        )
    else:
        st.session_state["w_source"] = st.session_state["w_source"]
    row = S.setting(ProblemSpec, "dataset")
    target = presenter.placement(sb, "dataset")
    if target is None:  # presenter mode, a tour that does not use it
        ds = st.session_state.pop("w_source")
    else:
        ds = target.selectbox(row.label, choices, key="w_source", help=row.help)
    if ds == UPLOAD:
        up = sb.file_uploader(
            "Data file (.npz or .csv)",
            type=["npz", "csv"],
            key="w_upload",
            help=S.setting(ProblemSpec, "data_file").help,
        )
        if up is not None:
            cfg["data_file"], cfg["data_file_name"] = _save_upload(up)
        if cfg.get("data_file"):
            sb.caption(
                f"Using {cfg['data_file_name']}. An uploaded file cannot travel in a "
                "link: whoever opens it must upload the same file."
            )
        else:
            out.errors.append(
                "Upload an .npz (arrays X, y) or .csv file (a y column), y = −1 marking an "
                "unlabeled point as in scikit-learn, or pick a dataset."
            )
            return None
    else:
        cfg["dataset"], cfg["data_file"], cfg["data_file_name"] = ds, None, None
    try:
        name = cfg.get("data_file_name") or cfg.get("dataset", "digits")
        with st.spinner(f"Loading {name}…", show_time=True):  # drawn past 0.5 s only
            return cache.dataset(cfg.get("dataset", "digits"), cfg.get("data_file"))
    except Exception as exc:  # DatasetUnavailableError, a bad user file, ...
        out.errors.append(widgets.readable(exc))
        return None


def _large_toggled(pool: int) -> None:
    """The large option's checkbox: n jumps to the whole pool, and back to where it was."""
    cfg = url.session_cfg()
    if st.session_state["w_large"]:
        st.session_state["n_before_large"] = cfg.get("n")
        n = pool
    else:
        n = min(st.session_state.pop("n_before_large", None) or caps.MAX_N, caps.MAX_N)
    cfg["n"] = st.session_state["w_n"] = n
    for key in ("node", "sigma0"):  # another instance: its own drill-down default
        cfg.pop(key, None)
        st.session_state.pop(f"w_{key}", None)


def _large_estimate(out: AppSettings) -> str:
    """What the large option costs here, step by step as the loss page runs them
    (:mod:`sslviz.costs` estimates)."""
    if not out.ok or out.settings is None:
        return f"Large instance, n = {out.cfg.get('n', 0):,}: fix the settings above first."
    lo, hi = out.sigma
    spec, settings = out.spec, out.settings
    build = costs.build(spec).seconds
    loss = costs.loss_curve(spec, lo, hi, out.suggested).seconds - build
    alg4 = costs.sweep(spec, lo, hi, settings, out.suggested).seconds - build
    points = out.cfg.get("points") or S.default(S.ConditionSettings, "points")
    trust = costs.trust(spec, points, settings.cg_iters).seconds - build
    attribution = cache.ATTRIBUTION_SECONDS
    t = costs.seconds_text
    return (
        f"Large instance, n = {spec.n:,}. Estimated on this server: building it about "
        f"{t(build)}, the exact loss about {t(loss)}, Algorithm 4 about {t(alg4)} (and "
        f"once more to time it), the causes of its misses about {t(attribution)} (a "
        f"sample spread over σ when there are many), the trust panel ({points} σ) about "
        f"{t(trust)}; then the node drill-down, about "
        f"{t(caps.LARGE_NODE_GRID * costs.solve_seconds(spec))}."
    )


RANGE_REPLACED = "range_replaced"  # session keys of the notices: the σ range replaced,
CHANGED = "settings_changed"  # and the instance settings the app changed for new data
SOURCE_KEYS = ("classes", "n", "labeled", "pca")
"""URL keys of the instance settings each data source keeps (restored on going back to it)."""


def _and(values) -> str:
    return options_text([str(v) for v in values], "and")


def _pair(sb) -> tuple:
    """Two boxes side by side, and the place under both where the reason of a value out of
    bounds goes (a half-width column would wrap it a word a line)."""
    c0, c1 = sb.columns(2)
    return c0, c1, sb.container()


def _not_in(missing: list) -> str:
    """``class 7 is not in`` / ``classes 2 and 3 are not in``."""
    if len(missing) == 1:
        return f"class {missing[0]} is not in"
    return f"classes {_and(missing)} are not in"


def _source() -> str | None:
    """The data source: an uploaded file (this server's copy) or a named dataset."""
    cfg = url.session_cfg()
    return cfg.get("data_file") or cfg.get("dataset")


def _data_name() -> str:
    """The data source as its user names it (an upload by its own file name)."""
    cfg = url.session_cfg()
    return cfg.get("data_file_name") or cfg.get("dataset") or S.default(ProblemSpec, "dataset")


def _put(values: dict) -> None:
    """Set instance settings (URL key → value) in the session and in their widgets."""
    cfg = url.session_cfg()
    for key, value in values.items():
        cfg[key] = value
        if key == "classes":  # both pickers move: keeping one could pair a class with itself
            for i in (0, 1):
                st.session_state[f"w_classes_{i}"] = value[i]
        else:
            st.session_state[f"w_{key}"] = value


def _remember(dataset) -> None:
    """Keep the instance settings of the current data source, for going back to it."""
    if dataset is not None and _source() is not None:
        cfg = url.session_cfg()
        kept = st.session_state.setdefault("by_source", {})
        kept[_source()] = {k: cfg[k] for k in SOURCE_KEYS if cfg.get(k) is not None}
        st.session_state["source_was"] = _source()


def _source_changed(dataset) -> None:
    """On a new data source: back on one used before, its own instance settings return
    (the classes of digits after an upload); a new file gets, in one step, the classes, n,
    |L| and PCA dims that fit it (:func:`_propose`)."""
    was, now = st.session_state.get("source_was"), _source()
    if was is None or was == now:
        return
    st.session_state.pop(CHANGED, None)
    saved = st.session_state.get("by_source", {}).get(now)
    if saved:
        _put(saved)
    elif url.session_cfg().get("data_file"):
        _propose(dataset, was)


def _propose(dataset, was: str) -> None:
    """Settings that fit a newly uploaded file, set at once and said under the pickers:
    classes it has, n at most its pool, |L| below n, PCA dims at most its features."""
    cfg = url.session_cfg()
    have = list(dataset.classes)
    old = tuple(cfg.get("classes", S.default(ProblemSpec, "classes")))
    new, said = {}, []
    pair = old
    if len(have) >= 2 and any(c not in have for c in old):
        pair = new["classes"] = (have[0], have[1])
        said.append(f"classes {_and(pair)} ({_not_in([c for c in old if c not in have])} it)")
    fixed = dataset.labeled is not None  # its rows are used as they are: no n or |L|
    rows = dataset.n_samples if fixed else int(np.isin(dataset.y, pair).sum())
    n = cfg.get("n", S.default(ProblemSpec, "n"))
    if not fixed and rows >= 3 and n > rows:
        n = new["n"] = rows
        said.append(f"n = {rows:,}, the size of its pool of classes {_and(pair)}")
    n_labeled = cfg.get("labeled", S.default(ProblemSpec, "n_labeled"))
    if not fixed and n_labeled >= n:
        new["labeled"] = max(2, min(n_labeled, n - 1))
        said.append(f"|L| = {new['labeled']}, below n")
    pca = cfg.get("pca", S.default(ProblemSpec, "pca"))
    if pca > dataset.n_features:
        new["pca"] = 0
        said.append(f"PCA dims 0: its {dataset.n_features:,} features as they are")
    elif pca > rows:
        new["pca"] = rows
        said.append(f"PCA dims {rows:,}, its number of rows")
    if new:
        _put(new)
        st.session_state[CHANGED] = {
            "source": _source(),
            "text": f"Set for {_data_name()}: " + "; ".join(said) + ".",
            "keep": new,
            "back": was if was in S.DATASETS else None,
        }


def _changed_notice(sb) -> None:
    """Under the class pickers, while the instance settings the app changed for these data
    stand: what changed and why, and a button back to the dataset used before."""
    cfg = url.session_cfg()
    note = st.session_state.get(CHANGED)
    if note is None:
        return
    if note["source"] != _source() or any(cfg.get(k) != v for k, v in note["keep"].items()):
        st.session_state.pop(CHANGED)  # the user moved on
        return
    back = note.get("back")
    _say(
        sb,
        note["text"],
        ":material/info:",
        back
        and dict(
            label=f"Back to {back}",
            key="w_source_back",
            on_click=_back_to,
            args=(back,),
            help="That dataset again, with the classes, n, |L| and PCA dims you had on it.",
        ),
    )


def _say(sb, text: str, icon: str, button: dict | None = None) -> None:
    """A change the app made to the user's settings, said under the controls it changed
    (at the top of the page in presenter mode, where the sidebar is hidden), with the
    button that undoes it (``st.button``'s arguments)."""
    where = st if presenter.run_view()["present"] else sb
    where.info(text, icon=icon)
    if button:
        where.button(**button)


def _back_to(dataset: str) -> None:
    cfg = url.session_cfg()
    cfg["dataset"], cfg["data_file"], cfg["data_file_name"] = dataset, None, None
    st.session_state["w_source"] = dataset
    st.session_state.pop(CHANGED, None)


def sidebar() -> AppSettings:
    """Draw the shared sidebar; return the page's settings (errors collected, not raised).

    First a requested tour is opened (it may switch to its page), presenter mode and the
    tour's text are drawn at the top of the page."""
    cfg = url.session_cfg()
    widgets.start_run()
    tour = presenter.open_tour()
    for w in st.session_state.pop("url_warnings", []):
        st.warning(w)
    presenter.top(tour)
    out = AppSettings(cfg)
    sb = st.sidebar
    nav.links(sb.container(key="nav_links"))
    sb.header("Problem instance")
    dataset = _data_source(sb, out)
    classes = list(dataset.classes) if dataset is not None else list(range(10))
    names = dataset.class_names if dataset is not None else {}
    if dataset is not None:
        _source_changed(dataset)
    pair = tuple(cfg.get("classes", S.default(ProblemSpec, "classes")))
    missing = [c for c in pair if c not in classes]
    if missing and dataset is not None:  # e.g. a link's classes on another dataset
        _put({"classes": (classes[0], classes[1])})
        st.session_state[CHANGED] = {
            "source": _source(),
            "text": f"{_not_in(missing).capitalize()} {_data_name()}: using {_and(classes[:2])}.",
            "keep": {"classes": (classes[0], classes[1])},
        }
        pair = (classes[0], classes[1])
    cfg["classes"] = pair
    row = S.setting(ProblemSpec, "classes")
    target = presenter.placement(sb, "classes")
    chosen = list(pair)
    labels = {c: f"{c}: {names[c]}" if names.get(c, str(c)) != str(c) else str(c) for c in classes}
    # Side by side while the names fit half the sidebar ("0: T-shirt/top" was cut at 1400 px)
    places = (
        ()
        if target is None
        else (target.columns(2) if max(map(len, labels.values())) <= 10 else (target, target))
    )
    if len(pair) != 2:  # more classes (a link's classes=0,1,2 or all): one multiselect
        places = ()
        if target is not None:
            shown = list(pair) or classes  # all: every class of the dataset
            chosen = target.multiselect(
                "classes (one-vs-all; two for every page)",
                classes,
                default=[c for c in shown if c in classes],
                max_selections=S.MAX_CLASSES,
                help=row.help,
                format_func=labels.__getitem__,
            )
            if len(chosen) < 2:
                chosen = list(shown)
    for i, col in enumerate(places):
        key = f"w_classes_{i}"
        value = st.session_state.get(key)  # re-seeded every run: see widget()
        st.session_state[key] = value if value in classes else pair[i]
        chosen[i] = col.selectbox(
            f"class c{i}", classes, key=key, help=row.help, format_func=labels.__getitem__
        )
    if len(chosen) == 2 and len(pair) != 2:  # back to two: the pickers start from them
        for i in range(2):
            st.session_state[f"w_classes_{i}"] = chosen[i]
    cfg["classes"] = tuple(chosen)
    _changed_notice(sb)
    c0, c1, note = _pair(sb)
    pool = int(np.isin(dataset.y, cfg["classes"]).sum()) if dataset is not None else 0
    family = url.family_of(cfg)
    offer = pool > caps.MAX_N and family.sparse
    large = offer and cfg.get("n") == min(pool, caps.MAX_LARGE_N)  # the whole pool
    high, why = caps.n_cap(family.name, large)
    if dataset is not None and dataset.labeled is None and pool <= high:
        high, why = (
            pool,
            f"the size of the pool of classes {_and(cfg['classes'])} in {_data_name()}",
        )
    elif offer and not large:
        why += f" (the whole pool, {min(pool, caps.MAX_LARGE_N):,} points, with the large option)"
    widgets.widget(c0, ProblemSpec, "n", step=10, high=high, why=why, disabled=large, note=note)
    widgets.widget(c1, ProblemSpec, "n_labeled", note=note)
    estimate_slot = None
    if offer and presenter.placement(sb, "n") is not None:
        st.session_state["w_large"] = large  # re-seeded every run: see widget()
        sb.checkbox(
            f"Large: the whole pool of the two classes ({min(pool, caps.MAX_LARGE_N):,} points)",
            key="w_large",
            on_change=_large_toggled,
            args=(min(pool, caps.MAX_LARGE_N),),
            help=f"Above {caps.MAX_N:,} points (this server's usual cap), sparse graphs only. "
            "Each page shows the time it estimates for its computation below, its progress "
            "while it runs, and a Stop button.",
        )
        estimate_slot = sb.empty()
    c0, c1, note = _pair(sb)
    widgets.widget(c0, ProblemSpec, "seed", note=note)
    widgets.widget(c1, ProblemSpec, "pca", note=note)

    sb.header("Graph and labeling")
    widgets.plugin_warnings(sb, short=True)
    c0, c1, note = _pair(sb)
    widgets.widget(c0, ProblemSpec, "family", note=note)
    reads_k = "k" in url.family_of(cfg).reads
    widgets.widget(c1, ProblemSpec, "k", disabled=not reads_k, note=note)
    widgets.widget(sb, ProblemSpec, "labeling", radio=True)
    rows = url.model_of(cfg).reads  # the model's own settings, two to a line
    for i in range(0, len(rows), 2):
        c0, c1, note = _pair(sb)
        for col, name in zip((c0, c1), rows[i : i + 2], strict=False):
            widgets.widget(col, ProblemSpec, name, note=note)
    _remember(dataset)
    out.errors += widgets.bound_errors()  # each also under its box
    if not out.errors:
        try:
            out.spec = url.spec_from_cfg(ProblemSpec, cfg, data_file=cfg.get("data_file"))
            out.errors += caps.cap_errors(out.spec)
            if not out.errors:
                with progress.progress(
                    f"Building the instance: {out.spec.n:,} points, PCA, "
                    f"{out.spec.family} graph, labeling model…",
                    key=("instance", out.spec),
                ):
                    out.suggested = cache.suggested_range(out.spec)
                    out.unknown = cache.problem(out.spec).instance.unknown
        except (ValueError, TypeError, FileNotFoundError) as exc:
            out.errors.append(widgets.readable(exc))
            out.spec = None
    _range_section(sb, out)

    sb.header("Solver and Algorithm 4")
    c0, c1, note = _pair(sb)
    widgets.widget(c0, SweepSettings, "solver", note=note)
    widgets.widget(c1, SweepSettings, "cg_iters", note=note)
    widgets.widget(sb, SweepSettings, "mode", radio=True)
    widgets.more_controls(
        sb.expander("Algorithm 4 parameters (ε, η, step, cap, …)"),
        SweepSettings,
        "solver",
        "cg_iters",
        "mode",
    )
    solver_errors = widgets.bound_errors(SweepSettings)
    out.errors += solver_errors
    try:
        out.settings = None if solver_errors else url.spec_from_cfg(SweepSettings, cfg)
    except (ValueError, TypeError) as exc:
        out.errors.append(widgets.readable(exc))
    if estimate_slot is not None and large:
        estimate_slot.info(_large_estimate(out), icon=":material/timer:")
    sb.caption(
        "Every setting is in the page's link, the open tab and the player's step too (not "
        "what moves only in the browser: the CG-iterations slider, a chart's zoom): copy it "
        "to share this view."
    )
    st.session_state["w_present"] = bool(cfg.get("present"))  # re-seeded: see widget()
    sb.toggle(
        "Presenter mode",
        key="w_present",
        on_change=presenter.present_toggled,
        help="For a projector: no sidebar, larger fonts and charts, and on a tour's "
        "page only the controls the tour uses (present=1 in the link).",
    )
    url.sync_url()
    return out


def _range_section(sb, out: AppSettings) -> None:
    """The σ range: follows the data unless typed for these data; warns when far off. A
    range the user set that the data's suggestion replaces is said under the boxes, with a
    button that puts it back (:func:`_range_notice`)."""
    cfg = url.session_cfg()
    r = url.family_of(cfg).parameter
    sb.header(f"{r} range")
    fp = url.data_fingerprint(cfg)
    typed = st.session_state.setdefault("typed_ranges", {})
    if st.session_state.get("range_for") != fp:
        old_fp = st.session_state.get("range_for")
        yours = typed.get(old_fp) if old_fp is not None else None
        if st.session_state.pop("range_from_url", False):
            typed[fp] = (cfg["sigma_min"], cfg["sigma_max"])
            yours = None  # the link's (or the tour's) range: nothing of yours replaced
        st.session_state["range_for"] = fp
        lo_hi = typed.get(fp) or out.suggested
        if lo_hi is not None:
            _set_range(*lo_hi)
            if yours is not None and tuple(yours) != tuple(lo_hi):
                st.session_state[RANGE_REPLACED] = {"for": fp, "yours": yours, "now": lo_hi}
    if cfg.get("sigma_min") is None or cfg.get("sigma_max") is None:
        _set_range(*(out.suggested or (0.5, 5.0)))
    c0, c1, note = _pair(sb)
    widgets.widget(
        c0, SigmaRange, "sigma_min", label=f"{r}_min", on_change=_range_typed, step=0.1, note=note
    )
    widgets.widget(
        c1, SigmaRange, "sigma_max", label=f"{r}_max", on_change=_range_typed, step=0.1, note=note
    )
    _range_notice(sb, r, fp)
    if out.suggested is not None:
        lo, hi = out.suggested
        sb.button(
            f"Use suggested [{lo:g}, {hi:g}]",
            key="w_use_suggested",
            on_click=_use_suggested,
            args=(lo, hi),
            help="Half the median nearest-neighbour distance to twice the median distance "
            "to the 6th neighbour (edge-length range for threshold). The range moves there "
            "by itself when the data change, unless you typed one for those data.",
        )
    box_errors = widgets.bound_errors(SigmaRange)
    if box_errors:
        out.errors += box_errors
        return
    try:
        out.sigma_range = url.spec_from_cfg(SigmaRange, cfg)
    except (ValueError, TypeError) as exc:
        out.errors.append(
            widgets.readable(exc, labels={"sigma_min": f"{r}_min", "sigma_max": f"{r}_max"})
        )
        return
    if out.suggested is not None:
        warning = range_warning(*out.sigma, out.suggested)
        if warning:
            col, button = st.columns([5, 1])
            col.warning(warning)
            button.button(
                "Use the suggested range",
                key="w_fix_range",
                type="primary",
                on_click=_use_suggested,
                args=out.suggested,
            )


def _range_notice(sb, r: str, fp: tuple) -> None:
    """Under the range boxes, while the data's suggestion stands in for a range the user
    set for other data: what happened, and a button that puts the user's range back."""
    cfg = url.session_cfg()
    note = st.session_state.get(RANGE_REPLACED)
    if note is None:
        return
    now = (cfg.get("sigma_min"), cfg.get("sigma_max"))
    if note["for"] != fp or tuple(note["now"]) != now:
        st.session_state.pop(RANGE_REPLACED)  # the user moved on: nothing to undo
        return
    (lo, hi), (a, b) = note["yours"], note["now"]
    _say(
        sb,
        f"The {r} range moved to [{a:g}, {b:g}], the one suggested for these data; yours "
        f"was [{lo:g}, {hi:g}].",
        ":material/undo:",
        dict(
            label=f"Back to [{lo:g}, {hi:g}]",
            key="w_range_back",
            on_click=_range_back,
            args=(lo, hi),
            help="Put your range back (it then stays with these data).",
        ),
    )


def _range_back(lo: float, hi: float) -> None:
    _set_range(lo, hi)
    _range_typed()
    st.session_state.pop(RANGE_REPLACED, None)
