"""What the recommender report draws beyond the comparison, read in one pass over the lists.

The long tail (:mod:`rankwise.recommenders.long_tail`) and the measure@k
curves (:mod:`rankwise.recommenders.at_k`) both need every model's lists as
the evaluation cut them; :func:`page_figures` reads each model's lists once,
for both, and with a cut ``k`` keeps none of them once counted (the memory
of one model's lists at a time; without one, the curves' K is the longest
list, known once all are read).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rankwise.recommenders.at_k import CurveCounter, MeasureCurves, curve_families, relevant_of
from rankwise.recommenders.inputs import Interactions, Lists, Vocabulary, exclude_seen
from rankwise.recommenders.long_tail import LongTail, PopularityBins

__all__ = ["page_figures"]


def page_figures(result: Any, held_out: Any, models: Mapping[str, Any], *, train: Any = None,
                 exclude: Any = None, columns: Mapping[str, str] | None = None
                 ) -> tuple[LongTail | None, MeasureCurves | None]:
    """The long tail (with training interactions) and the curves (with accuracy measures).

    *result* is the :class:`~rankwise.recommenders.comparison.RecommenderComparison`
    of *held_out* and *models*; *train* and *exclude* the interactions it
    was given (popularity: *train*, else *exclude*). Each is None when it
    cannot be drawn: the long tail without training interactions, the
    curves without an accuracy measure that has one
    (:func:`~rankwise.recommenders.at_k.curve_families`); both on Spark
    tables (the page shows the comparison alone).

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
    users, items = Vocabulary("user"), Vocabulary("item")
    popularity = None if history is None else Interactions.read(
        history, users, items, columns=columns, what="train", rating=False)
    seen = None if exclude is None else popularity if exclude is history else \
        Interactions.read(exclude, users, items, columns=columns, what="exclude", rating=False)
    bins = None if popularity is None else PopularityBins.of(popularity, items)
    counter = None
    if families:
        truth = relevant_of(held_out, users, items, columns=columns,
                            relevance=options.relevance, rel=options.rel)
        counter = CurveCounter(truth, users, items, options.k or 0, families)
    shares, counted, cut = {}, {}, {}
    for name, recs in models.items():
        lists = Lists.read(recs, users, items, columns=columns, duplicates=options.duplicates)
        n_users, n_items = max(len(users), 1), max(len(items), 1)
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
        counter.top = max((int(lists.ranks.max()) for lists in cut.values()
                           if len(lists.ranks)), default=1)
        for name, lists in cut.items():
            counter.add(name, lists, result.results[name].users)
    return (None if bins is None else bins.tail(shares, counted),
            None if counter is None else counter.curves())
