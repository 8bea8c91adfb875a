"""The Spark engine: the same measures, on DataFrames that outgrow one machine.

pyspark is imported only inside the functions that need it, and the names
below are loaded when first asked for: importing this package imports
neither pyspark nor numpy (the command line reads the engine's capabilities).

Modules: ``engine`` (:class:`SparkEngine`: its settings, its inputs read and
projected), ``strategies`` (the plan chosen by cost, and its run), ``jvm``
(one pass per partition in rankwise's JVM code computes the ranks of judged
documents, the driver merges queries split across partitions), ``jar``
(that code, ``java/RanksPass.java``, compiled with ``javac`` and cached),
``ranks`` (Spark SQL computes the ranks of judged documents, the driver the
measures), ``partitions`` (the numpy engine on the executors through
``mapInArrow``), ``_assemble`` (driver-side input of the kernels),
``results`` (:class:`SparkResults`), ``paths`` (files for the command line),
``plan`` (the estimates the choice of plan reads), ``executors`` (the
executors checked, rankwise shipped to them), ``_session`` (pyspark and Java
checks, sessions), ``_errors`` (rankwise errors raised inside Spark jobs),
``_private`` (what the JVM is given, written to a private temporary folder
of the process).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rankwise.engines.spark._session import find_java, get_session, require_pyspark
    from rankwise.engines.spark.engine import STRATEGIES, SparkEngine
    from rankwise.engines.spark.executors import check_executors, ship
    from rankwise.engines.spark.paths import read_qrels, read_run
    from rankwise.engines.spark.results import SparkResults

__all__ = [
    "STRATEGIES",
    "SparkEngine",
    "SparkResults",
    "check_executors",
    "find_java",
    "get_session",
    "read_qrels",
    "read_run",
    "require_pyspark",
    "ship",
]

_HOMES = {
    "STRATEGIES": "engine", "SparkEngine": "engine", "SparkResults": "results",
    "check_executors": "executors", "ship": "executors", "find_java": "_session",
    "get_session": "_session", "require_pyspark": "_session", "read_qrels": "paths",
    "read_run": "paths",
}


def __getattr__(name: str) -> Any:
    """The names of :data:`__all__`, each imported from its module when first asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
