"""trec_eval's measure names and syntax: ``ndcg_cut.10``, ``P.5,10``, ``all_trec``.

trec_eval names a measure, optionally followed by ``.`` and its parameters:
a list of cutoffs (``P.5,10``), of recall levels or multiples
(``iprec_at_recall.0.1,0.2``, ``Rprec_mult.0.5``), of numbers
(``utility.2,-1,0,0``, ``11pt_avg.0.25,0.5``) or ``grade=gain`` pairs
(``ndcg.1=3,2=9``). Each expands to rankwise measures with trec_eval's
semantics (trec_eval's nDCG uses the grade itself as gain), and each carries
the label trec_eval prints (``P_5``, ``iprec_at_recall_0.10``, ``ndcg_cut_23``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rankwise.exceptions import MeasureSyntaxError, UnknownMeasureError
from rankwise.measures.catalog import lookup, normalise_params
from rankwise.measures.parser import parse
from rankwise.measures.spec import Measure

__all__ = [
    "NICKNAMES",
    "TREC_MEASURES",
    "TrecEntry",
    "is_trec_syntax",
    "looks_like_key",
    "parse_trec",
    "parse_trec_key",
    "parse_trec_list",
    "trec_hint",
]


@dataclass(frozen=True)
class TrecEntry:
    """One value trec_eval prints: the rankwise measure and trec_eval's label for it.

    ``measure`` is None for ``runid``, which is not a measure.
    """

    label: str
    measure: Measure | None
    order: int
    integer: bool = False
    text: bool = False


def _atol(text: str) -> int:
    match = re.match(r"\s*[+-]?\d+", text)
    return c_long(match.group()) if match else 0


def c_long(digits: str) -> int:
    """An integer's text as glibc's ``atol`` reads it: beyond a C long, the nearest limit.

    Examples
    --------
    >>> c_long("12"), c_long(" -7"), c_long("9" * 5000) == 2**63 - 1
    (12, -7, True)
    """
    text = digits.strip()
    sign = -1 if text.startswith("-") else 1
    body = text.lstrip("+-").lstrip("0") or "0"
    if len(body) > 19:  # (and no int() of thousands of digits)
        return 2**63 - 1 if sign > 0 else -(2**63)
    return max(-(2**63), min(2**63 - 1, sign * int(body)))


def _atof(text: str) -> float:
    match = re.match(r"\s*[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)", text)
    return float(match.group()) if match else 0.0


def _long_cutoffs(name: str, text: str) -> list[int]:
    values = sorted(_atol(item) for item in text.split(","))
    if values[0] <= 0:
        raise MeasureSyntaxError(f"trec_eval measure {name}.{text}: cutoffs must be positive")
    if len(set(values)) != len(values):
        raise MeasureSyntaxError(f"trec_eval measure {name}.{text}: duplicate cutoffs")
    return values


def _double_cutoffs(name: str, text: str) -> list[float]:
    values = sorted(_atof(item) for item in text.split(","))
    if len(set(values)) != len(values):
        raise MeasureSyntaxError(f"trec_eval measure {name}.{text}: duplicate cutoffs")
    return values


def _pairs(name: str, text: str) -> list[tuple[str, float]]:
    """trec_eval's name=value pairs: each item holds one '=' (``1=2=3`` is malformed)."""
    out: list[tuple[str, float]] = []
    for item in text.split(","):
        key, sep, value = item.partition("=")
        if not sep or "=" in value:
            raise MeasureSyntaxError(
                f"trec_eval measure {name}.{text}: expected name=value pairs, got {item!r}"
            )
        out.append((key, _atof(value)))
    return out


def _pair_value(name: str, text: str, key: str, default: float) -> float:
    """The value of *key* among the pairs (the last given, as trec_eval's loop takes it)."""
    values = [value for item, value in _pairs(name, text) if item == key]
    return values[-1] if values else default


@dataclass(frozen=True)
class _TrecFamily:
    name: str
    build: Callable[[str | None], list[tuple[str, Measure | None]]]
    integer: bool = False
    text: bool = False
    cutoffs: bool = False  # its parameters are cutoffs (P.5,10): rankwise's @k


def _m(name: str, cutoff: int | None = None, **params: Any) -> Measure:
    return Measure(name, cutoff, normalise_params(name, dict(params)))


_DEFAULT_CUTOFFS = [5, 10, 15, 20, 30, 100, 200, 500, 1000]


def _family_table() -> dict[str, _TrecFamily]:
    table: dict[str, _TrecFamily] = {}

    def scalar(name: str, rankwise: str, integer: bool = False, **params: Any) -> None:
        def build(text: str | None) -> list[tuple[str, Measure | None]]:
            return [(name, _m(rankwise, **params))]

        table[name] = _TrecFamily(name, build, integer)

    def cutoffs(name: str, rankwise: str, default: list[int], **params: Any) -> None:
        def build(text: str | None) -> list[tuple[str, Measure | None]]:
            values = _long_cutoffs(name, text) if text is not None else default
            return [(f"{name}_{k}", _m(rankwise, k, **params)) for k in values]

        table[name] = _TrecFamily(name, build, cutoffs=True)

    def levels(name: str, rankwise: str, key: str, default: list[float]) -> None:
        def build(text: str | None) -> list[tuple[str, Measure | None]]:
            values = _double_cutoffs(name, text) if text is not None else default
            return [(f"{name}_{x:3.2f}", _m(rankwise, None, **{key: x})) for x in values]

        table[name] = _TrecFamily(name, build)

    def labelled(name: str, make: Callable[[str], Measure], default: Measure) -> None:
        def build(text: str | None) -> list[tuple[str, Measure | None]]:
            if text is None:
                return [(name, default)]
            return [(f"{name}_{text}", make(text))]

        table[name] = _TrecFamily(name, build)

    table["runid"] = _TrecFamily("runid", lambda text: [("runid", None)], text=True)
    for name in ("num_q", "num_ret", "num_rel", "num_rel_ret"):
        scalar(name, name, integer=True)
    scalar("map", "map")
    scalar("gm_map", "gm_map")
    scalar("Rprec", "Rprec")
    scalar("bpref", "bpref")
    scalar("recip_rank", "mrr")
    levels("iprec_at_recall", "iprec_at_recall", "recall", [x / 10 for x in range(11)])
    cutoffs("P", "P", _DEFAULT_CUTOFFS)

    def relstring(text: str | None) -> list[tuple[str, Measure | None]]:
        if text is None:
            return [("relstring", _m("relstring", 10))]
        length = max(int(_atof(text.split(",")[0])), 0)
        return [(f"relstring_{text}", _m("relstring", length))]

    table["relstring"] = _TrecFamily("relstring", relstring, text=True)
    cutoffs("recall", "recall", _DEFAULT_CUTOFFS)
    scalar("infAP", "infAP")
    scalar("gm_bpref", "gm_bpref")
    levels("Rprec_mult", "Rprec", "mult", [0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0])
    labelled("utility", lambda text: _m("utility", coefficients=_four(text)), _m("utility"))
    labelled(
        "11pt_avg",
        lambda text: _m("11pt_avg", levels=tuple(sorted(_atof(x) for x in text.split(",")))),
        _m("11pt_avg"),
    )
    scalar("binG", "binG")
    labelled("G", lambda text: _m("G", gains=_gain_pairs("G", text)), _m("G"))
    labelled(
        "dcg",
        lambda text: _m("dcg", gain="linear", gains=_gain_pairs("dcg", text)),
        _m("dcg", gain="linear"),
    )
    labelled(
        "ndcg",
        lambda text: _m("ndcg", gain="linear", gains=_gain_pairs("ndcg", text)),
        _m("ndcg", gain="linear"),
    )
    labelled(
        "ndcg_rel", lambda text: _m("ndcg_rel", gains=_gain_pairs("ndcg_rel", text)), _m("ndcg_rel")
    )
    labelled("Rndcg", lambda text: _m("Rndcg", gains=_gain_pairs("Rndcg", text)), _m("Rndcg"))
    cutoffs("ndcg_cut", "ndcg", _DEFAULT_CUTOFFS, gain="linear")
    cutoffs("map_cut", "map", _DEFAULT_CUTOFFS)
    cutoffs("relative_P", "relative_P", _DEFAULT_CUTOFFS)
    cutoffs("success", "hit", [1, 5, 10])
    scalar("set_P", "set_P")
    scalar("set_relative_P", "set_relative_P")
    scalar("set_recall", "set_recall")
    scalar("set_map", "set_map")
    labelled("set_F", _set_f, _m("set_F"))
    scalar("num_nonrel_judged_ret", "num_nonrel_judged_ret", integer=True)
    # trec_eval's default persistence is 0.9 (rankwise's, like ir_measures', is 0.8)
    labelled("rbp", lambda text: _m("rbp", p=_pair_value("rbp", text, "p", 0.9)), _m("rbp", p=0.9))
    labelled(
        "rbp_resid",
        lambda text: _m("rbp_resid", p=_pair_value("rbp_resid", text, "p", 0.9)),
        _m("rbp_resid", p=0.9),
    )
    cutoffs("unj", "unj", [5, 10, 20])
    return table


def _four(text: str) -> tuple[float, ...]:
    values = [_atof(item) for item in text.split(",")]
    if len(values) != 4:
        raise MeasureSyntaxError(
            f"trec_eval measure utility.{text}: expected four coefficients a,b,c,d, "
            f"got {len(values)}"
        )
    return tuple(values)


def _gain_pairs(name: str, text: str) -> tuple[tuple[float, float], ...]:
    """The gain of each grade; a negative grade or a grade given twice is refused.

    trec_eval reads a key of -1 as the documents the judgments do not hold and
    -2 as those judged with a negative grade, and a grade given twice takes the
    smaller gain in the ranking and the first in the ideal ranking: rankwise's
    gains are those of grades, so it refuses both rather than give another number.
    """
    pairs: dict[int, float] = {}
    for key, value in _pairs(name, text):
        if not re.fullmatch(r"[+-]?\d+", key):
            continue  # trec_eval skips a key that is not an integer
        grade = int(key)
        if grade < 0:
            raise MeasureSyntaxError(
                f"trec_eval measure {name}.{text}: a gain for grade {grade}: trec_eval gives "
                "it to the documents not judged (-1) or judged below 0 (-2), which rankwise's "
                "gains (of grades 0 and up) do not do; give gains for grades 0 and up"
            )
        if grade in pairs:
            raise MeasureSyntaxError(
                f"trec_eval measure {name}.{text}: grade {grade} is given two gains; trec_eval "
                "would use one in the ranking and the other in the ideal ranking: give one"
            )
        pairs[grade] = value
    return tuple(sorted((float(grade), gain) for grade, gain in pairs.items()))


def _set_f(text: str) -> Measure:
    """trec_eval's set_F.x: (x + 1) P R / (x P + R), x being beta squared (0 or more)."""
    x = _atof(text.split(",")[0])
    if x < 0:
        raise MeasureSyntaxError(
            f"trec_eval measure set_F.{text}: the parameter is beta squared, 0 or more "
            "(trec_eval computes (x + 1) P R / (x P + R) with a negative x all the same)"
        )
    return _m("set_F", beta=x**0.5)


TREC_MEASURES: dict[str, _TrecFamily] = _family_table()
"""trec_eval's measures, in trec_eval's print order."""

_ORDER = {name: position for position, name in enumerate(TREC_MEASURES)}

NICKNAMES: dict[str, list[str]] = {
    "official": [
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "map",
        "gm_map",
        "Rprec",
        "bpref",
        "recip_rank",
        "iprec_at_recall",
        "P",
    ],
    "all_trec": [
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "map",
        "gm_map",
        "Rprec",
        "bpref",
        "recip_rank",
        "iprec_at_recall",
        "P",
        "relstring",
        "recall",
        "unj",
        "rbp",
        "rbp_resid",
        "infAP",
        "gm_bpref",
        "utility",
        "11pt_avg",
        "ndcg",
        "relative_P",
        "Rprec_mult",
        "success",
        "map_cut",
        "ndcg_cut",
        "ndcg_rel",
        "Rndcg",
        "binG",
        "G",
        "set_P",
        "set_recall",
        "set_relative_P",
        "set_map",
        "set_F",
        "num_nonrel_judged_ret",
    ],
    "set": [
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "utility",
        "set_P",
        "set_recall",
        "set_relative_P",
        "set_map",
        "set_F",
    ],
}


def is_trec_syntax(text: str) -> bool:
    """Whether *text* is trec_eval syntax rather than rankwise's language.

    True for a nickname (``all_trec``), for ``name.params`` with a trec_eval
    name, and for a bare trec_eval name that rankwise's language does not
    read the same way (``ndcg_cut``, ``P`` without cutoff, ``Rprec_mult``).
    """
    stripped = text.strip()
    if stripped in NICKNAMES:
        return True
    if "@" in stripped or "(" in stripped:
        return False
    name, dot, _ = stripped.partition(".")
    if dot:
        return name in TREC_MEASURES
    if stripped not in TREC_MEASURES:
        return False
    try:
        parse(stripped)
    except MeasureSyntaxError:
        return True
    return stripped in {"runid", "relstring", "utility", "11pt_avg", "iprec_at_recall"}


_KEY = re.compile(r"^(?P<name>[A-Za-z0-9_]+?)(?:_(?P<key>\d[\d.]*)|\s*@\s*(?P<at>\d[\d.]*))$")


def trec_name_hint(text: str) -> str | None:
    """A suggestion for a trec_eval measure written another way, or None.

    pytrec_eval's output keys (``P_10``, ``ndcg_cut_10``,
    ``iprec_at_recall_0.10``) and a trec_eval name with rankwise's cutoff
    (``ndcg_cut@10``) are written ``P.10``, ``ndcg_cut.10`` in trec_eval's
    syntax, which keeps trec_eval's meaning.

    Examples
    --------
    >>> trec_name_hint("P_10"), trec_name_hint("ndcg_cut@10"), trec_name_hint("ndcg@10")
    ("; did you mean 'P.10'? (pytrec_eval's key for trec_eval's P.10)", \
"; did you mean 'ndcg_cut.10'? (trec_eval's name: ndcg_cut.10)", None)
    """
    match = _KEY.match(text.strip())
    if match is None or match["name"] not in TREC_MEASURES:
        return None
    if match["at"] is not None and lookup(match["name"]) is not None:
        return None  # rankwise's own name with a cutoff: not trec_eval's
    if match["key"] is not None:
        spelled = f"{match['name']}.{match['key']}"
        return f"; did you mean {spelled!r}? (pytrec_eval's key for trec_eval's {spelled})"
    spelled = f"{match['name']}.{match['at']}"
    return f"; did you mean {spelled!r}? (trec_eval's name: {spelled})"


_TYPED = re.compile(
    r"^(?P<name>[A-Za-z0-9_]+?)(?:\.(?P<dotted>.+)|_(?P<key>\d[\d.]*)|\s*@\s*(?P<at>\d+))?$"
)


def trec_hint(text: str, *, keys: bool = False) -> str:
    """``"; did you mean 'ndcg_cut.10'?"`` for a measure trec_eval does not have, or ``""``.

    In trec_eval's language, for someone who writes it (``rankwise
    trec-eval``), or as pytrec_eval's keys with *keys* (its drop-in): a
    misspelt name keeps the parameters typed (``ndcg_ct.10``:
    ``ndcg_cut.10``); a measure of another language is answered with the
    trec_eval measure computing the same thing (``P@5``: ``P.5``;
    ``nDCG@10``, ir_measures': ``ndcg_cut.10``), or told there is none.

    Examples
    --------
    >>> trec_hint("ndcg_ct.10"), trec_hint("ndcg_ct_10", keys=True)
    ("; did you mean 'ndcg_cut.10'?", "; did you mean 'ndcg_cut_10'?")
    >>> trec_hint("nDCG@10"), trec_hint("P@5", keys=True)
    ("; did you mean 'ndcg_cut.10'? (trec_eval's name for nDCG@10)", \
"; did you mean 'P_5'? (pytrec_eval's key for P@5)")
    >>> trec_hint("mrr@10")
    "; trec_eval has no measure for 'mrr@10' (recip_rank is mrr without a cutoff)"
    """
    stripped = text.strip()
    hint = None if keys else trec_name_hint(stripped)
    return hint or _translated(stripped, keys) or _misspelt(stripped, keys)


_KEY_FORM = re.compile(r"^\s*[A-Za-z][A-Za-z0-9_]*_\d[\d.]*\s*$")


def looks_like_key(text: str) -> bool:
    """Whether *text* is written as pytrec_eval's keys are: a name, ``_`` and a number.

    Examples
    --------
    >>> looks_like_key("ndcg_ct_10"), looks_like_key("ndcg@10"), looks_like_key("map")
    (True, False, False)
    """
    return _KEY_FORM.match(text) is not None


def _spelled(name: str, parameters: str, keys: bool) -> str:
    return f"{name}{'_' if keys else '.'}{parameters}"


def _trec_spelling(measure: Measure, keys: bool) -> str | None:
    """The trec_eval measure (or pytrec_eval key) computing exactly *measure*, or None."""
    for name, family in TREC_MEASURES.items():
        if family.text or family.cutoffs != (measure.cutoff is not None):
            continue
        try:
            built = family.build(None if measure.cutoff is None else str(measure.cutoff))
        except MeasureSyntaxError:
            continue
        if [entry for _, entry in built] == [measure]:
            return name if measure.cutoff is None else _spelled(name, str(measure.cutoff), keys)
    return None


def _translated(text: str, keys: bool) -> str | None:
    """The hint for a measure of rankwise's or ir_measures' language (``P@5``), or None."""
    if "@" not in text and "(" not in text:
        return None
    from rankwise.measures.ir_language import parse_ir_measures

    try:
        found = parse_ir_measures(text)
        measure = found.measure if found is not None else parse(text)
    except MeasureSyntaxError:  # an unknown measure too
        return None
    whose = "pytrec_eval's key" if keys else "trec_eval's name"
    spelled = _trec_spelling(measure, keys)
    if spelled is not None:
        return f"; did you mean {spelled!r}? ({whose} for {text})"
    if "gain" in measure.family.params and measure.param("gain") == "exp":
        spelled = _trec_spelling(measure.replace(gain="linear"), keys)
        if spelled is not None:
            return (f"; did you mean {spelled!r}? (the grade as gain; rankwise's {text} has "
                    "the gain 2^grade - 1, which trec_eval has not)")
    plain = _trec_spelling(measure.replace(cutoff=None), keys) if measure.cutoff else None
    if plain is not None:
        return (f"; trec_eval has no measure for {text!r} ({plain} is {measure.family.name} "
                "without a cutoff)")
    return f"; trec_eval has no measure for {text!r}"


def _misspelt(text: str, keys: bool) -> str:
    """The hint for a misspelt trec_eval name, with the parameters as typed, or ``""``."""
    from rankwise.suggest import closest

    match = _TYPED.match(text)
    name = match["name"] if match is not None else text
    near = closest(name, [*TREC_MEASURES, *NICKNAMES])
    if near is None:
        return ""
    if match is None:
        return f"; did you mean {near!r}?"
    if match["dotted"] is not None:
        near = f"{near}.{match['dotted']}"
    elif match["key"] is not None:
        near = _spelled(near, match["key"], keys)
    elif match["at"] is not None:
        cut = next((n for n in (near, f"{near}_cut")
                    if n in TREC_MEASURES and TREC_MEASURES[n].cutoffs), None)
        if cut is not None:
            near = _spelled(cut, match["at"], keys)
    return f"; did you mean {near!r}?"


def parse_trec(text: str) -> list[TrecEntry]:
    """Expand one trec_eval measure argument into printable entries.

    Examples
    --------
    >>> [(e.label, str(e.measure)) for e in parse_trec("ndcg_cut.10,5")]
    [('ndcg_cut_5', 'ndcg@5(gain=linear)'), ('ndcg_cut_10', 'ndcg@10(gain=linear)')]
    >>> [e.label for e in parse_trec("official")][:6]
    ['runid', 'num_q', 'num_ret', 'num_rel', 'num_rel_ret', 'map']
    """
    stripped = text.strip()
    if stripped in NICKNAMES:
        return [entry for name in NICKNAMES[stripped] for entry in parse_trec(name)]
    name, dot, params = stripped.partition(".")
    family = TREC_MEASURES.get(name)
    if family is None:
        raise UnknownMeasureError(f"unknown trec_eval measure {stripped!r}{trec_hint(stripped)}")
    if dot and params == "":  # trec_eval and pytrec_eval refuse it too
        raise MeasureSyntaxError(
            f"empty parameter list in measure {stripped!r}: give parameters after the '.' "
            f"(for example '{name}.10') or none ('{name}')")
    built = family.build(params if dot else None)
    return [
        TrecEntry(label, measure, _ORDER[name], family.integer, family.text)
        for label, measure in built
    ]


_KEY_PARAMETER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)")


def parse_trec_key(text: str) -> TrecEntry | None:
    """The measure of a pytrec_eval output key, with trec_eval's meaning; None if not one.

    Keys: ``ndcg_cut_10``, ``P_5``, ``map_cut_100``, ``iprec_at_recall_0.10``,
    ``Rprec_mult_0.20``, ...

    A key is a trec_eval measure name, ``_`` and one parameter value, as
    pytrec_eval prints (and accepts) them. Names without a parameter
    (``map``, ``recip_rank``) are trec_eval's names, read by :func:`parse_trec`.

    Examples
    --------
    >>> [str(parse_trec_key(key).measure) for key in ("ndcg_cut_10", "P_5", "map_cut_100")]
    ['ndcg@10(gain=linear)', 'P@5', 'map@100']
    >>> parse_trec_key("iprec_at_recall_0.10").label, parse_trec_key("ndcg@10") is None
    ('iprec_at_recall_0.10', True)
    """
    stripped = text.strip()
    for name in sorted(TREC_MEASURES, key=len, reverse=True):
        if not stripped.startswith(name + "_"):
            continue
        value = stripped[len(name) + 1 :]
        if not _KEY_PARAMETER.fullmatch(value) or TREC_MEASURES[name].text:
            continue
        try:
            entries = parse_trec(f"{name}.{value}")
        except (MeasureSyntaxError, UnknownMeasureError):
            return None
        if len(entries) == 1 and entries[0].measure is not None:
            return entries[0]
    return None


def parse_trec_list(arguments: list[str]) -> list[TrecEntry]:
    """Expand several ``-m`` arguments as trec_eval does.

    Measures come out in trec_eval's fixed order; a measure named twice with
    parameters keeps the first parameters given (trec_eval's rule), and a
    nickname adds its measures with default parameters unless named with
    parameters elsewhere.
    """
    chosen: dict[str, str | None] = {}
    for argument in arguments:
        stripped = argument.strip()
        names = NICKNAMES.get(stripped)
        if names is not None:
            for name in names:
                chosen.setdefault(name, None)
            continue
        name, dot, params = stripped.partition(".")
        if name not in TREC_MEASURES:
            parse_trec(stripped)  # raises the error with a suggestion
        if dot and params:
            if chosen.get(name) is None:
                chosen[name] = stripped
        else:
            chosen.setdefault(name, None)
    entries: list[TrecEntry] = []
    for name in sorted(chosen, key=lambda n: _ORDER[n]):
        entries.extend(parse_trec(chosen[name] or name))
    return entries
