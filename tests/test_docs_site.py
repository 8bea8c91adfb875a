"""The documentation site: every example of every page runs, and the generated pages (the
measure catalogue, the command line and API references) cover the code.

Pages whose examples another test runs are listed in RUN_ELSEWHERE (that test runs them);
this file runs the python examples of every other page, the command lines of every
``console`` block (in an empty folder, their output compared), the examples of the API
reference, and checks that no page can drift from the code: every public function and
class has an API page and an example, every measure family and command a section.
"""

from __future__ import annotations

import doctest
import importlib.util
import inspect
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SRC = ROOT / "src"

RUN_ELSEWHERE = {
    "compat.md": "tests/compat/test_docs.py",
    "dialects.md": "tests/dialects/test_docs.py",
    "fusion.md": "tests/fusion/test_docs.py",
    "python-inputs.md": "tests/io/test_docs_python_inputs.py",
    "measures.md": "tests/measures/test_docs.py",
    "recommenders.md": "tests/recommenders/test_docs.py",
    "report.md": "tests/report/test_docs.py",
    "compare.md": "tests/stats/test_docs.py",
    "statistics.md": "tests/stats/test_docs.py",
    "tutorial-metrics.md": "tests/test_metrics.py",
}
"""Pages whose python examples another test runs: page -> that test."""

FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


def _pages() -> list[Path]:
    if not DOCS.exists():
        pytest.skip("docs/ not present (installed package)")
    return sorted(p for p in DOCS.rglob("*.md") if "_site" not in p.parts)


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.M | re.S)


def _site_module(name: str) -> Any:
    path = DOCS / "_site" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"rankwise_site_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module


@pytest.fixture(scope="module")
def pages() -> Any:
    return _site_module("pages")


def _run_doctests(text: str, name: str, folder: Path) -> doctest.TestResults:
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        runner.run(parser.get_doctest(text, {}, name, name, 0))
    finally:
        os.chdir(cwd)
    return runner.summarize(verbose=False)


def _console(text: str, folder: Path) -> list[tuple[str, str, str]]:
    """Run each ``$ rankwise ...`` line of the page's console blocks in *folder*; return
    (command, expected output, actual output: standard output, then standard error)."""
    env = {**os.environ, "PYTHONPATH": str(SRC), "COLUMNS": "100"}
    done = []
    for block in _blocks(text, "console"):
        chunks = re.split(r"^\$ ", block, flags=re.M)[1:]
        for chunk in chunks:
            command, _, expected = chunk.partition("\n")
            words = shlex.split(command)
            assert words[0] == "rankwise", command
            out = subprocess.run([sys.executable, "-m", "rankwise", *words[1:]], cwd=folder,
                                 capture_output=True, text=True, env=env, check=False)
            assert out.returncode == 0, f"{command}: {out.stderr}"
            done.append((command, expected, out.stdout + out.stderr))
    return done


# -- every page's examples -------------------------------------------------------------------

def test_every_page_with_examples_is_run_by_a_test() -> None:
    for page in _pages():
        name = page.relative_to(DOCS).as_posix()
        if name in RUN_ELSEWHERE:
            assert name in (ROOT / RUN_ELSEWHERE[name]).read_text(), name
    listed = set(RUN_ELSEWHERE)
    assert listed <= {p.relative_to(DOCS).as_posix() for p in _pages()}


@pytest.mark.parametrize("page", [p.relative_to(DOCS).as_posix() for p in sorted(
    q for q in DOCS.rglob("*.md") if "_site" not in q.parts)] if DOCS.exists() else [])
def test_the_page_runs(page: str, tmp_path: Path) -> None:
    text = (DOCS / page).read_text(encoding="utf-8")
    # command lines first: a page's python examples may read the files they wrote
    for command, expected, actual in _console(text, tmp_path):
        assert actual == expected, command
    python = _blocks(text, "python")
    for block in python:
        if ">>>" not in block:  # code to read, not a session: it must at least compile
            compile(block, page, "exec")
    if page in RUN_ELSEWHERE:
        return
    doctests = "\n".join(block for block in python if ">>>" in block)
    result = _run_doctests(doctests, page, tmp_path)
    assert result.failed == 0


def test_the_new_pages_have_examples() -> None:
    for page in ("index.md", "getting-started.md", "guide.md", "migrate/trec_eval.md",
                 "migrate/pytrec_eval.md", "migrate/ir_measures.md", "migrate/ranx.md"):
        text = (DOCS / page).read_text()
        assert ">>>" in text, page


def test_the_guide_s_rules_table_is_the_code() -> None:
    from rankwise.guidance import RULES

    rows = ["| rule | about | reads | applies when | suggests |", "|---|---|---|---|---|"]
    for rule in RULES:
        suggests = ", ".join([f"`{m}`" for m in rule.measures]
                             + [f'`{key}="{value}"`' for key, value in rule.options])
        rows.append(f"| `{rule.name}` | {rule.topic} | {rule.scope} | {rule.when} | {suggests} |")
    text = (DOCS / "guide.md").read_text()
    found = re.search(r"<!-- rules -->\n(.*?)\n<!-- /rules -->", text, re.S)
    assert found, "docs/guide.md has no <!-- rules --> table"
    assert found.group(1) == "\n".join(rows)


def test_the_guide_page_shows_what_the_command_prints(tmp_path: Path) -> None:
    text = (DOCS / "guide.md").read_text()
    runs = _console(text, tmp_path)
    assert [command for command, _, _ in runs][-1] == (
        "rankwise guide demo/qrels.test demo/results.test")


# -- the generated pages ---------------------------------------------------------------------

GBDT_MODULES = ("rankwise.integrations.lightgbm", "rankwise.integrations.xgboost",
                "rankwise.integrations.catboost")
"""The public modules that import only beside their library (the peers' stage checks them)."""


def _check_api_pages(pages: Any, modules: tuple[str, ...]) -> None:
    """*modules*' public names (and ``rankwise``'s) each on one API page, with an example."""
    left_out = set(GBDT_MODULES) - set(modules)

    def checked(name: str) -> bool:
        return name.rpartition(".")[0] not in left_out

    documented = [name for _, _, _, names in pages.GROUPS for name in names if checked(name)]
    assert len(documented) == len(set(documented)), "a name is on two pages"
    assert set(documented) == set(pages.public_names(modules))
    missing = [name for name in documented
               if (inspect.isclass(pages.resolve(name)) or callable(pages.resolve(name)))
               and not pages.has_example(name)]
    assert missing == []
    # an example of the table is for a name whose docstring has none
    stale = [name for name in pages.EXAMPLES if name in documented
             and ">>>" in (inspect.getdoc(pages.resolve(name)) or "")]
    assert stale == []
    # and every example of the table is for a documented name
    assert [name for name in pages.EXAMPLES if checked(name) and name not in documented] == []


def test_every_public_function_and_class_has_an_api_page_and_an_example(pages: Any) -> None:
    _check_api_pages(pages, tuple(module for module in pages.PUBLIC_MODULES
                                  if module not in GBDT_MODULES))


def test_the_gbdt_integrations_have_api_pages_and_examples(pages: Any) -> None:
    pytest.importorskip("lightgbm")  # literal names: tests/peer_marks.py marks the test by them
    pytest.importorskip("xgboost")
    pytest.importorskip("catboost")
    _check_api_pages(pages, pages.PUBLIC_MODULES)


def _examples(pages: Any, needs: str | None) -> dict[str, str]:
    def kind(name: str, text: str) -> str | None:
        if name.startswith("rankwise.spark."):
            return "spark"
        if "importorskip" in text:
            return "peer"
        return None

    return {name: text for name, text in pages.EXAMPLES.items() if kind(name, text) == needs}


def test_the_api_examples_run(pages: Any, tmp_path: Path) -> None:
    examples = _examples(pages, None)
    assert len(examples) >= 25
    for name, text in examples.items():
        assert _run_doctests(text, name, tmp_path).failed == 0, name


def test_the_api_examples_that_need_a_peer_run(pages: Any, tmp_path: Path) -> None:
    pytest.importorskip("ir_measures")  # literal names: tests/peer_marks.py marks the test by them
    pytest.importorskip("lightgbm")
    pytest.importorskip("xgboost")
    pytest.importorskip("catboost")
    pytest.importorskip("matplotlib")
    for name, text in _examples(pages, "peer").items():
        assert _run_doctests(text, name, tmp_path).failed == 0, name


def test_the_spark_api_examples_run(pages: Any, tmp_path: Path) -> None:
    pytest.importorskip("pyspark")
    from rankwise.engines.spark import find_java  # noqa: F401 - skips below without Java

    if subprocess.run(["java", "-version"], capture_output=True, check=False).returncode:
        pytest.skip("no Java")
    for name, text in _examples(pages, "spark").items():
        assert _run_doctests(text, name, tmp_path).failed == 0, name


def test_the_api_pages_name_only_public_names(pages: Any) -> None:
    hooks = _site_module("hooks")
    for path, text in pages.api_pages().items():
        for name in re.findall(r"^::: (\S+)$", text, re.M):
            assert hooks._public_path(name), (path, name)
    assert hooks.private_links('<a href="../data/#rankwise.Qrels">') == []
    assert hooks.private_links('<a href="x/#rankwise.io.coerce.as_qrels">') == [
        "x/#rankwise.io.coerce.as_qrels"]


def test_the_measure_catalogue_lists_every_family(pages: Any) -> None:
    from rankwise.measures.catalog import FAMILIES

    text = pages.measures_page()
    for family in FAMILIES.values():
        assert f"\n### {family.name}\n" in text, family.name
    assert "ndcg_cut" in text  # trec_eval's names


def test_the_cli_reference_has_every_command(pages: Any) -> None:
    from rankwise.cli.app import COMMANDS

    text = pages.cli_page()
    for name in COMMANDS:
        assert f"\n## rankwise {name}\n" in text, name
    assert "usage: rankwise guide [-h] [-k K]" in text and "QRELS [RUN ...]" in text


def test_the_docstring_roles_become_public_links_or_code() -> None:
    pytest.importorskip("griffe")  # the [docs] extra: CI's documentation stage runs this test
    roles = _site_module("roles")
    assert roles.convert(":func:`rankwise.compare`") == "[`rankwise.compare`][rankwise.compare]"
    assert roles.convert(":class:`~rankwise.results.Results`") == "[`Results`][rankwise.Results]"
    assert roles.convert(":meth:`rankwise.Results.to_table`") == (
        "[`rankwise.Results.to_table`][rankwise.Results]")
    assert roles.convert(":func:`rankwise.io.coerce.as_qrels`") == (
        "`rankwise.io.coerce.as_qrels`")
