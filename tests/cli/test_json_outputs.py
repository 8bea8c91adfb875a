"""Every JSON and JSONL output of every command is strict JSON; NaN is null (issue 33, item 17).

Python's json module writes NaN as ``NaN``, which no strict parser (a browser's
``JSON.parse``, jq) reads: each output is parsed here with
``parse_constant`` raising, on data that makes NaN values (a query gdeval leaves
out, an interval of one query, a segment test of one user, a share of no
difference).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest


def strict(text: str) -> Any:
    def refuse(constant: str) -> Any:
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def strict_lines(text: str) -> list[Any]:
    assert text.endswith("\n")
    return [strict(line) for line in text.splitlines()]


@pytest.fixture
def files(tmp_path: Path) -> Path:
    # q2 has no relevant document: gdeval leaves it out (NaN); one query: no interval
    (tmp_path / "q").write_text("q1 0 d1 1\nq2 0 d4 0\n")
    (tmp_path / "a").write_text("q1 Q0 d1 1 2 a\nq2 Q0 d4 1 1 a\n")
    (tmp_path / "b").write_text("q1 Q0 d2 1 2 b\nq1 Q0 d1 2 1 b\nq2 Q0 d4 1 1 b\n")
    (tmp_path / "c").write_text("q1 Q0 d2 1 2 c\nq1 Q0 d3 2 1 c\nq2 Q0 d5 1 1 c\n")
    (tmp_path / "one.q").write_text("q1 0 d1 1\n")
    (tmp_path / "test.csv").write_text("user,item\n1,a\n2,b\n3,a\n")
    (tmp_path / "recs.csv").write_text("user,item\n1,a\n2,a\n3,b\n")
    (tmp_path / "segments.csv").write_text("user,segment\n1,x\n2,y\n3,y\n")
    return tmp_path


GDEVAL = "ndcg@10(dialect=gdeval)"
CASES: dict[str, list[str]] = {
    "eval": ["eval", "q", "a", "b", "-m", GDEVAL, "map", "--per-query"],
    "compare": ["compare", "one.q", "a", "b", "-m", "map", "--seed", "1"],
    "recs": ["recs", "test.csv", "recs.csv", "-m", "hit@1", "--segments", "segments.csv"],
    "design": ["design", "q", "a", "b", "c", "-m", "map"],
    "design (no files)": ["design", "--min-diff", "0.1", "--variance", "0.02"],
    "explain --between": ["explain", "q", "a", "-m", "ndcg@10", "--between", "trec_eval",
                          "sklearn"],
    "explain --measured": ["explain", "q", "b", "-m", "ndcg@10", "--measured", "0.75"],
    "guide": ["guide", "q", "a", "b"],
}
FORMATS = [(name, fmt) for name in CASES for fmt in ("json", "jsonl")
           if not (name.startswith("explain") and fmt == "jsonl")]


def test_every_json_format_of_every_command_is_here() -> None:
    from rankwise.cli.app import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    offered = {(command, choice) for command, sub in commands.choices.items()
               for action in sub._actions if "--format" in action.option_strings
               for choice in action.choices or () if "json" in choice}
    assert offered == {(name.split()[0], fmt) for name, fmt in FORMATS}


@pytest.mark.parametrize(("name", "fmt"), FORMATS, ids=[f"{n} {f}" for n, f in FORMATS])
def test_json_output_is_strict_json(cli, files: Path, name: str, fmt: str) -> None:
    outcome = cli([*CASES[name], "-f", fmt, "--quiet"], cwd=files)
    assert outcome.status == 0, outcome.err
    parsed = strict(outcome.text) if fmt == "json" else strict_lines(outcome.text)
    assert parsed
    # and written to a file, the same text
    target = files / f"out.{fmt}"
    assert cli([*CASES[name], "-f", fmt, "--quiet", "-o", target], cwd=files).status == 0
    assert target.read_bytes() == outcome.out


def test_nan_is_null_everywhere(cli, files: Path) -> None:
    rows = strict(cli([*CASES["eval"], "-f", "json"], cwd=files).text)
    # gdeval leaves q2 out: no value (NaN), while map scores it 0
    assert [(r["run"], r["query"], r[GDEVAL], r["map"]) for r in rows if r["query"] == "q2"] == [
        ("a", "q2", None, 0.0), ("b", "q2", None, 0.0)]
    compared = strict(cli([*CASES["compare"], "-f", "jsonl"], cwd=files).text)
    assert (compared["n_queries"], compared["ci_low"], compared["ci_high"]) == (1, None, None)
    recs = strict_lines(cli([*CASES["recs"], "-f", "jsonl"], cwd=files).text)
    assert recs[-1]["segment"].startswith("p (") and recs[-1]["hit@1"] is None  # 1 user in x
    explained = strict(cli([*CASES["explain --between"], "-f", "json"], cwd=files).text)
    assert explained["difference"] == 0.0
    assert [step["share"] for step in explained["steps"]] == [None] * len(explained["steps"])


def test_explain_writes_json_to_a_json_file_as_every_command_does(cli, files: Path) -> None:
    """``-o x.json`` gives JSON without ``-f json`` (explain wrote text); ``-f`` still wins."""
    outcome = cli([*CASES["explain --between"], "-o", "x.json"], cwd=files)
    assert outcome.status == 0, outcome.err
    assert strict((files / "x.json").read_text())["difference"] == 0.0
    assert cli([*CASES["explain --between"], "-o", "x.txt"], cwd=files).status == 0
    assert (files / "x.txt").read_text().startswith("ndcg@10 on ")
    assert cli([*CASES["explain --between"], "-o", "y.json", "-f", "text"],
               cwd=files).status == 0
    assert (files / "y.json").read_text().startswith("ndcg@10 on ")
