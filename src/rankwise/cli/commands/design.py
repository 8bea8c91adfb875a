"""``rankwise design``: how many topics a test collection needs; how discriminative a measure is."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rankwise.cli.options import (
    DEFAULT_MEASURES,
    add_common_options,
    add_engine_options,
    add_evaluation_options,
    add_input_options,
    check_stdin_once,
    digits,
    engine_of,
    evaluation_options,
    measure_texts,
    number,
    output_format,
    positive_int,
    probability,
    seed,
)
from rankwise.cli.summaries import SUMMARIES
from rankwise.report.tables import FORMATS

__all__ = ["add_parser", "run"]

_DESCRIPTION = """\
Topic set size design (Sakai, "Topic set size design", Information Retrieval
Journal 2016): the number of topics a test collection needs so that

  t-test  a paired t-test detects a difference of --min-diff between two
          systems with power 1 - beta (--variance: of the per-topic
          differences, sigma_t^2)
  anova   a one-way ANOVA over --systems systems detects a range of
          --min-diff between the best and the worst (--variance: within a
          system, sigma^2)
  ci      the 1 - alpha confidence interval of a paired difference is
          expected to be at most --min-diff wide (--variance: sigma_t^2)

Without files it prints a table: rows --min-diff, columns --variance. With
QRELS and two runs or more it estimates the variance of each measure from
them (the residual variance V_E of the two-way ANOVA, system x topic; the
paired tools take 2 V_E, Sakai's conservative choice) and prints one column
per measure; --discriminative-power adds the share of run pairs each measure
tells apart (Sakai, SIGIR 2006)."""

_EPILOG = """\
examples:
  rankwise design                                      # Sakai's t-test table
  rankwise design --test anova --systems 10 --min-diff 0.1 0.2 --variance 0.05
  rankwise design --test ci --min-diff 0.05 0.1 --variance 0.01 0.02 --method sakai
  rankwise design qrels.txt a.run b.run c.run -m ndcg@10 map --discriminative-power bootstrap

--method exact (default) uses the noncentral t and F distributions; sakai the
normal approximations of Sakai's Excel tools (they agree for t-test and ci).

exit status: 0 success, 1 bad input or option value (one line on stderr says
  what and where), 2 malformed command line."""


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``design`` command."""
    parser = commands.add_parser(
        "design",
        help=SUMMARIES["design"],
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("files", metavar="FILE", nargs="*",
                        help="QRELS then two runs or more (optional: to estimate the variances)")
    parser.add_argument("-m", "--measure", dest="measures", metavar="MEASURE", nargs="+",
                        action="extend", help="measures whose variance is estimated "
                        "(with files; repeatable)")
    design = parser.add_argument_group("design")
    design.add_argument("--test", choices=("t-test", "anova", "ci"), default="t-test",
                        help="the requirement (default t-test)")
    design.add_argument("--min-diff", type=number, nargs="+", metavar="D",
                        default=[0.05, 0.10, 0.15, 0.20],
                        help="differences to detect (ci: interval widths); default 0.05 0.10 "
                             "0.15 0.20")
    design.add_argument("--variance", type=number, nargs="+", metavar="V", default=None,
                        help="variances (without files; default 0.01 .. 0.10)")
    design.add_argument("--systems", type=positive_int, metavar="M", default=None,
                        help="systems compared, for --test anova (default: the runs given)")
    design.add_argument("--alpha", type=probability, default=0.05, metavar="A",
                        help="type I error (default 0.05)")
    design.add_argument("--beta", type=probability, default=0.20, metavar="B",
                        help="type II error: power is 1 - B (default 0.20)")
    design.add_argument("--method", choices=("exact", "sakai"), default="exact",
                        help="noncentral distributions (exact, default) or the approximations "
                             "of Sakai's Excel tools (sakai)")
    power = parser.add_argument_group("discriminative power (with files)")
    power.add_argument("--discriminative-power", choices=("bootstrap", "randomized-tukey"),
                       default=None, metavar="TEST",
                       help="also the share of run pairs each measure tells apart at alpha: "
                            "bootstrap (Sakai 2006) or randomized-tukey")
    power.add_argument("--n-resamples", type=positive_int, default=1000, metavar="N",
                       help="resamples of the discriminative power (default 1000)")
    power.add_argument("--seed", type=seed, default=None, metavar="INT",
                       help="seed of the resampling (default: drawn, and shown)")
    add_engine_options(add_evaluation_options(parser))
    output = parser.add_argument_group("output")
    output.add_argument("-f", "--format", choices=list(FORMATS), default=None, metavar="FORMAT",
                        help=f"{', '.join(FORMATS)} (default: from the -o file's extension, "
                             "else table)")
    output.add_argument("--digits", type=digits, default=4, metavar="N",
                        help="decimals of variances and powers (default 4)")
    output.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically)")
    add_input_options(parser)
    add_common_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``rankwise design`` with parsed arguments.

    Returns
    -------
    int
        0 on success.

    Raises
    ------
    RankwiseError
        Bad input or option value (reported as one line by the caller).
    """
    from rankwise.cli._output import say_written, write_output
    from rankwise.design import discriminative_power, residual_variance, topic_set_table
    from rankwise.exceptions import InvalidParameterError
    from rankwise.report.tables import Table

    fmt = output_format(args.format, args.output)
    options = evaluation_options(args)
    sections: list[tuple[str, Any]] = []
    if args.files:
        if len(args.files) < 3:
            raise InvalidParameterError(
                "give QRELS and at least two runs to estimate the variances "
                f"(got {len(args.files)} file{'s' if len(args.files) != 1 else ''}), or no "
                "file and --variance"
            )
        if args.variance is not None:
            raise InvalidParameterError(
                "--variance and files: give one (the files estimate the variances)"
            )
        check_stdin_once(args.files)
        args.qrels, args.runs = args.files[0], args.files[1:]
        measures = measure_texts(args.measures, DEFAULT_MEASURES)
        variances = residual_variance(args.qrels, list(args.runs), measures, options=options,
                                      engine=engine_of(args))
        systems = args.systems if args.systems is not None else len(args.runs)
        table = Table(["measure", "residual_variance", "variance_used"],
                      ["text", "float", "float"])
        for name, value in variances.items():
            table.rows.append([name, value, value if args.test == "anova" else 2 * value])
        sections.append((f"variance estimates from {len(args.runs)} runs (V_E of the two-way "
                         "ANOVA, system x topic)", table))
        grid = topic_set_table(args.test, args.min_diff, variances, residual=True,
                               n_systems=systems if args.test == "anova" else None,
                               alpha=args.alpha, beta=args.beta, method=args.method)
    else:
        if args.measures or args.discriminative_power:
            raise InvalidParameterError(
                "-m and --discriminative-power need files: QRELS and two runs or more"
            )
        if args.test == "anova" and args.systems is None:
            raise InvalidParameterError("--test anova needs --systems (the number of systems)")
        values = args.variance or [round(0.01 * k, 2) for k in range(1, 11)]
        grid = topic_set_table(args.test, args.min_diff, values,
                               n_systems=args.systems if args.test == "anova" else None,
                               alpha=args.alpha, beta=args.beta, method=args.method)
    what = {"t-test": f"paired t-test, alpha = {args.alpha:g}, power = {1 - args.beta:g}",
            "anova": f"one-way ANOVA over {grid.sizes[0][0].n_systems} systems, alpha = "
                     f"{args.alpha:g}, power = {1 - args.beta:g}",
            "ci": f"{1 - args.alpha:.0%} confidence interval width"}[args.test]
    sections.append((f"topics needed ({what}; method {args.method}); rows: "
                     f"{'width' if args.test == 'ci' else 'difference'}, columns: variance",
                     grid.table()))
    if args.discriminative_power:
        power = discriminative_power(
            args.qrels, list(args.runs), measure_texts(args.measures, DEFAULT_MEASURES),
            test=args.discriminative_power, alpha=args.alpha, n_resamples=args.n_resamples,
            seed=args.seed, options=options, engine=engine_of(args))
        sections.append((power.legend, power.table()))
        if not args.quiet:
            for note in power.notes:
                sys.stderr.write(f"rankwise: note: {note}\n")
    write_output(_render(sections, fmt, args.digits), args.output)
    say_written(args.output, quiet=args.quiet)
    return 0


def _render(sections: list[tuple[str, Any]], fmt: str, digits_: int) -> str:
    """Each section's title and table; JSON formats as one object of arrays."""
    import json  # loaded by this command only, not when the CLI starts

    from rankwise.report.json_text import json_text
    from rankwise.report.tables import render

    if fmt in ("json", "jsonl"):
        data = {title: json.loads(render(table, "json", digits=digits_))
                for title, table in sections}
        return json_text(data, indent=2 if fmt == "json" else None) + "\n"
    parts = []
    for title, table in sections:
        text = render(table, fmt, digits=digits_)
        if fmt in ("table", "markdown"):
            text = f"{title}\n\n{text}"
        elif fmt == "latex":
            text = f"% {title}\n{text}"
        parts.append(text.rstrip("\n") + "\n")
    return "\n".join(parts)
