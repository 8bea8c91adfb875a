"""numba's quicksort order, for many segments at once: how ranx orders tied documents.

ranx 0.3.21 orders each query's documents with numba's ``np.argsort`` of the
negated scores (``ranx/data_structures/common.py``, ``sort_dict_by_value``),
whose default kind is numba's own quicksort (``numba/misc/quicksort.py``;
numba 0.68, checked against it and against ranx). That sort is deterministic but not
stable: a segment of at most 15 elements is insertion-sorted (stable: ties in
input order); a longer one is partitioned around the median of its first,
middle and last elements (the three swapped into order, the pivot stashed at
the end), with a scan from each end that swaps every element not below the
pivot found from the left with the next not above it from the right, until
the scans meet. Tied documents can then come in any order.

:func:`quicksort_order` reproduces that order exactly: with the C module
:mod:`rankwise.ranking._crank` by the same algorithm, segment by segment;
without it, one partition step of every segment at a time (numpy operations
over all of them; no loop per segment): the k-th element the left scan stops
at (not below the pivot) is swapped with the k-th the right scan stops at (not
above it) while the first lies left of the second, and the pivot lands at the
first position the left scan reaches after the last swap. Segments of at most
15 are finished by one stable sort (what insertion sort gives).
"""

from __future__ import annotations

import numpy as np

from rankwise._compiled import enabled, load

__all__ = ["SMALL", "quicksort_order", "ranx_positions"]

SMALL = 15
"""numba's SMALL_QUICKSORT: a segment of at most this many elements is insertion-sorted."""


def quicksort_order(
    values: np.ndarray, starts: np.ndarray, order: np.ndarray | None = None
) -> np.ndarray:
    """The order numba's ``np.argsort(kind="quicksort")`` gives each segment of *values*.

    Parameters
    ----------
    values : ndarray of float64
        The keys, sorted ascending (no NaN).
    starts : ndarray of int
        The first index of each segment; the segments are contiguous and
        cover *values*.
    order : ndarray of int, optional
        The arrangement the sort starts from (position -> index into
        *values*, within each segment); default the identity. Passing the
        result again sorts a second time, as ranx does after
        ``make_comparable``.

    Returns
    -------
    ndarray of int64
        Position -> index into *values*: each segment's ``np.argsort``, as
        numba computes it, offset by the segment's start.

    Examples
    --------
    >>> keys = np.zeros(16)  # 16 equal keys: no longer in input order
    >>> quicksort_order(keys, np.array([0])).tolist()
    [14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15]
    >>> quicksort_order(np.zeros(15), np.array([0])).tolist() == list(range(15))
    True
    """
    n = len(values)
    starts = np.ascontiguousarray(starts, dtype=np.int64)
    arrangement = np.arange(n, dtype=np.int64) if order is None else np.array(order, np.int64)
    if n == 0:
        return arrangement
    native = _crank if enabled() else None
    if native is not None:
        native.quicksort_order(np.ascontiguousarray(values, dtype=np.float64), starts,
                               arrangement)
        return arrangement
    return _by_steps(values, starts, arrangement)


_crank = load("rankwise.ranking._crank")


def _by_steps(values: np.ndarray, starts: np.ndarray, arrangement: np.ndarray) -> np.ndarray:
    """:func:`quicksort_order` without the C module: every segment's partition steps at once."""
    n = len(values)
    ends = np.append(starts[1:], n)
    low, high = starts, ends - 1
    long = high - low >= SMALL
    low, high = low[long], high[long]
    while len(low):
        low, high = _partition(values, arrangement, low, high)
    segment = np.repeat(np.arange(len(starts)), ends - starts)
    return arrangement[np.lexsort((values[arrangement], segment))]  # stable: insertion sort


def _partition(
    values: np.ndarray, r: np.ndarray, low: np.ndarray, high: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """One partition step of every segment [low, high] (each longer than SMALL), in place.

    Returns the parts still longer than SMALL.
    """
    n_segments = len(low)
    mid = (low + high) >> 1
    a, b, c = r[low], r[mid], r[high]
    for first, second in ((0, 1), (1, 2), (0, 1)):  # the median of three, swapped into order
        trio = [a, b, c]
        swap = values[trio[second]] < values[trio[first]]
        trio[first], trio[second] = (np.where(swap, trio[second], trio[first]),
                                     np.where(swap, trio[first], trio[second]))
        a, b, c = trio
    pivot = values[b]
    r[low], r[mid], r[high] = a, c, b  # the pivot stashed at the end
    sizes = high - low + 1
    offsets = np.cumsum(sizes) - sizes
    segment = np.repeat(np.arange(n_segments), sizes)
    position = np.arange(int(sizes.sum())) - offsets[segment] + low[segment]
    value, against = values[r[position]], pivot[segment]
    left = ~(value < against)  # where the scan from the left stops (the pivot's place too)
    right = ~(against < value) & (position < high[segment])  # where the right scan stops
    left_at, right_at = position[left], position[right]  # ascending within each segment
    n_left = np.bincount(segment[left], minlength=n_segments)
    n_right = np.bincount(segment[right], minlength=n_segments)
    left_first = np.cumsum(n_left) - n_left
    right_end = np.cumsum(n_right)  # the right scan reads its stops backwards from here
    pairs = np.minimum(n_left, n_right)
    pair_segment = np.repeat(np.arange(n_segments), pairs)
    k = np.arange(int(pairs.sum())) - (np.cumsum(pairs) - pairs)[pair_segment]
    from_left = left_at[left_first[pair_segment] + k]
    from_right = right_at[right_end[pair_segment] - 1 - k]
    crossing = from_left < from_right  # true for a prefix of each segment's pairs: swapped
    swapped = np.bincount(pair_segment[crossing], minlength=n_segments)
    from_left, from_right = from_left[crossing], from_right[crossing]
    r[from_left], r[from_right] = r[from_right], r[from_left]
    # the pivot's place: the left scan's next stop, or the last right stop when that is nearer
    place = left_at[left_first + swapped]
    last_right = right_at[np.maximum(right_end - swapped, 0) % max(len(right_at), 1)]
    place = np.where(swapped > 0, np.minimum(place, last_right), place)
    r[place], r[high] = r[high], r[place]
    parts_low = np.concatenate((low, place + 1))
    parts_high = np.concatenate((place - 1, high))
    keep = parts_high - parts_low >= SMALL
    return parts_low[keep], parts_high[keep]


def ranx_positions(
    query_codes: np.ndarray, scores: np.ndarray, rows: np.ndarray, passes: int = 1
) -> np.ndarray:
    """Where ranx puts each of *rows* in its query's order: a key that orders tied rows.

    ranx sorts a query's documents (in the order given) by numba's quicksort
    of the negated scores, *passes* times (twice after ``make_comparable``).
    Returned per row of *rows*: its place in its query's order for queries of
    more than :data:`SMALL` rows, its row number for the others (insertion
    sort keeps their ties in input order). Compare the keys of tied rows of
    one query only.

    Examples
    --------
    >>> codes, scores = np.zeros(20, dtype=np.int64), np.ones(20)  # 20 tied rows
    >>> ranx_positions(codes, scores, np.array([0, 1, 19])).tolist()
    [18, 17, 19]
    """
    rows = np.asarray(rows, dtype=np.int64)
    out: np.ndarray = rows.copy()
    if not len(rows):
        return out
    sizes = np.bincount(query_codes, minlength=int(query_codes.max()) + 1)
    long = sizes[query_codes[rows]] > SMALL
    if not long.any():
        return out
    wanted = np.zeros(len(sizes), dtype=bool)
    wanted[query_codes[rows[long]]] = True
    members = np.flatnonzero(wanted[query_codes])  # their rows, in row (input) order
    members = members[np.argsort(query_codes[members], kind="stable")]
    codes = query_codes[members]
    starts = np.flatnonzero(np.concatenate(([True], codes[1:] != codes[:-1])))
    keys = -np.asarray(scores, dtype=np.float64)[members]
    order = None
    for _ in range(passes):
        order = quicksort_order(keys, starts, order)
    place = np.empty(len(members), dtype=np.int64)
    place[order] = np.arange(len(members))
    out[long] = _at(members, place, rows[long])
    return out


def _at(members: np.ndarray, place: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """place[i] for members[i] == row, for each row (every row is among *members*)."""
    by_row = np.argsort(members)
    return place[by_row[np.searchsorted(members[by_row], rows)]]
