"""Where evaluations run: numpy in this process (the default) or Spark.

``core`` holds what every engine shares once ranks are computed (measures
against options, kernels over a ranking, the tie report, coverage); each
engine lives in its own module or subpackage and imports its heavy
dependency (pyspark) only inside the functions that need it, so importing
:mod:`rankwise` or :mod:`rankwise.engines` stays fast and needs no Spark.

To add an engine: a class following :class:`~rankwise.engines.base.Engine`
in a module of its own, one line in :data:`ENGINES`, and a parity test
against the numpy engine (docs/architecture.md).
"""

from __future__ import annotations

import importlib
from typing import Any, cast

from rankwise._validation import AnyOf, Instance, OneOf, check
from rankwise.engines.base import Engine
from rankwise.exceptions import MissingDependencyError

__all__ = ["ENGINES", "Engine", "engine_names", "get_engine"]

ENGINES: dict[str, str] = {
    "numpy": "rankwise.engines.numpy:NumpyEngine",
    "spark": "rankwise.engines.spark.engine:SparkEngine",
}
"""Engine name -> ``module:class``; the class is imported only when the engine is used."""


def engine_names() -> list[str]:
    """The names of the engines, the default first."""
    return list(ENGINES)


def get_engine(engine: str | Engine | Any = "numpy", *, require: bool = True) -> Engine:
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
    chosen = check("engine", engine, AnyOf(OneOf(tuple(ENGINES)), Instance(Engine),
                                           words=f"{OneOf(tuple(ENGINES)).expected}, or an Engine"))
    if not isinstance(chosen, str):
        return cast(Engine, chosen)
    module, _, name = ENGINES[chosen].partition(":")
    instance: Engine = getattr(importlib.import_module(module), name)()
    if require and not instance.available():
        raise MissingDependencyError(f"the {engine} engine needs {instance.install}")
    return instance
