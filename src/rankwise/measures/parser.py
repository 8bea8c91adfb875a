"""Parsing rankwise's measure language: ``ndcg@10``, ``P@5(rel=2)``, ``map``.

Grammar: ``NAME [@ CUTOFF] [( KEY=VALUE {, KEY=VALUE} )]``. Names are
case-insensitive and may be aliases; the cutoff is a positive integer. Lists
of measures, where trec_eval's syntax (``ndcg_cut.10``, ``P.5,10``) is read
too, are parsed by :mod:`rankwise.measures.lists`.
"""

from __future__ import annotations

import re
from typing import Any

from rankwise.exceptions import MeasureSyntaxError, UnknownMeasureError
from rankwise.measures.catalog import Family, all_labels, lookup, normalise_params
from rankwise.measures.dialects import spelled
from rankwise.measures.elsewhere import hint_for
from rankwise.measures.spec import MAX_CUTOFF, Measure
from rankwise.suggest import did_you_mean

__all__ = ["parse"]

_SYNTAX = re.compile(
    r"^\s*(?P<name>[A-Za-z0-9_\-]+?)\s*(?:@\s*(?P<cutoff>[^()\s]*))?\s*"
    r"(?:\((?P<params>.*)\))?\s*$"
)


def _unknown(text: str, name: str, rest: str) -> UnknownMeasureError:
    elsewhere = hint_for(name, rest)  # another tool's name: its exact counterpart, or none
    if elsewhere is not None:
        return UnknownMeasureError(f"unknown measure {text.strip()!r}{elsewhere}")
    hint = did_you_mean(name, all_labels(), suffix=rest)
    return UnknownMeasureError(
        f"unknown measure {text.strip()!r}"
        + (hint or "; run 'rankwise measures' for the list")
    )


def _in_dialect(
    text: str, name: str, raw_params: dict[str, str], family: Family | None
) -> tuple[Family | None, dict[str, str]]:
    """The family and parameters of *name* as the dialect's tool spells it (ranx's ``hits``)."""
    found = spelled(name, raw_params["dialect"])
    if found is None:
        return family, raw_params
    canonical, fixed = found
    for key, value in fixed.items():
        if key in raw_params and raw_params[key].strip().lower() != value:
            raise MeasureSyntaxError(
                f"{text.strip()!r}: {name} means {key}={value}; give {key}= once, or use "
                f"the measure {canonical!r}"
            )
    return lookup(canonical), {**fixed, **raw_params}


def _dialect_cutoff(family: str, raw_params: dict[str, Any]) -> bool:
    """Whether the measure's dialect cuts a measure written without a cutoff (XGBoost's 32)."""
    if "dialect" not in raw_params:
        return False
    from rankwise.measures.dialects import DIALECTS

    dialect = DIALECTS.get(str(raw_params["dialect"]).strip().lower())
    record = None if dialect is None else dialect.families.get(family)
    return record is not None and record.cutoff is not None


def _cutoff(text: str, raw: str) -> int:
    if not re.fullmatch(r"\d+", raw) or not raw.strip("0"):
        raise MeasureSyntaxError(
            f"cutoff of {text.strip()!r} must be a positive integer, got {raw!r}"
        )
    digits = raw.lstrip("0")
    if len(digits) > len(str(MAX_CUTOFF)) or int(digits) > MAX_CUTOFF:
        raise MeasureSyntaxError(cutoff_too_large(text, digits))
    return int(digits)


def cutoff_too_large(text: str, digits: str) -> str:
    """The message for a cutoff above :data:`MAX_CUTOFF` (a number of any length)."""
    shown = text.strip() if len(text.strip()) <= 60 else text.strip()[:40] + "..."
    return (f"cutoff of {shown!r} is too large: at most {MAX_CUTOFF} (2^63 - 1), got a "
            f"number of {len(digits)} digits")


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
    raw_params = _split_params(text, match["params"]) if match["params"] is not None else {}
    family = lookup(name)
    if "dialect" in raw_params:  # the tool's own name for a measure, with the tool's meaning
        family, raw_params = _in_dialect(text, name, raw_params, family)
    rest = text.strip()[len(name) :].strip() if text.strip().startswith(name) else ""
    if family is None:
        raise _unknown(text, name, rest)
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
    if cutoff is None and family.cutoff == "required" and not _dialect_cutoff(family.name,
                                                                             raw_params):
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
    return Measure(family.name, cutoff, normalise_params(family.name, params),
                   given=frozenset(params))


