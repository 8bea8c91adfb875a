"""Whether a JDK's compiler is here: the Spark engine's ``jvm`` strategy needs one."""

from __future__ import annotations


def javac_found() -> bool:
    """Whether the ``jvm`` strategy can build its code here (``auto`` then picks it)."""
    from rankwise.engines.spark.jar import JvmUnavailableError, find_javac

    try:
        find_javac()
    except JvmUnavailableError:
        return False
    return True
