"""Messages about measures on the command line (issue 13, items 10 and 11)."""

from __future__ import annotations


def test_trec_eval_command_suggests_it_too(cli, tmp_path) -> None:
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("q1 0 d1 1\n")
    run.write_text("q1 Q0 d1 1 1.0 r\n")
    outcome = cli(["trec-eval", "-m", "P_10", qrels, run])
    assert "did you mean 'P.10'?" in outcome.err
