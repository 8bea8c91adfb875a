"""Writers: TREC text and Parquet read back to equal objects (the same evaluation)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import collections

import rankwise as rw

MEASURES = ["ndcg@5", "map", "P@3", "num_ret", "relstring@5"]


@settings(max_examples=60, deadline=None)
@given(collections(), st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False))
def test_trec_and_parquet_round_trips(tmp_path_factory: pytest.TempPathFactory, data, offset):
    qrels_dict, run_dict = data
    run_dict = {q: {d: s * 1e-3 + offset for d, s in docs.items()} for q, docs in run_dict.items()}
    folder = tmp_path_factory.mktemp("w")
    run = rw.Run.from_dict(run_dict, name="sys")
    qrels = rw.Qrels.from_dict(qrels_dict)
    run.to_trec(folder / "r.run")
    qrels.to_trec(folder / "q.qrels")
    run.to_parquet(folder / "r.parquet")
    qrels.to_parquet(folder / "q.parquet")
    for run_back, qrels_back in [
        (rw.read_run(folder / "r.run"), rw.read_qrels(folder / "q.qrels")),
        (rw.read_run(folder / "r.parquet"), rw.read_qrels(folder / "q.parquet")),
    ]:
        assert run_back.to_dict() == run.to_dict()
        assert qrels_back.to_dict() == qrels.to_dict()
        want = rw.evaluate(qrels, run, MEASURES)
        got = rw.evaluate(qrels_back, run_back, MEASURES)
        for name in want:
            assert list(got[name]) == list(want[name])
    assert rw.read_run(folder / "r.run").name == "sys"


def test_trec_file_is_in_trec_eval_order_with_ranks(tmp_path: Path) -> None:
    run = rw.Run.from_dict({"q2": {"a": 1.0, "b": 1.0, "c": 3.0}, "q1": {"z": 0.1}}, name="x")
    run.to_trec(tmp_path / "r", run_id="tag")
    assert (tmp_path / "r").read_text() == (
        "q1 Q0 z 1 0.1 tag\nq2 Q0 c 1 3 tag\nq2 Q0 b 2 1 tag\nq2 Q0 a 3 1 tag\n"
    )


def test_ids_trec_text_cannot_hold_are_refused(tmp_path: Path) -> None:
    run = rw.Run.from_dict({"q1": {"two words": 1.0}})
    with pytest.raises(rw.InvalidParameterError, match=r"document id 'two words' \(row 1\)"):
        run.to_trec(tmp_path / "r")
    with pytest.raises(rw.InvalidParameterError, match="run id 'a b'"):
        rw.Run.from_dict({"q": {"d": 1.0}}).to_trec(tmp_path / "r", run_id="a b")
    assert not (tmp_path / "r").exists()
    run.to_parquet(tmp_path / "r.parquet")  # Parquet holds any id
    assert rw.read_run(tmp_path / "r.parquet").to_dict() == run.to_dict()


def test_a_query_id_a_reader_takes_for_a_comment_is_refused(tmp_path: Path) -> None:
    """'#q2' first on a line is a comment when read back: the query would be lost."""
    run = rw.Run.from_dict({"q1": {"d1": 2.0}, "#q2": {"d9": 1.0}})
    with pytest.raises(rw.InvalidParameterError, match=r"query id '#q2' \(row \d\)"):
        run.to_trec(tmp_path / "r")
    with pytest.raises(rw.InvalidParameterError, match=r"query id '#q2'"):
        rw.Qrels.from_dict({"#q2": {"d9": 1}}).to_trec(tmp_path / "q")
    assert not (tmp_path / "r").exists() and not (tmp_path / "q").exists()
    # elsewhere on the line '#' is text: a document id may start with it, and reads back
    kept = rw.Run.from_dict({"q1": {"#d": 1.0, "d#": 0.5}})
    kept.to_trec(tmp_path / "ok")
    assert rw.read_run(tmp_path / "ok").to_dict() == kept.to_dict()


def test_fractional_grades_and_empty_objects(tmp_path: Path) -> None:
    qrels = rw.Qrels.from_dict({"q": {"a": 2, "b": 0, "c": -1}})
    qrels.to_trec(tmp_path / "q")
    assert (tmp_path / "q").read_text() == "q 0 a 2\nq 0 b 0\nq 0 c -1\n"
    scores = np.array([0.1, 1 / 3, 1e-20, 123456789.125])
    run = rw.Run.from_arrow(["q"] * 4, ["a", "b", "c", "d"], scores)
    run.to_trec(tmp_path / "r")
    assert np.array_equal(np.sort(rw.read_run(tmp_path / "r").scores), np.sort(scores))


def _as_integer_ids(mapping: dict) -> dict:
    return {int(query[1:]) * 7: docs for query, docs in mapping.items()}


@settings(max_examples=40, deadline=None)
@given(collections(), st.booleans())
def test_every_writer_reads_back_equal(tmp_path_factory: pytest.TempPathFactory, data,
                                       integer_ids: bool) -> None:
    """to_dict, to_pandas, to_parquet and to_trec, read back: equal objects, and query ids of
    the same type (integers stay integers, but in TREC text, which holds text only)."""
    pytest.importorskip("pandas")
    from rankwise.io import as_qrels, as_run

    qrels_dict, run_dict = data
    if integer_ids:
        qrels_dict, run_dict = _as_integer_ids(qrels_dict), _as_integer_ids(run_dict)
    folder = tmp_path_factory.mktemp("w")
    run = rw.Run.from_dict(run_dict, name="sys")
    qrels = rw.Qrels.from_dict(qrels_dict)
    assert run.to_dict() == run_dict and qrels.to_dict() == qrels_dict
    run.to_trec(folder / "r.run")
    qrels.to_trec(folder / "q.qrels")
    run.to_parquet(folder / "r.parquet")
    qrels.to_parquet(folder / "q.parquet")
    kind = int if integer_ids else str
    typed = [
        (as_run(run.to_dict()), as_qrels(qrels.to_dict())),
        (as_run(run.to_pandas()), as_qrels(qrels.to_pandas())),
        (rw.read_run(folder / "r.parquet"), rw.read_qrels(folder / "q.parquet")),
    ]
    for run_back, qrels_back in typed:
        assert run_back.to_dict() == run_dict
        assert qrels_back.to_dict() == qrels_dict
        assert run_back.query_id_type is kind and qrels_back.query_id_type is kind
    text_run, text_qrels = rw.read_run(folder / "r.run"), rw.read_qrels(folder / "q.qrels")
    assert text_run.to_dict() == {str(q): docs for q, docs in run_dict.items()}
    assert text_qrels.to_dict() == {str(q): docs for q, docs in qrels_dict.items()}
    want = rw.evaluate(qrels, run, MEASURES)
    for run_back, qrels_back in [*typed, (text_run, text_qrels)]:
        got = rw.evaluate(qrels_back, run_back, MEASURES)
        for name in want:
            assert {str(q): v for q, v in zip(got.query_ids, got[name].tolist())} == {
                str(q): v for q, v in zip(want.query_ids, want[name].tolist())}


@pytest.mark.parametrize(("ids", "said"), [
    ({"q1": {"d\x0b1": 1.0}}, r"document id 'd\\x0b1' \(row 1\)"),  # trec_eval's isspace
    ({"q1": {"d\x0c1": 1.0}}, r"document id 'd\\x0c1' \(row 1\)"),
    ({"q1": {"d\x001": 1.0}}, r"document id 'd\\x001' \(row 1\)"),  # binary data to a reader
    ({"\ufeffq1": {"d": 1.0}}, r"query id '\\ufeffq1' \(row 1\).*byte order mark"),
])
def test_ids_that_would_read_back_otherwise_are_refused(tmp_path: Path, ids: dict,
                                                        said: str) -> None:
    """Each wrote a file that reads back as another run (or not at all)."""
    with pytest.raises(rw.InvalidParameterError, match=said):
        rw.Run.from_dict(ids).to_trec(tmp_path / "r")
    with pytest.raises(rw.InvalidParameterError, match=said):
        rw.Qrels.from_dict({q: dict.fromkeys(docs, 1) for q, docs in ids.items()}).to_trec(
            tmp_path / "q")
    assert not (tmp_path / "r").exists() and not (tmp_path / "q").exists()
