"""The examples of docs/measures.md run and print what the page says."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest


def test_measures_page_examples_run() -> None:
    page = Path(__file__).resolve().parents[2] / "docs" / "measures.md"
    if not page.exists():
        pytest.skip("docs/measures.md not present (installed package)")
    result = doctest.testfile(
        str(page), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE
    )
    assert result.attempted >= 8
    assert result.failed == 0
