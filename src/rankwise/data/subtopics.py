"""Judgments per subtopic (intent): what the diversity measures read.

Diversity judgments grade a document once per subtopic of its query
(ndeval's ``qid subtopic docno grade``). :class:`~rankwise.data.Qrels` keeps
one row per (query, document), graded with the document's **maximum grade
over its subtopics** (what every one-grade-per-document measure reads, as
ndeval's relevance does), and, for diversity judgments, a :class:`Subtopics`
table: the subtopic judgments of each row, in compressed sparse rows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rankwise.data._rows import readonly
from rankwise.exceptions import DuplicateEntryError

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["Subtopics", "collapse_subtopics", "subtopic_order"]

_INTEGER = re.compile(r"[+-]?\d+")


def subtopic_order(names: list[str]) -> np.ndarray:
    """The rank of each subtopic id in the order the diversity measures sum over subtopics.

    Numeric order when every id is an integer (ndeval's subtopic numbers),
    byte order otherwise. The order only decides exact ties of the greedy
    ideal ranking when ``alpha`` is not a power of two.

    Examples
    --------
    >>> subtopic_order(["10", "2", "1"]).tolist()
    [2, 1, 0]
    >>> subtopic_order(["b", "a", "B"]).tolist()
    [2, 1, 0]
    """
    if all(_INTEGER.fullmatch(name) for name in names):
        keys: list[object] = [int(name) for name in names]
    else:
        keys = [name.encode("utf-8") for name in names]
    order = sorted(range(len(names)), key=keys.__getitem__)  # type: ignore[arg-type]
    rank = np.empty(len(names), dtype=np.int32)
    rank[np.array(order, dtype=np.int64)] = np.arange(len(names), dtype=np.int32)
    return rank


@dataclass(frozen=True)
class Subtopics:
    """The subtopic judgments of each (query, document) row of a :class:`~rankwise.data.Qrels`.

    Attributes
    ----------
    names : list of str
        The distinct subtopic ids, in summation order (see :func:`subtopic_order`).
    offsets : ndarray of int64
        Compressed sparse rows over the judgments' rows: the subtopic
        judgments of row ``r`` are ``offsets[r]:offsets[r + 1]``.
    codes : ndarray of int32
        The subtopic of each subtopic judgment (an index into ``names``),
        ascending within a row.
    grades : ndarray of float64
        The grade of each subtopic judgment.
    """

    names: list[str]
    offsets: np.ndarray
    codes: np.ndarray
    grades: np.ndarray

    def __len__(self) -> int:
        return len(self.codes)

    @property
    def rows(self) -> np.ndarray:
        """The judgments' row of each subtopic judgment."""
        return np.repeat(np.arange(len(self.offsets) - 1), np.diff(self.offsets))


def collapse_subtopics(
    query_codes: np.ndarray,
    doc_codes: np.ndarray,
    subtopic_codes: np.ndarray,
    subtopic_names: list[str],
    grades: np.ndarray,
    *,
    query_ids: list[str],
    doc_ids: list[str],
    source: str | None,
    line_of: Callable[[int], int],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Subtopics]:
    """One row per (query, document) from one row per (query, subtopic, document).

    Returns the rows' query codes, document codes and grades (the maximum over
    subtopics), the input row of each row's first subtopic judgment (for
    messages), and the :class:`Subtopics`. Rows come in order of first
    appearance.

    Raises
    ------
    DuplicateEntryError
        A (query, subtopic, document) judged twice.
    """
    n = len(grades)
    rank = subtopic_order(subtopic_names)
    codes = rank[subtopic_codes] if n else np.zeros(0, dtype=np.int32)
    names = [""] * len(subtopic_names)
    for old, new in enumerate(rank.tolist()):
        names[new] = subtopic_names[old]
    keys = query_codes.astype(np.int64) * max(1, len(doc_ids)) + doc_codes
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    by_appearance = np.argsort(first, kind="stable")
    row_of_unique = np.empty(len(first), dtype=np.int64)
    row_of_unique[by_appearance] = np.arange(len(first))
    row = row_of_unique[inverse]
    order = np.lexsort((np.arange(n), codes, row))
    sorted_row, sorted_code = row[order], codes[order]
    same = (sorted_row[1:] == sorted_row[:-1]) & (sorted_code[1:] == sorted_code[:-1])
    if same.any():
        at = int(np.flatnonzero(same)[0])
        one, two = int(order[at]), int(order[at + 1])
        raise DuplicateEntryError(
            f"judgment for document {doc_ids[doc_codes[two]]!r} of query "
            f"{query_ids[query_codes[two]]!r}, subtopic {subtopic_names[subtopic_codes[two]]!r} "
            f"is given twice (first at line {line_of(one)}); each (query, subtopic, document) "
            "is judged once",
            source or "<judgments>",
            line_of(two),
        )
    n_rows = len(first)
    counts = np.bincount(sorted_row, minlength=n_rows)
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    sorted_grades = grades[order].astype(np.float64)
    row_grades = (
        np.maximum.reduceat(sorted_grades, offsets[:-1]) if n_rows else np.zeros(0, np.float64)
    )
    first_line = first[by_appearance].astype(np.int64)
    subtopics = Subtopics(
        names=names,
        offsets=readonly(offsets),
        codes=readonly(sorted_code.astype(np.int32)),
        grades=readonly(sorted_grades),
    )
    return (
        query_codes[first_line].astype(np.int32),
        doc_codes[first_line].astype(np.int32),
        row_grades,
        first_line,
        subtopics,
    )
