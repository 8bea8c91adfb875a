"""Toy engines for tests/engines/test_new_engine.py: what a new engine writes, and nothing more.

Each is a class following :class:`rankwise.engines.Engine` in a module of its
own (this one, outside the package); registering it is one line in
``rankwise.engines.ENGINES``, which the test makes in a temporary registry.
They compute through the numpy engine, so their numbers are known, and note
every call, so a test can tell that the front door reached them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from rankwise._validation import Integer
from rankwise.engines import Capabilities, CommandLine, Setting
from rankwise.engines.numpy import NumpyEngine

CALLS: list[tuple[str, str, Any, Any]] = []
"""Each evaluation a toy engine made: (engine, run name, qrels as given, run as given)."""


class ToyEngine:
    """Computes in this process on the judgments and runs rankwise.io reads (as numpy does)."""

    name = "toy"
    install = ""
    capabilities: ClassVar[Capabilities] = Capabilities(
        in_process=True, title="Toy", summary="a toy engine (tests)",
        settings=(Setting("depth_hint", "--toy-depth-hint", metavar="N",
                          read=Integer(low=1, text=True), help="a setting of the toy engine"),),
    )

    def __init__(self, depth_hint: int | None = None) -> None:
        self.depth_hint = depth_hint

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any], command_line: CommandLine) -> ToyEngine:
        return cls(**settings)

    def available(self) -> bool:
        return True

    def check(self, measures: Sequence[Any], options: Any) -> None:
        NumpyEngine().check(measures, options)

    def evaluate(self, qrels: Any, run: Any, measures: Sequence[Any], options: Any, *,
                 name: str | None = None) -> Any:
        CALLS.append((self.name, name or "", qrels, run))
        return NumpyEngine().evaluate(qrels, run, measures, options, name=name)


class ToyFrame:
    """A frame only the frame toy takes (as a Spark DataFrame is only Spark's)."""

    def __init__(self, data: dict[str, dict[str, float]]) -> None:
        self.data = data


class FrameToyEngine(ToyEngine):
    """Reads its inputs itself, where it computes: paths by path, and its own frames."""

    name = "frametoy"
    capabilities: ClassVar[Capabilities] = Capabilities(
        in_process=False, frames=("toy_engine",), title="Frame toy",
        summary="a toy engine that reads its own inputs (tests)",
    )

    def evaluate(self, qrels: Any, run: Any, measures: Sequence[Any], options: Any, *,
                 name: str | None = None) -> Any:
        CALLS.append((self.name, name or "", qrels, run))
        qrels, run = (item.data if isinstance(item, ToyFrame) else item for item in (qrels, run))
        results = NumpyEngine().evaluate(qrels, run, measures, options, name=name)
        results.plan = "frametoy: one pass"
        return results
