"""rankwise.compat.ranx's API against ranx 0.3.21 itself: data structures, files, reports,
fusion, errors.

Every expected value is ranx's own output on the same input (values, dict orders,
file bytes, LaTeX); where the drop-in departs from ranx on purpose (ranx's defects,
its dependence on Python's set order, rankwise's error types) the test says so.
"""

from __future__ import annotations

import gzip
import warnings
from pathlib import Path

import numpy as np
import pytest

from rankwise.compat import ranx as drop_in
from rankwise.compat.ranx import fusion as drop_in_fusion
from rankwise.exceptions import InputFormatError, InvalidParameterError, UnknownMeasureError

ranx = pytest.importorskip("ranx")
pytest.importorskip("ranx.fusion")


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's type-safety warnings
        return function(*args, **kwargs)


def tied_run(seed: int, n_queries: int = 6) -> dict[str, dict[str, float]]:
    """Lists of 10 to 60 documents with few distinct scores: ranx's quicksort moves ties."""
    rng = np.random.default_rng(seed)
    out = {}
    for q in range(n_queries):
        n = int(rng.integers(10, 61))
        docs = [f"d{i}" for i in rng.choice(400, n, replace=False)]
        out[f"q{q}"] = dict(zip(docs, (rng.integers(0, 3, n) / 2).tolist()))
    return out


def judgments(seed: int, run: dict) -> dict[str, dict[str, int]]:
    rng = np.random.default_rng(seed + 100)
    return {q: {d: int(rng.integers(-1, 3)) for d in list(docs)[::3]} | {"unretrieved": 1}
            for q, docs in run.items()}


def as_lists(mapping: dict) -> dict:
    return {q: list(docs.items()) for q, docs in mapping.items()}


# data structures ---------------------------------------------------------------------------
def test_run_holds_ranx_order_ties_beyond_fifteen_documents() -> None:
    run = tied_run(0)
    assert as_lists(drop_in.Run(run).run) == as_lists(quiet(ranx.Run, run).run)


def test_qrels_hold_integer_grades_in_ranx_order() -> None:
    qrels = {"q2": {"a": 1.9, "b": 3, "c": -1.5}, "q1": {"d": 2}}
    theirs, ours = quiet(ranx.Qrels, qrels, name="x"), drop_in.Qrels(qrels, name="x")
    assert as_lists(ours.qrels) == as_lists(dict(theirs.qrels))
    assert all(type(g) is int for docs in ours.qrels.values() for g in docs.values())
    assert (ours.name, ours.size, len(ours)) == (theirs.name, theirs.size, len(theirs))


def test_make_comparable_sorts_a_second_time_as_ranx() -> None:
    run = tied_run(1)
    qrels = {q: {"x": 1} for q in list(run)[1:]} | {"extra": {"x": 1}}
    theirs = quiet(ranx.Run, run).make_comparable(quiet(ranx.Qrels, qrels))
    ours = drop_in.Run(run).make_comparable(drop_in.Qrels(qrels))
    assert as_lists(ours.run) == as_lists(dict(theirs.run))
    assert ours.sorted is True and ours.run["extra"] == {}


def test_add_score_leaves_a_run_unsorted_until_it_is_sorted() -> None:
    theirs, ours = ranx.Run(), drop_in.Run()
    for q, docs in tied_run(2).items():
        for d, s in docs.items():
            quiet(theirs.add_score, q, d, s)
            ours.add_score(q, d, s)
    assert ours.sorted is theirs.sorted is False
    assert as_lists(ours.run) == as_lists(dict(theirs.run))
    quiet(theirs.sort)
    ours.sort()
    assert as_lists(ours.run) == as_lists(dict(theirs.run))


def test_add_multi_replaces_queries_and_sorts_everything() -> None:
    """ranx's add_multi on a run made from a dict garbles the new ids (numba); its order is
    one more sort of every query: what ranx's Run gives the dict with the queries replaced."""
    docs = [[f"n{i}" for i in range(20)], ["a", "b"]]
    scores = [[1.0] * 20, [2.0, 1.0]]
    ours = drop_in.Run(tied_run(3))
    ours.add_multi(["q0", "new"], docs, scores)
    held = {q: dict(d) for q, d in quiet(ranx.Run, tied_run(3)).run.items()}
    held.update({"q0": dict(zip(docs[0], scores[0])), "new": dict(zip(docs[1], scores[1]))})
    assert as_lists(ours.run) == as_lists(dict(quiet(ranx.Run, held).run))
    fresh, theirs = drop_in.Run(), ranx.Run()  # from empty, as ranx's own test does
    fresh.add_multi(["q0", "new"], docs, scores)
    quiet(theirs.add_multi, ["q0", "new"], docs, scores)
    assert as_lists(fresh.run) == as_lists(dict(theirs.run))


def test_set_relevance_level_and_typed_lists() -> None:
    qrels = {"q1": {"d1": 1, "d2": 2, "d3": 3}, "q2": {"d1": 4}}
    theirs, ours = quiet(ranx.Qrels, qrels), drop_in.Qrels(qrels)
    quiet(theirs.set_relevance_level, 3)
    ours.set_relevance_level(3)
    assert as_lists(ours.qrels) == as_lists(dict(theirs.qrels))
    for a, b in zip(ours.to_typed_list(), quiet(theirs.to_typed_list)):
        np.testing.assert_array_equal(a[:, 1], b[:, 1])
        assert a.shape == b.shape


def test_to_dict_and_to_dataframe_are_ranx_ones() -> None:
    run = tied_run(4)
    theirs, ours = quiet(ranx.Run, run), drop_in.Run(run)
    assert ours.to_dict() == theirs.to_dict()
    frame, expected = ours.to_dataframe(), theirs.to_dataframe()
    assert frame["q_id"].tolist() == expected["q_id"].tolist()
    assert frame["doc_id"].tolist() == expected["doc_id"].tolist()
    assert frame["score"].tolist() == expected["score"].tolist()
    assert ours.get_query_ids() == theirs.get_query_ids()
    assert ours["q1"] == theirs["q1"]


def test_changing_the_dict_changes_what_is_evaluated() -> None:
    run = drop_in.Run({"q1": {"a": 1.0, "b": 2.0}})
    run.run["q1"]["a"] = 3.0  # ranx's typed dict can be changed so; it stays "sorted"
    qrels = drop_in.Qrels({"q1": {"a": 1}})
    theirs = quiet(ranx.Run, {"q1": {"a": 1.0, "b": 2.0}})
    theirs.run["q1"]["a"] = 3.0
    assert drop_in.evaluate(qrels, run, "mrr") == quiet(ranx.evaluate, quiet(
        ranx.Qrels, {"q1": {"a": 1}}), theirs, "mrr") == 0.5


# files -------------------------------------------------------------------------------------
def test_run_files_are_ranx_bytes(tmp_path: Path) -> None:
    run = tied_run(5)
    for suffix in ("trec", "json"):
        ours, theirs = tmp_path / f"ours.{suffix}", tmp_path / f"theirs.{suffix}"
        drop_in.Run(run, name="bm25").save(str(ours))
        quiet(ranx.Run(run, name="bm25").save, str(theirs))
        if suffix == "json":  # the same document (orjson and json space floats alike)
            import json

            assert json.loads(ours.read_text()) == json.loads(theirs.read_text())
        else:
            assert ours.read_bytes() == theirs.read_bytes()
    qrels = judgments(5, run)
    drop_in.Qrels(qrels).save(str(tmp_path / "ours.qrels.trec"))
    quiet(ranx.Qrels(qrels).save, str(tmp_path / "theirs.qrels.trec"))
    assert (tmp_path / "ours.qrels.trec").read_bytes() == \
        (tmp_path / "theirs.qrels.trec").read_bytes()


@pytest.mark.parametrize("suffix", ["trec", "trec.gz", "json", "lz4", "parquet"])
def test_runs_read_back_as_ranx_reads_them(tmp_path: Path, suffix: str) -> None:
    """Read, each query's documents are sorted again from the file's order, as ranx does."""
    pytest.importorskip("lz4")
    run = tied_run(6)
    path = tmp_path / f"run.{suffix}"
    if suffix == "trec.gz":
        lines = [f"{q} Q0 {d} {i} {s} first" for q, docs in run.items()
                 for i, (d, s) in enumerate(docs.items())]
        path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
        expected = quiet(ranx.Run.from_file, str(path))
    elif suffix == "parquet":  # ranx 0.3.21 cannot read it with pandas >= 3 (object dtype)
        drop_in.Run(run).save(str(path))
        expected = quiet(ranx.Run, drop_in.Run(run).to_dict())  # a dict of the frame's rows
    else:
        quiet(ranx.Run(run, name="first").save, str(path))  # written by ranx
        expected = quiet(ranx.Run.from_file, str(path))
    ours = drop_in.Run.from_file(str(path)) if suffix != "parquet" else \
        drop_in.Run.from_parquet(str(path))
    assert as_lists(ours.run) == as_lists(dict(expected.run))
    if suffix in ("trec", "trec.gz"):
        assert ours.name == expected.name == "first"
    if suffix == "lz4":  # and ranx reads what the drop-in writes
        drop_in.Run(run).save(str(tmp_path / "back.lz4"))
        assert quiet(ranx.Run.from_file, str(tmp_path / "back.lz4")).to_dict() == run


def test_qrels_files_and_frames(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pandas as pd

    qrels = judgments(7, tied_run(7))
    quiet(ranx.Qrels(qrels).save, str(tmp_path / "q.trec"))
    quiet(ranx.Qrels(qrels).save, str(tmp_path / "q.json"))
    for name in ("q.trec", "q.json"):
        expected = as_lists(dict(quiet(ranx.Qrels.from_file, str(tmp_path / name)).qrels))
        assert as_lists(drop_in.Qrels.from_file(str(tmp_path / name)).qrels) == expected
    expected = as_lists(dict(quiet(ranx.Qrels, qrels).qrels))  # ranx: a dict of the rows
    rows = [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    frame = pd.DataFrame(rows, columns=["q_id", "doc_id", "score"])
    assert as_lists(drop_in.Qrels.from_df(frame).qrels) == expected
    frame.to_parquet(tmp_path / "q.parquet")
    assert as_lists(drop_in.Qrels.from_parquet(str(tmp_path / "q.parquet")).qrels) == expected

    class Dataset:  # what ir_datasets.load(...) gives: no download in a test
        def qrels_dict(self) -> dict:
            return qrels

    ir_datasets = pytest.importorskip("ir_datasets")
    monkeypatch.setattr(ir_datasets, "load", lambda dataset_id: Dataset())
    ours = drop_in.Qrels.from_ir_datasets("msmarco-passage/dev")
    theirs = quiet(ranx.Qrels.from_ir_datasets, "msmarco-passage/dev")
    assert (ours.name, as_lists(ours.qrels)) == (theirs.name, as_lists(dict(theirs.qrels)))


def test_file_kinds() -> None:
    from rankwise.compat.ranx.data_structures.run import get_file_kind

    assert [get_file_kind(f"x.{e}") for e in ("txt", "parq", "gz", "lz4")] == \
        ["trec", "parquet", "gz", "lz4"]
    with pytest.raises(InvalidParameterError, match="kind must be"):
        get_file_kind("run.csv")


# evaluate ----------------------------------------------------------------------------------
def test_output_types_are_ranx_types() -> None:
    qrels, run = judgments(8, tied_run(8)), tied_run(8)
    for kwargs in ({}, {"return_mean": False}, {"return_std": True}):
        for metrics in ("ndcg@5", ["ndcg@5", "map"]):
            theirs = quiet(ranx.evaluate, ranx.Qrels(qrels), ranx.Run(run), metrics, **kwargs)
            ours = drop_in.evaluate(drop_in.Qrels(qrels), drop_in.Run(run), metrics, **kwargs)
            assert type(ours) is type(theirs)
            if isinstance(ours, dict):
                assert list(ours) == list(theirs)
                assert [type(v) for v in ours.values()] == [type(v) for v in theirs.values()]


def test_queries_must_match_without_make_comparable() -> None:
    qrels, run = drop_in.Qrels({"q1": {"a": 1}, "q2": {"b": 1}}), drop_in.Run({"q1": {"a": 1.0}})
    with pytest.raises(InputFormatError, match="make_comparable=True"):
        drop_in.evaluate(qrels, run, "map")
    assert drop_in.evaluate(qrels, run, "map", make_comparable=True) == 0.5


def test_unknown_metrics_are_refused_with_a_suggestion() -> None:
    qrels, run = {"q1": {"a": 1}}, {"q1": {"a": 1.0}}
    with pytest.raises(UnknownMeasureError, match="did you mean 'ndcg'"):
        drop_in.evaluate(qrels, run, "ndgc@10")
    with pytest.raises(UnknownMeasureError, match=r"rbp\.95"):
        drop_in.evaluate(qrels, run, "rbp")


# compare -----------------------------------------------------------------------------------
def _compared(stat_test: str, n_permutations: int = 1000) -> tuple:
    rng = np.random.default_rng(9)
    runs = [{f"q{q}": dict(zip([f"d{i}" for i in range(30)], rng.random(30).round(2).tolist()))
             for q in range(25)} for _ in range(3)]
    qrels = {f"q{q}": {f"d{i}": int(rng.integers(0, 3)) for i in rng.choice(30, 8)}
             for q in range(25)}
    metrics = ["ndcg@10", "map", "mrr@5", "hits@10-l2"]
    theirs = quiet(ranx.compare, ranx.Qrels(qrels),
                   [ranx.Run(r, name=f"m_{i}") for i, r in enumerate(runs)], metrics,
                   stat_test=stat_test, max_p=0.3, n_permutations=n_permutations)
    ours = drop_in.compare(drop_in.Qrels(qrels),
                           [drop_in.Run(r, name=f"m_{i}") for i, r in enumerate(runs)], metrics,
                           stat_test=stat_test, max_p=0.3, n_permutations=n_permutations)
    return theirs, ours


@pytest.mark.parametrize("stat_test", ["student", "tukey"])
def test_reports_are_ranx_reports(stat_test: str) -> None:
    theirs, ours = _compared(stat_test)
    assert ours.to_latex() == theirs.to_latex()
    assert str(ours) == str(theirs)
    got, want = ours.to_dict(), theirs.to_dict()
    for model in want["model_names"]:
        assert got[model]["scores"] == pytest.approx(want[model]["scores"], abs=1e-12)
        assert got[model]["win_tie_loss"] == want[model]["win_tie_loss"]
        for other, p_values in want[model]["comparisons"].items():
            assert got[model]["comparisons"][other] == pytest.approx(p_values, abs=1e-9)
    assert ours.to_dataframe().equals(theirs.to_dataframe())


def test_fisher_is_rankwise_randomization_test() -> None:
    # ranx's permutations are numba's, not seeded by random_seed: other draws on every run.
    # With 1,000 permutations ranx's p-value alone spread 0.437-0.503 over 30 runs, and the
    # test failed now and then; with 20,000 the standard error of the difference of the two
    # estimates is at most sqrt(2 * 0.25 / 20000) = 0.005, and 0.05 is ten of them
    theirs, ours = _compared("fisher", n_permutations=20_000)
    got, want = ours.to_dict(), theirs.to_dict()
    for other, p_values in want["m_0"]["comparisons"].items():
        for metric, p in p_values.items():
            assert abs(got["m_0"]["comparisons"][other][metric] - p) < 0.05


# fusion ------------------------------------------------------------------------------------
SCORE_METHODS = {"sum": {}, "mnz": {}, "anz": {}, "max": {}, "min": {}, "med": {},
                 "gmnz": {"gamma": 0.5}, "wsum": {"weights": [0.2, 0.3, 0.5]},
                 "wmnz": {"weights": [0.2, 0.3, 0.5]}, "mixed": {"weights": [0.2, 0.3, 0.5]}}
RANK_METHODS = {"rrf": {"k": 10}, "isr": {}, "log_isr": {}, "logn_isr": {"sigma": 0.1},
                "rbc": {"phi": 0.7}}


def _fusion_runs() -> list[dict]:
    out = []
    for seed in (1, 2, 3):
        rng = np.random.default_rng(seed)
        run = {}
        for q in range(12):
            n = int(rng.integers(1, 40))
            docs = [f"d{i}" for i in rng.choice(60, n, replace=False)]
            run[f"q{q}"] = dict(zip(docs, (rng.integers(0, 5, n) / 4).tolist()))
        out.append(run)
    return out


@pytest.mark.parametrize("norm", [None, "min-max", "max", "sum", "zmuv", "rank",
                                  "min-max-inverted"])
def test_fused_runs_are_ranx_fused_runs(norm: str | None) -> None:
    """Values and order (ties beyond 15 documents included)."""
    runs = _fusion_runs()
    for method, params in {**SCORE_METHODS, **RANK_METHODS, "bordafuse": {}}.items():
        theirs = quiet(ranx.fuse, [ranx.Run(r) for r in runs], norm=norm, method=method,
                       params=params)
        ours = drop_in.fuse([drop_in.Run(r) for r in runs], norm=norm, method=method,
                            params=params)
        assert ours.name == theirs.name
        for q in runs[0]:
            want = theirs[q]
            assert ours[q] == pytest.approx(want, abs=1e-12), (method, q)
            if method != "bordafuse":  # ranx's candidates come from a Python set
                assert list(ours[q]) == list(want), (method, q)


def test_score_methods_after_borda_normalisation() -> None:
    runs = _fusion_runs()
    for method, params in SCORE_METHODS.items():
        theirs = quiet(ranx.fuse, [ranx.Run(r) for r in runs], norm="borda", method=method,
                       params=params)
        ours = drop_in.fuse([drop_in.Run(r) for r in runs], norm="borda", method=method,
                            params=params)
        for q in runs[0]:
            assert ours[q] == pytest.approx(theirs[q], abs=1e-12), (method, q)


@pytest.mark.parametrize("method", ["posfuse", "probfuse", "segfuse", "slidefuse", "mapfuse",
                                    "bayesfuse"])
def test_supervised_methods_learn_and_fuse_as_ranx(method: str) -> None:
    """On runs without ties (segfuse reads ranks and scores: its ties break by document id,
    see docs/compat.md)."""
    runs = []
    for seed in (4, 5):
        rng = np.random.default_rng(seed)
        runs.append({f"q{q}": dict(zip([f"d{i}" for i in rng.choice(40, 25, replace=False)],
                                       rng.random(25).tolist())) for q in range(10)})
    qrels = {q: {f"d{i}": 1 for i in range(0, 40, 3)} for q in runs[0]}
    train = {"probfuse": lambda m, q, r: {"probs": m.fusion.probfuse_train(q, r, 4)},
             "slidefuse": lambda m, q, r: {"probs": m.fusion.slidefuse_train(q, r), "w": 2}}
    learns = {"posfuse": "probs", "segfuse": "probs", "mapfuse": "map_scores",
              "bayesfuse": "log_odds"}
    import ranx.fusion

    def learned(module, qrels_obj, run_objs):
        if method in train:
            return train[method](module, qrels_obj, run_objs)
        return {learns[method]: getattr(module.fusion, f"{method}_train")(qrels_obj, run_objs)}

    their_runs, our_runs = [ranx.Run(r) for r in runs], [drop_in.Run(r) for r in runs]
    want = quiet(learned, ranx, quiet(ranx.Qrels, qrels), their_runs)
    got = learned(drop_in, drop_in.Qrels(qrels), our_runs)
    for key in want:
        np.testing.assert_allclose(np.asarray(got[key], dtype=float),
                                   np.asarray(want[key], dtype=float), rtol=0, atol=1e-12)
    theirs = quiet(ranx.fuse, their_runs, norm=None, method=method, params=want)
    ours = drop_in.fuse(our_runs, norm=None, method=method, params=got)
    for q in runs[0]:
        assert ours[q] == pytest.approx(theirs[q], abs=1e-12)
        if method != "slidefuse":
            assert list(ours[q]) == list(theirs[q])
        else:  # its window means differ in the last bit: exact ties in ranx can break
            along = [theirs[q][doc] for doc in ours[q]]
            assert (np.diff(along) <= 1e-12).all()


@pytest.mark.parametrize("method", ["wsum", "rrf", "gmnz", "rbc", "probfuse", "slidefuse"])
def test_optimize_fusion_chooses_ranx_parameters(method: str) -> None:
    runs = _fusion_runs()[:2]
    qrels = {q: {d: 1 for d in list(docs)[::4]} for q, docs in runs[0].items()}
    kwargs = {"step": 0.25} if method == "wsum" else {}
    want = quiet(ranx.optimize_fusion, ranx.Qrels(qrels), [ranx.Run(r) for r in runs],
                 method=method, metric="ndcg@10", show_progress=False,
                 return_optimization_report=True, **kwargs)
    got = drop_in.optimize_fusion(drop_in.Qrels(qrels), [drop_in.Run(r) for r in runs],
                                  method=method, metric="ndcg@10",
                                  return_optimization_report=True, **kwargs)
    assert {k: v for k, v in got[0].items() if k != "probs"} == \
        {k: v for k, v in want[0].items() if k != "probs"}
    assert got[1].configs == want[1].configs
    np.testing.assert_allclose(got[1].results, want[1].results, rtol=0, atol=1e-12)


def test_fusion_refuses_runs_of_other_queries() -> None:
    runs = [drop_in.Run({"q1": {"a": 1.0}}), drop_in.Run({"q2": {"a": 1.0}})]
    with pytest.raises(InputFormatError, match="query ids do not match"):
        drop_in.fuse(runs)
    with pytest.raises(InvalidParameterError, match="did you mean 'rrf'"):
        drop_in.fuse([runs[0], runs[0]], method="rff")


# where the drop-in departs from ranx (docs/compat.md, "What differs") -----------------------
def test_batch_bpref_after_a_query_with_nothing_relevant() -> None:
    qrels = {"a": {"f": 1, "x": 0}, "b": {"c": 0}, "c": {"f": 1, "x": 0}}
    run = {q: {"f": 1.0} for q in qrels}
    theirs = quiet(ranx.evaluate, ranx.Qrels(qrels), ranx.Run(run), "bpref", return_mean=False)
    alone = [quiet(ranx.evaluate, ranx.Qrels({q: qrels[q]}), ranx.Run({q: run[q]}), "bpref")
             for q in qrels]
    assert theirs.tolist() == [1.0, 0.0, 0.0] and alone == [1.0, 0.0, 1.0]
    assert drop_in.evaluate(drop_in.Qrels(qrels), drop_in.Run(run), "bpref",
                            return_mean=False).tolist() == alone


def test_plain_dicts_are_paired_by_query_id() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    run = {"q2": {"b": 1.0}, "q1": {"x": 1.0}}  # the other order
    assert quiet(ranx.evaluate, qrels, run, ["mrr", "map"], return_mean=False)["mrr"].tolist() \
        == [0.0, 0.0]  # ranx: q1's judgments against q2's ranking, q2's against q1's
    assert drop_in.evaluate(qrels, run, ["mrr", "map"], return_mean=False)["mrr"].tolist() == \
        [0.0, 1.0]


def test_plain_dicts_where_ranx_fails() -> None:
    qrels, run = {"q1": {"a": 1}, "q2": {"b": 1}}, {"q1": {"a": 1.0}, "q2": {"b": 2.0}}
    with pytest.raises(KeyError):  # ranx looks the values up under "mrr", not "mrr@5"
        quiet(ranx.evaluate, qrels, run, "mrr@5", return_mean=False)
    assert drop_in.evaluate(qrels, run, "mrr@5", return_mean=False).tolist() == [1.0, 1.0]
    with pytest.raises(Exception):  # noqa: B017 (numba's typing error)
        quiet(ranx.evaluate, qrels, {"q1": {"a": 1.0}, "q2": {}}, "mrr")
    assert drop_in.evaluate(qrels, {"q1": {"a": 1.0}, "q2": {}}, "mrr") == 0.5


def test_arrays_with_a_document_twice() -> None:
    qrels = [np.array([[1.0, 1.0], [2.0, 1.0]])]
    run = [np.array([[1.0, 0.9], [1.0, 0.8], [3.0, 0.7]])]  # document 1 twice
    assert quiet(ranx.evaluate, qrels, run, "hits@3") == 2.0  # ranx counts each copy
    assert drop_in.evaluate(qrels, run, "hits@3") == 1.0
    unsorted = [np.array([[1.0, 1.0], [2.0, 3.0]])]  # judgments not sorted by grade
    ranked = [np.array([[2.0, 1.0], [1.0, 1.0]])]
    assert quiet(ranx.evaluate, unsorted, ranked, "ndcg@2") > 1.0  # its ideal in given order
    assert drop_in.evaluate(unsorted, ranked, "ndcg@2") == 1.0


def test_student_p_value_with_no_difference() -> None:
    qrels = {f"q{i}": {"a": 1} for i in range(4)}
    runs = [{f"q{i}": {"a": 1.0} for i in range(4)} for _ in range(2)]
    theirs = quiet(ranx.compare, ranx.Qrels(qrels), [ranx.Run(r, name=f"m{i}")
                                                     for i, r in enumerate(runs)], "mrr")
    ours = drop_in.compare(drop_in.Qrels(qrels), [drop_in.Run(r, name=f"m{i}")
                                                  for i, r in enumerate(runs)], "mrr")
    assert np.isnan(theirs.to_dict()["m0"]["comparisons"]["m1"]["mrr"])
    assert ours.to_dict()["m0"]["comparisons"]["m1"]["mrr"] == 1.0
    assert str(ours) == str(theirs)  # not significant in both


def test_training_on_runs_that_retrieve_nothing_relevant() -> None:
    runs = [{"q1": {"a": 1.0, "b": 0.5}}, {"q1": {"b": 1.0}}]
    qrels = {"q1": {"z": 1}}
    learned = quiet(ranx.fusion.posfuse_train, ranx.Qrels(qrels), [ranx.Run(r) for r in runs])
    assert all(not p.any() for p in learned)  # ranx: zeros, every document ties
    with pytest.raises(InvalidParameterError, match="retrieve none of the 1 relevant"):
        drop_in_fusion.posfuse_train(drop_in.Qrels(qrels), [drop_in.Run(r) for r in runs])


def test_frames_with_string_columns_and_duplicate_lines(tmp_path: Path) -> None:
    import pandas as pd

    frame = pd.DataFrame({"q_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, 2.0]})
    with pytest.raises(AssertionError):  # ranx wants pandas' object dtype
        quiet(ranx.Run.from_df, frame)
    assert drop_in.Run.from_df(frame).run == {"q1": {"b": 2.0, "a": 1.0}}
    path = tmp_path / "run.trec"
    path.write_text("q1 Q0 a 1 2.0 x\nq1 Q0 a 2 1.0 x\n")
    assert quiet(ranx.Run.from_file, str(path)).to_dict() == {"q1": {"a": 1.0}}  # the last
    with pytest.raises(InputFormatError, match=r"run\.trec"):
        drop_in.Run.from_file(str(path))
