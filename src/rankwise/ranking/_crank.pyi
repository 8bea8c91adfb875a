"""Type stubs of the optional C module (see _crank.c)."""

from typing import Any

def judged_ranks(
    bounds: Any,
    block_query: Any,
    scores: Any,
    docs: list[tuple[int, Any, Any, int]],
    query_offsets: Any,
    judgments: Any,
    judged_doc: Any,
    judged_ids: tuple[int, Any, Any, int],
    first_block: int,
    last_block: int,
    budget: int,
    row_out: Any,
    judgment_out: Any,
    rank_out: Any,
    above_out: Any,
    size_out: Any,
    block_out: Any,
    /,
) -> int: ...

def quicksort_order(values: Any, starts: Any, order: Any, /) -> None: ...
