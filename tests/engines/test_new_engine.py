"""A new engine is a module of its own and one registration line (issue 34, step 2).

The toy engines of ``tests/toy_engine.py`` are registered in a temporary
registry (``rankwise.engines.ENGINES``, the one line a new engine adds) and
nothing else is edited: ``evaluate``, ``evaluate_runs``, ``compare``,
``build_report`` and the command line's ``--engine`` (with the engine's own
settings) then reach them, asking their capabilities, never their name.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import toy_engine

import rankwise as rw
from rankwise.cli import main
from rankwise.cli.app import _command_parser, build_parser
from rankwise.engines import ENGINES

GOLDEN = Path(__file__).parents[1] / "cli" / "golden"
# by hand: q1 judges d1 (relevant) and d2; the run ranks d2 first, d1 second: P@1 0,
# RR 1/2, AP 1/2; q2 judges d4, ranked first: P@1 1, RR 1, AP 1
QRELS = {"q1": {"d1": 1, "d2": 0}, "q2": {"d4": 1}}
RUN = {"q1": {"d2": 2.0, "d1": 1.0}, "q2": {"d4": 3.0, "x": 1.0}}
WANT = {"P@1": {"q1": 0.0, "q2": 1.0}, "mrr": {"q1": 0.5, "q2": 1.0},
        "map": {"q1": 0.5, "q2": 1.0}}


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The one line each toy engine adds, in a registry that lasts for the test."""
    monkeypatch.setitem(ENGINES, "toy", "toy_engine:ToyEngine")
    monkeypatch.setitem(ENGINES, "frametoy", "toy_engine:FrameToyEngine")
    toy_engine.CALLS.clear()


def test_evaluate_and_evaluate_runs_reach_the_new_engine(registered: None) -> None:
    got = rw.evaluate(QRELS, RUN, list(WANT), engine="toy")
    assert got.to_dict() == WANT
    assert [call[0] for call in toy_engine.CALLS] == ["toy"]
    runs = rw.evaluate_runs(QRELS, {"a": RUN, "b": RUN}, list(WANT), engine="toy")
    assert {name: results.to_dict() for name, results in runs.items()} == {"a": WANT,
                                                                           "b": WANT}
    # in this process: the judgments read once, each run read here, both handed over read
    calls = toy_engine.CALLS[1:]
    assert [call[1] for call in calls] == ["a", "b"]
    assert all(isinstance(call[2], rw.Qrels) and isinstance(call[3], rw.Run) for call in calls)
    assert calls[0][2] is calls[1][2]


def test_compare_and_the_report_reach_the_new_engine(registered: None) -> None:
    worse = {"q1": {"d2": 2.0, "d1": 1.0}, "q2": {"x": 3.0, "d4": 1.0}}  # q2: RR 1/2
    comparison = rw.compare(QRELS, {"a": RUN, "b": worse}, ["mrr"], baseline="a", seed=0,
                            engine="toy")
    row = comparison.row("mrr", "b")
    assert (row.mean, row.baseline_mean, row.delta) == (0.5, 0.75, -0.25)
    report = rw.build_report(QRELS, {"a": RUN, "b": worse}, ["mrr"], max_k=3, seed=0,
                             engine="toy")
    assert report.results["b"].to_dict()["mrr"] == {"q1": 0.5, "q2": 0.5}
    assert {call[0] for call in toy_engine.CALLS} == {"toy"}
    assert len(toy_engine.CALLS) == 4


def test_an_engine_that_reads_its_inputs_gets_them_as_given(registered: None,
                                                            tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d4 1\n")
    results = rw.evaluate_runs(str(qrels), {"a": RUN}, list(WANT), engine="frametoy")
    assert results["a"].to_dict() == WANT
    assert [("frametoy", "a", str(qrels), RUN)] == toy_engine.CALLS  # not read here


def test_an_engines_own_frames_choose_it_and_its_plan_says_so(registered: None) -> None:
    frames = toy_engine.ToyFrame(QRELS), toy_engine.ToyFrame(RUN)
    got = rw.evaluate(*frames, list(WANT))  # no engine given: the frames choose
    assert got.to_dict() == WANT
    assert toy_engine.CALLS[0][0] == "frametoy"
    assert got.plan == ("engine frametoy: chosen for the inputs (ToyFrame is a Frame toy "
                        "frame); frametoy: one pass")
    assert rw.evaluate(QRELS, RUN, list(WANT)).plan == ""  # numpy's: nothing to say


def test_the_command_line_offers_the_engine_and_its_settings(
        registered: None, capsys: pytest.CaptureFixture[str]) -> None:
    measures = ["-m", "ndcg@3", "map", "mrr", "P@2", "num_ret", "-f", "tsv", "--quiet"]
    paths = [str(GOLDEN / name) for name in ("qrels.txt", "a.run", "b.run")]
    assert main(["eval", *paths, *measures, "--engine", "toy", "--toy-depth-hint", "5"]) == 0
    assert capsys.readouterr().out == (GOLDEN / "means.tsv").read_text()
    assert [call[0] for call in toy_engine.CALLS] == ["toy", "toy"]
    assert main(["eval", *paths, *measures, "--toy-depth-hint", "5"]) != 0
    said = capsys.readouterr().err
    assert "--toy-depth-hint only apply to the Toy engine: add --engine toy" in said
    assert main(["eval", paths[0], "-", *measures, "--engine", "frametoy"]) != 0
    assert "--engine frametoy reads its files by path" in capsys.readouterr().err
    shown = " ".join(_command_parser(build_parser("eval"), "eval").format_help().split())
    assert "a toy engine (tests)" in shown and "--toy-depth-hint N" in shown
