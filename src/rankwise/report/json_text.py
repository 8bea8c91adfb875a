"""JSON as every output writes it: strict JSON (RFC 8259), NaN and infinities as ``null``.

Python's ``json.dumps`` writes a NaN as ``NaN``, which is not JSON (a browser's
``JSON.parse``, ``jq`` and most parsers reject it). Every JSON and JSONL text
rankwise writes goes through :func:`json_text` (the table writers of
:mod:`rankwise.report.tables` write the same ``null`` cell by cell).
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["json_ready", "json_text"]


def json_ready(value: Any) -> Any:
    """*value* with every NaN or infinite float as None, numpy values as Python ones.

    Examples
    --------
    >>> json_ready({"share": float("nan"), "steps": [1.5, (float("inf"), "x")]})
    {'share': None, 'steps': [1.5, [None, 'x']]}
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, (str, int, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {key: json_ready(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(item) for item in value]
    if hasattr(value, "dtype") and hasattr(value, "tolist"):  # a numpy scalar or array
        return json_ready(value.tolist())
    return value


def json_text(value: Any, *, indent: int | None = None) -> str:
    """*value* as strict JSON text: NaN and infinities as ``null``, text as UTF-8.

    Parameters
    ----------
    value : object
        Dicts, lists, tuples, strings, numbers (numpy's too), booleans, None.
    indent : int, optional
        Indentation (``json``), or one line (``jsonl``) when None.

    Returns
    -------
    str
        Without a final newline.

    Raises
    ------
    TypeError
        *value* holds something JSON cannot (a set, an object).

    Examples
    --------
    >>> print(json_text({"run": "bm25", "p": float("nan"), "delta": -float("inf")}))
    {"run": "bm25", "p": null, "delta": null}
    """
    import json  # only the json formats need it

    return json.dumps(json_ready(value), indent=indent, ensure_ascii=False, allow_nan=False)
