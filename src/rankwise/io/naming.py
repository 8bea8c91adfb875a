"""One rule to name runs, used by ``evaluate_runs``, ``compare``, the report and every command.

A run is named, in this order, by the name the caller gives it, by its run
id when its file has one (the last field of a TREC run file), else by its
file's stem (``runs/dense.parquet`` -> ``dense``). Names that collide are
made unique by numbering the later ones: ``bm25``, ``bm25#2``, ``bm25#3``.
A run may then be found by its name, by its path as given, by its file name
or by its stem.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from rankwise.exceptions import InvalidParameterError
from rankwise.suggest import did_you_mean

__all__ = ["find_run", "unique_names"]


def unique_names(names: Sequence[str]) -> list[str]:
    """Make *names* distinct: the second ``x`` becomes ``x#2``, the third ``x#3``.

    Examples
    --------
    >>> unique_names(["bm25", "dense", "bm25", "bm25"])
    ['bm25', 'dense', 'bm25#2', 'bm25#3']
    >>> unique_names(["a", "a#2", "a"])
    ['a', 'a#2', 'a#3']
    """
    taken = set(names)
    seen: dict[str, int] = {}
    out: list[str] = []
    used: set[str] = set()
    for name in names:
        if name not in used:
            out.append(name)
            used.add(name)
            continue
        count = seen.get(name, 1)
        while True:
            count += 1
            candidate = f"{name}#{count}"
            if candidate not in taken and candidate not in used:
                break
        seen[name] = count
        out.append(candidate)
        used.add(candidate)
    return out


def find_run(
    wanted: str, names: Sequence[str], paths: Sequence[str | None], *, what: str = "run"
) -> str:
    """The name of the run *wanted* designates: its name, path, file name or file stem.

    Raises
    ------
    InvalidParameterError
        No run, or more than one, answers to *wanted* (the message suggests one).

    Examples
    --------
    >>> find_run("bm25", ["BM25-run", "dense"], ["runs/bm25.run", "runs/dense.run"])
    'BM25-run'
    >>> find_run("dense", ["a", "dense"], [None, None])
    'dense'
    """
    if wanted in names:
        return wanted
    from rankwise.io.coerce import file_stem

    for key in (lambda p: p, os.path.basename, file_stem):
        matches = [
            name for name, path in zip(names, paths) if path is not None and key(path) == wanted
        ]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise InvalidParameterError(
                f"{what} {wanted!r} names {len(matches)} runs ({', '.join(matches)}); "
                "give one of their names"
            )
    raise InvalidParameterError(
        f"{what} {wanted!r} is not one of the runs {list(names)}{did_you_mean(wanted, names)}"
    )
