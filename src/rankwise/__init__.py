"""rankwise: exact, fast evaluation of rankings."""

from rankwise._version import __version__
from rankwise.comparison import Comparison, compare
from rankwise.data import Qrels, Run
from rankwise.evaluation import evaluate
from rankwise.exceptions import (
    InputFormatError,
    InvalidParameterError,
    MeasureSyntaxError,
    RankwiseError,
    UnknownMeasureError,
)
from rankwise.io import read_qrels, read_run, read_trec_qrels, read_trec_run
from rankwise.measures import Measure, parse
from rankwise.results import Results

__all__ = [
    "Comparison",
    "InputFormatError",
    "InvalidParameterError",
    "Measure",
    "MeasureSyntaxError",
    "Qrels",
    "RankwiseError",
    "Results",
    "Run",
    "UnknownMeasureError",
    "__version__",
    "compare",
    "evaluate",
    "parse",
    "read_qrels",
    "read_run",
    "read_trec_qrels",
    "read_trec_run",
]
