"""Timings that keep their verdict under load, and the work counts beside them
(docs/method.md §11.4).

A wall-clock time measured once inside a server that other users share says more about
the others than about the computation. Here:

- :func:`timed` runs a computation several times (at least ``min_repeats``, more while a
  time budget allows) and keeps the **minimum** of its **CPU time** in the calling thread
  (``time.thread_time``: the computations run with one BLAS thread, see
  :mod:`sslviz._threads`, so the calling thread's CPU time is all of it; time spent
  waiting for a core while others compute is not counted), the minimum wall time, the
  spread of the CPU times, and how many other computations were running in the process
  meanwhile (``busy``).
- :func:`verdict` compares two timings and says which is faster only when the ratio of
  their minima is outside the noise (the larger of the two spreads and a 15 % floor);
  otherwise "undecided".
- :func:`work_counts` states the work a result took in units that do not depend on the
  machine or its load: solves, matrix–vector products with the nonzeros they touch,
  factorisations (dense or sparse, with their size), and a floating-point operation count
  where it is well defined (products 2·nnz each, dense LU ⅔·m³ plus 4·m² per solve pair;
  none for sparse LU, whose fill-in varies).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from sslviz import _threads

NOISE_FLOOR = 0.15
"""Relative difference below which two minima are not told apart: the minima of repeated
CPU timings moved by up to ~11 % between a quiet run and one beside two CPU hogs on this
2-core machine (``benchmarks/timing_load.py``)."""


@dataclass(frozen=True)
class Timing:
    """A robust timing of one computation (seconds).

    Attributes
    ----------
    cpu : float
        Minimum CPU time of the calling thread over the repetitions.
    wall : float
        Minimum wall time over the repetitions.
    repeats : int
    spread : float
        (median − min) / min of the CPU times: the noise of this measurement.
    busy : int
        The most other computations running in this process during the measurement.
    """

    cpu: float
    wall: float
    repeats: int
    spread: float
    busy: int

    def as_dict(self) -> dict:
        return {
            "cpu_seconds": self.cpu,
            "wall_seconds": self.wall,
            "repeats": self.repeats,
            "spread": self.spread,
            "busy": self.busy,
        }


def timed(
    func: Callable[[], Any],
    *,
    min_repeats: int = 3,
    max_repeats: int = 20,
    budget: float = 2.0,
) -> tuple[Any, Timing]:
    """``(result, Timing)`` of ``func()`` run at least ``min_repeats`` times and more, up to
    ``max_repeats``, while the total stays under ``budget`` seconds (a run longer than the
    budget is run once). The result is the first run's (every run gives the same bits)."""
    cpus: list[float] = []
    walls: list[float] = []
    busy = 0
    result = None
    t_start = time.perf_counter()
    while len(cpus) < max_repeats:
        busy = max(busy, _threads.running())
        w0, c0 = time.perf_counter(), time.thread_time()
        out = func()
        cpus.append(time.thread_time() - c0)
        walls.append(time.perf_counter() - w0)
        if len(cpus) == 1:
            result = out
        spent = time.perf_counter() - t_start
        if spent > budget or (len(cpus) >= min_repeats and spent + min(walls) > budget):
            break
    best = min(cpus)
    spread = (statistics.median(cpus) - best) / best if best > 0 else 0.0
    return result, Timing(best, min(walls), len(cpus), spread, busy)


def shown_ms(seconds: float) -> float:
    """``seconds`` in milliseconds, rounded to 3 significant digits: the number a table
    shows (every ratio a page states of shown times is computed from these)."""
    ms = 1e3 * float(seconds)
    return float(f"{ms:.3g}") if ms > 0 else 0.0


def verdict(a: Timing, b: Timing, names: tuple[str, str] = ("a", "b")) -> str:
    """Which of two timings is faster, from their CPU minima as a table shows them
    (:func:`shown_ms`, so the ratio can be checked from the shown numbers):
    ``"<name> faster (0.252 ms against 3.94 ms, ×15.6)"``, or ``"undecided (…, ×r: within
    the noise)"`` when the ratio is inside the noise."""
    noise = max(NOISE_FLOOR, a.spread, b.spread)
    ms_a, ms_b = shown_ms(a.cpu), shown_ms(b.cpu)
    fast, slow, name = (ms_a, ms_b, names[0]) if ms_a <= ms_b else (ms_b, ms_a, names[1])
    ratio = slow / fast if fast > 0 else float("inf")
    times = f"{ms_a:g} ms against {ms_b:g} ms"
    if ratio <= 1.0 + noise:
        return f"undecided ({times}, ×{ratio:.2f}: within the noise)"
    return f"{name} faster ({times}, ×{ratio:.1f})"


def system_size(model, sigma: float) -> tuple[int, int, bool]:
    """``(m, nonzeros, dense)`` of the linear system the solvers see at σ: the model's
    :meth:`~sslviz.labeling.SoftLabelModel.work_matrix` (the harmonic L_UU, stored dense
    where every entry is touched; Delalleau's system on L ∪ Ũ), or the unlabeled block,
    dense, for a model that states none."""
    A = model.work_matrix(sigma)
    if A is None:
        return model.n_unlabeled, model.n_unlabeled**2, True
    dense = not sp.issparse(A)
    m = int(A.shape[0])
    nnz = m * m if dense else int(A.nnz + np.count_nonzero(A.diagonal() == 0))
    return m, nnz, dense


def work_counts(model, sigma: float, *, solves: int, matvecs: int, factorizations: int) -> dict:
    """The work of a result in machine-independent units (see the module docstring).

    ``sigma`` is any σ of the computation (the system's pattern does not depend on it)."""
    m, nnz, dense = system_size(model, sigma)
    graph_nnz = nnz if model.graph_nonzeros is None else model.graph_nonzeros
    touched = matvecs * graph_nnz  # a product on the graph's L_UU (Table 1's cost model)
    flops = 2 * touched
    if factorizations and dense:
        flops += factorizations * (2 * m**3 // 3) + solves * 2 * m * m
    return {
        "solves": int(solves),
        "matvecs": int(matvecs),
        "system_size": m,
        "system_nonzeros": nnz,
        "graph_nonzeros": int(graph_nnz),
        "storage": "dense" if dense else "sparse",
        "nonzeros_touched": int(touched),
        "factorizations": int(factorizations),
        "factorization": ("dense" if dense else "sparse") if factorizations else None,
        "flops": int(flops) if (dense or not factorizations) else None,
    }


def describe_work(w: dict, per: int = 1, unit: str = "") -> str:
    """One sentence for a student: "20 products of L_UU's 3,100 nonzeros per solve; …"
    (the graph's nonzeros, and the storage that ran when it differs: small sparse systems
    run dense); counts divided by ``per`` (e.g. the number of intervals M, with ``unit``
    "per interval")."""
    per = max(int(per), 1)
    solves, mv, fac = (w[k] / per for k in ("solves", "matvecs", "factorizations"))
    graph = w.get("graph_nonzeros", w["system_nonzeros"])
    m = w["system_size"]
    parts = []
    if mv:
        ran = (
            f" (run dense: {w['system_nonzeros']:,} entries, faster at this size)"
            if w.get("storage") == "dense" and graph < m * m
            else ""
        )
        parts.append(
            f"{mv / max(solves, 1e-300):.0f} products of L_UU's {graph:,} nonzeros per solve{ran}"
        )
    if fac:
        parts.append(f"{fac:,.0f} {w['factorization']} {m}×{m} factorisations")
    parts.append(f"{solves:,.0f} solves")
    if w["flops"] is not None:
        parts.append(f"≈ {w['flops'] / per:.2g} flops")
    return "; ".join(parts) + (f" {unit}" if unit else "")


def speed_verdicts(rows: list[dict], names: tuple[str, str] = ("cg", "inverse")) -> dict:
    """Per (n, family) of the live Table 1's rows (from :func:`sslviz.export.speed_row` with
    a timing): which solver of ``names`` is faster per interval, from the robust timings,
    with both times as the table shows them (:func:`shown_ms`) and their ratio computed
    from those shown numbers, so a reader can check it.

    Returns ``{(n, family): verdict}``; pairs with a solver missing are left out."""
    by = {(r["n"], r["family"], r["solver"]): r for r in rows if "cpu_seconds" in r}
    out = {}
    for (n, fam, solver), r in by.items():
        other = by.get((n, fam, names[1]))
        if solver != names[0] or other is None:
            continue
        per = [
            Timing(
                x["cpu_per_interval"], x["time_per_interval"], x["repeats"], x["spread"], x["busy"]
            )
            for x in (r, other)
        ]
        out[(n, fam)] = verdict(*per, names=(names[0].upper(), names[1]))
    return out
