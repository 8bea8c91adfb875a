"""The data of the query explorer, packed for the page's script: compact and inert.

Everything the explorer shows (every query's values, the ranked lists, the
shared document table, texts) is packed as typed arrays, compressed with
DEFLATE and written in base64 inside a ``<script type="application/json">``
element: the browser never runs it, the page's script reads it with
``JSON.parse`` and unpacks it with the browser's own ``DecompressionStream``.
Strings travel as UTF-8 bytes with their lengths, never as markup: a query
id ``</script>`` is data like any other.

Layout (all little-endian; arrays of more than one byte per item are stored
byte plane by byte plane, which DEFLATE compresses better):

* ``qid``, ``qtext``: the query table and its texts (strings);
* ``val``: float64 ``[measure, system, query]`` (NaN: not evaluated);
* ``cnt``: entries per ``[system, query]``; ``ret``: int32 documents retrieved
  (-1: no list); ``dbase``: int32, per query, the first document of the table
  it introduces;
* per entry, in ``(system, query, rank)`` order: ``doc`` (int32, the document
  minus the query's ``dbase``), ``score`` (the float32 of the score rounded to
  24 bits, 16 of mantissa, as differences from the entry above it in its list:
  shown to 4 significant digits; ties are marked from the exact scores),
  ``grade`` (0: unjudged, else 1 + an index of ``grades``), ``tie`` (bit 1:
  tied with the entry above, bit 2: with the one below);
* ``rcnt``, ``rdoc``, ``rgrade``, ``rrank`` (int32 ``[relevant document,
  system]``: rank, 0 not retrieved, -1 no list): the relevant judged documents
  of each query and where each system ranked them;
* ``did``, ``dtext``: the document table and its texts (strings).
"""

from __future__ import annotations

import base64
import json
import math
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from rankwise.data._arrow import array_to_numpy
from rankwise.report.layout import color_of
from rankwise.report.lists import RankedLists, query_table
from rankwise.report.protocols import PageLike

__all__ = ["MAX_DOCUMENT_CHARS", "MAX_QUERY_CHARS", "explorer_json", "pack", "unpack"]

MAX_DOCUMENT_CHARS = 600
"""A document's text is cut after this many characters (with an ellipsis)."""

MAX_QUERY_CHARS = 2000
"""A query's text is cut after this many characters."""

_TYPES = {"u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "i32": np.int32,
          "f64": np.float64}


def _planes(values: np.ndarray) -> bytes:
    """The bytes of *values*, byte plane by byte plane (little-endian)."""
    data = np.ascontiguousarray(values).astype(values.dtype.newbyteorder("<"), copy=False)
    if data.itemsize == 1:
        return data.tobytes()
    planes: bytes = data.view(np.uint8).reshape(-1, data.itemsize).T.tobytes()
    return planes


def _strings(values: Sequence[str], limit: int | None = None) -> tuple[np.ndarray, bytes]:
    """UTF-8 lengths and bytes of strings (each cut at *limit* characters, with an ellipsis)."""
    if limit is not None:
        values = [v if len(v) <= limit else v[:limit - 1] + "…" for v in values]
    encoded = [v.encode("utf-8", "surrogatepass") for v in values]
    return np.fromiter(map(len, encoded), np.uint32, len(encoded)), b"".join(encoded)


def _arrow_strings(array: Any) -> tuple[np.ndarray, bytes]:
    """UTF-8 lengths and bytes of an Arrow string array, read from its buffers."""
    import pyarrow as pa

    array = array.cast(pa.string())
    if len(array) == 0:
        return np.zeros(0, np.uint32), b""
    offsets = np.frombuffer(array.buffers()[1], np.int32, len(array) + 1, array.offset * 4)
    data = array.buffers()[2]
    body = b"" if data is None else bytes(data)[int(offsets[0]):int(offsets[-1])]
    return np.diff(offsets).astype(np.uint32), body


def pack(sections: Sequence[tuple[str, np.ndarray | bytes]]) -> tuple[list[list[Any]], bytes]:
    """The layout ``[[name, type, count], ...]`` and the compressed bytes of *sections*."""
    layout: list[list[Any]] = []
    parts: list[bytes] = []
    for name, value in sections:
        if isinstance(value, bytes):
            layout.append([name, "u8", len(value)])
            parts.append(value)
            continue
        kind = next(k for k, t in _TYPES.items() if np.dtype(t) == value.dtype)
        layout.append([name, kind, int(value.size)])
        parts.append(_planes(value))
    # raw DEFLATE at level 1: level 6 is 6% smaller and 5 times slower
    packer = zlib.compressobj(1, zlib.DEFLATED, -15)
    return layout, packer.compress(b"".join(parts)) + packer.flush()


def unpack(layout: Sequence[Sequence[Any]], data: bytes) -> dict[str, np.ndarray]:
    """The arrays :func:`pack` packed (what the page's script does, for tests and tools).

    Examples
    --------
    >>> layout, data = pack([("a", np.array([1.5, -2.0])), ("b", b"xy")])
    >>> {k: v.tolist() for k, v in unpack(layout, data).items()}
    {'a': [1.5, -2.0], 'b': [120, 121]}
    """
    raw = zlib.decompress(data, -15)
    out: dict[str, np.ndarray] = {}
    at = 0
    for name, kind, count in layout:
        dtype = np.dtype(_TYPES[kind]).newbyteorder("<")
        size = dtype.itemsize * count
        chunk = np.frombuffer(raw, np.uint8, size, at)
        at += size
        out[name] = chunk.reshape(dtype.itemsize, count).T.copy().view(dtype).reshape(count) \
            if dtype.itemsize > 1 else chunk.copy()
    return out


def _values(report: PageLike, queries: list[str]) -> np.ndarray:
    """float64 ``[measure, system, query]``, NaN where a system has no value."""
    import pyarrow as pa
    import pyarrow.compute as pc

    table = pa.array(queries, pa.string())
    names = [str(m) for m in report.measures]
    out = np.full((len(names), len(report.systems), len(queries)), np.nan)
    for s, system in enumerate(report.systems):
        results = report.results[system]
        ids = pa.array(np.asarray(results.query_ids).astype(str).tolist(), pa.string())
        place = array_to_numpy(pc.index_in(ids, value_set=table).fill_null(-1)
                               .cast(pa.int64()), np.int64)
        for m, name in enumerate(names):
            out[m, s, place] = np.asarray(results[name], dtype=np.float64)
    return out


def _score_bits(score: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Scores as float32 rounded to 24 bits, each minus the one above it in its list."""
    bits = score.astype(np.float32).view(np.uint32).astype(np.int64)
    top = np.minimum((bits + 0x80) >> 8, 0xFFFFFF)
    delta = top.copy()
    delta[1:] -= top[:-1]
    first = np.concatenate(([0], np.cumsum(counts)[:-1]))[counts > 0]
    delta[first] = top[first]
    out: np.ndarray = delta.astype(np.int32)
    return out


def _list_sections(lists: RankedLists, n_queries: int,
                   documents: Mapping[str, str] | None) -> list[tuple[str, Any]]:
    counts = np.diff(lists.offsets)
    entry_query = np.repeat(np.tile(np.arange(n_queries), len(lists.systems)), counts)
    n_rel = np.diff(lists.relevant_offsets)
    rel_query = np.repeat(np.arange(n_queries), n_rel)
    base = np.full(n_queries, np.iinfo(np.int64).max)
    np.minimum.at(base, entry_query, lists.doc)
    np.minimum.at(base, rel_query, lists.relevant_doc)
    base = np.where(base == np.iinfo(np.int64).max, 0, base).astype(np.int64)
    grades = np.unique(np.concatenate([lists.grade[~np.isnan(lists.grade)],
                                       lists.relevant_grade]))
    code_type = np.uint8 if len(grades) < 255 else np.uint16

    def code(values: np.ndarray) -> np.ndarray:
        out = np.zeros(len(values), code_type)
        judged = ~np.isnan(values)
        out[judged] = np.searchsorted(grades, values[judged]) + 1
        return out

    lengths, body = _arrow_strings(lists.doc_ids)
    sections: list[tuple[str, Any]] = [
        ("cnt", counts.astype(np.uint8 if lists.depth < 256 else np.uint16)),
        ("ret", lists.retrieved.reshape(-1).astype(np.int32)),
        ("dbase", base.astype(np.int32)),
        ("doc", (lists.doc - base[entry_query]).astype(np.int32)),
        ("score", _score_bits(lists.score, counts)),
        ("grade", code(lists.grade)),
        ("tie", lists.ties.astype(np.uint8)),
        ("rcnt", n_rel.astype(np.uint32)),
        ("rdoc", (lists.relevant_doc - base[rel_query]).astype(np.int32)),
        ("rgrade", code(lists.relevant_grade)),
        ("rrank", lists.relevant_rank.reshape(-1).astype(np.int32)),
        ("did.len", lengths), ("did.utf8", body),
    ]
    if documents is not None:
        texts = [documents.get(doc, "") for doc in lists.doc_ids.to_pylist()]
        text_lengths, text_body = _strings(texts, MAX_DOCUMENT_CHARS)
        sections += [("dtext.len", text_lengths), ("dtext.utf8", text_body)]
    return [*sections, ("grades", grades.astype(np.float64))]


def explorer_json(report: PageLike) -> str:
    r"""The explorer's data as JSON safe to put inside a ``<script>`` element.

    ``<``, ``>``, ``&`` and the line separators are written as ``\\u`` escapes,
    so no text of the data can end the element or be read as markup.
    """
    queries = query_table(report.results)
    qid_len, qid_body = _strings(queries)
    sections: list[tuple[str, Any]] = [("qid.len", qid_len), ("qid.utf8", qid_body)]
    topics = report.topics
    if topics is not None:
        text_len, text_body = _strings([topics.get(q, "") for q in queries], MAX_QUERY_CHARS)
        sections += [("qtext.len", text_len), ("qtext.utf8", text_body)]
    sections.append(("val", _values(report, queries)))
    lists = report.lists
    if lists is not None:
        sections += _list_sections(lists, len(queries), report.documents)
    layout, data = pack(sections)
    baseline = report.systems.index(report.baseline) if report.baseline is not None else None
    meta = {
        "version": 1,
        "systems": list(report.systems),
        "baseline": baseline,
        "measures": [str(m) for m in report.measures],
        "queries": len(queries),
        "depth": lists.depth if lists is not None else 0,
        "lists": lists.has_lists.tolist() if lists is not None else [False] * len(
            report.systems),
        "documents": len(lists.doc_ids) if lists is not None else 0,
        "texts": topics is not None,
        "doctexts": report.documents is not None and lists is not None,
        "rel": _level(report.settings.get("relevance level", "")),
        "ties": report.settings.get("ties", ""),
        "colors": [color_of(i) for i in range(len(report.systems))],
        "layout": layout,
        "data": base64.b64encode(data).decode("ascii"),
    }
    text = json.dumps(meta, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _level(text: str) -> float:
    """The relevance level of the settings' ``grade >= 1``."""
    try:
        value = float(text.rsplit(">=", 1)[-1])
    except ValueError:
        return 1.0
    return value if math.isfinite(value) else 1.0
