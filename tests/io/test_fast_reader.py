"""The C reader (rankwise.io._ctrec) against the general reader, on every kind of input.

The C reader must give bit-identical columns where it reads a file, and
decline (so the general reader answers, with its exact message) everywhere
else. Every comparison here reads the same bytes both ways.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.exceptions import RankwiseError
from rankwise.io import _fast

pytestmark = pytest.mark.skipif(not _fast.available(), reason="the C reader is not built")


# ------------------------------------------------------------------------------------------
# helpers


def _read(kind: str, source: Path | bytes, *, pure: bool, keep_rank: bool = False) -> object:
    """The Run/Qrels read from *source*, or ``(type, message)`` of the error."""
    previous = os.environ.get("RANKWISE_NO_C")
    os.environ["RANKWISE_NO_C"] = "1" if pure else "0"
    try:
        if kind == "run":
            return rw.read_trec_run(source, keep_rank=keep_rank)
        return rw.read_trec_qrels(source)
    except RankwiseError as error:
        return (type(error).__name__, str(error))
    finally:
        if previous is None:
            del os.environ["RANKWISE_NO_C"]
        else:
            os.environ["RANKWISE_NO_C"] = previous


def _summary(value: object) -> object:
    """Everything a reader produced, in comparable form (scores as bits: -0.0 != 0.0)."""
    if isinstance(value, tuple):
        return value
    if isinstance(value, rw.Run):
        try:
            ranks = value.ranks
            rank_bits = None if ranks is None else ranks.view(np.int64).tolist()
        except RankwiseError as error:  # a rank field that is not a number: said when asked
            rank_bits = str(error).split(": ", 1)[-1]  # (the source's name left out)
        return (
            "run",
            value.name,
            value.query_ids,
            value.query_codes.tolist(),
            value.doc_ids.to_pylist(),
            value.scores.view(np.int64).tolist(),
            rank_bits,
            [value.line_of(row) for row in range(min(len(value), 50))],
        )
    assert isinstance(value, rw.Qrels)
    return (
        "qrels",
        value.query_ids,
        value.query_codes.tolist(),
        value.doc_ids,
        value.doc_codes.tolist(),
        value.grades.view(np.int64).tolist(),
        [value.line_of(row) for row in range(min(len(value), 50))],
    )


def assert_same(kind: str, path: Path, *, keep_rank: bool = False) -> object:
    fast = _read(kind, path, pure=False, keep_rank=keep_rank)
    pure = _read(kind, path, pure=True, keep_rank=keep_rank)
    assert _summary(fast) == _summary(pure)
    # the same bytes as a stream (blocks of whole lines), plain and gzip'd, both readers
    import gzip

    from rankwise.io import trec

    previous = trec._STREAM_BLOCK
    trec._STREAM_BLOCK = 61
    try:
        content = path.read_bytes()
        streams = [_read(kind, data, pure=pure, keep_rank=keep_rank)
                   for data in (content, gzip.compress(content)) for pure in (False, True)]
    finally:
        trec._STREAM_BLOCK = previous
    for other in streams:
        if isinstance(fast, tuple):  # the same error, named after its source
            assert isinstance(other, tuple)
            assert other[0] == fast[0]
            assert other[1].replace("<bytes>", str(path)) == fast[1]
        else:
            assert _summary(other)[1:] == _summary(fast)[1:]
    return fast


def fast_outcome(content: bytes, kind: str = "run") -> object:
    """What the C reader makes of *content* as a file (in ranges): columns, or why it declines."""
    if not content:
        return "empty input"
    import tempfile

    with tempfile.NamedTemporaryFile() as handle:
        handle.write(content)
        handle.flush()
        pieces = _fast.parse_file_ranges(handle.name, len(content), kind)
    for piece in pieces:
        if isinstance(piece, _fast.Declined):
            return piece.reason
    if not any(piece.rows for piece in pieces):
        return "no data lines"
    return _fast.merge(pieces, kind)


@pytest.fixture
def small_ranges(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cut every file into many small ranges (lines and blocks split at every place)."""
    monkeypatch.setattr(_fast, "_RANGE_BYTES", 37)


# ------------------------------------------------------------------------------------------
# clean input takes the fast path and agrees


def test_a_clean_run_is_read_by_the_c_reader(tmp_path: Path) -> None:
    lines = "".join(f"q{i // 7} Q0 d{i % 11} {i} {1.5 - i / 8} sys\n" for i in range(70))
    columns = fast_outcome(lines.encode())
    assert isinstance(columns, _fast.FastColumns)
    assert columns.query_ids == [f"q{i}" for i in range(10)]
    assert columns.doc_ids.to_pylist() == [f"d{i % 11}" for i in range(70)]
    assert columns.values.tolist() == [1.5 - i / 8 for i in range(70)]
    path = tmp_path / "run"
    path.write_text(lines)
    assert_same("run", path, keep_rank=True)


def test_whitespace_comments_crlf_and_extra_text(tmp_path: Path) -> None:
    text = (
        b"# a comment\n"
        b"q1 Q0 d1 1 3.0 runA\n"
        b"\n"
        b" \t \n"
        b"  q1\tQ0   d2 2\t2.5 runA trailing junk\r\n"
        b"   # indented comment\n"
        b"q2 Q0 d1 1 1e-3 runB\r\n"
        b"q2 Q0 d3 2 -0 runB"
    )
    assert isinstance(fast_outcome(text), _fast.FastColumns)
    path = tmp_path / "run"
    path.write_bytes(text)
    run = assert_same("run", path)
    assert run.to_dict() == {"q1": {"d1": 3.0, "d2": 2.5}, "q2": {"d1": 0.001, "d3": -0.0}}
    assert run.name == "runB"


def test_qrels(tmp_path: Path) -> None:
    text = b"q1 0 d1 2\nq1 0 d2 -1\n\nq2 0 d1 0\r\n# c\nq10 0 d7 0003\n"
    assert isinstance(fast_outcome(text, "qrels"), _fast.FastColumns)
    path = tmp_path / "qrels"
    path.write_bytes(text)
    qrels = assert_same("qrels", path)
    assert qrels.to_dict() == {"q1": {"d1": 2, "d2": -1}, "q2": {"d1": 0}, "q10": {"d7": 3}}


def test_utf8_ids(tmp_path: Path) -> None:
    text = "q\u00e9 Q0 d\u4e2d 1 1.0 r\nq\u00e9 Q0 \U0001f600 2 0.5 r\n".encode()
    assert isinstance(fast_outcome(text), _fast.FastColumns)
    path = tmp_path / "run"
    path.write_bytes(text)
    assert assert_same("run", path).to_dict() == {"q\u00e9": {"d\u4e2d": 1.0, "\U0001f600": 0.5}}


# ------------------------------------------------------------------------------------------
# anything unusual is declined, and the general reader answers


@pytest.mark.parametrize(
    ("content", "kind", "reason"),
    [
        (b"q Q0 d 1 1.0 r\nq Q0 e 2\n", "run", "wrong number of fields"),
        (b"q 0 d 1 extra\n", "qrels", "wrong number of fields"),
        (b"q 0 d\n", "qrels", "wrong number of fields"),
        (b"q Q0 d 1 abc r\n", "run", "score not in the decimal grammar"),
        (b"q Q0 d 1 inf r\n", "run", "score not in the decimal grammar"),
        (b"q Q0 d 1 nan r\n", "run", "score not in the decimal grammar"),
        (b"q Q0 d 1 1e999 r\n", "run", "score not finite"),
        (b"q Q0 d 1 1_0 r\n", "run", "score not in the decimal grammar"),
        (b"q 0 d 0x10\n", "qrels", "grade not in the decimal grammar"),
        (b"q 0 d nan\n", "qrels", "grade not in the decimal grammar"),
        (b"q 0 d 1e999\n", "qrels", "grade not finite"),
        (b"q Q0 d 1 1.0 r\nq Q0 d 2 0.5 r\n", "run", "a document twice in one query"),
        (b"q Q0 d\xff 1 1.0 r\n", "run", "not UTF-8"),
        (b"q\xc3 Q0 d 1 1.0 r\n", "run", "not UTF-8"),
        (b"q Q0 d 1 1.0 r\x00\n", "run", "control byte"),
        (b"q Q0 d\x0c 1 1.0 r\n", "run", "control byte"),
        (b"q Q0 d 1 1.0 r\rq Q0 e 2 1.0 r\n", "run", "carriage return inside a line"),
        (b"# comment \x00\nq Q0 d 1 1.0 r\n", "run", "NUL byte"),
        (b"\xef\xbb\xbfq Q0 d 1 1.0 r\n", "run", "byte order mark"),
        (b"# only a comment\n\n", "run", "no data lines"),
        (b"", "run", "empty input"),
    ],
)
def test_declines(content: bytes, kind: str, reason: str, tmp_path: Path) -> None:
    outcome = fast_outcome(content, kind)
    assert isinstance(outcome, str)
    assert outcome.startswith(reason)
    path = tmp_path / kind
    path.write_bytes(content)
    assert_same(kind, path)


def test_a_lone_carriage_return_at_the_very_end_is_a_line_end(tmp_path: Path) -> None:
    path = tmp_path / "run"
    path.write_bytes(b"q Q0 d 1 1.0 r\r")
    assert isinstance(fast_outcome(path.read_bytes()), _fast.FastColumns)
    assert assert_same("run", path).to_dict() == {"q": {"d": 1.0}}


def test_grades_beyond_exact_doubles_round_to_the_nearest(tmp_path: Path) -> None:
    path = tmp_path / "qrels"
    path.write_bytes(b"q 0 d 9007199254740993\n")
    assert isinstance(fast_outcome(path.read_bytes(), "qrels"), _fast.FastColumns)
    assert assert_same("qrels", path).grades.tolist() == [9007199254740992.0]


# ------------------------------------------------------------------------------------------
# ranges: lines, query blocks and duplicates split across them


def test_many_ranges_agree(tmp_path: Path, small_ranges: None) -> None:
    lines = "".join(f"q{i // 13} Q0 doc{i % 17} {i} {(i * 7919) % 101 / 7} r{i % 3}\n"
                    for i in range(400))
    path = tmp_path / "run"
    path.write_text(lines)
    columns = fast_outcome(lines.encode())
    assert isinstance(columns, _fast.FastColumns)
    assert columns.unchecked_rows is None  # a block per line or two: every row checked again
    assert_same("run", path, keep_rank=True)


def test_blocks_split_by_ranges_are_checked_again(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_fast, "_RANGE_BYTES", 3000)
    lines = "".join(f"q{i // 40} Q0 doc{i % 40} {i} {100 - i % 40} r\n" for i in range(800))
    path = tmp_path / "run"
    path.write_text(lines)
    columns = fast_outcome(lines.encode())
    assert isinstance(columns, _fast.FastColumns)
    assert columns.unchecked_rows is not None
    assert 0 < len(columns.unchecked_rows) < 800
    assert columns.sorted_blocks is not None
    assert columns.sorted_blocks.tolist() == list(range(0, 800, 40))
    assert_same("run", path)


@pytest.mark.parametrize("gap", [1, 2, 5, 30])
def test_a_duplicate_split_across_ranges_is_found(tmp_path: Path, small_ranges: None,
                                                  gap: int) -> None:
    rows = [f"q1 Q0 d{i} {i} {100 - i} r\n" for i in range(40)]
    rows.insert(3 + gap, "q1 Q0 d3 99 0.5 r\n")  # d3 again, 'gap' lines later
    path = tmp_path / "run"
    path.write_text("".join(rows))
    outcome = assert_same("run", path)
    assert outcome[0] == "DuplicateEntryError"
    assert "document 'd3' appears twice for query 'q1' (first at line 4)" in outcome[1]


def test_a_query_in_two_blocks_is_checked_across_them(tmp_path: Path) -> None:
    path = tmp_path / "run"
    path.write_bytes(b"q1 Q0 a 1 3 r\nq2 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq1 Q0 a 3 1 r\n")
    outcome = assert_same("run", path)
    assert outcome[0] == "DuplicateEntryError"
    assert outcome[1].endswith(":4: document 'a' appears twice for query 'q1' (first at line 1); "
                               "a run lists each document once per query")


@pytest.mark.parametrize("query", ["q", "q12345", "q1234567", "query-12345", "q-" + "9" * 40])
@pytest.mark.parametrize("repeat_at", [None, 1, 600, 1024, 1025, 2048, 2049, 2100])
def test_the_common_lines_loop_stops_where_it_must(tmp_path: Path, query: str,
                                                   repeat_at: int | None) -> None:
    """A long query (the set of documents seen grows twice), ids of every length.

    The C reader takes the common lines of a query in one tight loop and hands
    every other line to the general step: a new query, one of the same length
    ('q1' then 'qZ'), one that only starts like this one ('q1' then 'q12'), a
    document whose hash is in the set already (a repeat), the set due to grow,
    a comment, a CR LF line. The columns (or the error, at the repeat's line)
    are the general reader's (each mutation of the loop's checks fails here).
    """
    lines = []
    names = [query, query[:-1] + "Z", query + "2", query[:-1] or "p", query + "x"]
    for block, name in enumerate(names):
        for i in range(2100 if block == 0 else 30):
            lines.append(f"{name} Q0 doc{block}-{i} {i + 1} {2000 - i}.{i % 7} run\n")
        lines.append("# a comment between blocks\n" if block % 2 else
                     f"{name} Q0 doc{block}-last 0 -1.5 run\r\n")
    if repeat_at is not None:
        lines.insert(repeat_at, f"{query} Q0 doc0-0 0 -2 run\n")
    path = tmp_path / "run"
    path.write_bytes("".join(lines).encode())
    outcome = assert_same("run", path)
    if repeat_at is None:
        assert isinstance(outcome, rw.Run)
        assert len(outcome) == 2100 + 4 * 30 + 3
        assert isinstance(fast_outcome(path.read_bytes()), _fast.FastColumns)
    else:
        assert outcome[0] == "DuplicateEntryError"
        assert (f":{repeat_at + 1}: document 'doc0-0' appears twice for query '{query}' "
                "(first at line 1)") in outcome[1]


def test_lines_of_every_length_around_the_64_byte_window(tmp_path: Path) -> None:
    """Lines near 64 bytes, with each kind of odd spacing, end or byte, read as written.

    The C reader splits a line of at most 64 bytes in one step; every line it
    does not take that way (longer, two blanks in a row, CR LF, a seventh
    field, a byte >= 0x80) is read field by field; tabs, alone or among
    spaces, are taken in one step too. The values are the
    ones written, whichever way a line goes.
    """
    forms = ["{q} Q0 {d} {r} {s} {t}\n", "{q}\tQ0\t{d}\t{r}\t{s}\t{t}\n",
             "{q} Q0  {d} {r} {s} {t}\n", "{q} Q0 {d} {r} {s} {t}\r\n",
             "{q} Q0 {d} {r} {s} {t} extra\n", "{q} Q0 {d}\u00e9 {r} {s} {t}\n",
             "  {q} Q0 {d} {r} {s} {t}\n", "{q} Q0 {d} {r} {s} {t} \n",
             "{q}\tQ0 {d}\t{r} {s}\t{t}\n", "{q}\tQ0\t{d}\u00e9\t{r}\t{s}\t{t}\n"]
    lines, expected = [], []
    for width in range(30, 72):
        for form_index, form in enumerate(forms):
            q = f"q{width}-{form_index}"
            doc = "d" + "x" * max(1, width - 28)
            score = f"{width}.{form_index:06d}"
            lines.append(form.format(q=q, d=doc, r=1, s=score, t="tag"))
            doc_id = doc + ("\u00e9" if "\u00e9" in form else "")
            expected.append((q, doc_id, float(score)))
    path = tmp_path / "run"
    path.write_bytes("".join(lines).encode())
    run = assert_same("run", path)
    assert isinstance(fast_outcome(path.read_bytes()), _fast.FastColumns)
    assert [(run.query_ids[code], doc, score) for code, doc, score in zip(
        run.query_codes.tolist(), run.doc_ids.to_pylist(), run.scores.tolist())] == expected


@pytest.mark.parametrize("score", [
    "0", "7", "5.", ".5", "+1.25", "-0.0000001", "-0", "1234567.1234567", "12345678.1",
    "1.12345678", "00012.5000", "9999999.9999999", "0.1", "0.3", "2.675", "1e-3", "-.5",
    "39.977805", "123456789012345", "0.000000000000001",
    # 8 to 19 digits (read 8 at a time; above 2^53 rounded by the exact check)
    "39.97793936424411", "-0.9879843220391022", "+1234.5678901234567", "12345678901234567.5",
    "4503599627370496.5", "4503599627370497.5", "9007199254740993", "18446744073709551615",
    "0.1234567890123456789", "000000000000000000012.5", "-0.000000000000000001", "12345678.",
    "99999999999999999.99", "1234567890123456789.0",
])
def test_scores_read_in_one_step_equal_the_correctly_rounded_value(score: str) -> None:
    """Every short form of a score, with room after it for the 16-byte read: Python's float."""
    text = "".join(f"q1 Q0 d{i} {i + 1} {score} run-with-a-long-enough-tag\n"
                   for i in range(3)).encode()
    piece = _fast.parse_block(text, "run")
    assert isinstance(piece, _fast.Piece)
    assert piece.values.view(np.int64).tolist() == [np.float64(float(score)).view(np.int64)] * 3


@pytest.mark.parametrize("score", [".", "-", "+", "1..2", "1.2.3", "1.2e", "--1", "1,5", "0x10",
                                   "123456789.123456789.1", "1234567890.1234567-8"])
def test_tokens_that_are_not_scores_are_declined(score: str) -> None:
    text = f"q1 Q0 d1 1 {score} run-with-a-long-enough-tag\n".encode() * 2
    assert _fast.parse_block(text, "run") == _fast.Declined(
        "score not in the decimal grammar", 0)


def test_merge_moves_the_values_of_the_pieces(tmp_path: Path, small_ranges: None) -> None:
    """The values are held once after the merge: the pieces keep none of them."""
    lines = "".join(f"q{i // 5} Q0 d{i} {i} {i / 4} r\n" for i in range(40))
    path = tmp_path / "run"
    path.write_text(lines)
    pieces = _fast.parse_file_ranges(str(path), len(lines), "run")
    assert all(isinstance(piece, _fast.Piece) for piece in pieces)
    columns = _fast.merge(pieces, "run")
    assert columns.values.tolist() == [i / 4 for i in range(40)]
    assert [len(piece.values) for piece in pieces] == [0] * len(pieces)


def test_lines_across_read_blocks(tmp_path: Path) -> None:
    """A file of several MiB: lines cross the C reader's 1 MiB read blocks."""
    rng = np.random.default_rng(5)
    scores = rng.normal(size=60_000)
    lines = "".join(
        f"{q} Q0 D{q}-{d}{'x' * (d % 23)} {d + 1} {s!r} run\n"
        for (q, d), s in zip(((i // 500, i % 500) for i in range(60_000)), scores.tolist())
    )
    path = tmp_path / "big.run"
    path.write_text(lines)
    assert path.stat().st_size > 2 << 20
    run = assert_same("run", path)
    np.testing.assert_array_equal(run.scores, scores)


def test_ranges_across_read_blocks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_fast, "_RANGE_BYTES", (1 << 20) + 12345)
    lines = "".join(f"q{i // 1000} Q0 d{i % 1000} 1 {i / 3} r\n" for i in range(150_000))
    path = tmp_path / "run"
    path.write_text(lines)
    assert path.stat().st_size > 3 * ((1 << 20) + 12345)
    assert_same("run", path)


# ------------------------------------------------------------------------------------------
# numbers: exactly what a correctly rounded parser gives


DECIMAL = st.from_regex(
    r"[+-]?(?:[0-9]{1,25}(?:\.[0-9]{0,25})?|\.[0-9]{1,25})(?:[eE][+-]?[0-9]{1,3})?",
    fullmatch=True,
)


@settings(max_examples=400, deadline=None)
@given(st.lists(DECIMAL, min_size=1, max_size=20))
def test_scores_are_correctly_rounded(tokens: list[str]) -> None:
    values = [float(token) for token in tokens]
    assume(all(np.isfinite(values)))
    text = "".join(f"q Q0 d{i} 1 {token} r\n" for i, token in enumerate(tokens)).encode()
    columns = fast_outcome(text)
    assert isinstance(columns, _fast.FastColumns)
    np.testing.assert_array_equal(columns.values.view(np.int64), np.array(values).view(np.int64))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=20),
       st.sampled_from(["{!r}", "{:.6f}", "{:.17g}", "{:.3e}", "{:.0f}", "{:.20f}"]))
def test_printed_floats_read_back(values: list[float], style: str) -> None:
    tokens = [style.format(value) for value in values]
    assume(all(np.isfinite([float(token) for token in tokens])))  # 1.798e+308 overflows
    text = "".join(f"q Q0 d{i} 1 {token} r\n" for i, token in enumerate(tokens)).encode()
    columns = fast_outcome(text)
    assert isinstance(columns, _fast.FastColumns)
    expected = np.array([float(token) for token in tokens])
    np.testing.assert_array_equal(columns.values.view(np.int64), expected.view(np.int64))


# ------------------------------------------------------------------------------------------
# any file: the two readers agree (values, or the same error)

SEPARATORS = st.sampled_from([" ", " ", " ", "\t", "  ", " \t ", "\t\t"])
LONG_DECIMAL = st.builds(
    lambda sign, digits, at: sign + (digits[:at] or "0") + "." + digits[at:],
    st.sampled_from(["", "-"]),
    st.integers(16, 19).flatmap(lambda n: st.integers(10 ** (n - 1), 10 ** n - 1)).map(str),
    st.integers(0, 19),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(LONG_DECIMAL, st.floats(allow_nan=False, allow_infinity=False,
                                                  min_value=-1e17, max_value=1e17).map(repr)),
                min_size=1, max_size=20))
def test_long_mantissas_are_correctly_rounded(tokens: list[str]) -> None:
    """17 to 19 significant digits (Python's repr of a float): rounded exactly, not by strtod."""
    test_scores_are_correctly_rounded.hypothesis.inner_test(tokens)  # type: ignore[attr-defined]


def halfway_tokens(seed: int, count: int) -> list[str]:
    """Decimals exactly halfway between two neighbouring doubles (and one digit short of
    it), in at most 19 significant digits: where rounding half to even decides."""
    import math
    import random
    from decimal import Decimal

    rng = random.Random(seed)
    tokens = []
    while len(tokens) < count:
        power = rng.randint(49, 56)
        c = rng.uniform(2.0 ** power, 2.0 ** (power + 1))
        for neighbour in (math.nextafter(c, math.inf), math.nextafter(c, 0)):
            text = format((Decimal(c) + Decimal(neighbour)) / 2, "f")
            if len(text.replace(".", "").lstrip("0")) <= 19:
                tokens.append(text)
                tokens.append(text[:-1] + str(int(text[-1]) ^ 1) if "." in text else text + ".1")
    return tokens


def test_halfway_points_round_half_to_even() -> None:
    tokens = halfway_tokens(7, 20_000)
    assert sum(token.endswith("5") for token in tokens) > 4_000
    text = "".join(f"q{i // 50} Q0 d{i} 1 {token} r\n" for i, token in enumerate(tokens))
    columns = fast_outcome(text.encode())
    assert isinstance(columns, _fast.FastColumns)
    expected = np.array([float(token) for token in tokens])
    np.testing.assert_array_equal(columns.values.view(np.int64), expected.view(np.int64))


GOOD_SCORES = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, width=32).map(repr),
    st.integers(-10**6, 10**6).map(str),
    st.from_regex(r"[+-]?[0-9]{1,12}(\.[0-9]{0,12})?", fullmatch=True),
)
BAD_SCORES = st.one_of(
    DECIMAL,
    st.sampled_from(["inf", "-inf", "nan", "1e400", "1,5", ".", "-", "0x1p3", "1e", "+.5e-3"]),
)


@st.composite
def run_lines(draw: st.DrawFn) -> bytes:
    """A run file; one in four holds something odd (bad score, field count, byte, duplicate)."""
    odd = draw(st.integers(0, 3)) == 0
    out = []
    for number in range(draw(st.integers(0, 25))):
        kind = draw(st.sampled_from(["data"] * 12 + ["comment", "blank"] + ["short"] * odd))
        if kind == "comment":
            out.append(draw(st.sampled_from([b"#", b"# note", b"  # indented", b"#\tx y"])))
        elif kind == "blank":
            out.append(draw(st.sampled_from([b"", b" ", b"\t \t"])))
        else:
            doc = f"d{number}" if not odd else draw(st.sampled_from(["d1", "d2", f"d{number}"]))
            fields = [
                draw(st.sampled_from(["q1", "q2", "10", "01", "q\u00e9"])),
                "Q0",
                doc + draw(st.sampled_from(["", "", "-a-long-document-name", "\u00fc"])),
                str(draw(st.integers(0, 99))),
                draw(BAD_SCORES if odd and draw(st.booleans()) else GOOD_SCORES),
                draw(st.sampled_from(["run", "sys\u00e9"])),
            ]
            fields += draw(st.lists(st.sampled_from(["x", "junk 1", "#"]), max_size=2))
            if kind == "short":
                fields = fields[: draw(st.integers(1, 5))]
            line = "".join(field + draw(SEPARATORS) for field in fields[:-1]) + fields[-1]
            lead = draw(st.sampled_from(["", "", " ", "\t"]))
            trail = draw(st.sampled_from(["", "", " ", "\t", *["\r"] * odd]))
            out.append((lead + line + trail).encode())
    end = draw(st.sampled_from([b"\n", b"\n", b"\r\n"]))
    text = end.join(out) + draw(st.sampled_from([end, b""]))
    if odd and draw(st.booleans()):  # a byte that does not belong
        at = draw(st.integers(0, len(text)))
        byte = draw(st.sampled_from([b"\x00", b"\r", b"\x0b", b"\xff", b"\xc3", b"\xef\xbb\xbf"]))
        text = text[:at] + byte + text[at:]
    return text


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(run_lines(), st.sampled_from([37, 101, 1 << 20]), st.booleans())
def test_any_run_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: bytes,
                      range_bytes: int, keep_rank: bool) -> None:
    monkeypatch.setattr(_fast, "_RANGE_BYTES", range_bytes)
    path = tmp_path / "run"
    path.write_bytes(content)
    outcome = fast_outcome(content)
    event("C reader" if isinstance(outcome, _fast.FastColumns) else f"declined: {outcome[:20]}")
    assert_same("run", path, keep_rank=keep_rank)


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["q1", "q2", "3"]), SEPARATORS,
                          st.sampled_from(["d1", "d2", "D\u00fc", "d-long-document-name"]),
                          st.sampled_from(["0", "1", "-1", "2", "007", "1.0", "+1", "x", "-0"])),
                max_size=12),
       st.sampled_from([29, 1 << 20]))
def test_any_qrels_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                        rows: list[tuple[str, str, str, str]], range_bytes: int) -> None:
    monkeypatch.setattr(_fast, "_RANGE_BYTES", range_bytes)
    content = "".join(f"{q}{sep}0{sep}{d}{sep}{g}\n" for q, sep, d, g in rows).encode()
    path = tmp_path / "qrels"
    path.write_bytes(content)
    assert_same("qrels", path)


# ------------------------------------------------------------------------------------------
# runs in rank order: the reader tells the engine where each query's block starts


def _expected_blocks(run: rw.Run) -> list[int] | None:
    codes, scores = run.query_codes, run.scores
    starts = [0, *(np.flatnonzero(codes[1:] != codes[:-1]) + 1).tolist()]
    if len(starts) != len(run.query_ids):
        return None
    ends = [*starts[1:], len(codes)]
    if any((np.diff(scores[a:b]) > 0).any() for a, b in zip(starts, ends)):
        return None
    return starts


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.tuples(st.sampled_from(["q1", "q2", "q3"]), st.integers(0, 5)), min_size=1,
             max_size=40),
    st.booleans(),
    st.sampled_from([23, 61, 1 << 20]),
)
def test_rank_order_blocks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                           rows: list[tuple[str, int]], in_order: bool, range_bytes: int) -> None:
    monkeypatch.setattr(_fast, "_RANGE_BYTES", range_bytes)
    if in_order:  # group by query, scores descending (ties kept)
        rows = sorted(rows, key=lambda row: (row[0], -row[1]))
    lines = "".join(f"{q} Q0 d{i} {i} {score} r\n" for i, (q, score) in enumerate(rows))
    path = tmp_path / "run"
    path.write_text(lines)
    fast = _read("run", path, pure=False)
    pure = _read("run", path, pure=True)
    assert isinstance(fast, rw.Run) and isinstance(pure, rw.Run)
    blocks = fast.rank_order_blocks
    assert (None if blocks is None else blocks.tolist()) == _expected_blocks(fast)
    pure_blocks = pure.rank_order_blocks
    assert (None if pure_blocks is None else pure_blocks.tolist()) == _expected_blocks(pure)
    qrels = rw.Qrels.from_dict({q: {f"d{i}": i % 3 for i in range(0, len(rows), 2)}
                                for q in ("q1", "q2", "q3")})
    measures = ["ndcg@3", "map", "P@2", "mrr", "recall@4", "bpref"]
    with_blocks = rw.evaluate(qrels, fast, measures)
    without = rw.evaluate(qrels, pure, measures)
    assert with_blocks.query_ids == without.query_ids
    for measure in measures:
        np.testing.assert_array_equal(with_blocks[measure], without[measure])


# ------------------------------------------------------------------------------------------
# any bytes at all, any range: columns or a reason, never a crash (also run under ASan/UBSan)

PIECES = st.sampled_from([
    b"q1", b"Q0", b"d1", b"1", b"2.5", b"-1e3", b"r", b" ", b"\t", b"\n", b"\r\n", b"#",
    b"\xc3\xa9", b"\xff", b"\x00", b"\r", b".", b"1234567.1234567", b"12345678901234567890",
    b"x" * 30,
])


@settings(max_examples=400, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.binary(max_size=300), st.lists(PIECES, max_size=80).map(b"".join)),
       st.integers(0, 400), st.integers(0, 400), st.booleans(), st.booleans(), st.booleans())
def test_any_bytes_any_range(tmp_path: Path, data: bytes, begin: int, end: int, qrels: bool,
                             keep_rank: bool, from_file: bool) -> None:
    reader = _fast._ctrec
    begin, end = sorted((min(begin, len(data)), min(end, len(data))))
    layout = reader.QRELS if qrels else reader.RUN
    if from_file:
        path = tmp_path / "input"
        path.write_bytes(data)
        with open(path, "rb") as handle:
            result = reader.parse(handle.fileno(), begin, end, layout, keep_rank)
    else:
        result = reader.parse(data, begin, end, layout, keep_rank)
    assert isinstance(result, tuple)
    if len(result) == 2:  # declined: why, and where the line starts
        reason, offset = result
        assert isinstance(reason, str) and 0 <= offset <= len(data)
    else:
        rows, names = result[0], result[1]
        assert rows <= data.count(b"\n") + 1
        assert len(names) <= rows


@pytest.mark.parametrize("content", [
    b"#\r note\nq1 Q0 d1 0 0.0 run\n",
    b"  # a\rb\nq1 Q0 d1 0 0.0 run\n",
    b"q1 Q0 d1 0 0.0 run\n#a\rq2 Q0 d2 0 0.0 run\n",
])
def test_a_carriage_return_inside_a_comment_is_part_of_the_comment(
    tmp_path: Path, content: bytes
) -> None:
    # found by test_any_run_file: the pure reader refused it, the C reader skipped it
    path = tmp_path / "run"
    path.write_bytes(content)
    for pure in (False, True):
        run = _read("run", path, pure=pure)
        assert isinstance(run, rw.Run)
        assert run.query_ids == ["q1"] and len(run) == 1


def test_a_nul_byte_in_the_first_64_kib_is_said_first_however_small_the_stream_blocks(
    tmp_path: Path,
) -> None:
    # found by test_any_run_file: a stream checked only its first block for NUL bytes, so a
    # bad line in its second block was said instead (a file said the NUL byte)
    path = tmp_path / "run"
    line = b"q1 Q0 d1 0 0.0 run\n"
    path.write_bytes(line * 3 + b"q1\n" + line + b"\x00" + line)
    assert_same("run", path)
    fast = _read("run", path, pure=False)
    assert isinstance(fast, tuple) and ":6: binary data (a NUL byte)" in fast[1]


# ------------------------------------------------------------------------------------------
# missing and empty fields: the general reader counts fields as the C reader does (issue 33)


@pytest.mark.parametrize(("content", "kind", "line", "got"), [
    (b"q1 Q0 d1 1 2.0 t\nq1 Q0  2 1.0 t\n", "run", 2, 5),  # the example: no docno
    (b"q1 Q0 d1 1 2.0 t\n q1 Q0 d2 1 1.0\n", "run", 2, 5),  # a leading space, no run id
    (b"q1 Q0 d1 1 2.0 t\nq1  d2 1 1.0 t\n", "run", 2, 5),  # no iter
    (b"q1 Q0 d1 1 2.0 t\nq1 Q0 d2 1 1.0 \n", "run", 2, 5),  # a trailing space, no run id
    (b"q1 Q0 d1 1 2.0 t\r\nq1 Q0 d2 1 1.0 \r\n", "run", 2, 5),  # the same with CR LF
    (b"q1\tQ0\td1\t1\t2.0\tt\nq1\tQ0\td2\t\t1.0\tt\n", "run", 2, 5),  # tabs: no rank
    (b"q1 0  1\nq1 0 d2 1\n", "qrels", 1, 3),  # no docno
    (b"q1 0 d1 1\n 0 d3 1\n", "qrels", 2, 3),  # no qid, a leading space
    (b"q1 0 d1 1\nq1 0 d3 \n", "qrels", 2, 3),  # no grade, a trailing space
])
def test_a_missing_field_is_an_error_on_both_paths(tmp_path: Path, content: bytes, kind: str,
                                                   line: int, got: int) -> None:
    # the general reader read two separators in a row as an empty field: the run
    # gave map 0.5 and num_ret 2 with RANKWISE_NO_C=1, where the C reader said r:2
    path = tmp_path / kind
    path.write_bytes(content)
    fields = "6 fields (qid iter docno rank score runid)" if kind == "run" else (
        "4 fields (qid iter docno grade)")
    expected = ("InputFormatError", f"{path}:{line}: expected {fields}, got {got}")
    for pure in (False, True):
        assert _read(kind, path, pure=pure) == expected
    assert_same(kind, path)


def test_a_missing_field_in_diversity_judgments_is_an_error_on_both_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the general reader took 'q1 0  1' as four fields, then the subtopic pass failed with
    # pyarrow's traceback
    path = tmp_path / "qrels"
    path.write_bytes(b"q1 0  1\nq1 0 d2 1\n")
    for pure in ("0", "1"):
        monkeypatch.setenv("RANKWISE_NO_C", pure)
        with pytest.raises(RankwiseError, match=r":1: expected 4 fields .*, got 3$"):
            rw.read_qrels(path, subtopics=True)


@pytest.mark.parametrize("content", [
    b"\xef\xbb\xbf q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n",
    b"\xef\xbb\xbf\tq1\tQ0\td1\t1\t2.0\tt\nq1\tQ0\td2\t2\t1.0\tt\n",
    b"\xef\xbb\xbf\n q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n",
])
def test_whitespace_after_a_byte_order_mark_is_not_an_empty_field(
    tmp_path: Path, small_ranges: None, content: bytes
) -> None:
    # found by test_any_run_file: pyarrow skipped the mark and read the space after it as a
    # separator, so the first line had an empty query id and its fields moved one place
    path = tmp_path / "run"
    path.write_bytes(content)
    run = assert_same("run", path, keep_rank=True)
    assert isinstance(run, rw.Run)
    assert run.to_dict() == {"q1": {"d1": 2.0, "d2": 1.0}}
    # a byte order mark past the input's start is a character of its field
    lines = b"".join(b"q0 Q0 d%d 1 3.0 t\n" % i for i in range(4))
    path.write_bytes(lines + content[3:].replace(b"q1", b"\xef\xbb\xbfq1", 1))
    run = assert_same("run", path, keep_rank=True)
    assert isinstance(run, rw.Run)
    assert run.query_ids == ["q0", "\ufeffq1", "q1"]


def test_diversity_judgments_from_standard_input(monkeypatch: pytest.MonkeyPatch) -> None:
    # the subtopic column is read in a second pass: standard input was empty by then
    import gzip
    import io
    import sys

    text = b"1 1 d1 1\n1 2 d2 1\n1 2 d3 0\n"
    for data in (text, gzip.compress(text)):
        for pure in ("0", "1"):
            monkeypatch.setenv("RANKWISE_NO_C", pure)
            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
            qrels = rw.read_qrels("-", subtopics=True)
            assert qrels.to_dict(subtopics=True) == {"1": {"1": {"d1": 1}, "2": {"d2": 1,
                                                                                "d3": 0}}}


@st.composite
def spaced_lines(draw: st.DrawFn, kind: str) -> bytes:
    """TREC text in one separator, with runs of spaces and tabs, missing and empty fields,
    extra fields, leading and trailing whitespace, comment and blank lines, CR LF and CR."""
    width = 6 if kind == "run" else 4
    main = draw(st.sampled_from([" ", "\t"]))
    # plain: one separator byte throughout, as pyarrow can read a piece without normalising it
    plain = draw(st.booleans())
    separators = st.sampled_from([main] * 8 + [main * 2] + [" \t", "\t ", main * 3] * (not plain))
    shapes = ["data"] * 6 + ["missing"] * 2 + ["empty", "extra"] + ["comment", "blank"] * (
        not plain)
    lines = []
    for number in range(draw(st.integers(0, 10))):
        shape = draw(st.sampled_from(shapes))
        if shape == "comment":
            lines.append(draw(st.sampled_from(["#", "# x y", main + "# z", "#" + main])))
            continue
        if shape == "blank":
            lines.append(draw(st.sampled_from(["", main, main * 2, " \t"])))
            continue
        fields = ([draw(st.sampled_from(["q1", "q2", "7"])), "Q0", f"d{number}", str(number),
                   draw(st.sampled_from(["1.5", "-2", "0.25", "3e2"])), "run"]
                  if kind != "qrels" else
                  [draw(st.sampled_from(["q1", "q2", "7"])), draw(st.sampled_from(["0", "1"])),
                   f"d{number}", draw(st.sampled_from(["0", "1", "2", "0.5"]))])
        if shape == "missing":
            del fields[draw(st.integers(0, width - 1))]
        elif shape == "empty":
            fields.insert(draw(st.integers(0, width)), "")
        elif shape == "extra":
            fields.append(draw(st.sampled_from(["x", "more text"])))
        line = "".join(field + draw(separators) for field in fields[:-1]) + fields[-1]
        lead = draw(st.sampled_from(["", "", "", main, main * 2]))
        trail = draw(st.sampled_from(["", "", "", main, main * 2] + ["\r"] * (not plain)))
        lines.append(lead + line + trail)
    if lines and draw(st.integers(0, 7)) == 0:  # a byte order mark starts a line
        at = draw(st.integers(0, len(lines) - 1))
        lines[at] = "\ufeff" + lines[at]
    end = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    return (end.join(lines) + draw(st.sampled_from([end, ""]))).encode()


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["run", "qrels"]).flatmap(lambda kind: st.tuples(
    st.just(kind), spaced_lines(kind))), st.sampled_from([29, 1 << 20]), st.booleans())
def test_both_readers_agree_on_any_spacing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           case: tuple[str, bytes], range_bytes: int,
                                           keep_rank: bool) -> None:
    kind, content = case
    monkeypatch.setattr(_fast, "_RANGE_BYTES", range_bytes)
    path = tmp_path / kind
    path.write_bytes(content)
    outcome = assert_same(kind, path, keep_rank=keep_rank and kind == "run")
    event("read" if not isinstance(outcome, tuple) else outcome[1].split(": ", 1)[-1][:25])


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spaced_lines("qrels"))
def test_both_readers_agree_on_diversity_judgments(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "qrels"
    path.write_bytes(content)
    outcomes = []
    for source in (path, content):
        for pure in (False, True):
            previous = os.environ.get("RANKWISE_NO_C")
            os.environ["RANKWISE_NO_C"] = "1" if pure else "0"
            try:
                qrels = rw.read_trec_qrels(source, subtopics=True)
                outcomes.append(qrels.to_dict(subtopics=True))
            except RankwiseError as error:
                outcomes.append(str(error).replace(str(path), "<bytes>"))
            finally:
                if previous is None:
                    del os.environ["RANKWISE_NO_C"]
                else:
                    os.environ["RANKWISE_NO_C"] = previous
    assert all(outcome == outcomes[0] for outcome in outcomes)


@pytest.mark.parametrize("last", [
    b"q2 Q0 d9 3 0.5 last\n",
    b"  q2\tQ0  d9 3 0.5\t last extra words\r\n",
    b"q2 Q0 d9 3 0.5 last",
    b"q2 Q0 d9 3 0.5 last\n# a comment after the last row\n\n",
])
@pytest.mark.parametrize("range_bytes", [37, 16 << 20])
def test_the_run_id_is_the_last_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     last: bytes, range_bytes: int) -> None:
    """The run's name is the run id of its last row, whatever the spacing and the ranges."""
    monkeypatch.setattr(_fast, "_RANGE_BYTES", range_bytes)
    lines = b"".join(b"q%d Q0 d%d %d %d first\n" % (i // 3, i, i, 9 - i) for i in range(9))
    path = tmp_path / "run"
    path.write_bytes(lines + last)
    fast = _read("run", path, pure=False)
    assert isinstance(fast, rw.Run) and fast.name == "last"
    assert_same("run", path)


def test_a_long_line_inside_a_query_is_declined_by_the_common_lines_loop() -> None:
    """The fourth line of q1 (45 bytes) passes a 40-byte limit: declined at its offset."""
    from rankwise.io._fast import _ctrec

    lines = [b"q1 Q0 d%d 1 %d.5 r\n" % (i, 9 - i) for i in range(3)]
    lines += [b"q1 Q0 " + b"x" * 30 + b" 1 0.5 r\n"]
    lines += [b"q1 Q0 e%d 1 0.1 r\n" % i for i in range(5)]
    data = b"".join(lines)
    layout = _fast._layout("run")
    assert _ctrec.parse(data, 0, len(data), layout, False, False, 40) == ("line too long", 51)
    assert _ctrec.parse(data, 0, len(data), layout, False, False, 45)[0] == 9
