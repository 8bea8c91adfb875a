"""distinct() is np.unique(return_index=True, return_inverse=True), without importing numpy.ma."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rankwise.ranking._unique import distinct


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-(2**62), 2**62) | st.integers(-3, 3), max_size=40))
def test_same_as_np_unique(values: list[int]) -> None:
    array = np.array(values, dtype=np.int64)
    uniques, first, inverse = distinct(array)
    expected = np.unique(array, return_index=True, return_inverse=True)
    assert uniques.tolist() == expected[0].tolist()
    assert first.tolist() == expected[1].tolist()
    assert inverse.tolist() == expected[2].ravel().tolist()


def test_evaluating_a_tied_run_does_not_import_numpy_ma() -> None:
    code = (
        "import sys, rankwise as rw\n"
        "run = {'q': {'a': 1.0, 'b': 1.0, 'c': 1.0, 'd': 0.5}}\n"
        "qrels = {'q': {'a': 1, 'c': 0, 'd': 2}}\n"
        "results = rw.evaluate(qrels, run, ['ndcg@2', 'map'])\n"
        "assert results.ties.queries_mixed == 1, results.ties\n"
        "print('numpy.ma' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
