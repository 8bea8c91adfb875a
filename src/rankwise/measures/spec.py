"""The :class:`Measure` value: a measure family, a cutoff and parameters."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["MAX_CUTOFF", "Measure", "format_value"]

MAX_CUTOFF = 2**63 - 1
"""The largest cutoff a measure takes: ranks are 64-bit integers wherever rankwise counts."""


def format_value(value: Any) -> str:
    """Format a parameter value the way the canonical string shows it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    if isinstance(value, tuple):
        if value and all(isinstance(item, tuple) for item in value):
            return ";".join("=".join(format_value(part) for part in item) for item in value)
        return ";".join(format_value(item) for item in value)
    return str(value)


@dataclass(frozen=True, order=True)
class Measure:
    """One measure to compute: a family name, an optional cutoff and parameters.

    Measures are values: equal measures compare and hash equal, and the
    canonical string round-trips through :func:`rankwise.measures.parse`.
    Only parameters that differ from the family's defaults are stored, so
    ``parse("ndcg@10(gain=exp)") == parse("ndcg@10")``.

    Examples
    --------
    >>> from rankwise.measures import parse
    >>> m = parse("NDCG@10(gain=linear)")
    >>> str(m), m.cutoff, m.param("gain")
    ('ndcg@10(gain=linear)', 10, 'linear')
    """

    name: str
    cutoff: int | None = None
    params: tuple[tuple[str, Any], ...] = ()
    given: frozenset[str] = field(default=frozenset(), compare=False, repr=False)
    """The parameters the measure's text wrote, default values included (``map(rel=1)``
    gives ``rel``): not part of the value, but an option such as ``rel=`` leaves them."""

    def __str__(self) -> str:
        text = self.name
        if self.cutoff is not None:
            text += f"@{self.cutoff}"
        if self.params:
            text += (
                "(" + ",".join(f"{key}={format_value(value)}" for key, value in self.params) + ")"
            )
        return text

    def __repr__(self) -> str:
        return f"Measure({str(self)!r})"

    @property
    def family(self) -> Any:
        """The catalog entry of this measure's family."""
        from rankwise.measures.catalog import FAMILIES

        return FAMILIES[self.name]

    def param(self, key: str) -> Any:
        """Return the value of parameter *key*, the default when not set.

        The default is the family's, or its dialect's where the measure names
        one (``ndcg@10(dialect=catboost)`` has ``gain`` linear).
        """
        dialect = None
        for name, value in self.params:
            if name == key:
                return value
            if name == "dialect":
                dialect = value
        if dialect is not None:
            from rankwise.measures.dialects import dialect_param_default

            override = dialect_param_default(self.name, dialect, key)
            if override is not None:
                return override
        return self.family.params[key].default

    def replace(self, **changes: Any) -> Measure:
        """Return a copy with parameters (or ``cutoff``) changed, defaults dropped."""
        from rankwise.measures.catalog import normalise_params

        cutoff = changes.pop("cutoff", self.cutoff)
        params = dict(self.params)
        params.update(changes)
        return Measure(self.name, cutoff, normalise_params(self.name, params))
