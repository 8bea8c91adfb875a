"""The command line: --columns (one spelling with the library's columns=) and --exclude-self."""

from __future__ import annotations

from pathlib import Path

import pytest

import rankwise as rw

pd = pytest.importorskip("pandas")


@pytest.fixture
def tables(tmp_path: Path) -> Path:
    pd.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "c"]}).to_parquet(tmp_path / "q.parquet")
    pd.DataFrame({"user": [1, 1, 1, 2, 2], "item": ["a", "x", "b", "c", "y"],
                  "pred": [0.9, 0.8, 0.7, 0.1, 0.2]}).to_parquet(tmp_path / "r.parquet")
    pd.DataFrame({"user": [1, 1, 1, 2, 2], "item": ["b", "a", "x", "c", "y"],
                  "pos": [1, 2, 3, 1, 2]}).to_parquet(tmp_path / "ranked.parquet")
    return tmp_path


def test_columns_with_implicit_judgments(cli, tables: Path) -> None:
    out = cli(["eval", tables / "q.parquet", tables / "r.parquet", "-m", "P@2", "mrr",
               "--columns", "query_id=user,doc_id=item,score=pred,relevance=", "-f", "tsv"])
    assert out.status == 0, out.err
    assert out.text.splitlines()[1] == "r\t0.5\t0.75"
    library = rw.evaluate(tables / "q.parquet", tables / "r.parquet", ["P@2", "mrr"],
                          columns={"query_id": "user", "doc_id": "item", "score": "pred",
                                   "relevance": None})
    assert library.mean == {"P@2": 0.5, "mrr": 0.75}


def test_columns_with_a_rank_column(cli, tables: Path) -> None:
    out = cli(["eval", tables / "q.parquet", tables / "ranked.parquet", "-m", "P@1", "-f", "tsv",
               "--columns", "query_id=user,doc_id=item,rank=pos,relevance="])
    assert out.status == 0, out.err
    assert out.text.splitlines()[1] == "ranked\t1.0"


def test_columns_in_compare(cli, tables: Path) -> None:
    out = cli(["compare", tables / "q.parquet", tables / "r.parquet", tables / "ranked.parquet",
               "-m", "P@1", "--columns", "query_id=user,doc_id=item,score=pred,rank=pos,"
               "relevance=", "--seed", "0"])
    assert out.status == 0, out.err


@pytest.mark.parametrize(
    ("value", "message"),
    [("user", "expected role=column pairs"),
     ("qid=user", "argument --columns: a role must be one of 'query_id', 'doc_id', 'relevance', "
                  "'score', 'rank', 'subtopic', got 'qid' (str); columns={'query_id': 'user', "
                  "...} maps a role to your column"),
     ("query_id=a,query_id=b", "role 'query_id' is given twice"),
     ("score=", "must be a column name")],
)
def test_bad_columns_are_refused(cli, tables: Path, value: str, message: str) -> None:
    out = cli(["eval", tables / "q.parquet", tables / "r.parquet", "--columns", value])
    assert out.status == 2
    assert message in out.err


def test_a_missing_relevance_column_names_the_remedy(cli, tables: Path) -> None:
    out = cli(["eval", tables / "q.parquet", tables / "r.parquet", "-m", "P@1",
               "--columns", "query_id=user,doc_id=item,score=pred"])
    assert out.status == 1
    assert "--columns relevance=" in out.err


def test_exclude_self(cli, tmp_path: Path) -> None:
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq2 0 d2 1\n")
    (tmp_path / "run").write_text("q1 Q0 q1 1 3 r\nq1 Q0 d1 2 2 r\nq2 Q0 d2 1 1 r\n")
    kept = cli(["eval", tmp_path / "qrels", tmp_path / "run", "-m", "P@1", "-f", "tsv"])
    dropped = cli(["eval", tmp_path / "qrels", tmp_path / "run", "-m", "P@1", "-f", "tsv",
                   "--exclude-self"])
    assert kept.text.splitlines()[1] == "r\t0.5"
    assert dropped.text.splitlines()[1] == "r\t1.0"
