"""What the report needs of the objects it presents, as :class:`typing.Protocol` classes.

The report is presentation: it lays out results, comparisons and study
designs computed above it (``rankwise.results``, ``rankwise.comparison``,
``rankwise.design``, ...) and never imports them, not even for type hints.
Each table, figure and page reads one of these shapes instead; the objects
of the layers above have them (a test checks that ``Results``,
``Comparison``, ``ComparisonRow`` and ``DiscriminativePower`` do).

Every member is read-only (a property in the protocol), so a class may hold
it as an attribute, a property or a narrower type.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from rankwise.measures import Measure

if TYPE_CHECKING:  # annotations only: eval's tables need neither (import time)
    from rankwise.report.lists import RankedLists
    from rankwise.report.provenance import FileRecord, MeasureRecord

__all__ = ["AnovaLike", "ComparisonLike", "PageLike", "PowerLike", "ResultsLike", "RowLike",
           "TukeyLike", "UnjudgedLike"]


class UnjudgedLike(Protocol):
    """Per-query values with unjudged documents as not relevant (low) and relevant (high)."""

    @property
    def low(self) -> Mapping[str, np.ndarray]:
        """Canonical name -> per-query values, unjudged documents not relevant."""
    @property
    def high(self) -> Mapping[str, np.ndarray]:
        """Canonical name -> per-query values, unjudged documents relevant."""
    @property
    def judged(self) -> Mapping[str, np.ndarray]:
        """Canonical name -> per-query judged@k."""
    @property
    def mean(self) -> Mapping[str, tuple[float, float]]:
        """Canonical name -> (mean of low, mean of high)."""


@runtime_checkable
class ResultsLike(Protocol):
    """One system's per-query values: a table of queries x measures, and its means.

    :class:`rankwise.Results` has this shape (a figure, a table or the page
    needs no more of it).
    """

    @property
    def query_ids(self) -> Sequence[Any]:
        """The evaluated queries, in the order of the values."""
    @property
    def measures(self) -> Sequence[Measure]:
        """The measures, in the order asked for."""
    @property
    def mean(self) -> Mapping[str, float]:
        """Canonical name -> aggregate over the queries."""
    @property
    def run_name(self) -> str:
        """The system's name."""
    @property
    def n_queries(self) -> int:
        """Number of evaluated queries."""
    @property
    def unjudged(self) -> UnjudgedLike | None:
        """The values with unjudged documents relevant, when evaluated so."""
    def __getitem__(self, key: str | Measure, /) -> np.ndarray:
        """The per-query values of a measure (its name or the measure)."""


class RowLike(Protocol):
    """One measure and one system of a comparison (``rankwise.ComparisonRow``)."""

    @property
    def measure(self) -> str:
        """Canonical measure name."""
    @property
    def system(self) -> str:
        """The system of the row."""
    @property
    def baseline(self) -> str | None:
        """The system compared against (None on the baseline's own row)."""
    @property
    def n_queries(self) -> int:
        """Queries compared."""
    @property
    def mean(self) -> float:
        """Mean of the system over the compared queries."""
    @property
    def ci_low(self) -> float:
        """Lower end of the mean's confidence interval."""
    @property
    def ci_high(self) -> float:
        """Upper end of the mean's confidence interval."""
    @property
    def baseline_mean(self) -> float:
        """Mean of the baseline over the same queries."""
    @property
    def delta(self) -> float:
        """Mean paired difference, system - baseline."""
    @property
    def delta_ci_low(self) -> float:
        """Lower end of the difference's confidence interval."""
    @property
    def delta_ci_high(self) -> float:
        """Upper end of the difference's confidence interval."""
    @property
    def p_value(self) -> float:
        """Two-sided p-value of the test."""
    @property
    def p_adjusted(self) -> float:
        """The p-value after the correction for multiple comparisons."""
    @property
    def significant(self) -> bool | None:
        """``p_adjusted <= alpha`` (None on the baseline's own row)."""
    @property
    def effect_size(self) -> float:
        """Paired Cohen's d."""
    @property
    def wins(self) -> int | None:
        """Queries where the system scores higher."""
    @property
    def ties(self) -> int | None:
        """Queries where both score the same."""
    @property
    def losses(self) -> int | None:
        """Queries where the system scores lower."""
    @property
    def direction(self) -> int | None:
        """Which way the test finds the system differs: 1 higher, -1 lower, 0 neither."""


class AnovaLike(Protocol):
    """A two-way ANOVA that says itself in one line."""

    def summary(self, digits: int = 4) -> str:
        """One line: F, p, omega squared, residual variance."""


class TukeyLike(Protocol):
    """All pairs of systems compared at once, with the ANOVA of the same values."""

    @property
    def anova(self) -> AnovaLike:
        """The two-way ANOVA (systems x queries)."""
    def letters(self, alpha: float | None = None) -> list[str]:
        """Compact letter display, one text per system."""


class ComparisonLike(Protocol):
    """Paired comparisons of systems (``rankwise.Comparison``): rows, settings, legends."""

    @property
    def rows(self) -> Sequence[RowLike]:
        """One row per measure and system."""
    @property
    def measures(self) -> Sequence[str]:
        """Canonical measure names, in order."""
    @property
    def systems(self) -> Sequence[str]:
        """System names, in order (their colours)."""
    @property
    def baseline(self) -> str | None:
        """The baseline (None: every pair compared)."""
    @property
    def test(self) -> str:
        """The test's canonical name."""
    @property
    def correction(self) -> str:
        """The correction's canonical name."""
    @property
    def alpha(self) -> float:
        """The significance level."""
    @property
    def confidence(self) -> float:
        """The level of the intervals."""
    @property
    def ci(self) -> str:
        """How the intervals were computed (``t`` or ``bootstrap``)."""
    @property
    def n_resamples(self) -> int:
        """Resamples of the randomised tests and intervals."""
    @property
    def seed(self) -> int:
        """The seed that reproduces the result."""
    @property
    def tukey(self) -> Mapping[str, TukeyLike]:
        """Measure -> all pairs compared at once (the Tukey tests)."""
    @property
    def legend(self) -> str:
        """Which test, correction, level and intervals, in one sentence."""
    @property
    def significance_legend(self) -> str:
        """The legend without the intervals."""
    @property
    def row_type(self) -> type:
        """The dataclass of the rows (its fields are the long table's columns)."""
    def letters(self, measure: str | Measure, alpha: float | None = None) -> dict[str, str]:
        """Compact letter display of a measure: ``{system: letters}``."""
    def to_dict(self) -> dict[str, Any]:
        """Settings, rows and notes as plain values."""


class PowerLike(Protocol):
    """The discriminative power of measures over pairs of systems, with their ASL curves."""

    @property
    def method(self) -> str:
        """The test of the pairs."""
    @property
    def alpha(self) -> float:
        """A pair counts when its p-value is at most alpha."""
    @property
    def n_resamples(self) -> int:
        """Resamples of the test."""
    @property
    def seed(self) -> int:
        """The seed that reproduces it."""
    @property
    def pairs(self) -> Sequence[tuple[str, str]]:
        """Every pair of systems."""
    @property
    def measures(self) -> Sequence[str]:
        """The measures assessed."""
    @property
    def p_values(self) -> Mapping[str, np.ndarray]:
        """Measure -> the pairs' p-values."""
    @property
    def legend(self) -> str:
        """What the fractions and curves mean."""
    def fraction(self, measure: str | Measure) -> float:
        """The share of pairs told apart: the discriminative power."""
    def curve(self, measure: str | Measure) -> np.ndarray:
        """The pairs' p-values sorted ascending (the ASL curve)."""


class PageLike(Protocol):
    """What the HTML page shows (:class:`rankwise.report.build.Report` has this shape)."""

    @property
    def title(self) -> str:
        """The page's title."""
    @property
    def systems(self) -> Sequence[str]:
        """System names, in order."""
    @property
    def baseline(self) -> str | None:
        """The system the others are compared with."""
    @property
    def measures(self) -> Sequence[Measure]:
        """The measures of the table."""
    @property
    def results(self) -> Mapping[str, ResultsLike]:
        """``{system: results}``."""
    @property
    def curves(self) -> Sequence[Measure]:
        """Families drawn over k."""
    @property
    def max_k(self) -> int:
        """The largest cutoff of the curves."""
    @property
    def comparison(self) -> ComparisonLike | None:
        """The paired tests (None with one system)."""
    @property
    def files(self) -> Sequence[FileRecord]:
        """The inputs."""
    @property
    def definitions(self) -> Sequence[MeasureRecord]:
        """The definition of each measure."""
    @property
    def settings(self) -> Mapping[str, str]:
        """What changed the numbers, in words."""
    @property
    def versions(self) -> Mapping[str, str]:
        """The software."""
    @property
    def created(self) -> datetime:
        """When the page was made."""
    @property
    def notes(self) -> Sequence[str]:
        """What a reader should know."""
    @property
    def top(self) -> int:
        """Queries listed among those that gained and lost most."""
    @property
    def discrimination(self) -> PowerLike | None:
        """The discriminative power of the measures (three systems or more)."""
    @property
    def n_queries(self) -> int:
        """Queries evaluated for at least one system."""
    @property
    def lists(self) -> RankedLists | None:
        """Each system's first documents per query (None: no ranked lists)."""
    @property
    def topics(self) -> Mapping[str, str] | None:
        """Query texts."""
    @property
    def documents(self) -> Mapping[str, str] | None:
        """Document texts."""
