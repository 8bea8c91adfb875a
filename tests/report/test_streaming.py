"""Per-query output in pieces: memory independent of the number of queries (issue 13, item 30)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from rankwise.cli.trec_printer import format_trec, trec_chunks
from rankwise.measures import parse
from rankwise.measures.trec_names import parse_trec_list
from rankwise.report.result_tables import results_table
from rankwise.report.tables import FORMATS, render, write_chunks
from rankwise.results import Results


def synthetic(n: int) -> Results:
    rng = np.random.default_rng(n)
    measures = [parse("ndcg@10"), parse("map"), parse("num_ret"), parse("P@5")]
    values = {m: rng.random(n) for m in measures}
    values[measures[2]] = rng.integers(0, 1000, n).astype(np.float64)
    return Results([f"q{i}" for i in range(n)], values, run_name="r")


def peak_while(pieces) -> int:
    """Peak of memory allocated while the pieces are produced and dropped."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    for _ in pieces:
        pass
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return peak


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of a few thousand cells, so that small tables already span many blocks."""
    from rankwise.cli import trec_printer
    from rankwise.report import tables

    monkeypatch.setattr(tables, "BLOCK_CELLS", 6000)
    monkeypatch.setattr(trec_printer, "BLOCK_LINES", 6000)


@pytest.mark.slow  # tracemalloc slows every allocation
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_per_query_table_memory_does_not_grow_with_the_queries(fmt: str, small_blocks) -> None:
    small, large = synthetic(10_000), synthetic(40_000)
    peaks = []
    for results in (small, large):
        table = results_table({"r": results}, per_query=True)
        assert table.rows == []  # nothing built up front
        peaks.append(peak_while(write_chunks(table, fmt)))
    # four times the queries: not four times the memory (one block at a time)
    assert peaks[1] < 1.5 * peaks[0] + (1 << 20), peaks


@pytest.mark.slow
def test_trec_eval_per_query_memory_does_not_grow_with_the_queries(small_blocks) -> None:
    entries = [e for e in parse_trec_list(["map", "P.5", "num_ret", "ndcg_cut.10"])]
    peaks = []
    for n in (10_000, 40_000):
        results = synthetic(n)
        values = {e.measure: results[str(e.measure).replace("ndcg@10(gain=linear)", "ndcg@10")]
                  for e in entries if e.measure is not None}
        results = Results(results.query_ids, values, run_name="r")
        peaks.append(peak_while(trec_chunks(entries, results, run_id="r", per_query=True)))
    assert peaks[1] < 1.5 * peaks[0] + (1 << 20), peaks


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_pieces_join_to_the_whole(fmt: str, small_blocks) -> None:
    results = synthetic(3000)
    values = dict(results.items())
    values_nan = {parse(k): v.copy() for k, v in values.items()}
    values_nan[parse("map")][::7] = np.nan
    results = Results(results.query_ids, values_nan, run_name="r")
    streamed = results_table({"r": results, "s": results}, per_query=True)
    rows = [
        list(row) for block in streamed.column_blocks()
        for row in zip(*(c.tolist() if hasattr(c, "tolist") else c for c in block))
    ]
    whole = streamed.__class__(streamed.header, streamed.kinds, rows)
    assert len(rows) == 2 * 3001
    assert render(streamed, fmt) == render(whole, fmt)


def test_trec_pieces_join_to_the_whole() -> None:
    entries = [e for e in parse_trec_list(["map", "P.5", "num_ret"])]
    results = synthetic(5000)
    values = {e.measure: results[str(e.measure)].copy() for e in entries if e.measure is not None}
    values[parse("map")][3] = np.nan
    results = Results(results.query_ids, values, run_name="r")
    text = format_trec(entries, results, run_id="r", per_query=True)
    lines = text.splitlines()
    assert lines[0] == f"{'num_ret':<22}\tq0\t{int(values[parse('num_ret')][0])}"
    assert f"{'map':<22}\tq3\t  -nan" in lines
    assert len(lines) == 5000 * 3 + 3  # per query: num_ret, map, P_5; then their summary
