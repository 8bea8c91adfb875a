"""``rankwise eval --engine spark`` prints what the numpy engine prints."""

from __future__ import annotations

from pathlib import Path

import pytest

from rankwise.cli import main

DATA = Path(__file__).parents[2] / "data" / "trec_eval"

pytestmark = pytest.mark.spark


def test_spark_engine_gives_the_numpy_table(spark, capsys) -> None:
    master = spark.sparkContext.master
    args = ["eval", str(DATA / "qrels.test"), str(DATA / "results.test"),
            "-m", "ndcg@10", "map", "mrr", "P@5", "recall@100", "bpref", "-f", "tsv",
            "--per-query", "--quiet"]
    assert main(args) == 0
    numpy_out = capsys.readouterr().out
    assert main([*args, "--engine", "spark", "--spark-master", master]) == 0
    spark_out = capsys.readouterr().out
    assert spark_out == numpy_out


def test_spark_engine_refuses_what_it_cannot_read(spark, capsys) -> None:
    args = ["eval", str(DATA / "qrels.test"), "-", "-m", "map", "--engine", "spark"]
    assert main(args) != 0
    assert "standard input" in capsys.readouterr().err
