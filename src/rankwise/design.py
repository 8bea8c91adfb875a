r"""Study design: how many topics, how much power, how discriminative a measure is.

- :func:`topic_set_size` and :func:`topic_set_table`: the topics a test
  collection needs for a paired t-test, a one-way ANOVA or a confidence
  interval width (Sakai, "Topic set size design", *Information Retrieval
  Journal* 19(3), 2016), from a variance you give or that
  :func:`residual_variance` estimates from existing runs;
- :func:`power`: the power of the comparisons you already made, and the
  topics each would need for power ``1 - beta``;
- :func:`discriminative_power`: for each measure, the share of system pairs a
  test finds significantly different (Sakai, "Evaluating evaluation metrics
  based on the bootstrap", SIGIR 2006), with the achieved significance
  level (ASL) curve.

The computations live in :mod:`rankwise.stats.topic_sets` and
:mod:`rankwise.stats`; this module evaluates runs and assembles them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, get_args

import numpy as np

from rankwise._tabular import Tabular
from rankwise._validation import (
    DEPRECATED,
    LEVEL,
    POSITIVE_INT,
    Number,
    OneOf,
    check,
    loose,
    renamed,
)
from rankwise._wording import counted
from rankwise.exceptions import InvalidParameterError
from rankwise.measures import Measure
from rankwise.options import EvalOptions, Missing, Ties, Unjudged, options_from
from rankwise.stats.topic_sets import (
    TopicSetSize,
    anova_topic_set_size,
    ci_topic_set_size,
    paired_t_power,
    t_test_topic_set_size,
)

if TYPE_CHECKING:
    from rankwise.comparison import Comparison
    from rankwise.engines import Engine
    from rankwise.report.tables import Table

__all__ = [
    "DESIGN_TESTS",
    "DiscriminativePower",
    "PowerRow",
    "TopicSetSize",
    "TopicSetTable",
    "discriminative_power",
    "discriminative_power_results",
    "power",
    "residual_variance",
    "topic_set_size",
    "topic_set_table",
]

DESIGN_TESTS = ("t-test", "anova", "ci")
"""The requirements topic set size design knows."""

_DESIGN_TEST = OneOf(DESIGN_TESTS, fold=loose, aliases={
    "t": "t-test", "ttest": "t-test", "paired-t": "t-test", "one-way-anova": "anova",
    "interval": "ci", "confidence-interval": "ci"})
_RESIDUAL_VARIANCE = Number(low=0, closed="neither", finite=True)


def _design_test(test: Any) -> str:
    return str(check("test", test, _DESIGN_TEST))


# ----------------------------------------------------------------------------
# topic set sizes
# ----------------------------------------------------------------------------


def topic_set_size(
    test: str,
    min_diff: float,
    variance: float | None = None,
    *,
    residual_variance: float | None = None,
    n_systems: int | None = None,
    alpha: float = 0.05,
    beta: float = 0.20,
    method: str = "exact",
) -> TopicSetSize:
    r"""The smallest number of topics meeting a statistical requirement.

    Parameters
    ----------
    test : {"t-test", "anova", "ci"}
        The requirement: power ``1 - beta`` of a paired t-test to detect a
        difference *min_diff*; power of a one-way ANOVA over *n_systems* to
        detect a range *min_diff* between the best and the worst system; or
        an expected width of at most *min_diff* for the ``1 - alpha``
        confidence interval of a paired difference.
    min_diff : float
        :math:`minD_t`, :math:`minD` or the width :math:`\delta`.
    variance : float, optional
        The variance the requirement takes: of the per-topic differences
        (:math:`\sigma_t^2`) for ``t-test`` and ``ci``, within a system
        (:math:`\sigma^2`) for ``anova``.
    residual_variance : float, optional
        Instead of *variance*: the residual variance :math:`V_E` of a
        two-way ANOVA of past runs (:func:`residual_variance`), converted as
        Sakai does: :math:`\sigma_t^2 = 2 V_E` (paired tools; it ignores the
        covariance, so errs on the safe side), :math:`\sigma^2 = V_E` (ANOVA).
    n_systems : int, optional
        :math:`m`, for ``anova``.
    alpha, beta : float
        Type I and type II error probabilities (*beta* is not used by ``ci``).
    method : {"exact", "sakai"}
        Noncentral distributions, or the normal approximations of Sakai's
        Excel tools (see :mod:`rankwise.stats.topic_sets`).

    Returns
    -------
    TopicSetSize

    Raises
    ------
    InvalidParameterError
        Not exactly one of *variance* and *residual_variance*; *n_systems*
        missing for ``anova`` or given for another test; bad values.

    Examples
    --------
    >>> topic_set_size("t-test", 0.05, 0.01).n  # minD_t = 0.05, sigma_t^2 = 0.01
    34
    >>> topic_set_size("t-test", 0.05, residual_variance=0.005).n  # the same: 2 V_E
    34
    >>> topic_set_size("anova", 0.10, 0.05, n_systems=10).n
    158
    >>> topic_set_size("ci", 0.05, 0.01).n
    64
    """
    kind = _design_test(test)
    if (variance is None) == (residual_variance is None):
        raise InvalidParameterError(
            "give exactly one of variance (what the test takes: of the per-topic differences "
            "for t-test and ci, within a system for anova) and residual_variance (V_E of a "
            "two-way ANOVA of past runs)"
        )
    if residual_variance is not None:
        residual_variance = check("residual_variance", residual_variance, _RESIDUAL_VARIANCE)
        variance = residual_variance * (1 if kind == "anova" else 2)
    if kind == "anova":
        if n_systems is None:
            raise InvalidParameterError("test='anova' needs n_systems (the number of systems)")
        return anova_topic_set_size(min_diff, variance, n_systems,  # type: ignore[arg-type]
                                    alpha=alpha, beta=beta, method=method)
    if n_systems is not None:
        raise InvalidParameterError(f"n_systems applies to test='anova' only, not {kind!r}")
    if kind == "t-test":
        return t_test_topic_set_size(min_diff, variance,  # type: ignore[arg-type]
                                     alpha=alpha, beta=beta, method=method)
    return ci_topic_set_size(min_diff, variance, alpha=alpha,  # type: ignore[arg-type]
                             method=method)


@dataclass(frozen=True, repr=False)
class TopicSetTable(Tabular):
    """Topic set sizes over a grid of differences (rows) and variances (columns).

    Like every result it has :meth:`table`, ``to_dict``, ``to_pandas``,
    ``to_polars``, ``to_table``, shows as a table in a notebook and pickles.

    Attributes
    ----------
    test : str
    min_diffs, variances : tuple of float
    sizes : tuple of tuple of TopicSetSize
        ``sizes[i][j]`` for ``min_diffs[i]`` and ``variances[j]``.
    labels : tuple of str
        The column headings (the variances, or the names they came from).
    """

    test: str
    min_diffs: tuple[float, ...]
    variances: tuple[float, ...]
    sizes: tuple[tuple[TopicSetSize, ...], ...]
    labels: tuple[str, ...] = ()

    def table(self) -> Table:
        """The grid as a :class:`rankwise.report.tables.Table` (topics, as integers)."""
        from rankwise.report.tables import Table

        first = {"t-test": "minD_t", "anova": "minD", "ci": "width"}[self.test]
        labels = self.labels or tuple(f"{v:g}" for v in self.variances)
        table = Table([first, *labels], ["float", *["int"] * len(labels)])
        for diff, row in zip(self.min_diffs, self.sizes):
            table.rows.append([diff, *(size.n for size in row)])
        return table

    def _caption(self) -> str:
        rows, columns = len(self.min_diffs), len(self.variances)
        return (f"TopicSetTable({self.test}: topics for {counted(rows, 'difference')} x "
                f"{counted(columns, 'variance')})")

    def to_table(self, fmt: str = "table", *, digits: int = 2) -> str:
        """The grid as text in one of the table formats (rows: differences).

        Examples
        --------
        >>> print(topic_set_table("t-test", [0.05, 0.1], [0.01, 0.02]).to_table())
        minD_t  0.01  0.02
        ------  ----  ----
          0.05    34    65
          0.10    10    18
        """
        from rankwise.report.tables import render

        return render(self.table(), fmt, digits=digits)


def topic_set_table(
    test: str,
    min_diffs: Iterable[float],
    variances: Iterable[float] | Mapping[str, float],
    *,
    n_systems: int | None = None,
    alpha: float = 0.05,
    beta: float = 0.20,
    method: str = "exact",
    residual: bool = False,
) -> TopicSetTable:
    r"""Topic set sizes for every difference and variance: Sakai's tables.

    Parameters
    ----------
    test : {"t-test", "anova", "ci"}
        The requirement, as in :func:`topic_set_size`.
    min_diffs : iterable of float
        The rows.
    variances : iterable of float, or dict {label: variance}
        The columns (with labels, e.g. measure names, from a dict).
    n_systems, alpha, beta, method
        As in :func:`topic_set_size`.
    residual : bool
        The variances are residual variances :math:`V_E` (converted as in
        :func:`topic_set_size`).

    Returns
    -------
    TopicSetTable
    """
    labels: tuple[str, ...] = ()
    if isinstance(variances, Mapping):
        labels = tuple(str(k) for k in variances)
        values = tuple(float(v) for v in variances.values())
    else:
        values = tuple(float(v) for v in variances)
    diffs = tuple(float(d) for d in min_diffs)
    if not diffs or not values:
        raise InvalidParameterError("give at least one difference and one variance")
    keyword = "residual_variance" if residual else "variance"
    sizes = tuple(
        tuple(topic_set_size(test, diff, **{keyword: value}, n_systems=n_systems, alpha=alpha,
                             beta=beta, method=method) for value in values)
        for diff in diffs
    )
    return TopicSetTable(_design_test(test), diffs, values, sizes, labels)


def residual_variance(
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
    columns: Mapping[str, str | None] | None = None,
    options: EvalOptions | None = None,
    engine: str | Engine | None = None,
) -> dict[str, float]:
    r"""The residual variance :math:`V_E` of the two-way ANOVA of past runs, per measure.

    Sakai's estimate of the within-system variance :math:`\sigma^2` for
    topic set size design: evaluate the runs, keep the topics evaluated for
    every run, and take the residual mean square of the system x topic
    ANOVA (:func:`rankwise.stats.two_way_anova`).

    Parameters
    ----------
    qrels, runs, measures
        As in :func:`rankwise.compare` (at least two runs).
    rel, depth, missing, judged_only, ties, exclude_self, unjudged, columns, options, engine
        As in :func:`rankwise.evaluate`.

    Returns
    -------
    dict
        Canonical measure name -> :math:`V_E`.

    Examples
    --------
    P@1 of two runs on four queries, (1, 1, 0, 0) and (0, 1, 1, 0): the
    residuals are :math:`\pm 0.5` on the two queries where they disagree, so
    :math:`V_E = 4 \times 0.5^2 / 3`:

    >>> qrels = {f"q{i}": {"a": 1} for i in range(4)}
    >>> def run(found):
    ...     return {f"q{i}": {"a": 2.0, "z": 1.0} if i in found else {"z": 2.0, "a": 1.0}
    ...             for i in range(4)}
    >>> residual_variance(qrels, {"x": run({0, 1}), "y": run({1, 2})}, "P@1")
    {'P@1': 0.3333333333333333}
    """
    from functools import reduce

    from rankwise.engines.core import prepare_measures
    from rankwise.evaluation import evaluate_runs
    from rankwise.stats import two_way_anova

    chosen = options_from(
        options, rel=rel, depth=depth, missing=missing, judged_only=judged_only, ties=ties,
        exclude_self=exclude_self, unjudged=unjudged, columns=columns,
    )
    parsed = prepare_measures(measures, chosen)
    results = evaluate_runs(qrels, runs, parsed, options=chosen, engine=engine,
                            need_common_queries=False)
    if len(results) < 2:
        raise InvalidParameterError(f"the residual variance needs at least two runs, "
                                    f"got {len(results)}")
    ids = [np.asarray(r.query_ids, dtype=str) for r in results.values()]
    common = reduce(np.intersect1d, ids)
    if len(common) < 2:
        raise InvalidParameterError(
            f"the residual variance needs at least 2 queries evaluated for every run, "
            f"got {len(common)}"
        )
    out = {}
    for measure in parsed:
        rows = []
        for query_ids, item in zip(ids, results.values()):
            _, positions, _ = np.intersect1d(query_ids, common, assume_unique=True,
                                             return_indices=True)
            rows.append(np.asarray(item[measure])[positions])
        out[str(measure)] = float(two_way_anova(np.stack(rows)).residual_variance)
    return out


# ----------------------------------------------------------------------------
# power of existing comparisons
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PowerRow:
    r"""The power of one comparison already made, and the topics it would need.

    Attributes
    ----------
    measure, system, baseline : str
    n_queries : int
    effect_size : float
        Paired Cohen's :math:`d_z = |t| / \sqrt n`.
    power : float
        Power of a two-sided paired t-test at level *alpha* with these topics
        if the true effect were :math:`d_z`.
    topics_needed : int or None
        Topics for power ``1 - beta`` at that effect (None for a zero or
        undefined effect).
    """

    measure: str
    system: str
    baseline: str
    n_queries: int
    effect_size: float
    power: float
    topics_needed: int | None


def power(comparison: Comparison, *, alpha: float | None = None, beta: float = 0.20,
          method: str = "exact") -> list[PowerRow]:
    r"""The power of each comparison of *comparison*, if its observed effect were the truth.

    Sakai's "future sample size" for a paired t-test (SIGIR 2016 tutorial
    tools, ``future.sample.pairedt``): with :math:`\hat d = |t|/\sqrt n`,
    the power of the t-test at *n* topics and the topics for power
    ``1 - beta``. A low power says a non-significant result is weak
    evidence of no difference; it is not a reason to trust a significant one more.

    Parameters
    ----------
    comparison : Comparison
        From :func:`rankwise.compare`.
    alpha : float, optional
        Default: the comparison's.
    beta : float
        For the topics needed.
    method : {"exact", "sakai"}
        As in :func:`topic_set_size`.

    Returns
    -------
    list of PowerRow
        One per compared row (the baseline's own rows are left out).

    Examples
    --------
    >>> from rankwise.comparison import compare
    >>> qrels = {f"q{i}": {"good": 1} for i in range(10)}
    >>> bm25 = {f"q{i}": {"bad": 2.0, "good": 1.0} for i in range(10)}
    >>> dense = {f"q{i}": ({"good": 2.0, "bad": 1.0} if i < 4 else {"bad": 2.0, "good": 1.0})
    ...          for i in range(10)}
    >>> row = power(compare(qrels, {"bm25": bm25, "dense": dense}, "mrr", baseline="bm25"))[0]
    >>> round(row.effect_size, 4), round(row.power, 4), row.topics_needed
    (0.7746, 0.5889, 16)
    """
    level = comparison.alpha if alpha is None else alpha
    out = []
    for row in comparison.rows:
        if row.baseline is None:
            continue
        effect = abs(row.effect_size)
        usable = math.isfinite(effect) and effect > 0 and row.n_queries >= 2
        value = paired_t_power(effect, row.n_queries, alpha=level, method=method) \
            if usable else math.nan
        needed = t_test_topic_set_size(effect, 1.0, alpha=level, beta=beta, method=method).n \
            if usable else None
        out.append(PowerRow(row.measure, row.system, row.baseline, row.n_queries,
                            row.effect_size, value, needed))
    return out


# ----------------------------------------------------------------------------
# discriminative power
# ----------------------------------------------------------------------------

DiscriminativeTest = Literal["bootstrap", "randomized-tukey"]
"""The tests of :func:`discriminative_power`: Sakai's bootstrap, or the randomised Tukey HSD."""
DISCRIMINATIVE_METHODS: tuple[str, ...] = get_args(DiscriminativeTest)
_DISCRIMINATIVE_TEST = OneOf(DISCRIMINATIVE_METHODS)


@dataclass(frozen=True, repr=False)
class DiscriminativePower(Tabular):
    """How many system pairs each measure tells apart (Sakai 2006).

    Its :meth:`table` is one row per measure; like every result it has
    ``to_dict``, ``to_pandas``, ``to_polars``, ``to_table``, shows as a table
    in a notebook and pickles.

    Attributes
    ----------
    method : {"bootstrap", "randomized-tukey"}
        The test of the pairs.
    alpha : float
        A pair counts when its p-value is at most *alpha*.
    n_resamples : int
    seed : int
    systems : tuple of str
    pairs : tuple of (str, str)
        Every pair of systems, in the order of the p-values.
    measures : tuple of str
    p_values : dict
        Measure -> array of the pairs' p-values (achieved significance levels).
    notes : tuple of str
    """

    method: str
    alpha: float
    n_resamples: int
    seed: int
    systems: tuple[str, ...]
    pairs: tuple[tuple[str, str], ...]
    measures: tuple[str, ...]
    p_values: dict[str, np.ndarray] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def fraction(self, measure: str | Measure) -> float:
        """The share of pairs with ``p <= alpha``: the discriminative power."""
        p = self.p_values[self._name(measure)]
        return float(np.count_nonzero(p <= self.alpha) / len(p)) if len(p) else math.nan

    def curve(self, measure: str | Measure) -> np.ndarray:
        """The ASL curve: the pairs' p-values sorted ascending (x = pair rank)."""
        return np.sort(self.p_values[self._name(measure)])

    def _name(self, measure: str | Measure) -> str:
        name = str(measure)
        if name not in self.p_values:
            from rankwise.measures import parse

            name = str(parse(name))
        if name not in self.p_values:
            raise KeyError(f"measure {name!r} was not assessed; assessed: {list(self.measures)}")
        return name

    @property
    def legend(self) -> str:
        """What the fractions and curves mean."""
        test = ("paired bootstrap test (each pair on its own, no correction)"
                if self.method == "bootstrap"
                else "randomised Tukey HSD (family-wise over all pairs)")
        return (f"discriminative power: share of the {counted(len(self.pairs), 'system pair')} "
                "with "
                f"p <= {self.alpha:g} by the {test}, "
                f"{counted(self.n_resamples, 'resample', grouped=True)}, "
                f"seed {self.seed}")

    def table(self) -> Table:
        """One row per measure: the discriminative power and the pairs told apart."""
        from rankwise.report.tables import Table

        table = Table(["measure", "discriminative_power", "significant_pairs", "pairs"],
                      ["text", "float", "int", "int"])
        for name in self.measures:
            p = self.p_values[name]
            table.rows.append([name, self.fraction(name), int(np.count_nonzero(p <= self.alpha)),
                               len(p)])
        return table

    def _caption(self) -> str:
        return (f"DiscriminativePower({self.method}, {counted(len(self.pairs), 'system pair')}, "
                f"alpha={self.alpha:g})")

    def to_table(self, fmt: str = "table", *, digits: int = 4) -> str:
        """The :meth:`table` as text, with the legend in the people formats."""
        from rankwise.report.tables import render

        text = render(self.table(), fmt, digits=digits)
        if fmt in ("table", "markdown"):
            text += "\n" + self.legend + "\n"
        return text

    def plot(self, ax: Any = None) -> Any:
        """The ASL curves, one per measure (needs matplotlib).

        Returns
        -------
        matplotlib.axes.Axes
        """
        from rankwise.report.discriminative import plot_asl_curves

        return plot_asl_curves(self, ax=ax)


def discriminative_power(
    qrels: Any,
    runs: Mapping[str, Any] | Sequence[Any],
    measures: str | Measure | Iterable[str | Measure],
    *,
    test: DiscriminativeTest = "bootstrap",
    alpha: float = 0.05,
    n_resamples: int = 1000,
    seed: int | None = None,
    rel: float | None = None,
    depth: int | None = None,
    missing: Missing = "skip",
    judged_only: bool = False,
    ties: Ties = "trec",
    exclude_self: bool = False,
    unjudged: Unjudged = "nonrelevant",
    columns: Mapping[str, str | None] | None = None,
    options: EvalOptions | None = None,
    engine: str | Engine | None = None,
    method: Any = DEPRECATED,
) -> DiscriminativePower:
    r"""The discriminative power of each measure over a set of runs (Sakai 2006).

    Every pair of runs is tested; the discriminative power of a measure is
    the share of pairs with :math:`p \le \alpha`, and its achieved
    significance level (ASL) curve is the pairs' p-values sorted.

    - ``bootstrap``: Sakai's original, the paired studentised bootstrap test
      of each pair on its own (:func:`rankwise.stats.bootstrap_test`; Sakai
      used :math:`B = 1000`), all pairs on one set of resampled topics.
      rankwise's p-value is :math:`(c + 1)/(B + 1)` where Sakai counts
      :math:`c / B`: at most :math:`1/B` apart.
    - ``randomized-tukey``: the randomised Tukey HSD over all runs at once
      (Sakai 2014/2018), family-wise: fewer pairs come out significant.

    Runs are compared on the queries evaluated for every run.

    Parameters
    ----------
    qrels, runs, measures
        As in :func:`rankwise.compare` (at least two runs).
    test : {"bootstrap", "randomized-tukey"}
        The test of the pairs (``method=`` before; that name now warns, and
        the result keeps it as :attr:`DiscriminativePower.method`).
    alpha : float
        A pair counts when its p-value is at most *alpha*.
    n_resamples : int
        *B*, resamples or trials.
    seed : int, optional
        Reproduces the result (one is drawn when None: see ``.seed``).
    rel, depth, missing, judged_only, ties, exclude_self, unjudged, columns, options, engine
        As in :func:`rankwise.evaluate`.
    method : str
        Deprecated: the old name of *test* (a ``FutureWarning``).

    Returns
    -------
    DiscriminativePower

    Examples
    --------
    >>> qrels = {f"q{i}": {"good": 1} for i in range(12)}
    >>> def run(k):  # finds the good document first on the first k queries
    ...     return {f"q{i}": ({"good": 2.0, "bad": 1.0} if i < k else {"bad": 2.0, "good": 1.0})
    ...             for i in range(12)}
    >>> result = discriminative_power(qrels, {"a": run(0), "b": run(6), "c": run(12)},
    ...                               ["P@1", "mrr"], seed=0)
    >>> result.pairs
    (('a', 'b'), ('a', 'c'), ('b', 'c'))
    >>> result.fraction("P@1"), result.curve("P@1").round(4).tolist()
    (1.0, [0.001, 0.007, 0.007])
    >>> tukey = discriminative_power(qrels, {"a": run(0), "b": run(6), "c": run(12)},
    ...                              "P@1", test="randomized-tukey", seed=0)
    >>> round(tukey.fraction("P@1"), 4), tukey.curve("P@1").round(4).tolist()
    (0.3333, [0.0, 0.123, 0.123])
    """
    from rankwise.engines.core import prepare_measures
    from rankwise.evaluation import evaluate_runs

    test = renamed("discriminative_power", "method", "test", method, test, "bootstrap",
                   note=" (the test of the pairs, as in compare)")
    test = check("test", test, _DISCRIMINATIVE_TEST)
    chosen = options_from(
        options, rel=rel, depth=depth, missing=missing, judged_only=judged_only, ties=ties,
        exclude_self=exclude_self, unjudged=unjudged, columns=columns,
    )
    parsed = prepare_measures(measures, chosen)
    results = evaluate_runs(qrels, runs, parsed, options=chosen, engine=engine,
                            need_common_queries=False)
    return discriminative_power_results(results, parsed, test=test, alpha=alpha,
                                        n_resamples=n_resamples, seed=seed)


def discriminative_power_results(
    results: Mapping[str, Any] | Sequence[Any],
    measures: str | Measure | Iterable[str | Measure] | None = None,
    *,
    test: DiscriminativeTest = "bootstrap",
    alpha: float = 0.05,
    n_resamples: int = 1000,
    seed: int | None = None,
    method: Any = DEPRECATED,
) -> DiscriminativePower:
    """:func:`discriminative_power` of runs already evaluated (``{name: Results}``).

    Examples
    --------
    >>> import rankwise as rw
    >>> qrels = {f"q{i}": {"a": 1} for i in range(6)}
    >>> found = {name: rw.evaluate(qrels, {f"q{i}": {"a": 2.0, "z": 1.0} if i < k else
    ...                                    {"z": 2.0, "a": 1.0} for i in range(6)}, "P@1")
    ...          for name, k in (("x", 0), ("y", 3), ("z", 6))}
    >>> discriminative_power_results(found, seed=0).fraction("P@1")
    1.0
    """
    from rankwise.comparison import compare_results

    test = renamed("discriminative_power_results", "method", "test", method, test, "bootstrap",
                   note=" (the test of the pairs, as in compare)")
    test = check("test", test, _DISCRIMINATIVE_TEST)
    if test == "randomized-tukey":
        result = compare_results(results, measures, test=test, alpha=alpha,
                                 n_resamples=n_resamples, seed=seed)
        return _from_comparison(result, test, n_resamples)
    return _bootstrap_power(results, measures, alpha, n_resamples, seed)


def _bootstrap_power(results: Any, measures: Any, alpha: float, n_resamples: int,
                     seed: Any) -> DiscriminativePower:
    """Every pair and measure by the paired bootstrap test, on one set of resamples.

    The queries evaluated for every run are resampled once (B resamples of n
    topics, as Sakai 2006 draws them); each pair's and measure's differences
    are a column of :func:`rankwise.stats.bootstrap_test`, whose sums are
    exact per column: each p-value is the one that test gives the pair alone
    with the same seed, at the cost of one resampling for all pairs.
    """
    from functools import reduce

    from rankwise.comparison import _RESULTS, _check_comparable, _named_runs
    from rankwise.measures import parse_many
    from rankwise.stats import bootstrap_test, stream
    from rankwise.stats.seeding import normalise_seed

    alpha = check("alpha", alpha, LEVEL)
    n_resamples = check("n_resamples", n_resamples, POSITIVE_INT)
    named = _named_runs(results)
    for name, value in named.items():
        check(f"results[{name!r}]", value, _RESULTS)
    first = next(iter(named.values()))
    parsed = list(first.measures) if measures is None else parse_many(measures)
    _check_comparable(parsed)
    seed = normalise_seed(seed)
    names = list(named)
    ids = [np.asarray(item.query_ids, dtype=str) for item in named.values()]
    common = reduce(np.intersect1d, ids)
    union = reduce(np.union1d, ids)
    notes = []
    if len(union) > len(common):
        left = len(union) - len(common)
        notes.append(f"discriminative power: compared on the {counted(len(common), 'query')} "
                     f"evaluated for every run; {left} evaluated for only some "
                     f"{'was' if left == 1 else 'were'} left out")
    pairs = tuple((names[i], names[j]) for i in range(len(names))
                  for j in range(i + 1, len(names)))
    columns: list[np.ndarray] = []
    for measure in parsed:
        rows = []
        for query_ids, item in zip(ids, named.values()):
            _, positions, _ = np.intersect1d(query_ids, common, assume_unique=True,
                                             return_indices=True)
            try:
                rows.append(np.asarray(item[measure])[positions])
            except KeyError:
                raise InvalidParameterError(
                    f"measure {str(measure)!r} was not evaluated for {item.run_name!r}"
                ) from None
        matrix = np.stack(rows)
        columns.extend(matrix[names.index(b)] - matrix[names.index(a)] for a, b in pairs)
    differences = np.column_stack(columns) if columns else np.empty((len(common), 0))
    if len(common) < 2:
        raise InvalidParameterError(
            f"discriminative power needs at least 2 queries evaluated for every run, "
            f"got {len(common)}"
        )
    outcome = bootstrap_test(differences, n_resamples=n_resamples,
                             seed=stream(seed, "discriminative-power", names))
    p = np.asarray(outcome.p_value, dtype=np.float64).reshape(len(parsed), len(pairs))
    return DiscriminativePower(
        method="bootstrap", alpha=float(alpha), n_resamples=n_resamples, seed=seed,
        systems=tuple(names), pairs=pairs, measures=tuple(str(m) for m in parsed),
        p_values={str(m): p[k] for k, m in enumerate(parsed)}, notes=tuple(notes),
    )


def _from_comparison(result: Any, method: str, n_resamples: int) -> DiscriminativePower:
    pairs = tuple((row.baseline, row.system) for row in result.rows
                  if row.measure == result.measures[0] and row.baseline is not None)
    p_values = {
        name: np.array([row.p_value for row in result.rows
                        if row.measure == name and row.baseline is not None])
        for name in result.measures
    }
    return DiscriminativePower(
        method=method, alpha=result.alpha, n_resamples=n_resamples, seed=result.seed,
        systems=tuple(result.systems), pairs=pairs,
        measures=tuple(result.measures), p_values=p_values, notes=result.notes,
    )
