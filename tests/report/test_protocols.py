"""The report reads Protocols (rankwise.report.protocols); the objects above it have their shapes.

report/ never imports what it presents (tests/test_architecture.py checks the
imports); here each protocol is checked member by member against the objects
the layers above hand down, so that a renamed attribute fails here and not in
a user's report.
"""

from __future__ import annotations

from typing import Any

import pytest

import rankwise as rw
from rankwise.design import discriminative_power
from rankwise.report import protocols
from rankwise.reporting import build_report

QRELS = {f"q{i}": {"a": 1, "b": 0, f"c{i}": 2} for i in range(6)}
RUNS = {name: {f"q{i}": {"a": 1.0 + shift * (i % 2), "b": 2.0, f"c{i}": 0.5 + shift}
               for i in range(6)}
        for name, shift in (("bm25", 0.0), ("dense", 1.0), ("splade", 2.0))}


def members(protocol: type) -> list[str]:
    """The names a protocol declares (its properties and methods)."""
    return sorted(name for name, value in vars(protocol).items()
                  if (isinstance(value, property) or callable(value))
                  and (not name.startswith("_") or name == "__getitem__"))


@pytest.fixture(scope="module")
def objects() -> dict[str, Any]:
    results = rw.evaluate(QRELS, RUNS["bm25"], ["map", "P@2"], unjudged="bounds")
    comparison = rw.compare(QRELS, RUNS, ["map"], test="tukey", seed=0)
    power = discriminative_power(QRELS, RUNS, ["map"], n_resamples=50, seed=0)
    report = build_report(QRELS, RUNS, ["map"], seed=0, n_resamples=50, max_k=3)
    return {
        "ResultsLike": results, "UnjudgedLike": results.unjudged,
        "ComparisonLike": comparison, "RowLike": comparison.rows[0],
        "TukeyLike": comparison.tukey["map"], "AnovaLike": comparison.tukey["map"].anova,
        "PowerLike": power, "PageLike": report,
    }


@pytest.mark.parametrize("name", sorted(protocols.__all__))
def test_the_objects_above_have_the_shapes_report_reads(name: str,
                                                        objects: dict[str, Any]) -> None:
    protocol = getattr(protocols, name)
    names = members(protocol)
    assert names, name  # a protocol with no member would check nothing
    missing = [member for member in names if not hasattr(objects[name], member)]
    assert missing == [], f"{type(objects[name]).__name__} lacks {missing} of {name}"


def test_a_missing_member_is_found() -> None:
    class NotResults:
        query_ids = ("q1",)

    assert not isinstance(NotResults(), protocols.ResultsLike)
    assert "run_name" in members(protocols.ResultsLike)
    assert isinstance(rw.evaluate(QRELS, RUNS["bm25"], "map"), protocols.ResultsLike)
