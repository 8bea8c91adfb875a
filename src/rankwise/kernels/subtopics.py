"""The subtopic view of a ranking: what the diversity measures read.

Derived, per relevance level, from the one ranking every engine assembles
(:class:`~rankwise.ranking.tied.RankedJudgments`: the judged documents of
each query, the ranks of those retrieved) and the subtopic judgments of the
:class:`~rankwise.data.Qrels` (:class:`~rankwise.data.subtopics.Subtopics`);
nothing is copied from or built by an engine.

- *topics*: the (query, subtopic) pairs the judgments hold, sorted by query
  and then by subtopic in summation order (plain judgments: one subtopic
  per query, graded as the document);
- *pairs*: per judged document of a query, the topics it is relevant to
  (grade >= rel), sorted by document then topic; a retrieved unjudged
  document taken as relevant (``unjudged="bounds"``) is relevant to every
  topic of its query;
- *triples*: per retrieved judged document (a hit), the topics it is
  relevant to, with ``seen``: how many documents ranked above it are
  relevant to the same topic (ndeval's novelty count);
- the greedy ideal ranking of ndeval (:meth:`SubtopicView.ideal`).
"""

from __future__ import annotations

import math
from functools import cached_property
from typing import Any

import numpy as np

from rankwise.data._strings import StringColumn, string_chunks
from rankwise.exceptions import UnsupportedMeasureError
from rankwise.kernels._segments import per_query_sum, rank_within_query
from rankwise.ranking.tied import RankedJudgments

__all__ = ["IdealRanking", "SubtopicJudgments", "SubtopicView", "novelty_powers", "nrbp_depth"]


def novelty_powers(alpha: float, count: int) -> np.ndarray:
    """``(1 - alpha)^m`` for m = 0..count, by repeated multiplication (ndeval's own order)."""
    out = np.empty(count + 1, dtype=np.float64)
    value = 1.0
    for m in range(count + 1):
        out[m] = value
        value *= 1.0 - alpha
    return out


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The concatenation of ``arange(start, start + length)`` for each pair."""
    lengths = lengths.astype(np.int64)
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    return np.repeat(starts.astype(np.int64) - np.cumsum(lengths) + lengths, lengths) + np.arange(
        total, dtype=np.int64
    )


class IdealRanking:
    """The greedy ideal ranking of each query, to some depth.

    Attributes
    ----------
    query, position, gain : ndarrays
        Per ideal position (sorted by query, then position): its query, its
        1-based position and the novelty gain g of the document placed there
        (sum over its topics of ``(1 - alpha)^(documents placed above it
        relevant to the topic)``).
    depth : int or None
        How deep it was computed (None: until no relevant document is left).
    """

    def __init__(
        self, query: np.ndarray, position: np.ndarray, gain: np.ndarray, depth: int | None
    ) -> None:
        self.query = query
        self.position = position
        self.gain = gain
        self.depth = depth


def _cgreedy() -> Any:
    from rankwise._compiled import enabled, load

    return load("rankwise.kernels._cgreedy") if enabled() else None


class SubtopicJudgments:
    """What the diversity measures derive from the judgments alone, at relevance level *rel*.

    The same for every tie policy: built once per ranking (kept in its
    ``cache``) and shared by the views the tie report evaluates.
    """

    def __init__(self, data: RankedJudgments, rel: float) -> None:
        if data.judged_rows is None:
            raise UnsupportedMeasureError(
                "the diversity measures need each judgment's row; this engine did not give them"
            )
        self.data = data
        self.rel = rel
        self.judged_rows: np.ndarray = data.judged_rows
        self._ideals: dict[float, IdealRanking] = {}
        self._build()

    def _build(self) -> None:
        d = self.data
        n = d.n_queries
        entries = len(d.judged_grades)
        entry_query = np.repeat(np.arange(n, dtype=np.int64), np.diff(d.judged_offsets))
        rows = self.judged_rows
        virtual = np.flatnonzero(rows < 0)
        table = d.qrels.subtopics if d.qrels is not None else None
        n_rows = len(d.qrels) if d.qrels is not None else 0
        entry_of_row = np.full(n_rows, -1, dtype=np.int64)
        entry_of_row[rows[rows >= 0]] = np.flatnonzero(rows >= 0)
        # the pairs are kept in the order of their entry's key: its judgments row (the
        # subtopic table's own order), or n_rows + k for the k-th added document
        if table is not None:
            # every subtopic judgment (the relevant ones only, unless documents are added)
            keep = table.grades >= self.rel if len(virtual) == 0 else np.ones(len(table), bool)
            where = np.flatnonzero(keep)
            pair_key = np.searchsorted(table.offsets, where, side="right") - 1
            pair_entry = entry_of_row[pair_key]
            pair_code = table.codes[where].astype(np.int64)
            pair_grade = table.grades[where]
            used = pair_entry >= 0  # rows of evaluated queries
            pair_key, pair_entry = pair_key[used], pair_entry[used]
            pair_code, pair_grade = pair_code[used], pair_grade[used]
        else:
            pair_key = np.flatnonzero(entry_of_row >= 0)
            pair_entry = entry_of_row[pair_key]
            pair_code = np.zeros(len(pair_entry), dtype=np.int64)
            pair_grade = d.judged_grades[pair_entry]
        # topics: the distinct (query, code), numbered by query then code
        pair_query = entry_query[pair_entry]
        n_codes = int(pair_code.max()) + 1 if len(pair_code) else 1
        if n * n_codes <= 1 << 26:  # a dense table of (query, code): no sort
            present = np.zeros(n * n_codes, dtype=bool)
            present[pair_query * n_codes + pair_code] = True
            number = np.cumsum(present) - 1
            pair_topic = number[pair_query * n_codes + pair_code]
            topic_query = np.flatnonzero(present) // n_codes
        else:
            keys, pair_topic = np.unique(pair_query * n_codes + pair_code, return_inverse=True)
            pair_topic = pair_topic.reshape(-1)
            topic_query = keys // n_codes
        topic_offsets = np.concatenate(
            ([0], np.cumsum(np.bincount(topic_query, minlength=n)))
        ).astype(np.int64)
        # retrieved unjudged documents taken as relevant: every topic of their query
        entry_key = rows.copy()
        entry_key[virtual] = n_rows + np.arange(len(virtual))
        if len(virtual):
            vq = entry_query[virtual]
            lengths = topic_offsets[vq + 1] - topic_offsets[vq]
            pair_key = np.concatenate((pair_key, np.repeat(entry_key[virtual], lengths)))
            pair_topic = np.concatenate((pair_topic, _ranges(topic_offsets[vq], lengths)))
            pair_grade = np.concatenate(
                (pair_grade, np.repeat(d.judged_grades[virtual], lengths))
            )
        relevant = pair_grade >= self.rel
        pair_key, pair_topic = pair_key[relevant], pair_topic[relevant]
        key_offsets = np.concatenate(
            ([0], np.cumsum(np.bincount(pair_key, minlength=n_rows + len(virtual))))
        ).astype(np.int64)
        self.pair_topic = pair_topic.astype(np.int64)
        self.entry_start = key_offsets[entry_key] if entries else np.zeros(0, np.int64)
        self.entry_count = key_offsets[entry_key + 1] - self.entry_start
        self.n_topics = len(topic_query)
        self.topic_query = topic_query.astype(np.int64)
        self.entry_query = entry_query
        self.relevant_per_topic = np.bincount(self.pair_topic, minlength=self.n_topics).astype(
            np.float64
        )
        self.subtopics = per_query_sum(
            self.topic_query[self.relevant_per_topic > 0], None, n
        )  # M: topics with a relevant document

    def _candidates(self, by_docno: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The relevant judged documents by query (then docno descending with *by_docno*).

        Returns the candidates' query offsets, the offsets of each
        candidate's topics, the topics, and each candidate's row in the
        judgments (-1: a document added by ``unjudged="bounds"``).
        """
        counts = self.entry_count
        candidate = np.flatnonzero(counts > 0)
        query = self.entry_query[candidate]
        if by_docno:
            candidate = candidate[_docno_descending(self.data, query, self.judged_rows[candidate])]
        starts = self.entry_start[candidate]
        lengths = counts[candidate]
        topics = self.pair_topic[_ranges(starts, lengths)]
        pair_offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        per_query = np.bincount(query, minlength=self.data.n_queries)
        query_offsets = np.concatenate(([0], np.cumsum(per_query))).astype(np.int64)
        return query_offsets, pair_offsets, topics, self.judged_rows[candidate]

    def ideal(self, alpha: float, depth: int | None) -> IdealRanking:
        """The greedy ideal ranking of ndeval, to *depth* (None: until no relevant one is left).

        At each position, the document of greatest novelty gain given those
        above it (ties: the greatest docno in byte order, ndeval's rule)
        among all judged documents of the query; gains summed over topics in
        subtopic order, powers of ``1 - alpha`` by repeated multiplication,
        so exact ties are ndeval's. Computed by the C module
        :mod:`rankwise.kernels._cgreedy` where it is built, else by numpy
        with all queries in lock-step (one vectorised step per position).
        """
        known = self._ideals.get(alpha)
        if known is not None and (
            known.depth is None or (depth is not None and depth <= known.depth)
        ):
            return known
        native = _cgreedy()
        query_offsets, pair_offsets, topics, rows = self._candidates(by_docno=native is None)
        per_query = np.diff(query_offsets)
        steps = int(per_query.max()) if len(per_query) else 0
        if depth is not None:
            steps = min(steps, depth)
        powers = novelty_powers(alpha, steps)
        if native is not None:
            docs = np.full(len(rows), -1, dtype=np.int64)
            qrels = self.data.qrels
            doc_offsets, doc_data = np.zeros(1, np.int32), np.zeros(0, np.uint8)
            column = qrels.doc_column if qrels is not None else None
            if qrels is not None and column is not None and len(column):
                docs[rows >= 0] = qrels.doc_codes[rows[rows >= 0]]
                chunks = string_chunks(column)
                if len(chunks) != 1:
                    chunks = string_chunks(StringColumn.from_strings(qrels.doc_ids))
                doc_offsets, doc_data = chunks[0].offsets, chunks[0].data
            ideal = _greedy_native(native, query_offsets, pair_offsets, topics, powers,
                                   self.n_topics, steps, depth, docs, doc_offsets, doc_data)
        else:
            ideal = _greedy_numpy(query_offsets, pair_offsets, topics, powers,
                                  self.n_topics, steps, depth)
        self._ideals[alpha] = ideal
        return ideal


def _greedy_native(
    native: Any,
    query_offsets: np.ndarray,
    pair_offsets: np.ndarray,
    topics: np.ndarray,
    powers: np.ndarray,
    n_topics: int,
    steps: int,
    depth: int | None,
    docs: np.ndarray,
    doc_offsets: np.ndarray,
    doc_data: np.ndarray,
) -> IdealRanking:
    room = np.minimum(np.diff(query_offsets), steps)
    gain_offsets = np.concatenate(([0], np.cumsum(room))).astype(np.int64)
    gains = np.zeros(int(gain_offsets[-1]), dtype=np.float64)
    counts = np.zeros(max(n_topics, 1), dtype=np.int64)
    written = np.array(
        native.greedy(query_offsets, pair_offsets, topics, powers, gain_offsets, gains, counts,
                      docs, np.ascontiguousarray(doc_offsets, dtype=np.int32),
                      np.ascontiguousarray(doc_data, dtype=np.uint8)),
        dtype=np.int64,
    )
    query = np.repeat(np.arange(len(written), dtype=np.int64), written)
    position = _ranges(np.ones(len(written), dtype=np.int64), written)
    keep = _ranges(gain_offsets[:-1], written)
    return IdealRanking(query, position, gains[keep], depth)


def _greedy_numpy(
    query_offsets: np.ndarray,
    pair_offsets: np.ndarray,
    topics: np.ndarray,
    powers: np.ndarray,
    n_topics: int,
    steps: int,
    depth: int | None,
) -> IdealRanking:
    per_query = np.diff(query_offsets)
    n_cand = int(query_offsets[-1])
    pair_position = np.repeat(np.arange(n_cand, dtype=np.int64), np.diff(pair_offsets))
    count = np.zeros(n_topics, dtype=np.int64)
    alive = np.ones(n_cand, dtype=bool)
    present = np.flatnonzero(per_query > 0)  # queries with candidates: contiguous segments
    seg_start = query_offsets[:-1][present]
    seg_len = per_query[present]
    index = np.arange(n_cand, dtype=np.int64)
    active = np.arange(len(pair_position))
    done = np.zeros(len(present), dtype=bool)
    out_query, out_position, out_gain = [], [], []
    for step in range(steps):
        values = powers[np.minimum(count[topics[active]], steps)]
        sums = np.bincount(pair_position[active], weights=values, minlength=n_cand)
        score = np.where(alive, sums, -1.0)
        best = np.maximum.reduceat(score, seg_start) if len(seg_start) else score[:0]
        done |= best <= 0.0  # nothing of gain left: the rest adds nothing
        if done.all():
            break
        at_best = np.where(score == np.repeat(best, seg_len), index, n_cand)
        winner = np.minimum.reduceat(at_best, seg_start)[~done]
        out_query.append(present[~done])
        out_position.append(np.full(len(winner), step + 1, dtype=np.int64))
        out_gain.append(best[~done])
        alive[winner] = False
        chosen = _ranges(pair_offsets[winner], pair_offsets[winner + 1] - pair_offsets[winner])
        np.add.at(count, topics[chosen], 1)
        if step % 8 == 7:  # drop the pairs of placed documents now and then
            active = active[alive[pair_position[active]]]
    if out_query:
        q = np.concatenate(out_query)
        p = np.concatenate(out_position)
        g = np.concatenate(out_gain)
        order = np.lexsort((p, q))
        return IdealRanking(q[order], p[order], g[order], depth)
    empty = np.zeros(0, dtype=np.int64)
    return IdealRanking(empty, empty, np.zeros(0), depth)


class SubtopicView:
    """Subtopic relevance of the judged and retrieved documents at relevance level *rel*.

    The judgments' part (:class:`SubtopicJudgments`) is shared by every view
    of one ranking; the hits' part (the triples) is the view's own.
    """

    def __init__(self, data: RankedJudgments, rel: float) -> None:
        if data.hit_judged is None:
            raise UnsupportedMeasureError(
                "the diversity measures need each retrieved document's judgment row; "
                "this engine did not give them"
            )
        self.data = data
        self.rel = rel
        self.hit_judged: np.ndarray = data.hit_judged
        key = ("subtopic judgments", rel)
        if key not in data.cache:
            data.cache[key] = SubtopicJudgments(data, rel)
        self.judgments: SubtopicJudgments = data.cache[key]
        self.subtopics = self.judgments.subtopics
        self.relevant_per_topic = self.judgments.relevant_per_topic

    def ideal(self, alpha: float, depth: int | None) -> IdealRanking:
        """The greedy ideal ranking (see :meth:`SubtopicJudgments.ideal`)."""
        return self.judgments.ideal(alpha, depth)

    @cached_property
    def triples(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per (hit, topic it is relevant to): the hit, the topic and ``seen``.

        Sorted by hit, then topic (the order ndeval sums a document's gain in).
        """
        judgments = self.judgments
        entry = self.hit_judged
        starts = judgments.entry_start[entry]
        counts = judgments.entry_count[entry]
        hit = np.repeat(np.arange(len(entry), dtype=np.int64), counts)
        topic = judgments.pair_topic[_ranges(starts, counts)]
        # hits are sorted by (query, rank): order by (topic, hit) counts the ones above
        by_topic = np.lexsort((hit, topic))
        seen = np.empty(len(hit), dtype=np.int64)
        seen[by_topic] = rank_within_query(topic[by_topic]) - 1
        return hit, topic, seen

    def gains(self, alpha: float) -> np.ndarray:
        """Per hit, its novelty gain g = sum over its topics of ``(1 - alpha)^seen``."""
        hit, _, seen = self.triples
        powers = novelty_powers(alpha, int(seen.max()) + 1 if len(seen) else 0)
        return np.bincount(hit, weights=powers[seen], minlength=len(self.data.hit_rank))


def _docno_descending(data: RankedJudgments, query: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The order of judged documents by query, then docno descending (byte order).

    Retrieved unjudged documents taken as relevant (row -1) are all alike
    (relevant to every topic): they come first, in any order.
    """
    from rankwise.ranking._order import by_group_then_doc_descending

    real = rows >= 0
    if data.qrels is None or not real.any():
        return np.lexsort((np.arange(len(rows)), query))
    key = np.zeros(len(rows), dtype=np.int64)
    real_index = np.flatnonzero(real)
    doc = data.qrels.doc_codes[rows[real]].astype(np.int64)
    order = by_group_then_doc_descending(query[real], doc, data.qrels.doc_column)
    key[real_index[order]] = np.arange(1, len(order) + 1)
    return np.lexsort((key, query))


def nrbp_depth(beta: float, subtopics: float) -> int | None:
    """How deep the ideal ranking of NRBP must go for a relative error below 1e-17.

    The ideal's sum is at least its first gain (>= 1); what lies below depth
    D is at most ``M * beta^D / (1 - beta)`` (a gain is at most M), so D with
    ``M * beta^D / (1 - beta) <= 1e-17`` leaves an error far below the 1e-12
    the measures are tested at. None (no bound) when beta = 1.
    """
    if beta >= 1.0:
        return None
    if beta <= 0.0:
        return 1
    bound = math.log(1e-17 * (1.0 - beta) / max(subtopics, 1.0)) / math.log(beta)
    return max(1, math.ceil(bound))
