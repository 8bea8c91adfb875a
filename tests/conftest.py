import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
DATA = HERE / "data"
TREC_EVAL = DATA / "trec_eval"

# shared helpers of the tests (strategies.py) are imported by name
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


@pytest.fixture
def trec_eval_dir() -> Path:
    return TREC_EVAL
