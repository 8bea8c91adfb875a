#!/usr/bin/env python3
"""Run a peer's own test suite with its import pointed at a rankwise drop-in.

rankwise's drop-ins promise that code written for pytrec_eval, ir_measures or
ranx runs unchanged but for the import line. The strongest check of that
promise is the peer's own test suite: this script runs a folder of the peer's
tests in a fresh interpreter where ``import <peer>`` (and ``import
<peer>.sub``) gives the drop-in module (``rankwise.compat.<peer>``, and its
submodules), and reports each test as passed, failed, error, skipped or
excepted (a test named with ``--except``, or in the peer's table below, with
the reason it is left out).

The peers' test code is not part of rankwise: export it from the peer's
repository (CI never fetches it)::

    git clone --recursive https://github.com/terrierteam/pytrec_eval /tmp/pte
    python benchmarks/peer_suites.py --peer pytrec_eval /tmp/pte/tests
    python benchmarks/peer_suites.py --peer pytrec_eval --real /tmp/pte/tests  # the peer itself
    git clone https://github.com/AmenRa/ranx /tmp/ranx-repo  # ranx: its tests/ and conftest.py
    mkdir /tmp/ranx && git -C /tmp/ranx-repo archive HEAD tests conftest.py | tar -x -C /tmp/ranx
    python benchmarks/peer_suites.py --peer ranx /tmp/ranx  # the folder holding tests/

Two runners:

* ``script`` runs each test file (``--pattern``) as ``__main__``, as
  ``python tests/x.py`` would, with ``unittest.main`` recording each test's
  outcome (for suites that add tests in their ``if __name__ == "__main__":``
  block, as pytrec_eval's does);
* ``pytest`` collects the folder with pytest (unittest classes included),
  with an empty configuration (the folder's own ``conftest.py`` files apply).

``--module`` names the drop-in (default ``rankwise.compat.<peer>``); ``--real``
runs against the installed peer instead (what passes there is the baseline);
``--setup CODE`` runs Python code in the test interpreter before the tests
(``--real --setup "from rankwise.compat import ir_measures; ir_measures.register()"``
tests a registration instead of a replacement). The tests import rankwise
from this repository's ``src``. A subprocess the tests start does not get the
alias. Exit status 0 when every test that is not excepted passed or was
skipped, 1 otherwise.

This is a tool, not a test: nothing here is imported by pytest.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SRC = os.path.join(REPO, "src")

OUTCOMES = ("passed", "failed", "error", "skipped")


@dataclass(frozen=True)
class Peer:
    """How to run one peer's suite: its drop-in, its runner, its excepted tests."""

    module: str
    runner: str = "pytest"
    pattern: str = "*test*.py"
    excepted: dict[str, str] = field(default_factory=dict)
    """Test id pattern (fnmatch, on the ids this script prints) -> why it is left out."""


PEERS: dict[str, Peer] = {
    # tests/pytrec_eval_tests.py adds its trec_eval comparisons (two of its seven tests)
    # in its __main__ block, and reads ../trec_eval/test (the trec_eval submodule)
    "pytrec_eval": Peer("rankwise.compat.pytrec_eval", runner="script",
                        pattern="*tests.py"),
    "ir_measures": Peer("rankwise.compat.ir_measures"),
    # ranx's tests read tests/unit/ranx/test_data/... from the repository's root: give the
    # folder that holds tests/ and conftest.py (git archive HEAD tests conftest.py)
    "ranx": Peer("rankwise.compat.ranx", excepted={
        "*condorcet_test.py::test_get_candidates": "builds a numba typed list of Run.run, "
        "ranx's numba typed dicts; the drop-in's Run.run is a Python dict (numba cannot "
        "type it)",
        "*condorcet_test.py::test_get_results": "builds a numba typed list of Run.run, "
        "ranx's numba typed dicts; the drop-in's Run.run is a Python dict (numba cannot "
        "type it)",
    }),
}
"""The peers with a drop-in; any other name works with ``--module``."""


# ---------------------------------------------------------------------------
# inside the test interpreter
# ---------------------------------------------------------------------------


def _alias(peer: str, target: str) -> None:
    """Make ``import peer`` and ``import peer.sub`` give ``target`` and ``target.sub``."""
    import importlib
    import importlib.abc
    import importlib.util

    class Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, fullname: str, path: Any, target_module: Any = None) -> Any:
            if fullname != peer and not fullname.startswith(peer + "."):
                return None
            real = target + fullname[len(peer):]
            try:
                module = importlib.import_module(real)
            except ModuleNotFoundError:
                # never fall through to the installed peer's own submodule
                raise ModuleNotFoundError(
                    f"No module named {fullname!r} (the drop-in has no {real!r})",
                    name=fullname) from None
            sys.modules[fullname] = module
            return importlib.util.spec_from_loader(fullname, self)

        def create_module(self, spec: Any) -> Any:
            return sys.modules[spec.name]

        def exec_module(self, module: Any) -> None:
            return None

    sys.meta_path.insert(0, Alias())
    for name in [name for name in sys.modules if name == peer or name.startswith(peer + ".")]:
        del sys.modules[name]
    importlib.import_module(peer)


def _record_unittest(results: list[dict[str, Any]], prefix: str) -> None:
    """Make ``unittest.main`` (as a script calls it) record each test's outcome."""
    import unittest

    class Recording(unittest.TextTestResult):
        def _add(self, test: Any, outcome: str, detail: str = "") -> None:
            test_id = test.id().removeprefix("__main__.")
            results.append({"id": f"{prefix}::{test_id}", "outcome": outcome,
                            "detail": detail[-4000:]})

        def addSuccess(self, test: Any) -> None:  # noqa: N802 (unittest's names)
            super().addSuccess(test)
            self._add(test, "passed")

        def addFailure(self, test: Any, err: Any) -> None:  # noqa: N802
            super().addFailure(test, err)
            self._add(test, "failed", self.failures[-1][1])

        def addError(self, test: Any, err: Any) -> None:  # noqa: N802
            super().addError(test, err)
            self._add(test, "error", self.errors[-1][1])

        def addSkip(self, test: Any, reason: str) -> None:  # noqa: N802
            super().addSkip(test, reason)
            self._add(test, "skipped", reason)

        def addExpectedFailure(self, test: Any, err: Any) -> None:  # noqa: N802
            super().addExpectedFailure(test, err)
            self._add(test, "passed", "expected failure")

        def addUnexpectedSuccess(self, test: Any) -> None:  # noqa: N802
            super().addUnexpectedSuccess(test)
            self._add(test, "failed", "unexpected success")

    class Runner(unittest.TextTestRunner):
        resultclass = Recording

    original = unittest.main

    def main(*args: Any, **kwargs: Any) -> Any:
        kwargs.update(testRunner=Runner, exit=False)
        return original(*args, **kwargs)

    unittest.main = main  # type: ignore[assignment]


def _run_script(path: str, results: list[dict[str, Any]]) -> None:
    import runpy

    _record_unittest(results, os.path.basename(path))
    sys.argv = [path]
    sys.path.insert(0, os.path.dirname(path))
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit:
        pass
    except BaseException as error:  # the file itself failed (an import, an assert)
        import traceback

        results.append({"id": os.path.basename(path), "outcome": "error",
                        "detail": "".join(traceback.format_exception(error))[-4000:]})


def _run_pytest(folder: str, extra: list[str], results: list[dict[str, Any]]) -> None:
    import pytest

    class Collector:
        def pytest_runtest_logreport(self, report: Any) -> None:
            if report.when == "call" or report.outcome != "passed":
                outcome = {"passed": "passed", "skipped": "skipped"}.get(
                    report.outcome, "failed" if report.when == "call" else "error")
                if hasattr(report, "wasxfail"):
                    outcome = "passed" if report.skipped else "failed"
                results.append({"id": report.nodeid, "outcome": outcome,
                                "detail": str(report.longrepr or "")[-4000:]})

        def pytest_collectreport(self, report: Any) -> None:
            if report.failed:
                results.append({"id": report.nodeid or folder, "outcome": "error",
                                "detail": str(report.longrepr)[-4000:]})

    with tempfile.TemporaryDirectory() as empty:
        ini = os.path.join(empty, "pytest.ini")
        with open(ini, "w") as handle:
            handle.write("[pytest]\n")
        pytest.main([folder, "-q", "-p", "no:cacheprovider", "-c", ini, "--rootdir", folder,
                     *extra], plugins=[Collector()])


def child(config: dict[str, Any]) -> None:
    """The test interpreter: alias the peer, run the suite, write the outcomes as JSON."""
    results: list[dict[str, Any]] = []
    if config["module"]:
        _alias(config["peer"], config["module"])
    if config["setup"]:
        exec(config["setup"], {"__name__": "__peer_setup__"})  # the user's own code
    os.chdir(config["folder"])
    if config["runner"] == "script":
        _run_script(config["file"], results)
    else:
        _run_pytest(config["folder"], config["pytest_args"], results)
    with open(config["out"], "w") as handle:
        json.dump(results, handle)


# ---------------------------------------------------------------------------
# the driver
# ---------------------------------------------------------------------------


def _suite_files(folder: str, pattern: str) -> list[str]:
    found = []
    for root, _, names in os.walk(folder):
        found += [os.path.join(root, name) for name in names
                  if name.endswith(".py") and fnmatch.fnmatch(name, pattern)]
    return sorted(found)


def run_suite(peer: str, folder: str, *, module: str | None, runner: str, pattern: str,
              setup: str = "", pytest_args: list[str] | None = None) -> list[dict[str, Any]]:
    """Run the suite in fresh interpreters; one outcome per test.

    *module* None runs the installed peer itself.
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    files = _suite_files(folder, pattern) if runner == "script" else [""]
    if not files:
        raise SystemExit(f"no file matching {pattern!r} in {folder}")
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as work:
        for number, path in enumerate(files):
            out = os.path.join(work, f"{number}.json")
            config = {"peer": peer, "module": module, "runner": runner, "folder": folder,
                      "file": path, "out": out, "setup": setup,
                      "pytest_args": pytest_args or []}
            done = subprocess.run([sys.executable, os.path.abspath(__file__), "--child",
                                   json.dumps(config)], env=env, capture_output=True,
                                  text=True, check=False)
            if os.path.exists(out):
                with open(out) as handle:
                    results += json.load(handle)
            else:  # the interpreter died (a crash, an abort)
                name = os.path.relpath(path, folder) if path else folder
                results.append({"id": name, "outcome": "error",
                                "detail": f"exit status {done.returncode}\n"
                                          f"{done.stderr[-4000:]}"})
    return results


def classify(results: list[dict[str, Any]], excepted: dict[str, str]) -> list[dict[str, Any]]:
    """Mark the tests matching an excepted pattern: their outcome is kept, their status is
    ``excepted``."""
    for result in results:
        reason = next((why for pattern, why in excepted.items()
                       if fnmatch.fnmatch(result["id"], pattern)), None)
        result["status"] = "excepted" if reason is not None else result["outcome"]
        result["why"] = reason
    return results


def summary(results: list[dict[str, Any]]) -> dict[str, int]:
    """Counts: run, passed, failed, error, skipped, excepted."""
    counts = {"run": len(results), **{name: 0 for name in (*OUTCOMES, "excepted")}}
    for result in results:
        counts[result["status"]] += 1
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", help="the peer's tests folder")
    parser.add_argument("--peer", help=f"the module the tests import ({', '.join(PEERS)}, ...)")
    parser.add_argument("--module", help="the drop-in (default: rankwise.compat.PEER)")
    parser.add_argument("--real", action="store_true", help="run against the peer itself")
    parser.add_argument("--runner", choices=("pytest", "script"), help="default: the peer's")
    parser.add_argument("--pattern", help="test files of the script runner (fnmatch)")
    parser.add_argument("--setup", default="", help="Python code to run before the tests")
    parser.add_argument("--except", dest="excepted", action="append", default=[],
                        metavar="ID_PATTERN=REASON", help="leave a test out, saying why")
    parser.add_argument("--pytest-args", default="", help="more pytest arguments (one string)")
    parser.add_argument("--json", help="write every outcome to this file")
    parser.add_argument("--verbose", "-v", action="store_true", help="show failures' details")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(json.loads(args.child))
        return 0
    if not args.peer or not args.folder:
        parser.error("give --peer and the tests folder")
    known = PEERS.get(args.peer, Peer(f"rankwise.compat.{args.peer}"))
    module = None if args.real else (args.module or known.module)
    excepted = dict(known.excepted)
    for item in args.excepted:
        pattern, _, reason = item.partition("=")
        excepted[pattern] = reason or "excepted on the command line"
    folder = os.path.abspath(args.folder)
    results = classify(run_suite(
        args.peer, folder, module=module, runner=args.runner or known.runner,
        pattern=args.pattern or known.pattern, setup=args.setup,
        pytest_args=args.pytest_args.split()), excepted)
    for result in results:
        line = f"{result['status']:>8}  {result['id']}"
        if result["why"]:
            line += f"  ({result['outcome']}; {result['why']})"
        print(line)
        if args.verbose and result["outcome"] in ("failed", "error") and result["detail"]:
            print("          " + result["detail"].strip().replace("\n", "\n          "))
    counts = summary(results)
    against = "the installed peer" if module is None else module
    print(f"\n{args.peer} suite against {against}: "
          + ", ".join(f"{counts[name]} {name}" for name in counts))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"peer": args.peer, "module": module, "counts": counts,
                       "results": results}, handle, indent=1)
    ok = counts["run"] > 0 and counts["failed"] == counts["error"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
