"""Where evaluations run: numpy in this process (the default) or Spark.

Each engine lives in its own subpackage and imports its heavy dependency
(pyspark) only inside the functions that need it, so importing
:mod:`rankwise` or :mod:`rankwise.engines` stays fast and needs no Spark.
"""
