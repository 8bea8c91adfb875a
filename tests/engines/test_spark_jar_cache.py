"""Issue 33, item 12: the ``jvm`` strategy loads only a jar this user built from this source.

The threat: another local user creates first a file or folder rankwise reads (in a
shared ``/tmp``, or a cache folder they own or may write) and gets their classes
loaded into the driver and every executor. Each check is a function run here as
the current user and, when the tests run as root, again in a forked child that
drops to uid and gid 65534 (a user who is not root, for whom root is the other
user); a machine without root runs them as its own user. They need neither Java
nor pyspark: ``javac`` is a small shell script (it records each call and writes
one class), and the Spark session a stand-in that records the jar Spark is given.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import stat
import tempfile
import time
import traceback
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

import rankwise.engines.spark._private as private
import rankwise.engines.spark.jar as jar
from rankwise.engines.spark.jar import JvmUnavailableError

fcntl = pytest.importorskip("fcntl", reason="the jar cache needs POSIX (flock)")


@pytest.fixture(autouse=True)
def _no_shipped_jar(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The cache is what is tested: an installed wheel ships a jar, which is taken first."""
    monkeypatch.setattr(jar, "shipped_path", lambda: tmp_path / "none" / "rankwise-jvm.jar")

OTHER = 65534
"""The other user: ``nobody`` on most systems (a uid needs no account to own files)."""

FAKE_JAVAC = r"""#!/bin/sh
# javac's stand-in: records the call, waits for $JAVAC_GO when it is set, writes one class
echo "$$" >> "$JAVAC_CALLS"
if [ -n "$JAVAC_GO" ]; then
    : > "$JAVAC_STARTED"
    while [ ! -e "$JAVAC_GO" ]; do sleep 0.05; done
fi
while [ $# -gt 1 ]; do
    if [ "$1" = "-d" ]; then out="$2"; fi
    shift
done
mkdir -p "$out/rankwise/jvm" && printf 'class %s' "$$" > "$out/rankwise/jvm/RanksPass.class"
"""

CLASS_FILE = "rankwise/jvm/RanksPass.class"


def a_jar(class_bytes: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr(CLASS_FILE, class_bytes)
    return out.getvalue()


ATTACKER = a_jar(b"the other user's class")


class JavaClass:
    """What py4j gives for a name that is a class (load_jar checks the type's name)."""


def fake_session(app: str) -> tuple[SimpleNamespace, list[str]]:
    """A stand-in Spark session on Java 17 whose ``addJar`` records the path it is given."""
    added: list[str] = []
    system = SimpleNamespace(getProperty=lambda name: "17")
    jvm = SimpleNamespace(java=SimpleNamespace(lang=SimpleNamespace(System=system)),
                          rankwise=SimpleNamespace(jvm=SimpleNamespace(RanksPass=JavaClass())))
    loader = SimpleNamespace(addJar=added.append)
    state = SimpleNamespace(resourceLoader=lambda: loader)
    session = SimpleNamespace(_jvm=jvm, _sc=SimpleNamespace(applicationId=app), version="4.0.0",
                              _jsparkSession=SimpleNamespace(sessionState=lambda: state))
    return session, added


class Workspace:
    """A cache, a shared temporary folder (as /tmp: anyone writes, sticky), javac's stand-in."""

    def __init__(self, base: Path, patch: pytest.MonkeyPatch) -> None:
        self.base = base
        self.patch = patch
        self.cache = base / "cache"
        self.shared = base / "shared"
        self.calls = base / "javac-calls"
        bin_folder = base / "bin"
        for folder in (self.shared, bin_folder):
            folder.mkdir(exist_ok=True)
        os.chmod(self.shared, 0o1777)
        javac = bin_folder / "javac"
        javac.write_text(FAKE_JAVAC)
        javac.chmod(0o755)
        patch.setenv("RANKWISE_CACHE_DIR", str(self.cache))
        patch.delenv("JAVA_HOME", raising=False)
        patch.setenv("PATH", f"{bin_folder}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}")
        patch.setenv("JAVAC_CALLS", str(self.calls))
        patch.delenv("JAVAC_GO", raising=False)
        patch.setattr(tempfile, "tempdir", str(self.shared))
        patch.setattr(jar, "_spark_jars", lambda: str(base))  # javac's stand-in needs no pyspark
        patch.setattr(jar, "_LOADED", {})
        patch.setattr(private, "_FOLDER", {})

    def javac_calls(self) -> list[str]:
        return self.calls.read_text().split() if self.calls.exists() else []

    def load(self, app: str) -> tuple[Path, bytes]:
        """The file a new session is given by ``load_jar``, and its bytes."""
        session, added = fake_session(app)
        jar.load_jar(session)
        (path,) = added
        return Path(path), Path(path).read_bytes()

    def assert_built_here(self, data: bytes) -> None:
        """*data* is a jar of the class one of javac's calls wrote, never the other user's."""
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            content = archive.read(CLASS_FILE)
        assert content.startswith(b"class ") and content[6:].decode() in self.javac_calls()

    def entry(self) -> Path:
        (entry,) = (self.cache / "spark-jvm").iterdir()
        return entry

    def forge(self, data: bytes, record: bool = True) -> None:
        """*data* as the cached jar, with a record that matches it (or none: an older layout)."""
        entry = self.entry()
        record_path = entry / jar.RECORD
        fields = json.loads(record_path.read_text()) if record_path.exists() else {}
        (entry / jar.JAR).write_bytes(data)
        record_path.unlink(missing_ok=True)
        if record:
            fields["jar_sha256"] = hashlib.sha256(data).hexdigest()
            (entry / jar.RECORD).write_text(json.dumps(fields))


# ---- the checks: each one as the current user, and as a user who is not root ------------


def check_new_cache_folders_are_private(ws: Workspace) -> None:
    _, data = ws.load("app-1")
    ws.assert_built_here(data)
    entry = ws.entry()
    for folder in (ws.cache, ws.cache / "spark-jvm", entry):
        info = folder.stat()
        assert (stat.S_IMODE(info.st_mode), info.st_uid) == (0o700, os.geteuid()), folder
    for name in (jar.JAR, jar.RECORD):
        assert stat.S_IMODE((entry / name).stat().st_mode) == 0o600, name
    assert (entry / jar.JAR).read_bytes() == data
    record = json.loads((entry / jar.RECORD).read_text())
    assert record["jar_sha256"] == hashlib.sha256(data).hexdigest()
    assert record["source_sha256"] == hashlib.sha256(jar.source_path().read_bytes()).hexdigest()


def check_a_changed_jar_is_rebuilt_never_loaded(ws: Workspace) -> None:
    ws.load("app-1")
    ws.forge(ATTACKER, record=False)  # other bytes, and no record (an older rankwise's layout)
    _, data = ws.load("app-2")
    assert data != ATTACKER and len(ws.javac_calls()) == 2
    ws.assert_built_here(data)
    # other bytes, with a record that matches them but names another source
    ws.forge(ATTACKER)
    record = json.loads((ws.entry() / jar.RECORD).read_text())
    record["source_sha256"] = hashlib.sha256(b"another RanksPass.java").hexdigest()
    (ws.entry() / jar.RECORD).write_text(json.dumps(record))
    _, data = ws.load("app-3")
    assert data != ATTACKER and len(ws.javac_calls()) == 3
    ws.assert_built_here(data)
    # the same bytes, found again: verified, not rebuilt
    _, again = ws.load("app-4")
    assert again == data and len(ws.javac_calls()) == 3
    # a truncated jar (its record names the whole one): built again
    (ws.entry() / jar.JAR).write_bytes(data[:100])
    _, data = ws.load("app-5")
    assert len(data) > 100 and len(ws.javac_calls()) == 4
    ws.assert_built_here(data)


def check_links_in_the_cache_are_not_followed(ws: Workspace) -> None:
    ws.load("app-1")
    outside = ws.base / "outside.jar"
    outside.write_bytes(ATTACKER)
    ws.forge(ATTACKER)  # a record that matches the file the link leads to
    (ws.entry() / jar.JAR).unlink()
    (ws.entry() / jar.JAR).symlink_to(outside)
    _, data = ws.load("app-2")
    assert data != ATTACKER and len(ws.javac_calls()) == 2
    ws.assert_built_here(data)
    assert outside.read_bytes() == ATTACKER  # the link was replaced, not written through
    assert not (ws.entry() / jar.JAR).is_symlink()
    # a folder of the cache that is a link
    real = ws.base / "elsewhere"
    (ws.cache / "spark-jvm").rename(real)
    (ws.cache / "spark-jvm").symlink_to(real)
    with pytest.raises(JvmUnavailableError, match=r"spark-jvm: a folder of rankwise's jar cache "
                       r"is a symbolic link"):
        ws.load("app-3")


def check_folders_writable_by_others_are_refused(ws: Workspace) -> None:
    ws.load("app-1")
    for folder in (ws.cache, ws.cache / "spark-jvm", ws.entry()):
        for mode, who in ((0o777, "its group and others"), (0o770, "its group"),
                          (0o703, "others")):
            os.chmod(folder, mode)
            session, added = fake_session(f"app-{folder.name}-{mode:o}")
            expected = rf"{folder}: this folder of rankwise's jar cache is writable by {who} "
            with pytest.raises(JvmUnavailableError, match=expected + rf"\(mode 0{mode:o}\)"):
                jar.load_jar(session)
            assert added == []
        os.chmod(folder, 0o700)
    assert len(ws.javac_calls()) == 1


def check_a_cache_of_another_user_is_refused(ws: Workspace, level: str) -> None:
    """The cache was planted (:func:`plant`): the folder at *level* is the other user's."""
    folder = {"root": ws.cache, "spark-jvm": ws.cache / "spark-jvm", "key": ws.entry()}[level]
    calls = len(ws.javac_calls())
    session, added = fake_session("app-1")
    with pytest.raises(JvmUnavailableError, match=rf"{folder}: this folder of rankwise's jar "
                       r"cache belongs to another user \(uid \d+; this process runs as uid "):
        jar.load_jar(session)
    assert added == [] and len(ws.javac_calls()) == calls


def check_no_file_of_the_shared_temporary_folder_is_reused(ws: Workspace) -> None:
    # a cache path Spark cannot load from (a space, a quote): the jar goes through the
    # temporary folder
    ws.cache = ws.base / "o'neil's cache"
    ws.patch.setenv("RANKWISE_CACHE_DIR", str(ws.cache))
    first, data = ws.load("app-1")
    ws.assert_built_here(data)
    # another user then writes their jar at every name of the shared folder it could reuse
    planted = [path for path in ws.shared.iterdir() if path.is_file()]
    for path in planted:
        path.write_bytes(ATTACKER)
    path, again = ws.load("app-2")
    assert again == data and path != first
    for given in (first, path):
        folder = given.parent
        assert folder.parent == ws.shared  # a folder of its own in the shared one
        info = folder.stat()
        assert (stat.S_IMODE(info.st_mode), info.st_uid) == (0o700, os.geteuid())
    assert planted == []


def check_two_processes_build_the_jar_once(ws: Workspace) -> None:
    go, started = ws.base / "go", ws.base / "started"
    ws.patch.setenv("JAVAC_GO", str(go))
    ws.patch.setenv("JAVAC_STARTED", str(started))

    def build(name: str) -> None:
        (ws.base / name).write_text(hashlib.sha256(jar.build_jar("4.0.0", "17")).hexdigest())

    with forked(build, "first") as first:
        try:
            wait_for(started.exists, first, "javac's stand-in to start")
            # the first process holds the build lock while javac runs
            lock = os.open(ws.entry() / jar.LOCK, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                with pytest.raises(BlockingIOError):
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            finally:
                os.close(lock)
            with forked(build, "second") as second:
                # without the lock the second process would call javac too: give it the time
                with contextlib.suppress(TimeoutError):
                    wait_for(lambda: len(ws.javac_calls()) > 1, second, "a second javac", 3)
                go.touch()
        finally:
            go.touch()  # javac's stand-in never waits for ever
    assert len(ws.javac_calls()) == 1
    assert (ws.base / "first").read_text() == (ws.base / "second").read_text()


CHECKS: dict[str, Callable[[Workspace], None]] = {
    "new_cache_folders_are_private": check_new_cache_folders_are_private,
    "a_changed_jar_is_rebuilt_never_loaded": check_a_changed_jar_is_rebuilt_never_loaded,
    "links_in_the_cache_are_not_followed": check_links_in_the_cache_are_not_followed,
    "folders_writable_by_others_are_refused": check_folders_writable_by_others_are_refused,
    "no_file_of_the_shared_temporary_folder_is_reused":
        check_no_file_of_the_shared_temporary_folder_is_reused,
    "two_processes_build_the_jar_once": check_two_processes_build_the_jar_once,
}
LEVELS = ("root", "spark-jvm", "key")


# ---- processes -------------------------------------------------------------------------


@contextlib.contextmanager
def forked(work: Callable[..., None], *args: object) -> Iterator[int]:
    """Run *work* in a forked child; on leaving, wait for it and fail with its traceback."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        status = 0
        try:
            os.close(read)
            work(*args)
        except BaseException:
            os.write(write, traceback.format_exc().encode())
            status = 1
        finally:
            os._exit(status)
    os.close(write)
    try:
        yield pid
    finally:
        with os.fdopen(read, "rb") as pipe:
            said = pipe.read().decode()
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0, said


def wait_for(done: Callable[[], bool], pid: int, what: str, seconds: float = 300) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
            raise AssertionError(f"the process ended before {what}")
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        time.sleep(0.05)


def as_user(uid: int, work: Callable[..., None], *args: object) -> None:
    """*work* in a forked child that runs as *uid* (its group too, and no other group)."""

    def dropped() -> None:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
        work(*args)

    with forked(dropped):
        pass


def plant(base: Path, level: str, victim: int, other: int) -> None:
    """A cache in *base* with the other user's jar and a record that matches it.

    Every folder is readable by all and belongs to *victim*, but the one at
    *level*, which belongs to *other*. Only root can make it.
    """
    with pytest.MonkeyPatch.context() as patch:
        ws = Workspace(base, patch)
        jar.build_jar("4.0.0", "17")
        ws.forge(ATTACKER)
        folders = {"root": ws.cache, "spark-jvm": ws.cache / "spark-jvm", "key": ws.entry()}
    for folder, _, files in os.walk(base):
        os.chown(folder, victim, victim)
        os.chmod(folder, 0o1777 if Path(folder) == ws.shared else 0o755)
        for name in files:
            os.chown(os.path.join(folder, name), victim, victim)
            os.chmod(os.path.join(folder, name), 0o755)
    os.chown(folders[level], other, other)


@pytest.fixture
def open_base() -> Iterator[Path]:
    """A folder in the real temporary folder that another user can enter (tmp_path cannot)."""
    base = Path(tempfile.mkdtemp(prefix="rankwise-jar-test-"))
    os.chmod(base, 0o755)
    try:
        yield base
    finally:
        import shutil

        shutil.rmtree(base, ignore_errors=True)


# ---- the tests -------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_jar_cache_as_this_user(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    CHECKS[name](Workspace(tmp_path, monkeypatch))


@pytest.mark.parametrize("level", LEVELS)
def test_a_cache_of_another_user_is_refused(level: str, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    if os.geteuid() == 0:
        plant(tmp_path, level, victim=0, other=OTHER)
        check_a_cache_of_another_user_is_refused(Workspace(tmp_path, monkeypatch), level)
        return
    if level != "root" or os.stat("/").st_uid == os.geteuid():
        pytest.skip("only root can make a folder of another user: run as root for this level")
    ws = Workspace(tmp_path, monkeypatch)  # "/" is root's: another user's folder for this one
    ws.cache = Path("/")
    monkeypatch.setenv("RANKWISE_CACHE_DIR", "/")
    check_a_cache_of_another_user_is_refused(ws, level)


def _not_root() -> None:
    if os.geteuid() != 0:
        pytest.skip(f"this process runs as uid {os.geteuid()}, not root: the tests above "
                    "already ran as a user who is not root")


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_jar_cache_as_a_user_who_is_not_root(name: str, open_base: Path) -> None:
    _not_root()
    os.chown(open_base, OTHER, OTHER)

    def check() -> None:
        with pytest.MonkeyPatch.context() as patch:
            CHECKS[name](Workspace(open_base, patch))

    as_user(OTHER, check)


@pytest.mark.parametrize("level", LEVELS)
def test_a_cache_of_root_is_refused_for_a_user_who_is_not_root(level: str,
                                                              open_base: Path) -> None:
    """The other user of this test is root: it plants the cache, uid 65534 is refused it."""
    _not_root()
    plant(open_base, level, victim=OTHER, other=0)

    def check() -> None:
        with pytest.MonkeyPatch.context() as patch:
            check_a_cache_of_another_user_is_refused(Workspace(open_base, patch), level)

    as_user(OTHER, check)
