"""The public namespace and the cost of importing it."""

from __future__ import annotations

import subprocess
import sys

import rankwise


def test_exports_are_listed_and_exist() -> None:
    for name in rankwise.__all__:
        assert hasattr(rankwise, name), name
    for name in ("evaluate", "Qrels", "Run", "Results", "Measure", "parse", "read_qrels",
                 "read_run", "RankwiseError", "InputFormatError", "UnknownMeasureError",
                 "guide", "Guide"):
        assert name in rankwise.__all__, name


def test_import_loads_no_heavy_dependency() -> None:
    code = (
        "import sys, rankwise, rankwise.metrics\n"
        "heavy = [m for m in ('pyarrow', 'pandas', 'polars', 'scipy', 'matplotlib', 'pyspark',"
        " 'sklearn') if m in sys.modules]\n"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_errors_share_one_base_class() -> None:
    from rankwise import exceptions

    for name in exceptions.__all__:
        if name == "RankwiseWarning":
            assert issubclass(exceptions.RankwiseWarning, UserWarning)
            continue
        assert issubclass(getattr(exceptions, name), rankwise.RankwiseError)


def test_all_is_exactly_the_public_names() -> None:
    import types

    public = {
        name for name, value in vars(rankwise).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    } - {"annotations", "importlib", "TYPE_CHECKING", "Any"}
    assert set(rankwise.__all__) == public | set(rankwise._LAZY) | {"__version__"}
    for name in rankwise.__all__:
        assert getattr(rankwise, name) is not None
    assert sorted(rankwise.__all__) == rankwise.__all__


def test_every_public_exception_is_exported() -> None:
    from rankwise import exceptions

    assert set(exceptions.__all__) <= set(rankwise.__all__)
    for name in exceptions.__all__:
        assert getattr(rankwise, name) is getattr(exceptions, name)


def test_guide_is_the_function_after_its_package_is_imported() -> None:
    """The guide lives in rankwise.guidance: a module called rankwise.guide would replace
    the function rankwise.guide with itself once imported (the CLI imports it)."""
    code = ("import rankwise, rankwise.cli.commands.guide, rankwise.guidance\n"
            "print(callable(rankwise.guide), rankwise.guide.__module__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "rankwise.guidance.advisor"]
