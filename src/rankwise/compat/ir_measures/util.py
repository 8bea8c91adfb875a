"""ir_measures' ``util``: records, readers, measure parsers and input converters.

See :mod:`rankwise.compat.ir_measures._util`.
"""

from rankwise.compat.ir_measures._util import (
    CalcResults,
    GenericQrel,
    GenericScoredDoc,
    Metric,
    Qrel,
    QrelsConverter,
    RunConverter,
    ScoredDoc,
    convert_trec_name,
    parse_measure,
    parse_trec_measure,
    parse_trec_qrels,
    parse_trec_run,
    read_trec_qrels,
    read_trec_run,
)

TYPE_RUN = object
TYPE_QREL = object

__all__ = ["TYPE_QREL", "TYPE_RUN", "CalcResults", "GenericQrel", "GenericScoredDoc", "Metric",
           "Qrel", "QrelsConverter", "RunConverter", "ScoredDoc", "convert_trec_name",
           "parse_measure", "parse_trec_measure", "parse_trec_qrels", "parse_trec_run",
           "read_trec_qrels", "read_trec_run"]
