import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# No timing limit on any example: a test passes or fails by what the code computes, never by
# how busy the machine is (timings belong in benchmarks/)
_UNTIMED = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("default", **_UNTIMED)
# CI runs the same examples on every run (HYPOTHESIS_PROFILE=ci in .ci/run): a gate that
# passes or fails by its code, not by the draw; work elsewhere explores fresh examples
settings.register_profile("ci", derandomize=True, print_blob=True, **_UNTIMED)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

HERE = Path(__file__).parent
DATA = HERE / "data"
TREC_EVAL = DATA / "trec_eval"

# shared helpers of the tests (strategies.py) are imported by name
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


@pytest.fixture
def trec_eval_dir() -> Path:
    return TREC_EVAL


# ----------------------------------------------------------------------------
# the suite a contributor runs every time, and what CI's second stage adds
# ----------------------------------------------------------------------------

def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test that needs an optional peer (``peers``) or pyspark (``spark``).

    The README's test command (``pytest``) leaves them out with ``slow`` (see
    ``addopts`` in pyproject.toml): it is the suite a contributor runs every
    time, on only the ``[test]`` extra. CI's second stage installs the peers
    and runs ``pytest -m "slow or spark or peers"``. A test is marked by what
    it imports or skips without (in its own body or at the top of its
    module) and by the fixtures it uses, so a new test is never forgotten.
    """
    from peer_marks import item_marks

    for item in items:
        for mark in sorted(item_marks(item)):
            item.add_marker(getattr(pytest.mark, mark))
