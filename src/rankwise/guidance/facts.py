"""What the judgments and runs hold, as numbers: the facts the guide's rules read.

Nothing here decides anything: :func:`judgment_facts` counts grades and
relevant documents per query (numpy over the judgments' columns), and
:func:`run_facts`, :func:`power_facts` and :func:`comparison_facts` read
what :func:`rankwise.evaluate`, :func:`rankwise.compare` and the study
design of :mod:`rankwise.design` already compute (judged@k, the bounds of
``unjudged="bounds"``, the tie report, topic set sizes).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise._wording import counted
from rankwise.exceptions import InvalidParameterError

if TYPE_CHECKING:
    from rankwise.comparison import Comparison
    from rankwise.data import Qrels
    from rankwise.results import Results

__all__ = [
    "JUDGED_CUTOFFS",
    "POOLED",
    "ComparisonFacts",
    "Facts",
    "JudgmentFacts",
    "PowerFacts",
    "RunFacts",
    "cutoff_of",
    "judged_name",
    "judgment_facts",
    "pool_depth",
    "power_facts",
    "run_facts",
    "unpowered_note",
]

JUDGED_CUTOFFS = (5, 10, 20, 50, 100, 200, 500, 1000)
"""The depths at which judged@k is read to find how deep a run is judged."""

POOLED = 0.9
"""A depth counts as judged when at least this share of its documents is (judged@k)."""


@dataclass(frozen=True)
class JudgmentFacts:
    """The judgments in numbers.

    Attributes
    ----------
    source : str or None
        The file they came from.
    n_queries, n_judgments : int
    grades : tuple of (grade, count)
        Each grade present and how many judgments have it, ascending.
    rel : float
        The relevance level: a grade ``>= rel`` is relevant.
    levels : int
        Distinct relevant grades (1: binary judgments).
    top_grade : float
        The highest grade (0 without judgments).
    negative : int
        Judgments with a negative grade.
    with_relevant, one_relevant : int
        Queries with at least one relevant document; with exactly one.
    relevant_min, relevant_median, relevant_mean, relevant_max : float
        Relevant documents per query, over the queries with at least one.
    judged_median : float
        Judged documents per query (median).
    fewer_than_k : int
        Queries with at least one and fewer than *k* relevant documents.
    best_precision : float
        P@k of a perfect ranking, averaged over the queries with a relevant
        document: min(R, k) / k.
    gained_not_relevant : int
        Queries without a relevant document that have a positive grade (below
        *rel*): ndcg, which reads grades rather than *rel*, does not score them 0.
    """

    source: str | None
    n_queries: int
    n_judgments: int
    grades: tuple[tuple[float, int], ...]
    rel: float
    levels: int
    top_grade: float
    negative: int
    with_relevant: int
    one_relevant: int
    relevant_min: float
    relevant_median: float
    relevant_mean: float
    relevant_max: float
    judged_median: float
    fewer_than_k: int
    best_precision: float
    gained_not_relevant: int = 0

    @property
    def no_relevant(self) -> int:
        """Queries without a relevant document."""
        return self.n_queries - self.with_relevant

    @property
    def graded(self) -> bool:
        """More than one relevant grade."""
        return self.levels > 1

    def grades_text(self) -> str:
        """``grade 0 (3,120 judgments, 85%), 1 (561, 15%)``."""
        total = max(self.n_judgments, 1)
        unit = {True: " judgment", False: " judgments"}
        parts = [f"{_number(grade)} ({count:,}{unit[count == 1] if i == 0 else ''}, "
                 f"{_share(count / total)})" for i, (grade, count) in enumerate(self.grades)]
        return ("grade " if len(parts) == 1 else "grades ") + ", ".join(parts)


@dataclass(frozen=True)
class RunFacts:
    """One run in numbers, against the judgments.

    Attributes
    ----------
    name : str
    source : str or None
    n_queries : int
        Judged queries the run holds (the queries evaluated).
    missing, extra : int
        Judged queries the run does not hold; the run's queries the judgments
        do not hold.
    retrieved_min, retrieved_median, retrieved_max : float
        Documents retrieved per evaluated query.
    short : int
        Evaluated queries with fewer than *k* documents retrieved.
    judged : dict
        The share of the documents of the top k that are judged
        (``judged@k(denominator=retrieved)``: a ranking shorter than k is not
        counted as unjudged) at the depths of :data:`JUDGED_CUTOFFS` the run
        reaches, and at the cut-off.
    judged_all : float
        The share of all retrieved documents that are judged.
    means : dict
        Canonical measure name -> mean.
    bounds : dict
        Measure -> (low, high): its mean with the unjudged documents of the
        top *k* taken as not relevant, and as relevant at the top grade
        (``unjudged="bounds"``, ``depth=k``).
    tied_queries : int
        Queries with a tie group that mixes a relevant document with others,
        or holds a judged document across a cut-off.
    tie_bounds : dict
        Measure -> (worst, best) mean over the orders of tied documents, for
        the measures whose 4th decimal the order changes.
    """

    name: str
    source: str | None
    n_queries: int
    missing: int
    extra: int
    retrieved_min: float
    retrieved_median: float
    retrieved_max: float
    short: int
    judged: dict[int, float]
    judged_all: float
    means: dict[str, float]
    bounds: dict[str, tuple[float, float]]
    tied_queries: int
    tie_bounds: dict[str, tuple[float, float]]


@dataclass(frozen=True)
class PowerFacts:
    r"""How many queries a difference needs in one measure (a paired t-test, Sakai 2016).

    Attributes
    ----------
    measure : str
    n_queries : int
        The queries evaluated (for every run).
    variance : float
        :math:`\sigma_t^2`, the variance of the per-query differences assumed.
    residual : float or None
        :math:`V_E` of the two-way ANOVA of the runs (two runs or more), from
        which ``variance = 2 V_E``; None from one run, where
        ``variance = 2 x`` the variance of its per-query values.
    runs : int
    needed : int
        Queries for power ``1 - beta`` at a difference *min_diff*.
    power : float
        The power at *n_queries*.
    """

    measure: str
    n_queries: int
    variance: float
    residual: float | None
    runs: int
    needed: int
    power: float


@dataclass(frozen=True)
class ComparisonFacts:
    """Which pairs of runs differ significantly, per measure (from :func:`rankwise.compare`).

    Attributes
    ----------
    pairs : int
    significant : dict
        Measure -> number of pairs with ``p_adjusted <= alpha``.
    largest : dict
        Measure -> (system, against, delta) of the largest difference.
    test : str
        The test and correction, in words.
    """

    pairs: int
    significant: dict[str, int]
    largest: dict[str, tuple[str, str, float]]
    test: str


@dataclass(frozen=True)
class Facts:
    """Everything the rules read."""

    judgments: JudgmentFacts
    runs: tuple[RunFacts, ...]
    cutoff: int
    deep: int
    min_diff: float
    alpha: float
    beta: float
    measures: tuple[str, ...] = ()
    power: tuple[PowerFacts, ...] = ()
    comparison: ComparisonFacts | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def shallow(self) -> str:
        """The first measure suggested that reads the top *k* only (P@k if none)."""
        for name in self.measures:
            cut = cutoff_of(name)
            if cut is not None and cut <= self.cutoff and not name.startswith("judged"):
                return name
        return f"P@{self.cutoff}"


def _number(value: float) -> str:
    return f"{int(value)}" if float(value).is_integer() else f"{value:g}"


def _share(value: float) -> str:
    """A share as a percentage: whole numbers, but never 0% or 100% for what is not."""
    percent = 100 * value
    if 0 < percent < 1:
        return f"{percent:.1f}%" if percent >= 0.1 else "<0.1%"
    if 99 < percent < 100:
        return f"{percent:.1f}%" if percent <= 99.9 else ">99.9%"
    return f"{percent:.0f}%"


def cutoff_of(name: str) -> int | None:
    """The cut-off of a measure's canonical name (None without one).

    Examples
    --------
    >>> cutoff_of("ndcg@10"), cutoff_of("map"), cutoff_of("P@5(rel=2)")
    (10, None, 5)
    """
    from rankwise.measures import parse

    return parse(name).cutoff


def judgment_facts(qrels: Qrels, *, rel: float, cutoff: int) -> JudgmentFacts:
    """Count the grades and the relevant documents of each query of *qrels*.

    Examples
    --------
    >>> from rankwise.data import Qrels
    >>> facts = judgment_facts(Qrels.from_dict({"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"d": 1},
    ...                                         "q3": {"e": 0}}), rel=1, cutoff=10)
    >>> facts.grades, facts.levels, facts.with_relevant, facts.one_relevant
    (((0.0, 2), (1.0, 2), (2.0, 1)), 2, 2, 1)
    >>> facts.relevant_median, facts.best_precision
    (1.5, 0.15)
    """
    grades = np.asarray(qrels.grades, dtype=np.float64)
    codes = np.asarray(qrels.query_codes)
    n = qrels.n_queries
    values, counts = np.unique(grades, return_counts=True)
    relevant = grades >= rel
    per_query = np.bincount(codes[relevant], minlength=n) if n else np.zeros(0, np.int64)
    judged = np.bincount(codes, minlength=n) if n else np.zeros(0, np.int64)
    some = per_query[per_query > 0]
    gained = np.bincount(codes[grades > 0], minlength=n) if n else np.zeros(0, np.int64)
    nan = math.nan
    return JudgmentFacts(
        source=qrels.source,
        n_queries=n,
        n_judgments=len(grades),
        grades=tuple((float(v), int(c)) for v, c in zip(values, counts)),
        rel=float(rel),
        levels=int(np.unique(grades[relevant]).size),
        top_grade=float(values[-1]) if len(values) else 0.0,
        negative=int(np.count_nonzero(grades < 0)),
        with_relevant=len(some),
        one_relevant=int(np.count_nonzero(some == 1)),
        relevant_min=float(some.min()) if len(some) else nan,
        relevant_median=float(np.median(some)) if len(some) else nan,
        relevant_mean=float(some.mean()) if len(some) else nan,
        relevant_max=float(some.max()) if len(some) else nan,
        judged_median=float(np.median(judged)) if n else nan,
        fewer_than_k=int(np.count_nonzero(some < cutoff)),
        best_precision=float(np.minimum(some, cutoff).mean() / cutoff) if len(some) else nan,
        gained_not_relevant=int(np.count_nonzero((per_query == 0) & (gained > 0))),
    )


def judged_name(k: int) -> str:
    """The measure the guide reads for the share of the top *k* that is judged.

    Examples
    --------
    >>> judged_name(10)
    'judged@10(denominator=retrieved)'
    """
    return f"judged@{k}(denominator=retrieved)"


def pool_depth(judged: Mapping[int, float]) -> int:
    """The deepest cut-off k with judged@k >= :data:`POOLED` from the top (0: not even 5).

    Examples
    --------
    >>> pool_depth({5: 1.0, 10: 0.95, 20: 0.7, 50: 0.93})
    10
    """
    depth = 0
    for k in sorted(judged):
        if judged[k] < POOLED:
            break
        depth = k
    return depth


def run_facts(results: Results, bounds: Results | None, *, source: str | None, cutoff: int,
              measures: Sequence[str]) -> RunFacts:
    """Read one run's facts from its evaluation (and its bounds at depth *cutoff*).

    *results* holds ``num_ret``, ``judged`` and :func:`judged_name` at :data:`JUDGED_CUTOFFS`
    and the suggested *measures*; *bounds* the shallow measures evaluated with
    ``unjudged="bounds", depth=cutoff``.
    """
    retrieved = np.asarray(results["num_ret"]) if results.n_queries else np.zeros(1)
    deepest = float(retrieved.max()) if len(retrieved) else 0.0
    judged = {k: results.mean[judged_name(k)] for k in sorted({*JUDGED_CUTOFFS, cutoff})
              if judged_name(k) in results and k <= max(deepest, cutoff)}
    ties = results.ties
    watched = [name for name in measures if name in results.mean]
    changed = [name for name in ties.changed_digits(4) if name in watched]
    return RunFacts(
        name=results.run_name,
        source=source,
        n_queries=results.n_queries,
        missing=int(results.missing_queries),
        extra=int(results.unjudged_queries),
        retrieved_min=float(retrieved.min()),
        retrieved_median=float(np.median(retrieved)),
        retrieved_max=deepest,
        short=int(np.count_nonzero(retrieved < cutoff)) if results.n_queries else 0,
        judged=judged,
        judged_all=results.mean["judged"],
        means={name: results.mean[name] for name in watched},
        bounds=dict(bounds.unjudged.mean) if bounds is not None and bounds.unjudged else {},
        tied_queries=ties.queries_tied,
        tie_bounds={name: ties.bounds[name] for name in changed},
    )


_NO_SPREAD = 1e-20
"""A variance of per-query values at most this is the rounding of equal values: none."""


def unpowered_note(skipped: Mapping[str, str]) -> str | None:
    """The note for the measures :func:`power_facts` left out, with why (None: none).

    Examples
    --------
    >>> unpowered_note({"map": "the values do not vary over the queries"})
    'queries needed: not said for map: the values do not vary over the queries'
    >>> unpowered_note({"map": "1 query evaluated", "P@10": "1 query evaluated"})
    'queries needed: not said for map, P@10: 1 query evaluated'
    """
    if not skipped:
        return None
    by_reason: dict[str, list[str]] = {}
    for name, why in skipped.items():
        by_reason.setdefault(why, []).append(name)
    return "queries needed: not said for " + "; ".join(
        f"{', '.join(names)}: {why}" for why, names in by_reason.items())


def power_facts(results: Mapping[str, Results], measures: Sequence[str], *, qrels: Any,
                min_diff: float, alpha: float, beta: float,
                skipped: dict[str, str] | None = None) -> tuple[PowerFacts, ...]:
    r"""Topic set size and power of a paired t-test for each measure.

    Two runs or more: :math:`\sigma_t^2 = 2 V_E`, with :math:`V_E` the
    residual variance of their two-way ANOVA (:func:`rankwise.design.residual_variance`,
    Sakai's estimate). One run: twice the variance of its per-query values,
    what the differences with a second run whose values spread as much and do
    not move against them would have at most. Empty when scipy is missing,
    there are fewer than 2 queries, or the values do not vary.
    """
    from rankwise.design import residual_variance, topic_set_size
    from rankwise.stats.topic_sets import paired_t_power

    skipped = {} if skipped is None else skipped
    named = dict(results)
    if not named:
        return ()
    ids = [set(r.query_ids) for r in named.values()]
    n = len(set.intersection(*ids))
    if n < 2:
        skipped.update({name: f"{counted(n, 'query')} evaluated, a variance needs 2"
                        for name in measures})
        return ()
    residual: dict[str, float] = {}
    if len(named) >= 2:
        residual = residual_variance(qrels, named, list(measures))
    out = []
    for name in measures:
        if residual:
            ve: float | None = residual[name]
            variance = 2 * residual[name]
        else:
            ve = None
            values = np.asarray(next(iter(named.values()))[name], dtype=np.float64)
            values = values[np.isfinite(values)]
            variance = 2 * float(values.var(ddof=1)) if len(values) >= 2 else 0.0
        # below 1e-20 (a standard deviation of 1e-10: the rounding of values that are
        # equal) the values do not vary: no topic set size is derived from them
        if not variance > _NO_SPREAD or not math.isfinite(variance):
            skipped[name] = "the values do not vary over the queries"
            continue
        try:
            size = topic_set_size("t-test", min_diff, variance, alpha=alpha, beta=beta)
        except InvalidParameterError:  # more than 10^8 queries: no sentence to make
            skipped[name] = "more than 10^8 queries would be needed"
            continue
        achieved = paired_t_power(min_diff / math.sqrt(variance), n, alpha=alpha)
        out.append(PowerFacts(name, n, variance, ve, len(named), size.n, achieved))
    return tuple(out)


def comparison_facts(comparison: Comparison) -> ComparisonFacts:
    """Count the significant pairs of each measure of a comparison of every pair."""
    from rankwise.stats import CORRECTIONS, TEST_LABELS

    significant: dict[str, int] = {}
    largest: dict[str, tuple[str, str, float]] = {}
    pairs = 0
    for name in comparison.measures:
        rows = [row for row in comparison.rows if row.measure == name and row.baseline]
        pairs = len(rows)
        significant[name] = sum(bool(row.significant) for row in rows)
        top = max(rows, key=lambda row: abs(row.delta), default=None)
        if top is not None:
            largest[name] = (top.system, str(top.baseline), float(top.delta))
    correction = ("no correction" if comparison.correction == "none"
                  else f"{CORRECTIONS[comparison.correction]} correction")
    test = (f"{TEST_LABELS[comparison.test]}, {correction}, alpha {comparison.alpha:g}, "
            f"seed {comparison.seed}")
    return ComparisonFacts(pairs, significant, largest, test)
