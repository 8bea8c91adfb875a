"""Type stubs of the optional C module (see _ccolumns.c)."""

from typing import Any

STRING: int
LARGE_STRING: int
STRING_VIEW: int
OBJECTS: int

def run_dict(results: Any, id_types: Any, number_types: Any, /) -> tuple[Any, ...]: ...
def qrels_dict(
    judgments: Any, id_types: Any, number_types: Any, intern_docs: bool = True, /
) -> tuple[Any, ...]: ...
def run_table(
    queries: tuple[int, list[Any]], docs: tuple[int, list[Any]], scores: Any, copy_docs: bool, /
) -> tuple[Any, ...] | str: ...
def merge_names(parts: list[list[str]], /) -> tuple[list[str], list[Any]] | None: ...
def name_codes(index: list[str], names: list[str], /) -> Any | None: ...
