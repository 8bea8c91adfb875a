"""What the executors need, checked before any work; and shipping rankwise to them.

The ``partitions`` strategy runs the numpy engine on the executors, so
rankwise, numpy and pyarrow must import there. :func:`check_executors` runs
one tiny task that imports them (and compares rankwise's version with the
driver's) before the shuffle starts, so that a cluster without rankwise
fails in a second with one line saying what to do, not after the whole
shuffle deep inside a pickling traceback. :func:`ship` sends the driver's
rankwise (pure Python, without the optional C modules) to the executors.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from rankwise.exceptions import MissingDependencyError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["check_executors", "executor_probe", "ship"]

_CHECKED: set[str] = set()  # application ids whose executors passed the check

_SHIP_HINT = (
    "call rankwise.spark.ship(spark) before evaluating to send this rankwise to the "
    "executors (pure Python, no C compiler needed), or install rankwise in the executors' "
    "Python (docs/spark.md, 'Shipping rankwise')"
)


def executor_probe() -> Any:
    """The function run on an executor: it imports what ``partitions`` needs.

    Built here as a closure so that it is pickled by value: it must run
    where rankwise itself may not be importable.
    """

    def probe(_: Any) -> Any:
        import importlib
        import socket

        found = {}
        for name in ("numpy", "pyarrow", "rankwise"):
            try:
                module = importlib.import_module(name)
            except Exception as error:  # any import failure is reported, not raised
                found[name] = f"!{type(error).__name__}: {error}"
            else:
                found[name] = str(getattr(module, "__version__", "?"))
        yield (socket.gethostname(), found)

    return probe


def check_executors(spark: SparkSession, *, force: bool = False) -> None:
    """Raise unless rankwise, numpy and pyarrow import on the executors.

    One task of one partition; the result is remembered per Spark
    application once it passed (*force* checks again).

    Raises
    ------
    MissingDependencyError
        One line: what is missing, on which host, and how to ship rankwise.
    """
    from rankwise._version import __version__

    context = spark.sparkContext
    key = str(context.applicationId)
    if key in _CHECKED and not force:
        return
    try:
        rows = context.parallelize([0], 1).mapPartitions(executor_probe()).collect()
    except Exception as error:  # the task itself could not run: say so in one line
        first = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
        raise MissingDependencyError(
            f"the Spark executors could not run a Python task ({first[:300]}); the "
            f"'partitions' strategy needs Python with numpy, pyarrow and rankwise there: "
            f"{_SHIP_HINT}"
        ) from None
    for host, found in rows:
        broken = {name: text[1:] for name, text in found.items() if text.startswith("!")}
        if "numpy" in broken or "pyarrow" in broken:
            which = ", ".join(f"{name} ({text})" for name, text in broken.items())
            raise MissingDependencyError(
                f"the Spark executors on {host} cannot import {which}: the 'partitions' "
                "strategy needs numpy and pyarrow there; install them in the executors' "
                "Python or ship an environment (spark.archives), or use strategy='ranks', "
                "which runs no Python on the executors"
            )
        if "rankwise" in broken:
            raise MissingDependencyError(
                f"rankwise is not importable on the Spark executors ({host}: "
                f"{broken['rankwise']}): {_SHIP_HINT}, or use strategy='ranks', which "
                "runs no Python on the executors"
            )
        if found["rankwise"] != __version__:
            raise MissingDependencyError(
                f"the Spark executors on {host} have rankwise {found['rankwise']}, the "
                f"driver {__version__}: results could differ; {_SHIP_HINT}"
            )
    _CHECKED.add(key)


def ship(spark: SparkSession, *, directory: str | None = None) -> str:
    """Send the driver's rankwise to the executors of *spark*.

    Zips the installed ``rankwise`` package (its Python files and data, not
    the optional C modules, which rankwise does without: the numbers are the
    same) and adds the zip with ``SparkContext.addPyFile``, so that every
    later task can import it. numpy and pyarrow must already be installed on
    the executors (pyspark's Arrow support needs them anyway).

    Parameters
    ----------
    spark : SparkSession
        The session whose executors need rankwise.
    directory : str, optional
        Where to write the zip (default: a new temporary directory).

    Returns
    -------
    str
        The path of the zip that was shipped.

    Examples
    --------
    >>> import rankwise.spark  # doctest: +SKIP
    >>> rankwise.spark.ship(spark)  # doctest: +SKIP
    '/tmp/rankwise-ship-k2j3/rankwise-0.2.0.zip'
    >>> results = rankwise.spark.evaluate(  # doctest: +SKIP
    ...     qrels_df, run_df, ["ndcg@10"], strategy="partitions")
    """
    import tempfile

    from rankwise._version import __version__

    path = os.path.join(
        directory or tempfile.mkdtemp(prefix="rankwise-ship-"), f"rankwise-{__version__}.zip"
    )
    package_zip(path)
    spark.sparkContext.addPyFile(path)
    _CHECKED.discard(str(spark.sparkContext.applicationId))
    return path


_SKIPPED_SUFFIXES = (".so", ".pyd", ".dll", ".dylib", ".c", ".h", ".pyc", ".o")


def package_zip(path: str) -> list[str]:
    """Write the installed rankwise package, without compiled files, to the zip *path*.

    Returns the names written (``rankwise/__init__.py``, ...).
    """
    import zipfile

    # this file is rankwise/engines/spark/executors.py: the package is three folders up
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    names = []
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for folder, subfolders, files in os.walk(root):
            subfolders[:] = sorted(s for s in subfolders if s != "__pycache__")
            for name in sorted(files):
                if name.endswith(_SKIPPED_SUFFIXES):
                    continue
                full = os.path.join(folder, name)
                inside = os.path.join("rankwise", os.path.relpath(full, root))
                archive.write(full, inside)
                names.append(inside.replace(os.sep, "/"))
    return names
