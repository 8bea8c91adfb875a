"""The ``rankwise`` command line: ``eval``, ``trec-eval``, ``demo``, ``measures``.

It only parses arguments, calls the public API and prints; see ``docs/cli.md``.
"""

from rankwise.cli.app import main

__all__ = ["main"]
