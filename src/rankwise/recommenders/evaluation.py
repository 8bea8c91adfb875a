"""The recommender front door: ``evaluate_recommendations``.

Interactions are the judgments, recommendation lists the run: the lists are
ordered (score descending, ties by input row order), the items each user
saw in training removed (``exclude=``), cut at ``k``, and then the accuracy
measures go through :func:`rankwise.evaluate` (the same engine and numbers
as any ranking) while the beyond-accuracy measures are computed over the
whole recommendation set by :mod:`rankwise.recommenders.beyond`.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise._tabular import Tabular
from rankwise._validation import DEPRECATED, renamed
from rankwise._wording import counted
from rankwise.exceptions import (
    InvalidParameterError,
    MeasureSyntaxError,
    RankwiseWarning,
    UnknownMeasureError,
)
from rankwise.options import (
    Duplicates,
    Missing,
    RecommenderOptions,
    SegmentTest,
    recommender_options_from,
)
from rankwise.recommenders import beyond
from rankwise.recommenders.inputs import (
    Interactions,
    Lists,
    Vocabulary,
    _columns_like,
    argument,
    as_table,
    check_column_roles,
    contains,
    count_codes,
    exclude_seen,
    find_column,
    numbers_of,
    with_grades,
)
from rankwise.stats.parametric import welch_anova
from rankwise.suggest import did_you_mean

if TYPE_CHECKING:
    import pandas as pd

    from rankwise.measures.spec import Measure
    from rankwise.report.tables import Table
    from rankwise.results import Results

__all__ = ["BEYOND", "RecommenderResults", "SegmentResults", "by_segment",
           "evaluate_recommendations", "segment_labels"]

BEYOND: dict[str, str] = {
    "coverage": "catalogue coverage: distinct items recommended / catalogue size",
    "gini": "Gini index of item exposure (0 = every item equally often)",
    "entropy": "Shannon entropy (bits) of item exposure",
    "novelty": "mean self-information -log2(pop(i)/users) of recommended items",
    "epc": "expected popularity complement (rank- and relevance-aware novelty)",
    "arp": "average recommendation popularity (training interactions)",
    "aplt": "share of long-tail items in the list",
    "popreo": "popularity-opportunity bias: std/mean of head and tail recall",
    "ild": "intra-list diversity: mean cosine distance between listed items",
    "serendipity": "share of the list relevant and not in the baseline's list",
    "personalisation": "1 - mean pairwise (cosine) overlap of users' lists",
}
"""Beyond-accuracy measure names and what they say."""

_ALIASES = {"personalization": "personalisation", "catalog_coverage": "coverage",
            "catalogue_coverage": "coverage", "item_coverage": "coverage",
            "itemcoverage": "coverage", "shannon_entropy": "entropy", "shannonentropy": "entropy",
            "giniindex": "gini", "gini_index": "gini", "averagepopularity": "arp",
            "tailpercentage": "aplt", "diversity": "ild"}
_SET_LEVEL = {"coverage", "gini", "entropy", "popreo", "personalisation"}
_DIALECTS = {"rankwise", "recbole", "recommenders"}
_PARAMS = {"dialect": None, "head": float, "tail": float}
_PATTERN = re.compile(r"^\s*([A-Za-z_]+)\s*(?:@\s*(\d+))?\s*(?:\((.*)\))?\s*$")


@dataclass(frozen=True)
class BeyondMeasure:
    """A parsed beyond-accuracy measure: ``name@k(param=value, ...)``."""

    name: str
    cutoff: int | None
    params: tuple[tuple[str, Any], ...] = ()

    def param(self, key: str, default: Any = None) -> Any:
        return dict(self.params).get(key, default)

    @property
    def set_level(self) -> bool:
        return self.name in _SET_LEVEL or (
            self.name == "novelty" and self.param("dialect") == "recommenders")

    def __str__(self) -> str:
        text = self.name + (f"@{self.cutoff}" if self.cutoff is not None else "")
        if self.params:
            text += "(" + ",".join(f"{k}={v}" for k, v in self.params) + ")"
        return text


def parse_beyond(text: str) -> BeyondMeasure | None:
    """A beyond-accuracy measure, or None when *text* names none (an accuracy measure).

    Examples
    --------
    >>> str(parse_beyond("Gini@10(dialect=recbole)")), parse_beyond("ndcg@10")
    ('gini@10(dialect=recbole)', None)
    """
    match = _PATTERN.match(text)
    if not match:
        return None
    name = match.group(1).lower()
    name = _ALIASES.get(name, name)
    if name not in BEYOND:
        return None
    cutoff = int(match.group(2)) if match.group(2) else None
    if cutoff is not None and cutoff < 1:
        raise MeasureSyntaxError(f"{text!r}: the cutoff must be at least 1, got {cutoff}")
    params: list[tuple[str, Any]] = []
    for part in filter(None, (p.strip() for p in (match.group(3) or "").split(","))):
        key, sep, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or key not in _PARAMS:
            raise MeasureSyntaxError(
                f"{text!r}: unknown parameter {key!r}; parameters are "
                f"{sorted(_PARAMS)}" + did_you_mean(key, _PARAMS)
            )
        if key == "dialect":
            if value not in _DIALECTS:
                raise MeasureSyntaxError(
                    f"{text!r}: unknown dialect {value!r}; dialects are {sorted(_DIALECTS)}"
                    + did_you_mean(value, _DIALECTS)
                )
            if value == "rankwise":
                continue
            params.append((key, value))
        else:
            try:
                params.append((key, float(value)))
            except ValueError:
                raise MeasureSyntaxError(
                    f"{text!r}: {key} must be a number, got {value!r}") from None
    return BeyondMeasure(name, cutoff, tuple(sorted(params)))


@dataclass
class SegmentResults:
    """Every measure per segment, and a test of the difference between segments.

    Attributes
    ----------
    names : list
        The segments, sorted.
    mean : dict
        ``{segment: {measure: value}}``.
    users : dict
        ``{segment: number of evaluated users}``.
    p_values : dict
        ``{measure: p-value}`` of the test between segments, for per-user
        measures (NaN for whole-set measures: there is one value per segment).
    test : str
        The test: Welch's t-test (2 segments) or Welch's one-way ANOVA
        (more), or Mann-Whitney U / Kruskal-Wallis (``"rank"``).
    """

    names: list[Any]
    mean: dict[Any, dict[str, float]]
    users: dict[Any, int]
    p_values: dict[str, float]
    test: str

    def to_pandas(self) -> pd.DataFrame:
        """One row per segment (and a ``p-value`` row), one column per measure."""
        import pandas as pd

        frame = pd.DataFrame.from_dict(self.mean, orient="index")
        frame.insert(0, "users", pd.Series(self.users))
        frame.loc["p-value"] = {"users": np.nan, **self.p_values}
        return frame

    def to_table(self, digits: int = 4) -> str:
        """A markdown table: segments x measures, the p-values on the last row."""
        measures = list(self.p_values)
        head = "| segment | users | " + " | ".join(measures) + " |"
        rows = [head, "|" + "---|" * (len(measures) + 2)]
        for name in self.names:
            cells = [f"{self.mean[name][m]:.{digits}f}" for m in measures]
            rows.append(f"| {name} | {self.users[name]} | " + " | ".join(cells) + " |")
        cells = ["" if math.isnan(p) else f"{p:.{digits}g}" for p in self.p_values.values()]
        rows.append(f"| p ({self.test}) | | " + " | ".join(cells) + " |")
        return "\n".join(rows)


@dataclass
class RecommenderResults(Tabular):
    """Per-user values and whole-set values of recommender measures.

    Like every result it has ``to_dict``, ``to_pandas`` and ``to_polars``
    (one row per user), ``to_table`` and :meth:`table` (the users and every
    measure's value), shows as a table in a notebook and pickles.

    Attributes
    ----------
    users : list
        Evaluated users (their ids as given).
    per_user : dict
        ``{measure: array aligned with users}`` for the measures with a value
        per user (accuracy, novelty, ild, ...); NaN where a measure leaves a
        user out (ILD of a list shorter than 2).
    mean : dict
        ``{measure: value}``: the mean over users of per-user measures
        (ignoring NaN), and the whole-set measures (coverage, Gini, ...).
    accuracy : Results or None
        What :func:`rankwise.evaluate` returned for the accuracy measures.
    segments : SegmentResults or None
        With ``segments=``.
    notes : list of str
        What the numbers rest on that was not given (the default catalogue
        of coverage and Gini).
    """

    users: list[Any]
    per_user: dict[str, np.ndarray]
    mean: dict[str, float]
    accuracy: Results | None = None
    segments: SegmentResults | None = None
    notes: list[str] = field(default_factory=list)

    def to_pandas(self) -> pd.DataFrame:
        """One row per user, one column per per-user measure."""
        import pandas as pd

        return pd.DataFrame(self.per_user, index=pd.Index(self.users, name="user"))

    def to_polars(self) -> Any:
        """One row per user: a ``user`` column, then one column per per-user measure."""
        try:
            import polars as pl
        except ImportError as error:  # pragma: no cover - depends on the environment
            from rankwise.exceptions import MissingDependencyError

            raise MissingDependencyError(
                "RecommenderResults.to_polars needs polars: pip install 'rankwise[polars]'"
            ) from error
        users = pl.Series("user", list(self.users), strict=False)
        return pl.DataFrame([users, *(pl.Series(name, values, dtype=pl.Float64)
                                      for name, values in self.per_user.items())])

    def table(self) -> Table:
        """One row: the users evaluated, then every measure's value (as ``rankwise recs``)."""
        from rankwise.report.tables import Table

        names = list(self.mean)
        return Table(["users", *names], ["int", *["float"] * len(names)],
                     [[len(self.users), *(self.mean[name] for name in names)]])

    def _caption(self) -> str:
        return f"RecommenderResults({counted(len(self.users), 'user')})"

    def to_html(self, path: str | None = None, *, title: str = "Recommender evaluation",
                digits: int = 4) -> str:
        """A self-contained HTML page: the measures, and the segments with their tests.

        Written to *path* (atomically) when given; the page is returned either way.
        See :func:`rankwise.recommenders.report.render_html`.
        """
        from rankwise.recommenders.report import render_html

        page = render_html(self, title=title, digits=digits,
                           descriptions={name: _describe(name) for name in self.mean})
        if path is not None:
            from rankwise._files import write_file

            write_file(page, path)
        return page

    def __repr__(self) -> str:
        width = max([len(name) for name in self.mean] + [7])
        lines = [self._caption()]
        lines += [f"  {name:<{width}}  {value:.4f}" for name, value in self.mean.items()]
        return "\n".join(lines)


def _describe(name: str) -> str:
    """What a measure says, in a few words (for the report)."""
    parsed = parse_beyond(name)
    if parsed is not None:
        return BEYOND[parsed.name]
    from rankwise.measures import parse

    try:
        return str(parse(name).family.summary)
    except (MeasureSyntaxError, UnknownMeasureError):  # pragma: no cover - parsed before
        return ""


def _item_ids(obj: Any, items: Vocabulary, columns: Mapping[str, str] | None,
              what: str) -> np.ndarray:
    """Codes of a list of item ids, or of the item column of a table."""
    if isinstance(obj, (list, tuple, np.ndarray)) or type(obj).__name__ in (
            "Series", "Array", "ChunkedArray", "Index"):
        return items.encode(obj)
    table = as_table(obj, what)
    return items.encode(table.column(find_column(table, "item", columns, what)))


def _features(obj: Any, items: Vocabulary, columns: Mapping[str, str] | None) -> Any:
    """Item vectors by item code: ``{item: vector}``, ``(ids, matrix)`` or a table.

    Every vector holds the same number of finite numbers; an error names the
    first item (and row) that does not, what was expected and what came.
    """
    if isinstance(obj, tuple) and len(obj) == 2:
        ids, matrix = obj
        codes = items.encode(ids)
        if hasattr(matrix, "tocsr"):
            if len(codes) != matrix.shape[0]:
                raise InvalidParameterError(
                    f"features: expected one vector per item ({counted(len(codes), 'item')}), "
                    f"got a sparse matrix of shape {matrix.shape}")
            data = np.asarray(matrix.tocsr().data)
            if data.dtype.kind not in "biuf" or not np.isfinite(data).all():
                raise InvalidParameterError(
                    "features: every value of the sparse matrix must be a finite number")
        else:
            matrix = _vector_rows(matrix, lambda row: items.labels()[int(codes[row])].as_py())
    elif isinstance(obj, Mapping) and not _columns_like(obj, columns):
        keys = list(obj.keys())
        codes = items.encode(keys)
        matrix = _vector_rows(list(obj.values()), keys.__getitem__)
    else:
        table = as_table(obj, "features")
        item_col = find_column(table, "item", columns, "features")
        others = [c for c in table.column_names if c != item_col]
        codes = items.encode(table.column(item_col))
        ids = table.column(item_col)

        def item_of(row: int) -> Any:
            return ids[row].as_py()

        if len(others) == 1 and not _is_number_type(table.schema.field(others[0]).type):
            matrix = _vector_column(table.column(others[0]), others[0], item_of)
        else:
            matrix = np.column_stack([
                numbers_of(table, c, "feature", "features") for c in others]) \
                if others else np.zeros((len(codes), 0))
    if matrix.shape[0] != len(codes):
        raise InvalidParameterError(
            f"features: expected one vector per item ({counted(len(codes), 'item')}), got an "
            f"array "
            f"of shape {matrix.shape}"
        )
    return codes, matrix


def _vector_rows(rows: Any, item_of: Callable[[int], Any]) -> np.ndarray:
    """A matrix from one vector per item, or the error of the first item that is not one."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            matrix = np.asarray(rows, dtype=np.float64)
    except (ValueError, TypeError):
        matrix = None
    if matrix is not None and matrix.ndim == 2:
        bad = ~np.isfinite(matrix)
        if bad.any():
            row = int(np.flatnonzero(bad.any(axis=1))[0])
            raise InvalidParameterError(
                f"features: item {item_of(row)!r}: expected finite numbers, got "
                f"{matrix[row][bad[row]][0]} in its vector")
        return matrix
    if matrix is not None and matrix.ndim < 2 and len(matrix) == 0:
        return np.zeros((0, 0))
    width = None
    for row, vector in enumerate(rows):  # an error to name: one pass, then stop
        if isinstance(vector, (str, bytes)) or not hasattr(vector, "__len__"):
            raise InvalidParameterError(
                f"features: item {item_of(row)!r}: expected a vector (a list or an array of "
                f"numbers), got {vector!r} ({type(vector).__name__})")
        values = list(vector)
        for value in values:
            if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
                raise InvalidParameterError(
                    f"features: item {item_of(row)!r}: expected a vector of numbers, got "
                    f"{value!r} ({type(value).__name__}) in it")
        if width is None:
            width, first = len(values), row
        elif len(values) != width:
            raise InvalidParameterError(
                f"features: item {item_of(row)!r} has a vector of "
                f"{counted(len(values), 'value')}, item {item_of(first)!r} one of {width}: every "
                "vector has the same length")
    raise InvalidParameterError(  # pragma: no cover - numpy refused for another reason
        f"features: expected one vector of numbers per item, got {type(rows).__name__}")


def _vector_column(column: Any, name: str, item_of: Callable[[int], Any]) -> np.ndarray:
    """A table's column of vectors (Arrow lists) as a matrix, or the error of its first bad row.

    Without a Python loop over rows: the lengths and the flattened values are Arrow arrays.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    kind = column.type
    if not (pa.types.is_list(kind) or pa.types.is_large_list(kind)
            or pa.types.is_fixed_size_list(kind)):
        raise InvalidParameterError(
            f"features: column {name!r} holds {kind}: expected a vector (a list of numbers) "
            f"per item, or one column of numbers per dimension; item {item_of(0)!r} has "
            f"{column[0].as_py()!r}")
    if column.null_count:
        row = int(np.flatnonzero(column.is_null().to_numpy(zero_copy_only=False))[0])
        raise InvalidParameterError(
            f"features: row {row + 1} (item {item_of(row)!r}) has no vector (null) in column "
            f"{name!r}")
    lengths = np.asarray(pc.list_value_length(column).to_numpy(zero_copy_only=False),
                         dtype=np.int64)
    if len(lengths) and (lengths != lengths[0]).any():
        row = int(np.flatnonzero(lengths != lengths[0])[0])
        raise InvalidParameterError(
            f"features: row {row + 1} (item {item_of(row)!r}) has a vector of "
            f"{counted(int(lengths[row]), 'value')}, row 1 (item {item_of(0)!r}) one of "
            f"{lengths[0]}: every vector has the same length")
    flat = pc.list_flatten(column)
    if not _is_number_type(flat.type) or flat.null_count:
        at = 0 if not _is_number_type(flat.type) else int(np.flatnonzero(
            flat.is_null().to_numpy(zero_copy_only=False))[0])
        row = int(np.searchsorted(np.cumsum(lengths), at, side="right"))
        raise InvalidParameterError(
            f"features: row {row + 1} (item {item_of(row)!r}): expected a vector of numbers, "
            f"got {column[row].as_py()!r} in column {name!r}")
    values = np.asarray(flat.to_numpy(zero_copy_only=False), dtype=np.float64)
    width = int(lengths[0]) if len(lengths) else 0
    matrix = values.reshape(len(lengths), width)
    bad = ~np.isfinite(matrix)
    if bad.any():
        row = int(np.flatnonzero(bad.any(axis=1))[0])
        raise InvalidParameterError(
            f"features: row {row + 1} (item {item_of(row)!r}): expected finite numbers, got "
            f"{matrix[row][bad[row]][0]} in its vector")
    return matrix


def _is_number_type(t: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t))


def _place(codes: np.ndarray, matrix: Any, n_items: int) -> Any:
    """Rows of *matrix* moved to their item codes (missing items: zero vectors)."""
    if hasattr(matrix, "tocsr"):
        from scipy import sparse

        placement = sparse.csr_matrix((np.ones(len(codes)), (codes, np.arange(len(codes)))),
                                      shape=(n_items, len(codes)))
        return placement @ sparse.csr_matrix(matrix)
    out = np.zeros((n_items, matrix.shape[1]))
    out[codes] = matrix
    return out


def _cooccurrence(train: Interactions, n_items: int, n_users: int) -> Any:
    """Items as binary vectors over training users (cosine = Recommenders' co-occurrence)."""
    from scipy import sparse

    return sparse.csr_matrix((np.ones(len(train.users)), (train.items, train.users)),
                             shape=(n_items, n_users))


def segment_labels(segments: Any, columns: Mapping[str, str] | None
                   ) -> tuple[Any, list[Any]]:
    """The user ids (a list or an Arrow column) and segment labels of ``segments=``.

    ``{user: segment}``, a pandas Series (index: users) or a table of user
    and segment columns.
    """
    if isinstance(segments, Mapping) and not any(
            str(k) in ("user", "segment") or (columns and str(k) in columns.values())
            for k in segments):
        ids, labels = list(segments.keys()), list(segments.values())
    elif type(segments).__name__ == "Series":
        ids, labels = list(segments.index), segments.tolist()
    else:
        table = as_table(segments, "segments")
        user_col = find_column(table, "user", columns, "segments")
        seg_col = (columns or {}).get("segment", "segment")
        if seg_col not in table.column_names:
            others = [c for c in table.column_names if c != user_col]
            if len(others) != 1:
                raise InvalidParameterError(
                    "segments: a table needs a user column and a 'segment' column "
                    f"(or columns={{'segment': ...}}), got columns {table.column_names}"
                )
            seg_col = others[0]
        ids, labels = table.column(user_col), table.column(seg_col).to_pylist()
    return ids, labels


def _segments_of(segments: Any, users: Vocabulary, columns: Mapping[str, str] | None
                 ) -> tuple[np.ndarray, list[Any]]:
    """Segment index per user code (-1: none) and the segment labels, sorted."""
    import pyarrow as pa

    ids, labels = segment_labels(segments, columns)
    codes = users.lookup(pa.array(ids) if isinstance(ids, list) else ids)
    names = sorted(set(labels), key=lambda x: (str(type(x)), x))
    index = {name: n for n, name in enumerate(names)}
    by_code = np.full(len(users), -1, dtype=np.int64)
    position = np.fromiter((index[x] for x in labels), dtype=np.int64, count=len(labels))
    known = codes >= 0
    by_code[codes[known]] = position[known]
    return by_code, names


TEST_RENAMED = (" (the held-out interactions; test= will be a statistical test between "
                "recommenders, as in compare)")
"""Why ``evaluate_recommendations(test=)`` is ``held_out=`` now (the warning says it)."""


def _required_measures(recommendations: Any, measures: Any) -> list[Any]:
    """The measures asked for, as a list (and the recommendations, required)."""
    if recommendations is None:
        raise InvalidParameterError("recommendations is required: the lists to evaluate")
    if measures is None:
        raise InvalidParameterError("measures is required, for example ['ndcg@10', 'coverage']")
    from collections.abc import Iterable

    # one measure (a name, a Measure, an ir_measures object), or a list of them
    listed = list(measures) if isinstance(measures, Iterable) and not isinstance(
        measures, str) else [measures]
    if not listed:
        raise InvalidParameterError("measures is empty; give at least one, e.g. ['ndcg@10']")
    return listed


def evaluate_recommendations(
    held_out: Any = None,
    recommendations: Any = None,
    measures: str | Iterable[str] | None = None,
    *,
    k: int | None = None,
    exclude: Any = None,
    train: Any = None,
    catalogue: Any = None,
    features: Any = None,
    baseline: Any = None,
    segments: Any = None,
    segment_test: SegmentTest = "welch",
    users: Any = None,
    duplicates: Duplicates = "error",
    columns: Mapping[str, str] | None = None,
    relevance: str | None = None,
    rel: float = 1,
    missing: Missing = "skip",
    engine: str = "numpy",
    options: RecommenderOptions | None = None,
    test: Any = DEPRECATED,
) -> RecommenderResults:
    """Evaluate recommendation lists against held-out interactions.

    Parameters
    ----------
    held_out : table, dict of columns, or None
        Held-out interactions (``user``, ``item``, optional ``rating``): the
        judgments. Without ``relevance=`` every interaction is relevant with
        grade 1 (implicit feedback). ``None`` when only beyond-accuracy
        measures that need no judgments are asked for. (It was ``test=``:
        that name still works, with a ``FutureWarning``; ``test=`` will be a
        statistical test, as in :func:`rankwise.compare`.)
    recommendations : table, ``{user: [item, ...]}`` or 2-D array
        A table of ``user, item, score`` (or ``rank``; or neither: rows in
        order) ordered by score descending with ties in input row order;
        top-k lists per user; or a 2-D array of item ids, one row per user
        (``users=`` names the rows, default 0..n-1).
    measures : str or list of str
        Accuracy measures of rankwise's language (``"ndcg@10"``,
        ``"recall@50"``, ``"map@10"``, ``"P@10"``, ``"mrr"``, ...) and
        beyond-accuracy ones (:data:`BEYOND`): ``coverage``, ``gini``,
        ``entropy``, ``novelty``, ``epc``, ``arp``, ``aplt``, ``popreo``,
        ``ild``, ``serendipity``, ``personalisation``, each with an optional
        ``@k`` and ``(dialect=recbole)`` / ``(dialect=recommenders)`` for
        those tools' conventions (see docs/recommenders.md).
    k : int, optional
        Cut every list at k (after excluding seen items).
    exclude : table, optional
        Interactions whose items are removed from each user's list before
        cutting at k (usually the training interactions).
    train : table, optional
        Training interactions: item popularity (novelty, ARP, APLT, PopREO,
        EPC), items of the default catalogue, co-occurrence similarity for
        ILD without features. Defaults to *exclude*.
    catalogue : int, list of item ids or table, optional
        All items (coverage and Gini); it must hold every item recommended
        (an error names those outside it). Defaults to every item of the
        training, test and recommendation tables (said in
        :attr:`RecommenderResults.notes`).
    features : ``{item: vector}``, ``(ids, matrix)`` or table, optional
        Item vectors (embeddings, genre indicators; dense or scipy sparse)
        for ILD and serendipity in the Recommenders dialect. Without them,
        items are compared by co-occurrence in *train*.
    baseline : recommendations, optional
        A baseline recommender's lists (same forms), for ``serendipity``.
    segments : ``{user: segment}``, Series or table, optional
        Every measure per segment, with a test between segments.
    segment_test : {"welch", "rank"}
        Welch's t-test / Welch's ANOVA, or Mann-Whitney U / Kruskal-Wallis.
    users : sequence, optional
        The user id of each row of a 2-D array of recommendations.
    duplicates : {"error", "first"}
        An item recommended twice to one user is an error, or kept at its
        best-ranked position only.
    columns : dict, optional
        ``{role: column}`` for roles ``user``, ``item``, ``score``,
        ``rank``, ``rating``, ``segment``.
    relevance : str, optional
        The column of *test* holding grades (then ``rel`` is the relevance
        level); by default every test interaction has grade 1.
    options : RecommenderOptions, optional
        ``k``, ``rel``, ``missing``, ``duplicates``, ``relevance`` and
        ``segment_test`` at once, checked once (keywords given as well
        override it).
    rel, missing, engine
        As in :func:`rankwise.evaluate`. ``missing="zero"`` scores a test
        user without recommendations 0 (Microsoft Recommenders' nDCG).
    test : table, optional
        Deprecated: the old name of *held_out*.

    Returns
    -------
    RecommenderResults
        The evaluated users are the test users with a list (every test user
        with ``missing="zero"``), or every user with a list when *test* is
        None; beyond-accuracy measures are computed over their lists.

    Examples
    --------
    >>> import rankwise as rw
    >>> train = {"user": [1, 1, 2], "item": ["a", "b", "a"]}
    >>> test = {"user": [1, 2], "item": ["c", "b"]}
    >>> recs = {1: ["a", "c", "d"], 2: ["b", "c", "d"]}
    >>> r = rw.evaluate_recommendations(test, recs, ["P@1", "recall@2", "coverage@2"],
    ...                                 exclude=train, catalogue=["a", "b", "c", "d"])
    >>> r.mean
    {'P@1': 1.0, 'recall@2': 1.0, 'coverage@2': 0.75}
    >>> r.per_user["P@1"].tolist()
    [1.0, 1.0]
    """
    # the body calls the held-out interactions "test", the name of the table in messages
    test = renamed("evaluate_recommendations", "test", "held_out", test, held_out, None,
                   note=TEST_RENAMED)
    # validate: the measures and options, checked once
    measures = _required_measures(recommendations, measures)
    chosen = recommender_options_from(options, k=k, rel=rel, missing=missing,
                                      duplicates=duplicates, relevance=relevance,
                                      segment_test=segment_test)
    beyond_measures, accuracy_names = _split_measures(measures, test is not None)
    # plan: every input coded once against shared vocabularies, lists excluded and cut
    read = _read_inputs(test, recommendations, chosen, columns=columns, users=users,
                        exclude=exclude, train=train, baseline=baseline, catalogue=catalogue,
                        features=features, segments=segments,
                        depth=_read_depth(accuracy_names, beyond_measures, exclude, baseline))
    evaluated, lengths = _evaluated_users(read, chosen.missing)
    # compute: beyond-accuracy over the lists, then accuracy through the engine's core
    context, beyond_per_user, totals = _beyond(read, beyond_measures, evaluated, lengths)
    observer = handed_out.get()
    if observer is not None:  # a report keeps what its figures need (page_data.keeping)
        observer(read, chosen, evaluated, accuracy_names, context.counted(read.lists))
    if read.segment_of is None:  # nothing reads the training interactions again
        read.history = context.history = None
    per_user: dict[str, np.ndarray] = {}
    accuracy = None
    if accuracy_names and read.truth is not None:
        accuracy, accuracy_users = _accuracy(
            read.truth, read.lists, accuracy_names, read.users, read.items, rel=chosen.rel,
            missing=chosen.missing, engine=engine, lengths=lengths)
        per_user.update(_per_user_accuracy(accuracy, read.users, read.n_users, accuracy_users))
    per_user.update(beyond_per_user)
    result = _result(measures, read, evaluated, per_user, totals, accuracy)
    result.notes.extend(_notes(read, beyond_measures, catalogue is None, chosen.missing))
    if read.segment_of is not None:
        result.segments = _segment_results(read.segment_of, read, context, beyond_measures,
                                           evaluated, per_user, list(result.mean),
                                           chosen.segment_test)
    return result


def _segment_results(segment_of: np.ndarray, read: _Read, context: _Context,
                     beyond_measures: list[BeyondMeasure], evaluated: np.ndarray,
                     per_user: dict[str, np.ndarray],
                     measures: list[str], segment_test: SegmentTest) -> Any:
    """Every measure per segment: the per-user means, and the set-level measures again.

    A set-level measure (coverage, Gini, ...) is computed anew on the lists
    of each segment's users.
    """
    set_level = [m for m in beyond_measures if str(m) not in per_user]

    def set_level_of(members: np.ndarray) -> dict[str, float]:
        lists = context.lists.only_users(members)
        return {str(m): float(context.compute(m, lists, members)) if len(lists.items) else
                float("nan") for m in set_level}

    return by_segment(segment_of, read.segment_names, evaluated, per_user, set_level_of,
                      measures, segment_test)


def _beyond(read: _Read, measures: list[BeyondMeasure], evaluated: np.ndarray,
            lengths: np.ndarray
            ) -> tuple[_Context, dict[str, np.ndarray], dict[str, float]]:
    """The beyond-accuracy measures: their context, the per-user values, the whole-set ones.

    Computed before the accuracy measures, so that the training
    interactions can go before the accuracy's arrays come.
    """
    context = _Context(read.lists.only_users(evaluated) if (
        (lengths > 0) & ~evaluated).any() else read.lists, read.base, read.truth,
        read.history, read.features, read.n_users, read.n_items, read.catalogue_codes,
        read.catalogue_size, _id_order(read.items) if measures else None,
        known_items=read.known_items, items=read.items, evaluated=evaluated)
    per_user: dict[str, np.ndarray] = {}
    totals: dict[str, float] = {}
    for measure in measures:
        value = context.compute(measure)
        if isinstance(value, float):
            totals[str(measure)] = value
        else:
            per_user[str(measure)] = value
    return context, per_user, totals


def _split_measures(measures: list[Any], has_test: bool
                    ) -> tuple[list[BeyondMeasure], list[str]]:
    """The beyond-accuracy measures parsed, and the accuracy ones (checked to be known)."""
    beyond_measures: list[BeyondMeasure] = []
    accuracy_names: list[str] = []
    for text in measures:
        parsed = parse_beyond(text) if isinstance(text, str) else None
        if parsed is not None:
            beyond_measures.append(parsed)
        else:
            accuracy_names.append(text)
    if accuracy_names:
        from rankwise.measures import parse

        for text in accuracy_names:
            try:
                parse(text)
            except UnknownMeasureError as error:
                name = re.split(r"[@(]", str(text), maxsplit=1)[0]
                hint = did_you_mean(name.lower(), BEYOND)  # "; did you mean 'gini'?"
                said = str(error)
                if not hint:
                    said += "; recommender measures: " + ", ".join(BEYOND)
                elif "did you mean" not in said:  # "run 'rankwise measures' ...": ours only
                    said = said.split(";", 1)[0] + hint
                elif hint.removeprefix("; ") not in said:  # the recommender measure too
                    said += f" (or the recommender measure {hint.split(' mean ', 1)[1][:-1]})"
                raise UnknownMeasureError(said) from None
        if not has_test:
            raise InvalidParameterError(
                f"{accuracy_names} need the held-out interactions (held_out=)")
    return beyond_measures, accuracy_names


@dataclass
class _Read:
    """Every input of one evaluation, coded against the shared vocabularies."""

    users: Vocabulary
    items: Vocabulary
    truth: Interactions | None
    lists: Lists
    history: Interactions | None
    base: Lists | None
    known_items: _DefaultCatalogue
    catalogue_codes: np.ndarray | None
    catalogue_size: int | None
    features: Any
    segment_of: np.ndarray | None
    segment_names: list[Any]
    emptied: np.ndarray | None = None  # users whose whole list exclude= removed (a mask)

    @property
    def n_users(self) -> int:
        return max(len(self.users), 1)

    @property
    def n_items(self) -> int:
        return max(len(self.items), 1)


handed_out: ContextVar[Callable[[_Read, RecommenderOptions, np.ndarray, list[str],
                                 tuple[np.ndarray | None, np.ndarray | None]], None]
                       | None] = ContextVar("handed_out", default=None)
"""Called by :func:`evaluate_recommendations`, when set, with what it has read.

The inputs coded and the lists cleared of the excluded items and cut
(:class:`_Read`), the options, the evaluated users (a mask by user code),
the accuracy measures asked, and the counts the beyond-accuracy measures
made, when they did (:meth:`_Context.counted`): the recommender report
counts its figures from them (:func:`rankwise.recommenders.page_data.keeping`)
instead of reading every model's lists again. Set for one comparison.
"""


def _read_inputs(test: Any, recommendations: Any, chosen: RecommenderOptions, *,
                 columns: Mapping[str, str] | None, users: Any, exclude: Any, train: Any,
                 baseline: Any, catalogue: Any, features: Any, segments: Any,
                 depth: int | None = None) -> _Read:
    """Every input read and coded once, the lists without the seen items and cut at k.

    The test comes first (codes come in order of arrival); the exclusion and
    the cut apply to the baseline's lists as well. *depth*: nothing reads
    past the first *depth* items of a list (:func:`_read_depth`), so the
    lists may be read that far only (:meth:`Lists.read`).
    """
    check_column_roles(columns)
    user_vocab, item_vocab = Vocabulary("user"), Vocabulary("item")
    relevance, duplicates = chosen.relevance, chosen.duplicates
    truth = Interactions.read(test, user_vocab, item_vocab, columns=columns, what="test",
                              rating=relevance is not None) if test is not None else None
    if truth is not None and relevance is not None:
        truth = with_grades(test, truth, relevance, user_vocab, item_vocab, columns)
    lists = Lists.read(recommendations, user_vocab, item_vocab, columns=columns,
                       user_index=users, duplicates=duplicates, depth=depth)
    history = Interactions.read(train if train is not None else exclude, user_vocab,
                                item_vocab, columns=columns, what="train", rating=False) \
        if (train is not None or exclude is not None) else None
    if exclude is None:
        seen = None
    elif train is None or exclude is train:
        seen = history
    else:
        seen = Interactions.read(exclude, user_vocab, item_vocab, columns=columns,
                                 what="exclude", rating=False)
    # the items given so far are those of the test, the recommendations and the
    # training: the default catalogue
    known_items = _DefaultCatalogue(len(item_vocab), truth is not None, history is not None)
    base = Lists.read(baseline, user_vocab, item_vocab, columns=columns,
                      what="baseline", duplicates=duplicates) if baseline is not None else None
    catalogue_codes: np.ndarray | None = None
    catalogue_size: int | None = None
    if isinstance(catalogue, (int, np.integer)) and not isinstance(catalogue, bool):
        catalogue_size = int(catalogue)
    elif catalogue is not None:
        catalogue_codes = np.unique(_item_ids(catalogue, item_vocab, columns, "catalogue"))
    item_features = _features(features, item_vocab, columns) if features is not None \
        else None
    segment_of, segment_names = _segments_of(segments, user_vocab, columns) \
        if segments is not None else (None, [])
    read = _Read(user_vocab, item_vocab, truth, lists, history, base, known_items,
                 catalogue_codes, catalogue_size, item_features, segment_of, segment_names)
    k, n_users, n_items = chosen.k, read.n_users, read.n_items
    if seen is not None:
        had_list = lists.lengths(n_users) > 0
        # the lists were read into fresh arrays: the exclusion may overwrite them
        read.lists = exclude_seen(lists, seen, n_items, k, n_users, in_place=True)
        read.emptied = had_list & (read.lists.lengths(n_users) == 0)
        if base is not None:
            read.base = exclude_seen(base, seen, n_items, k, n_users, in_place=True)
    else:
        read.lists = lists.head(k)
        read.base = base.head(k) if base is not None else None
    return read


def _notes(read: _Read, beyond_measures: list[BeyondMeasure], default_catalogue: bool,
           missing: Missing) -> list[str]:
    """What the results say of their inputs: the default catalogue, the lists emptied."""
    said = read.known_items.notes(beyond_measures) if default_catalogue else []
    return said + _emptied_note(read, missing)


def _emptied_note(read: _Read, missing: Missing) -> list[str]:
    """The test users whose whole list exclude= removed, left out under missing='skip'."""
    if read.emptied is None or read.truth is None or missing != "skip":
        return []
    in_test = count_codes(read.truth.users, read.n_users) > 0
    return emptied_notes(int(np.count_nonzero(read.emptied & in_test)))


def no_list_message(emptied: int) -> str:
    """No test user has a list: *emptied* of them had one that exclude= emptied.

    Examples
    --------
    >>> no_list_message(0)
    'no user to evaluate: no test user has a recommendation list'
    """
    return "no user to evaluate: no test user has a recommendation list" + (
        f" ({counted(emptied, 'list')} held only items exclude= removes; missing='zero' "
        "scores such users 0)" if emptied else "")


def emptied_notes(emptied: int) -> list[str]:
    """The note on *emptied* test users whose lists exclude= emptied (none for 0).

    Examples
    --------
    >>> emptied_notes(0), emptied_notes(2)[0][:40]
    ([], '2 test users: every item of the list is ')
    """
    if not emptied:
        return []
    return [f"{counted(emptied, 'test user')}: every item of the list is one exclude= "
            "removes; left out of the means as a user without a list (missing='zero' scores "
            "such users 0)"]


def _evaluated_users(read: _Read, missing: Missing) -> tuple[np.ndarray, np.ndarray]:
    """Which users count (by code), and every user's list length.

    The test users with a list (every test user with ``missing="zero"``), or
    every user with a list without test interactions.
    """
    lengths = read.lists.lengths(read.n_users)
    has_list = lengths > 0
    if read.truth is not None:
        in_test = count_codes(read.truth.users, read.n_users) > 0
        evaluated = in_test & has_list if missing == "skip" else in_test
    else:
        evaluated = has_list
    emptied = 0 if read.emptied is None else int(np.count_nonzero(
        read.emptied & (in_test if read.truth is not None else True)))
    if not evaluated.any():
        raise InvalidParameterError(
            no_list_message(emptied) if read.truth is not None else
            "the recommendations are empty" + (
                " once exclude= removes its items" if emptied else ""))
    return evaluated, lengths


def _per_user_accuracy(accuracy: Results, users: Vocabulary, n_users: int,
                       codes: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Each accuracy measure's values by user code (NaN for users not evaluated).

    *codes*: the user code of each of the results' queries, when known (else
    their ids are looked up).
    """
    if codes is None:
        codes = users.lookup(_as_typed(accuracy.query_ids, users))
    out = {}
    for name in accuracy:
        values = np.full(n_users, np.nan)
        values[codes] = accuracy[name]
        out[name] = values
    return out


def _result(measures: list[Any], read: _Read, evaluated: np.ndarray,
            per_user: dict[str, np.ndarray], totals: dict[str, float],
            accuracy: Results | None) -> RecommenderResults:
    """The results of the evaluated users, the measures in the order asked."""
    order = {str(m): n for n, m in enumerate(measures)}

    def key(name: str) -> int:
        return order.get(name, len(order))

    eval_codes = np.flatnonzero(evaluated)
    per_user_eval = {name: per_user[name][eval_codes] for name in sorted(per_user, key=key)}
    means = {name: _nanmean(v) for name, v in per_user_eval.items()}
    if accuracy is not None:
        means.update({name: accuracy.mean[name] for name in accuracy})
    means.update(totals)
    means = {name: means[name] for name in sorted(means, key=key)}
    labels = read.users.ids(eval_codes)
    return RecommenderResults(labels, per_user_eval, means, accuracy)


def _id_order(vocab: Vocabulary) -> np.ndarray:
    """Rank of every code when the ids are sorted (numbers by value, text by bytes)."""
    import pyarrow.compute as pc

    labels = vocab.labels()
    order = np.asarray(pc.sort_indices(labels), dtype=np.int64)
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = np.arange(len(order))
    return ranks


def _arrow_codes(codes: np.ndarray) -> Any:
    import pyarrow as pa

    return pa.array(codes)


def _as_typed(texts: list[str], vocab: Vocabulary) -> Any:
    """Query ids (text) back in the vocabulary's type."""
    import pyarrow as pa

    labels = vocab.labels()
    array = pa.array(texts, type=pa.string())
    return array if pa.types.is_string(labels.type) else array.cast(labels.type)


def _nanmean(values: np.ndarray) -> float:
    finite = values[~np.isnan(values)]
    return float(finite.mean()) if len(finite) else float("nan")


def _depth(names: list[str]) -> int | None:
    """How deep the accuracy measures *names* read each list: their largest cutoff, or None.

    None (the whole list) when one of them has no cutoff.

    Examples
    --------
    >>> _depth(["ndcg@10", "P@5"]), _depth(["ndcg@10", "map"])
    (10, None)
    """
    from rankwise.measures import parse

    cutoffs = [parse(name).cutoff for name in names]
    return max(c for c in cutoffs if c is not None) if cutoffs and all(
        cutoff is not None for cutoff in cutoffs) else None


def _read_depth(accuracy_names: list[str], beyond_measures: list[BeyondMeasure],
                exclude: Any, baseline: Any) -> int | None:
    """How much of each list the evaluation reads: the accuracy measures' depth, or None.

    None when something reads the lists whole: the beyond-accuracy
    measures (and the default catalogue they count), the exclusion of seen
    items (it comes before any cut), a baseline, or a report that keeps the
    lists (:data:`handed_out`).
    """
    if beyond_measures or exclude is not None or baseline is not None or \
            handed_out.get() is not None or not accuracy_names:
        return None
    return _depth(accuracy_names)


def _accuracy(truth: Interactions, lists: Lists, names: list[str], users: Vocabulary,
              items: Vocabulary, *, rel: float, missing: Missing, engine: str,
              general: bool = False, lengths: np.ndarray | None = None
              ) -> tuple[Results, np.ndarray | None]:
    """The accuracy measures, through rankwise's engine, and the user code of each query.

    With an engine that computes with the engine's core (its capability
    ``rankings``: numpy) the ranking goes to the core on the integer codes
    (:func:`_accuracy_on_codes`: the users' codes come with the results);
    ``general=True`` (or another engine) builds judgments and a run of text
    ids and evaluates them as any run (the codes are None: found from the
    ids).
    """
    from rankwise.engines import get_engine

    depth = _depth(names)  # only the top of each list counts
    core = get_engine(engine, require=False)
    if not general and core.capabilities.rankings:
        fast = _accuracy_on_codes(truth, lists, names, users, items, rel=rel, missing=missing,
                                  depth=depth, lengths=lengths, engine=core)
        if fast is not None:
            return fast
    lists = lists.head(depth)
    from rankwise.data import Qrels, Run
    from rankwise.evaluation import evaluate

    qrels = Qrels.from_arrow(users.texts(truth.users), items.texts(truth.items),
                             np.array(truth.ratings, dtype=np.float64))
    # scores from the rank: the order is settled (ties broken by input row order)
    run = Run.from_arrow(users.texts(lists.users), items.texts(lists.items),
                         -lists.ranks.astype(np.float64), name="recommendations",
                         check_duplicates=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankwiseWarning)
        return evaluate(qrels, run, names, rel=rel, missing=missing, engine=engine), None


def _accuracy_on_codes(truth: Interactions, lists: Lists, names: list[str],
                       users: Vocabulary, items: Vocabulary, *, rel: float,
                       missing: Missing, depth: int | None = None,
                       lengths: np.ndarray | None = None, engine: Any = None
                       ) -> tuple[Results, np.ndarray] | None:
    """The accuracy measures from the integer codes: no text ids per row, no run to rank.

    The lists are ranked already (rank 1, 2, ... without ties), so the
    judged items retrieved, their ranks and every user's judgments are
    found by array operations and handed to
    :func:`rankwise.engines.core.evaluate_ranking`, as every engine does;
    the numbers are those of the general path (a run of text ids with
    scores ``-rank``). Only the first *depth* items of each list count
    (*lengths*: of every list, when known). Returns the results and the user
    code of each of their queries; None when a measure asks for a ranking
    this path does not make (a document dropped for having its query's id).
    """
    from rankwise.data import Qrels
    from rankwise.engines import get_engine
    from rankwise.engines.core import (
        Coverage,
        evaluate_ranking,
        plan_of,
        prepare_measures,
        ranking_missing,
    )
    from rankwise.measures.dialects import ranking_key
    from rankwise.options import options_from
    from rankwise.ranking.assemble import assemble_ranking
    from rankwise.ranking.tied import TiedRanking
    from rankwise.recommenders.inputs import native_kernels, pair_lookup

    options = options_from(None, rel=rel, missing=missing)
    parsed = prepare_measures(names, options)
    (engine if engine is not None else get_engine()).check(parsed, options)
    top = lists.top
    if any(ranking_key(plan_of(m).conventions)[2] for m in parsed) or (
            min(top, depth or top) >= 1 << 24):  # float32 ties
        return None
    n_users, n_items = max(len(users), 1), max(len(items), 1)
    judged_users = np.bincount(truth.users, minlength=n_users) > 0
    query_users = np.flatnonzero(judged_users)  # the judgments' queries, by code
    query_of = np.full(n_users, -1, dtype=np.int64)
    query_of[query_users] = np.arange(len(query_users))
    # each judgment's item id as text, made if read: the measures here read no document id
    # (the text of every item's id cost more than the measures)
    qrels = Qrels(query_of[truth.users], users.text_list(query_users), None, None,
                  np.asarray(truth.ratings, dtype=np.float64),  # ones: a broadcast, no copy
                  doc_rows=items.text_column(truth.items))
    lengths = lists.lengths(n_users) if lengths is None else lengths
    if depth is not None:
        lengths = np.minimum(lengths, depth)
    listed = lengths > 0
    counts = np.where(listed[query_users], lengths[query_users], -1)
    native = native_kernels()
    if native is not None and lists.list_users.dtype == lists.items.dtype and \
            truth.users.dtype == truth.items.dtype and n_users < 1 << 31:
        # each judgment's row in the lists (a list holds an item once): the output is
        # as long as the judgments, not the lists; a list's rows come in rank order,
        # so only its first `depth` rows are looked at
        held_users, held_items = (np.ascontiguousarray(a) for a in (truth.users, truth.items))
        # the first block's rows are the lists' rows: its pass writes the answer itself
        # (int32 rows below 2**31: half the bytes)
        row_type = np.int32 if len(lists.items) < 1 << 31 else np.int64
        found: np.ndarray = np.full(len(truth.users), -1, dtype=row_type)
        part = found
        for list_users, rows in lists.blocks():  # a user's list is in one block
            if part is found and rows.start > 0:
                part = np.empty(len(truth.users), dtype=row_type)
            native.join_pairs(held_users, held_items, list_users,
                              np.ascontiguousarray(lists.items[rows]), n_users, n_items, 1,
                              part, -1 if depth is None else depth)
            del list_users
            if part is not found:
                in_block = part >= 0
                found[in_block] = part[in_block] + rows.start
        del part
        judged = np.flatnonzero(found >= 0)
        listed_row = found[judged]
        del found
        order = np.argsort(listed_row, kind="stable")  # in the lists' row order
        hit, judged_row = listed_row[order], judged[order].astype(np.int64)
    else:
        lists = lists.head(depth)
        row = pair_lookup(truth.users, truth.items, lists.users, lists.items, n_users,
                          n_items, rows=True)
        hit = np.flatnonzero(row >= 0)
        judged_row = row[hit].astype(np.int64)
    # each hit's list (its user) and rank, the lists' bounds searched once
    hit_list = lists.list_of(hit)
    rank = np.asarray(hit, dtype=np.int64) - lists.offsets[hit_list] + 1
    if depth is not None and not (within := rank <= depth).all():
        hit_list, rank, judged_row = hit_list[within], rank[within], judged_row[within]
    ranking = assemble_ranking(
        qrels, counts,
        hit_query=query_of[lists.list_users[hit_list]], hit_rank=rank,
        hit_grade=truth.ratings[judged_row], tie_above=rank - 1,
        tie_size=np.ones(len(rank), dtype=np.int64), depth=None,
        missing=ranking_missing(parsed, options),
        hit_score=-rank.astype(np.float64),
        # each hit's judgment, for the measures that read it (ordering the judgments by
        # their rows costs a sort of every judgment)
        hit_row=judged_row if any(map(_reads_judgment_rows, parsed)) else None,
    )

    def rankings(key: tuple[str, bool, bool]) -> TiedRanking:
        # no ties and ranks below 2**24: input order, docno order and float32
        # scores all rank the lists as they are
        return ranking

    both = int(np.count_nonzero(listed & judged_users))
    coverage = Coverage(len(query_users) - both, int(np.count_nonzero(listed)) - both)
    results = evaluate_ranking(ranking, parsed, options, run_name="recommendations",
                               coverage=coverage, rankings=rankings)
    # the tie report now (the ranks are distinct: nothing to bound), so the results do
    # not keep the ranking and its judgments alive (a model of 1M users: ~0.4 GB each
    # in a comparison of several)
    results.ties  # noqa: B018
    # assemble_ranking gave each query's row in the judgments: its user's code
    return results, query_users[np.asarray(ranking.query_rows)]


def _reads_judgment_rows(measure: Measure) -> bool:
    """Whether *measure* reads each hit's judgment (the ranking's ``hit_judged``).

    The diversity measures (their subtopics) and an ideal ordered by the
    run's scores (``ideal=score``, :mod:`rankwise.kernels.other`) do.

    Examples
    --------
    >>> from rankwise.measures import parse
    >>> [_reads_judgment_rows(parse(m)) for m in ["ndcg@10", "alpha_ndcg@10", "Compat"]]
    [False, True, True]
    """
    from rankwise.measures.catalog import group_of

    return group_of(measure.name) == "diversity" or (
        "ideal" in measure.family.params and measure.param("ideal") == "score")


@dataclass(frozen=True)
class _DefaultCatalogue:
    """The catalogue when none is given: every item of the test, lists and training.

    The Spark engine counts the same items (:mod:`rankwise.recommenders.spark`).
    """

    size: int
    test: bool
    training: bool

    def tables(self) -> str:
        """The tables the items come from, in words."""
        names = [*(["training"] if self.training else []), *(["test"] if self.test else []),
                 "recommendation"]
        return (", ".join(names[:-1]) + " and " if len(names) > 1 else "") + names[-1] + \
            " tables"

    def available(self, measure: BeyondMeasure) -> int:
        """The size, or the error of a measure that needs a catalogue when none can be made.

        The recommended items alone are no catalogue (coverage would be 1).
        """
        if not (self.test or self.training):
            raise InvalidParameterError(
                f"{measure} needs the catalogue: give {argument('catalogue')} (item ids or "
                f"their number) or {argument('train')}; the default catalogue is every item "
                "of the training, test and recommendation tables, and here there are only "
                "recommendations")
        return self.size

    def notes(self, measures: Iterable[BeyondMeasure]) -> list[str]:
        """What the default catalogue was, for the measures that read it (coverage, Gini)."""
        readers = [str(m) for m in measures if m.name in _CATALOGUE]
        if not readers:
            return []
        return [f"{', '.join(readers)}: the catalogue is the {counted(self.size, 'item')} of the "
                f"{self.tables()}; give {argument('catalogue')} all items to count the ones "
                "in none of them"]


_CATALOGUE = {"coverage", "gini"}
"""The measures that read the catalogue."""


def _catalogue_check(measure: BeyondMeasure, counts: np.ndarray, size: int,
                     catalogue_codes: np.ndarray | None, items: Vocabulary | None,
                     item_order: np.ndarray | None) -> None:
    """Refuse a catalogue given that does not hold every item recommended (*counts* > 0)."""
    recommended = counts > 0
    outside = np.zeros(0, dtype=np.int64)
    if catalogue_codes is not None:
        inside = np.zeros(len(counts), dtype=bool)
        inside[catalogue_codes[catalogue_codes < len(counts)]] = True
        outside = np.flatnonzero(recommended & ~inside)
    examples: list[Any] = []
    if len(outside) and items is not None:
        first = outside[np.argsort(item_order[outside], kind="stable")[:5]] \
            if item_order is not None else outside[:5]
        examples = items.labels().take(_arrow_codes(first)).to_pylist()
    beyond.check_catalogue(int(np.count_nonzero(recommended)), size, outside=len(outside),
                           examples=examples, measure=str(measure))


class _Context:
    """What the beyond-accuracy measures share: lists, popularity, catalogue."""

    def __init__(self, lists: Lists, base: Lists | None, truth: Interactions | None,
                 history: Interactions | None, features: Any, n_users: int, n_items: int,
                 catalogue_codes: np.ndarray | None, catalogue_size: int | None,
                 item_order: np.ndarray | None = None, *,
                 known_items: _DefaultCatalogue | None = None,
                 items: Vocabulary | None = None,
                 evaluated: np.ndarray | None = None) -> None:
        self.lists, self.base, self.truth, self.history = lists, base, truth, history
        self.evaluated = evaluated  # the users evaluated (a mask by user code), None: all
        self.n_users, self.n_items = n_users, n_items
        self.features = features
        self.catalogue_codes, self.catalogue_size = catalogue_codes, catalogue_size
        self.known_items, self.items = known_items, items
        self.item_order = item_order  # rank of each item code in id order (tie-breaks)
        if history is not None:
            self.user_counts = count_codes(history.items, n_items).astype(np.float64)
            # the interactions: a pair's row counted once more per repeat (whole numbers,
            # exact in float64), without a float copy of every row's count
            self.interactions = self.user_counts.copy()
            repeated = np.flatnonzero(history.counts > 1)
            if len(repeated):
                self.interactions += np.bincount(history.items[repeated],
                                                 weights=history.counts[repeated] - 1,
                                                 minlength=n_items)
            self.train_users = float(np.count_nonzero(count_codes(history.users, n_users)))
        self._vectors: Any = None
        self._exposure: tuple[Lists, np.ndarray] | None = None

    def exposure(self, lists: Lists) -> np.ndarray:
        """c(i) of *lists* (kept for the last lists asked: coverage, Gini and entropy share it)."""
        if self._exposure is None or self._exposure[0] is not lists:
            self._exposure = (lists, beyond.exposure(lists, self.n_items))
        return self._exposure[1]

    def counted(self, lists: Lists) -> tuple[np.ndarray | None, np.ndarray | None]:
        """The training popularity per item code and c(i) of *lists*, those already counted."""
        popularity = self.user_counts if self.history is not None else None
        known = self._exposure is not None and self._exposure[0] is lists
        return popularity, self._exposure[1] if known and self._exposure is not None else None

    def need_history(self, measure: BeyondMeasure) -> Interactions:
        if self.history is None:
            raise InvalidParameterError(
                f"{measure} needs the training interactions: give {argument('train')} (or "
                f"{argument('exclude')})")
        return self.history

    def need_truth(self, measure: BeyondMeasure) -> Interactions:
        if self.truth is None:
            raise InvalidParameterError(
                f"{measure} needs the held-out interactions (held_out=)")
        return self.truth

    def relevant(self, measure: BeyondMeasure, rel: float = 1) -> Interactions:
        truth = self.need_truth(measure)
        keep = truth.ratings >= rel
        return Interactions(truth.users[keep], truth.items[keep], truth.ratings[keep],
                            truth.counts[keep])

    def size(self, measure: BeyondMeasure, lists: Lists) -> int:
        """The catalogue's size, checked to hold every item of *lists*."""
        if self.catalogue_size is not None:
            size = self.catalogue_size
        elif self.catalogue_codes is not None:
            size = len(self.catalogue_codes)
        elif self.known_items is not None:
            return self.known_items.available(measure)  # holds every item recommended
        else:  # pragma: no cover - evaluate_recommendations gives one of them
            raise InvalidParameterError(f"{measure} needs the catalogue")
        _catalogue_check(measure, self.exposure(lists), size, self.catalogue_codes, self.items,
                         self.item_order)
        return size

    def vectors(self) -> Any:
        if self._vectors is None:
            if self.features is not None:
                codes, matrix = self.features
                self._vectors = _place(codes, matrix, self.n_items)
            else:
                history = self.history
                if history is None:
                    raise InvalidParameterError(
                        "ild and serendipity(dialect=recommenders) need features= (item "
                        "vectors) or train= (items compared by co-occurrence)")
                self._vectors = _cooccurrence(history, self.n_items, self.n_users)
        return self._vectors

    def compute(self, m: BeyondMeasure, lists: Lists | None = None,
                users: np.ndarray | None = None) -> float | np.ndarray:
        """*m* on *lists*: a whole-set value, or one per user.

        *lists* default to the evaluated users'; *users* (a mask by user code,
        default: those evaluated) are the users whose judgments count.
        """
        lists = (lists if lists is not None else self.lists).head(m.cutoff)
        dialect = m.param("dialect")
        n_users, n_items = self.n_users, self.n_items
        if m.name == "coverage":
            return beyond.catalogue_coverage(lists, self.size(m, lists), self.exposure(lists))
        if m.name == "gini":
            return beyond.gini(self.exposure(lists), self.size(m, lists),
                               form="recbole" if dialect == "recbole" else "handbook")
        if m.name == "entropy":
            counts = self.exposure(lists)
            if dialect == "recbole":
                return beyond.shannon_entropy(counts, base=math.e, per_item=True)
            return beyond.shannon_entropy(counts)
        if m.name == "personalisation":
            return beyond.personalisation(lists, n_items)
        if m.name == "ild":
            return beyond.ild(lists, self.vectors(), n_users)
        if m.name == "serendipity":
            if dialect == "recommenders":
                truth = self.need_truth(m)
                history = self.need_history(m)
                relevance = contains(truth.keys(n_items), lists.keys(n_items),
                                     n_items).astype(np.float64)
                return beyond.history_serendipity(lists, history, self.vectors(), relevance,
                                                  n_users)[1]
            if self.base is None:
                raise InvalidParameterError(
                    f"{m} needs a baseline recommender's lists: give baseline=")
            base = self.base.head(m.cutoff)
            return beyond.serendipity(lists, base, self.relevant(m), n_items, n_users)
        history = self.need_history(m)
        if m.name == "novelty":
            if dialect == "recommenders":
                pop = self.interactions[lists.items]
                total = float(history.counts.sum())
                known = pop > 0
                return float(np.sum(-np.log2(pop[known] / total)) / max(len(pop), 1))
            return beyond.novelty(lists, self.user_counts, self.train_users, n_users)
        if m.name == "arp":
            return beyond.arp(lists, self.interactions, n_users,
                              k=m.cutoff if dialect == "recbole" else None)
        if m.name in ("aplt", "popreo"):
            tail = self._tail(m)
            if m.name == "aplt":
                return beyond.aplt(lists, tail, n_users,
                                   k=m.cutoff if dialect == "recbole" else None)
            head = (self.interactions > 0) & ~tail
            relevant = self.relevant(m)
            counted = users if users is not None else self.evaluated
            if counted is not None:  # the denominators: the relevant items of these users
                keep = counted[relevant.users]
                relevant = Interactions(relevant.users[keep], relevant.items[keep],
                                        relevant.ratings[keep], relevant.counts[keep])
            return beyond.popreo(lists, relevant, tail, head, n_items, history)
        if m.name == "epc":
            share = self.user_counts / self.train_users
            return beyond.epc(lists, self.relevant(m), share, n_items, n_users)
        raise UnknownMeasureError(f"unknown recommender measure {m.name!r}")  # pragma: no cover

    def _tail(self, m: BeyondMeasure) -> np.ndarray:
        if m.param("dialect") == "recbole":
            return recbole_tail(self.interactions, self.interactions > 0, m.param("tail"),
                                ties=self.item_order)
        return beyond.long_tail(self.interactions, head=m.param("head", 0.8),
                                ties=self.item_order)


def recbole_tail(counts: np.ndarray, known: np.ndarray, tail: float | None, *,
                 ties: np.ndarray | None = None) -> np.ndarray:
    """RecBole's ``TailPercentage`` tail: count <= tail (tail > 1), else the bottom share.

    With *tail* <= 1 (default 0.1) the tail is the first max(int(n * tail), 1)
    of the *known* items sorted by (count, id) ascending, as RecBole sorts
    its ``count_items`` by (count, item id). *ties* gives each code's rank
    in id order (numbers by value, text by bytes; default: the code), so
    items of equal count are cut by their ids, not by the order they were
    first read: with RecBole's own integer item ids the tail is RecBole's.

    Examples
    --------
    >>> recbole_tail(np.array([0.0, 0, 1, 2, 3, 4, 5, 0]),
    ...              np.array([False, True, True, True, True, True, True, False]), None).tolist()
    [False, True, False, False, False, False, False, False]
    >>> counts, known = np.array([2.0, 1.0, 1.0]), np.ones(3, dtype=bool)
    >>> recbole_tail(counts, known, 0.5, ties=np.array([0, 2, 1])).tolist()  # ids a, c, b
    [False, False, True]
    """
    ratio = 0.1 if tail is None else tail
    mask = np.zeros(len(counts), dtype=bool)
    if ratio > 1:
        mask[known] = counts[known] <= ratio
        return mask
    codes = np.flatnonzero(known)
    order = codes[np.lexsort((codes if ties is None else ties[codes], counts[codes]))]
    mask[order[:max(int(len(codes) * ratio), 1)]] = True
    return mask


def by_segment(segment_of: np.ndarray, names: list[Any], evaluated: np.ndarray,
               per_user: dict[str, np.ndarray],
               set_level_of: Callable[[np.ndarray], dict[str, float]], order: list[str],
               test: str) -> SegmentResults:
    """Every measure per segment, and the test between segments.

    *segment_of* gives each user (code, or row of *per_user*'s arrays) its
    segment's index in *names* (-1: none); *evaluated* marks the users that
    count. Per-user measures: the mean of each segment's values (NaN left
    out) and the test; whole-set ones: ``set_level_of(members)`` (the values
    of that segment's users' lists). The Spark engine gives its per-user
    values collected, and computes the whole-set values on Spark.
    """
    from scipy import stats

    mean: dict[Any, dict[str, float]] = {}
    counts: dict[Any, int] = {}
    groups: dict[str, list[np.ndarray]] = {name: [] for name in per_user}
    for index, name in enumerate(names):
        members = evaluated & (segment_of == index)
        counts[name] = int(members.sum())
        row: dict[str, float] = {}
        for measure, values in per_user.items():
            chosen = values[members]
            chosen = chosen[~np.isnan(chosen)]
            groups[measure].append(chosen)
            row[measure] = float(chosen.mean()) if len(chosen) else float("nan")
        row.update(set_level_of(members))
        mean[name] = {key: row[key] for key in order if key in row}
    p_values: dict[str, float] = {}
    for key in order:
        samples = [g for g in groups.get(key, []) if len(g) >= 2]
        if key not in groups or len(samples) < 2:
            p_values[key] = float("nan")
            continue
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            if test == "welch":
                # Welch's ANOVA is rankwise's: scipy's f_oneway has equal_var from 1.16 only
                result = stats.ttest_ind(*samples, equal_var=False) if len(samples) == 2 \
                    else SimpleNamespace(pvalue=welch_anova(samples)[1])
            else:
                result = stats.mannwhitneyu(*samples, alternative="two-sided") \
                    if len(samples) == 2 else stats.kruskal(*samples)
        p_values[key] = float(result.pvalue)
    label = {"welch": "Welch's t-test" if len(names) == 2 else "Welch's ANOVA",
             "rank": "Mann-Whitney U" if len(names) == 2 else "Kruskal-Wallis"}[test]
    return SegmentResults(names, mean, counts, p_values, label)
