"""The exact-solve policy: how an exact solve of L_UU f = b is done and when its answer is
trusted.

- Small dense systems (up to :data:`GTH_DENSE_MAX` unknowns) go to GTH directly
  (:func:`gth_first`): LU's smallest pivot does not see every cancellation, GTH is accurate
  entrywise on these M-matrices.
- Otherwise LU (row-scaled) first; its answer is trusted when the smallest pivot is at
  least :data:`PIVOT_TOL` and iterative refinement converges (:func:`refine`), and the
  soft labels lie in [0, 1] (:func:`in_unit`); else the solve is redone by GTH
  (:class:`GTHSolver`), subtraction-free.
- Direct solves of :data:`PARALLEL_MIN` unknowns or more run on all cores.
"""

from __future__ import annotations

import numpy as np

from sslviz import systems
from sslviz.solvers import (
    GTHFactorization,
    LinearSolver,
    SparseGTHFactorization,
)

PARALLEL_MIN = 200  # direct solves of this many unknowns or more run on all cores


PIVOT_TOL = 1e-13
"""Smallest LU pivot (rows scaled to max weight 1) trusted without GTH, and then only when
iterative refinement converges (:func:`refine`): refinement is the finer test, since
pivots above the bound can still come with corrections that do not shrink. Below it the
row sums' rounding (~1e-16 × degree) is within a few hundred of the pivot, and refinement
could stall on a wrong answer."""


_REFINE_STEPS = 4  # iterative refinement of an LU/Cholesky solve: at most this many steps


_REFINE_TOL = 1e-13  # ... until a correction is below this (f units); else GTH


GTH_DENSE_MAX = 400  # dense exact systems up to this size are solved by GTH directly


def gth_first(solver: str, M) -> bool:
    """True where an exact solve of the system ``M`` goes to GTH directly, not LU first:
    a dense system of at most ``_GTH_DENSE_MAX`` unknowns."""
    return solver == "exact" and isinstance(M, np.ndarray) and M.shape[0] <= GTH_DENSE_MAX


class GTHSolver:
    """A GTH factorisation behind the LinearSolver interface, keeping its counters."""

    def __init__(
        self, gth: GTHFactorization | SparseGTHFactorization, counted: LinearSolver
    ) -> None:
        self.gth = gth
        self.solves = counted.solves
        self.matvecs = counted.matvecs
        self.factorizations = counted.factorizations + 1

    def solve(self, b: np.ndarray, x0=None) -> np.ndarray:
        self.solves += 1
        return self.gth.solve(b).x


def in_unit(f: np.ndarray) -> bool:
    """Every soft label within [0, 1] up to 1e-9: an exact solve that can be trusted."""
    return bool(np.all((f >= -1e-9) & (f <= 1 + 1e-9)))


def refine(x: np.ndarray, keep, solve, W_UU, W_UL, *, y_l=None, rhs=None) -> bool:
    """Iterative refinement of an exact solve in place: ``x[keep] += solve(r[keep])``, the
    residual r summed edge by edge (:func:`_edge_flux`): b − L_UU f for f (``y_l`` given),
    ``rhs`` − L_UU g for ∂f/∂σ (``rhs`` given). Stops when a correction is below
    ``_REFINE_TOL`` times max(1, max |x|); False when ``_REFINE_STEPS`` steps do not get
    there (for f: the factorisation cannot be trusted, GTH redoes the solve).

    The assembled diagonal, a row sum, loses the weight to L where a cluster barely leaks:
    every LU pivot can pass while f is off by far more than a breakpoint's tolerance. Each
    step of refinement is a pair of triangular solves on the factors already made, a small
    part of the factorisation's cost, and brings f to the GTH solution's rounding within a
    few steps (docs/method.md §4.3; ``tests/data/test_sparse_exact_scale.py``).
    """
    target = y_l if rhs is None else np.zeros(W_UL.shape[1])
    for _ in range(_REFINE_STEPS):
        r = systems.edge_flux(W_UU, W_UL, target, x)
        d = solve((r if rhs is None else rhs + r)[keep])
        x[keep] += d
        if np.all(np.abs(d) <= _REFINE_TOL * max(1.0, float(np.abs(x).max(initial=0.0)))):
            return True
    return False
