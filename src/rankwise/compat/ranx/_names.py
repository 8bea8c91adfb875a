"""ranx's metric names, read as ranx reads them, and the rankwise measures that compute them.

ranx writes ``name@k`` (``k`` 0 or absent: the whole list), ``rbp.95`` (the
persistence, 0.95), and ``-lN`` for a relevance level (``ndcg@10-l2``: grades
below 2 gain nothing). Each ranx metric is a rankwise measure on the ranking
ranx evaluates (the drop-in hands rankwise that ranking without ties, so
rankwise's own measures read it as ranx's do; ``bpref`` and ``rbp`` keep
their ranx conventions through ``dialect=ranx``):

==============  ==========================  =====================================
ranx            rankwise (k > 0)            k = 0 (the whole list)
==============  ==========================  =====================================
hits            ``rel_ret@k``               ``rel_ret``
hit_rate        ``hit@k``                   ``rel_ret`` > 0
precision       ``P@k``                     ``set_P``
recall          ``recall@k``                ``set_recall``
f1              2PR/(P+R) of the two above  the same
r-precision     ``Rprec``
mrr             ``mrr@k``                   ``mrr``
map             ``map@k``                   ``map``
dcg             ``dcg@k(gain=linear)``      ``dcg(gain=linear)``
dcg_burges      ``dcg@k``                   ``dcg``
ndcg            ``ndcg@k(gain=linear)``     ``ndcg(gain=linear)``
ndcg_burges     ``ndcg@k``                  ``ndcg``
bpref           ``bpref(dialect=ranx)``     (ranx ignores k)
rbp.p           ``rbp(dialect=ranx,p=0.p)``
==============  ==========================  =====================================

Examples
--------
>>> parse_metric("ndcg_burges@10-l2")
Metric(text='ndcg_burges@10-l2', name='ndcg_burges', k=10, level=2)
>>> [str(m) for m in parse_metric("f1@5").measures()]
['P@5', 'recall@5']
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from rankwise.exceptions import UnknownMeasureError
from rankwise.suggest import did_you_mean

__all__ = ["METRICS", "Metric", "parse_metric"]

METRICS = ("hits", "hit_rate", "precision", "recall", "f1", "r-precision", "mrr", "map", "dcg",
           "dcg_burges", "ndcg", "ndcg_burges", "bpref", "rbp")
"""ranx's metrics (its ``metric_switch``)."""

_BINARY = {"hits": "rel_ret", "hit_rate": "hit", "precision": "P", "recall": "recall",
           "mrr": "mrr", "map": "map"}
_WHOLE = {"hit_rate": "rel_ret", "precision": "set_P", "recall": "set_recall"}
_GRADED = {"dcg": "dcg", "dcg_burges": "dcg", "ndcg": "ndcg", "ndcg_burges": "ndcg"}
_TOP_K = {*_BINARY, *_GRADED, "f1"}
"""The metrics that read the top k documents only (R, the ideal, from the judgments)."""


class Metric(NamedTuple):
    """One ranx metric: its text, name, cutoff (or persistence) and relevance level."""

    text: str
    name: str
    k: float
    level: int

    @property
    def depth(self) -> int | None:
        """How deep the metric reads a ranking: its cutoff, or None (the whole list)."""
        if self.name in _TOP_K and self.k:
            return int(self.k)
        return None

    def measures(self) -> list[str]:
        """The rankwise measures whose values give this metric (f1: two)."""
        k, rel = self.k, "" if self.level == 1 else f"rel={self.level}"
        if self.name == "f1":
            return (Metric(self.text, "precision", k, self.level).measures()
                    + Metric(self.text, "recall", k, self.level).measures())
        if self.name == "r-precision":
            return [_with("Rprec", None, rel)]
        if self.name == "bpref":
            return [_with("bpref", None, ",".join(filter(None, ["dialect=ranx", rel])))]
        if self.name == "rbp":
            return [f"rbp(dialect=ranx,p={k!r})"]
        if self.name in _GRADED:
            gain = "" if self.name.endswith("_burges") else "gain=linear"
            return [_with(_GRADED[self.name], int(k) or None, gain)]
        if not k and self.name in _WHOLE:
            return [_with(_WHOLE[self.name], None, rel)]
        return [_with(_BINARY[self.name], int(k) or None, rel)]

    def combine(self, values: list[np.ndarray]) -> np.ndarray:
        """The metric's values from those of :meth:`measures` (in that order)."""
        if self.name == "f1":
            precision, recall = values
            with np.errstate(invalid="ignore", divide="ignore"):
                f1 = 2 * ((precision * recall) / (precision + recall))
            return np.where(precision + recall == 0, 0.0, f1)
        if self.name == "hit_rate" and not self.k:
            return (values[0] > 0).astype(np.float64)
        return values[0]


def _with(name: str, cutoff: int | None, params: str) -> str:
    text = name if cutoff is None else f"{name}@{cutoff}"
    return f"{text}({params})" if params else text


def parse_metric(text: str) -> Metric:
    """Read a ranx metric name as ranx's ``extract_metric_and_params`` does.

    Raises
    ------
    UnknownMeasureError
        A name ranx does not have (with a suggestion), a level or cutoff that
        is not a number, an ``rbp`` without its persistence.
    """
    if not isinstance(text, str):
        raise UnknownMeasureError(f"a ranx metric is a str such as 'ndcg@10', got {text!r}")
    name, level = text, "1"
    if "-l" in name:
        name, _, level = name.partition("-l")
    try:
        rel_level = int(level)
    except ValueError:
        raise UnknownMeasureError(
            f"metric {text!r}: the relevance level after '-l' must be an integer, got "
            f"{level!r} (for example 'ndcg@10-l2')") from None
    if "rbp" in name:
        separator = "." if "." in name else "@" if "@" in name else None
        if separator is None:
            raise UnknownMeasureError(
                f"metric {text!r}: RBP needs its persistence, for example 'rbp.95' (p = 0.95)")
        name, _, digits = name.partition(separator)
        if not digits.isdigit():
            raise UnknownMeasureError(
                f"metric {text!r}: the persistence after {separator!r} must be digits, "
                f"for example 'rbp.95', got {digits!r}")
        k: float = float(f"0.{digits}")
    else:
        name, _, cutoff = name.partition("@")
        if cutoff and not cutoff.isdigit():
            raise UnknownMeasureError(
                f"metric {text!r}: the cutoff after '@' must be a non-negative integer, got "
                f"{cutoff!r}")
        k = int(cutoff) if cutoff else 0
    if name not in METRICS:
        raise UnknownMeasureError(
            f"metric {text!r} is not one of ranx's ({', '.join(METRICS)})"
            + did_you_mean(name, METRICS))
    return Metric(text, name, k, rel_level)
