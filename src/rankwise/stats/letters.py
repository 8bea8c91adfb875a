"""Compact letter display: systems that do not differ significantly share a letter.

Piepho's insert-and-absorb algorithm (H.-P. Piepho, "An algorithm for a
letter-based representation of all-pairwise comparisons", *Journal of
Computational and Graphical Statistics* 13(2), 2004), the one R's
``multcompView::multcompLetters`` uses: start with one letter shared by all;
for each significant pair, split every letter group holding both into two
(one without each); drop groups contained in another. The letters are then
named in order of the best mean each group holds: ``a`` is the group of the
system with the highest mean.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankwise.exceptions import InvalidParameterError

__all__ = ["compact_letters", "letter_names"]

_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def letter_names(count: int) -> list[str]:
    """``a`` .. ``z``, ``A`` .. ``Z``, then ``a2`` .. ``Z2``, ``a3``, ...

    Examples
    --------
    >>> letter_names(3), letter_names(54)[-2:]
    (['a', 'b', 'c'], ['a2', 'b2'])
    """
    size = len(_ALPHABET)
    return [_ALPHABET[i % size] + (str(i // size + 1) if i >= size else "")
            for i in range(count)]


def _split(columns: list[int], i: int, j: int) -> list[int]:
    """Insert and absorb for one significant pair: columns are bit masks of systems.

    Every column holding both *i* and *j* is replaced by its two halves
    without *i* and without *j*; a half contained in another column is
    dropped. Only the halves need the check: the columns left alone had no
    column containing them before, and a half is smaller than its parent.
    """
    both = (1 << i) | (1 << j)
    unchanged = [column for column in columns if column & both != both]
    halves = list(dict.fromkeys(
        half for column in columns if column & both == both
        for half in (column & ~(1 << j), column & ~(1 << i))))
    out = list(unchanged)
    for half in halves:
        if any(half | other == other for other in unchanged):
            continue
        if any(half != other and half | other == other for other in halves):
            continue
        out.append(half)
    return out


def compact_letters(means: Any, significant: Any) -> list[str]:
    """The letters of each system: two systems share a letter iff they do not differ.

    Parameters
    ----------
    means : array_like
        One mean per system (orders the letters: ``a`` goes to the group of
        the highest mean).
    significant : array_like of bool
        Shape ``(m, m)``, symmetric: whether each pair differs significantly.

    Returns
    -------
    list of str
        One string per system, in the order given; the letters of each in
        alphabetical order, joined by nothing (or by commas when there are
        more than 52 letters).

    Raises
    ------
    InvalidParameterError
        Shapes that do not match, or a matrix that is not symmetric.

    Examples
    --------
    >>> sig = [[False, True, True], [True, False, False], [True, False, False]]
    >>> compact_letters([0.5, 0.3, 0.2], sig)
    ['a', 'b', 'b']
    >>> sig = [[False, False, True], [False, False, False], [True, False, False]]
    >>> compact_letters([0.5, 0.3, 0.2], sig)
    ['a', 'ab', 'b']
    """
    mean = np.asarray(means, dtype=np.float64)
    flags = np.asarray(significant, dtype=bool)
    m = len(mean)
    if mean.ndim != 1 or flags.shape != (m, m):
        raise InvalidParameterError(
            f"significant must be a square matrix matching the {m} means, got {flags.shape}"
        )
    if not (flags == flags.T).all():
        raise InvalidParameterError("significant must be symmetric")
    if m == 0:
        return []
    # best mean first (NaN last), ties by the order given
    order = np.lexsort((np.arange(m), -np.nan_to_num(mean, nan=-np.inf)))
    position = np.empty(m, dtype=np.int64)
    position[order] = np.arange(m)
    columns = [(1 << m) - 1]
    pairs = [(i, j) for i in order for j in order if position[i] < position[j] and flags[i, j]]
    for i, j in pairs:
        columns = _split(columns, int(i), int(j))
    # name the groups by the best system each holds, then the next, ...
    members = [[k for k in range(m) if column >> k & 1] for column in columns]
    columns = [column for _, column in sorted(
        zip([sorted(position[found].tolist()) for found in members], columns))]
    names = letter_names(len(columns))
    joiner = "," if len(columns) > len(_ALPHABET) else ""
    return [joiner.join(name for name, column in zip(names, columns) if column >> i & 1)
            for i in range(m)]
