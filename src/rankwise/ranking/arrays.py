"""Rankings from numpy arrays: labels, scores and query group sizes (training loops).

Learning-to-rank libraries hold one row per (query, document): a label, a
prediction, and the rows of each query together (LightGBM's ``group``,
XGBoost's ``qid``). :func:`rank_arrays` turns those arrays into the
:class:`~rankwise.ranking.tied.TiedRanking` every kernel reads, with no
string ids and no join: every row is a judged document (its label is its
grade) and a document's id is its position in its group. Tied scores are
ordered by that id descending (later rows first, rankwise's rule), in
input order (``tie_order="input"``), or as ranx orders them
(``tie_order="ranx"``).

It sorts once (scores, then groups, both linear-time or close) and is fast
enough for every boosting round: see benchmarks/bench_integrations.py.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from rankwise._validation import check
from rankwise._wording import counted
from rankwise.exceptions import InputFormatError, InvalidParameterError
from rankwise.ranking.rank import TIE_ORDER
from rankwise.ranking.tied import TiedRanking

__all__ = ["GroupedRows", "check_arrays", "group_sizes_of", "rank_arrays"]


@lru_cache(maxsize=8)
def _names(n: int) -> list[str]:
    return [str(i) for i in range(n)]


def group_sizes_of(qid: np.ndarray) -> np.ndarray:
    """Group sizes from a query id per row (rows of one query together).

    Raises
    ------
    InvalidParameterError
        The rows of a query are not together.

    Examples
    --------
    >>> group_sizes_of(np.array([7, 7, 3, 3, 3, 9])).tolist()
    [2, 3, 1]
    """
    qid = np.asarray(qid)
    if len(qid) == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.concatenate(([True], qid[1:] != qid[:-1])))
    if len(np.unique(qid[starts])) != len(starts):
        raise InvalidParameterError(
            "the rows of each query must be together (sorted by query id), as LightGBM and "
            "XGBoost require; sort the data by query id first"
        )
    return np.diff(np.append(starts, len(qid))).astype(np.int64)


def check_arrays(
    labels: np.ndarray, scores: np.ndarray, groups: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The three arrays as float64, float64 and int64, checked against each other.

    Raises
    ------
    InvalidParameterError
        Lengths that disagree, group sizes that do not add up to the rows,
        or a score that is not finite.
    InputFormatError
        A label (a grade) that is not finite, as :func:`rankwise.evaluate`
        refuses a grade of NaN or infinity in the judgments.
    """
    labels = np.asarray(labels, dtype=np.float64).ravel()
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 1:
        raise InvalidParameterError(
            f"predictions must be one score per row, got an array of shape {scores.shape}"
        )
    groups = np.asarray(groups, dtype=np.int64).ravel()
    if len(labels) != len(scores):
        raise InvalidParameterError(
            f"labels and predictions differ in length: [{len(labels)}, {len(scores)}]"
        )
    if (groups < 0).any() or int(groups.sum()) != len(labels):
        raise InvalidParameterError(
            f"group sizes must be >= 0 and add up to the {counted(len(labels), 'row')}, "
            f"got {counted(len(groups), 'group')} of {counted(int(groups.sum()), 'row')}"
        )
    if not np.isfinite(scores).all():
        row = int(np.flatnonzero(~np.isfinite(scores))[0])
        raise InvalidParameterError(f"prediction of row {row} is not finite: {scores[row]}")
    if not np.isfinite(labels).all():  # rw.evaluate's rule for the grades of judgments
        row = int(np.flatnonzero(~np.isfinite(labels))[0])
        raise InputFormatError(
            f"relevance grade (label) of row {row} must be a finite number, got "
            f"{labels[row]}: give every row a grade, or drop the rows without one",
            "labels",
        )
    return labels, scores, groups


class GroupedRows:
    """The fixed part of rows grouped by query: labels and groups, prepared once.

    A training loop evaluates new predictions of the same rows every round:
    the query structure (which row is in which group, where each group
    starts, the labels sorted for the ideal rankings) does not change, so it
    is computed here once and :meth:`rank` only sorts the scores.

    Parameters
    ----------
    labels : array of float
        Per row, its grade (checked by :func:`check_arrays`).
    groups : array of int
        The number of rows of each query, in row order.

    Examples
    --------
    >>> rows = GroupedRows(np.array([1.0, 0, 2]), np.array([3]))
    >>> rows.rank(np.array([0.5, 0.5, 0.9])).hit_grade.tolist()
    [2.0, 0.0, 1.0]
    >>> rows.matches(np.array([1.0, 0, 2]), np.array([3]))
    True
    """

    def __init__(self, labels: np.ndarray, groups: np.ndarray) -> None:
        self.labels = np.array(labels, dtype=np.float64)  # a copy: the caller's may change
        self.groups = np.array(groups, dtype=np.int64)
        n, n_groups = len(self.labels), len(self.groups)
        self.n, self.n_groups = n, n_groups
        self.group_start = (
            np.concatenate(([0], np.cumsum(self.groups)[:-1])) if n_groups else self.groups
        )
        self.group = np.repeat(np.arange(n_groups, dtype=np.int32), self.groups)
        # the key of the stable sort by group: numpy radix-sorts 8- and 16-bit integers
        self.group_key: np.ndarray
        if n_groups <= 1 << 8:
            self.group_key = self.group.astype(np.uint8)
        elif n_groups <= 1 << 16:
            self.group_key = self.group.astype(np.uint16)
        else:
            self.group_key = self.group
        self.row_start = np.repeat(self.group_start, self.groups)
        self.hit_rank = np.arange(1, n + 1) - self.row_start
        self.nonempty_starts = self.group_start[self.groups > 0]
        self.judged_offsets = np.append(self.group_start, n).astype(np.int64)
        self.judged_grades = _grades_descending(self.labels, self.group, n_groups)
        self.query_ids = _names(n_groups)
        self.in_run = np.ones(n_groups, dtype=bool)
        self.cache: dict[Any, Any] = {}  # what the kernels derive from the judgments alone
        for shared in (self.labels, self.groups, self.group_start, self.group, self.group_key,
                       self.row_start, self.hit_rank, self.judged_offsets, self.judged_grades,
                       self.in_run):  # every ranking shares them: no kernel may write to them
            shared.flags.writeable = False

    def matches(self, labels: np.ndarray, groups: np.ndarray) -> bool:
        """Whether *labels* and *groups* are the ones prepared (equal values)."""
        return (
            len(labels) == self.n
            and len(groups) == self.n_groups
            and bool(np.array_equal(groups, self.groups))
            and bool(np.array_equal(labels, self.labels))
        )

    def rank(
        self, scores: np.ndarray, *, tie_order: str = "docno", float32: bool = False
    ) -> TiedRanking:
        """The ranking of the rows by *scores* (see :func:`rank_arrays`)."""
        check("tie_order", tie_order, TIE_ORDER)
        n = self.n
        if float32:
            scores = scores.astype(np.float32).astype(np.float64)
        # rows by score descending (tied rows in no particular order), then stably by group
        by_score = np.argsort(-scores)
        order = by_score[np.argsort(self.group_key[by_score], kind="stable")]
        sorted_scores = scores[order]
        # tie runs: equal scores next to each other inside a group
        boundary = np.empty(n, dtype=bool)
        boundary[:1] = True
        np.not_equal(sorted_scores[1:], sorted_scores[:-1], out=boundary[1:])
        boundary[self.nonempty_starts] = True
        run_first = np.flatnonzero(boundary)
        run_size = np.diff(np.append(run_first, n))
        run_id = np.cumsum(boundary) - 1
        if len(run_first) < n:
            # order the rows of each tie run by position: descending (docno) or ascending
            # (input); the (run, position) keys are distinct, so any sort orders them
            members = np.flatnonzero(run_size[run_id] > 1)
            if tie_order == "ranx":  # ranx's order (numba's quicksort of each group's rows)
                from rankwise.ranking._quicksort import ranx_positions

                position = ranx_positions(self.group, scores, order[members])
            else:
                position = order[members] if tie_order == "input" else n - 1 - order[members]
            local = np.argsort(run_id[members].astype(np.int64) * n + position)
            order = order.copy()
            order[members] = order[members][local]
        return TiedRanking(
            query_ids=self.query_ids,
            num_ret=self.groups,
            hit_query=self.group,
            hit_rank=self.hit_rank,
            hit_grade=self.labels[order],
            tie_above=run_first[run_id] - self.row_start,
            tie_size=run_size[run_id],
            judged_offsets=self.judged_offsets,
            judged_grades=self.judged_grades,
            in_run=self.in_run,
            depth=None,
            hit_score=sorted_scores,
            presorted=True,
            cache=self.cache,
        )


def rank_arrays(
    labels: np.ndarray,
    scores: np.ndarray,
    groups: np.ndarray,
    *,
    tie_order: str = "docno",
    float32: bool = False,
) -> TiedRanking:
    """The ranking of rows grouped by query: every row a judged document.

    Parameters
    ----------
    labels : array of float
        Per row, its grade.
    scores : array of float
        Per row, its score (higher ranks first).
    groups : array of int
        The number of rows of each query, in row order (queries ``"0"``,
        ``"1"``, ...).
    tie_order : {"docno", "input", "ranx"}
        Tied scores: later rows first (a row's id is its position), earlier
        rows first, or as ranx orders them (earlier first in groups of up
        to 15 rows).
    float32 : bool
        Compare scores after rounding to float32.

    Returns
    -------
    TiedRanking
        Hits sorted by (query, rank), judgments sorted by grade descending.

    Examples
    --------
    >>> r = rank_arrays(np.array([1.0, 0, 2]), np.array([0.5, 0.5, 0.9]), np.array([3]))
    >>> r.hit_rank.tolist(), r.hit_grade.tolist(), r.tie_size.tolist()
    ([1, 2, 3], [2.0, 0.0, 1.0], [1, 2, 2])
    >>> rank_arrays(np.array([1.0, 0, 2]), np.array([0.5, 0.5, 0.9]), np.array([3]),
    ...             tie_order="input").hit_grade.tolist()
    [2.0, 1.0, 0.0]
    """
    check("tie_order", tie_order, TIE_ORDER)
    return GroupedRows(labels, groups).rank(scores, tie_order=tie_order, float32=float32)


def _grades_descending(labels: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    """The labels of each group sorted descending (a counting sort for small integer grades)."""
    if len(labels) == 0:
        out: np.ndarray = labels.copy()
        return out
    low, high = float(labels.min()), float(labels.max())
    span = high - low
    if span < 64 and n_groups * (span + 1) < 1 << 31:
        width = int(span) + 1
        level = (high - labels).astype(np.int64)  # 0 for the highest grade
        if np.array_equal(high - level, labels):  # integer steps: count them
            counts = np.bincount(group * width + level, minlength=n_groups * width)
            values = np.tile(high - np.arange(width, dtype=np.float64), n_groups)
            return np.repeat(values, counts)
    return labels[np.lexsort((-labels, group))]
