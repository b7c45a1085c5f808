"""Fast mode against paper mode (Algorithm 4) on the same instances, whole sweeps.

    python benchmarks/fast_vs_paper.py   # writes benchmarks/results/fast_vs_paper.{json,md}

kNN-6 CG-20 (the issue's target column), |L| = 10, σ ∈ [1, 7], ε = 1e-4, η = 1,
step 0.05, seeds 0–2, digits (n = 100, 300) and Fashion-MNIST (n = 100, 300, 500). Both
modes are scored against the exact loss curve (table1.cell): missed true breakpoints
(no endpoint within 1e-3) and ε-volume (σ length where the estimate is wrong). Paper
mode runs to the end of the range (no time budget), so the comparison is like for like.
"""

from __future__ import annotations

from _common import fashion_or_digits, machine, write
from table1 import cell

COLUMN = "kNN-6 CG-20"
SEEDS = (0, 1, 2)


def main() -> None:
    fashion = fashion_or_digits()
    sets = [("digits", 100), ("digits", 300)]
    if fashion != "digits":
        sets += [(fashion, 100), (fashion, 300), (fashion, 500)]
    rows = []
    for dataset, n in sets:
        for seed in SEEDS:
            pair = {m: cell(dataset, n, seed, COLUMN, m, None) for m in ("fast", "paper")}
            row = {
                "dataset": dataset,
                "n": n,
                "seed": seed,
                "true": pair["fast"]["true_breakpoints"],
            }
            for m, r in pair.items():
                row.update({f"{m}_{k}": r[k] for k in ("missed", "eps_volume", "M", "tpi")})
            rows.append(row)
            print(row, flush=True)
    worse_missed = sum(r["fast_missed"] > r["paper_missed"] for r in rows)
    worse_vol = sum(r["fast_eps_volume"] > r["paper_eps_volume"] + 1e-9 for r in rows)
    md = [
        f"# Fast mode vs paper mode, {COLUMN}, whole sweeps on [1, 7]",
        "",
        "Command: `python benchmarks/fast_vs_paper.py`",
        "",
        f"Instances where fast mode misses more true breakpoints than paper mode: "
        f"{worse_missed} of {len(rows)}; where its ε-volume is larger: {worse_vol} of "
        f"{len(rows)}. Totals over the suite: missed {sum(r['fast_missed'] for r in rows)} "
        f"(fast) vs {sum(r['paper_missed'] for r in rows)} (paper) of "
        f"{sum(r['true'] for r in rows)} true breakpoints; ε-volume "
        f"{sum(r['fast_eps_volume'] for r in rows):.2f} vs "
        f"{sum(r['paper_eps_volume'] for r in rows):.2f}.",
        "",
        "| dataset | n | seed | true | missed fast / paper | ε-vol fast / paper | "
        "M fast / paper | TpI s fast / paper |",
        "|---|---|---|---|---|---|---|---|",
    ]
    md += [
        f"| {r['dataset']} | {r['n']} | {r['seed']} | {r['true']} | "
        f"{r['fast_missed']} / {r['paper_missed']} | "
        f"{r['fast_eps_volume']:.3f} / {r['paper_eps_volume']:.3f} | "
        f"{r['fast_M']} / {r['paper_M']} | {r['fast_tpi']:.4f} / {r['paper_tpi']:.3f} |"
        for r in rows
    ]
    write(
        "fast_vs_paper",
        {"machine": machine(), "column": COLUMN, "rows": rows},
        "\n".join(md) + "\n",
    )


if __name__ == "__main__":
    main()
