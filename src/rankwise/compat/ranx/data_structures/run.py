"""ranx's ``Run``: a system's scores ``{query: {doc: score}}``, ranked as ranx ranks them.

Queries are sorted by id and each query's documents by score, descending, in
ranx's order: numba's quicksort of the documents as given, which keeps tied
documents in their order up to 15 documents only. ranx's measures read that
order; so does everything the drop-in computes from a ``Run``.

Examples
--------
>>> from rankwise.compat.ranx import Run
>>> run = Run({"q_1": {"d_1": 1.5, "d_2": 2.6}}, name="bm25")
>>> run.run, run.name
({'q_1': {'d_2': 2.6, 'd_1': 1.5}}, 'bm25')
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from rankwise.compat.ranx import _files
from rankwise.compat.ranx._nested import Nested, file_kind
from rankwise.compat.ranx._table import Table

if TYPE_CHECKING:
    from rankwise.compat.ranx.data_structures.qrels import Qrels

__all__ = ["Run", "get_file_kind"]

KINDS = ("json", "trec", "lz4", "gz", "parquet")
"""The files a ``Run`` reads and writes (``gz``: gzipped TREC; ``lz4``: ranx's own)."""


def get_file_kind(path: str = "run.json", kind: str | None = None) -> str:
    """The kind of a run file from its extension (``.txt`` is ``trec``), unless given.

    Examples
    --------
    >>> get_file_kind("run.lz4"), get_file_kind("run.gz")
    ('lz4', 'gz')
    """
    return file_kind(path, kind, KINDS)


class Run(Nested):
    """A run, ``{query_id: {doc_id: score}}`` (ranx's ``Run``).

    Parameters
    ----------
    run : dict, optional
        The scores; none: empty, filled with :meth:`add_score`, :meth:`add`
        or :meth:`add_multi`.
    name : str, optional
        The run's name (the model's, in :func:`~rankwise.compat.ranx.compare`).

    Attributes
    ----------
    scores : defaultdict
        Per metric, per query, the value :func:`~rankwise.compat.ranx.evaluate`
        computed (``run.scores["ndcg@10"]["q_1"]``).
    mean_scores, std_scores : dict
        Per metric, the mean (and the standard deviation) over the queries.
    metadata : dict
        Free-form metadata.

    Examples
    --------
    >>> run = Run()
    >>> run.add_score("q1", "d1", 0.5)
    >>> run.add_score("q1", "d2", 0.7)
    >>> run.sorted, run["q1"]
    (False, {'d1': 0.5, 'd2': 0.7})
    """

    _cast = float

    def __init__(self, run: dict[Any, dict[Any, Any]] | None = None,
                 name: str | None = None) -> None:
        super().__init__(run, name)
        self.metadata: dict[str, Any] = {}
        self.scores: defaultdict[str, dict[Any, Any]] = defaultdict(dict)
        self.mean_scores: dict[str, Any] = {}
        self.std_scores: dict[str, Any] = {}

    @property
    def run(self) -> dict[Any, dict[Any, float]]:
        """The scores as a dict, in ranx's order (change it as ranx's typed dict)."""
        return self._mapping()

    @run.setter
    def run(self, value: dict[Any, dict[Any, float]]) -> None:
        self._set_mapping(value)

    def make_comparable(self, qrels: Qrels) -> Run:
        """Give the run exactly the judged queries, and sort it again (in place).

        An empty ranking for each judged query the run lacks, the queries the
        judgments lack removed; returns the run, as ranx.

        Examples
        --------
        >>> from rankwise.compat.ranx import Qrels
        >>> run = Run({"q1": {"d1": 0.5}, "q9": {"d2": 0.1}})
        >>> run.make_comparable(Qrels({"q1": {"d1": 1}, "q2": {"d3": 1}})).run
        {'q1': {'d1': 0.5}, 'q2': {}}
        """
        self._set_table(self._current().with_keys(list(qrels.keys())).sorted())
        self.sorted = True
        return self

    def save(self, path: str = "run.json", kind: str | None = None) -> None:
        """Write the run as JSON, TREC run (``qid Q0 docno rank score name``), LZ4 or Parquet.

        Sorted first if it is not. The kind comes from the extension
        (``.json``, ``.trec``, ``.txt``, ``.lz4``, ``.parquet``, ``.parq``)
        unless *kind* is given.
        """
        kind = get_file_kind(path, kind)
        if not self.sorted:
            self.sort()
        if kind == "json":
            _files.write_json(self.to_dict(), path)
        elif kind == "lz4":
            _files.write_lz4(dict(self.to_dict()), path)
        elif kind == "parquet":
            self.to_dataframe().to_parquet(path, index=False)
        else:
            table = self._current()
            positions = table.positions().tolist()
            frame = self.to_dataframe()
            _files.write_trec((f"{q} Q0 {d} {p + 1} {s} {self.name}" for q, d, p, s in zip(
                frame["q_id"].tolist(), frame["doc_id"].tolist(), positions,
                frame["score"].tolist())), path)

    @staticmethod
    def from_dict(d: dict[Any, dict[Any, Any]], name: str | None = None) -> Run:
        """The run of ``{query_id: {doc_id: score}}``."""
        return Run(d, name)

    @staticmethod
    def from_file(path: str, kind: str | None = None, name: str | None = None) -> Run:
        """Read a run: JSON, TREC, gzipped TREC or LZ4 (kind from the extension).

        A TREC run is named by its first line's run id unless *name* is given.

        Raises
        ------
        InputFormatError
            A malformed line (file and line named), or a document listed twice
            for a query (ranx keeps the last score).
        """
        kind = get_file_kind(path, kind)
        if kind == "json":
            return Run(_files.read_json(path), name)
        if kind == "lz4":
            return Run(_files.read_lz4(path), name)
        if kind == "parquet":
            return Run.from_parquet(path, name=name)
        table = _files.trec_table(path, judgments=False)
        return Run._of_table(table, name if name is not None else _files.run_name_of(path))

    @staticmethod
    def from_df(df: Any, q_id_col: str = "q_id", doc_id_col: str = "doc_id",
                score_col: str = "score", name: str | None = None) -> Run:
        """The run of a DataFrame's rows (pandas, polars or Arrow).

        Ids may be any text type (ranx requires pandas' ``object``).
        """
        return Run._of_table(_files.frame_table(df, q_id_col, doc_id_col, score_col, False), name)

    @staticmethod
    def from_parquet(path: str, q_id_col: str = "q_id", doc_id_col: str = "doc_id",
                     score_col: str = "score", pd_kwargs: dict[str, Any] | None = None,
                     name: str | None = None) -> Run:
        """The run of a Parquet file (read with ``pandas.read_parquet``)."""
        import pandas as pd

        frame = pd.read_parquet(path, **(pd_kwargs or {}))
        return Run.from_df(frame, q_id_col, doc_id_col, score_col, name)

    @staticmethod
    def _of_table(table: Table, name: str | None) -> Run:
        run = Run(name=name)
        run._set_table(table.sorted())
        run.sorted = True
        return run

    def _ranking(self, depth: int | None = None) -> Any:
        """The rankwise run ranking the queries' documents in ranx's order (kept).

        With *depth*, each query's first *depth* documents.
        """
        table = self._sorted_table()
        return self._cached(table, ("ranking", depth),
                            lambda: table.ranking(str(self.name or "run"), depth))
