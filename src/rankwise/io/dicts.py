"""Runs and judgments from Python dicts: ``{query_id: {doc_id: value}}``.

The form pytrec_eval, ranx, BEIR and MTEB use: the dispatcher's reader of
that form (:func:`rankwise.io.coerce.as_run`, ``as_qrels``). It reads through
the one dict reader, :meth:`rankwise.Run.from_dict` and
:meth:`rankwise.Qrels.from_dict` (:mod:`rankwise.data._dicts`: C when built,
else pure Python; the same columns, checks and errors), and notes the type of
the query ids only when asked (*typed*).

Ids are compared as text: a key must be a ``str`` or an ``int`` (numpy
integers too; not a bool) and ``1`` and ``"1"`` are the same id. Values must be
real numbers (``float``, ``int``, numpy numbers), finite; grades may also be
``True`` and ``False``. A query whose dict is empty is in the run and
retrieved nothing (``num_ret`` 0): it is evaluated, and scores 0, as
pytrec_eval and ranx score it; a judged query that is not a key of the run at
all is left out (``missing``).

Examples
--------
>>> run = run_from_dict({"q1": {"d1": 2.0, "d2": 1.5}, 7: {"d3": 1}})
>>> run.query_ids, run.scores.tolist()
(['q1', '7'], [2.0, 1.5, 1.0])
>>> qrels_from_dict({"q1": {"d1": 1, 12: 0}}).doc_ids
['d1', '12']
"""

from __future__ import annotations

from typing import Any

from rankwise.data import Qrels, Run

__all__ = ["qrels_from_dict", "run_from_dict"]


def run_from_dict(results: Any, *, name: str = "run", typed: bool = False) -> Run:
    """A run from ``{query_id: {doc_id: score}}``.

    Parameters
    ----------
    results : dict
        Per query id (str or int), a dict of document id (str or int) to
        score (a finite real number).
    name : str
        The run's name.
    typed : bool
        Note the type the query ids were given in (``int`` when every key
        is an integer, else ``str``: :attr:`Run.query_id_type`).

    Returns
    -------
    Run

    Raises
    ------
    InputFormatError
        As :meth:`Run.from_dict`: an entry that is not a dict, an id that is
        not a str or int, a score that is not a finite number;
        ``DuplicateEntryError`` when a document is listed twice for one query
        (as ``1`` and ``"1"``).

    Examples
    --------
    >>> run = run_from_dict({"q1": {"d1": 0.5, "d2": 0.25}}, name="bm25")
    >>> run, run.rank_order_blocks.tolist()
    (Run('bm25', 1 query, 2 rows), [0])
    """
    return Run._from_dict(results, name, typed=typed)


def qrels_from_dict(judgments: Any, *, typed: bool = False) -> Qrels:
    """Judgments from ``{query_id: {doc_id: grade}}``.

    Parameters
    ----------
    judgments : dict
        Per query id (str or int), a dict of document id (str or int) to
        relevance grade (a finite real number, or a bool); or diversity
        judgments, ``{query_id: {subtopic: {doc_id: grade}}}``.
    typed : bool
        Note the type the query ids were given in (``int`` when every key
        is an integer, else ``str``); without it, ``str`` when the reader
        saw only text keys, else not known.

    Returns
    -------
    Qrels

    Raises
    ------
    InputFormatError
        As :meth:`Qrels.from_dict`; ``DuplicateEntryError`` when a
        (query, document) is judged twice (as ``1`` and ``"1"``).

    Examples
    --------
    >>> qrels_from_dict({"q1": {"d1": 2, "d2": 0}}).to_dict()
    {'q1': {'d1': 2, 'd2': 0}}
    """
    return Qrels._from_dict(judgments, typed=typed)
