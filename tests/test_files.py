"""rankwise._files.write_file, the one writer: what -o does to what is already there
(issue 13, items 23 and 31).

Regular files are replaced atomically (mode and owner kept, symbolic links
followed); anything else is written directly and never replaced; every write
is checked; SIGTERM and SIGINT leave no temporary file behind.
"""

from __future__ import annotations

import errno
import os
import signal
import stat
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rankwise import _files
from rankwise._files import write_file

SRC = Path(__file__).resolve().parents[1] / "src"
needs_posix = pytest.mark.skipif(os.name != "posix", reason="POSIX files")


def leftovers(folder: Path, keep: set[str]) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name not in keep)


# -- regular files --------------------------------------------------------------------------


def test_new_file_gets_the_umask_mode(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        write_file("x\n", tmp_path / "new.txt")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o640
    assert leftovers(tmp_path, {"new.txt"}) == []


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o755, 0o444])
def test_existing_file_keeps_its_mode(tmp_path: Path, mode: int) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    target.chmod(mode)
    write_file("new\n", target)
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == mode


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_existing_file_keeps_its_owner(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    os.chown(target, 1234, 5678)
    write_file("new\n", target)
    info = target.stat()
    assert (info.st_uid, info.st_gid) == (1234, 5678)


@needs_posix
def test_symbolic_link_target_is_written_and_the_link_kept(tmp_path: Path) -> None:
    real = tmp_path / "real" / "out.txt"
    real.parent.mkdir()
    real.write_text("old\n")
    real.chmod(0o600)
    link = tmp_path / "link.txt"
    link.symlink_to(os.path.relpath(real, tmp_path))
    write_file("new\n", link)
    assert link.is_symlink()
    assert os.readlink(link) == os.path.join("real", "out.txt")
    assert real.read_text() == "new\n"
    assert stat.S_IMODE(real.stat().st_mode) == 0o600
    assert leftovers(tmp_path, {"real", "link.txt"}) == []
    assert leftovers(real.parent, {"out.txt"}) == []


@needs_posix
def test_dangling_link_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "link.txt"
    link.symlink_to(tmp_path / "target.txt")
    write_file("new\n", link)
    assert link.is_symlink()
    assert (tmp_path / "target.txt").read_text() == "new\n"


def test_pieces_are_written_in_order(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    write_file(iter(["a", b"b", "\u00e9\n"]), target)
    assert target.read_bytes() == "ab\u00e9\n".encode()


def test_a_failing_piece_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old\n")

    def pieces() -> Iterator[str]:
        yield "half"
        raise ValueError("the producer failed")

    with pytest.raises(ValueError, match="producer failed"):
        write_file(pieces(), target)
    assert target.read_text() == "old\n"
    assert leftovers(tmp_path, {"out.txt"}) == []


# -- special files: written directly, never replaced ---------------------------------------


@needs_posix
def test_dev_null_is_written_not_replaced() -> None:
    before = os.stat("/dev/null")
    write_file("x" * 100_000, "/dev/null")
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode)
    assert (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)


@needs_posix
def test_fifo_is_written_through(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as stream:
            received.append(stream.read())

    reader = threading.Thread(target=read)
    reader.start()
    payload = "line\n" * 50_000  # more than a pipe buffer
    write_file(iter([payload[:1000], payload[1000:]]), fifo)
    reader.join(10)
    assert received == [payload.encode()]
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert leftovers(tmp_path, {"pipe"}) == []


@needs_posix
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_a_full_device_is_an_error() -> None:
    with pytest.raises(OSError) as caught:
        write_file("x" * 10, "/dev/full")
    assert caught.value.errno == errno.ENOSPC
    assert caught.value.filename == "/dev/full"
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError):
        write_file("x", tmp_path)


# -- every write is checked ------------------------------------------------------------------


def test_a_full_disk_is_an_error_and_keeps_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    real_write = os.write
    calls = []

    def full(fd: int, data: bytes) -> int:
        calls.append(len(data))
        if len(calls) > 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, bytes(data)[:7])  # a short write first

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(OSError) as caught:
        write_file("new contents\n" * 100, target)
    monkeypatch.undo()
    assert caught.value.errno == errno.ENOSPC
    assert caught.value.filename == str(target)
    assert target.read_text() == "old\n"
    assert leftovers(tmp_path, {"out.txt"}) == []


def test_short_writes_are_continued(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_write = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: real_write(fd, bytes(data)[:3]))
    write_file("0123456789" * 10, tmp_path / "out.txt")
    monkeypatch.undo()
    assert (tmp_path / "out.txt").read_text() == "0123456789" * 10


def test_a_write_of_nothing_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "write", lambda fd, data: 0)
    with pytest.raises(OSError, match="nothing was written"):
        write_file("x", tmp_path / "out.txt")
    monkeypatch.undo()
    assert leftovers(tmp_path, set()) == []


@pytest.mark.parametrize("call", ["fsync", "close", "replace"])
def test_a_failed_fsync_close_or_rename_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, call: str
) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    real = getattr(os, call)
    failed = []

    def failing(*args: object) -> object:
        if not failed:
            failed.append(call)
            if call == "close":
                real(*args)  # really close it, then report the failure
            raise OSError(errno.EIO, "Input/output error")
        return real(*args)

    monkeypatch.setattr(os, call, failing)
    with pytest.raises(OSError):
        write_file("new\n", target)
    monkeypatch.undo()
    assert failed == [call]
    assert target.read_text() == "old\n"
    assert leftovers(tmp_path, {"out.txt"}) == []


@pytest.fixture
def tiny_tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A real 64 KiB file system (root on Linux only)."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
                          capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def test_a_really_full_file_system(tiny_tmpfs: Path) -> None:
    target = tiny_tmpfs / "out.txt"
    target.write_text("old\n")
    with pytest.raises(OSError) as caught:
        write_file("x" * 200_000, target)
    assert caught.value.errno == errno.ENOSPC
    assert target.read_text() == "old\n"
    assert leftovers(tiny_tmpfs, {"out.txt"}) == []


# -- interrupted: SIGTERM and SIGINT (item 31) ------------------------------------------------

CHILD = textwrap.dedent("""
    import os, signal, sys, time
    sys.path.insert(0, {src!r})
    from rankwise._files import write_file

    {setup}

    def pieces():
        yield "first piece\\n" * 1000
        open({ready!r}, "w").close()   # the temporary file exists and holds a piece
        time.sleep(60)
        yield "never\\n"

    write_file(pieces(), {target!r})
""")


def _interrupt(tmp_path: Path, how: signal.Signals, setup: str = "") -> subprocess.Popen[bytes]:
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    ready = tmp_path.parent / f"{tmp_path.name}.ready"
    code = CHILD.format(src=str(SRC), ready=str(ready), target=str(target), setup=setup)
    child = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not ready.exists():
        assert child.poll() is None, child.stderr.read() if child.stderr else b""
        assert time.monotonic() < deadline, "the child never started writing"
        time.sleep(0.02)
    temporaries = [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert len(temporaries) == 1 and temporaries[0].startswith(".out.txt.")
    child.send_signal(how)
    child.wait(30)
    return child


@needs_posix
def test_sigterm_removes_the_temporary_file(tmp_path: Path) -> None:
    child = _interrupt(tmp_path, signal.SIGTERM)
    assert child.returncode == -signal.SIGTERM  # and it still dies of SIGTERM
    assert (tmp_path / "out.txt").read_text() == "old\n"
    assert leftovers(tmp_path, {"out.txt"}) == []


@needs_posix
def test_sigterm_calls_the_previous_handler_too(tmp_path: Path) -> None:
    setup = ("def handler(signum, frame):\n"
             "    print('previous handler ran', file=sys.stderr); sys.exit(3)\n"
             "signal.signal(signal.SIGTERM, handler)")
    child = _interrupt(tmp_path, signal.SIGTERM, setup)
    assert child.returncode == 3
    assert child.stderr is not None and b"previous handler ran" in child.stderr.read()
    assert leftovers(tmp_path, {"out.txt"}) == []


@needs_posix
def test_sigint_removes_the_temporary_file(tmp_path: Path) -> None:
    child = _interrupt(tmp_path, signal.SIGINT)
    assert child.returncode != 0
    assert (tmp_path / "out.txt").read_text() == "old\n"
    assert leftovers(tmp_path, {"out.txt"}) == []


def test_the_sigterm_handler_is_restored(tmp_path: Path) -> None:
    before = signal.getsignal(signal.SIGTERM)
    write_file("x", tmp_path / "out.txt")
    assert signal.getsignal(signal.SIGTERM) == before
    assert not _files._PENDING
