"""Dicts ``{query: {doc: value}}`` read by the C module and by Python: the same columns.

The one dict reader (rankwise.data._dicts, behind Run.from_dict, Qrels.from_dict and
rankwise.io.dicts) reads dicts with the C module rankwise.data._ccolumns when it is
built and with Python otherwise (RANKWISE_NO_C=1): both must give identical
runs and judgments, and the same errors, on every input.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from strategies import python_dicts

import rankwise as rw
from rankwise._compiled import load
from rankwise.data import _dicts as dicts
from rankwise.exceptions import DuplicateEntryError, InputFormatError, RankwiseError
from rankwise.io.dicts import qrels_from_dict, run_from_dict

_ccolumns = load("rankwise.data._ccolumns")
needs_c = pytest.mark.skipif(_ccolumns is None, reason="the C module is not built")


@contextmanager
def c_modules(on: bool) -> Iterator[None]:
    previous = os.environ.get("RANKWISE_NO_C")
    os.environ["RANKWISE_NO_C"] = "0" if on else "1"
    try:
        yield
    finally:
        if previous is None:
            del os.environ["RANKWISE_NO_C"]
        else:
            os.environ["RANKWISE_NO_C"] = previous


def summary(value: Any) -> Any:
    """Everything a reader made, comparable (numbers as bits), or the error."""
    if isinstance(value, rw.Run):
        blocks = value.rank_order_blocks
        return (
            value.name,
            value.query_ids,
            value.query_codes.tolist(),
            value.doc_ids.to_pylist(),
            value.scores.view(np.int64).tolist(),
            None if blocks is None else blocks.tolist(),
            [values.tolist() for values in value.query_blocks],
        )
    if isinstance(value, rw.Qrels):
        return (
            value.query_ids,
            value.query_codes.tolist(),
            value.doc_ids,
            value.doc_codes.tolist(),
            value.grades.view(np.int64).tolist(),
            value.doc_column.to_pylist(),
        )
    return value


def both_ways(read: Callable[[Any], Any], data: Any) -> tuple[Any, Any]:
    """What *read* makes of *data* with the C module and without it."""
    out = []
    for on in (True, False):
        with c_modules(on):
            try:
                out.append(summary(read(data)))
            except RankwiseError as error:
                out.append((type(error).__name__, str(error)))
    return out[0], out[1]


@needs_c
@settings(max_examples=300, deadline=None)
@given(python_dicts())
def test_runs_are_the_same_both_ways(data: dict) -> None:
    fast, pure = both_ways(lambda d: run_from_dict(d, name="sys"), data)
    assert fast == pure


@needs_c
@settings(max_examples=300, deadline=None)
@given(python_dicts())
def test_judgments_are_the_same_both_ways(data: dict) -> None:
    fast, pure = both_ways(qrels_from_dict, data)
    assert fast == pure


def test_ids_are_text_and_values_float64() -> None:
    run = run_from_dict({"q1": {"d1": 2, np.int64(7): np.float32(0.5)}, 3: {"é": 1.25}})
    assert run.query_ids == ["q1", "3"]
    assert run.doc_ids.to_pylist() == ["d1", "7", "é"]
    assert run.scores.tolist() == [2.0, 0.5, 1.25]
    assert run.scores.dtype == np.float64


@pytest.mark.parametrize("c", [True, False])
def test_an_empty_ranking_is_a_query_of_the_run_with_no_row(c: bool) -> None:
    """pytrec_eval evaluates a query whose run dict is empty (num_ret 0): it is in the run."""
    if c and _ccolumns is None:
        pytest.skip("the C module is not built")
    with c_modules(c):
        run = run_from_dict({"q1": {}, "q2": {"d": 1.0, "e": 0.5}, 3: {}, "q4": {"f": 2.0}})
        assert run.query_ids == ["q1", "q2", "3", "q4"]
        assert run.query_codes.tolist() == [1, 1, 3]
        assert run.rank_order_blocks.tolist() == [0, 2]  # each query's rows in one block
        assert run.to_dict() == {"q1": {}, "q2": {"d": 1.0, "e": 0.5}, "3": {}, "q4": {"f": 2.0}}
        assert run_from_dict({"q": {}}).query_ids == ["q"]
        with pytest.raises(InputFormatError, match="query keys '1' and 1 are the same query"):
            run_from_dict({"1": {}, 1: {"d": 1.0}})  # an empty ranking's key is a query too
        with pytest.raises(InputFormatError, match="query id must be a str or an int"):
            run_from_dict({1.5: {}})  # an empty entry's id is still a query id
        # a query with no judgment is not judged
        assert qrels_from_dict({"q1": {}, "q2": {"d": 1}}).query_ids == ["q2"]
    assert rw.Run.from_dict({"q1": {}, "q2": {"d": 1.0}}).query_ids == ["q1", "q2"]


def test_a_run_in_rank_order_is_known_to_be() -> None:
    in_order = run_from_dict({"a": {"x": 2.0, "y": 1.0}, "b": {"z": 0.0}})
    assert in_order.rank_order_blocks.tolist() == [0, 2]
    assert run_from_dict({"a": {"x": 1.0, "y": 2.0}}).rank_order_blocks is None


@pytest.mark.parametrize("c", [True, False])
def test_a_document_given_twice_as_int_and_str_is_an_error(c: bool) -> None:
    with c_modules(c):
        twice = r"document '1' appears twice for query 'q'.*\('q', 1\) and \('q', '1'\)"
        with pytest.raises(DuplicateEntryError, match=twice):
            run_from_dict({"q": {1: 0.5, "1": 0.25}})
        with pytest.raises(DuplicateEntryError, match=r"judgment for document '2' of query 'q'"):
            qrels_from_dict({"q": {np.int64(2): 1, "2": 0}})


@pytest.mark.parametrize("c", [True, False])
def test_query_keys_given_as_int_and_str_are_an_error_naming_both(c: bool) -> None:
    """Never merged into one query (reading.md): a dict of both is almost always a mistake."""
    with c_modules(c):
        for given in ({7: {"a": 1.0}, "7": {"b": 2.0}}, {"7": {"a": 1.0}, 7: {"b": 2.0}},
                      {"x": {"a": 1.0}, np.int64(7): {"a": 1.0}, "y": {}, "7": {"b": 0.5}}):
            first, second = [key for key in given if str(key) == "7"]
            message = (f"<dict>: query keys {first!r} and {second!r} are the same query id '7' "
                       "once converted to text; give each query once (the run dict's rows of "
                       "one query under one key)")
            with pytest.raises(InputFormatError) as caught:
                run_from_dict(given)
            assert str(caught.value) == message
            with pytest.raises(InputFormatError) as caught:
                qrels_from_dict({key: {d: 1 for d in docs} for key, docs in given.items()}
                                | {"z": {"a": 0}})
            assert str(caught.value) == message.replace("run dict", "qrels dict")
        # an empty ranking's key is a query, first or second
        for given in ({"1": {"d": 1.0}, 1: {}}, {1: {}, "1": {}}):
            with pytest.raises(InputFormatError, match="are the same query id '1'"):
                run_from_dict(given)
        # an empty judged entry is no query (nothing judged): its key collides with nothing,
        # document keys of mixed kinds (numpy integers) or not
        assert qrels_from_dict({7: {}, "7": {"b": 1}}).query_ids == ["7"]
        assert qrels_from_dict({7: {}, "7": {"b": 1}, "q": {np.int64(1): 1}}).query_ids == [
            "7", "q"]


BAD = [  # the whole message: the place first (query, document), what was expected, what came
    ([("q", 1)], "<dict>: a run dict must map query ids to {doc_id: score}, got list"),
    ({"q": [1]}, "<dict>: query 'q': the run entry must be a dict {doc_id: score}, got list"),
    ({1.5: {"d": 1.0}}, "<dict>: query id must be a str or an int, got 1.5 (float)"),
    ({True: {"d": 1.0}}, "<dict>: query id must be a str or an int, got True (true/false)"),
    ({"q": {b"d": 1.0}},
     "<dict>: query 'q': document id must be a str or an int, got b'd' (bytes)"),
    ({"q": {"d": "0.5"}},
     "<dict>: query 'q', document 'd': score must be a number (float or int), got '0.5' (str)"),
    ({"q": {"d": True}}, "<dict>: query 'q', document 'd': score must be a number (float or "
                         "int), got True (true/false)"),
    ({"q": {"d": None}}, "<dict>: query 'q', document 'd': score must be a number (float or "
                         "int), got None (NoneType)"),
    ({"q": {"d": float("nan")}}, "<dict>: query 'q', document 'd': score must be a finite "
                                 "number, got nan"),
    ({"q": {"d": -np.inf}}, "<dict>: query 'q', document 'd': score must be a finite number, "
                            "got -inf"),
    ({"q": {"d": 10**400}}, "<dict>: query 'q', document 'd': score must be a finite number, "
                            "got an integer of 401 digits, too large for a 64-bit float"),
    ({"q\udc80": {"d": 1.0}},
     "<dict>: query 'q\\udc80': query id cannot be encoded as UTF-8 (a lone surrogate)"),
    ({"q": {"\udc80": 1.0}}, "<dict>: query 'q', document '\\udc80': document id cannot be "
                             "encoded as UTF-8 (a lone surrogate)"),
]


@pytest.mark.parametrize("c", [True, False])
@pytest.mark.parametrize(("data", "message"), BAD)
def test_bad_entries_are_refused_with_the_same_message(c: bool, data: Any, message: str) -> None:
    with c_modules(c), pytest.raises(InputFormatError) as error:
        run_from_dict(data)
    assert str(error.value) == message
    with c_modules(c), pytest.raises(InputFormatError) as error:  # the one reader: one wording
        rw.Run.from_dict(data)
    assert str(error.value) == message


@pytest.mark.parametrize("c", [True, False])
def test_bad_grades_are_refused(c: bool) -> None:
    message = ("<dict>: query 'q', document 'd': grade must be a number (float, int or bool), "
               "got '2' (str)")
    for read in (qrels_from_dict, rw.Qrels.from_dict):
        with c_modules(c), pytest.raises(InputFormatError) as error:
            read({"q": {"d": "2"}})
        assert str(error.value) == message


@pytest.mark.parametrize("c", [True, False])
def test_boolean_grades_are_one_and_zero_on_every_road(c: bool) -> None:
    """True and False judge as 1 and 0 (as a table's boolean column, as pytrec_eval's int)."""
    with c_modules(c):
        for read in (qrels_from_dict, rw.Qrels.from_dict):
            assert read({"q": {"a": True, "b": np.bool_(False), "c": 2}}).grades.tolist() == [
                1.0, 0.0, 2.0]
        results = rw.evaluate({"q": {"a": True, "b": False}}, {"q": {"b": 2.0, "a": 1.0}},
                              ["P@1", "recip_rank"])
    assert results.mean == {"P@1": 0.0, "mrr": 0.5}  # b (0) first, a (1) second


def test_evaluate_reads_dicts_through_here() -> None:
    qrels = {"q1": {"d1": 1, 2: 1}, 3: {"x": 1}}
    run = {"q1": {"d1": 0.5, "2": 0.75, "z": 1.0}, 3: {"x": 0.1}}
    results = rw.evaluate(qrels, run, ["P@2", "recip_rank"])
    assert results.query_ids == ["3", "q1"]
    assert results["P@2"].tolist() == [0.5, 0.5]
    assert results["mrr"].tolist() == [1.0, 0.5]


def test_dict_subclasses_are_read_alike_both_ways() -> None:
    from collections import OrderedDict, defaultdict

    ordered = OrderedDict([("q1", OrderedDict([("a", 1.0), ("b", 2.0)])), ("q2", {"c": 0.5})])
    ordered.move_to_end("q1")
    ordered["q1"].move_to_end("a")  # OrderedDict's order is no longer the storage order
    nested: defaultdict = defaultdict(dict)
    nested[3]["x"] = 1
    nested["q"][4] = 0.5
    for data in (ordered, nested):
        assert both_ways(run_from_dict, data)[0] == both_ways(run_from_dict, data)[1]
        assert both_ways(qrels_from_dict, data)[0] == both_ways(qrels_from_dict, data)[1]


@pytest.mark.parametrize("native", [True, False])
def test_a_key_that_changes_its_dict_while_read_is_read_safely(native: bool) -> None:
    """The C reader borrows keys and values; Python code it calls may change the dict."""
    if native and _ccolumns is None:
        pytest.skip("the C module is not built")
    ranking: dict = {}

    class Rewrites(str):  # str() of it replaces the ranking being read
        def __str__(self) -> str:
            ranking.clear()
            ranking.update({f"x{i}": float(i) for i in range(100)} | {"d3": 0.5})
            return str.__str__(self)

    ranking.update({f"d{i}": float(i) for i in range(50)})
    ranking[Rewrites("e")] = 3.0
    ranking.update({f"d{i}": float(i) for i in range(50, 100)})
    qrels = {"q": {"d1": 1, "d3": 1}}
    measures = ["map", "P@200", "num_ret"]
    before = rw.evaluate(qrels, {"q": {str.__str__(k): v for k, v in ranking.items()}}, measures)
    with c_modules(native):
        got = rw.evaluate(qrels, {"q": ranking}, measures)
    after = rw.evaluate(qrels, {"q": dict(ranking)}, measures)
    # what was read is the dict as it was before the change (the pure reader reads a
    # snapshot) or after it (the C reader notices the change and reads it again), never a
    # mixture of both (which would hold d3 twice) and never freed memory
    assert before.mean != after.mean
    assert got.mean == (after.mean if native else before.mean)
    assert after.mean["num_ret"] == 101.0


@pytest.mark.parametrize("native", [True, False])
def test_a_judged_key_that_changes_its_dict_while_read_is_read_safely(native: bool) -> None:
    """Both readers read the judgments of a query as they were when its reading began.

    The C reader gathers a query's keys and grades before reading them (to prefetch
    them); once a key whose str() may run Python code is met, it holds references to
    all of them, so a change of the dict frees nothing it still reads.
    """
    if native and _ccolumns is None:
        pytest.skip("the C module is not built")
    judged: dict = {}

    class Rewrites(str):  # str() of it replaces the judgments being read
        def __str__(self) -> str:
            judged.clear()
            judged.update({f"x{i}": 1 for i in range(100)})
            return str.__str__(self)

    judged.update({f"d{i}": i % 3 for i in range(20)})
    judged[Rewrites("e")] = 2
    judged.update({f"d{i}": i % 3 for i in range(20, 40)})
    snapshot = {str.__str__(k): v for k, v in judged.items()}
    with c_modules(native):
        qrels = qrels_from_dict({"q": judged, "p": {"d1": 1}})
    assert qrels.to_dict() == {"q": snapshot, "p": {"d1": 1}}
    assert len(judged) == 100  # the change happened


@needs_c
def test_judged_ids_past_what_int32_offsets_hold_are_interned(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """qrels_dict gives eight Nones when the uninterned ids pass 2 GiB: they are interned."""
    native = _ccolumns  # the module itself: RANKWISE_NO_C=1 does not turn it off here
    calls: list[bool] = []

    class TooLarge:
        def qrels_dict(self, judgments: Any, id_types: Any, number_types: Any,
                       intern_docs: bool = True) -> tuple[Any, ...]:
            calls.append(intern_docs)
            if not intern_docs:
                return (None,) * 8
            return native.qrels_dict(judgments, id_types, number_types)

    monkeypatch.setattr(dicts, "_native", TooLarge)
    data = {"q2": {"d1": 2, "d2": 0}, "q1": {"d2": 1}, "q3": {1: 1, "1": 0}}
    with pytest.raises(DuplicateEntryError, match="1 and '1' are the same id"):
        qrels_from_dict(data)
    qrels = qrels_from_dict({"q2": {"d1": 2, "d2": 0}, "q1": {"d2": 1}})
    assert calls == [False, True, False, True]
    assert (qrels.doc_ids, qrels.doc_codes.tolist()) == (["d1", "d2"], [0, 1, 1])
    assert qrels.to_dict() == {"q2": {"d1": 2, "d2": 0}, "q1": {"d2": 1}}
    assert qrels.query_id_type is str
