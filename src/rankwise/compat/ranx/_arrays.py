"""ranx's low-level form: per query, an array of ``[doc_id, value]`` rows, as tables.

ranx's ``evaluate`` and its metric functions also take the judgments and the
run as sequences (numba typed lists, lists, 3-d arrays) of ``(n, 2)`` arrays:
document ids as numbers, then grades or scores; the i-th judgments go with
the i-th ranking, whose rows are taken in the order given (ranx does not sort
them). Two differences, where ranx's arrays are not what its ``Qrels`` and
``Run`` ever hold: a document listed twice in a ranking counts once (its
later copies are unjudged documents; ranx counts each copy), and a document
judged twice for a query keeps its first grade (ranx keeps it too, but counts
both in R).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankwise._wording import counted
from rankwise.compat.ranx._table import Table
from rankwise.exceptions import InputFormatError

__all__ = ["array_tables"]


def _listed(value: Any, what: str) -> list[np.ndarray]:
    try:
        arrays = [np.asarray(item, dtype=np.float64) for item in value]
    except (TypeError, ValueError):
        raise InputFormatError(
            f"{what} must be Qrels/Run, a dict, or a sequence of (n, 2) arrays of "
            f"[doc_id, value] rows per query, got {type(value).__name__}") from None
    for i, array in enumerate(arrays):
        if array.size and (array.ndim != 2 or array.shape[1] != 2):
            raise InputFormatError(
                f"{what}[{i}] must be an (n, 2) array of [doc_id, value] rows, got shape "
                f"{array.shape}")
    return [array.reshape(-1, 2) for array in arrays]


def _table(arrays: list[np.ndarray], keep_first: bool) -> Table:
    import pyarrow as pa
    import pyarrow.compute as pc

    lengths = np.array([len(array) for array in arrays], dtype=np.int64)
    rows = np.concatenate(arrays) if arrays else np.zeros((0, 2))
    codes = np.repeat(np.arange(len(arrays), dtype=np.int32), lengths)
    bits = (rows[:, 0] + 0.0).view(np.int64)  # -0.0 is 0.0, as ranx compares them
    _, first = np.unique(np.column_stack((codes, bits)), axis=0, return_index=True)
    again = np.ones(len(rows), dtype=bool)
    again[first] = False
    docs = pa.array(bits).cast(pa.string())
    values = rows[:, 1]
    if again.any() and keep_first:  # a document judged twice: its first grade
        kept = np.flatnonzero(~again)
        codes, docs, values = codes[kept], docs.take(pa.array(kept)), values[kept]
    elif again.any():  # listed twice: the later copies are unjudged documents
        copies = pa.array([f"~{row}" for row in np.flatnonzero(again).tolist()], pa.string())
        positions = np.cumsum(again) - 1
        docs = pc.if_else(pa.array(again), copies.take(pa.array(np.maximum(positions, 0))),
                          docs)
    return Table.from_columns(list(range(len(arrays))), codes, docs, values)


def array_tables(qrels: Any, run: Any) -> tuple[Table, Table]:
    """The judgments and the ranking of ranx's arrays, queries paired by position.

    Raises
    ------
    InputFormatError
        Not (n, 2) arrays, or not as many rankings as judgments.
    """
    judged, ranked = _listed(qrels, "qrels"), _listed(run, "run")
    if len(judged) != len(ranked):
        raise InputFormatError(
            f"qrels hold {counted(len(judged), 'query')} and run {len(ranked)}: "
            "ranx pairs the i-th judgments with the i-th ranking")
    return _table(judged, keep_first=True), _table(ranked, keep_first=False)
