"""The :class:`Report`: everything the HTML report shows, gathered from evaluated results.

Nothing here evaluates: :func:`rankwise.reporting.build_report` evaluates and
compares the runs, then fills a :class:`Report` with the helpers below.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from rankwise._wording import counted
from rankwise.measures import Measure
from rankwise.options import EvalOptions
from rankwise.report.lists import RankedLists
from rankwise.report.protocols import ComparisonLike, PowerLike, ResultsLike
from rankwise.report.provenance import (
    FileRecord,
    MeasureRecord,
    describe_measures,
)
from rankwise.report.summaries import curve_label, curve_template

__all__ = ["CURVE_FAMILIES", "Report", "curve_templates", "default_title",
           "describe_definitions", "describe_settings"]

CURVE_FAMILIES = ("ndcg", "P", "recall")
"""The measures drawn as curves over k in a report."""


@dataclass
class Report:
    """Everything an HTML report shows; :meth:`to_html` renders it, :meth:`save` writes it.

    Built by :func:`rankwise.reporting.build_report`.

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
    discrimination : DiscriminativePower or None
        The discriminative power of each measure over all pairs of systems,
        with its ASL curve (three systems or more; see
        :func:`rankwise.design.discriminative_power`).
    lists : RankedLists or None
        Each system's first documents per query, for the query explorer
        (:mod:`rankwise.report.lists`; None: the explorer shows values only).
    topics : dict or None
        ``{query id: text}``, searched and shown by the explorer.
    documents : dict or None
        ``{document id: text}`` of the documents of the lists.
    """

    title: str
    systems: list[str]
    baseline: str | None
    measures: list[Measure]
    results: Mapping[str, ResultsLike]
    curves: list[Measure]
    max_k: int
    comparison: ComparisonLike | None
    files: list[FileRecord]
    definitions: list[MeasureRecord]
    settings: dict[str, str]
    versions: dict[str, str]
    created: datetime
    notes: list[str] = field(default_factory=list)
    top: int = 10
    discrimination: PowerLike | None = None
    lists: RankedLists | None = None
    topics: Mapping[str, str] | None = None
    documents: Mapping[str, str] | None = None

    @property
    def n_queries(self) -> int:
        """Queries evaluated for at least one system."""
        ids: set[str] = set()
        for item in self.results.values():
            ids.update(item.query_ids)
        return len(ids)

    def to_html(self) -> str:
        """The self-contained HTML page (its figures are SVG drawn by rankwise: no matplotlib)."""
        from rankwise.report.html import render_html

        return render_html(self)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the HTML page to *path* (UTF-8, atomically)."""
        from rankwise._files import write_file

        write_file(self.to_html().encode("utf-8"), path)


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
            if rel is not None and template.family.takes_level and \
                    "rel" not in dict(template.params):
                template = template.replace(rel=float(rel))
        if template not in templates:
            templates.append(template)
    return templates


def describe_settings(
    options: EvalOptions, comparison: ComparisonLike | None, max_k: int,
    discrimination: PowerLike | None = None,
) -> dict[str, str]:
    """What changed the numbers, in words, for the report's Settings section."""
    settings = options.describe()
    settings["curves"] = f"k = 1 .. {max_k}"
    if discrimination is not None:
        settings["discriminative power"] = (
            f"{discrimination.method}, "
            f"{counted(discrimination.n_resamples, 'resample', grouped=True)}, "
            f"alpha {discrimination.alpha:g}, seed {discrimination.seed}")
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
    return settings


def describe_definitions(
    measures: list[Measure], templates: list[Measure], max_k: int
) -> list[MeasureRecord]:
    """The definitions of the measures and of the curves (``ndcg@k, k = 1..max_k``)."""
    definitions = describe_measures(measures)
    for template, record in zip(
        templates, describe_measures([t.replace(cutoff=1) for t in templates])
    ):
        definitions.append(MeasureRecord(
            f"{curve_label(template)}, k = 1..{max_k}", record.summary, record.formula,
            record.parameters, record.reference,
        ))
    return definitions


def default_title(names: list[str]) -> str:
    """``rankwise report: a, b, c, d and 2 more``."""
    count = len(names)
    return "rankwise report: " + ", ".join(names[:4]) + (
        f" and {count - 4} more" if count > 4 else ""
    )
