"""Every dialect against its tool run now, where the tool is installed (fresh fixtures).

The stored outputs (test_tool_outputs.py) cover 1,040 queries whether or not
the tools are here; these run the tools themselves on 48 new queries of a
seed the stored outputs never saw (and, for the quick tools, on two more
seeds: every seed draws new ties, all-zero queries, negative grades, lists
shorter than the cutoffs and float32 collisions). The slow ones (torch,
CatBoost, ranx's numba, Microsoft Recommenders, BEIR, XGBoost) are marked
slow.
"""

from __future__ import annotations

import importlib.util

import pytest
from strategies import dialect_collection
from test_tool_outputs import compare
from tools import TOOLS, gdeval_script

FAST = {"sklearn", "lightgbm", "pytrec_eval", "gdeval"}
SEEDS = (29, 43, 71)


def _cases() -> list:
    cases = []
    for tool in sorted(TOOLS):
        for seed in SEEDS if tool in FAST else SEEDS[:1]:
            marks = () if tool in FAST else pytest.mark.slow
            cases.append(pytest.param(tool, seed, marks=marks, id=f"{tool}-{seed}"))
    return cases


@pytest.mark.parametrize(("tool", "seed"), _cases())
def test_the_tool_gives_the_dialects_numbers(tool: str, seed: int) -> None:
    module = TOOLS[tool][0]
    if module == "perl":
        if gdeval_script() is None:
            pytest.skip("set RANKWISE_GDEVAL to gdeval.pl (needs perl)")
    elif importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed")
    fresh = dialect_collection(48, seed=seed)
    values = TOOLS[tool][1](*fresh)
    tolerance = None
    if tool == "gdeval" and all(round(v, 5) == v for per in values.values()
                                for v in per.values() if v == v):
        tolerance = 5.1e-6  # gdeval.pl as published prints 5 decimals
    compared = compare(tool, fresh, values, tolerance)
    assert compared and max(compared.values()) >= 30
