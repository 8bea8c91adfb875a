"""rankwise's optional C modules: loaded when they were built, and switchable off.

``pip install`` compiles them where a C compiler is (see ``setup.py``); where
none is, or with ``RANKWISE_NO_C=1`` in the environment, rankwise computes the
same results through pyarrow. See ``docs/reading.md``.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

__all__ = ["enabled", "load"]


def enabled() -> bool:
    """Whether the C modules may be used (``RANKWISE_NO_C`` is unset, empty or ``0``)."""
    return os.environ.get("RANKWISE_NO_C", "") in ("", "0")


def load(name: str) -> Any:
    """The compiled module *name*, or None where it was not built."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None
