"""Type stubs of the optional C module (see _ctrec.c)."""

from typing import Any

RUN: int
QRELS: int
FILE_MODE: int
MAX_LINE: int

def parse(
    source: int | Any,
    begin: int,
    end: int,
    layout: int,
    want_rank: bool,
    integer_grades: bool = ...,
    max_line: int = ...,
    /,
) -> tuple[Any, ...]: ...

def extend(block: Any, data: Any, /) -> Any: ...
