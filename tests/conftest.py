from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
TREC_EVAL = DATA / "trec_eval"


@pytest.fixture
def trec_eval_dir() -> Path:
    return TREC_EVAL
