r"""Tables as text: one logical table, seven renderings (``Results.to_table``, the CLI).

A :class:`Table` is a header, the kind of each column (``"text"``,
``"float"`` or ``"int"``) and rows of cells (``str``, ``float``, ``int`` or
``None`` for a value that does not exist). Each writer turns it into text:

========  ===============================================================
table     aligned columns for a terminal; floats with ``digits`` decimals
tsv       tab separated, a header line, floats at full precision
csv       RFC 4180 (quoted when needed), a header line, full precision
json      one JSON array of objects (one per row); NaN and missing -> null
jsonl     one JSON object per line (same objects as ``json``)
markdown  a GitHub pipe table, numbers right-aligned, ``digits`` decimals
latex     a ``booktabs`` tabular, ``digits`` decimals, special chars escaped
========  ===============================================================

Full precision is Python's shortest round-trip ``repr`` of the float64, so
reading a TSV, CSV or JSON output back gives the exact values. In the text
formats (``tsv``, ``csv``) a NaN is written ``NaN`` and a missing value as an
empty field. TSV has no quoting: a tab, newline, carriage return or backslash
inside a cell is written as ``\t``, ``\n``, ``\r`` or ``\\`` (the
escapes of PostgreSQL's text format and of most TSV readers).
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rankwise.exceptions import InvalidParameterError
from rankwise.suggest import did_you_mean

__all__ = ["FORMATS", "Table", "render"]

Cell = str | float | int | None


@dataclass(frozen=True)
class Table:
    """Rows and columns to print.

    Parameters
    ----------
    header : sequence of str
        Column names.
    kinds : sequence of {"text", "float", "int"}
        How each column's values are formatted (and aligned).
    rows : list of list
        Cells: ``str``, ``float``, ``int``, or ``None`` for no value.
    """

    header: Sequence[str]
    kinds: Sequence[str]
    rows: list[list[Cell]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if len(self.header) != len(self.kinds):
            raise InvalidParameterError(
                f"a table needs one kind per column: {len(self.header)} columns, "
                f"{len(self.kinds)} kinds"
            )


# --------------------------------------------------------------------------
# cells
# --------------------------------------------------------------------------


def _is_nan(value: Cell) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _short(value: Cell, kind: str, digits: int) -> str:
    """A cell for people: floats rounded to *digits* decimals."""
    if value is None:
        return ""
    if kind == "int" and isinstance(value, (int, float)) and not _is_nan(value):
        return str(int(value))
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return f"{value:.{digits}f}"
    return str(value)


def _exact(value: Cell, kind: str) -> str:
    """A cell for programs: floats at full (round-trip) precision."""
    if value is None:
        return ""
    if kind == "int" and isinstance(value, (int, float)) and not _is_nan(value):
        return str(int(value))
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    return str(value)


def _json_value(value: Cell, kind: str) -> object:
    if value is None or _is_nan(value):
        return None
    if kind == "int" and isinstance(value, (int, float)):
        return int(value)
    if isinstance(value, float) and math.isinf(value):
        return None
    return value


# --------------------------------------------------------------------------
# writers
# --------------------------------------------------------------------------


def _write_table(table: Table, digits: int) -> str:
    cells = [[_short(v, k, digits) for v, k in zip(row, table.kinds)] for row in table.rows]
    widths = [len(name) for name in table.header]
    for row in cells:
        widths = [max(w, len(c)) for w, c in zip(widths, row)]

    def line(values: Sequence[str]) -> str:
        parts = [
            v.ljust(w) if kind == "text" else v.rjust(w)
            for v, w, kind in zip(values, widths, table.kinds)
        ]
        return "  ".join(parts).rstrip()

    lines = [line(list(table.header)), "  ".join("-" * w for w in widths)]
    lines.extend(line(row) for row in cells)
    return "\n".join(lines) + "\n"


def _write_delimited(table: Table, delimiter: str) -> str:
    buffer = io.StringIO()
    if delimiter == "\t":
        rows = [list(table.header)]
        rows += [[_exact(v, k) for v, k in zip(row, table.kinds)] for row in table.rows]
        for row in rows:
            buffer.write("\t".join(_tsv_escape(cell) for cell in row) + "\n")
        return buffer.getvalue()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(table.header)
    for cells in table.rows:
        writer.writerow([_exact(v, k) for v, k in zip(cells, table.kinds)])
    return buffer.getvalue()


_TSV_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _tsv_escape(cell: str) -> str:
    r"""A cell TSV can hold: tab, newline, carriage return and backslash escaped.

    Examples
    --------
    >>> print(_tsv_escape("a\tb\\c"))
    a\tb\\c
    """
    return cell.translate(_TSV_ESCAPES)


def _records(table: Table) -> list[dict[str, object]]:
    return [
        {name: _json_value(v, k) for name, v, k in zip(table.header, row, table.kinds)}
        for row in table.rows
    ]


def _write_json(table: Table, digits: int) -> str:
    return json.dumps(_records(table), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _write_jsonl(table: Table, digits: int) -> str:
    return "".join(
        json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n"
        for record in _records(table)
    )


def _markdown_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _write_markdown(table: Table, digits: int) -> str:
    header = [_markdown_escape(name) for name in table.header]
    cells = [
        [_markdown_escape(_short(v, k, digits)) for v, k in zip(row, table.kinds)]
        for row in table.rows
    ]
    widths = [max(3, len(name)) for name in header]
    for row in cells:
        widths = [max(w, len(c)) for w, c in zip(widths, row)]

    def line(values: Sequence[str]) -> str:
        parts = [
            v.ljust(w) if kind == "text" else v.rjust(w)
            for v, w, kind in zip(values, widths, table.kinds)
        ]
        return "| " + " | ".join(parts) + " |"

    rule = [
        ":" + "-" * (w - 1) if kind == "text" else "-" * (w - 1) + ":"
        for w, kind in zip(widths, table.kinds)
    ]
    lines = [line(header), "| " + " | ".join(rule) + " |"]
    lines.extend(line(row) for row in cells)
    return "\n".join(lines) + "\n"


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(char, char) for char in text)


def _write_latex(table: Table, digits: int) -> str:
    spec = "".join("l" if kind == "text" else "r" for kind in table.kinds)
    lines = [
        "% needs \\usepackage{booktabs}",
        f"\\begin{{tabular}}{{{spec}}}",
        "\\toprule",
        " & ".join(latex_escape(name) for name in table.header) + " \\\\",
        "\\midrule",
    ]
    for row in table.rows:
        lines.append(
            " & ".join(latex_escape(_short(v, k, digits)) for v, k in zip(row, table.kinds))
            + " \\\\"
        )
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines) + "\n"


FORMATS: dict[str, Callable[[Table, int], str]] = {
    "table": _write_table,
    "tsv": lambda table, digits: _write_delimited(table, "\t"),
    "csv": lambda table, digits: _write_delimited(table, ","),
    "json": _write_json,
    "jsonl": _write_jsonl,
    "markdown": _write_markdown,
    "latex": _write_latex,
}
"""Writers by format name: ``(table, digits) -> text``."""


def render(table: Table, fmt: str, *, digits: int = 4) -> str:
    """Render *table* in format *fmt*.

    Parameters
    ----------
    table : Table
        What to print.
    fmt : str
        One of :data:`FORMATS` (``table``, ``tsv``, ``csv``, ``json``,
        ``jsonl``, ``markdown``, ``latex``).
    digits : int, default 4
        Decimals of floats in the ``table``, ``markdown`` and ``latex`` formats.

    Returns
    -------
    str
        The text, ending with a newline.

    Examples
    --------
    >>> t = Table(["run", "map"], ["text", "float"], [["bm25", 0.25], ["dense", 1 / 3]])
    >>> print(render(t, "table"), end="")
    run       map
    -----  ------
    bm25   0.2500
    dense  0.3333
    >>> print(render(t, "csv"), end="")
    run,map
    bm25,0.25
    dense,0.3333333333333333
    """
    try:
        writer = FORMATS[fmt]
    except KeyError:
        known = ", ".join(FORMATS)
        raise InvalidParameterError(
            f"unknown output format {fmt!r}; expected one of {known}"
            + did_you_mean(str(fmt), FORMATS)
        ) from None
    return writer(table, digits)
