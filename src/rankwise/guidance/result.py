"""``Guide``: what the guide says, with the numbers behind each sentence."""

from __future__ import annotations

import math
import textwrap
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from rankwise._tabular import Tabular
from rankwise._wording import plural
from rankwise.guidance.facts import Facts

if TYPE_CHECKING:
    import pandas as pd

    from rankwise.report.tables import Table

__all__ = ["Advice", "Guide"]

_WIDTH = 88
_HEADINGS = {"judgments": "The judgments", "run": "Run", "study": "Queries and runs"}


@dataclass(frozen=True)
class Advice:
    """One sentence of the guide.

    Attributes
    ----------
    rule : str
        The rule that said it (:data:`rankwise.guidance.rules.RULES`).
    topic : str
        What it is about: ``queries``, ``relevant``, ``grades``, ``coverage``,
        ``judged``, ``ties``, ``power`` or ``pairs``.
    scope : str
        ``judgments``, ``run`` or ``study`` (the runs together).
    run : str or None
        The run it is about (scope ``run``).
    text : str
        The sentence.
    numbers : dict
        The values it quotes, unrounded.
    measures : tuple of str
        The measures it suggests.
    options : tuple of (str, str)
        The options of :func:`rankwise.evaluate` it suggests.
    """

    rule: str
    topic: str
    scope: str
    run: str | None
    text: str
    numbers: dict[str, Any] = field(default_factory=dict)
    measures: tuple[str, ...] = ()
    options: tuple[tuple[str, str], ...] = ()


def _count(n: float, one: str, many: str) -> str:
    """``1 query``, ``3 queries``, ``1,500 documents``."""
    return f"{n:,g} {one if n == 1 else many}" if isinstance(n, float) else \
        f"{n:,} {one if n == 1 else many}"


def _shown(source: str | None) -> bool:
    """A source worth naming: a path, not ``<dict>`` or ``<frame>``."""
    return bool(source) and not str(source).startswith("<")


def _plain(value: Any) -> Any:
    """JSON-ready: NaN and infinities as None, tuples as lists, keys as text."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


@dataclass(frozen=True)
class Guide(Tabular):
    """What judgments (and runs) support: the guide's sentences and its suggestion.

    Made by :func:`rankwise.guide`. ``str(guide)`` is the text ``rankwise
    guide`` prints; :attr:`measures`, :attr:`options` and :attr:`commands`
    are the suggestion. Its :meth:`table` is one row per sentence; like every
    result it has ``to_dict``, ``to_pandas``, ``to_polars``, ``to_table``,
    shows in a notebook and pickles.

    Attributes
    ----------
    facts : Facts
        The numbers read from the data (judgments, each run, the study).
    advice : tuple of Advice
        The sentences, in order: the judgments, each run, the runs together.
    measures : tuple of str
        The measures suggested (canonical names).
    options : dict
        The options of :func:`rankwise.evaluate` suggested (``unjudged``,
        ``ties``, ``missing``, ``rel``).
    commands : tuple of str
        The suggested command lines: ``rankwise eval``, then with two runs or
        more ``rankwise compare``.

    Examples
    --------
    >>> import rankwise as rw
    >>> qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}, "q3": {"d": 1, "e": 0}}
    >>> run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"x": 2.0, "c": 1.0}, "q3": {"e": 1.0}}
    >>> g = rw.guide(qrels, {"bm25": run})
    >>> g.rules
    ('one-relevant', 'binary', 'short-rankings', 'unjudged-top', 'no-ties', 'too-few-queries')
    >>> g.measures
    ('mrr@10', 'recall@1000', 'judged@10')
    >>> g.commands
    ('rankwise eval QRELS RUN -m mrr@10 recall@1000 judged@10 --unjudged bounds',)
    """

    facts: Facts
    advice: tuple[Advice, ...]
    measures: tuple[str, ...]
    options: dict[str, str]
    commands: tuple[str, ...]

    @property
    def rules(self) -> tuple[str, ...]:
        """The names of the rules that applied, in the order of :attr:`advice`."""
        return tuple(item.rule for item in self.advice)

    def to_dict(self) -> dict[str, Any]:
        """Return the facts, the sentences with their numbers, and the suggestion (JSON-ready).

        Examples
        --------
        >>> import rankwise as rw
        >>> d = rw.guide({"q1": {"a": 1}, "q2": {"b": 2, "c": 1}}).to_dict()
        >>> d["judgments"]["grades"], d["advice"][0]["rule"], d["measures"]
        ([[1.0, 2], [2.0, 1]], 'one-relevant', ['mrr@10', 'recall@1000', 'ndcg@10'])
        """
        f = self.facts
        plain: dict[str, Any] = _plain({
            "judgments": asdict(f.judgments),
            "runs": [asdict(run) for run in f.runs],
            "cutoff": f.cutoff,
            "deep": f.deep,
            "min_diff": f.min_diff,
            "alpha": f.alpha,
            "beta": f.beta,
            "power": [asdict(item) for item in f.power],
            "comparison": asdict(f.comparison) if f.comparison is not None else None,
            "advice": [asdict(item) for item in self.advice],
            "measures": list(self.measures),
            "options": dict(self.options),
            "commands": list(self.commands),
            "notes": list(f.notes),
        })
        return plain

    def to_pandas(self) -> pd.DataFrame:
        """Return one row per sentence: scope, run, topic, rule, text."""
        try:
            import pandas as pd
        except ImportError as error:  # pragma: no cover - depends on the environment
            from rankwise.exceptions import MissingDependencyError

            raise MissingDependencyError(
                "Guide.to_pandas needs pandas: pip install 'rankwise[pandas]'"
            ) from error
        return pd.DataFrame.from_records(
            [(a.scope, a.run, a.topic, a.rule, a.text) for a in self.advice],
            columns=["scope", "run", "topic", "rule", "text"],
        )

    def to_table(self, fmt: str = "table", *, digits: int = 4) -> str:
        """The guide as text in one of the table formats.

        Parameters
        ----------
        fmt : {"table", "markdown", "json", "tsv", "csv", "jsonl", "latex"}
            ``table``: the text ``rankwise guide`` prints; ``markdown``: the same
            with headings and the commands in a code block; ``json``:
            :meth:`to_dict`; the others: one row per sentence (scope, run,
            topic, rule, text).
        digits : int
            Unused (every cell is text); the same signature as every result's.

        Returns
        -------
        str

        Examples
        --------
        >>> import rankwise as rw
        >>> text = rw.guide({"q1": {"a": 1}, "q2": {"b": 1}}).to_table("csv")
        >>> for line in text.splitlines():
        ...     print(line.split(",")[:4])
        ['scope', 'run', 'topic', 'rule']
        ['judgments', '', 'relevant', 'one-relevant']
        ['judgments', '', 'grades', 'binary']
        ['study', '', 'power', 'no-runs']
        """
        from rankwise.report.tables import FORMATS, Table, render

        if fmt == "table":
            return self.to_text()
        if fmt == "markdown":
            return self._markdown()
        if fmt == "json":
            import json

            return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"
        if fmt not in FORMATS:
            return render(Table(["x"], ["text"]), fmt)  # raises with the formats listed
        return render(self.table(), fmt, digits=digits)

    def table(self) -> Table:
        """One row per sentence: scope, run, topic, rule, text."""
        from rankwise.report.tables import Table

        table = Table(["scope", "run", "topic", "rule", "text"], ["text"] * 5)
        for a in self.advice:
            table.rows.append([a.scope, a.run, a.topic, a.rule, a.text])
        return table

    # text -------------------------------------------------------------------------------
    def _sections(self) -> list[tuple[str, list[Advice]]]:
        """(heading, sentences) for the judgments, each run, and the runs together."""
        f = self.facts
        j = f.judgments
        where = f"{j.source}: " if _shown(j.source) else ""
        sections = [(f"The judgments ({where}{_count(j.n_queries, 'query', 'queries')}, "
                     f"{_count(j.n_judgments, 'judgment', 'judgments')})",
                     [a for a in self.advice if a.scope == "judgments"])]
        for run in f.runs:
            where = f"{run.source}: " if _shown(run.source) else ""
            median = run.retrieved_median
            depth = (f"{median:g} {plural('document', median)} per query (median)"
                     if run.retrieved_min != run.retrieved_max
                     else f"{_count(run.retrieved_max, 'document', 'documents')} each")
            queries = _count(run.n_queries, "judged query", "judged queries")
            sections.append((f"Run {run.name} ({where}{queries}, {depth})",
                             [a for a in self.advice if a.scope == "run" and a.run == run.name]))
        sections.append(("Queries and runs" if f.runs else "Runs",
                         [a for a in self.advice if a.scope == "study"]))
        return [(title, items) for title, items in sections if items]

    def to_text(self, width: int = _WIDTH) -> str:
        """The guide as plain text, wrapped at *width* columns (what ``rankwise guide`` prints).

        Each section (the judgments, each run, the runs together) lists its
        sentences under their topic; the suggested commands end it.
        """
        label = max(len(a.topic) for a in self.advice) if self.advice else 0
        lines: list[str] = []
        for title, items in self._sections():
            lines.extend(textwrap.wrap(title, width=width, subsequent_indent="  ",
                                       break_on_hyphens=False, break_long_words=False))
            for a in items:
                lead = f"  {a.topic:<{label}}  "
                lines.extend(textwrap.wrap(a.text, width=width, initial_indent=lead,
                                           subsequent_indent=" " * len(lead),
                                           break_on_hyphens=False, break_long_words=False))
            lines.append("")
        lines.append("Suggested:")
        lines.extend(f"  {command}" for command in self.commands)
        return "\n".join(lines) + "\n"

    def _markdown(self) -> str:
        lines: list[str] = []
        for title, items in self._sections():
            lines += [f"### {title}", ""]
            lines += [f"- **{a.topic}**: {a.text}" for a in items]
            lines.append("")
        lines += ["### Suggested", "", "```sh", *self.commands, "```"]
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return self.to_text().rstrip("\n")

    def _repr_html_(self) -> str:
        from html import escape

        parts = []
        for title, items in self._sections():
            rows = "".join(f"<tr><th style='text-align:left;vertical-align:top'>"
                           f"{escape(a.topic)}</th><td>{escape(a.text)}</td></tr>" for a in items)
            parts.append(f"<h4>{escape(title)}</h4><table>{rows}</table>")
        commands = escape("\n".join(self.commands))
        return (f"<div class='rankwise-guide'>{''.join(parts)}<h4>Suggested</h4>"
                f"<pre><code>{commands}</code></pre></div>")
