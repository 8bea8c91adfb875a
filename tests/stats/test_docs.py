"""The examples of docs/compare.md run and print what the page says."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

import rankwise


def test_compare_page_examples_run() -> None:
    page = Path(__file__).resolve().parents[2] / "docs" / "compare.md"
    if not page.exists():
        pytest.skip("docs/compare.md not present (installed package)")
    assert callable(rankwise.compare)
    result = doctest.testfile(
        str(page), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE
    )
    assert result.attempted >= 15
    assert result.failed == 0


def test_statistics_page_examples_run() -> None:
    page = Path(__file__).resolve().parents[2] / "docs" / "statistics.md"
    if not page.exists():
        pytest.skip("docs/statistics.md not present (installed package)")
    result = doctest.testfile(
        str(page), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE
    )
    assert result.attempted >= 20
    assert result.failed == 0
