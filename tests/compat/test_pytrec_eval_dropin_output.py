"""The drop-in's per-query output, built in C, equals the dicts zipped in Python."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rankwise.compat import pytrec_eval as dropin


@pytest.mark.parametrize("native", [True, False])
def test_per_query_dicts_equal_the_zipped_dicts(
    native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RANKWISE_NO_C", "0" if native else "1")
    rng = np.random.default_rng(3)
    names = ["q1", 2, "q3", "q1"]  # a name given twice keeps its last row
    keys = ["map", "P_5", "ndcg_cut_10"]
    matrix = rng.random((4, 3))
    matrix[1, 2] = math.nan
    got = dropin._per_query_dicts(names, keys, matrix)
    want = {name: dict(zip(keys, row)) for name, row in zip(names, matrix.tolist())}
    assert list(got) == list(want) == ["q1", 2, "q3"]
    for name in want:
        assert list(got[name]) == keys
        for key in keys:
            a, b = got[name][key], want[name][key]
            assert type(a) is float and (a == b or (math.isnan(a) and math.isnan(b)))
    assert got["q1"] == dict(zip(keys, matrix[3].tolist()))
    assert dropin._per_query_dicts(["a", "b"], [], np.zeros((2, 0))) == {"a": {}, "b": {}}
    assert dropin._per_query_dicts([], keys, np.zeros((0, 3))) == {}


def test_per_query_dicts_checks_the_matrix_size() -> None:
    from rankwise.io import frames as dicts  # the module that holds rankwise.data._ccolumns

    if dicts._ccolumns is None:
        pytest.skip("the C module is not built")
    with pytest.raises(ValueError, match="2 names x 3 keys need 6 values, not 40 bytes"):
        dicts._ccolumns.per_query_dicts(["a", "b"], ["x", "y", "z"], np.zeros(5))
    with pytest.raises(TypeError):
        dicts._ccolumns.per_query_dicts(["a"], ["x"], [1.0])  # not a buffer
