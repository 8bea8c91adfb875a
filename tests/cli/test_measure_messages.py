"""Messages about measures on the command line (issue 13, items 10 and 11)."""

from __future__ import annotations


def test_trec_eval_command_suggests_it_too(cli, tmp_path) -> None:
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("q1 0 d1 1\n")
    run.write_text("q1 Q0 d1 1 1.0 r\n")
    outcome = cli(["trec-eval", "-m", "P_10", qrels, run])
    assert "did you mean 'P.10'?" in outcome.err


def test_files_taken_by_m_are_named_with_the_right_order(cli, tmp_path) -> None:
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 d1 1\n")
    run.write_text("q1 Q0 d1 1 1.0 r\n")
    outcome = cli(["eval", "-m", "ndcg@10", "map", "q.txt", "r.txt"], cwd=tmp_path)
    assert outcome.status == 2
    assert outcome.err == (
        "rankwise eval: error: -m took the files q.txt, r.txt as measures (-m takes every word "
        "up to the next option); put the files first: rankwise eval q.txt r.txt -m ndcg@10 map\n"
    )
    # the order shown works
    fixed = outcome.err.split("put the files first: rankwise ")[1].split()
    assert cli(fixed, cwd=tmp_path).status == 0


def test_the_hint_keeps_other_options_and_quotes_names(cli, tmp_path) -> None:
    (tmp_path / "my qrels").write_text("q1 0 d1 1\n")
    (tmp_path / "r.txt").write_text("q1 Q0 d1 1 1.0 r\n")
    outcome = cli(["compare", "--quiet", "my qrels", "-m", "map", "r.txt", "r.txt"], cwd=tmp_path)
    assert outcome.status == 2
    assert outcome.err.endswith(
        "put the files first: rankwise compare --quiet 'my qrels' r.txt r.txt -m map\n"
    )


def test_a_missing_file_is_still_a_plain_usage_error(cli, tmp_path) -> None:
    outcome = cli(["eval", "-m", "ndcg@10", "nothere.txt"], cwd=tmp_path)
    assert outcome.status == 2
    assert "the following arguments are required: QRELS, RUN" in outcome.err
    assert "-m took" not in outcome.err
