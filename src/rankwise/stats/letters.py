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


def _absorb(columns: list[np.ndarray]) -> list[np.ndarray]:
    """Columns (boolean membership vectors) that are not contained in another one."""
    kept: list[np.ndarray] = []
    for index, column in enumerate(columns):
        contained = False
        for other_index, other in enumerate(columns):
            if other_index == index:
                continue
            if (column <= other).all() and (not (column == other).all() or other_index < index):
                contained = True
                break
        if not contained:
            kept.append(column)
    return kept


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
    columns = [np.ones(m, dtype=bool)]
    pairs = [(i, j) for i in order for j in order if position[i] < position[j] and flags[i, j]]
    for i, j in pairs:
        split: list[np.ndarray] = []
        for column in columns:
            if column[i] and column[j]:
                without_i, without_j = column.copy(), column.copy()
                without_i[i] = False
                without_j[j] = False
                split.extend([without_j, without_i])
            else:
                split.append(column)
        columns = _absorb(split)
    # name the groups by the best system each holds, then the next, ...
    columns.sort(key=lambda column: sorted(position[np.flatnonzero(column)].tolist()))
    names = letter_names(len(columns))
    joiner = "," if len(columns) > len(_ALPHABET) else ""
    return [joiner.join(name for name, column in zip(names, columns) if column[i])
            for i in range(m)]
