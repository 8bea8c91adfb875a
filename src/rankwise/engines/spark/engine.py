"""The Spark engine: its settings, its inputs, then the plan (:mod:`.strategies`) and its run.

:class:`SparkEngine` is the one way to Spark: ``rankwise.evaluate(...,
engine="spark")``, a Spark DataFrame given to any front door, ``--engine
spark`` on the command line, and :func:`rankwise.spark.evaluate` (the same
call, its per-query values left in a DataFrame: ``collect=False``).
Importing this module imports neither pyspark nor numpy: the command line
reads the engine's :attr:`~SparkEngine.capabilities` to build its options.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, ClassVar, cast

from rankwise._validation import BOOLEAN, POSITIVE_INT, Integer, OneOf, Text, check, optional
from rankwise.engines.base import Capabilities, CommandLine, Setting
from rankwise.engines.spark._session import LOG_LEVELS
from rankwise.exceptions import InputFormatError, InvalidParameterError

if TYPE_CHECKING:
    from rankwise.engines.spark.strategies import SparkInputs
    from rankwise.measures import Measure
    from rankwise.options import EvalOptions
    from rankwise.results import Results

__all__ = ["STRATEGIES", "SparkEngine", "log_level_for"]

STRATEGIES = ("auto", "jvm", "ranks", "partitions")
"""How the Spark engine computes, the default first (``docs/spark.md``)."""

_COLUMN = Text(words="a column name (a non-empty str)")
_FORMATS = ("auto", "parquet", "trec")

SETTINGS = (
    Setting("master", "--spark-master", metavar="MASTER",
            help="Spark master for --engine spark, e.g. local[2], yarn or spark://host:7077 "
                 "(default: Spark's own)"),
    Setting("config", "--spark-conf", metavar="KEY=VALUE", repeated=True,
            help="a Spark setting for --engine spark, e.g. spark.executor.memory=8g "
                 "(repeatable)"),
    Setting("strategy", "--spark-strategy", choices=STRATEGIES,
            help="how Spark computes (default auto: chosen by cost; see docs/spark.md)"),
    Setting("num_partitions", "--spark-partitions", metavar="N", read=Integer(low=1, text=True),
            help="partitions of the shuffle by query (strategy partitions; default: one per "
                 "2M rows of run and judgments)"),
)
"""What ``--engine spark`` takes on the command line."""


def log_level_for(command_line: CommandLine, config: dict[str, str]) -> str | None:
    """The console log level of the Spark session a command starts (None: Spark's own).

    ``--debug``: Spark's own settings; ``--quiet``: errors only; a level set
    with ``--spark-conf spark.log.level=LEVEL``: that one; else warnings when
    standard error is a terminal, and errors only when it is not (a log file
    or a pipe gets no warnings and no progress bars). A level of the user's,
    when standard error is not a terminal, turns the progress bars off in
    *config* unless the user set ``spark.ui.showConsoleProgress``.

    Examples
    --------
    >>> log_level_for(CommandLine(terminal=True), {}), log_level_for(CommandLine(), {})
    ('warn', 'error')
    >>> config = {"spark.log.level": "INFO"}
    >>> log_level_for(CommandLine(), config), config["spark.ui.showConsoleProgress"]
    ('info', 'false')
    >>> log_level_for(CommandLine(debug=True), {}) is None
    True
    """
    if command_line.debug:
        return None
    if command_line.quiet:
        return "error"
    given = config.get("spark.log.level")
    if given is not None:
        if not command_line.terminal:
            config.setdefault("spark.ui.showConsoleProgress", "false")
        return given.lower() if given.lower() in LOG_LEVELS else None
    return "warn" if command_line.terminal else "error"


class SparkEngine:
    """The Spark engine as an :class:`~rankwise.engines.base.Engine`.

    Takes Spark DataFrames or paths (Parquet or TREC text, local,
    ``s3a://``, ``hdfs://``) and returns :class:`~rankwise.Results` (the
    per-query values collected to the driver), or with ``collect=False`` a
    :class:`~rankwise.spark.SparkResults` (the per-query values a DataFrame).

    Parameters
    ----------
    master : str, optional
        Spark master of a session it starts (``local[2]``, ``yarn``, ...).
    strategy : {"auto", "jvm", "ranks", "partitions"}
        How ties and judgments are joined (see :func:`rankwise.spark.evaluate`).
    config : dict, optional
        Extra Spark settings of the session (``--spark-conf``).
    num_partitions : int, optional
        Partitions of the ``partitions`` strategy (``--spark-partitions``).
    log_level : {"error", "warn", "info", "debug"}, optional
        Console log level of a session it starts (``rankwise --quiet``:
        ``error``); None keeps Spark's own settings.
    qrels_format : str, optional
        ``"diversity"``: a judgments file in TREC text holds subtopics.
    fmt : {"auto", "parquet", "trec"}
        The format of files given by path (``auto``: by the suffix).
    query, doc, score, label, subtopic : str
        The DataFrames' column names (see :func:`rankwise.spark.evaluate`).
    chunk_rows : int
        Rows handed to the numpy engine at a time on an executor (``partitions``).
    check_duplicates : bool
        Refuse a document listed twice for one query (see :func:`rankwise.spark.evaluate`).
    collect : bool
        Return :class:`~rankwise.Results` (True) or the lazy
        :class:`~rankwise.spark.SparkResults`.
    """

    name = "spark"
    install = "pyspark and Java 17 or later: pip install 'rankwise[spark]'"
    capabilities: ClassVar[Capabilities] = Capabilities(
        in_process=False, frames=("pyspark",), strategies=STRATEGIES, settings=SETTINGS,
        recommenders="rankwise.recommenders.spark:SPARK_PASS", title="Spark",
        summary="Spark (Parquet or TREC paths, local, s3a:// or hdfs://; needs pip install "
                "'rankwise[spark]')",
    )

    def __init__(
        self,
        master: str | None = None,
        strategy: str = "auto",
        *,
        config: dict[str, str] | None = None,
        num_partitions: int | None = None,
        log_level: str | None = None,
        qrels_format: str | None = None,
        fmt: str = "auto",
        query: str = "query_id",
        doc: str = "doc_id",
        score: str = "score",
        label: str = "relevance",
        subtopic: str | None = None,
        chunk_rows: int = 500_000,
        check_duplicates: bool = True,
        collect: bool = True,
    ) -> None:
        self.master = master
        self.strategy = check("strategy", strategy, OneOf(STRATEGIES))
        self.config = dict(config or {})
        self.num_partitions = check("num_partitions", num_partitions, optional(POSITIVE_INT))
        self.log_level = log_level
        self.qrels_format = qrels_format
        self.fmt = check("format", fmt, OneOf(_FORMATS))
        self.chunk_rows = check("chunk_rows", chunk_rows, POSITIVE_INT)
        self.query = check("query", query, _COLUMN)
        self.doc, self.score, self.label, self.subtopic = doc, score, label, subtopic
        self.check_duplicates = check("check_duplicates", check_duplicates, BOOLEAN)
        self.collect = collect

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any], command_line: CommandLine) -> SparkEngine:
        """The engine ``--engine spark`` sets up: the session's master, settings and log level."""
        given = dict(settings)
        config = dict(given.pop("config", None) or ())
        level = log_level_for(command_line, config)
        return cls(config=config, log_level=level, qrels_format=command_line.qrels_format,
                   **given)

    def available(self) -> bool:
        """Whether pyspark is installed (Java is checked when a session starts)."""
        import importlib.util

        return importlib.util.find_spec("pyspark") is not None

    def check(self, measures: Sequence[Measure], options: EvalOptions) -> None:
        """Every measure has a kernel under *options*; ``ties="rank"`` is not supported."""
        from rankwise.engines.core import check_supported

        if options.ties == "rank":
            raise InvalidParameterError(
                "ties='rank' (the run's rank column) is not supported by the Spark engine; "
                "use trec, average, worst or best, or the numpy engine"
            )
        if options.columns:
            raise InvalidParameterError(
                "columns= (a column map) is not supported by the Spark engine; rename the "
                "DataFrame's columns (query_id, doc_id, score, relevance: "
                "DataFrame.withColumnRenamed) or use the numpy engine"
            )
        if options.bounds and self.strategy == "partitions":
            raise InvalidParameterError(
                "unjudged='bounds' needs strategy='ranks' (or 'auto'): the bounds are computed "
                "on the driver"
            )
        check_supported(measures, options)
        from rankwise.engines.spark.plan import refused

        reason = refused(measures, "auto")
        if reason is not None:
            from rankwise.exceptions import UnsupportedMeasureError

            raise UnsupportedMeasureError(reason)

    def evaluate(
        self,
        qrels: Any,
        run: Any,
        measures: Sequence[Measure],
        options: EvalOptions,
        *,
        name: str | None = None,
    ) -> Results:
        """Evaluate DataFrames or paths on Spark: the inputs, the plan, its run.

        Returns :class:`~rankwise.Results` (collected), or with ``collect=False``
        the :class:`~rankwise.spark.SparkResults` whose per-query values stay a
        DataFrame.
        """
        from rankwise.engines.spark._errors import rankwise_errors
        from rankwise.engines.spark._session import require_pyspark
        from rankwise.engines.spark.strategies import choose
        from rankwise.engines.spark.strategies import run as run_plan

        require_pyspark()
        self.check(measures, options)
        with self._inputs(qrels, run, options) as (inputs, run_name):
            with rankwise_errors():
                plan = choose(inputs, list(measures), options, strategy=self.strategy,
                              check_duplicates=self.check_duplicates)
                results = run_plan(plan, inputs, list(measures), options,
                                   num_partitions=self.num_partitions, chunk_rows=self.chunk_rows)
            if not self.collect:  # the per-query values stay a DataFrame (rankwise.spark)
                results.run_name = name or run_name or "run_df"
                return cast("Results", results)
            local = results.to_results(run_name=name or run_name or "run")
        results.unpersist()
        local.plan = results.plan
        return local

    @contextmanager
    def _inputs(self, qrels: Any, run: Any, options: EvalOptions
                ) -> Iterator[tuple[SparkInputs, str | None]]:
        """The inputs projected to the engine's columns (paths read), released at the end."""
        from rankwise.engines.spark._frames import (
            project_one_table,
            project_qrels,
            project_run,
            subtopic_column,
        )
        from rankwise.engines.spark.strategies import SparkInputs

        inputs = SparkInputs(run, None, query=self.query)
        names = dict(query=self.query, doc=self.doc, score=self.score, label=self.label)
        run_name = None
        if isinstance(qrels, (str, os.PathLike)) or isinstance(run, (str, os.PathLike)):
            qrels, run, run_name = self._read_paths(qrels, run, inputs)
            names = dict(query="query_id", doc="doc_id", score="score", label="relevance")
        elif _in_old_order(qrels, run, score=self.score, label=self.label):
            import warnings

            warnings.warn(
                "rankwise.spark.evaluate(run_df, qrels_df, ...) is deprecated: pass the "
                "judgments first, evaluate(qrels_df, run_df, ...), as rankwise.evaluate does",
                DeprecationWarning,
                stacklevel=5,
            )
            qrels, run = run, qrels
        try:
            if qrels is run and not options.exclude_self:  # one table: read and shuffled once
                inputs.run = project_one_table(run, **names)
            else:
                inputs.run = project_run(run, query=names["query"], doc=names["doc"],
                                         score=names["score"])
                if options.exclude_self:  # as numpy: the run only, the judgments as given
                    inputs.run = inputs.run.where(inputs.run["q"] != inputs.run["d"])
                topic = subtopic_column(qrels, self.subtopic) if qrels is not run else (
                    self.subtopic)
                inputs.qrels = project_qrels(qrels, query=names["query"], doc=names["doc"],
                                             label=names["label"], subtopic=topic)
            yield inputs, run_name
        finally:
            inputs.release()

    def _read_paths(self, qrels: Any, run: Any, inputs: SparkInputs) -> tuple[Any, Any, str | None]:
        """The files given by path read as DataFrames (the judgments cached when text)."""
        from rankwise.engines.spark._session import get_session
        from rankwise.engines.spark.paths import cache_text, file_format, read_qrels, read_run

        spark = get_session(self.master, config=self.config, log_level=self.log_level)
        run_name = None
        if isinstance(qrels, (str, os.PathLike)):
            path = os.fspath(qrels)
            qrels = _read_path(read_qrels, spark, path, fmt=self.fmt,
                               subtopics=self.qrels_format == "diversity")
            cached = cache_text(qrels, path, self.fmt)
            if cached is not None:
                inputs.held.append(cached)
                qrels = cached
        if isinstance(run, (str, os.PathLike)):
            path = os.fspath(run)
            run_name = _run_name_of_path(path)
            run = _read_path(read_run, spark, path, fmt=self.fmt)
            inputs.from_text = file_format(path, self.fmt) == "trec"
        return qrels, run, run_name


def _columns_of(frame: Any) -> list[str]:
    try:
        return list(frame.columns)
    except Exception:  # not a DataFrame: the projection says what is wrong
        return []


def _in_old_order(first: Any, second: Any, *, score: str, label: str) -> bool:
    """Whether the run came first (the order before 0.2), as the columns tell."""
    if first is second:
        return False
    a, b = _columns_of(first), _columns_of(second)
    return score in a and label not in a and label in b and score not in b


def _read_path(read: Any, spark: Any, path: str, **options: Any) -> Any:
    """``read(spark, path)``, with Spark's "path does not exist" said as rankwise says it."""
    from pyspark.errors import AnalysisException

    try:
        return read(spark, path, **options)
    except AnalysisException as error:
        if "PATH_NOT_FOUND" not in str(error):
            raise
        raise InputFormatError("no such file (as Spark sees it)", path) from None


def _run_name_of_path(path: str) -> str:
    """A run file's name as the numpy engine gives it: a local TREC file's run id, else its stem."""
    from rankwise.io.coerce import file_stem
    from rankwise.io.tables import table_format

    if table_format(path) is None and os.path.isfile(path) and not path.endswith(".parquet"):
        from rankwise.io._source import FileView
        from rankwise.io.trec import _last_run_id

        run_id = _last_run_id(FileView(path))
        if run_id:
            return run_id
    return file_stem(path)
