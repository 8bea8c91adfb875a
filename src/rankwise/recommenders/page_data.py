"""What the recommender report draws beyond the comparison: kept by it, or read in one pass.

The long tail (:mod:`rankwise.recommenders.long_tail`) and the measure@k
curves (:mod:`rankwise.recommenders.at_k`) both need every model's lists as
the evaluation cut them. While the comparison runs inside :func:`keeping`,
each model's evaluation hands its coded, cut lists to a
:class:`FigureKeeper`, which counts what the figures need and keeps only
that (:class:`KeptFigures`: a share per popularity bin and each curve's
K means; no list row). :func:`page_figures` reads each model's lists again
only for what was not kept: the curves without a cut ``k`` (their K is the
longest list of all models) or with graded relevance (``relevance=``), and
everything when the comparison was not kept. Reading again, it reads each
model's lists once, for both, and with a cut ``k`` keeps none of them once
counted.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise.recommenders.at_k import CurveCounter, MeasureCurves, curve_families, relevant_of
from rankwise.recommenders.inputs import Interactions, Lists, Vocabulary, exclude_seen
from rankwise.recommenders.long_tail import LongTail, PopularityBins

if TYPE_CHECKING:
    from rankwise.options import RecommenderOptions
    from rankwise.recommenders.evaluation import _Read

__all__ = ["FigureKeeper", "KeptFigures", "keeping", "page_figures"]


@dataclass(frozen=True)
class KeptFigures:
    """What one model's figures need, counted from its evaluation's cut lists.

    Attributes
    ----------
    labels, training : list of str, ndarray, or None
        The popularity bins and the training's share in each (None without
        training interactions).
    shares : ndarray or None
        The share of the model's recommendations in each bin.
    rows : int
        The number of its recommendations (the shares' denominator).
    curves : dict or None
        ``{"ndcg@k": means at k = 1..K, ...}``; None when not kept (no cut
        ``k``, graded relevance, no accuracy measure with a curve).
    """

    labels: list[str] | None
    training: np.ndarray | None
    shares: np.ndarray | None
    rows: int
    curves: dict[str, np.ndarray] | None

    @property
    def nbytes(self) -> int:
        """The bytes of the arrays kept."""
        arrays = [self.training, self.shares, *(self.curves or {}).values()]
        return sum(a.nbytes for a in arrays if a is not None)


class FigureKeeper:
    """Handed each model's read inputs by its evaluation: keeps its :class:`KeptFigures`.

    Models are kept in the order they are evaluated (a comparison's order).
    """

    def __init__(self) -> None:
        self.kept: list[KeptFigures] = []

    def __call__(self, read: _Read, options: RecommenderOptions, evaluated: np.ndarray,
                 accuracy: list[str],
                 counted: tuple[np.ndarray | None, np.ndarray | None] = (None, None)) -> None:
        """Count one model's figures from its evaluation's *read* lists (cut, excluded).

        *counted*: the training popularity per item code and the lists'
        rows per item code, when the evaluation counted them (else None).
        """
        labels = training = shares = None
        rows = len(read.lists.items)
        if read.history is not None:
            popularity, per_item = counted
            bins = PopularityBins.of(read.history, read.items, popularity)
            labels, training = bins.labels, bins.training
            shares, rows = bins.shares(read.lists, read.n_items, per_item)
        curves = None
        families = curve_families(accuracy, graded=options.relevance is not None)
        if families and read.truth is not None and options.k is not None and \
                options.relevance is None:  # as relevant_of: every grade is 1
            truth = read.truth
            if options.rel > 1:
                keep = truth.ratings >= options.rel
                truth = Interactions(truth.users[keep], truth.items[keep],
                                     truth.ratings[keep], truth.counts[keep])
            counter = CurveCounter(truth, read.users, read.items, options.k, families)
            counter.add_counted("", read.lists, evaluated, int(np.count_nonzero(evaluated)))
            curves = {label: by_model[""] for label, by_model in counter.values.items()}
        self.kept.append(KeptFigures(labels, training, shares, rows, curves))


@contextmanager
def keeping() -> Iterator[FigureKeeper]:
    """Every evaluation inside hands its read inputs to the keeper yielded.

    Examples
    --------
    >>> import rankwise as rw
    >>> held_out = {"user": [1, 2], "item": ["a", "b"]}
    >>> models = {"x": {1: ["a", "c"], 2: ["a", "b"]}, "y": {1: ["b", "a"], 2: ["b", "a"]}}
    >>> with keeping() as keeper:
    ...     result = rw.compare_recommendations(held_out, models, ["recall@2"], seed=0, k=2)
    >>> [kept.curves["recall@k"].tolist() for kept in keeper.kept]
    [[0.5, 1.0], [0.5, 1.0]]
    """
    from rankwise.recommenders.evaluation import handed_out

    keeper = FigureKeeper()
    token = handed_out.set(keeper)
    try:
        yield keeper
    finally:
        handed_out.reset(token)


def page_figures(result: Any, held_out: Any, models: Mapping[str, Any], *, train: Any = None,
                 exclude: Any = None, columns: Mapping[str, str] | None = None,
                 users: Any = None, kept: FigureKeeper | None = None
                 ) -> tuple[LongTail | None, MeasureCurves | None]:
    """The long tail (with training interactions) and the curves (with accuracy measures).

    *result* is the :class:`~rankwise.recommenders.comparison.RecommenderComparison`
    of *held_out* and *models*; *train* and *exclude* the interactions it
    was given (popularity: *train*, else *exclude*); *users* the ids of the
    rows of 2-D array recommendations, as given to it; *kept* the keeper the
    comparison ran in (:func:`keeping`), whose counts are used instead of
    reading the lists again. Each is None when it cannot be drawn: the
    long tail without training interactions, the curves without an
    accuracy measure that has one (:func:`~rankwise.recommenders.at_k.curve_families`);
    both on Spark tables (the page shows the comparison alone).

    Examples
    --------
    >>> import rankwise as rw
    >>> held_out = {"user": [1, 2], "item": ["a", "b"]}
    >>> train = {"user": [1, 2, 2], "item": ["c", "c", "a"]}
    >>> models = {"x": {1: ["a", "c"], 2: ["a", "b"]}, "y": {1: ["b", "a"], 2: ["b", "a"]}}
    >>> result = rw.compare_recommendations(held_out, models, ["recall@2"], seed=0,
    ...                                     exclude=train)
    >>> tail, curves = page_figures(result, held_out, models, exclude=train)
    >>> tail.labels, curves.values["recall@k"]["y"].tolist()  # user 2 saw a: excluded
    (['1', '2', 'not in training'], [0.5, 1.0])
    """
    history = train if train is not None else exclude
    options = result.options
    families = curve_families(result.comparison.measures, graded=options.relevance is not None)
    if any(type(t).__module__.startswith("pyspark")
           for t in (held_out, history, exclude, *models.values())):
        return None, None
    if history is None and not families:
        return None, None
    by_model = dict(zip(result.models, kept.kept, strict=True)) if (
        kept is not None and len(kept.kept) == len(result.models)) else {}
    tail = curves = None
    if history is not None and by_model:
        first = next(iter(by_model.values()))
        if first.labels is not None and first.training is not None:
            tail = LongTail(first.labels, first.training,
                            {name: k.shares for name, k in by_model.items()
                             if k.shares is not None},
                            {name: k.rows for name, k in by_model.items()})
    if families and by_model and all(k.curves is not None for k in by_model.values()) and \
            options.k is not None:
        curves = MeasureCurves(np.arange(1, options.k + 1), {
            f"{f}@k": {name: k.curves[f"{f}@k"] for name, k in by_model.items()
                       if k.curves is not None} for f in families})
    if (tail is not None or history is None) and (curves is not None or not families):
        return tail, curves
    read_tail, read_curves = _read_figures(result, held_out, models, families,
                                           history=None if tail is not None else history,
                                           exclude=exclude, columns=columns, users=users,
                                           curves=curves is None)
    return (tail if tail is not None else read_tail,
            curves if curves is not None else read_curves)


def _read_figures(result: Any, held_out: Any, models: Mapping[str, Any], families: list[str],
                  *, history: Any, exclude: Any, columns: Mapping[str, str] | None,
                  users: Any, curves: bool) -> tuple[LongTail | None, MeasureCurves | None]:
    """The figures not kept, from each model's lists read again (once each, for both).

    The held-out interactions are coded first, as the evaluation codes
    them: the lists' rows, the hits and so the sums come in its order.
    """
    options = result.options
    families = families if curves else []
    user_vocab, items = Vocabulary("user"), Vocabulary("item")
    counter = None
    if families:
        truth = relevant_of(held_out, user_vocab, items, columns=columns,
                            relevance=options.relevance, rel=options.rel)
        counter = CurveCounter(truth, user_vocab, items, options.k or 0, families)
    popularity = None if history is None else Interactions.read(
        history, user_vocab, items, columns=columns, what="train", rating=False)
    seen = None if exclude is None else popularity if exclude is history else \
        Interactions.read(exclude, user_vocab, items, columns=columns, what="exclude", rating=False)
    bins = None if popularity is None else PopularityBins.of(popularity, items)
    shares, counted, cut = {}, {}, {}
    for name, recs in models.items():
        lists = Lists.read(recs, user_vocab, items, columns=columns, user_index=users,
                           duplicates=options.duplicates)
        n_users, n_items = max(len(user_vocab), 1), max(len(items), 1)
        lists = (exclude_seen(lists, seen, n_items, options.k, n_users, in_place=True)
                 if seen is not None else lists.head(options.k))
        if bins is not None:
            shares[name], counted[name] = bins.shares(lists, n_items)
        if counter is not None:
            if options.k is None:  # the curves' K: the longest list, known once all are read
                cut[name] = lists
            else:
                counter.add(name, lists, result.results[name].users)
        del lists
    if counter is not None and cut:
        counter.top = max((lists.top for lists in cut.values() if len(lists.items)),
                          default=1)
        for name, lists in cut.items():
            counter.add(name, lists, result.results[name].users)
    return (None if bins is None else bins.tail(shares, counted),
            None if counter is None else counter.curves())
