"""The :class:`Family` of a measure: its name, cutoff, parameters, definition and reference."""

from __future__ import annotations

from dataclasses import dataclass, field

from rankwise.measures.params import Param

__all__ = ["Family"]


@dataclass(frozen=True)
class Family:
    """A family of measures (``ndcg``, ``P``, ``map``, ...)."""

    name: str
    summary: str
    formula: str
    cutoff: str = "none"  # "none", "optional" or "required"
    params: dict[str, Param] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()
    aggregate: str = "mean"  # "mean", "gmean" or "sum"
    integer: bool = False
    reference: str = ""
    text_valued: bool = False
