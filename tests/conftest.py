import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# CI runs the same examples on every run (HYPOTHESIS_PROFILE=ci in .ci/run): a gate that
# passes or fails by its code, not by the draw; work elsewhere explores fresh examples
settings.register_profile("ci", derandomize=True, print_blob=True)
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
