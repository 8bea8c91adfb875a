from __future__ import annotations

import bz2
import gzip
import lzma
import os
from pathlib import Path

import numpy as np
import pytest

import rankwise as rw
from rankwise.exceptions import DuplicateEntryError, InputFormatError


def write(tmp_path: Path, name: str, content: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content)
    return path


def test_any_whitespace_extra_text_comments_and_blank_lines(tmp_path: Path) -> None:
    text = (
        b"# a comment\n"
        b"q1 Q0 d1 1 3.0 runA\n"
        b"\n"
        b"  q1\tQ0   d2 2\t2.5 runA trailing junk\r\n"
        b"q2 Q0 d1 1 1e-3 runB\n"
    )
    run = rw.read_trec_run(write(tmp_path, "run", text))
    assert run.to_dict() == {"q1": {"d1": 3.0, "d2": 2.5}, "q2": {"d1": 0.001}}
    assert run.name == "runB"


def test_clean_files_take_the_fast_path_and_agree(tmp_path: Path) -> None:
    lines = "".join(f"q{i % 3} Q0 d{i} {i} {1.0 / (i + 1)} sys\n" for i in range(300))
    fast = rw.read_trec_run(write(tmp_path, "a", lines.encode()))
    slow = rw.read_trec_run(write(tmp_path, "b", lines.replace(" ", "  ").encode()))
    assert fast.to_dict() == slow.to_dict()


def test_ids_are_strings(tmp_path: Path) -> None:
    qrels = rw.read_trec_qrels(write(tmp_path, "q", b"1 0 7 1\n01 0 07 2\n"))
    assert qrels.query_ids == ["1", "01"]
    assert qrels.to_dict() == {"1": {"7": 1}, "01": {"07": 2}}


@pytest.mark.parametrize(
    ("opener", "suffix"), [(gzip.compress, ".gz"), (bz2.compress, ".bz2"), (lzma.compress, ".xz")]
)
def test_compressed_files(tmp_path: Path, opener, suffix: str) -> None:
    path = write(tmp_path, "run" + suffix, opener(b"q 0 d 1 2.0 r\n"))
    assert rw.read_trec_run(path).to_dict() == {"q": {"d": 2.0}}


@pytest.mark.parametrize(
    ("content", "message", "line"),
    [
        (
            b"q Q0 d 1 2.0 r\nq Q0 e 2\n",
            "expected 6 fields (qid iter docno rank score runid), got 4",
            2,
        ),
        (b"q Q0 d 1 2.0 r\nq Q0 e 2 abc r\n", "score must be a number, got 'abc'", 2),
        (b"q Q0 d 1 nan r\n", "score must be a finite number, got 'nan'", 1),
        (b"q Q0 d 1 2.0 r\nq Q0 e 2 inf r\n", "score must be a finite number", 2),
        (b"q Q0 d 1 2.0 r\n# c\nq Q0 d 2 1.0 r\n", "document 'd' appears twice for query 'q'", 3),
        (b"", "file is empty", None),
        (b"\n\n  \n", "file is empty", None),
        (b"q Q0 d\x00 1 2.0 r\n", "binary data", 1),
        (b"q Q0 d 1 2.0 r\nq Q0 \xff\xfe 2 1.0 r\n", "not UTF-8", 2),
    ],
)
def test_bad_runs_name_file_and_line(tmp_path: Path, content: bytes, message: str, line) -> None:
    path = write(tmp_path, "bad.run", content)
    with pytest.raises(InputFormatError) as caught:
        rw.read_trec_run(path)
    assert message in str(caught.value)
    assert caught.value.path == str(path)
    assert caught.value.line == line
    if line is not None:
        assert str(caught.value).startswith(f"{path}:{line}: ")


@pytest.mark.parametrize(
    ("content", "message", "line"),
    [
        (b"q 0 d 1\nq 0 e\n", "expected 4 fields (qid iter docno grade), got 3", 2),
        (b"q 0 d 1\nq 0 e 1 extra\n", "expected 4 fields", 2),
        (b"q 0 d x\n", "grade must be a number, got 'x'", 1),
        (b"q 0 d 1\nq 0 d 2\n", "is given twice", 2),
    ],
)
def test_bad_qrels_name_file_and_line(tmp_path: Path, content: bytes, message: str, line) -> None:
    path = write(tmp_path, "bad.qrels", content)
    with pytest.raises(InputFormatError) as caught:
        rw.read_trec_qrels(path)
    assert message in str(caught.value)
    assert caught.value.line == line


def test_duplicates_are_errors_even_when_hashes_collide(tmp_path: Path) -> None:
    docs = [f"document-with-a-long-name-{i}" for i in range(2000)]
    lines = "".join(f"q Q0 {d} 1 {i} r\n" for i, d in enumerate(docs))
    run = rw.read_trec_run(write(tmp_path, "ok", lines.encode()))
    assert len(run) == 2000
    with pytest.raises(DuplicateEntryError, match=r"dup:2001: .*first at line 8"):
        rw.read_trec_run(write(tmp_path, "dup", (lines + f"q Q0 {docs[7]} 1 0.5 r\n").encode()))


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(InputFormatError, match="no such file"):
        rw.read_trec_run(tmp_path / "nope")
    with pytest.raises(InputFormatError, match="is a directory"):
        rw.read_trec_qrels(tmp_path)


def test_scores_are_exact_doubles(tmp_path: Path) -> None:
    run = rw.read_trec_run(
        write(tmp_path, "r", b"q Q0 a 1 1.00000000000000001 r\nq Q0 b 1 1.0000001 r\n")
    )
    assert run.scores.dtype == np.float64
    assert run.scores[1] > run.scores[0] == 1.0


def test_queries_split_over_several_blocks(tmp_path: Path) -> None:
    lines = ["q1 Q0 a 1 3 r\n", "q2 Q0 a 1 3 r\n", "q1 Q0 b 2 2 r\n", "q2 Q0 b 2 1 r\n"] * 1
    lines += [f"q{i % 7} Q0 d{i} 1 {i} r\n" for i in range(5000)]  # interleaved: hashed
    run = rw.read_trec_run(write(tmp_path, "r", "".join(lines).encode()))
    assert run.query_ids[:2] == ["q1", "q2"]
    assert run.to_dict()["q1"]["b"] == 2.0 and run.to_dict()["q2"]["b"] == 1.0
    blocky = [f"q{b % 3} Q0 d{b}-{i} 1 {i} r\n" for b in range(9) for i in range(50)]
    run = rw.read_trec_run(write(tmp_path, "s", "".join(blocky).encode()))
    assert run.query_ids == ["q0", "q1", "q2"]
    assert sorted(len(v) for v in run.to_dict().values()) == [150, 150, 150]


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_is_read_like_a_file(tmp_path: Path) -> None:
    """``rankwise eval qrels <(zcat run.gz)`` hands rankwise a pipe: no size, no seeking."""
    import os
    import threading

    pipe = tmp_path / "run.fifo"
    os.mkfifo(pipe)
    content = b"q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n"
    writer = threading.Thread(target=lambda: pipe.write_bytes(content))
    writer.start()
    run = rw.read_trec_run(pipe)
    writer.join()
    assert run.to_dict() == {"q1": {"d1": 2.0, "d2": 1.0}}


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="no named pipes here")
def test_an_error_in_a_named_pipe_names_its_lines(tmp_path: Path) -> None:
    """The lines of a message come from what was read: a pipe cannot be read twice."""
    import os
    import threading

    pipe = tmp_path / "run.fifo"
    os.mkfifo(pipe)
    content = b"# comment\nq1 Q0 d1 1 2.0 r\nq2 Q0 d1 1 2.0 r\nq1 Q0 d1 2 1.0 r\n"
    writer = threading.Thread(target=lambda: pipe.write_bytes(content), daemon=True)
    writer.start()
    outcome: list[BaseException] = []

    def read() -> None:
        try:
            rw.read_trec_run(pipe)
        except BaseException as error:
            outcome.append(error)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=30)
    assert not reader.is_alive(), "reading the pipe again to find a line hangs"
    assert isinstance(outcome[0], DuplicateEntryError)
    assert str(outcome[0]) == (
        f"{pipe}:4: document 'd1' appears twice for query 'q1' (first at line 2); "
        "a run lists each document once per query"
    )


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="a Linux /proc file")
def test_a_file_that_says_size_0_is_read_for_what_it_holds() -> None:
    """/proc files report size 0 but hold lines: read as they are, not as empty files."""
    assert os.path.getsize("/proc/self/status") == 0
    with pytest.raises(InputFormatError) as caught:
        rw.read_qrels("/proc/self/status")
    assert str(caught.value).startswith("/proc/self/status:1: expected 4 fields")
