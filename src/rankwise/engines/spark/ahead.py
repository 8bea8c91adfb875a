"""The ``jvm`` pass's layout, chosen on a thread of its own while the judgments are collected.

Before the pass, the plan runs small jobs whose cost is mostly the driver's
(planning, scheduling, py4j): it counts and sizes the judgments, collects them,
and reads the first rows of a few partitions of the run to choose its layout
(:func:`rankwise.engines.spark.layout.choose_layout`). The layout does not
depend on the judgments, so :class:`LayoutAhead` chooses it on a thread while
the main thread counts and collects (the saving: docs/spark.md). The thread is a
:class:`pyspark.InheritableThread`: its jobs carry the caller's job group,
description and scheduler pool. Every path waits for it before returning, so no
job of an evaluation outlives the call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from rankwise.engines.spark.layout import Layout

__all__ = ["LayoutAhead"]


class LayoutAhead:
    """The layout of *run* (``q, d, s``) for the ``jvm`` pass, chosen on a thread.

    *ordered*: a measure that ranks tied documents in input order, or None
    (:func:`~rankwise.engines.spark.layout.choose_layout`).

    The jar is loaded on the calling thread (loading is not shared between
    threads); when it cannot be, nothing is started and :meth:`result` raises
    the same :class:`~rankwise.engines.spark.jar.JvmUnavailableError` that the
    pass would have raised. An error of the choice is raised by :meth:`result`,
    on the calling thread.
    """

    def __init__(self, run: DataFrame, *, ordered: str | None = None) -> None:
        from rankwise.engines.spark.jar import JvmUnavailableError, load_jar
        from rankwise.engines.spark.jvm import Settings
        from rankwise.engines.spark.layout import choose_layout

        self._layout: Layout | None = None
        self._error: BaseException | None = None
        self._thread: Any = None
        try:
            ranks_pass = load_jar(run.sparkSession)
        except JvmUnavailableError as error:
            self._error = error
            return
        from pyspark import InheritableThread

        window_rows = Settings().window_rows
        # py4j finds the pass's class through the JVM thread's context class loader, which
        # holds the jar on the calling thread only (Spark adds it there)
        jvm: Any = run.sparkSession.sparkContext._jvm
        threads = jvm.java.lang.Thread
        loader = threads.currentThread().getContextClassLoader()

        def choose() -> None:
            try:
                threads.currentThread().setContextClassLoader(loader)
                self._layout = choose_layout(run, ranks_pass, window_rows, ordered=ordered)
            except BaseException as error:  # handed to the calling thread by result()
                self._error = error

        self._thread = InheritableThread(target=choose, name="rankwise-layout", daemon=True)
        self._thread.start()

    def wait(self) -> None:
        """Wait until the choice is made (or failed)."""
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def result(self) -> Layout:
        """The layout chosen; raises what choosing it raised."""
        self.wait()
        if self._layout is None:
            raise self._error or RuntimeError("the layout's thread ended without a choice")
        return self._layout
