"""Output of the commands: hostile names in LaTeX (issue 13, item 33), files written by -o
(items 23, 31)."""

from __future__ import annotations

import errno
import os
import re
import stat
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest


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


# -- formulas in every text a spreadsheet opens (issue 33, item 18) ---------------------------

EVIL = "=cmd|' /C calc'!A0"


def _cells(text: str, fmt: str) -> list[list[str]]:
    import csv
    import io

    return list(csv.reader(io.StringIO(text), delimiter="\t" if fmt == "tsv" else ","))


@pytest.mark.parametrize("fmt", ["tsv", "csv"])
def test_compare_and_eval_neutralise_formulas(cli, tmp_path: Path, fmt: str) -> None:
    (tmp_path / "q").write_text("q1 0 d1 1\nq1 0 d2 0\n@q2 0 d1 0\n@q2 0 d3 1\n")
    (tmp_path / "a").write_text("q1 Q0 d1 1 2 a\nq1 Q0 d2 2 1 a\n@q2 Q0 d1 1 2 a\n"
                                "@q2 Q0 d3 2 1 a\n")
    (tmp_path / "b").write_text("q1 Q0 d2 1 2 b\nq1 Q0 d1 2 1 b\n@q2 Q0 d3 1 2 b\n"
                                "@q2 Q0 d1 2 1 b\n")
    compared = cli(["compare", "q", "a", "b", "--names", EVIL, "+b", "--baseline", "+b",
                    "-m", "P@1", "-f", fmt, "--seed", "1", "--quiet"], cwd=tmp_path)
    assert compared.status == 0, compared.err
    rows = _cells(compared.text, fmt)
    column = rows[0].index("system"), rows[0].index("baseline")
    assert [(row[column[0]], row[column[1]]) for row in rows[1:]] == [
        ("'+b", ""), ("'" + EVIL, "'+b")]  # the baseline row, then the other run
    evaluated = cli(["eval", "q", "a", "b", "-m", "P@1", "--per-query", "-f", fmt, "--quiet"],
                    cwd=tmp_path)
    assert evaluated.status == 0, evaluated.err
    assert sorted({row[1] for row in _cells(evaluated.text, fmt)[1:]}) == ["'@q2", "all", "q1"]


@pytest.mark.parametrize("fmt", ["tsv", "csv"])
def test_recs_neutralises_formulas(cli, tmp_path: Path, fmt: str) -> None:
    (tmp_path / "test.csv").write_text(f"user,item\n+1,a\n\"{EVIL}\",b\n")
    (tmp_path / "recs.csv").write_text(f"user,item,score\n+1,a,1\n\"{EVIL}\",a,1\n")
    outcome = cli(["recs", "test.csv", "recs.csv", "-m", "hit@1", "--per-user", "-f", fmt],
                  cwd=tmp_path)
    assert outcome.status == 0, outcome.err
    assert [row[1] for row in _cells(outcome.text, fmt)] == ["user", "+1", "'" + EVIL, "all"]


def test_ndeval_csv_neutralises_a_formula_run_id(cli, tmp_path: Path) -> None:
    data = Path(__file__).parents[1] / "data" / "ndeval"
    run = (data / "edge.run").read_text().replace(" edge\n", " =HYPERLINK(\"x\")\n")
    (tmp_path / "edge.run").write_text(run)
    outcome = cli(["eval", data / "edge.qrels", "edge.run", "--qrels-format", "diversity",
                   "--ties", "rank", "--format", "ndeval"], cwd=tmp_path)
    assert outcome.status == 0, outcome.err
    expected = (data / "ndeval_edge.out").read_text().replace("\nedge,", "\n'=HYPERLINK(\"x\"),")
    assert outcome.text == expected


# -- -o of every command that writes (item 23) ----------------------------------------------


QRELS = "q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d1 1\nq2 0 d4 0\nq3 0 d5 1\n"
RUN_A = "q1 Q0 d1 1 3 a\nq1 Q0 d2 2 2 a\nq1 Q0 d3 3 1 a\nq2 Q0 d4 1 2 a\nq2 Q0 d1 2 1 a\n" \
        "q3 Q0 d5 1 1 a\n"
RUN_B = "q1 Q0 d3 1 3 b\nq1 Q0 d1 2 2 b\nq2 Q0 d1 1 2 b\nq3 Q0 d2 1 2 b\nq3 Q0 d5 2 1 b\n"

HEAVY = {"report", "plot"}  # evaluation of every cutoff, paired tests: slower than the rest


def _command(name: str, target: str) -> list[str]:
    common = ["q.txt", "a.run", "b.run", "-m", "map", "ndcg@3", "--quiet"]
    if name == "eval":
        return ["eval", *common, "-f", "csv", "-o", target]
    if name == "compare":
        return ["compare", *common, "-f", "markdown", "--seed", "1", "-o", target]
    if name == "report":
        return ["report", *common, "--seed", "1", "-o", target]
    return ["plot", *common, "--kind", "distribution", "-f", "svg", "-o", target]


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "a.run").write_text(RUN_A)
    (tmp_path / "b.run").write_text(RUN_B)
    return tmp_path


def _reference(cli, inputs: Path, name: str) -> bytes:
    outcome = cli(_command(name, "ref.out"), cwd=inputs)
    assert outcome.status == 0, outcome.err
    return (inputs / "ref.out").read_bytes()


COMMANDS = [pytest.param(name, marks=[pytest.mark.slow] if name in HEAVY else [])
            for name in ("eval", "compare", "report", "plot")]


@pytest.mark.parametrize("name", ["eval", "compare", "report", "plot"])
def test_dev_null_is_written_not_replaced(cli, inputs: Path, name: str) -> None:
    before = os.stat("/dev/null")
    outcome = cli(_command(name, "/dev/null"), cwd=inputs)
    assert outcome.status == 0, outcome.err
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino


@pytest.mark.parametrize("name", ["eval", "compare", "report", "plot"])
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_a_full_device_is_an_error_with_one_line(cli, inputs: Path, name: str) -> None:
    outcome = cli(_command(name, "/dev/full"), cwd=inputs)
    assert outcome.status == 1
    assert outcome.err == "rankwise: error: /dev/full: cannot write: no space left on device\n"


@pytest.mark.parametrize("name", COMMANDS)
def test_a_fifo_gets_the_output(cli, inputs: Path, name: str) -> None:
    expected = _reference(cli, inputs, name)
    fifo = inputs / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as stream:
            received.append(stream.read())

    reader = threading.Thread(target=read)
    reader.start()
    outcome = cli(_command(name, "pipe"), cwd=inputs)
    reader.join(30)
    assert outcome.status == 0, outcome.err
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    if name == "report":  # the report records its output's date: compare its size only
        assert abs(len(received[0]) - len(expected)) < 200
    elif name == "plot":  # an SVG carries its date and random element ids
        def shape(svg: bytes) -> bytes:
            return re.sub(rb'(<dc:date>[^<]*</dc:date>|id="[^"]*"|#[0-9a-z]{10,}\b)', b"", svg)

        assert shape(received[0]) == shape(expected)
    else:
        assert received == [expected]


@pytest.mark.parametrize("name", COMMANDS)
def test_a_symbolic_link_keeps_pointing_at_the_written_file(cli, inputs: Path, name: str) -> None:
    (inputs / "out").mkdir()
    real = inputs / "out" / "real.file"
    real.write_text("old\n")
    (inputs / "link.file").symlink_to(Path("out") / "real.file")
    outcome = cli(_command(name, "link.file"), cwd=inputs)
    assert outcome.status == 0, outcome.err
    assert (inputs / "link.file").is_symlink()
    assert os.readlink(inputs / "link.file") == os.path.join("out", "real.file")
    assert real.read_bytes() != b"old\n" and len(real.read_bytes()) > 10
    assert sorted(p.name for p in (inputs / "out").iterdir()) == ["real.file"]


@pytest.mark.parametrize("name", COMMANDS)
def test_an_existing_private_file_stays_private(cli, inputs: Path, name: str) -> None:
    target = inputs / "private.file"
    target.write_text("old\n")
    target.chmod(0o600)
    outcome = cli(_command(name, "private.file"), cwd=inputs)
    assert outcome.status == 0, outcome.err
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert target.read_bytes() != b"old\n"


def test_a_failed_write_keeps_the_old_file_and_exits_1(
    cli, inputs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = inputs / "out.csv"
    target.write_text("old\n")

    def full(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    outcome = cli(_command("eval", "out.csv"), cwd=inputs)
    monkeypatch.undo()
    assert outcome.status == 1
    assert outcome.err == ("rankwise: error: out.csv: cannot write: no space left on device\n")
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in inputs.iterdir()) == ["a.run", "b.run", "out.csv", "q.txt"]


# -- an output that is an input (issue 33, item 15) -----------------------------------------

RECS_TEST = "user,item\n1,c\n2,a\n3,e\n"
RECS_LISTS = "user,item,score\n1,a,0.9\n1,c,0.8\n2,a,0.5\n3,e,0.2\n"

# every command that writes a file: its command line ({out}: the output) and the input aimed at
WRITERS = {
    "eval": (["eval", "q.txt", "a.run", "-m", "map", "-o", "{out}"], "q.txt"),
    "compare": (["compare", "q.txt", "a.run", "b.run", "-m", "map", "-o", "{out}"], "b.run"),
    "report": (["report", "q.txt", "a.run", "b.run", "-m", "map", "-o", "{out}"], "a.run"),
    "plot": (["plot", "q.txt", "a.run", "b.run", "-f", "svg", "-o", "{out}"], "q.txt"),
    "fuse": (["fuse", "a.run", "b.run", "-o", "{out}"], "a.run"),
    "fuse --qrels": (["fuse", "a.run", "b.run", "--qrels", "q.txt", "-o", "{out}"], "q.txt"),
    "recs": (["recs", "test.csv", "recs.csv", "-o", "{out}"], "recs.csv"),
    "recs --html": (["recs", "test.csv", "recs.csv", "--train", "test.csv", "--html", "{out}"],
                    "test.csv"),
    "design": (["design", "q.txt", "a.run", "b.run", "-m", "map", "-o", "{out}"], "b.run"),
    "explain": (["explain", "q.txt", "a.run", "-m", "ndcg@10", "--between", "trec_eval",
                 "sklearn", "-o", "{out}"], "a.run"),
}


@pytest.fixture
def all_inputs(inputs: Path) -> Path:
    (inputs / "test.csv").write_text(RECS_TEST)
    (inputs / "recs.csv").write_text(RECS_LISTS)
    return inputs


@pytest.mark.parametrize("how", ["same name", "symbolic link", "hard link"])
@pytest.mark.parametrize("name", list(WRITERS))
def test_an_output_that_is_an_input_is_refused(cli, all_inputs: Path, name: str,
                                               how: str) -> None:
    template, aimed = WRITERS[name]
    before = {p.name: p.read_bytes() for p in all_inputs.iterdir()}
    out = aimed
    if how == "symbolic link":
        out = "link.out"
        (all_inputs / out).symlink_to(aimed)
    elif how == "hard link":
        out = "hard.out"
        os.link(all_inputs / aimed, all_inputs / out)
    option = "--html" if "--html" in template else "-o"
    outcome = cli([out if arg == "{out}" else arg for arg in template] + ["--quiet"],
                  cwd=all_inputs)
    same = "" if how == "same name" else " (another name for it: the same device and inode)"
    assert outcome.err == (f"rankwise: error: {option} {out} is the input {aimed}{same}: writing "
                           "it would replace a file being read; write to another file\n")
    assert outcome.status == 1
    assert outcome.out == b""
    assert {p.name: p.read_bytes() for p in all_inputs.iterdir() if p.name in before} == before
    assert not [p.name for p in all_inputs.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("tail", ["/", "/."])
@pytest.mark.parametrize("name", list(WRITERS))
def test_an_output_name_ending_with_a_slash_is_refused(cli, all_inputs: Path, name: str,
                                                       tail: str) -> None:
    """``-o a.run/`` names a folder: it wrote a file ``a.run``, over the input (a review)."""
    template, aimed = WRITERS[name]
    before = {p.name: p.read_bytes() for p in all_inputs.iterdir()}
    for out in (aimed + tail, "new" + tail):
        outcome = cli([out if arg == "{out}" else arg for arg in template] + ["--quiet"],
                      cwd=all_inputs)
        assert outcome.err == f"rankwise: error: {out}: names a folder, expected a file name\n"
        assert outcome.status == 1
        assert {p.name: p.read_bytes() for p in all_inputs.iterdir()} == before


def test_every_file_argument_of_every_command_is_known(all_inputs: Path) -> None:
    """The guard knows each command's inputs and outputs: a new one cannot be forgotten."""
    import argparse

    from rankwise.cli._output import FILES
    from rankwise.cli.app import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for command, sub in commands.choices.items():
        dests = {a.dest for a in sub._actions}
        positional = {a.dest for a in sub._actions if not a.option_strings}
        inputs, outputs = FILES.get(command, ((), ()))
        assert set(inputs) | set(outputs) <= dests, command
        if command in ("measures", "trec-eval"):  # names of measures; trec_eval's own line
            continue
        assert positional <= set(inputs), command
        assert dests & {"output", "html"} == set(outputs), command
    assert set(FILES) == {"eval", "compare", "report", "plot", "fuse", "recs", "design",
                          "explain", "guide"}


def _rankwise(*args: str, **kwargs: object) -> subprocess.CompletedProcess[bytes]:
    src = str(Path(__file__).resolve().parents[2] / "src")
    return subprocess.run([sys.executable, "-m", "rankwise", *args], capture_output="stdout"
                          not in kwargs, check=False, env={**os.environ, "PYTHONPATH": src},
                          **kwargs)  # type: ignore[call-overload]


def test_standard_output_appended_to_an_input_is_refused(all_inputs: Path) -> None:
    before = (all_inputs / "a.run").read_bytes()
    with open(all_inputs / "a.run", "ab") as stream:
        done = _rankwise("fuse", "a.run", "b.run", cwd=all_inputs, stdout=stream,
                         stderr=subprocess.PIPE)
    assert done.returncode == 1
    assert done.stderr.decode() == (
        "rankwise: error: standard output is the input a.run (redirected to it): writing it "
        "would replace a file being read; write to another file\n")
    assert (all_inputs / "a.run").read_bytes() == before


def test_an_output_read_as_standard_input_is_refused(all_inputs: Path) -> None:
    before = (all_inputs / "a.run").read_bytes()
    with open(all_inputs / "a.run", "rb") as stream:
        done = _rankwise("eval", "q.txt", "-", "-m", "map", "-o", "a.run", cwd=all_inputs,
                         stdin=stream)
    assert done.returncode == 1
    assert done.stderr.decode() == (
        "rankwise: error: -o a.run is standard input (read from that file): writing it would "
        "replace a file being read; write to another file\n")
    assert (all_inputs / "a.run").read_bytes() == before


def test_two_outputs_naming_one_file_are_refused(cli, all_inputs: Path) -> None:
    outcome = cli(["recs", "test.csv", "recs.csv", "-o", "out.html", "--html", "out.html"],
                  cwd=all_inputs)
    assert outcome.status == 1
    assert outcome.err == ("rankwise: error: -o out.html and --html out.html are the same "
                           "file; give each its own file\n")
    assert not (all_inputs / "out.html").exists()


def test_another_file_is_written(cli, all_inputs: Path) -> None:
    """The guard compares files, not names: a copy of an input is not the input."""
    (all_inputs / "copy.run").write_bytes((all_inputs / "a.run").read_bytes())
    outcome = cli(["fuse", "a.run", "b.run", "-o", "copy.run"], cwd=all_inputs)
    assert outcome.status == 0, outcome.err
    assert (all_inputs / "copy.run").read_text().startswith("q1 Q0 ")
    assert (all_inputs / "copy.run").read_bytes() != (all_inputs / "a.run").read_bytes()


# -- standard output that cannot be written (issue 33, item 23) -------------------------------

FULL = [
    (["eval", "q.txt", "a.run", "-m", "map"], "rankwise: error: "),
    (["eval", "q.txt", "a.run", "-m", "map", "-o", "-"], "rankwise: error: "),
    (["fuse", "a.run", "b.run"], "rankwise: error: "),
    (["demo"], "rankwise: error: "),
    (["measures"], "rankwise: error: "),
    (["--help"], "rankwise: error: "),
    (["eval", "--help"], "rankwise: error: "),
    (["trec-eval", "q.txt", "a.run"], "rankwise trec-eval: "),
    (["trec-eval", "-h"], "rankwise trec-eval: "),
]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
@pytest.mark.parametrize(("args", "prefix"), FULL, ids=[" ".join(a) for a, _ in FULL])
def test_a_full_standard_output_is_named(all_inputs: Path, args: list[str], prefix: str) -> None:
    with open("/dev/full", "wb") as full:
        done = _rankwise(*args, cwd=all_inputs, stdout=full, stderr=subprocess.PIPE)
    assert done.returncode != 0
    assert done.stderr.decode() == (
        f"{prefix}standard output: cannot write: no space left on device\n")


# -- the Python writers: Report.save and save_figure ---------------------------------------


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory):
    from rankwise.reporting import build_report

    folder = tmp_path_factory.mktemp("report")
    (folder / "q.txt").write_text(QRELS)
    (folder / "a.run").write_text(RUN_A)
    (folder / "b.run").write_text(RUN_B)
    return build_report(folder / "q.txt", [folder / "a.run", folder / "b.run"], ["map"], seed=1)


@pytest.fixture(scope="module")
def figure():
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    figure = Figure(figsize=(2, 2))
    figure.add_subplot().plot([0, 1], [1, 0])
    return figure


def _save(kind: str, report, figure, target: str | Path) -> None:
    if kind == "Report.save":
        report.save(target)
    else:
        from rankwise.report.export import save_figure

        save_figure(figure, target, fmt="svg")


@pytest.mark.parametrize("kind", ["Report.save", "save_figure"])
def test_python_writers_follow_the_same_rules(kind: str, report, figure, tmp_path: Path) -> None:
    before = os.stat("/dev/null")
    _save(kind, report, figure, "/dev/null")
    assert os.stat("/dev/null").st_ino == before.st_ino
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    if os.path.exists("/dev/full"):
        with pytest.raises(OSError) as caught:
            _save(kind, report, figure, "/dev/full")
        assert caught.value.errno == errno.ENOSPC
    private = tmp_path / "private.out"
    private.write_text("old\n")
    private.chmod(0o600)
    _save(kind, report, figure, private)
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    link = tmp_path / "link.out"
    link.symlink_to(private)
    _save(kind, report, figure, link)
    assert link.is_symlink() and os.readlink(link) == str(private)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.out", "private.out"]


# -- a signal during -o (issue 13 item 31, issue 33 item 16) ----------------------------------

SLOW_WRITER = textwrap.dedent("""
    import resource, signal, sys, time
    sys.path.insert(0, {src!r})
    import rankwise.report.tables as tables
    from rankwise.cli import main

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # SIGQUIT: no core file
    # as a shell with job control starts it: a script's background job (`cmd &`) inherits
    # SIGQUIT and SIGINT ignored, and `nohup` SIGHUP, and an ignored signal rightly stays
    # ignored
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    original = tables.write_chunks

    def slow(*args, **kwargs):
        pieces = original(*args, **kwargs)
        yield next(pieces)
        open({ready!r}, "w").close()
        time.sleep(60)
        yield from pieces

    tables.write_chunks = slow
    sys.exit(main(["eval", "q.txt", "a.run", "-m", "map", "--per-query", "-o", "out.tsv"]))
""")


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
@pytest.mark.parametrize("name", ["SIGHUP", "SIGTERM", "SIGQUIT", "SIGINT"])
def test_a_signal_during_eval_o_leaves_no_temporary_file(tmp_path: Path, name: str) -> None:
    import signal

    how = getattr(signal, name)
    src = str(Path(__file__).resolve().parents[2] / "src")
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "a.run").write_text(RUN_A)
    (tmp_path / "out.tsv").write_text("old\n")
    ready = tmp_path / "ready"
    child = subprocess.Popen(
        [sys.executable, "-c", SLOW_WRITER.format(src=src, ready=str(ready))],
        cwd=tmp_path, stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    while not ready.exists():
        assert child.poll() is None, child.stderr.read() if child.stderr else b""
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert any(p.name.startswith(".out.tsv.") for p in tmp_path.iterdir())
    child.send_signal(how)
    child.wait(60)
    assert child.stderr is not None
    err = child.stderr.read().decode()
    if how == signal.SIGINT:  # Ctrl-C: the command's own exit
        assert (child.returncode, err) == (130, "\nrankwise: interrupted\n")
    else:  # the others end it as they would have: the shell sees 128 + N
        assert (child.returncode, err) == (-how, "")
    assert (tmp_path / "out.tsv").read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.run", "out.tsv", "q.txt", "ready"]
