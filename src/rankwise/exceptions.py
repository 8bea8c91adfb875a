"""Exceptions raised by rankwise.

Every error rankwise raises on purpose derives from :class:`RankwiseError`, so
callers can catch one type. Each message says what was wrong, where, what was
expected and what came, and, where there is one, the remedy.
"""

from __future__ import annotations

__all__ = [
    "DuplicateEntryError",
    "InputFormatError",
    "InvalidParameterError",
    "MeasureSyntaxError",
    "MissingDependencyError",
    "RankwiseError",
    "RankwiseWarning",
    "UnknownMeasureError",
    "UnsupportedMeasureError",
]


class RankwiseError(Exception):
    """Base class of every error rankwise raises on purpose."""


class InvalidParameterError(RankwiseError, ValueError):
    """A function argument has a value outside what it accepts."""


class MeasureSyntaxError(RankwiseError, ValueError):
    """A measure name could not be parsed (bad cutoff, bad or conflicting parameters)."""


class UnknownMeasureError(MeasureSyntaxError):
    """A measure name is not in the catalog; the message suggests the nearest names."""


class UnsupportedMeasureError(RankwiseError, ValueError):
    """A measure exists but cannot be computed with the options asked for."""


class MissingDependencyError(RankwiseError, ImportError):
    """An optional dependency is needed for the feature asked for."""


class InputFormatError(RankwiseError, ValueError):
    """Input data is malformed.

    Parameters
    ----------
    message : str
        What was expected and what came.
    path : str or None
        The file (or a description of the source) the bad input came from.
    line : int or None
        1-based line number of the bad input, when known.
    """

    def __init__(self, message: str, path: str | None = None, line: int | None = None) -> None:
        self.message = message
        self.path = path
        self.line = line
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(where + message)


class DuplicateEntryError(InputFormatError):
    """The same document appears twice for one query."""


class RankwiseWarning(UserWarning):
    """Something the user should know that is not an error (ignored queries, ...)."""
