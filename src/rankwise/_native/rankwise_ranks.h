/*
 * Counting ranks without sorting, shared by rankwise.kernels._crank (runs
 * grouped by query) and rankwise.io._ccolumns (run dicts read and ranked in
 * one pass): the rank of a judged document is 1 + the documents of its query
 * that sort before it, in trec_eval's order (score descending, ties by docno
 * descending in byte order).
 */
#ifndef RANKWISE_RANKS_H
#define RANKWISE_RANKS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Whether docno a sorts after docno b in byte order (a shorter prefix sorts first). */
static inline int
doc_greater(const unsigned char *a, size_t n, const unsigned char *b, size_t m)
{
    int c = memcmp(a, b, n < m ? n : m);
    return c > 0 || (c == 0 && n > m);
}

typedef struct {
    double value;
    int64_t target; /* index into the targets */
} Judged;

static int
by_value(const void *a, const void *b)
{
    double x = ((const Judged *)a)->value, y = ((const Judged *)b)->value;
    return (x > y) - (x < y);
}

#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#include <emmintrin.h>
#define HAVE_SSE2 1
#endif

/*
 * How many of the k ascending values are below s (branch-free). The values
 * are padded with +inf to an even count: a finite s is never above them.
 */
static inline int64_t
count_below(const double *values, int64_t k, double s)
{
    if (k <= 32) {
#ifdef HAVE_SSE2
        __m128i count = _mm_setzero_si128();
        __m128d x = _mm_set1_pd(s);
        for (int64_t i = 0; i < k; i += 2) { /* a lane is all ones (-1) where below */
            __m128d below = _mm_cmplt_pd(_mm_loadu_pd(values + i), x);
            count = _mm_sub_epi64(count, _mm_castpd_si128(below));
        }
        int64_t lanes[2];
        _mm_storeu_si128((__m128i *)lanes, count);
        return lanes[0] + lanes[1];
#else
        int64_t count = 0;
        for (int64_t i = 0; i < k; i++) {
            count += values[i] < s;
        }
        return count;
#endif
    }
    const double *base = values;
    int64_t n = k;
    while (n > 1) {
        int64_t half = n / 2;
        base = base[half - 1] < s ? base + half : base;
        n -= half;
    }
    return (base - values) + (base[0] < s);
}

#endif /* RANKWISE_RANKS_H */
