"""Every dialect against its tool's own output, on the stored 1,040-query fixture.

The tools' per-query values (and their own means) were computed by running
them (tests/dialects/make_fixtures.py; versions in
tests/data/dialects/provenance.json), so these tests check rankwise against
the tools whether or not they are installed. test_tools_live.py runs the
installed tools again.

Where a tool gives no value (it refuses the input: LightGBM and
scikit-learn's ndcg_score with a negative grade, scikit-learn with a list of
one document) nothing is compared. Where the tool's order of tied documents
is not specified (torchmetrics' MAP, MRR, P, recall and hit rate), queries
with tied scores are left out; ranx's order (numba's quicksort, not stable
beyond 15 documents) is reproduced, so all its queries are compared.
Everything else is compared: 1e-9, and 1e-6 where the tool computes in
float32 (torchmetrics' nDCG; relative to the value beyond 1, which nDCG with
negative grades reaches).
"""

from __future__ import annotations

import csv
import gzip
import json
import math
from pathlib import Path

import numpy as np
import pytest

import rankwise as rw

DATA = Path(__file__).resolve().parents[1] / "data" / "dialects"

TOLERANCE = {"torchmetrics": 1e-6}
"""Absolute tolerance per tool (1e-9 for the others)."""

DIALECT_OF_FILE = {
    "sklearn": "sklearn", "lightgbm": "lightgbm", "xgboost": "xgboost", "catboost": "catboost",
    "torchmetrics": "torchmetrics", "ranx": "ranx", "recommenders": "recommenders",
    "beir": "beir", "pytrec_eval": "mteb", "spark": "spark", "gdeval": "gdeval",
}


def load_fixture() -> tuple[dict, dict]:
    with gzip.open(DATA / "fixture.json.gz", "rt", encoding="utf-8") as handle:
        data = json.load(handle)
    return data["qrels"], data["run"]


def load_values(tool: str) -> dict[str, dict[str, float]]:
    with gzip.open(DATA / f"{tool}.csv.gz", "rt", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    header, body = rows[0], rows[1:]
    values: dict[str, dict[str, float]] = {m: {} for m in header[1:]}
    for row in body:
        for measure, cell in zip(header[1:], row[1:]):
            values[measure][row[0]] = float(cell) if cell else math.nan
    return values


@pytest.fixture(scope="module")
def fixture() -> tuple[dict, dict]:
    return load_fixture()


def _tied(run: dict, *, float32: bool) -> set[str]:
    """Queries with two equal scores (in float32 when asked)."""
    out = set()
    for query, ranking in run.items():
        scores = np.array(list(ranking.values()), dtype=np.float32 if float32 else np.float64)
        if len(np.unique(scores)) < len(scores):
            out.add(query)
    return out


def _ties_decide(qrels: dict, run: dict, *, float32: bool, binary: bool) -> set[str]:
    """Queries where the order of tied documents can change a value: a tie group holding
    two different labels (grades; or relevance, with documents scored <= 0 not relevant,
    for torchmetrics' binary measures)."""
    out = set()
    for query, ranking in run.items():
        judged = qrels.get(query, {})
        groups: dict[float, set[float]] = {}
        for doc, score in ranking.items():
            key = float(np.float32(score)) if float32 else score
            label = judged.get(doc, 0)
            if binary:
                label = float(label >= 1 and key > 0)
            groups.setdefault(key, set()).add(label)
        if any(len(labels) > 1 for labels in groups.values()):
            out.add(query)
    return out


def _excluded(tool: str, measure: str, fixture: tuple[dict, dict]) -> set[str]:
    """Queries whose value the tool leaves unspecified (its tie order is not defined)."""
    qrels, run = fixture
    family = measure.split("(")[0].split("@")[0]
    if tool == "torchmetrics" and family != "ndcg":
        return _ties_decide(qrels, run, float32=True, binary=True)
    return set()


def compare(tool: str, fixture: tuple[dict, dict],
            stored: dict[str, dict[str, float]] | None = None,
            tolerance: float | None = None) -> dict[str, int]:
    """Compare every measure of *tool* (stored, or the values given); return the number of
    queries compared for each."""
    qrels, run = fixture
    stored = load_values(tool) if stored is None else stored
    results = rw.evaluate(qrels, run, list(stored))
    tolerance = TOLERANCE.get(tool, 1e-9) if tolerance is None else tolerance
    compared = {}
    for measure, per_query in stored.items():
        ours = dict(zip(results.query_ids, results[measure].tolist()))
        skip = _excluded(tool, measure, fixture)
        count = 0
        for query, theirs in per_query.items():
            if query not in ours or query in skip:
                continue
            mine = ours[query]
            if math.isnan(theirs):
                # a query left out; ranx: bpref without a judged non-relevant document (0/0)
                if tool in ("recommenders", "torchmetrics", "gdeval", "ranx"):
                    assert math.isnan(mine), (measure, query, mine)
                    count += 1
                continue
            if tool == "beir":  # BEIR rounds its means (here: of one query) to 5 decimals
                assert round(mine, 5) == theirs, (measure, query, mine, theirs)
            else:  # relative beyond 1 (nDCG with negative grades can be -6)
                assert abs(mine - theirs) <= tolerance * max(1.0, abs(theirs)), (
                    measure, query, mine, theirs)
            count += 1
        compared[measure] = count
    return compared


def test_the_fixture_has_every_case(fixture: tuple[dict, dict]) -> None:
    qrels, run = fixture
    both = [q for q in qrels if q in run]
    assert len(both) >= 1000
    assert any(all(g == 0 for g in qrels[q].values()) for q in both)  # nothing relevant
    assert any(min(qrels[q].values()) < 0 for q in both)  # negative grades
    assert len(_tied(run, float32=False)) > 100  # ties
    assert len(_tied(run, float32=True) - _tied(run, float32=False)) > 10  # float32 ties
    assert sum(len(run[q]) < 20 for q in both) > 500  # k = 20 past the list
    assert any(q not in run for q in qrels) and any(q not in qrels for q in run)


@pytest.mark.parametrize("tool", sorted(DIALECT_OF_FILE))
def test_per_query_values_equal_the_tools(tool: str, fixture: tuple[dict, dict]) -> None:
    if not (DATA / f"{tool}.csv.gz").exists():
        pytest.fail(f"no stored outputs of {tool}: run tests/dialects/make_fixtures.py "
                    f"--tools {tool}")
    compared = compare(tool, fixture)
    assert compared
    # every measure compared on at least 1,000 queries, but where the tool leaves some out:
    # negative grades (LightGBM; scikit-learn's ndcg_score; XGBoost's exponential gain), one
    # document (scikit-learn), tied documents of different labels (torchmetrics' binary
    # measures), nothing relevant (recommenders)
    floor = {"torchmetrics": 400, "recommenders": 700, "sklearn": 850, "lightgbm": 850,
             "xgboost": 850,
             "spark": 390}  # a Spark job per value: 400 queries one by one (means: all)
    for measure, count in compared.items():
        assert count >= floor.get(tool, 1000), (measure, count)


MEANS = ["lightgbm", "xgboost", "catboost", "torchmetrics", "ranx", "recommenders", "beir",
         "spark", "gdeval"]


@pytest.mark.parametrize("tool", MEANS)
def test_means_equal_the_tools_own_means(tool: str, fixture: tuple[dict, dict]) -> None:
    """The tool's mean over the whole fixture, as it prints it, equals rankwise's mean."""
    from tools import defined_part

    qrels, run = defined_part(tool, *fixture)
    means = json.loads((DATA / f"{tool}.means.json").read_text())
    # Spark was given every judged query (those not retrieved with an empty ranking)
    missing = "zero" if tool == "spark" else "skip"
    results = rw.evaluate(qrels, run, list(means), missing=missing)
    for measure, theirs in means.items():
        if tool == "lightgbm":  # LightGBM refuses negative grades: its mean is over the rest
            keep = [i for i, q in enumerate(results.query_ids)
                    if q in run and not any(qrels[q].get(d, 0) < 0 for d in run[q])]
            mine = float(np.mean(results[measure][keep]))
        else:
            mine = results.mean[measure]
        tolerance = 1e-6 if tool == "torchmetrics" else 1e-9
        assert abs(mine - theirs) <= tolerance, (measure, mine, theirs)


def test_recommenders_map_at_k_is_among_the_compared_measures() -> None:
    """Recommenders' map_at_k (1.2.1: divided by min(R, k), its issues #1702, #2091, #2309)
    and its map (divided by R) at every cutoff, per query and as its own means."""
    from tools import KS

    stored = load_values("recommenders")
    means = json.loads((DATA / "recommenders.means.json").read_text())
    for k in KS:
        for name in (f"map@{k}(dialect=recommenders)",
                     f"map@{k}(dialect=recommenders,denominator=R)"):
            assert name in stored and name in means
            assert sum(not math.isnan(v) for v in stored[name].values()) >= 700
    # the two denominators differ where R > k: the stored values tell them apart
    capped, by_r = (stored[f"map@3(dialect=recommenders{d})"] for d in ("", ",denominator=R"))
    assert any(capped[q] > by_r[q] for q in capped if not math.isnan(capped[q]))


def test_mteb_mrr_is_rankwise_mrr(fixture: tuple[dict, dict]) -> None:
    """MTEB (>= 2.18.19) breaks MRR ties by document id descending, in float64: rankwise's."""
    qrels, run = fixture
    results = rw.evaluate(qrels, run, ["mrr@10(dialect=mteb)", "mrr@10"])
    assert np.array_equal(results["mrr@10(dialect=mteb)"], results["mrr@10"])
    assert results.mean["mrr@10(dialect=mteb)"] == results.mean["mrr@10"]  # not rounded


def test_trec_eval_dialect_is_rankwise_with_the_linear_gain(fixture: tuple[dict, dict]) -> None:
    qrels, run = fixture
    names = ["ndcg@10", "map@10", "P@5", "recall@20", "mrr", "hit@3", "bpref", "rbp"]
    results = rw.evaluate(qrels, run, [f"{n}(dialect=trec_eval)" for n in names])
    plain = rw.evaluate(qrels, run, ["ndcg@10(gain=linear)", *names[1:]])
    for name, plain_name in zip(results, plain):
        assert np.array_equal(results[name], plain[plain_name], equal_nan=True)
