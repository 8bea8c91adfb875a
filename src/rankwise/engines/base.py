"""The ``Engine`` protocol: what an engine declares and does.

An engine computes the measures of one run against judgments and returns
:class:`~rankwise.results.Results`. It declares its name, whether it can run
here and how to install what it needs, and refuses, before any work, the
measures or options it does not support. Every engine ends in
:func:`rankwise.engines.core.evaluate_ranking`, so all give the same numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from rankwise.measures import Measure
    from rankwise.options import EvalOptions
    from rankwise.results import Results

__all__ = ["Engine"]


@runtime_checkable
class Engine(Protocol):
    """An engine: ``numpy`` (this process) or ``spark``, or any that follows this protocol.

    Attributes
    ----------
    name : str
        The name ``evaluate(..., engine=name)`` and ``--engine`` take.
    install : str
        How to install what it needs (``pip install 'rankwise[spark]'``), or
        ``""`` when it needs nothing more.
    """

    name: str
    install: str

    def available(self) -> bool:
        """Whether what the engine needs is installed."""
        ...

    def check(self, measures: Sequence[Measure], options: EvalOptions) -> None:
        """Raise ``UnsupportedMeasureError`` for a measure or option it cannot compute."""
        ...

    def evaluate(
        self,
        qrels: Any,
        run: Any,
        measures: Sequence[Measure],
        options: EvalOptions,
        *,
        name: str | None = None,
    ) -> Results:
        """Evaluate *run* against *qrels* (in the input forms the engine reads)."""
        ...
