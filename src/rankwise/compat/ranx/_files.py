"""ranx's files: JSON, TREC (gzipped too), LZ4 (CBOR inside) and Parquet, read and written.

Reading goes through rankwise's readers (TREC text and frames at C speed, with
rankwise's errors: file and line); the result is a
:class:`~rankwise.compat.ranx._table.Table` in the file's order, which the
caller sorts as ranx does. Writing produces ranx's bytes: the same JSON
layout (two-space indent), the same TREC lines (no newline after the last).
"""

from __future__ import annotations

import json
from typing import Any

from rankwise._files import write_file
from rankwise.compat.ranx._table import Table
from rankwise.exceptions import InputFormatError, MissingDependencyError

__all__ = ["frame_table", "read_json", "read_lz4", "run_name_of", "trec_table",
           "write_json", "write_lz4", "write_trec"]


def read_json(path: str) -> Any:
    """The JSON document of *path* (orjson's reader when installed, as ranx's)."""
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        import orjson
    except ImportError:
        return json.loads(data)
    return orjson.loads(data)


def write_json(content: Any, path: str) -> None:
    """*content* as JSON with a two-space indent (ranx's layout)."""
    write_file(json.dumps(content, indent=2, ensure_ascii=False), path)


def _lz4_modules() -> tuple[Any, Any]:
    try:
        import cbor2
        import lz4.frame
    except ImportError:
        raise MissingDependencyError(
            "ranx's .lz4 files are CBOR compressed with LZ4: pip install lz4 cbor2"
        ) from None
    return cbor2, lz4.frame


def read_lz4(path: str) -> Any:
    """The content of a ranx ``.lz4`` file (CBOR, LZ4-compressed, in an LZ4 frame file)."""
    cbor2, frame = _lz4_modules()
    with frame.open(path, mode="r") as handle:
        return cbor2.loads(frame.decompress(handle.read()))


def write_lz4(content: Any, path: str) -> None:
    """*content* as ranx writes ``.lz4`` files."""
    import io

    cbor2, frame = _lz4_modules()
    buffer = io.BytesIO()
    with frame.open(buffer, mode="wb") as handle:
        handle.write(frame.compress(cbor2.dumps(content), compression_level=16))
    write_file(buffer.getvalue(), path)


def trec_table(path: str, judgments: bool) -> Table:
    """The TREC judgments or run of *path* (compressed or not), in the file's order.

    Judgments are ``qid 0 docno grade`` lines, runs ``qid Q0 docno rank score tag``.

    Raises
    ------
    InputFormatError
        A malformed line (rankwise's message: file and line), or a document
        listed twice for a query (ranx keeps the last value).
    """
    from rankwise.io import read_trec_qrels, read_trec_run

    if judgments:
        return Table.from_qrels(read_trec_qrels(path))
    return Table.from_run(read_trec_run(path))


def run_name_of(path: str) -> str | None:
    """The run id of a TREC run's first line (ranx names a run so), or None."""
    import gzip

    with open(path, "rb") as handle:
        magic = handle.read(2)
    opener = gzip.open if magic == b"\x1f\x8b" else open
    with opener(path, "rt") as text:
        for line in text:
            fields = line.split()
            if fields:
                return fields[5] if len(fields) >= 6 else None
    return None


def frame_table(frame: Any, q_id_col: str, doc_id_col: str, score_col: str,
                judgments: bool) -> Table:
    """The rows of a DataFrame (pandas, polars, Arrow) as a table, in the frame's order.

    Raises
    ------
    InputFormatError
        A column is missing, an id is not text, a value is not a number.
    """
    from rankwise.io.coerce import as_qrels, as_run

    if not hasattr(frame, "columns"):
        raise InputFormatError(f"expected a DataFrame, got {type(frame).__name__}")
    role = "relevance" if judgments else "score"
    columns = {"query_id": q_id_col, "doc_id": doc_id_col, role: score_col}
    if judgments:
        return Table.from_qrels(as_qrels(frame, columns=columns))
    return Table.from_run(as_run(frame, columns=columns))


def write_trec(lines: Any, path: str) -> None:
    """Write TREC lines joined by newlines, none after the last (as ranx writes them)."""
    write_file("\n".join(lines), path)
