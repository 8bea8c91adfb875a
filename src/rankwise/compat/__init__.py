"""Drop-ins for other tools' Python APIs, computed by rankwise.

- :mod:`rankwise.compat.pytrec_eval`: ``RelevanceEvaluator``, ``parse_qrel``,
  ``parse_run``, ``compute_aggregated_measure``, ``supported_measures``
  (``import rankwise.compat.pytrec_eval as pytrec_eval``);
- :mod:`rankwise.compat.ir_measures`: ``calc_aggregate``, ``iter_calc``,
  ``calc``, ``evaluator``, ``parse_measure``, and a provider registered with
  ir_measures when it is installed (``ir_measures.providers.registry['rankwise']``).

docs/compat.md says what changes in the numbers, and why.
"""
