"""A large graph's exact curve as far as it is known while it is searched
(``on_part`` of :func:`sslviz.problem.loss_curve`: docs/method.md §5.3).

For each instance: when each part arrived (seconds from the search's start), how far it
reached and how many breakpoints it had, against the whole search; the search with parts
against without, in turns, with the check that both give the same curve, bit for bit; and
the seconds spent assembling the parts (the only extra work, timed inside the search).

Run: ``python benchmarks/truth_parts.py [--repeats 3]``; writes
``benchmarks/results/truth_parts.{json,md}``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from _common import machine, write
from reference import assert_same_curve

from sslviz import truth
from sslviz.problem import build_problem, loss_curve
from sslviz.specs import ProblemSpec

CASES = [
    (
        "Fashion-MNIST T-shirt vs Trouser, 3,000 points, kNN-6",
        ProblemSpec(dataset="fashion-mnist", classes=(0, 1), n=3000, family="knn", k=6),
        (1.3, 6.4),
    ),
    (
        "Fashion-MNIST T-shirt vs Trouser, the whole pool (12,000), kNN-6",
        ProblemSpec(dataset="fashion-mnist", classes=(0, 1), n=12000, family="knn", k=6),
        (0.93, 4.7),
    ),
    (
        "digits, ten classes, 800 points, complete graph",
        ProblemSpec(classes=tuple(range(10)), n=800, n_labeled=40, family="complete"),
        (1.0, 6.0),
    ),
]


def same(a, b) -> bool:
    """Whether two curves are the same, bit for bit (the tests' check)."""
    try:
        assert_same_curve(a, b)
    except AssertionError:
        return False
    return True


ASSEMBLY: list[float] = []
"""Seconds of each part's assembly in the search running now (:func:`timed_assembly`)."""


def timed_assembly() -> None:
    """Time every partial assembly of the searches (``truth._assemble`` and
    ``truth._assemble_classes`` with ``partial=True``) into :data:`ASSEMBLY`."""
    for name in ("_assemble", "_assemble_classes"):
        inner = getattr(truth, name)

        def timed(*args, inner=inner, **kwargs):
            t0 = time.perf_counter()
            out = inner(*args, **kwargs)
            if kwargs.get("partial"):
                ASSEMBLY.append(time.perf_counter() - t0)
            return out

        setattr(truth, name, timed)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    timed_assembly()
    start, load = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.getloadavg()[0]
    rows = []
    for name, spec, (lo, hi) in CASES:
        problem = build_problem(spec)
        with_parts, without, arrivals, curves, assembly = [], [], [], [], []
        for r in range(args.repeats):
            for parts_on in (True, False) if r % 2 == 0 else (False, True):
                got: list = []
                ASSEMBLY.clear()
                t0 = time.perf_counter()
                stamp = lambda p, t0=t0, got=got: got.append((time.perf_counter() - t0, p))  # noqa: E731
                curve = loss_curve(problem, lo, hi, on_part=stamp if parts_on else None)
                took = time.perf_counter() - t0
                (with_parts if parts_on else without).append(took)
                curves.append(curve)
                if parts_on:
                    assembly.append(sum(ASSEMBLY))
                    arrivals.append([(t, p.reached, int(p.curve.breakpoints.size)) for t, p in got])
        first = arrivals[0]
        rows.append(
            {
                "case": name,
                "sigma": [lo, hi],
                "breakpoints": int(curves[0].breakpoints.size),
                "seconds_with_parts": with_parts,
                "seconds_without": without,
                "parts": first,
                "parts_median_s": [
                    statistics.median(a[i][0] for a in arrivals) for i in range(len(first))
                ],
                "assembly_s": assembly,
                "same_curve": all(same(c, curves[0]) for c in curves),
            }
        )
        print(rows[-1], flush=True)
    md = [
        "# A large graph's exact curve as it is searched (`python benchmarks/truth_parts.py`)",
        "",
        f"Each search {args.repeats}× with parts and {args.repeats}× without, in turns (the "
        "order swapped every round); seconds from the search's start, medians. "
        f"Machine: {machine()['cpus']} CPUs, shared; run from {start}, 1-minute load "
        f"{load:.1f} at the start.",
        "",
        "| instance | σ range | breakpoints | parts: when (s), up to σ, breakpoints so far | "
        "whole search with parts | without | the parts' assembly | same curve |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        parts = "; ".join(
            f"{t:.2f} s, {s:.4g}, {b}"
            for t, (_, s, b) in zip(r["parts_median_s"], r["parts"], strict=True)
        )
        md.append(
            f"| {r['case']} | [{r['sigma'][0]:g}, {r['sigma'][1]:g}] | {r['breakpoints']:,} | "
            f"{parts} | {statistics.median(r['seconds_with_parts']):.2f} s | "
            f"{statistics.median(r['seconds_without']):.2f} s | "
            f"{statistics.median(r['assembly_s']):.3f} s | "
            f"{'yes' if r['same_curve'] else 'NO'} |"
        )
    write("truth_parts", {"machine": machine(), "rows": rows}, "\n".join(md) + "\n")


if __name__ == "__main__":
    main()
