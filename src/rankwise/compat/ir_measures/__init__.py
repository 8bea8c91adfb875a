"""A drop-in for ir_measures 0.4, computed by rankwise: ``from rankwise.compat import ir_measures``.

ir_measures' public surface, with its names, arguments and results:

- the measures (``nDCG@10``, ``P(rel=2)@5``, ``AP``, ``RR``, ``R@100``,
  ``Judged@10``, ``ERR@20``, ``alpha_nDCG@20``, ``SDCG(max_rel=3)@10``,
  ``NERR8`` ... ``NERR11``, every one ir_measures registers), with its
  ``repr``, equality and hash, and ``measure.calc_aggregate(qrels, run)``;
- :func:`parse_measure`, :func:`parse_trec_measure`, :func:`read_trec_qrels`,
  :func:`read_trec_run`, the named tuples :class:`Qrel`, :class:`ScoredDoc`,
  :class:`Metric`, :class:`CalcResults`;
- :func:`calc_aggregate`, :func:`iter_calc`, :func:`calc`, :func:`evaluator`
  (``DefaultPipeline``'s), :func:`define` and :func:`define_byquery`;
- the providers (``pytrec_eval``, ``cwl_eval``, ``gdeval``, ``judged``, ...,
  ``providers.registry``), each with the conventions of ir_measures' own
  (:mod:`rankwise.compat.ir_measures._providers`);
- the modules ``measures``, ``providers`` and ``util``, and their submodules.

Judgments and runs are what ir_measures takes (dicts of dicts, pandas
frames, named tuples) and rankwise's own (files, ``Qrels``, ``Run``, Arrow
and polars tables). The drop-in also takes measure strings (``"nDCG@10"``,
rankwise's ``"ndcg@10"`` or pytrec_eval's ``"ndcg_cut_10"``): results are
keyed by the measures as given. Code written for ir_measures runs with
``sys.modules["ir_measures"]`` set to this module.

:func:`register` instead makes rankwise a provider of the installed
ir_measures, first in its ``DefaultPipeline``.

Examples
--------
>>> from rankwise.compat import ir_measures
>>> from rankwise.compat.ir_measures import nDCG, P, AP
>>> qrels = {"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}}
>>> run = {"q1": {"d1": 0.9, "d2": 0.8}}
>>> ir_measures.calc_aggregate([nDCG@10, P@1, ir_measures.NumQ], qrels, run)
{nDCG@10: 0.5, P@1: 0.5, NumQ: 1.0}
>>> list(ir_measures.iter_calc([P@1], qrels, run))
[Metric(query_id='q1', measure=P@1, value=1.0), Metric(query_id='q2', measure=P@1, value=0.0)]
>>> ir_measures.calc_aggregate(["nDCG@10", "AP(rel=2)"], qrels, run)
{'nDCG@10': 0.5, 'AP(rel=2)': 0.5}
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import Any

from rankwise.compat.ir_measures import measures, providers, util
from rankwise.compat.ir_measures._base import Evaluator, Provider
from rankwise.compat.ir_measures._measures import (
    INSTANCES,
    BaseMeasure,
    MeanAgg,
    Measure,
    ParamInfo,
    SumAgg,
)
from rankwise.compat.ir_measures._pipeline import (
    DefaultPipeline,
    accuracy,
    compat,
    cwl_eval,
    gdeval,
    judged,
    msmarco,
    pyndeval,
    pytrec_eval,
    ranx,
    runtime,
    trectools,
)
from rankwise.compat.ir_measures._providers import CwlMetric, RankwiseString
from rankwise.compat.ir_measures._register import provider, register, unregister
from rankwise.compat.ir_measures._runtime import define, define_byquery
from rankwise.compat.ir_measures._util import (
    CalcResults,
    GenericQrel,
    GenericScoredDoc,
    Metric,
    Qrel,
    ScoredDoc,
    convert_trec_name,
    parse_measure,
    parse_trec_measure,
    parse_trec_qrels,
    parse_trec_run,
    read_trec_qrels,
    read_trec_run,
)

__version__ = "0.4.3"
"""The ir_measures version this drop-in follows."""

globals().update(INSTANCES)  # nDCG, P, AP, RR, ... (every measure object, aliases too)

__all__ = [
    "BaseMeasure", "CalcResults", "CwlMetric", "DefaultPipeline", "Evaluator", "GenericQrel",
    "GenericScoredDoc", "MeanAgg", "Measure", "Metric", "ParamInfo", "Provider", "Qrel",
    "ScoredDoc", "SumAgg", "__version__", "accuracy", "calc", "calc_aggregate", "calc_ctxt",
    "compat", "convert_trec_name", "cwl_eval", "define", "define_byquery", "evaluator",
    "gdeval", "iter_calc", "judged", "measures", "msmarco", "parse_measure",
    "parse_trec_measure", "parse_trec_qrels", "parse_trec_run", "provider", "providers",
    "pyndeval", "pytrec_eval", "qrel_inputs", "ranx", "read_trec_qrels", "read_trec_run",
    "register", "run_inputs", "runtime", "trectools", "unregister", "util", *INSTANCES,
]


def _as_measure(given: Any) -> Measure:
    """The drop-in's measure for *given*: a measure object, ir_measures' own, or a string."""
    if isinstance(given, Measure):
        return given
    if isinstance(given, str):
        return _from_string(given)
    if isinstance(getattr(given, "NAME", None), str) and isinstance(
            getattr(given, "params", None), dict):  # a measure object of ir_measures itself
        return parse_measure(repr(given))
    from rankwise.exceptions import UnsupportedMeasureError

    raise UnsupportedMeasureError(
        f"expected an ir_measures measure or a measure string, got {type(given).__name__}")


def _from_string(text: str) -> Measure:
    """A string of ir_measures' language, else of rankwise's (or a pytrec_eval key)."""
    from rankwise.exceptions import UnknownMeasureError
    from rankwise.measures.ir_language import ir_name_hint, parse_ir_measures

    if parse_ir_measures(text) is not None:  # raises on bad parameters, with the reason
        return parse_measure(text)
    from rankwise.measures import parse

    try:
        return RankwiseString(text, parse(text))
    except UnknownMeasureError as error:
        from rankwise.measures.trec_names import looks_like_key

        if looks_like_key(text):  # a pytrec_eval key (the drop-in reads them): its message
            raise
        hint = ir_name_hint(text) or (
            ": not one of ir_measures' names (nDCG, AP, RR, P, R, Success, Bpref, ...)")
        raise UnknownMeasureError(f"unknown measure {text.strip()!r}{hint}") from error


class _Keyed(Evaluator):
    """An evaluator whose results are keyed by the measures as given (strings, objects)."""

    def __init__(self, inner: Evaluator, given: dict[Measure, Any]) -> None:
        super().__init__(list(given.values()), inner.qrel_qids)
        self.inner = inner
        self.given = given

    def iter_calc(self, run: Any) -> Iterator[Any]:
        for row in self.inner.iter_calc(run):
            yield row._replace(measure=self.given[row.measure])

    def calc_aggregate(self, run: Any) -> dict[Any, float]:
        values = self.inner.calc_aggregate(run)
        return {given: values[ours] for ours, given in self.given.items()}

    def calc(self, run: Any) -> CalcResults:
        aggregated, rows = self.inner.calc(run)
        return CalcResults({given: aggregated[ours] for ours, given in self.given.items()},
                           [row._replace(measure=self.given[row.measure]) for row in rows])


def evaluator(measures: Iterable[Any], qrels: Any) -> Evaluator:
    """An evaluator of *measures* against *qrels* (``calc_aggregate``, ``iter_calc``, ``calc``).

    One measure given alone (a string, a measure object) is a list of one: ir_measures reads
    a string letter by letter (``unsupported measure n``), the drop-in the measure it names.
    """
    if isinstance(measures, (str, Measure)) or isinstance(getattr(measures, "NAME", None), str):
        measures = [measures]
    given = {_as_measure(m): m for m in measures}
    inner = DefaultPipeline.evaluator(list(given), qrels)
    if all(ours is original for ours, original in given.items()):
        return inner
    return _Keyed(inner, given)


def iter_calc(measures: Iterable[Any], qrels: Any, run: Any) -> Iterator[Metric]:
    """Yield ``Metric(query_id, measure, value)`` for every judged query and measure."""
    return evaluator(measures, qrels).iter_calc(run)


def calc_aggregate(measures: Iterable[Any], qrels: Any, run: Any) -> dict[Any, float]:
    """``{measure: value}``: the mean over the judged queries (the sum for ``Num*``)."""
    return evaluator(measures, qrels).calc_aggregate(run)


def calc(measures: Iterable[Any], qrels: Any, run: Any) -> CalcResults:
    """``CalcResults(aggregated, per_query)``."""
    return evaluator(measures, qrels).calc(run)


calc_ctxt = DefaultPipeline.calc_ctxt
run_inputs = DefaultPipeline.run_inputs
qrel_inputs = DefaultPipeline.qrel_inputs

del sys
