"""Running C code that releases the GIL on a few threads at once."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

__all__ = ["cores", "run_threads"]


def cores() -> int:
    """CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def run_threads(work: Callable[[int], None], count: int) -> None:
    """Call ``work(i)`` for i in ``range(count)``, each on its own thread.

    The first exception raised by any call is raised again here, once every
    thread has finished.
    """
    if count <= 1:
        if count == 1:
            work(0)
        return
    errors: list[BaseException] = []

    def guarded(index: int) -> None:
        try:
            work(index)
        except BaseException as error:  # re-raised in the calling thread
            errors.append(error)

    threads = [threading.Thread(target=guarded, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
