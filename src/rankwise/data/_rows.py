"""Row helpers shared by :class:`Qrels` and :class:`Run`: where rows came from, read-only arrays."""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np


class LineMap:
    """The line of each row of a text input, blank and comment lines counted.

    Row ``r`` (0-based) is on line ``r + first + skipped``, where *skipped*
    is the number of lines skipped before it: the value at the last of
    *rows* that is ``<= r`` (0 before the first). Made by the readers as
    they read (nothing is read again to find a line), and picklable.

    Examples
    --------
    >>> lines = LineMap(np.array([0, 2]), np.array([1, 3]))  # a comment, then 2 blank lines
    >>> [lines(row) for row in range(4)]
    [2, 3, 6, 7]
    """

    __slots__ = ("_first", "_rows", "_skipped")

    def __init__(self, rows: np.ndarray, skipped: np.ndarray, first: int = 1) -> None:
        self._rows = np.asarray(rows, dtype=np.int64)
        self._skipped = np.asarray(skipped, dtype=np.int64)
        self._first = first

    def __call__(self, row: int) -> int:
        at = int(np.searchsorted(self._rows, row, side="right")) - 1
        return int(row) + self._first + (int(self._skipped[at]) if at >= 0 else 0)

    def __getstate__(self) -> tuple[np.ndarray, np.ndarray, int]:
        return self._rows, self._skipped, self._first

    def __setstate__(self, state: tuple[np.ndarray, np.ndarray, int]) -> None:
        self._rows, self._skipped, self._first = state

    @classmethod
    def from_line_numbers(cls, line_numbers: np.ndarray, first: int = 1) -> LineMap:
        """The map of rows whose lines are listed (one line number per row)."""
        skipped = np.asarray(line_numbers, dtype=np.int64) - first - np.arange(
            len(line_numbers), dtype=np.int64
        )
        changes = np.flatnonzero(np.diff(skipped, prepend=0))
        return cls(changes, skipped[changes], first)


def line_of_row(
    row: int, line_numbers: np.ndarray | None, locate: Callable[[int], int] | None
) -> int:
    """The 1-based line of *row* in its file: known, found on demand, or row + 1."""
    if line_numbers is not None:
        return int(line_numbers[row])
    return locate(row) if locate is not None else row + 1


def readonly(array: np.ndarray) -> np.ndarray:
    """Mark *array* read-only and return it."""
    array.flags.writeable = False
    return array


def key_type(mapping: Iterable[Any]) -> type:
    """``int`` when every key is an integer (a numpy one too; never a bool), else ``str``."""
    kinds = set(map(type, mapping))
    if kinds and all(
        issubclass(kind, numbers.Integral) and not issubclass(kind, bool) for kind in kinds
    ):
        return int
    return str


def typed_ids(names: list[str], kind: type | None) -> list[Any]:
    """Query ids held as text, back in the type they were given in (``int`` or text)."""
    return [int(name) for name in names] if kind is int else names


def typed_column(names: list[str], kind: type | None) -> Any:
    """The distinct query ids as an Arrow array: int64 for integer ids that fit, else text."""
    import pyarrow as pa

    if kind is int:
        numbers_ = typed_ids(names, int)
        limit = 1 << 63
        if all(-limit <= value < limit for value in numbers_):
            return pa.array(numbers_, pa.int64())
    from rankwise.data._arrow import strings_to_array

    return strings_to_array(names)
