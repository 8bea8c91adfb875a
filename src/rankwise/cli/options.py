"""What the commands share: options, their reading into the library's values, helpers.

``eval``, ``compare``, ``report`` and ``plot`` take the same options for what
changes the numbers (relevance level, depth, missing queries, judged only,
ties), for the engine and for the input formats; they are defined once here,
and read once into an :class:`~rankwise.options.EvalOptions`
(:func:`evaluation_options`). Commands import this module, never each other.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from rankwise._validation import Constraint, Integer, NotAcceptedError, Number
from rankwise.options import (
    CORRECTION_NAMES,
    MISSING_POLICIES,
    TEST_NAMES,
    TIE_POLICIES,
    UNJUDGED_POLICIES,
)

if TYPE_CHECKING:
    from rankwise.options import CompareOptions, EvalOptions, FusionOptions, RecommenderOptions

__all__ = [
    "CORRECTION_NAMES",
    "DEFAULT_MEASURES",
    "INPUT_FORMATS",
    "QRELS_FORMATS",
    "TEST_NAMES",
    "TIE_CHOICES",
    "add_common_options",
    "add_engine_options",
    "add_evaluation_options",
    "add_input_options",
    "add_significance_options",
    "add_unjudged_option",
    "check_no_stdin",
    "columns",
    "compare_options",
    "digits",
    "engine_of",
    "evaluation_options",
    "fusion_options",
    "key_value",
    "measure_texts",
    "non_negative_int",
    "number",
    "output_format",
    "positive_int",
    "probability",
    "reading",
    "recommender_options",
    "seed",
]

INPUT_FORMATS = ("trec", "parquet", "csv", "tsv", "jsonl")
QRELS_FORMATS = (*INPUT_FORMATS, "diversity")
"""Judgments may also be diversity judgments in TREC text (``qid subtopic docno grade``)."""
TIE_CHOICES = TIE_POLICIES


DEFAULT_MEASURES = ("ndcg@10", "map", "mrr", "P@10", "recall@1000")
"""Measures used when ``-m`` is not given."""

_FORMAT_BY_SUFFIX = {
    ".txt": "table",
    ".tsv": "tsv",
    ".csv": "csv",
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".md": "markdown",
    ".tex": "latex",
}


def add_common_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--quiet`` and ``--debug`` to a command's parser."""
    group = parser.add_argument_group("messages")
    group.add_argument("--quiet", action="store_true",
                       help="no warnings and no progress display on standard error")
    group.add_argument("--debug", action="store_true",
                       help="show the full traceback of an error")


def _argument(constraint: Constraint, name: str, doc: str) -> Callable[[str], Any]:
    """An argparse type reading text by a declared constraint (one wording: expected, got)."""

    def read(text: str) -> Any:
        try:
            return constraint.convert(text)
        except NotAcceptedError:
            raise argparse.ArgumentTypeError(
                f"expected {constraint.expected}, got {text!r}") from None

    read.__name__ = read.__qualname__ = name
    read.__doc__ = doc
    return read


positive_int = _argument(Integer(low=1, text=True), "positive_int",
                         "Read an integer >= 1 (an argparse type).")
non_negative_int = _argument(
    Integer(low=0, text=True), "non_negative_int",
    "Read an integer >= 0 (an argparse type); numbers beyond any ranking's length are kept "
    "(a depth that long cuts nothing).")
number = _argument(Number(finite=True, text=True), "number",
                   "Read a finite number (an argparse type).")
digits = _argument(Integer(0, 17, text=True), "digits",
                   "Read a count of decimals, 0 to 17 (an argparse type).")
seed = _argument(Integer(low=0, text=True), "seed",
                 "Read a non-negative integer seed (an argparse type).")
probability = _argument(Number(0, 1, closed="neither", text=True), "probability",
                        "Read a number strictly between 0 and 1 (an argparse type).")
unit_fraction = _argument(Number(0, 1, closed="right", text=True), "unit_fraction",
                          "Read a number in (0, 1] (an argparse type).")


def add_evaluation_options(parser: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """Add the options that change the numbers; return their group.

    One definition for every command that evaluates (``eval``, ``compare``,
    ``report``, ``plot``, ``explain``, ``design``, ``fuse``): ``--rel``,
    ``-M/--depth``, ``--missing`` (and ``-c/--missing-zero``, trec_eval's
    letter for ``--missing zero``), ``-J/--judged-only``, ``--ties``, ``--exclude-self``.
    """
    options = parser.add_argument_group("evaluation")
    options.add_argument("--rel", type=number, metavar="GRADE",
                         help="minimum grade that is relevant (default 1), for the measures "
                              "that take 'rel' and do not set it")
    options.add_argument("-M", "--depth", type=non_negative_int, metavar="K",
                         help="evaluate only the first K documents of each query (trec_eval -M; "
                              "0: every ranking is empty)")
    options.add_argument("--missing", dest="missing", choices=MISSING_POLICIES, default="skip",
                         help="a judged query absent from a run: left out of its means "
                              "(skip, default) or scored as an empty ranking (zero, trec_eval -c)")
    options.add_argument("-c", "--missing-zero", dest="missing", action="store_const",
                         const="zero", help="the same as --missing zero (trec_eval -c)")
    options.add_argument("-J", "--judged-only", action="store_true",
                         help="drop unjudged documents before evaluating (trec_eval -J)")
    options.add_argument(
        "--ties", choices=TIE_CHOICES, default="trec",
        help="order of tied scores: docno descending (trec, default; gdeval, ndeval "
             "-traditional), the expected value over all orders (average), the run's rank "
             "column (rank; ndeval's default), relevant last/first (worst/best), docno "
             "ascending (ascending; pyndeval, compat, ir_measures' Judged)",
    )
    options.add_argument(
        "--exclude-self", action="store_true",
        help="drop a retrieved document whose id is its query's id (BEIR's "
             "ignore_identical_ids, for ArguAna and Quora)",
    )
    return options


def add_significance_options(group: Any) -> None:
    """Add ``--test --correction --alpha --n-resamples --seed``: one vocabulary for every command.

    The names are the library's (:data:`TEST_NAMES`, :data:`CORRECTION_NAMES`);
    the library resolves them and their aliases (``--correction bh``).
    """
    group.add_argument(
        "--test", default="randomization", metavar="TEST",
        help=f"paired two-sided test: {', '.join(TEST_NAMES[:5])} (default randomization; "
             f"aliases such as permutation or t work); every pair at once: "
             f"{', '.join(TEST_NAMES[5:])}")
    group.add_argument(
        "--correction", default="auto", metavar="CORRECTION",
        help=f"correction for multiple comparisons: {', '.join(CORRECTION_NAMES)} "
             "(default holm; none for the Tukey tests; aliases bh, fdr_bh, holm-bonferroni)")
    group.add_argument("--alpha", type=probability, default=0.05, metavar="ALPHA",
                       help="significance level; intervals have confidence 1 - ALPHA "
                            "(default 0.05)")
    group.add_argument("--n-resamples", type=positive_int, default=10_000, metavar="N",
                       help="resamples of the randomization, bootstrap and randomized-tukey "
                            "tests and of bootstrap intervals (default 10000)")
    group.add_argument("--seed", type=seed, default=None, metavar="INT",
                       help="seed of the resampling (default: drawn, and shown in the output)")


def columns(text: str) -> dict[str, str | None]:
    """Read a column map ``role=name,role=name`` (an argparse type).

    The roles are those of :data:`rankwise.options.COLUMN_ROLES`; an empty
    name for ``relevance`` (``relevance=``) says the judgments have none:
    every listed pair is relevant (implicit feedback).

    Examples
    --------
    >>> columns("query_id=user,doc_id=item,score=pred,relevance=")
    {'query_id': 'user', 'doc_id': 'item', 'score': 'pred', 'relevance': None}
    """
    from rankwise.exceptions import InvalidParameterError
    from rankwise.options import COLUMN_ROLES, check_columns

    mapping: dict[str, str | None] = {}
    for item in text.split(","):
        role, sep, name = (part.strip() for part in item.partition("="))
        if not sep or not role:
            raise argparse.ArgumentTypeError(
                f"expected role=column pairs separated by commas (roles: "
                f"{', '.join(COLUMN_ROLES)}), got {item.strip()!r}"
            )
        if role in mapping:
            raise argparse.ArgumentTypeError(f"role {role!r} is given twice")
        mapping[role] = name or None
    try:
        return check_columns(mapping)
    except InvalidParameterError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("columns: ")) from None

def add_unjudged_option(group: Any) -> None:
    """Add ``--unjudged`` (``nonrelevant`` or ``bounds``) to an argument group."""
    group.add_argument(
        "--unjudged", choices=UNJUDGED_POLICIES, default="nonrelevant",
        help="unjudged documents are not relevant (nonrelevant, default); bounds: also "
             "evaluate them as relevant at the top grade and print each measure's high "
             "value and judged@k next to it",
    )


def add_input_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--qrels-format``, ``--run-format`` and ``--columns``."""
    inputs = parser.add_argument_group("inputs")
    inputs.add_argument("--qrels-format", choices=QRELS_FORMATS, default=None, metavar="FORMAT",
                        help=f"format of QRELS: {', '.join(QRELS_FORMATS)} (default: from its "
                             "extension, else trec; diversity: TREC text 'qid subtopic docno "
                             "grade', ndeval's, for the diversity measures)")
    inputs.add_argument("--run-format", choices=INPUT_FORMATS, default=None, metavar="FORMAT",
                        help="format of every RUN (same choices)")
    inputs.add_argument(
        "--columns", type=columns, default=None, metavar="ROLE=NAME,...",
        help="column names of Parquet/CSV/TSV/JSONL inputs, e.g. "
             "query_id=user,doc_id=item,score=pred,relevance=clicked (roles: query_id, doc_id, "
             "relevance, score, rank); 'relevance=' (empty): the judgments have no relevance "
             "column, every listed pair is relevant (implicit feedback); a run with a rank "
             "column and no score is ordered by rank",
    )


def add_engine_options(group: Any) -> None:
    """Add ``--engine`` and the settings each engine declares (``--spark-master``, ...)."""
    from rankwise.engines import engine_class, engine_names

    names = engine_names()
    summaries = [engine_class(name).capabilities.summary or name for name in names]
    group.add_argument("--engine", choices=names, default=names[0],
                       help=f"where to compute: {' or '.join(summaries)}")
    for name in names:
        for setting in engine_class(name).capabilities.settings:
            extra: dict[str, Any] = {"help": setting.help, "default": setting.default}
            if setting.choices:
                extra["choices"] = setting.choices
            if setting.metavar:
                extra["metavar"] = setting.metavar
            if setting.repeated:
                extra.update(action="append", type=key_value)
            elif setting.read is not None:
                extra["type"] = _argument(setting.read, setting.flag.lstrip("-"), setting.help)
            group.add_argument(setting.flag, **extra)


def key_value(text: str) -> tuple[str, str]:
    """``KEY=VALUE`` of an engine's repeated setting (``--spark-conf``), as a pair.

    Examples
    --------
    >>> key_value("spark.executor.memory=8g")
    ('spark.executor.memory', '8g')
    >>> key_value("spark.sql.shuffle.partitions")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected KEY=VALUE, got 'spark.sql.shuffle.partitions'
    """
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key.strip(), value.strip()


def _options_of(kind: type[Any], args: argparse.Namespace, **names: str) -> Any:
    """An options value of *kind* from the parsed arguments that have its fields' names.

    A field the command has no option for keeps its default; *names* maps a
    field to an argument of another name (``method="discriminative_power"``).
    """
    from dataclasses import fields

    given = {}
    for item in fields(kind):
        key = names.get(item.name, item.name)
        if hasattr(args, key):
            given[item.name] = getattr(args, key)
    return kind(**given)


def evaluation_options(args: argparse.Namespace) -> EvalOptions:
    """The :class:`~rankwise.options.EvalOptions` the parsed arguments ask for (built once)."""
    from rankwise.options import EvalOptions

    options: EvalOptions = _options_of(EvalOptions, args)
    return options


def compare_options(args: argparse.Namespace) -> CompareOptions:
    """The :class:`~rankwise.options.CompareOptions` of ``--test --correction --alpha ...``."""
    from rankwise.options import CompareOptions

    options: CompareOptions = _options_of(CompareOptions, args)
    return options


def recommender_options(args: argparse.Namespace) -> RecommenderOptions:
    """The :class:`~rankwise.options.RecommenderOptions` of ``rankwise recs``' arguments."""
    from rankwise.options import RecommenderOptions

    options: RecommenderOptions = _options_of(RecommenderOptions, args)
    return options


def fusion_options(args: argparse.Namespace) -> FusionOptions:
    """The :class:`~rankwise.options.FusionOptions` of ``--method --norm --weights --param``."""
    from rankwise.options import FusionOptions

    return FusionOptions(args.method, args.norm, args.weights, dict(args.params) or None)


def engine_of(args: argparse.Namespace) -> Any:
    """The engine the parsed arguments ask for, set up with its own settings.

    A setting of another engine is refused; an engine that reads its inputs
    itself reads files by path (not standard input).
    """
    import sys

    from rankwise.cli.progress import _is_terminal
    from rankwise.engines import CommandLine, engine_class, engine_names

    name = getattr(args, "engine", engine_names()[0])
    chosen = engine_class(name)
    for other in engine_names():
        capabilities = engine_class(other).capabilities
        given = [setting.flag for setting in capabilities.settings
                 if other != name and _given(args, setting)]
        if given:
            from rankwise.exceptions import InvalidParameterError

            raise InvalidParameterError(
                f"{', '.join(given)} only apply to the {capabilities.title or other} engine: "
                f"add --engine {other}"
            )
    if not chosen.capabilities.in_process:
        check_no_stdin([args.qrels, *args.runs], f"--engine {name}")
    settings = {setting.keyword: _value(args, setting)
                for setting in chosen.capabilities.settings}
    command_line = CommandLine(
        quiet=getattr(args, "quiet", False), debug=getattr(args, "debug", False),
        terminal=_is_terminal(sys.stderr), qrels_format=getattr(args, "qrels_format", None),
        run_format=getattr(args, "run_format", None))
    return chosen.from_settings(settings, command_line)


def _dest(setting: Any) -> str:
    return str(setting.flag.lstrip("-").replace("-", "_"))


def _value(args: argparse.Namespace, setting: Any) -> Any:
    value = getattr(args, _dest(setting), setting.default)
    return dict(value) if setting.repeated else value


def _given(args: argparse.Namespace, setting: Any) -> bool:
    """Whether the command line gave *setting* a value of its own (not its default)."""
    value = getattr(args, _dest(setting), setting.default)
    return bool(value) and value != setting.default


def measure_texts(arguments: Sequence[str] | None, default: Sequence[str]) -> list[str]:
    """The measures of ``-m`` (each argument may hold several, comma separated)."""
    from rankwise.measures import split_measure_list

    if not arguments:
        return list(default)
    return [item for argument in arguments for item in split_measure_list(argument)]


def check_no_stdin(paths: Sequence[str], command: str, why: str = "") -> None:
    """Refuse ``-`` where files are read by path (hashed, or read by another process)."""
    from rankwise.exceptions import InvalidParameterError

    if "-" in paths:
        raise InvalidParameterError(
            f"{command} reads its files by path{why}; '-' (standard input) is not "
            "supported: save the data to a file first"
        )


def check_stdin_once(paths: Sequence[str]) -> None:
    """Refuse ``-`` given for more than one file."""
    from rankwise.exceptions import InvalidParameterError

    uses = list(paths).count("-")
    if uses > 1:
        raise InvalidParameterError(
            f"'-' (standard input) is given {uses} times; only one file can come from it"
        )


def output_format(fmt: str | None, output: str | None) -> str:
    """The format asked for, else the one of the ``-o`` file's extension, else ``table``."""
    if fmt is not None:
        return fmt
    if output is not None and output != "-":
        suffix = os.path.splitext(output)[1].lower()
        return _FORMAT_BY_SUFFIX.get(suffix, "table")
    return "table"


def reading(args: argparse.Namespace) -> Callable[[str], AbstractContextManager[Any]]:
    """``reading(path)``: shows progress while a file is read, unless ``--quiet``."""
    from rankwise.cli.progress import Progress

    return lambda path: Progress("reading", path, enabled=not args.quiet)
