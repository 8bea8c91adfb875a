"""Writers of the output formats, the trec_eval printer, the progress line, atomic output."""

from __future__ import annotations

import csv
import io
import json
import math
import time
from pathlib import Path

import pytest

from rankwise.cli import progress
from rankwise.cli._output import write_output
from rankwise.cli.trec_printer import format_float
from rankwise.report.tables import FORMATS, Table, render

TABLE = Table(
    ["run", "map", "num_ret", "relstring@3"],
    ["text", "float", "int", "text"],
    [["a|b_&%", 1 / 3, 12.0, "10."], ["x,y", math.nan, 0.0, None]],
)


def test_every_format_has_a_writer() -> None:
    assert list(FORMATS) == ["table", "tsv", "csv", "json", "jsonl", "markdown", "latex"]


def test_table() -> None:
    assert render(TABLE, "table") == (
        "run        map  num_ret  relstring@3\n"
        "------  ------  -------  -----------\n"
        "a|b_&%  0.3333       12  10.\n"
        "x,y        nan        0\n"
    )


def test_digits() -> None:
    assert render(TABLE, "table", digits=2).splitlines()[2] == "a|b_&%  0.33       12  10."


def test_csv_round_trips_exact_values() -> None:
    rows = list(csv.reader(io.StringIO(render(TABLE, "csv"))))
    assert rows[0] == ["run", "map", "num_ret", "relstring@3"]
    assert rows[1] == ["a|b_&%", repr(1 / 3), "12", "10."]
    assert float(rows[1][1]) == 1 / 3
    assert rows[2] == ["x,y", "NaN", "0", ""]


def test_tsv() -> None:
    assert render(TABLE, "tsv") == (
        "run\tmap\tnum_ret\trelstring@3\n"
        f"a|b_&%\t{1 / 3!r}\t12\t10.\n"
        "x,y\tNaN\t0\t\n"
    )


def test_tsv_escapes_tabs_newlines_and_backslashes_inside_a_cell() -> None:
    text = render(Table(["run"], ["text"], [["a\tb\nc\\d\re"]]), "tsv")
    assert text == "run\na\\tb\\nc\\\\d\\re\n"
    assert len(text.splitlines()) == 2


# what a spreadsheet would run as a formula (OWASP), and what it must not touch
FORMULAS = [("=1+1", "'=1+1"), ("+A1", "'+A1"), ("-x", "'-x"), ("@SUM(A1)", "'@SUM(A1)"),
            ("=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"), ("\tx", "'\tx"), ("\rx", "'\rx"),
            ("-1", "-1"), ("+2.5e3", "+2.5e3"), ("-.5", "-.5"), ("q1", "q1"), ("a=b", "a=b")]


def test_tsv_neutralises_formulas_as_csv_does() -> None:
    """Issue 33, item 18: one rule for every text format a spreadsheet opens."""
    table = Table(["=name", "map"], ["text", "float"], [[cell, 0.5] for cell, _ in FORMULAS])
    unescape = {"\\t": "\t", "\\r": "\r"}
    tsv = render(table, "tsv").splitlines()
    cells = [line.rsplit("\t", 1)[0] for line in tsv]
    for escaped, char in unescape.items():
        cells = [cell.replace(escaped, char) for cell in cells]
    assert cells == ["'=name", *(safe for _, safe in FORMULAS)]
    rows = list(csv.reader(io.StringIO(render(table, "csv"), newline="")))
    assert [row[0] for row in rows] == ["'=name", *(safe for _, safe in FORMULAS)]
    assert [line.rsplit("\t", 1)[1] for line in tsv[1:]] == ["0.5"] * len(FORMULAS)


def test_json_and_jsonl_use_null_for_nan_and_missing() -> None:
    records = json.loads(render(TABLE, "json"))
    assert records == [
        {"run": "a|b_&%", "map": 1 / 3, "num_ret": 12, "relstring@3": "10."},
        {"run": "x,y", "map": None, "num_ret": 0, "relstring@3": None},
    ]
    lines = render(TABLE, "jsonl").splitlines()
    assert [json.loads(line) for line in lines] == records


def test_markdown_escapes_pipes_and_html() -> None:
    assert render(TABLE, "markdown") == (
        "| run         |    map | num_ret | relstring@3 |\n"
        "| :---------- | -----: | ------: | :---------- |\n"
        "| a\\|b_&amp;% | 0.3333 |      12 | 10.         |\n"
        "| x,y         |    nan |       0 |             |\n"
    )


def test_latex_escapes_special_characters() -> None:
    text = render(TABLE, "latex")
    assert "\\begin{tabular}{lrrl}" in text
    assert "a\\textbar{}b\\_\\&\\% & 0.3333 & 12 & 10. \\\\" in text
    assert "run & map & num\\_ret & relstring@3 \\\\" in text


def test_unknown_format() -> None:
    with pytest.raises(ValueError, match="unknown output format 'xml'"):
        render(TABLE, "xml")


@pytest.mark.parametrize("value, text", [
    (0.0, "0.0000"), (1.0, "1.0000"), (0.12345, "0.1235"), (0.00005, "0.0001"),
    (0.00015, "0.0001"),  # 0.00015 is stored as 0.000149999...: rounds down, as in C
    (-412.66666666, "-412.6667"), (12.0, "12.0000"), (math.nan, "  -nan"), (-math.nan, "  -nan"),
    (math.inf, "   inf"), (-math.inf, "  -inf"),
])
def test_trec_float_format_is_cs(value: float, text: str) -> None:
    assert format_float(value) == text


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_drawn_on_a_terminal_after_the_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "_DELAY", 0.0)
    monkeypatch.setattr(progress, "_INTERVAL", 0.01)
    stream = FakeTerminal()
    with progress.Progress("reading", __file__, enabled=True, stream=stream):
        time.sleep(0.1)
    text = stream.getvalue()
    assert f"rankwise: reading {__file__}" in text
    assert text.endswith("\r")  # the line is erased at the end


def test_progress_is_silent_for_quick_loads_quiet_and_pipes() -> None:
    stream = FakeTerminal()
    with progress.Progress("reading", __file__, enabled=True, stream=stream):
        pass  # well under a second
    assert stream.getvalue() == ""
    quiet = FakeTerminal()
    with progress.Progress("reading", __file__, enabled=False, stream=quiet):
        pass
    assert quiet.getvalue() == ""
    pipe = io.StringIO()
    with progress.Progress("reading", __file__, enabled=True, stream=pipe):
        pass
    assert pipe.getvalue() == ""


def test_write_output_is_atomic(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old\n")

    write_output("new\n", str(target))
    assert target.read_text() == "new\n"
    with pytest.raises(TypeError):
        write_output(None, str(target))  # type: ignore[arg-type]
    assert target.read_text() == "new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_write_output_to_a_special_file_writes_through(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        write_output("through\n", str(fifo))
        assert os.read(reader, 100) == b"through\n"
    finally:
        os.close(reader)
    assert fifo.is_fifo()
