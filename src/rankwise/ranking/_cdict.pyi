"""Type stubs of the optional C module (see _cdict.c)."""

from typing import Any

def run_dict_ranks(
    results: Any,
    id_types: Any,
    number_types: Any,
    qrels_names: list[str],
    query_offsets: Any,
    judgments: Any,
    judged_doc: Any,
    id_offsets: Any,
    id_data: Any,
    per_row: int,
    base: int,
    threads: int = 1,
    /,
) -> tuple[Any, ...] | None: ...
