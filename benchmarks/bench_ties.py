"""Cost of ties="average" against the default tie policy on the 7M-line benchmark.

Usage: python benchmarks/bench_ties.py [--data-dir DIR] [--repeat N]

For a tie-heavy variant, generate the data with scores rounded to one decimal:
``python ../shared/bench/gen_msmarco_like.py --outdir /tmp/bench-ties --score-decimals 1``.

Target (issue 7): ties="average" costs at most 1.5x the default policy.
Evaluation alone, on loaded data, best of N.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import rankwise as rw

MEASURES = ["ndcg@10", "map", "mrr@10", "P@10", "recall@1000"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", default="/tmp/bench-data")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    data = Path(args.data_dir)
    qrels = rw.read_qrels(data / "msmarco_like.qrels")
    run = rw.read_run(data / "msmarco_like.run")
    best: dict[str, float] = {}
    for _ in range(args.repeat):
        for policy in ("trec", "average", "worst", "best"):
            start = time.perf_counter()
            results = rw.evaluate(qrels, run, MEASURES, ties=policy)
            elapsed = time.perf_counter() - start
            best[policy] = min(best.get(policy, float("inf")), elapsed)
    for policy, seconds in best.items():
        print(f"ties={policy:<8} {seconds:.3f} s  ({seconds / best['trec']:.2f}x trec)")
    report = results.ties
    print(f"queries with ties among relevant and non-relevant: {report.queries_mixed}; "
          f"straddling a cutoff: {report.queries_straddling_cutoff}")
    verdict = "met" if best["average"] <= 1.5 * best["trec"] else "MISSED"
    print(f"target average <= 1.5x trec: {verdict}")


if __name__ == "__main__":
    main()
