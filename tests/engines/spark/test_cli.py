"""``rankwise eval --engine spark`` prints what the numpy engine prints."""

from __future__ import annotations

from pathlib import Path

import pytest

from rankwise.cli import main
from rankwise.exceptions import InvalidParameterError

DATA = Path(__file__).parents[2] / "data" / "trec_eval"

pytestmark = pytest.mark.spark


def test_spark_engine_gives_the_numpy_table(spark, capsys) -> None:
    master = spark.sparkContext.master
    args = ["eval", str(DATA / "qrels.test"), str(DATA / "results.test"),
            "-m", "ndcg@10", "map", "mrr", "P@5", "recall@100", "bpref", "-f", "tsv",
            "--per-query", "--quiet"]
    assert main(args) == 0
    numpy_out = capsys.readouterr().out
    assert main([*args, "--engine", "spark", "--spark-master", master]) == 0
    spark_out = capsys.readouterr().out
    assert spark_out == numpy_out


def test_spark_engine_refuses_what_it_cannot_read(spark, capsys) -> None:
    args = ["eval", str(DATA / "qrels.test"), "-", "-m", "map", "--engine", "spark"]
    assert main(args) != 0
    assert "standard input" in capsys.readouterr().err


def _eval_args(*extra: str) -> list[str]:
    return ["eval", str(DATA / "qrels.test"), str(DATA / "results.test"),
            "-m", "ndcg@10", "map", "P@5", "-f", "tsv", "--per-query", "--quiet", *extra]


def test_spark_strategy_partitions_and_conf_from_the_command_line(spark, capsys, monkeypatch):
    from rankwise.engines.spark import SparkEngine

    plans = []
    evaluate = SparkEngine.evaluate

    def spy(*args, **kwargs):
        results = evaluate(*args, **kwargs)
        plans.append(results.plan)
        return results

    monkeypatch.setattr(SparkEngine, "evaluate", spy)
    assert main(_eval_args()) == 0
    numpy_out = capsys.readouterr().out
    key = "spark.sql.adaptive.coalescePartitions.minPartitionSize"
    before = spark.conf.get(key)
    try:
        args = _eval_args("--engine", "spark", "--spark-master", spark.sparkContext.master,
                          "--spark-strategy", "partitions", "--spark-partitions", "3",
                          "--spark-conf", f"{key}=2MB")
        assert main(args) == 0
        assert capsys.readouterr().out == numpy_out
        assert spark.conf.get(key) == "2MB"  # --spark-conf reached the session
    finally:
        spark.conf.set(key, before)
    assert len(plans) == 1
    assert plans[0].startswith("partitions") and plans[0].endswith("; 3 partitions")


def test_spark_strategy_ranks_from_the_command_line(spark, capsys):
    assert main(_eval_args()) == 0
    numpy_out = capsys.readouterr().out
    args = _eval_args("--engine", "spark", "--spark-master", spark.sparkContext.master,
                      "--spark-strategy", "ranks")
    assert main(args) == 0
    assert capsys.readouterr().out == numpy_out


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--spark-conf", "spark.executor.memory=8g"], "--spark-conf only apply"),
        (["--spark-partitions", "8"], "--spark-partitions only apply"),
        (["--spark-strategy", "ranks"], "--spark-strategy only apply"),
        (["--spark-master", "local[1]", "--spark-partitions", "2"],
         "--spark-master, --spark-partitions only apply to the Spark engine: add --engine spark"),
    ],
)
def test_spark_options_without_the_spark_engine_are_refused(capsys, extra, said):
    assert main(_eval_args(*extra)) != 0
    assert said in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--spark-conf", "spark.executor.memory"], "expected KEY=VALUE"),
        (["--spark-partitions", "0"], "--spark-partitions"),
        (["--spark-strategy", "window"], "invalid choice"),
    ],
)
def test_bad_spark_options_are_usage_errors(capsys, extra, said):
    assert main(_eval_args("--engine", "spark", *extra)) == 2
    assert said in capsys.readouterr().err


def test_quiet_silences_sparks_console_log() -> None:
    """Issue 13, item 18: --quiet with --engine spark prints the result and nothing of Spark's.

    A fresh process: the log configuration is given to the driver JVM it starts, and
    the Java launcher's own "WARNING: Using incubator modules" line (printed before
    any logging starts) is filtered from the JVM's standard error.
    """
    import os
    import subprocess
    import sys

    pytest.importorskip("pyspark")
    from rankwise.engines.spark import find_java
    from rankwise.exceptions import MissingDependencyError

    try:
        find_java()
    except MissingDependencyError as error:
        pytest.skip(str(error))
    src = Path(__file__).parents[3] / "src"
    done = subprocess.run(
        [sys.executable, "-m", "rankwise", "eval", str(DATA / "qrels.test"),
         str(DATA / "results.test"), "-m", "map", "--engine", "spark",
         "--spark-master", "local[1]", "--quiet"],
        capture_output=True, text=True, check=False, timeout=600,
        env={**os.environ, "PYTHONPATH": str(src)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["run", "map", "--------", "------", "STANDARD", "0.1785"]
    assert done.stderr == ""
    # and a file Spark cannot find is rankwise's one-line error, not a Java trace
    missing = subprocess.run(
        [sys.executable, "-m", "rankwise", "eval", str(DATA / "qrels.test"),
         str(DATA / "no-such.run"), "-m", "map", "--engine", "spark",
         "--spark-master", "local[1]", "--quiet"],
        capture_output=True, text=True, check=False, timeout=600,
        env={**os.environ, "PYTHONPATH": str(src)},
    )
    assert missing.returncode != 0
    assert "no-such.run: no such file" in missing.stderr
    assert "Traceback" not in missing.stderr and "AnalysisException" not in missing.stderr


def test_a_malformed_trec_line_is_one_line_not_a_java_stack(tmp_path) -> None:
    """A run line of 4 fields read by Spark: the task fails, and the executor logged it with
    30-50 lines of Java stack before rankwise's one line (found by review, stop 55)."""
    import os
    import subprocess
    import sys

    pytest.importorskip("pyspark")
    from rankwise.engines.spark import find_java
    from rankwise.exceptions import MissingDependencyError

    try:
        find_java()
    except MissingDependencyError as error:
        pytest.skip(str(error))
    (tmp_path / "q.txt").write_text("q1 0 d1 1\nq1 0 d2 0\n")
    (tmp_path / "short.run").write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2\n")
    src = Path(__file__).parents[3] / "src"
    done = subprocess.run(
        [sys.executable, "-m", "rankwise", "eval", "q.txt", "short.run", "-m", "map",
         "--engine", "spark", "--spark-master", "local[1]"],
        capture_output=True, text=True, check=False, timeout=600, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(src)},
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1, done.stderr
    assert "short.run: expected 6 fields" in done.stderr


def test_the_jvm_launchers_warning_is_dropped_and_everything_else_kept() -> None:
    import io

    from rankwise.engines.spark._session import forward_stderr

    lines = [b"WARNING: Using incubator modules: jdk.incubator.vector\n", b"ERROR boom\n",
             b"  WARNING: Using incubator modules (indented: not the launcher's)\n",
             b"last line without newline"]
    kept: list[bytes] = []
    forward_stderr(io.BytesIO(b"".join(lines)), kept.append)
    assert kept == lines[1:]


def test_log_options_start_spark_at_the_level_asked_for() -> None:
    from rankwise.engines.spark._session import log_options

    for level in ("error", "warn"):
        options = log_options(level)
        java = options["spark.driver.extraJavaOptions"]
        path = java.split("-Dlog4j2.configurationFile=file:", 1)[1]
        text = Path(path).read_text()
        assert f"rootLogger.level = {level}\n" in text
        assert f"logger.spark.level = {level}\n" in text
        assert ("spark.ui.showConsoleProgress" in options) == (level == "error")
    with pytest.raises(InvalidParameterError, match="log level must be one of"):
        log_options("loud")
    java = log_options("ERROR")["spark.driver.extraJavaOptions"]  # log4j's spelling too
    path = java.split("-Dlog4j2.configurationFile=file:", 1)[1]
    assert "rootLogger.level = error\n" in Path(path).read_text()


class _Stream:
    def __init__(self, terminal: bool) -> None:
        self.terminal = terminal

    def isatty(self) -> bool:
        return self.terminal


@pytest.mark.parametrize(
    ("flags", "terminal", "level", "progress"),
    [
        ((), True, "warn", None),  # a person watching: warnings and Spark's progress bars
        ((), False, "error", None),  # a log file or a pipe: errors only, no bars ("error")
        (("--quiet",), True, "error", None),
        (("--debug",), False, None, None),  # Spark's own settings
        (("--spark-conf", "spark.log.level=INFO"), False, "info", "false"),  # the user's level
        (("--spark-conf", "spark.log.level=WARN", "--spark-conf",
          "spark.ui.showConsoleProgress=true"), False, "warn", "true"),
        (("--spark-conf", "spark.log.level=INFO"), True, "info", None),
    ],
)
def test_spark_is_quiet_when_stderr_is_not_a_terminal(monkeypatch, flags, terminal, level,
                                                      progress) -> None:
    """Issue 33, item 24: Spark's WARN lines and progress bars only on a terminal."""
    import sys

    from rankwise.cli.app import build_parser
    from rankwise.cli.options import engine_of

    args = build_parser().parse_args(
        ["eval", str(DATA / "qrels.test"), str(DATA / "results.test"), "--engine", "spark",
         *flags])
    monkeypatch.setattr(sys, "stderr", _Stream(terminal))
    engine = engine_of(args)
    assert engine.log_level == level
    assert engine.config.get("spark.ui.showConsoleProgress") == progress


def test_spark_writes_nothing_to_stderr_when_it_is_not_a_terminal() -> None:
    """Issue 33, item 24: without --quiet, a pipe gets the table and no WARN line nor bar."""
    import os
    import subprocess
    import sys

    pytest.importorskip("pyspark")
    from rankwise.engines.spark import find_java
    from rankwise.exceptions import MissingDependencyError

    try:
        find_java()
    except MissingDependencyError as error:
        pytest.skip(str(error))
    src = Path(__file__).parents[3] / "src"
    done = subprocess.run(
        [sys.executable, "-m", "rankwise", "eval", str(DATA / "qrels.test"),
         str(DATA / "results.test"), "-m", "map", "--engine", "spark",
         "--spark-master", "local[1]"],
        capture_output=True, text=True, check=False, timeout=600,
        env={**os.environ, "PYTHONPATH": str(src)},
    )
    assert done.returncode == 0, done.stderr
    # trec_eval's MAP of its own test files
    assert done.stdout.split() == ["run", "map", "--------", "------", "STANDARD", "0.1785"]
    assert done.stderr == ""


def test_the_log_configuration_is_a_new_file_of_a_private_folder(tmp_path, monkeypatch) -> None:
    """A fixed name in the shared temporary folder could be another user's file or link."""
    import os
    import stat
    import tempfile

    import rankwise.engines.spark._private as private
    from rankwise.engines.spark._session import log_options

    shared = tmp_path / "shared"
    shared.mkdir(mode=0o1777)
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    monkeypatch.setattr(private, "_FOLDER", {})
    victim = tmp_path / "victim.txt"
    victim.write_text("this user's file\n")
    uid = f"-{os.getuid()}"
    for level in ("error", "warn"):  # the names rankwise used, made first by another user
        (shared / f"rankwise-spark-log4j2-{level}{uid}.properties").symlink_to(victim)
    for level in ("error", "warn"):
        java = log_options(level)["spark.driver.extraJavaOptions"]
        path = Path(java.split("-Dlog4j2.configurationFile=file:", 1)[1])
        assert f"rootLogger.level = {level}\n" in path.read_text()
        assert path.parent.parent == shared and not path.is_symlink()
        info = path.parent.stat()
        assert (stat.S_IMODE(info.st_mode), info.st_uid) == (0o700, os.geteuid())
    assert victim.read_text() == "this user's file\n"


def test_spark_engine_reads_diversity_judgments_and_gives_bounds(spark, capsys) -> None:
    ndeval = Path(__file__).parents[2] / "data" / "ndeval"
    master = spark.sparkContext.master
    args = ["eval", str(ndeval / "pyndeval_test.qrels"), str(ndeval / "pyndeval_test.run"),
            "-m", "alpha_ndcg@20", "err_ia@20", "nrbp", "P@5", "--qrels-format", "diversity",
            "--unjudged", "bounds", "-f", "tsv", "--per-query", "--quiet"]
    assert main(args) == 0
    numpy_out = capsys.readouterr().out
    assert main([*args, "--engine", "spark", "--spark-master", master]) == 0
    spark_out = capsys.readouterr().out
    assert spark_out == numpy_out and "alpha_ndcg@20 high" in spark_out
