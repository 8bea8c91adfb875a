"""Runs from frames read in place (rankwise.io.frames) against the general path.

The fast path reads pyarrow, pandas and polars columns where they are (Arrow
string, large_string and string_view buffers, numpy object arrays) with the C
module; the general path converts the frame to Arrow and interns with
pyarrow. Both must give the same run, and where the fast path declines, the
general path's error.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.exceptions import RankwiseError
from rankwise.io import frames
from rankwise.io.coerce import as_run

pytestmark = pytest.mark.skipif(frames._ccolumns is None, reason="the C module is not built")


@pytest.fixture(autouse=True)
def _c_modules_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about the C path: on, even in a run with RANKWISE_NO_C=1."""
    monkeypatch.setenv("RANKWISE_NO_C", "0")


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


def summary(run: rw.Run) -> tuple[Any, ...]:
    return (
        run.name,
        run.query_ids,
        run.query_codes.tolist(),
        run.doc_ids.to_pylist(),
        run.scores.view(np.int64).tolist(),
    )


def read_both(frame: Any) -> tuple[Any, Any]:
    out = []
    for on in (True, False):
        with c_modules(on):
            try:
                out.append(summary(as_run(frame, name="sys")))
            except RankwiseError as error:
                out.append((type(error).__name__, str(error)))
    return out[0], out[1]


@st.composite
def run_tables(draw: st.DrawFn) -> pa.Table:
    """Runs as tables: queries grouped or not, in rank order or not, ids of all sorts."""
    names = ["q1", "q2", "q10", "é", "", "x" * 30]
    docs = ["d1", "d2", "d10", "D1", "ü", "y" * 13, "y" * 12, ""]
    rows = []
    for _ in range(draw(st.integers(1, 5))):
        query = draw(st.sampled_from(names))
        picked = draw(st.lists(st.sampled_from(docs), unique=True, min_size=1, max_size=6))
        scores = [draw(st.integers(0, 4)) / 2 for _ in picked]
        if draw(st.booleans()):
            scores.sort(reverse=True)
        rows += [(query, doc, score) for doc, score in zip(picked, scores)]
    if draw(st.booleans()):
        rows = draw(st.permutations(rows))
    queries, doc_ids, scores = (list(column) for column in zip(*rows))
    return pa.table({"query_id": queries, "doc_id": doc_ids, "score": scores})


def forms(table: pa.Table, split: int) -> list[Any]:
    """The same run in every form the fast path reads."""
    import pandas as pd
    import polars as pl

    chunked = pa.Table.from_batches(table.to_batches(max_chunksize=max(1, split)))
    sliced = pa.concat_tables([table, table]).slice(table.num_rows, table.num_rows)
    large = table.cast(
        pa.schema([("query_id", pa.large_string()), ("doc_id", pa.large_string()),
                   ("score", pa.float64())])
    )
    view = table.cast(
        pa.schema([("query_id", pa.string_view()), ("doc_id", pa.string_view()),
                   ("score", pa.float64())])
    )
    encoded = table.set_column(0, "query_id", table["query_id"].dictionary_encode())
    mixed = pa.table({"query_id": table["query_id"],
                      "doc_id": pa.chunked_array([table["doc_id"].combine_chunks()]),
                      "score": table["score"].cast(pa.float32())})
    frame = table.to_pandas()
    return [
        table, chunked, sliced, large, view, encoded, mixed,
        frame.astype({"query_id": object, "doc_id": object}),
        table.to_pandas(types_mapper=pd.ArrowDtype),
        frame,
        frame.astype({"query_id": pd.StringDtype("python"), "doc_id": pd.StringDtype("python")}),
        pl.from_arrow(table),
    ]


@settings(max_examples=150, deadline=None)
@given(run_tables(), st.integers(1, 7))
def test_every_form_gives_the_general_paths_run(table: pa.Table, split: int) -> None:
    for frame in forms(table, split):
        fast, general = read_both(frame)
        assert fast == general, type(frame)


@settings(max_examples=60, deadline=None)
@given(run_tables())
def test_every_form_gives_the_same_values(table: pa.Table) -> None:
    pairs = list(zip(table["query_id"].to_pylist(), table["doc_id"].to_pylist()))
    assume(len(set(pairs)) == len(pairs))  # a valid run
    qrels = {q: {"d1": 1, "d10": 2, "ü": 0, "y" * 13: 1} for q in table["query_id"].to_pylist()}
    measures = ["ndcg@3", "map", "P@2", "mrr"]
    with c_modules(False):
        expected = rw.evaluate(qrels, table, measures)
    for frame in forms(table, 2):
        got = rw.evaluate(qrels, frame, measures)
        assert got.query_ids == expected.query_ids
        for measure in measures:
            assert got[measure].tolist() == expected[measure].tolist()


def test_a_run_in_rank_order_is_known_to_be() -> None:
    table = pa.table({"query_id": ["a", "a", "b"], "doc_id": ["x", "y", "x"],
                      "score": [2.0, 1.0, 5.0]})
    assert as_run(table).rank_order_blocks.tolist() == [0, 2]
    shuffled = table.take([1, 0, 2])
    assert as_run(shuffled).rank_order_blocks is None


PROBLEMS = {
    "a document twice": {"query_id": ["a", "a"], "doc_id": ["x", "x"], "score": [1.0, 0.5]},
    "twice, in two blocks": {"query_id": ["a", "b", "a"], "doc_id": ["x", "y", "x"],
                             "score": [1.0, 1.0, 0.5]},
    "a missing id": {"query_id": ["a", None], "doc_id": ["x", "y"], "score": [1.0, 0.5]},
    "a missing score": {"query_id": ["a", "a"], "doc_id": ["x", "y"], "score": [1.0, None]},
    "a score not finite": {"query_id": ["a"], "doc_id": ["x"], "score": [float("nan")]},
}


@pytest.mark.parametrize("name", list(PROBLEMS))
def test_bad_runs_get_the_general_paths_error(name: str) -> None:
    table = pa.table(PROBLEMS[name])
    for frame in (table, table.to_pandas().astype({"query_id": object, "doc_id": object})):
        fast, general = read_both(frame)
        assert fast == general
        assert isinstance(fast, tuple) and fast[0] in ("InputFormatError", "DuplicateEntryError")


def test_object_columns_of_other_than_text_take_the_general_path() -> None:
    import pandas as pd

    frame = pd.DataFrame({"query_id": [1, 2], "doc_id": ["x", "y"], "score": [1.0, 2.0]})
    frame = frame.astype({"query_id": object})
    fast, general = read_both(frame)
    assert fast == general


def test_the_run_does_not_share_the_frames_scores() -> None:
    import pandas as pd

    frame = pd.DataFrame({"query_id": ["a", "a"], "doc_id": ["x", "y"], "score": [1.0, 2.0]})
    frame = frame.astype({"query_id": object, "doc_id": object})
    run = as_run(frame)
    frame.loc[0, "score"] = 9.0
    assert run.scores.tolist() == [1.0, 2.0]


def test_a_pandas_object_that_is_not_a_frame_is_one_clear_error() -> None:
    pandas = pytest.importorskip("pandas")
    from rankwise.exceptions import InputFormatError

    run = pandas.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "score": [1.0]})
    qrels = {"q1": {"d1": 1}}
    test = pandas.DataFrame({"user": [1], "item": [2]})
    recs = pandas.DataFrame({"user": [1, 1], "item": [2, 3], "score": [0.5, 0.4]})
    for call, odd, kind in [
        (lambda x: rw.evaluate(qrels, x, ["map"]), run["score"], "Series"),
        (lambda x: rw.evaluate(qrels, x, ["map"]), run.index, "RangeIndex"),
        (lambda x: rw.evaluate_recommendations(test, x, ["ndcg@10"]), recs["score"], "Series"),
    ]:
        with pytest.raises(InputFormatError, match=f"expected a table .*got a pandas {kind}"):
            call(odd)
    twice = pandas.concat([run, run[["score"]]], axis=1)
    with pytest.raises(InputFormatError, match="the column 'score' is there twice"):
        rw.evaluate(qrels, twice, ["map"])
    with pytest.raises(InputFormatError, match="the column 'score' is there twice"):
        rw.evaluate_recommendations(test, pandas.concat([recs, recs[["score"]]], axis=1),
                                    ["ndcg@10"])
    # 0 and "0" are one name once Arrow holds the table
    with pytest.raises(InputFormatError, match="the column '0' is there twice"):
        rw.evaluate(qrels, pandas.DataFrame([[1.0, 2.0]], columns=[0, "0"]), ["map"])


def test_a_polars_lazy_frame_is_collected_as_it_is_asked() -> None:
    """A LazyFrame was an AttributeError ('LazyFrame' has no 'to_arrow')."""
    pl = pytest.importorskip("polars")
    import rankwise as rw

    qrels = {"q1": {"d1": 1, "d2": 2}, "q2": {"d3": 1}}
    frame = pl.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["d1", "d2", "d3", "d4"],
                          "score": [0.5, 0.4, 1.0, 0.2]})
    judged = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d2", "d3"],
                           "relevance": [1, 2, 1]})
    expected = rw.evaluate(qrels, frame, ["map", "ndcg@10"]).mean
    assert rw.evaluate(qrels, frame.lazy(), ["map", "ndcg@10"]).mean == expected
    assert rw.evaluate(judged.lazy(), frame.lazy(), ["map", "ndcg@10"]).mean == expected
