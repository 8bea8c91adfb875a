"""Output of the commands: hostile names in LaTeX (issue 13, item 33), files written by -o
(items 23, 31)."""

from __future__ import annotations


def _live_lines(latex: str) -> list[str]:
    """Lines LaTeX reads as code: outside the tabular, everything must be a comment."""
    lines = latex.splitlines()
    end = lines.index("\\end{tabular}")
    return [line for line in lines[end + 1:] if line.strip() and not line.startswith("%")]


def test_compare_latex_from_the_command_line(cli, tmp_path) -> None:
    (tmp_path / "q").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 0\nq2 0 d3 1\n")
    (tmp_path / "a").write_text("q1 Q0 d1 1 2 a\nq1 Q0 d2 2 1 a\nq2 Q0 d1 1 2 a\nq2 Q0 d3 2 1 a\n")
    (tmp_path / "b").write_text("q1 Q0 d2 1 2 b\nq1 Q0 d1 2 1 b\nq2 Q0 d3 1 2 b\nq2 Q0 d1 2 1 b\n")
    evil = "a\n\\immediate\\write18{touch pwned}"
    outcome = cli(["compare", "q", "a", "b", "--names", evil, "b", "--baseline", evil,
                   "-m", "P@1", "-f", "latex", "--quiet"], cwd=tmp_path)
    assert outcome.status == 0, outcome.err
    assert _live_lines(outcome.text) == []
    assert not any(line.startswith("\\immediate") for line in outcome.text.splitlines())
