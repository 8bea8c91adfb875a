"""Command-line options shared by the commands that evaluate runs.

``eval``, ``compare``, ``report`` and ``plot`` take the same options for what
changes the numbers (relevance level, depth, missing queries, judged only,
ties) and for the input formats; they are defined once here.
"""

from __future__ import annotations

import argparse

__all__ = [
    "INPUT_FORMATS",
    "TIE_CHOICES",
    "add_evaluation_options",
    "add_input_options",
    "digits",
    "number",
    "positive_int",
    "probability",
    "seed",
]

INPUT_FORMATS = ("trec", "parquet", "csv", "tsv", "jsonl")
TIE_CHOICES = ("trec", "average", "rank", "worst", "best")


def positive_int(text: str) -> int:
    """Read an integer >= 1 (an argparse type)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def number(text: str) -> float:
    """Read a number (an argparse type)."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def digits(text: str) -> int:
    """Read a count of decimals, 0 to 17 (an argparse type)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 17:
        raise argparse.ArgumentTypeError(f"expected an integer from 0 to 17, got {text!r}")
    return value


def seed(text: str) -> int:
    """Read a non-negative integer seed (an argparse type)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return value


def probability(text: str) -> float:
    """Read a number strictly between 0 and 1 (an argparse type)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}")
    return value


def add_evaluation_options(
    parser: argparse.ArgumentParser, *, trec_flags: bool = False
) -> argparse._ArgumentGroup:
    """Add ``--rel --depth --missing --judged-only --ties``; return their group.

    With *trec_flags*, ``-M`` and ``-J`` are accepted too (trec_eval's letters).
    """
    options = parser.add_argument_group("evaluation")
    options.add_argument("--rel", type=number, metavar="GRADE",
                         help="minimum grade that is relevant (default 1), for the measures "
                              "that take 'rel' and do not set it")
    depth = ("-M", "--depth") if trec_flags else ("--depth",)
    options.add_argument(*depth, type=positive_int, metavar="K",
                         help="evaluate only the first K documents of each query (trec_eval -M)")
    options.add_argument("--missing", dest="missing", choices=("skip", "zero"), default="skip",
                         help="a judged query absent from a run: left out of its means "
                              "(skip, default) or scored as an empty ranking (zero, trec_eval -c)")
    judged = ("-J", "--judged-only") if trec_flags else ("--judged-only",)
    options.add_argument(*judged, action="store_true",
                         help="drop unjudged documents before evaluating (trec_eval -J)")
    options.add_argument(
        "--ties", choices=TIE_CHOICES, default="trec",
        help="order of tied scores: docno descending (trec, default), the expected value over "
             "all orders (average), the run's rank column (rank), relevant last/first "
             "(worst/best)",
    )
    return options


def add_input_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--qrels-format`` and ``--run-format``."""
    inputs = parser.add_argument_group("inputs")
    inputs.add_argument("--qrels-format", choices=INPUT_FORMATS, default=None, metavar="FORMAT",
                        help=f"format of QRELS: {', '.join(INPUT_FORMATS)} (default: from its "
                             "extension, else trec)")
    inputs.add_argument("--run-format", choices=INPUT_FORMATS, default=None, metavar="FORMAT",
                        help="format of every RUN (same choices)")
