"""``rankwise --help`` lists the commands from their summaries, importing none of them."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from rankwise.cli import app
from rankwise.cli.summaries import SUMMARIES

SRC = Path(__file__).parents[2] / "src"


def _listed(parser: argparse.ArgumentParser) -> list[tuple[str, str | None]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return [(choice.dest, choice.help) for choice in action._choices_actions]
    raise AssertionError("no commands")


def test_every_command_has_its_summary_in_order() -> None:
    assert list(SUMMARIES) == list(app.COMMANDS)


def test_the_listing_is_what_the_commands_register() -> None:
    full = app.build_parser()
    assert _listed(app._listing_parser()) == _listed(full)
    assert app._listing_parser().format_help() == full.format_help()
    assert app._listing_parser().format_usage() == full.format_usage()


@pytest.mark.parametrize("args", [["evl"], ["--quiet"], ["--frobnicate"], ["measure", "x"]])
def test_errors_of_a_line_that_runs_no_command_are_the_full_parsers(
        args: list[str]) -> None:
    said = []
    for parser in (app._listing_parser(), app.build_parser()):
        with pytest.raises(app._ParseError) as raised:
            _, unknown = parser.parse_known_args(args)
            if unknown:
                raise app._ParseError(parser, f"unrecognized arguments: {' '.join(unknown)}")
        said.append(raised.value.message)
    assert said[0] == said[1]


def test_the_command_line_outputs_are_those_of_the_full_parser(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Help, a misspelt command and no command: the same text and status either way."""
    def outputs() -> list[tuple[int, str, str]]:
        seen = []
        for args in (["--help"], ["evl"], [], ["--help", "eval"], ["--version"],
                         ["--", "measures"], ["--quiet"]):
            status = app.main(args)
            out, err = capsys.readouterr()
            seen.append((status, out, err))
        return seen

    listed = outputs()
    monkeypatch.setattr(app, "_listing_parser", app.build_parser)
    full = outputs()
    assert listed == full
    assert listed[0][0] == 0 and "fuse runs into one" in listed[0][1]
    assert listed[1][0] == 2 and "invalid choice: 'evl'" in listed[1][2]
    assert listed[2][0] == 2 and "measures" in listed[2][2]


def test_help_before_a_command_lists_every_command(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert app.main(["--help", "eval"]) == 0
    out = capsys.readouterr().out
    assert all(f"    {name}" in out for name in app.COMMANDS)


def test_help_imports_no_command() -> None:
    probe = ("import sys\nfrom rankwise.cli import main\nmain(['--help'])\n"
             "sys.stdout.flush()\n"
             "print(sorted(m for m in sys.modules if m.startswith('rankwise.cli.commands.')))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=False, env={"PYTHONPATH": str(SRC)})
    assert done.returncode == 0, done.stderr
    assert "usage: rankwise" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "[]"
