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

def join_pairs(
    q_users: Any,
    q_items: Any,
    s_users: Any,
    s_items: Any,
    n_users: int,
    n_items: int,
    mode: int,
    out: Any,
    s_limit: int = -1,
    /,
) -> None: ...
def compact_lists(
    users: Any, items: Any, flags: Any, k: int, out_users: Any, out_items: Any,
    out_ranks: Any, /,
) -> int: ...
def gather_sums(users: Any, items: Any, values: Any, sums: Any, counts: Any, /) -> None: ...
def count_codes(codes: Any, out: Any, /) -> None: ...
def take_codes(table: Any, values: Any, out: Any, /) -> int: ...
def quicksort_order(values: Any, starts: Any, order: Any, /) -> None: ...
