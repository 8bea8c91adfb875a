"""Speed of the measures beyond trec_eval on a TREC-Web-like diversity collection.

Usage: python benchmarks/bench_measures.py [--queries 7000] [--repeat 5] [--write DIR]

The collection is generated here (seeded, in memory): 7,000 queries with 10
subtopics each; a run of 1,000 documents per query (scores without ties;
``--ties``: rounded to 0.1, about 5 documents per group of tied scores); 100
judged documents per query (70 among the run's top 300, 30 not retrieved),
each judged for every subtopic (7,000,000 subtopic judgments, ndeval's
layout), relevant to a subtopic with probability 0.15 (grades 1-3).
``--write DIR`` also writes ``qrels.ndeval`` and ``run.trec`` there (for
ndeval and the command line).

Target (issue 16): err@20 + alpha_ndcg@20 + nrbp evaluated in under 1 s
(evaluation alone, on loaded data, best of N). Other measures of the issue
are timed for information.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

import rankwise as rw

TARGET = ["err@20", "alpha_ndcg@20", "nrbp"]
OTHERS = [
    ["nerr@20"],
    ["err_ia@20", "nerr_ia@20", "p_ia@20", "strec@20", "ap_ia"],
    ["nnrbp"],
    ["inst(max_grade=3)", "rbp"],
    ["tbg(max_grade=3)", "umeasure(max_grade=3)"],
    ["compat"],
    ["ncg@20"],
]


def _text(values: np.ndarray) -> pa.Array:
    return pa.array(values).cast(pa.string())


def collection(queries: int, *, ties: bool = False, seed: int = 16) -> tuple[rw.Qrels, rw.Run]:
    """The diversity judgments and run described in the module's docstring."""
    rng = np.random.default_rng(seed)
    depth, judged, retrieved_judged, subtopics = 1000, 100, 70, 10
    qids = _text(np.arange(1, queries + 1))
    # the run: documents Q-d0 .. Q-d999 of each query Q
    run_queries = qids.take(np.repeat(np.arange(queries), depth))
    run_docs = pc.binary_join_element_wise(
        run_queries, _text(np.tile(np.arange(depth), queries)), "-d"
    )
    scores = np.sort(rng.random((queries, depth)), axis=1)[:, ::-1]
    scores = np.round(scores * 200) / 10 if ties else scores
    run = rw.Run.from_arrow(run_queries, run_docs, scores.ravel(), name="bench")
    # the judged pool: 70 of the top 300 retrieved (Q-dN), 30 never retrieved (Q-uN)
    top = np.argsort(rng.random((queries, 300)), axis=1)[:, :retrieved_judged]
    unretrieved = np.tile(np.arange(judged - retrieved_judged), (queries, 1))
    pool = np.concatenate((top, unretrieved + depth), axis=1).ravel()
    lines = queries * judged * subtopics
    line_query = np.repeat(np.arange(queries), judged * subtopics)
    line_doc = np.repeat(pool, subtopics)
    doc_ids = pc.binary_join_element_wise(
        qids.take(line_query),
        pc.if_else(pa.array(line_doc >= depth), "u", "d"),
        _text(np.where(line_doc >= depth, line_doc - depth, line_doc)),
        "-",
    )
    doc_ids = pc.replace_substring(doc_ids, "-d-", "-d")
    doc_ids = pc.replace_substring(doc_ids, "-u-", "-u")
    relevant = rng.random(lines) < 0.15
    grades = np.where(relevant, rng.integers(1, 4, size=lines), 0)
    qrels = rw.Qrels.from_arrow(
        qids.take(line_query),
        doc_ids,
        grades,
        subtopics=_text(np.tile(np.arange(1, subtopics + 1), queries * judged)),
    )
    return qrels, run


def best_of(repeat: int, qrels: rw.Qrels, run: rw.Run, measures: list[str]) -> tuple[float, float]:
    """Best wall time and best CPU time (all threads) of *repeat* evaluations."""
    wall = cpu = float("inf")
    rw.evaluate(qrels, run, measures)  # warm-up
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        rw.evaluate(qrels, run, measures)
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--queries", type=int, default=7000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--write", metavar="DIR", default=None)
    parser.add_argument("--all", action="store_true", help="also time the other measures")
    parser.add_argument("--ties", action="store_true",
                        help="scores rounded to 0.1 (about 5 documents per tied group)")
    args = parser.parse_args()
    start = time.perf_counter()
    qrels, run = collection(args.queries, ties=args.ties)
    print(f"generated {len(run):,} run lines, {len(qrels.subtopics):,} subtopic judgments "
          f"({len(qrels):,} judged documents) in {time.perf_counter() - start:.1f} s")
    if args.write:
        out = Path(args.write)
        out.mkdir(parents=True, exist_ok=True)
        qrels.to_trec(out / "qrels.ndeval")
        run.to_trec(out / "run.trec")
        print(f"wrote {out / 'qrels.ndeval'} and {out / 'run.trec'}")
    import os

    print(f"C modules: {'off (RANKWISE_NO_C)' if os.environ.get('RANKWISE_NO_C') else 'on'}; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    baseline, baseline_cpu = best_of(args.repeat, qrels, run, ["P@10"])
    print(f"P@10 alone (the join and ranks every measure needs): {baseline:.3f} s "
          f"(CPU {baseline_cpu:.3f} s)")
    seconds, cpu = best_of(args.repeat, qrels, run, TARGET)
    print(f"{' + '.join(TARGET)}: {seconds:.3f} s (CPU {cpu:.3f} s; best of {args.repeat})")
    print(f"target < 1 s of evaluation: {'met' if seconds < 1.0 else 'MISSED'}")
    if args.all:
        for measures in OTHERS:
            wall, cpu = best_of(args.repeat, qrels, run, measures)
            print(f"{' + '.join(measures)}: {wall:.3f} s (CPU {cpu:.3f} s)")


if __name__ == "__main__":
    main()
