"""The measure families, by group; :mod:`rankwise.measures.catalog` gathers them.

To add a group of measures: a module here with a ``FAMILIES`` list, and its
name in :data:`rankwise.measures.catalog.GROUPS`.
"""
