"""Run the fast suite against the rankwise installed for this Python, not a checkout.

Usage: python .ci/test_installed.py SOURCE [pytest arguments]

SOURCE is a checkout or an unpacked sdist: its tests (and what they read:
conftest.py, pyproject.toml, README.md, docs/, ...) are copied to a temporary
folder whose ``src/rankwise`` is a copy of the installed package, so that the
tests that read ``src/rankwise`` (the demo data, the doctests, the
subprocesses started with ``PYTHONPATH=src``) read what was installed too.
Then ``import rankwise`` is checked to resolve to the installed package, and
pytest runs there with the project's defaults (the fast suite: no slow, spark
or peers tests) and the arguments given. The exit status is pytest's.

Used by .ci/packaging (the wheel, the sdist, each Python) and by cibuildwheel's
test-command (pyproject.toml). Standard library only.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# what the tests read besides the package (each copied when the source has it)
COPIED = ("tests", "docs", "benchmarks", ".ci", "conftest.py", "pyproject.toml", "README.md",
          "mkdocs.yml", "CHANGELOG.md", "LICENSE", "MANIFEST.in", "setup.py")
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", ".hypothesis")
# the documentation site's tests check the repository's pages against the code and need the
# [docs] extra (griffe) and the peers (the API examples run the training hooks): .ci/run's
# first stages run them on the checkout, and its docs stage builds the site
NOT_THE_PACKAGE = ["--ignore=tests/test_docs_site.py"]


def installed_package() -> Path:
    """The folder of the rankwise this Python imports outside any checkout."""
    spec = importlib.util.find_spec("rankwise")
    if spec is None or spec.origin is None:
        sys.exit("test_installed: rankwise is not installed for " + sys.executable)
    return Path(spec.origin).parent


def main(argv: list[str]) -> int:
    """Copy the tests of ``argv[0]`` beside the installed package and run pytest there."""
    if not argv:
        sys.exit(__doc__)
    source, arguments = Path(argv[0]).resolve(), argv[1:]
    os.chdir(tempfile.gettempdir())  # no checkout on sys.path while looking
    package = installed_package()
    if source in package.parents:
        sys.exit(f"test_installed: rankwise is imported from {package}, inside {source}: "
                 "install it (pip install dist/...) instead of testing the checkout")
    with tempfile.TemporaryDirectory(prefix="rankwise-installed-") as folder:
        root = Path(folder)
        root.chmod(0o755)  # as a checkout is: some tests read it as another user
        for name in COPIED:
            path = source / name
            if path.is_dir():
                shutil.copytree(path, root / name, ignore=IGNORED)
            elif path.is_file():
                shutil.copy2(path, root / name)
        shutil.copytree(package, root / "src" / "rankwise", ignore=IGNORED)
        where = subprocess.run(
            [sys.executable, "-c", "import rankwise; print(rankwise.__file__)"],
            cwd=root, capture_output=True, text=True, check=True,
        ).stdout.strip()
        if Path(where).parent != package:
            sys.exit(f"test_installed: rankwise resolves to {where}, not to {package}")
        print(f"test_installed: {sys.executable}: rankwise from {package}, "
              f"the tests of {source}", flush=True)
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *NOT_THE_PACKAGE,
             *arguments], cwd=root,
            check=False,
        ).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
