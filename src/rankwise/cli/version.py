"""``rankwise --version``: the version, and each C speed-up as compiled or pure."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["VersionAction", "version_text"]


def version_text() -> str:
    """What ``rankwise --version`` prints.

    The version, the Python that runs it, then one line per C module of
    ``setup.py``: what it speeds up, its name, and ``compiled`` or ``pure``
    (not built, or switched off by ``RANKWISE_NO_C=1``). Pure computes the
    same numbers through numpy and pyarrow, slower on large inputs.

    Examples
    --------
    >>> print(version_text())  # doctest: +ELLIPSIS
    rankwise ... (Python ...)
    C speed-ups ('pure': the same numbers through numpy and pyarrow, slower on large inputs):
      TREC text reader                   rankwise.io._ctrec         ...
    """
    import platform

    from rankwise._compiled import SPEEDUPS, status
    from rankwise._version import __version__

    lines = [
        f"rankwise {__version__} (Python {platform.python_version()})",
        "C speed-ups ('pure': the same numbers through numpy and pyarrow, slower on large "
        "inputs):",
    ]
    for name, state in status().items():
        lines.append(f"  {SPEEDUPS[name]:<34} {name:<26} {state}")
    return "\n".join(lines)


class VersionAction(argparse.Action):
    """``--version``: print :func:`version_text` and exit (computed only when asked)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="show the version and which C speed-ups are compiled, and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        """Print the version and the speed-ups, then exit with status 0."""
        sys.stdout.write(version_text() + "\n")
        sys.stdout.flush()
        parser.exit()
