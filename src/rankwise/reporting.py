"""``build_report``: evaluate and compare runs, and gather what the HTML report shows.

The front door of :mod:`rankwise.report`: the runs are evaluated here (by
:func:`rankwise.evaluation.evaluate_runs`, any engine) and compared (by
:func:`rankwise.comparison.compare_results`); the report itself only lays
out what it is given.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Literal

from rankwise._validation import POSITIVE_INT, OneOf, check
from rankwise.engines import Engine
from rankwise.engines.core import coverage_notes, prepare_measures
from rankwise.exceptions import InvalidParameterError, RankwiseError
from rankwise.measures import Measure
from rankwise.options import (
    DEFAULT_CHUNK_SIZE,
    CompareOptions,
    Correction,
    CorrectionFamily,
    EvalOptions,
    IntervalMethod,
    Missing,
    TestName,
    Ties,
    Unjudged,
    merged,
    options_from,
    split_options,
)
from rankwise.report.build import (
    CURVE_FAMILIES,
    Report,
    curve_templates,
    default_title,
    describe_definitions,
    describe_settings,
)
from rankwise.report.lists import DEFAULT_DEPTH, ListCollector
from rankwise.report.provenance import FileRecord

__all__ = ["build_report"]

Reading = Callable[[str], AbstractContextManager[Any]]

_DISCRIMINATIVE = OneOf((None, "bootstrap", "randomized-tukey"))
Discriminative = Literal["bootstrap", "randomized-tukey"] | None


def build_report(
    qrels: Any,
    runs: Mapping[str, Any] | Sequence[Any],
    measures: str | Measure | Iterable[str | Measure],
    *,
    baseline: str | None = None,
    test: TestName = "randomization",
    correction: Correction | None = "auto",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed: int | None = None,
    ci: IntervalMethod = "t",
    family: CorrectionFamily = "measure",
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    missing: Missing = "skip",
    rel: float | None = None,
    depth: int | None = None,
    judged_only: bool = False,
    ties: Ties = "trec",
    exclude_self: bool = False,
    unjudged: Unjudged = "nonrelevant",
    options: EvalOptions | CompareOptions | tuple[EvalOptions | CompareOptions, ...]
    | None = None,
    engine: str | Engine | None = None,
    qrels_format: str | None = None,
    run_format: str | None = None,
    columns: Mapping[str, str | None] | None = None,
    curves: Iterable[str | Measure] = CURVE_FAMILIES,
    max_k: int = 100,
    top: int = 10,
    title: str | None = None,
    created: datetime | None = None,
    reading: Reading | None = None,
    discriminative_power: Discriminative = "bootstrap",
    topics: Any = None,
    documents: Any = None,
    list_depth: int = DEFAULT_DEPTH,
) -> Report:
    """Evaluate and compare runs for an HTML report.

    Parameters
    ----------
    qrels : Qrels, path, frame or dict
        The judgments.
    runs : dict ``{name: run}`` or list of runs
        One or more runs (paths, Run objects, frames, dicts, or computed
        Results); named as :func:`rankwise.evaluation.evaluate_runs` names them.
    measures : str, Measure or list
        The measures of the table, the distributions and the differences.
    baseline : str, optional
        The run the others are compared with (its name, or its path, file
        name or file stem); default: the first.
    test, correction, alpha, n_resamples, seed, ci, family, chunk_size
        The tests, as in :func:`rankwise.comparison.compare` (``tukey`` and
        ``randomized-tukey`` test every pair at once; the page then shows the
        letters of the groups that do not differ and each measure's ANOVA).
    missing, rel, depth, judged_only, ties, exclude_self, unjudged
        As in :func:`rankwise.evaluate`.
    options : EvalOptions, CompareOptions, or a tuple of both, optional
        The options at once (keywords given as well override them).
    engine : str or Engine
        Where the runs are evaluated.
    qrels_format, run_format : str, optional
        The format of files given by path (default: from the extension).
    columns : dict, optional
        Column names of tables, as in :func:`rankwise.evaluate`.
    curves : iterable of str or Measure
        Families drawn over k = 1 .. *max_k* (default ndcg, P, recall; they
        take the parameters of a measure of the same family in *measures*).
    max_k : int
        The largest cutoff of the curves.
    top : int
        Queries listed per system among those that gained and lost most.
    title : str, optional
        The heading of the page (default: the system names).
    created : datetime, optional
        The date printed (default: now).
    reading : callable, optional
        ``reading(path)`` returns a context manager entered while a file is read.
    discriminative_power : {"bootstrap", "randomized-tukey"} or None
        With three systems or more: the share of system pairs each measure
        tells apart and its ASL curve (Sakai 2006; 1,000 resamples, the
        comparison's seed). None leaves it out.
    topics : path, dict or named tuples, optional
        Query texts, shown and searched by the query explorer: a TREC topics
        file, a TSV file ``qid<TAB>text``, a JSONL file, ``{qid: text}`` or
        ir_datasets' ``queries_iter()`` (:func:`rankwise.io.texts.as_topics`).
    documents : path, dict or docs store, optional
        Document texts (a TSV or JSONL collection, ``{doc_id: text}``, an
        ir_datasets docs store): those of the documents the lists show are kept.
    list_depth : int
        Documents of each system's ranking shown per query in the explorer
        (default 20; 0: no ranked lists).

    Returns
    -------
    Report

    Raises
    ------
    InvalidParameterError
        Bad options, an unknown baseline, a run with no judged query.
    InputFormatError, MeasureSyntaxError
        Bad files or measures.

    Examples
    --------
    >>> qrels = {f"q{i}": {"good": 1} for i in range(6)}
    >>> runs = {"bm25": {f"q{i}": {"bad": 2.0, "good": 1.0} for i in range(6)},
    ...         "dense": {f"q{i}": {"good": 2.0, "bad": 1.0} for i in range(6)}}
    >>> report = build_report(qrels, runs, ["mrr", "P@1"], max_k=5, seed=0)
    >>> report.baseline, report.comparison.row("mrr", "dense").delta
    ('bm25', 0.5)
    >>> html = report.to_html()
    >>> html.startswith("<!DOCTYPE html>"), "http://" in html.split("<svg")[0]
    (True, False)
    """
    evaluation, statistics = split_options(options, EvalOptions, CompareOptions)
    chosen = options_from(
        evaluation, rel=rel, depth=depth, missing=missing, judged_only=judged_only, ties=ties,
        exclude_self=exclude_self, columns=columns, unjudged=unjudged,
    )
    stats = merged(CompareOptions, statistics, test=test, correction=correction, alpha=alpha,
                   ci=ci, n_resamples=n_resamples, seed=seed, family=family,
                   chunk_size=chunk_size)
    check("top", top, POSITIVE_INT)
    check("discriminative_power", discriminative_power, _DISCRIMINATIVE)
    numeric, templates, wanted, notes = _measures(measures, chosen, curves, max_k)
    collector = ListCollector(list_depth, chosen, qrels_format=qrels_format,
                              run_format=run_format)
    results, files = _evaluated(qrels, runs, wanted, chosen, engine, qrels_format, run_format,
                                reading, collector, notes)
    names = list(results)
    positions = {name: position for position, name in enumerate(names)}
    results, chosen_baseline = _baseline_first(results, runs, baseline)
    comparison, discrimination = _compared(results, numeric, chosen_baseline, stats,
                                           discriminative_power, notes)
    return Report(
        systems=list(results), baseline=chosen_baseline, measures=numeric, results=results,
        curves=templates, max_k=max_k, comparison=comparison, files=files, notes=notes,
        top=top, discrimination=discrimination,
        **_about_the_page(title or default_title(names), created, chosen, numeric, templates,
                          max_k, comparison, discrimination),
        **collector.finish(results, positions, topics, documents),
    )


def _about_the_page(title: str, created: datetime | None, chosen: EvalOptions,
                    numeric: list[Measure], templates: list[Any], max_k: int,
                    comparison: Any, discrimination: Any) -> dict[str, Any]:
    """What the page says of itself: its title and date, the definitions, settings, versions."""
    from rankwise.report.provenance import environment, now

    return {"title": title, "created": created or now(), "versions": environment(),
            "definitions": describe_definitions(numeric, templates, max_k),
            "settings": describe_settings(chosen, comparison, max_k, discrimination)}


def _measures(measures: str | Measure | Iterable[str | Measure], chosen: EvalOptions,
              curves: Iterable[str | Measure], max_k: int
              ) -> tuple[list[Measure], list[Measure], list[Measure], list[str]]:
    """The report's measures: those shown, the curves' templates, all computed, and notes."""
    from rankwise.report.summaries import curve_measures

    parsed = prepare_measures(measures, chosen)
    notes: list[str] = []
    text_valued = [m for m in parsed if m.family.text_valued]
    if text_valued:
        notes.append("not shown (their values are text): "
                     + ", ".join(str(m) for m in text_valued))
    numeric = [m for m in parsed if not m.family.text_valued]
    if not numeric:
        raise InvalidParameterError(
            "no numeric measure to report; give one with measures=, e.g. 'ndcg@10'"
        )
    templates = curve_templates(curves, numeric, chosen.rel)
    wanted = list(numeric)
    for template in templates:
        for measure in curve_measures(template, max_k):
            if measure not in wanted:
                wanted.append(measure)
    return numeric, templates, wanted, notes


def _evaluated(qrels: Any, runs: Mapping[str, Any] | Sequence[Any], wanted: list[Measure],
               chosen: EvalOptions, engine: str | Engine | None, qrels_format: str | None,
               run_format: str | None, reading: Reading | None, collector: ListCollector,
               notes: list[str]) -> tuple[dict[str, Any], list[FileRecord]]:
    """Each run's results, and the record of each input (a pipe read once, from a copy).

    *collector* keeps each run's ranked lists while the run is in memory; the
    runs' coverage (queries unjudged or missing) is added to *notes*.
    """
    from rankwise.evaluation import evaluate_runs
    from rankwise.report.provenance import file_kind, spool

    inputs = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
    with tempfile.TemporaryDirectory(prefix="rankwise-report-") as folder:
        spooled: dict[str, tuple[str, int, str]] = {}  # pipe -> (copy, size, sha256)

        def readable(obj: Any) -> Any:
            """A pipe's copy (it can be read once only: see provenance.spool)."""
            if not isinstance(obj, (str, os.PathLike)) or file_kind(os.fspath(obj)) not in (
                    "a pipe", "a socket"):
                return obj
            path = os.fspath(obj)
            if path not in spooled:
                copy_folder = tempfile.mkdtemp(dir=folder)  # one per pipe: names may repeat
                spooled[path] = spool(path, copy_folder)
            return spooled[path][0]

        qrels_in = readable(qrels)
        runs_in: Any = (
            {name: readable(obj) for name, obj in runs.items()} if isinstance(runs, Mapping)
            else [readable(obj) for obj in inputs]
        )
        originals = {copy: path for path, (copy, _, _) in spooled.items()}
        shown = reading
        if reading is not None and originals:
            def shown(path: str) -> AbstractContextManager[Any]:  # progress names the pipe
                return reading(originals.get(path, path))

        try:
            results = evaluate_runs(
                qrels_in, runs_in, wanted, options=chosen, engine=engine,
                qrels_format=qrels_format, run_format=run_format, reading=shown,
                each_run=collector,
            )
        except RankwiseError as error:
            _name_originals(error, originals)
            raise
    files = [_record(qrels, "judgments", None, spooled)] + [
        _record(obj, "run", name, spooled) for obj, name in zip(inputs, results)
    ]
    notes.extend(f"{name}: {note}" for name, item in results.items()
                 for note in coverage_notes(item.unjudged_queries, item.missing_queries,
                                            chosen.missing))
    return results, files


def _baseline_first(results: dict[str, Any], runs: Mapping[str, Any] | Sequence[Any],
                    baseline: str | None) -> tuple[dict[str, Any], str | None]:
    """The results with the baseline first (it leads every table), and its name (None: one run)."""
    from rankwise.evaluation import run_sources
    from rankwise.io.naming import find_run

    names = list(results)
    if len(names) < 2:
        return results, None
    chosen = (names[0] if baseline is None
              else find_run(baseline, names, run_sources(runs), what="baseline"))
    return {chosen: results[chosen], **{n: r for n, r in results.items() if n != chosen}}, chosen


def _compared(results: Mapping[str, Any], numeric: list[Measure], baseline: str | None,
              stats: CompareOptions, discriminative_power: Discriminative, notes: list[str]
              ) -> tuple[Any, Any]:
    """The comparison with the baseline and the discriminative power (None: nothing to compare).

    What they say of themselves is added to *notes*.
    """
    comparison = None
    testable = [m for m in numeric if m.family.aggregate == "mean"]
    untested = [m for m in numeric if m.family.aggregate != "mean"]
    if untested and len(results) > 1:
        notes.append("not tested for significance (not aggregated by an arithmetic mean): "
                     + ", ".join(str(m) for m in untested))
    if baseline is not None and testable:
        from rankwise.comparison import compare_results

        comparison = compare_results(results, testable, baseline=baseline, options=stats)
        notes.extend(comparison.notes)
    discrimination = None
    if discriminative_power is not None and comparison is not None and len(results) > 2:
        from rankwise.design import discriminative_power_results

        discrimination = discriminative_power_results(
            results, testable, test=discriminative_power, alpha=comparison.alpha,
            n_resamples=1000, seed=comparison.seed)
    return comparison, discrimination


def _record(obj: Any, role: str, system: str | None,
            spooled: Mapping[str, tuple[str, int, str]]) -> FileRecord:
    """The report's record of one input: a pipe with the size and hash of what was read."""
    from rankwise.report.provenance import describe_input, file_kind

    if isinstance(obj, (str, os.PathLike)) and os.fspath(obj) in spooled:
        path = os.fspath(obj)
        _, size, digest = spooled[path]
        return FileRecord(role, system, path, size, digest,
                          f"{file_kind(path) or 'a pipe'}: size and SHA-256 of the bytes read")
    return describe_input(obj, role, system)


def _name_originals(error: RankwiseError, originals: Mapping[str, str]) -> None:
    """Say the pipe's name, not its copy's, in *error* (changed in place)."""
    if not originals:
        return

    def restore(text: str) -> str:
        for copy, path in originals.items():
            text = text.replace(copy, path)
        return text

    error.args = tuple(restore(a) if isinstance(a, str) else a for a in error.args)
    for attribute in ("path", "message"):
        value = getattr(error, attribute, None)
        if isinstance(value, str):
            setattr(error, attribute, restore(value))
