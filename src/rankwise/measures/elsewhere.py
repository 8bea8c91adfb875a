"""Names other tools give their measures, for the message of an unknown measure.

A name typed from another tool's vocabulary (ir_measures, ranx, TorchMetrics)
that rankwise's language does not read gets an exact answer instead of the
nearest spelling, which can be a measure of another meaning (``ERR@10`` is
not ``rr@10``, ``IPrec@0.5`` is not ``Rprec``): the rankwise measure that
computes the same thing, or "not available in rankwise (yet)".

Only consulted when a name is unknown: a name rankwise reads is never
looked up here.
"""

from __future__ import annotations

import re

__all__ = ["AMBIGUOUS", "ELSEWHERE", "hint_for"]

ELSEWHERE: dict[str, tuple[str, str | None]] = {
    # name (lowercase): (what it is, the rankwise measure computing it; None: not available)
    # {cutoff} stands for the value after '@'; without a placeholder, '@...' is kept as typed
    "iprec": ("ir_measures' interpolated precision at a recall level",
              "iprec_at_recall(recall={cutoff})"),
    "setp": ("ir_measures' precision of the retrieved set", "set_P"),
    "setr": ("ir_measures' recall of the retrieved set", "set_recall"),
    "setf": ("ir_measures' F-measure of the retrieved set", "set_F"),
    "setap": ("ir_measures' set precision times set recall", "set_map"),
    "numq": ("ir_measures' number of queries", "num_q"),
    "numret": ("ir_measures' number of documents retrieved", "num_ret"),
    "numrel": ("ir_measures' number of relevant documents", "num_rel"),
    "numrelret": ("ir_measures' number of relevant documents retrieved", "num_rel_ret"),
    "hit_rate": ("ranx's hit rate", "hit"),
    "hitrate": ("hit rate", "hit"),
    "r_precision": ("ranx's R-precision", "Rprec"),
    "r-precision": ("R-precision", "Rprec"),
    "ndcg_burges": ("ranx's nDCG with the gain 2^grade - 1", "ndcg"),
    "dcg_burges": ("ranx's DCG with the gain 2^grade - 1", "dcg"),
    "strecall": ("subtopic recall, a diversity measure", "strec"),
    "f1": ("F1 at k", None),
    "fall_out": ("fall-out", None),
    "fallout": ("fall-out", None),
}
"""Names from other tools' vocabularies that rankwise's language does not read."""

AMBIGUOUS: dict[str, tuple[tuple[str, str, str | None], ...]] = {
    # name (lowercase): (a meaning, the rankwise measure for it, the dialect reading the
    # name so), ...
    "hits": (
        ("the hit rate (1 when a relevant document is in the top k; knowledge-graph papers' "
         "Hits@k)", "hit", None),
        ("ranx's hits (the number of relevant documents in the top k)", "rel_ret", "ranx"),
    ),
}
"""Names that mean different measures in different tools: rankwise reads none of them alone
(``hits@10(dialect=ranx)`` reads ranx's)."""


def hint_for(name: str, rest: str) -> str | None:
    """The message tail for *name* (as typed, *rest* being what followed it), or None.

    Examples
    --------
    >>> hint_for("IPrec", "@0.5").split("? ")[0]
    "; did you mean 'iprec_at_recall(recall=0.5)'"
    >>> hint_for("fallout", "@10")
    ': fallout (fall-out) is not available in rankwise (yet)'
    >>> hint_for("ndcg", "@10") is None
    True
    >>> print(hint_for("hits", "@10"))
    : 'hits' means more than one measure: the hit rate (1 when a relevant document is in the \
top k; knowledge-graph papers' Hits@k) is 'hit@10'; ranx's hits (the number of relevant \
documents in the top k) is 'rel_ret@10', or 'hits@10(dialect=ranx)' with all of its conventions
    """
    meanings = AMBIGUOUS.get(name.lower())
    if meanings is not None:
        said = []
        for what, measure, dialect in meanings:
            also = ""
            if dialect is not None and "(" not in rest:
                spelled = f"{name}{rest.strip()}(dialect={dialect})"
                also = f", or {spelled!r} with all of its conventions"
            said.append(f"{what} is {measure + rest!r}{also}")
        return f": {name!r} means more than one measure: {'; '.join(said)}"
    known = ELSEWHERE.get(name.lower())
    if known is None:
        return None
    what, rankwise = known
    if rankwise is None:
        return f": {name} ({what}) is not available in rankwise (yet)"
    if "{cutoff}" in rankwise:
        match = re.fullmatch(r"\s*@\s*([^()\s]+)\s*", rest)
        if match is None:
            return f"; rankwise's measure for it is {rankwise.replace('{cutoff}', 'X')!r} ({what})"
        return f"; did you mean {rankwise.replace('{cutoff}', match[1])!r}? ({what})"
    return f"; did you mean {rankwise + rest!r}? ({what})"
