"""The pages' own controls: settings tables of the app only (URL and widgets), in the
same form as :mod:`sslviz.specs`' (:class:`sslviz.settings.Spec` rows)."""

from __future__ import annotations

from dataclasses import dataclass

from sslviz import specs as S
from sslviz.settings import Choice, Float, Int, Optional, Setting, Spec, Tuple
from sslviz.specs import COMPARED_FAMILIES, FEEDBACK_MODELS, GAUSSIAN_FAMILIES, SOLVERS

COMPARISON_CHANGES: dict[str, dict[str, object] | str | None] = {
    "nothing": None,
    "CG t = 5": {"solver": "cg", "cg_iters": 5},
    "CG t = 50": {"solver": "cg", "cg_iters": 50},
    "other mode": "mode",
    "exact solver": {"solver": "exact"},
}
"""The loss page's "compare with" choices → the sweep settings each changes (None: no
comparison; 'mode': the other of fast and paper mode). One table: the choices are its keys."""
COMPARISONS: tuple[str, ...] = tuple(COMPARISON_CHANGES)
SPEED_SIZES: tuple[int, ...] = (50, 100, 200, 300, 500, 1000)


@dataclass(frozen=True)
class RegretView(Spec):
    """Page controls of the online-regret view (URL and widgets only)."""

    density_model: str = Setting(
        "approx",
        Choice(FEEDBACK_MODELS),
        "Whose probability density over σ the heatmap shows, round by round (the first "
        "repetition; a model not in the run shows the first one that is).",
        url="density",
        label="density of model",
    ).field()


@dataclass(frozen=True)
class LossView(Spec):
    """Page controls of the loss-intervals view (URL and widgets only)."""

    compare: str = Setting(
        "nothing",
        Choice(COMPARISONS),
        "Overlay the intervals of a second setting (dotted orange): fewer or more CG "
        "iterations, the other mode, or the exact solver.",
        url="compare",
        label="compare with",
    ).field()
    node: int | None = Setting(
        None,
        Optional(Int(0, 10**7), "a node behind a missed breakpoint"),
        "Unlabeled node of the drill-down, as its instance row (nodes behind missed "
        "breakpoints are listed first).",
        url="node",
        label="unlabeled node (instance row)",
    ).field()
    sigma0: float | None = Setting(
        None,
        Optional(Float(0.0, None, "neither"), "a quarter range left of its first crossing"),
        "Start σ0 of the node's iterations (Algorithm 4 starts here).",
        url="sigma0",
        label="start σ0",
    ).field()


@dataclass(frozen=True)
class SpeedGrid(Spec):
    """Page controls of the speed view (live Table 1)."""

    sizes: tuple[int, ...] = Setting(
        (100,),
        Tuple(Int(3, 10**6), options=SPEED_SIZES),
        "Instance sizes n to time.",
        url="sizes",
        label="sizes n",
    ).field()
    families: tuple[str, ...] = Setting(
        COMPARED_FAMILIES,
        Tuple(Choice(GAUSSIAN_FAMILIES), options=GAUSSIAN_FAMILIES),
        "Graph families to time.",
        url="speed_families",
        label="graphs",
    ).field()
    solvers: tuple[str, ...] = Setting(
        ("cg", "inverse"),
        Tuple(Choice(SOLVERS), options=SOLVERS),
        "Solvers to time (Table 1 compares CG-t with the matrix inverse).",
        url="speed_solvers",
        label="solvers",
    ).field()


@dataclass(frozen=True)
class CVView(Spec):
    """Page controls of the cross-validated γ view (URL and widgets only)."""

    folds: int = Setting(
        5,
        Int(2, 20),
        "Folds of the labeled points: each fold's labels are hidden in turn, the model is "
        "fit on every point with the others, and the fold's points are scored (stratified "
        "k-fold, shuffled with seed 0, where every class has that many labeled points).",
        url="cv",
        label="folds",
    ).field()
    axis: str = Setting(
        "gamma",
        Choice(("gamma", "sigma")),
        "The curve over scikit-learn's RBF γ, or over the bandwidth σ = 1/√γ.",
        url="cv_axis",
        label="axis",
    ).field()


PAGE_SPECS = (LossView, RegretView, SpeedGrid, CVView)
ALL_SPECS = S.ALL_SPECS + PAGE_SPECS
"""Every settings table the app reads from a link: sslviz's and the pages' own."""
