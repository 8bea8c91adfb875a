"""Cutting a decompressed stream into blocks of whole lines (issue 40, gzip'd runs).

A chunk of half the block size or more (what a decompressor hands over) is
passed on as a view of itself, not copied: only the line cut by its start is
joined. The blocks, joined, are the stream again, and every block but the
last ends a line.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.io import trec
from rankwise.io._source import LineTooLong, line_blocks


def _cut(data: bytes, sizes: list[int]) -> list[bytes]:
    chunks, at = [], 0
    for size in sizes:
        if at >= len(data):
            break
        chunks.append(data[at : at + size])
        at += size
    if at < len(data):
        chunks.append(data[at:])
    return chunks


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"x")), max_size=40),
    last=st.booleans(),
    sizes=st.lists(st.integers(1, 200), min_size=1, max_size=40),
    block_size=st.integers(1, 300),
)
def test_blocks_are_the_stream_cut_at_line_ends(lines: list[bytes], last: bool,
                                                sizes: list[int], block_size: int) -> None:
    data = b"\n".join(lines) + (b"\n" if last and lines else b"")
    blocks = [bytes(block) for block in line_blocks(iter(_cut(data, sizes)), block_size)]
    assert b"".join(blocks) == data
    assert all(block.endswith(b"\n") for block in blocks[:-1])
    assert all(blocks)


def test_a_large_chunk_is_not_copied() -> None:
    chunk = b"".join(b"q1 Q0 d%d %d 1.5 sys\n" % (i, i) for i in range(1, 200)) + b"q2 Q0 d"
    rest = b"9 1 0.5 sys\n" + b"q2 Q0 d10 2 0.25 sys\n" * 150
    blocks = list(line_blocks(iter([b"q1 Q0 d0 0 2.5", chunk, rest]), len(chunk)))
    views = [block for block in blocks if isinstance(block, memoryview)]
    assert len(views) == 2
    assert views[0].obj is chunk and views[1].obj is rest  # the chunks themselves
    assert blocks[0] == b"q1 Q0 d0 0 2.5" + chunk[: chunk.index(b"\n") + 1]  # the cut line
    assert blocks[2] == b"q2 Q0 d9 1 0.5 sys\n"
    assert b"".join(blocks) == b"q1 Q0 d0 0 2.5" + chunk + rest


def test_a_long_line_in_large_chunks_is_still_refused() -> None:
    chunks = iter([b"a b\n" + b"x" * 60, b"y" * 60, b"\nc d\n"])
    with pytest.raises(LineTooLong) as caught:
        list(line_blocks(chunks, 40, max_line=100))
    assert caught.value.head.startswith(b"x" * 60 + b"y" * 40)


def test_a_gzip_run_read_in_views_is_its_lines(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [(f"q{i // 40}", f"d{i}", round(1 - (i % 40) / 64, 4)) for i in range(3000)]
    text = "".join(f"{q} Q0 {d} {i % 40 + 1} {s} sys\n" for i, (q, d, s) in enumerate(lines))
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(text.encode()))
    monkeypatch.setattr(trec, "_STREAM_BLOCK", 4096)  # the decompressed chunk is far larger
    truth: dict[str, dict[str, float]] = {}
    for query, doc, score in lines:
        truth.setdefault(query, {})[doc] = score
    assert rw.read_trec_run(path).to_dict() == truth
