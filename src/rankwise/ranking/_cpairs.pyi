"""Type stubs of the optional C module (see _cpairs.c)."""

from typing import Any

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
def order_lists(
    users: Any, keys: Any, descending: bool, n_users: int, order: Any, ranks: Any,
    items: Any = None, n_items: int = 0, /,
) -> int: ...
