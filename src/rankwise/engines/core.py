"""The engine core: what every engine shares once its ranks are computed.

An engine turns judgments and a run into a
:class:`~rankwise.ranking.tied.TiedRanking` (the ranks of the judged
documents, their tie groups and the judged grades of each query), through
:func:`rankwise.ranking.assemble.assemble_ranking`. From there this module
does the rest, the same for every engine, so their numbers agree by
construction:

- :func:`prepare_measures`: the measures asked for, parsed, with the
  options' relevance level applied;
- :func:`check_supported`: every measure has a kernel under the options
  (before any data is read or ranked);
- :func:`compute`: the kernels over the ranking, one value per query;
  measures in another tool's dialect (:mod:`rankwise.measures.dialects`)
  may need the run ranked another way (ties in input order, scores in
  float32, ...): the engine gives those rankings on request
  (:data:`Rankings`), and :func:`ranking_missing` says whether judged
  queries absent from the run must be ranked too;
- :func:`evaluate_ranking`: :func:`compute` plus the tie report, as
  :class:`~rankwise.results.Results`;
- :class:`Coverage` and :func:`coverage_notes`: queries only on one side,
  said the same way by the library, the command line and the report.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache, partial
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise.data._names import name_codes
from rankwise.exceptions import InvalidParameterError, RankwiseWarning, UnsupportedMeasureError
from rankwise.measures import Measure, parse_many
from rankwise.measures.dialects import (
    DEFAULT_DIALECT,
    DIALECTS,
    Conventions,
    conventions_of,
    dialect_of,
    ranking_key,
    uses_default_kernel,
)
from rankwise.options import EvalOptions, Missing, Ties
from rankwise.results import Results, TieReport, UnjudgedBounds, aggregate

if TYPE_CHECKING:
    from rankwise.kernels.context import Context
    from rankwise.ranking.tied import TiedRanking

RankingKey = tuple[str, bool, bool]
"""How a run is ranked: (tie order "docno", "input" or "ranx", float32 scores, drop self
documents)."""

DEFAULT_KEY: RankingKey = ("docno", False, False)
"""trec_eval's ranking: every engine computes it."""

Rankings = Callable[[RankingKey], "TiedRanking"]
"""An engine's way to rank the run another way, for the measures of a dialect."""

__all__ = [
    "DEFAULT_KEY",
    "Coverage",
    "Evaluator",
    "Plan",
    "RankingKey",
    "Rankings",
    "check_supported",
    "compute",
    "coverage_notes",
    "cutoff_groups",
    "evaluate_ranking",
    "gain_notes",
    "kernel_for",
    "plan_of",
    "prepare_measures",
    "ranking_missing",
    "relevance_notes",
    "tie_report",
    "unjudged_bounds",
    "warn_coverage",
    "warn_notes",
    "warn_relevance",
]


def prepare_measures(
    measures: str | Measure | Iterable[str | Measure], options: EvalOptions
) -> list[Measure]:
    """Parse *measures* and give the options' relevance level to those that take one.

    A measure that sets ``rel`` itself keeps it. The measures whose ``rel``
    binarises graded gains and is unset by default (``rbp``, the C/W/L
    family) stay graded: the level does not reach them. Duplicates are
    dropped, the first position kept.

    Examples
    --------
    >>> [str(m) for m in prepare_measures("P@5, map(rel=3), ndcg", EvalOptions(rel=2))]
    ['P@5(rel=2)', 'map(rel=3)', 'ndcg']
    >>> [str(m) for m in prepare_measures(["map(rel=1)"], EvalOptions(rel=2))]  # set: kept
    ['map']
    """
    parsed = parse_many(measures)
    if options.rel is None:
        return parsed
    out: list[Measure] = []
    for measure in parsed:
        if measure.family.takes_level and "rel" not in measure.given | dict(measure.params).keys():
            measure = measure.replace(rel=options.rel)
        if measure not in out:
            out.append(measure)
    return out


@dataclass(frozen=True)
class Plan:
    """How one measure is computed: its conventions, the ranking it reads, its kernel.

    Attributes
    ----------
    conventions : Conventions
        The record of its dialect with its own parameters applied.
    key : RankingKey
        The ranking its kernel reads.
    dialect_kernel : bool
        Computed by :mod:`rankwise.kernels.dialects` (else by rankwise's own kernels).
    own : bool
        rankwise's own measure: the options' tie policy applies to it.
    """

    conventions: Conventions
    key: RankingKey
    dialect_kernel: bool
    own: bool


@lru_cache(maxsize=8192)
def plan_of(measure: Measure) -> Plan:
    """The :class:`Plan` of *measure* (cached: a measure's plan never changes).

    Examples
    --------
    >>> from rankwise.measures import parse
    >>> plan = plan_of(parse("ndcg@10(dialect=xgboost)"))
    >>> plan.key, plan.dialect_kernel, plan.own
    (('input', True, False), True, False)
    >>> plan_of(parse("ndcg@10(dialect=ranx)")).dialect_kernel
    False
    """
    if "dialect" not in measure.family.params:
        return Plan(Conventions(), DEFAULT_KEY, False, True)
    c = conventions_of(measure)
    base = DIALECTS[DEFAULT_DIALECT].families.get(measure.name, Conventions())
    own = (
        dialect_of(measure) == DEFAULT_DIALECT
        and replace(c, gain=base.gain, gains=()) == replace(base, gains=())
        and c.gain in ("exp", "linear", base.gain)
    )
    return Plan(c, ranking_key(c), not uses_default_kernel(measure.name, c), own)


def kernel_for(measure: Measure, ties: Ties, depth: int | None) -> Any:
    """The kernel computing *measure* under tie policy *ties* (and a depth cut).

    Raises
    ------
    UnsupportedMeasureError
        No kernel computes the measure that way (the message says what does).
    """
    from rankwise.kernels import KERNELS
    from rankwise.kernels.registry import DIALECT_KERNELS

    plan = plan_of(measure)
    if plan.dialect_kernel:
        kernel = DIALECT_KERNELS.get(measure.name)
        if kernel is None:
            raise UnsupportedMeasureError(f"measure {str(measure)!r} is not implemented")
        _check_cutoff(measure)
        conventions = plan.conventions
        return lambda ctx, m: kernel(ctx, m, conventions)
    if measure.name not in KERNELS:
        raise UnsupportedMeasureError(f"measure {str(measure)!r} is not implemented")
    if ties == "average" and plan.own:
        from rankwise.kernels.tie_average import average_kernel

        return average_kernel(measure.name, KERNELS[measure.name], depth)
    return KERNELS[measure.name]


def _check_cutoff(measure: Measure) -> None:
    dialect = DIALECTS[dialect_of(measure)]
    if measure.cutoff is not None and dialect.cutoff.get(measure.name) == "none":
        raise UnsupportedMeasureError(
            f"{measure}: {dialect.tool}'s {dialect.names.get(measure.name, measure.name)} "
            f"takes no cutoff; write {measure.replace(cutoff=None)}"
        )


def ranking_missing(measures: Sequence[Measure], options: EvalOptions) -> Missing:
    """The ``missing`` policy to rank with.

    ``"zero"`` when a measure counts the judged queries the run does not
    hold (BEIR's MRR), or the options ask for it.
    """
    if options.missing == "zero":
        return "zero"
    needs = any(plan_of(m).conventions.missing == "zero" for m in measures)
    return "zero" if needs else options.missing


def check_supported(
    measures: Sequence[Measure], options: EvalOptions, *, other_rankings: bool = True
) -> None:
    """Raise before any work when a measure cannot be computed under *options*.

    An engine that cannot rank the run another way (``other_rankings=False``)
    refuses the measures of a dialect that need it.
    """
    for measure in measures:
        plan = plan_of(measure)
        if not plan.own and options.ties != "trec":
            raise InvalidParameterError(
                f"ties={options.ties!r} applies to rankwise's own measures; {measure} breaks "
                f"ties as its dialect does ({plan.conventions.ties}): evaluate it separately"
            )
        if not other_rankings and (
            plan.key != DEFAULT_KEY
            or plan.conventions.missing == "zero"
            or plan.conventions.empty == "skip"
        ):
            raise UnsupportedMeasureError(
                f"{measure} needs the run ranked as {dialect_of(measure)} does (or queries left "
                "out); this engine cannot: use the numpy engine"
            )
        kernel_for(measure, options.ties, options.depth)


def _align(values: np.ndarray, ids: list[str], target: list[str]) -> np.ndarray:
    """Values of queries *ids* re-ordered to *target* (both in byte order); NaN where absent."""
    if ids == target:
        return values
    source = np.array(ids, dtype=object)
    wanted = np.array(target, dtype=object)
    out = np.full(len(target), np.nan)
    if len(source):
        place = np.minimum(np.searchsorted(source, wanted), len(source) - 1)
        found = source[place] == wanted
        out[found] = values[place[found]]
    return out


MIN_CUTOFFS_AT_ONCE = 2
"""A family asked at this many cutoffs or more is computed in one pass
(:data:`rankwise.kernels.CUTOFF_KERNELS`)."""

_DIALECT_PARAMS = ("dialect", "empty", "denominator")


def cutoff_groups(
    measures: Sequence[Measure],
) -> dict[tuple[str, tuple[tuple[str, Any], ...]], list[Measure]]:
    """The measures computed in one pass: ``{(family, params): [measure at each cutoff]}``.

    Only rankwise's own measures (no dialect parameter, no binary gain): the
    one-pass kernels follow trec_eval's conventions.
    """
    from rankwise.kernels import CUTOFF_KERNELS

    groups: dict[tuple[str, tuple[tuple[str, Any], ...]], list[Measure]] = {}
    for measure in measures:
        params = dict(measure.params)
        if (
            measure.cutoff is not None
            and measure.name in CUTOFF_KERNELS
            and not any(key in params for key in _DIALECT_PARAMS)
            and params.get("gain") != "binary"
        ):
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


class Evaluator:
    """The measures of one evaluation, over the rankings the engine gives.

    Holds one context per ranking key and tie view, made on first use.
    :meth:`values` computes a measure, under its own conventions or any
    other record (:func:`rankwise.explain` switches them one at a time);
    :meth:`counted` says which queries its mean counts.

    Parameters
    ----------
    ranking : TiedRanking
        trec_eval's ranking of the run (ties by docno, float64 scores).
    options : EvalOptions
        The options of the evaluation.
    rankings : callable, optional
        ``rankings(key)`` ranks the run another way (see :data:`Rankings`).
    dialect_kernels : bool
        Compute rankwise's own measures with the kernels of
        :mod:`rankwise.kernels.dialects` too (the same values; faster on
        rankings that are already sorted, as training loops give).
    key : RankingKey
        How *ranking* was ranked (by default trec_eval's way).
    """

    def __init__(
        self,
        ranking: TiedRanking,
        options: EvalOptions,
        rankings: Rankings | None,
        *,
        dialect_kernels: bool = False,
        key: RankingKey = DEFAULT_KEY,
    ) -> None:
        self.ranking = ranking
        self.options = options
        self.rankings = rankings
        self.dialect_kernels = dialect_kernels and options.ties == "trec"
        self.key = key
        self.query_id_type: type | None = None  # the judgments' (str, or int)
        self._rankings: dict[RankingKey, TiedRanking] = {key: ranking}
        self._contexts: dict[tuple[RankingKey, str], Context] = {}

    def release(self, measures: Sequence[Measure]) -> None:
        """Let go of the engine's ranking callback once no later question can need it.

        The callback holds the whole run (and the judgments). The tie report,
        made when first asked for, bounds a dialect's measure on the ranking
        of its key with the tie rule replaced: when every such ranking is
        already made, the callback is dropped so that the results do not keep
        the run alive.
        """
        from rankwise.kernels.registry import DIALECT_KERNELS

        needed = {
            ranking_key(replace(plan_of(m).conventions, ties="low_first"))
            for m in measures
            if not m.family.text_valued and not plan_of(m).own and m.name in DIALECT_KERNELS
        }
        if needed <= set(self._rankings):
            self.rankings = None

    def tied(self, key: RankingKey) -> TiedRanking:
        """The ranking of *key* (asked of the engine once)."""
        if key not in self._rankings:
            if self.rankings is None:
                raise UnsupportedMeasureError(
                    f"this engine cannot rank the run as {key} (needed by a dialect)"
                )
            self._rankings[key] = self.rankings(key)
        return self._rankings[key]

    def context(self, key: RankingKey, ties: Ties) -> Context:
        """The kernels' context of the ranking of *key* under tie policy *ties*."""
        from rankwise.kernels import Context

        if (key, ties) not in self._contexts:
            self._contexts[(key, ties)] = Context(self.tied(key).view(ties))
        return self._contexts[(key, ties)]

    def values(
        self,
        measure: Measure,
        ties: Ties | None = None,
        conventions: Conventions | None = None,
    ) -> np.ndarray:
        """*measure* on its ranking, aligned to the evaluated queries.

        *ties* ("worst", "best") bounds it instead; *conventions* computes it
        under another record (as :func:`rankwise.explain` does).
        """
        from rankwise.kernels.dialects import measure_for
        from rankwise.kernels.registry import DIALECT_KERNELS, OWN_FAMILIES

        plan = plan_of(measure)
        own = plan.own and conventions is None
        c = plan.conventions if conventions is None else conventions
        if (ties is not None and not own and measure.name in DIALECT_KERNELS
                and c.ties in ("docno", "input", "ranx")):
            # an order of tied documents (not a rule over their group: average, group_end,
            # low_first, high_first give one value whatever the order): bounded by the worst
            # and the best order
            c = replace(c, ties={"worst": "low_first", "best": "high_first"}[ties])
        key = ranking_key(c)
        prefer = self.dialect_kernels and ties is None and measure.name in OWN_FAMILIES
        if prefer or not uses_default_kernel(measure.name, c):
            _check_cutoff(measure)
            kernel = DIALECT_KERNELS.get(measure.name)
            if kernel is None:
                raise UnsupportedMeasureError(f"measure {str(measure)!r} is not implemented")
            # the tie rules that move documents inside their tie group need every hit of a
            # group that straddles the depth: the "average" view keeps them
            view: Ties = "trec" if c.ties in ("docno", "input", "ranx") else "average"
            values = kernel(self.context(key, view), measure, c)
        else:
            policy = ties if ties is not None else (self.options.ties if own else "trec")
            target = measure if conventions is None else measure_for(measure, c)
            kernel = kernel_for(target, policy, self.ranking.depth)
            values = kernel(self.context(key, policy), target)
        if key != self.key:
            values = _align(values, self.tied(key).query_ids, self.ranking.query_ids)
        return values

    def grouped(self, measures: Sequence[Measure]) -> dict[Measure, np.ndarray]:
        """The values of rankwise's own measures asked at several cutoffs, a family at once.

        The measures left out (another dialect's, or a family asked once) are
        for :meth:`values`.
        """
        from rankwise.kernels.registry import OWN_FAMILIES

        if self.options.ties == "average" or self.key != DEFAULT_KEY:
            return {}
        own = [
            m for m in measures
            if not m.family.text_valued
            and plan_of(m).own
            and not plan_of(m).dialect_kernel
            and not (self.dialect_kernels and m.name in OWN_FAMILIES)
        ]
        groups = cutoff_groups(own)
        if not groups:
            return {}
        members = [m for group in groups.values() for m in group]
        kernels = {m: kernel_for(m, self.options.ties, self.ranking.depth) for m in members}
        context = self.context(DEFAULT_KEY, self.options.ties)
        return _run_kernels(context, members, kernels, by_cutoff=True)

    def counted(
        self, measure: Measure, values: np.ndarray, conventions: Conventions | None = None
    ) -> np.ndarray | None:
        """Which queries the mean of *measure* counts (None: all of them)."""
        plan = plan_of(measure)
        c = plan.conventions if conventions is None else conventions
        own = plan.own and conventions is None
        mask = None
        if (
            self.options.missing == "skip"
            and c.missing == "skip"
            and not self.ranking.in_run.all()
        ):
            mask = self.ranking.in_run.copy()
        if not own and c.no_nonrel != "nan" and np.isnan(values).any():
            # a query the measure leaves out (its dialect's empty="skip", ...); ranx's NaN
            # bpref (no judged non-relevant document) is a value: its mean is NaN too
            mask = ~np.isnan(values) if mask is None else mask & ~np.isnan(values)
        return mask


def compute(
    ranking: TiedRanking,
    measures: Sequence[Measure],
    options: EvalOptions,
    *,
    rankings: Rankings | None = None,
    counted: dict[Measure, np.ndarray] | None = None,
    dialect_kernels: bool = False,
    key: RankingKey = DEFAULT_KEY,
) -> dict[Measure, np.ndarray]:
    """One value per evaluated query (``ranking.query_ids``) for each measure.

    *rankings* ranks the run another way for the measures of a dialect that
    need it. A query a measure does not count (left out by its dialect, or
    absent from the run when only another measure counts those) has the
    value NaN, and, when *counted* is given, its mask there.
    *dialect_kernels* computes rankwise's own measures with the kernels of
    :mod:`rankwise.kernels.dialects` where they have one (same values);
    *key* says how *ranking* was ranked.
    """
    evaluator = Evaluator(ranking, options, rankings, dialect_kernels=dialect_kernels, key=key)
    return _compute(evaluator, measures, counted)


def _compute(
    contexts: Evaluator,
    measures: Sequence[Measure],
    counted: dict[Measure, np.ndarray] | None,
) -> dict[Measure, np.ndarray]:
    out: dict[Measure, np.ndarray] = {}
    grouped = contexts.grouped(measures)
    for measure in measures:
        if measure.family.text_valued:  # relstring: one string per query
            out[measure] = contexts.values(measure)
            continue
        computed = grouped[measure] if measure in grouped else contexts.values(measure)
        values = np.asarray(computed, dtype=np.float64)
        mask = contexts.counted(measure, values)
        if mask is not None:
            values = np.where(mask, values, np.nan)
            if counted is not None:
                counted[measure] = mask
        out[measure] = values
    return out


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
    def between(cls, judged: list[str], retrieved: list[str]) -> Coverage:
        """The coverage of judged query ids by retrieved ones (each list without repeats).

        Examples
        --------
        >>> Coverage.between(["q1", "q2"], ["q2", "q3", "q4"])
        Coverage(missing_queries=1, unjudged_queries=2)
        """
        both = int(np.count_nonzero(name_codes(judged, retrieved) >= 0))
        return cls(len(judged) - both, len(retrieved) - both)


def evaluate_ranking(
    ranking: TiedRanking,
    measures: Sequence[Measure],
    options: EvalOptions,
    *,
    run_name: str = "run",
    coverage: Coverage = Coverage(),
    rankings: Rankings | None = None,
    query_id_type: type | None = None,
) -> Results:
    """Compute *measures* from a ranking, with the tie report: the end of every engine.

    *rankings* ranks the run another way for the measures of a dialect that
    need it (see :func:`compute`). *query_id_type* ``int`` gives the query
    ids back as integers (the judgments gave them so; see
    :attr:`rankwise.data.Qrels.query_id_type`).

    With ``options.unjudged == "bounds"``, also with the unjudged documents
    taken as relevant (:func:`unjudged_bounds`).
    """
    contexts = Evaluator(ranking, options, rankings)
    counted: dict[Measure, np.ndarray] = {}
    values = _compute(contexts, measures, counted)
    contexts.release(measures)
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
            contexts=contexts, counted=counted,
        ),
        counted=counted,
        max_grade=float(grades.max()) if len(grades) else None,
        notes=tuple(gain_notes(ranking.judged_grades, measures)),
        unjudged=unjudged_bounds(ranking, measures, options, values) if options.bounds else None,
    )


def unjudged_bounds(
    ranking: TiedRanking,
    measures: Sequence[Measure],
    options: EvalOptions,
    values: dict[Measure, np.ndarray],
) -> UnjudgedBounds:
    """Every measure with the unjudged documents retrieved taken as relevant, next to *values*.

    They take the top grade of the judgments (at least 1), as
    :meth:`~rankwise.ranking.tied.TiedRanking.with_unjudged_as` places
    them; judged@k is reported at each measure's cutoff.
    """
    from rankwise.kernels import Context

    numeric = [m for m in measures if not m.family.text_valued]
    for m in numeric:
        order, float32, drop = ranking_key(plan_of(m).conventions)
        if (order, float32, drop) != ("docno", False, False):
            how = "; ".join(part for part, on in (
                (f"ties in {order} order", order != "docno"), ("scores as float32", float32),
                ("documents with the query's id dropped", drop)) if on)
            raise UnsupportedMeasureError(
                f"unjudged='bounds' takes the measures that rank the run as trec_eval does; "
                f"{m} ranks it as its tool does ({how}): evaluate it without "
                "unjudged='bounds'")
    grades = ranking.qrels.grades if ranking.qrels is not None else ranking.judged_grades
    top = max(float(grades.max()) if len(grades) else 1.0, 1.0)
    high = compute(ranking.with_unjudged_as(top), numeric, options)
    context = Context(ranking.view(options.ties))
    judged_kernel = kernel_for(Measure("judged", 1), options.ties, ranking.depth)
    judged: dict[str, np.ndarray] = {}
    for m in numeric:
        judged[str(m)] = judged_kernel(context, Measure("judged", m.cutoff))
    return UnjudgedBounds(
        low={str(m): values[m] for m in numeric},
        high={str(m): high[m] for m in numeric},
        judged=judged,
        mean={str(m): (aggregate(m, values[m]), aggregate(m, high[m])) for m in numeric},
        top_grade=top,
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
    >>> gain_notes(np.array([0.0, 2.0]), [parse("ndcg@10(dialect=lightgbm)")])
    []
    """
    exponential = [  # the families whose default gain is 2^grade - 1 (ndcg, dcg; not ncg),
        m for m in measures  # in rankwise's dialect (another tool's gain is that tool's)
        if "gain" in m.family.params
        and dialect_of(m) == DEFAULT_DIALECT
        and m.family.params["gain"].default == "exp"
        and m.param("gain") == "exp"
        and not m.param("gains")
    ]
    grades = np.asarray(judged_grades)
    if not exponential or not np.any((grades > 0) & (grades != 1)):
        return []
    names = ", ".join(str(m) for m in exponential)
    linear = str(exponential[0].replace(gain="linear"))
    verb = "uses" if len(exponential) == 1 else "use"
    return [
        f"{names} {verb} rankwise's gain 2^grade - 1 and the judgments have grades other "
        f"than 0 and 1; {LINEAR_GAIN_TOOLS} use the grade itself as the gain: {linear} gives "
        "their number"
    ]


_SAME_WITHOUT_TIES = ("trec", "worst", "best", "ascending")
"""Tie policies that rank a query without tied judged documents the same way."""


def tie_report(
    ranking: TiedRanking,
    measures: Sequence[Measure],
    ties: Ties,
    values: dict[Measure, np.ndarray] | None = None,
    *,
    contexts: Evaluator | None = None,
    counted: dict[Measure, np.ndarray] | None = None,
) -> TieReport:
    """How much ties decide the result: affected queries and best/worst bounds per measure.

    *values*, the measures' values under a policy of :data:`_SAME_WITHOUT_TIES`,
    lets the bounds of the families computed in one pass (:func:`cutoff_groups`:
    the curves of a report) be computed on the queries with tied judged
    documents only: the other queries rank the same under every such policy,
    and those kernels give each query the same bits whatever the other
    queries, so the bounds are the same numbers, at the cost of the tied
    queries.

    A measure of another dialect is bounded by its own kernel with the
    relevant documents of each tie group last, then first.
    """
    from rankwise.kernels import KERNELS, Context
    from rankwise.ranking._unique import distinct

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
    rel = next(
        (m.param("rel") for m in measures
         if "rel" in m.family.params and m.param("rel") is not None),
        1.0,
    )
    relevant = data.hit_grade >= rel
    group = data.hit_query.astype(np.int64) * (1 << 32) + data.tie_above
    groups, _, inverse = distinct(group[tied])
    rel_count = np.bincount(inverse, weights=relevant[tied], minlength=len(groups))
    size = np.zeros(len(groups))
    size[inverse] = data.tie_size[tied]
    mixed_groups = (rel_count > 0) & (rel_count < size)
    mixed_queries = distinct(groups[mixed_groups] >> 32)[0]
    bounds: dict[str, tuple[float, float]] = {}
    if contexts is None:
        contexts = Evaluator(ranking, EvalOptions(), None)
    counted = counted or {}
    numeric = [m for m in measures if not m.family.text_valued]
    # rankwise's own families asked at several cutoffs: one pass each
    own = [m for m in numeric if plan_of(m).own and not plan_of(m).dialect_kernel]
    grouped = [m for members in cutoff_groups(own).values() for m in members]
    kernels = {m: KERNELS[m.name] for m in grouped}
    low: dict[Measure, np.ndarray] = {}
    high: dict[Measure, np.ndarray] = {}
    if grouped and values is not None:
        # the tied queries only: their kernels give each query the same bits whatever the
        # other queries (tests/kernels/test_cutoffs.py); a tie can straddle the depth cut
        affected = distinct(ranking.hit_query[ranking.tie_size > 1])[0]
        part = ranking.subset(affected)
        worst = _run_kernels(Context(part.view("worst")), grouped, kernels, by_cutoff=True)
        best = _run_kernels(Context(part.view("best")), grouped, kernels, by_cutoff=True)
        for measure in grouped:
            low[measure], high[measure] = values[measure].copy(), values[measure].copy()
            low[measure][affected], high[measure][affected] = worst[measure], best[measure]
    elif grouped:
        low.update(_run_kernels(Context(ranking.view("worst")), grouped, kernels, by_cutoff=True))
        high.update(_run_kernels(Context(ranking.view("best")), grouped, kernels, by_cutoff=True))
    for measure in numeric:
        if measure not in low:
            low[measure] = contexts.values(measure, ties="worst")
            high[measure] = contexts.values(measure, ties="best")
        mask = counted.get(measure)
        bounds[str(measure)] = (aggregate(measure, low[measure], mask),
                                aggregate(measure, high[measure], mask))
    straddling_queries = distinct(data.hit_query[straddle])[0]
    either = distinct(np.concatenate([np.asarray(straddling_queries, dtype=np.int64),
                                      np.asarray(mixed_queries, dtype=np.int64)]))[0]
    return TieReport(
        ties,
        len(straddling_queries),
        len(mixed_queries),
        bounds,
        len(either),
    )


def coverage_notes(
    unjudged_queries: int, missing_queries: int, missing: Missing, *,
    remedy: str = "missing='zero'"
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
    results: Any, missing: Missing, run_name: str | None = None, stacklevel: int = 3
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
    from rankwise.measures.dialects import ABOVE_HALF, conventions_of

    top = max(grades)
    by_level: dict[tuple[float, str], list[str]] = {}
    for measure in items[0].measures:
        if "rel" not in measure.family.params:
            continue
        rel = measure.param("rel")
        if rel is None:  # rbp and the C/W/L family: graded gains unless rel is given
            continue
        level = float(rel)
        if level > top:
            # a query with nothing relevant: 0, or its dialect's value (LightGBM's 1)
            empty = conventions_of(measure).empty if "dialect" in measure.family.params else "0"
            by_level.setdefault((level, empty), []).append(str(measure))
    notes = []
    for (level, empty), names in by_level.items():
        several = len(names) > 1
        grade = "above 0.5" if level == ABOVE_HALF else f"of {level:g} or more"
        value = ("left out of the mean" if empty == "skip"
                 else f"{empty} for every query")
        notes.append(
            f"no judged document has a grade {grade} (the highest is {top:g}): "
            f"{', '.join(names)} count{'' if several else 's'} nothing as relevant and "
            f"{'are' if several else 'is'} {value}"
        )
    return notes


def warn_relevance(results: Iterable[Any], stacklevel: int = 3) -> None:
    """Say :func:`relevance_notes` once, as one :class:`RankwiseWarning`."""
    notes = relevance_notes(results)
    if notes:
        warnings.warn("; ".join(notes), RankwiseWarning, stacklevel=stacklevel)
