"""The libraries stay optional: without one, its module says what to install."""

from __future__ import annotations

import importlib
import importlib.util
import sys

import pytest

import rankwise

MODULES = {"lightgbm": "lightgbm", "xgboost": "xgboost", "catboost": "catboost",
           "sklearn": "sklearn"}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_importing_without_the_library_says_what_to_install(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    library = MODULES[name]
    real = importlib.util.find_spec

    def find_spec(module: str, *args: object, **kwargs: object) -> object:
        return None if module == library else real(module, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    monkeypatch.delitem(sys.modules, f"rankwise.integrations.{name}", raising=False)
    with pytest.raises(rankwise.MissingDependencyError,
                       match=rf"pip install 'rankwise\[{name}\]'") as caught:
        importlib.import_module(f"rankwise.integrations.{name}")
    assert isinstance(caught.value, ImportError)


def test_import_rankwise_integrations_imports_no_library() -> None:
    import subprocess

    libraries = "('lightgbm', 'xgboost', 'catboost', 'sklearn')"
    code = f"import sys, rankwise.integrations; print([m for m in {libraries} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
