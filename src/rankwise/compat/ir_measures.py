"""A drop-in for ir_measures' evaluation functions, computed by rankwise.

``calc_aggregate(measures, qrels, run)``, ``iter_calc(measures, qrels, run)``
(yielding ``Metric(query_id, measure, value)``), ``calc(...)`` and
``evaluator(measures, qrels)`` take what ir_measures takes: measures as
ir_measures objects (``nDCG@10``) or as strings of ir_measures' language
(``"nDCG@10"``, ``"AP(rel=2)"``; rankwise's and pytrec_eval's names work
too), judgments and runs as dicts, pandas frames (``query_id, doc_id,
relevance`` / ``score``) or named tuples (ir_datasets' ``qrels_iter()``).
Results are keyed by the measures as given, and follow ir_measures'
conventions: every judged query counts, a query the run misses scores 0,
``Num*`` are summed; ``Judged``, ``Compat`` and the intent-aware measures
(pyndeval's) order tied scores by document id ascending, and the latter read
the judgments' ``iteration`` field as the subtopic.

:func:`register` makes rankwise an ir_measures provider
(``ir_measures.providers.registry['rankwise']``) and, by default, the first
of ``ir_measures.DefaultPipeline``: then ``ir_measures.calc_aggregate`` and
PyTerrier's ``pt.Experiment`` compute with rankwise every measure it has.

Examples
--------
>>> from rankwise.compat import ir_measures
>>> qrels = {"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}}
>>> run = {"q1": {"d1": 0.9, "d2": 0.8}}
>>> ir_measures.calc_aggregate(["nDCG@10", "P@1", "NumQ"], qrels, run)
{'nDCG@10': 0.5, 'P@1': 0.5, 'NumQ': 1.0}
>>> list(ir_measures.iter_calc(["P@1"], qrels, run))
[Metric(query_id='q1', measure='P@1', value=1.0), Metric(query_id='q2', measure='P@1', value=0.0)]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from rankwise.exceptions import UnknownMeasureError, UnsupportedMeasureError
from rankwise.measures.ir_language import (
    IrMeasure,
    from_ir_object,
    ir_name_hint,
    parse_ir_measures,
)

__all__ = [
    "CalcResults",
    "Evaluator",
    "Metric",
    "calc",
    "calc_aggregate",
    "evaluator",
    "iter_calc",
    "register",
    "unregister",
]


class Metric(NamedTuple):
    """One value: ``query_id``, the ``measure`` as given, and its ``value`` (ir_measures')."""

    query_id: Any
    measure: Any
    value: float


class CalcResults(NamedTuple):
    """``aggregated`` (``{measure: value}``) and ``per_query`` (a list of :class:`Metric`)."""

    aggregated: dict[Any, float]
    per_query: list[Metric]


def translate(measure: Any) -> IrMeasure:
    """The rankwise reading of one measure: an ir_measures object or a string.

    Strings of ir_measures' language are read with its meaning; other strings
    in rankwise's language (or as pytrec_eval keys).

    Raises
    ------
    UnsupportedMeasureError, MeasureSyntaxError, UnknownMeasureError
        A measure rankwise cannot compute (yet), or cannot read. A name no
        language knows is answered in ir_measures' (``nDGC@10``: did you
        mean ``nDCG@10``, not rankwise's ``ndcg@10``, another gain).

    Examples
    --------
    >>> translate("nDGC@10")
    Traceback (most recent call last):
    ...
    rankwise.exceptions.UnknownMeasureError: unknown measure 'nDGC@10'; did you mean 'nDCG@10'?
    """
    if isinstance(measure, str):
        found = parse_ir_measures(measure)
        if found is not None:
            return found
        from rankwise.measures import parse

        try:
            return IrMeasure(parse(measure))
        except UnknownMeasureError as error:
            from rankwise.measures.trec_names import looks_like_key

            if looks_like_key(measure):  # a pytrec_eval key (the drop-in reads them): one
                raise
            hint = ir_name_hint(measure) or (
                ": not one of ir_measures' names (nDCG, AP, RR, P, R, Success, Bpref, ...)")
            raise UnknownMeasureError(f"unknown measure {measure.strip()!r}{hint}") from error
    found = from_ir_object(measure)
    if found is None:
        raise UnsupportedMeasureError(
            f"expected an ir_measures measure or a measure string, got {type(measure).__name__}"
        )
    return found


class Evaluator:
    """Measures and judgments read once, runs evaluated against them (ir_measures' ``Evaluator``).

    :meth:`iter_calc`, :meth:`calc_aggregate` and :meth:`calc` evaluate a run.

    Parameters
    ----------
    measures : iterable
        ir_measures measure objects or measure strings.
    qrels : dict, frame, named tuples or Qrels
        The judgments.
    """

    def __init__(self, measures: Iterable[Any], qrels: Any) -> None:
        from rankwise.engines.core import prepare_measures
        from rankwise.options import EvalOptions

        self.measures = list(dict.fromkeys(measures))
        self._translated = {measure: translate(measure) for measure in self.measures}
        diverse = any(found.measure.name in _INTENT_AWARE for found in self._translated.values())
        self._qrels, subtopic_qrels = _read_qrels(qrels, diverse)
        # groups: (judged_only, read the subtopics, tie order) -> measures
        self._groups: dict[tuple[bool, bool, str], list[Any]] = {}
        for measure, found in self._translated.items():
            name = found.measure.name
            ties = "ascending" if name in _INTENT_AWARE or name in _ASCENDING else "trec"
            key = (found.judged_only, name in _INTENT_AWARE, ties)
            self._groups.setdefault(key, []).append(measure)
        self._group_qrels = {key: subtopic_qrels if key[1] else self._qrels
                             for key in self._groups}
        self._options = {key: EvalOptions(judged_only=key[0], ties=key[2])
                         for key in self._groups}
        self._parsed = {
            key: prepare_measures([self._translated[m].measure for m in group], EvalOptions())
            for key, group in self._groups.items()
        }
        typed = self._qrels.query_id_type is int
        self.qrel_qids: list[Any] = (
            [int(q) for q in self._qrels.query_ids] if typed else list(self._qrels.query_ids)
        )

    def _values(self, run: Any) -> tuple[list[Any], dict[Any, list[float]]]:
        """Per measure, one value per judged query (0 for a query the run misses)."""
        from rankwise.engines.numpy import NumpyEngine
        from rankwise.io.coerce import as_run

        run_obj = as_run(run, empty=True)  # ir_measures: an empty run retrieved nothing
        engine = NumpyEngine()
        index = {query: position for position, query in enumerate(self.qrel_qids)}
        values: dict[Any, list[float]] = {}
        for flag, group in self._groups.items():
            results = engine.evaluate(self._group_qrels[flag], run_obj, self._parsed[flag],
                                      self._options[flag])
            positions = [index[query] for query in results.query_ids]
            for measure in group:
                column = [0.0] * len(self.qrel_qids)
                evaluated = results[self._translated[measure].measure].tolist()
                for position, value in zip(positions, evaluated):
                    column[position] = value
                values[measure] = column
        return self.qrel_qids, values

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """Yield ``Metric(query_id, measure, value)`` for every judged query and measure."""
        queries, values = self._values(run)
        columns = [(measure, values[measure]) for measure in self.measures]
        for position, query in enumerate(queries):
            for measure, column in columns:
                yield Metric(query, measure, column[position])

    def calc_aggregate(self, run: Any) -> dict[Any, float]:
        """``{measure: value}``: the mean over judged queries (sum for the ``Num*`` counts)."""
        _, values = self._values(run)
        return {measure: self._aggregate(measure, values[measure]) for measure in self.measures}

    def calc(self, run: Any) -> CalcResults:
        """Aggregated and per-query values at once."""
        queries, values = self._values(run)
        per_query = [
            Metric(query, measure, values[measure][position])
            for position, query in enumerate(queries)
            for measure in self.measures
        ]
        return CalcResults(
            {measure: self._aggregate(measure, values[measure]) for measure in self.measures},
            per_query,
        )

    def _aggregate(self, measure: Any, column: list[float]) -> float:
        if self._translated[measure].measure.family.aggregate == "sum":
            return float(math.fsum(column))
        return math.fsum(column) / len(column) if column else math.nan


_INTENT_AWARE = frozenset({"alpha_dcg", "alpha_ndcg", "err_ia", "nerr_ia", "nrbp", "nnrbp",
                           "ap_ia", "p_ia", "strec"})
"""The families ir_measures computes with pyndeval, from the subtopics of the judgments.
pyndeval orders tied scores by document id ascending."""
_ASCENDING = frozenset({"compat", "judged"})
"""Families whose ir_measures provider orders tied scores by document id ascending."""


def _read_qrels(qrels: Any, diverse: bool) -> tuple[Any, Any]:
    """The judgments, plain and (for the intent-aware measures) with their subtopics.

    ir_measures' pyndeval provider takes the subtopic from the judgments'
    ``iteration`` field (TREC's second column; ir_datasets' ``TrecQrel``):
    a table or named tuples with an ``iteration`` (and no ``subtopic`` or
    ``intent``) column is read that way for those measures, and plainly for
    the others (or, when a document has a grade per subtopic, with its
    greatest grade, rankwise's reading). Judgments without one are one
    subtopic per query, as there.
    """
    from rankwise.exceptions import DuplicateEntryError
    from rankwise.io.coerce import as_qrels
    from rankwise.io.records import records_table

    if not diverse:
        return as_qrels(qrels), None
    table = records_table(qrels)  # named tuples are read once: a table serves both
    source = qrels if table is None else table
    names = getattr(source, "column_names", None)
    if names is None:
        names = list(getattr(source, "columns", []))
    if "iteration" not in names or {"subtopic", "intent"} & set(names):
        plain = as_qrels(source)
        return plain, plain
    subtopics = as_qrels(source, columns={"subtopic": "iteration"})
    try:
        return as_qrels(source), subtopics
    except DuplicateEntryError:
        return subtopics, subtopics


def evaluator(measures: Iterable[Any], qrels: Any) -> Evaluator:
    """An :class:`Evaluator` of *measures* against *qrels* (runs evaluated later)."""
    return Evaluator(measures, qrels)


def iter_calc(measures: Iterable[Any], qrels: Any, run: Any) -> Iterator[Metric]:
    """Yield ``Metric(query_id, measure, value)`` for every judged query and measure."""
    return Evaluator(measures, qrels).iter_calc(run)


def calc_aggregate(measures: Iterable[Any], qrels: Any, run: Any) -> dict[Any, float]:
    """``{measure: value}`` over the judged queries (ir_measures' ``calc_aggregate``)."""
    return Evaluator(measures, qrels).calc_aggregate(run)


def calc(measures: Iterable[Any], qrels: Any, run: Any) -> CalcResults:
    """Aggregated and per-query values (ir_measures' ``calc``)."""
    return Evaluator(measures, qrels).calc(run)


_PROVIDER: Any = None


def provider() -> Any:
    """The rankwise provider, an ``ir_measures.providers.Provider`` (needs ir_measures)."""
    global _PROVIDER
    if _PROVIDER is None:
        _PROVIDER = _make_provider()
    return _PROVIDER


def _make_provider() -> Any:
    try:
        from ir_measures import providers
        from ir_measures.util import Metric as IrMetric
    except ImportError as error:
        from rankwise.exceptions import MissingDependencyError

        raise MissingDependencyError(
            "registering rankwise with ir_measures needs ir_measures: pip install ir_measures"
        ) from error

    class RankwiseEvaluator(providers.Evaluator):
        def __init__(self, measures: Any, qrels: Any) -> None:
            self._inner = Evaluator(measures, qrels)
            super().__init__(self._inner.measures, set(self._inner.qrel_qids))

        def _iter_calc(self, run: Any) -> Iterator[Any]:
            for metric in self._inner.iter_calc(run):
                yield IrMetric(metric.query_id, metric.measure, metric.value)

    class RankwiseProvider(providers.Provider):
        """rankwise: trec_eval 10.0's measures (and more), exact and fast."""

        NAME = "rankwise"
        SUPPORTED_MEASURES: list[Any] = []  # noqa: RUF012 - ir_measures' attribute

        def supports(self, measure: Any) -> bool:
            try:
                measure.validate_params()
                translate(measure)
            except (AssertionError, ValueError):
                return False
            return True

        def _evaluator(self, measures: Any, qrels: Any) -> Any:
            return RankwiseEvaluator(measures, qrels)

        def install_instructions(self) -> str:
            return "pip install rankwise"

    return RankwiseProvider()


def register(*, default: bool = True) -> Any:
    """Register rankwise with ir_measures; return the provider.

    The provider joins ``ir_measures.providers.registry`` as ``"rankwise"``
    (``ir_measures.providers.registry["rankwise"].calc_aggregate(...)``). With
    *default*, it also goes first in ``ir_measures.DefaultPipeline``: then
    ``ir_measures.calc_aggregate``, ``ir_measures.iter_calc`` and PyTerrier's
    ``pt.Experiment`` compute with rankwise every measure it supports, and with
    ir_measures' other providers the rest. Nothing is registered on import:
    this function does it, and :func:`unregister` undoes it.

    Examples
    --------
    >>> import ir_measures  # doctest: +SKIP
    >>> from rankwise.compat.ir_measures import register  # doctest: +SKIP
    >>> register()  # doctest: +SKIP
    >>> ir_measures.calc_aggregate([ir_measures.nDCG@10], qrels, run)  # doctest: +SKIP
    """
    import ir_measures as irm

    found = provider()
    irm.providers.register(found)
    pipeline = irm.DefaultPipeline.providers
    if default and found not in pipeline:
        pipeline.insert(0, found)
    return found


def unregister() -> None:
    """Take rankwise out of ir_measures' registry and default pipeline."""
    if _PROVIDER is None:
        return
    import ir_measures as irm

    irm.providers.registry.pop("rankwise", None)
    pipeline = irm.DefaultPipeline.providers
    while _PROVIDER in pipeline:
        pipeline.remove(_PROVIDER)
