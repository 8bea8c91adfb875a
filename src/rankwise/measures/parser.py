"""Parsing rankwise's measure language: ``ndcg@10``, ``P@5(rel=2)``, ``map``.

Grammar: ``NAME [@ CUTOFF] [( KEY=VALUE {, KEY=VALUE} )]``. Names are
case-insensitive and may be aliases; the cutoff is a positive integer. A
string with a ``.`` after the name (``ndcg_cut.10``, ``P.5,10``) is read as
trec_eval's syntax instead, see :mod:`rankwise.measures.trec_names`.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from typing import Any

from rankwise.exceptions import MeasureSyntaxError, UnknownMeasureError
from rankwise.measures.catalog import FAMILIES, all_labels, lookup, normalise_params
from rankwise.measures.spec import Measure

__all__ = ["parse", "parse_many", "split_measure_list"]

_SYNTAX = re.compile(
    r"^\s*(?P<name>[A-Za-z0-9_\-]+?)\s*(?:@\s*(?P<cutoff>[^()\s]*))?\s*"
    r"(?:\((?P<params>.*)\))?\s*$"
)


def _suggest(name: str) -> str:
    labels = all_labels()
    lowered = {label.lower(): label for label in labels}
    close = difflib.get_close_matches(name.lower(), list(lowered), n=3, cutoff=0.6)
    return ", ".join(repr(lowered[c]) for c in close)


def _unknown(text: str, name: str, rest: str) -> UnknownMeasureError:
    close = difflib.get_close_matches(
        name.lower(), [label.lower() for label in all_labels()], n=1, cutoff=0.6
    )
    if close:
        suggestion = next(label for label in all_labels() if label.lower() == close[0])
        return UnknownMeasureError(
            f"unknown measure {text.strip()!r}; did you mean {suggestion + rest!r}?"
        )
    return UnknownMeasureError(
        f"unknown measure {text.strip()!r}; run 'rankwise measures' for the list"
    )


def _cutoff(text: str, raw: str) -> int:
    if not re.fullmatch(r"\d+", raw) or int(raw) < 1:
        raise MeasureSyntaxError(
            f"cutoff of {text.strip()!r} must be a positive integer, got {raw!r}"
        )
    return int(raw)


def _split_params(text: str, body: str) -> dict[str, str]:
    params: dict[str, str] = {}
    for item in body.split(","):
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key or not value.strip():
            raise MeasureSyntaxError(
                f"parameters of {text.strip()!r} must be key=value, got {item.strip()!r}"
            )
        if key in params:
            raise MeasureSyntaxError(f"parameter {key!r} is given twice in {text.strip()!r}")
        params[key] = value.strip()
    return params


def parse(text: str | Measure) -> Measure:
    """Parse one measure of rankwise's language into a :class:`Measure`.

    Parameters
    ----------
    text : str or Measure
        For example ``"ndcg@10"``, ``"NDCG@10(gain=linear)"``, ``"P@5(rel=2)"``,
        ``"map"``, ``"recall@1000"``, ``"R@100"``. A :class:`Measure` is returned as is.

    Returns
    -------
    Measure

    Raises
    ------
    UnknownMeasureError
        The name is not in the catalog; the message suggests the nearest one.
    MeasureSyntaxError
        Bad or missing cutoff, unknown or repeated parameter, two cutoffs.

    Examples
    --------
    >>> str(parse("NDCG@10(gain=linear)"))
    'ndcg@10(gain=linear)'
    >>> str(parse("R@100")), str(parse("success@5")), str(parse("MAP(rel=2)"))
    ('recall@100', 'hit@5', 'map(rel=2)')
    >>> parse("ndgc@10")
    Traceback (most recent call last):
    ...
    rankwise.exceptions.UnknownMeasureError: unknown measure 'ndgc@10'; did you mean 'ndcg@10'?
    """
    if isinstance(text, Measure):
        return text
    if not isinstance(text, str):
        raise MeasureSyntaxError(f"a measure must be a string, got {type(text).__name__}")
    match = _SYNTAX.match(text)
    if match is None:
        raise MeasureSyntaxError(
            f"cannot parse measure {text!r}: expected NAME[@CUTOFF][(KEY=VALUE,...)], "
            "for example 'ndcg@10' or 'P@5(rel=2)'"
        )
    name = match["name"]
    family = lookup(name)
    rest = text.strip()[len(name) :].strip() if text.strip().startswith(name) else ""
    if family is None:
        raise _unknown(text, name, rest)
    raw_params = _split_params(text, match["params"]) if match["params"] is not None else {}
    cutoff = _cutoff(text, match["cutoff"]) if match["cutoff"] is not None else None
    for key in ("k", "cutoff"):
        if key in raw_params and key not in family.params:
            value = _cutoff(text, raw_params.pop(key))
            if cutoff is not None and cutoff != value:
                raise MeasureSyntaxError(
                    f"{text.strip()!r} gives two cutoffs ({cutoff} and {value}); give one"
                )
            cutoff = value
    if cutoff is not None and family.cutoff == "none":
        raise MeasureSyntaxError(f"measure {family.name!r} takes no cutoff, got {text.strip()!r}")
    if cutoff is None and family.cutoff == "required":
        raise MeasureSyntaxError(
            f"measure {family.name!r} needs a cutoff, for example '{family.name}@10'"
        )
    params: dict[str, Any] = {}
    for key, raw in raw_params.items():
        spec = family.params.get(key)
        if spec is None:
            accepted = ", ".join(sorted(family.params)) or "none"
            raise MeasureSyntaxError(
                f"measure {family.name!r} has no parameter {key!r}; accepted parameters: {accepted}"
            )
        try:
            params[key] = spec.convert(raw)
        except ValueError as error:
            raise MeasureSyntaxError(f"parameter {key!r} of {text.strip()!r}: {error}") from None
    return Measure(family.name, cutoff, normalise_params(family.name, params))


def split_measure_list(text: str) -> list[str]:
    """Split ``"ndcg@10(gain=linear), map"`` on the commas outside parentheses.

    Commas that follow a trec_eval style name with parameters (``P.5,10``) stay
    with it.
    """
    items: list[str] = []
    depth = 0
    current = ""
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char == "," and depth == 0 and not _inside_trec_params(current):
            items.append(current)
            current = ""
            continue
        current += char
    items.append(current)
    return [item.strip() for item in items if item.strip()]


def _inside_trec_params(current: str) -> bool:
    head = current.strip()
    return "." in head and "@" not in head and "(" not in head


def parse_many(measures: str | Measure | Iterable[str | Measure]) -> list[Measure]:
    """Parse a list of measures (or one string of comma-separated measures).

    Both rankwise's language and trec_eval's names are accepted; duplicates
    are dropped, the first position is kept.

    Examples
    --------
    >>> [str(m) for m in parse_many(["ndcg@10", "map", "P.5,10"])]
    ['ndcg@10', 'map', 'P@5', 'P@10']
    """
    from rankwise.measures.trec_names import is_trec_syntax, parse_trec

    if isinstance(measures, (str, Measure)):
        measures = [measures] if isinstance(measures, Measure) else split_measure_list(measures)
    out: list[Measure] = []
    for item in measures:
        if isinstance(item, str) and is_trec_syntax(item):
            parsed = [entry.measure for entry in parse_trec(item) if entry.measure is not None]
        else:
            parsed = [parse(item)]
        for measure in parsed:
            if measure not in out:
                out.append(measure)
    if not out:
        raise MeasureSyntaxError("no measure given; for example ['ndcg@10', 'map']")
    return out


def family_names() -> list[str]:
    """The canonical names of all families."""
    return list(FAMILIES)
