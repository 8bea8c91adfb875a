"""What the library says while a command runs, in the command line's words.

The library's warnings (:class:`~rankwise.exceptions.RankwiseWarning`) are for
Python callers: each command says what matters in its own words, so they are
hidden. One is shown: the first large evaluation on the pure path (the C
modules not built) says how to get the compiled build, as one ``note:`` line on
standard error, unless ``--quiet``.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["library_warnings"]


@contextmanager
def library_warnings(*, quiet: bool, prefix: str = "rankwise: note: ") -> Iterator[None]:
    r"""Hide the library's warnings; show the pure path's note as one line unless *quiet*.

    Parameters
    ----------
    quiet : bool
        ``--quiet``: show nothing.
    prefix : str, optional
        What starts the line (``rankwise trec-eval`` writes ``trec_eval: note: ``).

    Examples
    --------
    >>> import warnings, contextlib, io
    >>> from rankwise._compiled import PurePathWarning
    >>> with contextlib.redirect_stderr(io.StringIO()) as err, library_warnings(quiet=False):
    ...     warnings.warn("no C here", PurePathWarning)
    >>> err.getvalue()
    'rankwise: note: no C here\n'
    """
    from rankwise._compiled import PurePathWarning
    from rankwise.exceptions import RankwiseWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankwiseWarning)
        if not quiet:
            warnings.simplefilter("always", PurePathWarning)
            shown = warnings.showwarning

            def show(message: Warning | str, category: type[Warning], *args: Any,
                     **kwargs: Any) -> None:
                if issubclass(category, PurePathWarning):
                    sys.stderr.write(f"{prefix}{message}\n")
                else:
                    shown(message, category, *args, **kwargs)

            warnings.showwarning = show
        yield
