"""Plotly figure builders: pure functions from sslviz results to ``go.Figure``, one module
per view (``style`` holds what they share).

Nothing here imports Streamlit; every builder takes computed results (no model calls)
and returns a new figure, so the app, notebooks and tests draw the same pictures.

Builders
--------
samples_figure           sample images of the two classes (Home)
instance_figure          the instance's first two features, labeled points marked (Home)
loss_intervals_figure    true l(σ), estimated intervals, misses and spurious endpoints by
                         cause, optionally the trust panel under it (Figure 3)
loss_part_figure         the exact loss found so far while a large graph's search runs, on
                         the whole σ range, the trust panel's place under it
soft_label_figure        exact and approximate f_u(σ), g_u(σ) and the iterates of each step
                         rule (Figure 2)
class_scores_figure      more than two classes: a node's C scores F_uc(σ), the bands where
                         each class wins, its margin (Figure 2, one-vs-all)
condition_figure         √κ against σ, one panel per graph family (Figure 5)
cg_figure                CG iterations needed and t-iteration CG error against σ
trust_figure             where t-iteration CG can be trusted: error against margin, σ bands
                         where it may flip a label, t needed for CG and PCG

Helpers for the loss page's clicks: :func:`algorithm4_start` (the σ0 a drill-down starts
from), :func:`selected_point` and :func:`selected_node` (a click's points → the clicked
node's row, σ and σ0, or its row and σ0; the loss figure's clickable points carry
``customdata = [row, u, σ, σ0]``).
regret_figure            cumulative regret with 95% bands and the theoretical rate
average_regret_figure    R_t / t
density_figure           the learner's density over σ across rounds (heatmap)
speed_figure             time per interval and M per configuration (Table 1)
cv_figure                the exact cross-validated accuracy over γ (or σ), the folds faintly,
                         the best γ and its widest interval (Cross-validated γ)
"""

from sslviz.plots.classes import class_miss_figure, class_scores_figure, winners_text
from sslviz.plots.conditioning import cg_figure, condition_figure
from sslviz.plots.cv import cv_figure
from sslviz.plots.instance import instance_figure, samples_figure
from sslviz.plots.learn import k_sigma_figure, learn_figure, learning_curve_figure
from sslviz.plots.loss import (
    CAUSE_STYLE,
    algorithm4_start,
    loss_intervals_figure,
    loss_part_figure,
    selected_node,
    selected_point,
)
from sslviz.plots.node import miss_figure, soft_label_figure
from sslviz.plots.regret import (
    BAND_REPEATS,
    average_regret_figure,
    density_figure,
    rate_words,
    regret_figure,
)
from sslviz.plots.speed import speed_figure
from sslviz.plots.style import LOSS_TITLE, R_TITLE, SIGMA_TITLE
from sslviz.plots.trust import trust_figure

__all__ = [
    "BAND_REPEATS",
    "CAUSE_STYLE",
    "LOSS_TITLE",
    "R_TITLE",
    "SIGMA_TITLE",
    "algorithm4_start",
    "average_regret_figure",
    "cg_figure",
    "class_miss_figure",
    "class_scores_figure",
    "condition_figure",
    "cv_figure",
    "density_figure",
    "instance_figure",
    "k_sigma_figure",
    "learn_figure",
    "learning_curve_figure",
    "loss_intervals_figure",
    "loss_part_figure",
    "miss_figure",
    "rate_words",
    "regret_figure",
    "samples_figure",
    "selected_node",
    "selected_point",
    "soft_label_figure",
    "speed_figure",
    "trust_figure",
    "winners_text",
]
