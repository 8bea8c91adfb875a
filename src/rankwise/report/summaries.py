"""The numbers behind the plots: curves over k, paired differences, histograms.

Pure numpy: nothing here draws, so it works without matplotlib.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np

from rankwise._validation import POSITIVE_INT, check
from rankwise.exceptions import InvalidParameterError, MeasureSyntaxError
from rankwise.measures import Measure, parse
from rankwise.report.protocols import ResultsLike

__all__ = [
    "Change",
    "curve_label",
    "curve_measures",
    "curve_template",
    "cutoff_curve",
    "histogram_edges",
    "is_results",
    "named_results",
    "paired_index",
    "paired_values",
    "sorted_profile",
    "top_changes",
]


def is_results(obj: object) -> bool:
    """Whether *obj* is shaped like :class:`~rankwise.Results` (values by measure, ids, means).

    The report is presentation: it recognises what it is given by its shape
    and never imports the layers that compute it.
    """
    return all(hasattr(obj, name) for name in ("query_ids", "measures", "mean", "run_name"))


def named_results(
    results: ResultsLike | Mapping[str, ResultsLike] | Sequence[ResultsLike],
) -> dict[str, ResultsLike]:
    """``{system name: Results}`` from one Results, a list (named by run) or a mapping.

    Examples
    --------
    >>> import rankwise as rw
    >>> one = rw.evaluate({"q1": {"a": 1}}, {"q1": {"a": 1.0}}, "P@1")
    >>> list(named_results(one))
    ['run']
    """
    if is_results(results):
        one = cast("ResultsLike", results)
        return {one.run_name: one}
    named: dict[str, ResultsLike]
    if isinstance(results, Mapping):  # (a Results is a Mapping too: handled above)
        named = dict(results)
    elif isinstance(results, (list, tuple)):
        named = {}
        for position, item in enumerate(results):
            if not is_results(item):
                raise InvalidParameterError(
                    f"results[{position}] must be a Results (from rankwise.evaluate), "
                    f"got {type(item).__name__}"
                )
            if item.run_name in named:
                raise InvalidParameterError(
                    f"two results are named {item.run_name!r}; pass a dict {{name: results}}"
                )
            named[item.run_name] = item
    else:
        raise InvalidParameterError(
            "results must be a Results, a list of Results or a dict {name: Results}, "
            f"got {type(results).__name__}"
        )
    if not named:
        raise InvalidParameterError("results is empty; give at least one Results")
    for name, item in named.items():
        if not is_results(item):
            raise InvalidParameterError(
                f"results[{name!r}] must be a Results (from rankwise.evaluate), "
                f"got {type(item).__name__}"
            )
    return named


# ----------------------------------------------------------------------------
# metric@k curves
# ----------------------------------------------------------------------------


def curve_template(measure: str | Measure) -> Measure:
    """The measure family and parameters of a curve over k, without a cutoff.

    Parameters
    ----------
    measure : str or Measure
        ``"ndcg"``, ``"P"``, ``"recall(rel=2)"``, or any cutoff of them
        (``"ndcg@10"``: the cutoff is dropped).

    Returns
    -------
    Measure
        With ``cutoff=None``.

    Raises
    ------
    InvalidParameterError
        The measure takes no cutoff (``bpref``, ``Rprec``, ...).

    Examples
    --------
    >>> str(curve_template("P")), str(curve_template("ndcg@10(gain=linear)"))
    ('P', 'ndcg(gain=linear)')
    """
    if isinstance(measure, Measure):
        parsed = measure
    else:
        text = str(measure).strip()
        try:
            parsed = parse(text)
        except MeasureSyntaxError as error:
            head, paren, rest = text.partition("(")
            if "@" in head or "." in head:
                raise
            try:  # a family whose cutoff is required: "P", "recall(rel=2)"
                parsed = parse(f"{head}@1{paren}{rest}")
            except MeasureSyntaxError:
                raise error from None
    if parsed.family.cutoff == "none":
        raise InvalidParameterError(
            f"{str(parsed)!r} takes no cutoff, so it has no curve over k; "
            "use a measure with a cutoff, such as ndcg, P, recall, map or mrr"
        )
    return Measure(parsed.name, None, parsed.params)


def curve_label(template: Measure) -> str:
    """``"ndcg@k"``, ``"P@k(rel=2)"``: the name of a curve's y axis.

    Examples
    --------
    >>> curve_label(curve_template("recall(rel=2)"))
    'recall@k(rel=2)'
    """
    text = str(template)
    head, paren, rest = text.partition("(")
    return f"{head}@k{paren}{rest}"


def curve_measures(template: Measure, max_k: int = 100) -> list[Measure]:
    """The measures ``template@1`` ... ``template@max_k``.

    Examples
    --------
    >>> [str(m) for m in curve_measures(curve_template("P"), 3)]
    ['P@1', 'P@2', 'P@3']
    """
    max_k = check("max_k", max_k, POSITIVE_INT)
    return [template.replace(cutoff=k) for k in range(1, max_k + 1)]


def cutoff_curve(
    results: ResultsLike, template: Measure, max_k: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The mean of *template* at each cutoff the results hold (up to *max_k*), by increasing k.

    Parameters
    ----------
    results : Results
        Holding the measure at one or more cutoffs.
    template : Measure
        From :func:`curve_template`.
    max_k : int, optional
        Leave out larger cutoffs (a report's curves stop at its ``max_k``
        even when its table holds ``recall@1000``).

    Returns
    -------
    cutoffs : ndarray of int
    means : ndarray of float

    Raises
    ------
    InvalidParameterError
        The results hold no cutoff of the measure (the message says how to get them).

    Examples
    --------
    >>> import rankwise as rw
    >>> qrels = {"q1": {"a": 1, "b": 1}}
    >>> results = rw.evaluate(qrels, {"q1": {"a": 2.0, "x": 1.0}}, ["P@1", "P@2", "map"])
    >>> cutoff_curve(results, curve_template("P"))
    (array([1, 2]), array([1. , 0.5]))
    """
    found = sorted(
        (m for m in results.measures
         if m.name == template.name and m.params == template.params and m.cutoff is not None
         and (max_k is None or m.cutoff <= max_k)),
        key=lambda m: m.cutoff or 0,
    )
    if not found:
        label = curve_label(template)
        example = str(template.replace(cutoff=1)).replace("@1", "@{k}", 1)
        raise InvalidParameterError(
            f"results of {results.run_name!r} hold no cutoff of {label}; evaluate them first, "
            f"e.g. measures=[f\"{example}\" for k in range(1, 101)]"
        )
    cutoffs = np.array([m.cutoff for m in found], dtype=np.int64)
    means = np.array([results.mean[str(m)] for m in found], dtype=np.float64)
    return cutoffs, means


# ----------------------------------------------------------------------------
# per-query values
# ----------------------------------------------------------------------------


def paired_values(
    baseline: ResultsLike, system: ResultsLike, measure: str | Measure
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-query values of two systems on the queries evaluated for both.

    Returns
    -------
    query_ids : ndarray of str
    baseline_values, system_values : ndarray of float

    Examples
    --------
    >>> import rankwise as rw
    >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    >>> x = rw.evaluate(qrels, {"q1": {"a": 1.0}, "q2": {"b": 1.0}}, "P@1")
    >>> y = rw.evaluate(qrels, {"q2": {"z": 1.0}}, "P@1")
    >>> paired_values(x, y, "P@1")
    (array(['q2'], dtype='<U2'), array([1.]), array([0.]))
    """
    common, in_base, in_system = paired_index(baseline, system)
    return common, baseline[measure][in_base], system[measure][in_system]


def paired_index(
    baseline: ResultsLike, system: ResultsLike
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The queries evaluated for both systems (sorted), and where they are in each.

    What :func:`paired_values` pairs by, computed once for every measure of two systems.

    Returns
    -------
    query_ids : ndarray of str
    in_baseline, in_system : ndarray of int
        Positions of *query_ids* in each system's per-query values.

    Examples
    --------
    >>> import rankwise as rw
    >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    >>> x = rw.evaluate(qrels, {"q1": {"a": 1.0}, "q2": {"b": 1.0}}, "P@1")
    >>> y = rw.evaluate(qrels, {"q2": {"z": 1.0}}, "P@1")
    >>> paired_index(x, y)
    (array(['q2'], dtype='<U2'), array([1]), array([0]))
    """
    base_ids = np.asarray(baseline.query_ids, dtype=str)
    if system.query_ids == baseline.query_ids:  # the usual case: the same queries
        order = np.argsort(base_ids, kind="stable")
        return base_ids[order], order, order
    ids = np.asarray(system.query_ids, dtype=str)
    common, in_base, in_system = np.intersect1d(
        base_ids, ids, assume_unique=True, return_indices=True
    )
    return common, in_base, in_system


def sorted_profile(differences: np.ndarray, max_points: int = 600) -> tuple[np.ndarray, np.ndarray]:
    """The sorted differences, sampled at most *max_points* times (plus the zero crossings).

    Sorted values form a monotone curve, so a few hundred samples draw it
    faithfully whatever the number of queries; the first and last query and
    the edges of the run of zero differences are always kept, so the counts
    of losses, ties and wins read off the plot are exact.

    Parameters
    ----------
    differences : ndarray
        One difference per query (NaN dropped).
    max_points : int
        Samples of the curve (at least 2).

    Returns
    -------
    positions : ndarray of float
        The 1-based position of each sample among the sorted queries.
    values : ndarray of float

    Examples
    --------
    >>> sorted_profile(np.array([0.5, -0.25, 0.0]))
    (array([1., 2., 3.]), array([-0.25,  0.  ,  0.5 ]))
    >>> positions, values = sorted_profile(np.linspace(-1, 1, 10_000), max_points=50)
    >>> len(values) <= 54, float(positions[0]), float(positions[-1])
    (True, 1.0, 10000.0)
    """
    values = np.sort(differences[np.isfinite(differences)])
    n = len(values)
    if n <= max_points:
        return np.arange(1, n + 1, dtype=np.float64), values
    negative = int(np.searchsorted(values, 0.0, side="left"))
    non_positive = int(np.searchsorted(values, 0.0, side="right"))
    edges = np.array([negative - 1, negative, non_positive - 1, non_positive])
    picks = np.unique(np.concatenate([
        np.linspace(0, n - 1, max(int(max_points), 2)).round().astype(np.int64),
        edges[(edges >= 0) & (edges < n)],
    ]))
    return (picks + 1).astype(np.float64), values[picks]


@dataclass(frozen=True)
class Change:
    """How one query changed from the baseline to a system."""

    query_id: str
    baseline: float
    value: float
    delta: float


def top_changes(
    query_ids: Sequence[str] | np.ndarray, baseline: np.ndarray, values: np.ndarray, n: int = 10
) -> tuple[list[Change], list[Change]]:
    """The *n* queries that gained most and the *n* that lost most.

    Ties are broken by query id, so the lists are reproducible. Queries
    with no change are in neither list.

    Returns
    -------
    gains : list of Change
        Largest increase first.
    losses : list of Change
        Largest decrease first.

    Examples
    --------
    >>> gains, losses = top_changes(["a", "b", "c"], np.array([0.2, 0.5, 0.5]),
    ...                             np.array([0.9, 0.5, 0.1]), n=5)
    >>> [(c.query_id, round(c.delta, 2)) for c in gains], [c.query_id for c in losses]
    ([('a', 0.7)], ['c'])
    """
    ids = np.asarray(query_ids, dtype=str)
    delta = values - baseline
    finite = np.isfinite(delta)

    def pick(order_key: np.ndarray, mask: np.ndarray) -> list[Change]:
        index = np.flatnonzero(mask & finite)
        order = index[np.lexsort((ids[index], order_key[index]))][:n]
        return [Change(str(ids[i]), float(baseline[i]), float(values[i]), float(delta[i]))
                for i in order]

    return pick(-delta, delta > 0), pick(delta, delta < 0)


def histogram_edges(arrays: Sequence[np.ndarray], bins: int = 10) -> np.ndarray:
    """Bin edges shared by several per-query value arrays.

    Values in [0, 1] (most measures) get 11 bins centred on 0, 0.1, ..., 1,
    so that P@10's values and the queries scoring exactly 0 or 1 each fall
    in a bin of their own; other values get *bins* equal bins over their range.

    Examples
    --------
    >>> histogram_edges([np.array([0.0, 1.0])])[:3]
    array([-0.05,  0.05,  0.15])
    >>> histogram_edges([np.array([3.0, 5.0])], bins=2)
    array([3., 4., 5.])
    """
    finite = [a[np.isfinite(a)] for a in arrays]
    values = np.concatenate(finite) if finite else np.empty(0)
    if len(values) == 0:
        return np.linspace(-0.05, 1.05, 12)
    low, high = float(values.min()), float(values.max())
    if low >= 0.0 and high <= 1.0:
        return np.linspace(-0.05, 1.05, 12)
    if low == high:
        return np.array([low - 0.5, low + 0.5])
    return np.histogram_bin_edges(values, bins=bins)

