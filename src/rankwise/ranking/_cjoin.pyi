"""Type stubs of the optional C module (see _cjoin.c)."""

from typing import Any

def find(
    chunks: list[tuple[int, Any, Any, int]],
    values: tuple[int, Any, Any, int],
    rows_out: Any,
    codes_out: Any,
    /,
) -> int: ...
def find_by_query(
    chunks: list[tuple[int, Any, Any, int]],
    starts: Any,
    block_query: Any,
    values: tuple[int, Any, Any, int],
    value_codes: Any,
    order: Any,
    bounds: Any,
    rows_out: Any,
    matches_out: Any,
    /,
) -> int: ...
