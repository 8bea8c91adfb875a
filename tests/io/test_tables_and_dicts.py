"""Tables, frames and dicts: ids are text, values are numbers, every error has its place.

Issue 13: items 3a (ids type-guessed in CSV/TSV), 3b (dict keys 1 and "1"),
16 (one rule for grades), 25 and 26 (text, lists, booleans and invalid UTF-8
in tables), 27 (file and line of every row-level error), 32 (10**400,
pickling).
"""

from __future__ import annotations

import gzip
import json
import multiprocessing
import operator
from pathlib import Path

import numpy as np
import pytest

import rankwise as rw
from rankwise.exceptions import DuplicateEntryError, InputFormatError
from rankwise.io import _fast

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


# ------------------------------------------------------------------------------------------
# 3a: ids are text, whatever the column is called


@pytest.mark.parametrize("names", [("qid", "docid"), ("query", "doc"), ("query_id", "doc_id"),
                                   ("qid", "docno")])
@pytest.mark.parametrize("separator", [",", "\t"])
def test_csv_ids_are_text_whatever_their_column_name(tmp_path: Path, names: tuple[str, str],
                                                      separator: str) -> None:
    suffix = ".csv" if separator == "," else ".tsv"
    run = tmp_path / f"r{suffix}"
    run.write_text(separator.join([*names, "score"]) + "\n"
                   + "".join(separator.join(row) + "\n" for row in [
                       ("q1", "007", "2.0"), ("q1", "008", "1.0"), ("NA", "null", "3"),
                       ("01", "1e3", "0.5")]))
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 007 1\nq1 0 008 0\nNA 0 null 1\n01 0 1e3 1\n")
    assert rw.read_run(run).to_dict() == {
        "q1": {"007": 2.0, "008": 1.0}, "NA": {"null": 3.0}, "01": {"1e3": 0.5}}
    assert rw.evaluate(qrels, run, ["map"]).mean["map"] == 1.0
    judged = tmp_path / f"q{suffix}"
    judged.write_text(separator.join([*names, "relevance"]) + "\n"
                      + f"q1{separator}007{separator}1\n")
    assert rw.read_qrels(judged).to_dict() == {"q1": {"007": 1}}


def test_integer_ids_in_typed_tables(tmp_path: Path) -> None:
    """Document ids become their text; query ids of an integer column stay integers
    (issue 15: query ids keep their type), and text in CSV and TSV files."""
    path = tmp_path / "r.parquet"
    pq.write_table(pa.table({"qid": [1, 1, 2], "docid": [7, 8, 7], "score": [2.0, 1.0, 1.0]}),
                   path)
    assert rw.read_run(path).to_dict() == {1: {"7": 2.0, "8": 1.0}, 2: {"7": 1.0}}
    lines = tmp_path / "r.jsonl"
    lines.write_text('{"qid": 1, "docid": 7, "score": 2}\n{"qid": 1, "docid": 8, "score": 1}\n')
    assert rw.read_run(lines).to_dict() == {1: {"7": 2.0, "8": 1.0}}
    text = tmp_path / "r.csv"
    text.write_text("qid,docid,score\n1,7,2\n1,8,1\n")
    assert rw.read_run(text).to_dict() == {"1": {"7": 2.0, "8": 1.0}}


# ------------------------------------------------------------------------------------------
# 3b: dict keys are text; two keys of one id are an error naming both


def test_dict_query_keys_1_and_text_1_are_an_error_naming_both() -> None:
    # issue 13, item 3b: map 2.0 and recall 2.0 came from one document counted twice
    with pytest.raises(InputFormatError) as caught:
        rw.evaluate({"1": {"d1": 1}}, {1: {"d1": 2.0}, "1": {"d1": 1.0}}, ["map", "recall@10"])
    assert str(caught.value) == (
        "<dict>: query keys 1 and '1' are the same query id '1' once converted to text; give "
        "each query once (the run dict's rows of one query under one key)")


def test_dict_document_keys_1_and_text_1_are_refused() -> None:
    with pytest.raises(DuplicateEntryError) as caught:
        rw.Run.from_dict({"q": {1: 2.0, "1": 1.0}})
    assert str(caught.value) == (
        "<dict>: document '1' appears twice for query 'q': the run dict has it under the keys "
        "('q', 1) and ('q', '1'), and ids are compared as text (1 and '1' are the same id); "
        "a run lists each document once per query")
    with pytest.raises(DuplicateEntryError, match=r"keys \('q', 1\) and \('q', '1'\)"):
        rw.Qrels.from_dict({"q": {1: 1, "1": 0}})
    with pytest.raises(DuplicateEntryError, match=r"keys \('q', 1\) and \('q', '1'\)"):
        rw.evaluate({"q": {1: 1, "1": 0}}, {"q": {"a": 1.0}}, ["map"])


def test_integer_dict_keys_alone() -> None:
    """Integer document keys become their text; integer query keys stay integers (issue 15)."""
    run = rw.Run.from_dict({1: {7: 2.0}, 2: {7: 1.0}})
    assert run.to_dict() == {1: {"7": 2.0}, 2: {"7": 1.0}}
    assert rw.Run.from_dict({1: {7: 2.0}, "2": {7: 1.0}}).to_dict() == {
        "1": {"7": 2.0}, "2": {"7": 1.0}}


# ------------------------------------------------------------------------------------------
# 16: grades are numbers, fractional ones included, in every form


def test_fractional_grades_are_read_alike_from_every_form(tmp_path: Path) -> None:
    judged = {"q1": {"a": 0.5, "b": 1.5, "c": 0, "d": -1, "e": 2}}
    rows = [(q, d, g) for q, docs in judged.items() for d, g in docs.items()]
    trec = tmp_path / "q.qrels"
    trec.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in rows))
    csv = tmp_path / "q.csv"
    csv.write_text("query_id,doc_id,relevance\n" + "".join(f"{q},{d},{g}\n" for q, d, g in rows))
    parquet = tmp_path / "q.parquet"
    table = pa.table({"query_id": [r[0] for r in rows], "doc_id": [r[1] for r in rows],
                      "relevance": [float(r[2]) for r in rows]})
    pq.write_table(table, parquet)
    jsonl = tmp_path / "q.jsonl"
    jsonl.write_text("".join(json.dumps({"query_id": q, "doc_id": d, "relevance": g}) + "\n"
                             for q, d, g in rows))
    forms = [judged, trec, csv, parquet, jsonl, table, table.to_pandas(), gzip.compress(
        trec.read_bytes())]
    run = {"q1": {"a": 5.0, "b": 4.0, "c": 3.0, "d": 2.0, "e": 1.0}}
    expected = rw.evaluate(judged, run, ["ndcg@5(gain=linear)", "map", "P@2"]).mean
    for form in forms:
        qrels = rw.read_trec_qrels(form) if isinstance(form, bytes) else form
        got = rw.evaluate(qrels, run, ["ndcg@5(gain=linear)", "map", "P@2"]).mean
        assert got == expected, type(form)
    assert 0 < expected["ndcg@5(gain=linear)"] < 1
    assert rw.read_qrels(trec).grades.tolist() == [0.5, 1.5, 0.0, -1.0, 2.0]


def test_trec_evals_reading_can_be_kept(tmp_path: Path) -> None:
    """trec_eval reads a grade with atol (1.5 is 1): a drop-in refuses what it would change."""
    path = tmp_path / "q"
    path.write_text("q1 0 a 1\nq1 0 b 1.5\n")
    for pure in (False, True):
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("RANKWISE_NO_C", "1" if pure else "0")
            with pytest.raises(InputFormatError) as caught:
                rw.read_trec_qrels(path, integer_grades=True)
            assert str(caught.value) == (
                f"{path}:2: grade must be an integer, got '1.5' (trec_eval would read it as 1); "
                "rankwise eval reads fractional grades")
            assert rw.read_trec_qrels(path).grades.tolist() == [1.0, 1.5]


def test_boolean_grades_are_one_and_zero_boolean_scores_are_refused() -> None:
    qrels = rw.Qrels.from_dict({"q": {"a": True, "b": False}})
    assert qrels.grades.tolist() == [1.0, 0.0]
    table = pa.table({"query_id": ["q", "q"], "doc_id": ["a", "b"], "relevance": [True, False]})
    assert rw.Qrels.from_arrow(table["query_id"], table["doc_id"], table["relevance"]
                               ).grades.tolist() == [1.0, 0.0]
    with pytest.raises(InputFormatError, match=r"<dict>: query 'q', document 'a': score must "
                                               r"be a number \(float or int\), got True "
                                               r"\(true/false\)"):
        rw.Run.from_dict({"q": {"a": True}})


# ------------------------------------------------------------------------------------------
# 25, 26, 27: refused values, with file and line (header counted) or row


def _write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


CASES = [
    ("r.csv", "qid,docid,score\nq1,a,2.0\n\nq1,b,1_000\n", "run",
     "r.csv:4: score must be a number, got '1_000'"),
    ("r.csv", "qid,docid,score\nq1,a,2.0\nq1,b,\n", "run",
     "r.csv:3: score is missing (null)"),
    # an empty id field is a missing id, never a query or document named '' (quoted too)
    ("r.csv", "qid,docid,score\nq1,a,2.0\n,b,1.0\n", "run",
     "r.csv:3: query id is missing (null)"),
    ("r.tsv", "qid\tdocid\tscore\nq1\ta\t2.0\n\nq1\t\t1.0\n", "run",
     "r.tsv:4: document id is missing (null)"),
    ("q.csv", 'query_id,doc_id,relevance\nq1,d1,1\n"",d4,1\n', "qrels",
     "q.csv:3: query id is missing (null)"),
    ("q.csv", "query_id,doc_id,relevance\nq1,d1,\n", "qrels",
     "q.csv:2: grade is missing (null)"),
    # a column named twice: which one is meant is not guessed
    ("r.csv", "query_id,doc_id,score,score\nq1,d1,3,4\n", "run",
     "r.csv:1: the column 'score' is there twice; a table's column names must differ"),
    ("q.tsv", "query_id\tdoc_id\trelevance\tquery_id\nq1\td1\t1\tq2\n", "qrels",
     "q.tsv:1: the column 'query_id' is there twice; a table's column names must differ"),
    ("r.csv", "qid,docid,score\nq1,a,2.0\nq1,b,inf\n", "run",
     "r.csv:3: score must be a finite number, got 'inf'"),
    ("r.csv", "qid,docid,score\nq1,a,2.0\nq1,b,1,5\n", "run",
     "r.csv:3: expected 3 fields (qid,docid,score), got 4"),
    ("r.csv", b"qid,docid,score\nq1,a,2.0\nq1,b\xff,1\n", "run",
     "r.csv:3: not UTF-8 text (byte 0xff at column 5): rankwise reads UTF-8 files"),
    ("r.csv", "qid,docid,score\nq1,a,2.0\nq1,a,1.0\n", "run",
     "r.csv:3: document 'a' appears twice for query 'q1' (first at line 2); a run lists each "
     "document once per query"),
    ("q.tsv", "query_id\tdoc_id\trelevance\nq1\ta\tyes\n", "qrels",
     "q.tsv:2: grade must be a number, got 'yes'"),
    ("r.jsonl", '{"query_id": "q1", "doc_id": "a", "score": 1}\n\n'
                '{"query_id": "q1", "doc_id": "b", "score": "2"}\n', "run",
     "r.jsonl:3: field 'score' is text here (\"2\") but a number in line 1: a column holds "
     "one type"),
    ("r.jsonl", '{"query_id": "q1", "doc_id": "a", "score": "2"}\n', "run",
     "r.jsonl:1: score must be a number, got '2' (the column holds text); convert the column "
     "to numbers first"),
    ("r.jsonl", '{"query_id": "q1", "doc_id": "a", "score": [2]}\n', "run",
     "r.jsonl:1: score must be a number, got [2] (the column holds Arrow type list<item: "
     "int64>); convert the column to numbers first"),
    ("r.jsonl", b'{"query_id": "q1", "doc_id": "a", "score": 1}\n'
                b'{"query_id": "q1", "doc_id": "b\xff", "score": 1}\n', "run",
     "r.jsonl:2: document id is not UTF-8 text"),
    ("r.jsonl", '{"query_id": "q1", "doc_id": "a", "score": 1}\n{"query_id": "q1", "doc_id"\n',
     "run", "r.jsonl:2: not valid JSON: "),
    ("q.jsonl", '{"query_id": "q1", "doc_id": "a", "relevance": null}\n', "qrels",
     "q.jsonl:1: grade is missing (null)"),
    ("r.jsonl", '{"query_id": "q1", "doc_id": "a", "score": 1}\n'
                '{"query_id": "q1", "doc_id": "b", "score": 1, "doc_id": "c"}\n', "run",
     "r.jsonl:2: field 'doc_id' is there twice in this object; a record's field names must "
     "differ"),
    ("r.jsonl", '{"query_id": "q1", "doc_id": "a", "score": 1.5}\n'
                '{"query_id": "q1", "doc_id": "b", "score": 1e999}\n', "run",
     "r.jsonl:2: the number 1e999 is too large for a 64-bit float"),
    ("r.csv", "\nquery_id,doc_id,score\nq1,d1,2\n", "run",
     "r.csv:1: the first line is blank: expected a header line naming the columns"),
    ("r.csv", 'query_id,doc_id,score\nq1,"a\nb",1\nq1,d2,2\nq1,d3,3,extra\n', "run",
     "r.csv:5: expected 3 fields (query_id,doc_id,score), got 4"),  # a quoted line end
]


@pytest.mark.parametrize(("name", "content", "kind", "message"), CASES,
                         ids=[f"{i}-{case[0]}" for i, case in enumerate(CASES)])
def test_row_errors_in_text_tables_name_file_and_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, content: str | bytes,
    kind: str, message: str
) -> None:
    path = _write(tmp_path, name, content)
    monkeypatch.chdir(tmp_path)
    read = rw.read_run if kind == "run" else rw.read_qrels
    with pytest.raises(InputFormatError) as caught:
        read(name)
    assert str(caught.value).startswith(message)
    assert "Arrow" not in type(caught.value).__name__
    gz = _write(tmp_path, name + ".gz", gzip.compress(path.read_bytes()))
    with pytest.raises(InputFormatError) as caught:
        read(gz.name)
    assert str(caught.value).startswith(message.replace(name, gz.name, 1))


PARQUET = [
    ({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": ["1", "2"]}, "qrels",
     "q.parquet: row 1: grade must be a number, got '1' (the column holds text); convert the "
     "column to numbers first"),
    ({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [True, False]}, "run",
     "q.parquet: row 1: score must be a number, got True (the column holds true/false); "
     "convert the column to numbers first"),
    ({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, None]}, "run",
     "q.parquet: row 2: score is missing (null)"),
    ({"query_id": ["q1", None], "doc_id": ["a", "b"], "score": [1.0, 2.0]}, "run",
     "q.parquet: row 2: query id is missing (null)"),
    ({"query_id": ["q1", "q1"], "doc_id": [1.5, 2.5], "score": [1.0, 2.0]}, "run",
     "q.parquet: row 1: document id must be text or an integer, got 1.5 (the column has "
     "Arrow type double)"),
    ({"query_id": ["q1", "q1"], "doc_id": [[1], [2]], "score": [1.0, 2.0]}, "run",
     "q.parquet: row 1: document id must be text or an integer, got [1]"),
]


@pytest.mark.parametrize(("columns", "kind", "message"), PARQUET)
def test_refused_values_in_parquet_name_their_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  columns: dict, kind: str, message: str) -> None:
    pq.write_table(pa.table(columns), tmp_path / "q.parquet")
    monkeypatch.chdir(tmp_path)
    read = rw.read_run if kind == "run" else rw.read_qrels
    with pytest.raises(InputFormatError) as caught:
        read("q.parquet")
    assert str(caught.value).startswith(message)


def test_invalid_utf8_in_parquet_names_its_row(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    offsets = pa.array([0, 2, 3], pa.int32()).buffers()[1]
    bad = pa.Array.from_buffers(pa.string(), 2, [None, offsets, pa.py_buffer(b"q1\xff")])
    pq.write_table(pa.table({"query_id": bad, "doc_id": ["a", "b"], "score": [1.0, 2.0]}),
                   tmp_path / "r.parquet")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputFormatError) as caught:
        rw.read_run("r.parquet")
    assert str(caught.value) == "r.parquet: row 2: query id is not UTF-8 text"


def test_frames_and_dicts_name_the_row_or_keys() -> None:
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"],
                              "score": [1.0, "x"]})
    with pytest.raises(InputFormatError) as caught:
        rw.evaluate({"q": {"a": 1}}, frame, ["map"])
    assert str(caught.value) == (
        "<table>: row 2: column 'score': 'x' (str) does not fit with the values before it "
        "(float)")
    with pytest.raises(InputFormatError) as caught:
        rw.Run.from_dict({"q": {"a": 1.0, "b": "x"}})
    assert str(caught.value) == "<dict>: query 'q', document 'b': score must be a number " \
                                "(float or int), got 'x' (str)"
    with pytest.raises(InputFormatError) as caught:
        rw.Qrels.from_dict({"q": {"a": 1, "b": None}})
    assert str(caught.value) == "<dict>: query 'q', document 'b': grade must be a number " \
                                "(float, int or bool), got None (NoneType)"


# ------------------------------------------------------------------------------------------
# 32: 10**400, pickling


def test_a_score_too_large_for_a_float_is_one_clear_error() -> None:
    with pytest.raises(InputFormatError) as caught:
        rw.evaluate({"q": {"d": 1}}, {"q": {"d": 10**400, "e": 1.0}}, ["map"])
    assert str(caught.value) == (
        "<dict>: query 'q', document 'd': score must be a finite number, got an integer of 401 "
        "digits, too large for a 64-bit float")
    with pytest.raises(InputFormatError, match="grade must be a finite number"):
        rw.Qrels.from_dict({"q": {"d": -(10**400)}})
    with pytest.raises(InputFormatError, match=r"^<table>: row 2: score must be a finite number"):
        rw.Run.from_arrow(["q", "q"], ["a", "b"], [1.0, 10**309])


def _inputs(tmp_path: Path) -> list[object]:
    run_text = b"q1 Q0 d1 1 2.0 r\n# c\nq1 Q0 d2 2 1.0 r\nq2 Q0 d1 1 0.5 r\n"
    (tmp_path / "r").write_bytes(run_text)
    (tmp_path / "r.gz").write_bytes(gzip.compress(run_text))
    (tmp_path / "q").write_text("q1 0 d1 1\nq1 0 d2 0.5\nq2 0 d1 1\n")
    (tmp_path / "r.csv").write_text("qid,docid,score\nq1,d1,2\nq1,d2,1\n")
    return [rw.read_trec_run(tmp_path / "r", keep_rank=True),
            rw.read_trec_run(tmp_path / "r.gz"), rw.read_trec_qrels(tmp_path / "q"),
            rw.read_run(tmp_path / "r.csv"), rw.Run.from_dict({"q": {"a": 1.0}})]


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
@pytest.mark.parametrize("pure", [False, True])
def test_runs_and_judgments_read_from_files_go_to_a_process_pool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, method: str, pure: bool
) -> None:
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} here")
    if not pure and not _fast.available():
        pytest.skip("the C reader is not built")
    monkeypatch.setenv("RANKWISE_NO_C", "1" if pure else "0")
    inputs = _inputs(tmp_path)
    with multiprocessing.get_context(method).Pool(2) as pool:
        dicts = pool.map(operator.methodcaller("to_dict"), inputs)
        lines = pool.map(operator.methodcaller("line_of", 1), inputs)
    assert dicts == [item.to_dict() for item in inputs]  # type: ignore[attr-defined]
    assert lines == [3, 3, 2, 3, 2]


def test_a_pickled_run_is_the_same_run(tmp_path: Path) -> None:
    import pickle

    for item in _inputs(tmp_path):
        again = pickle.loads(pickle.dumps(item))
        assert again.to_dict() == item.to_dict()  # type: ignore[attr-defined]
        if isinstance(item, rw.Run):
            assert not again.scores.flags.writeable
            np.testing.assert_array_equal(again.query_codes, item.query_codes)
            assert again.rank_order_blocks is None or (
                again.rank_order_blocks.tolist() == item.rank_order_blocks.tolist())


def test_a_column_named_twice_is_refused_in_every_table_form(tmp_path: Path) -> None:
    """Parquet files and Arrow tables as CSV headers: one clear error, never a traceback."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    run_table = pa.Table.from_arrays(
        [pa.array(["q1"]), pa.array(["d1"]), pa.array([1.0]), pa.array([2.0])],
        names=["query_id", "doc_id", "score", "score"])
    qrels_table = pa.Table.from_arrays(
        [pa.array(["q1"]), pa.array(["d1"]), pa.array([1]), pa.array([0])],
        names=["query_id", "doc_id", "relevance", "relevance"])
    said = r"the column 'score' is there twice; a table's column names must differ"
    with pytest.raises(InputFormatError, match=r"^<table>: the score column 'score' is there "
                                               r"twice"):
        rw.evaluate({"q1": {"d1": 1}}, run_table, ["map"])
    with pytest.raises(InputFormatError, match=r"^<table>: the relevance column 'relevance' is "
                                               r"there twice"):
        rw.evaluate(qrels_table, {"q1": {"d1": 1.0}}, ["map"])
    path = tmp_path / "run.parquet"
    pq.write_table(run_table, path)
    with pytest.raises(InputFormatError, match=f"run.parquet: {said}"):
        rw.read_run(str(path))
    # a column named twice that no role reads is no error
    extra = pa.Table.from_arrays(
        [pa.array(["q1"]), pa.array(["d1"]), pa.array([1.0]), pa.array(["x"]), pa.array(["y"])],
        names=["query_id", "doc_id", "score", "note", "note"])
    assert rw.evaluate({"q1": {"d1": 1}}, extra, ["map"]).mean["map"] == 1.0


@pytest.mark.parametrize(("rank", "said"), [
    ("x", "run.txt:2: rank must be a number, got 'x'"),
    ("nan", "run.txt:2: rank must be a finite number for ties='rank', got 'nan'"),
    ("-inf", "run.txt:2: rank must be a finite number for ties='rank', got '-inf'"),
])
def test_ranks_that_order_the_rows_are_finite_numbers(tmp_path: Path, rank: str,
                                                       said: str) -> None:
    (tmp_path / "run.txt").write_text(f"q1 Q0 d2 1 3.0 A\nq1 Q0 d1 {rank} 2.0 A\n")
    with pytest.raises(InputFormatError) as caught:
        rw.evaluate({"q1": {"d1": 1, "d2": 0}}, str(tmp_path / "run.txt"), ["map"],
                    ties="rank")
    assert str(caught.value).endswith(said)


def test_a_tables_bad_rank_names_its_row() -> None:
    """A frame's rows are rows in the rank check (a file's, lines)."""
    import pandas as pd

    ranked = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"],
                           "score": [1.0, 2.0], "rank": [1.0, float("inf")]})
    with pytest.raises(InputFormatError) as caught:
        rw.evaluate({"q1": {"d1": 1}}, ranked, ["map"], ties="rank")
    assert str(caught.value).startswith("<table>: row 2: rank must be a finite number")


@pytest.mark.parametrize("delimiter", [",", "\t"])
def test_a_csv_records_line_counts_quoted_line_ends_and_blank_lines(
        tmp_path: Path, delimiter: str) -> None:
    """A quoted field over three lines and a blank line: the repeat is on line 7, not 5."""
    text = ('query_id,doc_id,score\nq1,d1,2\n\nq1,"x\n\ny",3\nq1,d1,1\n'
            .replace(",", delimiter))
    path = tmp_path / ("r.tsv" if delimiter == "\t" else "r.csv")
    path.write_text(text)
    with pytest.raises(DuplicateEntryError) as caught:
        rw.read_run(path)
    assert str(caught.value) == (f"{path}:7: document 'd1' appears twice for query 'q1' (first "
                                 "at line 2); a run lists each document once per query")


def test_a_csv_read_from_standard_input_counts_its_header_line() -> None:
    import subprocess
    import sys

    for text, said in [(b"query_id,doc_id,score\nq1,d1,2\nq1,d1,1\n",
                        "<stdin>:3: document 'd1' appears twice for query 'q1' (first at line "
                        "2); a run lists each document once per query"),
                       (b"query_id,doc_id,score\nq1,d1,nan\n",
                        "<stdin>:2: score must be a finite number, got 'nan'")]:
        done = subprocess.run(
            [sys.executable, "-c", "import sys, rankwise as rw; rw.read_run('-', fmt='csv')"],
            input=text, capture_output=True, check=False)
        assert done.returncode == 1
        assert said in done.stderr.decode()


def test_a_csv_line_of_a_field_past_pythons_csv_limit_is_found(tmp_path: Path) -> None:
    """A 200,000-byte id (Python's csv module stops at 131,072) and escaped quotes."""
    path = tmp_path / "r.csv"
    path.write_text('query_id,doc_id,score\nq1,"a""b\n",2\nq1,' + "d" * 200_000
                    + ',3\nq1,"x""",3\nq1,d2,x\n')
    with pytest.raises(InputFormatError) as caught:
        rw.read_run(path)
    assert str(caught.value) == f"{path}:6: score must be a number, got 'x'"


def test_a_quote_inside_a_field_is_text_for_the_line_count(tmp_path: Path) -> None:
    """pyarrow (and the csv module) open a quoted field only at its start: 12" is text."""
    path = tmp_path / "r.csv"
    path.write_text('query_id,doc_id,score\nq1,12"a,1.0\n\nq1,d2,0.9\nq1,"x\ny",0.8\n'
                    'q1,d4,\n')
    with pytest.raises(InputFormatError) as caught:
        rw.read_run(path)
    assert str(caught.value) == f"{path}:7: score is missing (null)"
