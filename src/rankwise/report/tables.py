r"""Tables as text: one logical table, seven renderings (``Results.to_table``, the CLI).

A :class:`Table` is a header, the kind of each column (``"text"``,
``"float"`` or ``"int"``) and its cells (``str``, ``float``, ``int`` or
``None`` for a value that does not exist): a list of rows, or blocks of
columns produced on demand (:attr:`Table.blocks`), so that a table of ten
million rows is written in pieces, its memory independent of its length.
Each writer turns it into text, piece by piece (:func:`write_chunks`):

========  ===============================================================
table     aligned columns for a terminal; floats with ``digits`` decimals
tsv       tab separated, a header line, floats at full precision
csv       RFC 4180 (quoted when needed), a header line, full precision
json      one JSON array of objects (one per row); NaN and missing -> null
jsonl     one JSON object per line (same objects as ``json``)
markdown  a GitHub pipe table, numbers right-aligned, ``digits`` decimals
latex     a ``booktabs`` tabular, numbers right-aligned, ``digits`` decimals
========  ===============================================================

Numbers are right-aligned and text left-aligned in every format that aligns
(``table``, ``markdown``, ``latex``).

Full precision is Python's shortest round-trip ``repr`` of the float64, so
reading a TSV, CSV or JSON output back gives the exact values. In the text
formats (``tsv``, ``csv``) a NaN is written ``NaN`` and a missing value as an
empty field.

Text cells (run names, query ids) are written so that they cannot act as
anything but text:

- ``csv`` and ``tsv``: a text cell that a spreadsheet would read as a formula
  (it starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return, and
  is not a plain number such as ``-1``) gets a leading ``'`` (OWASP's rule
  against formula injection, :func:`spreadsheet_text`); numbers are never
  changed;
- ``tsv`` has no quoting: a tab, newline, carriage return or backslash inside
  a cell is written as ``\t``, ``\n``, ``\r`` or ``\\`` (the escapes of
  PostgreSQL's text format and of most TSV readers);
- ``markdown``: ``&``, ``<`` and ``>`` are written as HTML entities (no live
  HTML), and ``\``, ``|``, backquotes and square brackets are
  backslash-escaped (no cell break, code span or link); a line break becomes
  a space;
- ``latex``: every special character is escaped (``\ & % $ # _ { } ~ ^ < > |``),
  line breaks become spaces and other control characters are dropped;
- ``table`` (a terminal): control characters (line breaks, tabs, escape
  sequences) are shown as ``\n``, ``\t``, ``\x1b``, never sent to the terminal.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from rankwise.exceptions import InvalidParameterError
from rankwise.suggest import did_you_mean

__all__ = [
    "BLOCK_CELLS",
    "FORMATS",
    "Table",
    "block_rows",
    "html_table",
    "latex_comment",
    "latex_escape",
    "markdown_escape",
    "render",
    "spreadsheet_text",
    "terminal_escape",
    "write_chunks",
]

Cell = str | float | int | None
Column = Sequence[Cell] | Any  # a list of cells, or a numpy array of numbers
Block = Sequence[Column]

BLOCK_CELLS = 1 << 18
"""Cells formatted at a time when a table is produced in blocks (a few tens of MB at most)."""


def block_rows(columns: int) -> int:
    """Rows per block for a table of *columns* columns (:data:`BLOCK_CELLS` cells, >= 256 rows)."""
    return max(256, BLOCK_CELLS // max(columns, 1))


@dataclass(frozen=True)
class Table:
    """Rows and columns to print.

    Parameters
    ----------
    header : sequence of str
        Column names.
    kinds : sequence of {"text", "float", "int"}
        How each column's values are formatted (and aligned: text left,
        numbers right). A ``float`` or ``int`` column may hold pre-formatted
        numbers as ``str`` (printed as they are, aligned as numbers).
    rows : list of list
        Cells: ``str``, ``float``, ``int``, or ``None`` for no value.
    blocks : callable, optional
        Instead of *rows*: ``blocks()`` returns a new iterator of blocks, each
        a list of columns of equal length (lists of cells, or numpy arrays for
        number columns). Called once per pass over the table (twice for the
        aligned formats), so the whole table never has to be in memory.
    """

    header: Sequence[str]
    kinds: Sequence[str]
    rows: list[list[Cell]] = field(default_factory=list)
    blocks: Callable[[], Iterable[Block]] | None = None

    def __post_init__(self) -> None:
        if len(self.header) != len(self.kinds):
            raise InvalidParameterError(
                f"a table needs one kind per column: {len(self.header)} columns, "
                f"{len(self.kinds)} kinds"
            )

    def column_blocks(self) -> Iterator[Block]:
        """The cells, a block of columns at a time."""
        if self.blocks is not None:
            for block in self.blocks():
                if len(block) and len(block[0]):
                    yield block
            return
        step = block_rows(len(self.header))
        for start in range(0, len(self.rows), step):
            yield [list(column) for column in zip(*self.rows[start:start + step])]


# --------------------------------------------------------------------------
# cells
# --------------------------------------------------------------------------


def _is_nan(value: Cell) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _whole(value: Cell) -> bool:
    """Whether an ``int`` column shows *value* as an integer (a number, not NaN or infinite)."""
    return isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))


def _short(value: Cell, kind: str, digits: int) -> str:
    """A cell for people: floats rounded to *digits* decimals."""
    if value is None:
        return ""
    if kind == "int" and _whole(value):
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
    if kind == "int" and _whole(value):
        return str(int(value))
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return float.__repr__(value)
    return str(value)


def _json_text(value: Cell, kind: str) -> str:
    """A cell as JSON text (``json.dumps`` of the value, NaN and infinities as null)."""
    import json  # only the json formats need it

    if value is None or _is_nan(value):
        return "null"
    if kind == "int" and isinstance(value, (int, float)):
        if isinstance(value, float) and math.isinf(value):
            return "null"
        return str(int(value))
    if isinstance(value, float):
        return "null" if math.isinf(value) else float.__repr__(value)
    if isinstance(value, (int, bool)):
        return json.dumps(value)
    return json.dumps(value, ensure_ascii=False)


def _is_array(column: Column) -> bool:
    return hasattr(column, "dtype") and hasattr(column, "tolist")


def _numbers(column: Column, kind: str, digits: int | None) -> list[str]:
    """Format a column of numbers (a numpy array: one pass in C where possible)."""
    import numpy as np

    array = np.asarray(column)
    if array.dtype.kind not in "fiub":
        values = array.tolist()
        if digits is None:
            return [_exact(v, kind) for v in values]
        return [_short(v, kind, digits) for v in values]
    values = array.astype(np.float64)
    if kind == "int":  # integers as int64 holds them; the rest one by one below
        done = np.abs(values) < 2.0 ** 63  # False for NaN too
        text = list(map(str, np.where(done, values, 0).astype(np.int64).tolist()))
    else:
        done = np.isfinite(values)
        text = list(map(float.__repr__ if digits is None else f"%.{digits}f".__mod__,
                        values.tolist()))
    if not done.all():
        for index in np.flatnonzero(~done).tolist():
            value = float(values[index])
            text[index] = _exact(value, kind) if digits is None else _short(value, kind, digits)
    return text


def _cells(column: Column, kind: str, digits: int | None) -> list[str]:
    """The text of each cell of a column: *digits* decimals, or exact when None."""
    if kind != "text" and _is_array(column):
        return _numbers(column, kind, digits)
    if kind == "text" and set(map(type, column)) <= {str}:
        return list(column)  # text as it is: no call per cell
    if digits is None:
        return [_exact(v, kind) for v in column]
    return [_short(v, kind, digits) for v in column]


# --------------------------------------------------------------------------
# escapes, per format
# --------------------------------------------------------------------------

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_LINE_BREAKS = re.compile(r"\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")

# what each escape of a cell can change: a column none of whose cells holds one is written as
# it is (the column joined, searched once), else each cell is escaped
_ESCAPED_BY = {
    "terminal": _CONTROL,
    "markdown": re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\\|`\[\]&<>]"),
    "latex": re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\\&%$#_{}~^<>|]"),
}


def terminal_escape(text: str) -> str:
    r"""Control characters shown, never sent to the terminal.

    Examples
    --------
    >>> print(terminal_escape("a\tb\nc\x1b[31m"))
    a\tb\nc\x1b[31m
    """
    if not _CONTROL.search(text):
        return text

    def shown(match: re.Match[str]) -> str:
        char = match.group()
        return {"\t": "\\t", "\n": "\\n", "\r": "\\r"}.get(char, repr(char)[1:-1])

    return _CONTROL.sub(shown, text)


_TSV_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _tsv_escape(cell: str) -> str:
    r"""A cell TSV can hold: tab, newline, carriage return and backslash escaped.

    Examples
    --------
    >>> print(_tsv_escape("a\tb\\c"))
    a\tb\\c
    """
    return cell.translate(_TSV_ESCAPES)


_PLAIN_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def spreadsheet_text(cell: str) -> str:
    """A text cell a spreadsheet will not run as a formula (a leading ``'`` when it could).

    The one rule of every text output a spreadsheet opens (``csv``, ``tsv``,
    ndeval's CSV): a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab
    or a carriage return and is not a plain number (OWASP's rule against
    formula injection). Numbers are never changed.

    Examples
    --------
    >>> spreadsheet_text("=HYPERLINK(1)"), spreadsheet_text("@SUM(A1)"), spreadsheet_text("-1")
    ("'=HYPERLINK(1)", "'@SUM(A1)", '-1')
    """
    if cell[:1] in ("=", "+", "-", "@", "\t", "\r") and not _PLAIN_NUMBER.fullmatch(cell):
        return "'" + cell
    return cell


_MARKDOWN_ESCAPES = str.maketrans({
    "\\": "\\\\", "|": "\\|", "`": "\\`", "[": "\\[", "]": "\\]",
    "&": "&amp;", "<": "&lt;", ">": "&gt;",
})


def markdown_escape(text: str) -> str:
    r"""Text for a Markdown table cell or paragraph: no live HTML, link, code span or cell break.

    Line breaks and tabs become spaces; other control characters are dropped.

    Examples
    --------
    >>> print(markdown_escape("<img src=x onerror=alert(1)> a|b [x](y)"))
    &lt;img src=x onerror=alert(1)&gt; a\|b \[x\](y)
    """
    text = _CONTROL.sub("", _LINE_BREAKS.sub(" ", text).replace("\t", " "))
    return text.translate(_MARKDOWN_ESCAPES)


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
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}


def latex_escape(text: str) -> str:
    r"""Text that LaTeX prints as it is: specials escaped, line breaks as spaces, controls dropped.

    Examples
    --------
    >>> print(latex_escape("a_b\n\\immediate\\write18{x}"))
    a\_b \textbackslash{}immediate\textbackslash{}write18\{x\}
    """
    text = _CONTROL.sub("", _LINE_BREAKS.sub(" ", text).replace("\t", " "))
    return "".join(_LATEX_SPECIAL.get(char, char) for char in text)


def latex_comment(text: str) -> str:
    r"""One LaTeX comment line: ``% text``, no line break inside that could end it.

    Examples
    --------
    >>> print(latex_comment("run 'a\n\\immediate\\write18{rm -rf x}'"))
    % run 'a \immediate\write18{rm -rf x}'
    """
    return "% " + _CONTROL.sub("", _LINE_BREAKS.sub(" ", text).replace("\t", " "))


# --------------------------------------------------------------------------
# writers: each yields the text in pieces
# --------------------------------------------------------------------------

Writer = Callable[[Table, int], Iterator[str]]


def _escaped(cells: list[str], escape: Callable[[str], str], style: str) -> list[str]:
    """The cells escaped by *escape*: as they are when none holds what it changes."""
    if _ESCAPED_BY[style].search("".join(cells)) is None:
        return cells
    return list(map(escape, cells))


def _aligned_blocks(table: Table, digits: int, escape: Callable[[str], str], style: str
                    ) -> tuple[list[int], Callable[[], Iterator[list[list[str]]]]]:
    """Widths of each column over the whole table, and the cells block by block (2 passes)."""
    def texts() -> Iterator[list[list[str]]]:
        for block in table.column_blocks():
            yield [
                _cells(column, kind, digits) if kind != "text" and _is_array(column)
                else _escaped(_cells(column, kind, digits), escape, style)
                for column, kind in zip(block, table.kinds)
            ]

    widths = [len(escape(name)) for name in table.header]
    for block in table.column_blocks():
        widths = [max(w, _numbers_width(column, kind, digits)
                      if kind != "text" and _is_array(column)
                      else max(map(len, _escaped(_cells(column, kind, digits), escape, style)),
                               default=0))
                  for w, column, kind in zip(widths, block, table.kinds)]
    return widths, texts


def _numbers_width(column: Column, kind: str, digits: int) -> int:
    """The width of the widest cell :func:`_numbers` gives a column, from its extremes alone.

    A number's text grows with its magnitude and a minus sign: the widest cell is
    that of the least or the greatest finite value, of a negative zero
    (``-0.0000``), or of NaN or an infinity.
    """
    import numpy as np

    values = np.asarray(column)
    if values.dtype.kind not in "fiub" or not len(values):
        return max(map(len, _numbers(column, kind, digits)), default=0)
    values = values.astype(np.float64, copy=False)
    finite = np.isfinite(values)
    some = values[finite] if not finite.all() else values
    extremes = [float(some.min()), float(some.max())] if len(some) else []
    if len(some) and np.signbit(some).any():
        extremes.append(-0.0)
    if not finite.all():
        extremes += np.unique(values[~finite]).tolist()  # NaN, inf, -inf: three at most
    return max(map(len, _numbers(np.array(extremes), kind, digits)))


def _padded(columns: list[list[str]], widths: list[int], left: list[bool]
            ) -> Iterator[tuple[str, ...]]:
    """The rows of cells, each cell padded to its column's width: one C call per column."""
    import itertools

    padded = [list(map(str.ljust if is_left else str.rjust, column, itertools.repeat(width)))
              for column, width, is_left in zip(columns, widths, left)]
    return zip(*padded)


def _each_row(lines: Iterable[str], columns: list[list[str]], before: str, after: str) -> str:
    """*before* + line + *after* for the line of each row, joined in C ("" for no row)."""
    if not columns or not columns[0]:
        return ""
    return before + (after + before).join(lines) + after


def _write_table(table: Table, digits: int) -> Iterator[str]:
    widths, texts = _aligned_blocks(table, digits, terminal_escape, "terminal")
    left = [kind == "text" for kind in table.kinds]

    def line(values: Sequence[str]) -> str:
        return "  ".join(
            v.ljust(w) if is_left else v.rjust(w) for v, w, is_left in zip(values, widths, left)
        ).rstrip()

    yield line([terminal_escape(name) for name in table.header]) + "\n"
    yield "  ".join("-" * w for w in widths) + "\n"
    for columns in texts():
        rows = map("  ".join, _padded(columns, widths, left))
        yield _each_row(map(str.rstrip, rows), columns, "", "\n")


# a text column none of whose cells holds one of these (or starts a line with a formula's
# first character) is written as it is: one search over the column, not a call per cell
_TSV_SPECIAL = re.compile(r"[\t\\\r]|^[=+\-@]", re.MULTILINE)
_CSV_SPECIAL = re.compile(r"[,\"\r]|^[=+\-@\t]", re.MULTILINE)


def _plain(cells: list[str], special: re.Pattern[str]) -> bool:
    """Whether no cell needs *special*'s escapes: the cells joined, searched once."""
    joined = "\n".join(cells)
    return joined.count("\n") == len(cells) - 1 and special.search(joined) is None


def _lines(columns: list[list[str]], separator: str) -> str:
    """The rows of the columns' cells, one line each (cells joined in C, no call per row)."""
    text = "\n".join(map(separator.join, zip(*columns)))
    return text + "\n" if text or (columns and len(columns[0])) else ""


def _write_tsv(table: Table, digits: int) -> Iterator[str]:
    yield "\t".join(_tsv_escape(spreadsheet_text(name)) for name in table.header) + "\n"
    for block in table.column_blocks():
        columns = []
        for column, kind in zip(block, table.kinds):
            cells = _cells(column, kind, None)
            if kind == "text" and not _plain(cells, _TSV_SPECIAL):
                cells = [_tsv_escape(spreadsheet_text(c)) for c in cells]
            columns.append(cells)
        yield _lines(columns, "\t")


def _csv_field(cell: str) -> str:
    """RFC 4180: quoted (quotes doubled) when it holds a comma, quote, CR or LF."""
    if any(char in cell for char in ',"\r\n'):
        return '"' + cell.replace('"', '""') + '"'
    return cell


def _write_csv(table: Table, digits: int) -> Iterator[str]:
    yield ",".join(_csv_field(spreadsheet_text(name)) for name in table.header) + "\n"
    for block in table.column_blocks():
        columns = []
        for column, kind in zip(block, table.kinds):
            cells = _cells(column, kind, None)
            if kind == "text" and not _plain(cells, _CSV_SPECIAL):
                cells = [_csv_field(spreadsheet_text(c)) for c in cells]
            elif kind != "text" and not _is_array(column):
                cells = [_csv_field(c) for c in cells]
            columns.append(cells)
        yield _lines(columns, ",")


def _json_columns(block: Block, kinds: Sequence[str]) -> list[list[str]]:
    import numpy as np

    out = []
    for column, kind in zip(block, kinds):
        if kind != "text" and _is_array(column) and np.asarray(column).dtype.kind in "fiub":
            array = np.asarray(column, dtype=np.float64)
            text = _numbers(array, kind, None)
            finite = np.isfinite(array)
            if not finite.all():
                for index in np.flatnonzero(~finite).tolist():
                    text[index] = "null"
            out.append(text)
        elif kind == "text" and set(map(type, column)) <= {str}:
            from json.encoder import encode_basestring  # json.dumps(text, ensure_ascii=False)

            out.append(list(map(encode_basestring, column)))
        else:
            out.append([_json_text(v, kind) for v in column])
    return out


def _write_json(table: Table, digits: int) -> Iterator[str]:
    import json

    keys = ["    " + json.dumps(name, ensure_ascii=False) + ": " for name in table.header]
    first = True
    for block in table.column_blocks():
        keyed = [list(map(key.__add__, column))
                 for key, column in zip(keys, _json_columns(block, table.kinds))]
        if not keyed or not keyed[0]:
            continue
        records = "\n  },\n  {\n".join(map(",\n".join, zip(*keyed)))
        yield ("[\n" if first else ",\n") + "  {\n" + records + "\n  }"
        first = False
    yield "[]\n" if first else "\n]\n"


def _write_jsonl(table: Table, digits: int) -> Iterator[str]:
    import json

    keys = [json.dumps(name, ensure_ascii=False) + ": " for name in table.header]
    for block in table.column_blocks():
        keyed = [list(map(key.__add__, column))
                 for key, column in zip(keys, _json_columns(block, table.kinds))]
        if keyed and keyed[0]:
            yield "{" + "}\n{".join(map(", ".join, zip(*keyed))) + "}\n"


def _write_markdown(table: Table, digits: int) -> Iterator[str]:
    widths, texts = _aligned_blocks(table, digits, markdown_escape, "markdown")
    widths = [max(3, w) for w in widths]
    left = [kind == "text" for kind in table.kinds]

    def line(values: Sequence[str]) -> str:
        parts = [v.ljust(w) if is_left else v.rjust(w)
                 for v, w, is_left in zip(values, widths, left)]
        return "| " + " | ".join(parts) + " |"

    rule = [":" + "-" * (w - 1) if is_left else "-" * (w - 1) + ":"
            for w, is_left in zip(widths, left)]
    yield line([markdown_escape(name) for name in table.header]) + "\n"
    yield "| " + " | ".join(rule) + " |\n"
    for columns in texts():
        yield _each_row(map(" | ".join, _padded(columns, widths, left)), columns, "| ", " |\n")


def _write_latex(table: Table, digits: int) -> Iterator[str]:
    spec = "".join("l" if kind == "text" else "r" for kind in table.kinds)
    yield "\n".join([
        "% needs \\usepackage{booktabs}",
        f"\\begin{{tabular}}{{{spec}}}",
        "\\toprule",
        " & ".join(latex_escape(name) for name in table.header) + " \\\\",
        "\\midrule",
    ]) + "\n"
    for block in table.column_blocks():
        columns = [_escaped(_cells(column, kind, digits), latex_escape, "latex")
                   for column, kind in zip(block, table.kinds)]
        yield _each_row(map(" & ".join, zip(*columns)), columns, "", " \\\\\n")
    yield "\\bottomrule\n\\end{tabular}\n"


FORMATS: dict[str, Writer] = {
    "table": _write_table,
    "tsv": _write_tsv,
    "csv": _write_csv,
    "json": _write_json,
    "jsonl": _write_jsonl,
    "markdown": _write_markdown,
    "latex": _write_latex,
}
"""Writers by format name: ``(table, digits) -> iterator of text pieces``."""


def write_chunks(table: Table, fmt: str, *, digits: int = 4) -> Iterator[str]:
    """Render *table* in format *fmt*, in pieces (a block of rows at a time).

    The memory used does not grow with the number of rows when the table is
    given in :attr:`Table.blocks`: write the pieces to a stream as they come
    (:func:`rankwise.cli._output.write_output` does).

    Raises
    ------
    InvalidParameterError
        An unknown format (raised at once, before any piece).
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
    return "".join(write_chunks(table, fmt, digits=digits))


def html_table(table: Table, *, caption: str = "", digits: int = 4) -> str:
    r"""*table* as an HTML ``<table>`` (a notebook's view of a result): every cell escaped.

    Floats have *digits* decimals, as in the ``table`` format; numbers are
    right-aligned.

    Examples
    --------
    >>> t = Table(["run", "map"], ["text", "float"], [["<b>", 0.25]])
    >>> print(html_table(t, caption="means").replace("><", ">\n<"))
    <table>
    <caption>means</caption>
    <thead>
    <tr>
    <th>run</th>
    <th style="text-align:right">map</th>
    </tr>
    </thead>
    <tbody>
    <tr>
    <td>&lt;b&gt;</td>
    <td style="text-align:right">0.2500</td>
    </tr>
    </tbody>
    </table>
    """
    from html import escape

    def align(kind: str) -> str:
        return "" if kind == "text" else ' style="text-align:right"'

    head = "".join(f"<th{align(kind)}>{escape(str(name))}</th>"
                   for name, kind in zip(table.header, table.kinds))
    body: list[str] = []
    for block in table.column_blocks():
        columns = [_cells(column, kind, digits) for column, kind in zip(block, table.kinds)]
        body.extend("<tr>" + "".join(f"<td{align(kind)}>{escape(cell)}</td>"
                                     for cell, kind in zip(row, table.kinds)) + "</tr>"
                    for row in zip(*columns))
    title = f"<caption>{escape(caption)}</caption>" if caption else ""
    return (f"<table>{title}<thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>")
