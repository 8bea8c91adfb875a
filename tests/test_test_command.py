"""The README's test command passes on a machine with only Python and pip.

The tests that need an optional peer or pyspark carry the ``peers`` or
``spark`` mark (tests/conftest.py), which the default command leaves out;
asked for without the tool installed, each of them skips, none fails
(issue 33, item 26: a machine with a JDK and no pyspark failed two tests).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from peer_marks import peer_marks

ROOT = Path(__file__).resolve().parents[1]

# a sitecustomize that makes the named modules absent, as on a machine without them: import
# fails and importlib.util.find_spec says None
_HIDE = textwrap.dedent("""
    import sys

    for name in {hidden!r}:
        sys.modules[name] = None
""")


def _pytest_without(tmp_path: Path, hidden: set[str], *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "sitecustomize.py").write_text(_HIDE.format(hidden=hidden), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(tmp_path), *filter(None, [os.environ.get("PYTHONPATH")])])}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )


def test_spark_tests_skip_without_pyspark_even_with_a_jdk(tmp_path: Path) -> None:
    files = ["tests/engines/spark/test_jvm.py", "tests/engines/spark/test_cli.py"]
    done = _pytest_without(tmp_path, {"pyspark"}, "-m", "spark", *files)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    last = done.stdout.strip().splitlines()[-1]
    assert "skipped" in last and "passed" not in last and "failed" not in last, last
    assert "pyspark is not installed" in done.stdout


def test_the_marks_follow_what_a_test_imports() -> None:
    assert peer_marks("    import lightgbm as lgb\n") == {"peers"}
    skip = "importor" + "skip"  # spelled apart: this test itself imports no peer
    assert peer_marks(f"x = pytest.{skip}('matplotlib')") == {"peers"}
    assert peer_marks("from pyspark.sql import functions") == {"spark"}
    assert peer_marks("from rankwise.compat import ir_measures") == set()
    assert peer_marks("import rankwise.integrations.lightgbm") == set()


@pytest.mark.slow
def test_peer_tests_skip_without_their_peers(tmp_path: Path) -> None:
    """Every test marked ``peers`` skips (or passes without the peer), none fails."""
    hidden = {"lightgbm", "xgboost", "catboost", "matplotlib", "ranx", "ir_measures"}
    done = _pytest_without(tmp_path, hidden, "-m", "peers and not slow", "tests")
    assert done.returncode in (0, 5), done.stdout[-3000:] + done.stderr[-3000:]
    assert " failed" not in done.stdout.strip().splitlines()[-1]
