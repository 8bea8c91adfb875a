"""docs/dialects.md says what the code does: its examples run, and its two tables (each
dialect's conventions; the tutorial example in every dialect) are what the code gives."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

import rankwise as rw
from rankwise.measures.dialects import DIALECTS, ORDER, describe

PAGE = Path(__file__).resolve().parents[2] / "docs" / "dialects.md"

GRADES = [3, 0, 2, 1, 3, 0, 2, 1, 0, 3]
MODEL_B = [0.8, 0.2, 0.9, 0.6, 0.4, 0.1, 0.7, 0.5, 0.05, 0.3]
COLUMNS = ["ndcg@3", "ndcg@5", "ndcg@10", "map", "map@3", "map@5", "mrr@10", "P@5", "recall@5",
           "err@10"]
ROWS = [
    ("rankwise", "", {}), ("trec_eval", "", {}), ("sklearn", "", {}),
    ("lightgbm", "", {}), ("xgboost", "", {}),
    ("xgboost", "ndcg_exp_gain=false", {"gain": "linear"}), ("catboost", "", {}),
    ("catboost", "type=Exp", {"gain": "exp"}), ("torchmetrics", "", {}), ("spark", "", {}),
    ("spark", "Scala, labels by grade", {"gain": "exp"}), ("recommenders", "", {}),
    ("recommenders", "score_type='raw'", {"gain": "linear"}),
    ("recommenders", "map (not map_at_k)", {"denominator": "R"}),
    ("ranx", "", {}), ("ranx", "ndcg_burges", {"gain": "exp"}), ("beir", "", {}),
    ("mteb", "", {}), ("gdeval", "", {}),
]


def tutorial_table() -> str:
    """The tutorial example (one query, ten documents, model B) in every dialect."""
    qrels = {"q1": {f"d{i}": g for i, g in enumerate(GRADES)}}
    run = {"q1": {f"d{i}": s for i, s in enumerate(MODEL_B)}}
    lines = ["| dialect | option | " + " | ".join(COLUMNS) + " |",
             "|---|---|" + "---:|" * len(COLUMNS)]
    for dialect, option, params in ROWS:
        cells = []
        for column in COLUMNS:
            measure = rw.parse(column)
            family = DIALECTS[dialect]
            usable = measure.name in family.families and not (
                measure.cutoff is not None and family.cutoff.get(measure.name) == "none"
            ) and all(key in measure.family.params for key in params)
            if not usable:
                cells.append("—")
                continue
            measure = measure.replace(dialect=dialect, **params)
            value = rw.evaluate(qrels, run, [measure]).mean[str(measure)]
            cells.append(f"{value:.4f}")
        lines.append(f"| {dialect} | {option} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def conventions_table() -> str:
    """Per dialect and family, the conventions that differ from trec_eval's (rankwise's for
    the families trec_eval does not have: ERR)."""
    reference = {**DIALECTS["rankwise"].families, **DIALECTS["trec_eval"].families}
    lines = ["| dialect | family | tool's name | conventions (where they differ from trec_eval) |",
             "|---|---|---|---|"]
    for name, dialect in DIALECTS.items():
        if name in ("rankwise", "trec_eval"):
            continue
        for family, record in dialect.families.items():
            base = reference[family]
            changed = [describe(f, getattr(record, f), family) for f in ORDER
                       if getattr(record, f) != getattr(base, f)]
            lines.append(f"| {name} | {family} | {dialect.names.get(family, '')} | "
                         + "; ".join(changed) + " |")
    return "\n".join(lines)


def _section(text: str, marker: str) -> str:
    match = re.search(rf"<!-- {marker} -->\n(.*?)\n<!-- /{marker} -->", text, re.S)
    assert match, f"docs/dialects.md has no <!-- {marker} --> section"
    return match.group(1).strip()


@pytest.fixture(scope="module")
def page() -> str:
    if not PAGE.exists():
        pytest.skip("docs/dialects.md not present (installed package)")
    return PAGE.read_text(encoding="utf-8")


def test_the_tutorial_table_is_what_rankwise_gives(page: str) -> None:
    assert _section(page, "tutorial") == tutorial_table()


def test_the_conventions_table_is_the_records(page: str) -> None:
    assert _section(page, "conventions") == conventions_table()


def test_the_examples_run(page: str) -> None:
    failures, _ = doctest.testfile(
        str(PAGE), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE
        | doctest.ELLIPSIS, verbose=False,
    )
    assert failures == 0


def test_the_tutorial_numbers_are_the_tools(page: str) -> None:
    """The numbers the tools print on the tutorial example (their own runs, issue 17's
    research), six decimals: the table's rows follow them."""
    qrels = {"q1": {f"d{i}": g for i, g in enumerate(GRADES)}}
    run = {"q1": {f"d{i}": s for i, s in enumerate(MODEL_B)}}
    tools = {
        "ndcg@3(dialect=lightgbm)": 0.597761, "ndcg@10(dialect=lightgbm)": 0.806308,
        "ndcg@5(dialect=xgboost,gain=linear)": 0.711314, "ndcg@10(dialect=sklearn)": 0.892348,
        "ndcg@3(dialect=catboost,gain=exp)": 0.597761, "ndcg@3(dialect=spark)": 1.0,
        "ndcg@5(dialect=recommenders)": 1.0, "map@3(dialect=ranx)": 0.428571,
        "map@3(dialect=recommenders,denominator=R)": 0.428571, "map@3(dialect=lightgbm)": 1.0,
        "map(dialect=sklearn)": 1.0, "coverage(dialect=sklearn)": 7.0,
        "ndcg@10(dialect=beir)": 0.89235, "map@5(dialect=beir)": 0.71429,
        "ndcg@3(dialect=gdeval)": 0.597761, "err@3(dialect=gdeval)": 0.393799,
        "err@10(dialect=gdeval)": 0.439224,
    }
    means = rw.evaluate(qrels, run, list(tools)).mean
    for measure, value in tools.items():
        assert round(means[str(rw.parse(measure))], 6) == value, measure


def test_the_explain_help_names_every_dialect() -> None:
    from rankwise.cli.commands.explain import _EPILOG

    listed = " ".join(_EPILOG.split("(see")[0].split()).removeprefix("dialects: ").split(", ")
    assert listed == list(DIALECTS)


def test_lightgbm_maps_relevance_is_said_as_above_one_half() -> None:
    """rel's default there is the least double above 0.5: never shown as '0.5 or more'."""
    import warnings

    from rankwise.measures import parse
    from rankwise.report.conventions import conventions

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = rw.evaluate({"q": {"a": 0.5, "b": 0}}, {"q": {"a": 1.0, "b": 0.5}},
                             ["map@10(dialect=lightgbm)", "P@5(rel=2)"])
    assert result.mean == {"map@10(dialect=lightgbm)": 1.0, "P@5(rel=2)": 0.0}
    said = " ".join(str(w.message) for w in caught)
    assert ("no judged document has a grade above 0.5 (the highest is 0.5): "
            "map@10(dialect=lightgbm) counts nothing as relevant and is 1 for every query") in said
    assert "a grade of 2 or more (the highest is 0.5): P@5(rel=2) counts nothing as relevant " \
           "and is 0 for every query" in said
    [row] = conventions([parse("map@10(dialect=lightgbm)")], {})
    assert row.gain == "relevant: grade > 0.5"
