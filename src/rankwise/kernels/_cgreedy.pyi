"""Type stubs of the optional C module (see _cgreedy.c)."""

from typing import Any

def greedy(
    query_offsets: Any,
    pair_offsets: Any,
    pair_topic: Any,
    powers: Any,
    gain_offsets: Any,
    gains_out: Any,
    counts_out: Any,
    candidate_doc: Any,
    doc_offsets: Any,
    doc_data: Any,
    /,
) -> list[int]: ...
