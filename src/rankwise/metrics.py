"""Ranking metrics on plain arrays: the classic tutorial functions, and scikit-learn's.

Two families live here, both numpy only and vectorised:

* the tutorial functions, on relevances that are *already in ranked order*:
  :func:`dcg_at_k`, :func:`ndcg_at_k` (gain ``2**rel - 1``),
  :func:`average_precision`, :func:`mean_average_precision`,
  :func:`reciprocal_rank`, :func:`mean_reciprocal_rank`;
* drop-in equivalents of ``sklearn.metrics.ndcg_score`` and
  ``sklearn.metrics.dcg_score`` on ``(n_queries, n_docs)`` matrices of grades
  and scores (linear gain, ties averaged as in McSherry & Najork 2008), which
  return the same numbers as scikit-learn without importing it.

Inputs are validated once at the public boundary, then laid out as the
arrays rankwise's own kernels read: DCG is summed by
:func:`rankwise.kernels.dcg.discounted_sum` (and averaged over tied orders by
:func:`rankwise.kernels.tie_average.expected_discounted_sum`, over the tie
groups :func:`rankwise.ranking.arrays.rank_arrays` finds), AP and RR by
:func:`rankwise.kernels.average_precision.precision_sums` and
:func:`~rankwise.kernels.average_precision.reciprocal_ranks`: the formulas
exist once, for ``rw.evaluate`` and for these functions. Every error is a
:class:`rankwise.exceptions.InvalidParameterError` (a ``ValueError`` and a
``RankwiseError``) whose message names the parameter, what was expected and
what was received.

References
----------
.. [1] K. Järvelin and J. Kekäläinen, "Cumulated gain-based evaluation of IR
   techniques", ACM TOIS 20(4), 2002.
.. [2] C. Burges et al., "Learning to rank using gradient descent", ICML 2005
   (the exponential gain ``2**rel - 1``).
.. [3] F. McSherry and M. Najork, "Computing information retrieval performance
   measures efficiently in the presence of tied scores", ECIR 2008.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal, get_args

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rankwise._validation import POSITIVE_INT, Instance, Number, OneOf, check, optional, shown
from rankwise.exceptions import InvalidParameterError

__all__ = [
    "average_precision",
    "dcg_at_k",
    "dcg_score",
    "mean_average_precision",
    "mean_reciprocal_rank",
    "ndcg_at_k",
    "ndcg_score",
    "reciprocal_rank",
]

Gain = Literal["exponential", "linear"]
_GAINS: tuple[str, ...] = get_args(Gain)


# --------------------------------------------------------------------------
# validation helpers (public boundary)
# --------------------------------------------------------------------------


def _check_k(k: object, name: str = "k") -> int | None:
    """Return ``k`` as an int >= 1, or None; raise otherwise."""
    cutoff: int | None = check(name, k, _CUTOFF)
    return cutoff


def _check_bool(value: object, name: str) -> bool:
    return bool(check(name, value, _BOOL))


_CUTOFF = optional(POSITIVE_INT)
_BOOL = Instance(bool, np.bool_, words="True or False")
_LOG_BASE = Number(low=0, closed="neither", finite=True)


def _as_numeric(value: ArrayLike, name: str) -> NDArray[Any]:
    """Convert to a numeric (bool / int / float) array, keeping its dtype."""
    try:
        arr = np.asarray(value)
    except ValueError as exc:  # ragged nested lists
        raise InvalidParameterError(
            f"{name} must be a rectangular array of numbers; got a ragged sequence ({exc})"
        ) from None
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise InvalidParameterError(
                f"{name} must contain numbers; got an array of dtype object "
                f"that cannot be converted to float64"
            ) from None
    if arr.dtype.kind not in "biuf":
        raise InvalidParameterError(
            f"{name} must contain numbers (bool, int or float); got dtype {arr.dtype}"
        )
    if arr.dtype.kind == "f" and arr.size and not np.isfinite(arr).all():
        where = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
        raise InvalidParameterError(
            f"{name} must contain only finite numbers; got {arr[where]} at index "
            f"{where[0] if len(where) == 1 else list(where)}"
        )
    return arr


def _as_relevances(relevances: ArrayLike, name: str = "relevances") -> NDArray[np.float64]:
    arr = _as_numeric(relevances, name)
    if arr.ndim != 1:
        raise InvalidParameterError(
            f"{name} must be a 1-D sequence of grades in ranked order; "
            f"got a {arr.ndim}-D array of shape {arr.shape}"
        )
    return arr.astype(np.float64, copy=False)


def _as_mask(mask: ArrayLike, name: str) -> NDArray[np.bool_]:
    arr = _as_numeric(mask, name)
    if arr.ndim != 1:
        raise InvalidParameterError(
            f"{name} must be a 1-D relevance mask in ranked order; "
            f"got a {arr.ndim}-D array of shape {arr.shape}"
        )
    if arr.dtype.kind != "b":
        bad = (arr != 0) & (arr != 1)
        if bad.any():
            i = int(np.argmax(bad))
            raise InvalidParameterError(
                f"{name} must contain only booleans or 0/1; got {arr[i]} at index {i}"
            )
        arr = arr == 1
    return arr


def _as_masks(masks: Sequence[ArrayLike] | NDArray[Any], name: str = "masks") -> list[NDArray[Any]]:
    if isinstance(masks, str | bytes) or not hasattr(masks, "__len__"):
        raise InvalidParameterError(
            f"{name} must be a sequence of 1-D relevance masks; got {shown(masks)}"
        )
    if len(masks) == 0:
        raise InvalidParameterError(f"{name} must contain at least one mask; got an empty sequence")
    out = []
    for i, m in enumerate(masks):
        if np.ndim(m) == 0:
            raise InvalidParameterError(
                f"{name}[{i}] must be a 1-D relevance mask; got the scalar {shown(m)}. "
                f"For a single query call the function without 'mean_', "
                f"or wrap the mask in a list"
            )
        out.append(_as_mask(m, f"{name}[{i}]"))
    return out


def _check_n_relevant(
    n_relevant: object, counts: NDArray[np.intp], name: str
) -> NDArray[np.float64] | None:
    """Validate user-given numbers of relevant documents against the masks."""
    if n_relevant is None:
        return None
    arr = np.asarray(n_relevant)
    if arr.shape != counts.shape:
        raise InvalidParameterError(
            f"{name} must have one entry per mask ({counts.shape[0]}); got shape {arr.shape}"
            if counts.ndim
            else f"{name} must be a non-negative int or None; got {shown(n_relevant)}"
        )
    if arr.dtype.kind not in "iu" or (arr < 0).any():
        raise InvalidParameterError(
            f"{name} must be a non-negative int (or ints) or None; got {shown(n_relevant)}"
        )
    too_small = arr < counts
    if too_small.any():
        i = int(np.argmax(too_small)) if counts.ndim else None
        where = "" if i is None else f"[{i}]"
        raise InvalidParameterError(
            f"{name}{where} must be at least the number of relevant documents in the "
            f"mask ({counts if i is None else counts[i]}); got "
            f"{arr if i is None else arr[i]}"
        )
    return arr.astype(np.float64)


def _check_gain(gain: object) -> Gain:
    checked: Gain = check("gain", gain, OneOf(_GAINS))
    return checked


def _check_matrices(
    y_true: ArrayLike,
    y_score: ArrayLike,
    sample_weight: ArrayLike | None,
    func: str,
) -> tuple[NDArray[np.float64], NDArray[Any], NDArray[np.float64] | None]:
    """Validate the scikit-learn style ``(n_queries, n_docs)`` inputs."""
    yt = _as_numeric(y_true, "y_true")
    ys = _as_numeric(y_score, "y_score")
    for name, arr in (("y_true", yt), ("y_score", ys)):
        if arr.ndim != 2:
            raise InvalidParameterError(
                f"{func}: {name} must be a 2-D array of shape (n_queries, n_docs), as in "
                f"scikit-learn; got a {arr.ndim}-D array of shape {arr.shape}. For a single "
                f"query pass [{name}] (or {name}.reshape(1, -1))"
            )
    if yt.shape != ys.shape:
        raise InvalidParameterError(
            f"{func}: y_true and y_score must have the same shape (n_queries, n_docs); "
            f"got y_true {yt.shape} and y_score {ys.shape}"
        )
    n_queries, n_docs = yt.shape
    if n_queries < 1:
        raise InvalidParameterError(
            f"{func}: y_true must contain at least one query (row); got shape {yt.shape}"
        )
    if n_docs < 2:
        raise InvalidParameterError(
            f"{func}: each query needs at least 2 documents (columns) for a ranking to "
            f"mean anything, as in scikit-learn; got shape {yt.shape}"
        )
    sw = None
    if sample_weight is not None:
        sw = _as_numeric(sample_weight, "sample_weight")
        if sw.shape != (n_queries,):
            raise InvalidParameterError(
                f"{func}: sample_weight must be 1-D with one weight per query "
                f"({n_queries},); got shape {sw.shape}"
            )
        sw = sw.astype(np.float64)
        if sw.sum() == 0:
            raise InvalidParameterError(
                f"{func}: sample_weight must not sum to zero; got {sw.tolist()[:10]}"
            )
    return yt.astype(np.float64, copy=False), ys, sw


# --------------------------------------------------------------------------
# the arrays the kernels read (DCG, AP and RR are computed in rankwise.kernels)
# --------------------------------------------------------------------------


def _gains(relevances: NDArray[np.float64], gain: Gain) -> NDArray[np.float64]:
    """The tutorial's gains: ``2**rel - 1`` or the grade, for any finite grade (negative too)."""
    return np.exp2(relevances) - 1.0 if gain == "exponential" else relevances


def _dcg_ranked(relevances: NDArray[np.float64], k: int | None, gain: Gain) -> float:
    """DCG@k of one list in ranked order (:func:`rankwise.kernels.dcg.discounted_sum`)."""
    from rankwise.kernels.dcg import discounted_sum

    r = relevances[:k]
    rank = np.arange(1, r.size + 1)
    return float(discounted_sum(np.zeros(r.size, dtype=np.intp), rank, _gains(r, gain), 1)[0])


def _dcg_rows(
    y_true: NDArray[np.float64], y_score: NDArray[Any], k: int | None, ignore_ties: bool
) -> NDArray[np.float64]:
    """DCG@k (base 2, linear gain) of every row, documents ranked by ``y_score`` descending.

    With ``ignore_ties=False`` the value is the expectation over all orders of
    tied documents [3]_: the documents are ranked by :func:`rankwise.ranking.arrays.rank_arrays`
    (tie groups of equal scores) and summed by
    :func:`rankwise.kernels.tie_average.expected_discounted_sum`, as
    ``ties="average"`` evaluates. With ``ignore_ties=True`` tied documents are
    taken in the order ``np.argsort(y_score, axis=1)[:, ::-1]`` gives (what
    scikit-learn uses) and summed by :func:`rankwise.kernels.dcg.discounted_sum`.
    """
    from rankwise.kernels.dcg import discounted_sum
    from rankwise.kernels.tie_average import expected_discounted_sum
    from rankwise.ranking.arrays import rank_arrays

    n_queries, n_docs = y_true.shape
    cut = n_docs if k is None else min(k, n_docs)
    if ignore_ties:
        order = np.argsort(y_score, axis=1)[:, ::-1]
        gains = np.take_along_axis(y_true, order, axis=1)[:, :cut]
        query = np.repeat(np.arange(n_queries), cut)
        rank = np.tile(np.arange(1, cut + 1), n_queries)
        return discounted_sum(query, rank, gains.ravel(), n_queries)
    # the scores' order and equalities, exactly, as float64 ranks (any dtype, any size)
    levels = np.unique(y_score, return_inverse=True)[1].reshape(-1).astype(np.float64)
    ranking = rank_arrays(y_true.ravel(), levels, np.full(n_queries, n_docs, dtype=np.int64))
    return expected_discounted_sum(
        ranking.hit_query, ranking.hit_grade, ranking.tie_above.astype(np.float64),
        ranking.tie_size.astype(np.float64), float(cut), n_queries,
    )


def _ideal_dcg_rows(y_true: NDArray[np.float64], k: int | None) -> NDArray[np.float64]:
    """DCG@k of each row's grades sorted descending (linear gain, base 2)."""
    from rankwise.kernels.dcg import discounted_sum

    n_queries, n_docs = y_true.shape
    cut = n_docs if k is None else min(k, n_docs)
    ideal = np.sort(y_true, axis=1)[:, ::-1][:, :cut]
    return discounted_sum(np.repeat(np.arange(n_queries), cut),
                          np.tile(np.arange(1, cut + 1), n_queries), ideal.ravel(), n_queries)


def _relevant_hits(
    masks: list[NDArray[np.bool_]],
) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.intp], NDArray[np.intp]]:
    """Per relevant document of all masks at once: its mask, rank, and index among them; counts.

    The arrays :func:`rankwise.kernels.average_precision.precision_sums` and
    :func:`~rankwise.kernels.average_precision.reciprocal_ranks` read (ragged
    lists allowed; no loop per mask).
    """
    from rankwise.kernels._segments import rank_within_query

    n_queries = len(masks)
    lengths = np.fromiter((m.size for m in masks), dtype=np.intp, count=n_queries)
    flat = np.concatenate(masks) if n_queries else np.zeros(0, dtype=bool)
    row = np.repeat(np.arange(n_queries), lengths)
    seg_start = np.cumsum(lengths) - lengths
    rank = np.arange(flat.size) - seg_start[row] + 1  # 1-based rank inside its list
    rel_query, rel_rank = row[flat], rank[flat]
    return (rel_query, rel_rank, rank_within_query(rel_query),
            np.bincount(rel_query, minlength=n_queries))


def _average_precisions(
    masks: list[NDArray[np.bool_]], n_relevant: object, name: str, one: bool
) -> NDArray[np.float64]:
    from rankwise.kernels._segments import safe_divide
    from rankwise.kernels.average_precision import precision_sums

    rel_query, rel_rank, rel_index, n_hits = _relevant_hits(masks)
    given = _check_n_relevant(n_relevant, n_hits[0] if one else n_hits, name)
    r = n_hits.astype(np.float64) if given is None else given.reshape(n_hits.shape)
    return safe_divide(precision_sums(rel_query, rel_rank, rel_index, len(masks)), r)


def _reciprocal_ranks(masks: list[NDArray[np.bool_]]) -> NDArray[np.float64]:
    from rankwise.kernels.average_precision import reciprocal_ranks

    rel_query, rel_rank, _, _ = _relevant_hits(masks)
    return reciprocal_ranks(rel_query, rel_rank, len(masks))


# --------------------------------------------------------------------------
# tutorial functions: relevances already in ranked order
# --------------------------------------------------------------------------


def dcg_at_k(relevances: ArrayLike, k: int | None = None, *, gain: Gain = "exponential") -> float:
    r"""Discounted cumulative gain of a ranked list of graded relevances.

    .. math:: \mathrm{DCG@}k = \sum_{i=1}^{k} \frac{2^{rel_i} - 1}{\log_2(i + 1)}

    Parameters
    ----------
    relevances : array-like of shape (n_docs,)
        Relevance grades of the retrieved documents, in ranked order (best
        first). Any finite numbers.
    k : int or None, default=None
        Cutoff: only the first ``k`` documents count. None, or a ``k`` larger
        than the list, uses the whole list.
    gain : {"exponential", "linear"}, default="exponential"
        ``"exponential"`` uses ``2**rel - 1`` (Burges et al. 2005, the
        tutorial's definition); ``"linear"`` uses the grade itself (trec_eval,
        scikit-learn, Järvelin & Kekäläinen 2002).

    Returns
    -------
    float
        DCG@k; 0.0 for an empty list.

    Raises
    ------
    InvalidParameterError
        If ``relevances`` is not 1-D numeric and finite, ``k`` is not a
        positive int or None, or ``gain`` is unknown.

    See Also
    --------
    ndcg_at_k : DCG normalised by the DCG of the ideal order.
    dcg_score : scikit-learn compatible DCG on score matrices.

    Examples
    --------
    >>> from rankwise.metrics import dcg_at_k
    >>> print(f"{dcg_at_k([3, 2, 3, 0, 1], k=5):.4f}")
    12.7796
    >>> print(f"{dcg_at_k([3, 2, 3, 0, 1], k=5, gain='linear'):.4f}")
    6.1487
    >>> dcg_at_k([3, 2, 3, 0, 1], k=1)
    7.0
    """
    r = _as_relevances(relevances)
    return _dcg_ranked(r, _check_k(k), _check_gain(gain))


def ndcg_at_k(relevances: ArrayLike, k: int | None = None, *, gain: Gain = "exponential") -> float:
    r"""Normalised DCG of a ranked list of graded relevances.

    .. math:: \mathrm{NDCG@}k = \frac{\mathrm{DCG@}k}{\mathrm{IDCG@}k}

    where IDCG@k is the DCG@k of the same relevances sorted in descending
    order, and NDCG@k is 0 when IDCG@k is 0 (nothing relevant in the list).

    Parameters
    ----------
    relevances : array-like of shape (n_docs,)
        Non-negative relevance grades of the retrieved documents, in ranked
        order (best first).
    k : int or None, default=None
        Cutoff; None, or a ``k`` larger than the list, uses the whole list.
    gain : {"exponential", "linear"}, default="exponential"
        ``2**rel - 1`` (the tutorial's definition) or the grade itself
        (trec_eval, scikit-learn).

    Returns
    -------
    float
        NDCG@k in [0, 1].

    Raises
    ------
    InvalidParameterError
        If ``relevances`` is not 1-D, numeric, finite and non-negative, ``k``
        is not a positive int or None, or ``gain`` is unknown.

    See Also
    --------
    dcg_at_k : the numerator.
    ndcg_score : scikit-learn compatible NDCG on score matrices (linear gain).

    Notes
    -----
    The ideal order is built from *this list only*, as in the tutorial. When
    the list is a truncated run, relevant documents that were not retrieved
    do not enter IDCG; ``rankwise.evaluate`` builds IDCG from all judged
    grades of the query instead.

    Examples
    --------
    >>> from rankwise.metrics import ndcg_at_k
    >>> print(f"{ndcg_at_k([3, 2, 3, 0, 1], k=5):.4f}")
    0.9575
    >>> print(f"{ndcg_at_k([3, 2, 3, 0, 1], k=5, gain='linear'):.4f}")
    0.9724
    >>> ndcg_at_k([0, 0, 0])
    0.0
    """
    r = _as_relevances(relevances)
    if r.size and r.min() < 0:
        i = int(np.argmin(r))
        raise InvalidParameterError(
            f"relevances must be non-negative for NDCG; got {r[i]:g} at index {i}"
        )
    k = _check_k(k)
    gain = _check_gain(gain)
    ideal = _dcg_ranked(np.sort(r)[::-1], k, gain)
    return 0.0 if ideal == 0 else _dcg_ranked(r, k, gain) / ideal


def average_precision(mask: ArrayLike, *, n_relevant: int | None = None) -> float:
    r"""Average precision of a ranked relevance mask.

    .. math:: \mathrm{AP} = \frac{1}{R} \sum_{k=1}^{n} P@k \cdot rel(k)

    where ``rel(k)`` is 1 if the document at rank ``k`` is relevant, ``P@k``
    the fraction of relevant documents in the top ``k``, and ``R`` the number
    of relevant documents (0 when ``R`` is 0).

    Parameters
    ----------
    mask : array-like of shape (n_docs,)
        Booleans or 0/1, in ranked order: is the document at each rank
        relevant?
    n_relevant : int or None, default=None
        The true number of relevant documents ``R``, when the list is
        truncated and misses some of them. None counts them in ``mask``.

    Returns
    -------
    float
        AP in [0, 1].

    Raises
    ------
    InvalidParameterError
        If ``mask`` is not a 1-D mask of booleans or 0/1, or ``n_relevant``
        is not an int at least the number of relevant documents in ``mask``.

    See Also
    --------
    mean_average_precision : AP averaged over queries (MAP).

    Examples
    --------
    >>> from rankwise.metrics import average_precision
    >>> print(f"{average_precision([True, False, True, False, True]):.4f}")
    0.7556
    >>> print(f"{average_precision([1, 0, 1, 0, 1], n_relevant=6):.4f}")
    0.3778
    """
    return float(_average_precisions([_as_mask(mask, "mask")], n_relevant, "n_relevant",
                                     one=True)[0])


def mean_average_precision(
    masks: Sequence[ArrayLike] | NDArray[Any], *, n_relevant: ArrayLike | None = None
) -> float:
    """Mean average precision (MAP) over queries.

    Parameters
    ----------
    masks : sequence of array-like
        One ranked relevance mask (booleans or 0/1) per query; the lists may
        have different lengths. A 2-D array is read row by row.
    n_relevant : array-like of int or None, default=None
        The true number of relevant documents of each query, for truncated
        lists; None counts them in each mask.

    Returns
    -------
    float
        The mean of :func:`average_precision` over the masks.

    Raises
    ------
    InvalidParameterError
        If ``masks`` is empty or one of its masks is invalid, or
        ``n_relevant`` does not give one valid count per mask.

    See Also
    --------
    average_precision : AP of one query.

    Examples
    --------
    >>> from rankwise.metrics import mean_average_precision
    >>> T, F = True, False
    >>> print(f"{mean_average_precision([[T, F, T, F, T], [F, T, F, T, F], [T, T, F, F, F]]):.4f}")
    0.7519
    >>> mean_average_precision([[1, 0], [0, 0, 0, 1]])
    0.625
    """
    return float(np.mean(_average_precisions(_as_masks(masks), n_relevant, "n_relevant",
                                             one=False)))


def reciprocal_rank(mask: ArrayLike) -> float:
    """Reciprocal rank of the first relevant document.

    Parameters
    ----------
    mask : array-like of shape (n_docs,)
        Booleans or 0/1 in ranked order.

    Returns
    -------
    float
        ``1 / rank`` of the first relevant document (ranks start at 1), or 0.0
        when none is relevant.

    Raises
    ------
    InvalidParameterError
        If ``mask`` is not a 1-D mask of booleans or 0/1.

    See Also
    --------
    mean_reciprocal_rank : averaged over queries (MRR).

    Examples
    --------
    >>> from rankwise.metrics import reciprocal_rank
    >>> reciprocal_rank([False, False, True, True])
    0.3333333333333333
    >>> reciprocal_rank([0, 0, 0])
    0.0
    """
    return float(_reciprocal_ranks([_as_mask(mask, "mask")])[0])


def mean_reciprocal_rank(masks: Sequence[ArrayLike] | NDArray[Any]) -> float:
    """Mean reciprocal rank (MRR) over queries.

    Parameters
    ----------
    masks : sequence of array-like
        One ranked relevance mask (booleans or 0/1) per query; lengths may
        differ. A 2-D array is read row by row.

    Returns
    -------
    float
        The mean of :func:`reciprocal_rank` over the masks.

    Raises
    ------
    InvalidParameterError
        If ``masks`` is empty or one of its masks is invalid.

    See Also
    --------
    reciprocal_rank : RR of one query.

    Examples
    --------
    First relevant results at ranks 1, 3 and 2:

    >>> from rankwise.metrics import mean_reciprocal_rank
    >>> print(f"{mean_reciprocal_rank([[1, 0, 0], [0, 0, 1], [0, 1, 0]]):.4f}")
    0.6111
    """
    return float(np.mean(_reciprocal_ranks(_as_masks(masks))))


# --------------------------------------------------------------------------
# scikit-learn compatible: (n_queries, n_docs) grades and scores
# --------------------------------------------------------------------------


def dcg_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    k: int | None = None,
    log_base: float = 2,
    sample_weight: ArrayLike | None = None,
    ignore_ties: bool = False,
) -> float:
    r"""Discounted cumulative gain, equal to ``sklearn.metrics.dcg_score``.

    Documents are ranked by ``y_score`` descending and each query scores

    .. math:: \mathrm{DCG@}k = \sum_{i=1}^{k} \frac{y\_true_{(i)}}{\log_b(i + 1)}

    (linear gain). With ``ignore_ties=False`` the value is the expected DCG
    over all orders of documents with tied scores, computed in closed form per
    tie group [3]_. The result is the (weighted) mean over queries.

    Parameters
    ----------
    y_true : array-like of shape (n_queries, n_docs)
        True relevance grades (gains).
    y_score : array-like of shape (n_queries, n_docs)
        Predicted scores; higher ranks first.
    k : int or None, default=None
        Only the top ``k`` ranks count; None (or ``k >= n_docs``) uses all.
    log_base : float, default=2
        Base of the logarithm of the discount; must be > 0.
    sample_weight : array-like of shape (n_queries,) or None, default=None
        Weights of the queries in the mean.
    ignore_ties : bool, default=False
        Skip the tie averaging (faster); tied documents are then taken in the
        order ``np.argsort(y_score, axis=1)[:, ::-1]`` puts them, as
        scikit-learn does, which numpy leaves unspecified.

    Returns
    -------
    float
        The mean DCG over queries.

    Raises
    ------
    InvalidParameterError
        If the inputs are not finite numeric 2-D arrays of the same shape with
        at least one query and two documents, or a parameter is out of range.

    See Also
    --------
    ndcg_score : DCG divided by the DCG of the ideal order.
    dcg_at_k : DCG of one list already in ranked order (exponential gain).

    Examples
    --------
    >>> from rankwise.metrics import dcg_score
    >>> y_true = [[3, 2, 3, 0, 1]]
    >>> print(f"{dcg_score(y_true, [[0.9, 0.8, 0.7, 0.4, 0.3]], k=5):.4f}")
    6.1487

    Tied scores give the mean over both orders of the tied documents:

    >>> print(f"{dcg_score([[3, 1]], [[0.5, 0.5]]):.4f}")
    3.2619
    """
    k = _check_k(k)
    log_base = check("log_base", log_base, _LOG_BASE)
    ignore_ties = _check_bool(ignore_ties, "ignore_ties")
    yt, ys, sw = _check_matrices(y_true, y_score, sample_weight, "dcg_score")
    # 1 / log_b(i + 1) = log2(b) / log2(i + 1): the base-2 sums, scaled
    dcg = _dcg_rows(yt, ys, k, ignore_ties) * math.log2(float(log_base))
    return float(np.average(dcg, weights=sw))


def ndcg_score(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    k: int | None = None,
    sample_weight: ArrayLike | None = None,
    ignore_ties: bool = False,
) -> float:
    r"""Normalised DCG, equal to ``sklearn.metrics.ndcg_score``.

    Each query scores DCG@k (see :func:`dcg_score`, linear gain, base-2
    discount, ties averaged unless ``ignore_ties``) divided by IDCG@k, the
    DCG@k of its documents sorted by ``y_true``; a query whose IDCG@k is 0
    scores 0. The result is the (weighted) mean over queries.

    Parameters
    ----------
    y_true : array-like of shape (n_queries, n_docs)
        Non-negative true relevance grades.
    y_score : array-like of shape (n_queries, n_docs)
        Predicted scores; higher ranks first.
    k : int or None, default=None
        Only the top ``k`` ranks count; None (or ``k >= n_docs``) uses all.
    sample_weight : array-like of shape (n_queries,) or None, default=None
        Weights of the queries in the mean.
    ignore_ties : bool, default=False
        Skip the tie averaging; tied documents are then taken in the order
        ``np.argsort(y_score, axis=1)[:, ::-1]`` gives (as scikit-learn).

    Returns
    -------
    float
        The mean NDCG over queries, in [0, 1].

    Raises
    ------
    InvalidParameterError
        If the inputs are not finite numeric 2-D arrays of the same shape with
        at least one query and two documents, ``y_true`` has a negative value,
        or a parameter is out of range.

    See Also
    --------
    dcg_score : the unnormalised DCG.
    ndcg_at_k : NDCG of one list already in ranked order (exponential gain).

    Examples
    --------
    >>> from rankwise.metrics import ndcg_score
    >>> print(f"{ndcg_score([[3, 2, 3, 0, 1]], [[0.9, 0.8, 0.7, 0.4, 0.3]], k=5):.4f}")
    0.9724

    Model A ranks the documents perfectly, model B does not:

    >>> y_true = [[3, 0, 2, 1, 3, 0, 2, 1, 0, 3]]
    >>> model_a = [[0.95, 0.1, 0.7, 0.4, 0.9, 0.05, 0.6, 0.3, 0.2, 0.85]]
    >>> model_b = [[0.8, 0.2, 0.9, 0.6, 0.4, 0.1, 0.7, 0.5, 0.05, 0.3]]
    >>> for k in (3, 5, 10):
    ...     a = ndcg_score(y_true, model_a, k=k)
    ...     b = ndcg_score(y_true, model_b, k=k)
    ...     print(f"k={k:<2}  A={a:.4f}  B={b:.4f}")
    k=3   A=1.0000  B=0.7654
    k=5   A=1.0000  B=0.7113
    k=10  A=1.0000  B=0.8923
    """
    k = _check_k(k)
    ignore_ties = _check_bool(ignore_ties, "ignore_ties")
    yt, ys, sw = _check_matrices(y_true, y_score, sample_weight, "ndcg_score")
    if yt.min() < 0:
        q, d = (int(i) for i in np.unravel_index(np.argmin(yt), yt.shape))
        raise InvalidParameterError(
            f"ndcg_score: y_true must be non-negative (relevance grades), as in "
            f"scikit-learn; got {yt[q, d]:g} at [{q}, {d}]"
        )
    from rankwise.kernels._segments import safe_divide

    dcg = _dcg_rows(yt, ys, k, ignore_ties)
    return float(np.average(safe_divide(dcg, _ideal_dcg_rows(yt, k)), weights=sw))
