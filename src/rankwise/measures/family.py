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

    @property
    def takes_level(self) -> bool:
        """Whether the relevance level (``EvalOptions.rel``, trec_eval's ``-l``) sets ``rel``.

        True for the families whose ``rel`` is a relevance level (default 1);
        False where ``rel`` turns graded gains binary and is unset by
        default (``rbp``, the C/W/L family): the level leaves those graded.
        """
        param = self.params.get("rel")
        return param is not None and param.default is not None
