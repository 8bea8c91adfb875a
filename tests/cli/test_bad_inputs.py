"""The bad-input corpus (tests/cli/bad_inputs): one clear line on stderr, a non-zero exit."""

from __future__ import annotations

from pathlib import Path

import pytest

BAD_INPUTS = Path(__file__).parent / "bad_inputs"


def read_case(path: Path) -> dict[str, str]:
    fields: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        key, _, value = line.partition(": ")
        fields[key] = value
    case = fields.get("case", "")
    for key in ("args", "stderr"):
        fields[key] = fields[key].replace("{case}", case)
    return fields


CASES = sorted(path.stem for path in BAD_INPUTS.glob("*.expected"))


def test_the_corpus_has_every_case_the_issue_lists() -> None:
    required = {
        "run_field_count", "qrels_field_count", "run_score_not_a_number",
        "qrels_grade_not_a_number", "run_score_nan", "run_score_infinite",
        "run_duplicate_document", "qrels_duplicate_judgment", "run_empty", "qrels_empty",
        "run_binary", "run_not_utf8", "unknown_measure", "missing_file", "directory_as_file",
    }
    assert required <= set(CASES)


def test_the_corpus_has_cases_of_every_command() -> None:
    """Issue 33, item 13: bad files and bad options of every command, not only eval's."""
    from rankwise.cli.app import COMMANDS

    commands = {read_case(BAD_INPUTS / f"{name}.expected")["args"].split(" ")[0]
                for name in CASES}
    assert commands == set(COMMANDS)


@pytest.mark.parametrize("reader", ["c", "pure"])
@pytest.mark.parametrize("name", CASES)
def test_bad_input_gives_one_clear_line(name: str, reader: str, cli, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # the same line with the C modules and without them (RANKWISE_NO_C=1): the pure readers
    # once took a missing field for an empty one (issue 33)
    monkeypatch.setenv("RANKWISE_NO_C", "0" if reader == "c" else "1")
    case = read_case(BAD_INPUTS / f"{name}.expected")
    if case.get("case", "").startswith("missing"):
        assert not (BAD_INPUTS / case["case"]).exists()
    elif case.get("case"):
        assert (BAD_INPUTS / case["case"]).exists()
    stdin = (BAD_INPUTS / case["stdin"]).read_bytes() if case.get("stdin") else b""
    before = sorted(path.name for path in BAD_INPUTS.iterdir())
    outcome = cli(case["args"].split(" "), cwd=BAD_INPUTS, stdin=stdin)
    if case.get("usage") == "yes":  # a malformed command line: argparse's usage, then the line
        assert outcome.err.startswith("usage: rankwise ")
        assert outcome.err.splitlines()[-1] == case["stderr"]
    else:
        assert outcome.err == case["stderr"] + "\n"
    assert outcome.status == int(case["status"]) != 0
    assert outcome.out == b""
    assert "Traceback" not in outcome.err
    assert sorted(path.name for path in BAD_INPUTS.iterdir()) == before  # nothing written


def test_debug_shows_the_traceback(cli) -> None:
    outcome = cli(["eval", "good.qrels", "run_field_count.run", "-m", "map", "--debug"],
                  cwd=BAD_INPUTS)
    assert outcome.status == 1
    assert "Traceback (most recent call last)" in outcome.err
    assert outcome.err.rstrip().splitlines()[-1] == (
        "rankwise: error: run_field_count.run:2: expected 6 fields "
        "(qid iter docno rank score runid), got 5"
    )


def test_nothing_is_left_in_the_output_file_on_failure(cli, tmp_path: Path) -> None:
    target = tmp_path / "out.tsv"
    outcome = cli(["eval", "good.qrels", "run_score_nan.run", "-m", "map", "-o", target],
                  cwd=BAD_INPUTS)
    assert outcome.status == 1
    assert not target.exists()
    assert list(tmp_path.iterdir()) == []


def test_an_existing_output_file_is_kept_on_failure(cli, tmp_path: Path) -> None:
    target = tmp_path / "out.tsv"
    target.write_text("previous\n")
    outcome = cli(["eval", "good.qrels", "run_empty.run", "-m", "map", "-o", target],
                  cwd=BAD_INPUTS)
    assert outcome.status == 1
    assert target.read_text() == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.tsv"]


# trec_eval 10.0's exit status for the same error (from the reference build)
TREC_EVAL_STATUS = {
    "run_field_count": 2,
    "qrels_field_count": 2,
    "qrels_too_few_fields": 2,
    "run_empty": 2,
    "qrels_empty": 2,
    "missing_file": 2,
    "missing_qrels": 2,
    "run_duplicate_document": 4,
    "qrels_duplicate_judgment": 4,
}


@pytest.mark.parametrize("name", sorted(TREC_EVAL_STATUS))
def test_trec_eval_exit_status_is_trec_evals(name: str, cli) -> None:
    case = read_case(BAD_INPUTS / f"{name}.expected")
    arguments = case["args"].split(" ")
    qrels, run = arguments[1], arguments[2]
    outcome = cli(["trec-eval", "-m", "map", qrels, run], cwd=BAD_INPUTS)
    assert outcome.status == TREC_EVAL_STATUS[name]
    assert outcome.out == b""
    message = case["stderr"].replace("rankwise: error: ", "rankwise trec-eval: ")
    assert outcome.err == message + "\n"
