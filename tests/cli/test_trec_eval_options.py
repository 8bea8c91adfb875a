"""``rankwise trec-eval`` against trec_eval 10.0 on small cases, and where it differs on purpose."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

CASES_DIR = Path(__file__).parent / "trec_eval_cases"
CASES = {case["id"]: case for case in json.loads((CASES_DIR / "cases.json").read_text())}
STATUS = json.loads((CASES_DIR / "expected" / "status.json").read_text())


@pytest.mark.parametrize("case_id", list(CASES))
def test_same_output_and_status_as_trec_eval(case_id: str, cli) -> None:
    case = CASES[case_id]
    stdin = (CASES_DIR / case["stdin"]).read_bytes() if case.get("stdin") else None
    outcome = cli(["trec-eval", *case["args"]], cwd=CASES_DIR, stdin=stdin)
    assert outcome.status == STATUS[case_id], outcome.err
    if case.get("compare_stdout", True):
        expected = (CASES_DIR / "expected" / f"{case_id}.out").read_text()
        assert outcome.text == expected
    if outcome.status != 0:
        assert outcome.err.startswith("rankwise trec-eval: ")
        assert "Traceback" not in outcome.err


def test_help_goes_to_stdout(cli) -> None:
    outcome = cli(["trec-eval", "-h"])
    assert outcome.status == 0
    assert "-q, --query_eval_wanted" in outcome.text
    assert "Differences from trec_eval 10.0" in outcome.text


def test_version_goes_to_stderr(cli) -> None:
    outcome = cli(["trec-eval", "--version"])
    assert (outcome.status, outcome.out) == (0, b"")
    assert "trec_eval 10.0" in outcome.err


def test_usage_errors_print_the_usage(cli) -> None:
    outcome = cli(["trec-eval", "-x", "a", "b"])
    assert outcome.status == 1
    assert outcome.err.splitlines()[0] == "rankwise trec-eval: invalid option -- 'x'"
    assert outcome.err.splitlines()[1].startswith("Usage: rankwise trec-eval")


# -- deliberate differences from trec_eval 10.0 (docs/cli.md) ---------------------------


def test_a_judged_query_missing_from_the_run_is_left_out(cli) -> None:
    """trec_eval 10.0 exits with 4; rankwise evaluates the other queries, as trec_eval 9 did."""
    outcome = cli(["trec-eval", "-q", "qA.qrels", "rA.run"], cwd=CASES_DIR)
    assert outcome.status == 0
    # the same as evaluating the judgments of the queries the run has
    assert outcome.text == (CASES_DIR / "expected" / "missing_query_reference.out").read_text()
    assert outcome.err == (
        "rankwise trec-eval: warning: 1 judged query is not in the run and left out of the "
        "means (trec_eval 10.0 would exit with status 4; -c scores them 0)\n"
    )


def test_quiet_silences_the_warning(cli) -> None:
    outcome = cli(["trec-eval", "--quiet", "qA.qrels", "rA.run"], cwd=CASES_DIR)
    assert (outcome.status, outcome.err) == (0, "")
    outcome = cli(["--quiet", "trec-eval", "qA.qrels", "rA.run"], cwd=CASES_DIR)
    assert (outcome.status, outcome.err) == (0, "")


def test_no_query_in_common_exits_with_7(cli, tmp_path: Path) -> None:
    (tmp_path / "q").write_text("1 0 d1 1\n")
    (tmp_path / "r").write_text("2 Q0 d1 1 1.0 run\n")
    outcome = cli(["trec-eval", "q", "r"], cwd=tmp_path)
    assert outcome.status == 7
    assert outcome.out == b""
    assert outcome.err.startswith("rankwise trec-eval: no query has both results and judgments")


def test_comment_lines_anywhere_in_the_qrels(cli, tmp_path: Path) -> None:
    """trec_eval 10.0 reads a second consecutive comment line as data and crashes on a last one."""
    (tmp_path / "q").write_text("# a\n# b c\n1 0 d1 1\n\n1 0 d2 0\n  # indented\n1 0 d3 1\n# end\n")
    (tmp_path / "rB.run").write_bytes((CASES_DIR / "rB.run").read_bytes())
    outcome = cli(["trec-eval", "-m", "num_rel", "-m", "map", "q", "rB.run"], cwd=tmp_path)
    assert outcome.status == 0, outcome.err
    assert outcome.text == (
        "num_rel               \tall\t2\n"
        "map                   \tall\t0.8333\n"
    )


def test_duplicate_documents_exit_with_4(cli, tmp_path: Path) -> None:
    (tmp_path / "r").write_text("1 Q0 d1 1 3.0 run\n1 Q0 d2 2 2.0 run\n1 Q0 d1 3 1.0 run\n")
    outcome = cli(["trec-eval", "qC.qrels", tmp_path / "r"], cwd=CASES_DIR)
    assert outcome.status == 4
    assert "document 'd1' appears twice for query '1'" in outcome.err


def test_utility_with_a_collection_size_is_refused(cli) -> None:
    outcome = cli(["trec-eval", "-N", "1000", "-m", "utility.1,-1,0,1", "qB0.qrels", "rB.run"],
                  cwd=CASES_DIR)
    assert outcome.status == 1
    assert "-N (documents in the collection) is not supported" in outcome.err


def test_zscores_are_refused(cli) -> None:
    outcome = cli(["trec-eval", "-Z", "zscores", "qB0.qrels", "rB.run"], cwd=CASES_DIR)
    assert outcome.status == 1
    assert outcome.err == (
        "rankwise trec-eval: -Z (z-scores) is not supported by rankwise trec-eval\n"
    )


def test_debug_option_is_accepted_and_ignored(cli) -> None:
    outcome = cli(["trec-eval", "-D", "1", "-m", "map", "qB0.qrels", "rB.run"], cwd=CASES_DIR)
    assert outcome.status == 0
    assert outcome.text == "map                   \tall\t0.8333\n"
    assert outcome.err == "rankwise trec-eval: warning: -D ignored\n"


def test_negative_depth_is_an_error(cli) -> None:
    """trec_eval 10.0 crashes (SIGSEGV) on -M with a negative number."""
    outcome = cli(["trec-eval", "-M", "-5", "qB0.qrels", "rB.run"], cwd=CASES_DIR)
    assert outcome.status == 1
    assert outcome.err == "rankwise trec-eval: -M must be a number >= 0, got -5\n"


def test_qrels_file_is_read_as_trec_text_whatever_its_name(cli, tmp_path: Path) -> None:
    (tmp_path / "qrels.csv").write_bytes((CASES_DIR / "qB0.qrels").read_bytes())
    outcome = cli(["trec-eval", "-m", "map", "qrels.csv", CASES_DIR / "rB.run"], cwd=tmp_path)
    assert outcome.status == 0, outcome.err
    assert outcome.text == "map                   \tall\t0.8333\n"


FRACTIONAL = "q1 0 a 1.9\nq1 0 b 1\nq1 0 c 0.5\n"
FRACTIONAL_RUN = "q1 Q0 b 1 3.0 r\nq1 Q0 a 2 2.0 r\nq1 Q0 c 3 1.0 r\n"


def test_a_fractional_grade_is_refused_where_trec_eval_would_truncate_it(
        cli, tmp_path: Path) -> None:
    """trec_eval reads grades with atol (1.9 is 1): its ndcg here is 1 (b and a gain 1 each).

    Read as written, the gains 1.9, 1 and 0.5 give another number (0.8806), which the
    drop-in must not print as trec_eval's.
    """
    (tmp_path / "q").write_text(FRACTIONAL)
    (tmp_path / "r").write_text(FRACTIONAL_RUN)
    outcome = cli(["trec-eval", "-m", "ndcg", "q", "r"], cwd=tmp_path)
    assert outcome.status == 2 and outcome.out == b""
    assert outcome.err == (
        "rankwise trec-eval: q:1: grade must be an integer, got '1.9' (trec_eval would read "
        "it as 1); rankwise eval reads fractional grades\n"
    )
    # the integers trec_eval would have read give its number: 1 (pytrec_eval agrees)
    (tmp_path / "q").write_text("q1 0 a 1\nq1 0 b 1\nq1 0 c 0\n")
    outcome = cli(["trec-eval", "-m", "ndcg", "q", "r"], cwd=tmp_path)
    assert outcome.text == "ndcg                  \tall\t1.0000\n"


def test_eval_reads_fractional_grades_as_gains(cli, tmp_path: Path) -> None:
    # by hand, gains 1, 1.9, 0.5 at ranks 1-3 over the ideal 1.9, 1, 0.5:
    # (1 + 1.9/log2(3) + 0.5/2) / (1.9 + 1/log2(3) + 0.5/2)
    import math

    want = (1 + 1.9 / math.log2(3) + 0.25) / (1.9 + 1 / math.log2(3) + 0.25)
    (tmp_path / "q").write_text(FRACTIONAL)
    (tmp_path / "r").write_text(FRACTIONAL_RUN)
    outcome = cli(["eval", "q", "r", "-m", "ndcg(gain=linear)", "num_rel", "-f", "csv"],
                  cwd=tmp_path)
    assert outcome.status == 0, outcome.err
    header, row = outcome.text.splitlines()
    assert header == "run,ndcg(gain=linear),num_rel"
    assert math.isclose(float(row.split(",")[1]), want, rel_tol=1e-12)
    assert row.split(",")[2] == "2"  # 1.9 and 1 are >= 1; 0.5 is not
