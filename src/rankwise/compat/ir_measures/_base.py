"""ir_measures' provider protocol: :class:`Provider`, :class:`Evaluator`, parameter specs.

A provider computes some measures (``SUPPORTED_MEASURES``, each a measure
whose parameters are specs: :class:`Any`, :class:`Choices`); ``supports``
says whether it takes a measure as given; ``evaluator(measures, qrels)``
reads the judgments once and evaluates runs. A subclass implements
``_evaluator``; an evaluator ``_iter_calc``. As ir_measures 0.4 has them,
so that a provider written for ir_measures runs here too.
"""

from __future__ import annotations

import contextlib
import itertools
import warnings
from collections.abc import Iterable, Iterator
from typing import Any as AnyType

from rankwise.compat.ir_measures._measures import NOT_PROVIDED, Measure
from rankwise.compat.ir_measures._util import CalcResults, Metric

__all__ = ["NOT_PROVIDED", "Any", "Choices", "Evaluator", "ParamSpec", "Provider", "register",
           "registry"]


class ParamSpec:
    """A condition on one parameter of a supported measure."""

    def validate(self, value: AnyType) -> bool:
        raise NotImplementedError


class Any(ParamSpec):
    """Any value (given or not), or, with *required*, any value given."""

    def __init__(self, required: bool = False) -> None:
        self.required = required

    def validate(self, value: AnyType) -> bool:
        return value is not NOT_PROVIDED if self.required else True

    def __repr__(self) -> str:
        return "REQUIRED" if self.required else "ANY"


class Choices(ParamSpec):
    """One of the values listed (:data:`NOT_PROVIDED`: left out)."""

    def __init__(self, *choices: AnyType) -> None:
        self.choices = choices

    def validate(self, value: AnyType) -> bool:
        return value in self.choices

    def __repr__(self) -> str:
        if len(self.choices) == 1:
            return "NOT_PROVIDED" if self.choices[0] is NOT_PROVIDED else repr(self.choices[0])
        return repr(self.choices)


class Evaluator:
    """Evaluates runs against judgments read once (ir_measures' ``Evaluator``).

    Parameters
    ----------
    measures : iterable of measures
    qrel_qids : iterable of query ids
        The judged queries: each gets a value of each measure, the measure's
        ``DEFAULT`` (0) when the run does not hold it.
    """

    def __init__(self, measures: Iterable[Measure], qrel_qids: Iterable[AnyType]) -> None:
        self.measures = measures
        self.qrel_qids = qrel_qids

    def iter_calc(self, run: AnyType) -> Iterator[Metric]:
        """Yield the per-query values (``Metric`` rows) of *run*."""
        expected = set(itertools.product(self.measures, self.qrel_qids))
        for metric in self._iter_calc(run):
            expected.discard((metric.measure, metric.query_id))
            yield metric
        for measure, query_id in sorted(expected, key=lambda pair: (str(pair[0]), pair[1])):
            yield Metric(query_id=query_id, measure=measure, value=measure.DEFAULT)

    def _iter_calc(self, run: AnyType) -> Iterator[Metric]:
        raise NotImplementedError

    def calc_aggregate(self, run: AnyType) -> dict[AnyType, float]:
        """``{measure: aggregate value}`` of *run*."""
        aggregators = {m: m.aggregator() for m in self.measures}
        for metric in self.iter_calc(run):
            aggregators[metric.measure].add(metric.value)
        return {m: agg.result() for m, agg in aggregators.items()}

    def calc(self, run: AnyType) -> CalcResults:
        """``CalcResults(aggregated, per_query)`` of *run*."""
        aggregators = {m: m.aggregator() for m in self.measures}
        metrics = []
        for metric in self.iter_calc(run):
            aggregators[metric.measure].add(metric.value)
            metrics.append(metric)
        return CalcResults({m: agg.result() for m, agg in aggregators.items()}, metrics)


class Provider:
    """A source of measure values (ir_measures' ``Provider``).

    Examples
    --------
    >>> from rankwise.compat import ir_measures
    >>> ir_measures.pytrec_eval.supports(ir_measures.nDCG@10), ir_measures.gdeval.NAME
    (True, 'gdeval')
    >>> ir_measures.judged.calc_aggregate([ir_measures.Judged@2], {"q": {"a": 0}},
    ...                                   {"q": {"a": 1.0, "b": 2.0}})
    {Judged@2: 0.5}
    """

    NAME: str = "provider"
    SUPPORTED_MEASURES: list[Measure] = []  # noqa: RUF012 - ir_measures' attribute

    def __init__(self) -> None:
        self._is_available: bool | None = None

    def _check_available(self) -> None:
        if not self.is_available():
            instructions = self.install_instructions()
            more = f" To install:\n  {instructions}" if instructions else ""
            raise RuntimeError(f"Provider {self.NAME} is not available.{more}")

    def evaluator(self, measures: Iterable[Measure], qrels: AnyType) -> Evaluator:
        """An evaluator of *measures* against *qrels*, for one run or many."""
        self._check_available()
        return self._evaluator(measures, qrels)

    @contextlib.contextmanager
    def calc_ctxt(self, measures: Iterable[Measure], qrels: AnyType) -> Iterator[AnyType]:
        """Deprecated: :meth:`evaluator`."""
        warnings.warn("calc_ctxt deprecated in 0.2.0. Please use .evaluator(measures, qrels) "
                      "instead.", DeprecationWarning, stacklevel=3)
        self._check_available()
        evaluator = self._evaluator(measures, qrels)

        def _eval(run: AnyType) -> Iterator[Metric]:
            yield from evaluator.iter_calc(run)

        yield _eval

    def iter_calc(self, measures: Iterable[Measure], qrels: AnyType, run: AnyType
                  ) -> Iterator[Metric]:
        """Yield the per-query values of *measures* for *run*."""
        self._check_available()
        return self._iter_calc(measures, qrels, run)

    def _evaluator(self, measures: Iterable[Measure], qrels: AnyType) -> Evaluator:
        raise NotImplementedError

    def _iter_calc(self, measures: Iterable[Measure], qrels: AnyType, run: AnyType
                   ) -> Iterator[Metric]:
        return self._evaluator(measures, qrels).iter_calc(run)

    def calc_aggregate(self, measures: Iterable[Measure], qrels: AnyType, run: AnyType
                       ) -> dict[AnyType, float]:
        """``{measure: aggregate value}``."""
        return self.evaluator(measures, qrels).calc_aggregate(run)

    def calc(self, measures: Iterable[Measure], qrels: AnyType, run: AnyType) -> CalcResults:
        """``CalcResults(aggregated, per_query)``."""
        return self.evaluator(measures, qrels).calc(run)

    def supports(self, measure: Measure) -> bool:
        """Whether this provider computes *measure* (``AssertionError`` if it is invalid)."""
        measure.validate_params()
        for supported in self.SUPPORTED_MEASURES:
            if supported.NAME == measure.NAME and all(
                    spec.validate(measure[name]) for name, spec in supported.params.items()):
                return True
        return False

    def is_available(self) -> bool:
        """Whether the provider can run here."""
        if self._is_available is None:
            try:
                self.initialize()
                self._is_available = True
            except RuntimeError:
                self._is_available = False
        return self._is_available

    def initialize(self) -> None:
        """Raise ``RuntimeError`` when the provider cannot run."""

    def install_instructions(self) -> str | None:
        """How to make the provider available."""
        return None

    def run_inputs(self, measures: Iterable[Measure]) -> list[str]:
        """The run's columns the measures read."""
        return ["query_id", "doc_id", "score"]

    def qrel_inputs(self, measures: Iterable[Measure]) -> list[str]:
        """The judgments' columns the measures read."""
        return ["query_id", "doc_id", "relevance"]


registry: dict[str, Provider] = {}
"""The providers by name."""


def register(provider: Provider) -> Provider:
    """Add *provider* to :data:`registry` under its ``NAME``."""
    registry[provider.NAME] = provider
    return provider
