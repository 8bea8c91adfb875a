"""The plan of an evaluation: the engine, the measures, and how the inputs reach it.

A front door checks its options, makes one :class:`EvaluationPlan` and
hands it the inputs; the plan's engine computes. The plan asks the engine
its :class:`~rankwise.engines.base.Capabilities`, never its name: an engine
that computes in this process is handed judgments and runs read once here
(:func:`rankwise.io.as_qrels`, :func:`rankwise.io.as_run`: a file in the
format given, while ``reading(path)`` shows progress), one that reads its
inputs itself gets them as they were given.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rankwise._wording import counted
from rankwise.exceptions import InvalidParameterError

if TYPE_CHECKING:
    from rankwise.engines.base import Engine
    from rankwise.measures import Measure
    from rankwise.options import EvalOptions
    from rankwise.results import Results

__all__ = ["EvaluationPlan", "Reading", "refuse_disjoint", "source_of"]

Reading = Callable[[str], AbstractContextManager[Any]]
"""``reading(path)``: a context manager entered while a file is read (progress)."""


def source_of(obj: Any) -> str | None:
    """The path an input came from (for naming and messages), when it has one.

    Examples
    --------
    >>> source_of("runs/bm25.run"), source_of({"q1": {"d1": 1.0}})
    ('runs/bm25.run', None)
    """
    if isinstance(obj, (str, os.PathLike)):
        return os.fspath(obj)
    source = getattr(obj, "source", None)
    return source if isinstance(source, str) and not source.startswith("<") else None


@dataclass(frozen=True)
class EvaluationPlan:
    """How an evaluation runs: its engine (and why), its measures and options, its reading.

    Attributes
    ----------
    engine : Engine
        Where it computes.
    measures : list of Measure
        Parsed, the options' ``rel`` applied, checked by the engine.
    options : EvalOptions
        The options that change the numbers.
    chosen_by : str
        Why the engine, when the inputs chose it (a Spark DataFrame): said
        first in the results' ``plan``.
    qrels_format, run_format : str, optional
        The format of files given by path.
    reading : callable, optional
        Shows progress while a file is read in this process.
    """

    engine: Engine
    measures: list[Measure]
    options: EvalOptions
    chosen_by: str = ""
    qrels_format: str | None = None
    run_format: str | None = None
    reading: Reading | None = None

    @classmethod
    def make(cls, engine: str | Engine | None, measures: str | Measure | Iterable[str | Measure],
             options: EvalOptions, inputs: Iterable[Any] = (), **reading: Any) -> EvaluationPlan:
        """The plan: the engine asked for (or the one the *inputs* call for), measures checked.

        Raises
        ------
        InvalidParameterError, MissingDependencyError
            An unknown engine, or one that cannot run here.
        MeasureSyntaxError, UnknownMeasureError, UnsupportedMeasureError
            A measure that cannot be parsed, or that the engine cannot compute.

        Examples
        --------
        >>> from rankwise.options import EvalOptions
        >>> plan = EvaluationPlan.make(None, ["P@10", "map"], EvalOptions(rel=2))
        >>> plan.engine.name, [str(m) for m in plan.measures]
        ('numpy', ['P@10(rel=2)', 'map(rel=2)'])
        """
        from rankwise.engines import engine_for
        from rankwise.engines.core import prepare_measures

        backend, why = engine_for(engine, *inputs)
        parsed = prepare_measures(measures, options)
        backend.check(parsed, options)
        return cls(backend, parsed, options, why, **reading)

    def _read(self, obj: Any) -> AbstractContextManager[Any]:
        path = obj if isinstance(obj, (str, os.PathLike)) else None
        if self.reading is None or path is None:
            return contextlib.nullcontext()
        return self.reading(os.fspath(path))

    def judgments(self, qrels: Any) -> Any:
        """The judgments as the engine takes them: read once here, or as given."""
        if not self.engine.capabilities.in_process:
            return qrels
        from rankwise.io.coerce import as_qrels

        with self._read(qrels):
            return as_qrels(qrels, fmt=self.qrels_format, columns=self.options.columns)

    def run(self, obj: Any, name: str | None, position: int) -> Any:
        """Run *position* of a list or dict as the engine takes it: read here, or as given."""
        if not self.engine.capabilities.in_process:
            return obj
        from rankwise.data import Run
        from rankwise.io.coerce import as_run

        if name is None and not isinstance(obj, (str, os.PathLike, Run)):
            raise InvalidParameterError(
                f"runs[{position}] is a {type(obj).__name__}, which has no name; "
                "pass a dict {name: run} instead of a list"
            )
        with self._read(obj):
            return as_run(obj, fmt=self.run_format, name=name, keep_rank=self.options.by_rank,
                          columns=self.options.columns)

    def evaluate(self, qrels: Any, run: Any, *, name: str | None = None) -> Results:
        """The engine's results of *run* against *qrels*; the plan says why the engine."""
        results = self.engine.evaluate(qrels, run, self.measures, self.options, name=name)
        if self.chosen_by:
            results.plan = f"{self.chosen_by}; {results.plan}" if results.plan else self.chosen_by
        return results


def refuse_disjoint(results: Results, qrels: Any, run: Any, label: str) -> None:
    """Raise when a run and the judgments have no query in common (usually the wrong file).

    *label* names the run (its name, and its path when that says more).
    """
    if results.n_queries or not results.unjudged_queries:
        return
    judged = getattr(qrels, "query_ids", None)
    retrieved = getattr(run, "query_ids", None)
    detail = ""
    if judged is not None and retrieved is not None:
        detail = (f" (run: {counted(len(retrieved), 'query')}, e.g. "
                  f"{list(retrieved[:3])}; judgments: {counted(len(judged), 'query')}, "
                  f"e.g. {list(judged[:3])})")
    raise InvalidParameterError(f"run {label} and the judgments have no query in common{detail}")
