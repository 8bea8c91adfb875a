"""MkDocs hooks of the rankwise site (mkdocs.yml ``hooks:``).

- ``on_files``: add the pages generated from the code (``pages.generated()``:
  the measure catalogue, the command line reference, the API reference);
- ``on_post_page``: a page that links to an internal module (an anchor or a
  path of a ``rankwise`` module that is not public) is a warning, so
  ``mkdocs build --strict`` fails on it.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(__file__))

import pages

log = logging.getLogger("mkdocs.hooks.rankwise")

_HREF = re.compile(r"""href=["']([^"']+)["']""")


def _public_path(path: str) -> bool:
    """Whether a dotted ``rankwise...`` path is in the public namespace."""
    import rankwise

    parts = path.split(".")
    if parts[0] != "rankwise" or len(parts) == 1:
        return True
    if parts[1] in rankwise.__all__:
        return True
    prefixes = (*pages.PUBLIC_MODULES, "rankwise.compat", "rankwise.integrations")
    return any(path == p or path.startswith(p + ".") for p in prefixes)


def private_links(html: str) -> list[str]:
    """The links of *html* that lead to an internal module.

    Examples
    --------
    >>> private_links('<a href="#rankwise.Results">x</a><a href="api/#rankwise.results.Results">')
    ['api/#rankwise.results.Results']
    """
    bad = []
    for href in _HREF.findall(html):
        anchor = href.partition("#")[2]
        if (anchor.startswith("rankwise.") and not _public_path(anchor)) or re.search(
                r"(^|/)src/rankwise/", href):
            bad.append(href)
    return bad


def on_files(files: Any, config: Any) -> Any:
    """Add the generated pages to the site's files."""
    from mkdocs.structure.files import File

    for path, text in pages.generated().items():
        files.append(File.generated(config, path, content=text))
    return files


def on_post_page(output: str, page: Any, config: Any) -> str:
    """Warn about every link of the page to an internal module."""
    for href in private_links(output):
        log.warning("%s links to an internal module: %s", page.file.src_uri, href)
    return output
