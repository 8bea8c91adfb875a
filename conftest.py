"""Collection rules for the whole repository (the doctests of src/rankwise included).

The training-loop integrations import their library when imported (a clear
``MissingDependencyError`` for users). Their doctests are collected only where that
library is installed, so the test command passes on a machine without an optional extra.
"""

from importlib.util import find_spec
from pathlib import Path

_INTEGRATIONS = Path(__file__).parent / "src" / "rankwise" / "integrations"

# module file -> the import it needs
_NEEDS = {"catboost.py": "catboost", "lightgbm.py": "lightgbm", "xgboost.py": "xgboost",
          "sklearn.py": "sklearn"}

collect_ignore = [str(_INTEGRATIONS / name) for name, module in _NEEDS.items()
                  if find_spec(module) is None]
