"""Type stubs of the optional C module (see _cfuse.c)."""

from typing import Any

def order(query: Any, n_queries: int, order_out: Any, starts_out: Any, /) -> None: ...
def group(
    order: Any,
    starts: Any,
    key: Any,
    q_begin: int,
    q_end: int,
    candidate_out: Any,
    candidate_query_out: Any,
    first_out: Any,
    /,
) -> int: ...
def keys(chunks: list[tuple[int, Any, Any, int]], out: Any, /) -> bool: ...
