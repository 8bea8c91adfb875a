"""Compatibility with an ideal ranking, and normalised cumulative gain."""

from __future__ import annotations

from rankwise.measures.family import Family
from rankwise.measures.params import Param, boolean, choice, gain_kind, integer, probability

__all__ = ["FAMILIES"]


def _depth(text: str) -> int | str:
    """A positive integer, or ``run`` (the longer of the ranking and the ideal, per query)."""
    if text.strip().lower() == "run":
        return "run"
    return integer(text)

FAMILIES: list[Family] = [
    Family(
        "compat",
        "compatibility: rank-biased overlap with an ideal ranking",
        "RBO(run, ideal) / RBO(ideal, ideal); RBO(a, b) = sum_{i<=depth} p^(i-1) "
        "|a[:i] & b[:i]| / i / sum_{i<=depth} p^(i-1); ideal: the documents of positive "
        "grade by grade, equal grades retrieved ones first in ranking order; 0 without one",
        "none",
        {
            "p": Param(0.95, probability, "persistence of the overlap"),
            "depth": Param(1000, _depth, "depth of the overlap, whatever the lengths; 'run': "
                           "per query, the longer of the ranking and the ideal (ir_measures)"),
            "normalize": Param(True, boolean, "divide by RBO(ideal, ideal)"),
            "ideal": Param("retrieved", choice("retrieved", "score"),
                           "equal grades in the ideal: 'retrieved' ones first, in ranking order "
                           "(the reference); 'score': by the run's score, an unretrieved "
                           "document's taken as 0 (ir_measures)"),
        },
        reference="Clarke, Vtyurina & Smucker, ICTIR 2020 and TOIS 2021; claclark/Compatibility",
    ),
    Family(
        "ncg",
        "normalised cumulative gain",
        "sum_{i<=k} gain(g_i) / sum_{i<=k} gain(g*_i), g*: the judged grades descending; "
        "gain: the grade (negative: 0); 0 when the denominator is 0",
        "optional",
        {"gain": Param("linear", gain_kind, "gain of a grade g: 'linear' = g, 'exp' = 2^g - 1")},
        reference="Jarvelin & Kekalainen, TOIS 2002 (CG); TREC Deep Learning 2019 (NCG@k)",
    ),
]
