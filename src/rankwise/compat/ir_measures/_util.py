"""ir_measures' records, readers and measure parsers (``ir_measures.util``).

- :class:`Qrel`, :class:`ScoredDoc`, :class:`Metric`, :class:`CalcResults`:
  the named tuples ir_measures reads and yields;
- :func:`read_trec_qrels`, :func:`read_trec_run`: TREC files (a path, ``.gz``
  too, an open file, or the text itself when it holds a newline) as those
  named tuples, lazily;
- :func:`parse_measure`: ``"nDCG(dcg='exp-log2')@10"`` as a measure object;
  :func:`parse_trec_measure`: a trec_eval name (``"ndcg_cut.5,10"``,
  ``"official"``) as a list of them;
- :class:`QrelsConverter`, :class:`RunConverter`: the conversions between
  the forms ir_measures takes (named tuples, a pandas frame, a dict of dicts).

Examples
--------
>>> qrels = list(read_trec_qrels(chr(10).join(["q1 0 d1 2", "q1 0 d2 0"])))
>>> qrels[0]
Qrel(query_id='q1', doc_id='d1', relevance=2, iteration='0')
>>> parse_measure("P(rel=2)@5"), parse_trec_measure("ndcg_cut.5,10")
(P(rel=2)@5, [nDCG@5, nDCG@10])
"""

from __future__ import annotations

import ast
import contextlib
import gzip
import io
import itertools
import re
import tempfile
import warnings
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from rankwise.compat.ir_measures._measures import INSTANCES, Measure, registry
from rankwise.compat.ir_measures._records import (
    CalcResults,
    GenericQrel,
    GenericScoredDoc,
    Metric,
    Qrel,
    ScoredDoc,
)
from rankwise.exceptions import UnknownMeasureError

__all__ = [
    "CalcResults",
    "GenericQrel",
    "GenericScoredDoc",
    "Metric",
    "Qrel",
    "QrelsConverter",
    "RunConverter",
    "ScoredDoc",
    "UnknownIrMeasureError",
    "convert_trec_name",
    "parse_measure",
    "parse_trec_measure",
    "parse_trec_qrels",
    "parse_trec_run",
    "read_trec_qrels",
    "read_trec_run",
]


# ---------------------------------------------------------------------------
# readers
# ---------------------------------------------------------------------------

def _lines(file: Any) -> Iterator[str]:
    """The lines of an open file, of the text itself (when it holds a newline), or of a path."""
    if hasattr(file, "read"):
        yield from file
    elif isinstance(file, str):
        if "\n" in file:
            yield from io.StringIO(file)
        else:
            opener: Any = gzip.open if file.endswith(".gz") else open
            with opener(file, "rt") as handle:
                yield from handle


def read_trec_qrels(file: Any) -> Iterator[Qrel]:
    """TREC judgments (``qid iteration docno grade``) as :class:`Qrel` rows, lazily.

    *file*: a path (``.gz`` too), an open file, or the text itself.

    Raises
    ------
    ValueError
        A line without four fields or whose grade is not an integer (as ir_measures).

    Examples
    --------
    >>> list(read_trec_qrels(chr(10).join(["q1 0 d1 2", "q1 1 d2 0"])))[1]
    Qrel(query_id='q1', doc_id='d2', relevance=0, iteration='1')
    """
    for line in _lines(file):
        if line.strip():
            query_id, iteration, doc_id, relevance = line.split()
            yield Qrel(query_id=query_id, doc_id=doc_id, relevance=int(relevance),
                       iteration=iteration)


def read_trec_run(file: Any) -> Iterator[ScoredDoc]:
    """A TREC run (``qid Q0 docno rank score tag``) as :class:`ScoredDoc` rows, lazily.

    Raises
    ------
    ValueError
        A line without six fields or whose score is not a number (as ir_measures).

    Examples
    --------
    >>> list(read_trec_run(chr(10).join(["q1 Q0 d1 1 2.5 bm25", "q1 Q0 d2 2 1.5 bm25"])))[0]
    ScoredDoc(query_id='q1', doc_id='d1', score=2.5)
    """
    for line in _lines(file):
        if line.strip():
            query_id, _, doc_id, _, score, _ = line.split()
            yield ScoredDoc(query_id=query_id, doc_id=doc_id, score=float(score))


def parse_trec_qrels(file: Any) -> Iterator[Qrel]:
    """Deprecated name of :func:`read_trec_qrels`."""
    warnings.warn("parse_trec_qrels deprecated in 0.2.0. Please use ir_measures.read_trec_qrels()"
                  " instead.", DeprecationWarning, stacklevel=2)
    return read_trec_qrels(file)


def parse_trec_run(file: Any) -> Iterator[ScoredDoc]:
    """Deprecated name of :func:`read_trec_run`."""
    warnings.warn("parse_trec_run deprecated in 0.2.0. Please use ir_measures.read_trec_run() "
                  "instead.", DeprecationWarning, stacklevel=2)
    return read_trec_run(file)


# ---------------------------------------------------------------------------
# the measure languages
# ---------------------------------------------------------------------------

_AST_PARSE_ERROR = "problem parsing measure {}; must be in format Measure(k1=v1, k2=v2)@c"


class UnknownIrMeasureError(UnknownMeasureError, NameError):
    """A measure name ir_measures does not have (``NameError``, as ir_measures raises)."""


def _ast_value(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _ast_value(node.operand)
        if isinstance(inner, (int, float)) and not isinstance(inner, bool):
            return -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.Dict):
        return {_ast_value(k): _ast_value(v) for k, v in zip(node.keys, node.values)
                if k is not None}
    raise ValueError(_AST_PARSE_ERROR.format("values must be str, float, int, bool, etc."))


def parse_measure(measure: Any) -> Measure:
    """A measure object from its text (``"P(rel=2)@5"``); a measure object is returned as is.

    Raises
    ------
    ValueError
        Text that is not ``Name(key=value, ...)@value``.
    UnknownIrMeasureError
        A name ir_measures does not have (a ``NameError``, as ir_measures
        raises), with the nearest of its names: ``did you mean 'nDCG@10'?``.

    Examples
    --------
    >>> parse_measure("nDCG(dcg='exp-log2', cutoff=20)"), parse_measure("IPrec(rel=2)@0.2")
    (nDCG(dcg='exp-log2')@20, IPrec(rel=2)@0.2)
    >>> parse_measure("nDGC@10")
    Traceback (most recent call last):
    ...
    rankwise.compat.ir_measures._util.UnknownIrMeasureError: measure not found: nDGC; did you \
mean 'nDCG@10'?
    """
    if isinstance(measure, Measure):
        return measure
    try:
        body = ast.parse(measure).body
    except SyntaxError as error:
        raise ValueError(_AST_PARSE_ERROR.format(str(error))) from None
    if len(body) != 1:
        raise ValueError(_AST_PARSE_ERROR.format("multiple expressions"))
    if not isinstance(body[0], ast.Expr):
        raise ValueError(_AST_PARSE_ERROR.format("not an expression"))
    node = body[0].value
    at_value: Any = None
    args: dict[str, Any] = {}
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        at_value = _ast_value(node.right)
        node = node.left
    if isinstance(node, ast.Call):
        if node.args:
            raise ValueError(_AST_PARSE_ERROR.format("args must be named"))
        for keyword in node.keywords:
            args[str(keyword.arg)] = _ast_value(keyword.value)
        node = node.func
    if not isinstance(node, ast.Name):
        raise ValueError(_AST_PARSE_ERROR.format("unexpected expression"))
    if node.id not in registry:
        from rankwise.measures.ir_language import ir_name_hint

        raise UnknownIrMeasureError(f"measure not found: {node.id}{ir_name_hint(measure)}")
    found = registry[node.id]
    if at_value is not None:
        args[found.AT_PARAM] = at_value
    return found(**args)


_TREC_NAMES: dict[str, tuple[str | None, str | None, list[Any] | None]] = {
    "ndcg": ("nDCG", None, None),
    "P": ("P", "cutoff", [5, 10, 15, 20, 30, 100, 200, 500, 1000]),
    "map_cut": ("AP", "cutoff", [5, 10, 15, 20, 30, 100, 200, 500, 1000]),
    "Rndcg": (None, None, None),
    "num_nonrel_judged_ret": (None, None, None),
    "set_map": ("SetAP", None, None),
    "11pt_avg": (None, None, None),
    "relative_P": (None, None, None),
    "gm_map": (None, None, None),
    "binG": (None, None, None),
    "set_P": ("SetP", None, None),
    "infAP": ("infAP", None, None),
    "bpref": ("Bpref", None, None),
    "num_rel_ret": ("NumRelRet", None, None),
    "ndcg_rel": (None, None, None),
    "recip_rank": ("RR", None, None),
    "recall": ("R", "cutoff", [5, 10, 15, 20, 30, 100, 200, 500, 1000]),
    "set_recall": ("SetR", None, None),
    "utility": (None, None, None),
    "set_relative_P": ("SetRelP", None, None),
    "num_ret": ("NumRet", None, None),
    "num_rel": ("NumRel", None, None),
    "ndcg_cut": ("nDCG", "cutoff", [5, 10, 15, 20, 30, 100, 200, 500, 1000]),
    "Rprec": ("Rprec", None, None),
    "Rprec_mult": (None, None, None),
    "relstring": (None, None, None),
    "gm_bpref": (None, None, None),
    "num_q": ("NumQ", None, None),
    "map": ("AP", None, None),
    "G": (None, None, None),
    "success": ("Success", "cutoff", [1, 5, 10]),
    "set_F": ("SetF", "beta", [1.0]),
    "iprec_at_recall": ("IPrec", "recall", [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]),
}
"""trec_eval's names as ir_measures 0.4 reads them: (measure, parameter, its default values)."""

_TREC_PARAMS = r"{}[\._]([0-9]+(\.[0-9]+)?(,[0-9]+(\.[0-9]+)?)*)"


def parse_trec_measure(measure: str) -> list[Measure]:
    """The measure objects of a trec_eval name: ``"P.5,10"`` is ``[P@5, P@10]``.

    A name without parameters gives trec_eval's defaults (``"P"``: P@5 ...
    P@1000); a nickname (``"official"``) its measures, in name order.

    Raises
    ------
    ValueError
        A name trec_eval has that ir_measures does not (``"known trec name ...,
        but not yet supported"``), or no trec_eval name.

    Examples
    --------
    >>> parse_trec_measure("set_F.1.0,0.5"), parse_trec_measure("success")
    ([SetF, SetF(beta=0.5)], [Success@1, Success@5, Success@10])
    """
    from rankwise.compat.pytrec_eval import supported_nicknames

    if measure in supported_nicknames:
        result, skipped = [], []
        for name in sorted(supported_nicknames[measure]):
            try:
                result += parse_trec_measure(name)
            except ValueError:
                if name != "runid":
                    skipped.append(name)
        if skipped:
            print(f"skipped {skipped}: measures not yet supported")
        return result
    if measure in _TREC_NAMES:
        known, param, defaults = _TREC_NAMES[measure]
        if known is None:
            raise ValueError(f"known trec name {measure}, but not yet supported")
        if param is not None and defaults is not None:
            return [INSTANCES[known](**{param: value}) for value in defaults]
        return [INSTANCES[known]]
    for base in _TREC_NAMES:
        match = re.match(_TREC_PARAMS.format(re.escape(base)), measure)
        if match is not None:
            break
    else:
        raise ValueError(f"unkonwn measure {measure}")
    found_name, param, _ = _TREC_NAMES[base]
    if found_name is None:
        raise ValueError(f"known trec name {measure}, but not yet supported")
    if param is None:
        raise ValueError(f"unknown argument for {measure}: {match.group(1)}")
    found = INSTANCES[found_name]
    dtype = found.SUPPORTED_PARAMS[param].dtype
    return [found(**{param: dtype(value)}) for value in match.group(1).split(",")]


def convert_trec_name(measure: str) -> list[Measure]:
    """Deprecated name of :func:`parse_trec_measure`."""
    warnings.warn("convert_trec_name deprecated in 0.2.0. Please use "
                  "ir_measures.parse_trec_measure() instead.", DeprecationWarning, stacklevel=2)
    return parse_trec_measure(measure)


# ---------------------------------------------------------------------------
# converters between the forms ir_measures takes
# ---------------------------------------------------------------------------

class _Converter:
    """The forms ir_measures takes for judgments or runs (named tuples, a frame, a dict)."""

    RECORD: Any = Qrel
    KIND = "qrels"
    VALUE = "relevance"

    def __init__(self, data: Any, strict: bool = True) -> None:
        self.data = data
        self.strict = strict
        self._predicted: tuple[str, str | None] | None = None

    def _required(self) -> list[str]:
        return [f for f in self.RECORD._fields if f not in self.RECORD._field_defaults]

    def tee(self, count: int) -> list[Any]:
        """*count* converters of the same data (an iterator is split)."""
        if self.predict_type()[0] == "namedtuple_iter":
            return [type(self)(part) for part in itertools.tee(self.data, count)]
        return [self] * count

    def predict_type(self) -> tuple[str, str | None]:
        """The form: ``dict_of_dict``, ``pd_dataframe``, ``namedtuple_iter`` or ``UNKNOWN``."""
        if self._predicted:
            return self._predicted
        result, error = "UNKNOWN", None
        if isinstance(self.data, dict):
            result = "dict_of_dict"
        elif hasattr(self.data, "itertuples"):
            columns = self.data.columns
            missing = [f for f in self._required() if f not in columns]
            if missing and self.strict:
                error = f"DataFrame missing columns: {missing} (found {list(columns)})"
            else:
                result = "pd_dataframe"
        elif hasattr(self.data, "__iter__"):
            self.data, peek = itertools.tee(self.data, 2)
            sentinel = object()
            item = next(peek, sentinel)
            if isinstance(item, tuple) and hasattr(item, "_fields"):
                missing = [f for f in self._required() if f not in item._fields]
                if missing:
                    error = (f"namedtuple iter missing fields: {missing} "
                     f"(found {list(item._fields)})")
                else:
                    result = "namedtuple_iter"
            elif item is sentinel:
                result = "namedtuple_iter"
            else:
                error = "iterable not a namedtuple iterator"
        else:
            fields = tuple(self._required())
            error = (f"unexpected format; please provide either: (1) an iterable of namedtuples "
                     f"(fields {fields}, e.g., from ir_measures.{self.RECORD.__name__}); (2) a "
                     f"pandas DataFrame with columns {fields}; or (3) a dict-of-dict")
        self._predicted = (result, error)
        return self._predicted

    def as_dict_of_dict(self) -> dict[Any, dict[Any, Any]]:
        """``{query_id: {doc_id: value}}``."""
        if self.predict_type()[0] == "dict_of_dict":
            return dict(self.data)
        result: dict[Any, dict[Any, Any]] = {}
        for row in self.as_namedtuple_iter():
            result.setdefault(row.query_id, {})[row.doc_id] = getattr(row, self.VALUE)
        return result

    def _from_frame(self) -> Iterator[Any]:
        raise NotImplementedError

    def as_namedtuple_iter(self) -> Iterator[Any]:
        """The rows as named tuples."""
        kind, error = self.predict_type()
        if kind == "namedtuple_iter":
            yield from self.data
        elif kind == "dict_of_dict":
            for query_id, docs in self.data.items():
                for doc_id, value in docs.items():
                    yield self.RECORD(query_id, doc_id, value)
        elif kind == "pd_dataframe":
            yield from self._from_frame()
        else:
            raise ValueError(f"unknown {self.KIND} format: {error}")

    def as_pd_dataframe(self) -> Any:
        """A pandas frame of the rows."""
        import pandas as pd

        if self.predict_type()[0] == "pd_dataframe":
            return self.data
        frame = pd.DataFrame(self.as_namedtuple_iter())
        if len(frame) == 0:
            frame = pd.DataFrame([], columns=list(self.RECORD._fields))
        return frame


class QrelsConverter(_Converter):
    """Judgments in any form ir_measures takes, converted to the others.

    Examples
    --------
    >>> QrelsConverter([Qrel("q1", "d1", 1)]).as_dict_of_dict()
    {'q1': {'d1': 1}}
    """

    RECORD = Qrel
    KIND = "qrels"
    VALUE = "relevance"

    @property
    def qrels(self) -> Any:
        """The judgments as given (ir_measures' attribute)."""
        return self.data

    def _from_frame(self) -> Iterator[Any]:
        frame = self.data
        if "iteration" in frame.columns:
            for row in frame.itertuples():
                yield Qrel(row.query_id, row.doc_id, row.relevance, row.iteration)
        else:
            for row in frame.itertuples():
                yield Qrel(row.query_id, row.doc_id, row.relevance)

    def as_pd_dataframe(self) -> Any:
        """A pandas frame of the judgments (an ``iteration`` column of ``'0'`` added if none)."""
        if self.predict_type()[0] == "pd_dataframe" and "iteration" not in self.data.columns:
            return self.data.assign(iteration=["0"] * len(self.data))
        return super().as_pd_dataframe()

    @contextlib.contextmanager
    def as_tmp_file(self) -> Iterator[Any]:
        """A temporary TREC judgments file of the rows."""
        with tempfile.NamedTemporaryFile(mode="w+t") as handle:
            for qrel in self.as_namedtuple_iter():
                handle.write(f"{qrel.query_id} 0 {qrel.doc_id} {qrel.relevance}\n")
            handle.flush()
            handle.seek(0)
            yield handle


class RunConverter(_Converter):
    """A run in any form ir_measures takes, converted to the others.

    Examples
    --------
    >>> RunConverter({"q1": {"a": 0.5, "b": 0.9}}).as_sorteddict()
    {'q1': [ScoredDoc(query_id='q1', doc_id='b', score=0.9), \
ScoredDoc(query_id='q1', doc_id='a', score=0.5)]}
    """

    RECORD = ScoredDoc
    KIND = "run"
    VALUE = "score"

    @property
    def run(self) -> Any:
        """The run as given (ir_measures' attribute)."""
        return self.data

    def _required(self) -> list[str]:
        return list(ScoredDoc._fields)

    def _from_frame(self) -> Iterator[Any]:
        for row in self.data.itertuples():
            yield ScoredDoc(row.query_id, row.doc_id, row.score)

    def as_sorted_namedtuple_iter(self) -> Iterator[ScoredDoc]:
        """Rows by query block, each block by score descending (stable)."""
        for _, block in itertools.groupby(self.as_namedtuple_iter(), key=lambda row: row.query_id):
            yield from sorted(block, key=lambda row: row.score, reverse=True)

    def as_sorteddict(self) -> dict[Any, list[ScoredDoc]]:
        """``{query_id: [ScoredDoc, ...]}``, each list by score descending."""
        per_query: dict[Any, list[ScoredDoc]] = defaultdict(list)
        for row in self.as_namedtuple_iter():
            per_query[row.query_id].append(row)
        return {query: sorted(rows, key=lambda row: row.score, reverse=True)
                for query, rows in per_query.items()}

    @contextlib.contextmanager
    def as_tmp_file(self) -> Iterator[Any]:
        """A temporary TREC run file of the rows (ranks from 0 in the order given)."""
        with tempfile.NamedTemporaryFile(mode="w+t") as handle:
            ranks: dict[Any, int] = {}
            for row in self.as_namedtuple_iter():
                rank = ranks.setdefault(row.query_id, 0)
                handle.write(f"{row.query_id} Q0 {row.doc_id} {rank} {row.score} run\n")
                ranks[row.query_id] += 1
            handle.flush()
            handle.seek(0)
            yield handle
