"""The one result protocol: every result type is a table, and the rest follows.

A result (``Results``, ``Comparison``, ``Explanation``, the study designs,
the agreements, ...) gives one :meth:`Tabular.table` (a
:class:`rankwise.report.tables.Table`: a header, the kind of each column, the
rows) and a one-line :meth:`Tabular._caption`; this mixin derives from them

- :meth:`~Tabular.to_table`: the table in the seven text formats
  (``table``, ``tsv``, ``csv``, ``json``, ``jsonl``, ``markdown``, ``latex``);
- :meth:`~Tabular.to_dict`: the result as plain values (a dataclass's fields,
  arrays as lists; otherwise the rows as records);
- :meth:`~Tabular.to_pandas` and :meth:`~Tabular.to_polars`: the table as a
  frame, one column per column, typed by its kind;
- :meth:`~Tabular._repr_html_` (notebooks) and :meth:`~Tabular.__repr__`: the
  caption over the table (its first and last rows when it is long).

A type overrides what it has said otherwise so far (``Results.to_pandas``
is one row per query, ``Comparison.to_dict`` holds the settings): every
result has every method, with one implementation behind the defaults.
Results pickle as they are (the mixin holds no state).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise._wording import counted
from rankwise.exceptions import MissingDependencyError
from rankwise.measures.spec import Measure
from rankwise.report.tables import Table, html_table, render

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["REPR_ROWS", "Tabular", "plain"]

REPR_ROWS = 20
"""Rows a ``repr`` (and a notebook's HTML) shows at most: the first and the last half."""


def plain(value: Any) -> Any:
    """*value* as plain Python data: dataclasses and mappings as dicts, arrays as lists.

    An object with its own ``to_dict`` (a nested result) gives that; a
    measure, its canonical name; a NaN stays a float (JSON writers turn it
    into null).

    Examples
    --------
    >>> plain({"a": np.array([1.0, 2.0]), "b": (np.int64(3), None)})
    {'a': [1.0, 2.0], 'b': [3, None]}
    """
    if value is None or isinstance(value, (bool, str, int, float)):
        return value
    if isinstance(value, Measure):
        return str(value)
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if hasattr(value, "to_dict") and not isinstance(value, type):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {(k if isinstance(k, (str, int, float, bool)) or k is None else str(k)): plain(v)
                for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain(v) for v in value]
    return str(value)


def _columns(table: Table) -> list[list[Any]]:
    """The cells of *table*, column by column (a table given in blocks is read whole)."""
    columns: list[list[Any]] = [[] for _ in table.header]
    for block in table.column_blocks():
        for into, column in zip(columns, block):
            into.extend(column.tolist() if hasattr(column, "tolist") else column)
    return columns


def _head_and_tail(table: Table, most: int) -> tuple[Table, int]:
    """At most *most* rows of *table* (the first and the last half), and how many it has."""
    rows = [list(row) for row in zip(*_columns(table))] if table.header else []
    if len(rows) <= most:
        return Table(table.header, table.kinds, rows), len(rows)
    half = most // 2
    gap: list[Any] = ["…" if kind == "text" else None for kind in table.kinds]
    return Table(table.header, table.kinds, [*rows[:half], gap, *rows[-half:]]), len(rows)


class Tabular:
    """A result that is a table: the one protocol of rankwise's result types.

    A subclass gives :meth:`table` and :meth:`_caption`; see the module.
    """

    def table(self) -> Table:
        """The rows of the result (a :class:`rankwise.report.tables.Table`)."""
        raise NotImplementedError(f"{type(self).__name__} gives no table")

    def _caption(self) -> str:
        """One line that names the result (the first line of its ``repr``)."""
        return type(self).__name__

    def to_table(self, fmt: str = "table", *, digits: int = 4) -> str:
        """The result as text in one of the seven table formats.

        Parameters
        ----------
        fmt : {"table", "tsv", "csv", "json", "jsonl", "markdown", "latex"}
            See :mod:`rankwise.report.tables`: ``tsv``, ``csv`` and the JSON
            formats keep full precision, the others round to *digits*.
        digits : int
            Decimals in the ``table``, ``markdown`` and ``latex`` formats.

        Returns
        -------
        str
        """
        return render(self.table(), fmt, digits=digits)

    def to_dict(self) -> dict[str, Any]:
        """The result as plain values: a dataclass's fields (arrays as lists), or the rows.

        Returns
        -------
        dict
            Ready for :func:`json.dumps` (NaN aside: write it with
            :func:`rankwise.report.json_text.json_text`).
        """
        if dataclasses.is_dataclass(self):
            return {f.name: plain(getattr(self, f.name)) for f in dataclasses.fields(self)}
        table = self.table()
        return {"rows": [dict(zip(table.header, row)) for row in zip(*_columns(table))]}

    def to_pandas(self) -> pd.DataFrame:
        """The table as a pandas DataFrame: one column per column of :meth:`table`.

        Text columns hold ``str`` (or None), float columns float64 (NaN for a
        missing value), integer columns int64 (``Int64`` when one is missing).
        """
        try:
            import pandas as pd
        except ImportError as error:  # pragma: no cover - depends on the environment
            raise MissingDependencyError(
                f"{type(self).__name__}.to_pandas needs pandas: pip install 'rankwise[pandas]'"
            ) from error
        table = self.table()
        data = {}
        for name, kind, values in zip(table.header, table.kinds, _columns(table)):
            if kind == "float":
                data[name] = pd.Series([math.nan if v is None else v for v in values],
                                       dtype="float64")
            elif kind == "int":
                data[name] = pd.Series(values, dtype="Int64" if None in values else "int64")
            else:
                data[name] = pd.Series(values, dtype=object)
        return pd.DataFrame(data, columns=list(table.header))

    def to_polars(self) -> Any:
        """The table as a polars DataFrame: one column per column of :meth:`table`.

        Text columns are ``Utf8``, float columns ``Float64``, integer columns
        ``Int64``; a missing value is null.
        """
        try:
            import polars as pl
        except ImportError as error:  # pragma: no cover - depends on the environment
            raise MissingDependencyError(
                f"{type(self).__name__}.to_polars needs polars: pip install 'rankwise[polars]'"
            ) from error
        table = self.table()
        types = {"float": pl.Float64, "int": pl.Int64, "text": pl.Utf8}
        return pl.DataFrame([
            pl.Series(name, values, dtype=types[kind], strict=False)
            for name, kind, values in zip(table.header, table.kinds, _columns(table))
        ])

    def _repr_html_(self) -> str:
        """The caption over the table, for notebooks (its first and last rows when long)."""
        shown, rows = _head_and_tail(self.table(), REPR_ROWS)
        caption = self._caption() + (f" ({counted(rows, 'row', grouped=True)})"
                                     if rows > REPR_ROWS else "")
        return html_table(shown, caption=caption)

    def __repr__(self) -> str:
        shown, rows = _head_and_tail(self.table(), REPR_ROWS)
        text = render(shown, "table").rstrip("\n")
        more = f"\n({counted(rows, 'row', grouped=True)})" if rows > REPR_ROWS else ""
        return f"{self._caption()}\n{text}{more}"
