"""The executor check and rankwise.spark.ship, with a stand-in SparkContext (no JVM).

The same check runs for real on the standalone cluster
(``RANKWISE_SPARK_CLUSTER=1``, see conftest.py), whose executors cannot
import rankwise until it is shipped.
"""

from __future__ import annotations

import zipfile

import pytest

from rankwise._version import __version__
from rankwise.engines.spark import executors
from rankwise.exceptions import MissingDependencyError


class _Partitions:
    def __init__(self, answer):
        self.answer = answer

    def mapPartitions(self, probe):  # noqa: N802 (pyspark's name)
        self.probe = probe
        return self

    def collect(self):
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


class _Context:
    def __init__(self, answer, app="app-1"):
        self.applicationId = app
        self.answer = answer
        self.added: list[str] = []

    def parallelize(self, data, slices):
        assert (list(data), slices) == ([0], 1)  # one tiny task
        return _Partitions(self.answer)

    def addPyFile(self, path):  # noqa: N802
        self.added.append(path)


class _Session:
    def __init__(self, answer, app="app-1"):
        self.sparkContext = _Context(answer, app)


def found(rankwise: str = __version__, numpy: str = "2.0", pyarrow: str = "17.0"):
    return [("worker-1", {"numpy": numpy, "pyarrow": pyarrow, "rankwise": rankwise})]


def test_the_probe_imports_what_partitions_needs():
    rows = list(executors.executor_probe()(iter([0])))
    assert rows[0][1]["rankwise"] == __version__
    assert not rows[0][1]["numpy"].startswith("!")


def test_missing_rankwise_is_one_line_saying_how_to_ship(monkeypatch):
    monkeypatch.setattr(executors, "_CHECKED", set())
    session = _Session(found(rankwise="!ModuleNotFoundError: No module named 'rankwise'"))
    with pytest.raises(MissingDependencyError) as info:
        executors.check_executors(session)
    message = str(info.value)
    assert "\n" not in message
    assert "rankwise is not importable on the Spark executors (worker-1: " in message
    assert "rankwise.spark.ship(spark)" in message and "strategy='ranks'" in message


def test_missing_numpy_or_pyarrow_cannot_be_shipped(monkeypatch):
    monkeypatch.setattr(executors, "_CHECKED", set())
    session = _Session(found(pyarrow="!ModuleNotFoundError: No module named 'pyarrow'"))
    with pytest.raises(MissingDependencyError, match=r"cannot import pyarrow .*spark.archives"):
        executors.check_executors(session)


def test_another_version_on_the_executors_is_refused(monkeypatch):
    monkeypatch.setattr(executors, "_CHECKED", set())
    with pytest.raises(MissingDependencyError, match=r"have rankwise 0.0.1, the driver"):
        executors.check_executors(_Session(found(rankwise="0.0.1")))


def test_a_task_that_cannot_run_is_reported(monkeypatch):
    monkeypatch.setattr(executors, "_CHECKED", set())
    failure = RuntimeError("Python worker exited unexpectedly\nlong java trace")
    with pytest.raises(MissingDependencyError, match=r"could not run a Python task \(Python"):
        executors.check_executors(_Session(failure))


def test_a_passed_check_is_remembered_per_application(monkeypatch):
    monkeypatch.setattr(executors, "_CHECKED", set())
    executors.check_executors(_Session(found()))
    executors.check_executors(_Session(RuntimeError("not asked again")))  # remembered
    with pytest.raises(MissingDependencyError):
        executors.check_executors(_Session(RuntimeError("a new application"), app="app-2"))


def test_ship_zips_rankwise_without_compiled_files(tmp_path, monkeypatch):
    monkeypatch.setattr(executors, "_CHECKED", {"app-1"})
    session = _Session(found())
    path = executors.ship(session, directory=str(tmp_path))
    assert session.sparkContext.added == [path]
    assert "app-1" not in executors._CHECKED  # checked again after shipping
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
    assert "rankwise/__init__.py" in names
    assert "rankwise/engines/spark/partitions.py" in names
    assert not [n for n in names if n.endswith((".so", ".pyd", ".c", ".pyc"))]
    assert not [n for n in names if "__pycache__" in n]
