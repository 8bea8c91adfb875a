"""rankwise's JVM code for the ``jvm`` strategy: shipped compiled or built once, verified, loaded.

The wheel ships the pass compiled (``java/rankwise-jvm.jar``, built by
``setup.py`` against Spark 4's jars for Java 17) next to its source
(``java/RanksPass.java``) and a record of what it is (``java/rankwise-jvm.json``:
the jar's sha256, the source's sha256, the Spark version compiled against and
its major, the Java release). It is used when the record matches the jar's
bytes and the source beside it, and the session runs the same Spark major on
that Java release or a later one (:func:`shipped_jar`): a machine with a Java
runtime and no JDK runs the pass. Otherwise (a source tree, an edited source,
another Spark major), the first time a session needs it, ``javac`` compiles it against the pyspark
install's jars, for the Java version the session's JVM runs, into a jar kept in
a cache folder keyed by the source, Spark's version and that Java version
(``$RANKWISE_CACHE_DIR/spark-jvm/KEY/``, else under ``$XDG_CACHE_HOME/rankwise``,
else ``~/.cache/rankwise``), next to a record of what it is
(``rankwise-jvm.json``: the jar's sha256, the source's sha256, Spark's version,
the Java release). Both are written under temporary names and renamed into
place: a failed build never leaves a half-written jar. The jar is added to the
running session as ``ADD JAR`` adds one: the driver finds its classes by name
and the executors fetch it (also on a cluster). The class is looked up after
loading, and its absence is an error, not py4j's ``JavaPackage``.

Threat model
------------
The jar's classes run in the driver and on every executor with this user's
rights: a jar that anyone else chose must never be loaded. Trusted: rankwise's
own files (this module, the Java source), pyspark's install, the JDK, the
temporary folder as Python's :mod:`tempfile` trusts it, root, and this user
(who can change rankwise itself anyway). Not trusted: the other local users,
and whatever they can write or name first: a shared folder such as ``/tmp``, a
cache folder they own or may write, a file at a name they can guess.

- Cache folders are created 0700. Each folder of the cache (the root,
  ``spark-jvm``, the key's), new or found, is opened (below the root without
  following a symbolic link) and checked on the open descriptor: a folder
  owned by another user, or writable by its group or by others, is refused
  (:class:`JvmUnavailableError` names it and says what to do). Everything
  below is reached through the checked descriptors, so a folder renamed or
  replaced after its check is never used.
- Before every use the jar is read (a regular file of this user, never
  through a link) and its sha256 compared with its record, and the record
  with this source, Spark version and Java release (:func:`verified`). A jar
  without a record (an older rankwise's), with other bytes, or of another
  source is rebuilt, never loaded.
- Spark is given those verified bytes, written to a new file of this
  process's private temporary folder (:mod:`~rankwise.engines.spark._private`,
  0700, removed at exit): nothing can change them between the check and the
  loading, no file of a shared folder is ever reused, and a cache path with a
  space or a quote (which Spark silently fails to load from) does not matter.
- A build holds a lock (``flock`` on ``.lock`` in the key's folder): a second
  process waits, then finds the jar the first one built instead of compiling
  it again.

The jar shipped inside rankwise is checked by the same :func:`verified`, against
the record shipped with it (the package is as trusted as the code that reads it);
it is used from a private copy too.

Where no shipped jar fits and no ``javac`` is found (a JRE only), on Spark Connect (no JVM on the
driver), when the cache folder cannot be written or is refused, on a system
without POSIX folder descriptors, or when the build fails, :func:`load_jar`
raises :class:`JvmUnavailableError` saying why; ``strategy="auto"`` then uses
the Spark SQL plan.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import json
import os
import re
import secrets
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rankwise.engines.spark import _javac
from rankwise.exceptions import MissingDependencyError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = [
    "CLASS", "JvmUnavailableError", "build_jar", "cache_dir", "find_javac", "load_jar",
    "shipped_jar", "source_path", "verified",
]

CLASS = "rankwise.jvm.RanksPass"
"""The class the ``jvm`` strategy calls."""

JAR = _javac.JAR
RECORD = _javac.RECORD
LOCK = ".lock"
"""The names of a cache entry's files: the jar, its record, the build lock."""

_MAX_BYTES = 64 << 20
"""A file of a cache entry larger than this is not rankwise's (the jar is ~20 kB)."""

_LOADED: dict[str, str] = {}
"""Per SparkContext (by its application id): the jar loaded into it."""

_FROM: dict[str, str] = {}
"""Per SparkContext: where its jar came from ("shipped", or "built": compiled here)."""


class JvmUnavailableError(MissingDependencyError):
    """rankwise's JVM code cannot run in this session (the message says why)."""


def source_path() -> Path:
    """The Java source of the ``jvm`` strategy, shipped with rankwise."""
    return Path(__file__).with_name("java") / "RanksPass.java"


def shipped_path() -> Path:
    """The jar shipped in the wheel (absent from a source tree), its record beside it."""
    return source_path().with_name(JAR)


def shipped_jar(spark_version: str, release: str) -> tuple[bytes | None, str]:
    """The shipped jar when it fits this session, else None; and why (or why not).

    It fits when its record gives its bytes' sha256 and the source's beside it
    (the two match), the session's Spark has the major it was compiled against
    (Spark's internal row API, which the pass calls, is kept through a major),
    and the session's Java runs its class files (its release or a later one).

    Examples
    --------
    >>> shipped_jar("4.0.0", "17")[1].startswith(("shipped", "no jar shipped", "the shipped"))
    True
    """
    path = shipped_path()
    try:
        data = path.read_bytes()
        record = path.with_name(RECORD).read_bytes()
    except OSError:
        return None, "no jar shipped (a source tree)"
    source = hashlib.sha256(source_path().read_bytes()).hexdigest()
    major = spark_version.split(".")[0]
    found = verified(data, record, {"source_sha256": source, "spark_api": major})
    if found is None:
        return None, (f"the shipped jar is not of this source or of Spark {major} ({path.name} "
                      "and its record do not match them)")
    built_for = str(json.loads(record).get("java_release", ""))
    if not (built_for.isdigit() and release.isdigit() and int(release) >= int(built_for)):
        return None, f"the shipped jar needs Java {built_for} or later, the session runs {release}"
    return found, "shipped"


def cache_dir() -> Path:
    """The folder of rankwise's built jars.

    ``$RANKWISE_CACHE_DIR``, else ``$XDG_CACHE_HOME/rankwise``, else
    ``~/.cache/rankwise``; the jars go in its ``spark-jvm`` folder. It must
    belong to this user and not be writable by others (see the module's
    threat model): not a folder of a shared ``/tmp``.

    Examples
    --------
    >>> import os
    >>> os.environ["RANKWISE_CACHE_DIR"] = "/home/ana/.rankwise-cache"
    >>> str(cache_dir())
    '/home/ana/.rankwise-cache/spark-jvm'
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


def jar_origin(spark: SparkSession) -> str | None:
    """Where the jar loaded in *spark* came from: ``"shipped"``, ``"built"`` (None: none yet)."""
    context = getattr(spark, "_sc", None)
    return None if context is None else _FROM.get(str(context.applicationId))


def verified(data: bytes | None, record: bytes | None, expected: dict[str, str]) -> bytes | None:
    """*data* when it is the jar *record* describes, built from what *expected* says; else None.

    *record* is the JSON of the jar's ``jar_sha256`` and of what it was built
    from (``source_sha256``, ``spark``, ``java_release``); every field of
    *expected* must be in it with that value, and the sha256 of *data* must be
    ``jar_sha256``.

    Examples
    --------
    >>> import hashlib, json
    >>> wanted = {"source_sha256": "ab12", "spark": "4.0.0", "java_release": "17"}
    >>> record = json.dumps({**wanted, "jar_sha256": hashlib.sha256(b"PK..").hexdigest()})
    >>> verified(b"PK..", record.encode(), wanted)
    b'PK..'
    >>> verified(b"PK.!", record.encode(), wanted) is None  # other bytes
    True
    >>> verified(b"PK..", record.encode(), {**wanted, "spark": "4.1.0"}) is None
    True
    """
    if data is None or record is None:
        return None
    try:
        fields = json.loads(record)
    except ValueError:  # not JSON, or not UTF-8
        return None
    if not isinstance(fields, dict) or any(fields.get(k) != v for k, v in expected.items()):
        return None
    if fields.get("jar_sha256") != hashlib.sha256(data).hexdigest():
        return None
    return data


def build_jar(spark_version: str, release: str) -> bytes:
    """The jar for this Spark version and Java release, verified; built when not cached.

    Returns
    -------
    bytes
        The jar, whose sha256 matched its record (see the module's threat model).

    Raises
    ------
    JvmUnavailableError
        The cache folder is refused (another user's, or writable by others) or
        cannot be written, no ``javac``, or it failed (its output in the message).
    """
    if os.name != "posix" or not {os.open, os.mkdir, os.rename, os.unlink} <= os.supports_dir_fd:
        raise JvmUnavailableError(
            "rankwise's jar cache needs a POSIX system (folder descriptors, O_NOFOLLOW) "
            "to check who may write it"
        )
    source = source_path().read_bytes()
    expected = {"source_sha256": hashlib.sha256(source).hexdigest(), "spark": spark_version,
                "java_release": release}
    key = hashlib.sha256(source + f"\0{spark_version}\0{release}".encode()).hexdigest()[:16]
    shown = cache_dir() / key
    try:
        with _cache_folder(cache_dir().parent, key) as folder:
            found = verified(_read(folder, JAR), _read(folder, RECORD), expected)
            if found is not None:
                return found
            javac = find_javac()
            with _locked(folder):
                # another process may have built it while this one waited
                found = verified(_read(folder, JAR), _read(folder, RECORD), expected)
                if found is None:
                    found = _compile(javac, release)
                    record = {**expected, "jar_sha256": hashlib.sha256(found).hexdigest()}
                    _write(folder, JAR, found)
                    _write(folder, RECORD, json.dumps(record, indent=1).encode())
                return found
    except OSError as error:
        raise JvmUnavailableError(
            f"{shown}: rankwise's JVM code cannot be built there ({error}): set "
            "RANKWISE_CACHE_DIR to a folder this user can write"
        ) from None


_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


@contextlib.contextmanager
def _cache_folder(root: Path, key: str) -> Iterator[int]:
    """The descriptor of ``root/spark-jvm/key``, each folder made 0700 and checked."""
    os.makedirs(root, mode=0o700, exist_ok=True)
    opened: list[int] = []
    try:
        # the folder the user named: a link to it is followed, and what it leads to checked
        opened.append(os.open(root, _FOLDER_FLAGS))
        _check_folder(opened[-1], root)
        path = root
        for name in ("spark-jvm", key):
            path = path / name
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, 0o700, dir_fd=opened[-1])
            try:
                opened.append(os.open(name, _FOLDER_FLAGS | _NOFOLLOW, dir_fd=opened[-1]))
            except OSError as error:
                if error.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                raise JvmUnavailableError(
                    f"{path}: a folder of rankwise's jar cache is a symbolic link or not a "
                    "folder, which rankwise does not follow there: remove it (it is made again)"
                ) from None
            _check_folder(opened[-1], path)
        yield opened[-1]
    finally:
        for fd in opened:
            os.close(fd)


def _check_folder(fd: int, path: Path) -> None:
    """Refuse the folder open as *fd* unless it is this user's and only this user may write it."""
    info = os.fstat(fd)
    user = os.geteuid()
    if info.st_uid != user:
        raise JvmUnavailableError(
            f"{path}: this folder of rankwise's jar cache belongs to another user (uid "
            f"{info.st_uid}; this process runs as uid {user}), who could put any jar there; "
            "set RANKWISE_CACHE_DIR to a folder of your own (rankwise makes its folders 0700)"
        )
    if info.st_mode & 0o022:
        who = {0o020: "its group", 0o002: "others"}.get(info.st_mode & 0o022,
                                                       "its group and others")
        raise JvmUnavailableError(
            f"{path}: this folder of rankwise's jar cache is writable by {who} (mode "
            f"{stat.S_IMODE(info.st_mode):04o}), who could replace the jar there: 'chmod go-w "
            f"{path}', or set RANKWISE_CACHE_DIR to a folder of your own"
        )


def _read(folder: int, name: str) -> bytes | None:
    """The bytes of *name* in *folder* when it is a regular file of this user, not a link."""
    flags = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(name, flags, dir_fd=folder)
    except OSError:  # absent, a link, unreadable: not an entry to use (it is built again)
        return None
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(fd)
        if (not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid()
                or info.st_mode & 0o022 or info.st_size > _MAX_BYTES):
            return None
        return file.read(_MAX_BYTES + 1)


def _write(folder: int, name: str, data: bytes) -> None:
    """*data* as *name* in *folder*: a new file (0600), synced, renamed over *name*."""
    temporary = f".{name}.{secrets.token_hex(8)}"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(temporary, flags, 0o600, dir_fd=folder)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        # renameat: on POSIX it replaces *name* whole (os.replace is the same call)
        os.rename(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary, dir_fd=folder)
        raise


@contextlib.contextmanager
def _locked(folder: int) -> Iterator[None]:
    """Hold the build lock of the cache entry *folder* (other processes wait for it)."""
    import fcntl

    flags = os.O_RDWR | os.O_CREAT | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(LOCK, flags, 0o600, dir_fd=folder)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _compile(javac: str, release: str) -> bytes:
    """``javac`` into a private temporary folder; the classes zipped into a jar in memory."""
    try:
        return _javac.compile_jar(javac, source_path(), _spark_jars(), release)
    except _javac.BuildError as error:
        raise JvmUnavailableError(str(error)) from None


def load_jar(spark: SparkSession) -> Any:
    """The JVM class of rankwise in *spark*: the jar shipped, or built, added to the session.

    The shipped jar when it fits the session (:func:`shipped_jar`), else the one
    built here (:func:`build_jar`); its bytes verified and added from a new file
    of this process's private temporary folder.

    Returns
    -------
    py4j JavaClass
        ``rankwise.jvm.RanksPass``.

    Raises
    ------
    JvmUnavailableError
        Spark Connect (no JVM on the driver); or no shipped jar fits and a
        refused cache folder, no ``javac``, or a failed build (the message
        says why the shipped one does not fit, too).
    """
    jvm = getattr(spark, "_jvm", None)
    context = getattr(spark, "_sc", None)
    if jvm is None or context is None:
        raise JvmUnavailableError(
            "a Spark Connect session has no JVM on the driver to run rankwise's code"
        )
    key = str(context.applicationId)
    if key not in _LOADED:
        release = _java_release(spark)
        data, why = shipped_jar(str(spark.version), release)
        if data is None:
            try:
                data = build_jar(str(spark.version), release)
            except JvmUnavailableError as error:
                raise JvmUnavailableError(f"{error} ({why})") from None
        jar = _private_jar(data)
        # what ADD JAR runs, without SQL's quoting of the path: the driver's class
        # loader gets the jar, and the executors fetch it
        session: Any = spark._jsparkSession
        session.sessionState().resourceLoader().addJar(jar)
        _LOADED[key] = jar
        _FROM[key] = "shipped" if why == "shipped" else "built"
    found = functools.reduce(getattr, CLASS.split("."), jvm)
    if type(found).__name__ != "JavaClass":  # py4j's JavaPackage: the name is not a class
        raise JvmUnavailableError(
            f"the jar {_LOADED[key]} was added to the Spark session, but its class {CLASS} "
            "is not found there"
        )
    return found


def _private_jar(data: bytes) -> str:
    """*data* written to a new file of this process's private folder, for Spark to load.

    Spark's class loading silently misses a jar whose path has a space or a quote.
    """
    from rankwise.engines.spark._private import private_file

    try:
        path = private_file(data, f"rankwise-jvm-{hashlib.sha256(data).hexdigest()[:16]}-",
                            ".jar")
    except OSError as error:
        raise JvmUnavailableError(
            f"rankwise's jar cannot be written to a private folder of {tempfile.gettempdir()} "
            f"({error}): set TMPDIR to a folder this user can write"
        ) from None
    if not re.fullmatch(r"[A-Za-z0-9._/+-]+", path):
        raise JvmUnavailableError(
            f"{path}: Spark cannot load a jar from a path with a space or a quote: set TMPDIR "
            "to a plain path"
        )
    return path
