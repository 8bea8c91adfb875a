"""One rule for every command that writes a file: ``rankwise: wrote FILE (size)`` on stderr.

(``plot`` said nothing and ``report`` said "wrote ..."; now every command that
writes a file says so, last, unless ``--quiet``; output to standard output is
never announced.)
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "golden" / "compare"
RUNS = [GOLDEN / "qrels.txt", GOLDEN / "bm25.run", GOLDEN / "dense.run"]


def _recs_files(folder: Path) -> list[Path]:
    (folder / "test.csv").write_text("user,item\n1,a\n2,b\n")
    (folder / "recs.csv").write_text("user,item,score\n1,a,1.0\n2,a,1.0\n")
    return [folder / "test.csv", folder / "recs.csv"]


COMMANDS = {
    "eval": lambda out, folder: ["eval", *RUNS, "-m", "map", "-o", out],
    "eval-ndeval": lambda out, folder: [
        "eval", Path(__file__).parents[1] / "data" / "ndeval" / "edge.qrels",
        Path(__file__).parents[1] / "data" / "ndeval" / "edge.run",
        "--qrels-format", "diversity", "--ties", "rank", "-f", "ndeval", "-o", out],
    "compare": lambda out, folder: ["compare", *RUNS, "-m", "mrr", "--seed", "1", "-o", out],
    "report": lambda out, folder: ["report", *RUNS, "-m", "mrr", "--seed", "1", "-o", out],
    "plot": lambda out, folder: ["plot", *RUNS, "-m", "mrr", "--kind", "distribution",
                                 "-o", out],
    "fuse": lambda out, folder: ["fuse", *RUNS[1:], "--method", "rrf", "-o", out],
    "recs": lambda out, folder: ["recs", *_recs_files(folder), "-m", "P@1", "-o", out],
    "explain": lambda out, folder: ["explain", *RUNS[:2], "-m", "ndcg@10", "--between",
                                    "trec_eval", "sklearn", "-o", out],
    "design": lambda out, folder: ["design", "--min-diff", "0.1", "--variance", "0.05",
                                   "-o", out],
}
SUFFIX = {"report": ".html", "plot": ".svg", "fuse": ".run", "explain": ".txt",
          "eval-ndeval": ".csv"}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_command_says_which_file_it_wrote(cli, tmp_path: Path, command: str) -> None:
    out = tmp_path / f"out{SUFFIX.get(command, '.tsv')}"
    outcome = cli(COMMANDS[command](out, tmp_path))
    assert outcome.status == 0, outcome.err
    assert out.stat().st_size > 0
    size = out.stat().st_size
    shown = f"{size} B" if size < 1000 else f"{size / 1000:.1f} kB"
    last = outcome.err.splitlines()[-1]
    assert last.startswith(f"rankwise: wrote {out} ({shown})"), outcome.err
    assert outcome.err.count("rankwise: wrote") == 1
    quiet = cli([*COMMANDS[command](out, tmp_path), "--quiet"])
    assert quiet.status == 0 and "wrote" not in quiet.err


def test_the_report_adds_what_the_page_holds(cli, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    outcome = cli(COMMANDS["report"](out, tmp_path))
    assert outcome.err.splitlines()[-1].endswith("): 2 systems, 12 queries")


def test_recs_html_is_said_too(cli, tmp_path: Path) -> None:
    out, page = tmp_path / "out.tsv", tmp_path / "page.html"
    outcome = cli([*COMMANDS["recs"](out, tmp_path), "--html", page])
    assert outcome.status == 0, outcome.err
    assert [line.split(" (")[0] for line in outcome.err.splitlines()[-2:]] == [
        f"rankwise: wrote {out}", f"rankwise: wrote {page}"]


def test_demo_save_names_the_files_it_wrote(cli, tmp_path: Path) -> None:
    outcome = cli(["demo", "--save", tmp_path / "demo"])
    assert outcome.status == 0 and outcome.out == b""
    written = [line.split(" (")[0].removeprefix("rankwise: wrote ")
               for line in outcome.err.splitlines()]
    assert sorted(Path(path).name for path in written) == [
        "NOTICE.md", "qrels.test", "results.test"]


def test_demo_save_never_replaces_another_file(cli, tmp_path: Path) -> None:
    """--save wrote over a qrels.test of the user's own (a review); again into the same
    folder it is fine, and an empty name or a file is refused."""
    folder = tmp_path / "demo"
    assert cli(["demo", "--save", folder]).status == 0
    assert cli(["demo", "--save", folder]).status == 0  # the example files again
    (folder / "qrels.test").write_text("mine\n")
    (folder / "results.test").unlink()
    outcome = cli(["demo", "--save", folder])
    assert outcome.status == 1
    assert outcome.err == (f"rankwise: error: {folder / 'qrels.test'}: exists and is not the "
                           "example file: --save never replaces it; remove it or save to "
                           "another folder\n")
    assert (folder / "qrels.test").read_text() == "mine\n"
    assert not (folder / "results.test").exists()  # nothing written
    assert cli(["demo", "--save", ""]).err == ("rankwise: error: --save: the folder name is "
                                               "empty: expected a folder\n")
    assert cli(["demo", "--save", folder / "NOTICE.md"]).status == 1


@pytest.mark.parametrize("target", ["-", "/dev/null"])
def test_standard_output_and_devices_are_not_announced(cli, target: str) -> None:
    outcome = cli(["eval", *RUNS, "-m", "map", "-o", target])
    assert outcome.status == 0 and "wrote" not in outcome.err
    outcome = cli(["eval", *RUNS, "-m", "map"])
    assert outcome.status == 0 and "wrote" not in outcome.err


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_dash_is_standard_output_for_every_command(cli, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     command: str) -> None:
    """``-o -`` writes to standard output, never a file named ``-`` (report and plot did)."""
    monkeypatch.chdir(tmp_path)
    argv = COMMANDS[command]("-", tmp_path)
    if command == "plot":
        argv += ["-f", "svg"]
    outcome = cli(argv)
    assert outcome.status == 0, outcome.err
    assert not (tmp_path / "-").exists()
    assert outcome.out and "wrote" not in outcome.err
    if command == "report":
        assert outcome.out.startswith(b"<!DOCTYPE html>")
    if command == "plot":
        assert outcome.out.lstrip().startswith(b"<?xml")


def test_a_figure_to_standard_output_needs_its_format(cli, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    outcome = cli(COMMANDS["plot"]("-", tmp_path))
    assert outcome.status == 1 and not (tmp_path / "-").exists()
    assert "-o - writes the figure to standard output: give its format with -f" in outcome.err


def test_an_empty_file_name_is_said_to_be_one(cli, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    outcome = cli(["eval", *RUNS, "-m", "map", "-o", ""])
    assert outcome.status == 1
    assert outcome.err.strip() == "rankwise: error: '': the file name is empty: expected a " \
                                  "file to write"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(os.name != "posix", reason="POSIX descriptors")
def test_standard_error_closed_is_no_failure_and_no_notice_in_the_output(tmp_path) -> None:
    """``2>&-``: the notices go nowhere (they made a written file's command exit 1, and the
    output's temporary file could take descriptor 2 and receive them)."""
    import subprocess
    import sys

    (tmp_path / "q").write_text("q1 0 d1 1\n")
    (tmp_path / "r").write_text("q1 Q0 d1 1 2 r\n")
    done = subprocess.run(
        [sys.executable, "-m", "rankwise", "eval", "q", "r", "-m", "P@5", "-o", "out.tsv"],
        cwd=tmp_path, stdout=subprocess.PIPE, preexec_fn=lambda: os.close(2), check=False)
    assert done.returncode == 0
    assert (tmp_path / "out.tsv").read_text() == "run\tP@5\nr\t0.2\n"
    failed = subprocess.run(
        [sys.executable, "-m", "rankwise", "eval", "q", "missing", "-m", "P@5"],
        cwd=tmp_path, stdout=subprocess.PIPE, preexec_fn=lambda: os.close(2), check=False)
    assert failed.returncode == 1
