"""Which measure fits: what judgments (and runs) support, said from the data (``rw.guide``).

- :func:`guide` reads the data and applies the rules; it returns a :class:`Guide`;
- :mod:`~rankwise.guidance.facts`: the numbers read (grades, relevant documents
  per query, judged@k, ties, topics needed);
- :mod:`~rankwise.guidance.rules`: the rules, as data (:data:`RULES`).
"""

from rankwise.guidance.advisor import guide
from rankwise.guidance.result import Advice, Guide
from rankwise.guidance.rules import RULES, Rule

__all__ = ["RULES", "Advice", "Guide", "Rule", "guide"]
