"""rankwise as a provider of the installed ir_measures: :func:`register`, :func:`unregister`.

The provider takes a measure when one of the drop-in's providers does
(:mod:`rankwise.compat.ir_measures._pipeline`): it computes it with the
conventions of ir_measures' provider of that measure (pytrec_eval's for
``nDCG@10``, cwl_eval's for ``INST``, ...). Whatever it cannot take goes on
to ir_measures' own providers: a measure it does not have is not
``supports``-ed, and judgments or a run it cannot read (user-defined
columns, objects it does not know) are evaluated by ir_measures' pipeline
without it. Registering never makes ir_measures worse: an empty run scores 0
for every judged query, as there.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = ["provider", "register", "unregister"]

_PROVIDER: Any = None


def provider() -> Any:
    """The rankwise provider, an ``ir_measures.providers.Provider`` (needs ir_measures).

    Examples
    --------
    >>> import pytest
    >>> real = pytest.importorskip("ir_measures")
    >>> from rankwise.compat import ir_measures
    >>> found = ir_measures.provider()
    >>> found.NAME, found.supports(real.nDCG@10), found.supports(real.SDCG(max_rel=3)@10)
    ('rankwise', True, True)
    """
    global _PROVIDER
    if _PROVIDER is None:
        _PROVIDER = _make_provider()
    return _PROVIDER


def _ours(measure: Any) -> Any:
    """The drop-in's object for an ir_measures measure, None when it has none."""
    from rankwise.compat.ir_measures._util import parse_measure

    if not isinstance(getattr(measure, "NAME", None), str) or hasattr(measure, "runtime_impl"):
        return None
    try:
        return parse_measure(repr(measure))
    except (ValueError, NameError, TypeError, SyntaxError):
        return None


def _materialised(data: Any) -> Any:
    """*data* readable twice (rankwise's attempt, then ir_measures' own if it gives up)."""
    if hasattr(data, "__next__"):
        return list(data)
    return data


def _make_provider() -> Any:
    try:
        import ir_measures as irm
        from ir_measures import providers
    except ImportError as error:
        from rankwise.exceptions import MissingDependencyError

        raise MissingDependencyError(
            "registering rankwise with ir_measures needs ir_measures: pip install ir_measures"
        ) from error
    from rankwise.compat.ir_measures._pipeline import DefaultPipeline, FallbackProvider
    from rankwise.compat.ir_measures._providers import CwlMetric
    from rankwise.exceptions import RankwiseError

    # the measures to the providers in the order of ir_measures' pipeline (set order), so
    # that the rows come as ir_measures' own give them, and as they come for a run rankwise
    # gives back to ir_measures: PyTerrier labels every system's averages with one order
    ours_pipeline = FallbackProvider(DefaultPipeline.providers, set_order=True)

    def fallback(measures: list[Any], qrels: Any) -> Any:
        """ir_measures' own pipeline, without rankwise."""
        others = [p for p in irm.DefaultPipeline.providers if getattr(p, "NAME", "") != "rankwise"]
        return providers.FallbackProvider(others).evaluator(measures, qrels)

    def theirs(row: Any, measure: Any) -> Any:
        if isinstance(row, CwlMetric):
            return irm.CwlMetric(row.query_id, measure, *row[2:])
        return irm.Metric(row.query_id, measure, row.value)

    class RankwiseEvaluator(providers.Evaluator):
        def __init__(self, measures: list[Any], qrels: Any) -> None:
            self._measures = list(measures)
            self._qrels = _materialised(qrels)
            self._back = {_ours(m): m for m in self._measures}
            try:
                self._inner: Any = ours_pipeline.evaluator(list(self._back), self._qrels)
                qids = self._inner.qrel_qids
            except (RankwiseError, ValueError, TypeError, KeyError):
                self._inner = fallback(self._measures, self._qrels)
                qids = self._inner.qrel_qids
            super().__init__(self._measures, qids)

        def _rows(self, run: Any) -> Iterator[Any]:
            if isinstance(self._inner, providers.Evaluator):  # ir_measures' own: rankwise gave up
                yield from self._inner.iter_calc(run)
                return
            run = _materialised(run)
            try:
                rows = list(self._inner.iter_calc(run))
            except (RankwiseError, ValueError, TypeError, KeyError):
                yield from fallback(self._measures, self._qrels).iter_calc(run)
                return
            for row in rows:
                yield theirs(row, self._back[row.measure])

        def _iter_calc(self, run: Any) -> Iterator[Any]:
            return self._rows(run)

    class RankwiseProvider(providers.Provider):
        """rankwise: ir_measures' measures with its providers' conventions, exact and fast."""

        NAME = "rankwise"
        SUPPORTED_MEASURES: list[Any] = []  # noqa: RUF012 - ir_measures' attribute

        def supports(self, measure: Any) -> bool:
            measure.validate_params()
            ours = _ours(measure)
            if ours is None:
                return False
            try:
                return any(p.supports(ours) for p in ours_pipeline.providers
                           if p.NAME != "runtime" and p.is_available())
            except AssertionError:
                return False

        def _evaluator(self, measures: Any, qrels: Any) -> Any:
            return RankwiseEvaluator(list(measures), qrels)

        def install_instructions(self) -> str:
            return "pip install rankwise"

    return RankwiseProvider()


def register(*, default: bool = True) -> Any:
    """Register rankwise with the installed ir_measures; return the provider.

    The provider joins ``ir_measures.providers.registry`` as ``"rankwise"``.
    With *default*, it also goes first in ``ir_measures.DefaultPipeline``
    (after its ``runtime`` provider, of the measures defined in Python):
    then ``ir_measures.calc_aggregate``, ``ir_measures.iter_calc`` and
    PyTerrier's ``pt.Experiment`` compute with rankwise every measure it
    takes (with the conventions of ir_measures' provider of it), and with
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
        # after the runtime provider (measures defined in Python, which rankwise never
        # takes), so that the rows ir_measures adds for missing queries come out the same
        runtime = [i for i, p in enumerate(pipeline) if getattr(p, "NAME", "") == "runtime"]
        pipeline.insert(runtime[0] + 1 if runtime else 0, found)
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
