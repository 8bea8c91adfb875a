"""compat against the reference implementation; NCG@k and judged@k against their definitions.

The reference's outputs on ir_measures' test data (tests/data/compat) run
everywhere; with ``RANKWISE_COMPAT`` naming claclark/Compatibility's
``compatibility.py`` it also judges random inputs. NCG has no reference
implementation (ir_measures issue #19): it is checked against its formula.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from strategies import collections, random_collection

import rankwise as rw
from rankwise.measures import parse

DATA = Path(__file__).parents[1] / "data" / "compat"


def read_compat(text: str) -> dict[str, float]:
    rows = {}
    for line in text.strip().splitlines()[1:]:
        _, topic, value = line.split(",")
        rows[topic] = float(value)
    return rows


@pytest.mark.parametrize(("p", "output"), [(0.95, "compat_p095.out"), (0.9, "compat_p090.out"),
                                           (0.8, "compat_p080.out")])
@pytest.mark.parametrize("ties", ["ascending", "trec"])
def test_compat_reference_outputs(p: float, output: str, ties: str) -> None:
    expected = read_compat((DATA / output).read_text())
    name = str(parse(f"compat(p={p})"))
    results = rw.evaluate(DATA / "compat.qrels", DATA / "compat.run", [name], ties=ties)
    for topic, value in expected.items():
        if topic == "average":
            assert results.mean[name] == pytest.approx(value, abs=1e-12)
        else:
            assert results.value(name, topic) == pytest.approx(value, abs=1e-12), topic
    if p == 0.95:  # ir_measures' tests/test_compat.py
        assert results.mean[name] == pytest.approx(0.268097611, abs=1e-9)


COMPAT = os.environ.get("RANKWISE_COMPAT")


@pytest.mark.skipif(not COMPAT, reason="set RANKWISE_COMPAT to compatibility.py")
@pytest.mark.parametrize("seed", range(30))
def test_random_inputs_match_the_reference(seed: int, tmp_path: Path) -> None:
    qrels, run = random_collection(seed, ties=seed % 2 == 0)
    p = [0.95, 0.5, 0.8][seed % 3]
    qpath, rpath = tmp_path / "qrels", tmp_path / "run"
    qpath.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items()
                             for d, g in docs.items()))
    rpath.write_text("".join(f"{q} Q0 {d} 1 {s!r} r\n" for q, docs in run.items()
                             for d, s in docs.items()))
    output = subprocess.run([sys.executable, COMPAT, "-p", str(p), str(qpath), str(rpath)],
                            capture_output=True, text=True, check=True).stdout
    expected = read_compat(output)
    expected.pop("average", None)
    name = str(parse(f"compat(p={p})"))
    results = rw.evaluate(qpath, rpath, [name, "num_rel(rel=0.5)"], ties="ascending")
    for i, q in enumerate(results.query_ids):
        if q in expected:
            assert results[name][i] == pytest.approx(expected[q], abs=1e-12), q
        else:  # the reference leaves out queries without a document of positive grade
            assert results["num_rel(rel=0.5)"][i] == 0 and results[name][i] == 0.0


def test_compat_by_hand() -> None:
    # run a, x, b; ideal b (grade 2), a (grade 1); depth 3, p = 0.5
    qrels, run = {"q": {"a": 1, "b": 2}}, {"q": {"a": 3.0, "x": 2.0, "b": 1.0}}
    weights = np.array([1.0, 0.5, 0.25])
    overlap_run = np.array([0, 1, 2]) / np.arange(1, 4)  # |{a,x,b}[:i] & {b,a}[:i]| / i
    overlap_ideal = np.array([1, 2, 2]) / np.arange(1, 4)
    expected = (weights @ overlap_run) / (weights @ overlap_ideal)
    results = rw.evaluate(qrels, run, ["compat(p=0.5,depth=3)",
                                       "compat(p=0.5,depth=3,normalize=false)"])
    assert results.mean["compat(depth=3,p=0.5)"] == pytest.approx(expected)
    assert results.mean["compat(depth=3,normalize=false,p=0.5)"] == pytest.approx(
        (weights @ overlap_run) / weights.sum())


def ncg_reference(qrels: dict, run: dict, k: int | None, exp: bool = False) -> dict:
    def gain(g: float) -> float:
        g = max(g, 0.0)
        return 2.0**g - 1.0 if exp else g

    out = {}
    for q, judged in qrels.items():
        if q not in run:
            continue
        docs = sorted(run[q].items(), key=lambda item: item[0].encode(), reverse=True)
        docs.sort(key=lambda item: -item[1])
        found = sum(gain(judged.get(d, 0)) for d, _ in docs[:k])
        best = sum(sorted((gain(g) for g in judged.values()), reverse=True)[:k])
        out[q] = found / best if best > 0 else 0.0
    return out


@pytest.mark.parametrize("seed", range(30))
def test_ncg_follows_its_definition(seed: int) -> None:
    qrels, run = random_collection(seed, ties=seed % 2 == 0)
    k = [None, 1, 5, 20][seed % 4]
    exp = seed % 3 == 0
    name = str(parse("ncg" + (f"@{k}" if k else "") + ("(gain=exp)" if exp else "")))
    results = rw.evaluate(qrels, run, [name])
    expected = ncg_reference(qrels, run, k, exp)
    for i, q in enumerate(results.query_ids):
        assert results[name][i] == pytest.approx(expected[q], abs=1e-12), q


@settings(max_examples=80, deadline=None)
@given(collections())
def test_ncg_and_compat_lie_in_zero_one(data) -> None:
    qrels, run = data
    results = rw.evaluate(qrels, run, ["ncg@3", "ncg", "compat", "compat(p=0.5,depth=4)"])
    for name in results:
        assert np.all(results[name] >= 0) and np.all(results[name] <= 1 + 1e-12), name
    perfect = {q: {d: float(g) + 10 for d, g in docs.items()} for q, docs in qrels.items()}
    best = rw.evaluate(qrels, perfect, ["ncg@3", "compat"])
    has_rel = np.array([max(qrels[q].values()) >= 1 for q in best.query_ids])
    assert np.allclose(best["ncg@3"][has_rel], 1.0) and np.allclose(best["compat"][has_rel], 1.0)


def test_judged_as_ir_measures_judged() -> None:
    # ir_measures' tests/test_judged.py: Judged divides by min(k, retrieved), ties by docno
    qrels = {"0": {"D0": 0, "D1": 1, "D2": 1, "D3": 2, "D4": 0}, "1": {"D0": 1, "D3": 2, "D5": 2}}
    run = {"0": {"D0": 0.8, "D2": 0.7, "D1": 0.3, "D3": 0.4, "D4": 0.1},
           "1": {"D1": 0.8, "D3": 0.7, "D4": 0.3, "D2": 0.4}}
    expected = {"judged(denominator=retrieved)": [1.0, 1 / 4],
                "judged@1000(denominator=retrieved)": [1.0, 1 / 4],
                "judged@10(denominator=retrieved)": [1.0, 1 / 4],
                "judged@3(denominator=retrieved)": [1.0, 1 / 3],
                "judged@1(denominator=retrieved)": [1.0, 0.0],
                "judged@10": [0.5, 0.1], "judged": [1.0, 1 / 4]}
    results = rw.evaluate(qrels, run, list(expected), ties="ascending")
    for name, values in expected.items():
        assert results[name].tolist() == pytest.approx(values), name
