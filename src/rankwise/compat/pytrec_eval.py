"""A drop-in for pytrec_eval: ``import rankwise.compat.pytrec_eval as pytrec_eval``.

The same names, arguments and output as pytrec_eval 0.5 (pytrec-eval-terrier):
:class:`RelevanceEvaluator` (``evaluate(run)`` returns ``{query_id: {key:
value}}`` with pytrec_eval's keys: ``ndcg_cut_10``, ``P_5``, ``recip_rank``,
``iprec_at_recall_0.10``, ...), :func:`parse_qrel`, :func:`parse_run`,
:func:`compute_aggregated_measure`, :data:`supported_measures` and
:data:`supported_nicknames`. Code written for pytrec_eval (BEIR's
``EvaluateRetrieval.evaluate``, MTEB's retrieval evaluation) runs unchanged
but for the import line.

The values are trec_eval 10.0's, computed by rankwise. pytrec_eval bundles
trec_eval 9 and reads scores as 32-bit floats; where that changes a number,
docs/compat.md shows it with an example.

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
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

from rankwise.exceptions import DuplicateEntryError, InputFormatError, UnknownMeasureError
from rankwise.measures.trec_names import NICKNAMES, TREC_MEASURES, TrecEntry, parse_trec_list

__all__ = [
    "RelevanceEvaluator",
    "compute_aggregated_measure",
    "parse_qrel",
    "parse_run",
    "supported_measures",
    "supported_nicknames",
]

supported_measures: set[str] = {name for name in TREC_MEASURES if name != "runid"} | {"runid"}
"""trec_eval's measures (the names ``RelevanceEvaluator`` takes, with parameters or not)."""

supported_nicknames: dict[str, set[str]] = {name: set(members) for name, members in
                                            NICKNAMES.items()}
"""trec_eval's nicknames: ``official``, ``all_trec``, ``set``."""

_KEYED_BY_NAME = {"utility", "11pt_avg", "set_F", "G", "dcg", "ndcg", "ndcg_rel", "Rndcg",
                  "relstring", "rbp", "rbp_resid", "runid"}
"""trec_eval measures pytrec_eval reports under their bare name, whatever their parameters."""

_PARAMETERS = r"([0-9]+(\.[0-9]+)?(,[0-9]+(\.[0-9]+)?)*)"
_MIN_GEO = 1e-5  # trec_eval's MIN_GEO_MEAN


def parse_run(f_run: Iterable[str]) -> dict[str, dict[str, float]]:
    """Parse the lines of a TREC run file (``qid Q0 docno rank score tag``).

    Returns
    -------
    dict
        ``{query_id: {doc_id: score}}`` (a ``defaultdict(dict)``, as pytrec_eval's).

    Raises
    ------
    InputFormatError
        A line without six fields; ``DuplicateEntryError``: a document twice for a query.

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
            raise DuplicateEntryError(
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
            raise DuplicateEntryError(
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
    """Aggregate per-query values as pytrec_eval does.

    ``num_*``: the sum; ``gm_*``: ``exp(mean)`` of the per-query values (which
    are logarithms, as :meth:`RelevanceEvaluator.evaluate` gives them);
    otherwise the mean.

    Examples
    --------
    >>> compute_aggregated_measure("num_ret", [3.0, 4.0])
    7.0
    >>> compute_aggregated_measure("map", [0.5, 1])
    0.75
    """
    numbers = [float(value) for value in values]
    if measure.startswith("num_"):
        return float(math.fsum(numbers))
    if not numbers:
        return math.nan
    if measure.startswith("gm_"):
        return math.exp(math.fsum(numbers) / len(numbers))
    return math.fsum(numbers) / len(numbers)


def _combine(measures: Iterable[str]) -> list[str]:
    """pytrec_eval's reading of its measure names, as trec_eval measure arguments.

    Nicknames are expanded, ``name_params`` read as ``name.params``, and the
    parameters of one measure named several times merged.
    """
    if isinstance(measures, str):
        measures = [measures]
    params: dict[str, list[str]] = {}
    for text in measures:
        if not isinstance(text, str):
            raise UnknownMeasureError(f"a measure must be a string, got {type(text).__name__}")
        names = NICKNAMES.get(text)
        if names is not None:
            for name in names:
                params.setdefault(name, [])
            continue
        name, dot, given = text.partition(".")
        if name in TREC_MEASURES:
            params.setdefault(name, [])
            if dot and given:
                params[name].extend(item for item in given.split(",") if item)
            continue
        for candidate in sorted(TREC_MEASURES, key=len, reverse=True):
            match = re.fullmatch(re.escape(candidate) + r"[._]" + _PARAMETERS, text)
            if match is not None:
                params.setdefault(candidate, []).extend(match.group(1).split(","))
                break
        else:
            from rankwise.measures.trec_names import trec_hint

            # suggested as pytrec_eval takes them: ndcg_ct_10 -> ndcg_cut_10, P@5 -> P_5
            raise UnknownMeasureError(f"unsupported measure {text!r}{trec_hint(text, keys=True)}")
    out = []
    for name, given_params in params.items():
        unique = list(dict.fromkeys(given_params))
        out.append(f"{name}.{','.join(unique)}" if unique else name)
    return out


_NAMES = list(TREC_MEASURES)


def _key(entry: TrecEntry) -> str:
    """The key pytrec_eval gives a value: trec_eval's label, or the bare name.

    The bare name for the measures whose parameters are not in their label
    (``set_F``, ``utility``).
    """
    name = _NAMES[entry.order]
    return name if name in _KEYED_BY_NAME else entry.label


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
        ``"all_trec"``, ``"set"``).
    relevance_level : int
        Minimum grade that counts as relevant (trec_eval ``-l``).
    judged_docs_only_flag : bool
        Drop unjudged documents before evaluating (trec_eval ``-J``).

    Raises
    ------
    UnknownMeasureError
        A measure name trec_eval does not have (a ``ValueError``, as pytrec_eval's).
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
        # a query with no judgment is dropped (the dict readers skip an empty entry)
        judged = query_relevance if isinstance(query_relevance, dict) else dict(query_relevance)
        self._qrels = as_qrels(judged)
        self._entries = parse_trec_list(_combine(measures))
        self._options = EvalOptions(
            rel=relevance_level, judged_only=bool(judged_docs_only_flag), missing="zero"
        )
        plain = [entry.measure for entry in self._entries if entry.measure is not None]
        # num_q: the evaluated queries are known even when only runid is asked for
        self._measures = prepare_measures([*plain, "num_q"], self._options)
        self._keys: list[tuple[str, Any, str]] = []
        for entry in self._entries:
            measure = entry.measure
            if measure is not None:
                measure = prepare_measures([measure], self._options)[0]
            kind = "runid" if measure is None else (
                "text" if measure.family.text_valued else
                "log" if measure.family.aggregate == "gmean" else "value")
            self._keys.append((_key(entry), measure, kind))

    def evaluate(self, scores: Mapping[Any, Mapping[Any, float]]) -> dict[Any, dict[str, float]]:
        """Evaluate one run: ``{query_id: {key: value}}`` for each query of both.

        A query of the run whose dict is empty is evaluated as an empty
        ranking (as pytrec_eval does); a query the judgments do not hold is
        left out. The queries come in the run's order (its dict's order), as
        pytrec_eval gives them: code that pairs them with the run's own
        queries in order (MTEB's ``evaluate_abstention``) sees the same pairs.
        ``gm_map`` and ``gm_bpref`` are given as ``log(max(value,
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

        Examples
        --------
        >>> evaluator = RelevanceEvaluator({"q1": {"d": 1}, "q10": {"d": 1}, "q2": {"d": 1}},
        ...                                {"num_ret"})
        >>> evaluator.evaluate({"q10": {"d": 1.0}, "q2": {}, "q1": {"e": 1.0}})
        {'q10': {'num_ret': 1.0}, 'q2': {'num_ret': 0.0}, 'q1': {'num_ret': 1.0}}
        """
        import numpy as np

        from rankwise.engines.numpy import NumpyEngine

        _check_mapping(scores, "RelevanceEvaluator.evaluate", "scores", "score")
        if not scores:
            return {}
        results = NumpyEngine().evaluate(self._qrels, scores, self._measures, self._options)
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
        for column, (_, measure, kind) in enumerate(self._keys):
            if kind in ("runid", "text"):
                continue
            values = np.asarray(results[measure], dtype=np.float64)[rows]
            matrix[:, column] = np.log(np.maximum(values, _MIN_GEO)) if kind == "log" else values
        keys = [key for key, _, _ in self._keys]
        names = list(map(ids.__getitem__, rows.tolist()))
        return _per_query_dicts(names, keys, matrix)


def _check_mapping(given: Any, where: str, parameter: str, value: str) -> None:
    """Refuse, with pytrec_eval's form named, what is not ``{query_id: {doc_id: value}}``."""
    if isinstance(given, Mapping):
        return
    shown = f"{type(given).__name__} {given!r:.60}"
    raise InputFormatError(
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

    native = load("rankwise.io._ccolumns") if enabled() else None
    if native is not None:
        return native.per_query_dicts(names, keys, matrix)
    # per query, one row zipped with the keys: no Python loop
    return dict(zip(names, map(dict, map(zip, itertools.repeat(keys), matrix.tolist()))))
