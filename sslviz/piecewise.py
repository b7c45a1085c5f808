"""Piecewise-constant functions of σ on a closed range.

The dual semi-supervised loss l(σ) is piecewise constant (Balcan & Sharma 2021); so are
the approximate losses that Algorithm 4 estimates and the learner's weights in
Algorithm 1. :class:`PiecewiseLoss` is the one representation all of them share.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class PiecewiseLoss:
    """A piecewise-constant function on ``[edges[0], edges[-1]]``.

    Attributes
    ----------
    edges : ndarray of shape (n_pieces + 1,)
        Strictly increasing σ values (PCA-space distance units). ``edges[0]`` and
        ``edges[-1]`` are the ends of the range; the inner edges are breakpoints.
    values : ndarray of shape (n_pieces,)
        The value on each piece ``[edges[i], edges[i+1])``; the last piece is closed.
    """

    edges: np.ndarray
    values: np.ndarray

    def __post_init__(self) -> None:
        edges = np.asarray(self.edges, dtype=float)
        values = np.asarray(self.values, dtype=float)
        if edges.ndim != 1 or values.ndim != 1 or edges.size != values.size + 1:
            raise ValueError(
                f"edges must have one more entry than values; got shapes {edges.shape} "
                f"and {values.shape}."
            )
        if values.size == 0 or np.any(np.diff(edges) <= 0) or not np.all(np.isfinite(edges)):
            raise ValueError("edges must be finite and strictly increasing.")
        object.__setattr__(self, "edges", edges)
        object.__setattr__(self, "values", values)

    @property
    def lo(self) -> float:
        return float(self.edges[0])

    @property
    def hi(self) -> float:
        return float(self.edges[-1])

    @property
    def breakpoints(self) -> np.ndarray:
        """Inner edges, shape (n_pieces - 1,)."""
        return self.edges[1:-1]

    def piece_index(self, sigma: float | np.ndarray) -> np.ndarray:
        """Index of the piece holding each σ (right-continuous; the range end maps to
        the last piece)."""
        return piece_index(self.edges, sigma)

    def __call__(self, sigma: float | np.ndarray) -> np.ndarray:
        return self.values[self.piece_index(sigma)]

    def piece(self, sigma: float) -> tuple[float, float, float]:
        """``(lo, hi, value)`` of the piece holding ``sigma``."""
        i = int(self.piece_index(sigma))
        return float(self.edges[i]), float(self.edges[i + 1]), float(self.values[i])

    def merged(self) -> PiecewiseLoss:
        """The same function with equal neighbouring pieces joined."""
        keep = np.r_[True, self.values[1:] != self.values[:-1]]
        return PiecewiseLoss(np.r_[self.edges[:-1][keep], self.edges[-1]], self.values[keep])

    def minimum(self) -> tuple[float, float, float]:
        """``(value, lo, hi)``: the smallest value and the widest maximal piece of the
        merged function attaining it."""
        m = self.merged()
        best = m.values.min()
        idx = np.flatnonzero(m.values == best)
        widths = m.edges[idx + 1] - m.edges[idx]
        i = int(idx[np.argmax(widths)])
        return float(best), float(m.edges[i]), float(m.edges[i + 1])


def piece_index(edges: np.ndarray, sigma: float | np.ndarray) -> np.ndarray:
    """Index of the piece of ``edges`` (shape (n_pieces + 1,), increasing) holding each σ:
    right-continuous, the range end in the last piece, σ outside the range in the nearest
    end piece."""
    idx = np.searchsorted(edges, sigma, side="right") - 1
    return np.clip(idx, 0, len(edges) - 2)


def sum_piecewise(functions: Sequence[PiecewiseLoss]) -> PiecewiseLoss:
    """Exact pointwise sum of piecewise-constant functions sharing one range."""
    if not functions:
        raise ValueError("sum_piecewise needs at least one function.")
    lo, hi = functions[0].lo, functions[0].hi
    for f in functions:
        if not (
            np.isclose(f.lo, lo, rtol=0, atol=1e-12) and np.isclose(f.hi, hi, rtol=0, atol=1e-12)
        ):
            raise ValueError(
                f"all functions must share one range; got [{f.lo}, {f.hi}] and [{lo}, {hi}]."
            )
    edges = np.unique(np.concatenate([f.edges[1:-1] for f in functions] + [[lo, hi]]))
    mids = 0.5 * (edges[:-1] + edges[1:])
    total = np.zeros(mids.size)
    for f in functions:
        total += f(mids)
    return PiecewiseLoss(edges, total)
