"""ERR@k, nERR@k and gdeval's nDCG@k against gdeval.pl (TREC Web track 2010-2014).

The checked-in outputs of gdeval.pl (tests/data/gdeval) run everywhere; with
``RANKWISE_GDEVAL`` naming gdeval.pl (and perl on the path) it also judges
random inputs with ties, negative grades and unjudged documents. gdeval has
no nERR: nERR@k is checked against a restatement of its definition.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from strategies import collections, random_collection

import rankwise as rw
from rankwise.exceptions import InvalidParameterError

DATA = Path(__file__).parents[1] / "data" / "gdeval"


def read_output(text: str) -> tuple[dict[str, tuple[float, float]], float]:
    """gdeval's CSV (``runid,topic,ndcg@k,err@k``): topic -> (ndcg, err), and the tolerance."""
    lines = text.strip().splitlines()
    assert lines[0].split(",")[2].startswith("ndcg@")
    rows, digits = {}, 0
    for line in lines[1:]:
        _, topic, ndcg, err = line.split(",")
        rows[topic] = (float(ndcg), float(err))
        digits = max([digits, *(len(x.split(".")[-1]) for x in (ndcg, err) if "." in x)])
    return rows, 1e-12 if digits >= 15 else 0.51 * 10.0**-digits + 1e-12


def assert_matches(results: rw.Results, k: int, text: str) -> None:
    rows, tol = read_output(text)
    amean = rows.pop("amean", None)
    for topic, (ndcg, err) in rows.items():
        assert results.value(f"ndcg@{k}", topic) == pytest.approx(ndcg, abs=tol), topic
        assert results.value(f"err@{k}", topic) == pytest.approx(err, abs=tol), topic
    # gdeval leaves out the queries without a relevant judgment; rankwise scores them 0
    skipped = [q for q in results.query_ids if q not in rows]
    for topic in skipped:
        assert results.value(f"ndcg@{k}", topic) == results.value(f"err@{k}", topic) == 0.0
    if amean is not None:
        kept = np.array([q in rows for q in results.query_ids])
        assert results[f"ndcg@{k}"][kept].mean() == pytest.approx(amean[0], abs=tol)
        assert results[f"err@{k}"][kept].mean() == pytest.approx(amean[1], abs=tol)


@pytest.mark.parametrize(
    ("qrels", "run", "k", "output"),
    [
        ("gdeval_test.qrels", "gdeval_test.run", 20, "gdeval_k20.out"),
        ("gdeval_test.qrels", "gdeval_test.run", 20, "gdeval_fullprec_k20.out"),
        ("gdeval_test.qrels", "gdeval_test.run", 2, "gdeval_k2.out"),
        ("qrels.web.151-200.txt.gz", "results-2012-rm-cata-filtered.txt.gz", 10,
         "gdeval_2012_rm_k10.out"),
        ("qrels.web.151-200.txt.gz", "results-2012-rm-cata-filtered.txt.gz", 20,
         "gdeval_2012_rm_k20.out"),
        ("qrels.web.151-200.txt.gz", "results-2012-rm-cata-filtered.txt.gz", 20,
         "gdeval_fullprec_2012_rm_k20.out"),
    ],
)
def test_gdeval_outputs(qrels: str, run: str, k: int, output: str) -> None:
    results = rw.evaluate(DATA / qrels, DATA / run, [f"ndcg@{k}", f"err@{k}"])
    assert_matches(results, k, (DATA / output).read_text())


def test_ir_measures_expectation() -> None:
    # ir_measures' tests/test_gdeval.py: nDCG@20 0.62010 and 0.35099, ERR@20 0.10175 and
    # 0.09375 (gdeval's 5 decimals)
    results = rw.evaluate(DATA / "gdeval_test.qrels", DATA / "gdeval_test.run",
                          ["ndcg@20", "err@20"])
    assert results["ndcg@20"].round(5).tolist() == [0.6201, 0.35099]
    assert results["err@20"].round(5).tolist() == [0.10175, 0.09375]


GDEVAL = os.environ.get("RANKWISE_GDEVAL")


@pytest.mark.skipif(not GDEVAL or not shutil.which("perl"),
                    reason="set RANKWISE_GDEVAL to gdeval.pl (needs perl)")
@pytest.mark.parametrize("seed", range(30))
def test_random_inputs_match_gdeval(seed: int, tmp_path: Path) -> None:
    qrels, run = random_collection(seed, ties=seed % 2 == 0)
    number = {q: str(i + 1) for i, q in enumerate(sorted(set(qrels) | set(run)))}
    qrels = {number[q]: docs for q, docs in qrels.items()}  # gdeval reads numeric topics
    run = {number[q]: docs for q, docs in run.items()}
    qpath, rpath = tmp_path / "qrels", tmp_path / "run"
    qpath.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items()
                             for d, g in docs.items()))
    rpath.write_text("".join(f"{q} Q0 {d} {i} {s!r} run\n" for q, docs in run.items()
                             for i, (d, s) in enumerate(docs.items(), start=1)))
    for k in (1, 5, 20):
        output = subprocess.run(["perl", str(GDEVAL), "-k", str(k), str(qpath), str(rpath)],
                                capture_output=True, text=True, check=True).stdout
        results = rw.evaluate(qpath, rpath, [f"ndcg@{k}", f"err@{k}"])
        assert_matches(results, k, output)


# -- nERR: a restatement of its definition ----------------------------------------------------


def err_of(grades: list[float], k: int | None, max_grade: float) -> float:
    value, survive = 0.0, 1.0
    for i, g in enumerate(grades[:k] if k else grades, start=1):
        r = (2.0 ** max(g, 0.0) - 1.0) / 2.0**max_grade
        value += r * survive / i
        survive *= 1.0 - r
    return value


def reference(qrels: dict, run: dict, k: int | None, max_grade: float = 4) -> dict:
    """ERR@k and nERR@k of each judged query in the run, from the formulas, per query."""
    out = {}
    for q, judged in qrels.items():
        if q not in run:
            continue
        docs = sorted(run[q].items(), key=lambda item: item[0].encode(), reverse=True)
        docs.sort(key=lambda item: -item[1])  # score descending, ties docno descending
        ranked = [judged.get(d, 0) for d, _ in docs]
        ideal = sorted(judged.values(), reverse=True)
        err, best = err_of(ranked, k, max_grade), err_of(ideal, k, max_grade)
        out[q] = (err, err / best if best > 0 else 0.0)
    return out


@pytest.mark.parametrize("seed", range(40))
def test_err_and_nerr_follow_their_definition(seed: int) -> None:
    qrels, run = random_collection(seed, ties=seed % 2 == 0)
    k = [None, 1, 3, 10][seed % 4]
    max_grade = [4, 3, 5][seed % 3]
    suffix = f"@{k}" if k else ""
    param = f"(max_grade={max_grade})" if max_grade != 4 else ""
    results = rw.evaluate(qrels, run, [f"err{suffix}{param}", f"nerr{suffix}{param}"])
    expected = reference(qrels, run, k, max_grade)
    for i, q in enumerate(results.query_ids):
        err, nerr = expected[q]
        assert results[f"err{suffix}{param}"][i] == pytest.approx(err, abs=1e-14), q
        assert results[f"nerr{suffix}{param}"][i] == pytest.approx(nerr, abs=1e-12), q


@settings(max_examples=100, deadline=None)
@given(collections())
def test_nerr_lies_in_zero_one_and_a_perfect_ranking_scores_one(data) -> None:
    qrels, run = data
    results = rw.evaluate(qrels, run, ["nerr@5", "nerr", "err@5"])
    for name in results:
        assert np.all(results[name] >= 0) and np.all(results[name] <= 1 + 1e-12), name
    perfect = {q: {d: float(g) + 10 for d, g in docs.items()} for q, docs in qrels.items()}
    ideal = rw.evaluate(qrels, perfect, ["nerr@3", "nerr"])
    has_rel = np.array([max(qrels[q].values()) >= 1 for q in ideal.query_ids])
    assert np.allclose(ideal["nerr@3"][has_rel], 1.0) and np.allclose(ideal["nerr"][has_rel], 1.0)


def test_a_grade_above_max_grade_is_refused_with_the_remedy() -> None:
    qrels, run = {"q": {"a": 5, "b": 1}}, {"q": {"a": 1.0, "b": 2.0}}
    with pytest.raises(InvalidParameterError, match=r"err@10\(max_grade=5\)"):
        rw.evaluate(qrels, run, ["err@10"])
    value = rw.evaluate(qrels, run, ["err@10(max_grade=5)"]).mean["err@10(max_grade=5)"]
    assert value == pytest.approx(1 / 32 + (1 - 1 / 32) * 31 / 32 / 2)
    assert not math.isnan(value)
