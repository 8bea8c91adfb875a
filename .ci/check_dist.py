"""Check what the sdist and the wheel in DIST carry (issue 41, item 3).

Usage: python .ci/check_dist.py DIST

Run from the checkout. The sdist must carry every C source and header under
src/rankwise (setup.py builds each .c), the Java pass of the Spark engine, the
licence files, the changelog, the tests and their data, and nothing compiled;
no file in it may be over FILE_BUDGET, nor the tests' data over TEST_DATA_BUDGET in
all. The wheel must carry the licence files (in .dist-info/licenses), the Java
pass, the demo data, the type stubs and every C module compiled, and no C
source and no tests. The metadata of both must say
the SPDX licence. Prints what it checked; exits 1 with every problem found.
Standard library only.
"""

from __future__ import annotations

import os
import re
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

FILE_BUDGET = 3 << 20  # bytes: trec_eval's own test run (2.8 MB) is the largest file we ship
TEST_DATA_BUDGET = 12 << 20  # bytes, tests/ in all (7.5 MB now)
SDIST_BUDGET = 5 << 20  # bytes, compressed (3.7 MB now)
WHEEL_BUDGET = 3 << 20  # bytes, compressed (1.0 MB now)
LICENCE_FILES = ("LICENSE", "src/rankwise/demo_data/NOTICE.md")
COMPILED = re.compile(r"\.(so|pyd|dylib|o|obj|pyc)$")


def _checkout_files(root: Path) -> tuple[list[str], list[str], list[str]]:
    """The C sources, the headers and the Java sources of the checkout (relative paths)."""
    package = root / "src" / "rankwise"

    def found(pattern: str) -> list[str]:
        return sorted(str(p.relative_to(root)) for p in package.rglob(pattern))

    return found("*.c"), found("*.h"), found("*.java")


def _extensions(root: Path) -> list[str]:
    """The modules setup.py builds: ``rankwise.io._ctrec`` ..."""
    return re.findall(r'\("(rankwise\.[\w.]+)", "src/', (root / "setup.py").read_text())


def _check_metadata(text: str, what: str, problems: list[str]) -> None:
    meta = Parser().parsestr(text)
    if meta["License-Expression"] != "MIT":
        problems.append(f"{what}: License-Expression is {meta['License-Expression']!r}, not MIT")
    if sorted(meta.get_all("License-File") or []) != sorted(LICENCE_FILES):
        problems.append(f"{what}: License-File {meta.get_all('License-File')}, expected "
                        f"{list(LICENCE_FILES)}")
    for field in ("Requires-Python", "Summary", "Project-URL", "Classifier", "Keywords"):
        if not meta.get_all(field):
            problems.append(f"{what}: no {field}")


def check_sdist(path: Path, root: Path, problems: list[str]) -> None:
    """Add to *problems* what the sdist at *path* lacks or should not carry."""
    with tarfile.open(path) as archive:
        members = {m.name.split("/", 1)[1]: m for m in archive.getmembers()
                   if m.isfile() and "/" in m.name}
        top = archive.getmembers()[0].name.split("/")[0]
        _check_metadata(archive.extractfile(f"{top}/PKG-INFO").read().decode(),  # type: ignore[union-attr]
                        path.name, problems)
    sources, headers, java = _checkout_files(root)
    wanted = [*sources, *headers, *java, *LICENCE_FILES, "CHANGELOG.md", "README.md",
              "pyproject.toml", "setup.py", "conftest.py", "tests/conftest.py",
              "tests/data/trec_eval/out.test"]
    for name in wanted:
        if name not in members:
            problems.append(f"{path.name}: {name} is missing")
    for name, member in members.items():
        if COMPILED.search(name):
            problems.append(f"{path.name}: {name} is compiled, not a source")
        if member.size > FILE_BUDGET:
            problems.append(f"{path.name}: {name} is {member.size:,} bytes, over the "
                            f"{FILE_BUDGET:,} of FILE_BUDGET")
    tests = sum(m.size for name, m in members.items() if name.startswith("tests/"))
    if tests > TEST_DATA_BUDGET:
        problems.append(f"{path.name}: tests/ holds {tests:,} bytes, over the "
                        f"{TEST_DATA_BUDGET:,} of TEST_DATA_BUDGET")
    size = path.stat().st_size
    if size > SDIST_BUDGET:
        problems.append(f"{path.name}: {size:,} bytes, over {SDIST_BUDGET:,}")
    print(f"check_dist: {path.name}: {size:,} bytes, {len(members)} files; "
          f"{len(sources)} C sources, {len(headers)} headers, {len(java)} Java source; "
          f"tests/ {tests:,} bytes, largest file "
          f"{max(m.size for m in members.values()):,} bytes")


def check_wheel(path: Path, root: Path, problems: list[str]) -> None:
    """Add to *problems* what the wheel at *path* lacks or should not carry."""
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        info = next(n for n in names if n.endswith(".dist-info/METADATA"))
        _check_metadata(archive.read(info).decode(), path.name, problems)
        licences = [n for n in names if ".dist-info/licenses/" in n]
        if archive.read(next(n for n in licences if n.endswith("/LICENSE"))).decode().find(
                "the rankwise developers") < 0:
            problems.append(f"{path.name}: the LICENSE it carries is not rankwise's")
    dist_info = info.rsplit("/", 1)[0]
    _, _, java = _checkout_files(root)
    wanted = [f"{dist_info}/licenses/{name}" for name in LICENCE_FILES]
    wanted += [name.removeprefix("src/") for name in java]
    if os.environ.get("RANKWISE_SPARK_JARS"):  # the Spark pass compiled (setup.py's build_py)
        wanted += ["rankwise/engines/spark/java/rankwise-jvm.jar",
                   "rankwise/engines/spark/java/rankwise-jvm.json"]
    wanted += ["rankwise/py.typed", "rankwise/demo_data/qrels.test",
               "rankwise/demo_data/results.test", "rankwise/io/_ctrec.pyi"]
    for name in wanted:
        if name not in names:
            problems.append(f"{path.name}: {name} is missing")
    built = []
    for module in _extensions(root):
        stem = module.replace(".", "/")
        if any(n.startswith(stem + ".") and COMPILED.search(n) for n in names):
            built.append(module)
        else:
            problems.append(f"{path.name}: the C module {module} is not in it")
    for name in names:
        if name.endswith((".c", ".h")) or name.startswith("tests/"):
            problems.append(f"{path.name}: {name} does not belong in a wheel")
    size = path.stat().st_size
    if size > WHEEL_BUDGET:
        problems.append(f"{path.name}: {size:,} bytes, over {WHEEL_BUDGET:,}")
    print(f"check_dist: {path.name}: {size:,} bytes, {len(names)} files; "
          f"{len(built)} C modules compiled, licences {', '.join(licences)}")


def main(argv: list[str]) -> int:
    """Check the sdist and the wheel of the folder ``argv[0]``; 1 when anything is wrong."""
    if not argv:
        sys.exit(__doc__)
    dist = Path(argv[0])
    root = Path(__file__).resolve().parents[1]
    sdists, wheels = sorted(dist.glob("*.tar.gz")), sorted(dist.glob("*.whl"))
    problems: list[str] = []
    if len(sdists) != 1 or len(wheels) != 1:
        problems.append(f"{dist}: expected one sdist and one wheel, found "
                        f"{[p.name for p in sdists + wheels]}")
    for sdist in sdists:
        check_sdist(sdist, root, problems)
    for wheel in wheels:
        check_wheel(wheel, root, problems)
    for problem in problems:
        print(f"check_dist: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
