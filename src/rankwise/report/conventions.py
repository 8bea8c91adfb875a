"""How each measure of a table was computed, in words: gain, relevance, ties, missing queries.

The report states these next to the table that uses them: two tools (or two
papers) agree on a number only when they agree on these.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from rankwise.measures import Measure

__all__ = ["Convention", "conventions"]

_GAINS = {"exp": "gain 2^grade − 1", "linear": "gain = grade",
          "binary": "gain 1 for a relevant grade, else 0"}


@dataclass(frozen=True)
class Convention:
    """The conventions of one measure."""

    measure: str
    gain: str
    ties: str
    missing: str


def _gain(measure: Measure) -> str:
    params = measure.family.params
    parts = []
    explicit = measure.param("gains") if "gains" in params else ()
    if explicit:
        parts.append("gains " + ", ".join(f"{grade:g} → {gain:g}" for grade, gain in explicit))
    elif "gain" in params:
        parts.append(_GAINS.get(str(measure.param("gain")), f"gain {measure.param('gain')}"))
    elif "gains" in params:
        parts.append("gain = grade")
    if "rel" in params and measure.param("rel") is not None:
        level = measure.param("rel")
        prefix = "binary gains: " if "gain" in params or "gains" in params else ""
        from rankwise.measures.dialects import ABOVE_HALF

        shown = "grade > 0.5" if level == ABOVE_HALF else f"grade ≥ {level:g}"
        parts.append(f"{prefix}relevant: {shown}")
    if "max_grade" in params:
        top = measure.param("max_grade")
        parts.append("grades scaled by the highest grade"
                     + (f" ({top:g})" if top is not None else " judged"))
    return "; ".join(parts) or measure.family.formula


def conventions(measures: Iterable[Measure], settings: Mapping[str, str]) -> list[Convention]:
    """Gain and relevance of each measure, with the ties rule and the missing-query rule.

    Parameters
    ----------
    measures : iterable of Measure
        The measures of the table.
    settings : dict
        The report's settings in words (``ties``, ``queries evaluated``), as
        :meth:`rankwise.options.EvalOptions.describe` gives them.

    Examples
    --------
    >>> from rankwise.measures import parse
    >>> from rankwise.options import EvalOptions
    >>> rows = conventions([parse("ndcg@10"), parse("P@10(rel=2)")], EvalOptions().describe())
    >>> rows[0].gain, rows[1].gain
    ('gain 2^grade − 1', 'relevant: grade ≥ 2')
    >>> rows[0].missing
    'left out of the means'
    """
    ties = settings.get("ties", "")
    queries = settings.get("queries evaluated", "")
    missing = "counted as 0" if queries.endswith("scores 0") else "left out of the means"
    return [Convention(str(m), _gain(m), ties, missing) for m in measures]
