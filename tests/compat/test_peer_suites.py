"""benchmarks/peer_suites.py points a peer's import at its drop-in and counts the outcomes.

On small suites written here (the peers' own suites are not part of
rankwise): a pytest one and a script one that adds a test in its
``__main__`` block, as pytrec_eval's does; with the drop-in, with ``--real``,
and with a test excepted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pytrec_eval")
SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "peer_suites.py"
pytestmark = [pytest.mark.skipif(not SCRIPT.exists(), reason="benchmarks/ is not here (an sdist)"),
              pytest.mark.slow]  # a fresh interpreter per suite: seconds each

PYTEST_SUITE = '''
import importlib

import pytest
import pytrec_eval


def test_the_module_is_the_one_asked_for():
    assert pytrec_eval.__name__ == EXPECTED


def test_a_submodule_the_drop_in_lacks_is_not_the_peers():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("pytrec_eval.no_such_module")


def test_a_failure():
    assert pytrec_eval.RelevanceEvaluator({"q": {"d": 1}}, {"P_1"}).evaluate(
        {"q": {"d": 1.0}}) == {"q": {"P_1": 0.5}}
'''

SCRIPT_SUITE = '''
import unittest

import pytrec_eval


class Keys(unittest.TestCase):
    def test_keys(self):
        got = pytrec_eval.RelevanceEvaluator({"q": {"d": 1}}, {"P_1"}).evaluate({"q": {"d": 1.0}})
        self.assertEqual(got, {"q": {"P_1": 1.0}})


if __name__ == "__main__":
    def added(self):
        self.assertEqual(pytrec_eval.__name__, EXPECTED)

    Keys.test_added_under_main = added
    unittest.main()
'''


def run(folder: Path, *arguments: str) -> tuple[int, dict]:
    out = folder / "outcomes.json"
    done = subprocess.run([sys.executable, str(SCRIPT), "--peer", "pytrec_eval", *arguments,
                           "--json", str(out), str(folder / "suite")],
                          capture_output=True, text=True, check=False)
    assert out.exists(), done.stderr
    return done.returncode, json.loads(out.read_text())


def write(folder: Path, name: str, text: str, expected: str) -> None:
    (folder / "suite").mkdir(exist_ok=True)
    (folder / "suite" / name).write_text(text.replace("EXPECTED", repr(expected)))


def test_a_pytest_suite_runs_on_the_drop_in(tmp_path: Path) -> None:
    write(tmp_path, "test_suite.py", PYTEST_SUITE, "rankwise.compat.pytrec_eval")
    code, report = run(tmp_path, "--runner", "pytest", "--except", "*test_a_failure=why")
    assert report["counts"] == {"run": 3, "passed": 2, "failed": 0, "error": 0, "skipped": 0,
                                "excepted": 1}
    excepted = [r for r in report["results"] if r["status"] == "excepted"]
    assert excepted[0]["outcome"] == "failed" and excepted[0]["why"] == "why"
    assert code == 0  # every test not excepted passed


def test_real_runs_the_installed_peer(tmp_path: Path) -> None:
    write(tmp_path, "test_suite.py", PYTEST_SUITE, "pytrec_eval")
    _, report = run(tmp_path, "--runner", "pytest", "--real")
    outcomes = {r["id"].rsplit("::", 1)[1]: r["outcome"] for r in report["results"]}
    # the installed peer has no such submodule either, and P_1 is 1.0 there too
    assert outcomes == {"test_the_module_is_the_one_asked_for": "passed",
                        "test_a_submodule_the_drop_in_lacks_is_not_the_peers": "passed",
                        "test_a_failure": "failed"}


def test_a_script_suite_runs_with_the_tests_its_main_block_adds(tmp_path: Path) -> None:
    write(tmp_path, "suite_tests.py", SCRIPT_SUITE, "rankwise.compat.pytrec_eval")
    code, report = run(tmp_path, "--runner", "script", "--pattern", "*_tests.py")
    assert sorted(r["id"] for r in report["results"]) == [
        "suite_tests.py::Keys.test_added_under_main", "suite_tests.py::Keys.test_keys"]
    assert report["counts"]["passed"] == 2 and code == 0
    (tmp_path / "suite" / "suite_tests.py").write_text("import pytrec_eval\nassert False\n")
    code, report = run(tmp_path, "--runner", "script", "--pattern", "*_tests.py")
    assert report["counts"]["error"] == 1 and code == 1  # the file itself failed
