"""Recommender inputs as flat integer columns: interactions, recommendation lists.

Every input form (pandas, polars or Arrow tables, ``{column: values}``
mappings, ``{user: [item, ...]}`` top-k lists, a 2-D array of item ids with a
user index) becomes a :class:`Lists` (one row per recommended item, grouped by
user in rank order) or an :class:`Interactions` (one row per user-item pair),
with users and items coded once against shared vocabularies
(:class:`Vocabulary`), so that excluding seen items, cutting at k and every
measure are array operations: no Python loop per user or per row.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise._wording import counted
from rankwise.data._strings import StringChunk, StringColumn, string_chunks
from rankwise.exceptions import InputFormatError, InvalidParameterError
from rankwise.suggest import did_you_mean

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "ROLES",
    "Interactions",
    "Lists",
    "Vocabulary",
    "argument",
    "as_table",
    "contains",
    "count_codes",
    "exclude_seen",
    "find_column",
    "first_of_keys",
    "native_kernels",
    "numbers_of",
    "pair_lookup",
    "positions",
    "spelled_as",
]

_NARROW = 1 << 31
"""Codes and ranks below this fit int32: lists are kept in int32 columns (half the bytes)."""

_PYTHON_TEXTS = 1 << 16
"""Up to this many integer ids are made text by Python's ``str``, more by an Arrow cast.

A first Arrow cast of a few hundred KB in a process puts its buffers on fresh
huge pages of Arrow's allocator (measured: 2-3 huge pages, 2-15 ms of page
zeroing on a 20,000-id cast); Python's ``str`` costs ~0.1 us an id (~2 ms for
20,000), Arrow ~0.07 us: past this many ids, Arrow's is the cheaper.
"""

ROLES: dict[str, tuple[str, ...]] = {
    "user": ("user", "user_id", "userID", "userId", "UserId", "uid", "user:token"),
    "item": ("item", "item_id", "itemID", "itemId", "ItemId", "iid", "item:token"),
    "score": ("score", "prediction", "pred", "predictions"),
    "rank": ("rank",),
    "rating": ("rating", "weight", "relevance", "label", "rating:float"),
    "timestamp": ("timestamp", "time", "ts"),
}
"""Each column role and the names found without a column map, in order."""


_SPELLING: ContextVar[Mapping[str, str] | None] = ContextVar("rankwise_recs_spelling",
                                                             default=None)


def argument(name: str) -> str:
    """How the user gives argument *name*, for error messages: ``catalogue=`` from Python.

    Under :func:`spelled_as` (the command line), the option instead.

    Examples
    --------
    >>> argument("catalogue")
    'catalogue='
    >>> with spelled_as({"catalogue": "--catalogue"}):
    ...     argument("catalogue"), argument("baseline")
    ('--catalogue', 'baseline=')
    """
    names = _SPELLING.get()
    return names.get(name, f"{name}=") if names else f"{name}="


@contextmanager
def spelled_as(names: Mapping[str, str]) -> Iterator[None]:
    """Error messages name the arguments as *names* says (``{"catalogue": "--catalogue"}``)."""
    token = _SPELLING.set(dict(names))
    try:
        yield
    finally:
        _SPELLING.reset(token)


def as_table(obj: Any, what: str) -> pa.Table:
    """An Arrow table of any table form (:func:`rankwise.io.coerce.as_table`, io's dispatcher).

    Pandas, polars or Arrow tables, named tuples, table files, ``{column: values}``.
    """
    from rankwise.io.coerce import as_table as table_of

    return table_of(obj, what)


def numbers_of(table: pa.Table, column: str, role: str, what: str, *,
               booleans: bool = False) -> np.ndarray:
    """The *column* of *table* (playing *role*: score, rank, rating) as finite float64.

    One rule with :func:`rankwise.io.tables.run_from_table`: numbers, or
    decimal text in CSV and TSV files; a bad value is an
    :class:`~rankwise.exceptions.InputFormatError` naming the file and line
    of a table :func:`rankwise.io.tables.read_table` read (else *what* and
    the row), what was expected and what came.

    Examples
    --------
    >>> import pyarrow as pa
    >>> numbers_of(pa.table({"score": [0.5, 2]}), "score", "score", "recommendations")
    array([0.5, 2. ])
    >>> numbers_of(pa.table({"pred": ["high"]}), "pred", "score", "recommendations")
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InputFormatError: recommendations: row 1: score (column 'pred') must be
    a number, got 'high' (the column holds text); convert the column to numbers first
    """
    from rankwise.io.frames import numbers_of_table

    label = role if column == role else f"{role} (column {column!r})"
    return numbers_of_table(table, column, label, what, booleans=booleans)


def find_column(
    table: pa.Table, role: str, columns: Mapping[str, str] | None, what: str,
    *, required: bool = True,
) -> str | None:
    """The column of *table* playing *role*: the column map's, else a usual name.

    One column map serves every table (judgments, recommendations,
    training): a table without the mapped column falls back to the usual
    names of the role (:data:`ROLES`).
    """
    return column_named(list(table.column_names), role, columns, what, required=required)


def column_named(
    names: list[str], role: str, columns: Mapping[str, str] | None, what: str,
    *, required: bool = True,
) -> str | None:
    """Which of the column *names* (of any table: Arrow, Spark) plays *role*.

    As :func:`find_column`: the column map's name, else a usual name of the role.

    Examples
    --------
    >>> column_named(["uid", "item"], "user", {"user": "uid"}, "test")
    'uid'
    >>> column_named(["user_id", "item"], "user", None, "test")
    'user_id'
    >>> column_named(["item"], "user", None, "test")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InputFormatError: test: no user column (looked for ['user', ...
    """
    mapped = columns.get(role) if columns else None
    if mapped is not None and mapped in names:
        return mapped
    for name in ROLES[role]:
        if name in names:
            return name
    if mapped is not None and required:
        raise InputFormatError(
            f"{what}: columns={{'{role}': '{mapped}'}} names no column, and none of "
            f"{list(ROLES[role])} is there; columns are {names}" + did_you_mean(mapped, names)
        )
    if required:
        raise InputFormatError(
            f"{what}: no {role} column (looked for {list(ROLES[role])}); columns are "
            f"{names}; name it with columns={{'{role}': '<column>'}}"
        )
    return None


def check_column_roles(columns: Mapping[str, str] | None) -> None:
    """Refuse a column map with a role no table has (a typo: ``{"scores": ...}``).

    Examples
    --------
    >>> check_column_roles({"user": "uid", "segment": "group"})
    >>> check_column_roles({"scores": "pred"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InvalidParameterError: columns: unknown role 'scores'; the roles ...
    """
    if not columns:
        return
    from rankwise.exceptions import InvalidParameterError

    roles = [*ROLES, "segment"]
    for role in columns:
        if role not in roles:
            raise InvalidParameterError(
                f"columns: unknown role {role!r}; the roles are {', '.join(roles)}"
                + did_you_mean(str(role), roles))


class Vocabulary:
    """Ids of one kind (users or items) seen in any input, coded 0..n-1 in order of arrival.

    Examples
    --------
    >>> v = Vocabulary("item")
    >>> v.encode([10, 20, 10]).tolist(), v.encode([30, 20]).tolist(), len(v)
    ([0, 1, 0], [2, 1], 3)
    >>> v.labels().to_pylist()
    [10, 20, 30]
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._chunks: list[pa.Array] = []
        self._type: pa.DataType | None = None
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def _normalise(self, values: Any) -> pa.Array:
        import pyarrow as pa

        if isinstance(values, pa.ChunkedArray):
            values = values.combine_chunks()
        if not isinstance(values, pa.Array):
            try:
                values = pa.array(np.asarray(values) if isinstance(values, np.ndarray)
                                  else values)
            except (pa.ArrowInvalid, pa.ArrowTypeError) as error:  # a mix: [1, "1"], ["a", 1.5]
                raise InputFormatError(
                    f"{self.kind} ids must be all integers or all text: {error}") from None
        if len(values) == 0 and pa.types.is_null(values.type):  # no ids at all (empty lists)
            return values.cast(self._type or pa.string())
        if pa.types.is_dictionary(values.type):
            values = values.dictionary_decode()
        if pa.types.is_large_string(values.type) or pa.types.is_string_view(values.type):
            values = values.cast(pa.string())
        if pa.types.is_integer(values.type):
            values = self._as_int64(values)
        if values.null_count:
            row = int(np.flatnonzero(values.is_null().to_numpy(zero_copy_only=False))[0])
            raise InputFormatError(f"{self.kind} id missing (null) at row {row}")
        if not (pa.types.is_integer(values.type) or pa.types.is_string(values.type)):
            raise InputFormatError(
                f"{self.kind} ids must be integers or text, got {values.type}"
            )
        if self._type is None:
            self._type = values.type
        elif values.type != self._type:
            raise InputFormatError(
                f"{self.kind} ids are {self._type} in one input and {values.type} in another; "
                "give them one type (for example cast both to str)"
            )
        return values

    def _as_int64(self, values: pa.Array) -> pa.Array:
        """Integer ids as int64; an unsigned id past 2^63 - 1 is one clear error.

        Examples
        --------
        >>> import pyarrow as pa
        >>> Vocabulary("item")._as_int64(pa.array([1, 2**64 - 1], pa.uint64()))
        Traceback (most recent call last):
        ...
        rankwise.exceptions.InputFormatError: item id 18446744073709551615 (row 1) is past \
the largest 64-bit signed integer (2**63 - 1): give such ids as text, for example \
with .astype(str)
        """
        import pyarrow as pa

        if pa.types.is_unsigned_integer(values.type) and values.type.bit_width == 64:
            past = np.flatnonzero(values.to_numpy(zero_copy_only=False) > np.uint64(2**63 - 1))
            if len(past):
                row = int(past[0])
                raise InputFormatError(
                    f"{self.kind} id {values[row].as_py()} (row {row}) is past the largest "
                    "64-bit signed integer (2**63 - 1): give such ids as text, for example "
                    "with .astype(str)")
        return values.cast(pa.int64())

    def encode(self, values: Any, *, narrow: bool = False) -> np.ndarray:
        """Codes of *values* (int64; int32 with *narrow*), adding the ids not seen before."""
        import pyarrow as pa
        import pyarrow.compute as pc

        values = self._integers(values)
        if isinstance(values, np.ndarray) and values.dtype.kind in "iu" and values.ndim == 1 \
                and (self._type is None or self._type == pa.int64()):
            fast = self._encode_small_integers(values, narrow=narrow)
            if fast is not None:
                return fast
        array = self._normalise(values)
        if len(array) == 0:
            return np.zeros(0, dtype=np.int32 if narrow else np.int64)
        known = self.labels()
        if len(known):
            codes = pc.index_in(array, value_set=known).to_numpy(zero_copy_only=False)
            new = np.isnan(codes) if codes.dtype.kind == "f" else np.zeros(len(codes), bool)
            if codes.dtype.kind == "f":
                codes = np.where(new, -1, codes)
            codes = codes.astype(np.int64)
        else:
            codes = np.full(len(array), -1, dtype=np.int64)
            new = np.ones(len(array), dtype=bool)
        if new.any():
            fresh = array.filter(pa.array(new))
            encoded = pc.dictionary_encode(fresh).combine_chunks() if isinstance(
                fresh, pa.ChunkedArray) else pc.dictionary_encode(fresh)
            indices = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
            codes[new] = indices + self._size
            self._chunks.append(encoded.dictionary)
            self._size += len(encoded.dictionary)
        coded: np.ndarray = codes.astype(np.int32) if narrow and self._size < _NARROW else codes
        return coded

    @staticmethod
    def _integers(values: Any) -> Any:
        """An Arrow column of integer ids without nulls as a numpy array; others as they are.

        A column of one chunk gives its buffer as it is (no copy).
        """
        import pyarrow as pa

        if isinstance(values, (pa.Array, pa.ChunkedArray)) and pa.types.is_integer(
                values.type) and values.null_count == 0:
            if isinstance(values, pa.ChunkedArray) and values.num_chunks == 1:
                values = values.chunk(0)  # its buffer as it is: no copy
            values = values.to_numpy() if isinstance(values, pa.Array) else np.concatenate(
                [c.to_numpy() for c in values.chunks] or [np.zeros(0, dtype=np.int64)])
        return values

    def _encode_small_integers(self, values: np.ndarray, *, narrow: bool = False
                               ) -> np.ndarray | None:
        """Codes of non-negative integer ids through a table (no hashing), or None."""
        table = self._id_table(values, narrow=narrow)
        if table is None:
            return None
        native = native_kernels()
        if native is None or values.dtype not in (np.int32, np.int64):
            self.add_ids(table, values)
            taken: np.ndarray = table[values]
            return taken
        values = np.ascontiguousarray(values)  # the C passes: no copy of values as intp
        out = np.empty(len(values), dtype=table.dtype)
        if table[-1] >= 0 and native.take_codes(table, values, out) == 0:
            return out  # the largest id known: maybe all are, and they were (one pass)
        self.add_ids(table, values)
        native.take_codes(table, values, out)
        return out

    def _id_table(self, values: np.ndarray, *, narrow: bool) -> np.ndarray | None:
        """The codes of the ids known, indexed by id up to the largest of *values*, or None.

        -1 for the ids not known; None when the ids do not suit a table
        (negative, or too sparse).
        """
        import pyarrow as pa
        import pyarrow.compute as pc

        if len(values) == 0:
            return None
        bounds = pc.min_max(pa.array(values))  # one pass over the ids for both (no copy)
        low, high = int(bounds["min"].as_py()), int(bounds["max"].as_py())
        known = self.labels().to_numpy(zero_copy_only=False) if self._size else \
            np.zeros(0, dtype=np.int64)
        top = max(high, int(known.max()) if len(known) else 0)
        if low < 0 or (len(known) and int(known.min()) < 0) or top > 4 * (
                len(values) + len(known)) + (1 << 20):
            return None
        self._normalise(pa.array(values[:1]))  # the type check (int64)
        narrow = narrow and self._size + top + 1 < _NARROW
        table = np.full(top + 1, -1, dtype=np.int32 if narrow else np.int64)
        table[known] = np.arange(len(known), dtype=table.dtype)
        return table

    def add_ids(self, table: np.ndarray, values: np.ndarray) -> None:
        """Code the ids of *values* not known yet, in id order, and write them in *table*.

        *table* is ``_id_table``'s for *values*.
        """
        native = native_kernels()
        present = np.zeros(len(table), dtype=np.bool_)
        if native is not None and values.dtype in (np.int32, np.int64):
            native.count_codes(np.ascontiguousarray(values), present)
        else:
            present[values] = True
        self.add_present(table, present)

    def add_present(self, table: np.ndarray, present: np.ndarray) -> None:
        """Code the ids where *present* that are not known yet, and write them in *table*.

        *present* is a flag or count per id of *table*; the new ids are
        coded in id order, as :meth:`encode` codes them.
        """
        import pyarrow as pa

        new_ids = np.flatnonzero((present != 0) & (table < 0))  # in id order
        table[new_ids] = np.arange(self._size, self._size + len(new_ids), dtype=table.dtype)
        if len(new_ids):
            self._chunks.append(pa.array(new_ids.astype(np.int64, copy=False)))
            self._size += len(new_ids)

    def id_table(self, values: Any) -> tuple[np.ndarray, np.ndarray] | None:
        """Integer ids as they are and an int32 table of the codes known (-1: not yet), or None.

        For a pass that reads the ids itself (:func:`_head_lists`), then
        codes those it holds (:meth:`add_present`): None when :meth:`encode`
        would not code *values* through a table (text ids, negative or
        sparse integers, codes past int32). Nothing is added.

        Examples
        --------
        >>> v = Vocabulary("item")
        >>> v.encode(np.array([4])).tolist()
        [0]
        >>> ids, table = v.id_table(np.array([4, 2, 4]))
        >>> table.tolist()
        [-1, -1, -1, -1, 0]
        >>> v.add_present(table, np.array([0, 0, 1, 0, 1])); table.tolist(), len(v)
        ([-1, -1, 1, -1, 0], 2)
        """
        import pyarrow as pa

        values = self._integers(values)
        if not (isinstance(values, np.ndarray) and values.dtype in (np.int32, np.int64)
                and values.ndim == 1 and (self._type is None or self._type == pa.int64())):
            return None
        table = self._id_table(values, narrow=True)
        if table is None or table.dtype != np.int32:
            return None
        return np.ascontiguousarray(values), table

    def lookup(self, values: Any) -> np.ndarray:
        """Codes of *values*, -1 for ids not in the vocabulary (nothing is added)."""
        import pyarrow.compute as pc

        array = self._normalise(values)
        if len(array) == 0 or self._size == 0:
            return np.full(len(array), -1, dtype=np.int64)
        codes = pc.index_in(array, value_set=self.labels()).fill_null(-1)
        return codes.to_numpy(zero_copy_only=False).astype(np.int64)

    def labels(self) -> pa.Array:
        """The ids in code order."""
        import pyarrow as pa

        if not self._chunks:
            return pa.array([], type=self._type or pa.string())
        if len(self._chunks) > 1:
            # integer ids joined by numpy: their buffer is numpy's (zero-copy in Arrow), no
            # Arrow allocation
            self._chunks = [pa.array(np.concatenate([c.to_numpy() for c in self._chunks]))
                            if pa.types.is_integer(self._chunks[0].type) else
                            pa.concat_arrays(self._chunks)]
        return self._chunks[0]

    def ids(self, codes: np.ndarray) -> list[Any]:
        """The ids of *codes* as Python objects (int or str); integer ids taken by numpy.

        Examples
        --------
        >>> v = Vocabulary("user")
        >>> v.encode(np.array([7, 30])).tolist()
        [0, 1]
        >>> v.ids(np.array([1, 1, 0]))
        [30, 30, 7]
        """
        import pyarrow as pa

        labels = self.labels()
        if pa.types.is_integer(labels.type):
            taken: list[Any] = labels.to_numpy()[codes].tolist()
            return taken
        return list(labels.take(pa.array(codes)).to_pylist())

    def text_list(self, codes: np.ndarray) -> list[str]:
        """The ids of *codes* as text (:meth:`texts`), a list of ``str``.

        Up to :data:`_PYTHON_TEXTS` integer ids by Python's ``str`` (no Arrow
        buffers), more through :meth:`texts`: the same text either way.

        Examples
        --------
        >>> v = Vocabulary("user")
        >>> v.encode(np.array([7, -30])).tolist()
        [0, 1]
        >>> v.text_list(np.array([1, 0]))
        ['-30', '7']
        """
        import pyarrow as pa

        if len(codes) <= _PYTHON_TEXTS and self._size and pa.types.is_integer(self._type):
            return list(map(str, self.ids(codes)))
        return list(self.texts(codes).to_pylist())

    def texts(self, codes: np.ndarray) -> pa.Array:
        """The ids of *codes* as text (for rankwise's judgments and runs)."""
        import pyarrow as pa

        taken = self.labels().take(pa.array(codes))  # then cast: only the ids asked for
        return taken if pa.types.is_string(taken.type) else taken.cast(pa.string())

    def text_column(self, codes: np.ndarray) -> StringColumn:
        """The ids of *codes* as text (:meth:`texts`), made when first read.

        For judgments whose document ids nothing may read (the accuracy
        measures on codes): the column holds *codes* until then.

        Examples
        --------
        >>> v = Vocabulary("item")
        >>> v.encode(np.array([7, 30])).tolist()
        [0, 1]
        >>> column = v.text_column(np.array([1, 0, 1]))
        >>> len(column), column.to_pylist()
        (3, ['30', '7', '30'])
        """
        return _Texts(self, codes)


class _Texts(StringColumn):
    """A :class:`StringColumn` of ids as text, from their codes when first read."""

    __slots__ = ("_codes", "_vocabulary")

    def __init__(self, vocabulary: Vocabulary, codes: np.ndarray) -> None:
        self._vocabulary: Vocabulary | None = vocabulary
        self._codes = codes
        self._length = len(codes)
        self._arrow = None
        self._chunks: list[StringChunk] = []

    def _made(self) -> None:
        if self._vocabulary is not None:
            import pyarrow as pa

            texts = self._vocabulary.texts(self._codes)
            self._chunks = string_chunks(pa.chunked_array([texts], type=pa.string()))
            self._vocabulary, self._codes = None, self._codes[:0]

    @property
    def chunks(self) -> list[StringChunk]:
        self._made()
        return super().chunks

    def to_arrow(self) -> pa.ChunkedArray:
        self._made()
        return super().to_arrow()

    def to_pylist(self) -> list[str]:
        self._made()
        return super().to_pylist()


@dataclass(frozen=True)
class Interactions:
    """User-item interactions (judgments, training history): coded, one row per pair.

    Attributes
    ----------
    users, items : ndarray of int32 or int64
        Codes in the shared vocabularies (int32 when they fit).
    ratings : ndarray of float64
        The rating (or weight) of each pair, 1 when the table has none.
    counts : ndarray of int32 or int64
        How many rows of the table the pair had (interactions repeated):
        int32 below 2**31 rows (half the bytes of a large training table).

    Columns are not written to; ratings and counts of all ones may be a
    read-only broadcast 1 (no memory per row).
    """

    users: np.ndarray
    items: np.ndarray
    ratings: np.ndarray
    counts: np.ndarray

    @classmethod
    def read(
        cls, obj: Any, users: Vocabulary, items: Vocabulary, *,
        columns: Mapping[str, str] | None = None, what: str = "interactions",
        rating: bool = True,
    ) -> Interactions:
        """Code a table of interactions; repeated pairs are merged (ratings: the largest)."""
        table = as_table(obj, what)
        user_col = find_column(table, "user", columns, what)
        item_col = find_column(table, "item", columns, what)
        rating_col = find_column(table, "rating", columns, what, required=False) if rating \
            else None
        u = users.encode(table.column(user_col), narrow=True)
        i = items.encode(table.column(item_col), narrow=True)
        if rating_col is not None:
            r = numbers_of(table, rating_col, "rating", what, booleans=True)
        else:
            r = None
        return cls.from_codes(u, i, r, n_items=max(len(items), 1))

    @classmethod
    def from_codes(cls, u: np.ndarray, i: np.ndarray, r: np.ndarray | None, *,
                   n_items: int) -> Interactions:
        """Merge repeated pairs (ratings: the largest), in linear time.

        The pairs keep the order of their first rows (not sorted). ``r=None``:
        every rating is 1.
        """
        both32 = np.asarray(u).dtype == np.asarray(i).dtype == np.int32
        dtype = np.int32 if both32 else np.int64
        u = np.ascontiguousarray(u, dtype=dtype)
        i = np.ascontiguousarray(i, dtype=dtype)
        native = native_kernels()
        if native is not None and len(u) > 1:
            n_users = int(u.max()) + 1
            repeated = np.empty(len(u), dtype=np.bool_)
            native.join_pairs(u, i, u, i, n_users, n_items, 2, repeated)
            later = np.flatnonzero(repeated)  # usually few: merged one by one
            n_kept = len(u) - len(later)
            if len(later) == 0:
                ratings = _ones(n_kept, np.float64) if r is None else np.asarray(
                    r, dtype=np.float64)
                return cls(u, i, ratings, _ones(n_kept, np.int64))
            owner = np.empty(len(later), dtype=np.int64)  # each one's first row
            native.join_pairs(u[later], i[later], u, i, n_users, n_items, 1, owner)
            keep = ~repeated
            kept_owner = owner - np.searchsorted(later, owner)  # its index among those kept
            counts: np.ndarray = np.ones(n_kept, dtype=_count_type(len(u)))
            np.add.at(counts, kept_owner, 1)
            if r is None:
                ratings = _ones(n_kept, np.float64)
            else:
                r = np.asarray(r, dtype=np.float64)
                ratings = r[keep]
                np.maximum.at(ratings, kept_owner, r[later])
            return cls(u[keep], i[keep], ratings, counts)
        if r is None:
            r = np.ones(len(u))
        first, owner = first_of_keys(u.astype(np.int64) * n_items + i, n_items)
        if first.all():
            return cls(u, i, np.asarray(r, dtype=np.float64), np.ones(len(u), dtype=np.int64))
        counts = np.bincount(owner, minlength=len(u))[first]
        ratings = np.asarray(r, dtype=np.float64)
        if (ratings != ratings[0]).any():
            best = np.full(len(u), -np.inf)
            np.maximum.at(best, owner, ratings)
            ratings = best
        return cls(u[first], i[first], ratings[first], counts.astype(_count_type(len(u))))

    def keys(self, n_items: int) -> np.ndarray:
        """One int64 per pair: ``user * n_items + item``."""
        return self.users.astype(np.int64) * n_items + self.items


@dataclass(frozen=True, eq=False)
class Lists:
    """Recommendation lists: each user's items in rank order, one list after another.

    Attributes
    ----------
    items : ndarray of int32 or int64
        Item codes, one row per recommended item; a list's rows are
        contiguous, in rank order.
    list_users : ndarray of int32 or int64
        The user code of each list, in the order of their rows (a list is
        never empty).
    offsets : ndarray of int64
        The row where each list starts, then the number of rows
        (``len(list_users) + 1`` bounds).

    The user and rank of every row (:attr:`users`, :attr:`ranks`) are
    derived when asked for, not kept: a million lists of 100 items hold
    400 MB of item codes, not 1.2 GB. A 2-D array of item ids with a row
    per user needs no row index at all (its bounds are a stride). Large
    lists are kept in int32 columns (half the bytes of every pass); pair
    keys go through :meth:`keys` (int64).

    Examples
    --------
    >>> lists = Lists.from_rows(np.array([4, 4, 1, 1, 1]), np.array([7, 8, 7, 9, 5]))
    >>> lists.list_users.tolist(), lists.offsets.tolist()
    ([4, 1], [0, 2, 5])
    >>> lists.users.tolist(), lists.ranks.tolist()
    ([4, 4, 1, 1, 1], [1, 2, 1, 2, 3])
    """

    items: np.ndarray
    list_users: np.ndarray
    offsets: np.ndarray

    def __post_init__(self) -> None:
        if len(self.offsets) != len(self.list_users) + 1:
            raise ValueError(f"Lists: {len(self.offsets)} offsets for "
                             f"{len(self.list_users)} lists (one more expected)")

    @classmethod
    def from_rows(cls, users: np.ndarray, items: np.ndarray) -> Lists:
        """Lists of rows grouped by user, each user's in rank order (ranks 1, 2, ...)."""
        users = np.asarray(users)
        n = len(users)
        starts = np.flatnonzero(users[1:] != users[:-1]) + 1 if n else np.zeros(0, np.int64)
        offsets = np.concatenate([[0], starts, [n]]).astype(np.int64) if n else \
            np.zeros(1, dtype=np.int64)
        return cls(np.asarray(items), users[offsets[:-1]], offsets)

    @property
    def sizes(self) -> np.ndarray:
        """The length of each list (int64, in the order of :attr:`list_users`)."""
        return np.diff(self.offsets)

    @property
    def top(self) -> int:
        """The length of the longest list (its last rank), 0 without lists."""
        return int(self.sizes.max()) if len(self.list_users) else 0

    @property
    def users(self) -> np.ndarray:
        """The user code of every row (made when asked for: 4 or 8 bytes a row)."""
        return np.repeat(self.list_users, self.sizes)

    @property
    def ranks(self) -> np.ndarray:
        """The 1-based position of every row in its list (int32 below 2**31 rows)."""
        n = len(self.items)
        dtype = np.int32 if n < 1 << 31 else np.int64
        ranks = np.ones(n, dtype=dtype)
        sizes = self.sizes
        # each list's first row starts the count again: 1 - the length of the list before
        ranks[self.offsets[1:-1]] = 1 - sizes[:-1]
        return np.cumsum(ranks, dtype=dtype, out=ranks)

    def list_of(self, rows: np.ndarray) -> np.ndarray:
        """The index of the list holding each of *rows*."""
        return np.searchsorted(self.offsets, rows, side="right") - 1

    def ranks_at(self, rows: np.ndarray) -> np.ndarray:
        """The ranks of *rows* (int64), without the ranks of every row."""
        rows = np.asarray(rows, dtype=np.int64)
        ranks: np.ndarray = rows - self.offsets[self.list_of(rows)] + 1
        return ranks

    def blocks(self) -> Iterator[tuple[np.ndarray, slice]]:
        """The rows a block of whole lists at a time: the users of the block's rows, its rows.

        About :data:`_BLOCK` rows a block, in row order: a pass that needs
        the user of every row (a C kernel's) makes a block's at a time,
        not every row's at once. A user's rows are in one block (one list
        per user).
        """
        sizes = self.sizes
        for first, last in _list_blocks(self.offsets, _BLOCK):
            rows = slice(int(self.offsets[first]), int(self.offsets[last]))
            yield np.repeat(self.list_users[first:last], sizes[first:last]), rows

    def lengths(self, n_users: int) -> np.ndarray:
        """Length of every user's list (0 for users without one)."""
        if len(self.list_users) == 0:
            return np.zeros(n_users, dtype=np.int64)
        return np.bincount(self.list_users, weights=self.sizes,
                           minlength=n_users).astype(np.int64)

    def keys(self, n_items: int) -> np.ndarray:
        """One int64 per row: ``user * n_items + item``."""
        return self.users.astype(np.int64) * n_items + self.items

    def head(self, k: int | None) -> Lists:
        """The first *k* items of every list."""
        if k is None or len(self.items) == 0 or k >= self.top:
            return self
        return self._sized(np.minimum(self.sizes, k))

    def only_users(self, mask: np.ndarray) -> Lists:
        """The lists of the users where *mask* (indexed by user code) is true."""
        return self._sized(np.where(mask[self.list_users], self.sizes, 0))

    def without(self, flags: np.ndarray, k: int | None = None, *,
                in_place: bool = False) -> Lists:
        """The lists without the flagged rows (a bool per row), cut at *k*.

        ``in_place=True`` writes the rows kept over :attr:`items` (the
        caller will not read these lists again): no copy of the items.
        """
        flagged = np.flatnonzero(flags)
        removed = np.bincount(self.list_of(flagged), minlength=len(self.list_users))
        sizes = self.sizes - removed
        items = _dropped(self.items, flags, in_place=in_place)
        kept = Lists(items, self.list_users, _bounds(sizes))  # emptied lists still there
        return kept._sized(sizes if k is None else np.minimum(sizes, k), in_place=in_place)

    def _sized(self, sizes: np.ndarray, *, in_place: bool = False) -> Lists:
        """The first ``sizes[j]`` rows of each list *j*; the lists left empty dropped."""
        sizes = np.asarray(sizes, dtype=np.int64)
        whole = self.sizes
        items = self.items
        if (sizes < whole).any():
            # one bool per row: each list's rows kept (False), then the rows it drops
            drop = np.repeat(np.tile(np.array([False, True]), len(sizes)),
                             np.column_stack([sizes, whole - sizes]).ravel())
            items = _dropped(items, drop, in_place=in_place)
        present = sizes > 0
        if items is self.items and present.all():
            return self
        return Lists(items, self.list_users[present], _bounds(sizes[present]))

    @classmethod
    def ordered(cls, u: np.ndarray, i: np.ndarray, key: np.ndarray | None, *, n_items: int,
                what: str, duplicates: str = "error",
                vocabularies: tuple[Vocabulary, Vocabulary] | None = None,
                presorted: bool = False, descending: bool = False) -> Lists:
        """Lists from rows, each user's rows sorted by *key* ascending (ties: row order).

        ``descending=True`` sorts by *key* descending (a score column as it
        is: no negated copy); ``key=None``: the rows' own order. Rows that
        come grouped by user and in key order are found so in one pass and
        not sorted (their users keep the order they come in); others are
        grouped by a counting sort and sorted within each user
        (:func:`_rank_order`). An item listed twice for one user is an
        error, or (``duplicates="first"``) kept at its first (best) position
        only. ``presorted=True``: the rows are already grouped by user and in
        rank order (no check).
        """
        checked = False  # whether no pair repeats is known already
        if not presorted:
            n_users = len(vocabularies[0]) if vocabularies is not None else (
                int(u.max()) + 1 if len(u) else 0)
            u, i, checked = _rank_order(u, i, key, descending, n_users, n_items)
        if len(u) > 1 and not checked:
            repeated = _later_copies(u, i, n_items)  # later (worse-ranked) copies
            if repeated.any():
                if duplicates == "first":
                    keep = ~repeated
                    u, i = u[keep], i[keep]
                else:
                    _duplicate_error(u, i, repeated, what, vocabularies, by_code=not presorted)
        return cls.from_rows(u, i)

    @classmethod
    def read(
        cls, obj: Any, users: Vocabulary, items: Vocabulary, *,
        columns: Mapping[str, str] | None = None, user_index: Any = None,
        what: str = "recommendations", duplicates: str = "error", depth: int | None = None,
    ) -> Lists:
        """Code recommendations given as a table, ``{user: [items]}`` or a 2-D array.

        *depth*: only the first *depth* items of each list will be read (the
        caller cuts every list there). A table of integer ids that comes
        grouped by user and best first, no item twice in a user's rows, is
        then checked and cut in one pass over every row
        (:func:`_head_lists`): the items past the cut are not coded (nor
        added to *items*). Every other input is read whole.
        """
        from rankwise.io._forms import is_records

        if isinstance(obj, np.ndarray) or (
            isinstance(obj, Sequence) and not isinstance(obj, (str, bytes))
            and len(obj) and isinstance(obj[0], (list, tuple, np.ndarray))
            and not is_records(obj)  # named tuples: a table's rows
        ):
            try:
                matrix = np.asarray(obj)
            except ValueError:  # rows of different lengths
                raise InputFormatError(
                    f"{what}: the rows of a 2-D array of item ids (one row per user) must have "
                    "one length; give lists of different lengths as {user: [items]}"
                ) from None
            if matrix.ndim != 2:
                raise InputFormatError(
                    f"{what}: a 2-D array of item ids (one row per user) was expected, "
                    f"got {counted(matrix.ndim, 'dimension')}"
                )
            n_rows, width = matrix.shape
            index = np.arange(n_rows) if user_index is None else user_index
            u = users.encode(index)
            if len(u) != n_rows:
                raise InputFormatError(
                    f"{what}: users= has {counted(len(u), 'id')} for "
                    f"{counted(n_rows, 'row')} of the array"
                )
            if len(u) and not np.all(np.bincount(u) <= 1):
                first = np.unique(u, return_index=True)[1]
                row = int(np.setdiff1d(np.arange(len(u)), first)[0])  # the first repeat
                again = int(np.flatnonzero(u == u[row])[0])
                raise InputFormatError(
                    f"{what}: users= names user {users.labels()[int(u[row])].as_py()!r} for "
                    f"rows {again} and {row}; each row of a 2-D array is one user's whole list")
            narrow = len(users) < _NARROW and width < _NARROW
            row_users = u.astype(np.int32) if narrow else u
            i = items.encode(matrix.reshape(-1), narrow=narrow)
            # a list per row: the item codes and a stride, no user or rank per item
            lists = cls(i, row_users, np.arange(n_rows + 1, dtype=np.int64) * width)
            if width > 0 and not any(
                    _later_copies(users, i[rows], max(len(items), 1), by_row=width).any()
                    for users, rows in lists.blocks()):  # an item twice in a row?
                return lists
            key: np.ndarray | None = np.tile(np.arange(width, dtype=np.float64), n_rows)
            u = np.repeat(row_users, width)
            return cls.ordered(u, i, key, n_items=max(len(items), 1), what=what,
                               duplicates=duplicates, vocabularies=(users, items),
                               presorted=True)
        if user_index is not None:
            raise InvalidParameterError("users= goes with a 2-D array of item ids only")
        if isinstance(obj, Mapping) and obj and all(
            isinstance(v, (list, tuple, np.ndarray)) for v in obj.values()
        ) and not _columns_like(obj, columns):
            import itertools


            lengths = np.fromiter(map(len, obj.values()), dtype=np.int64, count=len(obj))
            u = np.repeat(users.encode(list(obj.keys())), lengths)
            i = items.encode(list(itertools.chain.from_iterable(
                v.tolist() if isinstance(v, np.ndarray) else v for v in obj.values())))
            key = np.arange(len(u), dtype=np.float64)  # list order (rows of a user adjacent)
            return cls.ordered(u, i, key, n_items=max(len(items), 1),
                               what=what, duplicates=duplicates, vocabularies=(users, items),
                               presorted=True)
        from rankwise.io.frames import table_path

        table = as_table(obj, what)
        where = table_path(table) or what  # a file's messages name the file
        user_col = find_column(table, "user", columns, where)
        item_col = find_column(table, "item", columns, where)
        rank_col = find_column(table, "rank", columns, where, required=False)
        score_col = None if rank_col else find_column(table, "score", columns, where,
                                                      required=False)
        if rank_col is None and score_col is None and columns:
            for role in ("score", "rank"):  # mapped, and not there: never the row order instead
                if columns.get(role) is not None:
                    find_column(table, role, columns, where)  # raises, naming the columns
        user_ids, item_ids = table.column(user_col), table.column(item_col)

        @functools.cache
        def key_of() -> np.ndarray | None:  # None: neither, the rows in order (read once)
            if rank_col is None and score_col is None:
                return None
            return numbers_of(table, str(rank_col or score_col),
                              "rank" if rank_col else "score", what)

        if depth is not None:
            head = _head_lists(user_ids, item_ids, key_of, rank_col is None, (users, items),
                               depth)
            if head is not None:
                return head
        u = users.encode(user_ids, narrow=True)
        i = items.encode(item_ids, narrow=True)
        return cls.ordered(u, i, key_of(), n_items=max(len(items), 1), what=where,
                           duplicates=duplicates, vocabularies=(users, items),
                           descending=rank_col is None)


def _head_lists(user_ids: Any, item_ids: Any, key_of: Callable[[], np.ndarray | None],
                descending: bool, vocabularies: tuple[Vocabulary, Vocabulary], depth: int
                ) -> Lists | None:
    """The first *depth* items of each list, when the rows come in rank order; else None.

    One C pass over every row's integer ids
    (:func:`rankwise.ranking._cpairs.head_lists`) checks what
    :meth:`Lists.ordered` checks (grouped by user, each user's rows in key
    order, no item twice in a user's rows) and keeps the ids of each list's
    first *depth* rows only; the ids the rows hold are then coded as
    :meth:`Vocabulary.encode` codes whole columns (the ids past the cut
    too: the codes are those of the whole read) and the kept ones taken
    through the tables. Neither the user nor the item code of every row is
    made. None (read the rows whole; nothing was added to the vocabularies)
    when the ids do not suit a table (text ids, ...), without the C module,
    or when the rows are not so.
    """
    native = native_kernels()
    if native is None or not hasattr(native, "head_lists") or depth < 1:
        return None
    users, items = vocabularies
    coded_users = users.id_table(user_ids)
    coded_items = items.id_table(item_ids) if coded_users is not None else None
    if coded_users is None or coded_items is None:
        return None
    key = key_of()
    if key is not None:
        key = np.ascontiguousarray(key, dtype=np.float64)
    (u, user_table), (i, item_table) = coded_users, coded_items
    seen = np.zeros(len(user_table), dtype=np.uint8)
    stamps = np.zeros(len(item_table), dtype=np.int32)
    n_lists = min(len(user_table), len(u))
    out = np.empty(min(len(u), n_lists * depth), dtype=np.int64)
    list_users = np.empty(n_lists, dtype=np.int64)
    sizes = np.empty(n_lists, dtype=np.int64)
    status, kept, found = native.head_lists(u, i, key, descending, depth, seen, stamps, out,
                                            list_users, sizes)
    if status != 0:
        return None
    users.add_present(user_table, seen)
    items.add_present(item_table, stamps)
    del seen, stamps
    codes = np.empty(kept, dtype=np.int32)
    native.take_codes(item_table, out[:kept], codes)
    del out
    user_codes = np.empty(found, dtype=np.int32)
    native.take_codes(user_table, list_users[:found], user_codes)
    return Lists(codes, user_codes, _bounds(sizes[:found]))


def _columns_like(obj: Mapping[Any, Any], columns: Mapping[str, str] | None) -> bool:
    """A ``{column: values}`` table rather than ``{user: [items]}``: its keys name columns."""
    known = {name for names in ROLES.values() for name in names} | set(
        (columns or {}).values())
    return any(isinstance(key, str) and key in known for key in obj)


def _duplicate_error(u: np.ndarray, i: np.ndarray, repeated: np.ndarray, what: str,
                     vocabularies: tuple[Vocabulary, Vocabulary] | None, *,
                     by_code: bool) -> None:
    """Raise the error of the first pair repeated.

    The first in row order, or (*by_code*) the first of the lowest user
    code: the one a sort of every list by user code would show first.
    """
    from rankwise.exceptions import DuplicateEntryError

    rows = np.flatnonzero(repeated)
    row = int(rows[np.argmin(u[rows])] if by_code else rows[0])
    user, item = (u[row], i[row]) if vocabularies is None else (
        vocabularies[0].labels()[int(u[row])].as_py(),
        vocabularies[1].labels()[int(i[row])].as_py())
    raise DuplicateEntryError(
        f"{what}: item {item!r} is recommended twice to user {user!r}; "
        "give each pair once, or keep the best-ranked one with duplicates='first' "
        "(rankwise recs --duplicates first)"
    )


def _rank_order(u: np.ndarray, i: np.ndarray, key: np.ndarray | None, descending: bool,
                n_users: int, n_items: int) -> tuple[np.ndarray, np.ndarray, bool]:
    """Rows grouped by user, each user's in *key* order (ties: row order).

    The last value is True when the same pass found no item twice in a
    user's rows (the duplicate check is then done).

    Rows that come so (grouped by user, each user's rows in order: what a
    model's top-k usually gives) are checked in one pass and kept as they
    are; others are put in ``np.lexsort((key, u))``'s order (by user code,
    then key) by a counting sort and a stable sort within each user, in C
    (:func:`rankwise.ranking._cpairs.order_lists`); without the C module,
    a vectorised check, then the lexsort.
    """
    native = native_kernels()
    if native is not None and u.dtype == np.int32 and hasattr(native, "order_lists"):
        u = np.ascontiguousarray(u)
        keys = None if key is None else np.ascontiguousarray(key, dtype=np.float64)
        order = np.empty(len(u), dtype=np.int64)  # written only when the rows need sorting
        items = np.ascontiguousarray(i) if i.dtype == np.int32 else None
        status = native.order_lists(u, keys, descending, n_users, order, None, items,
                                    n_items if items is not None else 0)
        if status in (0, 2):  # in order (0: and no pair repeated, when items were given)
            return u, i, status == 0 and items is not None
        return u[order], i[order], False
    if len(u) > 1:
        change = u[1:] != u[:-1]
        heads = u[np.flatnonzero(np.concatenate([[True], change]))]
        grouped = len(np.unique(heads)) == len(heads)
        if grouped and key is not None:
            worse = key[1:] <= key[:-1] if descending else key[1:] >= key[:-1]
            grouped = bool((worse | change).all())
        if not grouped:
            sort_key = np.zeros(len(u)) if key is None else -key if descending else key
            order = np.lexsort((sort_key, u))
            u, i = u[order], i[order]
    return u, i, False


_SPAN = 1 << 24
"""Pair keys are handled a block of this many consecutive keys at a time (a dense table)."""


def _width(n_items: int) -> int:
    """Keys per block: whole users (``n_items`` keys each), about :data:`_SPAN` of them."""
    return max(1, _SPAN // max(n_items, 1)) * max(n_items, 1)


def _key_blocks(keys: np.ndarray, width: int
                ) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """Rows of *keys* (non-negative int64) grouped by block ``key // width``.

    Returns the row order (None: the rows are grouped already, as when they
    come by user code ascending: a block holds whole users), the block ids
    present (ascending) and their row bounds in that order (``len(ids) + 1``
    entries).
    """
    block = keys // width
    if len(block) > 1 and not bool((block[1:] >= block[:-1]).all()):
        top = int(block.max())
        order = np.argsort(block.astype(np.uint16) if top < 1 << 16 else block, kind="stable")
        block = block[order]
    else:
        order = None
    if len(block) == 0:
        return order, np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64)
    starts = np.flatnonzero(block[1:] != block[:-1]) + 1
    bounds = np.concatenate([[0], starts, [len(block)]]).astype(np.int64)
    return order, block[bounds[:-1]], bounds


def positions(set_keys: np.ndarray, keys: np.ndarray, n_items: int = 1) -> np.ndarray:
    """For each of *keys*, a row of *set_keys* holding it, or -1 (non-negative int64 keys).

    Neither side needs to be sorted: the keys go, a block of consecutive
    values at a time, into one dense table (no sort, no hashing). With a key
    repeated in *set_keys*, its lowest row is given.

    Examples
    --------
    >>> positions(np.array([9, 2, 5]), np.array([5, 1, 9, 10])).tolist()
    [2, -1, 0, -1]
    """
    out = np.full(len(keys), -1, dtype=np.int64)
    if len(set_keys) == 0 or len(keys) == 0:
        return out
    width = _width(n_items)
    set_order, set_ids, set_bounds = _key_blocks(set_keys, width)
    order, ids, bounds = _key_blocks(keys, width)
    stamps = np.zeros(width, dtype=np.int32)  # the block (+1) that last wrote a slot
    table = np.zeros(width, dtype=np.int64)
    at = np.searchsorted(set_ids, ids)
    found = set_ids[np.minimum(at, len(set_ids) - 1)] == ids
    for n in np.flatnonzero(found).tolist():
        stamp, base = n + 1, int(ids[n]) * width
        lo, hi = int(set_bounds[at[n]]), int(set_bounds[at[n] + 1])
        rows_of_set = np.arange(lo, hi) if set_order is None else set_order[lo:hi]
        local = set_keys[rows_of_set] - base
        stamps[local] = stamp
        table[local[::-1]] = rows_of_set[::-1]  # the last writer wins: the lowest row
        rows = slice(int(bounds[n]), int(bounds[n + 1]))
        where = np.arange(rows.start, rows.stop) if order is None else order[rows]
        local = keys[where] - base
        out[where] = np.where(stamps[local] == stamp, table[local], -1)
    return out


def contains(set_keys: np.ndarray, keys: np.ndarray, n_items: int = 1) -> np.ndarray:
    """``np.isin(keys, set_keys)`` for non-negative int64 pair keys, in linear time.

    Neither side needs to be sorted or unique (see :func:`positions`).

    Examples
    --------
    >>> contains(np.array([9, 2, 5, 5]), np.array([5, 1, 9, 10])).tolist()
    [True, False, True, False]
    """
    out = np.zeros(len(keys), dtype=bool)
    if len(set_keys) == 0 or len(keys) == 0:
        return out
    width = _width(n_items)
    set_order, set_ids, set_bounds = _key_blocks(set_keys, width)
    order, ids, bounds = _key_blocks(keys, width)
    table = np.zeros(width, dtype=np.int32)  # the block (+1) that last marked a slot
    at = np.searchsorted(set_ids, ids)
    found = set_ids[np.minimum(at, len(set_ids) - 1)] == ids
    for n in np.flatnonzero(found).tolist():
        stamp, base = n + 1, int(ids[n]) * width
        lo, hi = int(set_bounds[at[n]]), int(set_bounds[at[n] + 1])
        marked = set_keys[lo:hi] if set_order is None else set_keys[set_order[lo:hi]]
        table[marked - base] = stamp
        rows = slice(int(bounds[n]), int(bounds[n + 1]))
        if order is None:
            out[rows] = table[keys[rows] - base] == stamp
        else:
            where = order[rows]
            out[where] = table[keys[where] - base] == stamp
    return out


def first_of_keys(keys: np.ndarray, n_items: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """One representative row per distinct key, and which representative each row has.

    Returns ``(first, owner)``: *first* marks the first row of every distinct
    key, *owner* gives each row the index of its key's first row. Linear time, as :func:`contains`.

    Examples
    --------
    >>> first, owner = first_of_keys(np.array([7, 3, 7, 8]))
    >>> int(first.sum()), bool(owner[0] == owner[2]), bool(owner[1] != owner[0])
    (3, True, True)
    """
    n = len(keys)
    owner = np.arange(n, dtype=np.int64)
    if n < 2:
        return np.ones(n, dtype=bool), owner
    width = _width(n_items)
    order, ids, bounds = _key_blocks(keys, width)
    table = np.zeros(width, dtype=np.int64)
    for n_block in range(len(ids)):
        rows = slice(int(bounds[n_block]), int(bounds[n_block + 1]))
        base = int(ids[n_block]) * width
        where = np.arange(rows.start, rows.stop) if order is None else order[rows]
        local = keys[where] - base
        table[local[::-1]] = where[::-1]  # the last writer wins: the first row
        owner[where] = table[local]
    return owner == np.arange(n), owner


def exclude_seen(lists: Lists, seen: Interactions, n_items: int, k: int | None = None,
                 n_users: int | None = None, *, in_place: bool = False) -> Lists:
    """Remove from each list the items its user interacted with in *seen*, re-rank, cut at *k*.

    ``in_place=True`` lets the result reuse the item codes of *lists*
    (overwritten: the caller owns them and will not read *lists* again),
    sparing a copy.

    Examples
    --------
    >>> lists = Lists.from_rows(np.array([0, 0, 0, 1]), np.array([5, 6, 7, 5]))
    >>> seen = Interactions(np.array([0]), np.array([6]), np.ones(1), np.ones(1, dtype=int))
    >>> out = exclude_seen(lists, seen, n_items=8)
    >>> out.items.tolist(), out.ranks.tolist()
    ([5, 7, 5], [1, 2, 1])
    """
    if len(seen.users) == 0 or len(lists.items) == 0:
        return lists.head(k)
    if n_users is None:
        n_users = max(int(lists.list_users.max()), int(seen.users.max())) + 1
    flags = np.empty(len(lists.items), dtype=np.bool_)
    for users, rows in lists.blocks():
        flags[rows] = pair_lookup(seen.users, seen.items, users, lists.items[rows], n_users,
                                  n_items)
    if not flags.any():
        return lists.head(k)
    return lists.without(flags, k, in_place=in_place)


_BLOCK = 1 << 25
"""Rows of lists whose users :meth:`Lists.blocks` makes at a time (128 MB of int32)."""


def _list_blocks(offsets: np.ndarray, rows: int) -> list[tuple[int, int]]:
    """Ranges of whole lists (first, last + 1) of about *rows* rows each, in order.

    Examples
    --------
    >>> _list_blocks(np.array([0, 3, 4, 9, 10]), 4)
    [(0, 2), (2, 4)]
    """
    if len(offsets) < 2:
        return []
    marks = np.arange(0, int(offsets[-1]), rows)
    starts = np.unique(np.searchsorted(offsets, marks, side="right") - 1).tolist()
    return list(zip(starts, [*starts[1:], len(offsets) - 1]))


def _bounds(sizes: np.ndarray) -> np.ndarray:
    """The offsets of lists of *sizes* rows: 0, then the running total (int64)."""
    return np.concatenate([np.zeros(1, dtype=np.int64), np.cumsum(sizes, dtype=np.int64)])


_CHUNK = 1 << 22
"""Rows compacted at a time in place (:func:`_compress`): a bounded copy, not a whole one."""


def _dropped(values: np.ndarray, drop: np.ndarray, *, in_place: bool) -> np.ndarray:
    """``values[~drop]``; *in_place*: written over *values* when it can be (:func:`_compress`)."""
    if in_place and values.flags.c_contiguous and values.flags.writeable:
        return _compress(values, drop, out=values)
    kept: np.ndarray = values[~drop]
    return kept


def _compress(values: np.ndarray, drop: np.ndarray, *, out: np.ndarray) -> np.ndarray:
    """``values[~drop]`` written over the start of *out* (which may be *values*).

    A block of :data:`_CHUNK` rows at a time: the rows kept so far never
    pass the block being read, so *out* may be *values* itself.

    Examples
    --------
    >>> values = np.array([5, 6, 7, 8])
    >>> _compress(values, np.array([False, True, False, False]), out=values).tolist()
    [5, 7, 8]
    >>> values.tolist()  # overwritten in place
    [5, 7, 8, 8]
    """
    m = 0
    for lo in range(0, len(values), _CHUNK):
        part = values[lo:lo + _CHUNK][~drop[lo:lo + _CHUNK]]
        out[m:m + len(part)] = part
        m += len(part)
    return out[:m]


def _count_type(rows: int) -> type:
    """The type of counts of *rows* rows at most: int32 when they fit."""
    return np.int32 if rows < _NARROW else np.int64


def _ones(n: int, dtype: Any) -> np.ndarray:
    """*n* ones, read-only, without memory per element (a broadcast scalar)."""
    return np.broadcast_to(np.ones(1, dtype=dtype), (n,))


def native_kernels() -> Any:
    """The C kernels of pairs (:mod:`rankwise.ranking._cpairs`), or None.

    None where the module was not built or with ``RANKWISE_NO_C=1``: the
    numpy paths then give the same results.
    """
    from rankwise._compiled import enabled, load

    module = load("rankwise.ranking._cpairs") if enabled() else None
    return module if module is not None and hasattr(module, "join_pairs") else None


def _later_copies(u: np.ndarray, i: np.ndarray, n_items: int, by_row: int | None = None
                  ) -> np.ndarray:
    """Rows whose (user, item) pair an earlier row holds; rows grouped by user.

    *by_row*: the rows are a 2-D array's, *by_row* per user (each user once).
    """
    native = native_kernels()
    if native is not None and u.dtype == i.dtype and u.dtype in (np.int32, np.int64):
        u, i = np.ascontiguousarray(u), np.ascontiguousarray(i)
        out = np.empty(len(u), dtype=np.bool_)
        native.join_pairs(u, i, u, i, int(u.max()) + 1 if len(u) else 0, n_items, 2, out)
        return out
    if by_row is not None:  # a repeat within a row: equal neighbours once sorted
        by_rows = np.sort(i.reshape(-1, by_row), axis=1)
        if not (by_rows[:, 1:] == by_rows[:, :-1]).any():
            return np.zeros(len(u), dtype=bool)
    pairs = u.astype(np.int64) * n_items + i
    order = np.argsort(pairs, kind="stable")
    sorted_pairs = pairs[order]
    repeated_sorted = np.concatenate([[False], sorted_pairs[1:] == sorted_pairs[:-1]])
    repeated = np.zeros(len(pairs), dtype=bool)
    repeated[order[repeated_sorted]] = True
    return repeated


def pair_lookup(set_users: np.ndarray, set_items: np.ndarray, users: np.ndarray,
                items: np.ndarray, n_users: int, n_items: int, *, rows: bool = False
                ) -> np.ndarray:
    """Whether the set holds each pair ``(users[r], items[r])``, or (*rows*) its set row.

    With *rows*, the lowest row of the set holding the pair, or -1. Codes
    are non-negative, below *n_users* and *n_items*; neither side needs to
    be sorted. Linear time: the C kernel joins the pairs user by user, the
    numpy path (:func:`contains`, :func:`positions`) block by block.

    Examples
    --------
    >>> s_users, s_items = np.array([0, 1, 1]), np.array([5, 2, 5])
    >>> pair_lookup(s_users, s_items, np.array([1, 0, 0]), np.array([5, 5, 2]), 2, 6).tolist()
    [True, True, False]
    >>> pair_lookup(s_users, s_items, np.array([1, 0, 0]), np.array([5, 5, 2]), 2, 6,
    ...             rows=True).tolist()
    [2, 0, -1]
    """
    native = native_kernels()
    if native is not None and n_users < _NARROW:
        sides = []
        for a, b in ((set_users, set_items), (users, items)):
            dtype = np.int32 if a.dtype == b.dtype == np.int32 else np.int64
            sides.append((np.ascontiguousarray(a, dtype=dtype),
                          np.ascontiguousarray(b, dtype=dtype)))
        (su, si), (qu, qi) = sides
        out = np.empty(len(qu), dtype=(np.int32 if len(su) < _NARROW else np.int64)
                       if rows else np.bool_)
        native.join_pairs(qu, qi, su, si, n_users, n_items, 1 if rows else 0, out)
        return out
    set_keys = set_users.astype(np.int64) * n_items + set_items
    keys = users.astype(np.int64) * n_items + items
    if rows:
        return positions(set_keys, keys, n_items)
    return contains(set_keys, keys, n_items)


def count_codes(codes: np.ndarray, size: int) -> np.ndarray:
    """``np.bincount(codes, minlength=size)`` (int64), without a copy of int32 codes as intp.

    Examples
    --------
    >>> count_codes(np.array([2, 0, 2], dtype=np.int32), 4).tolist()
    [1, 0, 2, 0]
    """
    native = native_kernels()
    if native is not None and codes.dtype in (np.int32, np.int64):
        out = np.zeros(size, dtype=np.int64)
        try:
            native.count_codes(np.ascontiguousarray(codes), out)
            return out
        except ValueError:  # a code past size (or negative: bincount says so)
            pass
    return np.bincount(codes, minlength=size).astype(np.int64, copy=False)


def with_grades(test: Any, truth: Interactions, relevance: str, users: Vocabulary,
                items: Vocabulary, columns: Mapping[str, str] | None) -> Interactions:
    """*truth* graded by the *relevance* column of *test* (for the evaluation and the curves)."""
    table = as_table(test, "test")
    if relevance not in table.column_names:
        raise InvalidParameterError(
            f"relevance={relevance!r} names no column of test; columns are "
            f"{table.column_names}" + did_you_mean(relevance, table.column_names))
    u = users.lookup(table.column(find_column(table, "user", columns, "test")))
    i = items.lookup(table.column(find_column(table, "item", columns, "test")))
    grades = numbers_of(table, relevance, "grade", "test", booleans=True)
    return Interactions.from_codes(u, i, grades, n_items=max(len(items), 1))
