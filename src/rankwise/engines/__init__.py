"""Where evaluations run: numpy in this process (the default) or Spark.

``core`` holds what every engine shares once ranks are computed (measures
against options, kernels over a ranking, the tie report, coverage); each
engine lives in its own module or subpackage and imports its heavy
dependency (pyspark) only inside the functions that need it, so importing
:mod:`rankwise` or :mod:`rankwise.engines` stays fast and needs no Spark.

To add an engine: a class following :class:`~rankwise.engines.base.Engine`
in a module of its own (it declares its :class:`~rankwise.engines.base.Capabilities`),
one line in :data:`ENGINES`, and a parity test against the numpy engine
(docs/architecture.md). Nothing outside this package asks an engine's name:
the front doors and the command line ask its capabilities.
"""

from __future__ import annotations

import importlib
from typing import Any, cast

from rankwise._validation import AnyOf, Instance, OneOf, check
from rankwise.engines.base import Capabilities, CommandLine, Engine, RecommenderPass, Setting
from rankwise.exceptions import MissingDependencyError

__all__ = [
    "ENGINES",
    "Capabilities",
    "CommandLine",
    "Engine",
    "RecommenderPass",
    "Setting",
    "engine_class",
    "engine_for",
    "engine_names",
    "get_engine",
]

ENGINES: dict[str, str] = {
    "numpy": "rankwise.engines.numpy:NumpyEngine",
    "spark": "rankwise.engines.spark.engine:SparkEngine",
}
"""Engine name -> ``module:class``; the class is imported only when the engine is used."""

DEFAULT_ENGINE = "numpy"
"""The engine of a front door given no engine and no frame another engine takes."""

_IN_PROCESS_MODULES = frozenset({"builtins", "rankwise", "numpy", "pandas", "polars", "pyarrow",
                                 "pathlib", "collections", "os"})
"""Top-level modules of the inputs rankwise.io reads itself: no other engine is asked."""


def engine_names() -> list[str]:
    """The names of the engines, the default first."""
    return list(ENGINES)


def _constraint() -> AnyOf:
    names = OneOf(tuple(ENGINES))
    return AnyOf(names, Instance(Engine), words=f"{names.expected}, or an Engine")


def engine_class(name: str) -> Any:
    """The class of the engine called *name* (imported, not made: its capabilities are read).

    Examples
    --------
    >>> engine_class("numpy").capabilities.in_process
    True
    """
    check("engine", name, _constraint())
    module, _, attribute = ENGINES[name].partition(":")
    return getattr(importlib.import_module(module), attribute)


def get_engine(engine: str | Engine | Any = DEFAULT_ENGINE, *, require: bool = True) -> Engine:
    """The engine called *engine* (or *engine* itself when it is one).

    Raises
    ------
    InvalidParameterError
        No engine has that name.
    MissingDependencyError
        With *require*, the engine cannot run here (the message says what to install).

    Examples
    --------
    >>> get_engine("numpy").name
    'numpy'
    >>> get_engine("nump")
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InvalidParameterError: engine must be 'numpy' or 'spark', or an Engine, \
got 'nump' (str); did you mean 'numpy'?
    """
    chosen = check("engine", engine, _constraint())
    if not isinstance(chosen, str):
        return cast(Engine, chosen)
    instance: Engine = engine_class(chosen)()
    if require and not instance.available():
        raise MissingDependencyError(f"the {engine} engine needs {instance.install}")
    return instance


def engine_for(engine: str | Engine | None, *inputs: Any) -> tuple[Engine, str]:
    """The engine a front door computes on, and why (for the results' plan).

    *engine* given: that engine. None: the engine that takes one of the
    *inputs* itself (a Spark DataFrame: ``spark``, by
    :attr:`Capabilities.frames`), else :data:`DEFAULT_ENGINE`.

    Examples
    --------
    >>> backend, why = engine_for(None, {"q1": {"d1": 1}}, "run.trec")
    >>> backend.name, why
    ('numpy', '')
    """
    if engine is not None:
        return get_engine(engine), ""
    for obj in inputs:
        module = type(obj).__module__.partition(".")[0]
        if obj is None or module in _IN_PROCESS_MODULES:
            continue
        for name in ENGINES:
            capabilities: Capabilities = engine_class(name).capabilities
            if capabilities.takes_frame(obj):
                title = capabilities.title or name
                return get_engine(name), (f"engine {name}: chosen for the inputs "
                                          f"({type(obj).__name__} is a {title} frame)")
    return get_engine(DEFAULT_ENGINE), ""
