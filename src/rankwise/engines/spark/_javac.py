"""``javac`` on ``RanksPass.java`` into a jar, and the record of what it was built from.

Standard library only: ``setup.py`` loads this file by its path when the wheel
is built (rankwise's dependencies may not be installed then), and
:mod:`rankwise.engines.spark.jar` uses it to build the jar on a machine where
the package came without one.

The record (``rankwise-jvm.json``) says what the jar is: its sha256, the sha256
of the source it was compiled from, the Spark version whose jars it was
compiled against, that version's major (``spark_api``: the Spark versions it
runs on, the internal row API it calls being the same through a major) and
the Java release of its class files.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

__all__ = ["JAR", "RECORD", "SOURCE", "build_prebuilt", "compile_jar", "find_spark_jars",
           "record_of", "spark_version_of"]

SOURCE = "RanksPass.java"
JAR = "rankwise-jvm.jar"
RECORD = "rankwise-jvm.json"
"""The names of the source, the jar and its record (side by side in ``java/``)."""

RELEASE = "17"
"""The Java release of a prebuilt jar: Spark 4 runs on Java 17 and later."""


class BuildError(Exception):
    """``javac`` could not build the jar (its output in the message)."""


def compile_jar(javac: str, source: Path, jars: str, release: str) -> bytes:
    """``javac --release`` on *source* against the Spark jars in *jars*, zipped into a jar.

    The jar is made in memory from a private temporary folder, its entries in a
    fixed order and with fixed times: the same classes give the same bytes.

    Raises
    ------
    BuildError
        ``javac`` could not run or failed (its output in the message).
    """
    with tempfile.TemporaryDirectory(prefix="rankwise-jvm-build-") as work:
        classes = os.path.join(work, "classes")
        command = [javac, "-nowarn", "-encoding", "UTF-8", "--release", release,
                   "-cp", os.path.join(jars, "*"), "-d", classes, str(source)]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as error:
            raise BuildError(f"javac could not build rankwise's JVM code: {error}") from None
        if done.returncode != 0:
            raise BuildError(
                f"javac could not build rankwise's JVM code (exit {done.returncode}): "
                + (done.stderr or done.stdout).strip()[-2000:]
            )
        built = io.BytesIO()
        with zipfile.ZipFile(built, "w", zipfile.ZIP_DEFLATED) as jar:
            manifest = zipfile.ZipInfo("META-INF/MANIFEST.MF", (1980, 1, 1, 0, 0, 0))
            jar.writestr(manifest, "Manifest-Version: 1.0\r\n\r\n")
            for folder, _, files in sorted(os.walk(classes)):
                for name in sorted(files):
                    path = os.path.join(folder, name)
                    entry = zipfile.ZipInfo(os.path.relpath(path, classes), (1980, 1, 1, 0, 0, 0))
                    with open(path, "rb") as file:
                        jar.writestr(entry, file.read(), zipfile.ZIP_DEFLATED)
    return built.getvalue()


def spark_version_of(jars: str) -> str | None:
    """The Spark version of a folder of Spark's jars (from ``spark-core_*-VERSION.jar``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = tempfile.mkdtemp()
    >>> _ = (pathlib.Path(folder) / "spark-core_2.13-4.0.1.jar").write_bytes(b"")
    >>> spark_version_of(folder)
    '4.0.1'
    """
    try:
        names = os.listdir(jars)
    except OSError:
        return None
    for name in sorted(names):
        found = re.fullmatch(r"spark-core_[\d.]+-(\d+\.\d+\.\d+[\w.-]*)\.jar", name)
        if found:
            return found.group(1)
    return None


def find_spark_jars() -> str | None:
    """Spark's jars to compile against: ``$RANKWISE_SPARK_JARS``, ``$SPARK_HOME/jars``, pyspark's.

    The first that holds a ``spark-core`` jar; None when there is none.
    """
    candidates = [os.environ.get("RANKWISE_SPARK_JARS")]
    if os.environ.get("SPARK_HOME"):
        candidates.append(os.path.join(os.environ["SPARK_HOME"], "jars"))
    try:
        import importlib.util

        spec = importlib.util.find_spec("pyspark")
        if spec is not None and spec.origin:
            candidates.append(os.path.join(os.path.dirname(spec.origin), "jars"))
    except (ImportError, ValueError):
        pass
    for candidate in candidates:
        if candidate and spark_version_of(candidate) is not None:
            return candidate
    return None


def record_of(jar: bytes, source: bytes, spark: str, release: str) -> dict[str, str]:
    """What a jar is: its sha256, its source's, the Spark it was compiled against, its release.

    Examples
    --------
    >>> fields = record_of(b"PK..", b"class X {}", "4.0.1", "17")
    >>> fields["spark"], fields["spark_api"], fields["java_release"]
    ('4.0.1', '4', '17')
    """
    return {
        "jar_sha256": hashlib.sha256(jar).hexdigest(),
        "source_sha256": hashlib.sha256(source).hexdigest(),
        "spark": spark,
        "spark_api": spark.split(".")[0],
        "java_release": release,
    }


def build_prebuilt(folder: Path, *, javac: str | None = None, jars: str | None = None) -> str:
    """Compile ``folder/RanksPass.java`` into ``folder/rankwise-jvm.jar`` with its record.

    What the wheel ships (``setup.py``'s ``build_py``). *javac* defaults to
    ``$JAVA_HOME/bin/javac`` or the one on ``PATH``, *jars* to
    :func:`find_spark_jars`. Returns the Spark version compiled against.

    Raises
    ------
    BuildError
        No ``javac``, no Spark jars, or the build failed.
    """
    javac = javac or _javac()
    jars = jars or find_spark_jars()
    if jars is None:
        raise BuildError("no Spark jars to compile against: set RANKWISE_SPARK_JARS or "
                         "SPARK_HOME, or install pyspark")
    spark = spark_version_of(jars)
    assert spark is not None  # find_spark_jars checked it
    source = (folder / SOURCE).read_bytes()
    jar = compile_jar(javac, folder / SOURCE, jars, RELEASE)
    (folder / JAR).write_bytes(jar)
    (folder / RECORD).write_text(json.dumps(record_of(jar, source, spark, RELEASE), indent=1))
    return spark


def _javac() -> str:
    home = os.environ.get("JAVA_HOME")
    if home and os.access(os.path.join(home, "bin", "javac"), os.X_OK):
        return os.path.join(home, "bin", "javac")
    found = shutil.which("javac")
    if found is None:
        raise BuildError("no javac (JAVA_HOME/bin or PATH): install a JDK 17 or later")
    return found
