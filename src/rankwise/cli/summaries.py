"""The one-line summary of each ``rankwise`` command, as ``rankwise --help`` lists them.

Each command's module registers its parser with its summary from here, and
``rankwise --help`` (or ``rankwise`` alone, or a misspelt command) lists the
commands from here without importing any of their modules: the listing is
the same, the start-up is an interpreter's and little more (issue 40).
"""

from __future__ import annotations

__all__ = ["SUMMARIES"]

SUMMARIES: dict[str, str] = {
    "eval": "evaluate runs against judgments: a table of means (or per-query values)",
    "compare": "compare runs with paired significance tests: a table for a paper",
    "report": "a self-contained HTML report comparing runs: table, curves, per-query plots",
    "plot": "draw metric@k curves, distributions or per-query differences to a file",
    "fuse": "fuse runs into one (rrf, combmnz, ...) and write it as a TREC run",
    "recs": "evaluate recommendation lists: accuracy and beyond (coverage, Gini, novelty, "
            "...), per segment",
    "design": "topic set size design: topics needed for power or interval width; "
              "discriminative power",
    "guide": "which measures your judgments and runs support, and the command to run",
    "explain": "why two tools give different numbers: the difference split by convention",
    "trec-eval": "a drop-in for trec_eval 10.0: same options, same output byte for byte",
    "demo": "evaluate the bundled example data (a TREC run; the tutorial's two models)",
    "measures": "list the measures, their parameters and definitions",
}
"""Command name -> its summary, in the order of :data:`rankwise.cli.app.COMMANDS`."""
