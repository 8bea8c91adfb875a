r"""trec_eval's output, byte for byte: ``label<pad to 22>\\tqid\\tvalue``.

trec_eval prints each value with C's ``printf``:

* ``"%-22s\\t%s\\t%6.4f\\n"`` for a float (NaN as ``  -nan``, as glibc prints
  the NaN of 0.0 / 0.0; Python's ``%6.4f`` is correctly rounded like glibc's, so finite
  values give the same text);
* ``"%-22s\\t%s\\t%ld\\n"`` for the counts (``num_q``, ``num_ret``, ...), the value
  converted to an integer toward zero;
* ``"%-22s\\t%s\\t'%s'\\n"`` for ``relstring``, and the bare run id for ``runid``.

With ``-q`` the rows of each query come first (queries in byte order, measures
in trec_eval's fixed order), then the summary rows with ``all`` as the query.
``runid``, ``num_q``, ``gm_map`` and ``gm_bpref`` have no per-query row;
``relstring`` has no summary row.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rankwise.measures.trec_names import TrecEntry
    from rankwise.results import Results

__all__ = ["format_float", "format_trec", "trec_chunks"]

_SUMMARY_ONLY = frozenset({"num_q", "gm_map", "gm_bpref"})

BLOCK_LINES = 1 << 17
"""Lines formatted at a time with ``-q`` (memory does not grow with the number of queries)."""


def format_float(value: float) -> str:
    """Format *value* as C's ``printf("%6.4f")`` does with glibc.

    Examples
    --------
    >>> format_float(0.5), format_float(-412.66666), format_float(float("nan"))
    ('0.5000', '-412.6667', '  -nan')
    """
    if math.isnan(value):
        # trec_eval's NaNs all come from 0.0 / 0.0, whose x86 result has its
        # sign bit set: glibc prints "-nan". rankwise's NaN may be unsigned
        # (numpy.nan); it is printed as trec_eval would print it.
        return "  -nan"
    if math.isinf(value):
        return f"{'inf' if value > 0 else '-inf':>6}"
    return f"{value:6.4f}"


def _format_value(entry: TrecEntry, value: object) -> str:
    if entry.text:
        return f"'{value}'"
    number = float(value)  # type: ignore[arg-type]
    if entry.integer and math.isfinite(number):
        return str(int(number))
    return format_float(number)


def _line(label: str, qid: str, value: str) -> str:
    return f"{label:<22}\t{qid}\t{value}\n"


def _column_text(entry: TrecEntry, values: Any) -> list[str]:
    """The printed values of one measure for a block of queries."""
    import numpy as np

    array = np.asarray(values)
    if entry.text or array.dtype.kind not in "fiub":
        return [_format_value(entry, value) for value in array.tolist()]
    numbers = array.astype(np.float64)
    finite = np.isfinite(numbers)
    if entry.integer:
        text = [str(v) for v in np.where(finite, numbers, 0).astype(np.int64).tolist()]
    else:
        text = list(map("%6.4f".__mod__, numbers.tolist()))
    if not finite.all():
        for index in np.flatnonzero(~finite).tolist():
            text[index] = format_float(float(numbers[index]))
    return text


def trec_chunks(
    entries: Sequence[TrecEntry],
    results: Results,
    *,
    run_id: str,
    per_query: bool,
    summary: bool = True,
) -> Iterator[str]:
    """Render *results* as trec_eval prints them, a block of queries at a time.

    The memory used does not grow with the number of queries: each block's
    lines are formatted from the per-query arrays and handed on.

    Parameters
    ----------
    entries : sequence of TrecEntry
        What to print, in trec_eval's order (from
        :func:`rankwise.measures.trec_names.parse_trec_list`).
    results : Results
        The values of every entry's measure.
    run_id : str
        What the ``runid`` row shows.
    per_query : bool
        Print the rows of each query first (trec_eval ``-q``).
    summary : bool, default True
        Print the ``all`` rows (trec_eval prints none with ``-n``).

    Yields
    ------
    str
        Pieces of the output, in order.
    """
    if per_query:
        shown = [
            entry for entry in entries
            if entry.measure is not None and entry.measure.name not in _SUMMARY_ONLY
        ]
        # one format call per query: "label\tqid\tvalue\n" for each measure
        template = "".join(
            f"{entry.label:<22}".replace("{", "{{").replace("}", "}}") + f"\t{{0}}\t{{{i + 1}}}\n"
            for i, entry in enumerate(shown)
        )
        ids = results.query_ids
        step = max(64, BLOCK_LINES // max(len(shown), 1))
        for start in range(0, len(ids), step):
            stop = min(start + step, len(ids))
            columns = [
                _column_text(entry, results[entry.measure][start:stop])  # type: ignore[index]
                for entry in shown
            ]
            yield "".join(
                template.format(qid, *values) for qid, values in zip(ids[start:stop], zip(*columns))
            )
    if summary:
        lines: list[str] = []
        for entry in entries:
            if entry.measure is None:
                lines.append(_line(entry.label, "all", run_id))
            elif not entry.text:
                value = results.accumulated_mean(entry.measure)  # as trec_eval adds
                lines.append(_line(entry.label, "all", _format_value(entry, value)))
        yield "".join(lines)


def format_trec(
    entries: Sequence[TrecEntry],
    results: Results,
    *,
    run_id: str,
    per_query: bool,
    summary: bool = True,
) -> str:
    """Render *results* as trec_eval prints them, as one string (see :func:`trec_chunks`).

    Returns
    -------
    str
        The whole output.
    """
    return "".join(
        trec_chunks(entries, results, run_id=run_id, per_query=per_query, summary=summary)
    )
