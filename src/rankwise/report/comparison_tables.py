"""A comparison (:class:`~rankwise.comparison.Comparison`) as a table: wide (for a paper) or long.

The wide table has one row per system and one column per measure: means,
with a marker on significant differences from the baseline, or, comparing
all pairs, letters: a compact letter display (systems that share a letter do
not differ; the default for Tukey's HSD) or the letters of the systems each
is better than (the default for paired tests), and a legend.
The long table has one row per measure and system, with every statistic.
"""

from __future__ import annotations

import math
from dataclasses import fields as dataclass_fields
from typing import Any

from rankwise._validation import OneOf, check
from rankwise._wording import format_p, higher_means
from rankwise.report.json_text import json_text
from rankwise.report.protocols import ComparisonLike
from rankwise.report.tables import (
    Table,
    latex_comment,
    latex_escape,
    markdown_escape,
    render,
    terminal_escape,
)

__all__ = ["long_table", "render_comparison", "row_fields", "wide_table"]

_WIDE_FORMATS = ("table", "markdown", "latex")
LETTERS = ("auto", "groups", "better")
"""What the letters of an all-pairs wide table say (see :func:`wide_table`)."""
_UP, _DOWN = "\u25b2", "\u25bc"  # ▲ ▼
_LATEX_UP, _LATEX_DOWN = r"\blacktriangle", r"\blacktriangledown"
_DEFAULT_MARKER = "\u2020"  # †
_LATEX_MARKERS = {
    "\u2020": r"\dagger",
    "\u2021": r"\ddagger",
    "*": "*",
    "\u2217": r"\ast",
    "\u22c6": r"\star",
    "\u2605": r"\star",
    "\u2022": r"\bullet",
    "\u00a7": r"\S",
}
"""Markers given in Unicode and their LaTeX (math mode) spelling."""



def _letters(count: int) -> list[str]:
    alphabet = "abcdefghijklmnopqrstuvwxyz"
    out = []
    for index in range(count):
        label = ""
        index += 1
        while index:
            index, rest = divmod(index - 1, 26)
            label = alphabet[rest] + label
        out.append(label)
    return out


# ----------------------------------------------------------------------------
# the wide table (table, markdown, latex)
# ----------------------------------------------------------------------------


def _means(comparison: ComparisonLike) -> dict[tuple[str, str], float]:
    """Each system's mean per measure over all its evaluated queries (``system_means``).

    A comparison without them (built elsewhere) shows the mean of the row that
    compared the most queries: without dropped queries all rows of a system
    agree.
    """
    own = getattr(comparison, "system_means", None)
    if own:
        return dict(own)
    best: dict[tuple[str, str], tuple[int, float]] = {}

    def offer(measure: str, system: str, n: int, value: float) -> None:
        key = (measure, system)
        if key not in best or n > best[key][0]:
            best[key] = (n, value)

    for row in comparison.rows:
        offer(row.measure, row.system, row.n_queries, row.mean)
        if row.baseline is not None:
            offer(row.measure, row.baseline, row.n_queries, row.baseline_mean)
    return {key: value for key, (_, value) in best.items()}


def _number_text(value: float, digits: int) -> str:
    return "nan" if math.isnan(value) else f"{value:.{digits}f}"


def _latex_marker(marker: str) -> str:
    return _LATEX_MARKERS.get(marker, marker)


def _markdown_literal(text: str) -> str:
    return "".join("\\" + char if char in "\\`*_{}[]<>()#+-.!|" else char for char in text)


def _letter_mode(comparison: ComparisonLike, letters: str) -> str:
    """``groups``, ``better`` or ``baseline`` (markers against the baseline)."""
    check("letters", letters, OneOf(LETTERS))
    if letters == "groups":
        return "groups"
    if comparison.baseline is not None:
        return "baseline"
    if letters == "auto" and comparison.tukey:
        return "groups"
    return "better"


def wide_table(comparison: ComparisonLike, fmt: str, *, digits: int = 4,
               marker: str | None = None, letters: str = "auto") -> str:
    r"""The comparison as a paper's table: one row per system, one column per measure.

    Parameters
    ----------
    comparison : Comparison
        From :func:`rankwise.compare`.
    fmt : {"table", "markdown", "latex"}
        Output format.
    digits : int
        Decimals of the means.
    marker : str, optional
        Marks a significant difference from the baseline (default ``†``,
        ``\dagger`` in LaTeX).
    letters : {"auto", "groups", "better"}
        Comparing all pairs: ``groups`` is a compact letter display (systems
        that share a letter do not differ significantly; ``a`` is the group
        of the highest mean), ``better`` labels the systems a, b, c, ... and
        gives each mean the letters of the systems it is significantly
        better than. ``auto``: ``groups`` for the Tukey tests, ``better``
        otherwise. With a baseline, ``groups`` replaces the markers.

    Returns
    -------
    str
        The table followed by its legend, ending with a newline.
    """
    latex = fmt == "latex"
    mode = _letter_mode(comparison, letters)
    if marker is None:
        marker = _DEFAULT_MARKER
    if latex:
        marker = _latex_marker(marker)
    systems = list(comparison.systems)
    baseline = comparison.baseline
    if baseline is not None:
        systems.remove(baseline)
        systems.insert(0, baseline)
    measures = list(comparison.measures)
    means = _means(comparison)
    labels = {name: label for name, label in zip(comparison.systems,
                                                  _letters(len(comparison.systems)))}
    join = "," if any(len(label) > 1 for label in labels.values()) else ""

    # what each cell carries besides its mean
    suffixes: dict[tuple[str, str], str] = {}
    if mode == "groups":
        for measure in measures:
            for name, text in comparison.letters(measure).items():
                suffixes[(measure, name)] = text
    elif mode == "baseline":
        for row in comparison.rows:
            if row.baseline is None or not row.significant:
                continue
            arrow = ""
            if (row.direction or 0) > 0:  # as the test weighs the differences
                arrow = _LATEX_UP if latex else _UP
            elif (row.direction or 0) < 0:
                arrow = _LATEX_DOWN if latex else _DOWN
            suffixes[(row.measure, row.system)] = marker + arrow
    else:
        better: dict[tuple[str, str], set[str]] = {}
        for row in comparison.rows:
            if row.baseline is None or not row.significant or not row.direction:
                continue
            winner, loser = (row.system, row.baseline) if row.direction > 0 else (
                row.baseline, row.system)
            better.setdefault((row.measure, winner), set()).add(loser)
        for key, losers in better.items():
            suffixes[key] = join.join(labels[name] for name in comparison.systems
                                      if name in losers)

    def system_label(name: str) -> str:
        return name if mode != "better" else f"{name} ({labels[name]})"

    if latex:
        return _latex_wide(comparison, systems, measures, means, suffixes, system_label,
                           marker, labels, digits, mode)

    columns: list[list[str]] = []
    for measure in measures:
        numbers = [_number_text(means.get((measure, name), math.nan), digits)
                   for name in systems]
        width = max(len(text) for text in numbers)
        cells = []
        for name, text in zip(systems, numbers):
            suffix = suffixes.get((measure, name), "")
            cells.append(text.rjust(width) + (" " + suffix if suffix else ""))
        longest = max(len(cell) for cell in cells)
        columns.append([cell.ljust(longest) for cell in cells])
    # numbers are right-aligned, as in every table (the cells are already formatted)
    table = Table(["system", *measures], ["text"] + ["float"] * len(measures))
    for index, name in enumerate(systems):
        table.rows.append([system_label(name), *(column[index] for column in columns)])
    body = render(table, fmt, digits=digits)
    legend = _legend_lines(comparison, marker, labels, mode)
    if fmt == "markdown":
        legend = [markdown_escape(line) for line in legend]
        if mode == "baseline" and legend and marker:
            shown = markdown_escape(marker)
            legend[0] = _markdown_literal(marker) + legend[0][len(shown):]
        return body + "\n" + "\n\n".join(legend) + "\n"
    return body + "\n" + "\n".join(terminal_escape(line) for line in legend) + "\n"


def _legend_lines(comparison: ComparisonLike, marker: str, labels: dict[str, str],
                  mode: str, *, latex: bool = False) -> list[str]:
    unit = getattr(comparison, "unit", "query")  # a recommender comparison's are users
    anova = [f"{name}: two-way ANOVA (system x {unit}) {result.anova.summary()}"
             for name, result in comparison.tukey.items()]
    if mode == "groups":
        return [
            "letters: runs that share a letter do not differ significantly (compact letter "
            "display; a = the group of the highest mean)",
            comparison.significance_legend,
            *anova,
        ]
    if mode == "better":
        names = ", ".join(f"{label} = {name}" for name, label in labels.items())
        return [
            f"letters: significantly better than the run with that letter ({names})"
            f"{higher_means(comparison.test, unit)}",
            comparison.significance_legend,
            *anova,
        ]
    up, down = (f"$^{{{_LATEX_UP}}}$", f"$^{{{_LATEX_DOWN}}}$") if latex else (_UP, _DOWN)
    shown = f"$^{{{marker}}}$" if latex else marker
    return [
        (f"{shown} " if marker else "") + comparison.significance_legend,
        f"{up} higher, {down} lower than {comparison.baseline}"
        f"{higher_means(comparison.test, unit)}",
        *anova,
    ]



def _latex_wide(
    comparison: ComparisonLike, systems: list[str], measures: list[str],
    means: dict[tuple[str, str], float], suffixes: dict[tuple[str, str], str],
    system_label: Any, marker: str, labels: dict[str, str], digits: int, mode: str,
) -> str:
    packages = r"\usepackage{booktabs}"
    if mode == "baseline":
        packages += r" and \usepackage{amssymb}"
    lines = [
        f"% needs {packages}",
        f"\\begin{{tabular}}{{l{'r' * len(measures)}}}",
        "\\toprule",
        " & ".join(latex_escape(name) for name in ["system", *measures]) + " \\\\",
        "\\midrule",
    ]

    def mark(suffix: str) -> str:
        if mode != "baseline":
            return f"$^{{\\mathrm{{{suffix}}}}}$"
        return f"$^{{{suffix}}}$"

    # numbers right-aligned; a cell without a mark gets the widest mark of its
    # column as blank space, so that the numbers stay aligned on their last digit
    widest = {
        measure: max((suffixes.get((measure, name), "") for name in systems), key=len)
        for measure in measures
    }
    for name in systems:
        cells = [latex_escape(system_label(name))]
        for measure in measures:
            cell = _number_text(means.get((measure, name), math.nan), digits)
            suffix = suffixes.get((measure, name), "")
            if suffix:
                cell += mark(suffix)
            elif widest[measure]:
                cell += f"\\phantom{{{mark(widest[measure])}}}"
            cells.append(cell)
        lines.append(" & ".join(cells) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    lines += [latex_comment(line) for line in _legend_lines(comparison, marker, labels, mode,
                                                             latex=True)]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------
# the long table (one row per measure and system) and json
# ----------------------------------------------------------------------------

_INT_FIELDS = frozenset({"n_queries", "n_dropped", "wins", "ties", "losses"})
_TEXT_FIELDS = frozenset({"measure", "system", "baseline", "method", "significant"})
_P_FIELDS = frozenset({"p_value", "p_adjusted"})


def long_table(comparison: ComparisonLike, *, for_people: bool = False, digits: int = 4) -> Table:
    """One row per measure and system, with the fields of :class:`ComparisonRow`, in order.

    Missing values (NaN, and what does not apply to the baseline's own row)
    are ``None``; ``significant`` is ``"true"`` or ``"false"``. With
    *for_people*, p-values are pre-formatted with *digits* decimals (``<0.0001``
    when they round to zero: one format in the whole table).
    """
    fields = row_fields(comparison)
    kinds = ["int" if f in _INT_FIELDS else "text" if f in _TEXT_FIELDS else "float"
             for f in fields]
    table = Table(fields, kinds)
    for row in comparison.rows:
        cells: list[Any] = []
        for name in fields:
            value = getattr(row, name)
            if isinstance(value, bool):
                value = "true" if value else "false"
            elif value == "" or (isinstance(value, float) and math.isnan(value)):
                value = None
            elif for_people and name in _P_FIELDS:
                value = format_p(value, digits)
            cells.append(value)
        table.rows.append(cells)
    return table


def row_fields(comparison: ComparisonLike) -> list[str]:
    """The fields of the comparison's rows, in order (the columns of the long table)."""
    return [field.name for field in dataclass_fields(comparison.row_type)]


def _jsonl(comparison: ComparisonLike) -> str:
    fields = row_fields(comparison)
    return "".join(json_text({name: getattr(row, name) for name in fields}) + "\n"
                   for row in comparison.rows)


def render_comparison(comparison: ComparisonLike, fmt: str, *, long: bool = False,
                      digits: int = 4, marker: str | None = None, letters: str = "auto") -> str:
    """Render *comparison* in one of the table formats (``Comparison.to_table``).

    ``table``, ``markdown`` and ``latex`` give the wide table with its legend
    (the long table with *long*); ``tsv``, ``csv`` give the long table,
    ``jsonl`` its rows as objects, ``json`` :meth:`Comparison.to_dict`.
    NaN and missing values are empty (``null`` in JSON).
    """
    if fmt == "json":
        return json_text(comparison.to_dict(), indent=2) + "\n"
    if fmt == "jsonl":
        return _jsonl(comparison)
    if fmt in _WIDE_FORMATS and not long:
        return wide_table(comparison, fmt, digits=digits, marker=marker, letters=letters)
    people = fmt in _WIDE_FORMATS
    text = render(long_table(comparison, for_people=people, digits=digits), fmt, digits=digits)
    if not people:
        return text
    if fmt == "latex":
        return text + latex_comment(comparison.legend) + "\n"
    if fmt == "markdown":
        return text + "\n" + markdown_escape(comparison.legend) + "\n"
    return text + "\n" + terminal_escape(comparison.legend) + "\n"
