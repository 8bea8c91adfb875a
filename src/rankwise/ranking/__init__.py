"""Ranking a run against judgments: the ranks of the judged documents and their ties.

The layer between reading (:mod:`rankwise.io`) and the measure kernels
(:mod:`rankwise.kernels`): whatever the input, an engine ends with a
:class:`~rankwise.ranking.tied.TiedRanking`, which every kernel reads.

- :mod:`~rankwise.ranking.tied`: :class:`TiedRanking` and its views
  (:class:`RankedJudgments`, one per tie policy);
- :mod:`~rankwise.ranking.rank`: :func:`rank_all_ties` (a run and judgments
  to a :class:`TiedRanking`), :func:`rank_judgments`, :func:`rank_rows`;
  the sort path in :mod:`~rankwise.ranking._order`, the counting path
  without a sort (C, :mod:`~rankwise.ranking._crank`) in
  :mod:`~rankwise.ranking._counted`;
- :mod:`~rankwise.ranking.judged`: which rows of a run are judged (the join;
  C: :mod:`~rankwise.ranking._cjoin`, through :mod:`~rankwise.ranking._join`);
- :mod:`~rankwise.ranking.assemble`: :func:`assemble_ranking`, where every
  engine ends;
- :mod:`~rankwise.ranking.from_dict`: a run dict ranked in one pass (C:
  :mod:`~rankwise.ranking._cdict`), without building the run;
- :mod:`~rankwise.ranking.arrays`: labels, predictions and group sizes
  (training loops) to a :class:`TiedRanking`; ranx's order of tied documents
  in :mod:`~rankwise.ranking._quicksort`.
"""

from __future__ import annotations

from rankwise.ranking.assemble import assemble_ranking
from rankwise.ranking.rank import rank_all_ties, rank_judgments
from rankwise.ranking.tied import RankedJudgments, TiedRanking

__all__ = [
    "RankedJudgments",
    "TiedRanking",
    "assemble_ranking",
    "rank_all_ties",
    "rank_judgments",
]
