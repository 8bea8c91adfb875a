"""Dicts load no file or table reader, nor pandas, scipy, polars: a dict user's first call pays
only for what it uses (numpy, and pyarrow only without the C dict reader)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).parents[2] / "src"

PROBE = """
import sys
import rankwise as rw
means = rw.evaluate({"q1": {"a": 1, "b": 0}}, {"q1": {"a": 0.5, "b": 0.7}}, ["map"]).mean
print(means["map"])
readers = ("rankwise.io.trec", "rankwise.io.tables", "rankwise.io.records", "rankwise.io._fast",
           "rankwise.io._ctrec", "csv", "pandas", "scipy", "polars", "matplotlib", "pyspark")
if "rankwise.data._ccolumns" in sys.modules:  # the C dict reader (else pyarrow reads dicts)
    readers += ("pyarrow",)
print(",".join(sorted(m for m in readers if m in sys.modules)))
from rankwise.io import read_trec_run  # still importable from the package, loaded on demand
print("rankwise.io.trec" in sys.modules, read_trec_run.__module__)
"""


def test_evaluating_dicts_loads_no_file_or_table_reader() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=False,
        env={"PYTHONPATH": str(SRC)},
    )
    assert done.returncode == 0, done.stderr
    value, loaded, on_demand = done.stdout.strip().splitlines()
    assert float(value) == 0.5  # "a" (relevant) ranked second
    assert loaded == ""
    assert on_demand == "True rankwise.io.trec"


def test_the_package_names_only_what_it_has() -> None:
    import pytest

    import rankwise.io

    with pytest.raises(AttributeError, match="no attribute 'read_csv'"):
        rankwise.io.read_csv  # noqa: B018
    assert rankwise.io.read_trec_qrels.__name__ == "read_trec_qrels"
