"""Small Arrow helpers shared by the data classes: interning and hashing ids."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise.data._strings import StringChunk, StringColumn, StringsLike, string_chunks

if TYPE_CHECKING:
    import pyarrow as pa

    from rankwise.exceptions import InputFormatError

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX = np.uint64(0xBF58476D1CE4E5B9)


Locate = Callable[[int], int]


def row_error(
    message: str, row: int, source: str | None, locate: Locate | None
) -> InputFormatError:
    """The :class:`InputFormatError` of one row: at its line (files), else "row N" (from 1)."""
    from rankwise.exceptions import InputFormatError

    if locate is not None:
        return InputFormatError(message, source or "<input>", locate(row))
    return InputFormatError(f"row {row + 1}: {message}", source or "<table>")


_CONVERSION_ERRORS: tuple[type[BaseException], ...] = (ValueError, TypeError, OverflowError)


def first_failing_row(array: Any, convert: Callable[[Any], Any], *, prefix: bool = False) -> int:
    """The first row of *array* that *convert* refuses (it refused the whole array).

    Halves the rows until one is left: about twice the work of one conversion
    when each row fails or passes on its own. With *prefix*, a row fails in
    the context of the rows before it (a value of another type than theirs):
    each step converts the rows from the first on.
    """
    import pyarrow as pa

    refused = (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError,
               *_CONVERSION_ERRORS)
    low, high = 0, len(array)
    while high - low > 1:
        middle = (low + high) // 2
        try:
            if prefix:
                convert(array.slice(0, middle))
            else:
                convert(array.slice(low, middle - low))
        except refused:
            high = middle
        else:
            low = middle
    return low


def _shown(value: Any) -> str:
    """A value as messages show it (long ones cut)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _offending(values: pa.ChunkedArray, row: int) -> Any:
    chunk_ends = np.cumsum([len(chunk) for chunk in values.chunks])
    index = int(np.searchsorted(chunk_ends, row, side="right"))
    local = row - (int(chunk_ends[index - 1]) if index else 0)
    try:
        return values.chunk(index)[local].as_py()
    except Exception:  # invalid UTF-8 cannot become a str
        return values.chunk(index).cast(values.type).slice(local, 1).to_string()


def _first_null(values: pa.ChunkedArray) -> int:
    import pyarrow.compute as pc

    at = 0
    for chunk in values.chunks:
        if chunk.null_count:
            return at + int(np.flatnonzero(array_to_numpy(pc.is_null(chunk), bool))[0])
        at += len(chunk)
    return 0


def _validate_utf8(values: pa.ChunkedArray, what: str, source: str | None,
                   locate: Locate | None) -> None:
    """Refuse strings that are not UTF-8 (Parquet and JSON readers let them through)."""
    import pyarrow as pa

    at = 0
    for chunk in values.chunks:
        try:
            chunk.validate(full=True)
        except pa.ArrowInvalid:
            row = at + first_failing_row(chunk, lambda part: part.validate(full=True))
            raise row_error(f"{what} is not UTF-8 text", row, source, locate) from None
        at += len(chunk)


def as_string_chunks(values: Any, what: str, source: str | None = None,
                     locate: Locate | None = None) -> pa.ChunkedArray:
    """Return *values* as a chunked Arrow array of UTF-8 strings.

    Ids are text: strings, and integers converted to their decimal text.
    Anything else (floats, booleans, lists, ...), a missing id or bytes that
    are not UTF-8 is an error naming the first such row (its line, with
    *locate*).
    """
    import pyarrow as pa

    if isinstance(values, pa.Array):
        values = pa.chunked_array([values])
    elif isinstance(values, list) and all(type(value) is str for value in values):
        values = pa.chunked_array([strings_to_array(values)], type=pa.string())
    elif not isinstance(values, pa.ChunkedArray):
        try:
            values = pa.chunked_array([pa.array(values)])
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError) as error:
            from rankwise.exceptions import InputFormatError

            raise InputFormatError(f"{what}s must be text or integers: {error}", source) from None
    if len(values) == 0:  # an empty column (pandas makes it float64) holds no bad id
        return pa.chunked_array([], type=pa.string())
    if pa.types.is_dictionary(values.type):
        values = values.cast(values.type.value_type)
    if values.null_count:
        raise row_error(f"{what} is missing (null)", _first_null(values), source, locate)
    kind = values.type
    if pa.types.is_large_string(kind) or pa.types.is_string_view(kind) or pa.types.is_integer(kind):
        values = values.cast(pa.string())
    elif pa.types.is_binary(values.type) or pa.types.is_large_binary(values.type):
        values = _binary_as_unchecked_strings(values)
    elif pa.types.is_null(values.type) and len(values) == 0:
        values = values.cast(pa.string())
    elif not pa.types.is_string(values.type):
        raise row_error(
            f"{what} must be text or an integer, got {_shown(_offending(values, 0))} "
            f"(the column has Arrow type {values.type})", 0, source, locate)
    _validate_utf8(values, what, source, locate)
    return values


def _binary_as_unchecked_strings(values: pa.ChunkedArray) -> pa.ChunkedArray:
    """Binary chunks viewed as strings (same layout), to be validated as UTF-8."""
    import pyarrow as pa

    values = values.cast(pa.binary())
    return pa.chunked_array(
        [pa.Array.from_buffers(pa.string(), len(chunk), chunk.buffers(), chunk.null_count,
                               chunk.offset) for chunk in values.chunks],
        type=pa.string(),
    )


def numbers_column(values: Any, what: str, source: str | None = None,
                   locate: Locate | None = None, *, text: bool = False,
                   booleans: bool = False) -> np.ndarray:
    """A column of scores or grades as float64: numbers only, one rule for every input.

    Integer, floating-point and decimal columns are numbers. Text is parsed
    only where the format has no types (``text=True``: CSV and TSV fields,
    decimal numbers as in TREC files); elsewhere text, lists and the like
    are refused, as is a missing value, naming the first such row. Booleans
    are numbers (1 and 0) only with *booleans* (grades: relevant or not).
    (Whether a value is finite is checked by the caller.)
    """
    import pyarrow as pa

    if isinstance(values, pa.Array):
        values = pa.chunked_array([values])
    if len(values) == 0:  # an empty column (of any type: pandas makes object ones) has no bad value
        return np.empty(0, dtype=np.float64)
    if pa.types.is_dictionary(values.type):
        values = values.cast(values.type.value_type)
    if values.null_count:
        raise row_error(f"{what} is missing (null)", _first_null(values), source, locate)
    kind = values.type
    if pa.types.is_floating(kind) or pa.types.is_integer(kind) or pa.types.is_decimal(kind):
        return numbers_to_numpy(values)
    if booleans and pa.types.is_boolean(kind):
        return numbers_to_numpy(values.cast(pa.uint8()))
    if (pa.types.is_string(kind) or pa.types.is_large_string(kind)
            or pa.types.is_string_view(kind)) and text:
        parts = []
        at = 0
        for chunk in values.chunks:
            try:
                parts.append(numbers_to_numpy(chunk.cast(pa.float64())))
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                row = at + first_failing_row(chunk, lambda part: part.cast(pa.float64()))
                raise row_error(f"{what} must be a number, got {_shown(_offending(values, row))}",
                                row, source, locate) from None
            at += len(chunk)
        return np.concatenate(parts) if len(parts) != 1 else parts[0]
    if len(values) == 0 and pa.types.is_null(kind):
        return np.zeros(0, dtype=np.float64)
    described = {"bool": "true/false", "string": "text", "large_string": "text"}.get(
        str(kind), f"Arrow type {kind}")
    raise row_error(
        f"{what} must be a number, got {_shown(_offending(values, 0))} (the column holds "
        f"{described}); convert the column to numbers first",
        0, source, locate,
    )


def array_to_numpy(array: pa.Array, dtype: Any) -> np.ndarray:
    """A primitive Arrow array without nulls as a numpy view of its buffer.

    pyarrow's own ``to_numpy`` imports pandas (half a second) the first time;
    reading the buffer directly does not.
    """
    import pyarrow as pa

    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks() if array.num_chunks else pa.array([], array.type)
    dtype = np.dtype(dtype)
    if array.null_count:
        raise ValueError("array_to_numpy needs an array without nulls")
    if pa.types.is_boolean(array.type):
        bits = np.frombuffer(array.buffers()[1], dtype=np.uint8)
        return np.unpackbits(bits, bitorder="little")[
            array.offset : array.offset + len(array)
        ].astype(bool)
    if len(array) == 0:
        return np.zeros(0, dtype=dtype)
    return np.frombuffer(
        array.buffers()[1], dtype=dtype, count=len(array), offset=array.offset * dtype.itemsize
    )


def numpy_to_array(values: np.ndarray) -> pa.Array:
    """A numpy array of int32, int64 or float64 as an Arrow array (no copy, no pandas)."""
    import pyarrow as pa

    kinds = {
        np.dtype(np.int32): pa.int32(),
        np.dtype(np.int64): pa.int64(),
        np.dtype(np.float64): pa.float64(),
    }
    values = np.ascontiguousarray(values)
    if values.dtype not in kinds:
        values = values.astype(np.int64)
    return pa.Array.from_buffers(kinds[values.dtype], len(values), [None, pa.py_buffer(values)])


def strings_to_array(values: list[str]) -> pa.Array:
    """A list of str as an Arrow string array, built from buffers.

    ``pa.array`` on a Python list imports pandas (half a second) the first
    time; encoding the strings and laying out the offsets does not.
    """
    import pyarrow as pa

    try:
        return StringColumn.from_strings(values).to_arrow().combine_chunks()
    except ValueError:  # over 2 GiB in all: Arrow's own conversion, in chunks
        return pa.array(values, pa.large_string()).cast(pa.string())


def take_rows(column: pa.ChunkedArray, rows: np.ndarray) -> pa.Array:
    """Rows (sorted) of a chunked column, taken chunk by chunk.

    ``ChunkedArray.take`` concatenates the whole column first; taking from
    each chunk only what it holds does not.
    """
    import pyarrow as pa

    ends = np.cumsum([len(chunk) for chunk in column.chunks])
    which = np.searchsorted(ends, rows, side="right")
    parts = []
    for index in np.flatnonzero(np.bincount(which)).tolist():
        local = rows[which == index] - (ends[index - 1] if index else 0)
        parts.append(column.chunk(index).take(numpy_to_array(local.astype(np.int64))))
    return pa.concat_arrays(parts) if parts else pa.array([], column.type)


def intern(values: pa.ChunkedArray) -> tuple[np.ndarray, list[str]]:
    """Encode strings as int32 codes in order of first appearance.

    Returns the codes and the list of distinct strings.
    """
    import pyarrow.compute as pc

    encoded = pc.dictionary_encode(values).combine_chunks()
    codes = array_to_numpy(encoded.indices, np.int32)
    names = encoded.dictionary.to_pylist()
    return codes, names


def numbers_to_numpy(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Return a numeric Arrow column as one float64 numpy array (without pandas)."""
    import pyarrow as pa

    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks else pa.array([], pa.float64())
    if values.type != pa.float64():
        # integers beyond 2**53 round to the nearest double, as numpy's conversion does
        values = values.cast(pa.float64(), safe=False)
    if values.null_count:
        raise ValueError("a numeric column has missing values")
    return array_to_numpy(values, np.float64)


_LOW_BYTES = np.array([(1 << (8 * n)) - 1 for n in range(8)] + [(1 << 64) - 1], dtype=np.uint64)


def _words_at(raw: np.ndarray, starts: np.ndarray, available: np.ndarray) -> np.ndarray:
    """The 8 bytes at each start as a little-endian word, bytes past *available* zeroed."""
    size = len(raw)
    if size < 8:
        padded = np.zeros(8, dtype=np.uint8)
        padded[:size] = raw
        raw, size = padded, 8
    windows = np.ndarray(shape=(size - 7,), dtype="<u8", buffer=raw, strides=(1,))
    # a start before the buffer (the middle word of a short string) reads from 0; its
    # bytes are never used, but the index must be valid (a negative one wraps or fails)
    starts = np.maximum(starts, 0)
    clamped = np.minimum(starts, size - 8)
    words: np.ndarray = windows[clamped]
    words >>= (starts - clamped).astype(np.uint64) * np.uint64(8)
    words &= _LOW_BYTES[np.clip(available, 0, 8)]
    return words


def _chunk_keys(chunk: StringChunk, rows: np.ndarray | None = None) -> tuple[np.ndarray, bool]:
    """The keys of a chunk's strings (of its *rows* only, when given)."""
    offsets, raw = chunk.offsets, chunk.data
    if rows is None:
        starts = offsets[:-1].astype(np.int64)
        lengths = (offsets[1:] - offsets[:-1]).astype(np.int64)
    else:
        starts = offsets[rows].astype(np.int64)
        lengths = offsets[rows + 1] - starts
    count = len(starts)
    key = _words_at(raw, starts, lengths)
    if count == 0 or int(lengths.max()) <= 8:
        return key, True
    # longer strings: mix the first, middle and last 8 bytes and the length
    long = lengths > 8
    middle = _words_at(raw, starts + lengths // 2 - 4, np.full(count, 8))
    last = _words_at(raw, np.maximum(starts + lengths - 8, 0), np.minimum(lengths, 8))
    mixed = (key * _MIX) ^ (middle * _GOLDEN) ^ (last * _MIX) ^ (lengths.astype(np.uint64) << 56)
    mixed ^= mixed >> np.uint64(29)
    return np.where(long, mixed, key), False


def string_keys(values: StringsLike) -> tuple[np.ndarray, bool]:
    """A 64-bit key per string, and whether the keys are exact (one-to-one).

    Strings of at most 8 bytes map to their zero-padded bytes: the key is
    exact. Longer strings get a hash of their first, middle and last 8
    bytes and their length; equal keys must then be confirmed on the strings.
    """
    out = np.empty(len(values), dtype=np.uint64)
    exact = True
    at = 0
    for chunk in string_chunks(values):
        keys, chunk_exact = _chunk_keys(chunk)
        out[at : at + chunk.length] = keys
        at += chunk.length
        exact &= chunk_exact
    return out, exact


def string_keys_at(values: StringsLike, rows: np.ndarray, *, with_exact: bool = False) -> Any:
    """The :func:`string_keys` of the strings at *rows* (read in place, nothing taken).

    With *with_exact*, also whether every key is exact (all at most 8 bytes).
    """
    out = np.empty(len(rows), dtype=np.uint64)
    exact = True
    chunks = string_chunks(values)
    ends = np.cumsum([chunk.length for chunk in chunks])
    which = np.searchsorted(ends, rows, side="right")
    for index in np.flatnonzero(np.bincount(which)).tolist():
        mine = which == index
        local = rows[mine] - (ends[index - 1] if index else 0)
        out[mine], chunk_exact = _chunk_keys(chunks[index], local)
        exact &= chunk_exact
    return (out, exact) if with_exact else out
