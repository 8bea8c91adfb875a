"""``rw.guide``: which measures the judgments (and runs) support, in plain words.

The front door reads the data once (:func:`rankwise.io.coerce.as_qrels`,
:func:`~rankwise.io.coerce.as_run`), evaluates each run once with what the
rules read (judged@k, ``num_ret``, the suggested measures and their tie
report) and once more with ``unjudged="bounds"`` at the cut-off, estimates the
topics a difference needs (:mod:`rankwise.design`) and compares the runs
(:func:`rankwise.compare_results`); the rules of
:mod:`rankwise.guidance.rules` then say what the numbers mean.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from rankwise._validation import LEVEL, POSITIVE_INT, Number, check
from rankwise._wording import counted
from rankwise.evaluation import RUN_NAME
from rankwise.exceptions import InvalidParameterError, MissingDependencyError, RankwiseWarning
from rankwise.guidance.facts import (
    JUDGED_CUTOFFS,
    Facts,
    RunFacts,
    comparison_facts,
    judged_name,
    judgment_facts,
    power_facts,
    run_facts,
    unpowered_note,
)
from rankwise.guidance.result import Advice, Guide
from rankwise.guidance.rules import RULES, TOPICS

__all__ = ["DEEP", "guide"]

DEEP = 1000
"""The depth of the recall the guide suggests (recall@1000: what a first stage returns)."""


def _is_scalar(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _given_runs(runs: Any) -> list[tuple[str | None, Any]]:
    """``None``, one run, a list of runs or ``{name: run}`` -> (name or None, run) pairs.

    A dict whose values are dicts of numbers is one run (``{query: {doc: score}}``).
    """
    if runs is None:
        return []
    if isinstance(runs, Mapping):
        first = next(iter(runs.values()), None)
        if isinstance(first, Mapping) and all(_is_scalar(v) for v in list(first.values())[:5]):
            return [(None, runs)]
        items: list[tuple[str | None, Any]] = []
        for name, run in runs.items():
            items.append((check("a run name", name, RUN_NAME), run))
        return items
    if isinstance(runs, (list, tuple)):
        return [(None, run) for run in runs]
    return [(None, runs)]


def _path(obj: Any) -> str | None:
    return os.fspath(obj) if isinstance(obj, (str, os.PathLike)) else None


def _canonical(names: Sequence[str]) -> list[str]:
    from rankwise.measures import parse

    return list(dict.fromkeys(str(parse(name)) for name in names))


def _fired(facts: Facts, scope: str, run: RunFacts | None = None) -> list[Advice]:
    out = []
    for item in RULES:
        if item.scope != scope or not item.applies(facts, run):
            continue
        text, numbers = item.say(facts, run)
        out.append(Advice(item.name, item.topic, scope, run.name if run else None, text,
                          numbers, item.suggested(facts), item.options))
    return sorted(out, key=lambda a: TOPICS.index(a.topic))


def _evaluate_runs(qrels: Any, given: list[tuple[str | None, Any]], measures: list[str],
                   shallow: str, *, cutoff: int, rel: float | None, reading: Reading,
                   ) -> list[tuple[Any, Any, str | None]]:
    """Each run evaluated (and its bounds at the cut-off), one run in memory at a time."""
    from rankwise.evaluation import evaluate

    evaluated = []
    for name, obj in given:
        run = reading.run(obj, name)
        results = evaluate(qrels, run, measures, rel=rel)
        if results.n_queries == 0:
            raise InvalidParameterError(
                f"run {results.run_name!r}" + (f" ({_path(obj)})" if _path(obj) else "")
                + f" and the judgments have no query in common (run: "
                f"{counted(len(run.query_ids), 'query')}, e.g. {run.query_ids[:3]}; judgments: "
                f"{counted(qrels.n_queries, 'query')}, "
                f"e.g. {qrels.query_ids[:3]})"
            )
        results.ties  # noqa: B018 - the tie report is made while the run is here
        bounds = None
        if results.n_queries and results.mean[judged_name(cutoff)] < 1:
            bounds = evaluate(qrels, run, [shallow], rel=rel, unjudged="bounds", depth=cutoff)
        evaluated.append((results, bounds, _path(obj) or getattr(run, "source", None)))
        del run
    return evaluated


@dataclasses.dataclass(frozen=True)
class Reading:
    """How the inputs are read: formats of files, column names of tables."""

    qrels_format: str | None = None
    run_format: str | None = None
    columns: Mapping[str, str | None] | None = None

    def qrels(self, obj: Any) -> Any:
        """The judgments as :class:`~rankwise.Qrels`."""
        from rankwise.io.coerce import as_qrels, read_qrels

        if self.qrels_format is not None and _path(obj) is not None:
            return read_qrels(obj, fmt=self.qrels_format, columns=self.columns)
        return as_qrels(obj, columns=self.columns)

    def run(self, obj: Any, name: str | None) -> Any:
        """One run as a :class:`~rankwise.Run`."""
        from rankwise.io.coerce import as_run, read_run

        if self.run_format is not None and _path(obj) is not None:
            return read_run(obj, fmt=self.run_format, name=name, columns=self.columns)
        return as_run(obj, name=name, columns=self.columns)

    def flags(self) -> list[str]:
        """The same reading on the command line."""
        out = []
        if self.qrels_format is not None:
            out += ["--qrels-format", self.qrels_format]
        if self.run_format is not None:
            out += ["--run-format", self.run_format]
        if self.columns:
            out += ["--columns", ",".join(f"{role}={name or ''}"
                                          for role, name in self.columns.items())]
        return out


def _commands(qrels: Any, given: list[tuple[str | None, Any]], measures: Sequence[str],
              options: Mapping[str, str], seed: int, reading: Reading) -> tuple[str, ...]:
    paths = [_path(obj) for _, obj in given]
    qrels_text = _path(qrels) or "QRELS"
    if given and all(paths):
        runs = [str(path) for path in paths]
    else:
        runs = ["RUN"] if len(given) < 2 else [f"RUN_{i + 1}" for i in range(len(given))]
    flags = reading.flags()
    for key in ("rel", "missing", "ties"):
        if key in options:
            flags += [f"--{key}", options[key]]
    listed = ["-m", *measures]
    evaluate = ["rankwise", "eval", qrels_text, *runs, *listed, *flags]
    if "unjudged" in options:
        evaluate += ["--unjudged", options["unjudged"]]
    out = [shlex.join(evaluate)]
    compared = [m for m in measures if not m.startswith("judged")]
    if len(given) >= 2 and compared:
        out.append(shlex.join(["rankwise", "compare", qrels_text, *runs, "-m", *compared,
                               *flags, "--seed", str(seed)]))
    return tuple(out)


def _check(cutoff: Any, min_diff: Any, alpha: Any, beta: Any) -> None:
    check("cutoff", cutoff, POSITIVE_INT)
    check("min_diff", min_diff, _MIN_DIFF)
    check("alpha", alpha, LEVEL)
    check("beta", beta, LEVEL)


_MIN_DIFF = Number(0, 1, closed="right", words="a number in (0, 1] (the difference between "
                                               "two means to detect)")


def guide(
    qrels: Any,
    runs: Any = None,
    *,
    cutoff: int = 10,
    min_diff: float = 0.05,
    rel: float | None = None,
    alpha: float = 0.05,
    beta: float = 0.20,
    seed: int = 0,
    columns: Mapping[str, str | None] | None = None,
    qrels_format: str | None = None,
    run_format: str | None = None,
) -> Guide:
    """Say which measures the judgments (and runs) support, with the numbers behind it.

    Reads the judgments, and the runs when given, and applies the guide's
    rules (listed in docs/guide.md, "Which measure fits"): the grades present and their
    spread (binary or graded; ndcg's two gains), the relevant documents per
    query (one: mrr and success; many: ndcg, map, P@k), how deep each run is
    judged (judged@k; the bounds of ``unjudged="bounds"`` when unjudged
    documents make a measure uncertain), its missing queries and short
    rankings, whether ties decide a mean (the tie report), how many queries a
    difference of *min_diff* needs (topic set size design, Sakai 2016) and
    whether the runs' differences are significant (:func:`rankwise.compare`).
    It ends with the suggested command line.

    Parameters
    ----------
    qrels : Qrels, path, frame or dict
        The judgments, in any form :func:`rankwise.evaluate` takes.
    runs : run, list of runs or dict, optional
        One run (a path, a :class:`~rankwise.Run`, a frame, or a dict
        ``{query: {doc: score}}``), a list of runs, or ``{name: run}``.
    cutoff : int
        k, the depth a user sees (default 10: a page of results).
    min_diff : float
        The difference between two means the queries should detect.
    rel : float, optional
        The lowest relevant grade (default 1).
    alpha : float
        The level of the tests.
    beta : float
        The type II error of the paired t-test: its power is ``1 - beta``.
    seed : int
        The seed of the randomization test comparing the runs.
    columns : dict, optional
        Column names of tables, as in :func:`rankwise.evaluate`.
    qrels_format, run_format : str, optional
        The format of files given by path (default: from the extension), as
        in :func:`rankwise.read_qrels` and :func:`rankwise.read_run`.

    Returns
    -------
    Guide
        ``str(guide)`` is the text; ``guide.measures``, ``guide.options`` and
        ``guide.commands`` the suggestion; ``guide.advice`` each sentence with
        its numbers.

    Raises
    ------
    InputFormatError
        Malformed judgments or run.
    InvalidParameterError
        A bad option.

    Examples
    --------
    >>> import rankwise as rw
    >>> qrels = {"q1": {"a": 3, "b": 1, "c": 0}, "q2": {"d": 2, "e": 1}}
    >>> g = rw.guide(qrels)
    >>> g.rules
    ('many-graded', 'fewer-than-k', 'graded', 'two-gains', 'no-runs')
    >>> g.advice[2].numbers["grades"]
    'grades 0 (1 judgment, 20%), 1 (2, 40%), 2 (1, 20%), 3 (1, 20%)'
    >>> print(g.advice[2].text[:75])
    The judgments are graded: grades 0 (1 judgment, 20%), 1 (2, 40%), 2 (1, 20%
    >>> g.measures, g.commands
    (('ndcg@10', 'map'), ('rankwise eval QRELS RUN -m ndcg@10 map',))
    """
    _check(cutoff, min_diff, alpha, beta)
    reading = Reading(qrels_format, run_format, columns)
    level = 1.0 if rel is None else float(rel)
    given = _given_runs(runs)
    with warnings.catch_warnings():
        # the guide says in its own words what the evaluations would warn about
        warnings.simplefilter("ignore", RankwiseWarning)
        judgments = reading.qrels(qrels)
        if len(judgments) == 0:
            raise InvalidParameterError(
                "the judgments hold no judgment: give at least one (query, document, grade)")
        facts = Facts(judgment_facts(judgments, rel=level, cutoff=cutoff), (), cutoff, DEEP,
                      float(min_diff), float(alpha), float(beta))
        told = _fired(facts, "judgments")
        measures = _canonical([m for a in told for m in a.measures] or [f"ndcg@{cutoff}"])
        facts = dataclasses.replace(facts, measures=tuple(measures))
        facts = _study(facts, judgments, given, reading=reading, rel=rel, seed=seed)
    for run in facts.runs:
        told += _fired(facts, "run", run)
    told += _fired(facts, "study")
    suggested = _canonical([*measures, *(m for a in told for m in a.measures)])
    options = {key: value for a in told for key, value in a.options}
    if rel is not None and level != 1:
        options["rel"] = f"{level:g}"
    return Guide(facts, tuple(told), tuple(suggested), options,
                 _commands(qrels, given, suggested, options, seed, reading))


def _preload_scipy() -> None:
    """Import scipy.special (the topic set sizes need it), if it is installed."""
    import contextlib

    with contextlib.suppress(ImportError):  # without scipy a note says what is left out
        import scipy.special  # noqa: F401


def _study(facts: Facts, judgments: Any, given: list[tuple[str | None, Any]], *,
           reading: Reading, rel: float | None, seed: int) -> Facts:
    """The runs' facts, the topics a difference needs, and the comparison of the runs."""
    import threading

    from rankwise.io.naming import unique_names

    if not given:
        return facts
    # scipy's import (a few tenths of a second) runs while the C reader reads the runs
    preload = threading.Thread(target=_preload_scipy, name="rankwise-guide-scipy", daemon=True)
    preload.start()
    cutoff = facts.cutoff
    shallow = facts.shallow
    extra = [judged_name(k) for k in sorted({*JUDGED_CUTOFFS, cutoff})] + ["judged", "num_ret"]
    evaluated = _evaluate_runs(judgments, given, _canonical([*facts.measures, shallow, *extra]),
                               shallow, cutoff=cutoff, rel=rel, reading=reading)
    names = unique_names([name or results.run_name or "run"
                          for (name, _), (results, _, _) in zip(given, evaluated)])
    for name, (results, _, _) in zip(names, evaluated):
        results.run_name = name
    runs = tuple(run_facts(results, bounds, source=source, cutoff=cutoff,
                           measures=facts.measures)
                 for results, bounds, source in evaluated)
    named = {name: results for name, (results, _, _) in zip(names, evaluated)}
    notes: list[str] = []
    preload.join()
    skipped: dict[str, str] = {}
    try:
        power = power_facts(named, facts.measures, qrels=judgments, min_diff=facts.min_diff,
                            alpha=facts.alpha, beta=facts.beta, skipped=skipped)
    except MissingDependencyError as error:
        power, notes = (), [f"queries needed: {error}"]
    left_out = unpowered_note(skipped)
    if left_out is not None:
        notes.append(left_out)
    comparison = None
    if len(named) >= 2 and all(r.n_queries >= 2 for r in named.values()):
        from rankwise.comparison import compare_results

        comparison = comparison_facts(compare_results(named, list(facts.measures), seed=seed))
    return dataclasses.replace(facts, runs=runs, power=power, comparison=comparison,
                               notes=tuple(notes))
