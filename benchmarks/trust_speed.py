"""The trust panel's t needed: read off recorded runs against a solve at
every t the search tries, in one run.

:func:`sslviz.conditioning.trust_curve` searches, per σ, the t at which every node is on
its exact side (doubling, then bisection). The harmonic model answers each step from one
recorded run per σ (CG's iterates are nested: :class:`sslviz.conditioning._RecordedRuns`);
``nested_iterates = False`` on the model makes the same search solve at each t it tries,
as before. Both are timed alternately on the same model and σ grid, and every field of
the two curves is compared (they must be equal, bit for bit).

Instances: the loss page's default view (digits 2 v 3, n = 100, |L| = 10, 40 σ on
[0.58, 3.3]) on its complete graph and on kNN-6, and digits 2 v 3 with n = 360 on kNN-6.

Run: ``python benchmarks/trust_speed.py [--rounds 5]``; writes
``benchmarks/results/trust_speed.{json,md}``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from _common import machine, write

from sslviz.conditioning import trust_curve
from sslviz.problem import build_problem
from sslviz.specs import ProblemSpec

CASES = {
    "default view, complete, n = 100": ProblemSpec(),
    "default view, kNN-6, n = 100": ProblemSpec(family="knn"),
    "kNN-6, n = 360": ProblemSpec(family="knn", n=360),
}
SIGMAS = np.linspace(0.58, 3.3, 40)
FIELDS = ("t_needed_cg", "t_needed_pcg", "error", "margin", "wrong", "underflow", "degenerate")


def timed(model, nested: bool) -> tuple[float, object]:
    model.nested_iterates = nested
    try:
        t0 = time.perf_counter()
        curve = trust_curve(model, SIGMAS)
        return time.perf_counter() - t0, curve
    finally:
        del model.nested_iterates


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    rows = {}
    for name, spec in CASES.items():
        model = build_problem(spec).model
        timed(model, True)  # kernels loaded, first-call costs out of the way
        times: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(args.rounds):
            for nested in (False, True):
                seconds, curve = timed(model, nested)
                times[nested].append(seconds)
                if nested:
                    recorded = curve
                else:
                    solved = curve
        same = all(np.array_equal(getattr(recorded, f), getattr(solved, f)) for f in FIELDS)
        assert same, f"{name}: the recorded runs' trust curve differs from the solved one"
        rows[name] = {
            "solved_s": statistics.median(times[False]),
            "recorded_s": statistics.median(times[True]),
            "same": same,
            "t_needed_cg_max": int(recorded.t_needed_cg.max()),
            "t_needed_pcg_max": int(recorded.t_needed_pcg.max()),
        }
    md = [
        "# Trust panel: t needed from recorded runs against a solve at each t",
        "",
        f"`python benchmarks/trust_speed.py --rounds {args.rounds}`: 40 σ on [0.58, 3.3], "
        f"the trust curve of CG-20 (t needed for CG and PCG, cap 1024); medians of "
        f"{args.rounds} alternating rounds; {machine()['cpus']} CPUs.",
        "",
        "| instance | solve at each t (s) | recorded runs (s) | ratio | same fields | "
        "largest t needed, CG / PCG |",
        "|---|---|---|---|---|---|",
    ]
    for name, r in rows.items():
        md.append(
            f"| {name} | {r['solved_s']:.3f} | {r['recorded_s']:.3f} | "
            f"{r['solved_s'] / r['recorded_s']:.1f}× | {'yes' if r['same'] else 'NO'} | "
            f"{r['t_needed_cg_max']} / {r['t_needed_pcg_max']} |"
        )
    payload = {"machine": machine(), "rounds": args.rounds, "cases": rows}
    write("trust_speed", payload, "\n".join(md))


if __name__ == "__main__":
    main()
