"""Diversity judgments (a grade per subtopic) in every input form, and back out."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from strategies import diversity_collections

import rankwise as rw
from rankwise.exceptions import DuplicateEntryError, InputFormatError, InvalidParameterError

TEXT = b"1 2 d1 1\n1 1 d1 0\n1 10 d2 3\n2 x d9 -2\n"
NESTED = {"1": {"1": {"d1": 0}, "2": {"d1": 1}, "10": {"d2": 3}}, "2": {"x": {"d9": -2}}}


def test_a_trec_file_is_plain_unless_asked(tmp_path: Path) -> None:
    path = tmp_path / "qrels"
    path.write_bytes(TEXT.replace(b"1 1 d1 0\n", b""))
    plain = rw.read_qrels(path)
    assert plain.subtopics is None and plain.to_dict() == {"1": {"d1": 1, "d2": 3}, "2": {"d9": -2}}
    diverse = rw.read_qrels(path, subtopics=True)
    assert diverse.subtopics is not None
    assert diverse.to_dict(subtopics=True) == {"1": {"2": {"d1": 1}, "10": {"d2": 3}},
                                               "2": {"x": {"d9": -2}}}


def test_every_form_gives_the_same_judgments(tmp_path: Path) -> None:
    path = tmp_path / "qrels.ndeval"
    path.write_bytes(TEXT)
    frame = pa.table({"query_id": ["1", "1", "1", "2"], "intent": ["2", "1", "10", "x"],
                      "doc_id": ["d1", "d1", "d2", "d9"], "relevance": [1, 0, 3, -2]})
    forms = [rw.read_qrels(path, subtopics=True), rw.read_qrels(path, fmt="diversity"),
             rw.read_trec_qrels(TEXT, subtopics=True), rw.io.as_qrels(NESTED),
             rw.io.as_qrels(frame), rw.io.as_qrels(frame.rename_columns(
                 ["q", "topic", "d", "g"]), columns={"query_id": "q", "subtopic": "topic",
                                                     "doc_id": "d", "relevance": "g"})]
    csv = tmp_path / "qrels.csv"
    csv.write_text("qid,subtopic,docno,grade\n1,2,d1,1\n1,1,d1,0\n1,10,d2,3\n2,x,d9,-2\n")
    forms.append(rw.read_qrels(csv))
    for qrels in forms:
        assert qrels.to_dict(subtopics=True) == NESTED
        # a document's grade is its maximum over subtopics
        assert qrels.to_dict() == {"1": {"d1": 1, "d2": 3}, "2": {"d9": -2}}
        # subtopics are summed in numeric order when every id is an integer, else byte order
        assert qrels.subtopics.names == ["1", "10", "2", "x"]
    with pytest.raises(DuplicateEntryError, match="is given twice"):  # the column ignored
        rw.read_qrels(csv, subtopics=False)
    leading = tmp_path / "zero.csv"  # subtopic ids are text: 010 stays 010
    leading.write_text("qid,subtopic,docno,grade\n1,010,d1,1\n")
    assert rw.read_qrels(leading).subtopics.names == ["010"]


def test_subtopic_order_is_numeric_when_every_id_is_an_integer() -> None:
    qrels = rw.io.as_qrels({"q": {"10": {"a": 1}, "9": {"a": 1}, "0": {"b": 1}}})
    assert qrels.subtopics.names == ["0", "9", "10"]


@settings(max_examples=50, deadline=None)
@given(diversity_collections())
def test_writers_round_trip(tmp_path_factory, data) -> None:
    qrels, _ = data
    judged = rw.io.as_qrels(qrels)
    folder = tmp_path_factory.mktemp("written")
    judged.to_trec(folder / "qrels.txt")
    judged.to_parquet(folder / "qrels.parquet")
    assert rw.read_qrels(folder / "qrels.txt", subtopics=True).to_dict(subtopics=True) == qrels
    assert rw.read_qrels(folder / "qrels.parquet").to_dict(subtopics=True) == qrels
    table = judged.to_arrow()
    assert table.column_names == ["query_id", "subtopic", "doc_id", "relevance"]
    assert rw.io.as_qrels(table).to_dict(subtopics=True) == qrels


def test_errors_name_the_place(tmp_path: Path) -> None:
    path = tmp_path / "qrels"
    path.write_bytes(b"1 1 d1 1\n1 2 d1 0\n1 1 d1 2\n")
    with pytest.raises(DuplicateEntryError, match=r"qrels:3: .*subtopic '1' is given twice "
                                                  r"\(first at line 1\)"):
        rw.read_qrels(path, subtopics=True)
    with pytest.raises(DuplicateEntryError, match="read diversity judgments with subtopics=True"):
        rw.read_qrels(path)
    with pytest.raises(InputFormatError, match="no subtopic column"):
        rw.io.read_qrels(_csv(tmp_path, "qid,docno,grade\n1,a,1\n"), subtopics=True)
    with pytest.raises(InputFormatError, match=r"^<dict>: query 'q', subtopic '2': the entry "
                                                r"must be a dict"):
        rw.io.as_qrels({"q": {"1": {"a": 1}, "2": 3}})
    with pytest.raises(InvalidParameterError, match="contradicts"):
        rw.read_qrels(path, fmt="diversity", subtopics=False)


def _csv(folder: Path, text: str) -> Path:
    path = folder / "plain.csv"
    path.write_text(text)
    return path


def test_plain_judgments_count_as_one_subtopic() -> None:
    qrels = {"q": {"a": 1, "b": 0, "c": 2}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    one = {"q": {"only": {"a": 1, "b": 0, "c": 2}}}
    names = ["alpha_ndcg@3", "err_ia@3", "nrbp", "ap_ia", "p_ia@2", "strec@1"]
    a = rw.evaluate(qrels, run, names).to_dict()
    b = rw.evaluate(one, run, names).to_dict()
    assert a == b
    assert np.isclose(a["p_ia@2"]["q"], 0.5) and a["strec@1"]["q"] == 1.0


@pytest.mark.parametrize("compress", [False, True])
def test_comments_blank_lines_crlf_and_compression_keep_rows_aligned(
    tmp_path: Path, compress: bool
) -> None:
    # the subtopic field is read in a second pass: it must line up with the checked rows
    import gzip
    import pickle

    text = b"# judged by\r\n\r\n1 2 d1 1\r\n1   1\td1 0\n\n# more\n1 10 d2 3\n2 x d9 -2\n1 2 d1 5\n"
    path = tmp_path / "qrels"
    path.write_bytes(gzip.compress(text) if compress else text)
    with pytest.raises(DuplicateEntryError, match=r"qrels:9: .*subtopic '2' is given twice "
                                                  r"\(first at line 3\)"):
        rw.read_qrels(path, subtopics=True)
    path.write_bytes(gzip.compress(text[: text.rindex(b"1 2 d1 5")]) if compress
                     else text[: text.rindex(b"1 2 d1 5")])
    qrels = rw.read_qrels(path, subtopics=True)
    assert qrels.to_dict(subtopics=True) == NESTED
    again = pickle.loads(pickle.dumps(qrels))
    assert again.to_dict(subtopics=True) == NESTED
    assert [again.line_of(row) for row in range(len(again))] == [3, 7, 8]


def test_nested_dicts_are_told_by_their_first_entry() -> None:
    qrels = rw.io.as_qrels({"0": {}, **NESTED})
    assert qrels.to_dict(subtopics=True) == NESTED
    with pytest.raises(InputFormatError, match="must be a number"):
        rw.io.as_qrels({"a": {"d1": 1}, **NESTED})
    with pytest.raises(InputFormatError, match=r"^<dict>: query '2', subtopic 'x': the entry "
                                                r"must be a dict"):
        rw.io.as_qrels({"1": NESTED["1"], "2": {"x": 1}})


def test_a_short_diversity_line_is_described_with_its_subtopic_field() -> None:
    with pytest.raises(InputFormatError, match=r"expected 4 fields \(qid subtopic docno grade\), "
                                               r"got 3"):
        rw.read_trec_qrels(b"q1 1 d1 1\nq1 1 d2\n", subtopics=True)
