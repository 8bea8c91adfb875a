"""The README's development section and the benchmarks work on any machine (issue 13, item 22)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_shows_the_fast_subset_and_the_full_suite() -> None:
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Development"):]
    commands = re.findall(r"^(pytest[^#\n]*?)\s*(?:#|$)", section, re.MULTILINE)
    assert 'pytest -m "not slow"' in commands
    assert "pytest" in commands


def test_benchmarks_name_no_absolute_path_of_one_machine() -> None:
    files = [ROOT / "benchmarks" / "README.md", *sorted((ROOT / "benchmarks").glob("*.py"))]
    for path in files:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            assert not re.search(r"[\"'`(\s]/(work|home|Users|root)/", line), (
                f"{path.name}:{number}: {line.strip()}")


def test_the_generator_default_is_beside_the_repository() -> None:
    for name in ("bench_msmarco.py", "bench_spark.py", "bench_compressed.py"):
        source = (ROOT / "benchmarks" / name).read_text()
        assert ('DEFAULT_GENERATOR = os.path.join(REPO, "..", "shared", "bench", '
                '"gen_msmarco_like.py")') in source, name
