"""The layers of the package: imports point down, and no module takes part in a circle.

Every ``import`` in ``src/rankwise`` counts, at module level, inside a
function, and under ``if TYPE_CHECKING:`` too: a type-only import still ties
a module to the one it names (a layer that needs the shape of an object
from above defines a Protocol of its own; see rankwise.report.protocols). A
module may import its own layer or a lower one; see docs/architecture.md.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "src" / "rankwise"

# low to high; a module belongs to the longest prefix listed
LAYERS: list[tuple[str, ...]] = [
    ("rankwise._version", "rankwise.exceptions", "rankwise.suggest", "rankwise._files",
     "rankwise._compiled", "rankwise._threads", "rankwise._wording", "rankwise._validation"),
    ("rankwise.options",),
    ("rankwise.data",),
    ("rankwise.measures",),
    ("rankwise.io",),
    ("rankwise.ranking",),
    ("rankwise.kernels", "rankwise.metrics"),
    ("rankwise.report",),
    ("rankwise.results", "rankwise._tabular"),
    ("rankwise.engines",),
    ("rankwise.stats",),
    ("rankwise.fusion",),
    ("rankwise.evaluation",),
    ("rankwise.comparison", "rankwise.design", "rankwise.reproducibility",
     "rankwise.explanation", "rankwise.recommenders", "rankwise.fusion.optimize"),
    ("rankwise.reporting", "rankwise.spark", "rankwise.guidance"),
    ("rankwise.compat", "rankwise.integrations"),
    ("rankwise.cli",),
    ("rankwise", "rankwise.__main__"),
]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SOURCE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(path): path for path in sorted(SOURCE.rglob("*.py"))}


def layer_of(module: str) -> int:
    best, rank = -1, -1
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), index
    if rank < 0:
        raise AssertionError(f"module {module} is in no layer: add it to LAYERS")
    return rank


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _resolve(target: str) -> str | None:
    """The module of the package an import names (a name inside a module: that module)."""
    while target and target not in MODULES:
        target = target.rpartition(".")[0]
    return target or None


def imports_in(source: str, package: str) -> tuple[set[str], set[str]]:
    """The rankwise modules *source* imports: ``(at run time, under TYPE_CHECKING only)``.

    *package* resolves relative imports (the module's package).
    """
    tree = ast.parse(source)
    found: set[str] = set()
    typed: set[str] = set()

    def visit(node: ast.AST, into: set[str]) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.body:
                visit(child, typed)
            for child in node.orelse:
                visit(child, into)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "rankwise":
                    resolved = _resolve(alias.name)
                    if resolved:
                        into.add(resolved)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            if base.split(".")[0] == "rankwise":
                for alias in node.names:
                    resolved = _resolve(f"{base}.{alias.name}")
                    if resolved:
                        into.add(resolved)
        for child in ast.iter_child_nodes(node):
            visit(child, into)

    visit(tree, found)
    return found, typed - found


def imports_of(module: str) -> set[str]:
    """The rankwise modules *module* imports: at run time or under ``if TYPE_CHECKING:``."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    run_time, type_only = imports_in(path.read_text(encoding="utf-8"), package)
    return (run_time | type_only) - {module}


GRAPH = {module: imports_of(module) for module in MODULES}


def _is_parent_package(importer: str, imported: str) -> bool:
    return importer.startswith(imported + ".")


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_down(module: str) -> None:
    upward = sorted(
        target for target in GRAPH[module] if layer_of(target) > layer_of(module)
    )
    assert upward == [], f"{module} (layer {layer_of(module)}) imports upward: {upward}"


def test_no_import_circles() -> None:
    # a package's __init__ re-exports its submodules: importing a sibling through the
    # package (``from rankwise.kernels import x`` inside rankwise.kernels.core) is a circle
    state: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def walk(module: str) -> None:
        state[module] = 1
        stack.append(module)
        for target in sorted(GRAPH[module]):
            if state.get(target) == 1:
                circles.append([*stack[stack.index(target):], target])
            elif target not in state:
                walk(target)
        stack.pop()
        state[module] = 2

    for module in sorted(GRAPH):
        if module not in state:
            walk(module)
    assert circles == [], "import circles:\n" + "\n".join(" -> ".join(c) for c in circles)


def test_every_module_is_in_a_layer() -> None:
    for module in MODULES:
        layer_of(module)


def test_the_walker_sees_function_level_imports() -> None:
    # a check that cannot fail proves nothing: the walker must see this file's own shapes
    tree_source = "def f():\n    from rankwise.cli import main\n"
    assert imports_in(tree_source, "rankwise") == ({"rankwise.cli"}, set())
    assert "rankwise.measures.catalog" in GRAPH["rankwise.measures.parser"]


def test_the_walker_counts_type_only_imports() -> None:
    """An import under ``if TYPE_CHECKING:`` is an edge of the graph like any other."""
    source = ("from typing import TYPE_CHECKING\nimport typing\n"
              "if TYPE_CHECKING:\n    from rankwise.results import Results\n"
              "if typing.TYPE_CHECKING:\n    import rankwise.comparison\n"
              "else:\n    from rankwise.measures import Measure\n")
    run_time, type_only = imports_in(source, "rankwise.report")
    assert run_time == {"rankwise.measures"}
    assert type_only == {"rankwise.results", "rankwise.comparison"}
    # and such an import from a lower layer to a higher one is refused
    upward = sorted(t for t in type_only if layer_of(t) > layer_of("rankwise.report.html"))
    assert upward == ["rankwise.comparison", "rankwise.results"]


def test_report_reads_protocols_not_the_objects_it_presents() -> None:
    """report/ names no module above it, not even for a type hint (issue 34, item 4)."""
    above = {module for module in MODULES if layer_of(module) > layer_of("rankwise.report")}
    for module in MODULES:
        if module.startswith("rankwise.report."):
            assert GRAPH[module].isdisjoint(above), (module, sorted(GRAPH[module] & above))
