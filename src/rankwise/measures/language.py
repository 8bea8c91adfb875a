"""One measure, in any of the languages rankwise reads: ``rw.parse``.

- ir_measures' (``nDCG@10``, ``AP(rel=2)@100``, ``IPrec@0.5``, ``RBP(p=0.8)``:
  names spelled as ir_measures registers them, with ir_measures' meaning),
  :mod:`rankwise.measures.ir_language`;
- rankwise's (``ndcg@10``, ``P@5(rel=2)``, ``map``), :mod:`rankwise.measures.parser`;
- pytrec_eval's output keys (``ndcg_cut_10``, ``P_5``, ``map_cut_100``,
  ``iprec_at_recall_0.10``), with trec_eval's meaning,
  :func:`rankwise.measures.trec_names.parse_trec_key`.

trec_eval's own syntax (``ndcg_cut.10``, ``P.5,10``: several measures at
once) is read by :func:`rankwise.measures.parse_many`.
"""

from __future__ import annotations

import re
from typing import Any

from rankwise.exceptions import MeasureSyntaxError, UnknownMeasureError
from rankwise.measures.ir_language import (
    IrMeasure,
    from_ir_object,
    ir_name_hint,
    looks_like_ir_measures,
    parse_ir_measures,
)
from rankwise.measures.parser import parse as parse_rankwise
from rankwise.measures.spec import Measure
from rankwise.measures.trec_names import looks_like_key, parse_trec_key, trec_hint

__all__ = ["parse"]


def _plain(found: IrMeasure, text: str) -> Measure:
    if found.judged_only:
        raise MeasureSyntaxError(
            f"{text}: judged_only is an option of the evaluation in rankwise, not of a "
            "measure: evaluate(..., judged_only=True) (--judged-only), or "
            "rankwise.compat.ir_measures, which evaluates such measures apart"
        )
    return found.measure


def parse(text: str | Measure | Any) -> Measure:
    """Parse one measure: rankwise's language, ir_measures', or a pytrec_eval key.

    Parameters
    ----------
    text : str, Measure or ir_measures measure
        ``"ndcg@10"``, ``"NDCG@10(gain=linear)"``, ``"P@5(rel=2)"`` (rankwise's;
        names case-insensitive); ``"nDCG@10"``, ``"AP(rel=2)@100"``,
        ``"IPrec@0.5"`` (ir_measures', names spelled as ir_measures spells
        them, with its meaning: ``nDCG@10`` is trec_eval's nDCG, the grade as
        gain); ``"ndcg_cut_10"``, ``"P_5"`` (pytrec_eval's keys, trec_eval's
        meaning). A :class:`Measure` is returned as is; an ir_measures
        measure object (``ir_measures.nDCG@10``) is read as its string is.

    Returns
    -------
    Measure

    Raises
    ------
    UnknownMeasureError
        A name none of the languages knows; the message suggests the nearest,
        in the language it is written in: one of ir_measures' names for a
        name written as ir_measures writes them (``nDGC@10``: ``nDCG@10``,
        trec_eval's nDCG, not rankwise's ``ndcg@10``), a pytrec_eval key for
        a key (``ndcg_ct_10``: ``ndcg_cut_10``), rankwise's name otherwise.
    MeasureSyntaxError
        A bad cutoff or parameter.
    UnsupportedMeasureError
        An ir_measures measure rankwise does not have yet (the message names it).

    Examples
    --------
    >>> str(parse("ndcg@10")), str(parse("nDCG@10")), str(parse("ndcg_cut_10"))
    ('ndcg@10', 'ndcg@10(gain=linear)', 'ndcg@10(gain=linear)')
    >>> str(parse("AP(rel=2)@100")), str(parse("P_5")), str(parse("SetF(beta=4)"))
    ('map@100(rel=2)', 'P@5', 'set_F(beta=2)')
    >>> str(parse("ERR@20")), str(parse("Judged@10"))
    ('err@20', 'judged@10(denominator=retrieved)')
    >>> str(parse("alpha_nDCG(alpha=0.3)@20")), str(parse("NRBP(beta=0.8)"))
    ('alpha_ndcg@20(alpha=0.3)', 'nrbp(beta=0.8)')
    >>> parse("Accuracy@10")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rankwise.exceptions.UnsupportedMeasureError: ir_measures' Accuracy@10 is not available in \
rankwise yet; ...
    """
    if isinstance(text, Measure):
        return text
    if not isinstance(text, str):
        found = from_ir_object(text)
        if found is None:
            raise MeasureSyntaxError(f"a measure must be a string, got {type(text).__name__}")
        return _plain(found, repr(text))
    try:
        found = parse_ir_measures(text)
    except MeasureSyntaxError as ir_error:
        # a name both languages spell alike (Rprec, P, infAP) with a parameter only
        # rankwise's has (Rprec(mult=0.5)): rankwise's measure
        try:
            return parse_rankwise(text)
        except (UnknownMeasureError, MeasureSyntaxError) as own_error:
            # dialects are rankwise's alone: its error says what is wrong there
            raise (own_error if "dialect" in text else ir_error) from None
    if found is not None:
        return _plain(found, text.strip())
    try:
        return parse_rankwise(text)
    except (UnknownMeasureError, MeasureSyntaxError) as error:
        entry = parse_trec_key(text)
        if entry is not None and entry.measure is not None:
            return entry.measure
        other = _in_its_language(text, error)
        if other is not None:
            raise other from None
        raise


_IR_FORM = re.compile(r"^\s*[^\W\d]\w*\s*\(.*\)\s*@")
"""Parameters before the cutoff (``AP(rel=2)@10``): ir_measures' grammar, not rankwise's."""


def _in_its_language(text: str, error: Exception) -> UnknownMeasureError | None:
    """The error of an unknown measure, its suggestion in the language *text* is written in.

    None to keep rankwise's *error*: a name another tool's vocabulary
    explains exactly (:mod:`rankwise.measures.elsewhere`), or a name written
    as rankwise writes its own.
    """
    from rankwise.measures.elsewhere import hint_for

    match = re.match(r"\s*([^\W\d]\w*)", text)
    if match is None or hint_for(match[1], text.strip()[match.end(1):].strip()) is not None:
        return None
    ir_grammar = not isinstance(error, UnknownMeasureError) and _IR_FORM.match(text)
    if ir_grammar or (isinstance(error, UnknownMeasureError)
                      and looks_like_ir_measures(match[1])):
        hint = ir_name_hint(text)
    elif isinstance(error, UnknownMeasureError) and looks_like_key(text):
        hint = trec_hint(text, keys=True)
    else:
        return None
    return UnknownMeasureError(f"unknown measure {text.strip()!r}{hint}") if hint else None
