"""rankwise's optional C modules: loaded when they were built, and switchable off.

``pip install`` compiles them where a C compiler is (see ``setup.py``); where
none is, or with ``RANKWISE_NO_C=1`` in the environment, rankwise computes the
same results through numpy and pyarrow: the pure path. :func:`status` says
which speed-up a process has (``rankwise --version`` lists them), and the first
large evaluation on the pure path says once how to get the compiled build
(:func:`warn_if_pure`). See ``docs/reading.md``.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from rankwise.exceptions import RankwiseWarning

__all__ = [
    "LARGE_RUN_ROWS",
    "SPEEDUPS",
    "PurePathWarning",
    "enabled",
    "load",
    "pure_path_note",
    "speedups",
    "status",
    "warn_if_pure",
]

SPEEDUPS: dict[str, str] = {
    "rankwise.io._ctrec": "TREC text reader",
    "rankwise.data._ccolumns": "dicts, frames and id columns",
    "rankwise.ranking._cjoin": "run joined with the judgments",
    "rankwise.ranking._crank": "ranks of judged documents",
    "rankwise.ranking._cdict": "run dicts ranked in one pass",
    "rankwise.ranking._cpairs": "recommender user-item pairs",
    "rankwise.kernels._cgreedy": "diversity ideal (ndeval's greedy)",
    "rankwise.fusion._cfuse": "rank fusion",
    "rankwise.stats._cflip": "randomization test",
}
"""Each C module (``setup.py`` builds them all) and what it speeds up."""

_EVALUATION = ("rankwise.io._ctrec", "rankwise.data._ccolumns", "rankwise.ranking._cjoin",
               "rankwise.ranking._crank")
# the modules every evaluation goes through (reading, joining, ranking)

LARGE_RUN_ROWS = 1_000_000
"""Rows of a run from which an evaluation on the pure path is worth a word.

Below it the pure path costs a fraction of a second more; from a million rows
on, seconds (7M rows: about twice the wall time of the compiled build on 2 cores).
"""

_said = False  # the pure path's note is given once per process


class PurePathWarning(RankwiseWarning):
    """A large evaluation ran without the C modules: the same numbers, slower."""


def enabled() -> bool:
    """Whether the C modules may be used (``RANKWISE_NO_C`` is unset, empty or ``0``)."""
    return os.environ.get("RANKWISE_NO_C", "") in ("", "0")


def load(name: str) -> Any:
    """The compiled module *name*, or None where it was not built."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def status() -> dict[str, str]:
    """Each speed-up of :data:`SPEEDUPS`: ``"compiled"``, or ``"pure"`` and why.

    Returns
    -------
    dict
        Module name -> ``"compiled"`` (built and in use), ``"pure (not
        built)"`` or ``"pure (RANKWISE_NO_C=1)"``, in :data:`SPEEDUPS`'s order.

    Examples
    --------
    >>> list(status()) == list(SPEEDUPS)
    True
    """
    on = enabled()
    return {
        name: "pure (not built)" if load(name) is None
        else "compiled" if on else "pure (RANKWISE_NO_C=1)"
        for name in SPEEDUPS
    }


def speedups() -> dict[str, str]:
    """Which of rankwise's C speed-ups this process uses (``rankwise --version`` prints them).

    Without a C module rankwise computes the same numbers on its pure path, a
    few times slower on large inputs (docs/reading.md).

    Returns
    -------
    dict
        Each C module's name -> ``"compiled"``, ``"pure (not built)"`` (no C
        compiler where rankwise was installed) or ``"pure (RANKWISE_NO_C=1)"``.

    Examples
    --------
    >>> import rankwise
    >>> sorted(set(rankwise.speedups().values()) - {"compiled", "pure (not built)",
    ...                                             "pure (RANKWISE_NO_C=1)"})
    []
    """
    return status()


def pure_path_note(rows: int) -> str | None:
    """What to say about an evaluation of a run of *rows* rows, once per process.

    The note, when the run has :data:`LARGE_RUN_ROWS` rows or more and a C
    module every evaluation uses was not built, the first time only; else
    None. Nothing is said under ``RANKWISE_NO_C=1``: whoever set it chose the
    pure path.

    Examples
    --------
    >>> pure_path_note(10) is None  # a small run: the pure path costs nothing to speak of
    True
    """
    global _said
    if _said or rows < LARGE_RUN_ROWS or not enabled():
        return None
    missing = [name for name in _EVALUATION if load(name) is None]
    if not missing:
        return None
    _said = True
    from rankwise._wording import counted

    return (
        f"rankwise's C speed-ups are not built in this install ({', '.join(missing)}): "
        f"this run of {counted(rows, 'row', grouped=True)} is evaluated on the pure path, the "
        "same numbers a few times slower. For the compiled build, install a C compiler "
        "(Linux: gcc and the "
        "Python headers; macOS: xcode-select --install; Windows: the Microsoft C++ Build "
        "Tools) and reinstall: pip install --force-reinstall --no-deps --no-binary rankwise "
        "rankwise ('rankwise --version' lists each speed-up)"
    )


def warn_if_pure(rows: int, *, stacklevel: int = 2) -> None:
    """Warn (:class:`PurePathWarning`) once when a large run is evaluated on the pure path.

    Parameters
    ----------
    rows : int
        The rows of the run about to be evaluated.
    stacklevel : int, optional
        As for :func:`warnings.warn`, from the caller of this function.

    Examples
    --------
    >>> warn_if_pure(100)  # small: silent
    """
    note = pure_path_note(rows)
    if note is not None:
        import warnings

        warnings.warn(note, PurePathWarning, stacklevel=stacklevel + 1)
