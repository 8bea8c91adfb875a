"""From a run and judgments to the ranks of the judged documents.

Most measures need only, per query, the number of documents retrieved and
the rank and grade of each judged document that was retrieved. This module
computes exactly that, for all queries at once:

1. the judged rows of the run are found by a hash lookup of the run's
   document ids in the (small) set of judged ids, then confirmed per query;
2. the run is ordered by score descending within each query, ties by docno
   descending in byte order (trec_eval's rule). Runs written in rank order
   are detected and not sorted; only the tie groups that hold a judged
   document have their docnos compared. Runs grouped by query but not in
   rank order (dicts, frames) are not sorted either: the rank of a judged
   document is 1 + the documents of its query that sort before it, counted
   per query by :mod:`rankwise.kernels._crank` (the sort stays as the path
   without C, for interleaved queries and for runs of massive ties).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from rankwise._compiled import enabled, load
from rankwise._threads import cores, run_threads
from rankwise._validation import OneOf, check
from rankwise.data._arrow import array_to_numpy, numpy_to_array
from rankwise.data._strings import StringChunk, StringsLike, string_chunks, to_arrow
from rankwise.exceptions import InvalidParameterError
from rankwise.kernels._unique import distinct
from rankwise.options import EVAL_CONSTRAINTS, TIE_POLICIES, Missing, Ties

if TYPE_CHECKING:

    from rankwise.data import Qrels, Run

__all__ = [
    "TIE_ORDERS",
    "TIE_POLICIES",
    "RankedJudgments",
    "TiedRanking",
    "assemble_ranking",
    "byte_order",
    "judged_rows",
    "judgment_rows",
    "rank_all_ties",
    "rank_judgments",
    "rank_rows",
]


@dataclass(frozen=True)
class RankedJudgments:
    """What the kernels need about one run against the judgments.

    Attributes
    ----------
    query_ids : list of str
        The evaluated queries, in byte order of their ids.
    num_ret : ndarray of int64
        Documents retrieved per query (after the depth cut).
    hit_query, hit_rank, hit_grade : ndarrays
        One entry per judged document that was retrieved: its query (index
        into ``query_ids``), its 1-based rank and its grade, sorted by
        (query, rank).
    judged_offsets, judged_grades : ndarrays
        All judgments of each query (CSR): the grades of query ``q`` are
        ``judged_grades[judged_offsets[q]:judged_offsets[q + 1]]``, sorted
        descending.
    tie_above, tie_size : ndarrays
        Per hit, documents ranked strictly above its tie group and the size of
        the group (1 when its score is not tied).
    depth : int or None
        The depth cut; with ``ties="average"`` it acts as a cutoff.
    ties : str
        The tie policy the ranks follow.
    hit_score : ndarray or None
        Per hit, the score that ranked it (cast to float32 when the ranking
        compared scores in float32); None when the engine did not keep it.
    hit_judged : ndarray of int64 or None
        Per hit, its entry in the judgments of its query (an index into
        ``judged_grades``).
    judged_rows : ndarray of int64 or None
        Per entry of ``judged_grades``, its row in ``qrels`` (-1: a retrieved
        unjudged document taken as relevant, see :meth:`TiedRanking.with_unjudged_as`).
    qrels : Qrels or None
        The judgments the rows index (document ids, subtopic judgments).
    beyond_grade : float or None
        The grade of the documents past the end of each ranking: None (there
        are none, the usual reading), or the grade the upper bound of
        ``unjudged="bounds"`` gives them (read by the measures of an endless
        ranking: ``rbp`` and the C/W/L family).
    cache : dict
        What the kernels derive from the judgments alone (the same for every
        tie policy), shared by the views of one :class:`TiedRanking`.
    """

    query_ids: list[str]
    num_ret: np.ndarray
    hit_query: np.ndarray
    hit_rank: np.ndarray
    hit_grade: np.ndarray
    judged_offsets: np.ndarray
    judged_grades: np.ndarray
    in_run: np.ndarray
    tie_above: np.ndarray
    tie_size: np.ndarray
    depth: int | None = None
    ties: Ties = "trec"
    hit_score: np.ndarray | None = None
    hit_judged: np.ndarray | None = None
    judged_rows: np.ndarray | None = None
    qrels: Qrels | None = None
    beyond_grade: float | None = None
    cache: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def n_queries(self) -> int:
        """Number of evaluated queries."""
        return len(self.query_ids)


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
        ordered = _by_group_then_doc_descending(
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


def _by_group_then_doc_descending(
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


def _find_judged(qrels: Qrels, run: Run, run_to_qrels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows of the run that are judged, and the matching row of the judgments."""
    from rankwise.kernels._join import find_strings

    candidates, candidate_doc = find_strings(run.doc_column, qrels.doc_column)
    qrels_query = run_to_qrels[run.query_codes_at(candidates)]
    usable = qrels_query >= 0
    candidates, qrels_query = candidates[usable], qrels_query[usable]
    candidate_doc = candidate_doc[usable]
    n_docs = max(1, len(qrels.doc_ids))
    qrels_keys = qrels.query_codes.astype(np.int64) * n_docs + qrels.doc_codes
    key_order = np.argsort(qrels_keys)
    sorted_keys = qrels_keys[key_order]
    wanted = qrels_query * n_docs + candidate_doc
    place = np.minimum(np.searchsorted(sorted_keys, wanted), max(len(sorted_keys) - 1, 0))
    found = sorted_keys[place] == wanted if len(sorted_keys) else np.zeros(0, dtype=bool)
    return candidates[found], key_order[place[found]]


def judgment_rows(qrels: Qrels, query_codes: np.ndarray, docs: StringsLike) -> np.ndarray:
    """The row of *qrels* judging each (query, document), -1 where none does.

    *query_codes* index ``qrels.query_ids`` (-1: not a judged query); *docs*
    are document ids (an Arrow string array or column). Engines that rank
    by ids (Spark) find the rows of their hits with it.

    Examples
    --------
    >>> import pyarrow as pa
    >>> from rankwise.data import Qrels
    >>> qrels = Qrels.from_dict({"q1": {"a": 1, "b": 0}, "q2": {"a": 2}})
    >>> judgment_rows(qrels, np.array([1, 0, 0, -1]), pa.array(["a", "b", "c", "a"])).tolist()
    [2, 1, -1, -1]
    """
    import pyarrow as pa

    from rankwise.kernels._join import find_strings

    codes = np.asarray(query_codes, dtype=np.int64)
    out = np.full(len(codes), -1, dtype=np.int64)
    if isinstance(docs, pa.Array):
        docs = pa.chunked_array([docs], type=docs.type)
    found, doc_code = find_strings(docs, qrels.doc_column)
    n_docs = max(1, len(qrels.doc_ids))
    keys = qrels.query_codes.astype(np.int64) * n_docs + qrels.doc_codes
    order = np.argsort(keys)
    wanted = codes[found] * n_docs + doc_code
    if len(keys) == 0:
        return out
    place = np.minimum(np.searchsorted(keys[order], wanted), len(keys) - 1)
    hit = (keys[order][place] == wanted) & (codes[found] >= 0)
    out[found[hit]] = order[place[hit]]
    return out


def rank_judgments(
    qrels: Qrels,
    run: Run,
    *,
    depth: int | None = None,
    missing: Missing = "skip",
    judged_only: bool = False,
    ties: Ties = "trec",
) -> RankedJudgments:
    """Join *run* with *qrels* and rank the judged documents of every query.

    Equivalent to ``rank_all_ties(...).view(ties)``.

    Parameters
    ----------
    qrels : Qrels
        The judgments.
    run : Run
        The scored results.
    depth, missing, judged_only, ties
        As in :class:`rankwise.options.EvalOptions`.

    Returns
    -------
    RankedJudgments
    """
    return rank_all_ties(
        qrels, run, depth=depth, missing=missing, judged_only=judged_only,
        by_rank=ties == "rank", ascending=ties == "ascending",
    ).view(ties)


TIE_ORDERS = ("docno", "input", "ranx")
"""The order of tied documents a ranking can follow: docno descending, input order, or
ranx's (numba's quicksort of the run's rows: :mod:`rankwise.kernels._quicksort`)."""
TIE_ORDER = OneOf(TIE_ORDERS)
"""What ``tie_order=`` must be (one of :data:`TIE_ORDERS`)."""


def rank_all_ties(
    qrels: Qrels,
    run: Run,
    *,
    depth: int | None = None,
    missing: Missing = "skip",
    judged_only: bool = False,
    by_rank: bool = False,
    tie_order: str = "docno",
    float32: bool = False,
    drop_self: bool = False,
    ascending: bool = False,
) -> TiedRanking:
    """Rank the judged documents and describe the tie groups they sit in.

    Any tie policy can then be applied with :meth:`TiedRanking.view`
    without ranking the run again. With *by_rank*, the run's rank column
    orders the documents instead of the scores. With *ascending*, tied
    documents come by docno ascending (``ties="ascending"``), not
    descending (trec_eval's rule). With *judged_only* and
    *depth*, the ranking is cut at *depth* first and unjudged documents are
    dropped after (trec_eval's ``-J -M``, form_res_rels.c).

    The other tools' rankings (see :mod:`rankwise.measures.dialects`): with
    ``tie_order="input"`` tied documents keep the order of the run's rows (a
    stable sort by score), instead of docno descending; with
    ``tie_order="ranx"`` they come as ranx 0.3.21 orders them (numba's
    quicksort of each query's rows by score: input order up to 15 rows, its
    own order beyond), sorted once when the run holds exactly the judged
    queries (ranx's ``evaluate`` refuses other runs without
    ``make_comparable=True``) and twice otherwise (``make_comparable`` sorts
    the run again); with *float32* the
    scores are compared after rounding to float32 (distinct float64 scores
    can then tie); with *drop_self* a document whose id is its query's id is
    not retrieved (BEIR's ``ignore_identical_ids``).
    """
    check("missing", missing, EVAL_CONSTRAINTS["missing"])
    check("tie_order", tie_order, TIE_ORDER)
    check("depth", depth, EVAL_CONSTRAINTS["depth"])
    if drop_self:
        run = _without_self(run)
    by_row: RowOrder = tie_order in ("input", "ranx")
    qrels_index = {name: i for i, name in enumerate(qrels.query_ids)}
    run_to_qrels = np.array(
        [qrels_index.get(name, -1) for name in run.query_ids], dtype=np.int64
    )
    scores = _order_values(run, by_rank)
    if float32:
        scores = scores.astype(np.float32).astype(np.float64)
    if tie_order == "ranx":
        by_row = _ranx_order(run, scores, set(run.query_ids) == set(qrels.query_ids))
    counted = None
    # not in rank order: count, do not sort (the counting kernel breaks ties by docno descending)
    if not by_row and not ascending and (by_rank or run.rank_order_blocks is None):
        counted = _find_and_rank(qrels, run, run_to_qrels, scores)
    if counted is not None:
        judged_rows, judged_qrels_row, full_ranks = counted
    else:
        judged_rows, judged_qrels_row = _find_judged(qrels, run, run_to_qrels)
    if judged_only:
        usable = qrels.grades[judged_qrels_row] >= 0
        if depth is not None:  # trec_eval cuts at the depth first, then drops the unjudged
            full = (
                full_ranks if counted is not None
                else _ranks_of(run, scores, judged_rows, None, by_rank, by_row, ascending)
            )
            usable &= full.rank <= depth
        kept_rows = judged_rows[usable]
        judged_qrels_row = judged_qrels_row[usable]
        ranked = _ranks_of(
            run, scores, np.arange(len(kept_rows)), kept_rows, by_rank, by_row, ascending
        )
        hit_rows = kept_rows
    else:
        ranked = (
            full_ranks if counted is not None
            else _ranks_of(run, scores, judged_rows, None, by_rank, by_row, ascending)
        )
        hit_rows = judged_rows
    counts = np.full(qrels.n_queries, -1, dtype=np.int64)
    block_query = run_to_qrels[ranked.block_codes]
    in_qrels = block_query >= 0
    counts[block_query[in_qrels]] = ranked.block_sizes[in_qrels]
    in_run = np.zeros(len(counts), dtype=bool)
    in_run[run_to_qrels[run_to_qrels >= 0]] = True
    counts[in_run & (counts < 0)] = 0  # in the run, but -J left nothing of it to rank
    return assemble_ranking(
        qrels,
        counts,
        hit_query=block_query[ranked.block],
        hit_rank=ranked.rank,
        hit_grade=qrels.grades[judged_qrels_row],
        tie_above=ranked.above,
        tie_size=ranked.size,
        depth=depth,
        missing=missing,
        judged_only=judged_only,
        hit_score=scores[hit_rows],
        hit_row=judged_qrels_row,
    )


def _ranx_order(run: Run, scores: np.ndarray, same_queries: bool) -> RowOrder:
    """The key of ranx's order of tied rows (see :func:`rank_all_ties`)."""
    from rankwise.kernels._quicksort import ranx_positions

    codes = run.query_codes

    def key(rows: np.ndarray) -> np.ndarray:
        return ranx_positions(codes, scores, rows, passes=1 if same_queries else 2)

    return key


def _without_self(run: Run) -> Run:
    """The run without the rows whose document id is their query's id."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from rankwise.data import Run as RunType

    queries = pa.array(run.query_ids, pa.string()).take(numpy_to_array(run.query_codes))
    docs = run.doc_ids.combine_chunks()
    same = pc.fill_null(pc.equal(docs, queries), False)
    keep = ~array_to_numpy(same, np.bool_) if len(run) else np.zeros(0, dtype=bool)
    if keep.all():
        return run
    rows = np.flatnonzero(keep)
    return RunType.from_arrow(
        queries.take(numpy_to_array(rows)),
        docs.take(numpy_to_array(rows)),
        run.scores[rows],
        name=run.name,
        source=run.source,
        check_duplicates=False,
    )


@dataclass(frozen=True)
class _Ranked:
    """Ranks of target rows within their query, and the blocks of the ordering."""

    rank: np.ndarray  # 1-based rank of each target
    above: np.ndarray  # documents of its query ranked strictly above its tie group
    size: np.ndarray  # size of its tie group
    block: np.ndarray  # block of each target
    block_codes: np.ndarray  # run query code of each block
    block_sizes: np.ndarray  # rows of each block


def _ranks_of(
    run: Run,
    scores: np.ndarray,
    targets: np.ndarray,
    rows_of: np.ndarray | None,
    by_rank: bool,
    by_row: RowOrder = False,
    ascending: bool = False,
) -> _Ranked:
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
    return _Ranked(
        rank=(positions - ordering.starts[block] + 1).astype(np.int64),
        above=(group_first - ordering.starts[block]).astype(np.int64),
        size=group_size.astype(np.int64),
        block=block,
        block_codes=ordering.block_codes,
        block_sizes=np.diff(np.append(ordering.starts, len(ordering.scores))),
    )


_crank = load("rankwise.kernels._crank")

_TIE_BUDGET_PER_ROW = 16
_TIE_BUDGET_BASE = 1 << 20
"""Docno comparisons the counting kernel may spend on ties (per row, and at least) before
the run is sorted instead (a run of massive ties: a sort compares fewer)."""


def _find_and_rank(
    qrels: Qrels, run: Run, run_to_qrels: np.ndarray, scores: np.ndarray
) -> tuple[np.ndarray, np.ndarray, _Ranked] | None:
    """The judged rows of a run grouped by query, their judgments and ranks, without a sort.

    The rank of a document is 1 + the documents of its query that sort before
    it (trec_eval's order); :mod:`rankwise.kernels._crank` finds the judged
    rows of each query and counts, for the queries holding judgments only.
    Gives what :func:`_find_judged` and :func:`_ranks_of` give. None when the
    C module is not available, the run is not grouped by query (a query in
    two places), or ties are so many that sorting is cheaper: the caller then
    takes the general path.
    """
    native = _crank if enabled() else None
    n = len(scores)
    if native is None or n == 0 or len(qrels) == 0:
        return None
    starts, codes = run.query_blocks
    if len(codes) > 1 and not (codes[1:] > codes[:-1]).all():
        return None  # a query in two places
    if np.isnan(scores).any():  # scores are finite; ranks (ties="rank") may not be
        return None
    bounds = np.append(starts, n).astype(np.int64)
    block_query = np.ascontiguousarray(run_to_qrels[codes], dtype=np.int64)
    grouped = _judgments_by_query(qrels)
    if grouped is None:
        return None
    per_query, query_offsets, judgments, judged_doc, id_chunk = grouped
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    docs = [chunk.as_buffers() for chunk in string_chunks(run.doc_column)]
    # per block, at most its query's judgments are found: each thread gets its share
    found_at_most = np.where(block_query >= 0, per_query[np.maximum(block_query, 0)], 0)
    parts = _block_ranges(bounds)
    room = np.concatenate(([0], np.cumsum(found_at_most))).astype(np.int64)
    total = int(room[-1])
    outputs = [np.empty(total, dtype=np.int64) for _ in range(6)]
    budget = _TIE_BUDGET_PER_ROW * n // len(parts) + _TIE_BUDGET_BASE
    counts = [0] * len(parts)

    def work(index: int) -> None:
        first, last = parts[index]
        lo, hi = int(room[first]), int(room[last])
        counts[index] = native.judged_ranks(
            bounds, block_query, scores, docs, query_offsets, judgments, judged_doc,
            id_chunk.as_buffers(), first, last, budget, *(out[lo:hi] for out in outputs),
        )

    run_threads(work, len(parts))
    if min(counts) < 0:
        return None
    spans = [
        (int(room[first]), int(room[first]) + count) for (first, _), count in zip(parts, counts)
    ]
    rows, judged, rank, above, size, block = (
        out[spans[0][0] : spans[0][1]] if len(spans) == 1
        else np.concatenate([out[lo:hi] for lo, hi in spans])
        for out in outputs
    )
    ranked = _Ranked(
        rank=rank,
        above=above,
        size=size,
        block=block,
        block_codes=codes.astype(np.int64),
        block_sizes=np.diff(bounds),
    )
    return rows, judged, ranked


class _ByQuery(NamedTuple):
    """The judgments grouped by query, as the counting kernels read them."""

    per_query: np.ndarray  # judgments of each query
    query_offsets: np.ndarray  # int64: query q has judgments[offsets[q]:offsets[q + 1]]
    judgments: np.ndarray  # int64 rows of the judgments
    judged_doc: np.ndarray  # int32 per row, its document: an index into the ids
    ids: StringChunk  # the distinct judged document ids


def _judgments_by_query(qrels: Qrels) -> _ByQuery | None:
    """The judgments grouped by query, or None when their ids are not in one chunk."""
    id_column, judged_doc = qrels.judged_doc_text()
    id_chunks = string_chunks(id_column)
    if len(id_chunks) != 1:
        return None
    query_codes = qrels.query_codes
    per_query = np.bincount(query_codes, minlength=qrels.n_queries)
    query_offsets = np.concatenate(([0], np.cumsum(per_query))).astype(np.int64)
    if len(query_codes) < 2 or (query_codes[1:] >= query_codes[:-1]).all():
        judgments = np.arange(len(query_codes), dtype=np.int64)  # grouped by query already
    else:
        judgments = np.argsort(query_codes, kind="stable").astype(np.int64)
    judged_doc = np.ascontiguousarray(judged_doc, dtype=np.int32)
    return _ByQuery(per_query, query_offsets, judgments, judged_doc, id_chunks[0])


def rank_run_dict(
    qrels: Qrels,
    results: Any,
    *,
    depth: int | None = None,
    missing: Missing = "skip",
    judgment_rows: bool = True,
) -> tuple[TiedRanking, int, int] | None:
    """Rank a run given as ``{query_id: {doc_id: score}}`` without building the run.

    One pass over the dict in C (:mod:`rankwise.io._ccolumns`): each
    document id is looked up among the judged ids of its query, and the rank
    of each judged document found is 1 + the documents of its query that
    sort before it (trec_eval's order, docnos compared only among equal
    scores), as :func:`rank_all_ties` ranks the run read by
    :func:`rankwise.io.dicts.run_from_dict`. On a machine of two cores or
    more, for runs of 65,536 documents or more, a second thread (plain C,
    without the GIL) reads and ranks the second half of the queries while
    the thread holding the GIL reads and ranks the first: reading dicts is
    mostly waiting for memory, and two threads wait in parallel. The second
    thread reads only keys that are exact str of ASCII text and scores that
    are exact floats; on anything else, the GIL holder reads that half
    itself. The documents of unjudged queries are only counted.

    With *judgment_rows* false, the ranking leaves out each judgment's
    row (``judged_rows``, ``hit_judged``: ordering them costs a sort), which
    only the diversity measures read.

    Returns
    -------
    (TiedRanking, int, int) or None
        The ranking, the judged queries the run does not hold and the
        queries of the run the judgments do not hold; None when the C
        module is off or the dict needs the general path: an entry it does
        not accept (the general path raises the error), ids that may collide
        (``1`` and ``"1"``), or ties too many to count.
    """
    if not enabled() or not len(qrels) or not isinstance(results, dict):
        return None
    native = load("rankwise.io._ccolumns")  # loaded here: reading files does not need it
    if native is None:
        return None
    grouped = _judgments_by_query(qrels)
    if grouped is None:
        return None
    from rankwise.io.dicts import ID_TYPES, NUMBER_TYPES

    ids = grouped.ids
    read = native.run_dict_ranks(
        results, ID_TYPES, NUMBER_TYPES, qrels.query_ids, grouped.query_offsets,
        grouped.judgments, grouped.judged_doc, ids.offsets, ids.data,
        _TIE_BUDGET_PER_ROW, _TIE_BUDGET_BASE, min(2, cores()),
    )
    if read is None:
        return None
    _, *blocks = read
    block_query, block_size, judgment, rank, above, size, block = (
        np.frombuffer(buffer, dtype=np.int64) for buffer in blocks[:7]
    )
    score = np.frombuffer(blocks[7], dtype=np.float64)
    counts = np.full(qrels.n_queries, -1, dtype=np.int64)
    in_qrels = block_query >= 0
    counts[block_query[in_qrels]] = block_size[in_qrels]
    ranking = assemble_ranking(
        qrels,
        counts,
        hit_query=block_query[block],
        hit_rank=rank,
        hit_grade=qrels.grades[judgment],
        tie_above=above,
        tie_size=size,
        depth=depth,
        missing=missing,
        hit_score=score,
        hit_row=judgment if judgment_rows else None,
    )
    return ranking, int((counts < 0).sum()), int((~in_qrels).sum())


_ROWS_PER_THREAD = 1 << 20


def _block_ranges(bounds: np.ndarray) -> list[tuple[int, int]]:
    """Consecutive ranges of blocks, about equal in rows, one per thread worth starting."""
    n_blocks = len(bounds) - 1
    parts = max(1, min(cores(), 8, int(bounds[-1]) // _ROWS_PER_THREAD, n_blocks))
    if parts == 1:
        return [(0, n_blocks)]
    cuts = np.searchsorted(bounds, np.arange(1, parts) * (bounds[-1] / parts), side="left")
    edges = [0, *sorted(set(np.clip(cuts, 1, n_blocks - 1).tolist())), n_blocks]
    return [(a, b) for a, b in pairwise(edges) if b > a]


def byte_order(names: list[str]) -> np.ndarray:
    """The permutation sorting *names* by their UTF-8 bytes (C's strcmp, trec_eval's order).

    Examples
    --------
    >>> byte_order(["b", "a", "\u00e9", "B"]).tolist()
    [3, 1, 0, 2]
    """
    # Arrow sorts text by its bytes too, without a key per name, once it is imported
    # (importing pyarrow.compute costs ~0.3 s: more than sorting a million names)
    if len(names) > 1 << 20 or (len(names) > 1 << 16 and "pyarrow.compute" in sys.modules):
        import pyarrow as pa
        import pyarrow.compute as pc

        return np.asarray(pc.sort_indices(pa.array(names, type=pa.string())), dtype=np.int64)
    # str order is code point order, which UTF-8 byte order is: no encoding needed
    return np.array(sorted(range(len(names)), key=names.__getitem__), dtype=np.int64)


def assemble_ranking(
    qrels: Qrels,
    counts: np.ndarray,
    *,
    hit_query: np.ndarray,
    hit_rank: np.ndarray,
    hit_grade: np.ndarray,
    tie_above: np.ndarray,
    tie_size: np.ndarray,
    depth: int | None,
    missing: Missing,
    judged_only: bool = False,
    hit_score: np.ndarray | None = None,
    hit_row: np.ndarray | None = None,
) -> TiedRanking:
    """The kernels' input, from ranks however an engine computed them.

    Every engine ends here: which queries are evaluated, in which order,
    the judged grades of each and the depth cut are decided once.

    Parameters
    ----------
    qrels : Qrels
        All judgments.
    counts : ndarray of int64
        Per query of *qrels* (by its code), the documents the run ranks for
        it before the depth cut, or -1 when the run does not hold it.
    hit_query : ndarray of int64
        Per judged document retrieved, its query (a code of *qrels*; -1:
        not a judged query, dropped).
    hit_rank, hit_grade, tie_above, tie_size : ndarrays
        Its 1-based rank, its grade, the documents of its query ranked
        strictly above its tie group and the size of the group.
    depth : int or None
        ``num_ret = min(count, depth)``; hits whose tie group starts below
        the depth are dropped (each tie policy's view cuts at the depth).
    missing : {"skip", "zero"}
        Whether judged queries absent from the run are evaluated.
    judged_only : bool
        Unjudged documents were dropped. With ``missing="zero"``, a judged
        query absent from the run then counts as retrieved with nothing left
        to rank, as in trec_eval ``-c -J`` (its placeholder document is
        unjudged and dropped): its precision at recall 0 is undefined (NaN).
    hit_score : ndarray, optional
        Per hit, the score that ranked it (read by conventions that look at
        scores, see :mod:`rankwise.measures.dialects`).
    hit_row : ndarray of int64, optional
        Per hit, its row in *qrels* (:func:`judgment_rows` finds them from
        ids); the diversity measures need it.

    Returns
    -------
    TiedRanking
        Queries in byte order of their ids; hits by query, then rank.

    Examples
    --------
    >>> from rankwise.data import Qrels
    >>> qrels = Qrels.from_dict({"q2": {"a": 1}, "q1": {"b": 2, "c": 0}})
    >>> ranking = assemble_ranking(
    ...     qrels, np.array([-1, 5]), hit_query=np.array([1, 1]), hit_rank=np.array([4, 2]),
    ...     hit_grade=np.array([0.0, 2.0]), tie_above=np.array([3, 1]),
    ...     tie_size=np.array([1, 1]), depth=None, missing="zero")
    >>> data = ranking.view("trec")
    >>> data.query_ids, data.num_ret.tolist(), data.hit_rank.tolist()
    (['q1', 'q2'], [5, 0], [2, 4])
    """
    names = qrels.query_ids
    n_queries = len(names)
    counts = np.asarray(counts, dtype=np.int64)
    present = counts >= 0
    evaluated = np.arange(n_queries) if missing == "zero" else np.flatnonzero(present)
    if len(evaluated) < n_queries:  # an object array gathers names without a Python loop
        names = np.array(names, dtype=object)[evaluated].tolist()
    order = byte_order(names)
    if len(order) > 1 and not (order[1:] > order[:-1]).all():
        evaluated = evaluated[order]
        names = np.array(names, dtype=object)[order].tolist()
    eval_of = np.full(n_queries, -1, dtype=np.int64)
    eval_of[evaluated] = np.arange(len(evaluated))
    n_eval = len(evaluated)

    # judgments of the evaluated queries, CSR with grades descending
    judged_query = eval_of[qrels.query_codes]
    keep = judged_query >= 0
    every_judgment = bool(keep.all())  # then nothing is copied
    judged_query = judged_query if every_judgment else judged_query[keep]
    judged_grade = qrels.grades if every_judgment else qrels.grades[keep]
    judged_rows = None
    entry_of_row = None
    if hit_row is not None:  # the rows of the entries of judged_grades (diversity measures)
        judged_rows = np.flatnonzero(keep)[_by_query_grade_descending(judged_query, judged_grade)]
        entry_of_row = np.full(len(qrels.grades), -1, dtype=np.int64)
        entry_of_row[judged_rows] = np.arange(len(judged_rows))
    judged_offsets = np.concatenate(
        ([0], np.cumsum(np.bincount(judged_query, minlength=n_eval)))
    ).astype(np.int64)

    hit_query = np.asarray(hit_query, dtype=np.int64)
    hit_query = np.where(hit_query >= 0, eval_of[np.maximum(hit_query, 0)], -1)
    above = np.asarray(tie_above, dtype=np.int64)
    num_ret = np.maximum(counts[evaluated], 0)
    kept = hit_query >= 0
    if depth is not None:
        num_ret = np.minimum(num_ret, depth)
        kept &= above < depth  # a superset: each view cuts at the depth itself
    hit_rank = np.asarray(hit_rank, dtype=np.int64)
    rows: np.ndarray | slice
    if kept.all():
        hit_order = _by_query_then_rank(hit_query, hit_rank)
        rows = slice(None) if hit_order is None else hit_order  # in order: nothing copied
    else:
        rows = np.flatnonzero(kept)
        hit_order = _by_query_then_rank(hit_query[rows], hit_rank[rows])
        if hit_order is not None:  # hits in view order once: views need not sort again
            rows = rows[hit_order]
    hit_judged = (
        entry_of_row[np.asarray(hit_row, dtype=np.int64)[rows]]
        if hit_row is not None and entry_of_row is not None else None
    )
    return TiedRanking(
        query_ids=names,
        num_ret=num_ret,
        hit_query=hit_query[rows],
        hit_rank=hit_rank[rows],
        hit_grade=np.asarray(hit_grade, dtype=np.float64)[rows],
        tie_above=above[rows],
        tie_size=np.asarray(tie_size, dtype=np.int64)[rows],
        judged_offsets=judged_offsets,
        judged_grades=(
            _grades_descending(judged_query, judged_grade, n_eval)
            if judged_rows is None else qrels.grades[judged_rows]
        ),
        # in the run, even when -J leaves nothing to rank
        in_run=present[evaluated] | (judged_only and missing == "zero"),
        depth=depth,
        hit_score=None if hit_score is None else np.asarray(hit_score, np.float64)[rows],
        hit_judged=hit_judged,
        judged_rows=judged_rows,
        qrels=qrels,
    )


def _grades_descending(query: np.ndarray, grade: np.ndarray, n_queries: int) -> np.ndarray:
    """The grades grouped by query (ascending), descending within each query.

    Grades are few distinct small integers in practice: then counted per
    (query, grade) and laid out, in linear time; else sorted.

    Examples
    --------
    >>> _grades_descending(np.array([1, 0, 1, 0]), np.array([0.0, 2.0, 3.0, -1.0]), 2).tolist()
    [2.0, -1.0, 3.0, 0.0]
    """
    if len(grade):
        low, high = float(grade.min()), float(grade.max())
        levels = high - low + 1
        if levels <= 64 and n_queries * levels <= 4 * len(grade) + 1024 and (
            grade == np.floor(grade)
        ).all():
            step = int(levels)
            level = (high - grade).astype(np.int64)  # 0: the highest grade
            counts = np.bincount(query * step + level, minlength=n_queries * step)
            values = np.tile(high - np.arange(step, dtype=np.float64), n_queries)
            return np.repeat(values, counts)
    return grade[np.lexsort((-grade, query))]


def _by_query_grade_descending(query: np.ndarray, grade: np.ndarray) -> np.ndarray:
    """Judgments ordered by query, then grade descending (stable): :func:`_grades_descending`.

    Examples
    --------
    >>> _by_query_grade_descending(np.array([1, 0, 1, 0]), np.array([0.0, 2.0, 3.0, -1.0])).tolist()
    [1, 3, 2, 0]
    """
    if len(grade) and (grade == np.floor(grade)).all():
        low, high = float(grade.min()), float(grade.max())
        if high - low < 1 << 20 and len(grade) < 1 << 40:
            key = query.astype(np.int64) * int(high - low + 1) + (high - grade).astype(np.int64)
            return np.argsort(key, kind="stable")
    return np.lexsort((-grade, query))


def _by_query_then_rank(query: np.ndarray, rank: np.ndarray) -> np.ndarray | None:
    """The order of hits by (query, rank), stable; None when they are in it already."""
    if len(query) < 2:
        return None
    step = np.diff(query)
    if ((step > 0) | ((step == 0) & (np.diff(rank) >= 0))).all():
        return None
    low, high = int(rank.min()), int(rank.max())
    if low >= 0 and high < 1 << 32 and int(query.min()) >= 0 and int(query.max()) < 1 << 31:
        key = (query.astype(np.int64) << 32) | rank.astype(np.int64)
        return np.argsort(key, kind="stable")
    return np.lexsort((rank, query))


def _order_values(run: Run, by_rank: bool) -> np.ndarray:
    """What orders a query's documents, higher first: the score, or minus the rank."""
    if not by_rank:
        return run.scores
    ranks = run.ranks
    if ranks is None:
        raise InvalidParameterError(
            "ties='rank' needs the run's rank column: read the run with "
            "rankwise.read_run(path, keep_rank=True) or pass the file's path"
        )
    return -ranks


@dataclass(frozen=True)
class TiedRanking:
    """Judged documents with their trec_eval rank and their tie group.

    ``tie_above`` is the number of documents of the query ranked strictly
    above the hit's tie group and ``tie_size`` the size of the group (1 when
    the score is not tied). Hits deeper than the depth cut may be included
    when their tie group straddles it; :meth:`view` applies the cut.
    """

    query_ids: list[str]
    num_ret: np.ndarray
    hit_query: np.ndarray
    hit_rank: np.ndarray
    hit_grade: np.ndarray
    tie_above: np.ndarray
    tie_size: np.ndarray
    judged_offsets: np.ndarray
    judged_grades: np.ndarray
    in_run: np.ndarray
    depth: int | None
    hit_score: np.ndarray | None = None
    presorted: bool = False  # hits already sorted by (query, rank)
    hit_judged: np.ndarray | None = None
    judged_rows: np.ndarray | None = None
    qrels: Qrels | None = None
    beyond_grade: float | None = None
    cache: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    def view(self, ties: Ties) -> RankedJudgments:
        """The judgments ranked under tie policy *ties*."""
        check("ties", ties, EVAL_CONSTRAINTS["ties"])
        rank = self.hit_rank
        if self.presorted and self.depth is None and ties in ("trec", "rank", "average"):
            return RankedJudgments(
                query_ids=self.query_ids,
                num_ret=self.num_ret,
                hit_query=self.hit_query,
                hit_rank=rank,
                hit_grade=self.hit_grade,
                judged_offsets=self.judged_offsets,
                judged_grades=self.judged_grades,
                in_run=self.in_run,
                tie_above=self.tie_above,
                tie_size=self.tie_size,
                depth=self.depth,
                ties=ties,
                hit_score=self.hit_score,
                hit_judged=self.hit_judged,
                judged_rows=self.judged_rows,
                qrels=self.qrels,
                beyond_grade=self.beyond_grade,
                cache=self.cache,
            )
        order = _by_query_then_rank(self.hit_query, rank)
        if ties in ("best", "worst"):
            rank, order = self._bound_ranks(best=ties == "best")
        if self.depth is not None and ties != "average":
            kept = rank <= self.depth
            if not kept.all():
                order = np.flatnonzero(kept) if order is None else order[kept[order]]

        def ordered(values: np.ndarray) -> np.ndarray:
            return values if order is None else values[order]

        return RankedJudgments(
            query_ids=self.query_ids,
            num_ret=self.num_ret,
            hit_query=ordered(self.hit_query),
            hit_rank=ordered(rank),
            hit_grade=ordered(self.hit_grade),
            judged_offsets=self.judged_offsets,
            judged_grades=self.judged_grades,
            in_run=self.in_run,
            tie_above=ordered(self.tie_above),
            tie_size=ordered(self.tie_size),
            depth=self.depth,
            ties=ties,
            hit_score=None if self.hit_score is None else ordered(self.hit_score),
            hit_judged=ordered(self.hit_judged) if self.hit_judged is not None else None,
            judged_rows=self.judged_rows,
            qrels=self.qrels,
            beyond_grade=self.beyond_grade,
            cache=self.cache,
        )

    def _bound_ranks(self, *, best: bool) -> tuple[np.ndarray, np.ndarray | None]:
        """Ranks with the judged documents of each tie group first by grade (best) or last.

        Returns the ranks and the order of the hits by (query, that rank)
        (None: as they are).
        """
        n = len(self.hit_rank)
        trec_order = _by_query_then_rank(self.hit_query, self.hit_rank)
        order = np.arange(n) if trec_order is None else trec_order.copy()
        query, above = self.hit_query[order], self.tie_above[order]
        # by (query, trec rank) is by (query, tie group): only inside the groups of more
        # than one judged document does the grade reorder them
        group = (
            np.concatenate(([True], (np.diff(query) != 0) | (np.diff(above) != 0)))
            if n
            else np.zeros(0, dtype=bool)
        )
        group_id = np.cumsum(group) - 1
        starts = np.flatnonzero(group)
        judged_in_group = np.diff(np.append(starts, n))
        shared = np.flatnonzero(judged_in_group[group_id] > 1)
        if len(shared):
            rows = order[shared]
            grade_key = -self.hit_grade[rows] if best else self.hit_grade[rows]
            order[shared] = rows[np.lexsort((self.hit_rank[rows], grade_key, group_id[shared]))]
        index = np.arange(n) - starts[group_id]
        rank = np.empty(n, dtype=np.int64)
        if best:
            rank[order] = self.tie_above[order] + 1 + index
        else:
            unjudged = self.tie_size[order] - judged_in_group[group_id]
            rank[order] = self.tie_above[order] + unjudged + 1 + index
        identity = trec_order is None and not len(shared)
        return rank, None if identity else order

    def with_unjudged_as(self, grade: float) -> TiedRanking:
        """The ranking with every retrieved unjudged document judged *grade*.

        The upper bound of ``unjudged="bounds"``: each rank no judged
        document holds (within the depth cut, and within a tie group of a
        judged document that straddles it) gets a document of grade *grade*,
        added to the judgments of its query (so R counts it), relevant to
        every subtopic of its query; documents past the end of the ranking
        get *grade* too, for the measures that read them (``beyond_grade``).
        Tie groups are kept: an added document shares the group of the rank
        it fills (alone when no judged document is tied there).

        Examples
        --------
        >>> from rankwise.data import Qrels
        >>> qrels = Qrels.from_dict({"q": {"a": 1, "b": 0}})
        >>> ranking = assemble_ranking(
        ...     qrels, np.array([4]), hit_query=np.array([0, 0]), hit_rank=np.array([2, 4]),
        ...     hit_grade=np.array([1.0, 0.0]), tie_above=np.array([1, 3]),
        ...     tie_size=np.array([1, 1]), depth=None, missing="skip", hit_row=np.array([0, 1]))
        >>> high = ranking.with_unjudged_as(1.0).view("trec")
        >>> high.hit_rank.tolist(), high.hit_grade.tolist(), high.judged_grades.tolist()
        ([1, 2, 3, 4], [1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 0.0])
        """
        n = len(self.query_ids)
        hit_end = self.tie_above + self.tie_size
        longest = np.zeros(n, dtype=np.int64)
        if len(hit_end):
            np.maximum.at(longest, self.hit_query, hit_end)
        length = np.maximum(self.num_ret.astype(np.int64), longest)
        starts = np.concatenate(([0], np.cumsum(length))).astype(np.int64)
        total = int(starts[-1])
        occupied = np.zeros(total, dtype=bool)
        occupied[starts[self.hit_query] + self.hit_rank - 1] = True
        position = np.arange(total, dtype=np.int64)
        query_of = np.repeat(np.arange(n, dtype=np.int64), length)
        rank_of = position - starts[query_of] + 1
        group_above = rank_of - 1
        group_size = np.ones(total, dtype=np.int64)
        tied = self.tie_size > 1
        if tied.any():
            first = starts[self.hit_query[tied]] + self.tie_above[tied]
            first, index = np.unique(first, return_index=True)
            sizes = self.tie_size[tied][index]
            members = np.repeat(first, sizes) + (
                np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
            )
            group_above[members] = np.repeat(self.tie_above[tied][index], sizes)
            group_size[members] = np.repeat(sizes, sizes)
        free = np.flatnonzero(~occupied)
        new_query = query_of[free]
        added = np.bincount(new_query, minlength=n).astype(np.int64)
        added_before = np.concatenate(([0], np.cumsum(added)))[:-1]
        old_sizes = np.diff(self.judged_offsets)
        offsets = np.concatenate(([0], np.cumsum(old_sizes + added))).astype(np.int64)
        grades = np.empty(int(offsets[-1]), dtype=np.float64)
        rows = np.full(len(grades), -1, dtype=np.int64)
        old_query = np.repeat(np.arange(n), old_sizes)
        old_place = np.arange(len(self.judged_grades)) + added_before[old_query] + added[old_query]
        grades[old_place] = self.judged_grades
        if self.judged_rows is not None:
            rows[old_place] = self.judged_rows
        new_index = np.arange(len(free)) - np.repeat(np.cumsum(added) - added, added)
        new_place = offsets[new_query] + new_index
        grades[new_place] = grade
        hit_judged = None
        if self.hit_judged is not None:
            hit_judged = np.concatenate((old_place[self.hit_judged], new_place))
        return TiedRanking(
            query_ids=self.query_ids,
            num_ret=self.num_ret,
            hit_query=np.concatenate((self.hit_query, new_query)),
            hit_rank=np.concatenate((self.hit_rank, rank_of[free])),
            hit_grade=np.concatenate((self.hit_grade, np.full(len(free), float(grade)))),
            tie_above=np.concatenate((self.tie_above, group_above[free])),
            tie_size=np.concatenate((self.tie_size, group_size[free])),
            judged_offsets=offsets,
            judged_grades=grades,
            in_run=self.in_run,
            depth=self.depth,
            hit_judged=hit_judged,
            judged_rows=rows,
            qrels=self.qrels,
            beyond_grade=float(grade),
        )

    @property
    def has_ties(self) -> bool:
        """Whether any judged document shares its score with another document."""
        return bool((self.tie_size > 1).any())

    def subset(self, queries: np.ndarray) -> TiedRanking:
        """The ranking of the queries at the (ascending) indices *queries* only.

        Each query's values are computed from its own entries alone, so the
        kernels give the subset's queries the values they have in the whole.
        """
        n = len(self.query_ids)
        keep = np.zeros(n, dtype=bool)
        keep[queries] = True
        new_index = np.cumsum(keep) - 1
        hits = keep[self.hit_query]
        counts = np.diff(self.judged_offsets)
        judged = np.repeat(keep, counts)
        return TiedRanking(
            query_ids=[self.query_ids[i] for i in queries],
            num_ret=self.num_ret[queries],
            hit_query=new_index[self.hit_query[hits]].astype(self.hit_query.dtype),
            hit_rank=self.hit_rank[hits],
            hit_grade=self.hit_grade[hits],
            tie_above=self.tie_above[hits],
            tie_size=self.tie_size[hits],
            judged_offsets=np.concatenate(([0], np.cumsum(counts[queries]))).astype(
                self.judged_offsets.dtype),
            judged_grades=self.judged_grades[judged],
            in_run=self.in_run[queries],
            depth=self.depth,
            hit_score=None if self.hit_score is None else self.hit_score[hits],
            presorted=self.presorted,
            hit_judged=(
                (np.cumsum(judged) - 1)[self.hit_judged[hits]]
                if self.hit_judged is not None else None
            ),
            judged_rows=self.judged_rows[judged] if self.judged_rows is not None else None,
            qrels=self.qrels,
            beyond_grade=self.beyond_grade,
        )


def rank_rows(run: Run, scores: np.ndarray | None = None) -> np.ndarray:
    """The 1-based rank of every row of *run* within its query, in trec_eval's order.

    Score descending, ties by document id descending (byte order). With
    *scores* (one per row), those order the rows instead of the run's own.

    Examples
    --------
    >>> from rankwise.data import Run
    >>> run = Run.from_dict({"q1": {"a": 1.0, "b": 2.0, "c": 1.0}, "q2": {"x": 0.5}})
    >>> rank_rows(run).tolist()
    [3, 1, 2, 1]
    >>> rank_rows(run, -run.scores).tolist()
    [2, 3, 1, 1]
    """
    blocks = run.rank_order_blocks
    if scores is None and blocks is not None:
        return _ranks_in_rank_order(run, blocks)
    values = run.scores if scores is None else np.asarray(scores, dtype=np.float64)
    # rank order blocks are the run's own: with other scores, order from scratch
    ranked = _ranks_of(run, values, np.arange(len(run)), None, scores is not None)
    return ranked.rank


def _ranks_in_rank_order(run: Run, blocks: np.ndarray) -> np.ndarray:
    """Ranks of a run written in rank order: positions, then docno order inside tie groups."""
    n = len(run)
    starts = blocks.astype(np.int64)
    lengths = np.diff(np.append(starts, n))
    rank = np.arange(1, n + 1, dtype=np.int64) - np.repeat(starts, lengths)
    if n < 2:
        return rank
    scores = run.scores
    tied = scores[1:] == scores[:-1]
    tied[starts[1:] - 1] = False  # a new query is never a tie
    if not tied.any():
        return rank
    members = np.zeros(n, dtype=bool)
    members[1:] |= tied
    members[:-1] |= tied
    rows = np.flatnonzero(members)
    ranked = _ranks_of(run, scores, rows, None, False)
    rank[rows] = ranked.rank
    return rank


def judged_rows(qrels: Qrels, run: Run) -> tuple[np.ndarray, np.ndarray]:
    """The rows of *run* that *qrels* judges, and the grade of each (vectorised join).

    Examples
    --------
    >>> from rankwise.data import Qrels, Run
    >>> rows, grades = judged_rows(Qrels.from_dict({"q1": {"b": 2}}),
    ...                            Run.from_dict({"q1": {"a": 1.0, "b": 2.0}, "q2": {"b": 1.0}}))
    >>> rows.tolist(), grades.tolist()
    ([1], [2.0])
    """
    qrels_index = {name: i for i, name in enumerate(qrels.query_ids)}
    run_to_qrels = np.array([qrels_index.get(name, -1) for name in run.query_ids], dtype=np.int64)
    rows, qrels_rows = _find_judged(qrels, run, run_to_qrels)
    order = np.argsort(rows, kind="stable")
    return rows[order], qrels.grades[qrels_rows[order]]
