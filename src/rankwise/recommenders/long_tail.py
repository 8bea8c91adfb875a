"""The long tail: how often each model recommends items of each popularity rank.

Items are ranked by their training popularity (the number of training users
who interacted with them; equal popularity in item id order, as APLT
does), the ranks grouped in bins of ten times the size of the one before
(1, 2-10, 11-100, ...) and a last bin for the items absent from training.
Each model's share of recommendations in each bin is set against the
training interactions' share: a model that follows popularity puts most of
its lists in the first bins.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np

from rankwise.recommenders.inputs import (
    Interactions,
    Lists,
    Vocabulary,
    count_codes,
    exclude_seen,
)

__all__ = ["LongTail", "PopularityBins", "long_tail", "popularity_bins"]


@dataclass(frozen=True)
class LongTail:
    """Shares of recommendations per popularity bin, per model, and of the training.

    Attributes
    ----------
    labels : list of str
        The bins: ranges of popularity ranks (``"1"``, ``"2-10"``, ...) and
        ``"not in training"``.
    training : ndarray
        Share (0 to 1) of the training interactions in each bin.
    models : dict
        ``{model: share of its recommended items in each bin}``.
    items : dict
        ``{model: the number of items recommended}`` (the denominators).
    """

    labels: list[str]
    training: np.ndarray
    models: dict[str, np.ndarray]
    items: dict[str, int]


def popularity_bins(n_ranked: int) -> tuple[np.ndarray, list[str]]:
    """Edges (first rank of each bin, 1-based, then ``n_ranked + 1``) and labels.

    Examples
    --------
    >>> popularity_bins(250)
    (array([  1,   2,  11, 101, 251]), ['1', '2-10', '11-100', '101-250'])
    """
    edges = [1]
    while edges[-1] <= n_ranked:
        edges.append(2 if edges[-1] == 1 else (edges[-1] - 1) * 10 + 1)
    edges[-1] = n_ranked + 1
    labels = [str(low) if high - low == 1 else f"{low}-{high - 1}"
              for low, high in pairwise(edges)]
    return np.asarray(edges, dtype=np.int64), labels


def long_tail(models: Mapping[str, Any], train: Any, *, exclude: Any = None,
              k: int | None = None, columns: Mapping[str, str] | None = None,
              duplicates: str = "error") -> LongTail:
    """Each model's share of recommendations per training popularity bin.

    The lists are read, cleared of the excluded items and cut at *k* as
    :func:`rankwise.evaluate_recommendations` does.

    Parameters
    ----------
    models : dict
        ``{name: recommendations}`` (a table, ``{user: [item, ...]}``).
    train : table
        Training interactions (``user``, ``item``): the popularity.
    exclude : table, optional
        Interactions whose items are removed from each list before the cut.
    k : int, optional
        The cut.
    columns, duplicates
        As in :func:`rankwise.evaluate_recommendations`.

    Returns
    -------
    LongTail

    Examples
    --------
    >>> train = {"user": [1, 2, 3, 1, 2, 1], "item": ["a", "a", "a", "b", "b", "c"]}
    >>> tail = long_tail({"pop": {4: ["a", "b"]}, "niche": {4: ["c", "z"]}}, train)
    >>> tail.labels, tail.training.round(3).tolist()
    (['1', '2-3', 'not in training'], [0.5, 0.5, 0.0])
    >>> tail.models["pop"].tolist(), tail.models["niche"].tolist()
    ([0.5, 0.5, 0.0], [0.0, 0.5, 0.5])
    """
    users, items = Vocabulary("user"), Vocabulary("item")
    history = Interactions.read(train, users, items, columns=columns, what="train",
                                rating=False)
    seen = history if exclude is None or exclude is train else Interactions.read(
        exclude, users, items, columns=columns, what="exclude", rating=False)
    read = {name: Lists.read(recs, users, items, columns=columns, duplicates=duplicates)
            for name, recs in models.items()}
    n_users, n_items = max(len(users), 1), max(len(items), 1)
    bins = PopularityBins.of(history, items)
    shares: dict[str, np.ndarray] = {}
    counted: dict[str, int] = {}
    for name, lists in read.items():
        lists = (exclude_seen(lists, seen, n_items, k, n_users, in_place=True)
                 if exclude is not None else lists.head(k))
        shares[name], counted[name] = bins.shares(lists, n_items)
    return bins.tail(shares, counted)


@dataclass
class PopularityBins:
    """The bin of every item (by training popularity rank) and the training's share per bin.

    Built once from the training interactions (:meth:`of`); :meth:`shares`
    then places one model's cut lists in the bins.
    """

    labels: list[str]
    bin_of: np.ndarray
    training: np.ndarray

    @classmethod
    def of(cls, history: Interactions, items: Vocabulary,
           popularity: np.ndarray | None = None) -> PopularityBins:
        """The bins of *history*'s popularity (the items coded in *items*).

        *popularity*: the training users of each item code, when counted already.
        """
        from rankwise.recommenders.evaluation import _id_order

        n_items = max(len(items), 1)
        if popularity is None:
            popularity = count_codes(history.items, n_items)
        trained = np.flatnonzero(popularity > 0)
        # most popular first; equal popularity in item id order (APLT's order)
        ids = _id_order(items)
        order = trained[np.lexsort((ids[trained], -popularity[trained]))]
        edges, labels = popularity_bins(len(order))
        bin_of = np.full(n_items, len(labels), dtype=np.int64)  # the last: not in training
        bin_of[order] = np.searchsorted(edges, np.arange(1, len(order) + 1), side="right") - 1
        labels = [*labels, "not in training"]
        training = np.bincount(bin_of, weights=popularity, minlength=len(labels))
        return cls(labels, bin_of, training / max(training.sum(), 1))

    def shares(self, lists: Lists, n_items: int, per_item: np.ndarray | None = None
               ) -> tuple[np.ndarray, int]:
        """The share of *lists*' rows in each bin, and their number (*n_items*: items coded).

        Items coded after the bins were made (read with a later model) are
        not in training: the last bin. *per_item*: the rows of each item
        code, when counted already (as many as the bins' items).
        """
        size = len(self.labels)
        if n_items > len(self.bin_of):
            self.bin_of = np.concatenate([self.bin_of, np.full(n_items - len(self.bin_of),
                                                               size - 1, dtype=np.int64)])
        # per item, then per bin: a pass in C over the rows, then one over the items
        if per_item is None or len(per_item) != len(self.bin_of):
            per_item = count_codes(lists.items, len(self.bin_of))
        exposure = np.bincount(self.bin_of, weights=per_item, minlength=size)
        return exposure / max(len(lists.items), 1), len(lists.items)

    def tail(self, shares: dict[str, np.ndarray], counted: dict[str, int]) -> LongTail:
        """The :class:`LongTail` of the models' shares."""
        return LongTail(self.labels, self.training, shares, counted)
