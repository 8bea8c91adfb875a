"""Which tests need an optional peer (mark ``peers``) or pyspark (mark ``spark``).

Read by tests/conftest.py, which marks each test by what it imports or skips
without (in its own body or at the top of its module) and by the fixtures it
uses, so that a new test is never forgotten.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import inspect
import re
from pathlib import Path

import pytest

# the optional tools some tests check rankwise against ("peers"), installed by
# `pip install -e '.[peers]'`; pyspark has its own marker, "spark"
# (recbole, and the torch it imports, only by hand: tests/recommenders/test_against_recbole_live.py)
PEERS = ("lightgbm", "xgboost", "catboost", "matplotlib", "ranx", "ir_measures", "recbole")
# fixtures that start one of them (matplotlib; headless Chromium; a Spark session)
PEER_FIXTURES = {"mpl": "peers", "chromium": "peers", "spark": "spark"}
_NEEDS = re.compile(
    r"(?:^|\n)\s*(?:import|from)\s+(" + "|".join(PEERS) + r"|pyspark)\b"
    r"|importorskip\(\s*[\"'](" + "|".join(PEERS) + r"|pyspark)\b"
)


def peer_marks(text: str) -> set[str]:
    """``peers`` and ``spark`` for the tools *text* imports (or skips without)."""
    found = {(m.group(1) or m.group(2)).split(".")[0] for m in _NEEDS.finditer(text)}
    return {"spark" if name == "pyspark" else "peers" for name in found}


@functools.cache
def _module_marks(path: str) -> frozenset[str]:
    """The marks of what a test module imports at its top level."""
    source = Path(path).read_text(encoding="utf-8")
    definitions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    top = "\n".join(ast.get_source_segment(source, node) or ""
                    for node in ast.parse(source).body if not isinstance(node, definitions))
    return frozenset(peer_marks(top))


def item_marks(item: pytest.Item) -> set[str]:
    """The marks of one collected test (a test function or a doctest)."""
    marks = {mark for name, mark in PEER_FIXTURES.items()
             if name in getattr(item, "fixturenames", ())}
    if isinstance(item, pytest.DoctestItem):
        return marks | peer_marks("\n".join(e.source for e in item.dtest.examples))
    function = getattr(item, "function", None)
    if function is not None:
        with contextlib.suppress(OSError, TypeError):
            marks |= peer_marks(inspect.getsource(function))
        marks |= _module_marks(str(item.path))
    return marks


