"""The kernels that follow a Conventions record, against rankwise's own kernels.

Under rankwise's own conventions they must give the same numbers (the
training hooks use them for speed); the per-tool conventions are checked
against the tools in tests/dialects.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import collections

from rankwise.engines.core import compute, prepare_measures
from rankwise.io.coerce import as_qrels, as_run
from rankwise.options import EvalOptions
from rankwise.ranking.rank import rank_all_ties

OWN = ["ndcg@3", "ndcg", "ndcg@4(gain=linear)", "ndcg(gains=1=5;2=1)", "dcg@3", "map", "map@2",
       "mrr", "mrr@2", "P@3", "recall@2", "hit@1", "coverage", "map(rel=2)", "P@2(rel=2)"]


@settings(max_examples=80, deadline=None)
@given(collections(), st.sampled_from([None, 0, 1, 2, 5]), st.booleans(), st.booleans())
def test_dialect_kernels_give_rankwise_numbers_under_its_conventions(
    data: tuple[dict, dict], depth: int | None, judged_only: bool, zero: bool
) -> None:
    qrels, run = (as_qrels(data[0]), as_run(data[1]))
    options = EvalOptions(depth=depth, judged_only=judged_only,
                          missing="zero" if zero else "skip")
    measures = prepare_measures(OWN, options)
    ranking = rank_all_ties(qrels, run, depth=depth, judged_only=judged_only,
                            missing=options.missing)
    plain = compute(ranking, measures, options)
    fast = compute(ranking, measures, options, dialect_kernels=True)
    for measure in measures:
        assert np.allclose(plain[measure], fast[measure], rtol=0, atol=1e-12, equal_nan=True), (
            str(measure), plain[measure], fast[measure])


@pytest.mark.parametrize("ties", ["average", "worst"])
def test_other_tie_policies_keep_rankwise_kernels(ties: str) -> None:
    qrels = as_qrels({"q": {"a": 1, "b": 0}})
    run = as_run({"q": {"a": 0.5, "b": 0.5}})
    options = EvalOptions(ties=ties)
    measures = prepare_measures(["map"], options)
    ranking = rank_all_ties(qrels, run)
    assert compute(ranking, measures, options, dialect_kernels=True)[measures[0]].tolist() == (
        compute(ranking, measures, options)[measures[0]].tolist()
    )
