"""Type stubs of the optional C module (see _ctrec.c)."""

from typing import Any

RUN: int
QRELS: int
FILE_MODE: int

def parse(
    source: int | Any, begin: int, end: int, layout: int, want_rank: bool, /
) -> tuple[Any, ...] | str: ...
