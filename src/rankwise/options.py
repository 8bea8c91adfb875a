"""``EvalOptions``: every option that changes the numbers, in one frozen value.

The options pass whole from the public functions (``evaluate``, ``compare``,
the report, the Spark engine, the command line) down to the engines, and are
validated once, when the value is made: an ``EvalOptions`` that exists is
valid. Adding an option is adding a field here (with its check and its line
in :meth:`EvalOptions.describe`); no signature in between changes.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType
from typing import Any

from rankwise._wording import counted
from rankwise.exceptions import InvalidParameterError

__all__ = [
    "COLUMN_ROLES",
    "MAX_DEPTH",
    "MISSING_POLICIES",
    "TIE_POLICIES",
    "UNJUDGED_POLICIES",
    "EvalOptions",
    "RecommenderOptions",
    "check_columns",
    "options_from",
    "recommender_options_from",
]

COLUMN_ROLES = ("query_id", "doc_id", "relevance", "score", "rank", "subtopic")
"""The roles a column map may name: ``columns={"query_id": "user", "doc_id": "item"}``."""

TIE_POLICIES = ("trec", "average", "rank", "worst", "best", "ascending")
"""How documents with equal scores are ordered (see :class:`EvalOptions`)."""

UNJUDGED_POLICIES = ("nonrelevant", "bounds")
"""What becomes of retrieved documents the judgments do not hold (see :class:`EvalOptions`)."""

MISSING_POLICIES = ("skip", "zero")
"""What becomes of a judged query the run does not hold."""

MAX_DEPTH = 1 << 62
"""Depths above this are the same as no depth: no ranking is that long."""

_TIE_TEXT = {
    "trec": "score descending, then document id descending (trec_eval)",
    "average": "expected value over all orders of tied documents",
    "rank": "the run's rank column",
    "worst": "relevant documents last among tied ones (a lower bound)",
    "best": "relevant documents first among tied ones (an upper bound)",
    "ascending": "score descending, then document id ascending (pyndeval, compat, "
    "ir_measures' Judged)",
}


def _depth(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < 0:
        raise InvalidParameterError(
            f"depth must be a non-negative integer (0: every ranking is empty) or None, "
            f"got {value!r}"
        )
    return None if int(value) > MAX_DEPTH else int(value)


def _rel(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, str)):
        raise InvalidParameterError(f"rel must be a number, got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise InvalidParameterError(f"rel must be a number, got {value!r}") from None
    if math.isnan(number):
        raise InvalidParameterError("rel must be a number, got nan (no grade is >= nan)")
    return number


def _choice(name: str, value: Any, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        listed = (
            " or ".join(map(repr, allowed)) if len(allowed) == 2
            else "one of " + ", ".join(map(repr, allowed))
        )
        raise InvalidParameterError(f"{name} must be {listed}, got {value!r}")
    return value


def check_columns(columns: Any) -> dict[str, Any]:
    """A column map ``{role: column name}``, checked.

    Examples
    --------
    >>> check_columns({"query_id": "user", "doc_id": "item"})
    {'query_id': 'user', 'doc_id': 'item'}
    >>> check_columns({"query_id": "user", "relevance": None})
    {'query_id': 'user', 'relevance': None}
    >>> check_columns({"user": "query_id"})
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InvalidParameterError: columns: unknown role 'user'; the roles are \
query_id, doc_id, relevance, score, rank, subtopic (columns={'query_id': 'user', ...} maps a \
role to your column)

    ``"relevance": None`` says the judgments have no relevance column:
    every listed (query, document) is relevant, grade 1 (implicit feedback:
    clicks, purchases).
    """
    if columns is None:
        return {}
    if not isinstance(columns, Mapping):
        raise InvalidParameterError(
            f"columns must be a dict {{role: column name}}, got {type(columns).__name__}"
        )
    out: dict[str, Any] = {}
    for role, name in columns.items():
        if role not in COLUMN_ROLES:
            raise InvalidParameterError(
                f"columns: unknown role {role!r}; the roles are {', '.join(COLUMN_ROLES)} "
                "(columns={'query_id': 'user', ...} maps a role to your column)"
            )
        if name is None and role == "relevance":
            out[role] = None  # no relevance column: every listed pair is relevant
            continue
        if not isinstance(name, str) or not name:
            raise InvalidParameterError(
                f"columns[{role!r}] must be a column name (a non-empty str)"
                + (", or None (no relevance column: every listed pair is relevant)"
                   if role == "relevance" else "")
                + f", got {name!r}"
            )
        out[role] = name
    return out


@dataclass(frozen=True)
class EvalOptions:
    """The options that change the numbers of an evaluation.

    Parameters
    ----------
    rel : float, optional
        Minimum grade that counts as relevant; sets ``rel`` of every measure
        that takes one and does not set it itself (default: each measure's
        own default, 1).
    depth : int, optional
        Evaluate only the first *depth* documents of each query (trec_eval
        ``-M``). 0 makes every ranking empty; a depth longer than any
        ranking is the same as None.
    missing : {"skip", "zero"}
        A judged query absent from the run is left out (default) or scored
        as an empty ranking, 0 for most measures (trec_eval ``-c``).
    judged_only : bool
        Drop unjudged documents (and those with a negative grade) before
        evaluating (trec_eval ``-J``). With *depth*, the ranking is cut at
        *depth* first, then unjudged documents are dropped, as trec_eval does.
    ties : {"trec", "average", "rank", "worst", "best", "ascending"}
        Order of documents with equal scores: docno descending (trec_eval's
        rule, default; also gdeval's and ndeval ``-traditional``'s); the
        exact expected value over all orders of each tie group; the run's
        rank column (ndeval's default); relevant documents last or first
        (the bounds of any tie-breaking); docno ascending (pyndeval's, the
        compatibility reference's and ir_measures' ``Judged``).
    unjudged : {"nonrelevant", "bounds"}
        Retrieved documents without a judgment are not relevant (default).
        ``"bounds"`` also computes every measure with them taken as relevant
        at the top grade of the judgments (and, for the measures of an
        endless ranking, ``rbp`` and the C/W/L family, the documents past
        the end of the ranking too): ``Results.unjudged`` holds both values
        per query and their means.
    exclude_self : bool
        Drop a retrieved document whose id equals its query's id before
        evaluating (BEIR's ``ignore_identical_ids=True``, for ArguAna and
        Quora, where queries are documents of the corpus). A query left with
        no document is then a query the run does not hold (see *missing*).
    columns : dict, optional
        ``{role: column}`` for tables (and named tuples) whose columns are
        named otherwise; the roles are ``query_id``, ``doc_id``,
        ``relevance``, ``score`` and ``rank``. ``"relevance": None``: the
        judgments have no relevance column, every listed pair is relevant
        (grade 1, implicit feedback). Kept as a read-only mapping.

    Raises
    ------
    InvalidParameterError
        An option outside what it accepts; the message names it and the value.

    Examples
    --------
    >>> options = EvalOptions(depth=100, ties="average")
    >>> options.depth, options.ties, options.missing
    (100, 'average', 'skip')
    >>> options.replace(missing="zero").missing
    'zero'
    >>> EvalOptions(depth=-1)
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InvalidParameterError: depth must be a non-negative integer \
(0: every ranking is empty) or None, got -1
    """

    rel: float | None = None
    depth: int | None = None
    missing: str = "skip"
    judged_only: bool = False
    ties: str = "trec"
    exclude_self: bool = False
    columns: Mapping[str, str | None] | None = field(default=None, hash=False)
    unjudged: str = "nonrelevant"

    def __post_init__(self) -> None:
        set_field = object.__setattr__
        set_field(self, "rel", _rel(self.rel))
        set_field(self, "depth", _depth(self.depth))
        set_field(self, "missing", _choice("missing", self.missing, MISSING_POLICIES))
        if not isinstance(self.judged_only, (bool, numbers.Integral)):
            raise InvalidParameterError(
                f"judged_only must be True or False, got {self.judged_only!r}"
            )
        set_field(self, "judged_only", bool(self.judged_only))
        set_field(self, "ties", _choice("ties", self.ties, TIE_POLICIES))
        set_field(self, "unjudged", _choice("unjudged", self.unjudged, UNJUDGED_POLICIES))
        if not isinstance(self.exclude_self, (bool, numbers.Integral)):
            raise InvalidParameterError(
                f"exclude_self must be True or False, got {self.exclude_self!r}"
            )
        set_field(self, "exclude_self", bool(self.exclude_self))
        mapping = check_columns(self.columns)
        set_field(self, "columns", MappingProxyType(mapping) if mapping else None)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled by its fields (the column map as a plain dict)."""
        values = [getattr(self, name) for name in _field_names()]
        return EvalOptions, tuple(dict(v) if isinstance(v, Mapping) else v for v in values)

    def replace(self, **changes: Any) -> EvalOptions:
        """A copy with some options changed (and checked)."""
        return replace(self, **changes)

    @property
    def bounds(self) -> bool:
        """Whether unjudged documents are also evaluated as relevant (``unjudged="bounds"``)."""
        return self.unjudged == "bounds"

    @property
    def by_rank(self) -> bool:
        """Whether the run's rank column, not its scores, orders the documents."""
        return self.ties == "rank"

    def describe(self) -> dict[str, str]:
        """Each option in words, for reports and provenance.

        Examples
        --------
        >>> EvalOptions(rel=2).describe()["relevance level"]
        'grade >= 2'
        """
        described = {
            "queries evaluated": "the queries of the judgments; "
            + (
                "a judged query a run misses scores 0"
                if self.missing == "zero"
                else "a judged query a run misses is left out of its means"
            ),
            "relevance level": "grade >= 1" if self.rel is None else f"grade >= {self.rel:g}",
            "depth": "all retrieved documents"
            if self.depth is None
            else f"first {counted(self.depth, 'document')}",
            "judged only": "yes (unjudged documents dropped)" if self.judged_only else "no",
            "ties": _TIE_TEXT[self.ties],
            "self documents": "dropped (a document whose id is its query's id)"
            if self.exclude_self
            else "kept",
            **({"columns": ", ".join(f"{role}={name if name is not None else '(none)'}"
                                     for role, name in self.columns.items())}
               if self.columns else {}),
        }
        if self.bounds:
            described["unjudged documents"] = (
                "not relevant (low) and relevant at the top grade (high): both reported"
            )
        return described


_FIELDS = tuple(item.name for item in fields(EvalOptions))


def _field_names() -> tuple[str, ...]:
    return _FIELDS


def options_from(options: EvalOptions | None = None, **given: Any) -> EvalOptions:
    """The options of a public call: an ``EvalOptions``, or keywords, not both changed.

    Keywords equal to their defaults are ignored when *options* is given, so
    ``evaluate(q, r, m, options=o)`` keeps *o* whole.

    Examples
    --------
    >>> options_from(depth=10).depth
    10
    >>> options_from(EvalOptions(rel=2), depth=None).rel
    2.0
    """
    unknown = set(given) - set(_FIELDS)
    if unknown:
        raise TypeError(f"unknown evaluation option(s): {', '.join(sorted(unknown))}")
    if options is None:
        return EvalOptions(**given)
    if not isinstance(options, EvalOptions):
        raise InvalidParameterError(
            f"options must be an EvalOptions, got {type(options).__name__}"
        )
    defaults = EvalOptions()
    changed = {k: v for k, v in given.items() if v != getattr(defaults, k)}
    return options.replace(**changed) if changed else options


SEGMENT_TESTS = ("welch", "rank")
"""Tests between segments of users: Welch's t-test / ANOVA, or Mann-Whitney U / Kruskal-Wallis."""

DUPLICATE_POLICIES = ("error", "first")
"""An item listed twice for one user: an error, or kept at its best rank."""


@dataclass(frozen=True)
class RecommenderOptions:
    """The options that change the numbers of a recommender evaluation.

    One frozen object, checked once, as :class:`EvalOptions` is for
    rankings; :func:`rankwise.evaluate_recommendations` takes it as
    ``options=`` (keywords given as well override it).

    Parameters
    ----------
    k : int, optional
        Cut every list at k, after excluding the seen items.
    rel : float
        Relevance level of the accuracy measures (with *relevance*).
    missing : {"skip", "zero"}
        A test user without a list: left out, or scored 0 (Microsoft
        Recommenders' nDCG).
    duplicates : {"error", "first"}
        An item listed twice for one user: an error, or kept at its best rank.
    relevance : str, optional
        The column of the test table holding grades (default: every
        interaction has grade 1).
    segment_test : {"welch", "rank"}
        The test between segments.

    Examples
    --------
    >>> o = RecommenderOptions(k=10, missing="zero").replace(k=20)
    >>> o.k, o.missing, o.duplicates
    (20, 'zero', 'error')
    >>> RecommenderOptions(k=0)
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InvalidParameterError: k must be a positive integer or None, got 0
    """

    k: int | None = None
    rel: float = 1.0
    missing: str = "skip"
    duplicates: str = "error"
    relevance: str | None = None
    segment_test: str = "welch"

    def __post_init__(self) -> None:
        set_field = object.__setattr__
        if self.k is not None and (
            isinstance(self.k, bool) or not isinstance(self.k, numbers.Integral) or self.k < 1
        ):
            raise InvalidParameterError(f"k must be a positive integer or None, got {self.k!r}")
        if self.k is not None:
            set_field(self, "k", int(self.k))
        rel = _rel(self.rel)
        set_field(self, "rel", 1.0 if rel is None else rel)
        set_field(self, "missing", _choice("missing", self.missing, MISSING_POLICIES))
        set_field(self, "duplicates", _choice("duplicates", self.duplicates, DUPLICATE_POLICIES))
        set_field(self, "segment_test",
                  _choice("segment_test", self.segment_test, SEGMENT_TESTS))
        if self.relevance is not None and not isinstance(self.relevance, str):
            raise InvalidParameterError(
                f"relevance must name a column of the test table (a str), got "
                f"{type(self.relevance).__name__}")

    def replace(self, **changes: Any) -> RecommenderOptions:
        """A copy with some options changed (and checked)."""
        return replace(self, **changes)


def recommender_options_from(options: RecommenderOptions | None = None,
                             **given: Any) -> RecommenderOptions:
    """The options of a recommender evaluation: an object, keywords, or both.

    Keywords equal to their defaults are ignored when *options* is given.

    Examples
    --------
    >>> recommender_options_from(RecommenderOptions(k=5), missing="zero").k
    5
    """
    if options is None:
        return RecommenderOptions(**given)
    if not isinstance(options, RecommenderOptions):
        raise InvalidParameterError(
            f"options must be a RecommenderOptions, got {type(options).__name__}")
    defaults = RecommenderOptions()
    changed = {k: v for k, v in given.items() if v != getattr(defaults, k)}
    return options.replace(**changed) if changed else options
