"""Item-vector measures on Spark: the numpy kernels inside Arrow groups.

Each list row is joined with its item's vector (the features given, or the
item's training users for co-occurrence), the rows are hashed by user into
buckets, and each bucket (whole users) goes through the numpy kernel in
``groupBy().applyInArrow``: :func:`rankwise.recommenders.beyond.ild` for
ILD; for the Recommenders' serendipity the user's training rows join the
bucket too, with their vectors, and
:func:`rankwise.recommenders.beyond.history_serendipity` compares each
listed item with them. The numpy path's arithmetic, user by user. Local
features are read exactly
as the numpy path reads them (the same errors, zero vectors for items
without features, the last vector of an item given twice); a Spark
DataFrame of features is collected first (one row per item).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise.exceptions import InputFormatError, InvalidParameterError

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["cooccurrence_frame", "features_frame", "history_serendipity_frame",
           "ild_frame"]

USER, ITEM, POS = "_u", "_i", "_pos"
_USERS_PER_BUCKET = 20_000


def features_frame(spark: SparkSession, features: Any, columns: Mapping[str, str] | None,
                   item_type: Any) -> tuple[DataFrame, int | None]:
    """``_i`` (item id as text) and its vector: ``_f`` (dense) or ``_fi, _fv`` (sparse).

    Returns the frame and the width of dense vectors (None: sparse).

    Examples
    --------
    >>> frame, width = features_frame(spark, {"a": [1.0, 0.0]}, None, item_type)  # doctest: +SKIP
    """
    import pyarrow as pa

    from rankwise.recommenders.evaluation import _features, _place
    from rankwise.recommenders.inputs import Vocabulary

    if type(features).__name__ == "DataFrame" and \
            type(features).__module__.startswith("pyspark"):
        features = features.toArrow()
    vocab = Vocabulary("item")
    codes, matrix = _features(features, vocab, columns)
    labels = vocab.labels()
    numeric = item_type.typeName() in ("integer", "long", "short", "byte")
    if len(labels) and pa.types.is_integer(labels.type) != numeric:
        given = "int64" if numeric else "string"
        raise InputFormatError(
            f"item ids are {given} in one input and {labels.type} in another; give them "
            "one type (for example cast both to str)")
    placed = _place(codes, matrix, len(vocab))
    ids = labels.cast(pa.string())
    if hasattr(placed, "tocsr"):
        csr = placed.tocsr()
        offsets = pa.array(csr.indptr.astype(np.int32))
        table = pa.table({
            ITEM: ids,
            "_fi": pa.ListArray.from_arrays(offsets, pa.array(csr.indices.astype(np.int64))),
            "_fv": pa.ListArray.from_arrays(offsets, pa.array(csr.data.astype(np.float64)))})
        return spark.createDataFrame(table), None
    width = int(placed.shape[1])
    offsets = pa.array(np.arange(0, (len(ids) + 1) * width, max(width, 1))[:len(ids) + 1]
                       .astype(np.int32) if width else np.zeros(len(ids) + 1, np.int32))
    table = pa.table({ITEM: ids, "_f": pa.ListArray.from_arrays(
        offsets, pa.array(np.ascontiguousarray(placed).reshape(-1)))})
    return spark.createDataFrame(table), width


def cooccurrence_frame(history: DataFrame) -> DataFrame:
    """``_i, _fi, _fv``: each training item as a binary vector over its training users."""
    from pyspark.sql import functions as sf

    return history.groupBy(ITEM).agg(sf.collect_list(USER).alias("_fi")).withColumn(
        "_fv", sf.transform("_fi", lambda _: sf.lit(1.0)))


def ild_frame(cut: DataFrame, vectors: DataFrame, width: int | None, n_users: int
              ) -> DataFrame:
    """``_u, _value``: ILD per user with at least 2 items (others: no row)."""
    from pyspark.sql import functions as sf

    rows = cut.select(USER, ITEM, POS).join(vectors, ITEM, "left").withColumn(
        "_b", sf.pmod(sf.xxhash64(USER), sf.lit(_buckets(cut.sparkSession, n_users))))
    def body(table):  # no hints: pyspark would read them
        return _ild_group(table, width=width)

    return rows.groupBy("_b").applyInArrow(body, f"{USER} string, _value double")


def _buckets(spark: SparkSession, n_users: int) -> int:
    """How many groups of whole users: about _USERS_PER_BUCKET each, at least one per core."""
    return max(1, min(n_users, max(math.ceil(n_users / _USERS_PER_BUCKET),
                                   spark.sparkContext.defaultParallelism)))


def history_serendipity_frame(cut: DataFrame, history: DataFrame, truth: DataFrame,
                              vectors: DataFrame, width: int | None, n_users: int
                              ) -> DataFrame:
    """``_u, _value``: the Recommenders' serendipity per user with a training history.

    Each list row carries its relevance (1 when the pair is in *truth*, as
    numpy's ``contains``), the user's training rows (*history*, one per
    pair) come along with ``_h`` set; both are joined with the items'
    vectors and go, user by user, through
    :func:`rankwise.recommenders.beyond.history_serendipity`. Users with no
    training row get no row (numpy's NaN).

    Examples
    --------
    >>> history_serendipity_frame(cut, history, truth, *features, 100)  # doctest: +SKIP
    DataFrame[_u: string, _value: double]
    """
    from pyspark.sql import functions as sf

    spark = cut.sparkSession
    relevant = truth.select(USER, ITEM).distinct().withColumn("_rel", sf.lit(1.0))
    listed = cut.select(USER, ITEM, POS).join(relevant, [USER, ITEM], "left").select(
        USER, ITEM, sf.col(POS).cast("long").alias(POS),
        sf.coalesce(sf.col("_rel"), sf.lit(0.0)).alias("_rel"), sf.lit(False).alias("_h"))
    seen = history.select(USER, ITEM).join(cut.select(USER).distinct(), USER, "left_semi") \
        .select(USER, ITEM, sf.lit(None).cast("long").alias(POS),
                sf.lit(None).cast("double").alias("_rel"), sf.lit(True).alias("_h"))
    rows = listed.unionByName(seen).join(vectors, ITEM, "left").withColumn(
        "_b", sf.pmod(sf.xxhash64(USER), sf.lit(_buckets(spark, n_users))))

    def body(table):  # no hints: pyspark would read them
        return _history_serendipity_group(table, width=width)

    return rows.groupBy("_b").applyInArrow(body, f"{USER} string, _value double")


def _matrix(table: pa.Table, width: int | None) -> Any:
    """The rows' vectors: a dense array (nulls: zeros) or a CSR matrix (nulls: empty)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = table.num_rows
    if width is not None:
        column = table["_f"].combine_chunks()
        out = np.zeros((n, width))
        present = ~np.asarray(column.is_null().to_numpy(zero_copy_only=False), dtype=bool)
        if present.any() and width:
            values = pc.list_flatten(column.filter(pa.array(present)))
            out[present] = np.asarray(values.to_numpy(zero_copy_only=False),
                                      dtype=np.float64).reshape(-1, width)
        return out
    from scipy import sparse

    index = table["_fi"].combine_chunks()
    lengths = np.asarray(pc.list_value_length(index).fill_null(0).to_numpy(
        zero_copy_only=False), dtype=np.int64)
    flat = pc.list_flatten(index)
    if pa.types.is_string(flat.type) or pa.types.is_large_string(flat.type):
        flat = pc.dictionary_encode(flat).indices
    cols = np.asarray(flat.to_numpy(zero_copy_only=False), dtype=np.int64)
    if len(cols):
        _, cols = np.unique(cols, return_inverse=True)
    data = np.asarray(pc.list_flatten(table["_fv"].combine_chunks()).to_numpy(
        zero_copy_only=False), dtype=np.float64)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    return sparse.csr_matrix((data, cols.reshape(-1), indptr),
                             shape=(n, int(cols.max()) + 1 if len(cols) else 1))


def _ild_group(table: pa.Table, *, width: int | None) -> pa.Table:
    """``applyInArrow`` body: the rows of whole users in, ILD per user out."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from rankwise.recommenders.beyond import ild
    from rankwise.recommenders.inputs import Lists

    encoded = pc.dictionary_encode(table[USER].combine_chunks())
    codes = np.asarray(encoded.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    positions = np.asarray(table[POS].to_numpy(), dtype=np.int64)
    order = np.lexsort((positions, codes))
    matrix = _matrix(table, width)
    rows = matrix[order]
    lists = Lists.from_rows(codes[order], np.arange(len(order)))
    values = ild(lists, rows, len(encoded.dictionary))
    keep = ~np.isnan(values)
    return pa.table({USER: encoded.dictionary.filter(pa.array(keep)),
                     "_value": pa.array(values[keep], pa.float64())})


def _history_serendipity_group(table: pa.Table, *, width: int | None) -> pa.Table:
    """``applyInArrow`` body: list and training rows of whole users in, serendipity out."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from rankwise.recommenders.beyond import history_serendipity
    from rankwise.recommenders.inputs import Interactions, Lists

    encoded = pc.dictionary_encode(table[USER].combine_chunks())
    codes = np.asarray(encoded.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    trained = np.asarray(table["_h"].to_numpy(), dtype=bool)
    matrix = _matrix(table, width)  # the rows' vectors: items are row numbers
    listed, seen = np.flatnonzero(~trained), np.flatnonzero(trained)
    relevance = np.asarray(table["_rel"].to_numpy(zero_copy_only=False), dtype=np.float64)
    lists = Lists.from_rows(codes[listed], listed)
    history = Interactions(codes[seen], seen, np.ones(len(seen)),
                           np.ones(len(seen), dtype=np.int64))
    values = history_serendipity(lists, history, matrix, relevance[listed],
                                 len(encoded.dictionary))[1]
    keep = ~np.isnan(values)
    return pa.table({USER: encoded.dictionary.filter(pa.array(keep)),
                     "_value": pa.array(values[keep], pa.float64())})


def need_vectors(features: Any, history: Any) -> None:
    """The numpy path's error when there is nothing to compare items by."""
    if features is None and history is None:
        raise InvalidParameterError(
            "ild and serendipity(dialect=recommenders) need features= (item vectors) or "
            "train= (items compared by co-occurrence)")
