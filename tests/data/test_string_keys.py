"""The 64-bit keys of document ids (rankwise.data._arrow): any lengths, any chunk sizes.

Issue 13, item 25: a run with a short id next to a long one in a tiny file
crashed (``IndexError`` in ``_words_at``). The keys must exist for every
column, equal ids must get equal keys, and exact keys must separate distinct ids.
"""

from __future__ import annotations

import os
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.data._arrow import string_keys, string_keys_at
from rankwise.data._strings import StringColumn

IDS = st.lists(
    st.one_of(
        st.text(st.sampled_from("ab9\u00e9"), max_size=3),
        st.text(st.sampled_from("ab9"), min_size=7, max_size=20),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=400, deadline=None)
@given(IDS, st.integers(1, 4))
def test_keys_of_any_ids_in_any_chunks(ids: list[str], pieces: int) -> None:
    cuts = sorted({len(ids) * i // pieces for i in range(pieces + 1)})
    column = StringColumn([c for a, b in pairwise(cuts)
                           for c in StringColumn.from_strings(ids[a:b]).chunks])
    keys, exact = string_keys(column)
    for i, a in enumerate(ids):
        for j, b in enumerate(ids):
            if a == b:
                assert keys[i] == keys[j]
            elif exact:
                assert keys[i] != keys[j]
    rows = np.arange(len(ids), dtype=np.int64)[::-1].copy()
    np.testing.assert_array_equal(string_keys_at(column, rows), keys[rows])
    np.testing.assert_array_equal(string_keys(column.to_arrow())[0], keys)


def test_the_run_of_the_issue(tmp_path: Path) -> None:
    qrels = tmp_path / "t.q"
    run = tmp_path / "t.r"
    qrels.write_text("q1 0 123456789 1\nq1 0 d 0\n")
    run.write_text("q1 Q0 d 1 2.0 r\nq1 Q0 123456789 2 1.0 r\n")
    for pure in ("0", "1"):
        os.environ["RANKWISE_NO_C"] = pure
        try:
            assert rw.evaluate(qrels, run, ["map"]).mean["map"] == 0.5
        finally:
            del os.environ["RANKWISE_NO_C"]


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 14), st.integers(0, 3)),
                min_size=1, max_size=9),
       st.booleans())
def test_runs_of_any_id_lengths_evaluate_as_their_dicts(
    tmp_path: Path, rows: list[tuple[int, int, int]], pure: bool
) -> None:
    """Short and long ids, tiny files: the TREC file gives what the same dicts give."""
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for number, (query, length, grade) in enumerate(rows):
        doc = ("d" * length + str(number))[-max(1, length):] if length else str(number)
        run.setdefault(f"q{query}", {}).setdefault(doc, float(len(rows) - number))
        qrels.setdefault(f"q{query}", {})[doc] = grade % 3
    run_path, qrels_path = tmp_path / "r", tmp_path / "q"
    run_path.write_text("".join(f"{q} Q0 {d} 1 {s} r\n" for q, ds in run.items()
                                for d, s in ds.items()))
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, ds in qrels.items()
                                  for d, g in ds.items()))
    measures = ["map", "ndcg@3", "P@2", "recall@2"]
    expected = rw.evaluate(qrels, run, measures)
    os.environ["RANKWISE_NO_C"] = "1" if pure else "0"
    try:
        got = rw.evaluate(qrels_path, run_path, measures)
    finally:
        del os.environ["RANKWISE_NO_C"]
    assert got.query_ids == expected.query_ids
    for measure in measures:
        np.testing.assert_array_equal(got[measure], expected[measure])


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__])
