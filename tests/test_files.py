"""rankwise._files.write_file, the one writer: what -o does to what is already there
(issue 13, items 23 and 31).

Regular files are replaced atomically (mode and owner kept, symbolic links
followed); anything else is written directly and never replaced; every write
is checked; no signal that ends the process (SIGHUP, SIGTERM, SIGINT, SIGQUIT, ...)
leaves a temporary file behind (issue 33, item 16), and the umask is never changed.
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


@pytest.mark.parametrize("mask", [0o000, 0o022, 0o027, 0o077])
def test_new_file_gets_the_umask_mode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      mask: int) -> None:
    old = os.umask(mask)

    def umask(mask: int) -> int:  # os.umask changes the umask of every thread, even to read it
        raise AssertionError("write_file called os.umask")

    monkeypatch.setattr(os, "umask", umask)
    try:
        write_file("x\n", tmp_path / "new.txt")
    finally:
        monkeypatch.undo()
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o666 & ~mask
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


@pytest.mark.parametrize("tail", ["/", "/.", "/.."])
def test_a_name_ending_with_a_slash_names_a_folder(tmp_path: Path, tail: str) -> None:
    """``out/`` is refused whether out is a file or absent (realpath drops the slash)."""
    (tmp_path / "kept.txt").write_text("kept")
    for name in ("kept.txt", "absent"):
        with pytest.raises(NotADirectoryError) as caught:
            write_file("x", str(tmp_path / name) + tail)
        assert caught.value.filename == str(tmp_path / name) + tail
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.txt"]
    assert (tmp_path / "kept.txt").read_text() == "kept"
    with pytest.raises(IsADirectoryError):
        write_file("x", str(tmp_path) + tail)


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


def test_a_refused_rename_names_the_target_not_the_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An immutable target (chattr +i): the rename is refused; the message names the file."""
    target = tmp_path / "out.txt"
    target.write_text("old\n")

    def refused(source: str, destination: str) -> None:
        raise PermissionError(errno.EPERM, "Operation not permitted", source)

    monkeypatch.setattr(os, "replace", refused)
    with pytest.raises(OSError) as caught:
        write_file("new\n", target)
    monkeypatch.undo()
    assert str(caught.value) == (
        f"[Errno 1] cannot replace it: Operation not permitted: '{target}'")
    assert target.read_text() == "old\n"
    assert leftovers(tmp_path, {"out.txt"}) == []


@pytest.mark.parametrize("name", ["r" * 250 + ".tsv", "\u00e9" * 125 + ".tsv",
                                  "\u00e9" * 99 + "x" + "\u00e9" * 25 + "x.tsv"])
def test_a_name_of_254_bytes_is_written(tmp_path: Path, name: str) -> None:
    """The temporary name adds 14 bytes to a name that may hold 255: it keeps at most 200
    of them, cut between two characters (the third name's 200th byte is inside one)."""
    target = tmp_path / name
    assert len(os.fsencode(name)) == 254
    write_file("new\n", target)
    write_file("again\n", target)
    assert target.read_text() == "again\n"
    assert os.listdir(tmp_path) == [name]


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


# -- interrupted: every terminating signal (issue 13 item 31, issue 33 item 16) ------------

CHILD = textwrap.dedent("""
    import os, resource, signal, sys, time
    sys.path.insert(0, {src!r})
    from rankwise._files import write_file

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # SIGQUIT, SIGXCPU: no core file
    # as a shell with job control starts it: a script's background job (`cmd &`) inherits
    # SIGQUIT and SIGINT ignored, and `nohup` SIGHUP, and an ignored signal rightly stays
    # ignored
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    {setup}

    def pieces():
        yield "first piece\\n" * 1000
        open({ready!r}, "w").close()   # the temporary file exists and holds a piece
        deadline = time.monotonic() + 60
        while not os.path.exists({go!r}) and time.monotonic() < deadline:
            time.sleep(0.01)
        yield "last piece\\n"

    write_file(pieces(), {target!r})
""")

# the signals that end a process by default and that it can catch (SIGINT: below)
TERMINATING = [getattr(signal, name) for name in (
    "SIGHUP", "SIGTERM", "SIGQUIT", "SIGALRM", "SIGUSR1", "SIGUSR2", "SIGVTALRM", "SIGPROF",
    "SIGXCPU", "SIGPOLL", "SIGPWR") if hasattr(signal, name)]


def _interrupt(tmp_path: Path, how: signal.Signals, setup: str = "", *,
               release: bool = False) -> subprocess.Popen[bytes]:
    """Signal a child in the middle of a write (then let it go on, with *release*)."""
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    ready = tmp_path.parent / f"{tmp_path.name}.ready"
    go = tmp_path.parent / f"{tmp_path.name}.go"
    code = CHILD.format(src=str(SRC), ready=str(ready), go=str(go), target=str(target),
                        setup=setup)
    child = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not ready.exists():
        assert child.poll() is None, child.stderr.read() if child.stderr else b""
        assert time.monotonic() < deadline, "the child never started writing"
        time.sleep(0.02)
    temporaries = [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert len(temporaries) == 1 and temporaries[0].startswith(".out.txt.")
    child.send_signal(how)
    if release:
        go.touch()
    child.wait(30)
    return child


@needs_posix
@pytest.mark.parametrize("how", TERMINATING, ids=lambda s: signal.Signals(s).name)
def test_a_terminating_signal_removes_the_temporary_file(tmp_path: Path, how: int) -> None:
    child = _interrupt(tmp_path, how)
    assert child.returncode == -how  # and it still dies of that signal
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
def test_a_handler_that_returns_lets_the_write_finish(tmp_path: Path) -> None:
    """A program's own handler (here: SIGUSR1 prints a status) is not turned into an end."""
    setup = ("signal.signal(signal.SIGUSR1, "
             "lambda signum, frame: print('status', file=sys.stderr))")
    child = _interrupt(tmp_path, signal.SIGUSR1, setup, release=True)
    assert child.returncode == 0
    assert child.stderr is not None and b"status" in child.stderr.read()
    assert (tmp_path / "out.txt").read_text() == "first piece\n" * 1000 + "last piece\n"
    assert leftovers(tmp_path, {"out.txt"}) == []


@needs_posix
def test_an_ignored_sighup_stays_ignored(tmp_path: Path) -> None:
    """Under nohup, the write goes on to the end."""
    child = _interrupt(tmp_path, signal.SIGHUP, "signal.signal(signal.SIGHUP, signal.SIG_IGN)",
                       release=True)
    assert child.returncode == 0
    assert (tmp_path / "out.txt").read_text() == "first piece\n" * 1000 + "last piece\n"
    assert leftovers(tmp_path, {"out.txt"}) == []


@needs_posix
def test_sigint_removes_the_temporary_file(tmp_path: Path) -> None:
    child = _interrupt(tmp_path, signal.SIGINT)  # KeyboardInterrupt
    assert child.returncode != 0
    assert child.stderr is not None and b"KeyboardInterrupt" in child.stderr.read()
    assert (tmp_path / "out.txt").read_text() == "old\n"
    assert leftovers(tmp_path, {"out.txt"}) == []


@needs_posix
def test_sigint_at_its_default_action_removes_the_temporary_file(tmp_path: Path) -> None:
    child = _interrupt(tmp_path, signal.SIGINT, "signal.signal(signal.SIGINT, signal.SIG_DFL)")
    assert child.returncode == -signal.SIGINT
    assert (tmp_path / "out.txt").read_text() == "old\n"
    assert leftovers(tmp_path, {"out.txt"}) == []


def test_the_signal_handlers_are_restored(tmp_path: Path) -> None:
    before = {how: signal.getsignal(how) for how in [*TERMINATING, signal.SIGINT]}
    write_file("x", tmp_path / "out.txt")
    assert {how: signal.getsignal(how) for how in before} == before
    assert not _files._PENDING
