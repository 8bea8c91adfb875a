"""Rankwise errors raised inside Spark jobs, and raised again as themselves on the driver."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import Any

__all__ = ["marker", "rankwise_errors"]

_MARKER = re.compile(r"\[RANKWISE:(\w+)\] ?(.*?)(?:\\n|\n|$|\. SQLSTATE| SQLSTATE)")


@contextlib.contextmanager
def rankwise_errors() -> Iterator[None]:
    """Turn a Spark failure that carries a rankwise error back into that error.

    Readers and executors raise inside Spark with ``raise_error`` and a
    ``[RANKWISE:InputFormatError] message`` text; Spark wraps it in its own
    exception. Other failures pass through unchanged.
    """
    import rankwise.exceptions as errors

    try:
        yield
    except errors.RankwiseError:
        raise
    except Exception as error:
        found = _MARKER.search(str(error))
        if found is None:
            raise
        kind = getattr(errors, found.group(1), None)
        if not (isinstance(kind, type) and issubclass(kind, errors.RankwiseError)):
            kind = errors.InputFormatError
        raise kind(found.group(2).strip()) from None


def marker(kind: str, message: Any) -> Any:
    """A Spark column expression that fails with a rankwise error (see :func:`rankwise_errors`).

    *message* is a Spark column (or a string) with the text.
    """
    from pyspark.sql import functions as sf

    text = sf.lit(message) if isinstance(message, str) else message
    return sf.raise_error(sf.concat(sf.lit(f"[RANKWISE:{kind}] "), text))
