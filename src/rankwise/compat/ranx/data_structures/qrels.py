"""ranx's ``Qrels``: relevance judgments ``{query: {doc: grade}}``, as ranx holds them.

Grades are integers (ranx truncates the values it is given), queries sorted by
id and each query's documents by grade, descending, as ranx sorts them.

Examples
--------
>>> from rankwise.compat.ranx import Qrels
>>> qrels = Qrels({"q_2": {"d_3": 2, "d_2": 1, "d_5": 3}, "q_1": {"d_1": 1}}, name="demo")
>>> qrels.qrels, qrels.size, qrels.name
({'q_1': {'d_1': 1}, 'q_2': {'d_5': 3, 'd_3': 2, 'd_2': 1}}, 2, 'demo')
"""

from __future__ import annotations

from typing import Any

from rankwise.compat.ranx import _files
from rankwise.compat.ranx._nested import Nested, file_kind
from rankwise.compat.ranx._table import Table
from rankwise.exceptions import MissingDependencyError

__all__ = ["Qrels", "get_file_kind"]

KINDS = ("json", "trec", "gz", "parquet")
"""The files a ``Qrels`` reads and writes (``gz``: gzipped TREC)."""


def get_file_kind(path: str = "qrels.json", kind: str | None = None) -> str:
    """The kind of a judgments file from its extension (``.txt`` is ``trec``), unless given.

    Examples
    --------
    >>> get_file_kind("qrels.txt"), get_file_kind("qrels.parq")
    ('trec', 'parquet')
    """
    return file_kind(path, kind, KINDS)


class Qrels(Nested):
    """Relevance judgments, ``{query_id: {doc_id: grade}}`` (ranx's ``Qrels``).

    Parameters
    ----------
    qrels : dict, optional
        The judgments (grades are truncated to integers, as ranx does); none:
        empty, filled with :meth:`add_score`, :meth:`add` or :meth:`add_multi`.
    name : str, optional
        A name.

    Examples
    --------
    >>> qrels = Qrels()
    >>> qrels.add_multi(["q1"], [["d1", "d2"]], [[1, 3]])
    >>> qrels.qrels, qrels.sorted
    ({'q1': {'d2': 3, 'd1': 1}}, True)
    """

    _cast = int

    def __init__(self, qrels: dict[Any, dict[Any, Any]] | None = None,
                 name: str | None = None) -> None:
        super().__init__(qrels, name)

    @property
    def qrels(self) -> dict[Any, dict[Any, int]]:
        """The judgments as a dict, in ranx's order (change it as ranx's typed dict)."""
        return self._mapping()

    @qrels.setter
    def qrels(self, value: dict[Any, dict[Any, int]]) -> None:
        self._set_mapping(value)

    def set_relevance_level(self, rel_lvl: int = 1) -> None:
        """Subtract ``rel_lvl - 1`` from every grade (ranx's ``set_relevance_level``).

        Examples
        --------
        >>> qrels = Qrels({"q1": {"d1": 1, "d2": 3}})
        >>> qrels.set_relevance_level(2)
        >>> qrels.qrels
        {'q1': {'d2': 2, 'd1': 0}}
        """
        table = self._current()
        self._set_table(table.with_values(table.values - (int(rel_lvl) - 1)))

    def save(self, path: str = "qrels.json", kind: str | None = None) -> None:
        """Write the judgments as JSON, TREC qrels (``qid 0 docno grade``) or Parquet.

        The kind comes from the extension (``.json``, ``.trec``, ``.txt``,
        ``.parquet``, ``.parq``) unless *kind* is given.
        """
        kind = get_file_kind(path, kind)
        if kind == "json":
            _files.write_json(self.to_dict(), path)
        elif kind == "parquet":
            self.to_dataframe().to_parquet(path, index=False)
        else:
            frame = self.to_dataframe()
            _files.write_trec((f"{q} 0 {d} {g}" for q, d, g in zip(
                frame["q_id"].tolist(), frame["doc_id"].tolist(), frame["score"].tolist())),
                path)

    @staticmethod
    def from_dict(d: dict[Any, dict[Any, Any]]) -> Qrels:
        """The judgments of ``{query_id: {doc_id: grade}}``."""
        return Qrels(d)

    @staticmethod
    def from_file(path: str, kind: str | None = None) -> Qrels:
        """Read judgments: JSON, TREC qrels, gzipped TREC qrels (kind from the extension).

        Raises
        ------
        InputFormatError
            A malformed line (file and line named), or a document judged twice
            for a query (ranx keeps the last grade).
        """
        kind = get_file_kind(path, kind)
        if kind == "json":
            return Qrels(_files.read_json(path))
        if kind == "parquet":
            return Qrels.from_parquet(path)
        return Qrels._of_table(_files.trec_table(path, judgments=True))

    @staticmethod
    def from_df(df: Any, q_id_col: str = "q_id", doc_id_col: str = "doc_id",
                score_col: str = "score") -> Qrels:
        """The judgments of a DataFrame's rows (pandas, polars or Arrow).

        Ids may be any text type (ranx requires pandas' ``object``); grades
        are truncated to integers.
        """
        return Qrels._of_table(_files.frame_table(df, q_id_col, doc_id_col, score_col, True))

    @staticmethod
    def from_parquet(path: str, q_id_col: str = "q_id", doc_id_col: str = "doc_id",
                     score_col: str = "score", pd_kwargs: dict[str, Any] | None = None
                     ) -> Qrels:
        """The judgments of a Parquet file (read with ``pandas.read_parquet``)."""
        import pandas as pd

        frame = pd.read_parquet(path, **(pd_kwargs or {}))
        return Qrels.from_df(frame, q_id_col, doc_id_col, score_col)

    @staticmethod
    def from_ir_datasets(dataset_id: str) -> Qrels:
        """The judgments of an ir_datasets dataset (downloaded by ir_datasets if missing).

        Raises
        ------
        MissingDependencyError
            ir_datasets is not installed.
        """
        try:
            import ir_datasets
        except ImportError:
            raise MissingDependencyError(
                "Qrels.from_ir_datasets needs ir_datasets: pip install ir_datasets"
            ) from None
        qrels = Qrels(ir_datasets.load(dataset_id).qrels_dict())
        qrels.name = dataset_id
        return qrels

    @staticmethod
    def _of_table(table: Table) -> Qrels:
        qrels = Qrels()
        qrels._set_table(Qrels._cast_table(table).sorted())
        qrels.sorted = True
        return qrels
