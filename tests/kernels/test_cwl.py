"""The C/W/L measures (and rbp) against cwl_eval 1.0.12: every quantity and its residual.

cwl_eval's own test files and their outputs (tests/data/cwl) run everywhere;
with ``RANKWISE_CWL_PYTHON`` naming a Python that imports ``cwl`` (PyPI
cwl-eval, which has no wheel of 1.0.12), cwl's metric classes also judge
random inputs. A residual is cwl_eval's best case minus its worst case:
rankwise's ``unjudged="bounds"`` width.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from strategies import random_collection

import rankwise as rw
from rankwise.measures import parse

DATA = Path(__file__).parents[1] / "data" / "cwl"
QUANTITIES = ("eu", "etu", "ec", "etc", "ed")

# cwl_eval's metric name -> rankwise's measure (None: rankwise gives only its value, EU)
NAMES = {
    "RBP@0.2": "rbp(p=0.2)", "RBP@0.4": "rbp(p=0.4)", "RBP@0.8": "rbp", "RBP@0.95": "rbp(p=0.95)",
    "INST-T=1": "inst", "INST-T=1.0": "inst", "INST-T=2": "inst(T=2)", "INST-T=2.0": "inst(T=2)",
    "INST-T=3": "inst(T=3)", "INST-T=3.0": "inst(T=3)",
    "INSQ-T=1.0": "insq", "INSQ-T=2.0": "insq(T=2)",
    "BPM-Static-T=1.0-K=10": "bpm", "BPM-Static-T=2.0-K=20": "bpm(T=2,K=20)",
    "TBG-H@22.0": "tbg(halflife=22)", "U-L@10": "umeasure(L=10)", "U-L@50": "umeasure(L=50)",
    "NDCG-k@10": "sdcg@10", "NDCG-k@5": "sdcg@5", "NERR-EQ8@k=10": "nerr8@10",
    "NERR-EQ9@k=10": "nerr9@10", "NERR-EQ10@phi=0.8": "nerr10(p=0.8)",
    "NERR-EQ11@T=2.0": "nerr11(T=2)",
}


def read_rows(path: Path) -> list[tuple[str, str, list[float]]]:
    rows = []
    for line in path.read_text().splitlines():
        fields = line.split("\t")
        if fields[0] == "Topic":
            continue
        rows.append((fields[0], fields[1].strip(), [float(x) for x in fields[2:]]))
    return rows


def expected_measures(rows: list, depth: int = 1000) -> list[tuple[str, str, int, float, bool]]:
    """(topic, rankwise measure, column, value, is a residual) for every row rankwise computes."""
    out = []
    for topic, metric, values in rows:
        name = NAMES.get(metric)
        if name is None:
            continue
        measure = parse(name)
        for column, value in enumerate(values):
            quantity = QUANTITIES[column % 5]
            if measure.name == "rbp":
                if quantity != "eu":
                    continue
                text = str(measure)
            else:
                text = str(measure.replace(quantity=quantity, depth=depth))
            out.append((topic, text, column, value, column >= 5))
    return out


def check(results: rw.Results, expected: list, tol: float) -> int:
    checked = 0
    for topic, name, _, value, residual in expected:
        got = results.value(name, topic)
        if residual:
            index = results.query_ids.index(topic)
            got = results.unjudged.high[name][index] - results.unjudged.low[name][index]
        assert got == pytest.approx(value, abs=tol), (topic, name, residual)
        checked += 1
    return checked


def test_cwl_test_files_every_quantity_and_residual() -> None:
    expected = expected_measures(read_rows(DATA / "cwl_full_issue16_metrics.out"))
    names = list(dict.fromkeys(name for _, name, _, _, _ in expected))
    results = rw.evaluate(DATA / "qrel_file", DATA / "result_file", names, unjudged="bounds")
    assert check(results, expected, 1e-12) == 3 * (2 * 2 + 14 * 10)


def test_cwl_default_metrics_output() -> None:
    # cwl-eval qrel_file result_file -n: its printed 4 decimals
    expected = expected_measures(read_rows(DATA / "cwl_default_metrics.out"))
    names = list(dict.fromkeys(name for _, name, _, _, _ in expected))
    results = rw.evaluate(DATA / "qrel_file", DATA / "result_file", names)
    assert check(results, expected, 5.1e-5) == 3 * (3 + 5 * 5)


def test_ir_measures_expectations() -> None:
    # ir_measures' tests/test_cwl_eval.py, "based on a manual execution of cwl-eval"
    expected = {
        "bpm(K=20)": [1.0, 1.0, 0.1667], "bpm(T=2)": [0.6667, 1.0, 0.2857],
        "insq": [0.5872, 0.6629, 0.0880], "insq(T=2)": [0.4513, 0.5068, 0.1292],
        "inst": [0.7934, 0.9226, 0.0888], "inst(T=2)": [0.5994, 0.6924, 0.1397],
        "rbp(p=0.9,rel=1)": [0.3501, 0.3996, 0.1988],
    }
    results = rw.evaluate(DATA / "qrel_file", DATA / "result_file", list(expected))
    for name, values in expected.items():
        np.testing.assert_allclose(results[name], values, atol=1e-4, err_msg=name)


def test_fractional_gains_and_max_grade() -> None:
    # gain_file holds gains 0, 0.2, 0.4, 0.8 and 1: the same as grades 0..5 with max_grade=5
    lines = [line.split() for line in (DATA / "gain_file").read_text().splitlines() if line]
    gains = {}
    for q, _, d, g in lines:
        gains.setdefault(q, {})[d] = float(g)
    grades = {q: {d: round(g * 5) for d, g in docs.items()} for q, docs in gains.items()}
    run = rw.read_run(DATA / "result_file")
    names = ["inst", "insq(T=2,quantity=etu)", "tbg(halflife=22,quantity=ed)"]
    a = rw.evaluate(gains, run, names)
    b = rw.evaluate(grades, run, [str(parse(n).replace(max_grade=5.0)) for n in names])
    for x, y in zip(a.measures, b.measures):
        np.testing.assert_allclose(a[x], b[y], atol=1e-15)


CWL_PYTHON = os.environ.get("RANKWISE_CWL_PYTHON")

_DRIVER = """
import json, sys
import numpy as np
from cwl.ruler.ranking import Ranking
from cwl.ruler.measures.cwl_rbp import RBPCWLMetric
from cwl.ruler.measures.cwl_inst import INSTCWLMetric
from cwl.ruler.measures.cwl_insq import INSQCWLMetric
from cwl.ruler.measures.cwl_bpm import BPMCWLMetric
from cwl.ruler.measures.cwl_tbg import TBGCWLMetric
from cwl.ruler.measures.cwl_umeasure import UMeasureCWLMetric
from cwl.ruler.measures.cwl_dcg import NDCGCWLMetric
from cwl.ruler.measures.cwl_nerr import (NERReq8CWLMetric, NERReq9CWLMetric, NERReq10CWLMetric,
                                         NERReq11CWLMetric)
job = json.load(sys.stdin)
out = {}
for topic, gains in job["gains"].items():
    gains = np.array([np.nan if g is None else g for g in gains], dtype=float)
    for key, (cls, args) in job["metrics"].items():
        metric = globals()[cls](*args)
        metric.residuals = True
        ranking = Ranking(topic, gains, np.ones(len(gains)), max_n=job["depth"])
        metric.measure(ranking)
        out[topic + "|" + key] = [
            metric.expected_utility, metric.expected_total_utility, metric.expected_cost,
            metric.expected_total_cost, metric.expected_items,
            metric.residual_expected_utility, metric.residual_expected_total_utility,
            metric.residual_expected_cost, metric.residual_expected_total_cost,
            metric.residual_expected_items]
json.dump(out, sys.stdout)
"""

_METRICS = {
    "rbp(p=0.9,rel=1)": ("RBPCWLMetric", [0.9]),
    "inst": ("INSTCWLMetric", [1.0]), "inst(T=2.5)": ("INSTCWLMetric", [2.5]),
    "insq": ("INSQCWLMetric", [1.0]), "insq(T=3)": ("INSQCWLMetric", [3.0]),
    "bpm": ("BPMCWLMetric", [1.0, 10]), "bpm(T=2,K=5)": ("BPMCWLMetric", [2.0, 5]),
    "tbg": ("TBGCWLMetric", [224.0]), "tbg(halflife=3)": ("TBGCWLMetric", [3.0]),
    "umeasure": ("UMeasureCWLMetric", [1000.0]), "umeasure(L=7)": ("UMeasureCWLMetric", [7.0]),
    "sdcg@10": ("NDCGCWLMetric", [10]), "sdcg@2": ("NDCGCWLMetric", [2]),
    "nerr8@10": ("NERReq8CWLMetric", [10]), "nerr8@3": ("NERReq8CWLMetric", [3]),
    "nerr9@10": ("NERReq9CWLMetric", [10]), "nerr9@4": ("NERReq9CWLMetric", [4]),
    "nerr10": ("NERReq10CWLMetric", [0.9]), "nerr10(p=0.5)": ("NERReq10CWLMetric", [0.5]),
    "nerr11": ("NERReq11CWLMetric", [1.0]), "nerr11(T=2.5)": ("NERReq11CWLMetric", [2.5]),
}


@pytest.mark.skipif(not CWL_PYTHON, reason="set RANKWISE_CWL_PYTHON to a Python with cwl-eval")
@pytest.mark.parametrize("seed", range(24))
def test_random_inputs_match_cwl_eval(seed: int) -> None:
    qrels, run = random_collection(seed, ties=seed % 2 == 0)
    depth = [1000, 12, 3][seed % 3]
    binary = seed % 4 == 1
    # graded: gains grade / 3 (negative grades: 0); rel=1: 1 for grade >= 1
    ranked = rw.evaluate(qrels, run, ["num_ret"])
    gains = {}
    for q in ranked.query_ids:
        docs = sorted(run[q].items(), key=lambda item: item[0].encode(), reverse=True)
        docs.sort(key=lambda item: -item[1])
        judged = qrels[q]
        gains[q] = [
            None if d not in judged else (float(judged[d] >= 1) if binary
                                          else max(judged[d], 0) / 3)
            for d, _ in docs
        ]
    job = {"gains": gains, "depth": depth, "metrics": _METRICS}
    done = subprocess.run([CWL_PYTHON, "-c", _DRIVER], input=json.dumps(job),
                          capture_output=True, text=True, check=True)
    expected = json.loads(done.stdout)
    names = []
    for key in _METRICS:
        measure = parse(key)
        if measure.name != "rbp":
            measure = measure.replace(**({"rel": 1.0} if binary else {"max_grade": 3.0}),
                                      depth=depth)
        names.append(measure)
    every = [m if m.name == "rbp" else m.replace(quantity=q) for m in names for q in QUANTITIES]
    results = rw.evaluate(qrels, run, list(dict.fromkeys(every)), unjudged="bounds")
    top = results.unjudged.top_grade
    for key, measure in zip(_METRICS, names):
        for i, q in enumerate(results.query_ids):
            values = expected[f"{q}|{key}"]
            for column, quantity in enumerate(QUANTITIES):
                if measure.name == "rbp" and (quantity != "eu" or depth != 1000 or not binary):
                    continue
                m = measure if measure.name == "rbp" else measure.replace(quantity=quantity)
                assert results[m][i] == pytest.approx(values[column], abs=1e-11), (q, m)
                if binary or top == 3:  # the bound's top grade is cwl's max gain, 1
                    width = results.unjudged.high[str(m)][i] - results.unjudged.low[str(m)][i]
                    assert width == pytest.approx(values[column + 5], abs=1e-11), (q, m)


_COST_DRIVER = """
import json, sys
from cwl.cwl_eval import read_in_cost_file
from cwl.seeker.trec_qrel_handler import TrecQrelHandler
from cwl.ruler.ranking import RankingMaker
from cwl.ruler.measures.cwl_inst import INSTCWLMetric
from cwl.ruler.measures.cwl_insq import INSQCWLMetric
from cwl.ruler.measures.cwl_bpm import BPMCWLMetric
from cwl.ruler.measures.cwl_tbg import TBGCWLMetric
from cwl.ruler.measures.cwl_umeasure import UMeasureCWLMetric
job = json.load(sys.stdin)
# cwl_eval's main(): the gain file, the cost file, the result file's blocks in file order
handler = TrecQrelHandler(job["gains"])
costs = read_in_cost_file(job["costs"])
blocks = {}
for line in open(job["results"]):
    topic, element_type, doc, _, _, _ = line.split()
    blocks.setdefault(topic, []).append((doc, element_type))
out = {}
for topic, rows in blocks.items():
    maker = RankingMaker(topic, handler, costs, max_gain=1.0, max_cost=1.0, min_cost=1.0,
                         max_n=job["depth"])
    for doc, element_type in rows:
        maker.add(doc, element_type)
    ranking = maker.get_ranking()
    for key, (cls, args) in job["metrics"].items():
        metric = globals()[cls](*args)
        metric.measure(ranking)
        out[topic + "|" + key] = [
            metric.expected_utility, metric.expected_total_utility, metric.expected_cost,
            metric.expected_total_cost, metric.expected_items]
json.dump(out, sys.stdout)
"""


@pytest.mark.skipif(not CWL_PYTHON, reason="set RANKWISE_CWL_PYTHON to a Python with cwl-eval")
@pytest.mark.parametrize("seed", range(16))
def test_random_cost_files_match_cwl_eval(seed: int, tmp_path: Path) -> None:
    """cwl_eval with a cost file for the run's element type (Q0): ``cost=c``."""
    qrels, run = random_collection(seed, ties=seed % 2 == 0)
    rng = np.random.default_rng(seed)
    cost = float(rng.choice([0.25, 0.5, 1.5, 2.0, 3.7, 7.0]))
    depth = [1000, 12, 40][seed % 3]
    (tmp_path / "gains").write_text("".join(
        f"{q} 0 {d} {max(g, 0) / 3!r}\n" for q, docs in qrels.items() for d, g in docs.items()))
    (tmp_path / "costs").write_text(f"Q0 {cost!r}\nX1 9.0\n")
    lines = []
    for q in rw.evaluate(qrels, run, ["num_ret"]).query_ids:  # rankwise's order, file order
        docs = sorted(run[q].items(), key=lambda item: item[0].encode(), reverse=True)
        docs.sort(key=lambda item: -item[1])
        lines += [f"{q} Q0 {d} {i} {s!r} r\n" for i, (d, s) in enumerate(docs, start=1)]
    (tmp_path / "results").write_text("".join(lines))
    metrics = {
        "inst": ("INSTCWLMetric", [1.0]), "insq(T=2)": ("INSQCWLMetric", [2.0]),
        "bpm(T=2,K=5)": ("BPMCWLMetric", [2.0, 5]), "bpm": ("BPMCWLMetric", [1.0, 10]),
        "tbg(halflife=3)": ("TBGCWLMetric", [3.0]), "tbg": ("TBGCWLMetric", [224.0]),
        "umeasure(L=7)": ("UMeasureCWLMetric", [7.0]), "umeasure": ("UMeasureCWLMetric", [1000.0]),
    }
    job = {"gains": str(tmp_path / "gains"), "costs": str(tmp_path / "costs"),
           "results": str(tmp_path / "results"), "depth": depth, "metrics": metrics}
    done = subprocess.run([CWL_PYTHON, "-c", _COST_DRIVER], input=json.dumps(job),
                          capture_output=True, text=True, check=True, cwd=tmp_path)
    expected = json.loads(done.stdout)
    names = {key: parse(key).replace(max_grade=3.0, depth=depth, cost=cost) for key in metrics}
    every = [m.replace(quantity=q) for m in names.values() for q in QUANTITIES]
    results = rw.evaluate(qrels, run, every)
    checked = 0
    for key, measure in names.items():
        for i, q in enumerate(results.query_ids):
            for column, quantity in enumerate(QUANTITIES):
                want = expected[f"{q}|{key}"][column]
                got = results[measure.replace(quantity=quantity)][i]
                assert got == pytest.approx(want, rel=1e-11, abs=1e-11), (q, key, quantity)
                checked += 1
    assert checked >= 5 * len(metrics) * 2


def test_cost_changes_what_it_should() -> None:
    qrels, run = {"q": {"a": 1, "b": 1}}, {"q": {"a": 2.0, "x": 1.0, "b": 0.5}}
    results = rw.evaluate(qrels, run, ["bpm(K=4,T=5)", "bpm(K=4,T=5,cost=2)", "insq",
                                       "insq(cost=2)", "insq(quantity=ec,cost=2)"])
    # K = 4: at cost 1 the user reads 4 documents (3 retrieved, one past the end); at cost 2,
    # 2 (cost through rank 2 = 4): BPM's EU = gain of the documents read / documents read
    assert results.mean["bpm(K=4,T=5)"] == pytest.approx(2 / 4)
    assert results.mean["bpm(K=4,T=5,cost=2)"] == pytest.approx(1 / 2)
    assert results.mean["insq"] == results.mean["insq(cost=2)"]  # C is gain- and cost-free
    assert 1 < results.mean["insq(cost=2,quantity=ec)"] < 2  # past the end: cost 1
