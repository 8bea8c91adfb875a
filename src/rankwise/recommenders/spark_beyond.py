"""The beyond-accuracy measures on Spark: aggregations over the evaluated users' lists.

Per user (novelty, ARP, APLT, EPC, serendipity) as grouped means, per item
(exposure) collected (one row per recommended item) for coverage, Gini and
entropy, personalisation from per-item sums of 1/sqrt(|L_u|), PopREO from
four counts, ILD and the Recommenders' serendipity by the numpy kernels on
whole users (:mod:`rankwise.recommenders.spark_vectors`). Item popularity
(one row per training item) is collected to find the long tail, whose items
of equal popularity are ordered by id as the numpy path orders them.

:class:`SparkBeyond` holds what the measures share (item popularity, the
long tail, the catalogue, the item vectors), each made once when first
needed; :meth:`SparkBeyond.on` computes measures over any part of the lists
(a segment's too).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from rankwise.exceptions import InvalidParameterError
from rankwise.recommenders import beyond, spark_vectors
from rankwise.recommenders.evaluation import BeyondMeasure, _DefaultCatalogue, recbole_tail
from rankwise.recommenders.inputs import argument
from rankwise.recommenders.spark_frames import (
    ITEM,
    POS,
    USER,
    SparkPlan,
    catalogue_given,
    column_of,
    one,
)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = ["SparkBeyond"]

class SparkBeyond:
    """The beyond-accuracy measures of one evaluation on Spark (see the module).

    Parameters
    ----------
    plan : SparkPlan
        The evaluation's frames.
    catalogue : int, item ids, table or DataFrame, optional
        The catalogue given (None: the default, every item of the tables).
    features : item vectors, optional
        For ILD and the Recommenders' serendipity (None: co-occurrence in training).
    """

    def __init__(self, plan: SparkPlan, catalogue: Any = None, features: Any = None) -> None:
        from pyspark.sql import functions as sf

        self.plan, self.catalogue, self.features = plan, catalogue, features
        self.stats = None  # per training item: _users (distinct users), _rows (interactions)
        if plan.history is not None:
            self.stats = plan.history.groupBy(ITEM).agg(
                sf.count(sf.lit(1)).alias("_users"),
                sf.sum("_n").cast("double").alias("_rows")).persist()
            plan.cached.append(self.stats)
        self._made: dict[str, Any] = {}  # what is made once: catalogues, popularity, vectors
        self._checked: set[str] = set()  # measures whose lists the catalogue given holds
        self._compute: dict[str, Callable[[BeyondMeasure, DataFrame], DataFrame | float]] = {
            "coverage": self._exposure, "gini": self._exposure, "entropy": self._exposure,
            "personalisation": self._personalisation, "novelty": self._novelty,
            "arp": self._popularity, "aplt": self._popularity, "epc": self._epc,
            "ild": self._ild, "serendipity": self._serendipity, "popreo": self._popreo,
        }

    def on(self, lists: DataFrame, chosen: list[BeyondMeasure]
           ) -> tuple[list[tuple[str, DataFrame]], dict[str, float]]:
        """The measures *chosen* over *lists*: per-user frames, and whole-set values."""
        from pyspark.sql import functions as sf

        per_user: list[tuple[str, DataFrame]] = []
        totals: dict[str, float] = {}
        for m in chosen:
            cut = lists if m.cutoff is None else lists.filter(sf.col(POS) <= m.cutoff)
            value = self._compute[m.name](m, cut)
            if isinstance(value, float):
                totals[str(m)] = value
            else:
                per_user.append((str(m), value))
        return per_user, totals

    def notes(self, measures: list[BeyondMeasure]) -> list[str]:
        """What the default catalogue was (when one was made), as the numpy path says it."""
        if self.catalogue is None and "default" in self._made:
            return list(self._made["default"].notes(measures))
        return []

    # what the measures share ------------------------------------------------------------------

    def default_catalogue(self, m: BeyondMeasure) -> _DefaultCatalogue:
        """Every item of the test, the lists and the training (as the numpy path counts)."""
        from pyspark.sql import functions as sf

        plan = self.plan
        if "default" not in self._made:
            made = _DefaultCatalogue(0, plan.truth is not None, plan.history is not None)
            made.available(m)  # only recommendations: no catalogue
            item = column_of(plan.recs, "item", plan.columns, "recommendations")
            items = plan.recs.select(sf.col(str(item)).cast("string").alias(ITEM))
            for frame in (plan.truth, plan.history,
                          None if plan.seen is plan.history else plan.seen):
                if frame is not None:
                    items = items.union(frame.select(ITEM))
            self._made["default"] = replace(made, size=int(items.distinct().count()))
        known: _DefaultCatalogue = self._made["default"]
        return known

    def catalogue_size(self, m: BeyondMeasure, counts: DataFrame, recommended: int) -> int:
        """The catalogue's size, checked to hold every item recommended (once per measure)."""
        from pyspark.sql import functions as sf

        if self.catalogue is None:
            return self.default_catalogue(m).size
        if "given" not in self._made:
            self._made["given"] = catalogue_given(self.plan.spark, self.catalogue,
                                                  self.plan.columns)
        size, items = self._made["given"]
        if str(m) in self._checked:  # checked on all the lists: a segment's are a part of them
            return int(size)
        outside, examples = 0, []
        if items is not None:
            numeric = self.plan.numeric_items
            missing = counts.select(ITEM).join(items, ITEM, "left_anti")
            outside = missing.count()
            key = sf.col(ITEM).cast("long") if numeric else sf.col(ITEM)
            examples = [int(row[0]) if numeric else row[0]
                        for row in missing.orderBy(key).limit(5).collect()] if outside else []
        beyond.check_catalogue(recommended, int(size), outside=outside, examples=examples,
                               measure=str(m))
        self._checked.add(str(m))
        return int(size)

    def need_history(self, m: BeyondMeasure) -> DataFrame:
        """Per training item ``_users`` and ``_rows``, or numpy's error without training."""
        if self.stats is None:
            raise InvalidParameterError(
                f"{m} needs the training interactions: give {argument('train')} (or "
                f"{argument('exclude')})")
        return self.stats

    def need_truth(self, m: BeyondMeasure) -> DataFrame:
        """The held-out interactions, or numpy's error without them."""
        if self.plan.truth is None:
            raise InvalidParameterError(f"{m} needs the held-out interactions (held_out=)")
        return self.plan.truth

    def item_popularity(self, m: BeyondMeasure) -> tuple[list[str], np.ndarray]:
        """Training items (ids as text) and their interactions, collected once."""
        if "items" not in self._made:
            table = self.need_history(m).select(ITEM, "_rows").toArrow()
            self._made["items"] = table.column(ITEM).to_pylist()
            self._made["rows"] = np.asarray(table.column("_rows").to_numpy(), dtype=np.float64)
        return self._made["items"], self._made["rows"]

    def tail_frame(self, m: BeyondMeasure) -> DataFrame:
        """``_i, _tail, _head`` for the training items (the numpy path's long tail)."""
        items, rows = self.item_popularity(m)
        # ties of popularity by item id (numbers by value, text by bytes), as numpy's
        keys = [int(x) for x in items] if self.plan.numeric_items else [x.encode() for x in items]
        order = np.argsort(np.array(keys, dtype=object), kind="stable")
        ranks = np.empty(len(order), dtype=np.int64)
        ranks[order] = np.arange(len(order))
        if m.param("dialect") == "recbole":
            tail = recbole_tail(rows, rows > 0, m.param("tail"), ties=ranks)
        else:
            tail = beyond.long_tail(rows, head=m.param("head", 0.8), ties=ranks)
        head = (rows > 0) & ~tail
        return self.plan.spark.createDataFrame(
            [(i, bool(t), bool(h)) for i, t, h in zip(items, tail, head)],
            schema=f"{ITEM} string, _tail boolean, _head boolean")

    def item_vectors(self) -> tuple[DataFrame, int | None]:
        """The items' vectors (features, or co-occurrence in training), made once."""
        plan = self.plan
        if "vectors" not in self._made:
            spark_vectors.need_vectors(self.features, plan.history)
            if self.features is not None:
                item = column_of(plan.recs, "item", plan.columns, "recommendations")
                self._made["vectors"] = spark_vectors.features_frame(
                    plan.spark, self.features, plan.columns, plan.recs.schema[str(item)].dataType)
            else:  # need_vectors refused no training
                history = cast("DataFrame", plan.history)
                self._made["vectors"] = (spark_vectors.cooccurrence_frame(history), None)
        vectors: tuple[DataFrame, int | None] = self._made["vectors"]
        return vectors

    def n_train_users(self) -> float:
        """The number of users in the training interactions."""
        if "train_users" not in self._made:
            history = cast("DataFrame", self.plan.history)  # asked after need_history
            self._made["train_users"] = float(history.select(USER).distinct().count())
        return float(self._made["train_users"])

    # the measures -----------------------------------------------------------------------------

    def _exposure(self, m: BeyondMeasure, cut: DataFrame) -> float:
        """Coverage, Gini and entropy from how often each item is recommended."""
        from pyspark.sql import functions as sf

        counts_frame = cut.groupBy(ITEM).agg(sf.count(sf.lit(1)).alias("_c"))
        counts = np.asarray(counts_frame.select("_c").toArrow().column("_c").to_numpy(),
                            dtype=np.float64)
        recbole = m.param("dialect") == "recbole"
        if m.name == "coverage":
            size = self.catalogue_size(m, counts_frame, len(counts))
            if size <= 0:
                raise InvalidParameterError(f"the catalogue is empty (size {size})")
            return float(len(counts) / size)
        if m.name == "gini":
            size = self.catalogue_size(m, counts_frame, len(counts))
            return beyond.gini(counts, size, form="recbole" if recbole else "handbook")
        if recbole:
            return beyond.shannon_entropy(counts, base=math.e, per_item=True)
        return beyond.shannon_entropy(counts)

    def _personalisation(self, m: BeyondMeasure, cut: DataFrame) -> float:
        """1 - the mean cosine overlap of two users' lists, from per-item sums."""
        from pyspark.sql import functions as sf

        lengths = cut.groupBy(USER).agg(sf.count(sf.lit(1)).alias("_len"))
        n = lengths.count()
        if n < 2:
            return float("nan")
        weighted = cut.join(lengths, USER).withColumn(
            "_w", 1 / sf.sqrt(sf.col("_len").cast("double")))
        per_item = weighted.groupBy(ITEM).agg(sf.sum("_w").alias("_s"),
                                           sf.sum(sf.col("_w") * sf.col("_w")).alias("_s2"))
        overlap = one(per_item.agg(sf.sum(sf.col("_s") * sf.col("_s") - sf.col("_s2"))))[0]
        return 1 - float(overlap or 0.0) / (n * (n - 1))

    def _novelty(self, m: BeyondMeasure, cut: DataFrame) -> DataFrame | float:
        """Self-information of the items recommended (per user; the Recommenders': one value)."""
        from pyspark.sql import functions as sf

        stats = self.need_history(m)
        joined = cut.join(stats, ITEM, "left")
        if m.param("dialect") == "recommenders":
            total = one(stats.agg(sf.sum("_rows")))[0]
            row = one(joined.agg(
                sf.sum(sf.when(sf.col("_rows") > 0,
                               -sf.log2(sf.col("_rows") / sf.lit(float(total))))),
                sf.count(sf.lit(1))))
            return float(row[0] or 0.0) / max(int(row[1]), 1)
        population = self.n_train_users()
        information = -sf.log2(sf.coalesce(sf.col("_users").cast("double"),
                                           sf.lit(1.0)) / sf.lit(population))
        return joined.groupBy(USER).agg(sf.avg(information).alias("_value"))

    def _popularity(self, m: BeyondMeasure, cut: DataFrame) -> DataFrame:
        """ARP (mean training popularity) and APLT (share of long-tail items), per user."""
        from pyspark.sql import functions as sf

        if m.name == "arp":
            joined = cut.join(self.need_history(m), ITEM, "left")
            value = sf.coalesce(sf.col("_rows"), sf.lit(0.0))
        else:
            joined = cut.join(self.tail_frame(m), ITEM, "left")
            value = sf.coalesce(sf.col("_tail"), sf.lit(False)).cast("double")
        cutoff = m.cutoff if m.param("dialect") == "recbole" else None
        aggregate = sf.sum(value) / sf.lit(float(cutoff)) if cutoff is not None \
            else sf.avg(value)
        return joined.groupBy(USER).agg(aggregate.alias("_value"))

    def _epc(self, m: BeyondMeasure, cut: DataFrame) -> DataFrame:
        """Expected popularity complement of the relevant items recommended, per user."""
        from pyspark.sql import functions as sf

        relevant = self.need_truth(m).filter(sf.col("_r") >= 1).select(
            USER, ITEM, sf.lit(1.0).alias("_rel"))
        stats = self.need_history(m)
        share = sf.coalesce(sf.col("_users").cast("double"), sf.lit(0.0)) / sf.lit(
            self.n_train_users())
        disc = 1 / sf.log2(sf.col(POS).cast("double") + 1.0)
        joined = cut.join(stats, ITEM, "left").join(relevant, [USER, ITEM], "left")
        gain = disc * sf.coalesce(sf.col("_rel"), sf.lit(0.0)) * (1 - share)
        return joined.groupBy(USER).agg((sf.sum(gain) / sf.sum(disc)).alias("_value"))

    def _ild(self, m: BeyondMeasure, cut: DataFrame) -> DataFrame:
        """Intra-list diversity per user (numpy's kernel on whole users)."""
        return spark_vectors.ild_frame(cut, *self.item_vectors(), max(self.plan.n_evaluated, 1))

    def _serendipity(self, m: BeyondMeasure, cut: DataFrame) -> DataFrame:
        """Relevant items the baseline lacks (rankwise's), or the Recommenders' by similarity."""
        from pyspark.sql import functions as sf

        plan = self.plan
        if m.param("dialect") == "recommenders":
            truth = self.need_truth(m)
            self.need_history(m)  # numpy's error without training interactions
            history = cast("DataFrame", plan.history)
            return spark_vectors.history_serendipity_frame(
                cut, history, truth, *self.item_vectors(), max(plan.n_evaluated, 1))
        if plan.base_lists is None:
            raise InvalidParameterError(
                f"{m} needs a baseline recommender's lists: give {argument('baseline')}")
        truth = self.need_truth(m)
        base_cut = plan.base_lists if m.cutoff is None else plan.base_lists.filter(
            sf.col(POS) <= m.cutoff)
        useful = truth.filter(sf.col("_r") >= 1).select(USER, ITEM,
                                                        sf.lit(True).alias("_useful"))
        joined = cut.join(base_cut.select(USER, ITEM, sf.lit(True).alias("_base")),
                          [USER, ITEM], "left").join(useful, [USER, ITEM], "left")
        value = (sf.col("_base").isNull() & sf.col("_useful").isNotNull()).cast(
            "double")  # unexpected and useful
        return joined.groupBy(USER).agg(sf.avg(value).alias("_value"))

    def _popreo(self, m: BeyondMeasure, cut: DataFrame) -> float:
        """PopREO: the spread of the recall of fresh relevant items, head against tail."""
        from pyspark.sql import functions as sf

        truth = self.need_truth(m)
        groups = self.tail_frame(m)  # refuses no training interactions
        history = cast("DataFrame", self.plan.history)
        relevant = truth.filter(sf.col("_r") >= 1).select(USER, ITEM).join(
            self.plan.evaluated.select(USER), USER, "left_semi")  # the users evaluated only
        fresh = relevant.join(history.select(USER, ITEM), [USER, ITEM], "left_anti")
        hits = cut.select(USER, ITEM).join(fresh, [USER, ITEM], "left_semi")

        def by_group(frame: DataFrame) -> tuple[int, int]:
            row = one(frame.join(groups, ITEM, "left").agg(
                sf.sum(sf.coalesce(sf.col("_head"), sf.lit(False)).cast("long")),
                sf.sum(sf.coalesce(sf.col("_tail"), sf.lit(False)).cast("long"))))
            return int(row[0] or 0), int(row[1] or 0)

        denominators, numerators = by_group(fresh), by_group(hits)
        if 0 in denominators:
            return float("nan")
        p = np.asarray(numerators, dtype=np.float64) / np.asarray(denominators)
        return float(np.std(p) / np.mean(p)) if np.mean(p) > 0 else float("nan")
