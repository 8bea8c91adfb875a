"""``rankwise compare``: paired significance tests between runs; a table ready for a paper."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rankwise.cli.commands.eval import (
    DEFAULT_MEASURES,
    _digits,
    _non_negative_int,
    _output_format,
)
from rankwise.cli.formats import FORMATS
from rankwise.cli.options import add_evaluation_options, add_input_options, probability, seed

if TYPE_CHECKING:
    from rankwise.cli.formats import Table
    from rankwise.comparison import Comparison
    from rankwise.data import Qrels, Run

__all__ = ["add_parser", "long_table", "render_comparison", "run", "run_names", "wide_table"]

_TESTS = ("randomization", "t-test", "wilcoxon", "bootstrap", "sign")
_CORRECTIONS = ("holm", "bonferroni", "bh", "none")
_WIDE_FORMATS = ("table", "markdown", "latex")
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

_DESCRIPTION = """\
Evaluate each RUN against the judgments QRELS and compare them with paired
significance tests, query by query: a table with one row per run and one
column per measure (means), ready for a paper in the markdown and latex
formats.

With --baseline, every other run is compared with the baseline: a marker (†)
on a significant difference, with ▲ or ▼ for its direction. Without it, every
pair of runs: the runs are labelled a, b, c, ... and each mean carries the
letters of the runs it is significantly better than. A legend under the table
names the test, the correction, alpha and the seed that reproduces it.

--long (always for tsv, csv and jsonl) prints one row per measure and run with
every statistic: means, intervals, delta, p-value, corrected p-value, effect
size, wins/ties/losses. json prints the whole comparison.

Inputs as for 'rankwise eval': TREC text (also .gz, .bz2, .xz), Parquet, CSV,
TSV or JSONL; '-' reads standard input (for one of the files)."""

_EPILOG = f"""\
tests: randomization (Fisher's, default; exact when 2^k <= --n-resamples),
  t-test, wilcoxon, bootstrap, sign (aliases such as permutation or t work).
corrections: holm (default), bonferroni, bh (Benjamini-Hochberg), none; applied
  per measure over the runs compared (--family measure) or over everything.
measures: as for 'rankwise eval', aggregated by a mean. Default:
  {' '.join(DEFAULT_MEASURES)}. -m takes one or more values: put it after the files.
names: each run is named by its file name (paths when two file names are the
  same); --names gives the names instead, one per RUN, in order.

examples:
  rankwise compare qrels.txt bm25.run dense.run hybrid.run --baseline bm25.run -m ndcg@10 map
  rankwise compare qrels.txt a.run b.run c.run --names bm25 dense hybrid -m mrr@10 -f latex
  rankwise compare qrels.txt a.run b.run --test t-test --long -f csv -o comparison.csv

exit status: 0 success, 1 bad input, measure or option value (one line on
  stderr says what and where), 2 malformed command line."""

def add_parser(commands: argparse._SubParsersAction) -> None:
    """Register the ``compare`` command."""
    from rankwise.cli.app import add_common_options

    parser = commands.add_parser(
        "compare",
        help="compare runs with paired significance tests: a table for a paper",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("qrels", metavar="QRELS", help="the relevance judgments")
    parser.add_argument("run_a", metavar="RUN_A", help="a run")
    parser.add_argument("run_b", metavar="RUN_B", help="another run")
    parser.add_argument("more_runs", metavar="RUN", nargs="*", help="more runs")
    parser.add_argument("-m", "--measure", dest="measures", metavar="MEASURE", nargs="+",
                        action="extend", help="measures to compare (repeatable)")
    parser.add_argument("--names", metavar="NAME", nargs="+", action="extend",
                        help="names of the runs, one per RUN in order (default: file names)")
    stats = parser.add_argument_group("comparison")
    stats.add_argument("--baseline", metavar="NAME",
                       help="compare every other run with this one (a name, or the RUN as "
                            "given); default: every pair")
    stats.add_argument("--test", default="randomization", metavar="TEST",
                       help=f"paired two-sided test: {', '.join(_TESTS)} "
                            "(default randomization)")
    stats.add_argument("--correction", default="holm", metavar="CORRECTION",
                       help=f"correction for multiple comparisons: {', '.join(_CORRECTIONS)} "
                            "(default holm)")
    stats.add_argument("--family", choices=("measure", "all"), default="measure",
                       help="correct over the runs of each measure (default) or over all "
                            "runs and measures")
    stats.add_argument("--alpha", type=probability, default=0.05, metavar="ALPHA",
                       help="significance level; intervals have confidence 1 - ALPHA "
                            "(default 0.05)")
    stats.add_argument("--n-resamples", type=_non_negative_int, default=10_000, metavar="N",
                       help="resamples of the randomization and bootstrap tests and intervals "
                            "(default 10000)")
    stats.add_argument("--seed", type=seed, default=None, metavar="INT",
                       help="seed of the resampling (default: drawn, and shown in the legend)")
    stats.add_argument("--ci", choices=("t", "bootstrap"), default="t",
                       help="confidence intervals: Student t (default) or bootstrap percentile")
    options = add_evaluation_options(parser, trec_flags=True)
    options.add_argument("-c", "--missing-zero", dest="missing", action="store_const",
                         const="zero", default="skip",
                         help="a judged query absent from a run scores 0 (trec_eval -c); by "
                              "default it is left out, and pairs are compared on the queries "
                              "of both")
    output = parser.add_argument_group("output")
    output.add_argument("--long", action="store_true",
                        help="one row per measure and run with every statistic (always for "
                             "tsv, csv and jsonl)")
    output.add_argument("-f", "--format", choices=list(FORMATS), default=None, metavar="FORMAT",
                        help=f"{', '.join(FORMATS)} (default: from the -o file's extension "
                             "(.tsv .csv .json .jsonl .md .tex), else table)")
    output.add_argument("--digits", type=_digits, default=4, metavar="N",
                        help="decimals in the table, markdown and latex formats (default 4)")
    output.add_argument("--marker", default=None, metavar="TEXT",
                        help="marks a significant difference from the baseline (default †; "
                             "in latex, math: \\dagger)")
    output.add_argument("-o", "--output", metavar="FILE",
                        help="write to FILE (atomically: nothing is left on failure)")
    add_input_options(parser)
    add_common_options(parser)
    parser.set_defaults(handler=run)


# ----------------------------------------------------------------------------
# names
# ----------------------------------------------------------------------------


def run_names(paths: Sequence[str], names: Sequence[str] | None) -> list[str]:
    """Names of the runs: *names*, or the file names (the paths when two are the same).

    Raises
    ------
    InvalidParameterError
        *names* does not give one distinct, non-empty name per run.

    Examples
    --------
    >>> run_names(["runs/bm25.run", "-"], None)
    ['bm25.run', 'stdin']
    >>> run_names(["a/x.run", "b/x.run", "a/x.run"], None)
    ['a/x.run', 'b/x.run', 'a/x.run#2']
    >>> run_names(["a/x.run", "b/x.run"], ["bm25", "dense"])
    ['bm25', 'dense']
    """
    from rankwise.exceptions import InvalidParameterError

    if names is not None:
        if len(names) != len(paths):
            raise InvalidParameterError(
                f"--names gives {len(names)} name{'s' if len(names) != 1 else ''} for "
                f"{len(paths)} runs; give one per RUN, in order"
            )
        if any(not name for name in names):
            raise InvalidParameterError("--names: a run name cannot be empty")
        seen: set[str] = set()
        for name in names:
            if name in seen:
                raise InvalidParameterError(
                    f"--names gives {name!r} twice; each run needs its own name"
                )
            seen.add(name)
        return list(names)
    found = ["stdin" if path == "-" else os.path.basename(path) or path for path in paths]
    if len(set(found)) == len(found):
        return found
    found = list(paths)
    counts: dict[str, int] = {}
    for index, name in enumerate(found):
        counts[name] = counts.get(name, 0) + 1
        if counts[name] > 1:
            found[index] = f"{name}#{counts[name]}"
    return found


def _baseline_name(baseline: str | None, paths: Sequence[str], names: Sequence[str]) -> str | None:
    """The baseline's name; a RUN given as on the command line names it too."""
    if baseline is None or baseline in names:
        return baseline
    matches = [name for path, name in zip(paths, names) if path == baseline]
    return matches[0] if len(matches) == 1 else baseline


# ----------------------------------------------------------------------------
# the wide table (table, markdown, latex)
# ----------------------------------------------------------------------------


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


def _means(comparison: Comparison) -> dict[tuple[str, str], float]:
    """Each system's mean per measure, from the row that compared the most queries.

    Without dropped queries all rows of a system agree; with them (``missing``
    skip and runs that miss different queries) the mean over the most queries
    is shown (the baseline's: all of its evaluated queries).
    """
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


def wide_table(comparison: Comparison, fmt: str, *, digits: int = 4,
               marker: str | None = None) -> str:
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

    Returns
    -------
    str
        The table followed by its legend, ending with a newline.
    """
    from rankwise.cli.formats import Table, render

    latex = fmt == "latex"
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
    if baseline is not None:
        for row in comparison.rows:
            if row.baseline is None or not row.significant:
                continue
            arrow = ""
            if row.delta > 0:
                arrow = _LATEX_UP if latex else _UP
            elif row.delta < 0:
                arrow = _LATEX_DOWN if latex else _DOWN
            suffixes[(row.measure, row.system)] = marker + arrow
    else:
        better: dict[tuple[str, str], set[str]] = {}
        for row in comparison.rows:
            if row.baseline is None or not row.significant or not row.delta:
                continue
            winner, loser = (row.system, row.baseline) if row.delta > 0 else (
                row.baseline, row.system)
            better.setdefault((row.measure, winner), set()).add(loser)
        for key, losers in better.items():
            suffixes[key] = join.join(labels[name] for name in comparison.systems
                                      if name in losers)

    def system_label(name: str) -> str:
        return name if baseline is not None else f"{name} ({labels[name]})"

    if latex:
        return _latex_wide(comparison, systems, measures, means, suffixes, system_label,
                           marker, labels, digits)

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
    table = Table(["system", *measures], ["text"] * (len(measures) + 1))
    for index, name in enumerate(systems):
        table.rows.append([system_label(name), *(column[index] for column in columns)])
    body = render(table, fmt, digits=digits)
    legend = _legend_lines(comparison, marker, labels)
    if fmt == "markdown":
        if baseline is not None and legend:
            legend[0] = _markdown_literal(marker) + legend[0][len(marker):]
        return body + "\n" + "\n\n".join(legend) + "\n"
    return body + "\n" + "\n".join(legend) + "\n"


def _legend_lines(comparison: Comparison, marker: str, labels: dict[str, str],
                  *, latex: bool = False) -> list[str]:
    if comparison.baseline is None:
        names = ", ".join(f"{label} = {name}" for name, label in labels.items())
        return [
            f"letters: significantly better than the run with that letter ({names})",
            comparison.legend,
        ]
    up, down = (f"$^{{{_LATEX_UP}}}$", f"$^{{{_LATEX_DOWN}}}$") if latex else (_UP, _DOWN)
    shown = f"$^{{{marker}}}$" if latex else marker
    return [
        (f"{shown} " if marker else "") + comparison.legend,
        f"{up} higher, {down} lower than {comparison.baseline}",
    ]


def _latex_wide(
    comparison: Comparison, systems: list[str], measures: list[str],
    means: dict[tuple[str, str], float], suffixes: dict[tuple[str, str], str],
    system_label: Any, marker: str, labels: dict[str, str], digits: int,
) -> str:
    from rankwise.cli.formats import _latex_escape

    packages = r"\usepackage{booktabs}"
    if comparison.baseline is not None:
        packages += r" and \usepackage{amssymb}"
    lines = [
        f"% needs {packages}",
        f"\\begin{{tabular}}{{l{'l' * len(measures)}}}",
        "\\toprule",
        " & ".join(_latex_escape(name) for name in ["system", *measures]) + " \\\\",
        "\\midrule",
    ]
    for name in systems:
        cells = [_latex_escape(system_label(name))]
        for measure in measures:
            cell = _number_text(means.get((measure, name), math.nan), digits)
            suffix = suffixes.get((measure, name), "")
            if suffix and comparison.baseline is None:
                cell += f"$^{{\\mathrm{{{suffix}}}}}$"
            elif suffix:
                cell += f"$^{{{suffix}}}$"
            cells.append(cell)
        lines.append(" & ".join(cells) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    lines += [f"% {line}" for line in _legend_lines(comparison, marker, labels, latex=True)]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------
# the long table (one row per measure and system) and json
# ----------------------------------------------------------------------------

_INT_FIELDS = frozenset({"n_queries", "n_dropped", "wins", "ties", "losses"})
_TEXT_FIELDS = frozenset({"measure", "system", "baseline", "method", "significant"})
_P_FIELDS = frozenset({"p_value", "p_adjusted"})


def _p_text(value: float, digits: int) -> str:
    if value == 0 or value >= 10.0 ** -digits:
        return f"{value:.{digits}f}"
    return f"{value:.1e}"


def long_table(comparison: Comparison, *, for_people: bool = False, digits: int = 4) -> Table:
    """One row per measure and system, with the fields of :class:`ComparisonRow`, in order.

    Missing values (NaN, and what does not apply to the baseline's own row)
    are ``None``; ``significant`` is ``"true"`` or ``"false"``. With
    *for_people*, p-values are pre-formatted with *digits* decimals (or in
    scientific notation when smaller than the last decimal).
    """
    from dataclasses import astuple

    from rankwise.cli.formats import Table
    from rankwise.comparison import ComparisonRow

    fields = list(ComparisonRow.__dataclass_fields__)
    kinds = ["int" if f in _INT_FIELDS else "text" if f in _TEXT_FIELDS else "float"
             for f in fields]
    table = Table(fields, kinds)
    for row in comparison.rows:
        cells: list[Any] = []
        for name, value in zip(fields, astuple(row)):
            if isinstance(value, bool):
                value = "true" if value else "false"
            elif value == "" or (isinstance(value, float) and math.isnan(value)):
                value = None
            elif for_people and name in _P_FIELDS:
                value = _p_text(value, digits)
            cells.append(value)
        table.rows.append(cells)
    return table


def _jsonl(comparison: Comparison) -> str:
    from dataclasses import asdict

    return "".join(json.dumps(_json_safe(asdict(row)), ensure_ascii=False, allow_nan=False)
                   + "\n" for row in comparison.rows)


def _json_safe(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(item) for item in value]
    return value


def render_comparison(comparison: Comparison, fmt: str, *, long: bool = False,
                      digits: int = 4, marker: str | None = None) -> str:
    """Render *comparison* in one of the output formats of ``rankwise compare``.

    ``table``, ``markdown`` and ``latex`` give the wide table with its legend
    (the long table with *long*); ``tsv``, ``csv`` give the long table,
    ``jsonl`` its rows as objects, ``json`` :meth:`Comparison.to_dict`.
    NaN and missing values are empty (``null`` in JSON).
    """
    from rankwise.cli.formats import render

    if fmt == "json":
        return json.dumps(_json_safe(comparison.to_dict()), indent=2, ensure_ascii=False,
                          allow_nan=False) + "\n"
    if fmt == "jsonl":
        return _jsonl(comparison)
    if fmt in _WIDE_FORMATS and not long:
        return wide_table(comparison, fmt, digits=digits, marker=marker)
    people = fmt in _WIDE_FORMATS
    text = render(long_table(comparison, for_people=people, digits=digits), fmt, digits=digits)
    if not people:
        return text
    if fmt == "latex":
        return text + f"% {comparison.legend}\n"
    return text + "\n" + comparison.legend + "\n"


# ----------------------------------------------------------------------------
# the command
# ----------------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    """Run ``rankwise compare`` with parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        From the parser :func:`add_parser` registers.

    Returns
    -------
    int
        0 on success.

    Raises
    ------
    RankwiseError
        Bad input, measure or option value (reported as one line by the caller).
    """
    from rankwise.cli._output import write_output
    from rankwise.cli.commands.eval import _measure_texts, _read
    from rankwise.cli.progress import Progress
    from rankwise.comparison import compare
    from rankwise.exceptions import InvalidParameterError
    from rankwise.io import read_qrels, read_run

    fmt = _output_format(args.format, args.output)
    paths = [args.run_a, args.run_b, *args.more_runs]
    names = run_names(paths, args.names)
    stdin_uses = [args.qrels, *paths].count("-")
    if stdin_uses > 1:
        raise InvalidParameterError(
            f"'-' (standard input) is given {stdin_uses} times; only one file can come from it"
        )
    measures = _measure_texts(args.measures)
    baseline = _baseline_name(args.baseline, paths, names)
    qrels: Qrels = _read(read_qrels, args.qrels, args.qrels_format, args.quiet)  # type: ignore[assignment]
    judged = set(qrels.query_ids)
    runs: dict[str, Run] = {}
    for path, name in zip(paths, names):
        one_run: Run = _read(  # type: ignore[assignment]
            read_run, path, args.run_format, args.quiet, name=name, keep_rank=args.ties == "rank"
        )
        if args.missing == "skip" and judged.isdisjoint(one_run.query_ids):
            raise InvalidParameterError(
                f"run {name!r} and the judgments have no query in common "
                f"(run: {len(one_run.query_ids)} queries, e.g. {list(one_run.query_ids[:3])}; "
                f"judgments: {len(qrels.query_ids)} queries, e.g. {list(qrels.query_ids[:3])})"
            )
        runs[name] = one_run
    what = f"{len(runs)} runs"
    with Progress("comparing", what, enabled=not args.quiet):
        comparison = compare(
            qrels, runs, measures,
            baseline=baseline, test=args.test, correction=args.correction,
            alpha=args.alpha, n_resamples=args.n_resamples, seed=args.seed,
            missing=args.missing, ci=args.ci, family=args.family,
            rel=args.rel, depth=args.depth, judged_only=args.judged_only, ties=args.ties,
        )
    del runs
    if not args.quiet:
        for note in comparison.notes:
            sys.stderr.write(f"rankwise: note: {note}\n")
    text = render_comparison(comparison, fmt, long=args.long, digits=args.digits,
                             marker=args.marker)
    write_output(text, args.output)
    return 0
