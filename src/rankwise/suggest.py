"""``did_you_mean``: the one helper that suggests the nearest name in an error message."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["closest", "did_you_mean"]


def closest(word: str, choices: Iterable[str], *, cutoff: float = 0.6) -> str | None:
    """The choice nearest to *word* (case-insensitive), or None when none is near.

    Examples
    --------
    >>> closest("ndgc", ["ndcg", "map", "P"])
    'ndcg'
    >>> closest("xyz", ["ndcg", "map"]) is None
    True
    """
    options = list(dict.fromkeys(choices))
    by_lower: dict[str, str] = {}
    for choice in options:
        by_lower.setdefault(choice.lower(), choice)
    near = difflib.get_close_matches(word.lower(), list(by_lower), n=1, cutoff=cutoff)
    return by_lower[near[0]] if near else None


def did_you_mean(word: str, choices: Iterable[str], *, suffix: str = "") -> str:
    """``"; did you mean 'x'?"`` for the nearest choice, or ``""`` when none is near.

    *suffix* is appended to the suggestion (the rest of what the user typed,
    ``@10`` after a measure name).

    Examples
    --------
    >>> "unknown measure 'ndgc@10'" + did_you_mean("ndgc", ["ndcg", "map"], suffix="@10")
    "unknown measure 'ndgc@10'; did you mean 'ndcg@10'?"
    """
    near = closest(word, choices)
    return f"; did you mean {near + suffix!r}?" if near is not None else ""
