#!/usr/bin/env python3
"""Probe: the whole per-row work of a ``ranks`` written as JVM code, checked and timed.

``rwprobe/RanksPass.java`` makes one pass per partition over a run grouped by
query. For each query it hashes and copies the document ids, checks for a
document listed twice (equal hashes confirmed on the ids), finds the query's
judged documents (by hash, confirmed on the ids), and counts, for each one,
the rows above it, the rows of its score and those of them with a greater id
(trec_eval's order). A query split across partitions has its first and last
fragments shipped whole, and the driver merges them here. This script:

- checks every judged document's rank (1 + above + greater) against a
  reference computed with pyarrow (the run sorted by query, score descending,
  id descending), on runs with heavy ties (200 distinct scores a query), read
  as Spark reads them and in 1 MB partitions (queries split across them);
- checks duplicates found within a partition and across a split;
- times the pass per added row (7M vs 28M rows) against the numpy engine,
  timed as ``probe.py`` times it.

Needs pyspark and a JDK. From the repository root::

    PYTHONPATH=src python benchmarks/spark_jvm_probe/ranks_pass.py --rounds 3

A probe, not part of rankwise: nothing here is imported by rankwise or its tests.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe import SIZES, arguments, jvm_cpu_seconds, numpy_cpu_seconds, session


def decode(blob: bytes) -> dict[str, Any]:
    """One partition's columns (``RanksPass.Out.toBytes``), read without a loop."""
    import pyarrow as pa

    f, h, b, query_bytes, row_bytes = (int(v) for v in np.frombuffer(blob, "<i8", 5))
    at = 40

    def take(count: int, dtype: str) -> np.ndarray:
        nonlocal at
        values = np.frombuffer(blob, dtype, count, at)
        at += values.nbytes
        return values

    rows, bad, twice, flags = (take(f, "<i8") for _ in range(4))
    top, query_offsets = take(f, "<f8"), take(f + 1, "<i8")
    queries = blob[at:at + query_bytes]
    at += (query_bytes + 7) & ~7
    fragment, judgment, above, size, greater = (take(h, "<i8") for _ in range(5))
    score = take(h, "<f8")
    row_fragment, row_score, row_offsets = take(b, "<i8"), take(b, "<f8"), take(b + 1, "<i8")
    ids = blob[at:at + row_bytes]

    def strings(count: int, offsets: np.ndarray, data: bytes) -> pa.Array:
        return pa.StringArray.from_buffers(
            count, pa.py_buffer(offsets.astype(np.int32).tobytes()), pa.py_buffer(data))

    return {
        "rows": rows, "bad": bad, "twice": twice, "flags": flags, "top": top,
        "query": strings(f, query_offsets, queries), "fragment": fragment,
        "judgment": judgment, "above": above, "size": size, "greater": greater, "score": score,
        "row_fragment": row_fragment, "row_score": row_score,
        "row_id": strings(b, row_offsets, ids),
    }


def merge(parts: list[dict[str, Any]], judged_doc: Any) -> dict[str, Any]:
    """Every partition's fragments as one: per query its rows and whether a document
    repeats, per hit its counts; a query split across partitions (only first and last
    fragments may be parts of one: else the run is not grouped) is merged from the
    rows its fragments shipped (a loop over those few queries only)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    first = np.cumsum([0] + [len(p["rows"]) for p in parts])

    def joined(key: str, shift: bool = False) -> np.ndarray:
        return np.concatenate([p[key] + (first[i] if shift else 0) for i, p in enumerate(parts)])

    query = pa.chunked_array([p["query"] for p in parts]).combine_chunks()
    rows, twice, flags = joined("rows"), joined("twice").copy(), joined("flags")
    fragment, row_fragment = joined("fragment", True), joined("row_fragment", True)
    above, size, greater = joined("above").copy(), joined("size").copy(), joined("greater").copy()
    score, judgment, row_score = joined("score"), joined("judgment"), joined("row_score")
    row_id = pa.chunked_array([p["row_id"] for p in parts]).combine_chunks()
    codes = pc.dictionary_encode(query).indices.to_numpy()
    n_queries = int(codes.max()) + 1 if len(codes) else 0
    split = np.bincount(codes, minlength=n_queries) > 1
    if (split[codes] & (flags == 0)).any():
        raise RuntimeError("a query in fragments away from a partition's ends: not grouped")
    judged_docs = judged_doc.to_pylist() if split.any() else []
    for q in np.flatnonzero(split):
        fragments = np.flatnonzero(codes == q)
        ids = row_id.filter(pa.array(np.isin(row_fragment, fragments))).to_pylist()
        if len(set(ids)) < len(ids):
            twice[fragments[0]] = 1
        for own in fragments:
            other = np.isin(row_fragment, fragments[fragments != own])
            other_score = row_score[other]
            other_id = [d.encode() for d in row_id.filter(pa.array(other)).to_pylist()]
            for hit in np.flatnonzero(fragment == own):
                s, mine = score[hit], judged_docs[int(judgment[hit])].encode()
                above[hit] += int((other_score > s).sum())
                equal = np.flatnonzero(other_score == s)
                size[hit] += len(equal)
                greater[hit] += sum(other_id[i] > mine for i in equal)
    return {
        "query": query, "rows": np.bincount(codes, rows, n_queries).astype(np.int64),
        "twice": np.bincount(codes, twice, n_queries) > 0, "split": int(split.sum()),
        "judgment": judgment, "rank": 1 + above + greater, "above": above, "size": size,
    }


def reference_ranks(table: Any, judged_query: Any, judged_doc: Any) -> np.ndarray:
    """Each judged pair's rank in its query: score descending, then id descending."""
    import pyarrow.compute as pc

    order = pc.sort_indices(table, [("q", "ascending"), ("s", "descending"), ("d", "descending")])
    ranked = table.take(order)
    codes = pc.dictionary_encode(ranked["q"].combine_chunks()).indices.to_numpy()
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    position = np.arange(ranked.num_rows) - np.repeat(starts, np.diff(np.r_[starts, len(codes)]))
    key = pc.binary_join_element_wise(ranked["q"], ranked["d"], "\x00")
    where = pc.index_in(pc.binary_join_element_wise(judged_query, judged_doc, "\x00"),
                        value_set=key).to_numpy(zero_copy_only=False)
    return position[where] + 1


class Pass:
    """The jar's RanksPass, called from Python with the judged pairs of a run."""

    def __init__(self, spark: Any) -> None:
        self.jvm = spark._jvm

    def __call__(self, frame: Any, judged_query: Any, judged_doc: Any) -> dict[str, Any]:
        def utf8(strings: Any) -> tuple[bytes, bytes]:
            offsets = np.frombuffer(strings.buffers()[1], np.int32, len(strings) + 1,
                                    strings.offset * 4).astype("<i8")
            data = strings.buffers()[2].to_pybytes()[offsets[0]:offsets[-1]]
            return data, (offsets - offsets[0]).tobytes()

        import tempfile

        with tempfile.TemporaryDirectory() as folder:  # py4j returns byte[] a byte at a time
            path = os.path.join(folder, "ranks")
            self.jvm.rwprobe.RanksPass.runToFile(
                frame.select("q", "d", "s")._jdf, *utf8(judged_query), *utf8(judged_doc),
                np.arange(len(judged_query), dtype="<i8").tobytes(), path)
            with open(path, "rb") as f:
                data = f.read()
        blobs, at = [], 0
        while at < len(data):
            length = int(np.frombuffer(data, "<i8", 1, at)[0])
            blobs.append(data[at + 8:at + 8 + length])
            at += 8 + length
        return merge([decode(blob) for blob in blobs], judged_doc)


def check_duplicates(call: Pass, spark: Any) -> list[str]:
    """A document listed twice: found in a partition and across a split; ranks of ties."""
    import pyarrow as pa

    judged = pa.array(["q1", "q1"]), pa.array(["b", "a"])
    a, b = ("q1", "a", 1.0), ("q1", "b", 1.0)
    cases = [  # (rows, partitions, twice for q1, ranks of the hits in row order)
        ([a, b, ("q1", "c", 2.0), ("q2", "a", 1.0)], 1, False, [3, 2]),
        ([a, b, ("q1", "a", 2.0)], 1, True, [3, 2, 1]),
        ([a, b, ("q1", "c", 1.0), ("q1", "z", 1.0)], 2, False, [4, 3]),  # split, ties by id
        ([a, b, ("q1", "c", 1.0), ("q1", "a", 0.5)], 2, True, [3, 2, 4]),  # twice across it
    ]
    failed = []
    for rows, partitions, twice, ranks in cases:
        frame = spark.sparkContext.parallelize(rows, partitions).toDF(
            "q string, d string, s double")
        got = call(frame, *judged)
        found = dict(zip(got["query"].to_pylist(), got["twice"].tolist()))
        if found["q1"] != twice or got["rank"].tolist() != ranks:
            failed.append(f"{rows}: twice {found['q1']}, ranks {got['rank'].tolist()}")
    return failed


def main() -> None:
    args = arguments(__doc__ or "")
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyspark.sql import functions as sf

    spark = session(args.work)
    call = Pass(spark)
    failed = check_duplicates(call, spark)

    judged: dict[int, tuple[Any, Any]] = {}
    for queries in SIZES:  # runs with heavy ties, in small row groups (for small partitions)
        path = os.path.join(args.work, f"ties_{queries}.parquet")
        if not os.path.exists(path):
            spark.conf.set("parquet.block.size", str(1 << 20))
            query = (sf.col("id") / 1000).cast("long").cast("string")
            spark.range(queries * 1000).select(
                sf.concat(sf.lit("q"), query).alias("q"),
                ((sf.col("id") * 7919) % 8841823).cast("string").alias("d"),
                (sf.floor(sf.rand(1) * 200) / 200).alias("s"),
            ).write.parquet(path)
        table = pq.read_table(path)
        pick = np.sort(np.random.default_rng(queries).choice(
            table.num_rows, size=table.num_rows // 125, replace=False))  # 0.8% judged
        judged[queries] = (table["q"].take(pa.array(pick)).combine_chunks(),
                           table["d"].take(pa.array(pick)).combine_chunks())
        pq.write_table(pa.table({"q": judged[queries][0], "d": judged[queries][1],
                                 "g": pa.array(pick % 3, pa.int32())}),
                       os.path.join(args.work, f"ties_qrels_{queries}.parquet"))
        want = reference_ranks(table, *judged[queries])
        for split in (False, True):
            spark.conf.set("spark.sql.files.maxPartitionBytes", str(1 << 20) if split else "128m")
            got = call(spark.read.parquet(path), *judged[queries])
            rank = np.zeros(len(want), dtype=np.int64)
            rank[got["judgment"]] = got["rank"]
            print(f"{queries * 1000:,} rows, {'1 MB' if split else 'default'} partitions: "
                  f"{got['split']} queries split, {len(got['judgment']):,} hits of {len(want):,}, "
                  f"{int((got['size'] > 1).sum()):,} tied; ranks equal to the reference: "
                  f"{np.array_equal(rank, want)}", flush=True)
            if not np.array_equal(rank, want) or got["twice"].any():
                failed.append(f"{queries} queries, split {split}")
    spark.conf.set("spark.sql.files.maxPartitionBytes", "128m")

    best: dict[int, tuple[float, float, float]] = {}
    for _ in range(args.rounds):
        for queries in SIZES:
            frame = spark.read.parquet(os.path.join(args.work, f"ties_{queries}.parquet"))
            cpu, wall, driver = jvm_cpu_seconds(), time.perf_counter(), time.process_time()
            call(frame, *judged[queries])
            times = (time.perf_counter() - wall, jvm_cpu_seconds() - cpu,
                     time.process_time() - driver)
            old = best.get(queries, (float("inf"),) * 3)
            best[queries] = tuple(min(a, b) for a, b in zip(old, times))  # type: ignore[assignment]
    spark.stop()
    numpy = numpy_cpu_seconds(args.work, args.rounds, "ties_{}.parquet", "ties_qrels_{}.parquet")
    small, large = best[SIZES[0]], best[SIZES[1]]
    added = large[1] - small[1] + large[2] - small[2]
    per_row = numpy[SIZES[1]] - numpy[SIZES[0]]
    print(f"load average {os.getloadavg()[0]:.1f}; best of {args.rounds}")
    print(f"numpy engine: {numpy[SIZES[0]]:.2f} / {numpy[SIZES[1]]:.2f} s CPU, "
          f"{per_row:.2f} s per added 21M rows")
    print(f"RanksPass: 7M rows {small[0]:.2f} s wall, {small[1]:.2f} s JVM CPU + {small[2]:.2f} s "
          f"driver; 28M rows {large[0]:.2f} / {large[1]:.2f} + {large[2]:.2f}; per added 21M rows "
          f"{added:.2f} s CPU = {added / per_row:.1f}x numpy")
    if failed:
        raise SystemExit("FAILED: " + "; ".join(failed))


if __name__ == "__main__":
    main()
