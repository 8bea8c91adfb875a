from __future__ import annotations

import pytest
from strategies import ranking_data


@pytest.fixture
def train_valid() -> tuple[tuple, tuple]:
    """A training and a validation set of grouped learning-to-rank rows."""
    return ranking_data(300, 1), ranking_data(120, 2)
