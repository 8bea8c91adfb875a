"""Type stubs of the optional C module (see _cfuse.c)."""

from typing import Any

def scan(
    q_begin: int,
    q_end: int,
    runs: list[tuple[Any, ...]],
    candidate_query_out: Any,
    first_run_out: Any,
    first_row_out: Any,
    total_out: Any,
    count_out: Any,
    /,
) -> int: ...
def shift(q_begin: int, q_end: int, runs: list[tuple[Any, ...]], base: int, /) -> None: ...
def gather(first_run: Any, first_row: Any, runs_chunks: list[list[tuple[int, Any, Any, int]]],
           offsets_out: Any, /) -> bytes: ...
def ranks(q_begin: int, q_end: int, begin: Any, end: Any, order: Any,
          chunks: list[tuple[int, Any, Any, int]], scores: Any, rank_out: Any, /) -> int: ...
