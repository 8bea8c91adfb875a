"""``did_you_mean``: the one helper that suggests the nearest name in an error message."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["closest", "did_you_mean"]


def closest(word: str, choices: Iterable[str], *, cutoff: float = 0.6) -> str | None:
    """The choice nearest to *word* (case-insensitive), or None when none is near.

    Names that look like the same thing come first: a choice that *word*
    begins (``rec`` -> ``recall``, at least 3 letters typed), then the most
    similar choices that start with the same letter, then the other similar
    ones; a choice of one or two letters is suggested only when it starts
    with the same letter (``HR`` is not ``R``, ``ERR`` is not ``rr``).

    Examples
    --------
    >>> closest("ndgc", ["ndcg", "map", "P"])
    'ndcg'
    >>> closest("xyz", ["ndcg", "map"]) is None
    True
    >>> closest("rec", ["Rprec", "recall", "recip_rank"]), closest("ERR", ["rr", "map"])
    ('recall', None)
    """
    options = list(dict.fromkeys(choices))
    by_lower: dict[str, str] = {}
    for choice in options:
        by_lower.setdefault(choice.lower(), choice)
    typed = word.lower()
    if not typed:
        return None
    if len(typed) >= 3:
        begun = [choice for choice in by_lower if choice.startswith(typed)]
        if begun:
            return by_lower[min(begun, key=lambda choice: (len(choice), choice))]
    import difflib  # only when an error is being worded (start-up time)

    near = difflib.get_close_matches(typed, list(by_lower), n=len(by_lower), cutoff=cutoff)
    near = [choice for choice in near if len(choice) > 2 or choice[0] == typed[0]]
    same_start = [choice for choice in near if choice[0] == typed[0]]
    best = same_start or near
    return by_lower[best[0]] if best else None


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
