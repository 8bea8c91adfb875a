"""Users by training activity: new, light and heavy, from their number of training interactions.

The cold-start view of a recommender comparison (issue 37, item 3): a user
with no training interaction is *new*, one with fewer than ``heavy`` is
*light*, the others are *heavy*. :func:`activity_segments` gives the
``{user: segment}`` that ``segments=`` takes; ``segments="activity"`` in
:func:`rankwise.compare_recommendations` builds it from the training
interactions and the held-out users.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from rankwise.exceptions import InvalidParameterError
from rankwise.recommenders.inputs import as_table, find_column

__all__ = ["ACTIVITY", "Activity", "activity_segments"]

ACTIVITY = ("new", "light", "heavy")
"""The activity segments, from the least active users to the most."""


@dataclass(frozen=True)
class Activity:
    """Each user's activity segment, and the rule that made them.

    Attributes
    ----------
    segments : dict
        ``{user: "new" | "light" | "heavy"}``.
    heavy : int
        The fewest training interactions of a heavy user.
    median : float
        The median number of training interactions of the training users.
    chosen : bool
        *heavy* was given (else: the default, above the median).
    """

    segments: dict[Any, str]
    heavy: int
    median: float
    chosen: bool

    def describe(self) -> str:
        """The rule in words (for the assumptions of a comparison).

        Examples
        --------
        >>> a = activity_segments({"user": [1, 1, 1, 2], "item": [1, 2, 3, 1]}, [1, 2, 3])
        >>> a.describe()
        'segments by training activity: new (no training interaction), light (1 to 2), heavy \
(3 or more; the default: above the median of the training users, 2)'
        """
        light = ("none" if self.heavy <= 1 else
                 "1" if self.heavy == 2 else f"1 to {self.heavy - 1}")
        why = ("given" if self.chosen else
               f"the default: above the median of the training users, {self.median:g}")
        return (f"segments by training activity: new (no training interaction), light "
                f"({light}), heavy ({self.heavy} or more; {why})")


def activity_segments(train: Any, users: Any, *, heavy: int | None = None,
                      columns: Mapping[str, str] | None = None) -> Activity:
    """Segment *users* by their number of training interactions: new, light, heavy.

    Parameters
    ----------
    train : table or dict of columns
        Training interactions (a ``user`` column; repeated pairs count each time).
    users : sequence, array or table
        The users to segment (usually the held-out users); a table gives its
        ``user`` column. Each is counted once.
    heavy : int, optional
        The fewest training interactions of a heavy user (at least 2).
        Default: one more than the median number of training interactions
        of the training users (rounded down), so that heavy users are those
        above the median.
    columns : dict, optional
        ``{"user": column}`` when the user column is named otherwise.

    Returns
    -------
    Activity
        ``.segments`` is ``{user: segment}`` for ``segments=``; ``.describe()``
        says the rule.

    Examples
    --------
    >>> train = {"user": ["a", "a", "a", "a", "b", "c", "c"], "item": [1, 2, 3, 4, 1, 1, 2]}
    >>> activity_segments(train, ["a", "b", "c", "d"]).segments
    {'a': 'heavy', 'b': 'light', 'c': 'light', 'd': 'new'}
    >>> activity_segments(train, ["a", "b", "c", "d"], heavy=2).segments
    {'a': 'heavy', 'b': 'light', 'c': 'heavy', 'd': 'new'}
    """
    import pyarrow.compute as pc

    if heavy is not None and (isinstance(heavy, bool) or not isinstance(heavy, (int, np.integer))
                              or heavy < 2):
        raise InvalidParameterError(
            f"heavy must be an integer of at least 2 (the fewest training interactions of a "
            f"heavy user), got {heavy!r} ({type(heavy).__name__})")
    table = as_table(train, "train")
    counted = pc.value_counts(table.column(find_column(table, "user", columns, "train")))
    known = counted.field("values")
    counts = np.asarray(counted.field("counts"), dtype=np.int64)
    median = float(np.median(counts)) if len(counts) else 0.0
    chosen = heavy is not None
    if heavy is None:
        heavy = max(2, math.floor(median) + 1)
    wanted = _users(users, columns)
    if len(wanted) and len(known) and wanted.type != known.type:
        raise InvalidParameterError(
            f"the users are {wanted.type} and the training users {known.type}: give the ids "
            "of both in one type")
    position = np.asarray(pc.index_in(wanted, value_set=known).fill_null(-1), dtype=np.int64)
    n = np.where(position >= 0, counts[np.maximum(position, 0)], 0)
    level = np.where(n == 0, 0, np.where(n < heavy, 1, 2))
    labels = np.asarray(ACTIVITY, dtype=object)[level]
    return Activity(dict(zip(wanted.to_pylist(), labels.tolist())), int(heavy), median,
                    chosen)


def _users(users: Any, columns: Mapping[str, str] | None) -> Any:
    """The distinct users, as an Arrow array, in order of first appearance."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(users, pa.ChunkedArray):
        array = users.combine_chunks()
    elif isinstance(users, pa.Array):
        array = users
    elif isinstance(users, (list, tuple, np.ndarray)) or type(users).__name__ in ("Series",
                                                                                  "Index"):
        array = pa.array(list(users) if not isinstance(users, np.ndarray) else users)
    else:
        table = as_table(users, "held_out")
        array = table.column(find_column(table, "user", columns, "held_out")).combine_chunks()
    return pc.unique(array)
