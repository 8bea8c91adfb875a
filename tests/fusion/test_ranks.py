"""Each row's rank for the rank-based fusion methods, from the C module: trec_eval's order.

:func:`rankwise.fusion.align.rank_rows` ranks every row of a run within its
query, score descending, ties by document id descending in byte order
(trec_eval's rule). The truth here is that rule written out with Python's
``sorted``: on the awkward runs of ``strategies.fusion_runs`` and on runs
built to take each path of the C sort (short lists, buckets of equal score
width, a bucket too full, a score range past the largest double, tie groups
of more than 16 documents, -0.0 next to 0.0, ids with NUL bytes or sharing
their first 8 bytes, rows not grouped by query).
"""

from __future__ import annotations

import sys
from collections import defaultdict

import numpy as np
import pytest
from strategies import fusion_runs

import rankwise as rw
from rankwise._compiled import load
from rankwise.fusion.align import chunks_of, rank_rows, run_rows

CFUSE = load("rankwise.fusion._cfuse")
pytestmark = pytest.mark.skipif(CFUSE is None, reason="rankwise.fusion._cfuse is not built")


def _truth(run: rw.Run, scores: np.ndarray | None = None) -> list[int]:
    """trec_eval's ranks, by sorting each query's rows in Python."""
    values = (run.scores if scores is None else scores).tolist()
    docs = [doc.encode("utf-8") for doc in run.doc_ids.to_pylist()]
    rows_of = defaultdict(list)
    for row, query in enumerate(run.query_codes.tolist()):
        rows_of[query].append(row)
    ranks = [0] * len(run)
    for rows in rows_of.values():
        by_doc = sorted(rows, key=lambda row: docs[row], reverse=True)
        for rank, row in enumerate(sorted(by_doc, key=lambda row: -values[row]), start=1):
            ranks[row] = rank
    return ranks


def _run(queries: list[str], docs: list[str], scores: list[float] | np.ndarray) -> rw.Run:
    return rw.Run.from_arrow(queries, docs, np.asarray(scores, dtype=np.float64))


def _one_query(docs: list[str], scores: np.ndarray, seed: int = 0) -> rw.Run:
    order = np.random.default_rng(seed).permutation(len(docs))
    return _run(["q"] * len(docs), [docs[i] for i in order], scores[order])


@pytest.mark.parametrize("seed", range(40))
def test_ranks_of_awkward_runs_are_trec_evals(seed: int) -> None:
    for queries, docs, scores in fusion_runs(seed, n_runs=3):
        run = rw.Run.from_arrow(queries, docs, np.asarray(scores, dtype=np.float64),
                                check_duplicates=False)
        if len(set(zip(queries, docs))) < len(queries):
            continue  # a document twice: fusion refuses the run
        assert rank_rows(run).tolist() == _truth(run)
        reversed_scores = -run.scores
        assert rank_rows(run, reversed_scores).tolist() == _truth(run, reversed_scores)


def test_every_path_of_the_sort() -> None:
    rng = np.random.default_rng(7)
    ids = [f"doc{i}" for i in range(3000)]
    cases = {
        "short list": rng.normal(size=20),
        "buckets": rng.normal(size=3000),
        "a full bucket": np.append(rng.random(2999), 1e6),
        "range past the largest double": np.concatenate(
            (rng.normal(size=1500) * 1e307, [1.7e308, -1.7e308], rng.normal(size=1498))),
        "big ties": rng.integers(0, 3, size=3000) * 1.0,
        "all tied": np.full(3000, 0.25),
        "zeros of both signs": np.where(rng.random(3000) < 0.5, 0.0, -0.0),
        "tiny steps": 1.0 + np.arange(3000) * np.spacing(1.0),
        "in rank order": np.sort(np.round(rng.normal(size=3000), 1))[::-1],
        # full buckets (radix) between small ones out of order (the one insertion pass)
        "full and small buckets": np.concatenate(
            (rng.random(2000), 0.5 + rng.random(600) * 1e-6, [-5.0, 5.0], rng.random(398))),
        "small buckets, a few rows each": np.round(rng.random(3000), 3),
    }
    for name, scores in cases.items():
        n = len(scores)
        run = _one_query(ids[:n], scores) if name != "in rank order" else _run(
            ["q"] * n, ids[:n], scores)
        assert rank_rows(run).tolist() == _truth(run), name


def test_tied_ids_in_byte_order() -> None:
    """Ids sharing 8 bytes or more, a prefix of another, with NUL bytes, non-ASCII: all tie."""
    docs = ["abcdefgh", "abcdefgh\x00", "abcdefghi", "abcdefg", "abcdefg\x00", "", "\x00",
            "ab\x00cd", "ab", "zz", "é", "e\u0301", "abcdefghij" * 3, "abcdefghij" * 2 + "x"]
    docs += [f"many{i:03d}" for i in range(40)]
    scores = np.full(len(docs), 1.5)
    scores[::7] = 2.0
    for seed in range(5):
        run = _one_query(docs, scores, seed)
        assert rank_rows(run).tolist() == _truth(run)


def test_rows_not_grouped_by_query_and_queries_of_one_row() -> None:
    rng = np.random.default_rng(3)
    queries = [f"q{i % 7}" for i in range(700)]
    docs = [f"d{i}" for i in range(700)]
    run = _run(queries, docs, rng.integers(0, 5, size=700) * 0.5)
    assert run_rows(run)[2] is not None  # interleaved: an order array
    assert rank_rows(run).tolist() == _truth(run)
    single = _run(["a", "b", "c"], ["x", "x", "x"], [1.0, 2.0, 3.0])
    assert rank_rows(single).tolist() == [1, 1, 1]
    empty = rw.Run.from_arrow([], [], [])
    assert rank_rows(empty).tolist() == []


def test_threads_give_the_same_ranks(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(5)
    queries = [f"q{i // 50}" for i in range(5000)]
    run = _run(queries, [f"d{i % 97}x{i}" for i in range(5000)],
               rng.integers(0, 8, size=5000) * 1.0)
    monkeypatch.setattr(sys.modules["rankwise.fusion.align"], "ROWS_PER_PART", 700)
    monkeypatch.setattr(sys.modules["rankwise._threads"], "cores", lambda: 3)
    assert rank_rows(run).tolist() == _truth(run)


def test_a_nan_score_is_left_to_the_kernels() -> None:
    run = _run(["q", "q", "q"], ["a", "b", "c"], [1.0, 2.0, 3.0])
    chunks = chunks_of(run)
    begin, end, order = run_rows(run)
    out = np.empty(3, dtype=np.int64)
    nan = np.array([1.0, np.nan, 3.0])
    assert CFUSE.ranks(0, 1, begin, end, order, chunks, nan, out) == -1
    from rankwise.ranking.rank import rank_rows as kernels_rank_rows

    assert rank_rows(run, nan).tolist() == kernels_rank_rows(run, nan).tolist()


def test_the_c_module_refuses_what_it_cannot_read() -> None:
    run = _run(["q", "q"], ["a", "b"], [1.0, 2.0])
    chunks = chunks_of(run)
    out = np.empty(2, dtype=np.int64)
    with pytest.raises(ValueError, match="out of range"):
        CFUSE.ranks(0, 1, np.array([0]), np.array([3]), None, chunks, run.scores, out)
    with pytest.raises(ValueError, match="out of range"):
        CFUSE.ranks(0, 1, np.array([0]), np.array([2]), np.array([0, 5]), chunks, run.scores,
                    out)
    with pytest.raises(ValueError, match="wrong length"):
        CFUSE.ranks(0, 1, np.array([0]), np.array([2]), None, chunks, run.scores[:1], out)
    with pytest.raises(ValueError, match="inconsistent"):
        CFUSE.ranks(0, 2, np.array([0]), np.array([2]), None, chunks, run.scores, out)


def test_rrf_ranks_in_the_scan_as_rank_rows_does() -> None:
    """rrf's one pass ranks each query's rows itself: the same 1 / (k + rank) as rank_rows."""
    rng = np.random.default_rng(11)
    queries = [f"q{i % 9}" for i in range(900)]
    run = _run(queries, [f"d{i % 50}-{i}" for i in range(900)],
               rng.integers(0, 6, size=900) * 0.5)
    begin, end, order = run_rows(run)
    spec = (begin, end, order, chunks_of(run), run.scores, 4, 60.0, None, None, True)
    per_query = np.zeros(len(begin), dtype=np.int64)
    first, total = np.empty(900, dtype=np.int64), np.empty(900)
    assert CFUSE.scan(0, len(begin), [spec], per_query, first, total, None) == 900
    rows = first & ((1 << 40) - 1)
    want = [1.0 / (60.0 + rank) for rank in np.array(_truth(run))[rows].tolist()]
    assert total.tolist() == want
    with pytest.raises(ValueError, match="rank_scores"):
        CFUSE.scan(0, len(begin), [(*spec[:5], 1, *spec[6:])], per_query, first, total, None)
