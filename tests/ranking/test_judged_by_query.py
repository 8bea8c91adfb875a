"""find_judged: the run joined with its judgments query by query (C), and without C.

Each road is checked against a plain-Python join on (query id, document id):
runs in several Arrow chunks (sliced, some empty), queries split over several
blocks of rows, queries with up to 8 judged documents (compared one by one) and
with more (hashed), documents judged for another query only, queries on one side
only, and ids that differ only past their 16th byte.
"""

from __future__ import annotations

import itertools

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankwise.data import Qrels, Run
from rankwise.data._names import name_codes
from rankwise.ranking import _join
from rankwise.ranking.judged import find_judged

LONG = "0123456789abcdef"  # 16 bytes: ids below differ only after them
DOCS = st.one_of(
    st.sampled_from(["", "d", "d1", "d10", "exactly8", "\u00e9", LONG, LONG + "x", LONG + "y",
                     LONG + "xy", "d1\x00"]),
    st.text(max_size=20),
)
QUERIES = st.sampled_from(["q1", "q2", "q3", "10", "\u00e9q"])


def reference(qrels: Qrels, run: Run) -> tuple[list[int], list[int]]:
    """Run rows whose (query, document) is judged, and the judgment's row: plain Python."""
    judgment_of = {}
    for row, (q, d) in enumerate(zip(qrels.query_codes, qrels.doc_codes)):
        judgment_of.setdefault((qrels.query_ids[q], qrels.doc_ids[d]), row)
    docs = run.doc_ids.to_pylist()
    rows, judgments = [], []
    for row, q in enumerate(run.query_codes):
        key = (run.query_ids[q], docs[row])
        if key in judgment_of:
            rows.append(row)
            judgments.append(judgment_of[key])
    return rows, judgments


def build_run(rows: list[tuple[str, str]], cuts: list[int], pad: int) -> Run:
    """A run of these (query, document) rows, its documents cut into sliced Arrow chunks."""
    docs = [doc for _, doc in rows]
    bounds = sorted({0, len(docs), *(min(c, len(docs)) for c in cuts)})
    chunks = [pa.array(["pad"] * pad + docs[a:b], pa.string()).slice(pad)
              for a, b in itertools.pairwise(bounds)]
    if cuts and len(docs):
        chunks.insert(1, pa.array([], pa.string()))  # an empty chunk among them
    column = pa.chunked_array(chunks, type=pa.string())
    return Run.from_arrow([q for q, _ in rows], column, np.arange(len(rows), 0, -1.0))


def joined(qrels: Qrels, run: Run) -> tuple[list[int], list[int]]:
    rows, judgments = find_judged(qrels, run, name_codes(qrels.query_ids, run.query_ids))
    assert rows.dtype == np.int64 and judgments.dtype == np.int64
    return rows.tolist(), judgments.tolist()


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(QUERIES, st.dictionaries(DOCS, st.integers(-1, 3), max_size=20), max_size=4),
    st.lists(st.tuples(QUERIES, DOCS), max_size=60, unique=True),
    st.lists(st.integers(0, 60), max_size=4),
    st.integers(0, 2),
    st.booleans(),
)
def test_the_same_rows_as_a_plain_join(judgments: dict[str, dict[str, int]],
                                       rows: list[tuple[str, str]], cuts: list[int], pad: int,
                                       with_c: bool) -> None:
    if with_c and _join._cjoin is None:
        return
    qrels = Qrels.from_dict(judgments) if judgments else Qrels.from_dict({"q9": {"z": 1}})
    run = build_run(rows, cuts, pad)
    import os

    saved = os.environ.get("RANKWISE_NO_C")
    os.environ["RANKWISE_NO_C"] = "0" if with_c else "1"
    try:
        assert joined(qrels, run) == reference(qrels, run)
    finally:
        if saved is None:
            del os.environ["RANKWISE_NO_C"]
        else:
            os.environ["RANKWISE_NO_C"] = saved


@pytest.mark.skipif(_join._cjoin is None, reason="the C join is not built")
def test_many_queries_many_judged_documents_and_split_blocks() -> None:
    rng = np.random.default_rng(7)
    judgments = {f"q{q}": {f"doc{d}": int(rng.integers(0, 3))
                           for d in rng.choice(400, size=int(rng.integers(0, 30)), replace=False)}
                 for q in range(300)}
    pairs = list({(f"q{q}", f"doc{d}") for q, d in zip(rng.integers(0, 320, 20_000),
                                                        rng.integers(0, 400, 20_000))})
    rng.shuffle(pairs)  # queries interleave: many blocks per query
    run = build_run(pairs, [5_000, 5_001, 12_000], 1)
    qrels = Qrels.from_dict(judgments)
    expected = reference(qrels, run)
    assert joined(qrels, run) == expected
    assert len(expected[0]) > 500


@pytest.mark.skipif(_join._cjoin is None, reason="the C join is not built")
def test_the_c_join_checks_its_buffers() -> None:
    from rankwise.data._strings import string_chunks

    values = string_chunks(pa.chunked_array([["a", "b"]]))[0].as_buffers()
    column = [values]
    ok = dict(starts=np.array([0], np.int64), block_query=np.array([0], np.int64),
              value_codes=np.array([1], np.int32), order=np.array([0], np.int64),
              bounds=np.array([0, 1], np.int64))

    def call(**changes: np.ndarray) -> int:
        given_ = {**ok, **changes}
        out = np.empty(2, np.int64), np.empty(2, np.int64)
        return int(_join._cjoin.find_by_query(
            column, given_["starts"], given_["block_query"], values, given_["value_codes"],
            given_["order"], given_["bounds"], *out))

    assert call() == 1  # "b" is judged for query 0
    with pytest.raises(ValueError, match="a block out of bounds"):
        call(block_query=np.array([1], np.int64))
    with pytest.raises(ValueError, match="a judgment out of bounds"):
        call(value_codes=np.array([2], np.int32))
    with pytest.raises(ValueError, match="bounds out of order"):
        call(bounds=np.array([0, 2], np.int64))
    with pytest.raises(ValueError, match="inconsistent sizes"):
        call(starts=np.array([1], np.int64))
