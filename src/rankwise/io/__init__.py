"""Reading judgments and runs from files, frames and dicts."""

from rankwise.io.coerce import as_qrels, as_run, read_qrels, read_run
from rankwise.io.trec import read_trec_qrels, read_trec_run

__all__ = ["as_qrels", "as_run", "read_qrels", "read_run", "read_trec_qrels", "read_trec_run"]
