"""Edges of the Python API and the command line: a RankwiseError or a sensible value, never a
traceback (issue 13, item 32; pickling and multiprocessing are tested in
tests/io/test_tables_and_dicts.py, 10**400 scores in tests/io).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import rankwise as rw

QRELS = {"a": {"d1": 1, "d2": 0}, "b": {"d3": 2}}
RUN = {"a": {"d1": 2.0, "d2": 1.0}, "b": {"d3": 1.0, "d4": 3.0}}


@pytest.mark.parametrize(("qrels", "message"), [
    ({}, "<dict>: the dict is empty: judgments need at least one query"),
    ({"a": {}}, "the qrels hold no judgments"),
], ids=["no query", "no document"])
def test_qrels_without_judgments_are_an_error(qrels: dict, message: str) -> None:
    with pytest.raises(rw.InputFormatError, match=message):
        rw.evaluate(qrels, RUN, ["map", "recall@10"])


def test_empty_frames_are_an_error() -> None:
    # one rule for every input form (issue 33, item 19; tests/io/test_empty_inputs.py): an
    # empty run frame was read as a run of no query, an empty run file was an error
    pd = pytest.importorskip("pandas")
    empty_qrels = pd.DataFrame({"query_id": [], "doc_id": [], "relevance": []})
    with pytest.raises(rw.InputFormatError, match="<table>: the table has no rows: judgments"):
        rw.evaluate(empty_qrels, RUN, ["map"])
    empty_run = pd.DataFrame({"query_id": [], "doc_id": [], "score": []})
    with pytest.raises(rw.InputFormatError, match="<table>: the table has no rows: a run"):
        rw.evaluate(QRELS, empty_run, ["map"], missing="zero")
    built = rw.Run.from_arrow([], [], [])  # a Run built empty is taken as it is
    assert rw.evaluate(QRELS, built, ["map"], missing="zero").mean["map"] == 0.0


@pytest.mark.parametrize("measure", [
    "P@5(rel=nan)", "P@5(rel=inf)", "map(rel=-inf)", "rbp(p=nan)", "ndcg(gains=1=nan)",
    "iprec_at_recall(recall=nan)", "utility(coefficients=1;nan;0;0)", "set_F(beta=inf)",
])
def test_non_finite_measure_parameters_are_refused(measure: str) -> None:
    """A NaN level silently scored everything 0: refused like rel=nan and --rel nan."""
    with pytest.raises(rw.MeasureSyntaxError, match="expected a finite number"):
        rw.evaluate(QRELS, RUN, [measure])


def test_nan_levels_are_refused_everywhere() -> None:
    with pytest.raises(rw.InvalidParameterError,
                       match=r"^rel must be a number or None, got nan \(float\); no grade is "
                             r">= nan$"):
        rw.evaluate(QRELS, RUN, ["map"], rel=float("nan"))


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "q.txt").write_text("a 0 d1 1\na 0 d2 0\nb 0 d3 2\n")
    (tmp_path / "r.run").write_text("a Q0 d1 1 2 r\na Q0 d2 2 1 r\nb Q0 d4 1 3 r\nb Q0 d3 2 1 r\n")
    return tmp_path


HUGE = "99999999999999999999999"


def test_huge_depths_on_the_command_line_cut_nothing(cli, files: Path) -> None:
    plain = cli(["eval", "q.txt", "r.run", "-m", "map", "num_ret", "-f", "csv"], cwd=files)
    deep = cli(["eval", "q.txt", "r.run", "-m", "map", "num_ret", "-f", "csv", "--depth", HUGE],
               cwd=files)
    assert plain.status == deep.status == 0, deep.err
    assert deep.text == plain.text
    plain = cli(["trec-eval", "q.txt", "r.run"], cwd=files)
    deep = cli(["trec-eval", "-M", HUGE, "q.txt", "r.run"], cwd=files)
    assert deep.status == 0, deep.err
    assert deep.text == plain.text


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_non_finite_rel_on_the_command_line_is_one_error_line(cli, files: Path,
                                                              value: str) -> None:
    outcome = cli(["eval", "q.txt", "r.run", "-m", "map", f"--rel={value}"], cwd=files)
    assert outcome.status == 2
    assert f"argument --rel: expected a finite number, got '{value}'" in outcome.err
    assert "Traceback" not in outcome.err
    outcome = cli(["eval", "q.txt", "r.run", "-m", f"P@5(rel={value})"], cwd=files)
    assert outcome.status != 0
    assert "expected a finite number" in outcome.err and "Traceback" not in outcome.err
