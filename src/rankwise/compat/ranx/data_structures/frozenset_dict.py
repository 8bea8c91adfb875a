"""ranx's ``FrozensetDict``: a dict keyed by unordered pairs (``d["a", "b"] is d["b", "a"]``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, MutableMapping
from typing import Any

__all__ = ["FrozensetDict"]


class FrozensetDict(MutableMapping[frozenset[Any], Any]):
    """A mapping whose keys are sets of names, given in any order.

    Examples
    --------
    >>> pairs = FrozensetDict()
    >>> pairs["bm25", "dense"] = 0.01
    >>> pairs["dense", "bm25"], pairs[{"bm25", "dense"}]
    (0.01, 0.01)
    """

    def __init__(self, arg: Any = None) -> None:
        self._map: dict[frozenset[Any], Any] = {}
        if arg is not None:
            self.update(arg)

    def __getitem__(self, key: Iterable[Any]) -> Any:
        return self._map[frozenset(key)]

    def __setitem__(self, key: Iterable[Any], value: Any) -> None:
        self._map[frozenset(key)] = value

    def __delitem__(self, key: Iterable[Any]) -> None:
        del self._map[frozenset(key)]

    def __iter__(self) -> Iterator[frozenset[Any]]:
        return iter(self._map)

    def __len__(self) -> int:
        return len(self._map)
