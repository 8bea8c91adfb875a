"""What to compute: measure specs, the catalog and the measure language."""

from rankwise.measures.catalog import FAMILIES, Family, Param
from rankwise.measures.parser import parse, parse_many
from rankwise.measures.spec import Measure

__all__ = ["FAMILIES", "Family", "Measure", "Param", "parse", "parse_many"]
