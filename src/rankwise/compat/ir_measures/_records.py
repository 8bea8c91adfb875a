"""The named tuples ir_measures reads and yields: Qrel, ScoredDoc, Metric, CalcResults."""

from __future__ import annotations

import warnings
from typing import Any, NamedTuple

__all__ = ["CalcResults", "GenericQrel", "GenericScoredDoc", "Metric", "Qrel", "ScoredDoc"]


class Qrel(NamedTuple):
    """One judgment: query, document, grade, and the TREC file's second column.

    Examples
    --------
    >>> Qrel("q1", "d1", 2)
    Qrel(query_id='q1', doc_id='d1', relevance=2, iteration='0')
    """

    query_id: str
    doc_id: str
    relevance: int
    iteration: str = "0"


class ScoredDoc(NamedTuple):
    """One retrieved document and its score.

    Examples
    --------
    >>> ScoredDoc("q1", "d1", 1.5)
    ScoredDoc(query_id='q1', doc_id='d1', score=1.5)
    """

    query_id: str
    doc_id: str
    score: float


class Metric(NamedTuple):
    """One value: the query, the measure, and the value."""

    query_id: str
    measure: Any
    value: float


class CalcResults(NamedTuple):
    """``aggregated`` (``{measure: value}``, or one value) and ``per_query`` (Metric rows)."""

    aggregated: Any
    per_query: list[Metric]


class GenericQrel(Qrel):
    """Deprecated name of :class:`Qrel` (ir_measures 0.2)."""

    def __new__(cls, *args: Any, **kwargs: Any) -> GenericQrel:
        warnings.warn("GenericQrel deprecated in 0.2.0. Please use ir_measures.Qrel instead.",
                      DeprecationWarning, stacklevel=2)
        return super().__new__(cls, *args, **kwargs)


class GenericScoredDoc(ScoredDoc):
    """Deprecated name of :class:`ScoredDoc` (ir_measures 0.2)."""

    def __new__(cls, *args: Any, **kwargs: Any) -> GenericScoredDoc:
        warnings.warn("GenericScoredDoc deprecated in 0.2.0. Please use ir_measures.ScoredDoc "
                      "instead.", DeprecationWarning, stacklevel=2)
        return super().__new__(cls, *args, **kwargs)
