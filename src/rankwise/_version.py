"""The version of rankwise: written here only.

``pyproject.toml`` reads it at build time (``[tool.setuptools.dynamic]``), so the
package's metadata, ``rankwise.__version__`` and ``rankwise --version`` always agree.
"""

__version__ = "0.1.0"
