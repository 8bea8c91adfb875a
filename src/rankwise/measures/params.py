"""Measure parameters: what each accepts, its default, how it is read from text.

Shared by the families of :mod:`rankwise.measures.families`; a parameter
used by one family only may be defined next to it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BINARY_REL",
    "GAIN",
    "GAINS",
    "REL",
    "Param",
    "boolean",
    "choice",
    "coefficients",
    "gain_kind",
    "gain_map",
    "integer",
    "levels",
    "number",
    "positive",
    "probability",
]


@dataclass(frozen=True)
class Param:
    """A measure parameter: its default, how to read it from text, and what it means."""

    default: Any
    convert: Callable[[str], Any]
    doc: str


def number(text: str) -> float:
    """Read a finite number (NaN and infinity never mean anything as a parameter).

    Examples
    --------
    >>> number("2"), number("0.5")
    (2.0, 0.5)
    >>> number("nan")
    Traceback (most recent call last):
    ...
    ValueError: expected a finite number, got 'nan'
    """
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"expected a finite number, got {text!r}")
    return value


def probability(text: str) -> float:
    """Read a number in [0, 1]."""
    value = number(text)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"expected a number from 0 to 1, got {text!r}")
    return value


def positive(text: str) -> float:
    """Read a number > 0."""
    value = number(text)
    if not value > 0:
        raise ValueError(f"expected a number above 0, got {text!r}")
    return value


def integer(text: str) -> int:
    """Read a positive integer."""
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise ValueError(f"expected a positive integer, got {text!r}")
    return value


def boolean(text: str) -> bool:
    """Read ``true``/``false`` (also ``1``/``0``, ``yes``/``no``)."""
    value = text.strip().lower()
    if value in ("true", "1", "yes"):
        return True
    if value in ("false", "0", "no"):
        return False
    raise ValueError(f"expected true or false, got {text!r}")


def choice(*allowed: str) -> Callable[[str], str]:
    """A reader of one of *allowed* (case-insensitive)."""

    def read(text: str) -> str:
        value = text.strip().lower()
        if value not in allowed:
            raise ValueError(f"expected one of {', '.join(allowed)}, got {text!r}")
        return value

    return read


def gain_kind(text: str) -> str:
    """Read a gain kind: ``exp`` (``exponential``), ``linear`` (``lin``) or ``binary``."""
    value = text.lower()
    aliases = {"exp": "exp", "exponential": "exp", "linear": "linear", "lin": "linear",
               "binary": "binary"}
    if value not in aliases:
        raise ValueError(f"expected 'exp', 'linear' or 'binary', got {text!r}")
    return aliases[value]


def gain_map(text: str) -> tuple[tuple[float, float], ...]:
    """Read ``1=3;2=9`` (or with commas) into sorted (grade, gain) pairs."""
    pairs = []
    for item in text.replace(",", ";").split(";"):
        if not item:
            continue
        grade, sep, gain = item.partition("=")
        if not sep:
            raise ValueError(f"expected grade=gain pairs like '1=3;2=9', got {text!r}")
        pairs.append((number(grade), number(gain)))
    return tuple(sorted(pairs))


def levels(text: str) -> tuple[float, ...]:
    """Read recall levels, ``0.1;0.5`` (or with commas), sorted."""
    return tuple(sorted(number(item) for item in text.replace(",", ";").split(";") if item))


def coefficients(text: str) -> tuple[float, ...]:
    """Read utility's four coefficients ``a;b;c;d``."""
    values = tuple(number(item) for item in text.replace(",", ";").split(";") if item)
    if len(values) != 4:
        raise ValueError(f"expected four numbers a;b;c;d, got {text!r}")
    return values


REL = Param(1.0, number, "minimum grade that counts as relevant")
GAIN = Param(
    "exp", gain_kind, "gain of a grade g: 'exp' = 2^g - 1, 'linear' = g, 'binary' = 1 if g >= 1"
)
BINARY_REL = Param(
    None,
    number,
    "binary gains: 1 for a grade >= rel, 0 below (default: graded gains, no binarising)",
)
GAINS = Param((), gain_map, "explicit gains per grade, '1=3;2=9' (trec_eval's ndcg.1=3,2=9)")
