"""The README's development section and the benchmarks work on any machine (issue 13, item 22)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# the repository's tooling: not in the sdist, whose tests CI runs against the installed package
repository_only = pytest.mark.skipif(
    not (ROOT / ".ci" / "run").is_file() or not (ROOT / "benchmarks").is_dir(),
    reason="the repository's .ci and benchmarks are not here (an unpacked sdist)")


def test_readme_shows_the_fast_subset_and_the_full_suite() -> None:
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Development"):]
    commands = re.findall(r"^(pytest[^#\n]*?)\s*(?:#|$)", section, re.MULTILINE)
    assert "pytest" in commands  # the suite run every time
    assert 'pytest -m "slow or spark or peers"' in commands  # what CI adds
    assert 'pytest -m ""' in commands  # everything


@repository_only
def test_ci_runs_the_readme_test_command_first_then_what_it_leaves_out() -> None:
    readme = (ROOT / "README.md").read_text()
    quick = readme[readme.index("## Quick start"):readme.index("## Use")]
    test_command = re.findall(r"^(pip install -e .*pytest)$", quick, re.MULTILINE)
    assert test_command == ["pip install -e '.[test]' && pytest"]
    steps = [line for line in (ROOT / ".ci" / "run").read_text().splitlines()
             if line and not line.startswith(("#", " ", "set ", "cd ", "export ", "if ", "fi",
                                                "SUDO", "{", "||"))]
    assert steps[0] == test_command[0]  # before anything installs a peer
    what_it_leaves_out = 'python -m pytest -q -p no:cacheprovider -m "slow or spark or peers"'
    assert any(step.startswith(what_it_leaves_out) for step in steps)  # (-n 2: both cores)


@repository_only
def test_benchmarks_name_no_absolute_path_of_one_machine() -> None:
    files = [ROOT / "benchmarks" / "README.md", *sorted((ROOT / "benchmarks").glob("*.py"))]
    for path in files:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            assert not re.search(r"[\"'`(\s]/(work|home|Users|root)/", line), (
                f"{path.name}:{number}: {line.strip()}")


@repository_only
def test_the_generator_default_is_beside_the_repository() -> None:
    for name in ("bench_msmarco.py", "bench_spark.py", "bench_compressed.py"):
        source = (ROOT / "benchmarks" / name).read_text()
        assert ('DEFAULT_GENERATOR = os.path.join(REPO, "..", "shared", "bench", '
                '"gen_msmarco_like.py")') in source, name
