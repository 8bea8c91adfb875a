"""An input with no data is an error, in every form (issue 33: an empty Parquet run was read
while an empty TREC run was refused).

The rule (docs/reading.md): a run or judgments read from a file of any format, a frame, a
dict or records hold at least one row (a dict: one query); otherwise one
:class:`~rankwise.exceptions.InputFormatError` names the input. A :class:`Run` or
:class:`Qrels` the caller built is taken as it is.
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import rankwise as rw
from rankwise.exceptions import InputFormatError

RUN_NEEDS = "a run needs at least one row of query id, document id and score"
QRELS_NEEDS = "judgments need at least one row of query id, document id and grade"
JUDGED = {"q1": {"d1": 1}}
RANKED = {"q1": {"d1": 1.0}}


def _files(tmp_path: Path, kind: str) -> list[tuple[str, Path, str]]:
    """(form, path, the message after the path) of every empty file form."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    value = "score" if kind == "run" else "relevance"
    needs = RUN_NEEDS if kind == "run" else QRELS_NEEDS
    trec = ("TREC run lines (qid iter docno rank score runid)" if kind == "run"
            else "TREC qrels lines (qid iter docno grade)")
    contents = {
        "trec": (b"", f"file is empty: expected {trec}"),
        "trec.comments": (b"# nothing\n\n", f"file has no data lines: expected {trec}"),
        "trec.gz": (b"", f"file is empty: expected {trec}"),
        "csv": (f"query_id,doc_id,{value}\n".encode(),
                f"file has no data lines (only its header): {needs}"),
        "tsv": (f"query_id\tdoc_id\t{value}\n".encode(),
                f"file has no data lines (only its header): {needs}"),
        "jsonl": (b"", "file is empty: expected one JSON object per line"),
        "blank.jsonl": (b"\n \n", f"file has no data lines: {needs}"),
    }
    out = []
    for suffix, (content, message) in contents.items():
        path = tmp_path / f"{kind}.{suffix}"
        if suffix.endswith(".gz"):
            import gzip

            content = gzip.compress(content)
        path.write_bytes(content)
        out.append((suffix, path, message))
    path = tmp_path / f"{kind}.parquet"
    pq.write_table(pa.table({"query_id": pa.array([], pa.string()),
                             "doc_id": pa.array([], pa.string()),
                             value: pa.array([], pa.float64())}), path)
    out.append(("parquet", path, f"file has no rows: {needs}"))
    return out


@pytest.mark.parametrize("no_c", ["0", "1"])
@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_an_empty_file_of_any_format_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 kind: str, no_c: str) -> None:
    monkeypatch.setenv("RANKWISE_NO_C", no_c)
    read = rw.read_run if kind == "run" else rw.read_qrels
    for form, path, message in _files(tmp_path, kind):
        with pytest.raises(InputFormatError) as caught:
            read(path)
        assert str(caught.value) == f"{path}: {message}", form
        with pytest.raises(InputFormatError) as caught:  # through evaluate, as the CLI does
            if kind == "run":
                rw.evaluate(JUDGED, path, ["map"])
            else:
                rw.evaluate(path, RANKED, ["map"])
        assert str(caught.value) == f"{path}: {message}", form


def _frames(kind: str) -> list[tuple[str, Callable[[], Any]]]:
    value = "score" if kind == "run" else "relevance"

    def arrow() -> Any:
        import pyarrow as pa

        return pa.table({"query_id": pa.array([], pa.string()),
                         "doc_id": pa.array([], pa.string()), value: pa.array([], pa.float64())})

    def pandas() -> Any:
        import pandas as pd

        return pd.DataFrame({"query_id": pd.Series([], dtype=object),
                             "doc_id": pd.Series([], dtype=object),
                             value: pd.Series([], dtype=float)})

    def polars() -> Any:
        import polars as pl

        return pl.DataFrame({"query_id": [], "doc_id": [], value: []},
                            schema={"query_id": pl.Utf8, "doc_id": pl.Utf8, value: pl.Float64})

    return [("arrow", arrow), ("pandas", pandas), ("polars", polars)]


@pytest.mark.parametrize("no_c", ["0", "1"])
@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_an_empty_frame_dict_or_records_is_an_error(monkeypatch: pytest.MonkeyPatch, kind: str,
                                                    no_c: str) -> None:
    monkeypatch.setenv("RANKWISE_NO_C", no_c)
    needs = RUN_NEEDS if kind == "run" else QRELS_NEEDS
    fields = "query_id doc_id score" if kind == "run" else "query_id doc_id relevance"
    record = collections.namedtuple("Record", fields)
    cases: list[tuple[str, Callable[[], Any], str]] = [
        (form, make, f"<table>: the table has no rows: {needs}") for form, make in _frames(kind)
    ]
    dict_needs = ("a run needs at least one query ({query_id: {doc_id: score}})"
                  if kind == "run" else
                  "judgments need at least one query ({query_id: {doc_id: grade}})")
    cases += [
        ("dict", dict, f"<dict>: the dict is empty: {dict_needs}"),
        ("list of records", list, f"<records>: no records: {needs}"),
        ("generator of records", lambda: (record(*row) for row in []),
         f"<records>: no records: {needs}"),
    ]
    for form, make, message in cases:
        with pytest.raises(InputFormatError) as caught:
            if kind == "run":
                rw.evaluate(JUDGED, make(), ["map", "ndcg@10"])
            else:
                rw.evaluate(make(), RANKED, ["map", "ndcg@10"])
        assert str(caught.value) == message, form


def test_objects_built_by_the_caller_are_taken_as_they_are() -> None:
    # a Run the caller made empty on purpose is a system that retrieved nothing
    empty = rw.Run.from_arrow([], [], [])
    results = rw.evaluate(JUDGED, empty, ["map"], missing="zero")  # trec_eval -c: scores 0
    assert results.mean == {"map": 0.0}


def test_a_table_with_rows_and_no_known_column_names_the_columns_first(tmp_path: Path) -> None:
    # no rows and the wrong columns: the columns are the first thing to fix
    path = tmp_path / "r.csv"
    path.write_text("user,item,pred\n")
    with pytest.raises(InputFormatError, match=r"r\.csv: no query column: "):
        rw.read_run(path)
