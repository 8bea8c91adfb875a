"""rankwise's JVM code for the ``jvm`` strategy: compiled at first use, cached, loaded.

The source (``java/RanksPass.java``) ships with rankwise; no binary does. The
first time a session needs it, ``javac`` compiles it against the pyspark
install's jars, for the Java version the session's JVM runs, into a jar in
a cache folder keyed by the source, Spark's version and that Java version
(``$RANKWISE_CACHE_DIR``, else ``$XDG_CACHE_HOME/rankwise``, else
``~/.cache/rankwise``). The jar is written under a temporary name and renamed
into place: a failed or concurrent build never leaves a half-written jar.
It is added to the running session as ``ADD JAR`` adds one: the driver finds
its classes by name and the executors fetch it (also on a cluster). Spark
silently fails to load a jar from a path with a space or a quote, so such a
jar is first copied to the temporary folder; the class is looked up after
loading, and its absence is an error, not py4j's ``JavaPackage``.

Where no ``javac`` is found (a JRE only), on Spark Connect (no JVM on the
driver), when the cache folder cannot be written, or when the build fails,
:func:`load_jar` raises
:class:`JvmUnavailableError` saying why; ``strategy="auto"`` then uses the Spark
SQL plan.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rankwise.exceptions import MissingDependencyError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["CLASS", "JvmUnavailableError", "cache_dir", "find_javac", "load_jar", "source_path"]

CLASS = "rankwise.jvm.RanksPass"
"""The class the ``jvm`` strategy calls."""

_LOADED: dict[str, str] = {}
"""Per SparkContext (by its application id): the jar loaded into it."""


class JvmUnavailableError(MissingDependencyError):
    """rankwise's JVM code cannot run in this session (the message says why)."""


def source_path() -> Path:
    """The Java source of the ``jvm`` strategy, shipped with rankwise."""
    return Path(__file__).with_name("java") / "RanksPass.java"


def cache_dir() -> Path:
    """The folder of rankwise's built jars.

    ``$RANKWISE_CACHE_DIR``, else ``$XDG_CACHE_HOME/rankwise``, else
    ``~/.cache/rankwise``; the jars go in its ``spark-jvm`` folder.

    Examples
    --------
    >>> import os
    >>> os.environ["RANKWISE_CACHE_DIR"] = "/tmp/rw-cache"
    >>> str(cache_dir())
    '/tmp/rw-cache/spark-jvm'
    >>> del os.environ["RANKWISE_CACHE_DIR"]
    """
    root = os.environ.get("RANKWISE_CACHE_DIR")
    if not root:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(xdg, "rankwise")
    return Path(root) / "spark-jvm"


def find_javac() -> str:
    """The ``javac`` that builds the jar: ``$JAVA_HOME/bin/javac``, else the one on ``PATH``.

    Raises
    ------
    JvmUnavailableError
        Neither exists (a JRE without a compiler).
    """
    home = os.environ.get("JAVA_HOME")
    if home:
        candidate = os.path.join(home, "bin", "javac")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which("javac")
    if found is None:
        raise JvmUnavailableError(
            "no javac found (JAVA_HOME/bin or PATH) to build rankwise's JVM code: "
            "install a JDK (for example 'apt-get install openjdk-17-jdk-headless')"
        )
    return found


def _java_release(spark: SparkSession) -> str:
    """The Java version the session's JVM runs (``"17"``; ``"8"`` for ``"1.8"``)."""
    jvm: Any = spark._jvm
    version = str(jvm.java.lang.System.getProperty("java.specification.version"))
    return version.split(".")[1] if version.startswith("1.") else version


def _spark_jars() -> str:
    import pyspark

    return os.path.join(os.path.dirname(os.path.abspath(pyspark.__file__)), "jars")


def build_jar(spark_version: str, release: str) -> Path:
    """The jar for this Spark version and Java release, built when not cached.

    Raises
    ------
    JvmUnavailableError
        No ``javac``, or it failed (its output in the message).
    """
    source = source_path().read_bytes()
    key = hashlib.sha256(source + f"\0{spark_version}\0{release}".encode()).hexdigest()[:16]
    target = cache_dir() / key / "rankwise-jvm.jar"
    if target.is_file():
        return target
    javac = find_javac()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        return _compile(javac, release, target)
    except OSError as error:
        raise JvmUnavailableError(
            f"{target.parent}: rankwise's JVM code cannot be built there ({error}): set "
            "RANKWISE_CACHE_DIR to a folder this user can write"
        ) from None


def _compile(javac: str, release: str, target: Path) -> Path:
    """``javac`` into a temporary folder next to *target*, zipped, renamed to *target*."""
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".build-") as work:
        classes = os.path.join(work, "classes")
        command = [
            javac, "-nowarn", "-encoding", "UTF-8", "--release", release,
            "-cp", os.path.join(_spark_jars(), "*"), "-d", classes, str(source_path()),
        ]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as error:
            message = f"javac could not build rankwise's JVM code: {error}"
            raise JvmUnavailableError(message) from None
        if done.returncode != 0:
            raise JvmUnavailableError(
                f"javac could not build rankwise's JVM code (exit {done.returncode}): "
                + (done.stderr or done.stdout).strip()[-2000:]
            )
        built = os.path.join(work, "rankwise-jvm.jar")
        with zipfile.ZipFile(built, "w", zipfile.ZIP_DEFLATED) as jar:
            jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\n\r\n")
            for folder, _, files in sorted(os.walk(classes)):
                for name in sorted(files):
                    path = os.path.join(folder, name)
                    jar.write(path, os.path.relpath(path, classes))
        os.replace(built, target)  # whole or not at all, also when two builds race
    return target


def load_jar(spark: SparkSession) -> Any:
    """The JVM class of rankwise in *spark*: the jar built when needed and added to the session.

    Returns
    -------
    py4j JavaClass
        ``rankwise.jvm.RanksPass``.

    Raises
    ------
    JvmUnavailableError
        Spark Connect (no JVM on the driver), no ``javac``, or a failed build.
    """
    jvm = getattr(spark, "_jvm", None)
    context = getattr(spark, "_sc", None)
    if jvm is None or context is None:
        raise JvmUnavailableError(
            "a Spark Connect session has no JVM on the driver to run rankwise's code"
        )
    key = str(context.applicationId)
    if key not in _LOADED:
        jar = _plain_path(build_jar(str(spark.version), _java_release(spark)))
        # what ADD JAR runs, without SQL's quoting of the path: the driver's class
        # loader gets the jar, and the executors fetch it
        session: Any = spark._jsparkSession
        session.sessionState().resourceLoader().addJar(str(jar))
        _LOADED[key] = str(jar)
    found = functools.reduce(getattr, CLASS.split("."), jvm)
    if type(found).__name__ != "JavaClass":  # py4j's JavaPackage: the name is not a class
        raise JvmUnavailableError(
            f"the jar {_LOADED[key]} was added to the Spark session, but its class {CLASS} "
            "is not found there"
        )
    return found


def _plain_path(jar: Path) -> Path:
    """*jar*, or a copy of it in the temporary folder when Spark cannot load it from there.

    Spark's class loading silently misses a jar whose path has a space or a quote.
    """
    if re.fullmatch(r"[A-Za-z0-9._/+-]+", str(jar)):
        return jar
    plain = Path(tempfile.gettempdir()) / f"rankwise-jvm-{jar.parent.name}.jar"
    if not plain.is_file():
        try:
            with tempfile.NamedTemporaryFile(dir=plain.parent, suffix=".part", delete=False) as out:
                out.write(jar.read_bytes())
            os.replace(out.name, plain)
        except OSError as error:
            raise JvmUnavailableError(
                f"{jar}: Spark cannot load a jar from this path, and a copy in "
                f"{plain.parent} failed ({error}): set RANKWISE_CACHE_DIR to a plain path"
            ) from None
    return plain
