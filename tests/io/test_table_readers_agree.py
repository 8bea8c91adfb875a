"""JSONL, CSV and TSV files: the C path and the pure path agree on every input (issue 33).

With the C modules (``RANKWISE_NO_C`` unset) a table read from a file goes
through the C frame reader; without them (``RANKWISE_NO_C=1``) through
pyarrow alone. Both must give the same run or judgments, or the same error:
one :class:`~rankwise.exceptions.RankwiseError` naming the file (and the line
when there is one), never a traceback.
"""

from __future__ import annotations

import gzip
import io
import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.exceptions import InputFormatError, InvalidParameterError, RankwiseError

READERS = ["0", "1"]  # RANKWISE_NO_C: the C path, the pure path


def _outcome(kind: str, path: Path | str, monkeypatch: pytest.MonkeyPatch, no_c: str,
             fmt: str | None = None) -> tuple:
    """What one reader makes of *path*: its columns, or the error's type and message."""
    monkeypatch.setenv("RANKWISE_NO_C", no_c)
    try:
        if kind == "run":
            run = rw.read_run(path, fmt=fmt)
            return ("run", run.query_ids, run.query_codes.tolist(), run.doc_ids.to_pylist(),
                    run.scores.tolist(), run.query_id_type)
        qrels = rw.read_qrels(path, fmt=fmt)
        return ("qrels", qrels.query_ids, qrels.query_codes.tolist(), qrels.doc_ids,
                qrels.doc_codes.tolist(), qrels.grades.tolist(), qrels.query_id_type)
    except RankwiseError as error:
        return (type(error).__name__, str(error))


# ------------------------------------------------------------------------------------------
# any file: the same outcome both ways

ODD_BYTES = [b"\xff", b"\xc3", b"\x00", b"\r", b"\n", b"\n\n", b" ", b"\t", b",", b'"', b"{",
             b"}", b"\xef\xbb\xbf"]


@st.composite
def jsonl_lines(draw: st.DrawFn, kind: str) -> bytes:
    value = "score" if kind == "run" else "relevance"
    lines = []
    for number in range(draw(st.integers(0, 8))):
        if draw(st.integers(0, 9)) == 0:
            lines.append(draw(st.sampled_from(["", " ", "\t"])))
            continue
        record = {
            "query_id": draw(st.sampled_from(["q1", "q2", 1, 2, "01", None, 1.5, True])),
            "doc_id": draw(st.sampled_from([f"d{number}", "d1", number, None, 2.5])),
            value: draw(st.sampled_from([1, 0, 2.5, -1, 1e300, "x", None, True, "1", [2]])),
        }
        if draw(st.integers(0, 9)) == 0:
            del record[draw(st.sampled_from(sorted(record)))]
        if draw(st.integers(0, 9)) == 0:
            record["extra"] = draw(st.sampled_from(["a", 1, None]))
        lines.append(json.dumps(record))
    end = draw(st.sampled_from(["\n", "\r\n"]))
    return (end.join(lines) + draw(st.sampled_from([end, ""]))).encode()


@st.composite
def delimited_lines(draw: st.DrawFn, kind: str, separator: str) -> bytes:
    value = "score" if kind == "run" else "relevance"
    header = draw(st.sampled_from([["query_id", "doc_id", value], ["qid", "docno", value],
                                   ["query_id", "doc_id", value, "x"]]))
    lines = [separator.join(header)] if draw(st.integers(0, 19)) else []
    for number in range(draw(st.integers(0, 8))):
        if draw(st.integers(0, 11)) == 0:
            lines.append("")
            continue
        fields = [draw(st.sampled_from(["q1", "q2", "1", "01", ""])),
                  draw(st.sampled_from([f"d{number}", "d1", ""])),
                  draw(st.sampled_from(["1", "0", "2.5", "-1", "1e3", "x", "", " 1", "nan"]))]
        fields += ["z"] * (len(header) - 3)
        if draw(st.integers(0, 9)) == 0:
            fields = fields[: draw(st.integers(0, len(fields)))]
        if draw(st.integers(0, 9)) == 0:
            fields.append("extra")
        if fields and draw(st.integers(0, 19)) == 0:
            fields[0] = f'"{fields[0]}{separator}"'
        lines.append(separator.join(fields))
    end = draw(st.sampled_from(["\n", "\r\n"]))
    return (end.join(lines) + draw(st.sampled_from([end, ""]))).encode()


@st.composite
def table_files(draw: st.DrawFn) -> tuple[str, str, bytes]:
    """(kind, format, content): a JSONL, CSV or TSV run or judgments, with odd bytes put in."""
    kind = draw(st.sampled_from(["run", "qrels"]))
    fmt = draw(st.sampled_from(["jsonl", "csv", "tsv"]))
    if fmt == "jsonl":
        content = draw(jsonl_lines(kind))
    else:
        content = draw(delimited_lines(kind, "," if fmt == "csv" else "\t"))
    if fmt == "jsonl" and draw(st.integers(0, 4)) == 0:  # a key that is not UTF-8
        key = draw(st.sampled_from([b'"query_id"', b'"doc_id"', b'"score"', b'"relevance"']))
        content = content.replace(key, key[:3] + draw(st.sampled_from([b"\xff", b"\xc3"]))
                                  + key[3:], draw(st.integers(1, 2)))
    for _ in range(draw(st.sampled_from([0, 0, 1, 1, 2]))):
        at = draw(st.integers(0, len(content)))
        content = content[:at] + draw(st.sampled_from(ODD_BYTES)) + content[at:]
    return kind, fmt, content


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(table_files())
def test_both_paths_agree_on_any_table_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             case: tuple[str, str, bytes]) -> None:
    # found 108 JSONL files with a key that is not UTF-8, a UnicodeDecodeError both ways
    kind, fmt, content = case
    path = tmp_path / f"input.{fmt}"
    path.write_bytes(content)
    c_path, pure_path = (_outcome(kind, path, monkeypatch, no_c) for no_c in READERS)
    assert c_path == pure_path
    event(c_path[0] if c_path[0] in ("run", "qrels") else c_path[1].split(": ")[1][:30])


# ------------------------------------------------------------------------------------------
# the cases the fuzzing found, one by one


@pytest.mark.parametrize("no_c", READERS)
def test_a_jsonl_key_that_is_not_utf8_is_one_error_with_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_c: str
) -> None:
    path = tmp_path / "k.jsonl"
    path.write_bytes(b'{"query_id":"q1","doc_id":"d1","score":2}\n\n'
                     b'{"query_id":"q1","doc_id":"d2","sc\xffore":1}\n')
    assert _outcome("run", path, monkeypatch, no_c) == (
        "InputFormatError",
        f"{path}:3: not UTF-8 text (byte 0xff at column 35): rankwise reads UTF-8 files")
    # standard input cannot be read again to find the line: the error names the input
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(path.read_bytes())))
    assert _outcome("qrels", "-", monkeypatch, no_c, fmt="jsonl") == (
        "InputFormatError", "<stdin>: a column name is not UTF-8 text: rankwise reads UTF-8 files")


@pytest.mark.parametrize("no_c", READERS)
@pytest.mark.parametrize("blank", ["", " ", "\r"])
def test_a_jsonl_duplicate_after_a_blank_line_names_its_own_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_c: str, blank: str
) -> None:
    # the C path numbered rows, not lines: line 20 for line 21 after one blank line
    lines = [json.dumps({"query_id": "q1", "doc_id": f"d{i}", "score": 30 - i})
             for i in range(18)]
    lines += [blank, json.dumps({"query_id": "q2", "doc_id": "d1", "score": 1}),
              json.dumps({"query_id": "q1", "doc_id": "d3", "score": 0.5})]
    path = tmp_path / "dup.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert _outcome("run", path, monkeypatch, no_c) == (
        "DuplicateEntryError",
        f"{path}:21: document 'd3' appears twice for query 'q1' (first at line 4); a run lists "
        "each document once per query")


@pytest.mark.parametrize("no_c", READERS)
@pytest.mark.parametrize(("name", "kind", "content"), [
    ("r.csv", "run", "q1,d1,1.5\nq1,d2,0.5\n"),
    ("q.tsv", "qrels", "q1\td1\t1\n"),
])
def test_a_csv_file_without_a_header_is_named_and_the_header_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_c: str, name: str, kind: str,
    content: str
) -> None:
    path = tmp_path / name
    path.write_text(content)
    error, message = _outcome(kind, path, monkeypatch, no_c)
    assert error == "InputFormatError"
    assert message.startswith(f"{path}: no query column: expected one of ['query_id', ")
    assert message.endswith("the first line of a CSV or TSV file names its columns: is the "
                            "header missing? (add one, such as query_id,doc_id,score or "
                            "query_id,doc_id,relevance)")


def test_a_missing_column_of_a_file_with_a_header_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("qid,docno,points\nq1,d1,1\n")
    with pytest.raises(InputFormatError, match=r"r\.csv: no score column: .* columns are "
                                               r"\['qid', 'docno', 'points'\]; a run ordered "):
        rw.read_run(path)
    with pytest.raises(InputFormatError, match=r"r\.csv: query column 'user' \(columns"):
        rw.read_run(path, columns={"query_id": "user"})


@pytest.mark.parametrize("reader", ["read_qrels", "read_run"])
@pytest.mark.parametrize("given", [{"q1": {"d1": 1}}, 7, None, b"q1 0 d1 1\n"])
def test_read_functions_say_what_they_take(reader: str, given: object) -> None:
    # os.fspath's TypeError ("expected str, bytes or os.PathLike object, not dict") came out
    with pytest.raises(InvalidParameterError) as caught:
        getattr(rw, reader)(given)
    message = str(caught.value)
    assert message.startswith(f"{reader} reads a file: it takes a path (str or os.PathLike, "
                              f"'-' for standard input), got {type(given).__name__}; ")
    converter = "as_qrels" if reader == "read_qrels" else "as_run"
    if isinstance(given, bytes):
        assert message.endswith(f"goes to rankwise.read_trec_{reader[5:]}")
    else:
        held = "they are" if reader == "read_qrels" else "it is"
        assert message.endswith(f"to rw.evaluate as {held}, or to rankwise.io.{converter}")


def test_a_gzip_jsonl_key_that_is_not_utf8_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "k.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"query_id":"q1","d\xc3":"d1","score":2}\n'))
    with pytest.raises(InputFormatError, match=r"k\.jsonl\.gz:1: not UTF-8 text \(byte 0xc3 "):
        rw.read_run(path)
