"""This server's caps on what a request may cost.

From the environment: ``SSLVIZ_MAX_N``, ``SSLVIZ_MAX_COMPLETE_N``, ``SSLVIZ_MAX_ROUNDS``,
``SSLVIZ_MAX_REPEATS`` bound the widgets; ``SSLVIZ_MAX_SECONDS`` (default 60) and
``SSLVIZ_MAX_MEMORY_MB`` (default 1000) bound every computation by its estimated time and
memory (:mod:`sslviz.costs`): a request over them is refused with the estimate and the
nearest settings that fit (:func:`refuse`), before anything is computed.
"""

from __future__ import annotations

import os

import streamlit as st

from sslviz import costs, registry
from sslviz._validation import options_text
from sslviz.specs import ProblemSpec


def _env_int(name: str, default: int) -> int:
    try:
        return max(1, int(os.environ.get(name, default)))
    except ValueError:
        return default


MAX_N = _env_int("SSLVIZ_MAX_N", 3000)


MAX_LARGE_N = _env_int("SSLVIZ_MAX_LARGE_N", 15000)


MAX_LARGE_SECONDS = _env_int("SSLVIZ_MAX_LARGE_SECONDS", 120)
"""The large option: a sparse graph on a whole class pool above ``MAX_N`` points (up to
``MAX_LARGE_N``), each computation capped at ``MAX_LARGE_SECONDS`` of estimated time."""


LARGE_NODE_GRID = 40  # σ of the drill-down's f_u(σ) above MAX_N (each a full exact solve)


MAX_COMPLETE_N = _env_int("SSLVIZ_MAX_COMPLETE_N", 1500)


MAX_ROUNDS = _env_int("SSLVIZ_MAX_ROUNDS", 300)


MAX_REPEATS = _env_int("SSLVIZ_MAX_REPEATS", 10)


MAX_MEMORY_MB = _env_int("SSLVIZ_MAX_MEMORY_MB", 1000)


MAX_SECONDS = _env_int("SSLVIZ_MAX_SECONDS", 60)


DENSE_COPIES = costs.DENSE_COPIES


CAPS = {"n": MAX_N, "labeled": MAX_N, "subset": MAX_N, "rounds": MAX_ROUNDS, "repeats": MAX_REPEATS}
"""Upper bounds of widgets (URL key → cap) that the app sets below the tables' bounds."""


def complete_bytes(n: int) -> int:
    """Memory estimate of a complete-graph instance: a few dense n×n float64 arrays."""
    return DENSE_COPIES * 8 * n * n


def _sparse_labels() -> str:
    """The sparse families by their labels ("kNN, mutual kNN and threshold")."""
    return options_text([f.label for f in registry.FAMILIES.values() if f.sparse], "and")


def n_cap(family: str, large: bool = False) -> tuple[int, str]:
    """This server's largest n for ``family`` (``large``: with the large option) and why,
    in the words the n box and :func:`cap_errors` use. A dense family (n² weights) has its
    own cap; the large option is for the sparse ones."""
    if large:
        return MAX_LARGE_N, "this server's cap with the large option"
    graph = registry.family(family)
    if not graph.sparse and MAX_COMPLETE_N < MAX_N:
        return MAX_COMPLETE_N, (
            f"this server's cap on a {graph.label} graph (the sparse families, "
            f"{_sparse_labels()}, go to {MAX_N:,})"
        )
    if not graph.sparse:
        return MAX_N, (
            f"this server's cap ({MAX_LARGE_N:,} for the sparse families, with the large option)"
        )
    return MAX_N, "this server's cap"


def cap_errors(spec: ProblemSpec) -> list[str]:
    """This server's caps on the instance itself (its n, then the memory of building it;
    the time of each computation is checked by the page: :func:`over_cap`): the first rule
    the instance breaks, in words, or none."""
    sparse = spec.graph_family.sparse
    cap, why = n_cap(spec.family, sparse and spec.n > MAX_N)
    if spec.n > cap:
        return [f"n = {spec.n:,} is above {cap:,}, {why}. Lower n."]
    mb = costs.memory(spec).memory_mb
    if mb > MAX_MEMORY_MB:
        other = "" if sparse else f" or use a sparse family ({_sparse_labels()})"
        return [
            f"The instance needs about {mb:,.0f} MB, above this server's cap of "
            f"{MAX_MEMORY_MB:,} MB: lower n{other}."
        ]
    return []


def over_cap(
    what: str,
    estimate: costs.Estimate,
    spec: ProblemSpec,
    lo: float,
    hi: float,
    extra: tuple[str, ...] = (),
) -> str | None:
    """The refusal of ``what`` when ``estimate(spec, lo, hi)`` (:mod:`sslviz.costs`) is over
    this server's time or memory cap (the large option's for n above ``MAX_N``), with the
    nearest settings that fit; else None."""
    seconds = MAX_LARGE_SECONDS if spec.n > MAX_N else MAX_SECONDS
    return costs.over_cap(what, estimate, spec, lo, hi, seconds, MAX_MEMORY_MB, extra)


def refuse(message: str | None) -> bool:
    """Show an over-cap message (from :func:`over_cap`) as an error; True when there was one
    (the page then computes nothing)."""
    if message:
        st.error(message, icon=":material/hourglass_disabled:")
    return bool(message)
