"""Microsoft Recommenders 1.2.1's unit-test data and its exact outputs (tests/recommenders/data).

Shared by the tests that check rankwise's recommender numbers against them
(see tests/recommenders/data/README.md for where they come from).
"""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).parent / "recommenders" / "data"
CASES = json.loads((DATA / "recommenders_python_evaluation_tests.json").read_text())
ORACLE = json.loads((DATA / "recommenders_oracle_output.json").read_text())
FIX = CASES["fixtures"]
COLS = {"user": "userID", "item": "itemID", "score": "prediction"}
