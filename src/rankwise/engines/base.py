"""The ``Engine`` protocol: what an engine declares and does.

An engine computes the measures of one run against judgments and returns
:class:`~rankwise.results.Results`. It declares its name, whether it can run
here and how to install what it needs, and what it can do
(:class:`Capabilities`: the front doors and the command line ask these,
never the engine's name), and refuses, before any work, the measures or
options it does not support. Every engine ends in
:func:`rankwise.engines.core.evaluate_ranking`, so all give the same numbers.

This module imports nothing heavy: the command line reads the capabilities
of every engine to build its options (``rankwise eval --help``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

if TYPE_CHECKING:
    from rankwise._validation import Constraint
    from rankwise.measures import Measure
    from rankwise.options import EvalOptions
    from rankwise.results import Results

__all__ = ["Capabilities", "CommandLine", "Engine", "RecommenderPass", "Setting"]


@dataclass(frozen=True)
class Setting:
    """One setting of an engine that the command line offers (``--spark-master``).

    Attributes
    ----------
    keyword : str
        The keyword of the engine's :meth:`Engine.from_settings` it fills.
    flag : str
        The command line's option.
    help : str
        Its help text.
    metavar : str, optional
        How the help names its value.
    read : Constraint, optional
        How its text is read (None: taken as it is).
    choices : tuple of str
        The values it takes, when they are few; the first is the default.
    repeated : bool
        ``KEY=VALUE``, given as often as needed: the engine gets a dict.

    Examples
    --------
    >>> Setting("master", "--spark-master", "Spark master").default
    >>> Setting("strategy", "--spark-strategy", "how", choices=("auto", "jvm")).default
    'auto'
    """

    keyword: str
    flag: str
    help: str
    metavar: str | None = None
    read: Constraint | None = None
    choices: tuple[str, ...] = ()
    repeated: bool = False

    @property
    def default(self) -> Any:
        """The value when it is not given (nothing, the first choice, or no pairs)."""
        if self.repeated:
            return []
        return self.choices[0] if self.choices else None


@dataclass(frozen=True)
class Capabilities:
    """What an engine can do: the front doors and the command line ask these.

    Attributes
    ----------
    in_process : bool
        It computes in this process on judgments and runs that
        :mod:`rankwise.io` reads (every input form): the front doors may hand
        it :class:`~rankwise.Qrels` and :class:`~rankwise.Run` read once (a
        file in the format given, with progress), the command line reads
        standard input for it and shows the rows of a run it read (``--format
        ndeval``). False: it takes the inputs as they are given and reads
        them itself, where it computes (files by path, its own frames).
    frames : tuple of str
        The top-level modules of the frames it takes itself (Spark:
        ``("pyspark",)``): a front door given such a frame, and no engine,
        chooses this one.
    strategies : tuple of str
        The ways it can compute, the default first (Spark: ``auto``, ``jvm``,
        ``ranks``, ``partitions``); empty when it has one.
    settings : tuple of Setting
        What the command line offers to set up the engine (Spark: master,
        settings, strategy, partitions).
    recommenders : str
        Its recommender capability: it evaluates recommendations on its own
        frames. ``"module:name"`` of its :class:`RecommenderPass` (Spark:
        ``"rankwise.recommenders.spark:SPARK_PASS"``), which the recommender
        front doors (:func:`rankwise.evaluate_recommendations`,
        :func:`rankwise.compare_recommendations`) load and hand the whole
        evaluation; the pass reads the recommender inputs, so it lives at
        their layer, above the engines. Empty: they evaluate in this process
        and ask the engine for the accuracy measures only.
    rankings : bool
        It computes in this process with :mod:`rankwise.engines.core`: a
        front door that ranks on its own (the recommenders' integer codes)
        may hand the core its ranking (``evaluate_ranking``) instead of a
        judgments and a run to read and rank.
    title : str
        How messages name it (``"Spark"``); by default its name.
    summary : str
        What the help of ``--engine`` says of it.

    Examples
    --------
    >>> Capabilities().in_process, Capabilities(in_process=False, frames=("pyspark",)).frames
    (True, ('pyspark',))
    """

    in_process: bool = True
    frames: tuple[str, ...] = ()
    strategies: tuple[str, ...] = ()
    settings: tuple[Setting, ...] = ()
    recommenders: str = ""
    rankings: bool = False
    title: str = ""
    summary: str = ""

    def takes_frame(self, obj: Any) -> bool:
        """Whether *obj* is one of the frames the engine takes itself.

        Examples
        --------
        >>> Capabilities(frames=("collections",)).takes_frame(__import__("collections").deque())
        True
        >>> Capabilities().takes_frame({"q1": {"d1": 1.0}})
        False
        """
        return bool(self.frames) and type(obj).__module__.partition(".")[0] in self.frames


@dataclass(frozen=True)
class CommandLine:
    """What the command line tells an engine it sets up, besides the engine's own settings.

    Attributes
    ----------
    quiet, debug : bool
        ``--quiet`` (errors only) and ``--debug`` (the engine's own logging).
    terminal : bool
        Standard error is a terminal (progress may be shown).
    qrels_format, run_format : str, optional
        The formats given for the files (``--qrels-format``, ``--run-format``).
    """

    quiet: bool = False
    debug: bool = False
    terminal: bool = False
    qrels_format: str | None = None
    run_format: str | None = None


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
    capabilities : Capabilities
        What it can do (a class attribute: read without making an engine).
    """

    name: str
    install: str
    capabilities: ClassVar[Capabilities]

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any], command_line: CommandLine) -> Engine:
        """The engine the command line sets up: its own settings (``capabilities.settings``)."""
        ...

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


@runtime_checkable
class RecommenderPass(Protocol):
    """An engine's recommender capability: the whole evaluation on the engine's own frames.

    Named by :attr:`Capabilities.recommenders` (``"module:name"``, an
    object with these two methods), loaded by the recommender front doors
    when their inputs or ``engine=`` choose the engine.
    """

    def evaluate(self, engine: Engine, held_out: Any, recommendations: Any, measures: Any,
                 **arguments: Any) -> Any:
        """``rankwise.evaluate_recommendations`` on *engine*: a ``RecommenderResults``.

        *arguments* are that function's keywords (``k``, ``exclude``,
        ``train``, ``catalogue``, ``options``, ...), as given.
        """
        ...

    def catalogue(self, held_out: Any, models: Mapping[str, Any], history: Any, *,
                  users: Any = None, columns: Mapping[str, str] | None = None
                  ) -> tuple[Any, int]:
        """One default catalogue for several models, and its size.

        Every item of *held_out*, *history* (the training interactions) and
        each model's recommendations, in a form the pass's ``evaluate`` takes
        as ``catalogue=`` (``rankwise.compare_recommendations`` gives it to
        every model, so their coverage and Gini divide by the same number).
        """
        ...
