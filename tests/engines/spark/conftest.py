"""One local Spark session for the whole test session; skip cleanly without pyspark or Java."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.spark)
            # pyspark 4 warns about pandas 3 on every DataFrame conversion; rankwise uses Arrow
            item.add_marker(
                pytest.mark.filterwarnings(
                    "ignore:PySpark does not yet fully support pandas:FutureWarning"
                )
            )


@pytest.fixture(scope="session")
def spark():
    try:
        import pyspark  # noqa: F401
    except ImportError:
        pytest.skip("pyspark is not installed: pip install 'rankwise[spark]'")
    from rankwise.engines.spark import find_java
    from rankwise.exceptions import MissingDependencyError

    try:
        find_java()
    except MissingDependencyError as error:
        pytest.skip(str(error))
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[2]")
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
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
