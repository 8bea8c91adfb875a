"""The providers of the drop-in, and ``DefaultPipeline``: each measure to the first that takes it.

:class:`FallbackProvider` gives each measure to the first of its providers
that supports it (ir_measures' order: runtime, pytrec_eval, cwl_eval,
compat, pyndeval, judged, msmarco, gdeval, accuracy, ranx), and merges their
rows. The providers computed by rankwise read the run once between them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from rankwise.compat.ir_measures._base import Evaluator, Provider, register, registry
from rankwise.compat.ir_measures._measures import _PIPELINE, Measure
from rankwise.compat.ir_measures._providers import (
    AccuracyProvider,
    CompatProvider,
    CwlEvalProvider,
    ExtrasProvider,
    GdevalProvider,
    JudgedProvider,
    MsMarcoProvider,
    PyNdEvalProvider,
    PytrecEvalProvider,
    RankwiseEvaluator,
    RanxProvider,
    TrectoolsProvider,
)
from rankwise.compat.ir_measures._runtime import RuntimeProvider
from rankwise.compat.ir_measures._util import Metric, QrelsConverter

__all__ = ["DefaultPipeline", "FallbackEvaluator", "FallbackProvider"]


def _shareable(data: Any) -> Any:
    """*data* readable more than once: an iterator (a generator of rows) becomes a list."""
    if isinstance(data, (dict, list, tuple)) or hasattr(data, "columns") or isinstance(
            data, str) or not hasattr(data, "__iter__"):
        return data
    if hasattr(data, "__next__"):
        return list(data)
    return data


class FallbackProvider(Provider):
    """Each measure to the first of *providers* that supports it (ir_measures' pipeline)."""

    NAME = "fallback"

    def __init__(self, providers: list[Provider], *, set_order: bool = False) -> None:
        super().__init__()
        self.providers = providers
        self.set_order = set_order

    def _evaluator(self, measures: Iterable[Measure], qrels: Any) -> Evaluator:
        given, pairs, would_support, remaining = self._assign(measures)
        if remaining:
            message = ""
            if would_support:
                message = (" The following providers would support this measure:"
                           if len(remaining) == 1 else
                           " The following providers would support at least one of these "
                           "measures:")
                for provider in would_support:
                    instructions = provider.install_instructions()
                    message += (f"\n - {provider.NAME} ({instructions})" if instructions
                                else f"\n - {provider.NAME}")
            raise ValueError(f"Unsupported measures {set(remaining)}.{message}")
        qrels = _shareable(qrels)
        parts = QrelsConverter(qrels).tee(len(pairs))
        evaluators = [provider.evaluator(taken, part.data)
                      for (provider, taken), part in zip(pairs, parts)]
        if len(evaluators) == 1:
            return evaluators[0]
        return FallbackEvaluator(given, evaluators)

    def _assign(self, measures: Iterable[Measure]) -> tuple[
            list[Measure], list[tuple[Provider, list[Measure]]], list[Provider], list[Measure]]:
        """The measures, each provider's, those of providers not available, and the rest.

        In the order given, or with *set_order* in ir_measures' order: the
        measures as a ``set``, each provider's a set built by going through
        it (a measure hashes as its repr, ir_measures' measures too: in one
        process, the order of ir_measures' own pipeline given the same list).
        """
        collect: Any = set if self.set_order else (lambda found: list(dict.fromkeys(found)))
        remaining = collect(measures)
        given = list(remaining)
        pairs: list[tuple[Provider, list[Measure]]] = []
        would_support: list[Provider] = []
        for provider in self.providers:
            taken = collect(m for m in remaining if provider.supports(m))
            if not taken:
                continue
            if not provider.is_available():
                would_support.append(provider)
                continue
            remaining = (remaining - taken if self.set_order
                         else [m for m in remaining if m not in taken])
            pairs.append((provider, list(taken)))
            if not remaining:
                break
        return given, pairs, would_support, list(remaining)

    def supports(self, measure: Measure) -> bool:
        return any(p.is_available() and p.supports(measure) for p in self.providers)

    def run_inputs(self, measures: Iterable[Measure]) -> list[str]:
        return self._inputs(measures, "run_inputs")

    def qrel_inputs(self, measures: Iterable[Measure]) -> list[str]:
        return self._inputs(measures, "qrel_inputs")

    def _inputs(self, measures: Iterable[Measure], which: str) -> list[str]:
        inputs: set[str] = set()
        remaining = list(measures)
        for provider in self.providers:
            if provider.is_available():
                taken = {m for m in remaining if provider.supports(m)}
                if taken:
                    inputs.update(getattr(provider, which)(taken))
                remaining = [m for m in remaining if m not in taken]
        return list(inputs)


class FallbackEvaluator(Evaluator):
    """The rows of several providers' evaluators, one after the other."""

    def __init__(self, measures: list[Measure], evaluators: list[Evaluator]) -> None:
        super().__init__(measures, evaluators[0].qrel_qids)
        self.evaluators = evaluators

    def _runs(self, run: Any) -> Iterator[tuple[Evaluator, Any]]:
        from rankwise.compat.ir_measures._compute import RunData

        run = _shareable(run)
        shared: list[RunData] = []
        for evaluator in self.evaluators:
            if isinstance(evaluator, RankwiseEvaluator):
                if not shared:
                    shared.append(RunData(run))
                yield evaluator, shared[0]
            else:
                yield evaluator, run

    def _iter_calc(self, run: Any) -> Iterator[Metric]:
        for evaluator, data in self._runs(run):
            yield from evaluator.iter_calc(data)

    def calc_aggregate(self, run: Any) -> dict[Any, float]:
        same = {frozenset(e.qrel_qids) for e in self.evaluators}
        if len(same) > 1 or not all(isinstance(e, RankwiseEvaluator) and e.defaults
                                    for e in self.evaluators):
            return super().calc_aggregate(run)
        out: dict[Any, float] = {}
        for evaluator, data in self._runs(run):
            out.update(evaluator.calc_aggregate(data))
        return {m: out[m] for m in self.measures}


runtime = register(RuntimeProvider())
pytrec_eval = register(PytrecEvalProvider())
cwl_eval = register(CwlEvalProvider())
compat = register(CompatProvider())
pyndeval = register(PyNdEvalProvider())
judged = register(JudgedProvider())
msmarco = register(MsMarcoProvider())
gdeval = register(GdevalProvider())
accuracy = register(AccuracyProvider())
ranx = register(RanxProvider())
trectools = register(TrectoolsProvider())
rankwise = register(ExtrasProvider())

DefaultPipeline = FallbackProvider([runtime, pytrec_eval, cwl_eval, compat, pyndeval, judged,
                                    msmarco, gdeval, accuracy, ranx, rankwise])
"""ir_measures' default pipeline, its providers computed by rankwise (and, last, what
rankwise computes beyond them)."""
_PIPELINE[:] = [DefaultPipeline]

del registry
