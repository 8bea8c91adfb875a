"""Every value trec_eval 10.0 prints for its own test cases, to the 4 printed decimals.

The expected files are trec_eval's test vectors (tests/data/trec_eval); the
printing itself (byte for byte) is checked by the CLI tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import rankwise as rw
from rankwise.measures.trec_names import parse_trec_list

DATA = Path(__file__).parents[1] / "data" / "trec_eval"

META_PARAMS = [
    "iprec_at_recall..10,.20,.25,.75,.50",
    "P.5,7,3",
    "recall.20,2000",
    "Rprec_mult.5.0,0.2,0.35",
    "utility.2,-1,0,0",
    "11pt_avg..25,.5,.75",
    "ndcg.1=3,2=9,4=4.5",
    "ndcg_cut.10,20,23.4",
    "success.2,5,20",
]

CASES = {
    "out.test": ([], "qrels.test", "results.test", {}),
    "out.test.with-comments": ([], "qrels.test.with-comments", "results.test", {}),
    "out.test.a": (["all_trec"], "qrels.test", "results.test", {}),
    "out.test.aq": (["all_trec"], "qrels.test", "results.test", {}),
    "out.test.aqc": (["all_trec"], "qrels.test", "results.trunc", {"missing": "zero"}),
    "out.test.aqcM": (
        ["all_trec"],
        "qrels.test",
        "results.trunc",
        {"missing": "zero", "depth": 100},
    ),
    "out.test.aql": (["all_trec", "relstring.20"], "qrels.rel_level", "results.test", {"rel": 2.0}),
    "out.test.meas_params": (META_PARAMS, "qrels.test", "results.test", {}),
    "out.comment.test": ([], "qrels.comment.test", "results.comment.test", {}),
}


def expected_rows(name: str) -> list[tuple[str, str, str]]:
    path = DATA / ("out.test" if name == "out.test.with-comments" else name)
    rows = []
    for line in path.read_text().splitlines():
        label, query, value = line.split("\t")
        rows.append((label.strip(), query, value))
    return rows


@pytest.mark.parametrize("case", list(CASES))
def test_every_value_matches_trec_eval(case: str) -> None:
    arguments, qrels_file, run_file, options = CASES[case]
    options = dict(options)
    rel = options.pop("rel", None)
    entries = parse_trec_list(arguments or ["official"])
    measure_of = {}
    for entry in entries:
        if entry.measure is None:
            continue
        measure = entry.measure
        if rel is not None and measure.family.takes_level:
            measure = measure.replace(rel=rel)
        measure_of[entry.label] = measure
    run = rw.read_run(DATA / run_file)
    results = rw.evaluate(
        rw.read_qrels(DATA / qrels_file), run, list(dict.fromkeys(measure_of.values())), **options
    )
    checked = 0
    for label, query, value in expected_rows(case):
        if label == "runid":
            assert run.name == value
            continue
        measure = measure_of[label]
        got = (
            results.mean[str(measure)]
            if query == "all"
            else results[measure][results.query_ids.index(query)]
        )
        if measure.family.text_valued:
            assert f"'{got}'" == value, (label, query)
        elif measure.family.integer:
            assert f"{round(got)}" == value, (label, query)
        else:
            assert f"{got:6.4f}" == value, (label, query, got)
        checked += 1
    assert checked > 25


def test_queries_are_those_of_the_judgments_in_strcmp_order() -> None:
    results = rw.evaluate(DATA / "qrels.comment.test", DATA / "results.comment.test", ["map"])
    assert results.n_queries == 31
    assert results.query_ids == sorted(results.query_ids, key=lambda q: q.encode())
    assert results.unjudged_queries == 270
