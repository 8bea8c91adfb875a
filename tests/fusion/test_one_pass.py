"""Fusion's C pass against the pure path, bit for bit.

With the C module, :func:`rankwise.fuse` takes the sums over runs (sum, mnz,
rrf, ...; no normalisation, min-max or max) straight from the runs' rows in
one pass, and aligns runs in C for the other methods. Without it
(``RANKWISE_NO_C=1``) numpy and pyarrow do the same work. The three must
give the same fused run: the same queries, documents, order and scores, to
the last bit, on the awkward inputs of ``strategies.fusion_runs`` (ties,
partly disjoint documents, empty runs and queries, ids of 0 to 8 bytes and
longer, runs not grouped by query, long lists) and on runs read back from
TREC files (in rank order: ranks are then positions, where no scores tie).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from strategies import fusion_runs

import rankwise as rw
import rankwise.fusion
from rankwise._compiled import load
from rankwise.fusion import METHODS, NORMALISATIONS, fuse, normalise_runs

ALIGN = sys.modules["rankwise.fusion.align"]
CFUSE = load("rankwise.fusion._cfuse")
pytestmark = pytest.mark.skipif(CFUSE is None, reason="rankwise.fusion._cfuse is not built")

_ONE_PASS = [name for name, method in METHODS.items() if method.row_sum is not None]


def _params(method: str, n_runs: int) -> dict:
    weights = [0.5, 2.0, 1.25, 0.75][:n_runs]
    probs = [[0.5, 0.25, 0.125, 0.3, 0.0, 0.6][: 3 + r] for r in range(n_runs)]
    return {
        "gmnz": {"gamma": 0.7}, "wsum": {"weights": weights}, "wmnz": {"weights": weights},
        "mixed": {"weights": weights}, "w_bordafuse": {"weights": weights},
        "w_condorcet": {"weights": weights}, "rbc": {"phi": 0.8}, "posfuse": {"probs": probs},
        "probfuse": {"probs": [row[:3] for row in probs]},
        "segfuse": {"probs": [[0.3, 0.2, 0.1, 0.05, 0, 0, 0, 0, 0, 0.01]] * n_runs},
        "slidefuse": {"probs": probs, "w": 2}, "mapfuse": {"map_scores": weights},
        "bayesfuse": {"log_odds": [list(np.linspace(-1, -5, 1000))] * n_runs},
        "rrf": {"k": 0} if n_runs == 2 else {"k": 60},
        "logn_isr": {"sigma": 0.3},
    }.get(method, {})


def _runs(seed: int, n_runs: int = 3) -> list[rw.Run]:
    return [rw.Run.from_arrow(q, d, s, name=f"r{i}", check_duplicates=False)
            for i, (q, d, s) in enumerate(fusion_runs(seed, n_runs=n_runs))]


def _from_trec(runs: list[rw.Run], folder: Path) -> list[rw.Run]:
    out = []
    for index, run in enumerate(runs):
        keep = np.array([i for i, doc in enumerate(run.doc_ids.to_pylist())
                         if doc and doc.isprintable()], dtype=np.int64)
        if not len(keep):  # nothing to write
            out.append(run)
            continue
        table = run.to_arrow()
        kept = rw.Run.from_arrow(table["query_id"].take(keep), table["doc_id"].take(keep),
                                 run.scores[keep], name=run.name)
        path = folder / f"run{index}.trec"
        kept.to_trec(path)
        out.append(rw.read_run(path))
    return out


def _dump(run: rw.Run) -> tuple:
    return (run.name, run.query_ids, run.query_codes.tolist(), run.doc_ids.to_pylist(),
            run.scores.tobytes())


def _three_ways(monkeypatch: pytest.MonkeyPatch, runs: list[rw.Run], method: str,
                norm: str | None, params: dict) -> tuple:
    """The fused run from the C pass, from C alignment, and without C: all equal."""
    one_pass = _dump(fuse(runs, method, norm=norm, **params))
    with monkeypatch.context() as patch:
        patch.setattr(rankwise.fusion, "one_pass", lambda *args: None)
        aligned = _dump(fuse(runs, method, norm=norm, **params))
    with monkeypatch.context() as patch:
        patch.setenv("RANKWISE_NO_C", "1")
        pure = _dump(fuse(runs, method, norm=norm, **params))
    assert one_pass == aligned, (method, norm)
    assert one_pass == pure, (method, norm)
    return one_pass


@pytest.mark.parametrize("seed", range(8))
def test_every_method_the_same_with_and_without_c(monkeypatch: pytest.MonkeyPatch,
                                                  seed: int) -> None:
    runs = _runs(seed, n_runs=2 + seed % 3)
    fused_something = False
    for method in METHODS:
        for norm in (None, "min-max", "max"):
            params = _params(method, len(runs))
            fused_something |= len(_three_ways(monkeypatch, runs, method, norm, params)[3]) > 0
    for norm in NORMALISATIONS:
        for method in ("sum", "mnz", "rrf", "bordafuse"):
            _three_ways(monkeypatch, runs, method, norm, _params(method, len(runs)))
    assert fused_something


@pytest.mark.parametrize("seed", range(8, 14))
def test_runs_read_from_trec_files(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                   seed: int) -> None:
    runs = _from_trec(_runs(seed), tmp_path)
    assert all(run.rank_order_blocks is not None for run in runs if len(run))
    for method in _ONE_PASS:
        for norm in (None, "min-max", "max"):
            _three_ways(monkeypatch, runs, method, norm, _params(method, len(runs)))


def test_normalised_runs_the_same_with_and_without_c(monkeypatch: pytest.MonkeyPatch) -> None:
    for seed in range(4):
        runs = _runs(seed)
        for norm in NORMALISATIONS:
            with_c = [_dump(run) for run in normalise_runs(runs, norm)]
            with monkeypatch.context() as patch:
                patch.setenv("RANKWISE_NO_C", "1")
                assert [_dump(run) for run in normalise_runs(runs, norm)] == with_c, norm


def test_queries_split_over_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    runs = _runs(3) + _runs(5)
    runs = [run.with_name(f"r{i}") for i, run in enumerate(runs)]
    single = {m: _dump(fuse(runs, m, **_params(m, len(runs)))) for m in ("rrf", "mnz", "med")}
    monkeypatch.setattr(ALIGN, "ROWS_PER_PART", 7)
    monkeypatch.setattr(sys.modules["rankwise._threads"], "cores", lambda: 3)
    where = ALIGN.layout(tuple(runs))
    assert len(where.query_ids) >= 3  # three parts
    for method, want in single.items():
        assert _dump(fuse(runs, method, **_params(method, len(runs)))) == want, method


def test_weights_and_empty_inputs(monkeypatch: pytest.MonkeyPatch) -> None:
    a = rw.Run.from_dict({"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 1.0}})
    b = rw.Run.from_dict({"q3": {"d1": 0.5}})
    empty = rw.Run.from_arrow([], [], [])
    for method, params in (("wsum", {"weights": [0.3, -2.0, 0.0]}),
                           ("mixed", {"weights": [1.5, 0.25, 7.0]}), ("mnz", {})):
        for norm in (None, "min-max", "max"):
            got = _three_ways(monkeypatch, [a, b, empty], method, norm, params)
            assert got[1] == ["q1", "q2", "q3"]
    assert _three_ways(monkeypatch, [empty, empty], "rrf", None, {})[3] == []


def test_a_document_twice_is_reported_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    twice = rw.Run.from_arrow(["q", "p", "q", "q"], ["a", "a", "b", "a"], [1.0, 2.0, 3.0, 4.0],
                              check_duplicates=False)
    other = rw.Run.from_dict({"q": {"a": 1.0}})
    messages = set()
    for method in ("rrf", "mnz", "med"):
        for env in ("0", "1"):
            with monkeypatch.context() as patch:
                patch.setenv("RANKWISE_NO_C", env)
                with pytest.raises(rw.DuplicateEntryError) as error:
                    fuse([other, twice], method)
                messages.add(str(error.value))
    assert len(messages) == 1 and "'a' twice for query 'q'" in messages.pop()


def test_the_c_module_refuses_what_it_cannot_read() -> None:
    run = rw.Run.from_dict({"q": {"a": 1.0, "b": 2.0}})
    chunks = [chunk.as_buffers() for chunk in
              sys.modules["rankwise.data._strings"].string_chunks(run.doc_column)]
    one = np.zeros(1, dtype=np.int64)
    room = np.empty(2, dtype=np.int64)

    def spec(begin: int, end: int, values: object = None, kind: int = 0) -> tuple:
        return (np.array([begin]), np.array([end]), None, chunks, values, kind, 0.0, None, None)

    with pytest.raises(ValueError, match="out of range"):
        CFUSE.scan(0, 1, [spec(0, 3)], one, room, None, None)
    with pytest.raises(ValueError, match="float64 or int64"):
        CFUSE.scan(0, 1, [spec(0, 2, np.zeros(2, np.float32), 1)], one, room, None, None)
    with pytest.raises(ValueError, match="too little room"):
        CFUSE.scan(0, 1, [spec(0, 2)], one, np.empty(1, np.int64), None, None)
    assert CFUSE.scan(0, 1, [spec(0, 2)], one, room, None, None) == 2
    with pytest.raises(ValueError, match="out of range"):
        CFUSE.gather(np.array([(1 << 40) | 0]), [chunks], np.empty(2, np.int32))
    offsets = np.empty(3, np.int32)
    assert CFUSE.gather(room, [chunks], offsets) == b"ab" and offsets.tolist() == [0, 1, 2]
