"""``rankwise recs``: evaluate recommendation lists against held-out interactions."""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import Any

from rankwise.cli.options import (
    add_common_options,
    add_significance_options,
    compare_options,
    digits,
    non_negative_int,
    number,
    output_format,
    positive_int,
    recommender_options,
)
from rankwise.cli.summaries import SUMMARIES
from rankwise.options import DUPLICATE_POLICIES, MISSING_POLICIES, SEGMENT_TESTS
from rankwise.report.tables import FORMATS

__all__ = ["OPTION_NAMES", "ROLES", "add_parser", "model_names", "recommender_columns", "run"]

ROLES = ("user", "item", "score", "rank", "rating", "timestamp", "segment")
"""The roles a ``--columns`` map of ``rankwise recs`` names."""

OPTION_NAMES = {"catalogue": "--catalogue", "train": "--train", "exclude": "--exclude"}
"""How error messages name the arguments of ``evaluate_recommendations`` here."""

DEFAULT_MEASURES = ("ndcg@10", "recall@10", "P@10", "mrr@10")
"""Without -m: these, and with --train or --exclude also coverage, gini and novelty."""

_DESCRIPTION = """\
Evaluate the recommendation lists RECS against the held-out interactions TEST
(implicit feedback: every interaction is relevant, grade 1, unless --relevance
names a grade column) and print a table of means: accuracy measures of
rankwise's language (ndcg@10, recall@50, map@10, P@10, mrr) and measures
beyond accuracy (coverage, gini, entropy, novelty, epc, arp, aplt, popreo,
ild, serendipity, personalisation; see docs/recommenders.md).

With several RECS, the models are compared user by user as 'rankwise compare'
compares runs: one row per model and one column per per-user measure, a
marker (†) on a significant difference from --baseline (▲ higher, ▼ lower),
the legend, the whole-set measures (coverage, gini, ...: one value per model,
no test), each segment's comparison with --segments, and what was assumed
(seen items excluded, catalogue, users evaluated). A model is named by its
file's stem, or NAME=PATH.

Inputs: Parquet, CSV, TSV or JSONL tables, by extension. TEST, --train and
--exclude have columns user, item (optional rating); RECS has user, item and
score (higher first) or rank, or neither (rows in list order); --segments has
user and segment. Other column names: --columns user=uid,item=sku,score=pred.
Ids are compared as written (CSV and TSV: as text)."""

_EPILOG = """\
examples:
  rankwise recs test.csv recs.parquet -m ndcg@10 recall@50 coverage gini novelty \\
      --exclude train.csv --catalogue 100000
  rankwise recs test.parquet recs.parquet --exclude train.parquet -k 100 --per-user -o users.tsv
  rankwise recs test.csv recs.csv --exclude train.csv --segments groups.csv --segment-test rank
  rankwise recs test.csv recs.csv -m 'map@10(dialect=recommenders)' \\
      --columns user=userID,item=itemID
  rankwise recs test.parquet pop.parquet als.parquet two_tower=tt.parquet --baseline pop \\
      --exclude train.parquet -k 100 -m ndcg@10 recall@50 novelty coverage gini \\
      --segments activity --test t-test

exit status: 0 success, 1 bad input or measure (one line on stderr says what
  and where), 2 malformed command line."""


def recommender_columns(text: str) -> dict[str, str]:
    """Read ``role=name,...`` for the recommender roles (an argparse type).

    Examples
    --------
    >>> recommender_columns("user=uid, item=sku,score=pred")
    {'user': 'uid', 'item': 'sku', 'score': 'pred'}
    """
    from rankwise.suggest import did_you_mean

    mapping: dict[str, str] = {}
    for part in text.split(","):
        role, sep, name = (piece.strip() for piece in part.partition("="))
        if not sep or not role or not name:
            raise argparse.ArgumentTypeError(
                f"expected role=column pairs separated by commas (roles: {', '.join(ROLES)}), "
                f"got {part.strip()!r}")
        if role not in ROLES:
            raise argparse.ArgumentTypeError(
                f"unknown role {role!r}; roles are {', '.join(ROLES)}"
                + did_you_mean(role, ROLES))
        if role in mapping:
            raise argparse.ArgumentTypeError(f"role {role!r} is given twice")
        mapping[role] = name
    return mapping


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``recs`` command."""
    parser = commands.add_parser(
        "recs",
        help=SUMMARIES["recs"],
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    # dest held_out: --test is the statistical test of a comparison
    parser.add_argument("held_out", metavar="TEST", help="held-out interactions (the judgments)")
    parser.add_argument("recs", metavar="RECS", nargs="+",
                        help="the recommendation lists; several: the models compared "
                             "(NAME=PATH names one; default: the file's stem)")
    parser.add_argument("-m", "--measure", dest="measures", metavar="MEASURE", nargs="+",
                        action="extend", help="measures to compute (repeatable; default "
                        f"{' '.join(DEFAULT_MEASURES)}, and coverage gini novelty with "
                        "--train or --exclude)")
    context = parser.add_argument_group("evaluation")
    context.add_argument("--exclude", metavar="TRAIN", default=None,
                         help="interactions whose items are removed from each user's list "
                              "before the cut at k (usually the training interactions); also "
                              "the training interactions unless --train is given")
    context.add_argument("--train", metavar="FILE", default=None,
                         help="training interactions: item popularity (novelty, arp, aplt, "
                              "popreo, epc), items of the catalogue without --catalogue")
    context.add_argument("--catalogue", metavar="N|FILE", default=None,
                         help="all items (coverage, gini): their number, or a table with an "
                              "item column; it must hold every item recommended (default: "
                              "every item of the training, test and recommendation files, "
                              "said in a note)")
    context.add_argument("-k", type=positive_int, default=None, metavar="K",
                         help="cut every list at K after excluding seen items")
    context.add_argument("--relevance", metavar="COLUMN", default=None,
                         help="the grade column of TEST (default: every interaction grade 1)")
    context.add_argument("--rel", type=number, default=1, metavar="LEVEL",
                         help="relevance level with --relevance (default 1)")
    context.add_argument("--missing", choices=MISSING_POLICIES, default="skip",
                         help="test users without a list: skipped (default) or scored 0")
    context.add_argument("--duplicates", choices=DUPLICATE_POLICIES, default="error",
                         help="an item listed twice for a user: an error (default), or kept at "
                              "its best rank")
    context.add_argument("--segments", metavar="FILE|activity", default=None,
                         help="a table of user, segment: every measure per segment, with a "
                              "test between segments (several RECS: the models compared in "
                              "each segment); 'activity': new, light and heavy users by their "
                              "number of training interactions (needs --train or --exclude)")
    context.add_argument("--heavy", type=positive_int, default=None, metavar="N",
                         help="with --segments activity: the fewest training interactions of a "
                              "heavy user (default: above the median)")
    context.add_argument("--segment-test", choices=SEGMENT_TESTS, default="welch",
                         help="Welch's t-test / ANOVA (default), or Mann-Whitney U / "
                              "Kruskal-Wallis")
    context.add_argument("--columns", type=recommender_columns, default=None,
                         metavar="ROLE=NAME,...",
                         help=f"column names of every table (roles: {', '.join(ROLES)})")
    stats = parser.add_argument_group("comparison (several RECS)")
    stats.add_argument("--baseline", metavar="NAME",
                       help="compare every other model with this one (a name, or a RECS as "
                            "given); default: every pair")
    add_significance_options(stats)
    stats.add_argument("--family", choices=("measure", "all"), default="measure",
                       help="correct over the models of each measure (default) or over all "
                            "models and measures")
    stats.add_argument("--ci", choices=("t", "bootstrap"), default="t",
                       help="confidence intervals: Student t (default) or bootstrap percentile")
    stats.add_argument("--long", action="store_true",
                       help="one row per measure and model with every statistic (always for "
                            "tsv, csv and jsonl)")
    output = parser.add_argument_group("output")
    output.add_argument("--per-user", action="store_true",
                        help="also print each user's values (the means are the rows whose "
                             "user is 'all')")
    output.add_argument("-f", "--format", choices=list(FORMATS), default=None, metavar="FORMAT",
                        help=f"{', '.join(FORMATS)} (default: from the -o file's extension, "
                             "else table)")
    output.add_argument("-o", "--output", metavar="FILE",
                        help="write to FILE (atomically: nothing is left on failure)")
    output.add_argument("--html", metavar="FILE", default=None,
                        help="also write a self-contained HTML report: the measures, and the "
                             "segments with their tests")
    output.add_argument("--digits", type=digits, default=4, metavar="N",
                        help="decimals in the table, markdown and latex formats (default 4)")
    add_common_options(parser)
    parser.set_defaults(handler=run)


def _catalogue(text: str | None) -> Any:
    from rankwise.io.tables import read_table

    if text is None:
        return None
    try:
        return non_negative_int(text)
    except argparse.ArgumentTypeError:
        return read_table(text)


def run(args: argparse.Namespace) -> int:
    """Run ``rankwise recs`` with parsed arguments.

    Returns
    -------
    int
        0 on success.

    Raises
    ------
    RankwiseError
        Bad input or measure (reported as one line by the caller).
    """
    from rankwise.cli._output import say_written, write_output
    from rankwise.exceptions import InvalidParameterError
    from rankwise.io.tables import read_table
    from rankwise.recommenders import evaluate_recommendations
    from rankwise.recommenders.inputs import spelled_as
    from rankwise.report.result_tables import query_order
    from rankwise.report.tables import Table, write_chunks

    fmt = output_format(args.format, args.output)
    options = recommender_options(args)
    measures = [m for text in (args.measures or []) for m in text.split(",") if m.strip()]
    if not measures:
        measures = list(DEFAULT_MEASURES)
        if args.train is not None or args.exclude is not None:
            measures += ["coverage", "gini", "novelty"]
    if len(args.recs) > 1:
        return _compare(args, measures, fmt)
    if args.baseline is not None:
        raise InvalidParameterError(
            f"--baseline {args.baseline!r} needs several RECS to compare; one was given")
    [(named, path)] = model_names(args.recs).items()
    test = read_table(args.held_out)
    recs = read_table(path)
    exclude, train = _history(args)
    segments = _segments(args, test, exclude if train is None else train)
    with spelled_as(OPTION_NAMES):  # errors name --catalogue, not catalogue=
        result = evaluate_recommendations(
            test, recs, measures, exclude=exclude, train=train,
            catalogue=_catalogue(args.catalogue), segments=segments, columns=args.columns,
            options=options,
        )
    names = list(result.mean)
    name = os.path.basename(path) if path == args.recs[0] else named  # NAME=PATH: the name
    if result.segments is not None:
        seg = result.segments
        rows: list[list[Any]] = [
            [name, str(segment), seg.users[segment], *(seg.mean[segment].get(m) for m in names)]
            for segment in seg.names]
        rows.append([name, f"p ({seg.test})", None, *(_p_value(seg.p_values.get(m))
                                                       for m in names)])
        table = Table(["run", "segment", "users", *names],
                      ["text", "text", "int", *["float"] * len(names)], rows)
    elif args.per_user:
        users = list(result.users)
        order = query_order(users)  # numeric ids in numeric order, as eval --per-query
        rows = [[name, str(users[n]), *(result.per_user[m][n] if m in result.per_user else None
                                        for m in names)]
                for n in (range(len(users)) if order is None else order.tolist())]
        rows.append([name, "all", *(result.mean[m] for m in names)])
        table = Table(["run", "user", *names], ["text", "text", *["float"] * len(names)], rows)
    else:
        table = Table(["run", "users", *names], ["text", "int", *["float"] * len(names)],
                      [[name, len(result.users), *(result.mean[m] for m in names)]])
    write_output(write_chunks(table, fmt, digits=args.digits), args.output)
    say_written(args.output, quiet=args.quiet)
    if args.html is not None:
        result.to_html(args.html, title=f"Recommendations: {name}", digits=args.digits)
        say_written(args.html, quiet=args.quiet)
    if not args.quiet:  # under the table: what the numbers rest on
        for note in result.notes:
            sys.stderr.write(f"rankwise: note: {note}\n")
    return 0


def _history(args: argparse.Namespace) -> tuple[Any, Any]:
    """The tables of ``--exclude`` and ``--train`` (one table when both name one file)."""
    from rankwise.io.tables import read_table

    exclude = read_table(args.exclude) if args.exclude is not None else None
    train = read_table(args.train) if args.train is not None else None
    if args.train is not None and args.train == args.exclude:
        train = exclude
    return exclude, train


def _segments(args: argparse.Namespace, test: Any, history: Any) -> Any:
    """``--segments``: a table, or ``activity`` (new, light, heavy from the training)."""
    from rankwise.exceptions import InvalidParameterError
    from rankwise.io.tables import read_table

    if args.segments is not None and getattr(args, "per_user", False):
        raise InvalidParameterError("--per-user and --segments print different tables (one "
                                    "row per user, one per segment): give one of them")
    if args.segments is None:
        if args.heavy is not None:
            raise InvalidParameterError("--heavy applies to --segments activity, which was not "
                                        "given")
        return None
    if args.segments != "activity" or os.path.exists(args.segments):
        if args.heavy is not None:
            raise InvalidParameterError("--heavy applies to --segments activity, not to a "
                                        "segments file")
        return read_table(args.segments)
    if history is None:
        raise InvalidParameterError(
            "--segments activity counts each user's training interactions: give --train or "
            "--exclude")
    from rankwise.recommenders.activity import activity_segments

    activity = activity_segments(history, test, heavy=args.heavy, columns=args.columns)
    if not args.quiet:
        sys.stderr.write(f"rankwise: note: {activity.describe()}\n")
    return activity.segments


def model_names(paths: list[str]) -> dict[str, str]:
    """``{name: path}`` of the RECS arguments: ``NAME=PATH``, else the file's stem.

    The stem is the name without its compression and format endings
    (``als.csv.zst``: ``als``). A stem given twice is numbered (``recs``,
    ``recs#2``); an argument that is an existing file is a path even with
    ``=`` in it.

    Examples
    --------
    >>> model_names(["runs/pop.parquet", "als=runs/model-7.csv", "b/pop.csv"])
    {'pop': 'runs/pop.parquet', 'als': 'runs/model-7.csv', 'pop#2': 'b/pop.csv'}
    >>> model_names(["ease.tsv.gz", "runs/ials.csv.zst"])
    {'ease': 'ease.tsv.gz', 'ials': 'runs/ials.csv.zst'}
    """
    from pathlib import Path

    from rankwise.exceptions import InvalidParameterError
    from rankwise.io._source import COMPRESSED_SUFFIXES
    from rankwise.io.naming import unique_names

    names, files = [], []
    for text in paths:
        name, sep, path = text.partition("=")
        if sep and not os.path.exists(text):
            if not name or not path:
                raise InvalidParameterError(
                    f"RECS {text!r}: expected NAME=PATH with a name and a path, or a path")
            names.append(name)
            files.append(path)
        else:
            bare = Path(text).name
            bare = next((bare[: -len(end)] for end in COMPRESSED_SUFFIXES
                         if bare.lower().endswith(end)), bare)
            names.append(Path(bare).stem or text)
            files.append(text)
    given = [n for n, text in zip(names, paths) if "=" in text and not os.path.exists(text)]
    if len(set(given)) != len(given):
        twice = next(n for n in given if given.count(n) > 1)
        raise InvalidParameterError(f"RECS: the name {twice!r} is given twice; each model "
                                    "needs its own name")
    return dict(zip(unique_names(names), files))


def _compare(args: argparse.Namespace, measures: list[str], fmt: str) -> int:
    """``rankwise recs TEST RECS RECS ...``: the models compared per user."""
    from rankwise.cli._output import say_written, write_output
    from rankwise.exceptions import InvalidParameterError
    from rankwise.io.naming import find_run
    from rankwise.io.tables import read_table
    from rankwise.recommenders import compare_recommendations
    from rankwise.recommenders.inputs import spelled_as

    if args.per_user:
        raise InvalidParameterError(
            "--per-user prints one model's users: give one RECS, or compare several without it")
    named = model_names(args.recs)
    baseline = None
    if args.baseline is not None:
        baseline = find_run(args.baseline, list(named), list(args.recs), what="baseline")
    test = read_table(args.held_out)
    models = {name: read_table(path) for name, path in named.items()}
    exclude, train = _history(args)
    if args.segments == "activity" and not os.path.exists(args.segments):
        segments: Any = "activity"  # the comparison says the rule in its assumptions
        if exclude is None and train is None:
            _segments(args, test, None)  # the one error for it
    else:
        segments = _segments(args, test, exclude if train is None else train)
    from contextlib import nullcontext

    from rankwise.recommenders.page_data import keeping

    # with a page: each evaluation keeps what its figures need, counted from its lists
    with spelled_as(OPTION_NAMES), keeping() if args.html is not None else nullcontext() \
            as kept:
        result = compare_recommendations(
            test, models, measures, baseline=baseline, exclude=exclude, train=train,
            catalogue=_catalogue(args.catalogue), segments=segments, heavy=args.heavy,
            columns=args.columns, options=(recommender_options(args), compare_options(args)))
    if not args.quiet:
        notes = [*result.comparison.notes,
                 *(n for c in result.segments.values() for n in c.notes)]
        for note in dict.fromkeys(notes):
            sys.stderr.write(f"rankwise: note: {note}\n")
    write_output(result.to_table(fmt, long=args.long, digits=args.digits), args.output)
    say_written(args.output, quiet=args.quiet)
    if args.html is not None:
        from rankwise.recommenders.page_data import page_figures

        tail, curves = page_figures(result, test, models, train=train, exclude=exclude,
                                    columns=args.columns, kept=kept)
        result.to_html(args.html, title="Recommenders compared", digits=args.digits,
                       long_tail=tail, curves=curves)
        say_written(args.html, quiet=args.quiet)
    if not args.quiet and fmt not in ("table", "markdown", "latex"):
        # the wide formats print them under the tables; the others keep their rows clean
        for line in result.assumptions:
            sys.stderr.write(f"rankwise: assumed: {line}\n")
        for note in dict.fromkeys(n for r in result.results.values() for n in r.notes):
            sys.stderr.write(f"rankwise: note: {note}\n")
    return 0


def _p_value(p: float | None) -> float | None:
    """A p-value cell: empty (None) where there is no test, as docs/recommenders.md shows."""
    return None if p is None or math.isnan(p) else p
