"""Scores and grades from Python values (dicts, lists, numpy arrays): numbers only.

One rule for every input form: a score or a grade is a real number. Booleans,
text, ``None`` and other objects are refused (naming the first such value),
and so is an integer too large for a float64 (``10**400``).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

__all__ = ["BadValue", "real_numbers"]


class BadValue(Exception):  # noqa: N818 (turned into an InputFormatError by the caller)
    """Value *row* is refused: *message* says why (the caller says where)."""

    def __init__(self, row: int, message: str) -> None:
        super().__init__(message)
        self.row = row
        self.message = message


def _is_number_type(kind: type, booleans: bool = False) -> bool:
    if issubclass(kind, (bool, np.bool_)):
        return booleans
    if issubclass(kind, numbers.Real):
        return True
    return kind.__module__ == "decimal" and kind.__name__ == "Decimal"


def _shown(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**30:
        return f"an integer of {len(str(abs(value)))} digits"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def real_numbers(values: Any, what: str, *, booleans: bool = False) -> np.ndarray:
    """*values* (a sequence or numpy array of numbers) as a new float64 array.

    With *booleans* (grades), true and false are numbers too: 1 and 0.

    Raises
    ------
    BadValue
        For the first value that is not a real number, or is too large for a
        float64 (non-finite floats are the caller's to refuse, with their place).
    """
    if isinstance(values, np.ndarray) and values.dtype.kind in ("fiub" if booleans else "fiu"):
        return values.astype(np.float64)
    if isinstance(values, np.ndarray) and values.dtype.kind != "O":
        kind = "true/false" if values.dtype.kind == "b" else f"numpy dtype {values.dtype}"
        first = values.flat[0] if values.size else None
        raise BadValue(0, f"{what} must be a number, got {_shown(first)} (the values are {kind})")
    values = list(values) if not isinstance(values, (list, np.ndarray)) else values
    kinds = set(map(type, values))
    if all(_is_number_type(kind, booleans) for kind in kinds):
        try:
            return np.array(values, dtype=np.float64)
        except OverflowError:
            for row, value in enumerate(values):
                try:
                    float(value)
                except OverflowError:
                    raise BadValue(row, f"{what} must be a finite number, got {_shown(value)}, "
                                        "too large for a 64-bit float") from None
            raise
    for row, value in enumerate(values):
        if not _is_number_type(type(value), booleans):
            kind = "true/false" if isinstance(value, (bool, np.bool_)) else type(value).__name__
            raise BadValue(row, f"{what} must be a number, got {_shown(value)} ({kind})")
    raise AssertionError("unreachable")  # pragma: no cover
