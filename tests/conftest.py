import contextlib
import gc
import os
import signal
import sys
import weakref
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


def _enum_lookup_keeps_its_callers_alive() -> bool:
    """Whether this Python has bpo-42248: a failed Enum lookup keeps its callers' frames alive.

    ``signal.getsignal`` looks a Python handler up in ``signal.Handlers`` (an Enum):
    with the bug, the ValueError it catches holds every calling frame in a
    reference cycle. Checked as pyarrow's own test_signal_refcycle does.
    """

    def call() -> weakref.ref[set[int]]:
        kept: set[int] = set()
        with contextlib.suppress(ValueError):
            signal.Handlers(signal.default_int_handler)
        return weakref.ref(kept)

    enabled = gc.isenabled()
    gc.disable()
    try:
        return call()() is not None
    finally:
        if enabled:
            gc.enable()


def _no_pyarrow_refcycle_workaround_without_the_bug() -> None:
    """Leave out pyarrow's bpo-42248 workaround on a Python 3.10 that does not have the bug.

    pyarrow takes every 3.10 for one with the bug (pyarrow.lib.have_signal_refcycle), so
    each ``pyarrow.csv.read_csv`` calls ``gc.get_referrers``, a walk over every object of
    the process: 14 ms a call with 1M objects alive, 33 ms with 3M (0.5 ms without it).
    A test process holds over a million (the suite, hypothesis), and the reader tests call
    read_csv thousands of times: the fast suite took 550 s of CPU on 3.10 with the
    workaround, 288 s without (3.11: 313 s). 3.10.0 and later have the fix (enum.py), as
    the check says; the values read are the same either way.
    """
    if sys.version_info[:2] != (3, 10):
        return
    import pyarrow.lib

    if getattr(pyarrow.lib, "have_signal_refcycle", False) and (
            not _enum_lookup_keeps_its_callers_alive()):
        pyarrow.lib.have_signal_refcycle = False


_no_pyarrow_refcycle_workaround_without_the_bug()

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
