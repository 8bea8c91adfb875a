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

Inputs are validated once at the public boundary, then handed to private
kernels. Every error is a :class:`rankwise.exceptions.InvalidParameterError`
(a ``ValueError`` and a ``RankwiseError``) whose message names the parameter,
what was expected and what was received.

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

import numbers
from collections.abc import Sequence
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

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
_GAINS = ("exponential", "linear")


# --------------------------------------------------------------------------
# validation helpers (public boundary)
# --------------------------------------------------------------------------


def _describe(value: object) -> str:
    """Render a received value for an error message: repr and type."""
    text = repr(value)
    if len(text) > 80:
        text = text[:77] + "..."
    return f"{text} ({type(value).__name__})"


def _check_k(k: object, name: str = "k") -> int | None:
    """Return ``k`` as an int >= 1, or None; raise otherwise."""
    if k is None:
        return None
    if isinstance(k, bool | np.bool_) or not isinstance(k, numbers.Integral):
        raise InvalidParameterError(f"{name} must be a positive int or None; got {_describe(k)}")
    if k < 1:
        raise InvalidParameterError(f"{name} must be a positive int (>= 1) or None; got {k}")
    return int(k)


def _check_bool(value: object, name: str) -> bool:
    if not isinstance(value, bool | np.bool_):
        raise InvalidParameterError(f"{name} must be a bool; got {_describe(value)}")
    return bool(value)


def _as_numeric(value: ArrayLike, name: str) -> NDArray:
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


def _as_masks(masks: Sequence[ArrayLike] | NDArray, name: str = "masks") -> list[NDArray]:
    if isinstance(masks, str | bytes) or not hasattr(masks, "__len__"):
        raise InvalidParameterError(
            f"{name} must be a sequence of 1-D relevance masks; got {_describe(masks)}"
        )
    if len(masks) == 0:
        raise InvalidParameterError(f"{name} must contain at least one mask; got an empty sequence")
    out = []
    for i, m in enumerate(masks):
        if np.ndim(m) == 0:
            raise InvalidParameterError(
                f"{name}[{i}] must be a 1-D relevance mask; got the scalar {_describe(m)}. "
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
            else f"{name} must be a non-negative int or None; got {_describe(n_relevant)}"
        )
    if arr.dtype.kind not in "iu" or (arr < 0).any():
        raise InvalidParameterError(
            f"{name} must be a non-negative int (or ints) or None; got {_describe(n_relevant)}"
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
    if gain not in _GAINS:
        raise InvalidParameterError(f"gain must be one of {_GAINS}; got {_describe(gain)}")
    return gain  # type: ignore[return-value]


def _check_matrices(
    y_true: ArrayLike,
    y_score: ArrayLike,
    sample_weight: ArrayLike | None,
    func: str,
) -> tuple[NDArray[np.float64], NDArray, NDArray[np.float64] | None]:
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
# private kernels
# --------------------------------------------------------------------------


def _gains(relevances: NDArray[np.float64], gain: Gain) -> NDArray[np.float64]:
    return np.exp2(relevances) - 1.0 if gain == "exponential" else relevances


def _dcg_ranked(relevances: NDArray[np.float64], k: int | None, gain: Gain) -> float:
    r = relevances[:k]
    discount = np.log2(np.arange(2, r.size + 2, dtype=np.float64))
    return float(np.sum(_gains(r, gain) / discount))


def _discounts(n_docs: int, k: int | None, log_base: float) -> NDArray[np.float64]:
    """``1 / log_b(rank + 1)`` for ranks 1..n_docs, zero beyond ``k``."""
    discount = np.log(log_base) / np.log(np.arange(2, n_docs + 2, dtype=np.float64))
    if k is not None:
        discount[k:] = 0.0
    return discount


def _dcg_rows(
    y_true: NDArray[np.float64],
    y_score: NDArray,
    discount: NDArray[np.float64],
    ignore_ties: bool,
) -> NDArray[np.float64]:
    """DCG of every row, documents ranked by ``y_score`` descending.

    With ``ignore_ties=False`` the value is the expectation over all orders of
    tied documents: within a group of tied scores every document is equally
    likely at every position of the group, so the group contributes its mean
    gain times the sum of the discounts of its positions [3]_. That needs no
    particular order inside a group, so both cases start from the same sort.
    """
    n_queries, n_docs = y_true.shape
    # Descending order; the order *inside* tie groups is the one numpy's
    # default argsort gives, reversed (what scikit-learn uses for ignore_ties).
    order = np.argsort(y_score, axis=1)[:, ::-1]
    ranked_gain = np.take_along_axis(y_true, order, axis=1)
    if ignore_ties:
        return ranked_gain @ discount

    ranked_score = np.take_along_axis(y_score, order, axis=1)
    starts = np.ones((n_queries, n_docs), dtype=bool)  # first position of a tie group
    np.not_equal(ranked_score[:, 1:], ranked_score[:, :-1], out=starts[:, 1:])
    group = np.cumsum(starts.ravel()) - 1  # tie-group id, unique over all rows
    n_groups = int(group[-1]) + 1
    size = np.bincount(group, minlength=n_groups)
    gain_sum = np.bincount(group, weights=ranked_gain.ravel(), minlength=n_groups)
    discount_sum = np.bincount(
        group, weights=np.broadcast_to(discount, (n_queries, n_docs)).ravel(), minlength=n_groups
    )
    contribution = gain_sum / size * discount_sum
    row_of_group = np.repeat(np.arange(n_queries), starts.sum(axis=1))
    dcg = np.bincount(row_of_group, weights=contribution, minlength=n_queries)
    return dcg.astype(np.float64, copy=False)  # weighted bincount is float64 already


def _ap_rr_kernel(
    masks: list[NDArray[np.bool_]],
) -> tuple[NDArray[np.float64], NDArray[np.intp], NDArray[np.float64]]:
    """Per mask: sum of P@k over relevant ranks, number relevant, reciprocal rank.

    All masks are concatenated and processed at once (ragged lists allowed).
    """
    n_queries = len(masks)
    lengths = np.fromiter((m.size for m in masks), dtype=np.intp, count=n_queries)
    flat = np.concatenate(masks) if n_queries else np.zeros(0, dtype=bool)
    row = np.repeat(np.arange(n_queries), lengths)
    seg_start = np.cumsum(lengths) - lengths
    rank = np.arange(flat.size) - seg_start[row] + 1  # 1-based rank inside its list

    hit_row = row[flat]
    hit_rank = rank[flat]
    n_hits = np.bincount(hit_row, minlength=n_queries)
    hits_before = np.cumsum(n_hits) - n_hits  # relevant docs in earlier lists
    # i-th relevant document of its list (1-based) sits at hit_rank: P@rank = i / rank
    ith = np.arange(hit_row.size) - hits_before[hit_row] + 1
    precision_sum = np.bincount(hit_row, weights=ith / hit_rank, minlength=n_queries).astype(
        np.float64, copy=False
    )

    rr = np.zeros(n_queries, dtype=np.float64)
    first = np.ones(hit_row.size, dtype=bool)
    np.not_equal(hit_row[1:], hit_row[:-1], out=first[1:])
    rr[hit_row[first]] = 1.0 / hit_rank[first]
    return precision_sum, n_hits, rr


def _divide_or_zero(num: NDArray[np.float64], den: NDArray) -> NDArray[np.float64]:
    out = np.zeros(num.shape, dtype=np.float64)
    np.divide(num, den, out=out, where=den > 0)
    return out


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
    m = _as_mask(mask, "mask")
    precision_sum, n_hits, _ = _ap_rr_kernel([m])
    given = _check_n_relevant(n_relevant, n_hits[0], "n_relevant")
    r = n_hits.astype(np.float64) if given is None else given.reshape(1)
    return float(_divide_or_zero(precision_sum, r)[0])


def mean_average_precision(
    masks: Sequence[ArrayLike] | NDArray, *, n_relevant: ArrayLike | None = None
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
    ms = _as_masks(masks)
    precision_sum, n_hits, _ = _ap_rr_kernel(ms)
    given = _check_n_relevant(n_relevant, n_hits, "n_relevant")
    r = n_hits.astype(np.float64) if given is None else given
    return float(np.mean(_divide_or_zero(precision_sum, r)))


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
    return float(_ap_rr_kernel([_as_mask(mask, "mask")])[2][0])


def mean_reciprocal_rank(masks: Sequence[ArrayLike] | NDArray) -> float:
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
    return float(np.mean(_ap_rr_kernel(_as_masks(masks))[2]))


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
    if (
        isinstance(log_base, bool | np.bool_)
        or not isinstance(log_base, numbers.Real)
        or not np.isfinite(log_base)
        or log_base <= 0
    ):
        raise InvalidParameterError(
            f"log_base must be a finite float > 0; got {_describe(log_base)}"
        )
    ignore_ties = _check_bool(ignore_ties, "ignore_ties")
    yt, ys, sw = _check_matrices(y_true, y_score, sample_weight, "dcg_score")
    discount = _discounts(yt.shape[1], k, float(log_base))
    return float(np.average(_dcg_rows(yt, ys, discount, ignore_ties), weights=sw))


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
    discount = _discounts(yt.shape[1], k, 2.0)
    dcg = _dcg_rows(yt, ys, discount, ignore_ties)
    idcg = np.sort(yt, axis=1)[:, ::-1] @ discount
    return float(np.average(_divide_or_zero(dcg, idcg), weights=sw))
