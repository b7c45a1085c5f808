"""Every setting of sslviz, written down once.

Each settings class is a frozen dataclass whose fields are rows of one table: a
:class:`Setting` gives the default, the rule (bounds or options), the help text in the
paper's terms, the CLI flag and the URL key. ``__post_init__`` checks every field against
its rule and then the cross-field rules (|L| < n, k < n, m ≤ |U|, σ_min < σ_max, ...).
From the tables come the CLI options (:func:`add_options`, :func:`from_options`), the URL
query (:func:`to_query`, :func:`from_query`), the app's widgets (``ui.widgets``) and the
reproducing command (:func:`to_command`); nothing else states a default, a bound or a help
text. Adding a field to a class here adds it to all four. The framework (rules, rows,
:class:`Spec`, the CLI and URL codecs) is :mod:`sslviz.settings`; its names are
re-exported here.

=====================  =======================================================
:class:`GraphSpec`     graph family and k (Definition 1)
:class:`LabelingSpec`  harmonic (Algorithm 2), Delalleau (Algorithm 3), m, λ; α
:class:`ProblemSpec`   dataset, classes, n, |L|, seed, PCA + graph + labeling
:class:`SigmaRange`    [σ_min, σ_max] (None: the range suggested by the data)
:class:`SweepSettings` solver, t, Algorithm 4's ε, η, step, mode
:class:`ScoreSettings` scoring against the exact curve
:class:`LossSettings`  the exact curve's σ sub-ranges and where they run
:class:`ConditionSettings`  the conditioning view's grid, solver and families
:class:`RegretSettings` the online experiment (T, R, feedback models, λ)
:class:`ConvergenceView`  the t-scrubber's T (the pages' own controls: ``ui.views``)
=====================  =======================================================
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sslviz import registry
from sslviz._validation import options_text
from sslviz.settings import (
    Choice,
    Flag,
    Float,
    Int,
    Optional,
    Rule,
    Setting,
    SettingError,
    SettingTypeError,
    Spec,
    Text,
    Tuple,
    add_options,
    default,
    esc,
    from_options,
    from_query,
    given_options,
    label_of,
    setting,
    shown_default,
    table,
    to_command,
    to_query,
)

DATASETS: tuple[str, ...] = ("digits", "fashion-mnist", "mnist", "usps")
FAMILIES = registry.Names(registry.FAMILIES)
"""The graph families' names (the built-ins, then the plug-ins: :mod:`sslviz.registry`)."""
GAUSSIAN_FAMILIES = registry.Names(registry.FAMILIES, lambda f: f.gaussian)
"""The names of the families whose parameter is σ."""
LABELINGS = registry.Names(registry.MODELS)
"""The labeling models' names (the built-ins, then the plug-ins)."""
COMPARED_FAMILIES: tuple[str, ...] = ("complete", "knn")
"""The families the paper's Figure 5 and Table 1 compare: the default of the views that
compare families."""
SOLVERS: tuple[str, ...] = ("cg", "pcg", "exact", "inverse")
MODES: tuple[str, ...] = ("fast", "paper")
FEEDBACK_MODELS: tuple[str, ...] = ("approx", "exact", "full", "uniform")
CURVE_SIZES: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128)
COMPARE_T: tuple[int, ...] = (1, 2, 3, 5, 10, 20, 30, 50, 100, 200)


def _fail(template: str) -> None:
    """A cross-field rule failed: ``template`` names the settings it involves
    (``{who[n]}``, ``{eq[n]}``: by label in the app, by flag on the command line) and says
    what to change; :class:`~sslviz.settings.Spec` attaches the rows that name them."""
    raise SettingError(template)


ALL_CLASSES: tuple[int, ...] = ()
"""The ``classes`` value that means every class of the dataset, in order (``all``)."""

MAX_CLASSES = 10
"""The most classes one problem takes (one-vs-all: docs/method.md §13)."""


@dataclass(frozen=True)
class Classes(Tuple):
    """2 to :data:`MAX_CLASSES` distinct class labels, or ``all`` (:data:`ALL_CLASSES`:
    every class of the dataset, resolved when the data is loaded). Text ``0,1,2`` or
    ``all``; on the command line ``--classes 0 1 2`` or ``--classes all``."""

    item: Rule = Int(0, 10**6)

    @property
    def widget(self) -> str:  # type: ignore[override]
        return "pair"

    @property
    def nargs(self) -> str:
        return "+"

    def parse_item(self, text: str):
        return "all" if text.strip().lower() == "all" else self.item.parse(text)

    def parse(self, text):
        return ALL_CLASSES if text.strip().lower() == "all" else super().parse(text)

    def format(self, value):
        return "all" if tuple(value) == ALL_CLASSES else super().format(value)

    def check(self, name, value, caller):
        if isinstance(value, str) and value.strip().lower() == "all":
            return ALL_CLASSES
        if isinstance(value, Sequence) and not isinstance(value, str | bytes):
            if len(value) == 1 and isinstance(value[0], str) and value[0].lower() == "all":
                return ALL_CLASSES
            if len(value) == 0:
                return ALL_CLASSES
        items = super().check(name, value, caller)
        if not 2 <= len(items) <= MAX_CLASSES:
            few = "one class only" if len(items) == 1 else f"{len(items)} classes"
            raise SettingError(
                f"{{who[{name}]}} must name 2 to {MAX_CLASSES} different classes (or all), "
                f"not {esc(few)}: add a class."
                if len(items) < 2
                else f"{{who[{name}]}} must name 2 to {MAX_CLASSES} different classes (or "
                f"all), not {len(items)}: leave some out."
            )
        return items

    def describe(self):
        return f"2 to {MAX_CLASSES} class labels, or all"

    def invalid(self):
        return ["ab", 3, (-1, 2), (1, 1), (1,), tuple(range(MAX_CLASSES + 1))]


# --------------------------------------------------------------------------------------
# The tables
# --------------------------------------------------------------------------------------

_SEED = Setting(
    0,
    Int(0, 2**32 - 1),
    "Seed of the instance draw (which points, which are labeled) and of the online "
    "experiment's rounds.",
    flag="--seed",
    url="seed",
    label="seed",
)


def _families_help() -> str:
    """``--family``'s help: each family's own clause (the plug-ins' too)."""
    clauses = "; ".join(f.help for f in registry.FAMILIES.values())
    return f"Graph family (Definition 1): {clauses}."


def _models_help() -> str:
    """``--labeling``'s help: each model's own clause (the plug-ins' too)."""
    return options_text([m.help for m in registry.MODELS.values()]) + "."


def _read_by_family(name: str):
    """The ``relevant`` rule of a graph setting: the spec's family reads it."""
    return lambda s: name in registry.family(s.family).reads


def _read_by_model(name: str):
    """The ``relevant`` rule of a labeling setting: the spec's model reads it (a
    :class:`ProblemSpec` names it ``labeling``, a :class:`LabelingSpec` ``method``)."""
    return lambda s: name in registry.model(getattr(s, "labeling", None) or s.method).reads


_FAMILY = Setting(
    "complete",
    Choice(FAMILIES),
    _families_help,
    flag="--family",
    url="family",
    label="graph family",
)
_K = Setting(
    6,
    Int(1, 10**6),
    "Nearest neighbours per node, the point itself excluded (the paper's public code's "
    "'k = 7' is k = 6 here). Not used by the complete graph.",
    flag="--k",
    url="k",
    label="k",
    relevant=_read_by_family("k"),
)
_LABELING = Setting(
    "harmonic",
    Choice(LABELINGS),
    _models_help,
    flag="--labeling",
    url="labeling",
    label="labeling",
)
_SUBSET = Setting(
    50,
    Int(1, 10**6),
    "Delalleau's m = |Ũ|: the unlabeled nodes solved for exactly (paper: 50).",
    flag="--subset",
    url="subset",
    label="m = |Ũ|",
    relevant=_read_by_model("subset"),
)
_LAM = Setting(
    1.4,
    Float(0.0, None, "neither", "%.3g"),
    "Delalleau's λ > 0: weight of the fit to the labels (paper: 1.4).",
    flag="--lam",
    url="lam",
    label="λ",
    relevant=_read_by_model("lam"),
)
_ALPHA = Setting(
    0.2,
    Float(0.0, 1.0, "neither", "%.3g"),
    "LabelSpreading's α, strictly between 0 and 1: how much each node takes from its "
    "neighbours rather than from its own label, F = (1 − α)(I − αS)⁻¹Y (scikit-learn's "
    "default 0.2).",
    flag="--alpha",
    url="alpha",
    label="α",
    relevant=_read_by_model("alpha"),
    written_unread=False,
)
_CG_ITERS = Setting(
    20,
    Int(1, 10_000),
    "t, the fixed number of CG iterations per solve, started from zero (paper: 5, 10, 20).",
    flag="--cg-iters",
    url="t",
    label="CG iterations t",
)
CG_ITERS: int = _CG_ITERS.default
_MODE = Setting(
    "fast",
    Choice(MODES),
    "paper = Algorithm 4 node by node (Appendix E.2); fast = one search for every "
    "crossing of the approximate f_u − 1/2, each solve shared by all nodes (docs/method.md §6.2).",
    flag="--mode",
    url="mode",
    label="mode",
)
_JOBS = Setting(
    -1,
    Int(-1, 1024),
    "Local worker processes (-1: all cores).",
    flag="--jobs",
)
_DASK = Setting(
    None,
    Optional(Text(), "run locally"),
    "Dask scheduler address; the work runs there (same results).",
    flag="--dask",
)
"""The default t, for the library functions that take ``cg_iters`` directly."""


@dataclass(frozen=True)
class GraphSpec(Spec):
    """A graph family and its k (docs/method.md §2.3)."""

    family: str = _FAMILY.field()
    k: int = _K.field()

    @property
    def graph_family(self) -> Any:
        """The :class:`sslviz.families.GraphFamily` of ``family``."""
        return registry.family(self.family)

    @property
    def sparse(self) -> bool:
        """Whether the family's pattern is stored sparse (CSR)."""
        return self.graph_family.sparse


@dataclass(frozen=True)
class LabelingSpec(Spec):
    """Labeling model and its settings (docs/method.md §3); ``seed`` draws Delalleau's Ũ,
    ``alpha`` is LabelSpreading's α."""

    method: str = _LABELING.field()
    subset: int = _SUBSET.field()
    lam: float = _LAM.field()
    seed: int = _SEED.field()
    alpha: float = _ALPHA.field()


@dataclass(frozen=True)
class ProblemSpec(Spec):
    """Settings that fix a problem instance (docs/method.md §2; hashable, a cache key).

    Data-dependent checks (the classes exist, n ≤ pool size, PCA ≤ features) happen when
    the data is loaded (:func:`sslviz.data.make_instance`).
    """

    dataset: str = Setting(
        "digits",
        Choice(DATASETS),
        "Source of the points. digits: scikit-learn's 8×8 digits, no download needed; the "
        "paper uses MNIST 0 vs 1, Fashion-MNIST T-shirt vs Trouser and USPS 0 vs 1.",
        flag="--dataset",
        url="dataset",
        label="dataset",
        relevant=lambda s: s.data_file is None,
    ).field()
    data_file: str | None = Setting(
        None,
        Optional(Text(), "use --dataset"),
        "A local .npz (arrays X of shape (n, features) and y of n integer labels, and "
        "optionally a boolean 'labeled' mask: then its rows are used exactly as given) or a "
        ".csv with a header row, a column named 'label' (or 'y') and numeric features in "
        "the other columns. Replaces --dataset; cannot travel in a link.",
        flag="--data-file",
        label="data file",
    ).field()
    classes: tuple[int, ...] = Setting(
        (2, 3),
        Classes(),
        "The classes of the problem: two (c0, c1), the binary problem, c1 becoming label 1; "
        "or up to ten (e.g. 0 1 2, or all: every class of the dataset), labeled one-vs-all, "
        "class i of the list becoming label i (docs/method.md §13).",
        flag="--classes",
        url="classes",
        label="classes",
    ).field()
    n: int = Setting(
        100,
        Int(3, 10**6),
        "Number of points n drawn from the two classes (labeled + unlabeled).",
        flag="--n",
        url="n",
        label="n",
    ).field()
    n_labeled: int = Setting(
        10,
        Int(2, 10**6),
        "Size of the labeled set |L| (drawn stratified, both classes); the loss is measured "
        "on the n − |L| unlabeled points U.",
        flag="--labeled",
        url="labeled",
        label="|L|",
    ).field()
    seed: int = _SEED.field()
    pca: int = Setting(
        45,
        Int(0, 100_000),
        "Principal components kept (the paper uses 45), fitted on the two-class pool; "
        "distances d_ij and σ are in this PCA space. 0 keeps the features as given.",
        flag="--pca",
        url="pca",
        label="PCA dims",
    ).field()
    family: str = _FAMILY.field()
    k: int = _K.field()
    labeling: str = _LABELING.field()
    subset: int = _SUBSET.field()
    lam: float = _LAM.field()
    alpha: float = _ALPHA.field()
    data_root: str | None = Setting(
        None,
        Optional(Text(), "$SSLVIZ_DATA or ~/.cache/sslviz"),
        "Data folder for MNIST, Fashion-MNIST and USPS.",
        flag="--data-root",
    ).field()
    download: bool = Setting(
        False,
        Flag(),
        "Download a missing MNIST / USPS / Fashion-MNIST through torchvision.",
        flag="--download",
    ).field()

    def _cross(self, caller: str) -> None:
        n, nl = self.n, self.n_labeled
        if nl >= n:
            _fail(
                f"{{eq[n_labeled]}} {nl} must be smaller than {{eq[n]}} {n}: the unlabeled "
                "set U would be empty. Lower {who[n_labeled]} or raise {who[n]}."
            )
        if "k" in self.graph_family.reads and self.k >= n:
            _fail(
                f"{{eq[k]}} {self.k} must be smaller than {{eq[n]}} {n}: each node needs k "
                "neighbours among the other points. Lower {who[k]} or raise {who[n]}."
            )
        model = self.model_class
        if "subset" in model.reads and self.subset > n - nl:
            _fail(
                f"{esc(model.label)}'s {{eq[subset]}} {self.subset} must be at most the "
                f"number of unlabeled points, n − |L| = {n - nl}. Lower it, or lower |L|."
            )

    @property
    def graph_spec(self) -> GraphSpec:
        return GraphSpec(self.family, self.k)

    @property
    def labeling_spec(self) -> LabelingSpec:
        return LabelingSpec(self.labeling, self.subset, self.lam, self.seed, self.alpha)

    @property
    def graph_family(self) -> Any:
        """The :class:`sslviz.families.GraphFamily` of ``family``."""
        return registry.family(self.family)

    @property
    def model_class(self) -> Any:
        """The :class:`sslviz.labeling.SoftLabelModel` subclass of ``labeling``."""
        return registry.model(self.labeling)

    @property
    def gaussian(self) -> bool:
        """True for the families whose parameter is the bandwidth σ (not threshold's r)."""
        return self.graph_family.gaussian

    def with_seed(self, seed: int) -> ProblemSpec:
        return dataclasses.replace(self, seed=int(seed))


@dataclass(frozen=True)
class SigmaRange(Spec):
    """The bandwidth range [σ_min, σ_max] (r for the threshold family); None: suggested."""

    sigma_min: float | None = Setting(
        None,
        Optional(Float(0.0, None, "neither"), "the range suggested by the data"),
        "σ_min of the bandwidth range (r_min for the threshold family), in PCA-space "
        "distance units. Each edge weighs exp(−d²/σ²) (σ², not 2σ²; no self-loops), so "
        "scikit-learn's RBF γ is 1/σ².",
        flag="--sigma-min",
        url="sigma_min",
        label="σ_min",
    ).field()
    sigma_max: float | None = Setting(
        None,
        Optional(Float(0.0, None, "neither"), "the range suggested by the data"),
        "σ_max of the bandwidth range (r_max for the threshold family).",
        flag="--sigma-max",
        url="sigma_max",
        label="σ_max",
    ).field()

    def _cross(self, caller: str) -> None:
        lo, hi = self.sigma_min, self.sigma_max
        if lo is not None and hi is not None and not lo < hi:
            _fail(
                f"{{eq[sigma_min]}} {lo:g} must be smaller than {{eq[sigma_max]}} {hi:g}: "
                "raise {who[sigma_max]} or lower {who[sigma_min]}."
            )

    def resolve(self, suggested: tuple[float, float]) -> tuple[float, float]:
        """(σ_min, σ_max), each missing end taken from ``suggested``."""
        lo = suggested[0] if self.sigma_min is None else self.sigma_min
        hi = suggested[1] if self.sigma_max is None else self.sigma_max
        SigmaRange(lo, hi)
        return float(lo), float(hi)


def solver_label(solver: str, cg_iters: int) -> str:
    """A solver as the paper writes it: t-iteration CG or PCG as 'CG-20' / 'PCG-5', a
    direct solver by its name ('exact', 'inverse')."""
    return f"{solver.upper()}-{cg_iters}" if solver in ("cg", "pcg") else solver


@dataclass(frozen=True)
class SweepSettings(Spec):
    """Settings of Algorithm 4 and its sweep (docs/method.md §6; paper: ε = 1e-4, η = 1, 0.05)."""

    solver: str = Setting(
        "cg",
        Choice(SOLVERS),
        "Linear solver for the soft labels: cg = t iterations of conjugate gradient (the "
        "paper's approximation), pcg = t iterations of Jacobi-preconditioned CG, exact = LU, "
        "inverse = matrix inverse (the paper's 'MI' baseline in Table 1).",
        flag="--solver",
        url="solver",
        label="solver",
    ).field()
    cg_iters: int = _CG_ITERS.field()
    epsilon: float = Setting(
        1e-4,
        Float(0.0, 1.0, "right", "%.1e"),
        "ε of Algorithm 4: a node's iteration stops when |Δσ| < ε and |Δf_u| < ε; the fast "
        "mode locates endpoints to ε.",
        flag="--epsilon",
        url="epsilon",
        label="ε",
    ).field()
    eta: float = Setting(
        1.0,
        Float(0.0, None, "neither", "%.3g"),
        "η, the gradient step size of Algorithm 4's hybrid iteration.",
        flag="--eta",
        url="eta",
        label="η",
    ).field()
    step: float = Setting(
        0.05,
        Float(0.0, None, "neither", "%.3g"),
        "The paper-mode sweep restarts at σ_h + step after each interval.",
        flag="--step",
        url="step",
        label="restart step",
    ).field()
    max_iter: int = Setting(
        100,
        Int(1, 100_000),
        "Iteration cap of each node's hybrid iteration (paper mode).",
        flag="--max-iter",
        url="max_iter",
        label="iteration cap",
    ).field()
    root_tol: float = Setting(
        1e-2,
        Float(0.0, 0.5, "right", "%.2g"),
        "A converged iterate counts as a root only if |f_u − 1/2| ≤ root_tol (paper mode).",
        flag="--root-tol",
        url="root_tol",
        label="root tolerance",
    ).field()
    certify: bool = Setting(
        False,
        Flag(),
        "Certified fast mode: at every σ it evaluates, CG/PCG runs on from t iterations until "
        "each node's side of 1/2 is proven (the M-matrix bound, docs/method.md §8), or falls back "
        "to an exact solve past the cap; every true breakpoint is then found. Fast mode; "
        "harmonic and LabelSpreading labelings (Delalleau's system always takes the exact "
        "fallback).",
        flag="--certify",
        url="certify",
        label="certify every side",
    ).field()
    certify_cap: int = Setting(
        400,
        Int(1, 100_000),
        "Certified mode: CG iterations per σ before the exact fallback.",
        flag="--certify-cap",
        url="certify_cap",
        label="certify cap",
        relevant=lambda s: s.certify,
    ).field()
    mode: str = _MODE.field()

    @property
    def label(self) -> str:
        """The solver as the paper writes it: 'CG-20', 'PCG-5'; 'exact' or 'inverse'."""
        return solver_label(self.solver, self.cg_iters)

    def effective(self) -> SweepSettings:
        """These settings with what the mode does not read put back to its default: fast mode
        reads none of paper mode's iteration (η, the restart step, the iteration cap,
        root_tol), nor the certify cap when it does not certify. Two settings with one
        ``effective()`` give the same sweep and score, bit for bit (their ``settings``
        aside): a cache keyed by it does not recompute for a change that changes nothing."""
        if self.mode == "paper":
            return self
        unread = ["eta", "step", "max_iter", "root_tol"] + ["certify_cap"] * (not self.certify)
        return self.replace(**{name: default(SweepSettings, name) for name in unread})

    def with_solver(self, solver: str) -> SweepSettings:
        """These settings with ``solver``; the certification, which proves iterative
        solves, is dropped for a direct one ('exact', 'inverse' are exact already)."""
        return self.replace(solver=solver, certify=self.certify and solver in ("cg", "pcg"))

    def _cross(self, caller: str) -> None:
        if self.certify and self.mode != "fast":
            _fail(
                "The certified search ({who[certify]}) is a fast-mode search: set {who[mode]} "
                "to fast, or turn {who[certify]} off."
            )
        if self.certify and self.solver not in ("cg", "pcg"):
            _fail(
                "The certified search ({who[certify]}) proves the sides of CG and PCG solves; "
                f"the {self.solver} solver is exact already. Set {{who[solver]}} to cg or pcg, "
                "or turn {who[certify]} off."
            )


@dataclass(frozen=True)
class ScoreSettings(Spec):
    """Scoring an estimate against the exact curve (docs/method.md §6.3)."""

    score: bool = Setting(
        False,
        Flag(),
        "Score the intervals against the exact loss curve (missed and "
        "spurious breakpoints, ε-volume of Definition 4).",
        flag="--score",
    ).field()
    tol: float = Setting(
        1e-3,
        Float(0.0, None, "neither", "%.1e"),
        "An estimated endpoint within tol (σ units) of a true breakpoint counts as finding it.",
        flag="--tol",
        label="scoring tolerance",
    ).field()
    max_attributed: int | None = Setting(
        None,
        Optional(Int(0, None), "every miss"),
        "Look for the causes of at most this many misses, spread evenly over σ (each costs "
        "three exact solves of the whole system); the others are reported as unattributed.",
        flag="--max-attributed",
        label="misses attributed at most",
    ).field()


@dataclass(frozen=True)
class LossSettings(Spec):
    """The exact curve for 3+ classes searched on σ sub-ranges, and where they run
    (docs/method.md §13.3); the command line's only (no page splits the search)."""

    parts: int = Setting(
        1,
        Int(1, 1024),
        "σ sub-ranges (geometric) searched as separate tasks and joined; 1 = one search of "
        "the whole range. Three or more classes on a Gaussian family.",
        flag="--parts",
        label="σ sub-ranges",
    ).field()
    jobs: int = _JOBS.field()
    dask: str | None = _DASK.field()


@dataclass(frozen=True)
class ConditionSettings(Spec):
    """The conditioning view (Figure 5): σ grid size, CG variant and tolerance, families."""

    points: int = Setting(
        40,
        Int(1, 500),
        "Number of σ values, evenly spaced over [σ_min, σ_max], of the conditioning curves "
        "and of every trust panel (this page's and the loss page's: one grid, so both give "
        "the same trust boundary).",
        flag="--points",
        url="points",
        label="σ grid points",
    ).field()
    solver: str = Setting(
        "cg",
        Choice(("cg", "pcg")),
        "CG variant for 'iterations needed' and the t-iteration error: cg, or pcg "
        "(Jacobi-preconditioned; its rate is set by κ(I − P_UU)).",
        flag="--solver",
        url="cond_solver",
        label="CG variant",
    ).field()
    cg_iters: int = _CG_ITERS.field()
    rtol: float = Setting(
        1e-6,
        Float(0.0, 1.0, "neither", "%.1e"),
        "Relative residual that 'CG iterations needed' must reach.",
        flag="--rtol",
        label="tolerance",
    ).field()
    trust: bool = Setting(
        False,
        Flag(),
        "Also say where t-iteration CG can be trusted on the grid: max_u |f_t,u − f_u| "
        "against the margin min_u |f_u − 1/2|, and the t needed by CG and by PCG.",
        flag="--trust",
    ).field()
    families: tuple[str, ...] = Setting(
        COMPARED_FAMILIES,
        Tuple(Choice(GAUSSIAN_FAMILIES), options=GAUSSIAN_FAMILIES),
        "Graph families compared, one curve each on the same instance (threshold graphs "
        "have no σ). The command line computes one family per call (--family).",
        url="families",
        label="graph families",
    ).field()


@dataclass(frozen=True)
class RegretSettings(Spec):
    """The online experiment (Algorithm 1): rounds, repetitions, feedback models, λ."""

    rounds: int = Setting(
        20,
        Int(1, 100_000),
        "T, the number of rounds: each draws a new instance (same settings, new seed).",
        flag="--rounds",
        url="rounds",
        label="rounds T",
    ).field()
    repeats: int = Setting(
        2,
        Int(1, 10_000),
        "R, independent repetitions of the whole stream; the band is a 95% interval of the mean.",
        flag="--repeats",
        url="repeats",
        label="repetitions",
    ).field()
    feedback: tuple[str, ...] = Setting(
        FEEDBACK_MODELS,
        Tuple(Choice(FEEDBACK_MODELS), options=FEEDBACK_MODELS),
        "Feedback models compared: approx = the interval Algorithm 4 finds around σ_t "
        "(semi-bandit, CG-t), exact = the true constant-loss interval, full = the whole "
        "approximate loss (full information), uniform = no learning.",
        flag="--feedback",
        url="feedback",
        label="feedback models",
    ).field()
    lr: float | None = Setting(
        None,
        Optional(Float(0.0, None, "neither", "%.3g"), "Theorem 3.1's choice"),
        "Exp3-Set step size λ; auto = the choice of Theorem 3.1.",
        flag="--lr",
        url="lr",
        label="step size λ",
    ).field()
    jobs: int = _JOBS.field()
    dask: str | None = _DASK.field()


def parse_k_range(text: str) -> tuple[int, int]:
    """``'K1:K2'`` → (K1, K2) with 1 ≤ K1 ≤ K2; ValueError saying what to type otherwise."""
    try:
        k1, k2 = (int(v) for v in text.split(":"))
    except ValueError:
        raise ValueError(
            f"the k range {text!r} must be the smallest and the largest k, as in 2:12"
        ) from None
    if not 1 <= k1 <= k2:
        raise ValueError(
            f"the k range {text!r} must start at 1 or more and end at its start or above"
        )
    return k1, k2


@dataclass(frozen=True)
class LearnSettings(Spec):
    """Learning σ (and k) from many instances (docs/method.md §10): how many, the learner, the
    learning curve."""

    instances: int = Setting(
        16,
        Int(1, 100_000),
        "m, the training instances drawn from the domain (fresh points and labeled nodes "
        "per seed); with --data-file, one instance per file instead.",
        flag="--instances",
        url="instances",
        label="training instances m",
    ).field()
    test_instances: int = Setting(
        16,
        Int(0, 100_000),
        "Held-out instances drawn from the domain, on which σ̂ is measured; with "
        "--test-file, one per file instead.",
        flag="--test-instances",
        url="test_instances",
        label="test instances",
    ).field()
    k_range: str | None = Setting(
        None,
        Optional(Text(), "learn σ only"),
        "K_MIN:K_MAX: learn k and σ together (kNN and mutual-kNN families), one exact curve per k.",
        flag="--k-range",
        url="k_range",
        label="k range",
    ).field()
    solver: str = Setting(
        "exact",
        Choice(("exact", "cg", "pcg")),
        "The losses ERM runs on: exact, or Algorithm 4's estimate with t iterations of cg "
        "or pcg (its σ̂ is then measured by the exact test loss).",
        flag="--solver",
        url="learn_solver",
        label="learn on",
    ).field()
    cg_iters: int = _CG_ITERS.field()
    mode: str = _MODE.field()
    compare_t: tuple[int, ...] = Setting(
        (5, 10, 20),
        Tuple(Int(1, 10_000), options=COMPARE_T, nonempty=False),
        "Also learn on Algorithm 4's estimates with these t (the variant of --solver, CG "
        "when it is exact) and report each σ̂'s true held-out loss ('' for none; paper: 5, "
        "10, 20).",
        flag="--compare-t",
        url="compare_t",
        label="compare with t",
    ).field()
    curve: tuple[int, ...] = Setting(
        (1, 2, 4, 8),
        Tuple(Int(1, 1024), options=CURVE_SIZES, nonempty=False),
        "Training set sizes m of the learning curve: exact ERM on m instances, measured on "
        "the test instances ('' for none). With --data-file, sizes above the number of "
        "files are left out.",
        flag="--curve",
        url="curve",
        label="learning curve m",
    ).field()
    repeats: int = Setting(
        5,
        Int(1, 10_000),
        "R, fresh draws of the training instances for the learning curve (its band is a "
        "95% interval of the mean).",
        flag="--repeats",
        url="curve_repeats",
        label="curve repetitions",
    ).field()
    jobs: int = _JOBS.field()
    dask: str | None = _DASK.field()

    def _cross(self, caller: str) -> None:
        if self.k_range is not None:
            try:
                parse_k_range(self.k_range)
            except ValueError as exc:
                _fail(esc(str(exc)).replace("the k range", "{who[k_range]}", 1) + ".")

    @property
    def k_values(self) -> list[int] | None:
        """The k of ``k_range``, or None."""
        if self.k_range is None:
            return None
        k1, k2 = parse_k_range(self.k_range)
        return list(range(k1, k2 + 1))


@dataclass(frozen=True)
class ConvergenceView(Spec):
    """Page controls of the CG-iterations view (the t-scrubber)."""

    iterations: int = Setting(
        100,
        Int(1, 200),
        "T: the scrubber shows t = 1..T iterations of CG and Jacobi-PCG, all read off one "
        "run of T iterations per σ.",
        url="t_max",
        label="up to t =",
    ).field()


CERTIFY_CAP: int = default(SweepSettings, "certify_cap")
"""The default iteration cap of certified solves, for the library functions."""

ALL_SPECS = (
    ProblemSpec,
    SigmaRange,
    SweepSettings,
    ScoreSettings,
    LossSettings,
    ConditionSettings,
    RegretSettings,
    LearnSettings,
    ConvergenceView,
)

__all__ = [
    "ALL_SPECS",
    "COMPARED_FAMILIES",
    "DATASETS",
    "FAMILIES",
    "FEEDBACK_MODELS",
    "GAUSSIAN_FAMILIES",
    "LABELINGS",
    "MODES",
    "SOLVERS",
    "Choice",
    "ConditionSettings",
    "ConvergenceView",
    "Flag",
    "Float",
    "GraphSpec",
    "Int",
    "LabelingSpec",
    "LearnSettings",
    "LossSettings",
    "Optional",
    "ProblemSpec",
    "RegretSettings",
    "Rule",
    "ScoreSettings",
    "Setting",
    "SettingError",
    "SettingTypeError",
    "SigmaRange",
    "Spec",
    "SweepSettings",
    "Text",
    "Tuple",
    "add_options",
    "default",
    "from_options",
    "from_query",
    "given_options",
    "label_of",
    "setting",
    "shown_default",
    "solver_label",
    "table",
    "to_command",
    "to_query",
]
