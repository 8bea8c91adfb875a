"""Reading judgments and runs from files, frames and dicts."""

from typing import TYPE_CHECKING, Any

from rankwise.io.coerce import as_qrels, as_run, read_qrels, read_run

if TYPE_CHECKING:
    from rankwise.io.trec import read_trec_qrels, read_trec_run

__all__ = ["as_qrels", "as_run", "read_qrels", "read_run", "read_trec_qrels", "read_trec_run"]


def __getattr__(name: str) -> Any:
    """The TREC readers, loaded when first asked for (dicts and frames never need them)."""
    if name in ("read_trec_qrels", "read_trec_run"):
        from rankwise.io import trec

        return getattr(trec, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
