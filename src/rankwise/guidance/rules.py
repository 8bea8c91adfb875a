"""The guide's rules, as data: when each applies, what it says, what it suggests.

A :class:`Rule` reads the :class:`~rankwise.guidance.facts.Facts` (and, for
the rules of a run, that run's :class:`~rankwise.guidance.facts.RunFacts`):
``applies`` is its condition, ``numbers`` the values its sentence quotes and
``text`` the sentence, a template filled with those numbers (and ``k``, the
cut-off; ``deep``, the depth of recall). ``measures`` and ``options`` are
what it adds to the suggested command line. :data:`RULES` is the table, in
the order the guide says them; docs/guide.md lists it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rankwise.guidance.facts import POOLED, Facts, RunFacts, pool_depth

__all__ = ["RULES", "SCOPES", "TOPICS", "Rule", "rule"]

SCOPES = ("judgments", "run", "study")
"""What a rule reads: the judgments, each run, or the runs together."""

TOPICS = ("queries", "relevant", "grades", "coverage", "judged", "ties", "power", "pairs")
"""The subjects of the sentences, in the order they are printed within a scope."""

Reader = Callable[[Facts, RunFacts | None], Any]


@dataclass(frozen=True)
class Rule:
    """One rule of the guide.

    Attributes
    ----------
    name : str
        Its identifier (``one-relevant``).
    topic : str
        One of :data:`TOPICS`.
    scope : str
        One of :data:`SCOPES`: read once for the judgments, once per run, or
        once for all runs.
    when : str
        The condition, in words.
    applies : callable
        ``applies(facts, run) -> bool`` (``run`` is None outside the run scope).
    numbers : callable
        ``numbers(facts, run) -> dict``: the values the sentence quotes.
    text : str
        The sentence: a :meth:`str.format` template of those numbers and
        ``k``, ``deep`` (and ``run``, the run's name).
    measures : tuple of str
        Measures it suggests (templates of ``k`` and ``deep``).
    options : tuple of (str, str)
        Options of :func:`rankwise.evaluate` it suggests (``("unjudged", "bounds")``).
    """

    name: str
    topic: str
    scope: str
    when: str
    applies: Reader
    numbers: Reader
    text: str
    measures: tuple[str, ...] = ()
    options: tuple[tuple[str, str], ...] = ()

    def say(self, facts: Facts, run: RunFacts | None = None) -> tuple[str, dict[str, Any]]:
        """The sentence for these facts, and the numbers it quotes."""
        numbers = dict(self.numbers(facts, run))
        fields = {"k": facts.cutoff, "deep": facts.deep, **numbers}
        if run is not None:
            fields.setdefault("run", run.name)
        return self.text.format(**fields), numbers

    def suggested(self, facts: Facts) -> tuple[str, ...]:
        """Its measures with the cut-offs filled in."""
        return tuple(m.format(k=facts.cutoff, deep=facts.deep) for m in self.measures)


# -- helpers the rules share ---------------------------------------------------------------


def _many(f: Facts) -> bool:
    j = f.judgments
    return bool(j.with_relevant) and j.one_relevant < 0.5 * j.with_relevant


def _one(f: Facts) -> bool:
    j = f.judgments
    return bool(j.with_relevant) and j.one_relevant >= 0.5 * j.with_relevant


def _judged(r: RunFacts | None, k: int) -> float:
    return r.judged.get(k, math.nan) if r is not None else math.nan


def _bounds(f: Facts, r: RunFacts | None) -> dict[str, Any]:
    if r is None:
        return {}
    measure = f.shallow
    low, high = r.bounds.get(measure, (r.means.get(measure, math.nan),) * 2)
    judged = _judged(r, f.cutoff)
    return {"judged": judged, "unjudged": 1 - judged, "measure": measure, "low": low,
            "high": high}


def _pool(f: Facts, r: RunFacts | None) -> dict[str, Any]:
    if r is None:
        return {}
    depth = pool_depth(r.judged)
    where = (f"{POOLED:.0%} or more are judged down to rank {depth} only" if depth
             else f"under {POOLED:.0%} are judged already in the top 5")
    return {"depth": r.retrieved_median, "judged_all": r.judged_all, "pooled": POOLED,
            "pool": depth, "where": where}


def _ties(f: Facts, r: RunFacts | None) -> dict[str, Any]:
    if r is None:
        return {}
    changed = list(r.tie_bounds)
    measure = changed[0] if changed else ""
    worst, best = r.tie_bounds.get(measure, (math.nan, math.nan))
    return {"queries": r.tied_queries, "n": r.n_queries, "which": ", ".join(changed),
            "measure": measure,
            "worst": worst, "best": best, "measures": ", ".join(r.means)}


def _variance_text(f: Facts) -> str:
    power = f.power[0]
    if power.residual is not None:
        return (f"sigma_t^2 = 2 V_E = {power.variance:.4f}, V_E the residual variance of the "
                f"{power.runs} runs (Sakai 2016)")
    name = f.runs[0].name if f.runs else "the run"
    return (f"sigma_t^2 = {power.variance:.4f}, twice the variance of {name}'s values: at most "
            "that if a second run's values spread as much and do not move against them")


def _power(f: Facts, r: RunFacts | None) -> dict[str, Any]:
    first = f.power[0]
    others = "; ".join(f"{p.measure} {p.needed:,}" for p in f.power[1:])
    return {"n": first.n_queries, "d": f.min_diff, "measure": first.measure,
            "power": first.power, "needed": first.needed, "target": 1 - f.beta,
            "variance": first.variance, "variance_text": _variance_text(f),
            "others": f" Queries the other measures need: {others}." if others else ""}


def _enough(f: Facts) -> bool | None:
    if not f.power:
        return None
    return f.power[0].power >= 1 - f.beta


def _comparison(f: Facts, r: RunFacts | None) -> dict[str, Any]:
    c = f.comparison
    if c is None:
        return {}
    counts = ", ".join(f"{name} {count}" for name, count in c.significant.items())
    best = max(c.significant, key=lambda name: c.significant[name])
    system, against, delta = c.largest.get(best, ("", "", math.nan))
    n = f.runs[0].n_queries if f.runs else 0
    return {"pairs": c.pairs, "counts": counts, "best": best, "test": c.test,
            "runs": len(f.runs), "measures": ", ".join(c.significant), "system": system,
            "against": against, "delta": delta, "n": n}


def _significant(f: Facts) -> bool | None:
    if f.comparison is None or not f.comparison.significant:
        return None
    return any(f.comparison.significant.values())


# -- the table -----------------------------------------------------------------------------

RULES: tuple[Rule, ...] = (
    # the judgments
    Rule(
        "no-relevant", "queries", "judgments",
        "some queries have no document with a relevant grade",
        lambda f, r: f.judgments.no_relevant > 0,
        lambda f, r: {"none": f.judgments.no_relevant, "n": f.judgments.n_queries,
                      "rel": f.judgments.rel, "scored": _scored_zero(f)},
        "Queries with no document judged relevant (grade >= {rel:g}): {none:,} of {n:,}. "
        "{scored}, and they pull every run's mean down alike: leave them out of the "
        "judgments, or say how many the means count.",
    ),
    Rule(
        "one-relevant", "relevant", "judgments",
        "half the queries with a relevant document or more have exactly one",
        lambda f, r: _one(f),
        lambda f, r: {"one": f.judgments.one_relevant, "with": f.judgments.with_relevant,
                      "share": f.judgments.one_relevant / f.judgments.with_relevant,
                      "mean": f.judgments.relevant_mean},
        "Queries with exactly one relevant document: {one:,} of the {with:,} that have any "
        "({share:.0%}; {mean:.2f} per query on average). What matters is the rank of that "
        "document: mrr@{k} "
        "(1 / the rank of the first relevant document in the top {k}) and hit@{k} say it; map "
        "equals mrr where there is one, and recall@{deep} says whether a first stage retrieves "
        "it at all.",
        measures=("mrr@{k}", "recall@{deep}"),
    ),
    Rule(
        "many-graded", "relevant", "judgments",
        "most queries have several relevant documents, at several grades",
        lambda f, r: _many(f) and f.judgments.graded,
        lambda f, r: {"median": f.judgments.relevant_median, "low": f.judgments.relevant_min,
                      "high": f.judgments.relevant_max, "rel": f.judgments.rel},
        "Queries have several relevant documents (median {median:g}, {low:g} to {high:g}) at "
        "several grades: ndcg@{k} scores the top {k} a user sees, the higher grades first, and "
        "map the whole ranking (a grade >= {rel:g} is relevant). mrr@{k} would see only the "
        "first relevant document.",
        measures=("ndcg@{k}", "map"),
    ),
    Rule(
        "many-binary", "relevant", "judgments",
        "most queries have several relevant documents, at one grade",
        lambda f, r: _many(f) and not f.judgments.graded,
        lambda f, r: {"median": f.judgments.relevant_median, "low": f.judgments.relevant_min,
                      "high": f.judgments.relevant_max},
        "Queries have several relevant documents (median {median:g}, {low:g} to {high:g}): map "
        "(the precision at the rank of each relevant document) and recall@{deep} read the whole "
        "ranking, P@{k} the top {k} a user sees. mrr@{k} would see only the first relevant "
        "document.",
        measures=("map", "P@{k}", "recall@{deep}"),
    ),
    Rule(
        "fewer-than-k", "relevant", "judgments",
        "most queries have several relevant documents, and a perfect ranking's P@k is below 0.9",
        lambda f, r: _many(f) and f.judgments.best_precision < 0.9,
        lambda f, r: {"few": f.judgments.fewer_than_k, "best": f.judgments.best_precision},
        "Queries with fewer than {k} relevant documents: {few:,}. P@{k} cannot reach 1 on them: "
        "a perfect ranking scores P@{k} = {best:.4f} on average; ndcg@{k} and Rprec are "
        "normalised by what each query allows.",
    ),
    Rule(
        "binary", "grades", "judgments",
        "one relevant grade",
        lambda f, r: f.judgments.levels == 1,
        lambda f, r: {"grades": f.judgments.grades_text()},
        "The judgments are binary: {grades}. map, P@k, recall and mrr use all they hold, and "
        "ndcg's two gains give the same number.",
    ),
    Rule(
        "graded", "grades", "judgments",
        "two relevant grades or more",
        lambda f, r: f.judgments.levels > 1,
        lambda f, r: {"grades": f.judgments.grades_text(), "rel": f.judgments.rel},
        "The judgments are graded: {grades}. ndcg@{k} rewards a ranking for putting the higher "
        "grades first; map, P@k and mrr count every grade >= {rel:g} as relevant alike.",
        measures=("ndcg@{k}",),
    ),
    Rule(
        "two-gains", "grades", "judgments",
        "graded, with a grade above 1",
        lambda f, r: f.judgments.levels > 1 and f.judgments.top_grade > 1,
        lambda f, r: {"top": f.judgments.top_grade, "low": _lowest_relevant(f),
                      **_exponential_ratio(f.judgments.top_grade, _lowest_relevant(f)),
                      "lin": f.judgments.top_grade / _lowest_relevant(f)},
        "ndcg has two gains: rankwise's ndcg counts a grade g as 2^g - 1 (grade {top:g} weighs "
        "{exp_words} times grade {low:g}); trec_eval, pytrec_eval, ranx and scikit-learn count g "
        "itself ({lin:.3g} times). Say which you report: ndcg@{k}(gain=linear) gives the other "
        "tools' number.",
    ),
    Rule(
        "negative-grades", "grades", "judgments",
        "some grades are negative",
        lambda f, r: f.judgments.negative > 0,
        lambda f, r: {"negative": f.judgments.negative, "counted": _negative_reading(f)},
        "Judgments with a negative grade: {negative:,}. rankwise counts them {counted}; "
        "trec_eval's infAP takes them as pooled but not judged, and unj@k as unjudged.",
    ),
    # each run
    Rule(
        "missing-queries", "coverage", "run",
        "the run has no results for some judged queries",
        lambda f, r: r is not None and r.missing > 0,
        lambda f, r: {"missing": r.missing, "n": r.missing + r.n_queries} if r else {},
        "{run} has no results for {missing:,} of the {n:,} judged queries: they are left out of "
        "its means, as trec_eval does; --missing zero (trec_eval -c) scores them 0, what a user "
        "of the system gets, and compares every run on the same queries.",
        options=(("missing", "zero"),),
    ),
    Rule(
        "extra-queries", "coverage", "run",
        "the run answers queries the judgments do not hold",
        lambda f, r: r is not None and r.extra > 0,
        lambda f, r: {"extra": r.extra} if r else {},
        "{run} also answers queries the judgments do not hold ({extra:,}): they are ignored.",
    ),
    Rule(
        "short-rankings", "coverage", "run",
        "the run returns fewer than k documents for some queries",
        lambda f, r: r is not None and r.short > 0,
        lambda f, r: {"short": r.short, "n": r.n_queries, "fewest": r.retrieved_min} if r else {},
        "{run} returns fewer than {k} documents for {short:,} of its {n:,} queries (the fewest: "
        "{fewest:g}): P@{k} still divides by {k}, and every measure counts the missing ranks as "
        "not relevant.",
    ),
    Rule(
        "unjudged-top", "judged", "run",
        f"under {POOLED:.0%} of the documents in the top k are judged",
        lambda f, r: _judged(r, f.cutoff) < POOLED,
        _bounds,
        "{run}: {unjudged:.0%} of the documents in its top {k} are unjudged ({judged:.4f} "
        "judged). They count as not relevant: {measure} = {low:.4f}; with them relevant it "
        "would be {high:.4f}. Report judged@{k} with it, and the bounds (--unjudged bounds).",
        measures=("judged@{k}",),
        options=(("unjudged", "bounds"),),
    ),
    Rule(
        "mostly-judged", "judged", "run",
        f"{POOLED:.0%} of the documents in the top k or more are judged, but not all",
        lambda f, r: POOLED <= _judged(r, f.cutoff) < 1,
        _bounds,
        "{run}: {judged:.1%} of the documents in its top {k} are judged: taking the unjudged "
        "ones as relevant would move {measure} from {low:.4f} to {high:.4f}.",
    ),
    Rule(
        "all-judged", "judged", "run",
        "every document in the top k is judged",
        lambda f, r: _judged(r, f.cutoff) == 1,
        lambda f, r: {},
        "{run}: every document in its top {k} is judged: the measures at {k} need no "
        "assumption about unjudged documents.",
    ),
    Rule(
        "shallow-pool", "judged", "run",
        "the run retrieves 100 documents or more per query and fewer than half are judged",
        lambda f, r: r is not None and r.retrieved_median >= 100 and r.judged_all < 0.5,
        _pool,
        "{run} retrieves {depth:g} documents per query (median) but only {judged_all:.1%} of "
        "them are judged; {where}. map and recall@{deep} "
        "read past that depth, where an unjudged document counts as not relevant, so a run that "
        "finds documents the judges never saw is scored down: compare such runs on measures "
        "within the judged depth, or with bpref or --judged-only (condensed lists).",
    ),
    Rule(
        "ties-decide", "ties", "run",
        "the order of tied documents changes a mean in its 4th decimal",
        lambda f, r: r is not None and bool(r.tie_bounds),
        _ties,
        "{run}: tied scores decide {which}: by the order of its tied documents {measure} lies "
        "between {worst:.4f} and {best:.4f} (queries where a tie holds a relevant document "
        "with others, or a judged one across a cut-off: {queries:,}). rankwise orders ties as "
        "trec_eval does "
        "(document id descending); --ties average gives the expected value over every order.",
        options=(("ties", "average"),),
    ),
    Rule(
        "ties-harmless", "ties", "run",
        "tied documents could swap, but no mean changes in its 4th decimal",
        lambda f, r: r is not None and r.tied_queries > 0 and not r.tie_bounds,
        _ties,
        "{run}: tied scores around judged documents in {queries:,} of its {n:,} queries, but "
        "their order changes no mean of {measures} in its 4th decimal.",
    ),
    Rule(
        "no-ties", "ties", "run",
        "no tie mixes a relevant document with others or straddles a cut-off",
        lambda f, r: r is not None and r.tied_queries == 0,
        lambda f, r: {},
        "{run}: no tie in its scores can change a value (none mixes a relevant document with "
        "others or straddles a cut-off).",
    ),
    # the runs together
    Rule(
        "no-runs", "power", "study",
        "no run is given",
        lambda f, r: not f.runs,
        lambda f, r: {},
        "No run given: with runs (rankwise guide QRELS RUN ...) the guide also says how deep "
        "they are judged, whether their ties matter, and how many queries a difference needs; "
        "rankwise design prints topic set sizes for the variances you assume.",
    ),
    Rule(
        "too-few-queries", "power", "study",
        "a paired t-test has power below 1 - beta to detect min_diff in the first measure",
        lambda f, r: _enough(f) is False,
        _power,
        "With {n:,} queries a paired t-test detects a true difference of {d:g} in {measure} "
        "with probability {power:.2f}; {needed:,} queries give {target:.0%} ({variance_text})."
        "{others}",
    ),
    Rule(
        "enough-queries", "power", "study",
        "a paired t-test has power 1 - beta or more to detect min_diff in the first measure",
        lambda f, r: _enough(f) is True,
        _power,
        "{n:,} queries are enough for {measure}: a paired t-test detects a true difference of "
        "{d:g} with probability {power:.2f} ({needed:,} would give {target:.0%}; "
        "{variance_text}).{others}",
    ),
    Rule(
        "discriminable", "pairs", "study",
        "two runs or more, and some pair differs significantly",
        lambda f, r: _significant(f) is True,
        _comparison,
        "Pairs of runs that differ significantly, of {pairs}: {counts} ({test}). {best} tells "
        "apart the most; its largest difference: {system} - {against} = {delta:+.4f}.",
    ),
    Rule(
        "not-discriminable", "pairs", "study",
        "two runs or more, and no pair differs significantly",
        lambda f, r: _significant(f) is False,
        _comparison,
        "No pair of the {runs} runs differs significantly in {measures} ({test}): the largest "
        "difference, {best} {system} - {against} = {delta:+.4f}, is within what {n:,} queries "
        "can tell apart.",
    ),
)
"""The rules, in the order the guide says them."""


def _exponential_ratio(top: float, low: float) -> dict[str, Any]:
    """(2^top - 1) / (2^low - 1), for 0 < low < top: ``exp`` (None past a double) and in words.

    Examples
    --------
    >>> _exponential_ratio(3, 1), _exponential_ratio(2000, 1)["exp_words"]
    ({'exp': 7.0, 'exp_words': '7'}, 'about 2^2000')
    """
    # log2 of the ratio: top - low + log2((1 - 2^-top) / (1 - 2^-low))
    exponent = top - low + math.log2(-math.expm1(-top * math.log(2))) \
        - math.log2(-math.expm1(-low * math.log(2)))
    if exponent < 1000:
        ratio = (2.0 ** top - 1) / (2.0 ** low - 1) if top < 1000 else 2.0 ** exponent
        return {"exp": ratio, "exp_words": f"{ratio:.3g}"}
    return {"exp": None, "exp_words": f"about 2^{exponent:.0f}"}


def _scored_zero(f: Facts) -> str:
    """Which measures score a query without a relevant document 0 whatever the ranking."""
    gained = f.judgments.gained_not_relevant
    if not gained:
        return "Every measure scores them 0 whatever the ranking"
    return (f"map, P@k, recall and mrr score them 0 whatever the ranking (ndcg reads the "
            f"grades, not rel: it scores the {gained:,} with a grade above 0)")


def _negative_reading(f: Facts) -> str:
    """How the measures read the negative grades at the judgments' ``rel``."""
    j = f.judgments
    if not any(grade < 0 and grade >= j.rel for grade, _ in j.grades):
        return "judged and never relevant (gain 0)"
    return (f"judged, and at rel {j.rel:g} map, P@k, recall and mrr count those >= "
            f"{j.rel:g} as relevant (ndcg gives them gain 0)")


def _lowest_relevant(f: Facts) -> float:
    j = f.judgments
    relevant = [grade for grade, _ in j.grades if grade >= j.rel and grade > 0]
    return relevant[0] if relevant else 1.0


_BY_NAME = {item.name: item for item in RULES}


def rule(name: str) -> Rule:
    """The rule called *name*.

    Examples
    --------
    >>> rule("one-relevant").measures
    ('mrr@{k}', 'recall@{deep}')
    """
    try:
        return _BY_NAME[name]
    except KeyError:
        from rankwise.exceptions import InvalidParameterError
        from rankwise.suggest import did_you_mean

        raise InvalidParameterError(
            f"no guide rule is called {name!r}" + did_you_mean(name, list(_BY_NAME))
        ) from None
