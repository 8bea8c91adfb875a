"""The sort path of the ranking: rows ordered by query and score, ties broken by docno.

Runs written in rank order are detected and not sorted; only the tie groups
that hold a target (a judged document) have their docnos compared. This is
the path without the C counting kernel (:mod:`rankwise.ranking._counted`),
for interleaved queries, for runs of massive ties, and for the other tools'
tie orders (input order, ranx's).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rankwise.data._arrow import array_to_numpy, numpy_to_array
from rankwise.data._strings import StringsLike, to_arrow
from rankwise.ranking._unique import distinct

if TYPE_CHECKING:

    from rankwise.data import Run

__all__ = ["Ranked", "RowOrder", "by_group_then_doc_descending", "ranks_of"]


@dataclass(frozen=True)
class _Ordering:
    """Rows ordered by query, then score descending (ties not yet broken)."""

    order: np.ndarray | None  # sorted position -> row (None: identity)
    position: np.ndarray | None  # row -> sorted position (None: identity)
    scores: np.ndarray  # scores in sorted order
    starts: np.ndarray  # first sorted position of each block
    block_codes: np.ndarray  # query code of each block


def _in_order(scores: np.ndarray, blocks: np.ndarray, block_codes: np.ndarray) -> _Ordering:
    """The ordering of a run its reader saw in rank order: nothing to check or sort."""
    return _Ordering(None, None, scores, blocks.astype(np.int64), block_codes.astype(np.int64))


def _order_rows(codes: np.ndarray, scores: np.ndarray) -> _Ordering:
    """Order rows by query block, then score descending.

    Runs written in rank order (grouped by query, scores descending) are
    detected in one pass and not sorted; runs grouped by query have only
    their out-of-order blocks sorted; runs whose queries interleave are
    sorted whole. The order among equal scores is left to
    :func:`_tie_groups` (docno descending).
    """
    n = len(codes)
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return _Ordering(None, None, scores, empty, empty)
    order: np.ndarray | None = None
    if n > 1 and (codes[1:] < codes[:-1]).any():  # queries interleave: sort everything
        order = _by_group_then_score(codes, scores)
        codes = codes[order]
        scores = scores[order]
    starts = np.flatnonzero(np.concatenate(([True], codes[1:] != codes[:-1])))
    rising = (
        np.flatnonzero(scores[1:] > scores[:-1]) + 1 if order is None else np.zeros(0, np.int64)
    )
    if len(rising):
        is_start = np.zeros(n, dtype=bool)
        is_start[starts] = True
        inside = rising[~is_start[rising]]
        if len(inside):
            block_of = np.searchsorted(starts, inside, side="right") - 1
            bad = distinct(block_of)[0]
            ends = np.append(starts[1:], n)
            lengths = ends[bad] - starts[bad]
            rows = np.repeat(starts[bad], lengths) + (
                np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
            )
            block_rows = np.repeat(np.arange(len(bad)), lengths)
            local = _by_group_then_score(block_rows, scores[rows])
            order = np.arange(n)
            order[rows] = rows[local]
            scores = scores.copy()
            scores[rows] = scores[rows[local]]
    position = None
    if order is not None:
        position = np.empty(n, dtype=np.int64)
        position[order] = np.arange(n)
    return _Ordering(
        order, position, scores, starts.astype(np.int64), codes[starts].astype(np.int64)
    )


def _by_group_then_score(groups: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """The permutation ordering rows by group ascending, then score descending.

    One sort by score, then a stable sort by group: a radix sort (linear time)
    when the groups fit in 16 bits. Equal scores come in no particular order.
    """
    by_score = np.argsort(-scores)
    keys = groups[by_score]
    if int(keys.max()) < 1 << 16 and int(keys.min()) >= 0:
        keys = keys.astype(np.uint16)
    return by_score[np.argsort(keys, kind="stable")]


RowOrder = bool | Callable[[np.ndarray], np.ndarray]
"""How tied rows are ordered: by docno (False), by row (True), or by the keys a function
of the rows gives (ranx's order)."""


def _tie_groups(
    ordering: _Ordering,
    positions: np.ndarray,
    doc_ids: StringsLike,
    rows_of: np.ndarray | None,
    by_row: RowOrder = False,
    ascending: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tie groups of the target positions, and the order inside them.

    Inside a group of equal scores, documents come by docno descending
    (byte order, trec_eval's rule; ascending with *ascending*), or with
    *by_row* in the order of their rows (input order: what a stable sort by
    score gives), or, *by_row* being a function of rows, in the order of
    the keys it gives them (ranx's). Returns, per target: its offset from the sorted position
    ((first position of its group + its place in the group) - position), the
    first position of its group and the group's size.
    """
    scores = ordering.scores
    n = len(scores)
    correction = np.zeros(len(positions), dtype=np.int64)
    first = positions.copy()
    size = np.ones(len(positions), dtype=np.int64)
    if len(positions) == 0 or n < 2:
        return correction, first, size
    block = np.searchsorted(ordering.starts, positions, side="right") - 1
    block_start = ordering.starts[block]
    block_end = np.append(ordering.starts[1:], n)[block]
    before = np.maximum(positions - 1, 0)
    after = np.minimum(positions + 1, n - 1)
    tied = ((positions > block_start) & (scores[before] == scores[positions])) | (
        (positions + 1 < block_end) & (scores[after] == scores[positions])
    )
    if not tied.any():
        return correction, first, size
    targets = positions[tied]
    low, high = _equal_range(scores, targets, block_start[tied], block_end[tied])
    groups, first_target, group_index = distinct(low)
    group_start = groups
    lengths = high[first_target] - group_start
    offsets = np.cumsum(lengths) - lengths
    local = np.arange(int(lengths.sum())) - np.repeat(offsets, lengths)
    members = np.repeat(group_start, lengths) + local
    source = members if ordering.order is None else ordering.order[members]
    if rows_of is not None:
        source = rows_of[source]
    group_of_member = np.repeat(np.arange(len(groups)), lengths)
    if by_row:
        keys = source.astype(np.int64) if by_row is True else by_row(source)
        ordered = np.lexsort((keys, group_of_member))
    else:
        ordered = by_group_then_doc_descending(
            group_of_member, source.astype(np.int64), doc_ids, ascending
        )
    place = np.empty(len(members), dtype=np.int64)
    place[ordered] = local
    member_of_target = offsets[group_index] + (targets - group_start[group_index])
    correction[tied] = group_start[group_index] + place[member_of_target] - targets
    first[tied] = group_start[group_index]
    size[tied] = lengths[group_index]
    return correction, first, size


def _equal_range(
    scores: np.ndarray, targets: np.ndarray, block_start: np.ndarray, block_end: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """For each target, the positions [low, high) of its block holding its score.

    Scores descend within a block, so both ends are found by binary search:
    a few vectorised steps over the targets, never a pass over all rows.
    """
    value = scores[targets]
    low, high = block_start.copy(), targets.copy()  # first position whose score == value
    while (low < high).any():
        middle = (low + high) // 2
        above = scores[np.minimum(middle, len(scores) - 1)] > value
        low = np.where((low < high) & above, middle + 1, low)
        high = np.where((low < high) & ~above, middle, high)
    start = low
    low, high = targets + 1, block_end.copy()  # first position whose score < value
    while (low < high).any():
        middle = (low + high) // 2
        equal = scores[np.minimum(middle, len(scores) - 1)] == value
        low = np.where((low < high) & equal, middle + 1, low)
        high = np.where((low < high) & ~equal, middle, high)
    return start, low


def by_group_then_doc_descending(
    group: np.ndarray, rows: np.ndarray, doc_ids: StringsLike, ascending: bool = False
) -> np.ndarray:
    """The order of *rows* by group, then by document id descending (byte order).

    With *ascending*, by document id ascending.
    """
    from rankwise.data._arrow import string_keys_at

    keys, exact = string_keys_at(doc_ids, rows, with_exact=True)
    if exact:
        # zero-padded bytes, big-endian: integer order is byte order, unless a docno
        # holds a NUL byte (then two keys can be equal: confirmed below)
        keys = keys.byteswap()
        order = np.lexsort((keys if ascending else ~keys, group))
        same = (group[order][1:] == group[order][:-1]) & (keys[order][1:] == keys[order][:-1])
        if not same.any():
            return order
    import pyarrow as pa
    import pyarrow.compute as pc

    docs = to_arrow(doc_ids).take(numpy_to_array(rows))
    table = pa.table({"group": numpy_to_array(group), "doc": docs})
    ordered = pc.sort_indices(
        table,
        sort_keys=[("group", "ascending"), ("doc", "ascending" if ascending else "descending")],
    )
    return array_to_numpy(ordered, np.uint64).astype(np.int64)


@dataclass(frozen=True)
class Ranked:
    """Ranks of target rows within their query, and the blocks of the ordering."""

    rank: np.ndarray  # 1-based rank of each target
    above: np.ndarray  # documents of its query ranked strictly above its tie group
    size: np.ndarray  # size of its tie group
    block: np.ndarray  # block of each target
    block_codes: np.ndarray  # run query code of each block
    block_sizes: np.ndarray  # rows of each block


def ranks_of(
    run: Run,
    scores: np.ndarray,
    targets: np.ndarray,
    rows_of: np.ndarray | None,
    by_rank: bool,
    by_row: RowOrder = False,
    ascending: bool = False,
) -> Ranked:
    """Rank *targets* among the rows of their query (among *rows_of* only, when given).

    *targets* index the run's rows, or with *rows_of* index into *rows_of*.
    Ties are broken by docno descending (trec_eval's rule; ascending with
    *ascending*), or with *by_row* by row order (or by the keys it gives).
    """
    blocks = run.rank_order_blocks if rows_of is None and not by_rank else None
    if blocks is not None:  # in rank order already: no per-row codes needed
        ordering = _in_order(scores, blocks, run.query_codes_at(blocks))
    else:
        codes = run.query_codes if rows_of is None else run.query_codes_at(rows_of)
        ordering = _order_rows(codes, scores if rows_of is None else scores[rows_of])
    positions = targets if ordering.position is None else ordering.position[targets]
    correction, group_first, group_size = _tie_groups(
        ordering, positions, run.doc_column, rows_of, by_row, ascending
    )
    positions = positions + correction
    block = np.searchsorted(ordering.starts, positions, side="right") - 1
    return Ranked(
        rank=(positions - ordering.starts[block] + 1).astype(np.int64),
        above=(group_first - ordering.starts[block]).astype(np.int64),
        size=group_size.astype(np.int64),
        block=block,
        block_codes=ordering.block_codes,
        block_sizes=np.diff(np.append(ordering.starts, len(ordering.scores))),
    )
