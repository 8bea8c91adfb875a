"""Query texts (topics) and document texts (collections): ``{id: text}``.

The report's query explorer shows what each query asked and what each
document says. Three file formats, compressed or not (the content tells):

* ``trec``: TREC topics, ``<top> <num> Number: 301 <title> ... <desc> ...
  <narr> ... </top>``, and the XML topics of the Web tracks
  (``<topic number="1"><query>...</query><description>...``);
* ``tsv``: ``id<TAB>text`` per line, no header (MS MARCO's ``queries.tsv``
  and ``collection.tsv``); a text may hold more tabs;
* ``jsonl``: one object per line, as ``ir_datasets export ... --format
  jsonl`` writes them: the id in ``query_id`` / ``doc_id`` (or ``qid``,
  ``docno``, ``id``, ``_id``, ...), the text in ``text`` (or ``title``,
  ``query``, ``contents``, ``body``, ...).

Objects are read too: a mapping ``{id: text}``, an iterable of named tuples
(ir_datasets' ``queries_iter()`` and ``docs_iter()``), and for documents an
ir_datasets docs store (``get_many``). A collection is read once, front to
back, keeping only the documents asked for (``ids=``): the reading runs at
pyarrow's speed and the memory holds what is kept.

Errors name the file and the line (:class:`~rankwise.exceptions.InputFormatError`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from rankwise.exceptions import InputFormatError, InvalidParameterError
from rankwise.io._source import COMPRESSED_SUFFIXES, open_source

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["TEXT_FORMATS", "TOPIC_FIELDS", "as_documents", "as_topics", "read_documents",
           "read_topics"]

TEXT_FORMATS = ("trec", "tsv", "jsonl")
"""The file formats of topics and collections."""

TOPIC_FIELDS = ("title", "description", "narrative")
"""The parts of a TREC topic; ``title`` is the query by default."""

_QUERY_IDS = ("query_id", "qid", "topic_id", "number", "num", "id", "_id")
_DOC_IDS = ("doc_id", "docno", "docid", "pid", "id", "_id")
_QUERY_TEXTS = ("text", "title", "query")
_DOC_TEXTS = ("text", "contents", "body", "passage", "abstract")
_TREC_TAGS = {"title": ("title", "query"), "description": ("desc", "description"),
              "narrative": ("narr", "narrative")}
_LABELS = re.compile(r"^\s*(?:Number|Topic|Title|Description|Narrative)\s*:\s*", re.IGNORECASE)


def _format_of(path: str, head: bytes, fmt: str | None) -> str:
    if fmt is not None:
        if fmt not in TEXT_FORMATS:
            raise InvalidParameterError(
                f"unknown text format {fmt!r}; expected one of {', '.join(TEXT_FORMATS)}")
        return fmt
    name = path.lower()
    for suffix in COMPRESSED_SUFFIXES:
        name = name.removesuffix(suffix)
    start = head.lstrip()
    if name.endswith((".jsonl", ".ndjson", ".json")) or start.startswith(b"{"):
        return "jsonl"
    if start.startswith((b"<top", b"<topic", b"<?xml", b"<webtrack", b"<topics")):
        return "trec"
    return "tsv"


def _head(path: str) -> bytes:
    """The first decompressed bytes of *path* (up to 4 kB), to tell its format."""
    with open_source(path) as opened:
        for chunk in opened.chunks(1 << 16):
            return chunk[:4096]
    return b""


# ------------------------------------------------------------------------------------------
# files


def read_topics(path: str | os.PathLike[str], *, fmt: str | None = None,
                field: str | None = None) -> dict[str, str]:
    r"""Read query texts: ``{query id: text}``.

    Parameters
    ----------
    path : str or path
        A TREC topics file, a TSV file ``qid<TAB>text`` or a JSONL file
        (compressed or not).
    fmt : {"trec", "tsv", "jsonl"}, optional
        The format (default: from the content and the name).
    field : str, optional
        The part of each topic to read: for TREC topics ``title`` (default),
        ``description`` or ``narrative``; for JSONL a field name (default:
        ``text``, else ``title``, else ``query``).

    Returns
    -------
    dict

    Raises
    ------
    InputFormatError
        A malformed file, a topic without a number or the field, a query given twice.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "topics.txt")
    >>> _ = open(path, "w").write(
    ...     "<top>\n<num> Number: 301\n<title> International Organized Crime\n"
    ...     "<desc> Description:\nIdentify organizations.\n</top>\n")
    >>> read_topics(path), read_topics(path, field="description")
    ({'301': 'International Organized Crime'}, {'301': 'Identify organizations.'})
    """
    text = os.fspath(path)
    kind = _format_of(text, _head(text), fmt)
    if kind == "trec":
        return _trec_topics(text, field or "title")
    if kind == "tsv":
        if field is not None:
            raise InvalidParameterError(f"a TSV file has no fields to choose from, got "
                                        f"field={field!r}")
        return _read_tsv(text, "query", None)
    return _read_jsonl(text, "query", None, field)


def read_documents(path: str | os.PathLike[str], *, fmt: str | None = None,
                   ids: Iterable[str] | None = None) -> dict[str, str]:
    r"""Read document texts: ``{document id: text}``, only those of *ids* when given.

    Parameters
    ----------
    path : str or path
        A TSV file ``doc_id<TAB>text`` or a JSONL file (compressed or not).
    fmt : {"tsv", "jsonl"}, optional
        The format (default: from the content and the name).
    ids : iterable of str, optional
        The documents wanted; the others are skipped as the file is read.

    Returns
    -------
    dict

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "collection.tsv")
    >>> _ = open(path, "w").write("d1\tThe first passage.\nd2\tThe second.\n")
    >>> read_documents(path, ids=["d2", "d9"])
    {'d2': 'The second.'}
    """
    text = os.fspath(path)
    kind = _format_of(text, _head(text), fmt)
    wanted = None if ids is None else list(ids)
    if kind == "trec":
        raise InputFormatError("TREC topics are not a collection: give a TSV (doc_id<TAB>text)"
                               " or JSONL file of documents", text)
    if kind == "tsv":
        return _read_tsv(text, "document", wanted)
    return _read_jsonl(text, "document", wanted, None)


def _read_tsv(path: str, kind: str, wanted: list[str] | None) -> dict[str, str]:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    from rankwise.io.tables import _stream

    extra: list[str] = []  # rows whose text holds tabs: split at the first tab below
    short: list[str] = []

    def odd(row: Any) -> str:
        (extra if row.actual_columns > 2 else short).append(row.text)
        return "skip"

    keep = None if wanted is None else pa.array(wanted, pa.string())
    ids: list[pa.Array] = []
    texts: list[pa.Array] = []
    with open_source(path) as opened:
        try:
            reader = pacsv.open_csv(
                _stream(opened),
                read_options=pacsv.ReadOptions(column_names=["id", "text"], block_size=1 << 22),
                parse_options=pacsv.ParseOptions(
                    delimiter="\t", quote_char=False, escape_char=False,
                    ignore_empty_lines=True, invalid_row_handler=odd),
                convert_options=pacsv.ConvertOptions(
                    column_types={"id": pa.string(), "text": pa.string()},
                    strings_can_be_null=False, quoted_strings_can_be_null=False,
                    null_values=[]))
            for batch in reader:
                if short:
                    break
                chosen = batch if keep is None else batch.filter(pc.is_in(batch["id"], keep))
                ids.append(chosen["id"])
                texts.append(chosen["text"])
        except pa.ArrowInvalid as error:
            if "Empty CSV file" in str(error):
                raise InputFormatError(f"file is empty: expected one {kind} per line "
                                       "(id<TAB>text)", opened.display) from None
            _diagnose_tsv(opened.display, kind)
            raise InputFormatError(f"cannot read this TSV file: {str(error).splitlines()[0]}",
                                   opened.display) from None
        except UnicodeDecodeError:
            _diagnose_tsv(opened.display, kind)
            raise InputFormatError("not UTF-8 text: rankwise reads UTF-8 files",
                                   opened.display) from None
    if short:
        _diagnose_tsv(path, kind)
        raise InputFormatError(f"expected 2 fields ({kind} id<TAB>text), got 1 in the line "
                               f"{short[0][:60]!r}", path)
    out = _as_dict(ids, texts)
    wanted_set = None if wanted is None else set(wanted)
    for row in extra:
        key, _, value = row.partition("\t")
        if wanted_set is None or key in wanted_set:
            out.setdefault(key, value)
    _check_unique(out, sum(len(a) for a in ids) + len(extra), path, kind, "tsv", wanted_set)
    return out


def _as_dict(ids: list[pa.Array], texts: list[pa.Array]) -> dict[str, str]:
    keys: list[str] = [v for array in ids for v in array.to_pylist()]
    values: list[str] = [v for array in texts for v in array.to_pylist()]
    return dict(zip(keys, values))


def _check_unique(out: Mapping[str, str], rows: int, path: str, kind: str, form: str,
                  wanted: set[str] | None) -> None:
    """Raise when an id came twice (the dict kept fewer entries than rows were read)."""
    if len(out) == rows:
        return
    from rankwise.io.trec import iter_lines

    seen: set[str] = set()
    for number, raw in enumerate(iter_lines(path), start=1):
        key = _line_id(raw, form, kind)
        if key is None or (wanted is not None and key not in wanted):
            continue
        if key in seen:
            raise InputFormatError(f"{kind} {key!r} is given twice", path, number)
        seen.add(key)
    raise InputFormatError(f"a {kind} id is given twice", path)


def _line_id(raw: bytes, form: str, kind: str) -> str | None:
    if not raw.strip():
        return None
    if form == "tsv":
        return raw.split(b"\t", 1)[0].decode("utf-8", "replace")
    import json

    record = json.loads(raw)
    for name in (_QUERY_IDS if kind == "query" else _DOC_IDS):
        if name in record:
            return str(record[name])
    return None


def _diagnose_tsv(path: str, kind: str) -> None:
    """Raise the error of the first bad line of a TSV file (when it can be read again)."""
    if path == "<stdin>" or not os.path.isfile(path):
        return
    from rankwise.io.trec import iter_lines

    for number, raw in enumerate(iter_lines(path), start=1):
        line = raw.rstrip(b"\r")
        if not line:
            continue
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as error:
            raise InputFormatError(
                f"not UTF-8 text (byte 0x{line[error.start]:02x} at column {error.start + 1}): "
                "rankwise reads UTF-8 files", path, number) from None
        if b"\t" not in line:
            raise InputFormatError(f"expected 2 fields ({kind} id<TAB>text), got 1", path,
                                   number)


def _read_jsonl(path: str, kind: str, wanted: list[str] | None,
                field: str | None) -> dict[str, str]:
    import json

    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.json as pajson

    from rankwise.io.tables import _diagnose_jsonl, _stream

    first = _first_record(path)
    id_names = _QUERY_IDS if kind == "query" else _DOC_IDS
    key = next((name for name in id_names if name in first), None)
    if key is None:
        raise InputFormatError(f"no {kind} id field in {json.dumps(first)[:80]}: expected one "
                               f"of {', '.join(id_names)}", path, 1)
    texts = _text_fields(first, kind, field, path)
    schema = pa.schema([(key, pa.int64() if isinstance(first[key], int) else pa.string())]
                       + [(name, pa.string()) for name in texts])
    keep = None if wanted is None else pa.array(wanted, pa.string())
    ids: list[pa.Array] = []
    values: list[pa.Array] = []
    with open_source(path) as opened:
        try:
            reader = pajson.open_json(_stream(opened), parse_options=(
                pajson.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore")))
            for batch in reader:
                id_column = batch[key].cast(pa.string())
                text = batch[texts[0]]
                for more in texts[1:]:  # a title and a body: "title. body"
                    text = pc.binary_join_element_wise(text, batch[more], ". ",
                                                       null_handling="skip")
                if keep is not None:
                    chosen = pc.is_in(id_column, keep)
                    id_column, text = id_column.filter(chosen), text.filter(chosen)
                ids.append(id_column)
                values.append(pc.fill_null(text, ""))
        except (pa.ArrowInvalid, UnicodeDecodeError) as error:
            if opened.display != "<stdin>" and os.path.isfile(opened.display):
                _diagnose_jsonl(opened.display)
            raise InputFormatError(f"cannot read this JSONL file: {str(error).splitlines()[0]}",
                                   opened.display) from None
    if any(array.null_count for array in ids):
        raise InputFormatError(f"a line has no {key!r}: every {kind} needs its id", path)
    out = _as_dict(ids, values)
    _check_unique(out, sum(len(a) for a in ids), path, kind, "jsonl",
                  None if wanted is None else set(wanted))
    return out


def _first_record(path: str) -> dict[str, Any]:
    import json

    from rankwise.io.trec import iter_lines

    for number, raw in enumerate(iter_lines(path), start=1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except ValueError as error:
            raise InputFormatError(f"not valid JSON: {error}", path, number) from None
        if not isinstance(record, dict):
            raise InputFormatError("expected one JSON object per line", path, number)
        return record
    raise InputFormatError("file is empty: expected one JSON object per line", path)


def _text_fields(first: Mapping[str, Any], kind: str, field: str | None,
                 path: str) -> list[str]:
    if field is not None:
        if field not in first:
            raise InputFormatError(f"no field {field!r} in the first line; its fields are "
                                   f"{', '.join(first)}", path, 1)
        return [field]
    if kind == "query":
        found = next((name for name in _QUERY_TEXTS if name in first), None)
        if found is None:
            raise InputFormatError(f"no query text field: expected one of "
                                   f"{', '.join(_QUERY_TEXTS)}, or give field=", path, 1)
        return [found]
    body = next((name for name in _DOC_TEXTS if name in first), None)
    if body is None and "title" not in first:
        raise InputFormatError(f"no document text field: expected one of "
                               f"{', '.join(('title', *_DOC_TEXTS))}", path, 1)
    return [name for name in ("title", body) if name is not None and name in first]


_TOP = re.compile(rb"<top>(.*?)</top>", re.DOTALL | re.IGNORECASE)
_WEB_TOPIC = re.compile(rb"<topic\b([^>]*)>(.*?)</topic>", re.DOTALL | re.IGNORECASE)


def _trec_topics(path: str, field: str) -> dict[str, str]:
    """Topics in TREC's SGML (``<top>``) or the Web tracks' XML (``<topic number=..>``)."""
    from html import unescape

    if field not in _TREC_TAGS:
        raise InvalidParameterError(f"field must be one of {', '.join(TOPIC_FIELDS)} for TREC "
                                    f"topics, got {field!r}")
    with open_source(path) as opened:
        data = b"".join(opened.chunks())
    topics: dict[str, str] = {}
    blocks = list(_TOP.finditer(data))
    web = not blocks
    if web:
        blocks = list(_WEB_TOPIC.finditer(data))
    if not blocks:
        raise InputFormatError("no topic found: expected TREC topics (<top> <num> ... </top>, "
                               "or <topic number=...>)", path)
    for block in blocks:
        line = data.count(b"\n", 0, block.start()) + 1
        try:
            body = block.group(2 if web else 1).decode("utf-8")
            head = block.group(1).decode("utf-8") if web else ""
        except UnicodeDecodeError:
            raise InputFormatError("not UTF-8 text: rankwise reads UTF-8 files", path,
                                   line) from None
        number = (re.search(r'number\s*=\s*"?([^"\s>]+)', head) if web
                  else re.search(r"<num>(.*?)(?=<|\Z)", body, re.DOTALL | re.IGNORECASE))
        if number is None or not _LABELS.sub("", number.group(1)).strip():
            raise InputFormatError("a topic without a number (<num> Number: 301)", path, line)
        qid = _LABELS.sub("", number.group(1)).strip()
        text = _trec_field(body, field)
        if text is None:
            raise InputFormatError(f"topic {qid} has no {field} (<{_TREC_TAGS[field][0]}>)",
                                   path, line)
        if qid in topics:
            raise InputFormatError(f"topic {qid} is given twice", path, line)
        topics[qid] = unescape(text) if web else text
    return topics


def _trec_field(body: str, field: str) -> str | None:
    for tag in _TREC_TAGS[field]:
        found = re.search(rf"<{tag}\b[^>]*>(.*?)(?=<|\Z)", body, re.DOTALL | re.IGNORECASE)
        if found is not None:
            return " ".join(_LABELS.sub("", found.group(1)).split())
    return None


# ------------------------------------------------------------------------------------------
# objects


def as_topics(obj: Any, *, fmt: str | None = None, field: str | None = None) -> dict[str, str]:
    """Query texts from a path, a mapping ``{id: text}`` or named tuples (``queries_iter()``).

    Examples
    --------
    >>> from collections import namedtuple
    >>> Query = namedtuple("GenericQuery", "query_id text")
    >>> as_topics([Query("1", "what is rankwise")]), as_topics({2: "ndcg"})
    ({'1': 'what is rankwise'}, {'2': 'ndcg'})
    """
    if isinstance(obj, (str, os.PathLike)):
        return read_topics(obj, fmt=fmt, field=field)
    return _from_object(obj, "query", field)


def as_documents(obj: Any, *, fmt: str | None = None,
                 ids: Iterable[str] | None = None) -> dict[str, str]:
    """Document texts from a path, a mapping, an ir_datasets docs store or named tuples.

    Only the documents of *ids* are kept when it is given (a docs store is
    asked for them alone).

    Examples
    --------
    >>> as_documents({"d1": "one", "d2": "two"}, ids=["d2"])
    {'d2': 'two'}
    """
    if isinstance(obj, (str, os.PathLike)):
        return read_documents(obj, fmt=fmt, ids=ids)
    wanted = None if ids is None else list(ids)
    if hasattr(obj, "get_many") and not isinstance(obj, Mapping):  # ir_datasets' docs store
        if wanted is None:
            raise InvalidParameterError("a docs store is read by the ids wanted: give ids=")
        found = obj.get_many(wanted)
        return {str(key): _record_text(doc, "document", None) for key, doc in found.items()}
    out = _from_object(obj, "document", None)
    if wanted is None:
        return out
    return {key: out[key] for key in wanted if key in out}


def _from_object(obj: Any, kind: str, field: str | None) -> dict[str, str]:
    if isinstance(obj, Mapping):
        return {str(key): value if isinstance(value, str) else _record_text(value, kind, field)
                for key, value in obj.items()}
    if isinstance(obj, Iterable) and not isinstance(obj, (str, bytes)):
        names = _QUERY_IDS if kind == "query" else _DOC_IDS
        out: dict[str, str] = {}
        for position, item in enumerate(obj):
            fields = getattr(item, "_fields", None)
            key = next((n for n in names if fields and n in fields), None)
            if key is None:
                raise InputFormatError(
                    f"item {position}: expected named tuples with a {kind} id field "
                    f"({', '.join(names)}), got {type(item).__name__}: {item!r:.80}")
            out[str(getattr(item, key))] = _record_text(item, kind, field)
        return out
    raise InvalidParameterError(
        f"expected a path, a mapping {{id: text}} or named tuples for the {kind} texts, got "
        f"{type(obj).__name__}")


def _record_text(item: Any, kind: str, field: str | None) -> str:
    """The text of a named tuple or object: *field*, else the usual text fields."""
    if field is not None:
        return str(getattr(item, field, "") or "")
    names = _QUERY_TEXTS if kind == "query" else _DOC_TEXTS
    body = next((str(getattr(item, n)) for n in names if getattr(item, n, None)), "")
    title = str(getattr(item, "title", "") or "") if kind == "document" else ""
    return f"{title}. {body}" if title and body else (title or body)
