"""The numpy engine: everything in this process, vectorised over all queries."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from rankwise.engines.base import Capabilities, CommandLine

if TYPE_CHECKING:
    from rankwise.data import Qrels, Run
    from rankwise.engines.core import Coverage, Evaluator, RankingKey
    from rankwise.measures import Measure
    from rankwise.options import EvalOptions, Missing
    from rankwise.ranking.tied import TiedRanking
    from rankwise.results import Results

__all__ = ["NumpyEngine"]


class NumpyEngine:
    """Evaluate in this process: numpy over Arrow, and the optional C modules.

    Reads every input form: :class:`~rankwise.Qrels` / :class:`~rankwise.Run`
    objects, paths (TREC, Parquet, CSV, TSV, JSONL), pandas / polars / Arrow
    tables and dicts.

    Examples
    --------
    >>> from rankwise.options import EvalOptions
    >>> from rankwise.measures import parse_many
    >>> engine = NumpyEngine()
    >>> results = engine.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0, "b": 2.0}},
    ...                           parse_many("P@2"), EvalOptions())
    >>> results.mean
    {'P@2': 0.5}
    """

    name = "numpy"
    install = ""
    capabilities: ClassVar[Capabilities] = Capabilities(
        in_process=True, rankings=True, summary="this process (numpy, default)")

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any], command_line: CommandLine) -> NumpyEngine:
        """The engine for the command line: it has no settings of its own."""
        return cls()

    def available(self) -> bool:
        """Always: numpy and pyarrow are rankwise's own requirements."""
        return True

    def check(self, measures: Sequence[Measure], options: EvalOptions) -> None:
        """Every measure has a kernel under *options*."""
        from rankwise.engines.core import check_supported

        check_supported(measures, options)

    def evaluate(
        self,
        qrels: Any,
        run: Any,
        measures: Sequence[Measure],
        options: EvalOptions,
        *,
        name: str | None = None,
    ) -> Results:
        """Evaluate *run* against *qrels* (any input form, or objects already built)."""
        from rankwise.engines.core import evaluate_ranking

        self.check(measures, options)
        evaluator, coverage, run_name = self.evaluator(qrels, run, measures, options, name=name)
        return evaluate_ranking(
            evaluator.ranking,
            measures,
            options,
            run_name=run_name,
            coverage=coverage,
            rankings=evaluator.rankings,
            query_id_type=evaluator.query_id_type,
        )

    def evaluator(
        self,
        qrels: Any,
        run: Any,
        measures: Sequence[Measure],
        options: EvalOptions,
        *,
        name: str | None = None,
    ) -> tuple[Evaluator, Coverage, str]:
        """Rank *run* for *measures*.

        Returns the :class:`~rankwise.engines.core.Evaluator`, the coverage
        of the judged queries and the run's name. The run is ranked as
        trec_eval does; the rankings the measures of other dialects need
        (ties in input order, float32 scores, ...) are made when first
        asked for.
        """
        from rankwise._compiled import warn_if_pure
        from rankwise.engines.core import Coverage, Evaluator, ranking_missing
        from rankwise.exceptions import InputFormatError
        from rankwise.io._source import describe
        from rankwise.io.coerce import as_qrels, as_run, refuse_empty_dict
        from rankwise.ranking.rank import rank_all_ties

        qrels_obj = as_qrels(qrels, columns=options.columns)
        if not qrels_obj.n_queries:
            raise InputFormatError(
                f"{describe(qrels)}: the qrels hold no judgments: expected at least one judged "
                "document ({query_id: {doc_id: grade}}, or rows of query, document, grade); "
                "nothing can be evaluated without them"
            )
        missing = ranking_missing(measures, options)
        if isinstance(run, dict):
            refuse_empty_dict(run, "run")
        if isinstance(run, dict) and not (
            options.judged_only or options.exclude_self or options.by_rank
            or options.ties == "ascending"
        ):  # a run dict read and ranked in one pass, its documents never copied
            from rankwise.measures.catalog import group_of
            from rankwise.ranking.from_dict import rank_run_dict

            fused = rank_run_dict(
                qrels_obj, run, depth=options.depth, missing=missing,
                judgment_rows=any(group_of(m.name) == "diversity" for m in measures),
            )
            if fused is not None:
                return self._fused(qrels_obj, run, fused, missing, options, name)
        run_obj = as_run(run, name=name, keep_rank=options.by_rank, columns=options.columns)
        warn_if_pure(len(run_obj), stacklevel=2)  # a large run without the C modules: once
        if options.exclude_self:
            from rankwise.data.selection import without_self

            run_obj = without_self(run_obj)
        ranking = rank_all_ties(
            qrels_obj,
            run_obj,
            depth=options.depth,
            missing=missing,
            judged_only=options.judged_only,
            by_rank=options.by_rank,
            ascending=options.ties == "ascending",
        )

        def rankings(key: RankingKey) -> TiedRanking:
            tie_order, float32, drop_self = key
            return rank_all_ties(
                qrels_obj,
                run_obj,
                depth=options.depth,
                missing="zero" if drop_self else missing,
                judged_only=options.judged_only,
                tie_order=tie_order,
                float32=float32,
                drop_self=drop_self,
            )

        coverage = Coverage.between(qrels_obj.query_ids, run_obj.query_ids)
        evaluator = Evaluator(ranking, options, rankings)
        evaluator.query_id_type = qrels_obj.query_id_type
        return evaluator, coverage, run_obj.name

    @staticmethod
    def _fused(
        qrels_obj: Qrels,
        run: dict[Any, Any],
        fused: tuple[TiedRanking, int, int],
        missing: Missing,
        options: EvalOptions,
        name: str | None,
    ) -> tuple[Evaluator, Coverage, str]:
        """The evaluator of a run dict ranked in one pass (:func:`rank_run_dict`).

        The rankings of other dialects read the run itself: it is built from
        the dict when first asked for.
        """
        from rankwise.engines.core import Coverage, Evaluator
        from rankwise.io.coerce import as_run
        from rankwise.ranking.rank import rank_all_ties

        ranking, missing_queries, unjudged_queries = fused
        built: list[Run] = []

        def rankings(key: RankingKey) -> TiedRanking:
            tie_order, float32, drop_self = key
            if not built:
                built.append(as_run(run, name=name))
            return rank_all_ties(
                qrels_obj,
                built[0],
                depth=options.depth,
                missing="zero" if drop_self else missing,
                judged_only=options.judged_only,
                tie_order=tie_order,
                float32=float32,
                drop_self=drop_self,
            )

        evaluator = Evaluator(ranking, options, rankings)
        evaluator.query_id_type = qrels_obj.query_id_type
        coverage = Coverage(missing_queries, unjudged_queries)
        return evaluator, coverage, name or "run"
