"""Row helpers shared by :class:`Qrels` and :class:`Run`."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


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
