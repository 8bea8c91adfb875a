"""Test helpers of the Spark engine: per-query values against numpy's, a JDK, runs by query."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pytest

import rankwise as rw


def assert_same(got: Any, expected: rw.Results) -> None:
    """Spark results (``per_query``, any row order) equal to numpy's per query, to 1e-12."""
    table = got.per_query.toArrow()
    order = np.argsort([q.encode() for q in table["query_id"].to_pylist()], kind="stable")
    table = table.take(pa.array(order))
    assert table["query_id"].to_pylist() == expected.query_ids
    for name in expected:
        np.testing.assert_allclose(
            table[name].to_numpy(zero_copy_only=False), expected[name], rtol=0, atol=1e-12,
            err_msg=name,
        )


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
