"""``build_report``: evaluate and compare the runs, and gather everything the report shows."""

from __future__ import annotations

import contextlib
import difflib
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from rankwise.exceptions import InvalidParameterError
from rankwise.measures import Measure
from rankwise.report.provenance import (
    FileRecord,
    MeasureRecord,
    describe_input,
    describe_measures,
    environment,
    now,
)
from rankwise.report.summaries import curve_label, curve_measures, curve_template
from rankwise.results import Results

if TYPE_CHECKING:
    from rankwise.comparison import Comparison

__all__ = ["CURVE_FAMILIES", "Report", "build_report", "curve_templates", "evaluate_runs",
           "resolve_baseline"]

CURVE_FAMILIES = ("ndcg", "P", "recall")
"""The measures drawn as curves over k in a report."""

Reading = Callable[[str], AbstractContextManager[Any]]


@dataclass
class Report:
    """Everything an HTML report shows; :meth:`to_html` renders it, :meth:`save` writes it.

    Built by :func:`build_report`.

    Attributes
    ----------
    title : str
    systems : list of str
        System names, in the order given (fixes their colours).
    baseline : str or None
        The system the others are compared with (None with a single system).
    measures : list of Measure
        The measures asked for (the columns of the table).
    results : dict
        ``{system: Results}``, holding the measures and every cutoff of the curves.
    curves : list of Measure
        Families drawn over k (cutoff None).
    max_k : int
    comparison : Comparison or None
        The paired tests (None with a single system).
    files : list of FileRecord
    definitions : list of MeasureRecord
    settings : dict
        Options that change the numbers, as text.
    versions : dict
        rankwise, Python and library versions.
    created : datetime
    notes : list of str
        What a reader should know (queries left out, measures not tested, ...).
    top : int
        Queries listed per system among those that gained and lost most.
    """

    title: str
    systems: list[str]
    baseline: str | None
    measures: list[Measure]
    results: dict[str, Results]
    curves: list[Measure]
    max_k: int
    comparison: Comparison | None
    files: list[FileRecord]
    definitions: list[MeasureRecord]
    settings: dict[str, str]
    versions: dict[str, str]
    created: datetime
    notes: list[str] = field(default_factory=list)
    top: int = 10

    @property
    def n_queries(self) -> int:
        """Queries evaluated for at least one system."""
        ids: set[str] = set()
        for item in self.results.values():
            ids.update(item.query_ids)
        return len(ids)

    def to_html(self) -> str:
        """The self-contained HTML page (needs matplotlib for the figures)."""
        from rankwise.report.html import render_html

        return render_html(self)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the HTML page to *path* (UTF-8, atomically)."""
        from rankwise.report._files import write_atomically

        write_atomically(self.to_html().encode("utf-8"), path)


# ----------------------------------------------------------------------------
# inputs
# ----------------------------------------------------------------------------


def _unique_names(names: list[str], paths: list[str]) -> list[str]:
    """The run names; where two collide, the file names, then the paths, then numbered."""
    if len(set(names)) == len(names):
        return names
    for candidates in ([os.path.basename(p) for p in paths], paths):
        if len(set(candidates)) == len(candidates) and all(candidates):
            return candidates
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return out


def _label(obj: Any, position: int) -> str:
    if isinstance(obj, (str, os.PathLike)):
        return os.fspath(obj)
    source = getattr(obj, "source", None)
    return source if isinstance(source, str) else f"runs[{position}]"


def evaluate_runs(
    qrels: Any,
    runs: Mapping[str, Any] | Sequence[Any],
    measures: Sequence[Measure],
    *,
    depth: int | None = None,
    missing: str = "skip",
    judged_only: bool = False,
    qrels_format: str | None = None,
    run_format: str | None = None,
    reading: Reading | None = None,
    ties: str = "trec",
) -> tuple[dict[str, Results], list[FileRecord], list[str]]:
    """Evaluate each run, one in memory at a time, and describe the inputs.

    Parameters
    ----------
    qrels : Qrels, path, frame or dict
        The judgments.
    runs : dict ``{name: run}`` or list of runs
        Runs as paths, :class:`~rankwise.Run` objects, frames or dicts, or
        already computed :class:`~rankwise.Results`. A list is named by the
        run ids (TREC files), else the file names, else the paths.
    measures : list of Measure
        Already parsed (:func:`rankwise.evaluation.parse_measures`).
    depth, missing, judged_only, ties
        As in :func:`rankwise.evaluate`.
    qrels_format, run_format : str, optional
        The format of files given by path (``"trec"``, ``"parquet"``, ...;
        default: from the extension), as in :func:`rankwise.read_run`.
    reading : callable, optional
        ``reading(path)`` returns a context manager entered while a file is
        read (the command line shows progress with it).

    Returns
    -------
    results : dict ``{name: Results}``
    files : list of FileRecord
        The judgments, then each run.
    notes : list of str
        Coverage warnings: queries without judgments, judged queries not in a run.
    """
    from rankwise.evaluation import evaluate_objects
    from rankwise.io import as_qrels, as_run, read_qrels, read_run

    def read(label: str) -> AbstractContextManager[Any]:
        return reading(label) if reading is not None else contextlib.nullcontext()

    if isinstance(runs, Mapping):
        items = list(runs.items())
        given: list[str | None] = [str(name) for name, _ in items]
        objects = [run for _, run in items]
    elif isinstance(runs, (list, tuple)):
        objects = list(runs)
        given = [None] * len(objects)
    else:
        raise InvalidParameterError(
            f"runs must be a dict {{name: run}} or a list of runs, got {type(runs).__name__}"
        )
    if not objects:
        raise InvalidParameterError("runs is empty; give at least one run")
    if isinstance(qrels, (str, os.PathLike)):
        with read(os.fspath(qrels)):
            qrels_obj = read_qrels(qrels, fmt=qrels_format)
    else:
        qrels_obj = as_qrels(qrels)
    files = [describe_input(qrels, "judgments")]
    evaluated: list[Results] = []
    labels = []
    notes: list[str] = []
    for position, (name, obj) in enumerate(zip(given, objects)):
        label = _label(obj, position)
        labels.append(label)
        if isinstance(obj, Results):
            evaluated.append(obj)
            files.append(describe_input(obj, "run"))
            continue
        if isinstance(obj, (str, os.PathLike)):
            with read(label):
                run = read_run(obj, fmt=run_format, name=name, keep_rank=ties == "rank")
        else:
            run = as_run(obj, name=name, keep_rank=ties == "rank")
        results = evaluate_objects(qrels_obj, run, list(measures), depth=depth,
                                   missing=missing, judged_only=judged_only, ties=ties)
        if results.n_queries == 0:
            raise InvalidParameterError(
                f"run {run.name or label!r} and the judgments have no query in common "
                f"(run: {len(run.query_ids)} queries, e.g. {run.query_ids[:3]}; "
                f"judgments: {len(qrels_obj.query_ids)} queries, e.g. {qrels_obj.query_ids[:3]})"
            )
        evaluated.append(results)
        files.append(describe_input(obj, "run"))
        del run
    names = [g if g is not None else (r.run_name or os.path.basename(lbl))
             for g, r, lbl in zip(given, evaluated, labels)]
    names = _unique_names(names, labels)
    files = [files[0]] + [
        FileRecord(record.role, name, record.path, record.size, record.sha256)
        for record, name in zip(files[1:], names)
    ]
    out = dict(zip(names, evaluated))
    for name, results in out.items():
        count = results.unjudged_queries
        if count:
            notes.append(f"{name}: {count} quer{'y' if count == 1 else 'ies'} of the run "
                         f"{'has' if count == 1 else 'have'} no judgments (ignored)")
        count = results.missing_queries
        if count:
            what = "scored 0" if missing == "zero" else "left out of its means"
            notes.append(f"{name}: {count} judged quer{'y is' if count == 1 else 'ies are'} "
                         f"not in the run ({what})")
    return out, files, notes


def resolve_baseline(baseline: str | None, names: list[str], files: list[FileRecord]) -> str:
    """The system named *baseline* (a name, or the path or file name of a run); default the first.

    Raises
    ------
    InvalidParameterError
        No such run (the message suggests the nearest name).
    """
    if baseline is None:
        return names[0]
    if baseline in names:
        return baseline
    for record, name in zip(files[1:], names):  # the path or file name of a run
        if baseline in (record.path, os.path.basename(record.path)):
            return name
    near = difflib.get_close_matches(baseline, names, n=1)
    hint = f"; did you mean {near[0]!r}?" if near else ""
    raise InvalidParameterError(f"baseline {baseline!r} is not one of the runs {names}{hint}")


def curve_templates(
    families: Iterable[str | Measure], measures: list[Measure], rel: float | None
) -> list[Measure]:
    """The curves to draw: each family with the parameters of a measure of it in *measures*.

    Examples
    --------
    >>> from rankwise.measures import parse
    >>> [str(t) for t in curve_templates(["ndcg", "P"], [parse("ndcg@10(gain=linear)")], 2)]
    ['ndcg(gain=linear)', 'P(rel=2)']
    """
    templates: list[Measure] = []
    for family in families:
        template = curve_template(family)
        for measure in measures:  # the parameters the user asked for, e.g. gain=linear
            if measure.name == template.name and measure.cutoff is not None:
                template = Measure(measure.name, None, measure.params)
                break
        else:
            if rel is not None and "rel" in template.family.params and \
                    "rel" not in dict(template.params):
                template = template.replace(rel=float(rel))
        if template not in templates:
            templates.append(template)
    return templates


def build_report(
    qrels: Any,
    runs: Mapping[str, Any] | Sequence[Any],
    measures: str | Measure | Iterable[str | Measure],
    *,
    baseline: str | None = None,
    test: str = "randomization",
    correction: str | None = "holm",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed: int | None = None,
    ci: str = "t",
    missing: str = "skip",
    rel: float | None = None,
    depth: int | None = None,
    judged_only: bool = False,
    qrels_format: str | None = None,
    run_format: str | None = None,
    ties: str = "trec",
    curves: Iterable[str | Measure] = CURVE_FAMILIES,
    max_k: int = 100,
    top: int = 10,
    title: str | None = None,
    created: datetime | None = None,
    reading: Reading | None = None,
) -> Report:
    """Evaluate and compare runs for an HTML report.

    Parameters
    ----------
    qrels : Qrels, path, frame or dict
        The judgments.
    runs : dict ``{name: run}`` or list of runs
        One or more runs (paths, Run objects, frames, dicts); a list is
        named by the runs' ids, else their file names.
    measures : str, Measure or list
        The measures of the table, the distributions and the differences.
    baseline : str, optional
        The run the others are compared with (its name, or its path);
        default: the first.
    test, correction, alpha, n_resamples, seed, ci
        The paired tests, as in :func:`rankwise.comparison.compare`.
    missing, rel, depth, judged_only, ties
        As in :func:`rankwise.evaluate`.
    qrels_format, run_format : str, optional
        The format of files given by path (default: from the extension).
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
    from rankwise.evaluation import parse_measures

    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise InvalidParameterError(f"top must be a positive integer, got {top!r}")
    parsed = parse_measures(measures, rel)
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
    templates = curve_templates(curves, numeric, rel)
    wanted = list(numeric)
    for template in templates:
        for measure in curve_measures(template, max_k):
            if measure not in wanted:
                wanted.append(measure)
    results, files, coverage = evaluate_runs(
        qrels, runs, wanted, depth=depth, missing=missing, judged_only=judged_only,
        qrels_format=qrels_format, run_format=run_format, reading=reading, ties=ties,
    )
    notes.extend(coverage)
    names = list(results)
    chosen = resolve_baseline(baseline, names, files) if len(names) > 1 else None
    if chosen is not None:  # the baseline first: it leads every table
        results = {chosen: results[chosen], **{n: r for n, r in results.items() if n != chosen}}
    comparison = None
    testable = [m for m in numeric if m.family.aggregate == "mean"]
    untested = [m for m in numeric if m.family.aggregate != "mean"]
    if untested and len(names) > 1:
        notes.append("not tested for significance (not aggregated by an arithmetic mean): "
                     + ", ".join(str(m) for m in untested))
    if chosen is not None and testable:
        from rankwise.comparison import compare_results

        comparison = compare_results(
            results, testable, baseline=chosen, test=test, correction=correction,
            alpha=alpha, n_resamples=n_resamples, seed=seed, ci=ci,
        )
        notes.extend(comparison.notes)
    settings = {
        "queries evaluated": "the queries of the judgments; "
                             + ("a judged query a run misses scores 0" if missing == "zero"
                                else "a judged query a run misses is left out of its means"),
        "relevance level": "grade >= 1" if rel is None else f"grade >= {float(rel):g}",
        "depth": "all retrieved documents" if depth is None else f"first {depth} documents",
        "judged only": "yes (unjudged documents dropped)" if judged_only else "no",
        "ties": {
            "trec": "score descending, then document id descending (trec_eval)",
            "average": "expected value over all orders of tied documents",
            "rank": "the runs' rank column",
            "worst": "relevant documents last among tied ones (a lower bound)",
            "best": "relevant documents first among tied ones (an upper bound)",
        }.get(ties, ties),
        "curves": f"k = 1 .. {max_k}",
    }
    if comparison is not None:
        settings.update({
            "test": comparison.test,
            "correction": comparison.correction,
            "alpha": f"{comparison.alpha:g}",
            "confidence intervals": f"{comparison.confidence:.0%} "
                                    + ("Student t" if comparison.ci == "t" else "bootstrap"),
            "resamples": f"{comparison.n_resamples:,}",
            "seed": str(comparison.seed),
        })
    definitions = describe_measures(numeric)
    for template, record in zip(
        templates, describe_measures([t.replace(cutoff=1) for t in templates])
    ):
        definitions.append(MeasureRecord(
            f"{curve_label(template)}, k = 1..{max_k}", record.summary, record.formula,
            record.parameters, record.reference,
        ))
    count = len(names)
    return Report(
        title=title or ("rankwise report: " + ", ".join(names[:4])
                        + (f" and {count - 4} more" if count > 4 else "")),
        systems=list(results),
        baseline=chosen,
        measures=numeric,
        results=results,
        curves=templates,
        max_k=max_k,
        comparison=comparison,
        files=files,
        definitions=definitions,
        settings=settings,
        versions=environment(),
        created=created or now(),
        notes=notes,
        top=top,
    )
