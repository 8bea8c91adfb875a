"""Ranks counted per query without a sort (rankwise.ranking._crank) against the sort.

For runs grouped by query but not in rank order (dicts, frames), the judged
rows and their ranks are found by the C module, query by query; the general
path joins the whole run with the judgments and sorts it. Both must agree on
every judged row, rank and tie group.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import random_collection

import rankwise as rw
from rankwise.data import Qrels, Run
from rankwise.ranking import _counted, _order, rank
from rankwise.ranking.judged import find_judged

pytestmark = pytest.mark.skipif(_counted._crank is None, reason="the C module is not built")


@pytest.fixture(autouse=True)
def _c_modules_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about the C path: on, even in a run with RANKWISE_NO_C=1."""
    monkeypatch.setenv("RANKWISE_NO_C", "0")

DOCS = ["d1", "d10", "d2", "D1", "d1a", "é", "日本", "x" * 20, "x" * 21, "", "d1\x00"]


@st.composite
def grouped_runs(draw: st.DrawFn) -> tuple[Qrels, Run]:
    """Judgments and a run grouped by query, not sorted, in chunks, with many ties."""
    queries, docs, scores = [], [], []
    qrels: dict[str, dict[str, int]] = {}
    for q in range(draw(st.integers(1, 6))):
        name = f"q{q}"
        picked = draw(st.lists(st.sampled_from(DOCS), unique=True, min_size=0, max_size=11))
        queries += [name] * len(picked)
        docs += picked
        scores += [draw(st.integers(0, 3)) / 2 for _ in picked]
        if draw(st.integers(0, 4)):
            judged = draw(st.lists(st.sampled_from(DOCS), unique=True, max_size=8))
            qrels[name] = {doc: draw(st.integers(-1, 3)) for doc in judged}
    if not qrels:
        qrels["q0"] = {"d1": 1}
    chunk = draw(st.integers(1, 8))
    doc_column = pa.chunked_array(
        [pa.array(docs[i : i + chunk], pa.string()) for i in range(0, len(docs), chunk)]
        or [pa.array([], pa.string())]
    )
    run = Run.from_arrow(queries, doc_column, scores, name="sys")
    return Qrels.from_dict(qrels), run


def general(qrels: Qrels, run: Run) -> tuple:
    index = {name: i for i, name in enumerate(qrels.query_ids)}
    run_to_qrels = np.array([index.get(name, -1) for name in run.query_ids], dtype=np.int64)
    rows, judged = find_judged(qrels, run, run_to_qrels)
    ranked = _order.ranks_of(run, run.scores, rows, None, False)
    return run_to_qrels, rows, judged, ranked


def assert_agree(qrels: Qrels, run: Run) -> None:
    run_to_qrels, rows, judged, ranked = general(qrels, run)
    counted = _counted.find_and_rank(qrels, run, run_to_qrels, run.scores)
    if len(run) == 0 or len(qrels) == 0:  # nothing to count: the general path answers
        assert counted is None
        return
    assert counted is not None
    got_rows, got_judged, got = counted
    assert got_rows.tolist() == rows.tolist()
    assert got_judged.tolist() == judged.tolist()
    for field in ("rank", "above", "size"):
        assert getattr(got, field).tolist() == getattr(ranked, field).tolist(), field
    assert got.block_codes[got.block].tolist() == ranked.block_codes[ranked.block].tolist()
    mine = dict(zip(got.block_codes.tolist(), got.block_sizes.tolist()))
    theirs = dict(zip(ranked.block_codes.tolist(), ranked.block_sizes.tolist()))
    assert mine == theirs


@settings(max_examples=300, deadline=None)
@given(grouped_runs())
def test_counted_ranks_are_the_sorted_ranks(data: tuple[Qrels, Run]) -> None:
    assert_agree(*data)


@settings(max_examples=100, deadline=None)
@given(grouped_runs())
def test_on_several_threads_too(data: tuple[Qrels, Run]) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_counted, "_ROWS_PER_THREAD", 1)
        patch.setattr(_counted, "cores", lambda: 3)
        assert_agree(*data)


def test_a_run_of_massive_ties_is_sorted_instead(monkeypatch: pytest.MonkeyPatch) -> None:
    qrels = Qrels.from_dict({"q": {"a": 1, "b": 0}})
    run = Run.from_dict({"q": {"a": 1.0, "b": 1.0, "c": 1.0}})
    run_to_qrels = np.array([0])
    assert _counted.find_and_rank(qrels, run, run_to_qrels, run.scores) is not None
    monkeypatch.setattr(_counted, "TIE_BUDGET_PER_ROW", 0)
    monkeypatch.setattr(_counted, "TIE_BUDGET_BASE", 0)
    assert _counted.find_and_rank(qrels, run, run_to_qrels, run.scores) is None
    ranked = rank.rank_all_ties(qrels, run).view("trec")  # the sort answers
    assert ranked.hit_rank.tolist() == [2, 3]  # docno descending: c, b, a
    assert ranked.hit_grade.tolist() == [0.0, 1.0]


def test_queries_in_two_places_are_sorted_instead() -> None:
    qrels = Qrels.from_dict({"q": {"a": 1}})
    run = Run.from_arrow(["q", "p", "q"], ["b", "x", "a"], [1.0, 1.0, 2.0])
    assert _counted.find_and_rank(qrels, run, np.array([0, -1]), run.scores) is None
    assert rank.rank_all_ties(qrels, run).view("trec").hit_rank.tolist() == [1]


def test_ties_broken_by_docno_descending_in_byte_order() -> None:
    docs = ["d1", "d10", "d2", "é", "e", "d1\x00"]
    qrels = Qrels.from_dict({"q": dict.fromkeys(docs, 1)})
    run = Run.from_dict({"q": dict.fromkeys(docs, 0.5)})
    ranked = rank.rank_all_ties(qrels, run).view("trec")
    order = sorted(docs, key=lambda d: d.encode(), reverse=True)
    index = {name: i for i, name in enumerate(qrels.doc_ids)}
    expected = [order.index(doc) + 1 for doc in sorted(docs, key=index.__getitem__)]
    assert sorted(ranked.hit_rank.tolist()) == sorted(expected)
    assert ranked.hit_rank.tolist() == list(range(1, 7))


@pytest.mark.parametrize("seed", range(6))
def test_the_trec_rank_column_orders_shuffled_files_the_same(seed: int, tmp_path) -> None:
    qrels, run = random_collection(seed, ties=True)
    rng = np.random.default_rng(seed)
    lines = []
    for query, ranking_ in run.items():
        docs = sorted(ranking_, key=lambda d: (-ranking_[d], d))
        rows = [f"{query} Q0 {doc} {i + 1} {ranking_[doc]} sys" for i, doc in enumerate(docs)]
        lines += [rows[i] for i in rng.permutation(len(rows))]  # grouped, not in order
    path = tmp_path / "run"
    path.write_text("\n".join(lines) + "\n")
    measures = ["ndcg@5", "map", "P@3"]
    got = rw.evaluate(qrels, str(path), measures, ties="rank")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RANKWISE_NO_C", "1")
        expected = rw.evaluate(qrels, str(path), measures, ties="rank")
    for measure in measures:
        assert got[measure].tolist() == expected[measure].tolist()
