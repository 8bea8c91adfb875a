"""Inputs as Python users hold them: their own column names, judgments without grades, runs
ordered by rank, BEIR's qrels TSV, ir_datasets' named tuples; query ids keeping their type."""

from __future__ import annotations

from collections import namedtuple
from pathlib import Path

import numpy as np
import pytest
from strategies import random_collection

import rankwise as rw
from rankwise.io import as_qrels, as_run

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")

MEASURES = ["ndcg@10", "map", "P@5", "mrr", "recall@10", "num_ret"]

# ir_datasets' record types, built here (no network, no ir_datasets needed)
TrecQrel = namedtuple("TrecQrel", ["query_id", "doc_id", "relevance", "iteration"])
GenericScoredDoc = namedtuple("GenericScoredDoc", ["query_id", "doc_id", "score"])


def rows(mapping: dict) -> list[tuple]:
    return [(q, d, v) for q, docs in mapping.items() for d, v in docs.items()]


def same_results(a: rw.Results, b: rw.Results) -> None:
    assert [str(q) for q in a.query_ids] == [str(q) for q in b.query_ids]
    for name in a:
        assert np.array_equal(a[name], b[name]), name


def test_column_maps_for_frames_and_files(tmp_path: Path) -> None:
    qrels, run = random_collection(1, ties=True)
    qrels_df = pd.DataFrame(rows(qrels), columns=["user", "item", "clicked"])
    run_df = pd.DataFrame(rows(run), columns=["user", "item", "pred"])
    columns = {"query_id": "user", "doc_id": "item", "score": "pred", "relevance": "clicked"}
    want = rw.evaluate(qrels, run, MEASURES)
    same_results(rw.evaluate(qrels_df, run_df, MEASURES, columns=columns), want)
    qrels_df.to_parquet(tmp_path / "q.parquet")
    run_df.to_csv(tmp_path / "r.csv", index=False)
    read_q = rw.read_qrels(tmp_path / "q.parquet", columns=columns)
    read_r = rw.read_run(tmp_path / "r.csv", columns=columns)
    same_results(rw.evaluate(read_q, read_r, MEASURES), want)
    same_results(rw.evaluate(tmp_path / "q.parquet", tmp_path / "r.csv", MEASURES,
                             columns=columns), want)
    comparison = rw.compare(qrels_df, {"a": run_df, "b": run}, ["P@5"], columns=columns, seed=0)
    assert comparison.row("P@5", "b").delta == 0.0
    report = rw.build_report(qrels_df, {"a": run_df, "b": run}, ["P@5"], columns=columns,
                             max_k=3, seed=0)
    assert report.comparison.row("P@5", "b").delta == 0.0


def test_a_column_map_naming_a_missing_column_says_so() -> None:
    frame = pd.DataFrame({"user": ["u"], "item": ["i"], "pred": [1.0]})
    with pytest.raises(rw.InputFormatError, match=r"score column 'score2' \(columns\['score'\]\)"):
        as_run(frame, columns={"query_id": "user", "doc_id": "item", "score": "score2"})
    with pytest.raises(rw.InvalidParameterError,
                       match=r"^columns: a role must be one of 'query_id', .*, got 'qid' \(str\)"):
        as_run(frame, columns={"qid": "user"})


def test_implicit_judgments_say_so_with_a_column_map() -> None:
    clicks = pd.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "c"]})
    run = pd.DataFrame({"user": [1, 1, 1, 2, 2], "item": ["a", "x", "b", "c", "y"],
                        "pred": [0.9, 0.8, 0.7, 0.1, 0.2]})
    columns = {"query_id": "user", "doc_id": "item", "score": "pred", "relevance": None}
    results = rw.evaluate(clicks, run, ["P@2", "recall@3", "mrr"], columns=columns)
    assert results.query_ids == [1, 2]
    assert results["P@2"].tolist() == [0.5, 0.5]
    assert results["recall@3"].tolist() == [1.0, 1.0]
    assert results["mrr"].tolist() == [1.0, 0.5]
    # without the map, no column is guessed: the message names the way to say it
    with pytest.raises(rw.InputFormatError, match=r"columns=\{'relevance': None\}"):
        rw.evaluate(clicks, run, ["P@2"], columns={"query_id": "user", "doc_id": "item",
                                                   "score": "pred"})


def test_a_run_with_a_rank_column_and_no_score_is_ordered_by_rank() -> None:
    qrels, run = random_collection(4, ties=False)
    ranked = []
    for query, docs in run.items():
        order = sorted(docs, key=lambda d: -docs[d])
        ranked += [(query, doc, position + 1) for position, doc in enumerate(order)]
    frame = pd.DataFrame(ranked, columns=["qid", "docno", "rank"]).sample(frac=1, random_state=0)
    same_results(rw.evaluate(qrels, frame, MEASURES), rw.evaluate(qrels, run, MEASURES))
    renamed = frame.rename(columns={"rank": "position"})
    same_results(rw.evaluate(qrels, renamed, MEASURES, columns={"rank": "position"}),
                 rw.evaluate(qrels, run, MEASURES))
    with pytest.raises(rw.InputFormatError, match=r"no score column.*columns=\{'rank'"):
        rw.evaluate(qrels, renamed, MEASURES)
    text_ranks = frame.astype({"rank": str})
    with pytest.raises(rw.InputFormatError, match=r"rank \(column 'rank'\) must be a number"):
        rw.evaluate(qrels, text_ranks, MEASURES)


def test_a_csv_run_with_a_rank_column_and_no_score(tmp_path: Path) -> None:
    """CSV fields are text: the ranks are read as decimal numbers, like scores."""
    qrels, run = random_collection(4, ties=False)
    lines = ["qid,docno,rank"]
    for query, docs in run.items():
        order = sorted(docs, key=lambda d: -docs[d])
        lines += [f"{query},{doc},{position + 1}" for position, doc in enumerate(order)]
    path = tmp_path / "run.csv"
    path.write_text("\n".join([lines[0], *reversed(lines[1:])]) + "\n")
    same_results(rw.evaluate(qrels, str(path), MEASURES), rw.evaluate(qrels, run, MEASURES))
    path.write_text(lines[0] + "\nq0,d1,first\n")
    with pytest.raises(rw.InputFormatError, match=r"run.csv:2: rank \(column 'rank'\) must be"):
        rw.evaluate(qrels, str(path), MEASURES)


def test_ties_rank_uses_a_table_rank_column() -> None:
    frame = pd.DataFrame({"qid": ["q", "q", "q"], "docno": ["a", "b", "c"],
                          "score": [1.0, 1.0, 1.0], "rank": [3, 1, 2]})
    qrels = {"q": {"a": 1}}
    assert rw.evaluate(qrels, frame, ["mrr"], ties="rank")["mrr"][0] == pytest.approx(1 / 3)
    assert rw.evaluate(qrels, frame, ["mrr"])["mrr"][0] == pytest.approx(1 / 3)  # docno desc
    frame["rank"] = [1, 2, 3]
    assert rw.evaluate(qrels, frame, ["mrr"], ties="rank")["mrr"][0] == 1.0


def test_beir_qrels_tsv(tmp_path: Path) -> None:
    path = tmp_path / "test.tsv"
    path.write_text("query-id\tcorpus-id\tscore\n0001\t0042\t1\n0001\t7\t2\nq2\tdoc-3\t0\n")
    qrels = rw.read_qrels(path)
    assert qrels.to_dict() == {"0001": {"0042": 1, "7": 2}, "q2": {"doc-3": 0}}
    run = {"0001": {"0042": 1.0, "7": 2.0}, "q2": {"doc-3": 1.0}}
    assert rw.evaluate(path, run, ["ndcg@10(gain=linear)"]).query_ids == ["0001", "q2"]


def test_ir_datasets_named_tuples() -> None:
    qrels, run = random_collection(6, ties=True)
    qrels_iter = (TrecQrel(q, d, g, "0") for q, d, g in rows(qrels))
    scoreddocs = [GenericScoredDoc(q, d, s) for q, d, s in rows(run)]
    same_results(rw.evaluate(qrels_iter, iter(scoreddocs), MEASURES),
                 rw.evaluate(qrels, run, MEASURES))
    assert as_run(scoreddocs).to_dict() == as_run(run).to_dict()
    Other = namedtuple("Other", ["query_id", "doc_id", "score"])
    with pytest.raises(rw.InputFormatError, match="record 2 is a Other"):
        as_run([scoreddocs[0], Other(*scoreddocs[1])])
    with pytest.raises(rw.InputFormatError, match="expected named tuples"):
        as_run(iter([("q", "d", 1.0)]))
    Renamed = namedtuple("Renamed", ["qid", "doc", "label"])
    assert as_qrels([Renamed("q", "d", 2)]).to_dict() == {"q": {"d": 2}}


def test_integer_query_ids_come_back_as_integers_in_numeric_order() -> None:
    qrels = {100: {"a": 1}, 2: {"b": 1}, 10: {"c": 1, "a": 0}}
    run = {100: {"a": 1.0}, 2: {"x": 1.0, "b": 0.5}, 10: {"a": 2.0, "c": 1.0}}
    results = rw.evaluate(qrels, run, ["P@1", "mrr"])
    assert results.query_ids == [2, 10, 100]
    assert results.query_id_type is int
    assert results["P@1"].tolist() == [0.0, 0.0, 1.0]
    assert results.to_dict() == {"P@1": {2: 0.0, 10: 0.0, 100: 1.0},
                                 "mrr": {2: 0.5, 10: 0.5, 100: 1.0}}
    frame = results.to_pandas()
    assert frame.index.tolist() == [2, 10, 100] and frame.index.dtype.kind == "i"
    assert results.value("mrr", 10) == results.value("mrr", "10") == 0.5
    pl = pytest.importorskip("polars")
    table = results.to_polars()
    assert table.schema["query_id"] == pl.Int64 and table["query_id"].to_list() == [2, 10, 100]
    # from frames: an integer column
    qrels_df = pd.DataFrame([(q, d, g) for q, d, g in rows(qrels)],
                            columns=["query_id", "doc_id", "relevance"])
    run_df = pd.DataFrame(rows(run), columns=["query_id", "doc_id", "score"])
    assert rw.evaluate(qrels_df, run_df, ["P@1"]).query_ids == [2, 10, 100]
    assert rw.evaluate(pl.from_pandas(qrels_df), run, ["P@1"]).query_ids == [2, 10, 100]
    # text ids stay text, in byte order (trec_eval's); a mix of both is text
    as_text = {str(q): docs for q, docs in qrels.items()}
    assert rw.evaluate(as_text, run, ["P@1"]).query_ids == ["10", "100", "2"]
    mixed = {**as_text, 7: {"z": 1}}
    assert rw.evaluate(mixed, run, ["P@1"]).query_ids == ["10", "100", "2"]
    assert rw.evaluate(as_text, run, ["P@1"]).to_polars().schema["query_id"] == pl.Utf8


def test_integer_ids_numpy_keys_and_huge_integers() -> None:
    qrels = {np.int64(5): {"a": 1}, 10**30: {"a": 1}}
    results = rw.evaluate(qrels, {5: {"a": 1.0}, 10**30: {"a": 1.0}}, ["P@1"])
    assert results.query_ids == [5, 10**30]
    assert results.to_polars()["query_id"].to_list() == ["5", str(10**30)]  # beyond Int64


def test_exclude_self() -> None:
    qrels = {"q1": {"d1": 1, "q1": 1}, "q2": {"d2": 1}}
    run = {"q1": {"q1": 3.0, "d1": 2.0, "x": 1.0}, "q2": {"q2": 1.0}}
    kept = rw.evaluate(qrels, run, ["P@1", "num_ret"])
    dropped = rw.evaluate(qrels, run, ["P@1", "num_ret"], exclude_self=True)
    assert kept["P@1"].tolist() == [1.0, 0.0]
    assert dropped.query_ids == ["q1"]  # q2 retrieved only itself: now a query the run misses
    assert dropped["P@1"].tolist() == [1.0] and dropped["num_ret"].tolist() == [2.0]
    assert dropped.missing_queries == 1
    zero = rw.evaluate(qrels, run, ["P@1"], exclude_self=True, missing="zero")
    assert zero["P@1"].tolist() == [1.0, 0.0]
    options = rw.EvalOptions(exclude_self=True)
    assert options.describe()["self documents"].startswith("dropped")
    with pytest.raises(rw.InvalidParameterError, match="exclude_self must be True or False"):
        rw.EvalOptions(exclude_self="yes")


def test_exclude_self_finds_long_ids_and_keeps_the_rest() -> None:
    long_id = "a-query-id-longer-than-eight-bytes"
    near = "a-query-id-longer-than-eight-bytez"  # same length, first and middle bytes alike
    run = rw.Run.from_arrow([long_id] * 3 + ["q"] * 2, [long_id, near, "d", "q", long_id],
                            [3.0, 2.0, 1.0, 2.0, 1.0], name="x")
    from rankwise.data.selection import self_rows, without_self

    assert self_rows(run).tolist() == [0, 3]
    kept = without_self(run)
    assert kept.to_dict() == {long_id: {near: 2.0, "d": 1.0}, "q": {long_id: 1.0}}
    assert kept.name == "x" and kept.line_of(0) == 2
