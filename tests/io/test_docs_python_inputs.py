"""The examples of docs/python-inputs.md run and print what the page says."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "python-inputs.md"


def test_python_inputs_page_examples_run() -> None:
    if not PAGE.exists():
        pytest.skip("docs/python-inputs.md not present (installed package)")
    result = doctest.testfile(
        str(PAGE),
        module_relative=False,
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS,
    )
    assert result.attempted >= 6
    assert result.failed == 0
