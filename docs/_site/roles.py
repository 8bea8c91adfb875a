"""A griffe extension: the Sphinx roles of rankwise's docstrings as Markdown links.

rankwise's numpydoc docstrings cross-reference with Sphinx roles
(``:func:`rankwise.compare```, ``:class:`~rankwise.results.Results```). For the
site, a role whose target is a public name (or the internal home of one:
``rankwise.results.Results`` is ``rankwise.Results``) becomes an autorefs link
to its API page; any other target becomes plain code, never a link to an
internal module. ``:math:`x``` becomes code too.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import sys
from typing import Any

import griffe

sys.path.insert(0, os.path.dirname(__file__))

ROLE = re.compile(r":(?:py:)?(func|class|meth|mod|data|attr|exc|obj|const|math):`([^`]+)`")


@functools.cache
def _public() -> tuple[frozenset[str], dict[str, str]]:
    """The documented public names, and internal path -> public name."""
    import pages

    names = frozenset(name for _, _, _, group in pages.GROUPS for name in group)
    homes: dict[str, str] = {}
    for name in names:
        obj = pages.resolve(name)
        module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
        if isinstance(module, str) and isinstance(qualname, str):
            homes.setdefault(f"{module}.{qualname}", name)
    for module in (*pages.PUBLIC_MODULES, "rankwise"):
        importlib.import_module(module)
    return names, homes


def _target(text: str) -> str | None:
    """The public name a role's target stands for (None: not public)."""
    names, homes = _public()
    text = text.strip().lstrip(".")
    for candidate in (text, f"rankwise.{text}"):
        if candidate in names:
            return candidate
        if candidate in homes:
            return homes[candidate]
    owner, _, _ = text.rpartition(".")  # a member: link to its class
    return _target(owner) if owner and owner != text else None


def convert(docstring: str) -> str:
    """Replace every role of *docstring*.

    Examples
    --------
    >>> convert("see :func:`rankwise.compare` and :class:`~rankwise.results.Results`")
    'see [`rankwise.compare`][rankwise.compare] and [`Results`][rankwise.Results]'
    >>> convert(":func:`rankwise.io.coerce.as_qrels`, :math:`2^g - 1`")
    '`rankwise.io.coerce.as_qrels`, `2^g - 1`'
    """

    def replace(match: re.Match[str]) -> str:
        role, text = match.group(1), match.group(2)
        explicit = re.fullmatch(r"(.*?)\s*<([^>]+)>", text)
        title, target = (explicit.group(1), explicit.group(2)) if explicit else (text, text)
        short = target.startswith("~")
        target = target.lstrip("~")
        shown = target.rpartition(".")[2] if short and not explicit else title.lstrip("~")
        public = None if role == "math" else _target(target)
        return f"[`{shown}`][{public}]" if public else f"`{shown}`"

    return ROLE.sub(replace, docstring)


class Roles(griffe.Extension):
    """Convert the roles of every docstring griffe loads."""

    def on_instance(self, *, node: Any, obj: griffe.Object, agent: Any, **kwargs: Any) -> None:
        """Convert the roles of *obj*'s docstring."""
        if obj.docstring is not None:
            obj.docstring.value = convert(obj.docstring.value)
