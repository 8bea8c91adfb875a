"""What fusion refuses, and how it says so: learning from nothing, bad parameters, overflow."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import rankwise as rw
from rankwise.cli import main
from rankwise.fusion import fuse, train

A = {"q1": {"d1": 3.0, "d2": 2.0}, "q2": {"d4": 1.0}}
B = {"q1": {"d2": 3.0, "d3": 2.0}, "q2": {"d5": 1.0}}
ZERO = {"q1": {"d1": 0}, "q2": {"d4": 0}}  # judged, nothing relevant (issue 33, item 7)
SUPERVISED = {"posfuse": {}, "probfuse": {"n_segments": 2}, "segfuse": {}, "slidefuse": {"w": 1},
              "mapfuse": {}, "bayesfuse": {}}


@pytest.mark.parametrize("method", list(SUPERVISED))
def test_every_supervised_method_refuses_judgments_with_nothing_relevant(method: str) -> None:
    with pytest.raises(rw.InvalidParameterError) as error:
        fuse([A, B], method, qrels=ZERO, **SUPERVISED[method])
    message = str(error.value)
    assert message.startswith(f"{method} learns ")
    assert "no relevant document (grade >= 1) for the 2 judged queries" in message
    assert "the same fused score" in message
    # relevant documents the runs do not retrieve: the same rule, another reason
    with pytest.raises(rw.InvalidParameterError, match="retrieve none of the 1 relevant"):
        fuse([A, B], method, qrels={"q1": {"d9": 1}, "q2": {"d4": 0}}, **SUPERVISED[method])
    with pytest.raises(rw.InvalidParameterError, match="retrieve none of the judged queries"):
        train(method, rw.Qrels.from_dict({"q9": {"d1": 1}}), [rw.Run.from_dict(A)],
              n_segments=SUPERVISED[method].get("n_segments"))


def test_supervised_methods_still_learn_from_one_relevant_document() -> None:
    qrels = {"q1": {"d3": 1}, "q2": {"d4": 0}}  # only run B retrieves it, at rank 2
    fused = fuse([A, B], "posfuse", qrels=qrels).to_dict()
    # posfuse: A learns [0, 0], B learns [0/2 at rank 1, 1/1 at rank 2] = [0, 1]
    assert fused["q1"] == {"d1": 0.0, "d2": 0.0, "d3": 1.0}


def test_the_command_refuses_with_one_line(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "zero.qrels").write_text("q1 0 d1 0\nq2 0 d4 0\n")
    for name, run in (("a", A), ("b", B)):
        rw.Run.from_dict(run, name=name).to_trec(tmp_path / f"{name}.run")
    runs = [str(tmp_path / "a.run"), str(tmp_path / "b.run")]
    assert main(["fuse", *runs, "--method", "posfuse", "--qrels",
                 str(tmp_path / "zero.qrels")]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rankwise: error: posfuse learns probs")
    assert "zero.qrels" in lines[0]
    assert main(["fuse", *runs, "--param", "k=abc"]) == 1  # issue 33, item 13
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines == ["rankwise: error: fusion method 'rrf': k must be a finite number >= 0, "
                     "got 'abc' (str); e.g. k=60"]


@pytest.mark.parametrize(("method", "params", "message"), [
    ("rrf", {"k": "abc"}, "fusion method 'rrf': k must be a finite number >= 0, got 'abc' (str)"),
    ("rrf", {"k": True}, "fusion method 'rrf': k must be a finite number >= 0, got True (bool)"),
    ("rrf", {"k": -1}, "fusion method 'rrf': k must be a finite number >= 0, got -1 (int)"),
    ("gmnz", {"gamma": "x"}, "fusion method 'gmnz': gamma must be a finite number, got 'x'"),
    ("logn_isr", {"sigma": "s"}, "fusion method 'logn_isr': sigma must be a number in [0, 1], "
                                 "got 's' (str); e.g. sigma=0.01"),
    ("logn_isr", {"sigma": 2}, "sigma must be a number in [0, 1], got 2 (int)"),
    ("rbc", {"phi": float("nan")}, "fusion method 'rbc': phi must be a number in [0, 1], got "
                                   "nan (float)"),
    ("slidefuse", {"w": "a", "probs": [[1.0], [1.0]]},
     "fusion method 'slidefuse': w must be a non-negative integer, got 'a' (str); e.g. w=2"),
    ("slidefuse", {"w": 1.5, "probs": [[1.0], [1.0]]}, "w must be a non-negative integer, "
                                                        "got 1.5 (float)"),
    ("probfuse", {"n_segments": "many", "probs": [[1.0], [1.0]]},
     "fusion method 'probfuse': n_segments must be a positive integer, got 'many' (str)"),
    ("wsum", {"weights": ["a", "b"]}, "weights must be a list of finite numbers, one per run, "
                                      "got ['a', 'b'] (list)"),
    ("posfuse", {"probs": 5}, "posfuse: probs must be one row of numbers per run, got 5 (int)"),
    ("posfuse", {"probs": [["a"], [1.0]]}, "posfuse: probs must be numbers, got ['a'] (list)"),
    ("mapfuse", {"map_scores": ["x", 1.0]}, "map_scores must be numbers, got ['x', 1.0] (list)"),
])
def test_a_parameter_that_is_not_a_number_is_named(method: str, params: dict,
                                                   message: str) -> None:
    with pytest.raises(rw.InvalidParameterError, match=re.escape(message)):
        fuse([A, B], method, **params)


def test_a_number_given_as_text_is_read() -> None:
    assert fuse([A, B], "rrf", k="10").to_dict() == fuse([A, B], "rrf", k=10).to_dict()


@pytest.mark.parametrize("native", [True, False])
def test_an_overflowing_fused_score_names_its_query_document_and_runs(
    native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 33, item 23: it was blamed on 'row 2' of a table nobody wrote."""
    if not native:  # the aligned path (the one-pass C sum is skipped)
        monkeypatch.setenv("RANKWISE_NO_C", "1")
    big = {"q0": {"x": 1.0}, "q1": {"z": 1.0, "a": 1e308}}
    also = {"q1": {"a": 1e308}}
    with pytest.raises(rw.InvalidParameterError) as error:
        fuse({"bm25": big, "dense": also}, "sum")
    assert str(error.value).startswith(
        "the sum score of query 'q1', document 'a' is inf, not a finite number: its scores "
        "are 1e+308 in run 'bm25', 1e+308 in run 'dense'. Scale the runs' scores down or "
        "normalise them first (norm='min-max')")
    assert "row" not in str(error.value)


def test_an_overflow_names_the_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "big.run"
    path.write_text("q1 Q0 d1 1 1e308 big\nq1 Q0 d2 2 2.0 big\n")
    assert main(["fuse", str(path), str(path), "--method", "sum"]) == 1
    err = capsys.readouterr().err
    assert f"1e+308 in run 'big' ({path}), 1e+308 in run 'big#2' ({path})" in err
    assert "query 'q1', document 'd1'" in err and "Traceback" not in err
