"""TREC input read once, in bounded memory: compressed data, standard input, hostile input.

Issue 13, items 7, 26, 29 and 33; issue 15 (compressed runs decompressed in a
stream). Every test reads the same bytes with the C reader and without it.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import rankwise as rw
from rankwise.exceptions import InputFormatError
from rankwise.io import _fast, trec

RUN = b"".join(b"q%d Q0 d%d %d %.4f sys\n" % (i // 50, i, i % 50 + 1, 1 - (i % 50) / 64)
               for i in range(2000))
QRELS = b"".join(b"q%d 0 d%d %d\n" % (i // 50, i, i % 3) for i in range(0, 2000, 7))


@pytest.fixture(params=["c", "pure"])
def reader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test with the C reader, and again with the general reader only."""
    if request.param == "c" and not _fast.available():
        pytest.skip("the C reader is not built")
    monkeypatch.setenv("RANKWISE_NO_C", "0" if request.param == "c" else "1")
    return str(request.param)


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Streams cut into many blocks (lines and query blocks split at every place)."""
    monkeypatch.setattr(trec, "_STREAM_BLOCK", 997)


class _Stdin:
    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)


def _same(run: rw.Run, other: rw.Run) -> None:
    assert run.name == other.name
    assert run.to_dict() == other.to_dict()
    assert [run.line_of(r) for r in range(0, len(run), 97)] == [
        other.line_of(r) for r in range(0, len(other), 97)]


# ------------------------------------------------------------------------------------------
# item 7, issue 15: compressed input, whatever its name, standard input included

COMPRESSORS = {"gzip": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
def test_compressed_data_is_recognised_by_its_first_bytes(
    tmp_path: Path, reader: str, small_blocks: None, kind: str
) -> None:
    plain = tmp_path / "run.txt"
    plain.write_bytes(RUN)
    packed = tmp_path / "run.txt.bin"  # the name says nothing
    packed.write_bytes(COMPRESSORS[kind](RUN))
    _same(rw.read_trec_run(packed), rw.read_trec_run(plain))
    _same(rw.read_trec_run(packed.read_bytes()), rw.read_trec_run(plain))


def test_gzip_on_standard_input(monkeypatch: pytest.MonkeyPatch, reader: str,
                                tmp_path: Path) -> None:
    """``gzip -c run | rankwise eval qrels -`` (it said: binary data, a NUL byte)."""
    from rankwise.cli import main

    (tmp_path / "q").write_bytes(QRELS)
    (tmp_path / "r").write_bytes(RUN)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", _Stdin(gzip.compress(RUN)))
    assert rw.read_trec_run("-").to_dict() == rw.read_trec_run(tmp_path / "r").to_dict()
    monkeypatch.setattr(sys, "stdin", _Stdin(gzip.compress(RUN)))
    expected = rw.evaluate(tmp_path / "q", tmp_path / "r", ["map", "ndcg@10"]).mean
    monkeypatch.setattr(sys, "stdin", _Stdin(gzip.compress(RUN)))
    got = rw.evaluate(tmp_path / "q", "-", ["map", "ndcg@10"]).mean
    assert got == expected
    monkeypatch.setattr(sys, "stdin", _Stdin(gzip.compress(RUN)))
    assert main(["eval", "q", "-", "-m", "map", "-f", "tsv", "--quiet"]) == 0
    monkeypatch.setattr(sys, "stdin", _Stdin(bz2.compress(QRELS)))
    assert rw.read_trec_qrels("-").to_dict() == rw.read_trec_qrels(QRELS).to_dict()


@pytest.mark.parametrize("inflater", ["zlib", "isal"])
def test_both_inflaters_read_the_same(monkeypatch: pytest.MonkeyPatch, small_blocks: None,
                                      inflater: str) -> None:
    """ISA-L (the optional ``fast-gzip`` extra) and zlib give the same run."""
    if inflater == "isal":
        pytest.importorskip("isal")
    monkeypatch.setenv("RANKWISE_GZIP", inflater)
    from rankwise.io._inflate import inflater_module

    assert inflater_module().__name__.endswith(inflater + ("_zlib" if inflater == "isal" else ""))
    joined = gzip.compress(RUN[:999]) + gzip.compress(RUN[999:], 9)
    _same(rw.read_trec_run(joined), rw.read_trec_run(RUN))


def test_concatenated_members_and_zero_padding(reader: str) -> None:
    half = len(RUN) // 2
    joined = gzip.compress(RUN[:half]) + gzip.compress(RUN[half:]) + b"\x00" * 100
    assert rw.read_trec_run(joined).to_dict() == rw.read_trec_run(RUN).to_dict()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (gzip.compress(RUN)[:-20], "<bytes>: cannot decompress gzip data: the compressed stream "
                                   "ends early (the file is truncated)"),
        (gzip.compress(RUN) + b"trailing text", "<bytes>: cannot decompress gzip data: other "
                                                "data follows the end of the compressed stream"),
        (gzip.compress(RUN)[:40] + b"\xff" * 64, "<bytes>: cannot decompress gzip data: "),
        (bz2.compress(RUN)[:-5], "<bytes>: cannot decompress bzip2 data: the compressed stream "
                                 "ends early"),
    ],
    ids=["truncated", "trailing-text", "corrupt", "bzip2-truncated"],
)
def test_damaged_compressed_data_is_one_error(reader: str, content: bytes, message: str) -> None:
    with pytest.raises(InputFormatError) as caught:
        rw.read_trec_run(content)
    assert str(caught.value).startswith(message)


def test_a_compressed_name_without_compressed_content(tmp_path: Path, reader: str) -> None:
    path = tmp_path / "run.gz"
    path.write_bytes(RUN)
    with pytest.raises(InputFormatError, match=r"run.gz: not gzip data, though the name ends "
                                               r"in .gz \(it starts with b'q0'\)"):
        rw.read_trec_run(path)


def test_zstd_when_zstandard_is_installed(tmp_path: Path, reader: str) -> None:
    zstandard = pytest.importorskip("zstandard")
    # more output than one step gives: output held between steps
    big = b"".join(RUN.replace(b" Q0 d", b" Q0 d%d-" % i) for i in range(100))
    path = tmp_path / "run"
    packer = zstandard.ZstdCompressor()
    path.write_bytes(packer.compress(big[:1000]) + packer.compress(big[1000:]))
    assert rw.read_trec_run(path).to_dict() == rw.read_trec_run(big).to_dict()
    with pytest.raises(InputFormatError, match="zstd data: the compressed stream ends early"):
        rw.read_trec_run(path.read_bytes()[:-10])


def test_errors_in_compressed_input_name_their_line(reader: str, small_blocks: None) -> None:
    bad = RUN + b"q9 Q0 x 1 high sys\n" + RUN[:500]
    with pytest.raises(InputFormatError) as caught:
        rw.read_trec_run(gzip.compress(bad))
    assert str(caught.value) == "<bytes>:2001: score must be a number, got 'high'"


# ------------------------------------------------------------------------------------------
# item 26: carriage returns


@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_cr_line_ends_are_refused_with_a_remedy(tmp_path: Path, reader: str, kind: str) -> None:
    content = (RUN if kind == "run" else QRELS).replace(b"\n", b"\r")
    path = tmp_path / kind
    path.write_bytes(content)
    read = rw.read_trec_run if kind == "run" else rw.read_trec_qrels
    with pytest.raises(InputFormatError) as caught:
        read(path)
    assert str(caught.value) == (
        f"{path}:1: a carriage return (CR) inside a line: rankwise reads lines that end with "
        "LF or CR LF; a file with CR line ends (classic Mac) can be converted with "
        "tr '\\r' '\\n' < FILE"
    )


def test_a_cr_inside_a_later_line(reader: str, small_blocks: None) -> None:
    content = RUN + b"q1 Q0 dx 1 1.0 sys\rq1 Q0 dy 2 0.5 sys\n"
    with pytest.raises(InputFormatError, match=r"^<bytes>:2001: a carriage return \(CR\)"):
        rw.read_trec_run(content)


def test_crlf_is_read(reader: str, small_blocks: None) -> None:
    assert rw.read_trec_run(RUN.replace(b"\n", b"\r\n")).to_dict() == (
        rw.read_trec_run(RUN).to_dict())


# ------------------------------------------------------------------------------------------
# item 29: long lines, hostile input, the first bad line


def test_a_line_over_one_mib_is_an_error(tmp_path: Path, reader: str) -> None:
    path = tmp_path / "run"
    path.write_bytes(RUN + b"q1 Q0 " + b"d" * (3 << 20) + b" 1 1.0 sys\n")
    with pytest.raises(InputFormatError) as caught:
        rw.read_trec_run(path)
    assert str(caught.value) == (
        f"{path}:2001: line longer than 1,048,576 bytes (1 MiB), the most a line may hold: "
        "expected TREC run lines (qid iter docno rank score runid)"
    )
    with pytest.raises(InputFormatError, match=r"^<bytes>:2001: line longer than 1,048,576"):
        rw.read_trec_run(gzip.compress(path.read_bytes()))


def test_a_file_without_line_ends(tmp_path: Path, reader: str,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_fast, "_RANGE_BYTES", 1 << 20)  # many ranges, none with a line start
    path = tmp_path / "run"
    path.write_bytes(b"a" * (12 << 20))
    with pytest.raises(InputFormatError, match=r":1: line longer than 1,048,576 bytes"):
        rw.read_trec_run(path)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_dev_zero_is_binary_data(reader: str) -> None:
    with pytest.raises(InputFormatError) as caught:
        rw.read_trec_run("/dev/zero")
    assert str(caught.value) == (
        "/dev/zero:1: binary data (a NUL byte): expected TREC run text "
        "(qid iter docno rank score runid)"
    )


def test_one_bad_last_line_of_a_large_file(tmp_path: Path, reader: str,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_fast, "_RANGE_BYTES", 1 << 16)
    path = tmp_path / "run"
    body = RUN * 30
    path.write_bytes(body + b"q1 Q0 d1 1 2.0\n")
    with pytest.raises(InputFormatError) as caught:
        rw.read_trec_run(path)
    assert str(caught.value) == (
        f"{path}:60001: expected 6 fields (qid iter docno rank score runid), got 5")


_BOMB = """
import resource, sys, zlib
import numpy, pyarrow, pyarrow.compute, pyarrow.csv  # their own memory is not measured
import rankwise as rw
import rankwise.io.trec
from rankwise.exceptions import InputFormatError
kind = sys.argv[1]
piece = {"long": b"a" * (1 << 20), "blank": b"\\n" * (1 << 20), "nul": b"\\0" * (1 << 20)}[kind]
packer = zlib.compressobj(1, zlib.DEFLATED, 31)
bomb = b"".join(packer.compress(piece) for _ in range(128)) + packer.flush()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    rw.read_trec_run(bomb)
except InputFormatError as error:
    print(str(error).split(": ", 1)[1].lstrip("0123456789: "))
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print((after - before) // 1024)
"""


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss in KiB is Linux's")
@pytest.mark.parametrize(("kind", "error"), [
    ("long", "line longer than 1,048,576 bytes (1 MiB)"),
    ("blank", "file is empty"),
    ("nul", "binary data (a NUL byte)"),
])
def test_a_gzip_bomb_takes_little_memory(reader: str, kind: str, error: str) -> None:
    """128 MiB that compress to a few hundred KiB: read in bounded steps, never whole."""
    outcome = subprocess.run([sys.executable, "-c", textwrap.dedent(_BOMB), kind],
                             capture_output=True, text=True, check=True, env=os.environ)
    message, growth = outcome.stdout.split("\n")[:2]
    assert message.startswith(error)
    # a block read and the chunks of the next (4 MiB blocks in C, 16 MiB without), no more:
    # neither the first block nor the one before is held while the next is joined
    limit = 24 if reader == "c" else 48
    assert int(growth) < limit, f"{growth} MiB more at the peak"


# ------------------------------------------------------------------------------------------
# pipes: lines of messages from the first pass


def _pipe(tmp_path: Path, chunks: Iterator[bytes]) -> Path:
    pipe = tmp_path / "fifo"
    os.mkfifo(pipe)

    def write() -> None:
        with open(pipe, "wb") as handle:
            try:
                for chunk in chunks:
                    handle.write(chunk)
            except BrokenPipeError:
                pass

    threading.Thread(target=write, daemon=True).start()
    return pipe


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_duplicate_in_a_compressed_pipe_names_both_lines(tmp_path: Path, reader: str,
                                                           small_blocks: None) -> None:
    content = b"# c\n\n" + RUN + b"\n# x\n" + b"q3 Q0 d170 99 0.1 sys\n"
    packed = gzip.compress(content)
    pipe = _pipe(tmp_path, (packed[at : at + 1000] for at in range(0, len(packed), 1000)))
    with pytest.raises(InputFormatError) as caught:
        rw.read_trec_run(pipe)
    assert str(caught.value) == (
        f"{pipe}:2005: document 'd170' appears twice for query 'q3' (first at line 173); "
        "a run lists each document once per query")


# ------------------------------------------------------------------------------------------
# item 33: the run name is the run id of the last data line


def test_the_run_name_of_a_long_last_line(tmp_path: Path, reader: str) -> None:
    path = tmp_path / "run"
    path.write_bytes(RUN + b"q99 Q0 dz 1 0.5 final " + b"notes " * 40000 + b"\n# end\n\n")
    assert rw.read_trec_run(path).name == "final"
    assert rw.read_trec_run(gzip.compress(path.read_bytes())).name == "final"
    from rankwise.io._source import FileView
    from rankwise.io.trec import _last_run_id

    assert _last_run_id(FileView(str(path))) == "final"


def test_the_run_name_of_the_last_block(reader: str, small_blocks: None) -> None:
    content = RUN + b"q1 Q0 dz 1 0.5 last\r\n\r\n"
    assert rw.read_trec_run(content).name == "last"


def test_blocks_and_ranges_agree_with_one_piece(tmp_path: Path, reader: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    tail = RUN[: RUN.index(b"\n", 3000) + 1].replace(b" Q0 d", b" Q0 e")
    text = b"# head\n" + RUN.replace(b"q3 ", b"q3\t ") + b"\n\n" + tail
    whole = rw.read_trec_run(text)
    monkeypatch.setattr(trec, "_STREAM_BLOCK", 501)
    monkeypatch.setattr(_fast, "_RANGE_BYTES", 333)
    path = tmp_path / "run"
    path.write_bytes(text)
    for run in (rw.read_trec_run(text), rw.read_trec_run(path)):
        _same(run, whole)
        np.testing.assert_array_equal(run.scores, whole.scores)
        assert [run.line_of(row) for row in range(len(run))] == [
            whole.line_of(row) for row in range(len(whole))]
    assert whole.line_of(0) == 2 and whole.line_of(2000) == 2004


def test_running_out_of_memory_names_the_file(tmp_path: Path, reader: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Under ``ulimit -v`` the user saw "out of memory" and nothing else."""
    path = tmp_path / "run"
    path.write_bytes(RUN)

    def no_memory(*args: object, **kwargs: object) -> None:
        raise MemoryError

    monkeypatch.setattr(_fast, "merge", no_memory)
    with pytest.raises(InputFormatError) as caught:
        rw.read_trec_run(path)
    assert str(caught.value) == (
        f"{path}: not enough memory to read it (stopped after line 2,000); free memory, or "
        "split the input")


# ------------------------------------------------------------------------------------------
# issue 40: a stream's values joined as its pieces come (not copied once more at the end)


def _scores_by_hand(text: bytes) -> list[float]:
    return [float(line.split()[4]) for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
def test_a_streams_scores_are_joined_in_order_as_its_pieces_come(
    tmp_path: Path, reader: str, small_blocks: None, kind: str
) -> None:
    """Many pieces (blocks of 997 bytes), some read by the general reader: every score in
    its line's place, as float() reads the line."""
    text = RUN.replace(b"q7 Q0 d370 ", b"q7\tQ0  d370 ")  # a line the C reader declines
    path = tmp_path / "run.data"
    path.write_bytes(COMPRESSORS[kind](text))
    run = rw.read_trec_run(path)
    assert run.scores.tolist() == _scores_by_hand(text)
    assert run.to_dict() == rw.read_trec_run(text).to_dict()
    path.write_bytes(COMPRESSORS[kind](QRELS))
    by_hand: dict[str, dict[str, int]] = {}
    for line in QRELS.splitlines():
        query, _, doc, grade = line.decode().split()
        by_hand.setdefault(query, {})[doc] = int(grade)
    assert rw.read_trec_qrels(path).to_dict() == by_hand


def _joiner_failing_at(call: int, error: BaseException, tmp_path: Path,
                       monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[int]]:
    """A gzip'd run, and the C module's extend raising *error* at its *call*-th call."""
    if not _fast.available():
        pytest.skip("the C reader is not built")
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(RUN))
    calls: list[int] = []

    def extend_then_fail(block: object, data: object) -> object:
        calls.append(1)
        if len(calls) == call:
            raise error
        assert _fast._ctrec is not None
        return _fast._ctrec.extend(block, data)

    monkeypatch.setattr(_fast, "_ctrec", _NativeWith(extend=extend_then_fail))
    return path, calls


def test_a_failure_to_join_a_streams_scores_names_the_file(
    tmp_path: Path, small_blocks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, calls = _joiner_failing_at(3, MemoryError(), tmp_path, monkeypatch)
    with pytest.raises(InputFormatError) as caught:
        rw.read_trec_run(path)
    assert str(caught.value) == (
        f"{path}: not enough memory to read it (stopped after line 2,000); free memory, or "
        "split the input")
    assert len(calls) == 3  # no piece joined after the failure (there were ~70)


class _NativeWith:
    """The C reader module with one function replaced."""

    def __init__(self, **replaced: object) -> None:
        self._native = _fast._ctrec
        self._replaced = replaced

    def __getattr__(self, name: str) -> object:
        return self._replaced.get(name, getattr(self._native, name))


def test_joined_values_grow_in_place_and_never_under_a_held_buffer() -> None:
    if not _fast.available():
        pytest.skip("the C reader is not built")
    native = _fast._ctrec
    assert native is not None
    parts = [np.arange(n, dtype=np.float64) * 0.5 for n in (3, 0, 70_000, 1)]
    block = None
    for part in parts:
        block = native.extend(block, part)
    joined = np.frombuffer(block, dtype=np.float64)
    assert joined.tolist() == [x for part in parts for x in part.tolist()]
    with pytest.raises(BufferError, match="a buffer of the block is held"):
        native.extend(block, parts[0])
    del joined
    block = native.extend(block, np.array([7.25]))
    assert np.frombuffer(block, dtype=np.float64)[-2:].tolist() == [0.0, 7.25]
    with pytest.raises(TypeError, match="must be a Block or None"):
        native.extend(bytearray(8), parts[0])
    assert len(native.extend(None, b"")) == 0


def test_any_failure_to_join_is_raised_not_a_short_array(
    tmp_path: Path, small_blocks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, _ = _joiner_failing_at(2, ValueError("a bug in the joiner"), tmp_path, monkeypatch)
    with pytest.raises(ValueError, match="a bug in the joiner"):
        rw.read_trec_run(path)


def test_a_joiner_of_one_piece_copies_nothing() -> None:
    if not _fast.available():
        pytest.skip("the C reader is not built")
    piece = _fast.parse_block(RUN, "run")
    empty = _fast.parse_block(b"# nothing\n", "run")
    assert isinstance(piece, _fast.Piece) and isinstance(empty, _fast.Piece)
    joiner = _fast.ValueJoiner()
    joiner.add(empty)
    assert joiner.values() is None
    joiner.add(piece)
    assert joiner.values() is piece.values


@pytest.mark.parametrize("no_c", ["0", "1"])
def test_a_closed_standard_input_is_an_error_saying_so(tmp_path: Path, no_c: str) -> None:
    """``rankwise eval qrels - <&-``: one message, no traceback (Python sets sys.stdin None);
    files are read as ever with standard input closed (the general reader too)."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_bytes(QRELS)
    run.write_bytes(RUN)
    env = {**os.environ, "RANKWISE_NO_C": no_c}

    def closed(*files: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "rankwise", "eval", *files, "-m", "P@5"],
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              preexec_fn=lambda: os.close(0), env=env, check=False)

    done = closed(str(qrels), "-")
    assert done.returncode == 1
    assert done.stderr == ("rankwise: error: <stdin>: standard input is closed: give the data "
                           "on it, or a file name instead of -\n")
    read = closed(str(qrels), str(run))
    assert read.returncode == 0, read.stderr
    assert read.stdout.startswith("run")


@pytest.mark.skipif(not os.path.exists("/proc/self/mem"), reason="needs Linux's /proc")
def test_a_read_that_fails_names_the_file(reader: str) -> None:
    """/proc/self/mem is a regular file whose reads fail (EIO): the error names it."""
    with pytest.raises(InputFormatError) as caught:
        rw.read_run("/proc/self/mem")
    assert str(caught.value) == "/proc/self/mem: cannot read it: Input/output error"


def test_a_failed_read_of_the_c_reader_names_the_file(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    if not _fast.available():
        pytest.skip("the C reader is not built")
    path = tmp_path / "run"
    path.write_bytes(RUN)

    def failing(*args: object, **kwargs: object) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(_fast, "parse_file_ranges", failing)
    with pytest.raises(InputFormatError) as caught:
        rw.read_run(path)
    assert str(caught.value) == f"{path}: cannot read it: Input/output error"
