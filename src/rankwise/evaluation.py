"""The front door: ``evaluate`` one run, ``evaluate_runs`` several, on any engine.

Nothing is computed here: the options are checked once
(:class:`~rankwise.options.EvalOptions`), the measures parsed
(:func:`~rankwise.engines.core.prepare_measures`), and the engine does the
rest. Engines never import this module.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from rankwise._validation import Text, check, reject
from rankwise._wording import counted
from rankwise.engines import Engine
from rankwise.engines.core import warn_coverage, warn_notes, warn_relevance
from rankwise.engines.plan import EvaluationPlan, Reading, refuse_disjoint, source_of
from rankwise.exceptions import InvalidParameterError
from rankwise.measures import Measure
from rankwise.options import EvalOptions, Missing, Ties, Unjudged, options_from
from rankwise.results import Results

__all__ = ["evaluate", "evaluate_runs"]

_ONE_TABLE = ("query", "label", "score", "doc")

RUN_NAME = Text(words="a non-empty str")
"""What a run's name (a key of a dict of runs) must be."""
RUNS_EXPECTED = "a dict {name: run} or a list of runs"
"""What several runs must be given as."""


def _looks_like_measures(value: Any) -> bool:
    if isinstance(value, (str, Measure)):
        return True
    return (
        isinstance(value, (list, tuple))
        and bool(value)
        and all(isinstance(item, (str, Measure)) for item in value)
    )


def _several_runs(run: Any) -> str | None:
    """What *run* holds when it is several runs given as one (``{name: run}``, a list), else None.

    Looks at the first entry only: a run dict's values are ``{doc_id: score}``
    dicts of numbers, a runs dict's are runs (dicts of dicts, paths, tables).
    """
    from rankwise.data import Run

    def is_run(item: Any) -> bool:
        if isinstance(item, (str, os.PathLike, Run)) or hasattr(item, "columns"):
            return True
        if isinstance(item, Mapping) and item:
            return isinstance(next(iter(item.values())), Mapping)
        return False

    if isinstance(run, Mapping) and run:
        if is_run(next(iter(run.values()))):
            names = ", ".join(repr(key) for key in list(run)[:3])
            more = ", ..." if len(run) > 3 else ""
            return f"a dict of {counted(len(run), 'run')} by name ({names}{more})"
    elif isinstance(run, (list, tuple)) and run and (
            is_run(run[0]) or isinstance(run[0], Mapping)):
        return f"a list of {counted(len(run), 'run')}"
    return None


def evaluate(
    qrels: Any,
    run: Any = None,
    measures: str | Measure | Iterable[str | Measure] | None = None,
    *,
    rel: float | None = None,
    depth: int | None = None,
    missing: Missing = "skip",
    judged_only: bool = False,
    ties: Ties = "trec",
    exclude_self: bool = False,
    unjudged: Unjudged = "nonrelevant",
    options: EvalOptions | None = None,
    engine: str | Engine | None = None,
    columns: Mapping[str, str | None] | None = None,
    query: str | None = None,
    label: str | None = None,
    score: str | None = None,
    doc: str | None = None,
) -> Results:
    """Evaluate a run against judgments.

    Parameters
    ----------
    qrels : Qrels, path, frame, dict or named tuples
        The judgments: a :class:`Qrels`, a TREC qrels file (or Parquet, CSV,
        TSV, JSONL file; BEIR's ``qrels/test.tsv``), a pandas / polars / Arrow
        table with columns ``query_id, doc_id, relevance``,
        ``{query_id: {doc_id: grade}}``, or named tuples (ir_datasets'
        ``qrels_iter()``).
        With ``query=``, ``label=`` and ``score=`` it is one table holding
        both judgments and scores (every row judged), and *run* is omitted:
        ``evaluate(df, ["ndcg@10"], query="qid", label="label", score="pred")``.
    run : Run, path, frame, dict or named tuples
        The scored results, in the same forms (columns ``query_id, doc_id,
        score``, or a ``rank`` column instead of the score; dicts
        ``{query_id: {doc_id: score}}``; ir_datasets' ``scoreddocs_iter()``).
    measures : str, Measure or list of them
        For example ``["ndcg@10", "map", "mrr@10", "P@10", "recall@1000"]``;
        trec_eval's names (``ndcg_cut.10``, ``P.5,10``, ``all_trec``) work too.
    rel, depth, missing, judged_only, ties, exclude_self, unjudged
        The options that change the numbers, see
        :class:`~rankwise.options.EvalOptions`: relevance level, depth cut
        (trec_eval ``-M``; 0 makes every ranking empty), judged queries absent
        from the run skipped or scored 0 (``-c``), unjudged documents dropped
        (``-J``), the order of tied scores (``"trec"``, ``"average"``,
        ``"rank"``, ``"worst"``, ``"best"``, ``"ascending"``), and
        ``unjudged="bounds"``: every measure also with the unjudged documents
        taken as relevant (``Results.unjudged``). ``Results.ties`` reports how
        much ties matter. A document retrieved for its own query id is dropped
        with *exclude_self* (BEIR's ``ignore_identical_ids``).
    options : EvalOptions, optional
        All of them at once (keywords override it where they differ from
        their defaults: one left at its default keeps the options' value).
    engine : {"numpy", "spark"} or Engine, optional
        Where to compute. By default the inputs choose: Spark DataFrames are
        evaluated on Spark (the results' ``plan`` says so), anything else in
        this process (numpy). The Spark engine takes Spark DataFrames or
        paths; see :mod:`rankwise.spark`.
    columns : dict, optional
        ``{role: column}`` for tables (and named tuples) whose columns are
        named otherwise: roles ``query_id``, ``doc_id``, ``relevance``,
        ``score``, ``rank``. ``"relevance": None``: the judgments have no
        relevance column, every listed pair is relevant (grade 1).
    query, label, score, doc : str, optional
        Column names for the one-table form (learning-to-rank data).

    Returns
    -------
    Results

    Raises
    ------
    InputFormatError
        Malformed input (the message names the file and line).
    MeasureSyntaxError, UnknownMeasureError
        A measure that cannot be parsed.
    InvalidParameterError
        An option outside what it accepts.

    Examples
    --------
    >>> import rankwise as rw
    >>> qrels = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}, "q2": {"d5": 1.0, "d4": 0.5}}
    >>> results = rw.evaluate(qrels, run, ["ndcg@10", "map", "mrr", "P@2"])
    >>> {name: round(value, 4) for name, value in results.mean.items()}
    {'ndcg@10': 0.7974, 'map': 0.6667, 'mrr': 0.75, 'P@2': 0.5}
    >>> results["map"]
    array([0.83333333, 0.5       ])
    """
    chosen = options_from(
        options, rel=rel, depth=depth, missing=missing, judged_only=judged_only, ties=ties,
        exclude_self=exclude_self, columns=columns,
        unjudged=unjudged,
    )
    one_table = {key: value for key, value in zip(_ONE_TABLE, (query, label, score, doc))
                 if value is not None}
    if one_table:
        if measures is None and _looks_like_measures(run):
            run, measures = None, run  # evaluate(df, ["ndcg@10"], query=..., ...)
        if run is not None:
            raise InvalidParameterError(
                "give either (qrels, run) or one table with query=, label= and score=, not both"
            )
    elif run is None:
        raise InvalidParameterError(
            "run is required (or pass one table with query=, label= and score=)"
        )
    if measures is None:
        raise InvalidParameterError("measures is required, for example ['ndcg@10', 'map']")
    several = None if one_table else _several_runs(run)
    if several is not None:
        raise InvalidParameterError(
            f"run is {several}; evaluate takes one run: evaluate them all with "
            "rankwise.evaluate_runs(qrels, runs, measures) (a dict {name: Results}), or "
            "compare them with rankwise.compare(qrels, runs, measures)"
        )
    plan = EvaluationPlan.make(engine, measures, chosen, (qrels, run))
    if one_table:
        from rankwise.io.frames import split_one_table

        qrels, run = split_one_table(
            qrels, query=query, label=label, score=score, doc=doc
        )
    results = plan.evaluate(qrels, run)
    warn_coverage(results, chosen.missing)
    warn_relevance([results])
    warn_notes(getattr(results, "notes", ()))
    return results


def _given_runs(runs: Any) -> list[tuple[str | None, Any]]:
    if isinstance(runs, Mapping):
        items: list[tuple[str | None, Any]] = []
        for name, run in runs.items():
            items.append((check("a run name", name, RUN_NAME), run))
    elif isinstance(runs, (list, tuple)):
        items = [(None, run) for run in runs]
    else:
        reject("runs", runs, RUNS_EXPECTED)
    if not items:
        raise InvalidParameterError("runs is empty; give at least one run")
    return items


def evaluate_runs(
    qrels: Any,
    runs: Mapping[str, Any] | Sequence[Any],
    measures: str | Measure | Iterable[str | Measure],
    *,
    rel: float | None = None,
    depth: int | None = None,
    missing: Missing = "skip",
    judged_only: bool = False,
    ties: Ties = "trec",
    exclude_self: bool = False,
    unjudged: Unjudged = "nonrelevant",
    options: EvalOptions | None = None,
    engine: str | Engine | None = None,
    qrels_format: str | None = None,
    run_format: str | None = None,
    columns: Mapping[str, str | None] | None = None,
    reading: Reading | None = None,
    need_common_queries: bool = True,
    each_run: Callable[[int, Any, Any], None] | None = None,
) -> dict[str, Results]:
    """Evaluate several runs against the same judgments, one run in memory at a time.

    The judgments are read once. Runs are named by the one rule of
    :mod:`rankwise.io.naming`: the name given (a dict's keys), else the run
    id of a TREC file, else the file's stem; repeated names are numbered
    (``bm25``, ``bm25#2``).

    Parameters
    ----------
    qrels : Qrels, path, frame or dict
        The judgments.
    runs : dict ``{name: run}`` or list of runs
        Runs as paths, :class:`~rankwise.Run` objects, frames or dicts, or
        already computed :class:`~rankwise.Results` (kept as they are). In a
        list, a frame or dict has no name: pass a dict to name it.
    measures : str, Measure or list
        The measures (the options' ``rel`` applies to those that take it).
    rel, depth, missing, judged_only, ties, exclude_self, unjudged
        The options that change the numbers, as in :func:`evaluate`.
    options : EvalOptions, optional
        All of them at once (keywords override it where they differ from
        their defaults: one left at its default keeps the options' value).
    engine : str or Engine, optional
        Where to compute (by default as in :func:`evaluate`: the inputs choose).
    qrels_format, run_format : str, optional
        The format of files given by path (default: from the extension).
    columns : dict, optional
        Column names of tables, as in :func:`evaluate`.
    reading : callable, optional
        ``reading(path)`` returns a context manager entered while a file is
        read (the command line shows progress with it).
    need_common_queries : bool
        Raise when a run and the judgments have no query in common
        (nothing could be evaluated: usually the wrong file).
    each_run : callable, optional
        ``each_run(position, judgments, run)``, called after each run is
        evaluated, while it is in memory (the report keeps its ranked lists):
        *position* in the runs given, the judgments and the run as the
        engine had them (read, or as given for an engine that reads them itself).

    Returns
    -------
    dict ``{name: Results}``
        In the order given; each ``Results.run_name`` is its name.

    Examples
    --------
    >>> qrels = {"q1": {"a": 1}}
    >>> out = evaluate_runs(qrels, {"x": {"q1": {"a": 1.0}}, "y": {"q1": {"b": 1.0}}}, "P@1")
    >>> {name: results.mean["P@1"] for name, results in out.items()}
    {'x': 1.0, 'y': 0.0}
    """
    from rankwise.io.naming import unique_names

    chosen = options_from(
        options, rel=rel, depth=depth, missing=missing, judged_only=judged_only, ties=ties,
        exclude_self=exclude_self, columns=columns, unjudged=unjudged,
    )
    items = _given_runs(runs)
    plan = EvaluationPlan.make(engine, measures, chosen, (qrels, *(obj for _, obj in items)),
                               qrels_format=qrels_format, run_format=run_format,
                               reading=reading)
    judgments = plan.judgments(qrels)
    evaluated: list[Results] = []
    for position, (name, obj) in enumerate(items):
        if isinstance(obj, Results):
            evaluated.append(obj)
            continue
        run = plan.run(obj, name, position)
        results = plan.evaluate(judgments, run, name=name)
        if need_common_queries:
            refuse_disjoint(results, judgments, run, _label(name or results.run_name, obj,
                                                            position))
        evaluated.append(results)
        if each_run is not None:
            each_run(position, judgments, run)
        del run
    names = unique_names([
        given if given is not None else (results.run_name or "run")
        for (given, _), results in zip(items, evaluated)
    ])
    for name, results in zip(names, evaluated):
        results.run_name = name
    warn_notes(note for results in evaluated for note in getattr(results, "notes", ()))
    return dict(zip(names, evaluated))


def _label(name: str | None, obj: Any, position: int) -> str:
    """How a message names run *position*: its name, and its path when that says more."""
    path = source_of(obj)
    label = repr(name) if name else f"runs[{position}]"
    return label + (f" ({path})" if path is not None and path != name else "")


def run_sources(runs: Mapping[str, Any] | Sequence[Any]) -> list[str | None]:
    """The path of each run, where it has one (for finding a run by its path)."""
    items = runs.values() if isinstance(runs, Mapping) else runs
    return [source_of(obj) for obj in items]
