"""User-defined measures: :func:`define` and :func:`define_byquery` (ir_measures' runtime provider).

A measure defined here is a Python function over pandas frames: the
judgments (``query_id, doc_id, relevance`` and any other column) and the run
(``query_id, doc_id, score``), the run sorted by query and score descending
and cut at the measure's ``cutoff`` when one is set (``MyMeasure@10``).
:func:`define`'s function sees every query at once and yields ``(query_id,
value)``; :func:`define_byquery`'s sees one query at a time and returns its
value. Queries the function gives no value get 0.

Examples
--------
>>> import pandas as pd
>>> Hits = define_byquery(lambda qrels, run: float(run.doc_id.isin(qrels.doc_id).sum()),
...                       name="Hits")
>>> qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]})
>>> run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["b", "a"], "score": [2.0, 1.0]})
>>> list((Hits@1).iter_calc(qrels, run)), (Hits@2).calc_aggregate(qrels, run)
([Metric(query_id='q1', measure=Hits@1, value=0.0)], 1.0)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from rankwise.compat.ir_measures._base import Evaluator, Provider
from rankwise.compat.ir_measures._measures import Measure, ParamInfo
from rankwise.compat.ir_measures._util import Metric, QrelsConverter, RunConverter

__all__ = ["RuntimeEvaluator", "RuntimeProvider", "define", "define_byquery"]


class RuntimeProvider(Provider):
    """The measures :func:`define` and :func:`define_byquery` make."""

    NAME = "runtime"

    def supports(self, measure: Measure) -> bool:
        measure.validate_params()
        return hasattr(measure, "runtime_impl")

    def _evaluator(self, measures: Iterable[Measure], qrels: Any) -> Evaluator:
        frame = QrelsConverter(qrels, strict=False).as_pd_dataframe()
        if "query_id" not in frame.columns:
            raise ValueError("Required column query_id not found in qrels. Found columns was "
                             + str(frame.columns.to_list()))
        by = ["query_id"] + (["doc_id"] if "doc_id" in frame.columns else [])
        return RuntimeEvaluator(measures, frame.sort_values(by=by))

    def run_inputs(self, measures: Iterable[Measure]) -> list[str]:
        return list({name for m in measures for name in getattr(m, "RUN_INPUTS", ())})

    def qrel_inputs(self, measures: Iterable[Measure]) -> list[str]:
        return list({name for m in measures for name in getattr(m, "QREL_INPUTS", ())})


class RuntimeEvaluator(Evaluator):
    """Runs the user's functions over the judgments and each run (pandas frames)."""

    def __init__(self, measures: Iterable[Measure], qrels: Any) -> None:
        super().__init__(measures, set(qrels["query_id"].unique()))
        self.qrels = qrels

    def _iter_calc(self, run: Any) -> Iterator[Metric]:
        frame = RunConverter(run, strict=False).as_pd_dataframe()
        if "query_id" not in frame.columns:
            raise ValueError("Required column query_id not found in run. Found columns was "
                             + str(frame.columns.to_list()))
        by, ascending = ["query_id"], [True]
        if "score" in frame.columns:
            by.append("score")
            ascending.append(False)
        frame = frame.sort_values(by=by, ascending=ascending)
        for measure in self.measures:
            yield from measure.runtime_impl(self.qrels, frame)  # type: ignore[attr-defined]


def define(impl: Callable[[Any, Any], Iterable[tuple[Any, float]]], name: str | None = None,
           support_cutoff: bool = True, *, run_inputs: list[str] | None = None,
           qrel_inputs: list[str] | None = None, pretty_name: str | None = None,
           short_desc: str | None = None) -> Measure:
    """A measure computed by *impl(qrels, run)*, which yields ``(query_id, value)`` pairs.

    Parameters
    ----------
    impl : callable
        ``(qrels frame, run frame) -> iterable of (query_id, value)``.
    name : str, optional
        Its name (its ``repr``; without one the object's own).
    support_cutoff : bool
        Whether it takes ``cutoff`` (``@k``): the run is cut at k per query.
    run_inputs, qrel_inputs : list of str, optional
        The columns it reads (default: ``query_id, doc_id, score`` and
        ``query_id, doc_id, relevance``).
    pretty_name, short_desc : str, optional
        Its description.

    Examples
    --------
    >>> def found(qrels, run):  # per query: the share of the run that is judged
    ...     judged = run.merge(qrels, on=["query_id", "doc_id"], how="left")
    ...     for query, rows in judged.groupby("query_id"):
    ...         yield query, float(rows.relevance.notna().mean())
    >>> Found = define(found, name="Found")
    >>> Found.calc_aggregate({"q": {"a": 1}}, {"q": {"a": 1.0, "b": 0.5}})
    0.5
    """
    supported: dict[str, ParamInfo] = {}
    if support_cutoff:
        supported["cutoff"] = ParamInfo(dtype=int, required=False, desc="ranking cutoff threshold")
    run_columns = ["query_id", "doc_id", "score"] if run_inputs is None else run_inputs
    qrel_columns = ["query_id", "doc_id", "relevance"] if qrel_inputs is None else qrel_inputs

    class _RuntimeMeasure(Measure):
        SUPPORTED_PARAMS = supported
        NAME = name
        __name__ = name
        RUN_INPUTS = run_columns
        QREL_INPUTS = qrel_columns
        SHORT_DESC = short_desc
        PRETTY_NAME = pretty_name

        def runtime_impl(self, qrels: Any, run: Any) -> Iterator[Metric]:
            cutoff = self.params.get("cutoff")
            if cutoff is not None:  # the run comes sorted by query and score
                run = run.groupby("query_id").head(cutoff).reset_index(drop=True)
            for query_id, value in impl(qrels, run):
                yield Metric(query_id, self, value)

        def __repr__(self) -> str:
            return super().__repr__() if self.NAME is not None else object.__repr__(self)

        __hash__ = Measure.__hash__

    return _RuntimeMeasure()


def define_byquery(impl: Callable[[Any, Any], float], name: str | None = None,
                   support_cutoff: bool = True, *, run_inputs: list[str] | None = None,
                   qrel_inputs: list[str] | None = None, pretty_name: str | None = None,
                   short_desc: str | None = None) -> Measure:
    """A measure computed by *impl(qrels, run)* for one query at a time (frames of that query).

    Parameters as :func:`define`; *name* defaults to the function's name.

    Examples
    --------
    >>> Size = define_byquery(lambda qrels, run: float(len(run)), name="Size")
    >>> (Size@1).calc_aggregate({"q": {"a": 1}}, {"q": {"a": 1.0, "b": 0.5}})
    1.0
    """
    if name is None:
        name = getattr(impl, "__name__", repr(impl))

    def per_query(qrels: Any, run: Any) -> Iterator[tuple[Any, float]]:
        for query_id, rows in run.groupby("query_id"):
            yield query_id, impl(qrels[qrels["query_id"] == query_id], rows)

    return define(per_query, name, support_cutoff, run_inputs=run_inputs,
                  qrel_inputs=qrel_inputs, pretty_name=pretty_name, short_desc=short_desc)
