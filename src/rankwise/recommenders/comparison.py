"""``compare_recommendations``: several recommenders, paired per user, as ``compare`` does runs.

Each model is evaluated once by :func:`rankwise.evaluate_recommendations`
(the same lists, exclusion, cut and measures); the per-user values of every
per-user measure (accuracy, novelty, ARP, APLT, EPC, ILD, serendipity) then
go through :func:`rankwise.comparison.compare_values`, the statistics of
:func:`rankwise.compare`: the same tests, corrections, intervals, effect
sizes and :class:`~rankwise.CompareOptions`. Whole-set measures (coverage,
Gini, entropy, PopREO, personalisation) have one value per model: they are
reported with their difference from the baseline, without a test.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from rankwise._tabular import Tabular, plain
from rankwise._wording import counted
from rankwise.exceptions import InvalidParameterError
from rankwise.options import CompareOptions, RecommenderOptions, split_options
from rankwise.recommenders.evaluation import RecommenderResults

if TYPE_CHECKING:
    from rankwise.comparison import Comparison
    from rankwise.report.tables import Table

__all__ = ["RecommenderComparison", "compare_recommendations", "report_recommendations"]

_WHOLE_SET_COLUMNS = ("measure", "system", "baseline", "n_queries", "mean", "delta")


class RecommenderComparison(Tabular):
    """Recommenders compared per user: tests per measure, whole-set measures, segments.

    Built by :func:`compare_recommendations`. Its :meth:`table` is one row
    per (segment,) measure and model: the long table of
    :class:`~rankwise.Comparison` (``n_queries`` counts users), then the
    whole-set measures (a value and its difference from the baseline, no
    test). Like every result it has ``to_dict``, ``to_pandas``,
    ``to_polars``, ``to_table``, shows as a table in a notebook and pickles.

    Attributes
    ----------
    comparison : Comparison
        The per-user measures over every evaluated user: means, intervals,
        paired tests, corrected p-values, effect sizes, wins/ties/losses.
    whole_set : dict
        ``{model: {measure: value}}`` of the whole-set measures.
    results : dict
        ``{model: RecommenderResults}``: each model's evaluation (per-user values).
    segments : dict
        ``{segment: Comparison}``: the per-user measures compared inside each
        segment (empty without ``segments=``).
    segment_whole_set : dict
        ``{segment: {model: {measure: value}}}``.
    segment_users : dict
        ``{segment: {model: users evaluated in the segment}}``.
    assumptions : list of str
        What the numbers rest on: seen items excluded or not, the catalogue,
        the users evaluated, the cut, the relevance, the segments.
    options : RecommenderOptions
        The evaluation's options (the statistics': ``comparison.options``).
    baseline : str or None
    models : tuple of str
    """

    def __init__(self, comparison: Comparison, whole_set: dict[str, dict[str, float]],
                 results: dict[str, RecommenderResults], *,
                 segments: dict[Any, Comparison] | None = None,
                 segment_whole_set: dict[Any, dict[str, dict[str, float]]] | None = None,
                 segment_users: dict[Any, dict[str, int]] | None = None,
                 assumptions: Iterable[str] = (),
                 options: RecommenderOptions | None = None) -> None:
        self.comparison = comparison
        self.whole_set = whole_set
        self.results = results
        self.segments = dict(segments or {})
        self.segment_whole_set = dict(segment_whole_set or {})
        self.segment_users = dict(segment_users or {})
        self.assumptions = list(assumptions)
        self.options = options if options is not None else RecommenderOptions()
        self.baseline = comparison.baseline
        self.models = tuple(results)

    @property
    def measures(self) -> tuple[str, ...]:
        """Every measure: the per-user ones (tested), then the whole-set ones."""
        first = next(iter(self.whole_set.values()), {})
        return tuple(self.comparison.measures) + tuple(first)

    @property
    def notes(self) -> list[str]:
        """The comparison's notes and the evaluations' (the default catalogue, ...)."""
        notes = list(self.comparison.notes)
        for result in self.results.values():
            notes.extend(result.notes)
        return list(dict.fromkeys(notes))

    def row(self, measure: str, model: str, segment: Any = None) -> Any:
        """The :class:`~rankwise.comparison.ComparisonRow` of a per-user measure and model.

        In *segment* when given. See :meth:`rankwise.Comparison.row`.
        """
        comparison = self.comparison if segment is None else self._segment(segment)
        return comparison.row(measure, model)

    def _segment(self, segment: Any) -> Comparison:
        if segment not in self.segments:
            raise KeyError(f"no segment {segment!r}; segments: {list(self.segments)}")
        return self.segments[segment]

    def table(self) -> Table:
        """One row per (segment,) measure and model: the tests, then the whole-set values."""
        from rankwise.report.comparison_tables import long_table
        from rankwise.report.tables import Table

        parts: list[tuple[Any, Comparison, dict[str, dict[str, float]]]] = [
            (None, self.comparison, self.whole_set)]
        parts += [(name, comparison, self.segment_whole_set.get(name, {}))
                  for name, comparison in self.segments.items()]
        head = long_table(self.comparison)
        header = list(head.header)
        kinds = list(head.kinds)
        if self.segments:
            header, kinds = ["segment", *header], ["text", *kinds]
        rows: list[list[Any]] = []
        for segment, comparison, whole in parts:
            lead = [("all" if segment is None else str(segment))] if self.segments else []
            rows.extend(lead + row for row in long_table(comparison).rows)
            users = ({name: len(r.users) for name, r in self.results.items()}
                     if segment is None else self.segment_users.get(segment, {}))
            rows.extend(lead + self._whole_row(header[len(lead):], measure, model, whole,
                                               users.get(model, 0))
                        for measure in next(iter(whole.values()), {})
                        for model in whole)
        return Table(header, kinds, rows)

    def _whole_row(self, header: Sequence[str], measure: str, model: str,
                   whole: dict[str, dict[str, float]], users: int) -> list[Any]:
        value = whole[model][measure]
        baseline = self.baseline
        compared = baseline is not None and model != baseline
        cells: dict[str, Any] = {
            "measure": measure, "system": model, "baseline": baseline if compared else None,
            "n_queries": users,
            "mean": None if math.isnan(value) else value,
            "delta": (value - whole[baseline][measure]) if baseline is not None and compared
            else None,
            "method": "whole set (no test)",
        }
        if cells["delta"] is not None and math.isnan(cells["delta"]):
            cells["delta"] = None
        return [cells.get(name) for name in header]

    def _caption(self) -> str:
        against = f", baseline {self.baseline!r}" if self.baseline is not None else ""
        return (f"RecommenderComparison({counted(len(self.models), 'model')}, "
                f"{counted(len(self.measures), 'measure')}{against}, "
                f"test={self.comparison.test!r})")

    def to_table(self, fmt: str = "table", *, long: bool = False, digits: int = 4,
                 marker: str | None = None) -> str:
        """The comparison as text: the tables of ``rankwise recs`` with several models.

        Parameters
        ----------
        fmt : {"table", "tsv", "csv", "json", "jsonl", "markdown", "latex"}
            ``table``, ``markdown`` and ``latex``: the wide table of the
            per-user measures (one row per model, a marker on significant
            differences, the legend), the whole-set measures, each segment's
            table, and the assumptions; with *long* the long tables instead
            of the wide ones. ``tsv``, ``csv`` and ``jsonl``: :meth:`table`'s
            rows; ``json``: :meth:`to_dict`.
        long : bool
            The long tables in the ``table``, ``markdown`` and ``latex`` formats.
        digits : int
            Decimals in the ``table``, ``markdown`` and ``latex`` formats.
        marker : str, optional
            Marks a significant difference from the baseline (default ``†``).

        Returns
        -------
        str
        """
        from rankwise.recommenders.comparison_text import render_recommender_comparison

        return render_recommender_comparison(self, fmt, long=long, digits=digits,
                                             marker=marker)

    def to_dict(self) -> dict[str, Any]:
        """The comparison, the whole-set values, the segments and the assumptions, as plain values.

        Examples
        --------
        >>> held_out = {"user": [1, 2, 3], "item": ["a", "b", "c"]}
        >>> models = {"x": {1: ["a"], 2: ["b"], 3: ["a"]}, "y": {1: ["b"], 2: ["b"], 3: ["c"]}}
        >>> d = compare_recommendations(held_out, models, "P@1", baseline="x", seed=0).to_dict()
        >>> d["comparison"]["rows"][1]["delta"], sorted(d)
        (0.0, ['assumptions', 'baseline', 'comparison', 'models', 'notes', 'segments', 'whole_set'])
        """
        return {
            "models": list(self.models),
            "baseline": self.baseline,
            "comparison": self.comparison.to_dict(),
            "whole_set": plain(self.whole_set),
            "segments": [
                {"segment": plain(name), "comparison": comparison.to_dict(),
                 "users": plain(self.segment_users.get(name, {})),
                 "whole_set": plain(self.segment_whole_set.get(name, {}))}
                for name, comparison in self.segments.items()
            ],
            "assumptions": list(self.assumptions),
            "notes": self.notes,
        }

    def to_html(self, path: str | None = None, *, title: str = "Recommender comparison",
                digits: int = 4, long_tail: Any = None, curves: Any = None) -> str:
        """A self-contained HTML page of the comparison (see :mod:`rankwise.recommenders.page`).

        The comparison table with its significance marks, the whole-set
        measures, accuracy against popularity, the per-user distribution of
        the main measure and the per-user differences from the baseline, the
        segments, the assumptions and the provenance; with *long_tail* (a
        :class:`~rankwise.recommenders.long_tail.LongTail`,
        :func:`report_recommendations` makes it) the long tail, with *curves*
        (a :class:`~rankwise.recommenders.at_k.MeasureCurves`) the measure@k
        curves. Written to
        *path* (atomically) when given; the page is returned either way.
        """
        from rankwise.recommenders.page import render_comparison_page

        page = render_comparison_page(self, title=title, digits=digits, long_tail=long_tail,
                                      curves=curves)
        if path is not None:
            from rankwise._files import write_file

            write_file(page, path)
        return page


def compare_recommendations(
    held_out: Any,
    models: Mapping[str, Any],
    measures: str | Iterable[str],
    *,
    baseline: str | None = None,
    exclude: Any = None,
    train: Any = None,
    catalogue: Any = None,
    features: Any = None,
    segments: Any = None,
    heavy: int | None = None,
    users: Any = None,
    columns: Mapping[str, str] | None = None,
    options: RecommenderOptions | CompareOptions
    | tuple[RecommenderOptions | CompareOptions, ...] | None = None,
    engine: Any = None,
    **keywords: Any,
) -> RecommenderComparison:
    """Compare recommenders user by user: paired tests, beyond accuracy, segments.

    Each model's lists are evaluated by :func:`rankwise.evaluate_recommendations`
    with the same held-out interactions, exclusion, catalogue and options;
    each per-user measure is then compared between models on the users
    evaluated for both, with the tests, corrections, intervals and effect
    sizes of :func:`rankwise.compare` (the same code and
    :class:`~rankwise.CompareOptions`).

    Parameters
    ----------
    held_out : table or dict of columns
        Held-out interactions (``user``, ``item``, optional ``rating``).
    models : dict
        ``{name: recommendations}``, each in a form
        :func:`~rankwise.evaluate_recommendations` takes (a table, ``{user:
        [item, ...]}``, a 2-D array with ``users=``). At least two.
    measures : str or list of str
        Accuracy measures aggregated by a mean (``ndcg@10``, ``recall@50``,
        ...) and beyond-accuracy ones (``novelty``, ``arp``, ``aplt``,
        ``epc``, ``ild``, ``serendipity`` are per user and tested;
        ``coverage``, ``gini``, ``entropy``, ``popreo``,
        ``personalisation`` are whole-set values, not tested).
    baseline : str, optional
        The model every other is compared with; also the lists ``serendipity``
        is measured against. Without it, every pair.
    exclude, train, catalogue, features, columns, users
        As in :func:`~rankwise.evaluate_recommendations`, for every model.
    segments : ``{user: segment}``, Series, table or ``"activity"``, optional
        Compare the models inside each segment too. ``"activity"``: new,
        light and heavy users by their number of training interactions
        (:func:`rankwise.recommenders.activity.activity_segments`; needs
        *train* or *exclude*).
    heavy : int, optional
        With ``segments="activity"``: the fewest training interactions of a
        heavy user (default: above the median).
    options : RecommenderOptions, CompareOptions, or a tuple of both
        The evaluation's options (``k``, ``missing``, ``rel``, ...) and the
        statistics (``test``, ``correction``, ``alpha``, ``ci``,
        ``n_resamples``, ``seed``, ``family``); keywords override them.
    engine : {"numpy", "spark"} or Engine, optional
        Where each model is evaluated; by default the engine of the inputs'
        frames (Spark DataFrames: ``spark``), else numpy. Either way the
        models share one default catalogue.
    **keywords
        Fields of :class:`~rankwise.RecommenderOptions` (``k``, ``missing``,
        ...) and of :class:`~rankwise.CompareOptions` (``test``, ``seed``, ...).

    Returns
    -------
    RecommenderComparison

    Raises
    ------
    InvalidParameterError
        Fewer than two models, an unknown baseline, a bad option.
    UnsupportedMeasureError
        An accuracy measure not aggregated by a mean (``gm_map``, ``num_rel``).

    Examples
    --------
    >>> import rankwise as rw
    >>> held_out = {"user": [1, 2, 3, 4, 5, 6], "item": ["a", "b", "c", "a", "b", "c"]}
    >>> pop = {u: ["a", "b", "c"] for u in range(1, 7)}
    >>> personal = {1: ["a", "b"], 2: ["b", "a"], 3: ["c", "a"], 4: ["a", "c"],
    ...             5: ["b", "c"], 6: ["a", "c"]}
    >>> result = rw.compare_recommendations(held_out, {"pop": pop, "personal": personal},
    ...                                     ["mrr", "coverage@1"], baseline="pop", test="t",
    ...                                     catalogue=["a", "b", "c"])
    >>> row = result.row("mrr", "personal")
    >>> round(row.mean, 4), round(row.baseline_mean, 4), round(row.p_value, 4)
    (0.9167, 0.6111, 0.0478)
    >>> result.whole_set
    {'pop': {'coverage@1': 0.3333333333333333}, 'personal': {'coverage@1': 1.0}}
    """
    from rankwise.recommenders.front import evaluate_recommendations

    recommender, statistics = _options(options, keywords)
    listed = [measures] if isinstance(measures, str) else list(measures)
    names = _check_models(models, baseline)
    _check_means(listed)
    history = train if train is not None else exclude
    activity = None
    if isinstance(segments, str) and segments == "activity":
        activity = _activity(held_out, history, heavy, columns)
        segments = activity.segments
    shared, size = catalogue, None
    if catalogue is None and _reads_catalogue(listed):  # one for every model, on any engine
        shared, size = _common_catalogue(engine, held_out, models, exclude, train, users,
                                         columns, recommender)
    results: dict[str, RecommenderResults] = {}
    for name in names:
        results[name] = _ids_once(evaluate_recommendations(
            held_out, models[name], listed, exclude=exclude, train=train, catalogue=shared,
            features=features, segments=segments, users=users, columns=columns,
            options=recommender, engine=engine,
            baseline=_serendipity_baseline(listed, models, baseline, name)), results)
    per_user = [m for m in results[names[0]].per_user]
    whole = {name: {m: float(v) for m, v in r.mean.items() if m not in r.per_user}
             for name, r in results.items()}
    comparison = _compare_users(results, per_user, statistics, baseline, None)
    by_segment: dict[Any, Comparison] = {}
    segment_whole: dict[Any, dict[str, dict[str, float]]] = {}
    segment_users: dict[Any, dict[str, int]] = {}
    if segments is not None:
        from rankwise.recommenders.evaluation import segment_labels

        labels = _labels_of(segment_labels(segments, columns), results)
        order = _segment_order(labels, activity is not None)
        for segment in order:
            by_segment[segment] = _compare_users(results, per_user, statistics, baseline,
                                                 (labels, segment))
            segment_whole[segment] = {
                name: {m: float(r.segments.mean.get(segment, {}).get(m, math.nan))
                       for m in whole[name]} if r.segments is not None else {}
                for name, r in results.items()}
            segment_users[segment] = {name: int(np.count_nonzero(labels[name] == segment))
                                      for name in results}
    assumptions = _assumptions(results, recommender, exclude=exclude, train=train,
                               catalogue=_catalogue_said(catalogue, size, listed),
                               baseline=baseline, measures=listed, activity=activity)
    return RecommenderComparison(comparison, whole, results, segments=by_segment,
                                 segment_whole_set=segment_whole, segment_users=segment_users,
                                 assumptions=assumptions, options=recommender)


def _options(options: Any, keywords: dict[str, Any]
             ) -> tuple[RecommenderOptions, CompareOptions]:
    """The two kinds of options, from ``options=`` and the keywords (which override it)."""
    from dataclasses import fields

    from rankwise.options import merged
    from rankwise.stats.seeding import normalise_seed

    recommender, statistics = split_options(options, RecommenderOptions, CompareOptions)
    own = {f.name for f in fields(RecommenderOptions)}
    stats = {f.name for f in fields(CompareOptions)}
    unknown = sorted(set(keywords) - own - stats)
    if unknown:
        from rankwise.suggest import did_you_mean

        known = sorted(own | stats)
        raise TypeError(f"compare_recommendations got an unexpected keyword {unknown[0]!r}; "
                        f"options are {', '.join(known)}{did_you_mean(unknown[0], known)}")
    chosen = merged(RecommenderOptions, recommender,
                    **{k: v for k, v in keywords.items() if k in own})
    settings = merged(CompareOptions, statistics,
                      **{k: v for k, v in keywords.items() if k in stats})
    # one seed for the whole result: the groups and segments are compared with it
    return chosen, settings.replace(seed=normalise_seed(settings.seed))


def _ids_once(result: RecommenderResults, results: dict[str, RecommenderResults]
             ) -> RecommenderResults:
    """*result* holding the first model's list of user ids when its own is equal to it.

    Every model usually evaluates the same users: one list of their ids
    (and of the accuracy results' query ids) for all, not one per model
    (a million users: ~40 and ~60 MB a model).
    """
    first = next(iter(results.values()), None)
    if first is None:
        return result
    if result.users == first.users:
        result.users = first.users
    if result.accuracy is not None and first.accuracy is not None and \
            result.accuracy.query_ids == first.accuracy.query_ids:
        result.accuracy.query_ids = first.accuracy.query_ids
    return result


def _check_models(models: Any, baseline: str | None) -> list[str]:
    if not isinstance(models, Mapping):
        raise InvalidParameterError(
            f"models must be a dict {{name: recommendations}}, got {type(models).__name__}")
    names = list(models)
    for name in names:
        if not isinstance(name, str) or not name:
            raise InvalidParameterError(
                f"models: a model name must be a non-empty str, got {name!r} "
                f"({type(name).__name__})")
    if len(names) < 2:
        raise InvalidParameterError(
            f"compare_recommendations needs at least two models, got {len(names)}")
    if baseline is not None and baseline not in names:
        from rankwise.suggest import did_you_mean

        raise InvalidParameterError(
            f"baseline {baseline!r} is not one of the models {names}; give one of their names"
            + did_you_mean(str(baseline), names))
    return names


def _check_means(measures: list[Any]) -> None:
    """Refuse accuracy measures not aggregated by a mean, as ``compare`` does."""
    from rankwise.comparison import _check_comparable
    from rankwise.measures import parse
    from rankwise.recommenders.evaluation import parse_beyond

    if not measures:
        raise InvalidParameterError("measures is empty; give at least one, e.g. ['ndcg@10']")
    accuracy = [m for m in measures if not (isinstance(m, str) and parse_beyond(m))]
    if accuracy:
        _check_comparable([parse(m) for m in accuracy])


def _reads_catalogue(measures: list[Any]) -> bool:
    """Whether a measure reads the catalogue (coverage and Gini)."""
    from rankwise.recommenders.evaluation import parse_beyond

    return any(isinstance(m, str) and (p := parse_beyond(m)) is not None
               and p.name in ("coverage", "gini") for m in measures)


def _common_catalogue(engine: Any, held_out: Any, models: Mapping[str, Any], exclude: Any,
                      train: Any, users: Any, columns: Mapping[str, str] | None,
                      options: RecommenderOptions) -> tuple[Any, int]:
    """Every item of the held-out, training and every model's tables: one catalogue for all.

    Each model evaluated alone would count the items of its own lists: the
    coverage and Gini of two models would then divide by different numbers.
    An engine with the recommender capability (Spark) counts them on its
    frames (its pass's ``catalogue``); else they are read here. Returns the
    catalogue, as ``catalogue=`` takes it, and its size.
    """
    from rankwise.engines import engine_for
    from rankwise.recommenders.front import recommender_pass
    from rankwise.recommenders.inputs import Interactions, Lists, Vocabulary

    history = train if train is not None else exclude
    backend, _ = engine_for(engine, held_out, exclude, train, *models.values())
    capability = recommender_pass(backend)
    if capability is not None:
        return capability.catalogue(held_out, models, history, users=users, columns=columns)

    user_vocab, item_vocab = Vocabulary("user"), Vocabulary("item")
    for what, table in (("test", held_out), ("train", history)):
        if table is not None:
            Interactions.read(table, user_vocab, item_vocab, columns=columns, what=what,
                              rating=False)
    for recs in models.values():
        Lists.read(recs, user_vocab, item_vocab, columns=columns, user_index=users,
                   duplicates=options.duplicates)
    import pyarrow as pa

    # a column of ids, as catalogue= takes
    return pa.chunked_array([item_vocab.labels()]), len(item_vocab)


def _activity(held_out: Any, history: Any, heavy: int | None,
              columns: Mapping[str, str] | None) -> Any:
    from rankwise.recommenders.activity import activity_segments

    if history is None:
        raise InvalidParameterError(
            "segments='activity' counts each user's training interactions: give train= "
            "(or exclude=)")
    if held_out is None:
        raise InvalidParameterError("segments='activity' segments the held-out users: give "
                                    "held_out=")
    return activity_segments(history, held_out, heavy=heavy, columns=columns)


def _serendipity_baseline(measures: list[Any], models: Mapping[str, Any],
                          baseline: str | None, name: str) -> Any:
    """The baseline model's lists, for ``serendipity`` (rankwise's: against a baseline)."""
    from rankwise.recommenders.evaluation import parse_beyond

    wanted = any(isinstance(m, str) and (p := parse_beyond(m)) is not None
                 and p.name == "serendipity" and p.param("dialect") != "recommenders"
                 for m in measures)
    if not wanted:
        return None
    if baseline is None:
        raise InvalidParameterError(
            "serendipity counts the relevant items the baseline's lists lack: give baseline=")
    return models[baseline]


def _labels_of(found: tuple[Any, list[Any]], results: dict[str, RecommenderResults]
               ) -> dict[str, np.ndarray]:
    """Each model's users' segment labels (None: in no segment), aligned with its users."""
    import pyarrow as pa
    import pyarrow.compute as pc

    ids, labels = found
    ids = pa.array(ids) if isinstance(ids, list) else ids
    values = np.asarray(labels, dtype=object)
    out = {}
    for name, result in results.items():
        users = pa.array(result.users)
        if len(users) and len(ids) and users.type != ids.type:
            raise InvalidParameterError(
                f"segments: the users are {users.type} and the segments' users {ids.type}: "
                "give the ids in one type")
        position = np.asarray(pc.index_in(users, value_set=ids).fill_null(-1), dtype=np.int64)
        labelled = values[np.maximum(position, 0)]
        labelled[position < 0] = None
        out[name] = labelled
    return out


def _segment_order(labels: dict[str, np.ndarray], activity: bool) -> list[Any]:
    from rankwise.recommenders.activity import ACTIVITY

    present = {x for values in labels.values() for x in set(values.tolist())} - {None}
    if activity:
        return [name for name in ACTIVITY if name in present]
    return sorted(present, key=lambda x: (str(type(x)), x))


def _compare_users(results: dict[str, RecommenderResults], measures: list[str],
                   options: CompareOptions, baseline: str | None,
                   segment: tuple[dict[str, np.ndarray], Any] | None) -> Comparison:
    """The per-user measures compared, all users or one segment's.

    A measure that leaves some users out (NaN: ILD of a list shorter than
    2) is compared on its own, on the users it has a value for; with
    ``family="all"`` the correction is then applied again over every row.
    """
    from rankwise.comparison import Comparison, compare_values

    data: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name, result in results.items():
        users = np.asarray(result.users)
        values = (np.column_stack([result.per_user[m] for m in measures]) if measures
                  else np.empty((len(users), 0)))
        if segment is not None:
            keep = segment[0][name] == segment[1]
            users, values = users[keep], values[keep]
        data[name] = (users, values)
    whole = [j for j in range(len(measures))
             if all(np.isfinite(values[:, j]).all() for _, values in data.values())]
    groups = [whole] if whole else []
    groups += [[j] for j in range(len(measures)) if j not in whole]
    parts = []
    for group in groups:
        kept_data = {}
        for name, (users, values) in data.items():
            kept = np.isfinite(values[:, group]).all(axis=1)
            kept_data[name] = (users[kept], values[kept][:, group])
        parts.append(compare_values(kept_data, [measures[j] for j in group], options,
                                    baseline=baseline, unit="user"))
    if not parts:
        parts.append(compare_values({n: (u, v) for n, (u, v) in data.items()}, [], options,
                                    baseline=baseline, unit="user"))
    by_measure: dict[str, list[Any]] = {}
    for part in parts:
        for row in part.rows:
            by_measure.setdefault(row.measure, []).append(row)
    rows = [row for m in measures for row in by_measure.get(m, [])]
    if len(parts) > 1 and options.family == "all":
        rows = _recorrect(rows, options)
    first = parts[0]
    return Comparison(rows, measures=measures, systems=first.systems, baseline=first.baseline,
                      test=first.test, correction=first.correction, family=first.family,
                      alpha=first.alpha, ci=first.ci, n_resamples=first.n_resamples,
                      seed=first.seed,
                      notes=list(dict.fromkeys(n for part in parts for n in part.notes)),
                      tukey={k: v for part in parts for k, v in part.tukey.items()},
                      unit="user",
                      system_means={k: v for part in parts for k, v in part.system_means.items()})


def _recorrect(rows: list[Any], options: CompareOptions) -> list[Any]:
    """The correction over all rows at once (``family="all"`` across separately tested groups)."""
    from rankwise.stats import adjust_pvalues

    tested = [i for i, row in enumerate(rows) if row.baseline is not None]
    adjusted = adjust_pvalues(np.array([rows[i].p_value for i in tested], dtype=np.float64),
                              options.applied_correction)
    out = list(rows)
    for i, value in zip(tested, adjusted):
        out[i] = replace(rows[i], p_adjusted=float(value),
                         significant=bool(not math.isnan(value) and value <= options.alpha))
    return out


def _catalogue_said(catalogue: Any, size: int | None, measures: list[Any]) -> str:
    """The catalogue in words: given, or one default of *size* items for every model."""
    if catalogue is not None:
        if isinstance(catalogue, (int, np.integer)):
            return f"catalogue: {counted(int(catalogue), 'item')} (given)"
        return "catalogue: the items given"
    if not _reads_catalogue(measures) or size is None:
        return "catalogue: not given (no measure reads it)"
    return (f"catalogue: not given; coverage and Gini count the "
            f"{counted(size, 'item')} of the training and test tables and of every "
            "model's lists (the same for every model); "
            "give the catalogue to count the items in none of them")


def _assumptions(results: dict[str, RecommenderResults], options: RecommenderOptions, *,
                 exclude: Any, train: Any, catalogue: str, baseline: str | None,
                 measures: list[Any], activity: Any) -> list[str]:
    """What the numbers rest on, in words (issue 37, item 4): printed and in the report."""
    said = []
    said.append("items seen in training: removed from each list before the cut (the "
                "excluded interactions)" if exclude is not None else
                "items seen in training: kept in the lists (nothing excluded)")
    said.append(f"lists cut at k = {options.k} after the exclusion" if options.k is not None
                else "lists used whole (no cut at k)")
    said.append(catalogue)
    said.append("popularity (novelty, ARP, APLT): "
                + ("the training interactions" if train is not None else
                   "the excluded interactions" if exclude is not None else
                   "none given (no training interactions)"))
    said.append("relevant: every held-out interaction (grade 1)" if options.relevance is None
                else f"relevant: a grade of at least {options.rel:g} in column "
                     f"{options.relevance!r}")
    users = {name: len(r.users) for name, r in results.items()}
    counts = ", ".join(f"{name} {n}" for name, n in users.items())
    said.append(
        ("held-out users without a list: scored 0 (missing='zero'); users evaluated: "
         if options.missing == "zero" else
         "held-out users without a list: skipped (missing='skip'), so each pair is compared "
         "on the users both models evaluated; users evaluated: ") + counts
        + "; users without held-out interactions are not evaluated")
    if baseline is not None and any(isinstance(m, str) and m.startswith("serendipity")
                                    for m in measures):
        said.append(f"serendipity: against the lists of the baseline, {baseline!r}")
    if activity is not None:
        said.append(activity.describe())
    return said


def report_recommendations(held_out: Any, models: Mapping[str, Any],
                           measures: str | Iterable[str], path: str | None = None, *,
                           title: str = "Recommender comparison", digits: int = 4,
                           **arguments: Any) -> str:
    """Compare the models and write the report: :func:`compare_recommendations`, then a page.

    The page has the long tail when training interactions are given
    (``train=`` or ``exclude=``), and the measure@k curves of the accuracy
    measures (``ndcg``, ``recall``, ``P``, ``map``, ``mrr``, ``hit``).

    Parameters
    ----------
    held_out, models, measures
        As in :func:`compare_recommendations`.
    path : str, optional
        Where to write the page (atomically).
    title : str
        The page's title.
    digits : int
        Decimals of the tables.
    **arguments
        The other arguments of :func:`compare_recommendations`.

    Returns
    -------
    str
        The page.

    Examples
    --------
    >>> held_out = {"user": [1, 2, 3], "item": ["a", "b", "c"]}
    >>> train = {"user": [1, 2, 2], "item": ["c", "a", "c"]}
    >>> models = {"x": {1: ["a", "c"], 2: ["a", "b"], 3: ["c"]}, "y": {1: ["b"], 2: ["b"],
    ...           3: ["a", "c"]}}
    >>> page = report_recommendations(held_out, models, ["P@1", "arp"], baseline="x",
    ...                               exclude=train, seed=0)
    >>> 'id="long-tail"' in page and 'id="bias"' in page and 'id="curves"' in page
    True
    """
    from rankwise.recommenders.page_data import keeping, page_figures

    with keeping() as kept:  # each evaluation keeps what the figures need of its lists
        result = compare_recommendations(held_out, models, measures, **arguments)
    tail, curves = page_figures(result, held_out, models, train=arguments.get("train"),
                                exclude=arguments.get("exclude"),
                                columns=arguments.get("columns"),
                                users=arguments.get("users"), kept=kept)
    return result.to_html(path, title=title, digits=digits, long_tail=tail, curves=curves)
