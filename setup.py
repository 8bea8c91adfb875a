"""Build script for the optional C modules; all metadata lives in pyproject.toml.

``rankwise.io._ctrec`` (the TREC reader), ``rankwise.data._ccolumns`` (dicts,
object arrays and Arrow string columns to columns), ``rankwise.ranking._cjoin``
(the join of the run with the judgments), ``rankwise.ranking._crank`` (the
ranks of judged documents in unsorted runs), ``rankwise.ranking._cdict`` (a run
dict read and ranked in one pass) and ``rankwise.ranking._cpairs`` (the
recommender lists' user-item pairs joined by user, compacted and counted) make
rankwise several times faster. All are optional: without a C compiler the
install still succeeds, and rankwise computes the same results through numpy
and pyarrow.
``rankwise.fusion._cfuse`` finds the candidates of rank fusion and sums
their scores over the runs in one pass, and
``rankwise.kernels._cgreedy`` computes ndeval's greedy ideal ranking (the
diversity measures). ``rankwise.stats._cflip`` does the table lookups of
the randomization test's sign flips, every column in one pass.

``RANKWISE_REQUIRE_C=1`` makes a failed compilation an error instead: the wheels
built for publication (``[tool.cibuildwheel]`` in pyproject.toml) set it, so no
platform wheel ever ships without its C modules unnoticed. ``_ctrec``,
``_ccolumns`` and ``_cdict`` use POSIX threads and memory maps: they are not built
on Windows, where rankwise reads through pyarrow and ranks a run dict through the
run it builds (``rankwise --version`` lists what was built).

``build_py`` also compiles the Spark engine's JVM pass
(``rankwise/engines/spark/java/RanksPass.java``) into the jar the wheel ships
beside it, with its record (``rankwise/engines/spark/_javac.py``), when a JDK
and Spark's jars are found (``$RANKWISE_SPARK_JARS``, ``$SPARK_HOME/jars`` or
an installed pyspark); without them the wheel has no jar and rankwise compiles
it on first use where a JDK is. ``RANKWISE_REQUIRE_JAR=1`` makes that an error
(for a release build).
"""

import importlib.util
import os
import re
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

NATIVE = "src/rankwise/_native"
POSIX_ONLY = {"rankwise.io._ctrec", "rankwise.data._ccolumns", "rankwise.ranking._cdict"}
HEADERS = ("rankwise_blocks.h", "rankwise_chunks.h", "rankwise_interner.h", "rankwise_pyids.h",
           "rankwise_ranks.h", "rankwise_seen.h", "rankwise_strings.h")
JAVA = Path("rankwise", "engines", "spark", "java")
REQUIRED = os.environ.get("RANKWISE_REQUIRE_C", "") not in ("", "0")


class SourcesOnly(sdist):
    """The sdist of a tree that ran its tests or built in place: still sources only.

    (MANIFEST.in's global-exclude would do the same, but warns on a clean tree.)
    """

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        """Write the sdist's tree: *files* less caches and compiled files."""
        left_out = re.compile(r"(^|[/\\])(__pycache__|\.hypothesis|\.pytest_cache)[/\\]"
                              r"|\.(py[cod]|so|pyd|dylib|o|obj)$")
        super().make_release_tree(base_dir, [f for f in files if not left_out.search(f)])


class BuildPyWithJar(build_py):
    """``build_py``, then the Spark pass compiled next to its source in the build folder."""

    def run(self) -> None:
        """Copy the package, then compile the jar beside its source (when a JDK is here)."""
        super().run()
        if getattr(self, "editable_mode", False):  # a source tree compiles on first use
            return
        spec = importlib.util.spec_from_file_location(
            "rankwise_javac", Path("src", "rankwise", "engines", "spark", "_javac.py"))
        if spec is None or spec.loader is None:
            raise RuntimeError("setup.py: src/rankwise/engines/spark/_javac.py is missing")
        javac = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(javac)
        try:
            spark = javac.build_prebuilt(Path(self.build_lib, JAVA))
        except javac.BuildError as error:
            if os.environ.get("RANKWISE_REQUIRE_JAR") == "1":
                raise
            print(f"rankwise: the wheel ships no compiled Spark pass: {error}")
            return
        print(f"rankwise: compiled the Spark pass against Spark {spark}")


setup(
    cmdclass={"build_py": BuildPyWithJar, "sdist": SourcesOnly},
    ext_modules=[
        Extension(
            name,
            sources=[source],
            include_dirs=[NATIVE],
            depends=[f"{NATIVE}/{header}" for header in HEADERS],
            optional=not REQUIRED,
        )
        for name, source in (
            ("rankwise.io._ctrec", "src/rankwise/io/_ctrec.c"),
            ("rankwise.ranking._cjoin", "src/rankwise/ranking/_cjoin.c"),
            ("rankwise.fusion._cfuse", "src/rankwise/fusion/_cfuse.c"),
            ("rankwise.data._ccolumns", "src/rankwise/data/_ccolumns.c"),
            ("rankwise.ranking._crank", "src/rankwise/ranking/_crank.c"),
            ("rankwise.ranking._cdict", "src/rankwise/ranking/_cdict.c"),
            ("rankwise.ranking._cpairs", "src/rankwise/ranking/_cpairs.c"),
            ("rankwise.kernels._cgreedy", "src/rankwise/kernels/_cgreedy.c"),
            ("rankwise.stats._cflip", "src/rankwise/stats/_cflip.c"),
        )
        if not (sys.platform == "win32" and name in POSIX_ONLY)
    ]
)
