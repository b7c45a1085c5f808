"""The shared sidebar: the data, the instance, the graph, the σ range and the solver.

The σ range follows the data: it moves to the suggested range whenever the data settings
change, unless the user typed a range for those data (remembered per session).
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
from sslviz._validation import InvalidParameterError
from sslviz.specs import ProblemSpec, SigmaRange, SweepSettings
from ui import cache, caps, nav, presenter, url, widgets

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
            out.errors.append("Upload an .npz (arrays X, y) or .csv file, or pick a dataset.")
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


def sidebar() -> AppSettings:
    """Draw the shared sidebar; return the page's settings (errors collected, not raised).

    First a requested tour is opened (it may switch to its page), presenter mode and the
    tour's text are drawn at the top of the page."""
    cfg = url.session_cfg()
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
    pair = tuple(cfg.get("classes", S.default(ProblemSpec, "classes")))
    missing = [c for c in pair if c not in classes]
    if missing and dataset is not None:  # e.g. a link's classes on another dataset
        pair = (classes[0], classes[1])
        st.warning(f"Class(es) {missing} are not in this dataset; using {pair}.")
        for i in (0, 1):  # both pickers move: keeping one could pair a class with itself
            st.session_state[f"w_classes_{i}"] = pair[i]
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
    for i, col in enumerate(places):
        key = f"w_classes_{i}"
        value = st.session_state.get(key)  # re-seeded every run: see widget()
        st.session_state[key] = value if value in classes else pair[i]
        chosen[i] = col.selectbox(
            f"class c{i}", classes, key=key, help=row.help, format_func=labels.__getitem__
        )
    cfg["classes"] = tuple(chosen)
    c0, c1 = sb.columns(2)
    pool = int(np.isin(dataset.y, cfg["classes"]).sum()) if dataset is not None else 0
    offer = pool > caps.MAX_N and cfg.get("family") != "complete"
    large = offer and cfg.get("n", 0) > caps.MAX_N
    widgets.widget(
        c0,
        ProblemSpec,
        "n",
        step=10,
        high=min(pool, caps.MAX_LARGE_N) if large else None,
        disabled=large,
    )
    widgets.widget(c1, ProblemSpec, "n_labeled")
    estimate_slot = None
    if offer and presenter.placement(sb, "n") is not None:
        st.session_state["w_large"] = large  # re-seeded every run: see widget()
        sb.checkbox(
            f"Large: the whole pool of the two classes ({min(pool, caps.MAX_LARGE_N):,} points)",
            key="w_large",
            on_change=_large_toggled,
            args=(min(pool, caps.MAX_LARGE_N),),
            help=f"Above {caps.MAX_N:,} points (this server's usual cap), kNN graphs only. The "
            "exact loss of 12,000 points takes about half a minute here; each page shows "
            "its estimate below, its progress while it runs, and a Stop button.",
        )
        estimate_slot = sb.empty()
    c0, c1 = sb.columns(2)
    widgets.widget(c0, ProblemSpec, "seed")
    widgets.widget(c1, ProblemSpec, "pca")

    sb.header("Graph and labeling")
    c0, c1 = sb.columns(2)
    widgets.widget(c0, ProblemSpec, "family")
    widgets.widget(c1, ProblemSpec, "k", disabled=cfg["family"] == "complete")
    widgets.widget(sb, ProblemSpec, "labeling", radio=True)
    if cfg["labeling"] == "delalleau":
        c0, c1 = sb.columns(2)
        widgets.widget(c0, ProblemSpec, "subset")
        widgets.widget(c1, ProblemSpec, "lam")
    if not out.errors:
        try:
            out.spec = url.spec_from_cfg(ProblemSpec, cfg, data_file=cfg.get("data_file"))
            out.errors += caps.cap_errors(out.spec)
            if not out.errors:
                with st.spinner(
                    f"Building the instance: {out.spec.n:,} points, PCA, "
                    f"{out.spec.family} graph, labeling model…",
                    show_time=True,
                ):
                    out.suggested = cache.suggested_range(out.spec)
        except (ValueError, TypeError, FileNotFoundError) as exc:
            out.errors.append(widgets.readable(exc))
            out.spec = None
    _range_section(sb, out)

    sb.header("Solver and Algorithm 4")
    c0, c1 = sb.columns(2)
    widgets.widget(c0, SweepSettings, "solver")
    widgets.widget(c1, SweepSettings, "cg_iters")
    widgets.widget(sb, SweepSettings, "mode", radio=True)
    widgets.more_controls(
        sb.expander("Algorithm 4 parameters (ε, η, step, cap, …)"),
        SweepSettings,
        "solver",
        "cg_iters",
        "mode",
    )
    try:
        out.settings = url.spec_from_cfg(SweepSettings, cfg)
    except (ValueError, TypeError) as exc:
        out.errors.append(widgets.readable(exc))
    if estimate_slot is not None and large:
        estimate_slot.info(_large_estimate(out), icon=":material/timer:")
    sb.caption("Every setting is in the page's link: copy it to share this exact view.")
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
    """The σ range: follows the data unless typed for these data; warns when far off."""
    cfg = url.session_cfg()
    r = "r" if cfg.get("family") == "threshold" else "σ"
    sb.header(f"{r} range")
    fp = url.data_fingerprint(cfg)
    typed = st.session_state.setdefault("typed_ranges", {})
    if st.session_state.get("range_for") != fp:
        if st.session_state.pop("range_from_url", False):
            typed[fp] = (cfg["sigma_min"], cfg["sigma_max"])
        st.session_state["range_for"] = fp
        lo_hi = typed.get(fp) or out.suggested
        if lo_hi is not None:
            _set_range(*lo_hi)
    if cfg.get("sigma_min") is None or cfg.get("sigma_max") is None:
        _set_range(*(out.suggested or (0.5, 5.0)))
    c0, c1 = sb.columns(2)
    widgets.widget(c0, SigmaRange, "sigma_min", label=f"{r}_min", on_change=_range_typed, step=0.1)
    widgets.widget(c1, SigmaRange, "sigma_max", label=f"{r}_max", on_change=_range_typed, step=0.1)
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
    try:
        out.sigma_range = url.spec_from_cfg(SigmaRange, cfg)
    except (ValueError, TypeError) as exc:
        out.errors.append(
            f"{r}_min = {cfg['sigma_min']:g} must be smaller than {r}_max = {cfg['sigma_max']:g}."
            if isinstance(exc, InvalidParameterError)
            else widgets.readable(exc)
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
