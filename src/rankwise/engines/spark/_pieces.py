"""The driver's part of the ``jvm`` strategy: the pass's columns read, a query's pieces merged.

The pass (``java/RanksPass.java``) writes, per partition, a line per piece of a
query (the query's rows in one window of a partition), a line per judged
document found in it with its counts within the piece, and the whole rows of
the pieces at an edge (a partition's or a window's end, a change of input
file) that fit the driver's share. :func:`decode` reads one partition's
columns without a loop over rows; :func:`merge` puts the partitions
together: a query in one piece is done; a query in several pieces whose rows
all came is recounted here (:func:`recount`, vectorised over every such
query) and its documents checked for one listed twice; any other query in
several pieces is left for the second pass (``RanksPass.recount``), which sums
its hits' counts over the partitions without bringing its rows anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["Merged", "decode", "dense_codes", "merge", "recount", "row_numbers"]

POSITION_BITS = 33
"""A row's position is ``(partition << 33) + its index in the partition``, as Spark's
``monotonically_increasing_id()``."""


class _Reader:
    """Columns of a little-endian blob, one after another."""

    def __init__(self, blob: bytes) -> None:
        self.blob = blob
        self.at = 0

    def take(self, count: int, dtype: str) -> np.ndarray:
        values = np.frombuffer(self.blob, dtype, count, self.at)
        self.at += values.nbytes
        return values

    def strings(self, count: int) -> pa.Array:
        """*count* strings: their offsets (int64, one more), their bytes padded to 8."""
        import pyarrow as pa

        offsets = self.take(count + 1, "<i8")
        size = int(offsets[-1])
        data = self.blob[self.at:self.at + size]
        self.at += (size + 7) & ~7
        if size >= 2**31:
            return pa.LargeStringArray.from_buffers(
                count, pa.py_buffer(offsets.tobytes()), pa.py_buffer(data)
            ).cast(pa.string())
        return pa.StringArray.from_buffers(
            count, pa.py_buffer(offsets.astype("<i4").tobytes()), pa.py_buffer(data)
        )


def decode(blob: bytes) -> dict[str, Any]:
    """One partition's columns (``RanksPass.Out.toBytes``), read without a loop over rows."""
    read = _Reader(blob)
    header = read.take(16, "<i8")
    (partition, rows_read, f, h, b, q, null_queries, null_docs, quiet_rows, null_query_at,
     null_doc_at, bad_at) = (int(v) for v in header[:12])
    bad_score = float(header[12:13].view("<f8")[0])
    part: dict[str, Any] = {
        "partition": partition, "rows_read": rows_read, "null_queries": null_queries,
        "null_docs": null_docs, "quiet_rows": quiet_rows, "null_query_at": null_query_at,
        "null_doc_at": null_doc_at, "bad_at": bad_at, "bad_score": bad_score,
    }
    for name in ("rows", "bad", "twice", "flags", "hash", "first", "second"):
        part[name] = read.take(f, "<i8")
    part["query"] = read.strings(f)
    part["twice_doc"] = read.strings(f)
    part["quiet_hash"], part["quiet_count"] = read.take(q, "<i8"), read.take(q, "<i8")
    for name in ("hit_piece", "judgment", "above", "size", "greater", "earlier", "hit_position"):
        part[name] = read.take(h, "<i8")
    part["score"] = read.take(h, "<f8")
    part["row_piece"], part["row_position"] = read.take(b, "<i8"), read.take(b, "<i8")
    part["row_score"] = read.take(b, "<f8")
    part["row_id"] = read.strings(b)
    part["null_doc_query"] = read.strings(1 if null_docs else 0)
    part["bad_query"] = read.strings(1 if bad_at >= 0 else 0)
    part["bad_doc"] = read.strings(1 if bad_at >= 0 else 0)
    return part


def dense_codes(strings: pa.Array) -> np.ndarray:
    """Each string's rank among the distinct ones, in byte order (equal strings alike).

    Examples
    --------
    >>> import pyarrow as pa
    >>> dense_codes(pa.array(["b", "a", "b", "é", "Z"])).tolist()
    [2, 1, 2, 3, 0]
    """
    import pyarrow.compute as pc

    n = len(strings)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    order = pc.sort_indices(strings).to_numpy()
    ranked = strings.take(order)
    new = np.ones(n, dtype=bool)
    if n > 1:
        new[1:] = pc.not_equal(ranked[1:], ranked[:-1]).to_numpy(zero_copy_only=False)
    codes = np.empty(n, dtype=np.int64)
    codes[order] = np.cumsum(new) - 1
    return codes


def _counts_before(key: np.ndarray, score: np.ndarray, tie: np.ndarray, is_row: np.ndarray,
                   hits: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of each hit's key above its score, tied with it, and tied before it by *tie*.

    Everything sorted by key, score descending, then *tie* ascending (a hit before
    the row of its own *tie*); *hits* are the hits' places in the input.
    """
    order = np.lexsort((is_row, tie, -score, key))
    key, score, is_row = key[order], score[order], is_row[order]
    before = np.concatenate([[0], np.cumsum(is_row)])  # rows before each place
    n = len(order)
    new_key = np.ones(n, dtype=bool)
    new_group = np.ones(n, dtype=bool)
    if n > 1:
        new_key[1:] = key[1:] != key[:-1]
        new_group[1:] = new_key[1:] | (score[1:] != score[:-1])
    key_start = np.flatnonzero(new_key)[np.cumsum(new_key) - 1]
    group_starts = np.flatnonzero(new_group)
    group = np.cumsum(new_group) - 1
    group_start = group_starts[group]
    group_end = np.append(group_starts[1:], n)[group]
    at = np.flatnonzero(is_row == 0)
    where = np.empty(len(hits), dtype=np.int64)
    where[order[at] - (n - len(hits))] = at
    above = before[group_start[where]] - before[key_start[where]]
    size = before[group_end[where]] - before[group_start[where]]
    tied_before = before[where] - before[group_start[where]]
    return above, size, tied_before


def recount(
    row_key: np.ndarray, row_score: np.ndarray, row_id: np.ndarray, row_position: np.ndarray,
    hit_key: np.ndarray, hit_score: np.ndarray, hit_id: np.ndarray, hit_position: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per hit: the rows of its key scoring higher, tied, tied with a greater id, tied before it.

    Ids are codes in byte order; "before" is by position (the input order).

    Examples
    --------
    >>> rows = (np.array([0, 0, 0, 1]), np.array([2.0, 1.0, 1.0, 5.0]), np.array([0, 1, 2, 3]),
    ...         np.array([7, 4, 9, 1]))
    >>> hits = np.array([0, 0]), np.array([1.0, 2.0]), np.array([1, 0]), np.array([4, 7])
    >>> [a.tolist() for a in recount(*rows, *hits)]
    [[1, 0], [2, 1], [1, 0], [0, 0]]
    """
    r, h = len(row_key), len(hit_key)
    key = np.concatenate([row_key, hit_key]).astype(np.int64)
    score = np.concatenate([row_score, hit_score]).astype(np.float64)
    is_row = np.concatenate([np.ones(r, np.int64), np.zeros(h, np.int64)])
    hits = np.arange(r, r + h)
    ident = np.concatenate([row_id, hit_id]).astype(np.int64)
    position = np.concatenate([row_position, hit_position]).astype(np.int64)
    above, size, greater = _counts_before(key, score, -ident, is_row, hits)
    earlier = _counts_before(key, score, position, is_row, hits)[2]
    return above, size, greater, earlier


def row_numbers(positions: np.ndarray, rows_read: np.ndarray) -> np.ndarray:
    """The 1-based row of each position, given the rows read by each partition (in order).

    Examples
    --------
    >>> row_numbers(np.array([0, 2, (1 << 33) + 1]), np.array([3, 5])).tolist()
    [1, 3, 5]
    """
    offsets = np.concatenate([[0], np.cumsum(rows_read)])
    positions = np.asarray(positions, dtype=np.int64)
    partition = positions >> POSITION_BITS
    lines: np.ndarray = offsets[partition] + (positions & ((1 << POSITION_BITS) - 1)) + 1
    return lines


@dataclass
class Merged:
    """Every partition's pieces as one answer (see :func:`merge`).

    ``names`` are the queries of the pieces written (judged ones, and unjudged ones
    that had something to report or were written whole), ``judged`` says which are
    judged, ``rows`` their rows; the hits (``hit_*`` by hit, ``judgment`` the index
    of its judgment) have their counts over the whole query except those of the
    queries left for the second pass: ``second_codes`` (judged, among ``names``)
    and ``second_hashes`` (unjudged, by their 64-bit hash; ``second_ids`` their id
    where one was written).
    """

    names: Any
    judged: np.ndarray
    rows: np.ndarray
    hit_query: np.ndarray
    judgment: np.ndarray
    hit_score: np.ndarray
    hit_position: np.ndarray
    above: np.ndarray
    size: np.ndarray
    greater: np.ndarray
    earlier: np.ndarray
    rows_read: np.ndarray
    total_rows: int = 0
    unjudged_queries: int = 0
    bad: int = 0
    null_queries: int = 0
    null_docs: int = 0
    pieces: int = 0
    split: int = 0
    merged_here: int = 0
    second_codes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    second_hashes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    second_ids: list[str | None] = field(default_factory=list)
    query_hash: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    twice: tuple[int, int, str, str] | None = None
    """A document listed twice: (first position, second position, query, document)."""
    null_query_at: int | None = None
    null_doc: tuple[int, str] | None = None
    bad_row: tuple[int, float, str, str] | None = None


def _joined(parts: list[dict[str, Any]], key: str, shift: np.ndarray | None = None) -> np.ndarray:
    if not parts:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate(
        [p[key] + (0 if shift is None else shift[i]) for i, p in enumerate(parts)]
    )


def _strings(parts: list[dict[str, Any]], key: str) -> pa.Array:
    import pyarrow as pa

    if not parts:
        return pa.array([], pa.string())
    return pa.chunked_array([p[key] for p in parts], pa.string()).combine_chunks()


def merge(parts: list[dict[str, Any]], judged_ids: pa.Array, judged_doc: pa.Array) -> Merged:
    """Every partition's pieces as one answer: per query, per hit, per check.

    A query in one piece keeps the counts the pass gave. A query in several
    pieces, all written whole, is recounted over their rows (its documents
    checked for one listed twice); otherwise it is listed for the second pass.
    *judged_ids* are the judged query ids, *judged_doc* the document of each
    judgment (the pass's ``judgment`` indexes it).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    parts = sorted(parts, key=lambda p: p["partition"])
    rows_read = np.zeros(max([p["partition"] for p in parts], default=-1) + 1, np.int64)
    for p in parts:
        rows_read[p["partition"]] = p["rows_read"]
    first = np.cumsum([0] + [len(p["rows"]) for p in parts])
    query = _strings(parts, "query")
    encoded = pc.dictionary_encode(query)
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    names = encoded.dictionary
    judged = pc.is_in(names, value_set=pa.array(judged_ids, pa.string()))
    judged = judged.to_numpy(zero_copy_only=False).astype(bool)
    n_names = len(names)
    flags, piece_hash = _joined(parts, "flags"), _joined(parts, "hash")
    whole = (flags & 1) != 0
    # judged queries: by id (their pieces are always written); the others by hash
    judged_piece = judged[codes] if len(codes) else np.zeros(0, bool)
    pieces_of = np.bincount(codes[judged_piece], minlength=n_names)
    whole_of = np.bincount(codes[judged_piece & whole], minlength=n_names)
    split = judged & (pieces_of > 1)
    here = split & (whole_of == pieces_of)
    hashes = np.concatenate([piece_hash[~judged_piece], _joined(parts, "quiet_hash")])
    is_whole = np.concatenate([whole[~judged_piece], np.zeros(len(hashes) - (~judged_piece).sum(),
                                                              bool)])
    distinct, inverse, per_hash = np.unique(hashes, return_inverse=True, return_counts=True)
    whole_hash = np.bincount(inverse, weights=is_whole, minlength=len(distinct)) == per_hash
    split_hash = per_hash > 1
    merged = Merged(
        names=names, judged=judged,
        rows=np.bincount(codes, _joined(parts, "rows"), n_names).astype(np.int64),
        hit_query=np.zeros(0, np.int64),
        judgment=_joined(parts, "judgment"), hit_score=_joined(parts, "score"),
        hit_position=_joined(parts, "hit_position"),
        above=_joined(parts, "above").copy(), size=_joined(parts, "size").copy(),
        greater=_joined(parts, "greater").copy(), earlier=_joined(parts, "earlier").copy(),
        rows_read=rows_read,
        total_rows=int(_joined(parts, "rows").sum()) + sum(int(p["quiet_rows"]) for p in parts),
        unjudged_queries=len(distinct),
        bad=int(_joined(parts, "bad").sum()),
        null_queries=sum(int(p["null_queries"]) for p in parts),
        null_docs=sum(int(p["null_docs"]) for p in parts),
        pieces=len(codes) + len(hashes) - int((~judged_piece).sum()),
        split=int(split.sum() + split_hash.sum()),
        merged_here=int(here.sum() + (split_hash & whole_hash).sum()),
    )
    fragment = _joined(parts, "hit_piece", first[:-1])
    merged.hit_query = codes[fragment] if len(fragment) else np.zeros(0, np.int64)
    _problems(parts, merged)
    _twice_in_pieces(parts, codes, names, merged)
    # queries in pieces written whole: recounted and checked here
    unjudged_here = split_hash & whole_hash
    if here.any() or unjudged_here.any():
        _merge_here(parts, first, codes, judged_piece, piece_hash, here,
                    distinct[unjudged_here], judged_doc, merged)
    second = split & ~here
    merged.second_codes = np.flatnonzero(second)
    left = split_hash & ~whole_hash
    merged.second_hashes = distinct[left]
    ids = dict(zip(piece_hash[~judged_piece].tolist(),
                   names.take(pa.array(codes[~judged_piece])).to_pylist()))
    merged.second_ids = [ids.get(h) for h in merged.second_hashes.tolist()]
    hash_of_name = np.zeros(n_names, np.int64)
    hash_of_name[codes] = piece_hash
    merged.query_hash = hash_of_name
    return merged


def _problems(parts: list[dict[str, Any]], merged: Merged) -> None:
    """The first row (lowest position) of each kind of bad input."""
    found = [p for p in parts if p["null_query_at"] >= 0]
    if found:
        merged.null_query_at = min(p["null_query_at"] for p in found)
    found = [p for p in parts if p["null_doc_at"] >= 0]
    if found:
        p = min(found, key=lambda p: p["null_doc_at"])
        merged.null_doc = (p["null_doc_at"], p["null_doc_query"][0].as_py())
    found = [p for p in parts if p["bad_at"] >= 0]
    if found:
        p = min(found, key=lambda p: p["bad_at"])
        merged.bad_row = (p["bad_at"], p["bad_score"], p["bad_query"][0].as_py(),
                          p["bad_doc"][0].as_py())


def _keep_first_twice(merged: Merged, candidate: tuple[int, int, str, str]) -> None:
    """Keep the document listed twice whose second row comes first."""
    if merged.twice is None or candidate[1] < merged.twice[1]:
        merged.twice = candidate


def _twice_in_pieces(parts: list[dict[str, Any]], codes: np.ndarray, names: pa.Array,
                     merged: Merged) -> None:
    """A document the pass found twice within one piece."""
    twice = _joined(parts, "twice")
    if not twice.any():
        return
    docs = _strings(parts, "twice_doc")
    second = _joined(parts, "second")
    at = np.flatnonzero(twice)
    at = at[np.argmin(second[at])]
    _keep_first_twice(merged, (int(_joined(parts, "first")[at]), int(second[at]),
                               names[int(codes[at])].as_py(), docs[int(at)].as_py()))


def _merge_here(parts: list[dict[str, Any]], first: np.ndarray, codes: np.ndarray,
                judged_piece: np.ndarray, piece_hash: np.ndarray, here: np.ndarray,
                unjudged: np.ndarray, judged_doc: pa.Array, merged: Merged) -> None:
    """Recount the hits of the queries in *here* over their pieces' rows; check their ids.

    The rows written whole of every query split across pieces (judged ones in
    *here*, unjudged ones by hash in *unjudged*) are put together by query;
    a document among them twice is kept in ``merged.twice``.
    """
    import pyarrow as pa

    row_piece = _joined(parts, "row_piece", first[:-1])
    piece_key = np.where(judged_piece, codes, -1)
    if len(unjudged):  # unjudged queries: a key of their own, after the names
        slot = np.searchsorted(unjudged, piece_hash)
        slot = np.minimum(slot, len(unjudged) - 1)
        mine = ~judged_piece & (unjudged[slot] == piece_hash)
        piece_key = np.where(mine, len(merged.names) + slot, piece_key)
    chosen = np.zeros(len(merged.names) + len(unjudged), bool)
    chosen[:len(here)] = here
    chosen[len(here):] = True
    row_key = piece_key[row_piece] if len(row_piece) else np.zeros(0, np.int64)
    keep = (row_key >= 0) & chosen[np.maximum(row_key, 0)]
    row_key = row_key[keep]
    row_ids = _strings(parts, "row_id").filter(pa.array(keep))
    row_score = _joined(parts, "row_score")[keep]
    row_position = _joined(parts, "row_position")[keep]
    mine = np.flatnonzero(here[merged.hit_query]) if len(merged.hit_query) else np.zeros(0, int)
    hit_ids = judged_doc.take(pa.array(merged.judgment[mine])).cast(pa.string())
    ids = dense_codes(pa.concat_arrays([row_ids, hit_ids]))
    row_id, hit_id = ids[: len(row_ids)], ids[len(row_ids):]
    order = np.lexsort((row_position, row_id, row_key))
    same = (row_key[order][1:] == row_key[order][:-1]) & (row_id[order][1:] == row_id[order][:-1])
    if same.any():
        later = order[1:][same]
        at = later[np.argmin(row_position[later])]
        earlier = order[:-1][same][np.argmin(row_position[later])]
        key = int(row_key[at])
        name = (merged.names[key].as_py() if key < len(merged.names)
                else _name_of_hash(parts, unjudged[key - len(merged.names)]))
        _keep_first_twice(merged, (int(row_position[earlier]), int(row_position[at]), name,
                                   row_ids[int(at)].as_py()))
    (merged.above[mine], merged.size[mine], merged.greater[mine],
     merged.earlier[mine]) = recount(
        row_key, row_score, row_id, row_position, merged.hit_query[mine],
        merged.hit_score[mine], hit_id, merged.hit_position[mine],
    )


def _name_of_hash(parts: list[dict[str, Any]], wanted: int) -> str:
    """The id of the query whose pieces have hash *wanted* (one was written whole)."""
    for p in parts:
        at = np.flatnonzero(p["hash"] == wanted)
        if len(at):
            return str(p["query"][int(at[0])].as_py())
    return f"(hash {wanted})"
