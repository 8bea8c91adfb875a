"""The second scan's arithmetic, without Spark: intervals between hits, the grid, the ranks.

The Spark job only counts, per interval, the run rows its join matches; here
that join is replayed in numpy (the same cells, the same conditions) on
random data, and the ranks and tie groups derived from the counts must be
those of the numpy engine's ranking.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from strategies import collections, random_tables

from rankwise.engines.spark._assemble import CELL_LIMIT, HitIntervals, cell_of
from rankwise.engines.spark.plan import offered_per_row


def replay_join(intervals, scale, entry, cell, query, doc, score):
    """Per interval: rows matched, rows at its lower score, rows at its upper score.

    Also returns how many entries each row was offered (same query and cell).
    """
    by_key: dict[tuple[int, int], list[int]] = {}
    for e, (i, c) in enumerate(zip(entry.tolist(), cell.tolist())):
        by_key.setdefault((int(intervals.query[i]), c), []).append(e)
    n = len(intervals)
    count, low, high = (np.zeros(n, dtype=np.int64) for _ in range(3))
    offered = []
    low_doc = intervals.low_doc.to_pylist()
    high_doc = intervals.high_doc.to_pylist()
    row_cells = cell_of(score, scale)
    for q, d, s, c in zip(query.tolist(), doc, score.tolist(), row_cells.tolist()):
        candidates = by_key.get((q, c), [])
        offered.append(len(candidates))
        matched = []
        for e in candidates:
            i = int(entry[e])
            ls, hs = intervals.low_score[i], intervals.high_score[i]
            ld, hd = low_doc[i], high_doc[i]
            key = d.encode()
            above = s > ls or (s == ls and (ld is None or key >= ld.encode()))
            below = np.isnan(hs) or s < hs or (s == hs and key < hd.encode())
            if above and below:
                matched.append(i)
        assert len(matched) <= 1, "a row fell in two intervals"
        for i in matched:
            count[i] += 1
            low[i] += s == intervals.low_score[i]
            high[i] += s == intervals.high_score[i]
    return count, low, high, np.array(offered)


def brute_force(query, doc, score, hits):
    """rank (1 + rows ahead in trec_eval's order), above and tie size of each hit row."""
    out = {"rank": [], "above": [], "size": []}
    for k in hits:
        mine = query == query[k]
        key = doc[k].encode()
        above = int((score[mine] > score[k]).sum())
        tied = [d for d, s in zip(doc[mine], score[mine]) if s == score[k]]
        ahead = sum(d.encode() > key for d in tied)
        out["rank"].append(above + ahead + 1)
        out["above"].append(above)
        out["size"].append(len(tied))
    return {name: np.array(values, dtype=np.int64) for name, values in out.items()}


def check(query, doc, score, hit_rows, budget_factor):
    doc = np.asarray(doc, dtype=object)
    intervals = HitIntervals(query[hit_rows], pa.array(doc[hit_rows].tolist()), score[hit_rows])
    top = np.full(int(query.max()) + 1 if len(query) else 0, -np.inf)
    np.maximum.at(top, query, score)
    scale, entry, cell = intervals.grid(top, budget_factor * len(intervals))
    assert len(entry) <= budget_factor * len(intervals) or scale == 0.0
    count, low, high, offered = replay_join(intervals, scale, entry, cell, query, doc, score)
    # every row at or above its query's lowest hit is counted exactly once
    lowest = {}
    for k in hit_rows:
        key = (score[k], doc[k].encode())
        lowest[query[k]] = min(lowest.get(query[k], key), key)
    reach = sum(
        1
        for q, d, s in zip(query, doc, score)
        if q in lowest and s >= lowest[q][0]
    )
    assert count.sum() == reach
    got = intervals.ranks(count, low, high)
    want = brute_force(query, doc, score, hit_rows)
    for name in ("rank", "above", "size"):
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)
    return offered


@pytest.mark.parametrize("seed", range(25))
@pytest.mark.parametrize("budget_factor", [1, 3, 50])
def test_counts_per_interval_give_the_ranks_of_every_hit(seed, budget_factor):
    data = random_tables(seed)
    run, qrels = data["run"], data["qrels"]
    if run.num_rows == 0:
        return
    names = sorted(set(run["query_id"].to_pylist()))
    code = {name: i for i, name in enumerate(names)}
    query = np.array([code[q] for q in run["query_id"].to_pylist()], dtype=np.int64)
    doc = run["doc_id"].to_pylist()
    score = run["score"].to_numpy()
    judged = set(zip(qrels["query_id"].to_pylist(), qrels["doc_id"].to_pylist()))
    hit_rows = np.array(
        [k for k, pair in enumerate(zip(run["query_id"].to_pylist(), doc)) if pair in judged],
        dtype=np.int64,
    )
    check(query, doc, score, hit_rows, budget_factor)


@settings(max_examples=60, deadline=None)
@given(collections())
def test_ranks_from_intervals_on_hypothesis_collections(data):
    qrels, run = data
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    names = sorted(run)
    query = np.array([names.index(q) for q, _, _ in rows], dtype=np.int64)
    doc = [d for _, d, _ in rows]
    score = np.array([s for _, _, s in rows], dtype=np.float64)
    hit_rows = np.array(
        [k for k, (q, d, _) in enumerate(rows) if d in qrels.get(q, {})], dtype=np.int64
    )
    check(query, doc, score, hit_rows, 3)


def test_extreme_scores_are_clipped_not_lost():
    """Scores far apart force a coarse grid; huge and tiny ones stay in their intervals."""
    query = np.zeros(7, dtype=np.int64)
    doc = ["a", "b", "c", "d", "e", "f", "g"]
    score = np.array([1e300, -1e300, 5e-324, 0.0, -2.5, 1e-300, 3.0])
    check(query, doc, score, np.array([2, 4, 6]), 3)
    assert cell_of(np.array([1e308, -1e308]), 2.0**60).tolist() == [
        int(CELL_LIMIT),
        -int(CELL_LIMIT),
    ]


def test_a_fine_grid_offers_each_row_about_one_interval():
    """Deep judgments with distinct scores: the grid keeps the offers per row near 1."""
    rng = np.random.default_rng(5)
    n_queries, depth = 20, 300
    query = np.repeat(np.arange(n_queries), depth)
    score = np.round(rng.normal(20, 6, size=len(query)), 6)
    doc = [f"d{i}" for i in range(len(query))]
    hit_rows = np.flatnonzero(rng.random(len(query)) < 0.1)
    hit_docs = pa.array([doc[k] for k in hit_rows])
    intervals = HitIntervals(query[hit_rows], hit_docs, score[hit_rows])
    top = np.array([score[query == q].max() for q in range(n_queries)])
    _, entry, cell = intervals.grid(top, 3 * len(intervals))
    estimate = offered_per_row(intervals.query[entry], cell)
    offered = check(query, doc, score, hit_rows, 3)
    assert estimate < 3
    # rows below their query's lowest hit may meet its cell's entries; the others ~1 each
    assert offered.mean() < 3
