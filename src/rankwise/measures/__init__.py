"""What to compute: measure specs, the catalog and the measure language."""

from rankwise.measures.catalog import FAMILIES, Family, Param
from rankwise.measures.language import parse
from rankwise.measures.lists import parse_many, split_measure_list
from rankwise.measures.spec import Measure

__all__ = [
    "FAMILIES",
    "Family",
    "Measure",
    "Param",
    "parse",
    "parse_many",
    "split_measure_list",
]
