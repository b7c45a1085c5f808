"""The fast paths sslviz takes where they apply, and one context to choose them.

Each fast path computes what the general path computes, faster where it applies; tests and
benchmarks compare the two (``tests/reference.py`` states the tolerances). They are chosen
for a block of code with :func:`fast_paths`, never by assigning module variables:

>>> from sslviz.paths import fast_paths, taken
>>> with fast_paths(chebyshev=False):
...     taken()["chebyshev"]
False
>>> taken()["chebyshev"]
True

========================  ================================================================
name                      the fast path (the general path when False)
========================  ================================================================
``fast_dense``            dense graphs solve 'exact', 'cg' and 'pcg' without solver objects,
                          same bits (:mod:`sslviz.labeling`; Delalleau's CG too)
``sparse_exact``          exact sparse solves keep the diagonal pivots of the row-scaled
                          systems, GTH on the sparse structure where one cancels (else
                          SuperLU's defaults and dense GTH)
``chebyshev``             exact curves searched by Chebyshev interpolation on cells
                          (:mod:`sslviz.crossings`; else the Hermite grid search)
``compiled_search``       fixed-t CG/PCG searches on harmonic models (sparse or dense) run
                          compiled, the same σ and bits (else in Python)
``precompute``            local parallel regret runs compute all rounds first, split by
                          round (:mod:`sslviz.experiment`; else one task per repetition)
``fork``                  local workers forked where that is safe (:mod:`sslviz._threads`;
                          else joblib's fresh workers)
========================  ================================================================

The choice is process-wide (the modules read it as they run): do not change it while
another thread computes.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager

_SWITCHES = {
    "fast_dense": ("sslviz.labeling", "FAST_DENSE"),
    "sparse_exact": ("sslviz.labeling", "SPARSE_EXACT"),
    "chebyshev": ("sslviz.crossings", "CHEBYSHEV"),
    "compiled_search": ("sslviz.crossings", "COMPILED_SEARCH"),
    "precompute": ("sslviz.experiment", "PRECOMPUTE"),
    "fork": ("sslviz._threads", "FORK"),
}
NAMES = tuple(_SWITCHES)
"""The fast paths :func:`fast_paths` chooses."""


def taken() -> dict[str, bool]:
    """Which fast paths are taken now (name → bool)."""
    return {
        name: bool(getattr(importlib.import_module(m), v)) for name, (m, v) in _SWITCHES.items()
    }


@contextmanager
def fast_paths(**choices: bool) -> Iterator[dict[str, bool]]:
    """Take (True) or skip (False) the named fast paths inside the block; the others stay
    as they are. Yields :func:`taken` inside the block; restores the previous choices on
    exit, also after an exception.

    Raises
    ------
    TypeError
        For a name that is not one of :data:`NAMES`.
    """
    unknown = sorted(set(choices) - set(_SWITCHES))
    if unknown:
        raise TypeError(
            f"fast_paths: unknown path {', '.join(unknown)}; the paths are {', '.join(NAMES)}."
        )
    before = taken()
    try:
        for name, on in choices.items():
            module, variable = _SWITCHES[name]
            setattr(importlib.import_module(module), variable, bool(on))
        yield taken()
    finally:
        for name in choices:
            module, variable = _SWITCHES[name]
            setattr(importlib.import_module(module), variable, before[name])


__all__ = ["NAMES", "fast_paths", "taken"]
