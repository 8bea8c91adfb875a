"""The catalog of measure families: names, aliases, parameters, definitions.

Each family is data (:class:`~rankwise.measures.family.Family`), defined by
group in :mod:`rankwise.measures.families` and gathered here; nothing here
computes. :func:`lookup` finds a family by any of its names.
"""

from __future__ import annotations

import importlib
from typing import Any

from rankwise.exceptions import MeasureSyntaxError
from rankwise.measures.family import Family
from rankwise.measures.params import Param

__all__ = [
    "FAMILIES",
    "GROUPS",
    "Family",
    "Param",
    "all_labels",
    "group_of",
    "lookup",
    "normalise_params",
]

GROUPS = ("core", "label_ranking", "err", "diversity", "cwl", "other")
"""The modules of :mod:`rankwise.measures.families`, in the order they are listed."""


_GROUP_OF: dict[str, str] = {}


def _gather() -> dict[str, Family]:
    families: dict[str, Family] = {}
    for group in GROUPS:
        module = importlib.import_module(f"rankwise.measures.families.{group}")
        for family in module.FAMILIES:
            if family.name in families:
                raise RuntimeError(f"measure family {family.name!r} is defined twice")
            families[family.name] = family
            _GROUP_OF[family.name] = group
    return families


FAMILIES: dict[str, Family] = _gather()


def group_of(name: str) -> str:
    """The group (one of :data:`GROUPS`) of the family called *name* (its canonical name).

    Examples
    --------
    >>> group_of("alpha_ndcg"), group_of("ndcg")
    ('diversity', 'core')
    """
    return _GROUP_OF[name]

_BY_LOWER: dict[str, str] = {}
for _family in FAMILIES.values():
    for _label in (_family.name, *_family.aliases):
        _BY_LOWER.setdefault(_label.lower(), _family.name)


def lookup(name: str) -> Family | None:
    """Return the family called *name* (case-insensitive, aliases too), or None."""
    canonical = _BY_LOWER.get(name.lower())
    return FAMILIES[canonical] if canonical is not None else None


def all_labels() -> list[str]:
    """Every name and alias, as written in the catalog."""
    return sorted({label for f in FAMILIES.values() for label in (f.name, *f.aliases)})


def normalise_params(name: str, params: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """Drop parameters equal to their defaults and sort the rest by name (``dialect`` first).

    With a ``dialect``, the defaults are the dialect's (see
    :mod:`rankwise.measures.dialects`).
    """
    family = FAMILIES[name]
    dialect = None
    if "dialect" in family.params:
        from rankwise.measures.dialects import dialect_param_default, normalise_dialect

        params, dialect = normalise_dialect(name, params)
    kept = []
    for key in sorted(params, key=lambda name: (name != "dialect", name)):
        if key not in family.params:
            accepted = ", ".join(sorted(family.params)) or "none"
            raise MeasureSyntaxError(
                f"measure {name!r} has no parameter {key!r}; accepted parameters: {accepted}"
            )
        value = params[key]
        default = family.params[key].default
        if dialect is not None:
            override = dialect_param_default(name, dialect, key)
            default = default if override is None else override
        if value != default:
            kept.append((key, value))
    return tuple(kept)
