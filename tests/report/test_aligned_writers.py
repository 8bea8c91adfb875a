"""The aligned writers (table, markdown, latex) and the text columns of every writer pad,
escape and join whole columns at a time (issue 40: no Python call per row); their text must
be what the rule of each format gives cell by cell, row by row. The reference here is that
rule written plainly: each cell formatted, escaped by the public escape function of its
format, padded to its column's width, each row joined."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from rankwise.report.tables import (
    Table,
    latex_escape,
    markdown_escape,
    render,
    terminal_escape,
)

# ids as they come: plain, with the characters each format escapes, controls, spaces at the
# end (the terminal table strips each line's end), empty
TEXT = st.one_of(
    st.sampled_from(["q1", "q10", "", " ", "a  ", "x|y", "<b>", "[l](u)", "50%_$#{}~^",
                     "a\tb", "l1\nl2", "\x1b[31m", "\u2028", "\x85", "a\\b", "`c`", "&amp"]),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6),
)
NUMBER = st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True, width=64),
                   st.integers(-10**6, 10**6).map(float))


def _short(value: object, kind: str, digits: int) -> str:
    """A cell for people, as the module's docstring states it."""
    if value is None:
        return ""
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if kind == "int" and not math.isinf(value):
            return str(int(value))
        return f"{value:.{digits}f}"
    return str(value)


def _reference(table: Table, fmt: str, digits: int) -> str:
    escape = {"table": terminal_escape, "markdown": markdown_escape, "latex": latex_escape}[fmt]
    left = [kind == "text" for kind in table.kinds]
    rows = [[escape(_short(v, kind, digits)) if kind == "text" or fmt == "latex"
             else _short(v, kind, digits) for v, kind in zip(row, table.kinds)]
            for row in table.rows]
    header = [escape(name) for name in table.header]
    if fmt == "latex":
        spec = "".join("l" if is_left else "r" for is_left in left)
        lines = ["% needs \\usepackage{booktabs}", f"\\begin{{tabular}}{{{spec}}}",
                 "\\toprule", " & ".join(header) + " \\\\", "\\midrule"]
        lines += [" & ".join(row) + " \\\\" for row in rows]
        return "\n".join([*lines, "\\bottomrule", "\\end{tabular}"]) + "\n"
    widths = [max([len(name), *(len(row[c]) for row in rows)]) for c, name in enumerate(header)]
    if fmt == "markdown":
        widths = [max(3, w) for w in widths]

    def pad(row: list[str]) -> list[str]:
        return [cell.ljust(w) if is_left else cell.rjust(w)
                for cell, w, is_left in zip(row, widths, left)]

    if fmt == "table":
        lines = ["  ".join(pad(header)).rstrip(), "  ".join("-" * w for w in widths)]
        lines += ["  ".join(pad(row)).rstrip() for row in rows]
    else:
        rule = [":" + "-" * (w - 1) if is_left else "-" * (w - 1) + ":"
                for w, is_left in zip(widths, left)]
        lines = ["| " + " | ".join(pad(header)) + " |", "| " + " | ".join(rule) + " |"]
        lines += ["| " + " | ".join(pad(row)) + " |" for row in rows]
    return "\n".join(lines) + "\n"


@st.composite
def tables(draw: st.DrawFn) -> Table:
    kinds = draw(st.lists(st.sampled_from(["text", "float", "int"]), min_size=1, max_size=4))
    n_rows = draw(st.integers(0, 12))
    rows = [[draw(TEXT) if kind == "text" else draw(NUMBER) for kind in kinds]
            for _ in range(n_rows)]
    header = [draw(TEXT) for _ in kinds]
    return Table(header=header, kinds=kinds, rows=rows)


@settings(max_examples=300)
@given(table=tables(), fmt=st.sampled_from(["table", "markdown", "latex"]),
       digits=st.integers(0, 6))
def test_aligned_writers_give_the_rule_of_each_cell_and_row(table: Table, fmt: str,
                                                             digits: int) -> None:
    assert render(table, fmt, digits=digits) == _reference(table, fmt, digits)


@settings(max_examples=100)
@given(table=tables(), fmt=st.sampled_from(["table", "markdown", "latex"]),
       digits=st.integers(0, 6), cut=st.integers(1, 5))
def test_a_table_in_blocks_is_written_as_its_rows(table: Table, fmt: str, digits: int,
                                                   cut: int) -> None:
    # blocks of columns (numbers as numpy arrays where a column holds no None) as the
    # per-query tables come, cut into pieces of *cut* rows: the same text as the rows
    import numpy as np

    def column(values: list[object], kind: str) -> object:
        if kind != "text" and all(v is not None for v in values):
            return np.array(values, dtype=np.float64)
        return values

    def blocks() -> list[list[object]]:
        pieces = [table.rows[start:start + cut] for start in range(0, len(table.rows), cut)]
        return [[column([row[c] for row in piece], kind) for c, kind in enumerate(table.kinds)]
                for piece in pieces]

    in_blocks = Table(header=table.header, kinds=table.kinds, blocks=blocks)
    assert render(in_blocks, fmt, digits=digits) == _reference(table, fmt, digits)


def test_one_cell_to_escape_among_many_plain_ones_is_escaped_in_each_aligned_format() -> None:
    ids = [f"q{i}" for i in range(1000)]
    for odd, fmt, shown in [("a\tb", "table", "a\\tb"), ("a|b", "markdown", "a\\|b"),
                            ("a_b", "latex", "a\\_b"), ("\x1b[1m", "table", "\\x1b[1m"),
                            ("<i>", "markdown", "&lt;i&gt;"), ("50%", "latex", "50\\%")]:
        cells = list(ids)
        cells[637] = odd
        table = Table(header=["query", "v"], kinds=["text", "float"],
                      rows=[[name, 0.5] for name in cells])
        text = render(table, fmt)
        assert text.count(shown) == 1 and odd not in text.replace(shown, "")
        assert text.count("q999") == 1


def test_an_int_column_shows_infinities_and_integers_past_int64_in_every_form() -> None:
    # an int column (num_ret, num_rel) holding inf crashed the rows form (int(inf)), and
    # 1e20 came out of the array form as -9223372036854775808 (a cast past int64)
    import numpy as np

    values = [3.0, math.inf, -math.inf, 1e20, math.nan]
    exact = ["3", "inf", "-inf", "100000000000000000000", "NaN"]
    short = ["3", "inf", "-inf", "100000000000000000000", "nan"]
    for cells in (values, np.array(values)):
        table = Table(header=["n"], kinds=["int"], blocks=lambda cells=cells: [[cells]])
        assert render(table, "tsv").splitlines()[1:] == exact
        assert [line.strip() for line in render(table, "table").splitlines()[2:]] == short
        assert render(table, "json").count("100000000000000000000") == 1


def test_number_widths_come_from_the_extremes_negative_zero_and_non_finite_values() -> None:
    # the widths of number arrays are taken from their least and greatest values (no
    # formatting pass over every cell): a negative zero, a tiny negative, NaN and -inf
    # are as wide as they print
    import numpy as np

    for values, widest in [([0.0, -0.0, 0.5], "-0.0000"), ([0.25, -1e-9], "-0.0000"),
                           ([1.0, math.nan], "1.0000"), ([1.0, -math.inf], "1.0000"),
                           ([-12.5, 3.0, math.inf], "-12.5000")]:
        table = Table(header=["v"], kinds=["float"], blocks=lambda v=values: [[np.array(v)]])
        lines = render(table, "table").splitlines()
        assert len(lines[1]) == len(widest) and widest in lines[2:]
        assert all(len(line) == len(widest) for line in lines[2:])
