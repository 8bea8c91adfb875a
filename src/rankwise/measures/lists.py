"""Lists of measures: one string of several (``"ndcg@10, map"``), rankwise's and trec_eval's syntax.

A string with a ``.`` after a trec_eval name (``ndcg_cut.10``, ``P.5,10``),
or a trec_eval nickname (``all_trec``), is read with trec_eval's meaning
(:mod:`rankwise.measures.trec_names`); everything else in rankwise's
language (:mod:`rankwise.measures.parser`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rankwise.exceptions import MeasureSyntaxError, UnknownMeasureError
from rankwise.measures.language import parse
from rankwise.measures.spec import Measure
from rankwise.measures.trec_names import is_trec_syntax, parse_trec, trec_name_hint

__all__ = ["parse_many", "split_measure_list"]


def split_measure_list(text: str) -> list[str]:
    """Split ``"ndcg@10(gain=linear), map"`` on the commas outside parentheses.

    A comma that continues the parameters of a trec_eval name (``P.5,10``,
    ``ndcg.1=3,2=9``) stays with it: the next item is a parameter when it
    is a number or a ``grade=gain`` pair, and a measure of its own otherwise
    (``ndcg_cut.10,map`` is two measures).

    Examples
    --------
    >>> split_measure_list("ndcg_cut.10,map, P.5,10 ,ndcg@10(gain=linear,rel=2)")
    ['ndcg_cut.10', 'map', 'P.5,10', 'ndcg@10(gain=linear,rel=2)']
    """
    pieces: list[str] = []
    depth = 0
    current = ""
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char == "," and depth == 0:
            pieces.append(current)
            current = ""
            continue
        current += char
    pieces.append(current)
    items: list[str] = []
    for piece in pieces:
        if items and _inside_trec_params(items[-1]) and _TREC_PARAMETER.match(piece):
            items[-1] += "," + piece
        else:
            items.append(piece)
    return [item.strip() for item in items if item.strip()]


_TREC_PARAMETER = re.compile(r"^\s*([+-]?(\d|\.\d)[^@()]*|[^@()=,\s]+\s*=\s*[^@(),]*)\s*$")


def _inside_trec_params(current: str) -> bool:
    head = current.strip()
    return "." in head and "@" not in head and "(" not in head


def _parse_one(item: str | Measure) -> Measure:
    """:func:`parse`, with a trec_eval spelling suggested for a trec_eval name written otherwise."""
    try:
        return parse(item)
    except MeasureSyntaxError:
        if not isinstance(item, str):
            raise
        hint = trec_name_hint(item)
        if hint is None:
            raise
        raise UnknownMeasureError(f"unknown measure {item.strip()!r}{hint}") from None


def parse_many(measures: str | Measure | Iterable[str | Measure]) -> list[Measure]:
    """Parse a list of measures (or one string of comma-separated measures).

    Both rankwise's language and trec_eval's names are accepted; duplicates
    are dropped, the first position is kept.

    Examples
    --------
    >>> [str(m) for m in parse_many(["ndcg@10", "map", "P.5,10"])]
    ['ndcg@10', 'map', 'P@5', 'P@10']
    """
    if isinstance(measures, (str, Measure)):
        measures = [measures] if isinstance(measures, Measure) else split_measure_list(measures)
    elif not isinstance(measures, Iterable):  # one measure object (ir_measures'), or an error
        measures = [measures]
    out: list[Measure] = []
    for item in measures:
        if isinstance(item, str) and is_trec_syntax(item):
            parsed = [entry.measure for entry in parse_trec(item) if entry.measure is not None]
        else:
            parsed = [_parse_one(item)]
        for measure in parsed:
            if measure not in out:
                out.append(measure)
    if not out:
        raise MeasureSyntaxError("no measure given; for example ['ndcg@10', 'map']")
    return out
