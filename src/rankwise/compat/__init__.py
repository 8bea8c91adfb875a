"""Drop-ins for other tools' Python APIs, computed by rankwise.

- :mod:`rankwise.compat.pytrec_eval`: ``RelevanceEvaluator``, ``parse_qrel``,
  ``parse_run``, ``compute_aggregated_measure``, ``supported_measures``
  (``import rankwise.compat.pytrec_eval as pytrec_eval``);
- :mod:`rankwise.compat.ir_measures`: ir_measures 0.4's public surface (measure
  objects, ``calc_aggregate``, ``iter_calc``, ``calc``, ``evaluator``, the
  providers, ``parse_measure``, the readers; ``sys.modules["ir_measures"]``
  may be set to it), and ``register()``, a provider of the installed
  ir_measures (``ir_measures.providers.registry['rankwise']``);
- :mod:`rankwise.compat.ranx`: ranx 0.3's ``Qrels``, ``Run``, ``evaluate``,
  ``compare`` (and its ``Report``), ``fuse``, ``normalize``, ``optimize_fusion``,
  and its submodules ``metrics``, ``fusion``, ``normalization``,
  ``data_structures`` (``from rankwise.compat.ranx import Qrels, Run, evaluate``).

docs/compat.md says what changes in the numbers, and why.
"""
