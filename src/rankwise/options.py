"""The options of every front door, each kind in one frozen value checked once.

- :class:`EvalOptions`: what changes the numbers of an evaluation (``rel``,
  ``depth``, ``missing``, ``judged_only``, ``ties``, ``exclude_self``,
  ``columns``, ``unjudged``);
- :class:`CompareOptions`: the statistics of a comparison (``test``,
  ``correction``, ``alpha``, ``ci``, ``n_resamples``, ``seed``, ``family``,
  ``chunk_size``);
- :class:`FusionOptions`: a fusion (``method``, ``norm``, ``weights``,
  ``params``);
- :class:`RecommenderOptions`: a recommender evaluation (``k``, ``rel``,
  ``missing``, ``duplicates``, ``relevance``, ``segment_test``).

Each is checked when it is made, by the constraints it declares
(:mod:`rankwise._validation`, one wording for every error): an options value
that exists is valid. They pass whole from the public functions and the
command line down to where they are read; a front door takes ``options=``
(one of them, or a tuple of several kinds) and the same names as keywords,
which override it where they differ from their defaults (:func:`merged`: a
keyword left at its default keeps the options' value). Each has
``replace(**changes)``, ``describe()`` (its options in words, for reports and provenance), and
pickles. Adding an option is adding a field here, with its constraint and
its line in ``describe``: no signature in between changes.

The vocabularies are ``Literal`` types (``Ties``, ``TestName``, ...) used in
the annotations of every function that takes them; the tuples of their
values (``TIE_POLICIES``, ...) are read from them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType
from typing import Any, Literal, TypeVar, get_args

from rankwise._validation import (
    BOOLEAN,
    Constraint,
    Instance,
    Integer,
    Number,
    OneOf,
    SequenceOf,
    Text,
    check,
    check_fields,
    loose,
    optional,
    reject,
)
from rankwise._wording import counted

__all__ = [
    "COLUMN_ROLES",
    "COMPARE_CONSTRAINTS",
    "CORRECTION_ALIASES",
    "CORRECTION_NAMES",
    "DEFAULT_CHUNK_SIZE",
    "DUPLICATE_POLICIES",
    "EVAL_CONSTRAINTS",
    "FUSION_ALIASES",
    "FUSION_METHOD",
    "FUSION_METHODS",
    "FUSION_PARAMETERS",
    "INTERVAL_METHODS",
    "MAX_DEPTH",
    "MISSING_POLICIES",
    "NORMALISATION",
    "NORMALISATIONS",
    "NORMALISATION_ALIASES",
    "OTHER_CORRECTIONS",
    "RECOMMENDER_CONSTRAINTS",
    "SEGMENT_TESTS",
    "TEST_ALIASES",
    "TEST_NAMES",
    "TIE_POLICIES",
    "UNJUDGED_POLICIES",
    "CompareOptions",
    "Correction",
    "CorrectionFamily",
    "Duplicates",
    "EvalOptions",
    "FusionMethod",
    "FusionOptions",
    "IntervalMethod",
    "Missing",
    "Normalisation",
    "RecommenderOptions",
    "SegmentTest",
    "TestName",
    "Ties",
    "Unjudged",
    "check_columns",
    "check_fusion_params",
    "merged",
    "options_from",
    "recommender_options_from",
    "split_options",
]

# ----------------------------------------------------------------------------
# the vocabularies
# ----------------------------------------------------------------------------

Ties = Literal["trec", "average", "rank", "worst", "best", "ascending"]
"""How documents with equal scores are ordered (see :class:`EvalOptions`)."""
Missing = Literal["skip", "zero"]
"""What becomes of a judged query the run (or a user the recommendations) does not hold."""
Unjudged = Literal["nonrelevant", "bounds"]
"""What becomes of retrieved documents the judgments do not hold."""
TestName = Literal["randomization", "t-test", "wilcoxon", "bootstrap", "sign", "tukey",
                   "randomized-tukey"]
"""The tests of a comparison: five paired tests, then two of all pairs at once."""
Correction = Literal["auto", "holm", "bonferroni", "benjamini-hochberg", "none"]
"""Corrections for multiple comparisons (``auto``: Holm, or none for the Tukey tests)."""
IntervalMethod = Literal["t", "bootstrap"]
"""How confidence intervals are computed: Student t, or bootstrap percentile."""
CorrectionFamily = Literal["measure", "all"]
"""The family a correction is applied over: the systems of each measure, or everything."""
FusionMethod = Literal["sum", "mnz", "anz", "max", "min", "med", "gmnz", "wsum", "wmnz",
                       "mixed", "rrf", "isr", "log_isr", "logn_isr", "bordafuse",
                       "w_bordafuse", "condorcet", "w_condorcet", "rbc", "posfuse",
                       "probfuse", "segfuse", "slidefuse", "mapfuse", "bayesfuse"]
"""The fusion methods, by ranx's names (see :mod:`rankwise.fusion.methods`)."""
Normalisation = Literal["min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda"]
"""Score normalisations before fusing (see :mod:`rankwise.fusion.normalise`)."""
Duplicates = Literal["error", "first"]
"""An item listed twice for one user: an error, or kept at its best rank."""
SegmentTest = Literal["welch", "rank"]
"""Tests between segments of users: Welch's t-test / ANOVA, or Mann-Whitney U / Kruskal-Wallis."""

TIE_POLICIES: tuple[str, ...] = get_args(Ties)
"""How documents with equal scores are ordered (see :class:`EvalOptions`)."""
UNJUDGED_POLICIES: tuple[str, ...] = get_args(Unjudged)
"""What becomes of retrieved documents the judgments do not hold (see :class:`EvalOptions`)."""
MISSING_POLICIES: tuple[str, ...] = get_args(Missing)
"""What becomes of a judged query the run does not hold."""
TEST_NAMES: tuple[str, ...] = get_args(TestName)
"""The tests ``test=`` names (their functions: :data:`rankwise.stats.TESTS`)."""
CORRECTION_NAMES: tuple[str, ...] = get_args(Correction)[1:]
"""The corrections (``auto`` chooses one of them)."""
INTERVAL_METHODS: tuple[str, ...] = get_args(IntervalMethod)
"""How confidence intervals are computed."""
FUSION_METHODS: tuple[str, ...] = get_args(FusionMethod)
"""The fusion methods, by ranx's names."""
NORMALISATIONS: tuple[str, ...] = get_args(Normalisation)
"""The normalisations :func:`rankwise.fuse` offers (``norm=None``: none)."""
DUPLICATE_POLICIES: tuple[str, ...] = get_args(Duplicates)
"""An item listed twice for one user: an error, or kept at its best rank."""
SEGMENT_TESTS: tuple[str, ...] = get_args(SegmentTest)
"""Tests between segments of users: Welch's t-test / ANOVA, or Mann-Whitney U / Kruskal-Wallis."""

TEST_ALIASES: dict[str, str] = {
    "randomisation": "randomization", "permutation": "randomization",
    "fisher": "randomization", "t": "t-test", "ttest": "t-test", "paired-t": "t-test",
    "student": "t-test", "signed-rank": "wilcoxon", "sign-test": "sign",
    "tukey-hsd": "tukey", "hsd": "tukey", "randomised-tukey": "randomized-tukey",
    "randomized-tukey-hsd": "randomized-tukey", "randomised-tukey-hsd": "randomized-tukey",
    "random-tukey": "randomized-tukey",
}
"""Other names of the tests (case, ``_``, ``-`` and spaces do not matter)."""

OTHER_CORRECTIONS: dict[str, str] = {
    **dict.fromkeys(("hochberg", "simes-hochberg"),
                    "Hochberg's step-up procedure is not available (holm controls the same "
                    "family-wise error; benjamini-hochberg is another procedure, for the false "
                    "discovery rate)"),
    **dict.fromkeys(("by", "fdr-by", "fdr-n", "benjamini-yekutieli"),
                    "the Benjamini-Yekutieli procedure is not available (benjamini-hochberg "
                    "controls the false discovery rate under independence or positive "
                    "dependence)"),
    **dict.fromkeys(("fdr-tsbh", "fdr-tsbky", "fdr-gbs"),
                    "two-stage false discovery rate procedures are not available "
                    "(benjamini-hochberg controls the false discovery rate)"),
    **dict.fromkeys(("sidak", "holm-sidak", "hommel"),
                    "that procedure is not available (holm and bonferroni control the same "
                    "family-wise error)"),
}
"""Other libraries' corrections (statsmodels' names): said so, never a near name suggested."""

CORRECTION_ALIASES: dict[str, str] = {
    "holm-bonferroni": "holm", "bh": "benjamini-hochberg", "fdr-bh": "benjamini-hochberg",
    "fdr": "benjamini-hochberg",
}
"""Other names of the corrections (``fdr_bh`` is ``fdr-bh``)."""

FUSION_ALIASES: dict[str, str] = {
    "combsum": "sum", "combmnz": "mnz", "combanz": "anz", "combmax": "max", "combmin": "min",
    "combmed": "med", "combgmnz": "gmnz", "comb_sum": "sum", "comb_mnz": "mnz",
    "comb_anz": "anz", "comb_max": "max", "comb_min": "min", "comb_med": "med",
    "comb_gmnz": "gmnz", "weighted_sum": "wsum", "weighted_bordafuse": "w_bordafuse",
    "weighted_condorcet": "w_condorcet", "borda": "bordafuse", "reciprocal_rank_fusion": "rrf",
}
"""Other names of the fusion methods (``combsum`` for ranx's ``sum``, ...)."""

NORMALISATION_ALIASES: dict[str, str] = {
    "min_max": "min-max", "minmax": "min-max", "min_max_inverted": "min-max-inverted",
    "z-score": "zmuv", "zscore": "zmuv",
}
"""Other names of the normalisations."""

FUSION_PARAMETERS: dict[str, dict[str, Any]] = {
    "gmnz": {"gamma": None},
    "wsum": {"weights": None},
    "wmnz": {"weights": None},
    "mixed": {"weights": None},
    "rrf": {"k": 60},
    "logn_isr": {"sigma": 0.01},
    "w_bordafuse": {"weights": None},
    "w_condorcet": {"weights": None},
    "rbc": {"phi": None},
    "posfuse": {"probs": None},
    "probfuse": {"probs": None, "n_segments": None},
    "segfuse": {"probs": None},
    "slidefuse": {"probs": None, "w": None},
    "mapfuse": {"map_scores": None},
    "bayesfuse": {"log_odds": None},
}
"""Each fusion method's parameters and their defaults (None: required, or learned);
a method not listed takes none."""

_FUSION_NUMBERS: dict[str, tuple[Constraint, Any]] = {
    "k": (Number(low=0, finite=True, text=True, as_float=False), 60),
    "gamma": (Number(finite=True, text=True, as_float=False), 0.5),
    "sigma": (Number(0, 1, text=True, as_float=False), 0.01),
    "phi": (Number(0, 1, text=True, as_float=False), 0.8),
    "w": (Integer(low=0, text=True, floats=True), 2),
    "n_segments": (Integer(low=1, text=True), 10),
}
"""The parameters that are one number: what each must be, and an example."""

COLUMN_ROLES = ("query_id", "doc_id", "relevance", "score", "rank", "subtopic")
"""The roles a column map may name: ``columns={"query_id": "user", "doc_id": "item"}``."""

MAX_DEPTH = 1 << 62
"""Depths above this are the same as no depth: no ranking is that long."""

DEFAULT_CHUNK_SIZE = 2**22
"""Elements (resamples x queries) of a resample matrix processed at once."""

_TIE_TEXT = {
    "trec": "score descending, then document id descending (trec_eval)",
    "average": "expected value over all orders of tied documents",
    "rank": "the run's rank column",
    "worst": "relevant documents last among tied ones (a lower bound)",
    "best": "relevant documents first among tied ones (an upper bound)",
    "ascending": "score descending, then document id ascending (pyndeval, compat, "
    "ir_measures' Judged)",
}

_REL = optional(Number(text=True, nan_remedy="no grade is >= nan"))

# ----------------------------------------------------------------------------
# the column map
# ----------------------------------------------------------------------------


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
    rankwise.exceptions.InvalidParameterError: columns: a role must be one of 'query_id', \
'doc_id', 'relevance', 'score', 'rank', 'subtopic', got 'user' (str); \
columns={'query_id': 'user', ...} maps a role to your column

    ``"relevance": None`` says the judgments have no relevance column:
    every listed (query, document) is relevant, grade 1 (implicit feedback:
    clicks, purchases).
    """
    if columns is None:
        return {}
    check("columns", columns, Instance(Mapping, words="a dict {role: column name}"))
    out: dict[str, Any] = {}
    roles = OneOf(COLUMN_ROLES)
    for role, name in columns.items():
        check("a role", role, roles, where="columns",
              remedy="columns={'query_id': 'user', ...} maps a role to your column")
        if name is None and role == "relevance":
            out[role] = None  # no relevance column: every listed pair is relevant
            continue
        out[role] = check(
            f"columns[{role!r}]", name, Text(words="a column name (a non-empty str)" + (
                ", or None (no relevance column: every listed pair is relevant)"
                if role == "relevance" else "")))
    return out


# ----------------------------------------------------------------------------
# what every options value does alike
# ----------------------------------------------------------------------------

_Kind = TypeVar("_Kind")


def _differs(value: Any, default: Any) -> bool:
    """Whether a keyword's value is not its default (arrays and maps compared safely)."""
    if value is default:
        return False
    try:
        return bool(value != default)
    except (TypeError, ValueError):  # an array compared element-wise
        return True


def _defaults(kind: type[_Kind]) -> _Kind:
    """The default value of an options kind (made once)."""
    if kind not in _DEFAULTS:
        _DEFAULTS[kind] = kind()
    made: _Kind = _DEFAULTS[kind]
    return made


_DEFAULTS: dict[type, Any] = {}


def merged(kind: type[_Kind], options: Any = None, **given: Any) -> _Kind:
    """The options of a public call: an options value, keywords, or both.

    Keywords equal to their defaults are ignored when *options* is given, so
    ``evaluate(q, r, m, options=o)`` keeps *o* whole; others override it.

    Examples
    --------
    >>> merged(CompareOptions, CompareOptions(alpha=0.01), seed=3).alpha
    0.01
    >>> merged(CompareOptions, alpha=0.5).alpha
    0.5
    """
    names = [item.name for item in fields(kind)]  # type: ignore[arg-type]
    unknown = sorted(set(given) - set(names))
    if unknown:
        from rankwise.suggest import did_you_mean

        raise TypeError(f"unknown {kind.__name__} option(s): {', '.join(unknown)}; its options "
                        f"are {', '.join(names)}{did_you_mean(unknown[0], names)}")
    if options is None:
        return kind(**given)
    check("options", options, Instance(kind))
    defaults = _defaults(kind)
    changed = {k: v for k, v in given.items() if _differs(v, getattr(defaults, k))}
    chosen: _Kind = replace(options, **changed) if changed else options
    return chosen


def split_options(options: Any, *kinds: type) -> tuple[Any, ...]:
    """``options=`` of a front door that takes several kinds: each kind's value, or None.

    *options* is one options value, or a tuple (or list) of values of
    different kinds.

    Examples
    --------
    >>> split_options(EvalOptions(depth=5), EvalOptions, CompareOptions)[1] is None
    True
    >>> split_options((CompareOptions(alpha=0.01), EvalOptions()), EvalOptions,
    ...               CompareOptions)[1].alpha
    0.01
    >>> split_options(3, EvalOptions, CompareOptions)
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InvalidParameterError: options must be an EvalOptions, a \
CompareOptions, or a tuple of them, got 3 (int)
    """
    found: list[Any] = [None] * len(kinds)
    if options is None:
        return tuple(found)
    names = [kind.__name__ for kind in kinds]
    words = (f"an {names[0]}" if len(kinds) == 1 else
             "an " + ", a ".join(names[:-1]) + f", a {names[-1]}, or a tuple of them")
    given = list(options) if isinstance(options, (tuple, list)) else [options]
    for item in given:
        position = next((i for i, kind in enumerate(kinds) if isinstance(item, kind)), None)
        if position is None:
            reject("options", options if len(given) == 1 else item, words)
        if found[position] is not None:
            reject("options", options, f"{words} (one of each kind)",
                   remedy=f"two {names[position]} given")
        found[position] = item
    return tuple(found)


class _Replaceable:
    """``replace``, shared by the options values."""

    def replace(self: _Kind, **changes: Any) -> _Kind:
        """A copy with some options changed (and checked)."""
        return replace(self, **changes)  # type: ignore[type-var]


# ----------------------------------------------------------------------------
# EvalOptions
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class EvalOptions(_Replaceable):
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
(0: every ranking is empty) or None, got -1 (int)
    """

    rel: float | None = None
    depth: int | None = None
    missing: Missing = "skip"
    judged_only: bool = False
    ties: Ties = "trec"
    exclude_self: bool = False
    columns: Mapping[str, str | None] | None = field(default=None, hash=False)
    unjudged: Unjudged = "nonrelevant"

    def __post_init__(self) -> None:
        check_fields(self, EVAL_CONSTRAINTS)
        if self.depth is not None and self.depth > MAX_DEPTH:
            object.__setattr__(self, "depth", None)
        mapping = check_columns(self.columns)
        object.__setattr__(self, "columns", MappingProxyType(mapping) if mapping else None)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled by its fields (the column map as a plain dict)."""
        values = [getattr(self, name) for name in _FIELDS]
        return EvalOptions, tuple(dict(v) if isinstance(v, Mapping) else v for v in values)

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


EVAL_CONSTRAINTS: dict[str, Constraint] = {  # what each field of EvalOptions must be
    "rel": _REL,
    "depth": optional(Integer(low=0, words="a non-negative integer (0: every ranking is empty)")),
    "missing": OneOf(MISSING_POLICIES),
    "judged_only": BOOLEAN,
    "ties": OneOf(TIE_POLICIES),
    "exclude_self": BOOLEAN,
    "unjudged": OneOf(UNJUDGED_POLICIES),
}

_FIELDS = tuple(item.name for item in fields(EvalOptions))


def options_from(options: EvalOptions | None = None, **given: Any) -> EvalOptions:
    """The options of a public call: an ``EvalOptions``, keywords, or both (see :func:`merged`).

    Examples
    --------
    >>> options_from(depth=10).depth
    10
    >>> options_from(EvalOptions(rel=2), depth=None).rel
    2.0
    """
    return merged(EvalOptions, options, **given)


# ----------------------------------------------------------------------------
# CompareOptions
# ----------------------------------------------------------------------------

_MANY_SYSTEM_TESTS = ("tukey", "randomized-tukey")


@dataclass(frozen=True)
class CompareOptions(_Replaceable):
    r"""The statistics of a comparison: which test, correction, level and intervals.

    Taken by :func:`rankwise.compare`, :func:`rankwise.compare_results` and
    :func:`rankwise.build_report` as ``options=`` (with an
    :class:`EvalOptions`: ``options=(EvalOptions(...), CompareOptions(...))``);
    keywords override it where they differ from their defaults.

    Parameters
    ----------
    test : {"randomization", "t-test", "wilcoxon", "bootstrap", "sign", "tukey", \
"randomized-tukey"}
        The two-sided test (aliases: ``permutation``, ``t``, ``hsd``, ...;
        case, ``_`` and spaces do not matter). ``tukey`` and
        ``randomized-tukey`` test every pair of systems at once.
    correction : {"auto", "holm", "bonferroni", "benjamini-hochberg", "none"} or None
        The correction for multiple comparisons (aliases ``bh``, ``fdr_bh``,
        ``holm-bonferroni``; None is ``"none"``). ``auto``: Holm for the
        paired tests, none for the Tukey tests (family-wise already: another
        correction is refused).
    alpha : float
        Significance level, in (0, 1); intervals have confidence ``1 - alpha``.
    ci : {"t", "bootstrap"}
        Confidence intervals: Student t, or bootstrap percentile (aliases
        ``student``, ``percentile``).
    n_resamples : int
        Resamples of the randomization, bootstrap and randomised Tukey tests
        and of bootstrap intervals.
    seed : int, optional
        Makes resampling reproducible (None: drawn when the comparison is
        made, and reported by it).
    family : {"measure", "all"}
        The correction is applied per measure over the systems compared, or
        over all systems and measures at once (not with the Tukey tests).
    chunk_size : int
        Elements of a resample matrix processed at once (bounds memory; does
        not change any value).

    Examples
    --------
    >>> options = CompareOptions(test="t", correction="BH", alpha=0.01)
    >>> options.test, options.correction, options.applied_correction
    ('t-test', 'benjamini-hochberg', 'benjamini-hochberg')
    >>> CompareOptions(test="tukey").applied_correction
    'none'
    >>> CompareOptions(alpha=1.5)
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InvalidParameterError: alpha must be a number in (0, 1), got 1.5 (float)
    """

    test: TestName = "randomization"
    correction: Correction = "auto"
    alpha: float = 0.05
    ci: IntervalMethod = "t"
    n_resamples: int = 10_000
    seed: int | None = None
    family: CorrectionFamily = "measure"
    chunk_size: int = DEFAULT_CHUNK_SIZE

    def __post_init__(self) -> None:
        check_fields(self, COMPARE_CONSTRAINTS)
        if self.correction is None:
            object.__setattr__(self, "correction", "none")
        if not 1 - self.alpha < 1:
            reject("alpha", self.alpha, "a number in (0, 1) whose 1 - alpha, the confidence "
                   "of the intervals, is below 1 in floating point")
        if self.test in _MANY_SYSTEM_TESTS:
            if self.correction not in ("auto", "none"):
                reject("correction", self.correction, f"'auto' or 'none' with test={self.test!r}",
                       remedy="the test controls the family-wise error over all pairs of "
                              "systems itself: another correction would correct twice")
            if self.family != "measure":
                reject("family", self.family, f"'measure' with test={self.test!r}",
                       remedy="the test tests the pairs of each measure as one family")

    @property
    def applied_correction(self) -> str:
        """The correction applied (``auto`` resolved: Holm, or none for the Tukey tests)."""
        if self.correction != "auto":
            return self.correction
        return "none" if self.test in _MANY_SYSTEM_TESTS else "holm"

    @property
    def many_systems(self) -> bool:
        """Whether the test compares every pair of systems at once (the Tukey tests)."""
        return self.test in _MANY_SYSTEM_TESTS

    def describe(self) -> dict[str, str]:
        """Each option in words, for reports and provenance.

        Examples
        --------
        >>> CompareOptions(seed=7).describe()["correction"]
        'holm, per measure over the systems compared'
        """
        correction = self.applied_correction
        if correction != "none" and not self.many_systems:
            correction += (", per measure over the systems compared" if self.family == "measure"
                           else ", over all systems and measures")
        return {
            "test": self.test,
            "correction": correction,
            "alpha": f"{self.alpha:g}",
            "confidence intervals": f"{1 - self.alpha:.0%} "
                                    + ("Student t" if self.ci == "t" else "bootstrap"),
            "resamples": f"{self.n_resamples:,}",
            "seed": "drawn when compared" if self.seed is None else str(self.seed),
        }


COMPARE_CONSTRAINTS: dict[str, Constraint] = {
    "test": OneOf(TEST_NAMES, aliases=TEST_ALIASES, fold=loose),
    "correction": optional(OneOf(get_args(Correction), aliases=CORRECTION_ALIASES, fold=loose,
                                 elsewhere=OTHER_CORRECTIONS)),
    "alpha": Number(0, 1, closed="neither"),
    "ci": OneOf(INTERVAL_METHODS, aliases={"student": "t", "percentile": "bootstrap"},
                fold=loose),
    "n_resamples": Integer(low=1),
    "seed": optional(Integer(low=0)),
    "family": OneOf(get_args(CorrectionFamily),
                    words="'measure' (correct over the systems of each measure) or 'all' "
                          "(over all systems and measures)"),
    "chunk_size": Integer(low=1),
}


# ----------------------------------------------------------------------------
# FusionOptions
# ----------------------------------------------------------------------------


def check_fusion_params(method: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """*params* of fusion method *method*: unknown names refused, numbers read and checked.

    Learned tables and weights are kept as given (their shape is checked
    where the runs are known).

    Examples
    --------
    >>> check_fusion_params("rrf", {"k": "10"})
    {'k': 10}
    >>> check_fusion_params("rrf", {"k": "abc"})
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InvalidParameterError: fusion method 'rrf': k must be a finite number \
>= 0, got 'abc' (str); e.g. k=60
    >>> check_fusion_params("rrf", {"phi": 0.5})
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InvalidParameterError: fusion method 'rrf': a parameter must be 'k', \
got 'phi' (str); the method has no parameter 'phi'
    """
    accepted = FUSION_PARAMETERS.get(method, {})
    where = f"fusion method {method!r}"
    out: dict[str, Any] = {}
    for key, value in params.items():
        if key not in accepted:
            words = (("one of " if len(accepted) > 1 else "") + ", ".join(map(repr, accepted))
                     if accepted else "absent (the method takes no parameter)")
            reject("a parameter", key, words, remedy=f"the method has no parameter {key!r}",
                   where=where)
        if key in _FUSION_NUMBERS and value is not None:
            constraint, example = _FUSION_NUMBERS[key]
            value = check(key, value, constraint, where=where, remedy=f"e.g. {key}={example}")
        out[key] = value
    return out


@dataclass(frozen=True)
class FusionOptions(_Replaceable):
    """How runs are fused: the method, the normalisation, the weights, the method's parameters.

    Taken by :func:`rankwise.fuse` and :func:`rankwise.optimize_fusion` as
    ``options=``; keywords override it where they differ from their defaults.

    Parameters
    ----------
    method : str
        The fusion method: ranx's name (``rrf``, ``mnz``, ``wsum``, ...) or an
        alias (``combmnz``, any case); kept as ranx's name.
    norm : str, optional
        Normalise each run's scores per query first (``min-max``,
        ``min-max-inverted``, ``max``, ``sum``, ``zmuv``, ``rank``,
        ``borda``, or an alias such as ``min_max``); None: no normalisation.
    weights : sequence of float, optional
        One finite number per run, for the weighted methods (``wsum``,
        ``wmnz``, ``mixed``, ``w_bordafuse``, ``w_condorcet``).
    params : dict, optional
        The method's other parameters (``k``, ``gamma``, ``sigma``, ``phi``,
        ``w``, ``n_segments``, or learned ``probs``, ``log_odds``,
        ``map_scores``); numbers may be given as text. Kept read-only.

    Examples
    --------
    >>> options = FusionOptions("CombMNZ", norm="min_max")
    >>> options.method, options.norm
    ('mnz', 'min-max')
    >>> FusionOptions("rrf", params={"k": "10"}).params["k"]
    10
    >>> FusionOptions("wsum", weights=[0.7, 0.3]).weights
    (0.7, 0.3)
    >>> FusionOptions("rff")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rankwise.exceptions.InvalidParameterError: method must be one of 'sum', 'mnz', ...; did \
you mean 'rrf'?
    """

    method: FusionMethod = "rrf"
    norm: Normalisation | None = None
    weights: tuple[float, ...] | None = None
    params: Mapping[str, Any] | None = field(default=None, hash=False)

    def __post_init__(self) -> None:
        set_field = object.__setattr__
        set_field(self, "method", check("method", self.method, FUSION_METHOD))
        set_field(self, "norm", check("norm", self.norm, NORMALISATION))
        params = dict(check("params", self.params, optional(Instance(
            Mapping, words="a dict {parameter: value}"))) or {})
        if "weights" in params:
            if self.weights is not None:
                reject("params", self.params, "a dict without 'weights' when weights= is given",
                       remedy="give the weights once")
            set_field(self, "weights", params.pop("weights"))
        if self.weights is not None:
            set_field(self, "weights", check("weights", self.weights, _WEIGHTS))
            check_fusion_params(self.method, {"weights": self.weights})
        checked = check_fusion_params(self.method, params)
        set_field(self, "params", MappingProxyType(checked) if checked else None)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled by its fields (the parameters as a plain dict)."""
        params = dict(self.params) if self.params is not None else None
        return FusionOptions, (self.method, self.norm, self.weights, params)

    def values(self) -> dict[str, Any]:
        """The method's parameters as given (the weights among them), without the defaults."""
        out = dict(self.params or {})
        if self.weights is not None:
            out["weights"] = list(self.weights)
        return out

    def describe(self) -> dict[str, str]:
        """Each option in words, for reports and provenance.

        Examples
        --------
        >>> FusionOptions("rrf", params={"k": 10}).describe()
        {'method': 'rrf', 'normalisation': 'none', 'parameters': 'k=10'}
        """
        shown = {k: v for k, v in self.values().items()
                 if k not in ("probs", "log_odds")}  # learned tables: too long to show
        return {
            "method": self.method,
            "normalisation": self.norm or "none",
            "parameters": ", ".join(f"{k}={v}" for k, v in shown.items()) or "defaults",
        }


def _first_word(text: str) -> str:
    return text.strip().lower()


FUSION_METHOD = OneOf(FUSION_METHODS, aliases=FUSION_ALIASES, fold=_first_word)
"""What ``method=`` of a fusion must be: a method's name or alias, any case."""
NORMALISATION = optional(OneOf(NORMALISATIONS, aliases=NORMALISATION_ALIASES, fold=_first_word))
"""What ``norm=`` must be: a normalisation's name or alias, any case, or None."""
_WEIGHTS = SequenceOf(Number(finite=True), words="a list of finite numbers, one per run")


# ----------------------------------------------------------------------------
# RecommenderOptions
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class RecommenderOptions(_Replaceable):
    """The options that change the numbers of a recommender evaluation.

    One frozen object, checked once, as :class:`EvalOptions` is for
    rankings; :func:`rankwise.evaluate_recommendations` takes it as
    ``options=`` (keywords override it where they differ from their defaults).

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
    rankwise.exceptions.InvalidParameterError: k must be a positive integer or None, got 0 (int)
    """

    k: int | None = None
    rel: float = 1.0
    missing: Missing = "skip"
    duplicates: Duplicates = "error"
    relevance: str | None = None
    segment_test: SegmentTest = "welch"

    def __post_init__(self) -> None:
        check_fields(self, RECOMMENDER_CONSTRAINTS)
        if self.rel is None:
            object.__setattr__(self, "rel", 1.0)

    def describe(self) -> dict[str, str]:
        """Each option in words, for reports and provenance.

        Examples
        --------
        >>> RecommenderOptions(k=10).describe()["cutoff"]
        'first 10 items of each list, after the seen ones are excluded'
        """
        return {
            "cutoff": "whole lists" if self.k is None
            else f"first {counted(self.k, 'item')} of each list, after the seen ones are "
                 "excluded",
            "relevance level": f"grade >= {self.rel:g}",
            "grades": f"column {self.relevance!r}" if self.relevance is not None
            else "every interaction has grade 1",
            "users without a list": "scored 0" if self.missing == "zero" else "left out",
            "an item listed twice": "kept at its best rank" if self.duplicates == "first"
            else "an error",
            "test between segments": "Welch's t-test / ANOVA" if self.segment_test == "welch"
            else "Mann-Whitney U / Kruskal-Wallis",
        }


RECOMMENDER_CONSTRAINTS: dict[str, Constraint] = {
    "k": optional(Integer(low=1)),
    "rel": _REL,
    "missing": OneOf(MISSING_POLICIES),
    "duplicates": OneOf(DUPLICATE_POLICIES),
    "relevance": optional(Text(words="the name of a column of the test table (a str)")),
    "segment_test": OneOf(SEGMENT_TESTS),
}


def recommender_options_from(options: RecommenderOptions | None = None,
                             **given: Any) -> RecommenderOptions:
    """The options of a recommender evaluation: an object, keywords, or both.

    Keywords equal to their defaults are ignored when *options* is given.

    Examples
    --------
    >>> recommender_options_from(RecommenderOptions(k=5), missing="zero").k
    5
    """
    return merged(RecommenderOptions, options, **given)

