"""Grades of 1024 and more on the command line: a finite nDCG, nothing on stderr (issue 13, 3c)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest


def _exact_ndcg(grades_in_order: list[int], judged: list[int]) -> float:
    def dcg(grades: list[int]) -> Fraction:
        return sum((Fraction(2 ** max(g, 0) - 1) * Fraction(1.0 / math.log2(i + 2))
                    for i, g in enumerate(grades)), Fraction(0))

    return float(dcg(grades_in_order) / dcg(sorted(judged, reverse=True)))


def test_quiet_cli_prints_nothing_on_standard_error(cli, tmp_path) -> None:
    qrels = tmp_path / "q.qrels"
    run = tmp_path / "r.run"
    qrels.write_text("q1 0 d1 1100\nq1 0 d2 3\nq1 0 d3 0\n")
    run.write_text("q1 Q0 d2 1 3.0 r\nq1 Q0 d1 2 2.0 r\nq1 Q0 d3 3 1.0 r\n")
    outcome = cli(["eval", qrels, run, "-m", "ndcg", "--quiet", "-f", "tsv"])
    assert outcome.status == 0
    assert outcome.err == ""
    value = float(outcome.text.splitlines()[1].split("\t")[1])
    assert value == pytest.approx(_exact_ndcg([3, 1100, 0], [1100, 3, 0]), rel=1e-14)
