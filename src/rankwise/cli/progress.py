r"""A cheap progress line on standard error while a slow file loads.

Nothing is shown unless standard error is a terminal, and nothing before a
second has passed: small files never flash a message. The line is redrawn
in place (``\\r``) by a daemon thread and erased when the load ends. The
readers do their work in pyarrow and numpy, which release the GIL, so the
thread keeps ticking.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from types import TracebackType
from typing import TextIO

__all__ = ["Progress"]

_DELAY = 1.0
_INTERVAL = 0.2
_SPINNER = "|/-\\"


def _size_text(path: str) -> str:
    try:
        size = float(os.stat(path).st_size)
    except OSError:
        return ""
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if size < 1000 or unit == "TB":
            return f", {size:.0f} {unit}" if unit == "B" else f", {size:.1f} {unit}"
        size /= 1000
    return ""  # pragma: no cover


class Progress:
    """Context manager: ``with Progress("reading", path, enabled=...):``.

    Parameters
    ----------
    verb : str
        What is happening ("reading").
    path : str
        The file (its size is shown).
    enabled : bool
        False disables it completely (``--quiet``, or not a terminal).
    stream : file, optional
        Where to draw; standard error by default.
    """

    def __init__(
        self, verb: str, path: str, *, enabled: bool, stream: TextIO | None = None
    ) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self._enabled = enabled and _is_terminal(self._stream)
        self._label = f"rankwise: {verb} {path}{_size_text(path) if path != '-' else ''}"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._drawn = 0

    def __enter__(self) -> Progress:
        if self._enabled:
            self._thread = threading.Thread(target=self._draw, daemon=True)
            self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        if self._drawn:
            self._stream.write("\r" + " " * self._drawn + "\r")
            self._stream.flush()

    def _draw(self) -> None:
        start = time.monotonic()
        if self._stop.wait(_DELAY):
            return
        tick = 0
        while not self._stop.is_set():
            elapsed = time.monotonic() - start
            text = f"{self._label} {_SPINNER[tick % len(_SPINNER)]} {elapsed:.0f}s"
            self._stream.write("\r" + text.ljust(self._drawn))
            self._stream.flush()
            self._drawn = max(self._drawn, len(text))
            tick += 1
            self._stop.wait(_INTERVAL)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
