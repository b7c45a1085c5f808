"""Shared sidebar and URL state of the sslviz app.

Every page calls :func:`sidebar` first. The settings live in ``st.session_state["cfg"]``
(a plain dict, so they survive page switches, which drop widget state) and are mirrored to
the URL query string on every run, so copying the link reproduces the view. On a session's
first run the URL is read; a value that does not parse or is out of range is replaced by
its default with a ``st.warning``.

The module also holds the request caps (env vars ``SSLVIZ_MAX_N``, ``SSLVIZ_MAX_COMPLETE_N``,
``SSLVIZ_MAX_ROUNDS``, ``SSLVIZ_MAX_REPEATS``, ``SSLVIZ_MAX_MEMORY_MB``), the cross-field
checks (k ≥ n, |L| ≥ n, σ_min ≥ σ_max, a complete graph too large) and the reproducing CLI
command.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import streamlit as st

import app_cache
from sslviz.data import DATASETS
from sslviz.graphs import FAMILIES
from sslviz.intervals import MODES, SweepSettings
from sslviz.labeling import LABELINGS
from sslviz.problem import ProblemSpec
from sslviz.solvers import SOLVERS

UPLOAD = "upload a file…"


def _env_int(name: str, default: int) -> int:
    try:
        return max(1, int(os.environ.get(name, default)))
    except ValueError:
        return default


MAX_N = _env_int("SSLVIZ_MAX_N", 3000)
MAX_COMPLETE_N = _env_int("SSLVIZ_MAX_COMPLETE_N", 1500)
MAX_ROUNDS = _env_int("SSLVIZ_MAX_ROUNDS", 300)
MAX_REPEATS = _env_int("SSLVIZ_MAX_REPEATS", 10)
MAX_MEMORY_MB = _env_int("SSLVIZ_MAX_MEMORY_MB", 1000)
DENSE_COPIES = 6  # dense n×n float64 arrays a complete-graph instance holds at once (estimate)


@dataclass(frozen=True)
class Param:
    kind: type  # int, float or str
    default: object
    low: float | None = None
    high: float | None = None
    options: tuple = ()


PARAMS: dict[str, Param] = {
    "dataset": Param(str, "digits", options=DATASETS),
    "c0": Param(int, 0, 0, 10**6),
    "c1": Param(int, 1, 0, 10**6),
    "n": Param(int, 100, 3, MAX_N),
    "labeled": Param(int, 10, 2, MAX_N),
    "seed": Param(int, 0, 0, 2**31 - 1),
    "pca": Param(int, 45, 0, 4096),
    "family": Param(str, "knn", options=FAMILIES),
    "k": Param(int, 6, 1, 1000),
    "labeling": Param(str, "harmonic", options=LABELINGS),
    "subset": Param(int, 50, 1, MAX_N),
    "lam": Param(float, 1.4, 1e-6, 1e6),
    "sigma_min": Param(float, None, 1e-6, 1e6),
    "sigma_max": Param(float, None, 1e-6, 1e6),
    "solver": Param(str, "cg", options=SOLVERS),
    "t": Param(int, 20, 1, 1000),
    "epsilon": Param(float, 1e-4, 1e-12, 1.0),
    "eta": Param(float, 1.0, 1e-6, 1e3),
    "step": Param(float, 0.05, 1e-6, 1e3),
    "mode": Param(str, "fast", options=MODES),
}

HELP = {
    "dataset": "Source of the points (DESIGN §2). digits is scikit-learn's 8×8 digits and "
    "needs no download; the paper uses MNIST 0 vs 1, Fashion-MNIST T-shirt vs Trouser and "
    "USPS 0 vs 1. Or upload an .npz (X, y[, labeled]) or a .csv with a label column.",
    "c0": "Class c0 of the binary problem (label 0).",
    "c1": "Class c1 of the binary problem (label 1).",
    "n": f"Number of points n drawn from the two classes (labeled + unlabeled), ≤ {MAX_N}.",
    "labeled": "Size of the labeled set |L| (stratified, both classes); the loss is measured "
    "on the n − |L| unlabeled points U.",
    "seed": "Seed of the instance draw (which points, which are labeled).",
    "pca": "Principal components kept (the paper uses 45); distances d_ij and σ are in this "
    "PCA space. 0 keeps the raw features.",
    "family": "Graph family (Definition 1): complete Gaussian graph; kNN (symmetrised 'or'); "
    "mutual kNN; threshold 1[d_ij ≤ r] on the mutual-kNN pattern, whose parameter is r.",
    "k": "Nearest neighbours per node (self excluded) for kNN / mutual kNN / threshold.",
    "labeling": "Harmonic objective (Zhu et al. 2003; Algorithm 2) or Delalleau et al. 2005 "
    "(Algorithm 3: solve on L ∪ Ũ, extend to the rest).",
    "subset": "Delalleau's m = |Ũ|: unlabeled nodes solved for exactly (paper: 50).",
    "lam": "Delalleau's λ: weight of the fit to the labels (paper: 1.4).",
    "sigma_min": "σ_min of the bandwidth range (r_min for the threshold family), in PCA-space "
    "distance units.",
    "sigma_max": "σ_max of the bandwidth range (r_max for the threshold family).",
    "solver": "Linear solver for the soft labels: cg = t iterations of conjugate gradient "
    "(the paper's approximation), pcg = Jacobi-preconditioned CG, exact = LU, inverse = "
    "matrix inverse (the paper's baseline in Table 1).",
    "t": "t, the fixed number of CG iterations per solve (paper: 20).",
    "epsilon": "ε of Algorithm 4: a node's iteration stops when |Δσ| < ε and |Δf_u| < ε.",
    "eta": "η, the gradient step size of Algorithm 4's hybrid iteration.",
    "step": "The sweep restarts at σ_h + step after each interval (paper mode).",
    "mode": "paper = Algorithm 4 node by node (Appendix E.2); fast = one search for every "
    "crossing of the approximate f_u − 1/2, each solve shared by all nodes (DESIGN §5.4).",
}


# --------------------------------------------------------------------------------------------
# Parsing and validation (pure, testable)
# --------------------------------------------------------------------------------------------


def parse_value(name: str, text: str):
    """Parse one URL value; raise ValueError when it does not parse or is out of range."""
    p = PARAMS[name]
    if p.kind is str:
        if text not in p.options:
            raise ValueError(f"{text!r} is not one of {', '.join(p.options)}")
        return text
    value = int(text) if p.kind is int else float(text)
    if p.kind is float and not (value == value and abs(value) != float("inf")):
        raise ValueError(f"{text!r} is not a finite number")
    if (p.low is not None and value < p.low) or (p.high is not None and value > p.high):
        raise ValueError(f"{text!r} is outside [{p.low:g}, {p.high:g}]")
    return value


def defaults() -> dict:
    cfg = {k: p.default for k, p in PARAMS.items()}
    cfg["data_file"] = None
    cfg["data_file_name"] = None
    return cfg


def from_query(query: dict) -> tuple[dict, list[str]]:
    """Settings from URL query parameters, and a warning per bad value."""
    cfg, warnings = defaults(), []
    for key, text in query.items():
        if key not in PARAMS:
            continue
        try:
            cfg[key] = parse_value(key, str(text))
        except (ValueError, TypeError) as exc:
            shown = "suggested range" if PARAMS[key].default is None else PARAMS[key].default
            warnings.append(
                f"URL parameter {key}={text!r} ignored ({exc}); using the default ({shown})."
            )
    return cfg, warnings


def to_query(cfg: dict) -> dict:
    return {
        k: (repr(cfg[k]) if isinstance(cfg[k], float) else str(cfg[k]))
        for k in PARAMS
        if cfg.get(k) is not None
    }


def complete_bytes(n: int) -> int:
    """Memory estimate of a complete-graph instance: a few dense n×n float64 arrays."""
    return DENSE_COPIES * 8 * n * n


def check(cfg: dict) -> list[str]:
    """Cross-field problems that must stop any computation (each an error message)."""
    errs = []
    n, nl, k = cfg["n"], cfg["labeled"], cfg["k"]
    if nl >= n:
        errs.append(
            f"|L| = {nl} must be smaller than n = {n}: the unlabeled set U would be "
            "empty. Lower |L| or raise n."
        )
    if cfg["family"] != "complete" and k >= n:
        errs.append(f"k = {k} must be smaller than n = {n} (each node needs k other points).")
    lo, hi = cfg["sigma_min"], cfg["sigma_max"]
    if lo is not None and hi is not None and not lo < hi:
        errs.append(f"σ_min = {lo:g} must be smaller than σ_max = {hi:g}.")
    if cfg["family"] == "complete":
        mb = complete_bytes(n) / 2**20
        if n > MAX_COMPLETE_N or mb > MAX_MEMORY_MB:
            errs.append(
                f"A complete graph on n = {n} points needs about {mb:,.0f} MB "
                f"({DENSE_COPIES} dense n×n arrays); the cap is n ≤ {MAX_COMPLETE_N} and "
                f"{MAX_MEMORY_MB} MB. Use the kNN family (sparse) for large n."
            )
    if cfg["labeling"] == "delalleau" and cfg["subset"] > n - nl:
        errs.append(f"Delalleau's m = {cfg['subset']} must be at most |U| = {n - nl}.")
    return errs


def make_spec(cfg: dict) -> ProblemSpec:
    return ProblemSpec(
        dataset=cfg["dataset"],
        data_file=cfg["data_file"],
        classes=(cfg["c0"], cfg["c1"]),
        n=cfg["n"],
        n_labeled=cfg["labeled"],
        seed=cfg["seed"],
        pca=cfg["pca"],
        family=cfg["family"],
        k=cfg["k"],
        labeling=cfg["labeling"],
        subset=cfg["subset"],
        lam=cfg["lam"],
    )


def make_settings(cfg: dict) -> SweepSettings:
    return SweepSettings(
        solver=cfg["solver"],
        cg_iters=cfg["t"],
        epsilon=cfg["epsilon"],
        eta=cfg["eta"],
        step=cfg["step"],
        mode=cfg["mode"],
    )


def cli_command(command: str, cfg: dict, *extra: str) -> str:
    """The ``sslviz`` command line that reproduces a view."""
    src = (
        ["--data-file", cfg["data_file"]] if cfg.get("data_file") else ["--dataset", cfg["dataset"]]
    )
    args = [
        "sslviz",
        command,
        *src,
        "--classes",
        str(cfg["c0"]),
        str(cfg["c1"]),
        "--n",
        str(cfg["n"]),
        "--labeled",
        str(cfg["labeled"]),
        "--seed",
        str(cfg["seed"]),
        "--pca",
        str(cfg["pca"]),
        "--family",
        cfg["family"],
        "--k",
        str(cfg["k"]),
    ]
    if cfg["labeling"] != "harmonic":
        args += [
            "--labeling",
            cfg["labeling"],
            "--subset",
            str(cfg["subset"]),
            "--lam",
            f"{cfg['lam']:g}",
        ]
    if command in ("loss", "intervals", "regret"):
        args += ["--sigma-min", f"{cfg['sigma_min']:g}", "--sigma-max", f"{cfg['sigma_max']:g}"]
    if command in ("intervals", "regret"):
        args += ["--solver", cfg["solver"], "--cg-iters", str(cfg["t"]), "--mode", cfg["mode"]]
        if cfg["mode"] == "paper":
            args += [
                "--epsilon",
                f"{cfg['epsilon']:g}",
                "--eta",
                f"{cfg['eta']:g}",
                "--step",
                f"{cfg['step']:g}",
            ]
    return shlex.join([*args, *extra])


# --------------------------------------------------------------------------------------------
# Streamlit side
# --------------------------------------------------------------------------------------------


@dataclass
class AppSettings:
    """What a page needs: the validated settings or the reasons it cannot compute."""

    cfg: dict
    spec: ProblemSpec | None = None
    settings: SweepSettings | None = None
    suggested: tuple[float, float] | None = None
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors and self.spec is not None

    @property
    def sigma(self) -> tuple[float, float]:
        return float(self.cfg["sigma_min"]), float(self.cfg["sigma_max"])

    def show_errors(self) -> bool:
        """Show each error with ``st.error``; True when the page may compute."""
        for e in self.errors:
            st.error(e)
        return self.ok


METRIC_HELP = {
    "ε-volume": "Total σ length where the estimated loss differs from the true loss "
    "(Definition 3.1; uncovered σ counts too).",
    "spurious endpoints": "Estimated endpoints with no true breakpoint within 10⁻³.",
    "solves": "Linear systems solved (each CG solve runs t matrix-vector products).",
}


def metrics(values: dict) -> None:
    """A row of ``st.metric`` (label → value), with help for the paper's terms."""
    for col, (label, value) in zip(st.columns(len(values)), values.items(), strict=True):
        col.metric(label, value, help=METRIC_HELP.get(label))


def downloads(prefix: str, files: dict[str, str]) -> None:
    """One download button per ``{file name: text}`` (CSV or JSON by extension)."""
    for col, (name, text) in zip(st.columns(len(files)), files.items(), strict=True):
        mime = "application/json" if name.endswith(".json") else "text/csv"
        col.download_button(name, text, name, mime, key=f"{prefix}_dl_{name}")


def setup(title: str, icon: str = "📈") -> None:
    st.set_page_config(page_title=f"{title} · sslviz", page_icon=icon, layout="wide")


def _wkey(name: str) -> str:
    return f"w_{name}"


def _bind(name: str) -> str:
    """Widget key of ``name``, (re)initialised from the persistent settings."""
    key = _wkey(name)
    cfg = st.session_state["cfg"]
    if key not in st.session_state and cfg.get(name) is not None:
        st.session_state[key] = cfg[name]
    return key


def _set(name: str, value) -> None:
    st.session_state["cfg"][name] = value
    st.session_state[_wkey(name)] = value


def _sync(cfg: dict) -> None:
    """Copy current widget values into the persistent settings."""
    for name in PARAMS:
        if _wkey(name) in st.session_state and name != "dataset":
            cfg[name] = st.session_state[_wkey(name)]


def _use_suggested(lo: float, hi: float) -> None:
    _set("sigma_min", float(lo))
    _set("sigma_max", float(hi))


def _save_upload(upload) -> tuple[str, str]:
    data = upload.getvalue()
    ext = Path(upload.name).suffix.lower()
    folder = Path(tempfile.gettempdir()) / "sslviz_uploads"
    folder.mkdir(exist_ok=True)
    path = folder / f"{hashlib.sha256(data).hexdigest()[:16]}{ext}"
    if not path.exists():
        path.write_bytes(data)
    return str(path), upload.name


def sidebar() -> AppSettings:
    """Draw the shared sidebar; return the page's settings (errors collected, not raised)."""
    if "cfg" not in st.session_state:
        cfg, warns = from_query(dict(st.query_params))
        st.session_state["cfg"] = cfg
        st.session_state["url_warnings"] = warns
    for w in st.session_state.pop("url_warnings", []):
        st.warning(w)
    cfg = st.session_state["cfg"]
    _sync(cfg)
    for name in PARAMS:  # keep widget values across page switches (which reset widgets)
        if cfg.get(name) is not None and name != "dataset":
            st.session_state[_wkey(name)] = cfg[name]
    out = AppSettings(cfg)
    sb = st.sidebar
    sb.header("Problem instance")
    choices = [*DATASETS, UPLOAD]
    ds_key = _wkey("dataset")
    if st.session_state.get(ds_key) in choices:
        cfg["ds_choice"] = st.session_state[ds_key]
    st.session_state[ds_key] = cfg.get("ds_choice") or (
        UPLOAD if cfg["data_file"] else cfg["dataset"]
    )
    ds = sb.selectbox("Dataset", choices, key=ds_key, help=HELP["dataset"])
    if ds == UPLOAD:
        up = sb.file_uploader(
            "Data file (.npz or .csv)", type=["npz", "csv"], key="w_upload", help=HELP["dataset"]
        )
        if up is not None:
            cfg["data_file"], cfg["data_file_name"] = _save_upload(up)
        if cfg["data_file"]:
            sb.caption(f"Using {cfg['data_file_name']}")
        else:
            out.errors.append("Upload an .npz (arrays X, y) or .csv file, or pick a dataset.")
    else:
        cfg["dataset"], cfg["data_file"], cfg["data_file_name"] = ds, None, None

    dataset, ds_error = None, None
    if not out.errors:
        try:
            dataset = app_cache.dataset(cfg["dataset"], cfg["data_file"])
        except Exception as exc:  # DatasetUnavailableError, bad user file, ...
            ds_error = str(exc)
            out.errors.append(ds_error)
    classes = list(dataset.classes) if dataset is not None else list(range(10))
    names = dataset.class_names if dataset is not None else {}
    for c in ("c0", "c1"):
        if cfg[c] not in classes:
            out.errors.append(f"Class {cfg[c]} is not in the dataset (classes: {classes}).")
    c0, c1 = sb.columns(2)
    for col, c in ((c0, "c0"), (c1, "c1")):
        opts = classes if cfg[c] in classes else [cfg[c], *classes]
        col.selectbox(
            c,
            opts,
            key=_bind(c),
            help=HELP[c],
            format_func=lambda v: f"{v}: {names[v]}" if names.get(v, str(v)) != str(v) else str(v),
        )
    if cfg["c0"] == cfg["c1"]:
        out.errors.append("Pick two different classes.")
    c0, c1 = sb.columns(2)
    c0.number_input("n", 3, MAX_N, step=10, key=_bind("n"), help=HELP["n"])
    c1.number_input("|L|", 2, MAX_N, step=1, key=_bind("labeled"), help=HELP["labeled"])
    c0, c1 = sb.columns(2)
    c0.number_input("seed", 0, 2**31 - 1, key=_bind("seed"), help=HELP["seed"])
    c1.number_input("PCA components", 0, 4096, key=_bind("pca"), help=HELP["pca"])

    sb.header("Graph and labeling")
    c0, c1 = sb.columns(2)
    c0.selectbox("graph family", FAMILIES, key=_bind("family"), help=HELP["family"])
    c1.number_input(
        "k",
        1,
        1000,
        key=_bind("k"),
        help=HELP["k"],
        disabled=st.session_state[_wkey("family")] == "complete",
    )
    sb.radio("labeling", LABELINGS, key=_bind("labeling"), help=HELP["labeling"], horizontal=True)
    if st.session_state[_wkey("labeling")] == "delalleau":
        c0, c1 = sb.columns(2)
        c0.number_input("m = |Ũ|", 1, MAX_N, key=_bind("subset"), help=HELP["subset"])
        c1.number_input("λ", 1e-6, 1e6, key=_bind("lam"), help=HELP["lam"], format="%.3g")
    _sync(cfg)
    errs = check({**cfg, "sigma_min": None, "sigma_max": None})
    out.errors += errs
    if not out.errors:
        try:
            out.spec = make_spec(cfg)
            out.suggested = app_cache.suggested_range(out.spec)
        except (ValueError, TypeError, FileNotFoundError) as exc:
            out.errors.append(str(exc))
            out.spec = None

    r = "r" if cfg["family"] == "threshold" else "σ"
    sb.header(f"{r} range")
    if out.suggested is not None:
        lo, hi = out.suggested
        if cfg["sigma_min"] is None or cfg["sigma_max"] is None:
            _use_suggested(lo, hi)
        sb.button(
            f"Use suggested [{lo:g}, {hi:g}]",
            key="w_use_suggested",
            on_click=_use_suggested,
            args=(lo, hi),
            help="Half the median nearest-neighbour distance to twice the median "
            "distance to the 6th neighbour (edge-length range for threshold).",
        )
    elif cfg["sigma_min"] is None or cfg["sigma_max"] is None:
        _use_suggested(0.5, 5.0)
    c0, c1 = sb.columns(2)
    c0.number_input(
        f"{r}_min",
        1e-6,
        1e6,
        step=0.1,
        format="%.4g",
        key=_bind("sigma_min"),
        help=HELP["sigma_min"],
    )
    c1.number_input(
        f"{r}_max",
        1e-6,
        1e6,
        step=0.1,
        format="%.4g",
        key=_bind("sigma_max"),
        help=HELP["sigma_max"],
    )

    sb.header("Solver and Algorithm 4")
    c0, c1 = sb.columns(2)
    c0.selectbox("solver", SOLVERS, key=_bind("solver"), help=HELP["solver"])
    c1.number_input("CG iterations t", 1, 1000, key=_bind("t"), help=HELP["t"])
    sb.radio("mode", MODES, key=_bind("mode"), help=HELP["mode"], horizontal=True)
    with sb.expander("Algorithm 4 parameters (ε, η, step)"):
        st.number_input("ε", 1e-12, 1.0, format="%.1e", key=_bind("epsilon"), help=HELP["epsilon"])
        st.number_input("η", 1e-6, 1e3, format="%.3g", key=_bind("eta"), help=HELP["eta"])
        st.number_input("step", 1e-6, 1e3, format="%.3g", key=_bind("step"), help=HELP["step"])
    _sync(cfg)
    lo, hi = cfg["sigma_min"], cfg["sigma_max"]
    if out.suggested is not None and lo < 0.25 * out.suggested[0]:
        sb.warning(
            f"{r}_min = {lo:g} is far below the suggested {out.suggested[0]:g}: at very "
            "small bandwidths weights underflow and the exact loss can take minutes."
        )
    if not lo < hi:
        out.errors.append(f"{r}_min = {lo:g} must be smaller than {r}_max = {hi:g}.")
    try:
        out.settings = make_settings(cfg)
    except (ValueError, TypeError) as exc:
        out.errors.append(str(exc))
    try:
        st.query_params.from_dict(to_query(cfg))
    except Exception:  # pragma: no cover - the URL is a convenience, never fatal
        pass
    return out
