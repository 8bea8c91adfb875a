"""Measure@k curves of recommenders: each accuracy measure's mean at every cutoff k = 1..K.

One pass over each model's lists, not one evaluation per cutoff: the held-out
items found in the lists (a pair lookup, as the evaluation does) and their
ranks are all a binary-relevance measure needs, and each measure's mean at
every k is a cumulative sum over ranks of what each hit adds:

- ``P@k``: hits at rank <= k, over k, averaged over the evaluated users;
- ``recall@k``: each hit adds 1/R_u (R_u: the user's relevant held-out items);
- ``hit@k``, ``mrr@k``: the user's first hit adds 1, or 1/rank;
- ``map@k``: the j-th hit of a user, at rank r, adds (j / r) / R_u
  (trec_eval's ``map_cut``, rankwise's ``map@k``);
- ``ndcg@k``: a hit at rank r adds 1/log2(r + 1), divided by the user's ideal
  DCG at k, which depends on min(R_u, k) alone: the hits are summed per
  min(R_u, K) and divided once per (min(R_u, K), k).

The users averaged over are each model's evaluated users (as its
evaluation: ``missing="zero"`` keeps those without a list, at 0). The
lists are read, cleared of the excluded items and cut at *k* as
:func:`rankwise.evaluate_recommendations` does, so the curve at a measure's
own cutoff is its value in the comparison.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from rankwise.recommenders.inputs import (
    Interactions,
    Lists,
    Vocabulary,
    count_codes,
    exclude_seen,
    native_kernels,
    pair_lookup,
    with_grades,
)

__all__ = ["FAMILIES", "CurveCounter", "MeasureCurves", "curve_families", "measure_curves",
           "relevant_of"]

FAMILIES = ("ndcg", "recall", "P", "map", "mrr", "hit")
"""The measures with a curve, in the order the figure shows them."""


@dataclass(frozen=True)
class MeasureCurves:
    """Each measure's mean at every cutoff k = 1..K, per model.

    Attributes
    ----------
    cutoffs : ndarray
        1..K.
    values : dict
        ``{label: {model: mean at each cutoff}}``, labels ``"ndcg@k"``, ...
    """

    cutoffs: np.ndarray
    values: dict[str, dict[str, np.ndarray]]

    def panels(self) -> list[tuple[str, dict[str, tuple[np.ndarray, np.ndarray]]]]:
        """``(label, {model: (cutoffs, means)})`` per measure: the report's curves figure."""
        return [(label, {model: (self.cutoffs, v) for model, v in curves.items()})
                for label, curves in self.values.items()]


def curve_families(measures: Iterable[str], *, graded: bool = False) -> list[str]:
    """The families of *measures* that have a curve (plain ``name@k``, in :data:`FAMILIES` order).

    A measure with parameters (a gain, a dialect) has none; nor has ``ndcg``
    with graded relevance (*graded*: its ideal list depends on the grades).

    Examples
    --------
    >>> curve_families(["ndcg@10", "recall@50", "coverage", "map@5(dialect=recommenders)"])
    ['ndcg', 'recall']
    """
    from rankwise.exceptions import RankwiseError
    from rankwise.measures import parse

    found = set()
    for name in measures:
        try:
            measure = parse(name)
        except RankwiseError:  # a beyond-accuracy measure (coverage, gini, ...)
            continue
        if measure.cutoff is not None and str(measure) == f"{measure.name}@{measure.cutoff}":
            found.add(measure.name)
    if graded:
        found.discard("ndcg")
    return [family for family in FAMILIES if family in found]


def measure_curves(held_out: Any, models: Mapping[str, Any], evaluated: Mapping[str, Any],
                   families: Iterable[str], *, exclude: Any = None, k: int | None = None,
                   columns: Mapping[str, str] | None = None, duplicates: str = "error",
                   relevance: str | None = None, rel: float = 1.0) -> MeasureCurves:
    """Each family's mean at every cutoff 1..K per model (K: *k*, else the longest list).

    Parameters
    ----------
    held_out : table
        The held-out interactions (``user``, ``item``).
    models : dict
        ``{name: recommendations}``, as :func:`rankwise.compare_recommendations` takes them.
    evaluated : dict
        ``{name: the users its evaluation averaged over}`` (``result.users``).
    families : iterable of str
        Among :data:`FAMILIES` (see :func:`curve_families`).
    exclude : table, optional
        Interactions whose items leave each list before the cut.
    k : int, optional
        The cut.
    columns, duplicates
        As in :func:`rankwise.evaluate_recommendations`.
    relevance, rel
        The grade column and the relevance level: relevant is grade >= *rel*
        (without a grade column every held-out interaction has grade 1).

    Returns
    -------
    MeasureCurves

    Examples
    --------
    >>> held_out = {"user": [1, 1, 2], "item": ["a", "b", "c"]}
    >>> lists = {"m": {1: ["x", "a", "b"], 2: ["c", "y", "z"]}}
    >>> curves = measure_curves(held_out, lists, {"m": [1, 2]}, ["P", "recall"])
    >>> curves.values["P@k"]["m"].round(4).tolist()  # (0 + 1) / 2, (1/2 + 1/2) / 2, ...
    [0.5, 0.5, 0.5]
    >>> curves.values["recall@k"]["m"].tolist()
    [0.5, 0.75, 1.0]
    """
    families = list(families)
    users, items = Vocabulary("user"), Vocabulary("item")
    truth = relevant_of(held_out, users, items, columns=columns, relevance=relevance, rel=rel)
    seen = None if exclude is None else Interactions.read(
        exclude, users, items, columns=columns, what="exclude", rating=False)
    read = {name: Lists.read(recs, users, items, columns=columns, duplicates=duplicates)
            for name, recs in models.items()}
    n_users, n_items = max(len(users), 1), max(len(items), 1)
    cut = {name: exclude_seen(lists, seen, n_items, k, n_users, in_place=True)
           if seen is not None else lists.head(k) for name, lists in read.items()}
    top = k or max((lists.top for lists in cut.values() if len(lists.items)),
                   default=1)
    counter = CurveCounter(truth, users, items, top, families)
    for name, lists in cut.items():
        counter.add(name, lists, evaluated[name])
    return counter.curves()


def relevant_of(held_out: Any, users: Vocabulary, items: Vocabulary, *,
                columns: Mapping[str, str] | None = None, relevance: str | None = None,
                rel: float = 1.0) -> Interactions:
    """The relevant held-out interactions: grade >= *rel* (grade 1 without *relevance*)."""
    truth = Interactions.read(held_out, users, items, columns=columns, what="test",
                              rating=relevance is not None)
    if relevance is not None:  # the grades of that column, as the evaluation reads them
        truth = with_grades(held_out, truth, relevance, users, items, columns)
    if relevance is not None or rel > 1:
        keep = truth.ratings >= rel
        truth = Interactions(truth.users[keep], truth.items[keep], truth.ratings[keep],
                             truth.counts[keep])
    return truth


class CurveCounter:
    """The curves, one model's cut lists at a time (none kept): see :func:`measure_curves`.

    *users* and *items* are the vocabularies the lists and *truth* are
    coded in (they may grow as later models are read).
    """

    def __init__(self, truth: Interactions, users: Vocabulary, items: Vocabulary, top: int,
                 families: Iterable[str]) -> None:
        self.truth, self.users, self.items, self.top = truth, users, items, top
        self.families = list(families)
        self.values: dict[str, dict[str, np.ndarray]] = {f"{f}@k": {} for f in self.families}
        self._looked_up: tuple[np.ndarray, np.ndarray] | None = None

    def _codes(self, evaluated: Any) -> np.ndarray:
        """The codes of the *evaluated* users (looked up once when every model has the same)."""
        ids = np.asarray(evaluated)
        if self._looked_up is not None and len(self._looked_up[0]) == len(ids) and \
                self._looked_up[0].dtype == ids.dtype and np.array_equal(self._looked_up[0], ids):
            return self._looked_up[1]
        codes = self.users.lookup(ids)
        self._looked_up = (ids, codes)
        return codes

    def add(self, name: str, lists: Lists, evaluated: Any) -> None:
        """Count the hits of model *name*'s *lists* (cut), averaged over its *evaluated* users."""
        codes = self._codes(evaluated)
        counted = np.zeros(max(len(self.users), 1), dtype=bool)
        counted[codes[codes >= 0]] = True
        self.add_counted(name, lists, counted, len(codes))

    def add_counted(self, name: str, lists: Lists, counted: np.ndarray, n: int) -> None:
        """:meth:`add` with the evaluated users as a mask by user code, *n* of them."""
        n_users, n_items = max(len(self.users), 1), max(len(self.items), 1)
        rows = _hit_rows(self.truth, lists, n_users, n_items)  # few: the held-out items found
        users, ranks = lists.list_users[lists.list_of(rows)], lists.ranks_at(rows)
        kept = counted[users] & (ranks <= self.top)
        sums = _cumulative(users[kept].astype(np.int64), ranks[kept],
                           count_codes(self.truth.users, n_users), self.top, self.families)
        for family, total in sums.items():
            self.values[f"{family}@k"][name] = total / max(n, 1)

    def curves(self) -> MeasureCurves:
        """The curves of the models added."""
        return MeasureCurves(np.arange(1, self.top + 1), self.values)


def _hit_rows(truth: Interactions, lists: Lists, n_users: int, n_items: int) -> np.ndarray:
    """The rows of *lists* holding a pair of *truth*, ascending.

    With the C kernel, each held-out pair is looked up in the lists (the
    work and the output as long as the held-out interactions, as the
    evaluation finds its hits); a pair is once in each side, so the rows
    found are those of a lookup of every list row in *truth*.
    """
    native = native_kernels()
    if native is not None and lists.list_users.dtype == lists.items.dtype and \
            truth.users.dtype == truth.items.dtype and n_users < 1 << 31:
        found = np.empty(len(truth.users), dtype=np.int64)
        native.join_pairs(*(np.ascontiguousarray(a) for a in (
            truth.users, truth.items, lists.users, lists.items)), n_users, n_items, 1, found, -1)
        return np.sort(found[found >= 0])
    return np.flatnonzero(pair_lookup(truth.users, truth.items, lists.users, lists.items,
                                      n_users, n_items))


def _cumulative(user: np.ndarray, rank: np.ndarray, relevant: np.ndarray, top: int,
                families: list[str]) -> dict[str, np.ndarray]:
    """Each family's sum over users at every cutoff, from the hits (in user, then rank order)."""
    out: dict[str, np.ndarray] = {}
    position = rank - 1
    r = relevant[user].astype(np.float64)
    first = np.ones(len(user), dtype=bool)
    first[1:] = user[1:] != user[:-1]
    if "ndcg" in families:
        gain = 1.0 / np.log2(rank + 1.0)
        group = np.minimum(relevant[user], top)  # the ideal list's length at K
        sums = np.bincount(group * top + position, weights=gain,
                           minlength=(top + 1) * top).reshape(top + 1, top).cumsum(axis=1)
        ideal = np.cumsum(1.0 / np.log2(np.arange(2, top + 2)))
        shortest = np.minimum(np.arange(top + 1)[:, None], np.arange(1, top + 1)[None, :])
        idcg = ideal[np.maximum(shortest, 1) - 1]
        out["ndcg"] = (sums[1:] / idcg[1:]).sum(axis=0)  # group 0: no relevant item, no hit
    if "recall" in families:
        out["recall"] = np.bincount(position, weights=1.0 / r, minlength=top).cumsum()
    if "P" in families:
        out["P"] = np.bincount(position, minlength=top).cumsum() / np.arange(1, top + 1)
    if "map" in families:
        starts = np.flatnonzero(first)
        j = np.arange(len(user)) - np.repeat(starts, np.diff(np.append(starts, len(user)))) + 1
        out["map"] = np.bincount(position, weights=j / rank / r, minlength=top).cumsum()
    if "mrr" in families:
        out["mrr"] = np.bincount(position[first], weights=1.0 / rank[first],
                                 minlength=top).cumsum()
    if "hit" in families:
        out["hit"] = np.bincount(position[first], minlength=top).cumsum().astype(np.float64)
    return out
