"""ndeval's output: the CSV of the TREC Web track's diversity evaluation (v4.5), byte for byte.

ndeval prints, for one run, a header, one row per topic of the run (numeric
order: ndeval's topics are integers, printed with ``%d``) and an ``amean``
row, each of its 21 measures with 6 decimals (C's ``%.6f``)::

    runid,topic,ERR-IA@5,ERR-IA@10,ERR-IA@20,nERR-IA@5,...,strec@20
    run,51,0.391146,...
    run,amean,...

Its conventions, kept here:

- a topic is a number (ASCII digits, at most 1000009): ``007`` is printed
  ``7``; ids that are not such numbers, or two ids that are the same number
  (``007`` and ``7``, one topic to ndeval, two queries to rankwise) are an
  error (:func:`ndeval_topics`), never a row ndeval would not print;

- a topic of the run without judgments is a row of zeros, left out of the
  ``amean`` denominator (the mean is over the topics judged and retrieved);
- a topic without a relevant document (M = 0) is 0 everywhere but nNRBP,
  which is 0/0: ndeval prints ``-nan``, and the ``amean`` of nNRBP is then
  ``-nan`` too (rankwise's ``nnrbp`` is 0 for it);
- the ``amean`` is the sum of the topics' values in that order over their
  number (a double summed as ndeval sums it).

:func:`ndeval_measures` names the 21 measures (and the relevant count that
finds M = 0) in rankwise's language, with ndeval's ``-alpha``/``-beta`` and
a relevance level; :func:`ndeval_csv` writes a :class:`~rankwise.Results` of
them. ndeval's own order is the run's rank column (``ties="rank"``; its
``-traditional`` is rankwise's default ``ties="trec"``).

Examples
--------
>>> import rankwise as rw
>>> qrels = {"1": {"1": {"a": 1}, "2": {"b": 1}}, "2": {"1": {"c": 1}}}
>>> run = {"1": {"a": 2.0, "b": 1.0}, "2": {"x": 1.0}, "3": {"a": 1.0}}
>>> results = rw.evaluate(qrels, run, ndeval_measures())
>>> print(ndeval_csv(results, run_query_ids=run, run_name="r"), end="")  # doctest: +ELLIPSIS
runid,topic,ERR-IA@5,ERR-IA@10,ERR-IA@20,nERR-IA@5,...,strec@5,strec@10,strec@20
r,1,0.544629,0.541075,0.541011,1.000000,...,1.000000,1.000000,1.000000
r,2,0.000000,0.000000,0.000000,0.000000,...,0.000000,0.000000,0.000000
r,3,0.000000,0.000000,0.000000,0.000000,...,0.000000,0.000000,0.000000
r,amean,0.272315,0.270537,0.270505,0.500000,...,0.500000,0.500000,0.500000
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

from rankwise.exceptions import InvalidParameterError
from rankwise.report.tables import spreadsheet_text

__all__ = ["NDEVAL_COLUMNS", "ndeval_csv", "ndeval_measures", "ndeval_topics"]

NDEVAL_COLUMNS: tuple[tuple[str, str], ...] = (
    ("ERR-IA@5", "err_ia@5"), ("ERR-IA@10", "err_ia@10"), ("ERR-IA@20", "err_ia@20"),
    ("nERR-IA@5", "nerr_ia@5"), ("nERR-IA@10", "nerr_ia@10"), ("nERR-IA@20", "nerr_ia@20"),
    ("alpha-DCG@5", "alpha_dcg@5"), ("alpha-DCG@10", "alpha_dcg@10"),
    ("alpha-DCG@20", "alpha_dcg@20"), ("alpha-nDCG@5", "alpha_ndcg@5"),
    ("alpha-nDCG@10", "alpha_ndcg@10"), ("alpha-nDCG@20", "alpha_ndcg@20"),
    ("NRBP", "nrbp"), ("nNRBP", "nnrbp"), ("MAP-IA", "ap_ia"),
    ("P-IA@5", "p_ia@5"), ("P-IA@10", "p_ia@10"), ("P-IA@20", "p_ia@20"),
    ("strec@5", "strec@5"), ("strec@10", "strec@10"), ("strec@20", "strec@20"),
)
"""ndeval's 21 columns: its label, rankwise's measure (default parameters)."""

_ALPHA = ("err_ia", "nerr_ia", "alpha_dcg", "alpha_ndcg", "nrbp", "nnrbp")


def _number(value: float) -> str:
    """``%g``-like text of a parameter (0.5, 1, 0.25)."""
    return f"{value:g}" if float(value) != int(value) else str(int(value))


def ndeval_measures(alpha: float = 0.5, beta: float = 0.5, rel: float = 1) -> list[str]:
    """The 21 measures of ndeval in rankwise's language, then ``num_rel`` (which finds M = 0).

    Parameters
    ----------
    alpha, beta : float
        ndeval's ``-alpha`` and ``-beta`` (0.5).
    rel : float
        The grade from which a document is relevant to a subtopic (ndeval: 1).

    Examples
    --------
    >>> ndeval_measures()[:2], ndeval_measures()[-1]
    (['err_ia@5', 'err_ia@10'], 'num_rel')
    >>> ndeval_measures(alpha=0.3, beta=0.8)[12]
    'nrbp(alpha=0.3,beta=0.8)'
    """
    out = []
    for _, name in NDEVAL_COLUMNS:
        family = name.partition("@")[0]
        params = []
        if family in _ALPHA and alpha != 0.5:
            params.append(f"alpha={_number(alpha)}")
        if family in ("nrbp", "nnrbp") and beta != 0.5:
            params.append(f"beta={_number(beta)}")
        if rel != 1:
            params.append(f"rel={_number(rel)}")
        out.append(name + (f"({','.join(params)})" if params else ""))
    out.append("num_rel" + (f"(rel={_number(rel)})" if rel != 1 else ""))
    return out


def _columns(results: Any) -> list[str]:
    """The names in *results* of ndeval's 21 measures and num_rel, by family and cutoff."""
    by_key: dict[tuple[str, int | None], str] = {}
    for measure in results.measures:
        key = (measure.name, measure.cutoff)
        if key in by_key:
            raise InvalidParameterError(
                f"ndeval's output takes one {measure.name} per cutoff; the results hold "
                f"{by_key[key]} and {measure}"
            )
        by_key[key] = str(measure)
    wanted = [(name.partition("@")[0], int(name.partition("@")[2]) if "@" in name else None)
              for _, name in NDEVAL_COLUMNS] + [("num_rel", None)]
    missing = [f"{name}@{k}" if k else name for name, k in wanted if (name, k) not in by_key]
    if missing:
        raise InvalidParameterError(
            f"ndeval's output needs its 21 measures and num_rel; the results miss "
            f"{', '.join(missing)}: evaluate rankwise.report.ndeval.ndeval_measures()"
        )
    return [by_key[key] for key in wanted]


_MAX_TOPIC = 1_000_009
"""The largest topic number ndeval reads (its ``naturalNumber`` stops past 100000 x 10 + 9)."""


def _quoted(ids: Iterable[str], limit: int = 3) -> str:
    """The first *limit* ids, quoted, and how many more."""
    ids = list(ids)
    shown = ", ".join(repr(q) for q in ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def ndeval_topics(query_ids: Iterable[Any]) -> dict[str, int]:
    """The topic number ndeval reads for each query id; an error where it cannot match rankwise.

    ndeval reads topics as natural numbers (ASCII digits, at most 1000009) and
    prints them with ``%d``: ``007`` and ``7`` are one topic to it, two queries
    to rankwise, and a text id is a syntax error in its judgments. Its output
    can therefore be reproduced only when every id is such a number and no two
    ids are the same number.

    Parameters
    ----------
    query_ids : iterable
        The query ids of the judgments and the run.

    Returns
    -------
    dict
        Each id (as text) and its topic number.

    Raises
    ------
    InvalidParameterError
        An id is not a number ndeval reads, or two ids are the same number.

    Examples
    --------
    >>> ndeval_topics(["51", "007"])
    {'51': 51, '007': 7}
    >>> ndeval_topics(["7", "007"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InvalidParameterError: query ids '007', '7' are one topic (7) to ndeval, ...
    """
    numbers: dict[str, int] = {}
    bad: list[str] = []
    for query in query_ids:
        text = str(query)
        if re.fullmatch(r"[0-9]+", text, flags=re.ASCII) and int(text) <= _MAX_TOPIC:
            numbers[text] = int(text)
        else:
            bad.append(text)
    if bad:
        one = len(bad) == 1
        raise InvalidParameterError(
            f"ndeval's topics are numbers from 0 to {_MAX_TOPIC}; query "
            f"{'id' if one else 'ids'} {_quoted(sorted(bad))} {'is' if one else 'are'} "
            f"not, so ndeval's output cannot show {'it' if one else 'them'}: number the "
            "queries, or use another output format"
        )
    spellings: dict[int, list[str]] = {}
    for text, number in numbers.items():
        spellings.setdefault(number, []).append(text)
    for number, texts in sorted(spellings.items()):
        if len(texts) > 1:
            raise InvalidParameterError(
                f"query ids {_quoted(sorted(texts))} are one topic ({number}) to ndeval, "
                "which reads topics as numbers, and different queries to rankwise: give "
                "each query one spelling (the same in the judgments and the run), or use "
                "another output format"
            )
    return numbers


def _cell(value: float) -> str:
    return "-nan" if math.isnan(value) else f"{value:.6f}"


def ndeval_csv(
    results: Any,
    *,
    run_query_ids: Iterable[Any] | None = None,
    run_name: str | None = None,
    qrels_query_ids: Iterable[Any] | None = None,
) -> str:
    """The CSV ndeval prints for one run's results (21 columns, ``%.6f``, ``amean``).

    Parameters
    ----------
    results : Results
        Of :func:`ndeval_measures` (any alpha, beta, rel), evaluated with the
        default ``missing="skip"``.
    run_query_ids : iterable, optional
        The run's queries (a dict or a Run's ``query_ids``): those without
        judgments get ndeval's rows of zeros. Default: the evaluated ones only.
    run_name : str, optional
        The ``runid`` column (default ``results.run_name``).
    qrels_query_ids : iterable, optional
        The judgments' queries: checked with the run's by :func:`ndeval_topics`
        (a judged ``7`` and a retrieved ``007`` are one topic to ndeval).

    Returns
    -------
    str
        ndeval's output, each line ending in a newline.

    Raises
    ------
    InvalidParameterError
        The results lack one of the measures, or a query id is not a topic
        number ndeval reads the same way (:func:`ndeval_topics`).
    """
    names = _columns(results)
    # (a run id a spreadsheet would run as a formula gets a leading ', as in every CSV)
    runid = spreadsheet_text(str(results.run_name if run_name is None else run_name))
    evaluated = {str(q): i for i, q in enumerate(results.query_ids)}
    topics = set(evaluated)
    if run_query_ids is not None:
        topics |= {str(q) for q in run_query_ids}
    judged = set() if qrels_query_ids is None else {str(q) for q in qrels_query_ids}
    numbers = ndeval_topics(topics | judged)
    columns = [results[name].tolist() for name in names]
    relevant = columns.pop()
    nnrbp = [label for label, _ in NDEVAL_COLUMNS].index("nNRBP")
    lines = ["runid,topic," + ",".join(label for label, _ in NDEVAL_COLUMNS) + "\n"]
    totals = [0.0] * len(NDEVAL_COLUMNS)
    for topic in sorted(topics, key=numbers.__getitem__):
        row = evaluated.get(topic)
        if row is None:
            values = [0.0] * len(NDEVAL_COLUMNS)
        else:
            values = [column[row] for column in columns]
            if relevant[row] == 0:
                values[nnrbp] = math.nan  # ndeval's 0/0
        for i, value in enumerate(values):
            totals[i] += value
        lines.append(f"{runid},{numbers[topic]}," + ",".join(map(_cell, values)) + "\n")
    count = len(evaluated)
    means = [total / count if count else math.nan for total in totals]
    lines.append(f"{runid},amean," + ",".join(map(_cell, means)) + "\n")
    return "".join(lines)
