"""Test helpers of the Spark engine's ``jvm`` strategy: is a JDK here, runs grouped by query."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pytest


def javac_found() -> bool:
    """Whether the ``jvm`` strategy can build its code here (``auto`` then picks it)."""
    from rankwise.engines.spark.jar import JvmUnavailableError, find_javac

    try:
        find_javac()
    except JvmUnavailableError:
        return False
    return True


needs_javac = pytest.mark.skipif(not javac_found(), reason="no javac: the jvm strategy needs a JDK")


def by_query(table: pa.Table) -> pa.Table:
    """*table*'s rows grouped by query (stable, ids in byte order), as a run file lists them."""
    ids = [str(q).encode() for q in table["query_id"].to_pylist()]
    return table.take(pa.array(np.argsort(np.array(ids, dtype=object), kind="stable")))


def frame_in_order(spark: Any, table: pa.Table, partitions: int) -> Any:
    """*table* as a DataFrame in *partitions* slices, its row order kept (no shuffle)."""
    rows = list(zip(*(table[name].to_pylist() for name in table.column_names)))
    schema = ", ".join(
        f"{name} {'double' if pa.types.is_floating(table[name].type) else 'string'}"
        for name in table.column_names
    )
    return spark.sparkContext.parallelize(rows, partitions).toDF(schema)
