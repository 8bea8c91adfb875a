"""Label ranking measures (scikit-learn's ``coverage_error``).

``map(dialect=sklearn)`` is scikit-learn's label ranking average precision;
``coverage`` is its coverage error: how deep one must go to find every
relevant document.
"""

from __future__ import annotations

from rankwise.measures.dialects import DIALECT
from rankwise.measures.family import Family
from rankwise.measures.params import REL

__all__ = ["FAMILIES"]

FAMILIES: list[Family] = [
    Family(
        "coverage",
        "coverage: rank of the deepest relevant document retrieved",
        "max over relevant retrieved documents of their rank; 0 when none is retrieved "
        "(with dialect=sklearn, a tied document is at the last rank of its tie group, "
        "and the list is the retrieved documents)",
        "none",
        {"rel": REL, "dialect": DIALECT},
        ("coverage_error",),
        reference="Tsoumakas et al., Mining multi-label data, 2010; "
        "scikit-learn coverage_error",
    ),
]
