"""The ``jvm`` pass's layout chosen on a thread while the judgments are counted and collected.

The thread's jobs must belong to the caller's job group (so that cancelling the
group cancels them, and a pool or a description set by the caller applies), no
job may outlive the call, and what the thread raises comes out of the call.
"""

from __future__ import annotations

import pytest
from spark_checks import assert_same, needs_javac

import rankwise as rw
from rankwise.exceptions import InputFormatError

pytestmark = needs_javac

MEASURES = ["ndcg@10", "map", "P@5"]


def _tables():
    qrels = rw.Qrels.from_dict({f"q{i}": {"a": 1, "b": 2, "z": 0} for i in range(30)})
    run = rw.Run.from_dict({f"q{i}": {"a": 0.5, "b": 0.9, "c": 0.9, "d": 0.1} for i in range(30)})
    return qrels.to_arrow(), run.to_arrow()


def _layout_jobs(context, group):
    """Jobs of *group* that read the first rows of partitions (the layout's probe)."""
    tracker = context.statusTracker()
    return [job for job in tracker.getJobIdsForGroup(group)
            if any("collectPartitions" in (tracker.getStageInfo(stage).name or "")
                   for stage in (tracker.getJobInfo(job).stageIds or []))]


def _active_jobs(context):
    """Jobs still running, once Spark's listener bus has told the status tracker all it knows.

    The tracker learns that a job ended from an event delivered on another thread: on a
    busy machine a job that ended before the call returned could still be listed (seen
    in a run of the Spark tests beside other work). A job the call left running is still
    listed after the bus is drained.
    """
    context._jsc.sc().listenerBus().waitUntilEmpty(30_000)
    return list(context.statusTracker().getActiveJobsIds())


def test_the_layout_jobs_belong_to_the_callers_group_and_none_outlives_the_call(spark):
    from rankwise.spark import evaluate

    qrels, run = _tables()
    context = spark.sparkContext
    context.setJobGroup("rankwise-ahead-test", "the caller's group")
    try:
        got = evaluate(spark.createDataFrame(qrels), spark.createDataFrame(run), MEASURES,
                       strategy="jvm")
    finally:
        context.setJobGroup("other", "")
    assert got.plan.startswith("jvm:") and "of the first 10,000 rows" in got.plan  # probed
    assert_same(got, rw.evaluate(qrels, run, MEASURES))
    assert _active_jobs(context) == []
    jobs = context.statusTracker().getJobIdsForGroup("rankwise-ahead-test")
    # the judgments' count and collection, the layout's probe, the pass: all the caller's
    assert len(jobs) >= 3
    assert _layout_jobs(context, "rankwise-ahead-test"), "the layout's probe ran outside the group"
    got.unpersist()


def test_no_job_outlives_a_call_that_fails_on_the_judgments(spark):
    from rankwise.spark import evaluate

    qrels, run = _tables()
    context = spark.sparkContext
    with pytest.raises(InputFormatError, match="the judgments hold no rows"):
        evaluate(spark.createDataFrame(qrels.slice(0, 0)), spark.createDataFrame(run), MEASURES,
                 strategy="jvm")
    assert _active_jobs(context) == []


def test_an_error_of_the_layouts_thread_comes_out_of_the_call(spark, monkeypatch):
    from rankwise.engines.spark import layout
    from rankwise.spark import evaluate

    class BrokenError(Exception):
        pass

    def broken(*args, **kwargs):
        raise BrokenError("the probe failed")

    monkeypatch.setattr(layout, "choose_layout", broken)
    qrels, run = _tables()
    with pytest.raises(BrokenError, match="the probe failed"):
        evaluate(spark.createDataFrame(qrels), spark.createDataFrame(run), MEASURES,
                 strategy="jvm")
