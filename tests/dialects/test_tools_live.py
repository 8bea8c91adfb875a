"""Every dialect against its tool run now, where the tool is installed (a smaller fixture).

The stored outputs (test_tool_outputs.py) cover 1,040 queries whether or not
the tools are here; these run the tools themselves on 48 new queries. The
slow ones (torch, CatBoost, ranx's numba, Microsoft Recommenders, BEIR) are
marked slow.
"""

from __future__ import annotations

import importlib.util

import pytest
from strategies import dialect_collection
from test_tool_outputs import compare
from tools import TOOLS

FAST = {"sklearn", "lightgbm", "pytrec_eval"}


@pytest.fixture(scope="module")
def fresh() -> tuple[dict, dict]:
    return dialect_collection(48, seed=29)


@pytest.mark.parametrize(
    "tool",
    [pytest.param(t, marks=() if t in FAST else pytest.mark.slow) for t in sorted(TOOLS)],
)
def test_the_tool_gives_the_dialects_numbers(tool: str, fresh: tuple[dict, dict]) -> None:
    module = TOOLS[tool][0]
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed")
    values = TOOLS[tool][1](*fresh)
    compared = compare(tool, fresh, values)
    assert compared and max(compared.values()) >= 30
