"""``rankwise demo``: evaluate the bundled example data and print a comparison.

Two examples, no files of the user's needed:

1. trec_eval's test collection (NIST): a real TREC ad hoc run, ``STANDARD``,
   over three topics, evaluated per topic and on average;
2. the tutorial's model A and model B: one query of ten graded documents
   ranked by two models, NDCG at 3, 5 and 10 with both gains.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rankwise.cli.options import add_common_options
from rankwise.cli.summaries import SUMMARIES

__all__ = [
    "DATA_FILES", "TREC_MEASURES", "TUTORIAL_GRADES", "TUTORIAL_SCORES", "add_parser", "data_file",
    "run", "save_data",
]

DATA_FILES = ("qrels.test", "results.test", "NOTICE.md")
"""The bundled files ``rankwise demo --save DIR`` copies."""

TREC_MEASURES = ("ndcg@10", "map", "mrr", "P@10", "recall@1000")
"""Measures shown for the TREC run."""

TUTORIAL_GRADES: list[int] = [3, 0, 2, 1, 3, 0, 2, 1, 0, 3]
"""The tutorial's example: grades of the ten documents of one query (``y_true``)."""

TUTORIAL_SCORES: dict[str, list[float]] = {
    "model A": [0.95, 0.1, 0.7, 0.4, 0.9, 0.05, 0.6, 0.3, 0.2, 0.85],
    "model B": [0.8, 0.2, 0.9, 0.6, 0.4, 0.1, 0.7, 0.5, 0.05, 0.3],
}
"""The scores two models give those documents."""

_CUTOFFS = (3, 5, 10)


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``demo`` command."""
    parser = commands.add_parser(
        "demo",
        help=SUMMARIES["demo"],
        description="Evaluate the example data bundled with rankwise and print a comparison: "
                    "a real TREC run (trec_eval's test collection, NIST) per topic, and "
                    "the tutorial's model A against model B (NDCG with both gains).",
    )
    parser.add_argument("--format", choices=("table", "markdown"), default="table",
                        help="how to print the tables (default table)")
    parser.add_argument("--save", metavar="DIR", default=None,
                        help="copy the example files (qrels.test, results.test, NOTICE.md) into "
                             "DIR (created if needed) to try other commands on (each file "
                             "written is named on standard error, as by every command)")
    add_common_options(parser)
    parser.set_defaults(handler=run)


@contextmanager
def data_file(name: str) -> Iterator[Path]:
    """Give a real path to the bundled file *name* (``qrels.test``, ``results.test``).

    Parameters
    ----------
    name : str
        A file of ``rankwise/demo_data``.

    Yields
    ------
    pathlib.Path
    """
    from importlib.resources import as_file, files

    with as_file(files("rankwise").joinpath("demo_data").joinpath(name)) as path:
        yield Path(path)


def save_data(folder: str | os.PathLike[str]) -> list[Path]:
    """Copy the bundled example files into *folder* (created if needed); return their paths.

    A file of that name already there with other content is never replaced: nothing is
    written, and the error names it (the example file itself is written again).
    """
    from rankwise._files import write_file
    from rankwise.exceptions import InvalidParameterError

    if not os.fspath(folder):
        raise InvalidParameterError("--save: the folder name is empty: expected a folder")
    target = Path(folder)
    if target.exists() and not target.is_dir():
        raise NotADirectoryError(f"{folder}: is a file, expected a folder for --save")
    contents = {}
    for name in DATA_FILES:
        with data_file(name) as source:
            contents[name] = source.read_bytes()
        there = target / name
        if there.exists() and (not there.is_file() or there.read_bytes() != contents[name]):
            raise FileExistsError(f"{there}: exists and is not the example file: --save "
                                  "never replaces it; remove it or save to another folder")
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name in DATA_FILES:
        write_file(contents[name], target / name)  # absent, or these very bytes
        written.append(target / name)
    return written


_TREC_WORDS = """\
   In plain words: a search engine (a "run") answered {topics} questions ("topics", or
   queries: TREC's numbers {first}-{last}) with a ranked list of {per_topic} documents each.
   People judged many documents of each topic: the "judgments" (TREC calls them
   qrels) give each a grade, here 1 for relevant and 0 for not (others use more). Each
   measure scores a ranking against the judgments, from 0 (worst) to 1 (best):
   ndcg@10   relevant documents near the top of the first 10 count most
   map       precision at the rank of each relevant document, averaged
   mrr       1 / the rank of the first relevant document
   P@10      the share of the first 10 documents that are relevant
   recall@1000  the share of all relevant documents found in the first 1000

"""


def _trec_section(fmt: str) -> str:
    from rankwise.evaluation import evaluate
    from rankwise.io import read_qrels, read_run

    with data_file("qrels.test") as qrels_path, data_file("results.test") as run_path:
        qrels = read_qrels(qrels_path)
        run = read_run(run_path)
    results = evaluate(qrels, run, list(TREC_MEASURES))
    header = (
        f"1. A TREC run and its judgments: trec_eval's test collection (NIST), "
        f"run {run.name!r}, {results.n_queries} topics, {len(run)} retrieved documents\n\n"
        + _TREC_WORDS.format(topics=results.n_queries, first=min(results.query_ids),
                             last=max(results.query_ids),
                             per_topic=len(run) // max(results.n_queries, 1))
    )
    footer = (
        "\n   Each topic, then the mean ('all'). To try other commands on these files, copy\n"
        "   them into a folder (here: demo) and give their paths (in any directory):\n"
        "     rankwise demo --save demo\n"
        "     rankwise trec-eval demo/qrels.test demo/results.test\n"
        "   Your own files (judgments first, then one or more runs):\n"
        "     rankwise eval QRELS RUN [RUN ...] -m ndcg@10 map mrr P@10\n"
    )
    return header + results.to_table(fmt, per_query=True) + footer


def _tutorial_section(fmt: str) -> str:
    import pyarrow as pa

    from rankwise.evaluation import evaluate
    from rankwise.report.tables import Table, render

    grades = TUTORIAL_GRADES
    docs = [f"d{i + 1}" for i in range(len(grades))]
    measures = [f"ndcg@{k}{gain}" for k in _CUTOFFS for gain in ("", "(gain=linear)")]
    means = {}
    for model in ("model A", "model B"):
        frame = pa.table({
            "query": ["q1"] * len(grades),
            "doc": docs,
            "label": grades,
            "score": TUTORIAL_SCORES[model],
        })
        results = evaluate(frame, measures=measures, query="query", label="label",
                           score="score", doc="doc")
        means[model] = results.mean
    table = Table(["measure", "model A", "model B"], ["text", "float", "float"])
    for name in measures:
        table.rows.append([name, means["model A"][name], means["model B"][name]])
    header = (
        "2. The tutorial: one query, 10 documents graded 0-3, ranked by two models\n"
        f"   grades   {grades}\n\n"
        "   In plain words: the judgments are the list of grades above, one per document\n"
        "   (3 = very relevant, 0 = not). Each model gives every document a score; sorted\n"
        "   by score, the documents make that model's ranking. NDCG@k compares the first\n"
        "   k documents of a ranking with the best possible order (1 = as good as it gets).\n"
        "   In Python: rw.evaluate(frame, [\"ndcg@10\"], query=..., label=..., score=...)\n\n"
    )
    footer = (
        "\n   Model A puts the three grade-3 documents first: a perfect ranking, NDCG 1 at every k."
        "\n   gain=exp (rankwise's default) counts a grade g as 2^g - 1, so the top grades weigh"
        "\n   most; gain=linear counts g itself (trec_eval, scikit-learn's ndcg_score).\n"
    )
    return header + render(table, fmt) + footer


def run(args: argparse.Namespace) -> int:
    """Run ``rankwise demo``.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed arguments (``format``, ``save``).

    Returns
    -------
    int
        0.
    """
    from rankwise.cli._output import write_output

    if args.save is not None:
        from rankwise.cli._output import say_written

        for path in save_data(args.save):
            say_written(str(path), quiet=args.quiet)
        return 0
    text = (
        "rankwise demo: the example data bundled with rankwise\n\n"
        + _trec_section(args.format)
        + "\n"
        + _tutorial_section(args.format)
    )
    write_output(text, None)
    return 0
