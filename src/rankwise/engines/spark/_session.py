"""Finding pyspark and Java, and starting a Spark session when asked to."""

from __future__ import annotations

import os
import shutil
from typing import TYPE_CHECKING, Any

from rankwise.exceptions import MissingDependencyError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["find_java", "get_session", "require_pyspark"]

INSTALL_HINT = "pip install 'rankwise[spark]'"


def require_pyspark() -> Any:
    """Import and return :mod:`pyspark`, or say how to install it.

    Raises
    ------
    MissingDependencyError
        When pyspark is not installed.
    """
    try:
        import pyspark
    except ImportError as error:
        raise MissingDependencyError(
            f"the Spark engine needs pyspark, which is not installed: {INSTALL_HINT}"
        ) from error
    return pyspark


def find_java() -> str:
    """Return the path of the ``java`` executable Spark will start.

    Spark uses ``$JAVA_HOME/bin/java`` when ``JAVA_HOME`` is set, else the
    ``java`` on ``PATH``.

    Raises
    ------
    MissingDependencyError
        When neither exists: Spark cannot start without Java (17 or later).
    """
    home = os.environ.get("JAVA_HOME")
    if home:
        candidate = os.path.join(home, "bin", "java")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
        raise MissingDependencyError(
            f"JAVA_HOME is {home!r} but {candidate} is not an executable; the Spark engine "
            "needs Java 17 or later: fix JAVA_HOME or unset it to use the java on PATH"
        )
    found = shutil.which("java")
    if found is None:
        raise MissingDependencyError(
            "the Spark engine needs Java 17 or later, and no 'java' was found on PATH "
            "(and JAVA_HOME is not set): install a JDK or JRE, for example "
            "'apt-get install openjdk-17-jre-headless', or set JAVA_HOME"
        )
    return found


def get_session(
    master: str | None = None,
    *,
    app_name: str = "rankwise",
    config: dict[str, str] | None = None,
) -> SparkSession:
    """Return the active Spark session, or start one.

    Parameters
    ----------
    master : str, optional
        Spark master URL, for example ``"local[2]"``, ``"yarn"`` or
        ``"spark://host:7077"``. Without it an active session is reused, and a
        new one uses Spark's own default (``spark-submit --master`` or
        ``local[*]``).
    app_name : str
        Application name shown in the Spark UI.
    config : dict, optional
        Extra Spark settings, ``{"spark.executor.memory": "8g"}``.

    Returns
    -------
    SparkSession

    Raises
    ------
    MissingDependencyError
        When pyspark is not installed, or Java cannot be found.
    """
    require_pyspark()
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None and master is None and not config:
        return active
    find_java()
    builder = SparkSession.builder.appName(app_name)
    if master is not None:
        builder = builder.master(master)
    for key, value in (config or {}).items():
        builder = builder.config(key, value)
    return builder.getOrCreate()
