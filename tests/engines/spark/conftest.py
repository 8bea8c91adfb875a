"""One Spark session for the whole test session; skip cleanly without pyspark or Java.

By default the session is ``local[2]``. With ``RANKWISE_SPARK_CLUSTER=1`` it
is a real standalone cluster instead: a master and a worker started from
the pyspark install as separate JVMs on 127.0.0.1 (stopped by process id
at the end), whose executors run Python without rankwise on their path,
as on a cluster where it was never installed. The session then records
what the executor check said before rankwise was shipped
(``CLUSTER_BEFORE_SHIP``), ships it with ``rankwise.spark.ship`` and
runs the tests there (``.ci/run`` runs the parity tests this way).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CLUSTER = os.environ.get("RANKWISE_SPARK_CLUSTER", "") not in ("", "0")
CLUSTER_BEFORE_SHIP: dict[str, object] = {}
"""On the cluster: ``{"error": what check_executors raised before rankwise was shipped}``."""


def _without_pyspark() -> str | None:
    """Why the Spark tests cannot run here (None: pyspark imports)."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed: pip install 'rankwise[spark]'"
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # every test here skips without pyspark, also one that imports pyspark itself (a machine
    # with a JDK but no pyspark runs the test command too)
    missing = _without_pyspark()
    for item in items:
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.spark)
            if missing:
                item.add_marker(pytest.mark.skip(reason=missing))
            # pyspark 4 warns about pandas 3 on every DataFrame conversion; rankwise uses Arrow
            item.add_marker(
                pytest.mark.filterwarnings(
                    "ignore:PySpark does not yet fully support pandas:FutureWarning"
                )
            )


@pytest.fixture(scope="session")
def spark():
    missing = _without_pyspark()
    if missing:
        pytest.skip(missing)
    from rankwise.engines.spark import find_java
    from rankwise.exceptions import MissingDependencyError

    try:
        find_java()
    except MissingDependencyError as error:
        pytest.skip(str(error))
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    if CLUSTER:
        with standalone_cluster() as master:
            yield from _session(SparkSession, master)
    else:
        yield from _session(SparkSession, "local[2]")


def _session(builder_class, master: str):
    session = (
        builder_class.builder.master(master)
        .appName("rankwise-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.default.parallelism", "2")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        # a small JVM starts and warms up faster on a busy 2-core machine
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        .config("spark.driver.memory", "1g")
        .config("spark.executor.memory", "512m")  # standalone cluster only: fits its 1g worker
        .config("spark.executor.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    if CLUSTER:
        from rankwise.engines.spark.executors import check_executors, ship

        try:
            check_executors(session)
        except Exception as error:  # expected: rankwise is not on the executors' path
            CLUSTER_BEFORE_SHIP["error"] = error
        ship(session)
    yield session
    session.stop()


@pytest.fixture(scope="session")
def cluster_before_ship(spark) -> dict[str, object]:
    """On the standalone cluster, what the executor check said before shipping; else skip."""
    if not CLUSTER:
        pytest.skip("set RANKWISE_SPARK_CLUSTER=1 to run on a standalone master and worker")
    return CLUSTER_BEFORE_SHIP


def _spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent


def _start(kind: str, args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen:
    """Start a Spark daemon in its own JVM (``spark-class`` execs java: the pid is the JVM)."""
    home = _spark_home()
    with open(log, "wb") as out:
        return subprocess.Popen(
            [str(home / "bin" / "spark-class"), f"org.apache.spark.deploy.{kind}", *args],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )


def _wait_for(log: Path, pattern: str, process: subprocess.Popen, seconds: float) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = re.search(pattern, log.read_text(errors="replace"))
        if found:
            return found.group(1)
        if process.poll() is not None:
            break
        time.sleep(0.5)
    pytest.fail(f"the standalone cluster did not start: see {log}")


_HIDE_INSTALLED_RANKWISE = """
import importlib.machinery
import sys


class HideInstalledRankwise:
    \"\"\"Find rankwise only in zips on sys.path (what SparkContext.addPyFile ships).\"\"\"

    def find_spec(self, name, path=None, target=None):
        if name != "rankwise":
            return None
        zips = [entry for entry in sys.path if entry.endswith(".zip")]
        spec = importlib.machinery.PathFinder.find_spec(name, zips)
        if spec is None:
            raise ModuleNotFoundError("No module named 'rankwise'", name=name)
        return spec


sys.meta_path.insert(0, HideInstalledRankwise())
"""


@contextlib.contextmanager
def standalone_cluster() -> Iterator[str]:
    """A standalone master and one worker on 127.0.0.1; yields the master URL.

    Their executors' Python cannot import rankwise, even where it is
    installed (as in CI): a ``sitecustomize`` on their ``PYTHONPATH`` hides
    every rankwise but one shipped as a zip.
    """
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="rankwise-cluster-"))
    (folder / "hide").mkdir()
    (folder / "hide" / "sitecustomize.py").write_text(_HIDE_INSTALLED_RANKWISE)
    env = dict(os.environ)
    env.update(
        # the driver's path too (this checkout's src): rankwise is there, and hidden
        PYTHONPATH=os.pathsep.join(
            filter(None, [str(folder / "hide"), os.environ.get("PYTHONPATH", "")])
        ),
        SPARK_HOME=str(_spark_home()),
        SPARK_LOCAL_IP="127.0.0.1",
        SPARK_NO_DAEMONIZE="1",
        SPARK_WORKER_DIR=str(folder / "work"),
        PYSPARK_PYTHON=sys.executable,
    )
    started: list[subprocess.Popen] = []
    running = False
    try:
        master_log = folder / "master.log"
        started.append(
            _start("master.Master", ["--host", "127.0.0.1", "--port", "0", "--webui-port", "0"],
                   master_log, env)
        )
        url = _wait_for(master_log, r"Starting Spark master at (spark://\S+)", started[0], 300)
        worker_log = folder / "worker.log"
        started.append(
            _start(
                "worker.Worker",
                [url, "--host", "127.0.0.1", "--port", "0", "--webui-port", "0",
                 "--cores", "2", "--memory", "1g", "--work-dir", str(folder / "work")],
                worker_log,
                env,
            )
        )
        _wait_for(worker_log, r"(Successfully registered) with master", started[1], 300)
        running = True  # the logs are kept only when the cluster did not start
        yield url
    finally:
        for process in reversed(started):  # by process id: the worker first, then the master
            if process.poll() is None:
                os.kill(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    os.kill(process.pid, signal.SIGKILL)
                    process.wait()
        if running:
            shutil.rmtree(folder, ignore_errors=True)

