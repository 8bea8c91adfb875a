"""What every measure kernel reads: the ranks of the judged documents and their tie groups.

:class:`TiedRanking` holds, per judged document retrieved (a hit), its rank in
trec_eval's order and the tie group it sits in, with the judgments of every
evaluated query; :meth:`TiedRanking.view` applies a tie policy and the depth
cut and gives the :class:`RankedJudgments` the kernels read. Engines build it
through :func:`rankwise.ranking.assemble.assemble_ranking`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise._validation import check
from rankwise.options import EVAL_CONSTRAINTS, TIE_POLICIES, Ties

if TYPE_CHECKING:

    from rankwise.data import Qrels

__all__ = ["TIE_POLICIES", "RankedJudgments", "TiedRanking", "by_query_then_rank"]


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
class TiedRanking:
    """Judged documents with their trec_eval rank and their tie group.

    ``tie_above`` is the number of documents of the query ranked strictly
    above the hit's tie group and ``tie_size`` the size of the group (1 when
    the score is not tied). Hits deeper than the depth cut may be included
    when their tie group straddles it; :meth:`view` applies the cut.
    ``query_rows`` (when the assembly knew them): each query's index in the
    judgments' ``query_ids``, so a caller that coded the queries maps the
    values back without their ids.
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
    query_rows: np.ndarray | None = field(default=None, compare=False, repr=False)

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
        order = by_query_then_rank(self.hit_query, rank)
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
        trec_order = by_query_then_rank(self.hit_query, self.hit_rank)
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
        >>> from rankwise.ranking.assemble import assemble_ranking
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
            query_rows=self.query_rows,
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
            query_rows=None if self.query_rows is None else self.query_rows[queries],
        )


def by_query_then_rank(query: np.ndarray, rank: np.ndarray) -> np.ndarray | None:
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
