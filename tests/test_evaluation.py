"""evaluate(): hand-computed values, options, input forms."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import rankwise as rw
from rankwise.exceptions import InputFormatError, InvalidParameterError

QRELS = {"q1": {"a": 3, "b": 2, "c": 3, "d": 0, "e": 1, "z": 2}, "q2": {"x": 1}, "q3": {"y": 0}}
RUN = {
    "q1": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.4, "e": 0.3, "u": 0.2},
    "q2": {"w": 0.9, "v": 0.5, "x": 0.1},
    "q3": {"y": 0.5},
    "q9": {"a": 1.0},
}


def dcg(gains: list[float]) -> float:
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


def test_hand_computed_values() -> None:
    r = rw.evaluate(
        QRELS,
        RUN,
        [
            "ndcg@5",
            "ndcg@5(gain=linear)",
            "dcg@3",
            "P@5",
            "P@10",
            "recall@5",
            "map",
            "mrr",
            "mrr@2",
            "Rprec",
            "hit@1",
            "num_rel",
        ],
    )
    assert r.query_ids == ["q1", "q2", "q3"]
    exp = [2**g - 1 for g in (3, 2, 3, 0, 1)]
    ideal = [2**g - 1 for g in (3, 3, 2, 2, 1)]
    assert r["ndcg@5"][0] == pytest.approx(dcg(exp) / dcg(ideal), abs=1e-12)
    assert r["ndcg@5(gain=linear)"][0] == pytest.approx(dcg([3, 2, 3, 0, 1]) / dcg([3, 3, 2, 2, 1]))
    assert r["dcg@3"][0] == pytest.approx(dcg(exp[:3]))
    assert r["ndcg@5"][2] == 0.0  # no positive gain: IDCG = 0 scores 0
    assert list(r["P@5"]) == [0.8, 0.2, 0.0]
    assert r["P@10"][1] == pytest.approx(0.1)  # divides by k even when fewer retrieved
    assert r["recall@5"][0] == pytest.approx(4 / 5)
    # AP of q1: relevant a b c e at ranks 1 2 3 5, R = 5 (z is never retrieved)
    assert r["map"][0] == pytest.approx((1 + 1 + 1 + 4 / 5) / 5)
    assert list(r["mrr"]) == pytest.approx([1.0, 1 / 3, 0.0])
    assert r["mrr@2"][1] == 0.0
    assert r["Rprec"][0] == pytest.approx(4 / 5)
    assert list(r["num_rel"]) == [5, 1, 0]
    assert r.mean["num_rel"] == 6
    assert r.unjudged_queries == 1


def test_missing_queries_skip_or_zero() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    run = {"q1": {"a": 1.0}}
    skip = rw.evaluate(qrels, run, ["map", "num_q"])
    zero = rw.evaluate(qrels, run, ["map", "num_q"], missing="zero")
    assert skip.query_ids == ["q1"] and skip.mean["map"] == 1.0
    assert zero.query_ids == ["q1", "q2"] and zero.mean["map"] == 0.5
    assert zero.mean["num_q"] == 2
    with pytest.raises(InvalidParameterError, match="missing must be"):
        rw.evaluate(qrels, run, ["map"], missing="drop")


def test_depth_and_judged_only() -> None:
    qrels = {"q": {"a": 1, "b": 1, "n": -1}}
    run = {"q": {"x": 3.0, "a": 2.0, "n": 1.5, "b": 1.0}}
    assert rw.evaluate(qrels, run, ["P@2"], depth=1)["P@2"][0] == 0.0
    assert rw.evaluate(qrels, run, ["num_ret"], depth=2)["num_ret"][0] == 2
    judged = rw.evaluate(qrels, run, ["P@2", "num_ret"], judged_only=True)
    assert judged["P@2"][0] == 1.0 and judged["num_ret"][0] == 2
    with pytest.raises(InvalidParameterError, match="depth"):
        rw.evaluate(qrels, run, ["map"], depth=-1)


def test_global_rel_applies_where_not_set() -> None:
    r = rw.evaluate(QRELS, RUN, ["P@5", "P@5(rel=3)"], rel=2)
    assert list(r.mean) == ["P@5(rel=2)", "P@5(rel=3)"]
    assert r["P@5(rel=2)"][0] == pytest.approx(3 / 5)


def test_negative_grades_are_judged_never_relevant() -> None:
    r = rw.evaluate(
        {"q": {"a": -1, "b": 1}},
        {"q": {"a": 2.0, "b": 1.0}},
        ["mrr", "ndcg", "judged@2", "num_rel"],
    )
    assert r["mrr"][0] == 0.5
    assert r["ndcg"][0] == pytest.approx(1 / math.log2(3))
    assert r["judged@2"][0] == 1.0
    assert r["num_rel"][0] == 1


def test_forms_give_the_same_values(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    import pyarrow as pa
    import pyarrow.parquet as pq

    measures = ["ndcg@3", "map", "P@2"]
    base = rw.evaluate(QRELS, RUN, measures).to_dict()
    qrels_rows = [(q, d, g) for q, docs in QRELS.items() for d, g in docs.items()]
    run_rows = [(q, d, s) for q, docs in RUN.items() for d, s in docs.items()]
    qrels_df = pd.DataFrame(qrels_rows, columns=["query_id", "doc_id", "relevance"])
    run_df = pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"])
    assert rw.evaluate(qrels_df, run_df, measures).to_dict() == base
    assert rw.evaluate(pl.from_pandas(qrels_df), pl.from_pandas(run_df), measures).to_dict() == base
    assert (
        rw.evaluate(
            pa.Table.from_pandas(qrels_df), pa.Table.from_pandas(run_df), measures
        ).to_dict()
        == base
    )
    pq.write_table(pa.Table.from_pandas(run_df), tmp_path / "run.parquet")
    qrels_df.to_csv(tmp_path / "qrels.csv", index=False)
    run_df.to_json(tmp_path / "run.jsonl", orient="records", lines=True)
    qrels_df.to_csv(tmp_path / "qrels.tsv", index=False, sep="\t")
    assert rw.evaluate(tmp_path / "qrels.csv", tmp_path / "run.parquet", measures).to_dict() == base
    assert rw.evaluate(tmp_path / "qrels.tsv", tmp_path / "run.jsonl", measures).to_dict() == base
    trec_q = "".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels_rows)
    trec_r = "".join(f"{q} Q0 {d} 0 {s} r\n" for q, d, s in run_rows)
    (tmp_path / "q.txt").write_text(trec_q)
    (tmp_path / "r.txt").write_text(trec_r)
    assert rw.evaluate(str(tmp_path / "q.txt"), str(tmp_path / "r.txt"), measures).to_dict() == base


def test_one_table_form_for_learning_to_rank() -> None:
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        {"qid": [1, 1, 1, 2, 2], "label": [3, 0, 1, 0, 2], "pred": [0.2, 0.9, 0.5, 0.3, 0.1]}
    )
    r = rw.evaluate(
        frame, measures=["ndcg@3(gain=linear)"], query="qid", label="label", score="pred"
    )
    from sklearn.metrics import ndcg_score

    expected_q1 = ndcg_score([[3, 0, 1]], [[0.2, 0.9, 0.5]], k=3)
    assert r.query_ids == ["1", "2"]
    assert r["ndcg@3(gain=linear)"][0] == pytest.approx(expected_q1, abs=1e-12)
    with pytest.raises(InputFormatError, match="label column 'grade' not found"):
        rw.evaluate(frame, measures=["map"], query="qid", label="grade", score="pred")


def test_results_views() -> None:
    pd = pytest.importorskip("pandas")
    r = rw.evaluate(QRELS, RUN, ["map", "P@5"])
    frame = r.to_pandas()
    assert list(frame.columns) == ["map", "P@5"] and list(frame.index) == ["q1", "q2", "q3"]
    assert isinstance(frame, pd.DataFrame)
    assert r.to_dict()["P@5"]["q1"] == 0.8
    assert r.value("map", "q2") == pytest.approx(1 / 3)
    assert "map" in repr(r) and "P@5" in repr(r)
    with pytest.raises(KeyError, match="was not evaluated"):
        r["ndcg@10"]
    with pytest.raises(ValueError):
        r["map"][0] = 1.0


def test_nan_scores_are_rejected() -> None:
    with pytest.raises(InputFormatError, match="finite"):
        rw.evaluate({"q": {"a": 1}}, {"q": {"a": float("nan")}}, ["map"])


def test_large_cutoffs_and_empty_rankings() -> None:
    r = rw.evaluate({"q": {"a": 1}}, {"q": {"b": 1.0}}, ["ndcg@100000", "P@100000", "mrr"])
    assert np.all(r["ndcg@100000"] == 0) and r["mrr"][0] == 0.0


def test_ignored_and_missing_queries_are_said_once() -> None:
    from rankwise.exceptions import RankwiseWarning

    with pytest.warns(RankwiseWarning, match="1 query of the run has no judgments"):
        rw.evaluate(QRELS, RUN, ["map"])
    with pytest.warns(RankwiseWarning, match="2 judged queries are not in the run"):
        rw.evaluate({"a": {"x": 1}, "b": {"x": 1}, "c": {"x": 1}}, {"a": {"x": 1.0}}, ["map"])


@pytest.mark.parametrize(
    ("runs", "said"),
    [
        ({"bm25": RUN, "dense": RUN}, "a dict of 2 runs by name ('bm25', 'dense')"),
        ({"bm25": "bm25.run", "dense": "dense.run", "x": "x.run", "y": "y.run"},
         "a dict of 4 runs by name ('bm25', 'dense', 'x', ...)"),
        ([RUN, RUN], "a list of 2 runs"),
        (["bm25.run"], "a list of 1 run"),
    ],
)
def test_several_runs_given_as_one_point_to_evaluate_runs(runs: object, said: str) -> None:
    # before: "<dict>: run dict: score of document 'q1' for query 'bm25' must be a number"
    with pytest.raises(InvalidParameterError) as caught:
        rw.evaluate(QRELS, runs, ["map"])
    assert str(caught.value) == (
        f"run is {said}; evaluate takes one run: evaluate them all with "
        "rankwise.evaluate_runs(qrels, runs, measures) (a dict {name: Results}), or compare "
        "them with rankwise.compare(qrels, runs, measures)"
    )
    if isinstance(runs, dict) and all(isinstance(run, dict) for run in runs.values()):
        assert set(rw.evaluate_runs(QRELS, runs, ["map"])) == set(runs)  # what it says works


def test_one_run_is_still_one_run() -> None:
    # a run dict's first value is {doc_id: score}: never taken for several runs
    assert rw.evaluate(QRELS, RUN, ["map"]).n_queries == 3
    assert rw.evaluate({"q": {"a": 1}}, {"q": {}, "r": {"a": 1.0}}, ["map"]).n_queries <= 1


def test_a_query_id_given_as_a_number_says_ids_are_text() -> None:
    results = rw.evaluate({"1": {"a": 1}, "2": {"b": 1}}, {"1": {"a": 1.0}, "2": {"a": 1.0}},
                          ["map"])
    assert results.value("map", "1") == 1.0
    with pytest.raises(KeyError, match=r"^\"query 1 was not evaluated; query ids are text: did "
                                       r"you mean '1'\?\"$"):
        results.value("map", 1)
    with pytest.raises(KeyError, match=r"^'query 3 was not evaluated'$"):  # no such text
        results.value("map", 3)
    with pytest.raises(KeyError, match=r"^\"query 'x' was not evaluated\"$"):
        results.value("map", "x")
    numbered = rw.evaluate({1: {"a": 1}}, {1: {"a": 1.0}}, ["map"])  # integer ids: both work
    assert numbered.value("map", 1) == numbered.value("map", "1") == 1.0
