"""Random streams that depend only on the seed and on what is being compared."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from rankwise._validation import NON_NEGATIVE_INT, check

__all__ = ["as_seed_sequence", "normalise_seed", "stream"]


def normalise_seed(seed: Any) -> int:
    """Return *seed* as a non-negative int; ``None`` draws a fresh one.

    The seed drawn for ``None`` is short (below :math:`2^{32}`, at most ten
    digits) and is returned so that a result can report it: passed back, it
    reproduces the result. A short seed is enough: every comparison's
    stream mixes the seed with what is compared (:func:`stream`), and the
    random draws come from PCG64 whatever the seed's size.

    Raises
    ------
    InvalidParameterError
        A seed that is not a non-negative integer.

    Examples
    --------
    >>> normalise_seed(42)
    42
    >>> 0 <= normalise_seed(None) < 2**32
    True
    """
    if seed is None:
        fresh = np.random.SeedSequence().generate_state(1, dtype=np.uint32)
        return int(fresh[0])
    return int(check("seed", seed, NON_NEGATIVE_INT))


def stream(seed: int, purpose: str, names: Iterable[str]) -> np.random.SeedSequence:
    """The seed sequence of one comparison: a function of *seed*, *purpose* and *names*.

    The names are sorted, so comparing A with B and B with A use the same
    stream, and the order in which systems are given never matters. The
    key is a BLAKE2b digest (stable across processes and platforms, unlike
    :func:`hash`) used as the ``spawn_key`` of a :class:`numpy.random.SeedSequence`.

    Parameters
    ----------
    seed : int
        The user's seed (see :func:`normalise_seed`).
    purpose : str
        What the stream is for, e.g. ``"randomization"`` or ``"bootstrap"``.
    names : iterable of str
        The systems involved.

    Examples
    --------
    >>> a = stream(7, "randomization", ["bm25", "dense"])
    >>> b = stream(7, "randomization", ["dense", "bm25"])
    >>> (a.generate_state(2) == b.generate_state(2)).all()
    np.True_
    """
    import hashlib

    text = "\x1f".join(["rankwise.compare", purpose, *sorted(names)])
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()
    key = tuple(int(word) for word in np.frombuffer(digest, dtype="<u4"))
    return np.random.SeedSequence(entropy=seed, spawn_key=key)


def as_seed_sequence(seed: Any) -> np.random.SeedSequence:
    """A :class:`numpy.random.SeedSequence` from an int, a SeedSequence or ``None``.

    Examples
    --------
    >>> as_seed_sequence(3).entropy
    3
    """
    if isinstance(seed, np.random.SeedSequence):
        return seed
    return np.random.SeedSequence(normalise_seed(seed))
