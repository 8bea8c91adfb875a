"""Every parameter a family lists changes the value (issue 13: a parameter that does nothing
is not listed), and ``rel`` of rbp binarises as ir_measures' ``RBP(rel=...)`` does."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import rankwise as rw
from rankwise.exceptions import MeasureSyntaxError
from rankwise.measures import FAMILIES, Measure, parse

# graded diversity judgments (the plain measures read the maximum over subtopics): negative
# grades and scores, a query whose relevant documents are all of grade 1, ties, unjudged
# documents, a ranking shorter than the cutoff
QRELS = {
    "q1": {"1": {"a": 3, "b": 1, "c": 0, "d": 2, "n": -1}, "2": {"a": 0, "b": 2, "e": 1}},
    "q2": {"1": {"a": 1, "f": 1, "g": 0, "l": 1}},
    "q3": {"1": {"h": 2, "i": 1}, "2": {"i": 3, "j": 1, "q": 2}},
}
RUN = {
    "q1": {"a": 5.0, "x": 4.0, "b": 4.0, "c": 3.0, "d": 2.0, "e": 1.0, "y": 0.5, "n": 0.25},
    "q2": {"f": -1.0, "u": -2.0, "a": -3.0},
    "q3": {"j": 9.0, "z": 8.0, "h": 7.0, "w": 6.0, "i": 5.0, "v": 4.0, "t": 3.0, "s": 2.0,
           "r": 1.0, "o": 0.5, "m": 0.25, "k": 0.1},
}

# a value other than the default, for every parameter of the catalog (by family where it
# depends on the family); a new parameter without an entry here fails the test
ALTERNATIVES: dict[str, Any] = {
    "rel": 2.0,
    "gain": "linear",
    "gains": ((1.0, 5.0), (3.0, 4.0)),
    "mult": 2.0,
    "beta": 0.25,
    "recall": 0.5,
    "levels": (0.2, 0.7),
    "coefficients": (2.0, -1.0, 0.0, 1.0),
    "p": 0.5,
    "max_grade": 5.0,
    "alpha": 0.3,
    "T": 2.0,
    "K": 3.0,
    "halflife": 2.0,
    "L": 5.0,
    "quantity": "ed",
    "depth": 3,
    "normalize": False,
    "ideal": "score",
    "denominator": "retrieved",
    "cost": 2.0,
    "rounding": "trec_eval9",
    "min_grade": -1.0,
}
BY_FAMILY: dict[tuple[str, str], Any] = {
    ("ncg", "gain"): "exp",
    ("nrbp", "beta"): 0.8,
    ("nnrbp", "beta"): 0.8,
    ("inst", "max_grade"): 5.0,
}
# where the default makes another parameter moot on these judgments
BASES = {"bpm": parse("bpm(T=20)"), "inst": parse("inst(max_grade=3)"),
         "sdcg": parse("sdcg@10(max_grade=3)"), "nerr8": parse("nerr8@10(max_grade=3)"),
         "nerr9": parse("nerr9@10(max_grade=3)"), "nerr10": parse("nerr10(max_grade=3)"),
         "nerr11": parse("nerr11(max_grade=3)")}
# where a parameter changes only another quantity than the value (the cost of INST's reading)
PARAM_BASES = {("inst", "cost"): parse("inst(max_grade=3,quantity=etc)"),
               ("insq", "cost"): parse("insq(quantity=etc)"),
               # recall 0 asks for no relevant document under either rounding
               ("iprec_at_recall", "rounding"): parse("iprec_at_recall(recall=0.3)"),
               **{(name, "cost"): BASES[name].replace(quantity="etc")
                  for name in ("sdcg", "nerr8", "nerr9", "nerr10", "nerr11")}}


def base(name: str, key: str = "") -> Measure:
    family = FAMILIES[name]
    if (name, key) in PARAM_BASES:
        return PARAM_BASES[name, key]
    return BASES.get(name, Measure(name, 10 if family.cutoff != "none" else None))


def alternative(name: str, key: str) -> Any:
    value = BY_FAMILY.get((name, key), ALTERNATIVES.get(key))
    if value is None:
        raise AssertionError(f"no alternative value for parameter {key!r} of {name!r}")
    return value


# another tool's conventions: what they change needs data of their own (empty queries,
# ties in input order, ...), tested in tests/dialects and tests/test_explanation.py
OTHER_TOOLS = ("dialect", "empty")
CASES = [
    (name, key) for name, family in FAMILIES.items() for key in family.params
    if key not in OTHER_TOOLS
]


def values_of(measure: Measure) -> np.ndarray:
    return rw.evaluate(QRELS, RUN, [measure])[measure]


@pytest.mark.parametrize(("name", "key"), CASES)
def test_every_listed_parameter_changes_the_value(name: str, key: str) -> None:
    default = base(name, key)
    value = alternative(name, key)
    if default.param(key) == value:  # the base already sets it (BASES)
        value = ALTERNATIVES[key]
    changed = default.replace(**{key: value})
    assert str(changed) != str(default)
    assert parse(str(changed)) == changed
    before, after = values_of(default), values_of(changed)
    assert np.any(np.abs(before - after) > 1e-12), (str(default), str(changed), before, after)


def test_every_family_was_varied() -> None:
    assert {name for name, _ in CASES} == {n for n, f in FAMILIES.items() if f.params}


def test_rbp_rel_binarises_as_ir_measures() -> None:
    # issue 13: rbp(p=0.5, rel=2) was accepted and ignored; ir_measures' RBP(rel=2) gives 0.25
    results = rw.evaluate({"a": {"d1": 1, "d2": 2, "d3": 0}},
                          {"a": {"d1": 3.0, "d2": 2.0, "d3": 1.0}},
                          ["rbp(p=0.5)", "rbp(p=0.5,rel=2)", "rbp(p=0.5,rel=1)"])
    assert results.mean == {"rbp(p=0.5)": 0.5, "rbp(p=0.5,rel=2)": 0.25,
                            "rbp(p=0.5,rel=1)": 0.75}


def test_the_relevance_level_option_leaves_graded_measures_graded() -> None:
    # trec_eval's -l does not binarise its rbp; EvalOptions.rel does not reach rbp either
    results = rw.evaluate(QRELS, RUN, ["rbp", "P@5", "inst(max_grade=3)"], rel=2)
    assert [str(m) for m in results.measures] == ["rbp", "P@5(rel=2)", "inst(max_grade=3)"]


def test_a_parameter_a_family_does_not_take_is_refused() -> None:
    with pytest.raises(MeasureSyntaxError, match="accepted parameters: p"):
        parse("rbp_resid(rel=2)")
