"""Finding pyspark and Java, and starting a Spark session when asked to."""

from __future__ import annotations

import os
import shutil
from typing import TYPE_CHECKING, Any

from rankwise._validation import OneOf, check
from rankwise.exceptions import MissingDependencyError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["LOG_LEVELS", "find_java", "get_session", "log_options", "require_pyspark"]

LOG_LEVELS = ("error", "warn", "info", "debug")
"""Levels of Spark's console log a new session can be started with (``log_level``)."""

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


def log_options(level: str) -> dict[str, str]:
    """Spark settings that start the driver's console log at *level* (and no lower).

    Spark's own log4j2 profile logs WARN and above and prints banners
    ("Using Spark's default log4j profile", "Setting default log level")
    before any Python code can call ``setLogLevel``. Here the driver JVM gets
    a log4j2 configuration of its own (a small new file in a private folder of
    this process, see :mod:`~rankwise.engines.spark._private`) whose root and
    shell loggers are at *level*: nothing below it is printed, nor the
    banners. At ``error`` the progress bar is off too.

    Examples
    --------
    >>> options = log_options("error")
    >>> options["spark.ui.showConsoleProgress"]
    'false'
    >>> "-Dlog4j2.configurationFile=file:" in options["spark.driver.extraJavaOptions"]
    True
    """
    from rankwise.engines.spark._private import private_file

    # log4j's own names are upper case: take either
    level = check("log level", level, OneOf(LOG_LEVELS, fold=str.lower))
    text = (
        f"rootLogger.level = {level}\n"
        "rootLogger.appenderRef.stderr.ref = console\n"
        "appender.console.type = Console\n"
        "appender.console.name = console\n"
        "appender.console.target = SYSTEM_ERR\n"
        "appender.console.layout.type = PatternLayout\n"
        "appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex\n"
        # Spark's loggers configured at the root's level: Spark then prints no
        # "Setting default log level" (it does when they follow the root's configuration)
        "logger.spark.name = org.apache.spark\n"
        f"logger.spark.level = {level}\n"
    )
    if level in ("error", "warn"):
        # a task that fails (a malformed TREC line read inside the pass) is logged by the
        # executor with its Java stack, then raised again on the driver, where rankwise
        # says it in one line: the executor's and the task set's copies add only the stack
        text += (
            "logger.executor.name = org.apache.spark.executor.Executor\n"
            "logger.executor.level = fatal\n"
            "logger.tasks.name = org.apache.spark.scheduler.TaskSetManager\n"
            "logger.tasks.level = fatal\n"
        )
    # a new file of a private folder: a fixed name in /tmp could be another user's
    path = private_file(text.encode(), f"rankwise-spark-log4j2-{level}-", ".properties")
    options = {"spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile=file:{path}"}
    if level == "error":
        options["spark.ui.showConsoleProgress"] = "false"
    return options


JVM_NOISE = (b"WARNING: Using incubator modules",)
"""Lines the Java launcher prints before any logging is set up (Spark 4 adds the
``jdk.incubator.vector`` module); dropped from the JVM's stderr under ``--quiet``."""


def forward_stderr(stream: Any, write: Any, noise: tuple[bytes, ...] = JVM_NOISE) -> None:
    r"""Copy the lines of *stream* to *write*, but those that start with one of *noise*.

    Runs until *stream* ends (the JVM exits). Every other line is written as it came:
    Spark's errors, a JVM crash, anything printed by a user's Java options.

    Examples
    --------
    >>> import io
    >>> out = []
    >>> forward_stderr(io.BytesIO(b"WARNING: Using incubator modules: x\nreal error\n"),
    ...                out.append)
    >>> out
    [b'real error\n']
    """
    for line in iter(stream.readline, b""):
        if not line.startswith(noise):
            write(line)


def _write_stderr(line: bytes) -> None:
    import sys

    try:
        sys.stderr.write(line.decode("utf-8", "replace"))
        sys.stderr.flush()
    except (OSError, ValueError):  # stderr closed: nothing is lost that anyone reads
        pass


def _start_context_quietly(master: str | None, app_name: str, settings: dict[str, str]) -> None:
    """Start the JVM and the SparkContext with the launcher's noise filtered from its stderr.

    ``SparkSession.builder.getOrCreate()`` then finds this context and uses it. A JVM
    already running (a context of the caller's, ``PYSPARK_GATEWAY_PORT``) is left alone.
    """
    import subprocess
    import threading

    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    if SparkContext._active_spark_context is not None or os.environ.get("PYSPARK_GATEWAY_PORT"):
        return
    conf = SparkConf().setAppName(app_name)
    if master is not None:
        conf.setMaster(master)
    for key, value in settings.items():
        conf.set(key, value)
    gateway = launch_gateway(conf, popen_kwargs={"stderr": subprocess.PIPE})
    threading.Thread(target=forward_stderr, args=(gateway.proc.stderr, _write_stderr),
                     name="rankwise-jvm-stderr", daemon=True).start()
    SparkContext(conf=conf, gateway=gateway)


def get_session(
    master: str | None = None,
    *,
    app_name: str = "rankwise",
    config: dict[str, str] | None = None,
    log_level: str | None = None,
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
    log_level : {"error", "warn", "info", "debug"}, optional
        For a new session: the lowest level of the driver's console log (see
        :func:`log_options`); ``rankwise --quiet`` uses ``error``. Without
        it, Spark's own logging settings apply. An active session is left
        as it is.

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
    settings = dict(config or {})
    if log_level is not None and active is None:  # a running JVM keeps its log settings
        logging = log_options(log_level)
        java = "spark.driver.extraJavaOptions"
        if settings.get(java):  # the user's Java options, and the log configuration
            logging[java] = f"{settings[java]} {logging[java]}"
        settings = {**logging, **{k: v for k, v in settings.items() if k != java},
                    java: logging[java]}
    if log_level in ("error", "warn"):
        import warnings

        # pyspark 4 warns about pandas 3 on every conversion; rankwise converts through Arrow
        warnings.filterwarnings("ignore", "PySpark does not yet fully support pandas",
                                FutureWarning)
    if log_level == "error" and active is None:
        _start_context_quietly(master, app_name, settings)
    for key, value in settings.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()
