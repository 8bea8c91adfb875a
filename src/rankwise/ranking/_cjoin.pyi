"""Type stubs of the optional C module (see _cjoin.c)."""

from typing import Any

def find(
    chunks: list[tuple[int, Any, Any, int]],
    values: tuple[int, Any, Any, int],
    rows_out: Any,
    codes_out: Any,
    /,
) -> int: ...
