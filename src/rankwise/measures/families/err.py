"""Expected reciprocal rank: ERR@k and nERR@k with gdeval.pl's semantics.

gdeval's nDCG@k is rankwise's ``ndcg@k`` (gain 2^g - 1, log2 discount,
ideal from all judged grades cut at k): no family of its own.
"""

from __future__ import annotations

from rankwise.measures.dialects import DIALECT, EMPTY
from rankwise.measures.family import Family
from rankwise.measures.params import Param, number

__all__ = ["FAMILIES"]

MAX_GRADE = Param(
    4.0,
    number,
    "the grade of certain satisfaction: stop probability (2^g - 1) / 2^max_grade "
    "(gdeval.pl: 4, the top grade of the TREC Web track)",
)

FAMILIES: list[Family] = [
    Family(
        "err",
        "expected reciprocal rank",
        "sum_{i<=k} R_i / i * prod_{j<i} (1 - R_j), R = (2^g - 1) / 2^max_grade "
        "(g: the grade, 0 if unjudged or negative); as gdeval.pl",
        "optional",
        {"max_grade": MAX_GRADE, "dialect": DIALECT, "empty": EMPTY},
        reference="Chapelle, Metzler, Zhang & Grinspan, CIKM 2009; TREC Web track gdeval.pl",
    ),
    Family(
        "nerr",
        "normalised expected reciprocal rank",
        "ERR@k / ERR@k of the ideal ranking (all judged grades, descending); "
        "0 without a relevant judgment",
        "optional",
        {"max_grade": MAX_GRADE},
        reference="Chapelle et al., CIKM 2009 (ERR); normalised by the ideal as gdeval's nDCG",
    ),
]
