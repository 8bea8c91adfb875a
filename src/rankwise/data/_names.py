"""Codes of names (query ids): lists of names joined, or looked up, in one pass.

A TREC file is read in pieces, each with its own query ids; a run's queries
are looked up among the judgments'. Both happen once per evaluation, over as
many names as there are queries (a million for a recommender's users). The C
module :mod:`rankwise.data._ccolumns` does each in one pass over the lists,
names being the same when their UTF-8 text is; without it, or for a name it
declines (not a str, or a lone surrogate), a dict does the same, name by name.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankwise._compiled import enabled, load

__all__ = ["merge_codes", "name_codes"]


def _native() -> Any:
    return load("rankwise.data._ccolumns") if enabled() else None


def merge_codes(parts: list[tuple[list[str], Any]]) -> tuple[list[str], np.ndarray]:
    """Join per-piece names and codes: the distinct names, and every piece's codes into them.

    Parameters
    ----------
    parts : list of (list of str, ndarray of int32)
        Per piece, its distinct names and codes indexing them.

    Returns
    -------
    names : list of str
        The distinct names of all pieces, in order of first appearance.
    codes : ndarray of int32
        The pieces' codes, concatenated, indexing *names*.

    Examples
    --------
    >>> names, codes = merge_codes([(["q1", "q2"], np.array([0, 1, 1], np.int32)),
    ...                             (["q2", "q3"], np.array([0, 1], np.int32))])
    >>> names, codes.tolist()
    (['q1', 'q2', 'q3'], [0, 1, 1, 1, 2])
    """
    native = _native()
    lists = [names if type(names) is list else list(names) for names, _ in parts]
    merged = native.merge_names(lists) if native is not None else None
    if merged is None:
        code_of: dict[str, int] = {}
        remaps: list[Any] = []
        for names, _ in parts:
            remap = np.array([code_of.setdefault(name, len(code_of)) for name in names],
                             np.int32)
            identity = bool((remap == np.arange(len(remap), dtype=np.int32)).all())
            remaps.append(None if identity else remap)
        merged = (list(code_of), remaps)
    names, remaps = merged
    codes = [local if remap is None else np.frombuffer(remap, dtype=np.int32)[local]
             for (_, local), remap in zip(parts, remaps)]
    if not codes:
        return names, np.zeros(0, dtype=np.int32)
    return names, codes[0] if len(codes) == 1 else np.concatenate(codes)


def name_codes(index: list[str], names: list[str]) -> np.ndarray:
    """Per name of *names*, its position in *index*, or -1 where it is not there.

    A name given twice in *index* has the position of its first.

    Examples
    --------
    >>> name_codes(["q1", "q2", "q3"], ["q3", "q9", "q1"]).tolist()
    [2, -1, 0]
    """
    native = _native()
    index = index if type(index) is list else list(index)
    names = names if type(names) is list else list(names)
    found = native.name_codes(index, names) if native is not None else None
    if found is not None:
        return np.frombuffer(found, dtype=np.int64)
    position: dict[str, int] = {}
    for i, name in enumerate(index):
        position.setdefault(name, i)
    return np.array([position.get(name, -1) for name in names], dtype=np.int64)
