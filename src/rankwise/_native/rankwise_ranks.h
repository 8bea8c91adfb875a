/*
 * Counting ranks without sorting, shared by rankwise.ranking._crank (runs
 * grouped by query) and rankwise.ranking._cdict (run dicts read and ranked in
 * one pass): the rank of a judged document is 1 + the documents of its query
 * that sort before it, in trec_eval's order (score descending, ties by docno
 * descending in byte order).
 *
 * Per block of one query, the k judged rows' scores are sorted (a few of
 * them) and every row of the block is placed among them by a branch-free
 * search (count_below): rank_counts counts the rows scoring between two
 * judged scores and those scoring a judged score; the caller compares
 * docnos only among the rows rank_counts lists as tied, and writes the ranks.
 */
#ifndef RANKWISE_RANKS_H
#define RANKWISE_RANKS_H

#include <math.h>
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

/* ------------------------------------------------------------------------ */
/* The counts of one block (plain malloc'd memory: used without the GIL)     */

typedef struct {
    Judged *sorted; /* per judged row: its score and target (the caller fills them) */
    double *values; /* the judged scores ascending, then +inf: count_below's padding */
    int64_t *below; /* [p]: rows scoring in (values[p - 1], values[p]]; [k]: above them all */
    int64_t *equal; /* [p]: rows scoring values[p] (after rank_counts: per judged row) */
    int64_t *after; /* [p]: rows of its tie group whose docno sorts before it */
    int64_t *tied;  /* (row in the block, p) of the rows scoring a judged score */
    int64_t n_tied; /* entries of tied (two per row) */
    int64_t cap, tied_cap;
} RankScratch;

static int
rank_grow(void **array, int64_t count, size_t width)
{
    void *grown = realloc(*array, (size_t)count * width);
    if (grown == NULL) {
        return -1;
    }
    *array = grown;
    return 0;
}

/* Room for k judged rows; 0, or -1 on memory failure. */
static int
rank_scratch_reserve(RankScratch *s, int64_t k)
{
    if (k <= s->cap) {
        return 0;
    }
    int64_t cap = s->cap ? s->cap : 16;
    while (cap < k) {
        cap *= 2;
    }
    if (rank_grow((void **)&s->sorted, cap, sizeof(Judged)) < 0 ||
        rank_grow((void **)&s->values, cap + 2, sizeof(double)) < 0 ||
        rank_grow((void **)&s->below, cap + 1, sizeof(int64_t)) < 0 ||
        rank_grow((void **)&s->equal, cap, sizeof(int64_t)) < 0 ||
        rank_grow((void **)&s->after, cap, sizeof(int64_t)) < 0) {
        return -1;
    }
    s->cap = cap;
    return 0;
}

/* Room for a block of `rows` rows in the list of tied rows; 0, or -1 on memory failure. */
static int
rank_scratch_rows(RankScratch *s, int64_t rows)
{
    int64_t count = 2 * rows + 2;
    if (count > s->tied_cap) {
        int64_t cap = s->tied_cap ? s->tied_cap : 256;
        while (cap < count) {
            cap *= 2;
        }
        if (rank_grow((void **)&s->tied, cap, sizeof(int64_t)) < 0) {
            return -1;
        }
        s->tied_cap = cap;
    }
    return 0;
}

static void
rank_scratch_free(RankScratch *s)
{
    free(s->sorted);
    free(s->values);
    free(s->below);
    free(s->equal);
    free(s->after);
    free(s->tied);
}

/*
 * Place the n scores of a block among its k judged rows' (s->sorted[0..k),
 * filled by the caller; room reserved for k judged rows and n rows): sorts
 * them, counts below and equal, clears after, lists the tied rows. Returns
 * the docno comparisons breaking the ties takes (0: no judged row is tied).
 */
static inline int64_t
rank_counts(RankScratch *s, const double *scores, int64_t n, int64_t k)
{
    Judged *sorted = s->sorted;
    double *values = s->values;
    int64_t *below = s->below, *equal = s->equal, *after = s->after, *tied = s->tied;
    if (k > 1) {
        qsort(sorted, (size_t)k, sizeof(Judged), by_value);
    }
    for (int64_t i = 0; i < k; i++) {
        values[i] = sorted[i].value;
        below[i] = equal[i] = after[i] = 0;
    }
    values[k] = INFINITY; /* the padding count_below reads */
    below[k] = 0;
    int64_t n_tied = 0;
    for (int64_t r = 0; r < n; r++) {
        double score = scores[r];
        int64_t p = count_below(values, k, score);
        below[p]++;
        /* p: the first judged row scoring `score`, if one does (values[k] is +inf, never it) */
        int64_t same = values[p] == score;
        equal[p] += same;
        tied[n_tied] = r;
        tied[n_tied + 1] = p;
        n_tied += 2 * same;
    }
    s->n_tied = n_tied;
    /* sizes: the count of the first of each run of equal values */
    int64_t tie_work = 0;
    for (int64_t i = 0, first = 0; i < k; i++) {
        if (i > 0 && values[i] != values[i - 1]) {
            first = i;
        }
        equal[i] = equal[first];
        if (equal[i] > 1) {
            tie_work += equal[i];
        }
    }
    return tie_work;
}

/* ------------------------------------------------------------------------ */
/* The judged ids of one query, hashed                                       */

/* The judgments grouped by query, and the distinct judged document ids in Arrow's layout. */
typedef struct {
    const int64_t *query_offsets; /* per query, where its judgments start in `judgments` */
    const int64_t *judgments;     /* rows of the judgments */
    const int32_t *judged_doc;    /* per row of the judgments, its document: an index into the ids */
    const int32_t *id_offsets;    /* the distinct judged document ids */
    const unsigned char *id_data;
    const unsigned char *id_limit; /* the end of the ids' data buffer */
} JudgedIds;

static inline const unsigned char *
judged_text(const JudgedIds *j, int64_t judgment, size_t *length)
{
    int32_t code = j->judged_doc[judgment];
    *length = (size_t)(j->id_offsets[code + 1] - j->id_offsets[code]);
    return j->id_data + j->id_offsets[code];
}

typedef struct {
    uint64_t hash;
    int64_t judgment; /* a row of the judgments, -1: empty */
} JudgedSlot;

/* Open addressing, a quarter full at most (it stays in the L1 cache; most probes miss). */
typedef struct {
    JudgedSlot *slots;
    size_t cap;  /* slots allocated */
    size_t size; /* slots in use: a power of two */
} JudgedTable;

/* How a module hashes an id (the same function on both sides of a lookup). */
typedef uint64_t (*IdHash)(const unsigned char *s, size_t n, const unsigned char *limit);

/* Room for k judged ids (the table's size set for them); 0, or -1 on memory failure. */
static int
judged_table_reserve(JudgedTable *t, size_t k)
{
    size_t size = 64;
    while (size < k * 4) {
        size *= 2;
    }
    if (size > t->cap) {
        JudgedSlot *grown = realloc(t->slots, size * sizeof(JudgedSlot));
        if (grown == NULL) {
            return -1;
        }
        t->slots = grown;
        t->cap = size;
    }
    t->size = size;
    return 0;
}

/* The judged ids of query q hashed into the table (reserved for them). */
static inline void
judged_table_fill(JudgedTable *t, const JudgedIds *j, int64_t q, IdHash hash)
{
    JudgedSlot *slots = t->slots;
    size_t mask = t->size - 1;
    for (size_t i = 0; i < t->size; i++) {
        slots[i].judgment = -1;
    }
    for (int64_t at_j = j->query_offsets[q]; at_j < j->query_offsets[q + 1]; at_j++) {
        int64_t judgment = j->judgments[at_j];
        size_t n;
        const unsigned char *s = judged_text(j, judgment, &n);
        uint64_t h = hash(s, n, j->id_limit);
        size_t at = (size_t)h & mask;
        while (slots[at].judgment >= 0) {
            at = (at + 1) & mask;
        }
        slots[at].hash = h;
        slots[at].judgment = judgment;
    }
}

/* The judgment of the id s[0:n] (hash h) among the table's, or -1. */
static inline int64_t
judged_table_find(const JudgedTable *t, const JudgedIds *j, uint64_t h, const unsigned char *s,
                  size_t n)
{
    const JudgedSlot *slots = t->slots;
    size_t mask = t->size - 1;
    size_t at = (size_t)h & mask;
    while (slots[at].judgment >= 0) {
        if (slots[at].hash == h) {
            size_t m;
            const unsigned char *other = judged_text(j, slots[at].judgment, &m);
            if (m == n && memcmp(s, other, n) == 0) {
                return slots[at].judgment;
            }
        }
        at = (at + 1) & mask;
    }
    return -1;
}

#endif /* RANKWISE_RANKS_H */
