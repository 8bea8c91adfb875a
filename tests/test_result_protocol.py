"""One result protocol (issue 34, item 5): every result type through every method.

``to_dict``, ``to_pandas``, ``to_polars``, ``to_table`` in the seven formats,
``_repr_html_`` for notebooks, a ``repr`` that reads as a table, and pickle
(tests/test_pickling.py sends each through process pools too). The frames
hold the values of the result itself, cell for cell.
"""

from __future__ import annotations

import json
import math
import pickle
from typing import Any

import numpy as np
import pytest
from test_pickling import QRELS, RUNS, _jobs

import rankwise as rw
from rankwise._tabular import REPR_ROWS, Tabular
from rankwise.report.tables import FORMATS

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

TYPES = [name for name in _jobs() if name != "Run"]  # a Run is data, not a result


@pytest.fixture(scope="module")
def made() -> dict[str, Any]:
    return {name: job() for name, job in _jobs().items() if name in TYPES}


def test_every_front_door_result_is_covered() -> None:
    from rankwise.design import DiscriminativePower, TopicSetTable
    from rankwise.engines.spark.results import SparkResults
    from rankwise.explanation import Explanation, Matches
    from rankwise.fusion.optimize import FusionOptimization
    from rankwise.guidance import Guide
    from rankwise.recommenders import RecommenderComparison, RecommenderResults
    from rankwise.recommenders.spark import SparkRecommenderResults
    from rankwise.reproducibility import Agreement, MeasureAgreement, Reproduction

    for kind in (rw.Results, rw.Comparison, Explanation, Matches, TopicSetTable,
                 DiscriminativePower, Reproduction, Agreement, MeasureAgreement,
                 FusionOptimization, SparkResults, Guide, RecommenderResults,
                 SparkRecommenderResults, RecommenderComparison):
        assert issubclass(kind, Tabular), kind.__name__


@pytest.mark.parametrize("name", TYPES)
def test_every_method(name: str, made: dict[str, Any]) -> None:
    result = made[name]
    kind = type(result).__name__
    # to_table: the seven formats; the JSON ones parse with a strict parser
    for fmt in FORMATS:
        text = result.to_table(fmt)
        assert isinstance(text, str) and text.endswith("\n"), (name, fmt)
        if fmt == "json":
            json.loads(text, parse_constant=_refuse)
        elif fmt == "jsonl":
            for line in text.splitlines():
                json.loads(line, parse_constant=_refuse)
    with pytest.raises(rw.InvalidParameterError, match="unknown output format"):
        result.to_table("xml")
    # to_dict: plain values (JSON once NaN is null)
    plain = result.to_dict()
    assert isinstance(plain, dict) and plain
    from rankwise.report.json_text import json_text

    json.loads(json_text(plain), parse_constant=_refuse)
    # frames
    assert isinstance(result.to_pandas(), pd.DataFrame)
    assert isinstance(result.to_polars(), pl.DataFrame)
    # notebooks and the console: the caption over a table
    html = result._repr_html_()
    assert "<table" in html and html.count("<table") == html.count("</table>")
    if name != "Guide":  # the guide shows its sections, a table each
        assert html.startswith("<table><caption>") and html.endswith("</table>")
    text = repr(result)
    # Explanation and Guide say themselves in their own text (to_text, a table of sections)
    assert text.splitlines()[0].startswith(kind) or name in ("Explanation", "Guide")
    assert len(text.splitlines()) >= 2
    # pickle: the same table back
    back = pickle.loads(pickle.dumps(result))
    assert back.to_table("csv") == result.to_table("csv") and repr(back) == repr(result)


def _refuse(token: str) -> None:
    raise ValueError(f"not strict JSON: {token}")


def test_frames_hold_the_values(made: dict[str, Any]) -> None:
    agreement = made["Agreement"]
    frame = agreement.to_pandas()
    assert frame.columns.tolist() == ["query_id", agreement.name]
    assert frame["query_id"].tolist() == list(agreement.query_ids)
    np.testing.assert_array_equal(frame[agreement.name].to_numpy(), agreement.values)
    assert agreement.to_polars()[agreement.name].to_list() == agreement.values.tolist()

    power = made["DiscriminativePower"]
    frame = power.to_polars()
    assert frame["measure"].to_list() == list(power.measures)
    assert frame["discriminative_power"].to_list() == [power.fraction(m) for m in power.measures]
    assert frame["pairs"].dtype == pl.Int64 and power.to_pandas()["pairs"].dtype == np.int64

    sizes = made["TopicSetTable"]
    frame = sizes.to_pandas()
    assert frame.iloc[:, 1].tolist() == [row[0].n for row in sizes.sizes]
    assert sizes.to_dict()["sizes"][0][0]["n"] == sizes.sizes[0][0].n

    explanation = made["Explanation"]
    frame = explanation.to_polars()
    assert frame["convention"].to_list() == [s.convention for s in explanation.steps]
    assert math.fsum(frame["delta"].to_list()) == pytest.approx(float(explanation.difference))

    comparison = made["Comparison"]
    frame = comparison.to_polars()
    assert frame["significant"].dtype == pl.Boolean and frame["wins"].dtype == pl.Int64
    assert frame["delta"].to_list()[1] == comparison.rows[1].delta
    assert frame.columns == comparison.to_pandas().columns.tolist()

    results = made["Results"]
    assert results.to_polars()["query_id"].to_list() == results.query_ids
    assert results.table().header == ["run", *map(str, results.measures)]

    optimized = made["FusionOptimization"]
    frame = optimized.to_pandas()
    assert frame[optimized.measure].tolist() == [score for _, score in optimized.trials]
    assert optimized.to_dict()["folds"][0]["results"] == optimized.folds[0].results.to_dict()


def test_a_long_table_shows_its_first_and_last_rows() -> None:
    ids = tuple(f"q{i:03d}" for i in range(100))
    from rankwise.reproducibility import Agreement

    agreement = Agreement("ktu", ids, np.linspace(0, 1, 100))
    lines = repr(agreement).splitlines()
    assert lines[0] == "Agreement(ktu, 100 queries, mean=0.5000)"
    assert lines[3].startswith("q000") and lines[-2].startswith("q099")
    assert "…" in repr(agreement) and lines[-1] == "(100 rows)"
    assert len(lines) == 1 + 2 + REPR_ROWS + 1 + 1  # caption, header, rows, gap, count
    html = agreement._repr_html_()
    assert html.count("<tr>") == 1 + REPR_ROWS + 1 and "(100 rows)" in html
    assert len(agreement.to_pandas()) == 100  # the frames hold every row


def test_html_escapes_what_it_shows() -> None:
    from rankwise.reproducibility import Agreement

    html = Agreement("<script>", ("<b>q</b>",), np.array([0.5]))._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html and "&lt;b&gt;q" in html


def test_results_keep_their_own_shapes() -> None:
    """What Results said before stays: a row per query in the frames, the means in repr."""
    results = rw.evaluate(QRELS, RUNS["bm25"], ["map", "P@2"])
    assert results.to_pandas().index.name == "query_id"
    assert results.to_dict() == {"map": dict(zip(results.query_ids, results["map"].tolist())),
                                 "P@2": dict(zip(results.query_ids, results["P@2"].tolist()))}
    assert repr(results).splitlines()[1].split() == ["map", f"{results.mean['map']:.4f}"]
