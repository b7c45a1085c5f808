"""The instance (Home page): sample images of the two classes and the first two features."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from sslviz.plots.style import LAYOUT, class_colors, new_figure, wrap


def samples_figure(
    images: Sequence[np.ndarray],
    labels: Sequence[str],
    image_shape: tuple[int, int],
    *,
    per_row: int = 4,
) -> go.Figure:
    """A mosaic of sample images, one block of rows per class.

    Parameters
    ----------
    images : sequence of ndarray of shape (height * width,)
        Flattened pixels in [0, 1], grouped by class (the same number for each class).
    labels : sequence of str
        One name per class, in the order of ``images``.
    image_shape : (int, int)
        ``(height, width)``.
    per_row : int, default=4
        Images per mosaic row.

    Returns
    -------
    go.Figure
        One ``'samples'`` heatmap; the y ticks name the classes.
    """
    h, w = image_shape
    n_cls = max(len(labels), 1)
    per_class = max(len(images) // n_cls, 1)
    rows_per_class = -(-per_class // per_row)
    pad = max(1, h // 8)
    gap = 2 * pad  # extra space between classes
    block = rows_per_class * (h + pad) + gap
    mosaic = np.full((n_cls * block, per_row * (w + pad)), np.nan)
    for i, img in enumerate(images):
        c, j = divmod(i, per_class)
        if c >= n_cls:
            break
        r, col = divmod(j, per_row)
        y0, x0 = c * block + r * (h + pad), col * (w + pad)
        mosaic[y0 : y0 + h, x0 : x0 + w] = np.reshape(img, (h, w))
    fig = new_figure(
        go.Heatmap(z=mosaic, colorscale="gray_r", showscale=False, hoverinfo="skip", name="samples")
    )
    centers = [c * block + (block - gap) / 2 for c in range(n_cls)]
    ticktext = [wrap(str(lab), 12) or str(lab) for lab in labels]  # long names wrap
    widest = max((len(line) for t in ticktext for line in t.split("<br>")), default=1)
    fig.update_yaxes(
        autorange="reversed",
        tickvals=centers,
        ticktext=ticktext,
        title_text="class",
        scaleanchor="x",
        showgrid=False,
        zeroline=False,
    )
    fig.update_xaxes(showticklabels=False, title_text="samples", showgrid=False, zeroline=False)
    fig.update_layout(
        **LAYOUT | {"margin": dict(l=45 + 9 * widest, r=20, t=60, b=40)},
        title="Sample images of the two classes",
        height=450,
    )
    return fig


def instance_figure(
    X: np.ndarray,
    y: np.ndarray,
    labeled: np.ndarray,
    class_names: Sequence[str] = ("class 0", "class 1"),
) -> go.Figure:
    """The instance's points on their first two features (PCA components), one colour per
    class (:func:`~sslviz.plots.style.class_colors`: two classes blue and red, more a
    qualitative palette of up to ten), labeled points as stars.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,)
        Class indices 0 … C − 1.
    labeled : ndarray of shape (n,), bool
    class_names : sequence of str
        One name per class index (the legend's); classes past its end are named
        ``'class <index>'``.
    """
    X = np.asarray(X, float)
    x0 = X[:, 0]
    x1 = X[:, 1] if X.shape[1] > 1 else np.zeros_like(x0)
    n_classes = max(int(np.max(y)) + 1 if np.size(y) else 0, 2)
    colors = class_colors(n_classes)
    names = [*class_names, *(f"class {c}" for c in range(len(class_names), n_classes))]
    fig = new_figure()
    for c in range(n_classes):
        for lab, sym, size in ((False, "circle-open", 7), (True, "star", 13)):
            m = (np.asarray(y) == c) & (np.asarray(labeled) == lab)
            fig.add_trace(
                go.Scatter(
                    x=x0[m],
                    y=x1[m],
                    mode="markers",
                    name=f"{names[c]} ({'labeled' if lab else 'unlabeled'})",
                    marker=dict(symbol=sym, size=size, color=colors[c]),
                )
            )
    fig.update_layout(**LAYOUT, title="The instance (first two PCA components)")
    fig.update_xaxes(title_text="PC 1")
    fig.update_yaxes(title_text="PC 2")
    return fig
