"""ir_measures' measure language: ``nDCG@10``, ``AP(rel=2)@100``, ``IPrec@0.5``, ``RBP(p=0.8)``.

Grammar (ir_measures 0.4's): ``NAME [( KEY=VALUE {, KEY=VALUE} )] [@ VALUE]``,
the name spelled exactly as ir_measures registers it (case matters:
``nDCG`` is ir_measures', ``ndcg`` rankwise's). Values are numbers,
``True``/``False``, strings (quoted or not: ``dcg=exp-log2`` and
``dcg='exp-log2'``) and ``{grade: gain, ...}`` dicts. A measure read here
has ir_measures' meaning: ``nDCG@10`` is trec_eval's nDCG (the grade as gain),
``ndcg@10(gain=linear)`` in rankwise's language. The table of names is
:mod:`rankwise.measures.ir_measures_names`.

Examples
--------
>>> str(parse_ir_measures("nDCG@10").measure)
'ndcg@10(gain=linear)'
>>> str(parse_ir_measures("AP(rel=2)@100").measure), str(parse_ir_measures("IPrec@0.5").measure)
('map@100(rel=2)', 'iprec_at_recall(recall=0.5)')
>>> parse_ir_measures("P(judged_only=True)@5")
IrMeasure(measure=Measure('P@5'), judged_only=True)
>>> parse_ir_measures("ndcg@10") is None  # rankwise's spelling: not ir_measures'
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rankwise.exceptions import MeasureSyntaxError, UnsupportedMeasureError
from rankwise.measures.catalog import FAMILIES, normalise_params
from rankwise.measures.ir_measures_names import IMPLIED, IR_MEASURES, IrName
from rankwise.measures.parser import cutoff_too_large
from rankwise.measures.spec import MAX_CUTOFF, Measure

__all__ = [
    "IrMeasure",
    "from_ir_object",
    "from_ir_params",
    "ir_name_hint",
    "looks_like_ir_measures",
    "parse_ir_measures",
]

_SYNTAX = re.compile(
    r"^\s*(?P<name>[^\W\d]\w*)\s*(?:\((?P<params>.*)\))?\s*(?:@\s*(?P<at>[^\s()@]+))?\s*$"
)
_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


_NAME = re.compile(r"^\s*(?P<name>[^\W\d]\w*)(?P<rest>.*?)\s*$", re.DOTALL)


def ir_name_hint(text: str) -> str:
    """``"; did you mean 'nDCG@10'?"``: the nearest of ir_measures' names, or ``""``.

    For a measure not in ir_measures' language, in the words of someone who
    writes it (the ir_measures drop-in, an ir_measures-style string): the
    nearest name ir_measures registers, with what followed the name as typed
    when the whole then reads in ir_measures' language (else the name alone).

    Examples
    --------
    >>> ir_name_hint("nDGC@10"), ir_name_hint("NDGC@10"), ir_name_hint("Sucess(rel=2)@5")
    ("; did you mean 'nDCG@10'?", "; did you mean 'NDCG@10'?", "; did you mean 'Success(rel=2)@5'?")
    >>> ir_name_hint("nDGC@10(gain=exp)"), ir_name_hint("zzz")
    ("; did you mean 'nDCG'?", '')
    """
    import difflib

    from rankwise.suggest import closest

    match = _NAME.match(text)
    if match is None:
        return ""
    typed = match["name"]
    near = closest(typed, IR_MEASURES)
    if near is None:
        return ""
    # of the names that differ in letter case only (nDCG, NDCG), the one written as typed
    near = max((name for name in IR_MEASURES if name.lower() == near.lower()),
               key=lambda name: difflib.SequenceMatcher(None, typed, name).ratio())
    spelled = near + match["rest"]
    try:
        readable = parse_ir_measures(spelled) is not None
    except (MeasureSyntaxError, UnsupportedMeasureError):
        readable = False
    return f"; did you mean {spelled if readable else near!r}?"


def looks_like_ir_measures(name: str) -> bool:
    """Whether an unknown measure *name* is written as ir_measures writes its names.

    Nearer, letter case counted, to one of ir_measures' names (``nDGC``:
    ``nDCG``) than to any of rankwise's (``ndgc``: ``ndcg``); a tie goes to
    rankwise's.

    Examples
    --------
    >>> looks_like_ir_measures("nDGC"), looks_like_ir_measures("ndgc")
    (True, False)
    >>> looks_like_ir_measures("alpah_nDCG"), looks_like_ir_measures("recip_rnk")
    (True, False)
    """
    import difflib

    from rankwise.measures.catalog import all_labels

    def nearest(names: list[str]) -> float:
        matcher = difflib.SequenceMatcher(b=name, autojunk=False)
        best = 0.0
        for candidate in names:
            matcher.set_seq1(candidate)
            best = max(best, matcher.ratio())
        return best

    return nearest(list(IR_MEASURES)) > nearest(all_labels())


@dataclass(frozen=True)
class IrMeasure:
    """An ir_measures measure read in rankwise.

    The measure, and whether only judged documents count (ir_measures'
    ``judged_only``, an option of the evaluation in rankwise).
    """

    measure: Measure
    judged_only: bool = False


def _split(text: str, body: str) -> list[str]:
    """Split on the commas outside braces and quotes."""
    items, depth, quote, current = [], 0, "", ""
    for char in body:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == "," and depth == 0:
            items.append(current)
            current = ""
            continue
        current += char
    if quote or depth:
        raise MeasureSyntaxError(f"cannot parse the parameters of {text.strip()!r}: "
                                 "unbalanced quotes or braces")
    items.append(current)
    return [item.strip() for item in items if item.strip()]


def _value(text: str, raw: str) -> Any:
    """One parameter value: a number, a bool, a string or a ``{a: b}`` dict."""
    raw = raw.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        return raw[1:-1]
    if raw in ("True", "False"):
        return raw == "True"
    if _INT.fullmatch(raw):
        if len(raw.lstrip("+-0")) > len(str(MAX_CUTOFF)):  # (nor int() of 5000 digits)
            raise MeasureSyntaxError(
                f"number in {text[:40]!r}{'...' if len(text) > 40 else ''} is too large: "
                f"{len(raw)} digits, at most {MAX_CUTOFF} (2^63 - 1)"
            )
        return int(raw)
    if _FLOAT.fullmatch(raw):
        return float(raw)
    if raw.startswith("{") and raw.endswith("}"):
        out = {}
        for item in _split(text, raw[1:-1]):
            key, sep, value = item.partition(":")
            if not sep:
                raise MeasureSyntaxError(
                    f"parameter value {raw!r} of {text.strip()!r}: expected {{key: value, ...}}"
                )
            out[_value(text, key)] = _value(text, value)
        return out
    if re.fullmatch(r"[\w.\-]+", raw):
        return raw  # an unquoted word: dcg=exp-log2
    raise MeasureSyntaxError(f"cannot read parameter value {raw!r} of {text.strip()!r}")


def parse_ir_measures(text: str) -> IrMeasure | None:
    """Read *text* in ir_measures' language; None when it is not an ir_measures name.

    Raises
    ------
    MeasureSyntaxError
        An ir_measures name with parameters ir_measures does not accept, or bad values.
    UnsupportedMeasureError
        A measure of ir_measures' that rankwise does not have yet.
    """
    match = _SYNTAX.match(text)
    if match is None or match["name"] not in IR_MEASURES:
        return None
    name = match["name"]
    params: dict[str, Any] = {}
    if match["params"] is not None:
        for item in _split(text, match["params"]):
            key, sep, value = item.partition("=")
            key = key.strip()
            if not sep or not key.isidentifier():
                raise MeasureSyntaxError(
                    f"parameters of {text.strip()!r} must be key=value, got {item!r}"
                )
            if key in params:
                raise MeasureSyntaxError(f"parameter {key!r} is given twice in {text.strip()!r}")
            params[key] = _value(text, value)
    if match["at"] is not None:
        at = IR_MEASURES[name].at
        if at in params:
            raise MeasureSyntaxError(f"{text.strip()!r} gives {at} twice (@ and {at}=)")
        params[at] = _value(text, match["at"])
    return from_ir_params(name, params, text.strip())


def from_ir_object(obj: Any) -> IrMeasure | None:
    """An ir_measures measure object (``ir_measures.nDCG@10``) read in rankwise, or None.

    Examples
    --------
    >>> import ir_measures  # doctest: +SKIP
    >>> str(from_ir_object(ir_measures.nDCG@10).measure)  # doctest: +SKIP
    'ndcg@10(gain=linear)'
    """
    name = getattr(obj, "NAME", None)
    params = getattr(obj, "params", None)
    if not isinstance(name, str) or not isinstance(params, dict):
        return None
    if name not in IR_MEASURES:
        raise UnsupportedMeasureError(f"ir_measures' {obj!r} is not a measure rankwise knows")
    return from_ir_params(name, dict(params), repr(obj))


def _entry(name: str, params: dict[str, Any]) -> IrName:
    entry = IR_MEASURES[name]
    for key, value, other in entry.variants:
        if key in params and (value is ... or params[key] == value):
            return other
    return entry


def _cutoff(text: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise MeasureSyntaxError(f"cutoff of {text!r} must be a positive integer, got {value!r}")
    if value > MAX_CUTOFF:
        raise MeasureSyntaxError(cutoff_too_large(text, str(value)))
    return value


def from_ir_params(name: str, params: dict[str, Any], text: str | None = None) -> IrMeasure:
    """The rankwise reading of ir_measures' measure *name* with *params*.

    Raises
    ------
    MeasureSyntaxError, UnsupportedMeasureError
        As :func:`parse_ir_measures`.
    """
    shown = text or name
    given = {**IMPLIED.get(name, {}), **params}
    accepted = IR_MEASURES[name].params
    unknown = sorted(set(given) - set(accepted))
    if unknown:
        raise MeasureSyntaxError(
            f"ir_measures' {name} has no parameter {', '.join(map(repr, unknown))}; its "
            f"parameters: {', '.join(accepted) or 'none'}"
        )
    entry = _entry(name, given)
    if entry.family is None:
        planned = (f" (planned: rankwise's {entry.planned})"
                   if entry.planned and entry.planned != "no rankwise measure planned" else "")
        note = f"; {entry.note}" if entry.note else ""
        raise UnsupportedMeasureError(
            f"ir_measures' {shown} is not available in rankwise yet{planned}{note}"
        )
    family = FAMILIES[entry.family]
    judged_only = False
    cutoff: int | None = None
    out: dict[str, Any] = dict(entry.fixed)
    for key, value in given.items():
        target = entry.params.get(key)
        if target is None:
            continue  # read by the choice of the entry (SetP's relative, NumRet's rel)
        if target == "judged_only":
            if not isinstance(value, bool):
                raise MeasureSyntaxError(f"judged_only of {shown!r} must be True or False, "
                                         f"got {value!r}")
            judged_only = value
            continue
        if target == "cutoff":
            cutoff = _cutoff(shown, value)
            continue
        try:
            if key in entry.convert:
                out[target] = entry.convert[key](value)
            else:
                if isinstance(value, (bool, dict)):
                    raise ValueError(f"expected a number, got {value!r}")
                out[target] = family.params[target].convert(str(value))
        except ValueError as error:
            raise MeasureSyntaxError(f"parameter {key!r} of {shown!r}: {error}") from None
    if cutoff is None and family.cutoff == "required":
        raise MeasureSyntaxError(f"ir_measures' {name} needs a cutoff, for example '{name}@10'")
    return IrMeasure(Measure(family.name, cutoff, normalise_params(family.name, out)), judged_only)
