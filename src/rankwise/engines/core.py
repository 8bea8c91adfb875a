"""The engine core: what every engine shares once its ranks are computed.

An engine turns judgments and a run into a
:class:`~rankwise.kernels.ranking.TiedRanking` (the ranks of the judged
documents, their tie groups and the judged grades of each query), through
:func:`rankwise.kernels.ranking.assemble_ranking`. From there this module
does the rest, the same for every engine, so their numbers agree by
construction:

- :func:`prepare_measures`: the measures asked for, parsed, with the
  options' relevance level applied;
- :func:`check_supported`: every measure has a kernel under the options
  (before any data is read or ranked);
- :func:`compute`: the kernels over the ranking, one value per query;
- :func:`evaluate_ranking`: :func:`compute` plus the tie report, as
  :class:`~rankwise.results.Results`;
- :class:`Coverage` and :func:`coverage_notes`: queries only on one side,
  said the same way by the library, the command line and the report.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise.exceptions import RankwiseWarning, UnsupportedMeasureError
from rankwise.measures import Measure, parse_many
from rankwise.options import EvalOptions
from rankwise.results import Results, TieReport, aggregate

if TYPE_CHECKING:
    from rankwise.kernels.ranking import TiedRanking

__all__ = [
    "Coverage",
    "check_supported",
    "compute",
    "coverage_notes",
    "cutoff_groups",
    "evaluate_ranking",
    "gain_notes",
    "kernel_for",
    "prepare_measures",
    "relevance_notes",
    "tie_report",
    "warn_coverage",
    "warn_notes",
    "warn_relevance",
]


def prepare_measures(
    measures: str | Measure | Iterable[str | Measure], options: EvalOptions
) -> list[Measure]:
    """Parse *measures* and give the options' relevance level to those that take one.

    A measure that sets ``rel`` itself keeps it. Duplicates are dropped, the
    first position kept.

    Examples
    --------
    >>> [str(m) for m in prepare_measures("P@5, map(rel=3), ndcg", EvalOptions(rel=2))]
    ['P@5(rel=2)', 'map(rel=3)', 'ndcg']
    """
    parsed = parse_many(measures)
    if options.rel is None:
        return parsed
    out: list[Measure] = []
    for measure in parsed:
        if "rel" in measure.family.params and "rel" not in dict(measure.params):
            measure = measure.replace(rel=options.rel)
        if measure not in out:
            out.append(measure)
    return out


def kernel_for(measure: Measure, ties: str, depth: int | None) -> Any:
    """The kernel computing *measure* under tie policy *ties* (and a depth cut).

    Raises
    ------
    UnsupportedMeasureError
        No kernel computes the measure that way (the message says what does).
    """
    from rankwise.kernels import KERNELS
    from rankwise.kernels.tie_average import average_kernel

    if measure.name not in KERNELS:
        raise UnsupportedMeasureError(f"measure {str(measure)!r} is not implemented")
    if ties == "average":
        return average_kernel(measure.name, KERNELS[measure.name], depth)
    return KERNELS[measure.name]


def check_supported(measures: Sequence[Measure], options: EvalOptions) -> None:
    """Raise before any work when a measure cannot be computed under *options*."""
    for measure in measures:
        kernel_for(measure, options.ties, options.depth)


def compute(
    ranking: TiedRanking, measures: Sequence[Measure], options: EvalOptions
) -> dict[Measure, np.ndarray]:
    """One value per evaluated query (``ranking.query_ids``) for each measure."""
    from rankwise.kernels import Context

    kernels = {m: kernel_for(m, options.ties, ranking.depth) for m in measures}
    context = Context(ranking.view(options.ties))
    return _run_kernels(context, measures, kernels, by_cutoff=options.ties != "average")


MIN_CUTOFFS_AT_ONCE = 2
"""A family asked at this many cutoffs or more is computed in one pass
(:data:`rankwise.kernels.CUTOFF_KERNELS`)."""


def cutoff_groups(
    measures: Sequence[Measure],
) -> dict[tuple[str, tuple[tuple[str, Any], ...]], list[Measure]]:
    """The measures computed in one pass: ``{(family, params): [measure at each cutoff]}``."""
    from rankwise.kernels import CUTOFF_KERNELS

    groups: dict[tuple[str, tuple[tuple[str, Any], ...]], list[Measure]] = {}
    for measure in measures:
        if measure.cutoff is not None and measure.name in CUTOFF_KERNELS:
            groups.setdefault((measure.name, measure.params), []).append(measure)
    return {key: members for key, members in groups.items()
            if len(members) >= MIN_CUTOFFS_AT_ONCE}


def _run_kernels(
    context: Any, measures: Sequence[Measure], kernels: dict[Measure, Any], *, by_cutoff: bool
) -> dict[Measure, np.ndarray]:
    """Each measure's values; a family asked at several cutoffs in one pass when it can be.

    The one-pass kernels give bit for bit the values of the one-cutoff kernels
    (tests/kernels/test_cutoffs.py), so grouping changes only the time:
    ``ndcg@1`` ... ``ndcg@100`` cost one pass over the hits, not a hundred.
    """
    from rankwise.kernels import CUTOFF_KERNELS

    values: dict[Measure, np.ndarray] = {}
    if by_cutoff:
        for (name, params), members in cutoff_groups(measures).items():
            cutoffs = np.array([m.cutoff for m in members], dtype=np.int64)
            rows = CUTOFF_KERNELS[name](context, Measure(name, None, params), cutoffs)
            for measure, row in zip(members, rows):
                values[measure] = row
    for measure in measures:
        if measure not in values:
            values[measure] = kernels[measure](context, measure)
    return {measure: values[measure] for measure in measures}


@dataclass(frozen=True)
class Coverage:
    """Queries found on one side only.

    Attributes
    ----------
    missing_queries : int
        Judged queries the run does not hold.
    unjudged_queries : int
        Queries of the run the judgments do not hold (always ignored).
    """

    missing_queries: int = 0
    unjudged_queries: int = 0

    @classmethod
    def between(cls, judged: Iterable[str], retrieved: Iterable[str]) -> Coverage:
        """The coverage of judged query ids by retrieved ones.

        Examples
        --------
        >>> Coverage.between(["q1", "q2"], ["q2", "q3", "q4"])
        Coverage(missing_queries=1, unjudged_queries=2)
        """
        judged_set, retrieved_set = set(judged), set(retrieved)
        both = len(judged_set.intersection(retrieved_set))
        return cls(len(judged_set) - both, len(retrieved_set) - both)


def evaluate_ranking(
    ranking: TiedRanking,
    measures: Sequence[Measure],
    options: EvalOptions,
    *,
    run_name: str = "run",
    coverage: Coverage = Coverage(),
    query_id_type: type | None = None,
) -> Results:
    """Compute *measures* from a ranking, with the tie report: the end of every engine.

    *query_id_type* ``int`` gives the query ids back as integers (the
    judgments gave them so; see :attr:`rankwise.data.Qrels.query_id_type`).
    """
    values = compute(ranking, measures, options)
    grades = ranking.judged_grades
    return Results(
        query_id_type=query_id_type,
        query_ids=ranking.query_ids,
        values=values,
        run_name=run_name,
        missing_queries=coverage.missing_queries,
        unjudged_queries=coverage.unjudged_queries,
        ties=partial(  # computed when asked for
            tie_report, ranking, tuple(measures), options.ties,
            values if options.ties in _SAME_WITHOUT_TIES else None,
        ),
        max_grade=float(grades.max()) if len(grades) else None,
        notes=tuple(gain_notes(ranking.judged_grades, measures)),
    )


LINEAR_GAIN_TOOLS = "trec_eval, pytrec_eval, ranx, ir_measures and scikit-learn"
"""The tools whose nDCG uses the grade itself as the gain."""


def gain_notes(judged_grades: np.ndarray, measures: Sequence[Measure]) -> list[str]:
    """What to say when graded judgments meet a measure with the exponential gain.

    With grades 0 and 1 only, 2^grade - 1 is the grade itself and nothing is
    said. A measure that sets its gains explicitly (``gains=``) is left alone.

    Examples
    --------
    >>> from rankwise.measures import parse
    >>> gain_notes(np.array([0.0, 1.0]), [parse("ndcg@10")])
    []
    >>> note = gain_notes(np.array([0.0, 2.0]), [parse("ndcg@10"), parse("map")])[0]
    >>> note[:60]
    "ndcg@10 uses rankwise's gain 2^grade - 1 and the judgments h"
    >>> note[-49:]
    'the gain: ndcg@10(gain=linear) gives their number'
    """
    exponential = [
        m for m in measures
        if "gain" in m.family.params and m.param("gain") == "exp" and not m.param("gains")
    ]
    grades = np.asarray(judged_grades)
    if not exponential or not np.any((grades > 0) & (grades != 1)):
        return []
    names = ", ".join(str(m) for m in exponential)
    linear = str(exponential[0].replace(gain="linear"))
    verb = "uses" if len(exponential) == 1 else "use"
    return [
        f"{names} {verb} rankwise's gain 2^grade - 1 and the judgments have grades above 1; "
        f"{LINEAR_GAIN_TOOLS} use the grade itself as the gain: {linear} gives their number"
    ]


_SAME_WITHOUT_TIES = ("trec", "worst", "best")
"""Tie policies that rank a query without tied judged documents the same way."""


def tie_report(
    ranking: TiedRanking, measures: Sequence[Measure], ties: str,
    values: dict[Measure, np.ndarray] | None = None,
) -> TieReport:
    """How much ties decide the result: affected queries and best/worst bounds per measure.

    *values*, the measures' values under a policy of :data:`_SAME_WITHOUT_TIES`,
    lets the bounds of the families computed in one pass (:func:`cutoff_groups`:
    the curves of a report) be computed on the queries with tied judged
    documents only: the other queries rank the same under every such policy,
    and those kernels give each query the same bits whatever the other
    queries, so the bounds are the same numbers, at the cost of the tied
    queries.
    """
    from rankwise.kernels import KERNELS, Context
    from rankwise.kernels._unique import distinct

    if not ranking.has_ties:
        return TieReport(ties, 0, 0, {})
    data = ranking.view("trec")
    tied = data.tie_size > 1
    cutoffs = {m.cutoff for m in measures if m.cutoff is not None}
    if ranking.depth is not None:
        cutoffs.add(ranking.depth)
    # a tied group straddles a cutoff k when tie_above < k < tie_above + tie_size:
    # the first cutoff above tie_above decides, for all cutoffs at once
    ordered = np.array(sorted(cutoffs), dtype=np.int64)
    above = np.searchsorted(ordered, data.tie_above, side="right")
    inside = above < len(ordered)
    straddle = np.zeros(len(tied), dtype=bool)
    straddle[inside] = ordered[above[inside]] < (data.tie_above + data.tie_size)[inside]
    straddle &= tied
    rel = next((m.param("rel") for m in measures if "rel" in m.family.params), 1.0)
    relevant = data.hit_grade >= rel
    group = data.hit_query.astype(np.int64) * (1 << 32) + data.tie_above
    groups, _, inverse = distinct(group[tied])
    rel_count = np.bincount(inverse, weights=relevant[tied], minlength=len(groups))
    size = np.zeros(len(groups))
    size[inverse] = data.tie_size[tied]
    mixed_groups = (rel_count > 0) & (rel_count < size)
    mixed_queries = distinct(groups[mixed_groups] >> 32)[0]
    bounds: dict[str, tuple[float, float]] = {}
    numeric = [m for m in measures if not m.family.text_valued]
    kernels = {m: KERNELS[m.name] for m in numeric}
    # the one-pass families on the tied queries only: their kernels give each query the
    # same bits whatever the other queries (tests/kernels/test_cutoffs.py); the others in full
    grouped = [] if values is None else [
        m for members in cutoff_groups(numeric).values() for m in members]
    in_groups = set(grouped)
    rest = [m for m in numeric if m not in in_groups]
    low: dict[Measure, np.ndarray] = {}
    high: dict[Measure, np.ndarray] = {}
    if grouped and values is not None:
        # queries with a tied judged document (also past the depth cut: a tie can straddle it)
        affected = distinct(ranking.hit_query[ranking.tie_size > 1])[0]
        part = ranking.subset(affected)
        worst = _run_kernels(Context(part.view("worst")), grouped, kernels, by_cutoff=True)
        best = _run_kernels(Context(part.view("best")), grouped, kernels, by_cutoff=True)
        for measure in grouped:
            low[measure], high[measure] = values[measure].copy(), values[measure].copy()
            low[measure][affected], high[measure][affected] = worst[measure], best[measure]
    if rest:
        low.update(_run_kernels(Context(ranking.view("worst")), rest, kernels, by_cutoff=True))
        high.update(_run_kernels(Context(ranking.view("best")), rest, kernels, by_cutoff=True))
    for measure in numeric:
        bounds[str(measure)] = (aggregate(measure, low[measure]),
                                aggregate(measure, high[measure]))
    return TieReport(
        ties,
        len(distinct(data.hit_query[straddle])[0]),
        len(mixed_queries),
        bounds,
    )


def coverage_notes(
    unjudged_queries: int, missing_queries: int, missing: str, *, remedy: str = "missing='zero'"
) -> list[str]:
    """What to say about queries found on one side only (empty when nothing).

    *remedy* names the option that scores missing queries (``--missing zero``
    on the command line).

    Examples
    --------
    >>> coverage_notes(1, 2, "skip")  # doctest: +NORMALIZE_WHITESPACE
    ['1 query of the run has no judgments (ignored)',
     "2 judged queries are not in the run (left out of the means; missing='zero'
      scores them 0)"]
    >>> coverage_notes(0, 1, "zero")
    ['1 judged query is not in the run (scored 0)']
    """
    notes = []
    if unjudged_queries:
        count = unjudged_queries
        notes.append(
            f"{count} quer{'y' if count == 1 else 'ies'} of the run "
            f"{'has' if count == 1 else 'have'} no judgments (ignored)"
        )
    if missing_queries:
        count = missing_queries
        what = "scored 0" if missing == "zero" else f"left out of the means; {remedy} scores them 0"
        notes.append(
            f"{count} judged quer{'y is' if count == 1 else 'ies are'} not in the run ({what})"
        )
    return notes


def warn_notes(notes: Iterable[str], stacklevel: int = 3) -> None:
    """Give each distinct note once, as a :class:`RankwiseWarning`."""
    for note in dict.fromkeys(notes):
        warnings.warn(note, RankwiseWarning, stacklevel=stacklevel)


def warn_coverage(
    results: Any, missing: str, run_name: str | None = None, stacklevel: int = 3
) -> None:
    """Say once, as a :class:`RankwiseWarning`, that queries were ignored or left out.

    A judged query scored as an empty ranking (``missing="zero"``) is what
    was asked for: it is said only when it is left out.
    """
    notes = coverage_notes(
        results.unjudged_queries or 0,
        (results.missing_queries or 0) if missing == "skip" else 0,
        missing,
    )
    if notes:
        name = run_name if run_name is not None else getattr(results, "run_name", "run")
        warnings.warn(f"run {name!r}: " + "; ".join(notes), RankwiseWarning,
                      stacklevel=stacklevel)


def relevance_notes(results: Iterable[Any]) -> list[str]:
    """Say, once per level, that no judged document reaches a measure's ``rel``.

    *results* are the :class:`~rankwise.Results` of one or more runs on the
    same judgments; the highest grade is taken over all of them.

    Examples
    --------
    >>> from rankwise.measures import parse
    >>> from rankwise.results import Results
    >>> one = Results(["q1"], {parse("P@5(rel=2)"): np.zeros(1), parse("map"): np.zeros(1)},
    ...               max_grade=1.0)
    >>> relevance_notes([one])  # doctest: +NORMALIZE_WHITESPACE
    ['no judged document has a grade of 2 or more (the highest is 1): P@5(rel=2) counts
      nothing as relevant and is 0 for every query']
    """
    items = list(results)
    grades = [r.max_grade for r in items if getattr(r, "max_grade", None) is not None]
    if not items or not grades:
        return []
    top = max(grades)
    by_level: dict[float, list[str]] = {}
    for measure in items[0].measures:
        if "rel" not in measure.family.params:
            continue
        level = float(measure.param("rel"))
        if level > top:
            by_level.setdefault(level, []).append(str(measure))
    notes = []
    for level, names in by_level.items():
        several = len(names) > 1
        notes.append(
            f"no judged document has a grade of {level:g} or more (the highest is {top:g}): "
            f"{', '.join(names)} count{'' if several else 's'} nothing as relevant and "
            f"{'are' if several else 'is'} 0 for every query"
        )
    return notes


def warn_relevance(results: Iterable[Any], stacklevel: int = 3) -> None:
    """Say :func:`relevance_notes` once, as one :class:`RankwiseWarning`."""
    notes = relevance_notes(results)
    if notes:
        warnings.warn("; ".join(notes), RankwiseWarning, stacklevel=stacklevel)
