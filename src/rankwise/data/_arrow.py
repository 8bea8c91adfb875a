"""Small Arrow helpers shared by the data classes: interning and hashing ids."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX = np.uint64(0xBF58476D1CE4E5B9)


def as_string_chunks(values: Any, what: str) -> pa.ChunkedArray:
    """Return *values* as a chunked Arrow array of strings (numbers are cast to text)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(values, pa.Array):
        values = pa.chunked_array([values])
    elif not isinstance(values, pa.ChunkedArray):
        values = pa.chunked_array([pa.array(values)])
    if pa.types.is_dictionary(values.type):
        values = values.cast(values.type.value_type)
    if pa.types.is_large_string(values.type) or pa.types.is_string_view(values.type):
        values = values.cast(pa.string())
    elif not pa.types.is_string(values.type):
        if (
            pa.types.is_integer(values.type)
            or pa.types.is_binary(values.type)
            or (pa.types.is_null(values.type) and len(values) == 0)
        ):
            values = values.cast(pa.string())
        else:
            from rankwise.exceptions import InputFormatError

            raise InputFormatError(
                f"{what} must be strings or integers, got Arrow type {values.type}"
            )
    if values.null_count:
        from rankwise.exceptions import InputFormatError

        first = int(np.flatnonzero(pc.is_null(values).to_numpy(zero_copy_only=False))[0])
        raise InputFormatError(f"{what} is missing (null) in row {first + 1}")
    return values


def intern(values: pa.ChunkedArray) -> tuple[np.ndarray, list[str]]:
    """Encode strings as int32 codes in order of first appearance.

    Returns the codes and the list of distinct strings.
    """
    import pyarrow.compute as pc

    encoded = pc.dictionary_encode(values).combine_chunks()
    codes = encoded.indices.to_numpy().astype(np.int32, copy=False)
    return codes, encoded.dictionary.to_pylist()


def numbers_to_numpy(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Return a numeric Arrow column as one float64 numpy array (without pandas)."""
    import pyarrow as pa

    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    parts = [np.asarray(chunk.to_numpy(zero_copy_only=False), dtype=np.float64) for chunk in chunks]
    if not parts:
        return np.zeros(0, dtype=np.float64)
    return parts[0].copy() if len(parts) == 1 else np.concatenate(parts)


_LOW_BYTES = np.array([(1 << (8 * n)) - 1 for n in range(8)] + [(1 << 64) - 1], dtype=np.uint64)


def _chunk_words(chunk: pa.Array) -> tuple[list[np.ndarray], np.ndarray]:
    """The bytes of each string of *chunk* as little-endian 8-byte words, zero padded."""
    count = len(chunk)
    offsets = np.frombuffer(
        chunk.buffers()[1], dtype=np.int32, count=count + 1, offset=chunk.offset * 4
    )
    data_buffer = chunk.buffers()[2]
    raw = (
        np.frombuffer(data_buffer, dtype=np.uint8)
        if data_buffer is not None
        else np.zeros(0, np.uint8)
    )
    raw = np.concatenate((raw[: offsets[-1]], np.zeros(8, dtype=np.uint8)))
    starts = offsets[:-1].astype(np.int64)
    lengths = (offsets[1:] - offsets[:-1]).astype(np.int64)
    windows = np.ndarray(shape=(len(raw) - 7,), dtype="<u8", buffer=raw, strides=(1,))
    words = []
    width = int(lengths.max()) if count else 0
    for word in range(max(1, -(-width // 8))):
        positions = np.minimum(starts + 8 * word, len(raw) - 8)
        remaining = np.clip(lengths - 8 * word, 0, 8)
        words.append(windows[positions] & _LOW_BYTES[remaining])
    return words, lengths


def string_keys(values: pa.ChunkedArray) -> tuple[np.ndarray, bool]:
    """A 64-bit key per string, and whether the keys are exact (one-to-one).

    Strings of at most 8 bytes map to their zero-padded bytes: the key is
    exact. Longer strings get a hash of their bytes; equal keys must then be
    confirmed on the strings.
    """
    parts = []
    exact = True
    for chunk in values.chunks:
        if len(chunk) == 0:
            continue
        words, lengths = _chunk_words(chunk)
        if len(words) == 1:
            parts.append(words[0])
            continue
        exact = False
        key = lengths.astype(np.uint64) * _GOLDEN
        for word in words:
            key = (key ^ word) * _MIX
            key ^= key >> np.uint64(31)
        parts.append(key)
    if not parts:
        return np.zeros(0, dtype=np.uint64), True
    return (parts[0] if len(parts) == 1 else np.concatenate(parts)), exact


def string_order_keys(values: pa.Array) -> np.ndarray | None:
    """Keys that sort as ``strcmp`` sorts the strings, or None when a string exceeds 8 bytes."""
    import pyarrow as pa

    chunk = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    if len(chunk) == 0:
        return np.zeros(0, dtype=np.uint64)
    words, _ = _chunk_words(chunk)
    if len(words) != 1:
        return None
    return words[0].byteswap()
