"""The Spark engine: the same measures, on DataFrames that outgrow one machine.

pyspark is imported only inside the functions that need it; importing this
package does not import pyspark.

Modules: ``engine`` (:func:`evaluate`, the choice of strategy), ``jvm``
(one pass per partition in rankwise's JVM code computes the ranks of judged
documents, the driver merges queries split across partitions), ``jar``
(that code, ``java/RanksPass.java``, compiled with ``javac`` and cached),
``ranks`` (Spark SQL computes the ranks of judged documents, the driver the
measures), ``partitions`` (the numpy engine on the executors through
``mapInArrow``), ``_assemble`` (driver-side input of the kernels),
``results`` (:class:`SparkResults`), ``paths`` (files for the command line),
``plan`` (the choice of plan by cost), ``executors`` (the executors checked,
rankwise shipped to them), ``_session`` (pyspark and Java checks, sessions),
``_errors`` (rankwise errors raised inside Spark jobs), ``_private`` (what the JVM
is given, written to a private temporary folder of the process).
"""

from rankwise.engines.spark._session import find_java, get_session, require_pyspark
from rankwise.engines.spark.engine import (
    STRATEGIES,
    SparkEngine,
    evaluate,
    evaluate_paths,
)
from rankwise.engines.spark.executors import check_executors, ship
from rankwise.engines.spark.paths import read_qrels, read_run
from rankwise.engines.spark.results import SparkResults

__all__ = [
    "STRATEGIES",
    "SparkEngine",
    "SparkResults",
    "check_executors",
    "evaluate",
    "evaluate_paths",
    "find_java",
    "get_session",
    "read_qrels",
    "read_run",
    "require_pyspark",
    "ship",
]
