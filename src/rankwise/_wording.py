"""How numbers are worded in messages and tables: counts with their noun, p-values.

Two rules used everywhere text shows a number to a person:

- :func:`counted`: a count and its noun agree (``1 query``, ``2 queries``);
- :func:`format_p`: a p-value has one format in a table, a fixed number of
  decimals, and a value below the last decimal is ``<0.0001`` (never
  ``1.0e-04`` in one cell and ``0.0002`` in the next).

And :func:`higher_means`: what "significantly higher" says under a test that
does not compare means.
"""

from __future__ import annotations

import math

__all__ = ["counted", "format_p", "higher_means", "plural"]

_IRREGULAR = {"query": "queries", "is": "are", "has": "have", "was": "were", "does": "do",
              "this": "these", "index": "indices", "matrix": "matrices"}


def plural(noun: str, count: int | float = 2) -> str:
    """*noun* as it agrees with *count* (``query``/``queries``, ``has``/``have``).

    Examples
    --------
    >>> plural("query"), plural("query", 1), plural("run"), plural("has"), plural("class")
    ('queries', 'query', 'runs', 'have', 'classes')
    """
    if count == 1:
        return noun
    if noun in _IRREGULAR:
        return _IRREGULAR[noun]
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "i", "o", "u"):
        return noun[:-1] + "ies"
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    return noun + "s"


def counted(count: int, noun: str, plural_form: str | None = None, *,
            grouped: bool = False) -> str:
    """``"1 query"``, ``"3 queries"``: a count and its noun, agreeing.

    Parameters
    ----------
    count : int
        The number.
    noun : str
        The singular noun (a phrase: its last word agrees, ``judged query``).
    plural_form : str, optional
        The plural when it is not the regular one.
    grouped : bool
        Thousands separated by commas (``12,345 rows``).

    Examples
    --------
    >>> counted(1, "query"), counted(0, "query"), counted(2, "judged query")
    ('1 query', '0 queries', '2 judged queries')
    >>> counted(12345, "row", grouped=True), counted(1, "datum", "data")
    ('12,345 rows', '1 datum')
    """
    number = f"{count:,}" if grouped else str(count)
    if count == 1:
        return f"{number} {noun}"
    if plural_form is not None:
        return f"{number} {plural_form}"
    head, _, last = noun.rpartition(" ")
    return f"{number} {head + ' ' if head else ''}{plural(last, count)}"


def format_p(p: float, digits: int = 4, *, nan: str = "nan") -> str:
    """A p-value with *digits* decimals; one that rounds to zero is ``<0.0001``.

    One format for every p-value of a table, the fixed decimals of the other
    numbers: a p-value that would print as zero (or that is zero, a test's
    underflow) is said to be below the last decimal, never switched to
    scientific notation.

    Examples
    --------
    >>> format_p(0.03125), format_p(0.0002), format_p(9.999e-05), format_p(2e-06)
    ('0.0312', '0.0002', '0.0001', '<0.0001')
    >>> format_p(1e-05, 6), format_p(float("nan")), format_p(float("nan"), nan="–")
    ('0.000010', 'nan', '–')
    """
    if math.isnan(p):
        return nan
    text = f"{p:.{digits}f}"
    if float(text) == 0:
        return f"<{10.0 ** -digits:.{digits}f}"
    return text


_LEANS = {
    "sign": "the sign test: more {unit} won than lost, whatever the mean",
    "wilcoxon": "the signed-rank test: more rank in the gains than in the losses, "
                "whatever the mean",
}


def higher_means(test: str, unit: str = "query") -> str:
    """What "higher" means for *test* where it does not compare means, as " (...)"; else "".

    A comparison's arrows follow the direction the test weighs
    (``ComparisonRow.direction``): the sign test counts the queries won and
    lost, the Wilcoxon test ranks the differences' sizes.

    Examples
    --------
    >>> higher_means("sign")
    ' (the sign test: more queries won than lost, whatever the mean)'
    >>> higher_means("sign", "user"), higher_means("t-test")
    (' (the sign test: more users won than lost, whatever the mean)', '')
    """
    lean = _LEANS.get(test)
    return f" ({lean.format(unit=plural(unit))})" if lean else ""
