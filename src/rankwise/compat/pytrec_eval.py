"""A drop-in for pytrec_eval: ``import rankwise.compat.pytrec_eval as pytrec_eval``.

The same names, arguments, output and numbers as pytrec_eval 0.5
(pytrec-eval-terrier, which bundles trec_eval 9.0.8): :class:`RelevanceEvaluator`
(``evaluate(run)`` returns ``{query_id: {key: value}}`` with pytrec_eval's keys:
``ndcg_cut_10``, ``P_5``, ``recip_rank``, ``iprec_at_recall_0.10``, ...),
:func:`parse_qrel`, :func:`parse_run`, :func:`compute_aggregated_measure`,
:data:`supported_measures` and :data:`supported_nicknames`. Code written for
pytrec_eval (BEIR's ``EvaluateRetrieval.evaluate``, MTEB's retrieval
evaluation) runs unchanged but for the import line.

The values are computed by rankwise with trec_eval 9.0.8's conventions where
they differ from trec_eval 10.0's (rankwise's own): scores compared in
float32, and the recall levels of ``iprec_at_recall`` and ``11pt_avg``
counted as ``int(level * R + 0.9)`` relevant documents. docs/compat.md lists
every difference between the two versions, and the few places where the
drop-in answers what pytrec_eval cannot (a crash, an uninitialised value).

Examples
--------
>>> import rankwise.compat.pytrec_eval as pytrec_eval
>>> qrels = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 1}}
>>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}, "q2": {"d5": 1.0, "d4": 0.5}}
>>> evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "P_2", "recip_rank"})
>>> scores = evaluator.evaluate(run)
>>> {key: round(value, 4) for key, value in scores["q1"].items()}
{'recip_rank': 1.0, 'P_2': 0.5, 'ndcg_cut_10': 0.9502}
>>> pytrec_eval.compute_aggregated_measure("P_2", [s["P_2"] for s in scores.values()])
0.5
"""

from __future__ import annotations

import collections
import itertools
import operator
import re
import warnings
from collections.abc import Iterable, Mapping
from typing import Any

from rankwise.exceptions import (
    DuplicateEntryError,
    InputFormatError,
    InvalidParameterError,
    MeasureSyntaxError,
    RankwiseWarning,
    UnknownMeasureError,
)
from rankwise.measures.trec_names import TREC_MEASURES, TrecEntry, parse_trec

__all__ = [
    "DuplicateLineError",
    "PytrecEvalArgumentError",
    "PytrecEvalTypeError",
    "RelevanceEvaluator",
    "compute_aggregated_measure",
    "parse_qrel",
    "parse_run",
    "supported_measures",
    "supported_nicknames",
]


class PytrecEvalTypeError(InputFormatError, TypeError, AttributeError):
    """Judgments or a run pytrec_eval refuses with a ``TypeError``.

    Also an ``AttributeError``, which pytrec_eval 0.5 raises for judgments
    that are not a dict, and an :class:`~rankwise.InputFormatError`, so that
    code catching either keeps working.
    """


class PytrecEvalArgumentError(InvalidParameterError, TypeError):
    """An argument pytrec_eval refuses with a ``TypeError``.

    A measure that is not a string, a ``relevance_level`` of 0, a
    ``judged_docs_only_flag`` that is not an integer, ...
    """


class DuplicateLineError(DuplicateEntryError, AssertionError):
    """A document listed twice for one query in :func:`parse_qrel` or :func:`parse_run`.

    Also an ``AssertionError``, as pytrec_eval's.
    """


# trec_eval 9.0.8's nicknames (measures.c), as pytrec_eval lists them
_NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
                 "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "ndcg",
                 "relative_P", "success", "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG",
                 "G", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
                 "num_nonrel_judged_ret"),
    "all_prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
                  "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg",
                  "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
                  "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp",
                  "prefs_pair_imp", "prefs_avgjg_imp"),
    "prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
              "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg"),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "Rprec_mult_avgjg", "P_avgjg"),
}

supported_measures: set[str] = set(_NICKNAMES["all_trec"])
"""trec_eval 9.0.8's ``all_trec`` measures: the names :class:`RelevanceEvaluator` takes
(with parameters or not), as pytrec_eval's set."""

supported_nicknames: dict[str, set[str]] = {name: set(members)
                                            for name, members in _NICKNAMES.items()}
"""trec_eval 9.0.8's nicknames, as pytrec_eval's dict: ``official``, ``set``, ``all_trec``,
``all_prefs``, ``prefs``, ``qrels_jg``. The last three name measures that pytrec_eval
lists but refuses (preference and jg judgments): ``ValueError`` there and here."""

_NAMES = list(TREC_MEASURES)
_ORDER = [name for name in _NAMES if name in supported_measures]
"""trec_eval 9.0.8's measures in its print order (pytrec_eval's order of keys)."""

_KEYED_BY_NAME = {"utility", "11pt_avg", "set_F", "G", "ndcg", "ndcg_rel", "Rndcg",
                  "relstring", "runid"}
"""Measures pytrec_eval reports under their bare name, whatever their parameters."""

_CUTOFFS = {name for name in _ORDER if TREC_MEASURES[name].cutoffs}
_LEVELS = {"iprec_at_recall", "Rprec_mult"}
_PAIRS = {"G", "ndcg", "ndcg_rel", "Rndcg"}
"""Measures whose parameters are cutoffs, recall levels, or grade=gain pairs (which
pytrec_eval's names cannot carry: pytrec_eval aborts on them)."""
_TAKES_PARAMETERS = _CUTOFFS | _LEVELS | _PAIRS | {"utility", "11pt_avg", "set_F"}
_NINE_ROUNDING = {"iprec_at_recall", "11pt_avg"}
"""The measures whose recall levels trec_eval 10.0 rounds otherwise."""

_PARAMETERS = r"([0-9]+(\.[0-9]+)?(,[0-9]+(\.[0-9]+)?)*)"
_MIN_GEO = 1e-5  # trec_eval's MIN_GEO_MEAN
_INT32 = 1 << 31


def parse_run(f_run: Iterable[str]) -> dict[str, dict[str, float]]:
    """Parse the lines of a TREC run file (``qid Q0 docno rank score tag``).

    Returns
    -------
    dict
        ``{query_id: {doc_id: score}}`` (a ``defaultdict(dict)``, as pytrec_eval's).

    Raises
    ------
    InputFormatError
        A line without six fields, a score that is not a number (a ``ValueError``, as
        pytrec_eval's); :class:`DuplicateLineError`: a document twice for a query (also an
        ``AssertionError``, as pytrec_eval's).

    Examples
    --------
    >>> dict(parse_run(["q1 Q0 d1 1 2.5 bm25", "q1 Q0 d2 2 1.5 bm25"]))
    {'q1': {'d1': 2.5, 'd2': 1.5}}
    """
    run: dict[str, dict[str, float]] = collections.defaultdict(dict)
    for number, line in enumerate(f_run, start=1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 6:
            raise InputFormatError(
                f"expected 6 fields (qid Q0 docno rank score tag), got {len(fields)}",
                "<run>", number,
            )
        query, _, doc, _, score, _ = fields
        if doc in run[query]:
            raise DuplicateLineError(
                f"document {doc!r} appears twice for query {query!r}", "<run>", number
            )
        try:
            run[query][doc] = float(score)
        except ValueError:
            raise InputFormatError(f"score must be a number, got {score!r}", "<run>",
                                   number) from None
    return run


def parse_qrel(f_qrel: Iterable[str]) -> dict[str, dict[str, int]]:
    """Parse the lines of a TREC qrels file (``qid 0 docno grade``).

    Returns
    -------
    dict
        ``{query_id: {doc_id: grade}}`` (a ``defaultdict(dict)``, as pytrec_eval's).

    Raises
    ------
    InputFormatError
        A line without four fields, a grade that is not an integer (``ValueError``s);
        :class:`DuplicateLineError`: a document twice for a query (an ``AssertionError``).

    Examples
    --------
    >>> dict(parse_qrel(["q1 0 d1 2", "q1 0 d2 0"]))
    {'q1': {'d1': 2, 'd2': 0}}
    """
    qrel: dict[str, dict[str, int]] = collections.defaultdict(dict)
    for number, line in enumerate(f_qrel, start=1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 4:
            raise InputFormatError(
                f"expected 4 fields (qid iter docno grade), got {len(fields)}", "<qrels>", number
            )
        query, _, doc, grade = fields
        if doc in qrel[query]:
            raise DuplicateLineError(
                f"judgment for document {doc!r} of query {query!r} is given twice",
                "<qrels>", number,
            )
        try:
            qrel[query][doc] = int(grade)
        except ValueError:
            raise InputFormatError(f"grade must be an integer, got {grade!r}", "<qrels>",
                                   number) from None
    return qrel


def compute_aggregated_measure(measure: str, values: list[float]) -> float:
    """Aggregate per-query values as pytrec_eval does, with the same numpy operations.

    ``num_*``: the sum; ``gm_*``: ``exp(sum / n)`` of the per-query values
    (which are logarithms, as :meth:`RelevanceEvaluator.evaluate` gives them);
    otherwise the mean (numpy's, bit for bit pytrec_eval's).

    Examples
    --------
    >>> compute_aggregated_measure("num_ret", [3.0, 4.0])
    7.0
    >>> compute_aggregated_measure("map", [0.5, 1])
    0.75
    """
    import numpy as np

    if measure.startswith("num_"):
        return float(np.sum(values))
    if measure.startswith("gm_"):
        return float(np.exp(np.sum(values) / len(values)))
    return float(np.mean(values))


def _expand(measures: Any) -> dict[str, list[str]]:
    """pytrec_eval's reading of its measure names: ``{trec_eval name: its parameters}``.

    As pytrec_eval 0.5 (``_expand_nicknames``, ``_combine_measures``):
    nicknames expand; a name of :data:`supported_measures` is taken as it is;
    any other text must start with such a name, ``.`` or ``_`` and numbers
    separated by commas (``P_5``, ``ndcg_cut.10,20``, ``P_5abc`` reads
    ``P_5``), and the numbers given for one name are merged, duplicates
    dropped, sorted as text. Only a name never given with numbers keeps
    trec_eval's defaults (``{"P", "P_5"}`` is ``P_5`` alone).

    One difference: a string alone is one measure (pytrec_eval reads
    ``"map"`` as the measures ``m``, ``a`` and ``p``).
    """
    if isinstance(measures, str):
        measures = [measures]
    try:
        given = list(measures)
    except TypeError:
        raise PytrecEvalArgumentError(
            f"measures must be an iterable of measure names (a set, as pytrec_eval's), got "
            f"{_described(measures)}"
        ) from None
    names: list[Any] = []
    for text in given:
        if not isinstance(text, str):
            raise PytrecEvalArgumentError(
                f"a measure must be a string (pytrec_eval: a TypeError), got {_described(text)}"
            )
        names.extend(_NICKNAMES.get(text, (text,)))
    params: dict[str, set[str]] = {}
    for text in dict.fromkeys(names):
        if text in supported_measures:
            params.setdefault(text, set())
            continue
        for name in _ORDER:
            match = re.match(re.escape(name) + r"[._]" + _PARAMETERS, text)
            if match is not None:
                params.setdefault(name, set()).update(match.group(1).split(","))
                break
        else:
            raise UnknownMeasureError(f"unsupported measure {text!r}{_hint(text)}")
    return {name: sorted(given) for name, given in params.items()}


def _hint(text: str) -> str:
    """A suggestion for a name pytrec_eval does not take, or why it does not."""
    from rankwise.measures.trec_names import trec_hint

    if any(re.match(re.escape(name) + r"([._]" + _PARAMETERS + ")?$", text)
           for name in _NAMES if name not in supported_measures):
        return (" (trec_eval 10.0 has it; pytrec_eval 0.5 bundles trec_eval 9.0.8, which has "
                "not: rankwise's own rw.evaluate computes it)")
    if any(text in _NICKNAMES[nick] for nick in ("all_prefs", "prefs", "qrels_jg")):
        return " (pytrec_eval lists it in a nickname, but evaluates only qrels judgments)"
    # suggested as pytrec_eval takes them: ndcg_ct_10 -> ndcg_cut_10, P@5 -> P_5
    return trec_hint(text, keys=True)


def _described(value: Any) -> str:
    return f"{type(value).__name__} {value!r:.60}"


def _entries(name: str, params: list[str]) -> list[TrecEntry]:
    """trec_eval 9.0.8's reading of one measure and its parameters (as pytrec_eval passes them).

    Raises where pytrec_eval's trec_eval cannot read them and pytrec_eval
    aborts the process (a failed assertion): cutoffs not positive or
    repeated, grade=gain pairs (pytrec_eval's names cannot carry ``=``).
    """
    if not params or name not in _TAKES_PARAMETERS:
        return parse_trec(name)  # trec_eval ignores the parameters of the others
    text = ",".join(params)
    if name in _PAIRS:
        raise MeasureSyntaxError(
            f"{name}.{text}: trec_eval reads {name}'s parameters as grade=gain pairs "
            f"(malformed pair parameters in {text!r}), which pytrec_eval's names cannot "
            f"write: pytrec_eval aborts the process; rankwise's own "
            f"rw.evaluate(qrels, run, ['{name}(gains=1=3;2=9)']) takes gains"
        )
    try:
        return parse_trec(f"{name}.{text}")
    except MeasureSyntaxError as error:
        if name == "utility":  # trec_eval: "improper number of coefficients", every value 0
            return [TrecEntry("utility", None, _NAMES.index("utility"))]
        raise MeasureSyntaxError(f"{error} (pytrec_eval aborts the process)") from None


def _key(entry: TrecEntry) -> str:
    """The key pytrec_eval gives a value: trec_eval's label, or the bare name.

    The bare name for the measures whose parameters are not in their label
    (``set_F``, ``utility``).
    """
    name = _NAMES[entry.order]
    return name if name in _KEYED_BY_NAME else entry.label


def _level(value: Any, name: str, *, flag: bool = False) -> int:
    """A C ``int`` as pytrec_eval reads ``relevance_level`` and ``judged_docs_only_flag``.

    pytrec_eval stores the C int in a C long whose upper bytes are 0: a
    negative level -n is read as 2^32 - n (no grade reaches it).
    """
    try:
        number = operator.index(value)
    except TypeError:
        number = None
    if number is None or not -_INT32 <= number < _INT32:
        raise PytrecEvalArgumentError(
            f"{name} must be an integer from {-_INT32} to {_INT32 - 1} (pytrec_eval reads a C "
            f"int), got {_described(value)}"
        )
    if flag:
        return int(number != 0)
    if number == 0:
        raise PytrecEvalArgumentError(
            "relevance_level should be positive (pytrec_eval: a TypeError), got 0"
        )
    return number if number > 0 else number + 2 * _INT32


class RelevanceEvaluator:
    """Evaluate runs against judgments, as pytrec_eval's ``RelevanceEvaluator``.

    Parameters
    ----------
    query_relevance : dict
        ``{query_id: {doc_id: grade}}``; a query with no judgment is dropped
        (as pytrec_eval 0.5.x).
    measures : iterable of str
        trec_eval's names, with parameters or not (``"map"``, ``"ndcg_cut.10"``,
        ``"ndcg_cut_10"``, ``"P.5,10"``), or nicknames (``"official"``,
        ``"all_trec"``, ``"set"``): :data:`supported_measures`,
        :data:`supported_nicknames`.
    relevance_level : int
        Minimum grade that counts as relevant (trec_eval ``-l``); from 1 (a
        negative -n is 2^32 - n, as in pytrec_eval).
    judged_docs_only_flag : bool or int
        Drop unjudged documents before evaluating (trec_eval ``-J``).

    Raises
    ------
    UnknownMeasureError
        A measure name pytrec_eval does not take (a ``ValueError``, as pytrec_eval's).
    MeasureSyntaxError
        Parameters pytrec_eval's trec_eval cannot read (pytrec_eval aborts).
    PytrecEvalArgumentError
        A measure that is not a string, a level of 0 or beyond a C int (a
        ``TypeError``, as pytrec_eval's).
    PytrecEvalTypeError
        Judgments that are not ``{query_id: {doc_id: grade}}`` (a ``TypeError``).
    """

    def __init__(
        self,
        query_relevance: Mapping[Any, Mapping[Any, Any]],
        measures: Iterable[str],
        relevance_level: int = 1,
        judged_docs_only_flag: bool = False,
    ) -> None:
        from rankwise.engines.core import prepare_measures
        from rankwise.io.coerce import as_qrels
        from rankwise.options import EvalOptions

        _check_mapping(query_relevance, "RelevanceEvaluator", "query_relevance", "grade")
        level = _level(relevance_level, "relevance_level")
        judged_only = _level(judged_docs_only_flag, "judged_docs_only_flag", flag=True)
        expanded = _expand(measures)
        entries = [entry for name, params in expanded.items() for entry in _entries(name, params)]
        entries.sort(key=lambda entry: entry.order)  # trec_eval's order; stable within one
        # a query with no judgment is dropped (the dict readers skip an empty entry)
        judged = {query: docs for query, docs in query_relevance.items()
                  if not hasattr(docs, "__len__") or len(docs)}  # the rest: refused by the reader
        self._qrels = _read(as_qrels, judged) if judged else None
        self._options = EvalOptions(rel=level, judged_only=bool(judged_only), missing="zero")
        self._keys = [_column(entry, expanded, self._options) for entry in entries]
        plain = [measure for _, measure, kind in self._keys if kind in ("value", "log")]
        needs_counts = any(kind == "set_F" for _, _, kind in self._keys)
        self._counts = prepare_measures(_SET_COUNTS, self._options) if needs_counts else []
        # num_q: the evaluated queries are known even when only runid is asked for
        self._measures = prepare_measures([*plain, *self._counts, "num_q"], self._options)

    def evaluate(self, scores: Mapping[Any, Mapping[Any, float]]) -> dict[Any, dict[str, float]]:
        """Evaluate one run: ``{query_id: {key: value}}`` for each query of both.

        A query of the run whose dict is empty is evaluated as an empty
        ranking (as pytrec_eval does); a query the judgments do not hold is
        left out. The queries come in the run's order (its dict's order), as
        pytrec_eval gives them: code that pairs them with the run's own
        queries in order (MTEB's ``evaluate_abstention``) sees the same pairs.
        Scores are compared in float32, as pytrec_eval's trec_eval 9.0.8 reads
        them. ``gm_map`` and ``gm_bpref`` are given as ``log(max(value,
        1e-5))`` (aggregate them with :func:`compute_aggregated_measure`), text
        measures (``relstring``) and ``runid`` as 0.0.

        Parameters
        ----------
        scores : dict
            ``{query_id: {doc_id: score}}``.

        Returns
        -------
        dict
            Keyed by the run's own query ids, in the run's order.

        Raises
        ------
        PytrecEvalTypeError
            A run that is not ``{query_id: {doc_id: score}}`` (a ``TypeError``, as
            pytrec_eval's).

        Examples
        --------
        >>> evaluator = RelevanceEvaluator({"q1": {"d": 1}, "q10": {"d": 1}, "q2": {"d": 1}},
        ...                                {"num_ret"})
        >>> evaluator.evaluate({"q10": {"d": 1.0}, "q2": {}, "q1": {"e": 1.0}})
        {'q10': {'num_ret': 1.0}, 'q2': {'num_ret': 0.0}, 'q1': {'num_ret': 1.0}}
        """
        import numpy as np

        from rankwise.engines.numpy import NumpyEngine
        from rankwise.io.coerce import as_run

        _check_mapping(scores, "RelevanceEvaluator.evaluate", "scores", "score")
        if not scores:
            return {}
        # read once: checked, and its scores seen; unless float32 changes a score, evaluated
        # as the dict itself (read and ranked in one pass, without its documents' copy) or,
        # with -J (which that pass does not do), as the run read
        run = _read(as_run, scores)
        if self._qrels is None:  # no judged query: nothing is evaluated (the run is read)
            return {}
        given = _rounded_to_float32(run)
        if given is None:
            given = run if self._options.judged_only else scores
        del run
        results = NumpyEngine().evaluate(self._qrels, given, self._measures, self._options)
        # the run's own query ids, found as they are or by their text (1 and "1"), and
        # their places in the run: pytrec_eval gives the queries in the run's order
        ids = list(results.query_ids)
        position = dict(zip(scores, itertools.count()))
        places = np.fromiter(map(position.get, ids, itertools.repeat(-1)), dtype=np.int64,
                             count=len(ids))
        if (places < 0).any():  # queries not in the run, or ids of another type in it
            by_text = {str(query): query for query in scores}
            for i in np.flatnonzero(places < 0).tolist():
                if str(ids[i]) in by_text:
                    ids[i] = by_text[str(ids[i])]
                    places[i] = position[ids[i]]
        rows = np.flatnonzero(places >= 0)
        rows = rows[np.argsort(places[rows], kind="stable")]
        matrix = np.zeros((len(rows), len(self._keys)), dtype=np.float64)
        counts = [np.asarray(results[measure], dtype=np.float64)[rows] for measure in self._counts]
        for column, (_, measure, kind) in enumerate(self._keys):
            if kind == "set_F":
                matrix[:, column] = _set_f(measure, *counts)
            elif kind != "zero":
                values = np.asarray(results[measure], dtype=np.float64)[rows]
                matrix[:, column] = (np.log(np.maximum(values, _MIN_GEO)) if kind == "log"
                                     else values)
        keys = [key for key, _, _ in self._keys]
        names = list(map(ids.__getitem__, rows.tolist()))
        return _per_query_dicts(names, keys, matrix)


_SET_COUNTS = ["num_rel_ret", "num_ret", "num_rel"]


def _column(entry: TrecEntry, expanded: dict[str, list[str]], options: Any) -> tuple[str, Any, str]:
    """The key of one value, what computes it, and how: ``(key, measure, kind)``.

    Kinds: ``value`` (the measure's value), ``log`` (``log(max(value, 1e-5))``,
    for ``gm_map``, ``gm_bpref``), ``zero`` (``runid``, ``relstring``: 0.0),
    ``set_F`` (from the counts, with trec_eval's parameter x itself:
    rankwise's ``set_F(beta=sqrt(x))`` squares beta back, which can change the
    last bit).
    """
    from rankwise.engines.core import prepare_measures

    measure, key = entry.measure, _key(entry)
    if measure is None:  # runid, and a utility of the wrong number of coefficients
        if entry.label == "utility":
            warnings.warn("trec_eval.calc_utility: improper number of coefficients (utility "
                          "needs 4): every value is 0, as pytrec_eval's", RankwiseWarning,
                          stacklevel=3)
        return key, None, "zero"
    if measure.family.text_valued:
        return key, None, "zero"
    if measure.name == "set_F":
        given = expanded.get("set_F") or ["1"]
        return key, float(given[0]), "set_F"
    if measure.name in _NINE_ROUNDING:
        measure = measure.replace(rounding="trec_eval9")
    measure = prepare_measures([measure], options)[0]
    return key, measure, "log" if measure.family.aggregate == "gmean" else "value"


def _set_f(x: float, found: Any, retrieved: Any, relevant: Any) -> Any:
    """trec_eval's set_F: (x + 1) P R / (x P + R), 0 when nothing relevant was retrieved."""
    import numpy as np

    with np.errstate(divide="ignore", invalid="ignore"):
        precision = found / retrieved
        recall = found / relevant
        value = (x + 1.0) * precision * recall / (x * precision + recall)
    return np.where(found > 0, value, 0.0)


def _read(reader: Any, given: Any) -> Any:
    """``reader(given)``, its input errors raised as the ``TypeError`` pytrec_eval raises."""
    try:
        return reader(given)
    except DuplicateEntryError:
        raise
    except InputFormatError as error:
        raise PytrecEvalTypeError(error.message, error.path, error.line) from None


def _rounded_to_float32(run: Any) -> Any:
    """The run with its scores rounded to float32, as trec_eval 9.0.8 stores them.

    None when every score is exact in float32 (most models' scores are): then
    rounding changes nothing.
    """
    import numpy as np

    from rankwise.data import Run

    scores = run.scores
    with np.errstate(over="ignore"):
        single = scores.astype(np.float32)
    if np.array_equal(single, scores):  # compared as float64
        return None
    # rounding keeps the order of the scores: a run listed in rank order stays so
    return Run(run.query_codes, run.query_ids, run.doc_column, single.astype(np.float64),
               name=run.name, rank_order_blocks=run.rank_order_blocks)


def _check_mapping(given: Any, where: str, parameter: str, value: str) -> None:
    """Refuse, with pytrec_eval's form named, what is not ``{query_id: {doc_id: value}}``.

    pytrec_eval raises a ``TypeError`` (an ``AttributeError`` for judgments, in 0.5);
    :class:`PytrecEvalTypeError` is both. (pytrec_eval's ``evaluate`` returns ``{}``
    for a run that is None, 0 or an empty list: here, as any run that is not a dict,
    it is refused.)
    """
    if isinstance(given, Mapping):
        return
    shown = _described(given)
    raise PytrecEvalTypeError(
        f"{where}: {parameter} must be a dict {{query_id: {{doc_id: {value}}}}} (pytrec_eval's "
        f"form), got {shown}; build the dict first (from TREC lines: "
        f"pytrec_eval.parse_{'qrel' if value == 'grade' else 'run'}(open(path)))"
    )


def _per_query_dicts(names: list[Any], keys: list[str], matrix: Any) -> dict[Any, dict[str, float]]:
    """``{names[i]: {keys[j]: matrix[i, j]}}``: in C where it is built, else zipped.

    Examples
    --------
    >>> import numpy as np
    >>> _per_query_dicts(["q1", "q2"], ["map", "P_5"], np.array([[0.5, 0.2], [1.0, 0.0]]))
    {'q1': {'map': 0.5, 'P_5': 0.2}, 'q2': {'map': 1.0, 'P_5': 0.0}}
    """
    from rankwise._compiled import enabled, load

    native = load("rankwise.data._ccolumns") if enabled() else None
    if native is not None:
        built: dict[Any, dict[str, float]] = native.per_query_dicts(names, keys, matrix)
        return built
    # per query, one row zipped with the keys: no Python loop
    return dict(zip(names, map(dict, map(zip, itertools.repeat(keys), matrix.tolist()))))
