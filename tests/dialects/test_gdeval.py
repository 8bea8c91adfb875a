"""The gdeval dialect: gdeval.pl's ndcg@k and err@k are rankwise's, but for the queries
without a positive judgment, which gdeval leaves out.

The per-query values and means of gdeval.pl itself on the 1,040-query fixture
are compared in test_tool_outputs.py (stored) and test_tools_live.py (run
again where ``RANKWISE_GDEVAL`` names gdeval.pl); here, what holds without the
tool, and gdeval's ``-c``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from strategies import dialect_collection
from test_tool_outputs import load_fixture
from tools import KS, gdeval_means, gdeval_script

import rankwise as rw
from rankwise.exceptions import InvalidParameterError


@pytest.fixture(scope="module")
def fixture() -> tuple[dict, dict]:
    return load_fixture()


def test_gdeval_is_rankwise_but_for_queries_without_a_positive_grade(
    fixture: tuple[dict, dict],
) -> None:
    qrels, run = fixture
    names = [f"{f}@{k}" for k in KS for f in ("ndcg", "err")]
    results = rw.evaluate(qrels, run, names + [f"{n}(dialect=gdeval)" for n in names])
    positive = np.array([any(g > 0 for g in qrels[q].values()) for q in results.query_ids])
    assert 0 < (~positive).sum() < len(positive)
    for name in names:
        ours = results[f"{name}(dialect=gdeval)"]
        assert np.isnan(ours[~positive]).all()
        assert np.array_equal(ours[positive], results[name][positive])
        assert results[name][~positive].max() == 0.0
        assert results.mean[f"{name}(dialect=gdeval)"] == pytest.approx(
            results[name][positive].mean(), abs=1e-15)


def test_without_a_cutoff_gdeval_takes_its_default_20(fixture: tuple[dict, dict]) -> None:
    qrels, run = fixture
    results = rw.evaluate(qrels, run, ["ndcg(dialect=gdeval)", "ndcg@20(dialect=gdeval)",
                                       "err(dialect=gdeval)", "err@20(dialect=gdeval)"])
    for family in ("ndcg", "err"):
        assert np.array_equal(results[f"{family}(dialect=gdeval)"],
                              results[f"{family}@20(dialect=gdeval)"], equal_nan=True)


def test_err_refuses_grades_above_4_as_gdeval_does() -> None:
    with pytest.raises(InvalidParameterError, match="max_grade"):
        rw.evaluate({"1": {"a": 5}}, {"1": {"a": 1.0}}, ["err@10(dialect=gdeval)"])


def test_canonical_names() -> None:
    assert str(rw.parse("err@10(dialect=gdeval,empty=skip)")) == "err@10(dialect=gdeval)"
    assert str(rw.parse("err@10(empty=0)")) == "err@10"
    assert str(rw.parse("ndcg@10(dialect=gdeval,gain=exp)")) == "ndcg@10(dialect=gdeval)"


@pytest.mark.skipif(gdeval_script() is None, reason="set RANKWISE_GDEVAL to gdeval.pl "
                                                    "(needs perl)")
@pytest.mark.parametrize("seed", [5, 6])
def test_gdeval_c_is_missing_zero(seed: int) -> None:
    """``gdeval.pl -c``: the mean over every query with a positive judgment."""
    qrels, run = dialect_collection(80, seed=seed)
    theirs = gdeval_means(qrels, run, complete=True)
    means = rw.evaluate(qrels, run, list(theirs), missing="zero").mean
    tolerance = 1e-9 if any(round(v, 5) != v for v in theirs.values()) else 5.1e-6
    for measure, value in theirs.items():
        assert not math.isnan(means[measure])
        assert abs(means[measure] - value) <= tolerance, (measure, means[measure], value)
