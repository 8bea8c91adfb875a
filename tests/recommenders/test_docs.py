"""The examples of docs/recommenders.md run and print what the page says."""

from __future__ import annotations

import doctest
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "docs" / "recommenders.md"


def test_recommenders_page_examples_run() -> None:
    text = PAGE.read_text(encoding="utf-8")
    blocks = [block.split("```", 1)[0] for block in text.split("```python")[1:]]
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(parser.get_doctest("\n".join(blocks), {}, "recommenders.md", str(PAGE), 0))
    assert runner.summarize(verbose=False).attempted >= 10
    assert runner.summarize(verbose=False).failed == 0
