"""Build script for the optional C modules; all metadata lives in pyproject.toml.

``rankwise.io._ctrec`` (the TREC reader), ``rankwise.io._ccolumns`` (dicts,
object arrays and Arrow string columns to columns), ``rankwise.kernels._cjoin``
(the join of the run with the judgments) and ``rankwise.kernels._crank`` (the
ranks of judged documents in unsorted runs; and the recommender lists' user-item
pairs joined by user, compacted and counted) make rankwise several times
faster. All are optional: without a C compiler the install still succeeds,
and rankwise computes the same results through numpy and pyarrow.
``rankwise.fusion._cfuse`` finds the candidates of rank fusion and sums
their scores over the runs in one pass, and
``rankwise.kernels._cgreedy`` computes ndeval's greedy ideal ranking (the
diversity measures). ``rankwise.stats._cflip`` does the table lookups of
the randomization test's sign flips, every column in one pass.
"""

from setuptools import Extension, setup

NATIVE = "src/rankwise/_native"

setup(
    ext_modules=[
        Extension(
            name,
            sources=[source],
            include_dirs=[NATIVE],
            depends=[f"{NATIVE}/rankwise_strings.h", f"{NATIVE}/rankwise_ranks.h"],
            optional=True,
        )
        for name, source in (
            ("rankwise.io._ctrec", "src/rankwise/io/_ctrec.c"),
            ("rankwise.kernels._cjoin", "src/rankwise/kernels/_cjoin.c"),
            ("rankwise.fusion._cfuse", "src/rankwise/fusion/_cfuse.c"),
            ("rankwise.io._ccolumns", "src/rankwise/io/_ccolumns.c"),
            ("rankwise.kernels._crank", "src/rankwise/kernels/_crank.c"),
            ("rankwise.kernels._cgreedy", "src/rankwise/kernels/_cgreedy.c"),
            ("rankwise.stats._cflip", "src/rankwise/stats/_cflip.c"),
        )
    ]
)
