"""The command line for the measures beyond trec_eval: diversity judgments, bounds, ties."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

import rankwise as rw
from rankwise.measures import FAMILIES
from rankwise.measures.catalog import GROUPS

DATA = Path(__file__).parents[1] / "data" / "ndeval"


def rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text), delimiter="\t"))


def test_diversity_judgments_on_the_command_line(cli) -> None:
    qrels, run = DATA / "pyndeval_test.qrels", DATA / "pyndeval_test.run"
    names = ["alpha_ndcg@20", "err_ia@20", "nrbp", "ndcg@20"]
    outcome = cli(["eval", qrels, run, "-m", *names, "--qrels-format", "diversity",
                   "--per-query", "-f", "tsv"])
    assert outcome.status == 0, outcome.err
    expected = rw.evaluate(rw.read_qrels(qrels, subtopics=True), run, names)
    printed = rows(outcome.text)
    for row in printed[:-1]:
        for name in names:
            assert float(row[name]) == expected.value(name, row["query"])
    assert float(printed[-1]["err_ia@20"]) == expected.mean["err_ia@20"]
    # the same file read as plain judgments: each (query, document) judged twice
    refused = cli(["eval", qrels, run, "-m", "alpha_ndcg@20"])
    assert refused.status == 1 and "--qrels-format diversity" in refused.err


def test_unjudged_bounds_on_the_command_line(cli, tmp_path: Path) -> None:
    (tmp_path / "q").write_text("q1 0 a 1\nq1 0 b 0\nq2 0 c 1\n")
    (tmp_path / "r").write_text("q1 Q0 a 1 3 r\nq1 Q0 x 2 2 r\nq1 Q0 b 3 1 r\n"
                                "q2 Q0 y 1 2 r\nq2 Q0 c 2 1 r\n")
    outcome = cli(["eval", tmp_path / "q", tmp_path / "r", "-m", "P@2", "rbp(p=0.5)",
                   "--unjudged", "bounds", "--per-query", "-f", "tsv"])
    assert outcome.status == 0, outcome.err
    printed = rows(outcome.text)
    assert list(printed[0]) == ["run", "query", "P@2", "P@2 high", "rbp(p=0.5)",
                                "rbp(p=0.5) high", "judged@2", "judged"]
    assert [(r["query"], r["P@2"], r["P@2 high"], r["judged@2"]) for r in printed] == [
        ("q1", "0.5", "1.0", "0.5"), ("q2", "0.5", "1.0", "0.5"), ("all", "0.5", "1.0", "0.5")]
    assert printed[1]["rbp(p=0.5) high"] == "1.0"  # 0.5 (y) + 0.25 (c) + the tail 0.5^2


@pytest.mark.parametrize("ties", ["ascending", "trec"])
def test_ascending_ties(cli, tmp_path: Path, ties: str) -> None:
    (tmp_path / "q").write_text("q 0 a 1\n")
    (tmp_path / "r").write_text("q Q0 a 1 1 r\nq Q0 b 2 1 r\n")
    outcome = cli(["eval", tmp_path / "q", tmp_path / "r", "-m", "mrr", "--ties", ties,
                   "-f", "tsv"])
    assert outcome.status == 0, outcome.err
    assert rows(outcome.text)[0]["mrr"] == ("1.0" if ties == "ascending" else "0.5")


def test_measures_lists_the_new_groups_with_definition_and_reference(cli) -> None:
    outcome = cli(["measures"])
    assert outcome.status == 0
    text = outcome.text
    assert GROUPS == ("core", "label_ranking", "err", "diversity", "cwl", "other")
    for name in ["err", "nerr", "alpha_ndcg", "alpha_dcg", "err_ia", "nerr_ia", "nrbp", "nnrbp",
                 "ap_ia", "p_ia", "strec", "inst", "insq", "bpm", "tbg", "umeasure", "compat",
                 "ncg"]:
        family = FAMILIES[name]
        assert family.formula in text and f"reference: {family.reference}" in text, name
    full = cli(["measures", "alpha_ndcg"]).text
    assert "parameter alpha (default 0.5)" in full and "ndeval" in full
