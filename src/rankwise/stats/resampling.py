"""Resampling tests: Fisher's randomization (sign-flip) test and the paired bootstrap.

Resamples are processed as matrices, a chunk of rows at a time (at most
*chunk_size* elements), so memory stays bounded whatever the number of
resamples. Each chunk's random numbers are read from a counter-based
position of a PCG64 stream (``advance``), so the values do not depend on
the chunk size: row *r* of the resample matrix is always made of the same
random draws.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from rankwise._validation import POSITIVE_INT, check
from rankwise.options import DEFAULT_CHUNK_SIZE as _DEFAULT_CHUNK_SIZE
from rankwise.stats._arrays import PairedTestResult, as_differences, centred, finish
from rankwise.stats.seeding import as_seed_sequence

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "bootstrap_sums",
    "bootstrap_test",
    "count_sums",
    "exact_pieces",
    "randomization_test",
    "sign_flip_sums",
]

DEFAULT_CHUNK_SIZE = _DEFAULT_CHUNK_SIZE
"""Elements (resamples x queries) of the resample matrix processed at once."""

_TIE_TOLERANCE = 1e-10
"""A resampled statistic within this fraction of sum|d| of the observed one counts as a tie."""

_SHORT_INDEX_MAX_N = 2**16
"""Up to this many queries a bootstrap index uses 32 random bits, beyond it 64."""


def check_resamples(n_resamples: Any, chunk_size: Any) -> tuple[int, int]:
    """Validate *n_resamples* and *chunk_size* (positive integers)."""
    return check("n_resamples", n_resamples, POSITIVE_INT), check("chunk_size", chunk_size,
                                                                  POSITIVE_INT)


def _chunks(n_rows: int, row_length: int, chunk_size: int) -> Iterator[tuple[int, int]]:
    rows = max(1, chunk_size // max(1, row_length))
    for start in range(0, n_rows, rows):
        yield start, min(n_rows, start + rows)


# ----------------------------------------------------------------------------
# sign flips
# ----------------------------------------------------------------------------


def _random_flip_bytes(
    seed: np.random.SeedSequence, n: int
) -> Callable[[int, int], np.ndarray]:
    """Rows of random bits: bit i of row r flips the sign of difference i in resample r."""
    words = (n + 63) // 64
    groups = (n + 7) // 8

    def rows(start: int, stop: int) -> np.ndarray:
        generator = np.random.PCG64(seed)
        generator.advance(start * words)
        raw = generator.random_raw((stop - start) * words).reshape(stop - start, words)
        return raw.astype("<u8", copy=False).view(np.uint8)[:, :groups]

    return rows


def _enumerated_flip_bytes(k: int) -> Callable[[int, int], np.ndarray]:
    """Rows of all 2^k sign patterns: row r flips difference i when bit i of r is set."""
    groups = (k + 7) // 8

    def rows(start: int, stop: int) -> np.ndarray:
        patterns = np.arange(start, stop, dtype="<u8")
        return patterns.view(np.uint8).reshape(stop - start, 8)[:, :groups]

    return rows


def sign_flip_sums(
    values: np.ndarray,
    flip_bytes: Callable[[int, int], np.ndarray],
    n_rows: int,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    reduce: Callable[[np.ndarray, slice], None] | None = None,
) -> np.ndarray | None:
    r"""Sums :math:`\sum_i s_{ri} v_{ij}` over sign patterns :math:`s_r \in \{-1, 1\}^n`.

    Bit *i* of row *r* (given as bytes by *flip_bytes*) set means
    :math:`s_{ri} = -1`. Each column's sums are computed as
    :math:`\sum_i v_i - 2 \sum_g L_g[\mathrm{byte}_g]` with a lookup table
    :math:`L_g` of the 256 partial sums of each group of 8 values: a gather
    of n/8 numbers per resample instead of n multiplications. The groups
    are added in numpy's pairwise order, and the tables of at most 128
    groups (one leaf of that order) are built at a time, so no table of all
    the groups is held: a chunk costs its pattern bytes and 256 KiB.
    :mod:`rankwise.stats._cflip` does the same steps in C, to the same bits.

    Parameters
    ----------
    values : numpy.ndarray
        Shape ``(n, c)``.
    flip_bytes : callable
        ``flip_bytes(start, stop)`` -> uint8 array ``(stop - start, ceil(n/8))``.
    n_rows : int
        Number of sign patterns.
    chunk_size : int
        Bounds a chunk: at most 8 x *chunk_size* bytes of sign patterns (the
        bytes of *chunk_size* float64 elements of the other resampling
        tests); does not change the sums.
    reduce : callable, optional
        Called as ``reduce(sums_of_chunk, column_slice)`` for each chunk
        instead of collecting all sums (then returns None).

    Returns
    -------
    numpy.ndarray or None
        Shape ``(n_rows, c)`` when *reduce* is None.

    Examples
    --------
    >>> values = np.array([[1.0], [2.0], [4.0]])
    >>> flips = _enumerated_flip_bytes(3)
    >>> sign_flip_sums(values, flips, 8)[:, 0].tolist()
    [7.0, 5.0, 3.0, 1.0, -1.0, -3.0, -5.0, -7.0]
    """
    n, columns = values.shape
    groups = (n + 7) // 8
    out = None if reduce is not None else np.empty((n_rows, columns))
    totals = values.sum(axis=0)
    padded = np.zeros((columns, groups * 8))  # each column's values, contiguous
    padded[:, :n] = values.T
    native = _native()
    everything = slice(0, columns)
    for start, stop in _chunks(n_rows, groups, 8 * chunk_size):
        flips = np.ascontiguousarray(flip_bytes(start, stop))
        sums = np.empty((stop - start, columns))
        if groups == 0:  # no differences: every sum is 0
            sums[:] = 0.0
        elif native is not None:
            _native_sums(native, padded, flips, sums, groups)
        else:
            for j in range(columns):
                sums[:, j] = _pairwise_lookups(padded[j], flips, 0, groups)
        _emit(out, reduce, totals - 2 * sums, start, stop, everything)
    return out


_LOOKUPS_PER_THREAD = 1 << 22
"""A chunk's rows are split among the cores when each gets at least this many lookups."""


def _native_sums(native: Any, padded: np.ndarray, flips: np.ndarray, sums: np.ndarray,
                 groups: int) -> None:
    """The C module's sums of a chunk, its rows split among the cores (the GIL is released)."""
    from rankwise._threads import cores, run_threads

    rows = len(flips)
    count = max(1, min(cores(), rows, rows * groups * padded.shape[0] // _LOOKUPS_PER_THREAD))
    bounds = [rows * i // count for i in range(count + 1)]

    def part(i: int) -> None:
        these = slice(bounds[i], bounds[i + 1])
        native.lut_sums(padded, flips[these], sums[these], groups)

    run_threads(part, count)


def _leaf_tables(values: np.ndarray) -> np.ndarray:
    """The 256 partial sums of each group of 8 *values*: entry b adds the values of b's bits.

    Built by doubling (``L[2^k + b] = L[b] + v_k``): each entry adds its
    values in bit order, the order the C module adds them in.
    """
    eights = values.reshape(-1, 8)
    tables = np.zeros((len(eights), 256))
    for k in range(8):
        width = 1 << k
        np.add(tables[:, :width], eights[:, k:k + 1], out=tables[:, width:2 * width])
    return tables


def _pairwise_lookups(column: np.ndarray, flips: np.ndarray, first: int, n: int) -> np.ndarray:
    """Every row's sum of the looked-up entries of groups first .. first + n - 1.

    numpy's pairwise order: a row of at most 128 terms is what numpy's
    ``sum`` adds in one block; more are halved at a multiple of 8.
    """
    if n > 128:
        half = n // 2
        half -= half % 8
        both: np.ndarray = (_pairwise_lookups(column, flips, first, half)
                            + _pairwise_lookups(column, flips, first + half, n - half))
        return both
    tables = _leaf_tables(column[8 * first:8 * (first + n)])
    index = flips[:, first:first + n] + np.arange(0, 256 * n, 256, dtype=np.intp)
    looked_up: np.ndarray = np.take(tables.ravel(), index)
    sums: np.ndarray = looked_up.sum(axis=1)
    return sums


def _native() -> Any:
    """:mod:`rankwise.stats._cflip` when built and enabled, else None (numpy computes)."""
    from rankwise._compiled import enabled, load

    return load("rankwise.stats._cflip") if enabled() else None


def _emit(
    out: np.ndarray | None,
    reduce: Callable[[np.ndarray, slice], None] | None,
    sums: np.ndarray,
    start: int,
    stop: int,
    batch: slice,
) -> None:
    if reduce is not None:
        reduce(sums, batch)
    elif out is not None:
        out[start:stop, batch] = sums


def _count_extreme(
    values: np.ndarray,
    flip_bytes: Callable[[int, int], np.ndarray],
    n_rows: int,
    chunk_size: int,
) -> np.ndarray:
    """Per column: resamples with ``|sum| >= |observed sum|`` (up to rounding)."""
    observed = np.abs(values.sum(axis=0))
    threshold = observed - _TIE_TOLERANCE * np.abs(values).sum(axis=0)
    counts = np.zeros(values.shape[1], dtype=np.int64)

    def reduce(sums: np.ndarray, batch: slice) -> None:
        counts[batch] += np.count_nonzero(np.abs(sums) >= threshold[batch], axis=0)

    sign_flip_sums(values, flip_bytes, n_rows, chunk_size, reduce)
    return counts


def randomization_test(
    a: Any,
    b: Any = None,
    *,
    n_resamples: int = 10_000,
    seed: Any = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
) -> PairedTestResult:
    r"""Fisher's two-sided randomization (permutation) test of paired differences.

    Under the null hypothesis the two systems are exchangeable on each
    query, so each difference :math:`d_i` is as likely to be
    :math:`-d_i`. The statistic is the mean difference :math:`\bar d`;
    its null distribution comes from flipping the signs of the differences.

    - **Exact**: when the :math:`k` non-zero differences allow
      :math:`2^k \le` *n_resamples*, all :math:`2^k` sign patterns are
      enumerated (zero differences do not change under a flip) and
      :math:`p = \#\{s : |\sum_i s_i d_i| \ge |\sum_i d_i|\} / 2^k`,
      the exact permutation p-value.
    - **Monte Carlo** otherwise: *B* = *n_resamples* random sign patterns of
      all *n* differences, :math:`p = (\#\{b : |T^*_b| \ge |T|\} + 1) / (B + 1)`
      (Phipson & Smyth 2010: never 0, a valid p-value).

    A resampled statistic within :math:`10^{-10} \sum_i |d_i|` of the
    observed one counts as a tie (at least as extreme), so equal sums are
    not separated by rounding. Columns of 2-D input share the same sign
    patterns (each column is still tested exactly as on its own). The
    patterns depend only on *seed*: the same seed gives the same p-values
    whatever *chunk_size*. References: Fisher, *The Design of Experiments*,
    1935; Smucker, Allan & Carterette, CIKM 2007.

    Parameters
    ----------
    a, b : array_like
        Paired per-query values, shape ``(n,)`` or ``(n, m)``; or the
        differences in *a* alone.
    n_resamples : int
        Number of random sign patterns *B*, and the bound for exact enumeration.
    seed : int or numpy.random.SeedSequence, optional
        Fixes the random patterns; None draws fresh entropy.
    chunk_size : int
        Bounds memory (a chunk holds at most 8 x *chunk_size* bytes of sign
        patterns) and does not change the result.

    Returns
    -------
    PairedTestResult
        ``statistic`` is the mean difference; ``method`` ``"exact"`` or
        ``"monte carlo"``.

    Examples
    --------
    >>> result = randomization_test([0.5, 0.75, 1.0, 0.5], [0.25, 0.5, 0.5, 0.5])
    >>> result.statistic, result.p_value, result.method
    (0.25, 0.25, 'exact')
    """
    n_resamples, chunk_size = check_resamples(n_resamples, chunk_size)
    seed = as_seed_sequence(seed)
    d, flat = as_differences(a, b)
    n, columns = d.shape
    nonzero = np.count_nonzero(d, axis=0)
    statistic = d.mean(axis=0) if n else np.zeros(columns)
    p = np.ones(columns)
    method = ["all differences zero"] * columns
    sampled = []
    for j in range(columns):
        k = int(nonzero[j])
        if k == 0:
            continue
        if k < 63 and 2**k <= n_resamples:
            kept = d[d[:, j] != 0, j][:, None]
            count = _count_extreme(kept, _enumerated_flip_bytes(k), 2**k, chunk_size)[0]
            p[j], method[j] = count / 2**k, "exact"
        else:
            sampled.append(j)
    if sampled:
        flips = _random_flip_bytes(seed, n)
        counts = _count_extreme(d[:, sampled], flips, n_resamples, chunk_size)
        p[sampled] = (counts + 1) / (n_resamples + 1)
        for j in sampled:
            method[j] = "monte carlo"
    return finish(statistic, p, method, nonzero, flat)


# ----------------------------------------------------------------------------
# bootstrap
# ----------------------------------------------------------------------------


def _bootstrap_indices(seed: np.random.SeedSequence, n: int, start: int, rows: int) -> np.ndarray:
    """Indices drawn for resamples ``start .. start + rows``, plus ``n`` times the row number."""
    generator = np.random.PCG64(seed)
    if n <= _SHORT_INDEX_MAX_N:  # one 32-bit half of a draw per index
        generator.advance((start * n) // 2)
        skip = (start * n) % 2
        raw = generator.random_raw((rows * n + skip + 1) // 2).view("<u4")[skip : skip + rows * n]
        index: np.ndarray = (raw.astype(np.uint64) * np.uint64(n)) >> np.uint64(32)
    else:  # one 64-bit draw per index, multiply-high in two halves
        generator.advance(start * n)
        raw = generator.random_raw(rows * n)
        high, low = raw >> np.uint64(32), raw & np.uint64(0xFFFFFFFF)
        index = (high * np.uint64(n) + ((low * np.uint64(n)) >> np.uint64(32))) >> np.uint64(32)
    index = index.view(np.int64).reshape(rows, n)
    index += (np.arange(rows, dtype=np.int64) * n)[:, None]
    return index


def bootstrap_sums(
    values: np.ndarray,
    n_resamples: int,
    seed: Any = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
) -> np.ndarray:
    r"""Column sums of *values* over bootstrap resamples of its rows.

    Resample *r* draws *n* rows with replacement. Index *k* of the resample
    matrix (row-major) is :math:`\lfloor n u_k / 2^{32} \rfloor` with
    :math:`u_k` the *k*-th 32-bit half of a PCG64 stream (Lemire's
    multiply-shift; the probability of each row is within :math:`n/2^{32}`
    relative of :math:`1/n`), or, beyond 65,536 rows, the same with whole
    64-bit draws. The sums are ``counts @ values`` with the matrix of how
    often each row was drawn, computed exactly on integer parts of the
    values (:func:`exact_pieces`), so that they are the same bits whatever
    BLAS's thread count, the chunk or the other columns. A chunk starts at a
    known position of the stream, so the sums do not depend on *chunk_size*.

    Parameters
    ----------
    values : numpy.ndarray
        Shape ``(n, c)``: rows are queries.
    n_resamples : int
        Number of resamples.
    seed : int or numpy.random.SeedSequence, optional
        Fixes the resamples; None draws fresh entropy.
    chunk_size : int
        Elements (resamples x queries) processed at once.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_resamples, c)``.

    Examples
    --------
    >>> sums = bootstrap_sums(np.ones((5, 1)), n_resamples=3, seed=0)
    >>> sums.ravel().tolist()
    [5.0, 5.0, 5.0]
    """
    seed = as_seed_sequence(seed)
    n = values.shape[0]
    pieces = exact_pieces(values)
    out = np.empty((n_resamples, values.shape[1]))
    for start, stop in _chunks(n_resamples, n, chunk_size):
        rows = stop - start
        index = _bootstrap_indices(seed, n, start, rows)
        counts = np.bincount(index.ravel(), minlength=rows * n).reshape(rows, n)
        out[start:stop] = count_sums(counts.astype(np.float64), pieces)
    return out


class _Pieces:
    """Values as integer-valued parts whose weighted sums are exact (:func:`count_sums`)."""

    def __init__(self, parts: list[np.ndarray], scales: list[np.ndarray],
                 plain: np.ndarray | None) -> None:
        self.parts, self.scales, self.plain = parts, scales, plain


def exact_pieces(values: np.ndarray, max_weight: int | None = None) -> _Pieces:
    r"""Split each column into integer-valued parts, for sums that do not depend on the order.

    A column with :math:`\max |v| \le 2^e` is written
    :math:`v = 2^{e} (I_1 2^{-b} + I_2 2^{-2b} + \dots) + r` with integers
    :math:`|I_k| < 2^b` and :math:`b` chosen so that any sum of the parts
    weighted by non-negative integer counts totalling at most *max_weight*
    (default: the number of rows) stays below :math:`2^{53}`: every partial
    sum is then an exact integer, whatever order BLAS adds in, however many
    threads it uses and whatever the chunk or the other columns. Enough parts
    are kept for :math:`|r| \le 2^{e - 60}`, below the rounding of the
    values themselves. Non-finite values fall back to plain sums.
    """
    rows = values.shape[0]
    weight = max(1, rows if max_weight is None else max_weight)
    if not np.isfinite(values).all():
        return _Pieces([], [], values)
    bits = 52 - int(weight).bit_length()
    if bits < 16:  # absurdly many rows: plain sums
        return _Pieces([], [], values)
    peak = np.abs(values).max(axis=0) if rows else np.zeros(values.shape[1])
    _, exponent = np.frexp(np.where(peak > 0, peak, 1.0))
    scale = np.ldexp(1.0, exponent)  # 2^e >= max |v|, per column
    parts, scales = [], []
    rest = values / scale  # exact: a power of two
    step = 1.0
    for _ in range(-(-60 // bits)):
        step = step * 2.0**-bits
        whole = np.trunc(rest / step)  # |whole| < 2^bits, exact arithmetic
        parts.append(whole)
        scales.append(scale * step)
        rest = rest - whole * step
    return _Pieces(parts, scales, None)


def count_sums(counts: np.ndarray, pieces: _Pieces) -> np.ndarray:
    """``counts @ values`` for non-negative integer *counts*, the same bits in any setting.

    Each integer part is summed exactly by BLAS; the parts are then combined
    elementwise in one fixed order.
    """
    if pieces.plain is not None:
        out: np.ndarray = counts @ pieces.plain
        return out
    total: np.ndarray = (counts @ pieces.parts[0]) * pieces.scales[0]
    for part, scale in zip(pieces.parts[1:], pieces.scales[1:]):
        total = total + (counts @ part) * scale
    return total


def bootstrap_test(
    a: Any,
    b: Any = None,
    *,
    n_resamples: int = 10_000,
    seed: Any = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
) -> PairedTestResult:
    r"""Two-sided paired bootstrap test of a zero mean difference (studentized).

    The differences are shifted to mean zero, :math:`w_i = d_i - \bar d`
    (so the null hypothesis holds), and resampled with replacement *B*
    times; each resample gives
    :math:`t^*_b = \bar w^*_b / (s^*_b / \sqrt n)`, compared with the
    observed :math:`t = \bar d / (s_d / \sqrt n)`:

    .. math:: p = \frac{\#\{b : |t^*_b| \ge |t|\} + 1}{B + 1}

    (Efron & Tibshirani, *An Introduction to the Bootstrap*, 1993,
    chapter 16, the one-sample test; Sakai, SIGIR 2006 for IR). A resample with
    :math:`s^* = 0` and :math:`\bar w^* = 0` has :math:`t^* = 0`; one of a
    single repeated value :math:`w \ne 0` has :math:`t^* = \pm\infty`, which counts as
    extreme (frequent when the differences take few values, as with P@k). All-zero
    differences give ``p = 1``; fewer than two pairs NaN.

    Parameters
    ----------
    a, b : array_like
        Paired per-query values, shape ``(n,)`` or ``(n, m)``; or the
        differences in *a* alone.
    n_resamples : int
        Number of bootstrap resamples *B*.
    seed : int or numpy.random.SeedSequence, optional
        Fixes the resamples (the same for every column); None draws fresh entropy.
    chunk_size : int
        Elements processed at once; does not change the result.

    Returns
    -------
    PairedTestResult
        ``statistic`` is the observed t.

    Examples
    --------
    >>> result = bootstrap_test([0.5, 0.75, 1.0, 0.5, 0.6], [0.25, 0.5, 0.5, 0.5, 0.6], seed=1)
    >>> round(result.statistic, 4), result.method
    (2.1381, 'monte carlo')
    """
    n_resamples, chunk_size = check_resamples(n_resamples, chunk_size)
    seed = as_seed_sequence(seed)
    d, flat = as_differences(a, b)
    n, columns = d.shape
    nonzero = np.count_nonzero(d, axis=0)
    method = ["monte carlo"] * columns
    if n < 2:
        nan = np.full(columns, np.nan)
        return finish(nan, nan.copy(), method, nonzero, flat)
    mean, w = centred(d)  # equal differences: sd 0, t infinite, every t* 0 (not extreme)
    sd = np.sqrt((w**2).sum(axis=0) / (n - 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (sd / np.sqrt(n))
    sums = bootstrap_sums(np.hstack([w, w**2]), n_resamples, seed, chunk_size)
    t_star = _studentized(sums[:, :columns], sums[:, columns:], n)
    extreme = np.abs(t_star) >= np.abs(t) * (1 - 1e-12)
    p = (np.count_nonzero(extreme, axis=0) + 1) / (n_resamples + 1)
    zero = nonzero == 0
    t[zero], p[zero] = 0.0, 1.0
    for j in np.flatnonzero(zero):
        method[j] = "all differences zero"
    return finish(t, p, method, nonzero, flat)


def _studentized(sums: np.ndarray, squares: np.ndarray, n: int) -> np.ndarray:
    mean = sums / n
    variance = np.maximum(squares - n * mean**2, 0.0) / (n - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / np.sqrt(variance / n)
    return np.nan_to_num(t, nan=0.0, posinf=np.inf, neginf=-np.inf)
