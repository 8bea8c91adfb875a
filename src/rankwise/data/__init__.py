"""Data model: :class:`Qrels` (judgments) and :class:`Run` (scored results)."""

from rankwise.data.qrels import Qrels
from rankwise.data.run import Run

__all__ = ["Qrels", "Run"]
