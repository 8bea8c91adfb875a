"""Beyond-accuracy measures of recommendation lists: pure numpy over all users at once.

Every function takes coded arrays (:class:`~rankwise.recommenders.inputs.Lists`,
per-item arrays indexed by item code) and returns either one number for the
whole recommendation set (coverage, Gini, entropy, personalisation, PopREO)
or one value per user code (NaN for a user the measure leaves out). None
loops over users or rows in Python; the pairwise measures (ILD,
personalisation, serendipity against the history) use sums of normalised
vectors instead of item-item matrices, so their cost is linear in the
number of recommended items.

Notation: L_u is user u's list, c(i) how many lists hold item i, N = sum c(i),
p(i) = c(i) / N, I the catalogue.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise._validation import Number, OneOf, check
from rankwise.exceptions import InvalidParameterError
from rankwise.recommenders.inputs import argument, contains, count_codes, native_kernels

if TYPE_CHECKING:
    from rankwise.recommenders.inputs import Interactions, Lists

__all__ = [
    "aplt",
    "arp",
    "catalogue_coverage",
    "check_catalogue",
    "epc",
    "exposure",
    "gini",
    "history_serendipity",
    "ild",
    "item_means",
    "long_tail",
    "novelty",
    "personalisation",
    "popreo",
    "serendipity",
    "shannon_entropy",
    "user_means",
]


_GINI_FORM = OneOf(("handbook", "recbole"))
_HEAD = Number(0, 1, closed="right")

def user_means(users: np.ndarray, values: np.ndarray, n_users: int) -> np.ndarray:
    """Mean of *values* per user code (NaN for users with no row).

    Examples
    --------
    >>> user_means(np.array([0, 0, 2]), np.array([1.0, 3.0, 5.0]), 4).tolist()
    [2.0, nan, 5.0, nan]
    """
    sums = np.bincount(users, weights=values, minlength=n_users)
    counts = np.bincount(users, minlength=n_users)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def item_means(lists: Lists, values: np.ndarray, n_users: int) -> np.ndarray:
    """Mean of a per-item value over each user's list (NaN for users with no row).

    ``user_means(lists.users, values[lists.items], n_users)``, without the
    array of gathered values where the C kernel is built (the same sums, in
    the same order).

    Examples
    --------
    >>> from rankwise.recommenders.inputs import Lists
    >>> lists = Lists.from_rows(np.array([0, 0, 2]), np.array([1, 0, 1]))
    >>> item_means(lists, np.array([1.0, 3.0]), 3).tolist()
    [2.0, nan, 3.0]
    """
    native = native_kernels()
    values = np.ascontiguousarray(values, dtype=np.float64)
    if native is not None and lists.list_users.dtype == lists.items.dtype == np.int32:
        sums = np.zeros(n_users)
        counts = np.zeros(n_users, dtype=np.int64)
        for users, rows in lists.blocks():  # in row order: the same sums
            native.gather_sums(users, np.ascontiguousarray(lists.items[rows]), values, sums,
                               counts)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    return user_means(lists.users, values[lists.items], n_users)


def exposure(lists: Lists, n_items: int) -> np.ndarray:
    """c(i): how many lists recommend each item code."""
    return count_codes(lists.items, n_items).astype(np.float64)


def catalogue_coverage(lists: Lists, catalogue_size: int,
                       counts: np.ndarray | None = None) -> float:
    """|union of the lists| / |I|.

    The catalogue holds every item recommended, so the share is at most 1:
    a catalogue smaller than the items recommended is an error (Microsoft
    Recommenders' ``catalog_coverage`` would count the items outside it and
    pass 1).

    Examples
    --------
    >>> from rankwise.recommenders.inputs import Lists
    >>> lists = Lists.from_rows(np.array([0, 0, 1]), np.array([3, 4, 3]))
    >>> catalogue_coverage(lists, 8)
    0.25
    >>> catalogue_coverage(lists, 1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InvalidParameterError: the catalogue given (1 item) is smaller than ...
    """
    if catalogue_size <= 0:
        raise InvalidParameterError(f"the catalogue is empty (size {catalogue_size})")
    if counts is None:
        n_items = int(lists.items.max()) + 1 if len(lists.items) else 0
        counts = np.bincount(lists.items, minlength=n_items)
    recommended = int(np.count_nonzero(counts))
    check_catalogue(recommended, catalogue_size)
    return float(recommended / catalogue_size)


def check_catalogue(recommended: int, catalogue_size: int, *, outside: int = 0,
                    examples: Sequence[Any] = (), measure: str | None = None) -> None:
    """Refuse a catalogue that does not hold the items recommended.

    *recommended* distinct items were recommended, *outside* of them are not
    in the catalogue given (ids: *examples*, a few); a catalogue given as a
    number must be at least *recommended*. Coverage and Gini over such a
    catalogue would pass 1 or be wrong.

    Examples
    --------
    >>> check_catalogue(3, 8)
    >>> check_catalogue(3, 8, outside=2, examples=["x", "y"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InvalidParameterError: 2 of the 3 distinct items recommended are not in
    the catalogue given (8 items): 'x', 'y'; give catalogue= all items ...
    """
    where = f"{measure}: " if measure else ""
    given = f"{catalogue_size} item" + ("" if catalogue_size == 1 else "s")
    remedy = (f"give {argument('catalogue')} all items (their number or their ids), or leave "
              "it out: the default catalogue is every item of the training, test and "
              "recommendation tables")
    if outside:
        shown = ", ".join(repr(x) for x in list(examples)[:5])
        more = ", ..." if outside > len(list(examples)[:5]) else ""
        raise InvalidParameterError(
            f"{where}{outside} of the {recommended} distinct items recommended are not in the "
            f"catalogue given ({given}): {shown}{more}; {remedy}")
    if recommended > catalogue_size:
        raise InvalidParameterError(
            f"{where}the catalogue given ({given}) is smaller than the "
            f"{recommended} distinct items recommended; {remedy}")


def gini(counts: np.ndarray, catalogue_size: int, *, form: str = "handbook") -> float:
    """Gini index of item exposure: 0 when every item is recommended equally often.

    ``sum_j (2j - |I| - 1) p(i_j) / (|I| - 1)`` with items sorted by
    ascending exposure, the catalogue's unrecommended items counted as zeros
    (Castells, Hurley & Vargas, Recommender Systems Handbook 2015, ch. 26).
    ``form="recbole"`` divides by ``|I|`` instead (RecBole's ``GiniIndex``).

    Examples
    --------
    >>> gini(np.array([1.0, 1.0, 1.0]), 3)
    0.0
    >>> gini(np.array([0.0, 0.0, 5.0]), 3)
    1.0
    """
    c = np.sort(counts[counts > 0])
    n_rec = len(c)
    check_catalogue(n_rec, catalogue_size)
    check("gini form", form, _GINI_FORM)
    total = c.sum()
    if total == 0 or catalogue_size < 2:
        return 0.0
    j = np.arange(catalogue_size - n_rec + 1, catalogue_size + 1, dtype=np.float64)
    num = float(np.sum((2 * j - catalogue_size - 1) * c) / total)
    return num / (catalogue_size - 1 if form == "handbook" else catalogue_size)


def shannon_entropy(counts: np.ndarray, *, base: float = 2.0, per_item: bool = False) -> float:
    """-sum p(i) log p(i) of item exposure (log base *base*).

    ``per_item=True`` divides by the number of distinct items recommended
    (RecBole's ``ShannonEntropy``, with ``base=e``). With base 2 this is
    Microsoft Recommenders' ``distributional_coverage``.

    Examples
    --------
    >>> shannon_entropy(np.array([1.0, 1.0, 1.0, 1.0]))
    2.0
    """
    c = counts[counts > 0]
    if len(c) == 0:
        return 0.0
    p = c / c.sum()
    value = float(-np.sum(p * np.log(p)) / np.log(base))
    return value / len(c) if per_item else value


def novelty(lists: Lists, popularity: np.ndarray, population: float, n_users: int, *,
            unseen: float = 1.0) -> np.ndarray:
    """Mean self-information per user: mean over L_u of -log2(pop(i) / population).

    Zhou et al., PNAS 107(10), 2010: pop(i) = users who interacted with i in
    training, population = training users. An item never seen in training
    counts as *unseen* interactions (default 1: the most novel an observed
    item can be; ``unseen=0`` leaves such items out of the user's mean).

    Examples
    --------
    >>> from rankwise.recommenders.inputs import Lists
    >>> lists = Lists.from_rows(np.array([0, 0]), np.array([0, 1]))
    >>> novelty(lists, np.array([4.0, 1.0]), 4.0, 1).tolist()
    [1.0]
    """
    seen = popularity > 0
    with np.errstate(divide="ignore"):
        information = -np.log2(np.where(seen, popularity, max(unseen, 1.0)) / population)
    if unseen > 0:
        return item_means(lists, information, n_users)
    keep = seen[lists.items]
    return user_means(lists.users[keep], information[lists.items[keep]], n_users)


def arp(lists: Lists, popularity: np.ndarray, n_users: int, *, k: int | None = None
        ) -> np.ndarray:
    """Average recommendation popularity per user: mean popularity of L_u's items.

    Yin et al., VLDB 2012; Abdollahpouri et al., FLAIRS 2019. With *k* the
    sum divides by k rather than |L_u| (RecBole's ``AveragePopularity``).

    Examples
    --------
    >>> from rankwise.recommenders.inputs import Lists
    >>> lists = Lists.from_rows(np.array([0, 0]), np.array([0, 1]))
    >>> arp(lists, np.array([4.0, 2.0]), 1).tolist()
    [3.0]
    """
    values, users = popularity[lists.items], lists.users
    if k is None:
        return user_means(users, values, n_users)
    sums = np.bincount(users, weights=values, minlength=n_users)
    has = np.bincount(users, minlength=n_users) > 0
    return np.where(has, sums / k, np.nan)


def long_tail(popularity: np.ndarray, *, head: float = 0.8,
              ties: np.ndarray | None = None) -> np.ndarray:
    """Long-tail mask of item codes: items outside the short head.

    The short head is the most popular items (ties by *ties* ascending,
    default the item code) that together
    hold *head* of all interactions, the item that reaches the share
    included (Abdollahpouri, Burke & Mobasher 2017; Elliot's split). Items
    with popularity 0 (not in training) are in neither group: the mask is
    False for them.

    Examples
    --------
    >>> long_tail(np.array([10.0, 5.0, 3.0, 2.0, 0.0])).tolist()  # head: 10 + 5 + 3 >= 16
    [False, False, False, True, False]
    """
    check("head", head, _HEAD)
    order = np.lexsort((np.arange(len(popularity)) if ties is None else ties, -popularity))
    cumulative = np.cumsum(popularity[order])
    total = cumulative[-1] if len(cumulative) else 0.0
    # items before the first whose cumulative share reaches head, and that item
    n_head = int(np.searchsorted(cumulative, head * total - 1e-9 * total, side="left")) + 1
    tail = np.zeros(len(popularity), dtype=bool)
    tail[order[n_head:]] = True
    return tail & (popularity > 0)


def aplt(lists: Lists, tail: np.ndarray, n_users: int, *, k: int | None = None
         ) -> np.ndarray:
    """Average percentage of long-tail items per user: |L_u and tail| / |L_u|.

    Abdollahpouri, Burke & Mobasher, RecSys 2017. With *k*, divides by k
    (RecBole's ``TailPercentage``).

    Examples
    --------
    >>> from rankwise.recommenders.inputs import Lists
    >>> lists = Lists.from_rows(np.array([0, 0, 1]), np.array([0, 1, 1]))
    >>> aplt(lists, np.array([False, True]), 2).tolist()
    [0.5, 1.0]
    """
    return arp(lists, tail.astype(np.float64), n_users, k=k)


def popreo(lists: Lists, relevant: Interactions, tail: np.ndarray, head: np.ndarray,
           n_items: int, seen: Interactions | None = None) -> float:
    """Popularity-based ranking-based equal opportunity (lower is fairer).

    For the groups g = short head, long tail: P(g) = sum over users of the
    relevant test items of g in L_u / sum over users of the relevant test items
    of g not in the user's training history; PopREO = std(P) / mean(P)
    (population std). Zhu, Wang & Caverlee, SIGIR 2020; Zhu et al., WSDM 2021.

    Examples
    --------
    >>> from rankwise.recommenders.inputs import Interactions, Lists
    >>> lists = Lists.from_rows(np.array([0, 0]), np.array([0, 2]))
    >>> rel = Interactions(np.array([0, 0]), np.array([0, 1]), np.ones(2), np.ones(2, int))
    >>> popreo(lists, rel, np.array([False, True, False]), np.array([True, False, True]), 3)
    1.0
    """
    rel_keys = relevant.keys(n_items)
    rel_items = relevant.items
    if seen is not None and len(seen.users):
        fresh = ~contains(seen.keys(n_items), rel_keys, n_items)
        rel_keys, rel_items = rel_keys[fresh], rel_items[fresh]
    hit = contains(rel_keys, lists.keys(n_items), n_items)
    hit_items = lists.items[hit]
    probabilities = []
    for group in (head, tail):
        denominator = int(group[rel_items].sum())
        if denominator == 0:
            return float("nan")
        probabilities.append(group[hit_items].sum() / denominator)
    p = np.asarray(probabilities)
    return float(np.std(p) / np.mean(p)) if np.mean(p) > 0 else float("nan")


def _unit_rows(features: np.ndarray) -> np.ndarray:
    norms = np.sqrt(np.einsum("ij,ij->i", features, features))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(norms[:, None] > 0, features / np.where(norms > 0, norms, 1)[:, None],
                        0.0)


def ild(lists: Lists, features: Any, n_users: int, *, chunk_rows: int = 1 << 18
        ) -> np.ndarray:
    """Intra-list diversity per user: mean cosine distance over pairs of L_u.

    ILD_u = 1 - 2/(|L_u|(|L_u|-1)) sum_{i<j in L_u} cos(f_i, f_j) (Smyth &
    McClave 2001; Ziegler et al. 2005 for its complement ILS). *features* is
    a dense array (item code -> vector) or a scipy sparse matrix. With unit
    vectors, the pairwise sum is (|sum_i f_i|^2 - sum_i |f_i|^2) / 2, so the
    cost is O(|L| d), never a |L|^2 or catalogue^2 matrix; rows are taken
    *chunk_rows* at a time (whole users). A zero vector (or an item with no
    features) has similarity 0 to every item. Users with fewer than 2 items
    get NaN (left out).

    Examples
    --------
    >>> from rankwise.recommenders.inputs import Lists
    >>> lists = Lists.from_rows(np.array([0, 0, 0]), np.array([0, 1, 2]))
    >>> ild(lists, np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), 1).round(6).tolist()
    [0.666667]
    """
    unit = _unit_vectors(features)
    out = np.full(n_users, np.nan)
    for users, _starts, sums, self_sq, lengths in _chunked_sums(lists, unit, chunk_rows):
        pair_sum = (sums - self_sq) / 2
        pairs = lengths * (lengths - 1) / 2
        with np.errstate(invalid="ignore", divide="ignore"):
            out[users] = np.where(lengths >= 2, 1 - pair_sum / np.maximum(pairs, 1), np.nan)
    return out


def _unit_vectors(features: Any) -> Any:
    if hasattr(features, "tocsr"):
        from scipy import sparse

        matrix = sparse.csr_matrix(features, dtype=np.float64)
        norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
        scale = np.where(norms > 0, 1 / np.where(norms > 0, norms, 1), 0.0)
        return sparse.diags(scale) @ matrix
    return _unit_rows(np.asarray(features, dtype=np.float64))


def _chunked_sums(lists: Lists, unit: Any, chunk_rows: int) -> Any:
    """Per chunk of whole users: users, starts, |sum f|^2, sum |f|^2, list lengths."""
    users = lists.users
    n = len(users)
    if n == 0:
        return
    starts = np.flatnonzero(np.concatenate([[True], users[1:] != users[:-1]]))
    bounds = np.append(starts, n)
    position = 0
    while position < len(starts):
        end_row = bounds[position] + max(chunk_rows, 1)
        last = max(int(np.searchsorted(bounds, end_row, side="right")) - 1, position + 1)
        last = min(last, len(starts))
        lo, hi = bounds[position], bounds[last]
        local_starts = starts[position:last] - lo
        rows = unit[lists.items[lo:hi]]
        if hasattr(rows, "tocsr"):
            from scipy import sparse

            group = np.repeat(np.arange(last - position), np.diff(np.append(local_starts,
                                                                            hi - lo)))
            indicator = sparse.csr_matrix(
                (np.ones(hi - lo), (group, np.arange(hi - lo))), shape=(last - position, hi - lo))
            summed = indicator @ rows
            sums = np.asarray(summed.multiply(summed).sum(axis=1)).ravel()
            self_sq = indicator @ np.asarray(rows.multiply(rows).sum(axis=1)).ravel()
        else:
            summed = np.add.reduceat(rows, local_starts, axis=0)
            sums = np.einsum("ij,ij->i", summed, summed)
            self_sq = np.add.reduceat(np.einsum("ij,ij->i", rows, rows), local_starts)
        lengths = np.diff(np.append(local_starts, hi - lo)).astype(np.float64)
        yield users[starts[position:last]], local_starts, sums, self_sq, lengths
        position = last


def personalisation(lists: Lists, n_items: int) -> float:
    """1 - mean over ordered pairs of users u != v of |L_u & L_v| / sqrt(|L_u| |L_v|).

    The cosine of users' item-indicator rows, as recmetrics'
    ``personalization``; with lists of one length L it is Zhou et al.'s
    (PNAS 2010) inter-user diversity 1 - q_uv / L. Computed exactly from
    per-item sums, sum_i [(sum_{u: i in L_u} w_u)^2 - sum_{u: i in L_u} w_u^2]
    with w_u = 1/sqrt(|L_u|): linear in the number of recommended items, no
    user x user matrix.

    Examples
    --------
    >>> from rankwise.recommenders.inputs import Lists
    >>> lists = Lists.from_rows(np.array([0, 0, 1, 1]), np.array([0, 1, 0, 2]))
    >>> round(personalisation(lists, 3), 12)
    0.5
    """
    users = lists.users
    lengths = np.bincount(users)
    n = int(np.count_nonzero(lengths))
    if n < 2:
        return float("nan")
    w = 1 / np.sqrt(lengths[users].astype(np.float64))
    s = np.bincount(lists.items, weights=w, minlength=n_items)
    s2 = np.bincount(lists.items, weights=w * w, minlength=n_items)
    overlap = float(np.sum(s * s - s2))
    return 1 - overlap / (n * (n - 1))


def serendipity(lists: Lists, baseline: Lists, relevant: Interactions, n_items: int,
                n_users: int) -> np.ndarray:
    """Serendipity per user against a baseline ("primitive") recommender.

    |UNEXP_u & USEFUL_u| / |L_u|, UNEXP_u = L_u minus the baseline's list of
    u, USEFUL_u = u's relevant test items (Ge, Delgado-Battenfeld & Jannach,
    RecSys 2010; Murakami et al. 2008).

    Examples
    --------
    >>> from rankwise.recommenders.inputs import Interactions, Lists
    >>> lists = Lists.from_rows(np.array([0, 0]), np.array([0, 1]))
    >>> base = Lists.from_rows(np.array([0]), np.array([0]))
    >>> rel = Interactions(np.array([0, 0]), np.array([0, 1]), np.ones(2), np.ones(2, int))
    >>> serendipity(lists, base, rel, 2, 1).tolist()
    [0.5]
    """
    keys = lists.keys(n_items)
    unexpected = ~np.isin(keys, baseline.keys(n_items))
    useful = contains(relevant.keys(n_items), keys, n_items)
    return user_means(lists.users, (unexpected & useful).astype(np.float64), n_users)


def history_serendipity(lists: Lists, history: Interactions, features: Any,
                        relevance: np.ndarray, n_users: int, *, chunk_rows: int = 1 << 18
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Serendipity as dissimilarity to the user's history, times relevance.

    For each recommended (u, i): (1 - mean_{j in history(u)} cos(f_i, f_j)) *
    relevance(u, i), Microsoft Recommenders' ``user_item_serendipity``.
    Returns (per row, per user mean); users with no history get NaN.

    Examples
    --------
    >>> from rankwise.recommenders.inputs import Interactions, Lists
    >>> lists = Lists.from_rows(np.array([0]), np.array([1]))
    >>> hist = Interactions(np.array([0, 0]), np.array([0, 2]), np.ones(2), np.ones(2, int))
    >>> f = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> history_serendipity(lists, hist, f, np.ones(1), 1)[1].tolist()
    [0.5]
    """
    unit = _unit_vectors(features)
    sparse_input = hasattr(unit, "tocsr")
    if sparse_input:
        from scipy import sparse

        n_hist = len(history.users)
        indicator = sparse.csr_matrix((np.ones(n_hist), (history.users, np.arange(n_hist))),
                                      shape=(n_users, n_hist))
        profile = indicator @ unit[history.items]
    else:
        profile = np.zeros((n_users, unit.shape[1]))
        np.add.at(profile, history.users, unit[history.items])
    counts = np.bincount(history.users, minlength=n_users).astype(np.float64)
    users = lists.users
    per_row = np.empty(len(users))
    for lo in range(0, len(users), max(chunk_rows, 1)):
        hi = min(lo + chunk_rows, len(users))
        u, i = users[lo:hi], lists.items[lo:hi]
        if sparse_input:
            dots = np.asarray(unit[i].multiply(profile[u]).sum(axis=1)).ravel()
        else:
            dots = np.einsum("ij,ij->i", unit[i], profile[u])
        with np.errstate(invalid="ignore", divide="ignore"):
            per_row[lo:hi] = np.where(counts[u] > 0, (1 - dots / counts[u]), np.nan)
    per_row *= relevance
    has = ~np.isnan(per_row)
    return per_row, user_means(users[has], per_row[has], n_users)


def epc(lists: Lists, relevant: Interactions, seen_share: np.ndarray, n_items: int,
        n_users: int) -> np.ndarray:
    """Expected popularity complement per user (Vargas & Castells, RecSys 2011).

    EPC_u = sum_k disc(k) rel(u, i_k) (1 - p(seen | i_k)) / sum_k disc(k),
    disc(k) = 1 / log2(k + 1) over the positions of L_u, rel binary (a
    relevant test item), p(seen | i) = training users of i / training users
    (*seen_share*, 0 for items not in training). As Elliot's ``EPC``.

    Examples
    --------
    >>> from rankwise.recommenders.inputs import Interactions, Lists
    >>> lists = Lists.from_rows(np.array([0, 0]), np.array([0, 1]))
    >>> rel = Interactions(np.array([0]), np.array([0]), np.ones(1), np.ones(1, int))
    >>> round(float(epc(lists, rel, np.array([0.5, 0.0]), 2, 1)[0]), 6)
    0.306574
    """
    disc = 1 / np.log2(lists.ranks + 1.0)
    rel = contains(relevant.keys(n_items), lists.keys(n_items), n_items)
    gain = disc * rel * (1 - seen_share[lists.items])
    users = lists.users
    num = np.bincount(users, weights=gain, minlength=n_users)
    den = np.bincount(users, weights=disc, minlength=n_users)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / den, np.nan)
