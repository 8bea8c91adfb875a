"""The examples of docs/compat.md run and print what the page says."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "compat.md"


def test_compat_page_examples_run() -> None:
    text = PAGE.read_text(encoding="utf-8")
    blocks = [block.split("```", 1)[0] for block in text.split("```python")[1:]]
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(parser.get_doctest("\n".join(blocks), {}, "compat.md", str(PAGE), 0))
    assert runner.summarize(verbose=False).attempted >= 10
    assert runner.summarize(verbose=False).failed == 0


def test_the_pages_first_example_is_pytrec_eval_s() -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    import rankwise.compat.pytrec_eval as drop_in

    qrels = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 1}}
    run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}, "q2": {"d5": 1.0, "d4": 0.5}}
    measures = {"ndcg_cut.10", "P.2", "map"}
    want = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    assert drop_in.RelevanceEvaluator(qrels, measures).evaluate(run) == want
    # the float32 example: pytrec_eval's number is the one the page gives
    assert pytrec_eval.RelevanceEvaluator({"q": {"d2": 1}}, {"recip_rank"}).evaluate(
        {"q": {"d1": 1.0000000001, "d2": 1.0}}) == {"q": {"recip_rank": 1.0}}
