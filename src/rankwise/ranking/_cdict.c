/*
 * rankwise.ranking._cdict: a run given as {query: {doc: score}} read and its
 * judged documents ranked in one pass, without building the run
 * (rankwise.ranking.from_dict.rank_run_dict).
 *
 * Per query entry, each document id is looked up among the judged ids of its
 * query, and the rank of each judged document found is 1 + the documents of
 * the entry that sort before it (score descending, ties by docno descending in
 * byte order: trec_eval's order), counted as rankwise.ranking._crank counts
 * (rankwise_ranks.h). The GIL holder reads the entries into batches of plain
 * memory that a second thread ranks; on large runs, a second thread reads and
 * ranks the second half of the entries itself. Ids and numbers are read as
 * rankwise.data._ccolumns reads them (rankwise_pyids.h); on anything the general
 * path would read otherwise or reject, the function returns None.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#define HAVE_PTHREADS 1
#endif

#define RANKWISE_BLOCK_NAME "rankwise.ranking._cdict.Block"
#include "rankwise_blocks.h"
#include "rankwise_interner.h"
#include "rankwise_pyids.h"
#include "rankwise_ranks.h"
#include "rankwise_strings.h"

/*
 * A hash of a document id read in place (from a str's data or the judged ids):
 * short ids by at most two overlapping loads, never past their bytes and
 * never through a copy. Both sides of a lookup use it (limit is not read).
 */
static inline uint64_t
hash_id(const unsigned char *s, size_t n, const unsigned char *limit)
{
    (void)limit;
    uint64_t w;
    if (n > 16) {
        return hash_bytes(s, n);
    }
    if (n >= 8) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        w = a ^ (b * 0xBF58476D1CE4E5B9ULL);
    }
    else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        w = ((uint64_t)a << 32) | b;
    }
    else if (n > 0) {
        w = (uint64_t)s[0] | ((uint64_t)s[n / 2] << 8) | ((uint64_t)s[n - 1] << 16);
    }
    else {
        w = 0;
    }
    uint64_t h = (w ^ ((uint64_t)n << 59)) * 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 29);
}

/* Per query entry of the run, its items while the GIL holder reads them. */
typedef struct {
    PyObject **keys;  /* per document, its key (borrowed unless `owned`) */
    PyObject **items; /* per document, its value (borrowed unless `owned`) */
    int owned;        /* whether keys and items hold references */
    size_t cap;
} Entry;

/*
 * Take references to the first `count` keys and values: before anything that
 * may run Python code (which could change the dict they are borrowed from).
 */
static void
entry_own(Entry *e, size_t count)
{
    if (!e->owned) {
        for (size_t i = 0; i < count; i++) {
            Py_INCREF(e->keys[i]);
            Py_INCREF(e->items[i]);
        }
        e->owned = 1;
    }
}

static void
entry_release_keys(Entry *e, size_t count)
{
    if (e->owned) {
        for (size_t i = 0; i < count; i++) {
            Py_DECREF(e->keys[i]);
            Py_DECREF(e->items[i]);
        }
        e->owned = 0;
    }
}

static void
entry_free(Entry *e)
{
    PyMem_Free(e->keys);
    PyMem_Free(e->items);
}

static int
entry_reserve(Entry *e, size_t rows)
{
    if (rows > e->cap) {
        size_t cap = e->cap ? e->cap : 256;
        while (cap < rows) {
            cap *= 2;
        }
        PyObject **keys = PyMem_Realloc(e->keys, cap * sizeof(PyObject *));
        if (keys == NULL) {
            return -1;
        }
        e->keys = keys;
        PyObject **items = PyMem_Realloc(e->items, cap * sizeof(PyObject *));
        if (items == NULL) {
            return -1;
        }
        e->items = items;
        e->cap = cap;
    }
    return 0;
}

/*
 * The first `size` items of an inner dict gathered (PyDict_Next runs no Python
 * code), their objects' first loads started; how many there were.
 */
static inline size_t
gather_items(PyObject *ranking, PyObject **keys, PyObject **items, size_t size)
{
    size_t n_items = 0;
    Py_ssize_t inner = 0;
    PyObject *doc_key, *value;
    while (n_items < size && PyDict_Next(ranking, &inner, &doc_key, &value)) {
        keys[n_items] = doc_key;
        items[n_items] = value;
        n_items++;
    }
    for (size_t i = 0; i < n_items && i < PREFETCH_AHEAD; i++) {
        prefetch_object(keys[i]);
        prefetch_object(items[i]);
    }
    return n_items;
}

/* Item n about to be read: the objects of the item PREFETCH_AHEAD further on loaded. */
static inline void
prefetch_ahead(PyObject **keys, PyObject **items, size_t n, size_t n_items)
{
    if (n + PREFETCH_AHEAD < n_items) {
        prefetch_object(keys[n + PREFETCH_AHEAD]);
        prefetch_object(items[n + PREFETCH_AHEAD]);
    }
}

/* The outputs: per judged document found, and per query entry. */
typedef struct {
    Vec judgment, rank, above, size, block, score; /* per hit */
    Vec block_query, block_size;                    /* per entry */
} RankedOut;

static void
ranked_free(RankedOut *o)
{
    Vec *all[] = {&o->judgment, &o->rank, &o->above, &o->size, &o->block, &o->score,
                  &o->block_query, &o->block_size};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        vec_free(all[i]);
    }
}

enum { FUSED_DONE = 0, FUSED_DECLINE = 1, FUSED_ERROR = -1 };

/*
 * The entries read so far, as plain memory: what ranks them needs no Python
 * object, so it runs without the GIL on another thread while the next
 * entries are read. Documents are kept for judged entries only.
 */
typedef struct {
    int64_t query; /* its code in the judgments, -1: none */
    int64_t n;     /* its documents */
    int64_t first; /* its first document in the batch (-1: none kept) */
} BatchEntry;

typedef struct {
    Vec entries; /* BatchEntry */
    Vec scores;  /* double per document kept */
    Vec offsets; /* uint64 per document kept, and the end: its id in `bytes` */
    Vec bytes;
    size_t docs;  /* documents kept */
    size_t limit; /* documents from which it is handed over */
} Batch;

/*
 * Documents per batch: a batch is handed to the ranking thread when it holds
 * as many; a run of fewer than 16 times as many gets smaller batches, down to
 * BATCH_DOCS_LEAST (the last batch is ranked after the reading ends: the
 * smaller it is, the less of the ranking waits). The thread starts from
 * THREAD_DOCS documents.
 */
#define BATCH_DOCS ((size_t)1 << 15)
#define BATCH_DOCS_LEAST ((size_t)1 << 12)
#define BATCH_ENTRIES ((size_t)1 << 12)
#define THREAD_DOCS ((int64_t)1 << 16)

static int
batch_reset(Batch *b)
{
    uint64_t zero = 0;
    b->entries.size = b->scores.size = b->offsets.size = b->bytes.size = 0;
    b->docs = 0;
    return vec_append(&b->offsets, &zero, sizeof zero);
}

static void
batch_free(Batch *b)
{
    vec_free(&b->entries);
    vec_free(&b->scores);
    vec_free(&b->offsets);
    vec_free(&b->bytes);
}

static inline int
batch_full(const Batch *b)
{
    return b->docs >= b->limit || b->entries.size >= BATCH_ENTRIES * sizeof(BatchEntry);
}

/* Room for an entry's `size` documents (their scores and offsets); 0, or -1. */
static inline int
batch_reserve(Batch *b, size_t size)
{
    return vec_reserve(&b->scores, size * 8) < 0 || vec_reserve(&b->offsets, size * 8) < 0
               ? -1
               : 0;
}

/* A document kept (its id s[0:n] and its score; room reserved by batch_reserve); 0, or -1. */
static inline int
batch_add(Batch *b, const void *s, size_t n, double score)
{
    if (vec_append(&b->bytes, s, n) < 0) {
        return -1;
    }
    uint64_t end = b->bytes.size;
    memcpy(b->offsets.data + b->offsets.size, &end, 8);
    memcpy(b->scores.data + b->scores.size, &score, 8);
    b->offsets.size += 8;
    b->scores.size += 8;
    return 0;
}

/* What ranks the batches (one at a time, in order) and its scratch memory. */
typedef struct {
    const JudgedIds *judged;
    RankedOut *out;
    int64_t spent, budget, block;
    int outcome; /* FUSED_ERROR: out of memory (the GIL holder raises it) */
    JudgedTable table;  /* the judged ids of the entry's query */
    RankScratch counts; /* the counts of the entry's documents */
    int64_t *hit_row, *hit_judgment; /* per judged document found: its document, its row */
    size_t hits_cap;
} Ranker;

static void
ranker_free(Ranker *r)
{
    free(r->table.slots);
    rank_scratch_free(&r->counts);
    free(r->hit_row);
    free(r->hit_judgment);
}

/* Scratch for an entry of `rows` documents and up to `hits` judged ones; 0, or -1. */
static int
ranker_reserve(Ranker *r, size_t rows, size_t hits)
{
    if (rank_scratch_rows(&r->counts, (int64_t)rows) < 0 ||
        rank_scratch_reserve(&r->counts, (int64_t)hits) < 0) {
        return -1;
    }
    if (hits > r->hits_cap) {
        size_t cap = r->hits_cap ? r->hits_cap : 32;
        while (cap < hits) {
            cap *= 2;
        }
        if (rank_grow((void **)&r->hit_row, (int64_t)cap, sizeof(int64_t)) < 0 ||
            rank_grow((void **)&r->hit_judgment, (int64_t)cap, sizeof(int64_t)) < 0) {
            return -1;
        }
        r->hits_cap = cap;
    }
    return 0;
}

/* Docnos break the ties of the k judged documents: a greater docno comes first. */
static inline void
ranker_break_ties(Ranker *r, const uint64_t *offsets, const unsigned char *bytes, size_t k)
{
    RankScratch *c = &r->counts;
    const double *values = c->values;
    for (int64_t t = 0; t < c->n_tied; t += 2) {
        int64_t d = c->tied[t], p = c->tied[t + 1];
        if (c->equal[p] < 2) {
            continue;
        }
        const unsigned char *doc = bytes + offsets[d];
        size_t length = (size_t)(offsets[d + 1] - offsets[d]);
        for (size_t j = (size_t)p; j < k && values[j] == values[p]; j++) {
            size_t m;
            const unsigned char *other =
                judged_text(r->judged, r->hit_judgment[c->sorted[j].target], &m);
            c->after[j] += doc_greater(doc, length, other, m);
        }
    }
}

/* The k judged documents counted appended to the outputs, in rank order. 0, or FUSED_ERROR. */
static inline int
ranker_write(Ranker *r, size_t k)
{
    RankScratch *c = &r->counts;
    RankedOut *out = r->out;
    if (vec_reserve(&out->judgment, k * 8) < 0 || vec_reserve(&out->rank, k * 8) < 0 ||
        vec_reserve(&out->above, k * 8) < 0 || vec_reserve(&out->size, k * 8) < 0 ||
        vec_reserve(&out->block, k * 8) < 0 || vec_reserve(&out->score, k * 8) < 0) {
        return FUSED_ERROR;
    }
    int64_t *o_judgment = (int64_t *)(out->judgment.data + out->judgment.size);
    int64_t *o_rank = (int64_t *)(out->rank.data + out->rank.size);
    int64_t *o_above = (int64_t *)(out->above.data + out->above.size);
    int64_t *o_size = (int64_t *)(out->size.data + out->size.size);
    int64_t *o_block = (int64_t *)(out->block.data + out->block.size);
    double *o_score = (double *)(out->score.data + out->score.size);
    int64_t higher = 0; /* documents scoring above values[i] */
    for (int64_t i = (int64_t)k - 1, at = 0; i >= 0; i--, at++) {
        higher += c->below[i + 1];
        int64_t rank = higher + c->after[i] + 1;
        /* in rank order: by score descending, then (among equal scores) by rank */
        int64_t to = at;
        while (to > 0 && o_above[to - 1] == higher && o_rank[to - 1] > rank) {
            o_judgment[to] = o_judgment[to - 1];
            o_rank[to] = o_rank[to - 1];
            o_above[to] = o_above[to - 1];
            o_size[to] = o_size[to - 1];
            o_score[to] = o_score[to - 1];
            to--;
        }
        o_judgment[to] = r->hit_judgment[c->sorted[i].target];
        o_above[to] = higher;
        o_size[to] = c->equal[i];
        o_rank[to] = rank;
        o_block[at] = r->block;
        o_score[to] = c->values[i];
    }
    out->judgment.size += k * 8;
    out->rank.size += k * 8;
    out->above.size += k * 8;
    out->size.size += k * 8;
    out->block.size += k * 8;
    out->score.size += k * 8;
    return FUSED_DONE;
}

/*
 * Rank the k judged documents found in one entry (its n documents' scores,
 * and their ids at offsets[0..n] of bytes): trec_eval's order, docnos
 * compared only among equal scores. Appends to the outputs.
 */
static int
ranker_rank(Ranker *r, const double *scores, const uint64_t *offsets,
            const unsigned char *bytes, size_t n, size_t k)
{
    RankScratch *c = &r->counts;
    for (size_t i = 0; i < k; i++) {
        c->sorted[i].value = scores[r->hit_row[i]];
        c->sorted[i].target = (int64_t)i;
    }
    int64_t tie_work = rank_counts(c, scores, (int64_t)n, (int64_t)k);
    if (tie_work) {
        r->spent += tie_work;
        if (r->spent > r->budget) {
            return FUSED_DECLINE;
        }
        ranker_break_ties(r, offsets, bytes, k);
    }
    return ranker_write(r, k);
}

/*
 * Everything one ranker writes, reserved before its thread starts (a thread's first
 * allocations make it an arena of its own, and page faults): its scratch for entries
 * of up to `rows` documents and `judged` judgments, and `hits` bytes per hit column
 * and `entries` bytes per entry column of its output. 0, or -1.
 */
static int
ranking_reserve(Ranker *r, size_t rows, size_t judged, size_t hits, size_t entries)
{
    RankedOut *o = r->out;
    if (ranker_reserve(r, rows, judged + 1) < 0 || judged_table_reserve(&r->table, judged) < 0) {
        return -1;
    }
    Vec *per_hit[] = {&o->judgment, &o->rank, &o->above, &o->size, &o->block, &o->score};
    for (size_t i = 0; i < sizeof per_hit / sizeof per_hit[0]; i++) {
        if (vec_reserve(per_hit[i], hits) < 0) {
            return -1;
        }
    }
    return vec_reserve(&o->block_query, entries) < 0 || vec_reserve(&o->block_size, entries) < 0
               ? -1
               : 0;
}

/* Find the judged documents of one entry among its judgments and rank them. */
static int
ranker_entry(Ranker *r, const BatchEntry *e, const Batch *b)
{
    const JudgedIds *judged = r->judged;
    int64_t j0 = judged->query_offsets[e->query], j1 = judged->query_offsets[e->query + 1];
    size_t k_max = (size_t)(j1 - j0), n = (size_t)e->n;
    if (judged_table_reserve(&r->table, k_max) < 0 || ranker_reserve(r, n, k_max + 1) < 0) {
        return FUSED_ERROR;
    }
    judged_table_fill(&r->table, judged, e->query, hash_id); /* the query's judged ids */
    const uint64_t *offsets = (const uint64_t *)b->offsets.data + e->first;
    const unsigned char *bytes = (const unsigned char *)b->bytes.data;
    size_t k = 0;
    for (size_t d = 0; d < n; d++) {
        const unsigned char *s = bytes + offsets[d];
        size_t m = (size_t)(offsets[d + 1] - offsets[d]);
        int64_t judgment = judged_table_find(&r->table, judged, hash_id(s, m, NULL), s, m);
        if (judgment >= 0) {
            if (UNLIKELY(k >= k_max)) { /* cannot happen: keys of one kind */
                return FUSED_DECLINE;
            }
            r->hit_row[k] = (int64_t)d;
            r->hit_judgment[k] = judgment;
            k++;
        }
    }
    if (k == 0) {
        return FUSED_DONE;
    }
    return ranker_rank(r, (const double *)b->scores.data + e->first, offsets, bytes, n, k);
}

/* Rank every entry of a batch (no Python object is touched: runs without the GIL). */
static void
ranker_batch(Ranker *r, const Batch *b)
{
    const BatchEntry *entries = (const BatchEntry *)b->entries.data;
    size_t count = b->entries.size / sizeof(BatchEntry);
    for (size_t i = 0; i < count && r->outcome == FUSED_DONE; i++) {
        const BatchEntry *e = &entries[i];
        int outcome = e->first >= 0 ? ranker_entry(r, e, b) : FUSED_DONE;
        if (outcome == FUSED_DONE && (vec_push_i64(&r->out->block_query, e->query) < 0 ||
                                      vec_push_i64(&r->out->block_size, e->n) < 0)) {
            outcome = FUSED_ERROR;
        }
        r->outcome = outcome;
        r->block++;
    }
}

/*
 * The batches go to one ranking thread while the GIL holder reads the next
 * (a thread of plain C: it never touches a Python object nor the GIL).
 * Without threads, each batch is ranked where it is read.
 */
typedef struct {
    Ranker *ranker;
    const Batch *pending; /* handed, not yet taken */
    int busy, stop, running;
#ifdef HAVE_PTHREADS
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
#endif
} Pipe;

#ifdef HAVE_PTHREADS
static void *
pipe_worker(void *arg)
{
    Pipe *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (p->pending == NULL && !p->stop) {
            pthread_cond_wait(&p->cond, &p->lock);
        }
        if (p->pending == NULL) {
            break;
        }
        const Batch *batch = p->pending;
        p->pending = NULL;
        p->busy = 1;
        pthread_mutex_unlock(&p->lock);
        ranker_batch(p->ranker, batch);
        pthread_mutex_lock(&p->lock);
        p->busy = 0;
        pthread_cond_broadcast(&p->cond);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}
#endif

/* Start the ranking thread when asked for and possible (else batches rank inline). */
static void
pipe_start(Pipe *p, Ranker *ranker, int threads)
{
    memset(p, 0, sizeof *p);
    p->ranker = ranker;
#ifdef HAVE_PTHREADS
    if (threads > 1 && pthread_mutex_init(&p->lock, NULL) == 0) {
        if (pthread_cond_init(&p->cond, NULL) == 0) {
            if (pthread_create(&p->thread, NULL, pipe_worker, p) == 0) {
                p->running = 1;
                return;
            }
            pthread_cond_destroy(&p->cond);
        }
        pthread_mutex_destroy(&p->lock);
    }
#else
    (void)threads;
#endif
}

/*
 * Hand a batch over once the previous one is ranked. Returns the outcome so
 * far; the batch is not handed unless it is FUSED_DONE. The other batch is
 * free to be refilled when this returns.
 */
static int
pipe_hand(Pipe *p, const Batch *batch)
{
#ifdef HAVE_PTHREADS
    if (p->running) {
        pthread_mutex_lock(&p->lock);
        while (p->pending != NULL || p->busy) {
            pthread_cond_wait(&p->cond, &p->lock);
        }
        int outcome = p->ranker->outcome;
        if (outcome == FUSED_DONE) {
            p->pending = batch;
            pthread_cond_broadcast(&p->cond);
        }
        pthread_mutex_unlock(&p->lock);
        return outcome;
    }
#endif
    ranker_batch(p->ranker, batch);
    return p->ranker->outcome;
}

/* Wait for the thread to rank what it was handed and end it; the outcome of all. */
static int
pipe_finish(Pipe *p)
{
#ifdef HAVE_PTHREADS
    if (p->running) {
        pthread_mutex_lock(&p->lock);
        p->stop = 1;
        pthread_cond_broadcast(&p->cond);
        pthread_mutex_unlock(&p->lock);
        pthread_join(p->thread, NULL);
        pthread_cond_destroy(&p->cond);
        pthread_mutex_destroy(&p->lock);
        p->running = 0;
    }
#endif
    return p->ranker->outcome;
}

/*
 * The second half of a large run, read and ranked by a second thread while the
 * GIL holder reads and ranks the first: reading a dict is mostly waiting for
 * memory, and two threads wait in parallel. The half reads without the GIL,
 * so only what reading cannot change: the GIL holder runs no Python code while
 * it runs (it waits for the half first), keys must be exact str of ASCII text
 * (in place, no encoding) and scores exact floats. On anything else the half
 * stops (FUSED_DECLINE) and the GIL holder reads its entries instead. It never
 * touches a reference count nor the GIL, and allocates with malloc only.
 */
typedef struct {
    PyObject *results;     /* the run: not changed while the half runs */
    Py_ssize_t start;      /* PyDict_Next's position of its first entry */
    const Interner *known; /* the judged queries (read only) */
    Ranker ranker;
    RankedOut out;
    Batch batch;
    PyObject **keys, **items; /* the current entry's, gathered */
    size_t cap;
    Vec names; /* per entry read, its query key (borrowed) */
    int outcome, running;
#ifdef HAVE_PTHREADS
    pthread_t thread;
#endif
} Half;

/* Whether a key can be read without the GIL: an exact str of ASCII text. */
static inline int
plain_text(PyObject *key)
{
    return PyUnicode_CheckExact(key) && PyUnicode_IS_COMPACT_ASCII(key);
}

/*
 * Whether the entry at or after PyDict_Next's position `pos` looks readable by the
 * half: its query key and its first document plain text, its first score an exact
 * float (a guess from one item: ids and scores of a run are of one kind).
 */
static int
looks_plain(PyObject *results, Py_ssize_t pos)
{
    PyObject *query_key, *ranking, *doc_key, *value;
    while (PyDict_Next(results, &pos, &query_key, &ranking)) {
        Py_ssize_t inner = 0;
        if (PyDict_Next(ranking, &inner, &doc_key, &value)) {
            return plain_text(query_key) && plain_text(doc_key) && PyFloat_CheckExact(value);
        }
    }
    return 0;
}

static int
half_entry(Half *h, PyObject *query_key, PyObject *ranking, Py_ssize_t size)
{
    if (!plain_text(query_key)) {
        return FUSED_DECLINE;
    }
    const JudgedIds *judged = h->ranker.judged;
    Batch *b = &h->batch;
    const unsigned char *text = (const unsigned char *)PyUnicode_DATA(query_key);
    size_t length = (size_t)PyUnicode_GET_LENGTH(query_key);
    int64_t q = interner_find(h->known, text, length, hash_bytes(text, length));
    int keep = q >= 0 && judged->query_offsets[q + 1] > judged->query_offsets[q];
    BatchEntry record = {q, (int64_t)size, keep ? (int64_t)b->docs : -1};
    if ((size_t)size > h->cap) {
        PyObject **keys = realloc(h->keys, (size_t)size * sizeof(PyObject *));
        if (keys == NULL) {
            return FUSED_ERROR;
        }
        h->keys = keys;
        PyObject **items = realloc(h->items, (size_t)size * sizeof(PyObject *));
        if (items == NULL) {
            return FUSED_ERROR;
        }
        h->items = items;
        h->cap = (size_t)size;
    }
    if (keep && batch_reserve(b, (size_t)size) < 0) {
        return FUSED_ERROR;
    }
    size_t n_items = gather_items(ranking, h->keys, h->items, (size_t)size);
    if (n_items != (size_t)size) {
        return FUSED_DECLINE;
    }
    for (size_t n = 0; n < n_items; n++) {
        prefetch_ahead(h->keys, h->items, n, n_items);
        PyObject *doc_key = h->keys[n], *value = h->items[n];
        if (!plain_text(doc_key) || !PyFloat_CheckExact(value)) {
            return FUSED_DECLINE;
        }
        double score = PyFloat_AS_DOUBLE(value);
        if (UNLIKELY(!isfinite(score))) {
            return FUSED_DECLINE;
        }
        if (keep && batch_add(b, PyUnicode_DATA(doc_key), (size_t)PyUnicode_GET_LENGTH(doc_key),
                              score) < 0) {
            return FUSED_ERROR;
        }
    }
    b->docs += keep ? n_items : 0;
    if (vec_append(&b->entries, &record, sizeof record) < 0 ||
        vec_append(&h->names, &query_key, sizeof query_key) < 0) {
        return FUSED_ERROR;
    }
    return FUSED_DONE;
}

static void *
half_read(void *arg)
{
    Half *h = arg;
    Py_ssize_t pos = h->start;
    PyObject *query_key, *ranking;
    int outcome = FUSED_DONE;
    while (outcome == FUSED_DONE && PyDict_Next(h->results, &pos, &query_key, &ranking)) {
        prefetch_next_values(h->results, pos);
        /* an empty entry too: the query is in the run, with nothing retrieved */
        outcome = half_entry(h, query_key, ranking, PyDict_GET_SIZE(ranking));
        if (outcome == FUSED_DONE && batch_full(&h->batch)) {
            ranker_batch(&h->ranker, &h->batch);
            outcome = h->ranker.outcome;
            if (outcome == FUSED_DONE && batch_reset(&h->batch) < 0) {
                outcome = FUSED_ERROR;
            }
        }
    }
    if (outcome == FUSED_DONE && h->batch.entries.size) {
        ranker_batch(&h->ranker, &h->batch);
        outcome = h->ranker.outcome;
    }
    h->outcome = outcome;
    return NULL;
}

/* Start the half on its thread; 0 when it could not start (then nothing runs). */
static int
half_start(Half *h)
{
#ifdef HAVE_PTHREADS
    if (pthread_create(&h->thread, NULL, half_read, h) == 0) {
        h->running = 1;
        return 1;
    }
#else
    (void)h;
#endif
    return 0;
}

/* Wait for the half to end (when it runs); its outcome. */
static int
half_join(Half *h)
{
#ifdef HAVE_PTHREADS
    if (h->running) {
        pthread_join(h->thread, NULL);
        h->running = 0;
    }
#endif
    return h->outcome;
}

static void
half_free(Half *h)
{
    half_join(h);
    ranker_free(&h->ranker);
    ranked_free(&h->out);
    batch_free(&h->batch);
    free(h->keys);
    free(h->items);
    vec_free(&h->names);
}

/*
 * After the GIL holder's own entries are ranked: the half's entries appended
 * to them (names interned after the first half's; a query text in both, as 1
 * and "1", is FUSED_DECLINE), its entry numbers moved past `blocks` entries.
 */
static int
half_merge(Half *h, Interner *seen, RankedOut *out, int64_t blocks)
{
    PyObject **names = (PyObject **)h->names.data;
    size_t count = h->names.size / sizeof(PyObject *);
    for (size_t i = 0; i < count; i++) {
        int added;
        int64_t code =
            interner_code(seen, (const unsigned char *)PyUnicode_DATA(names[i]),
                          (size_t)PyUnicode_GET_LENGTH(names[i]), names[i], &added);
        if (code < 0) {
            return FUSED_ERROR;
        }
        if (!added) {
            return FUSED_DECLINE;
        }
    }
    Vec *to[] = {&out->judgment, &out->rank, &out->above, &out->size, &out->score,
                 &out->block_query, &out->block_size};
    Vec *from[] = {&h->out.judgment, &h->out.rank, &h->out.above, &h->out.size,
                   &h->out.score, &h->out.block_query, &h->out.block_size};
    for (size_t i = 0; i < sizeof to / sizeof to[0]; i++) {
        if (vec_append(to[i], from[i]->data, from[i]->size) < 0) {
            return FUSED_ERROR;
        }
    }
    size_t hits = h->out.block.size / 8;
    if (vec_reserve(&out->block, hits * 8) < 0) {
        return FUSED_ERROR;
    }
    const int64_t *block = (const int64_t *)h->out.block.data;
    int64_t *moved = (int64_t *)(out->block.data + out->block.size);
    for (size_t i = 0; i < hits; i++) {
        moved[i] = block[i] + blocks;
    }
    out->block.size += hits * 8;
    return FUSED_DONE;
}

/* A buffer argument of at least `items` items of `width` bytes; 0, or -1 with an error. */
static int
buffer_of(PyObject *obj, Py_buffer *view, Py_ssize_t width, const char *what)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_SIMPLE) < 0) {
        return -1;
    }
    if (view->len % width) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_ValueError, "run_dict_ranks: %s has a partial item", what);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(run_dict_ranks_doc,
"run_dict_ranks(results, id_types, number_types, qrels_names, query_offsets,\n"
"               judgments, judged_doc, id_offsets, id_data, per_row, base,\n"
"               threads=1, /)\n"
"--\n\n"
"Read the run {query: {doc: score}} and rank its judged documents in one pass,\n"
"without keeping the documents: per query entry, each document id is looked up\n"
"among the judged ids of its query, and the rank of each judged document found\n"
"is 1 + the documents of the entry that sort before it (score descending, ties\n"
"by docno descending in byte order, trec_eval's order).\n\n"
"The judgments: qrels_names (list of str, the query ids by code); the judgments\n"
"of query q are rows judgments[query_offsets[q]:query_offsets[q+1]] (int64);\n"
"judged_doc (int32) gives the document of each row as an index into the distinct\n"
"judged ids, in Arrow's layout (id_offsets int32, id_data bytes).\n\n"
"Returns (names, block_query, block_size, judgment, rank, above, size, block,\n"
"score): the run's query ids (first appearance; one entry each), per entry its\n"
"query code in the judgments (-1: none) and its number of documents (int64\n"
"blocks; 0 for an empty entry: the query is in the run, nothing retrieved),\n"
"and per judged document found (by entry, then by rank)\n"
"its row of the judgments, rank, the documents scoring strictly higher, the\n"
"documents scoring the same (itself included), its entry (int64 blocks) and its\n"
"score (float64 block). Returns None, reading nothing further, on whatever the\n"
"general path (run_dict) reads otherwise or rejects: an entry or key not\n"
"accepted, a score that is not a finite number, a query id given twice (1 and\n"
"\"1\"), keys of mixed kinds within an entry, or ties that would cost more than\n"
"per_row * documents + base docno comparisons (a sort compares fewer).\n\n"
"With threads 2 or more and 65,536 documents or more, a second thread (plain C,\n"
"never the GIL) reads and ranks the entries from the one where half the documents\n"
"are read on, while the GIL holder reads and ranks the first half; it stops on\n"
"a key that is not an exact str of ASCII text or a score that is not an exact\n"
"float, and the GIL holder reads the rest itself (as it does when it met such\n"
"an item in the first half). When the first half is a single entry, the second\n"
"thread ranks the entries read so far, in batches, while the next are read.");

/* One call: the judgments, what is read of the run, and what ranks it. */
typedef struct {
    PyObject *results, *id_types, *number_types;
    JudgedIds judged;
    size_t total;         /* documents of the run: the budget of docno comparisons grows */
    Py_ssize_t largest;   /* documents of the largest entry */
    int64_t most_judged;  /* judgments of the query with the most */
    size_t n_listed;      /* judgments listed */
    Interner known, seen; /* the judged queries; the run's, as read */
    Entry entry;
    RankedOut out;
    Ranker ranker;
    Batch batches[2];
    int cur; /* the batch being filled */
    Pipe pipe;
    int piped;
    Half half;
    int splitting;  /* whether the half reads the entries from split_pos on */
    int ran_python; /* whether this thread did more than plain reads while the half ran:
                       Python code may have changed what it read (its reading is void) */
    Py_ssize_t split_pos;
} Reading;

/* The judgments, from the caller's own columns: checked anyway, never read out of bounds.
   in: query_offsets, judgments, judged_doc, id_offsets, id_data. 0, or -1 with an error. */
static int
judged_from_buffers(Reading *g, const Py_buffer *in, Py_ssize_t n_queries)
{
    Py_ssize_t n_listed = in[1].len / 8, n_rows = in[2].len / 4, n_ids = in[3].len / 4 - 1;
    JudgedIds *judged = &g->judged;
    g->n_listed = (size_t)n_listed;
    judged->query_offsets = (const int64_t *)in[0].buf;
    judged->judgments = (const int64_t *)in[1].buf;
    judged->judged_doc = (const int32_t *)in[2].buf;
    judged->id_offsets = (const int32_t *)in[3].buf;
    judged->id_data = (const unsigned char *)in[4].buf;
    judged->id_limit = judged->id_data + in[4].len;
    if (in[0].len / 8 != n_queries + 1 || judged->query_offsets[0] != 0 ||
        judged->query_offsets[n_queries] > n_listed || n_ids < 0 || judged->id_offsets[0] < 0 ||
        judged->id_offsets[n_ids] > in[4].len) {
        PyErr_SetString(PyExc_ValueError, "run_dict_ranks: the judgments do not fit together");
        return -1;
    }
    for (Py_ssize_t q = 0; q < n_queries; q++) {
        int64_t count = judged->query_offsets[q + 1] - judged->query_offsets[q];
        if (count < 0) {
            PyErr_SetString(PyExc_ValueError, "run_dict_ranks: query offsets not ascending");
            return -1;
        }
        g->most_judged = count > g->most_judged ? count : g->most_judged;
    }
    for (Py_ssize_t i = 0; i < n_ids; i++) {
        if (judged->id_offsets[i] > judged->id_offsets[i + 1]) {
            PyErr_SetString(PyExc_ValueError, "run_dict_ranks: id offsets not ascending");
            return -1;
        }
    }
    for (Py_ssize_t j = 0; j < n_listed; j++) {
        int64_t row = judged->judgments[j];
        if (row < 0 || row >= n_rows || judged->judged_doc[row] < 0 ||
            judged->judged_doc[row] >= n_ids) {
            PyErr_SetString(PyExc_ValueError, "run_dict_ranks: a judgment out of range");
            return -1;
        }
    }
    return 0;
}

/* The judged queries by their text, coded as the judgments code them; 0, or -1 with an error. */
static int
intern_judged_queries(Interner *known, PyObject *qrels_names)
{
    for (Py_ssize_t q = 0; q < PyList_GET_SIZE(qrels_names); q++) {
        PyObject *name = PyList_GET_ITEM(qrels_names, q);
        Py_ssize_t length;
        const char *text = PyUnicode_Check(name) ? PyUnicode_AsUTF8AndSize(name, &length) : NULL;
        if (text == NULL) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_TypeError, "run_dict_ranks: query names must be str");
            }
            return -1;
        }
        int added;
        if (interner_code(known, (const unsigned char *)text, (size_t)length, NULL, &added) != q) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_ValueError, "run_dict_ranks: query names repeat");
            }
            return -1;
        }
    }
    return 0;
}

/*
 * A second thread for the half of the run from the entry where half the documents are
 * read on, when the entries there and at the start look plain (ids of another kind, int
 * keys say, would make the GIL holder read the whole run alone, the half stopping at
 * once: they keep the batch pipeline). 0, or -1 on memory failure.
 */
static int
reading_split(Reading *g, size_t hits_most, size_t entries_most)
{
    Py_ssize_t p = 0, last = 0;
    size_t read = 0;
    PyObject *key, *value;
    while (PyDict_Next(g->results, &p, &key, &value)) {
        read += (size_t)PyDict_GET_SIZE(value);
        if (g->split_pos == 0 && read * 2 >= g->total) {
            g->split_pos = p;
        }
        last = p;
    }
    if (!(g->split_pos > 0 && g->split_pos < last && looks_plain(g->results, 0) &&
          looks_plain(g->results, g->split_pos))) {
        return 0;
    }
    Half *half = &g->half;
    half->results = g->results;
    half->start = g->split_pos;
    half->known = &g->known;
    half->ranker.judged = &g->judged;
    half->ranker.out = &half->out;
    half->ranker.budget = g->ranker.budget;
    half->batch.limit = g->batches[0].limit;
    if (batch_reset(&half->batch) < 0 ||
        ranking_reserve(&half->ranker, (size_t)g->largest, (size_t)g->most_judged, hits_most,
                        entries_most) < 0) {
        return -1;
    }
    g->splitting = half_start(half);
    return 0;
}

/*
 * Everything the ranking writes reserved here (the threads allocate nothing: a thread's
 * first allocations make it an arena of its own, and page faults), the batches sized,
 * and the threads started: a second thread when the documents are many (a thread costs a
 * millisecond or two to start and feed: ~100,000 documents' reading), the half of the run
 * read and ranked there, or else one that ranks the entries read while the next are
 * read. 0, or -1 with an exception set.
 */
static int
reading_start(Reading *g, int64_t budget, int threads)
{
    g->ranker.judged = &g->judged;
    g->ranker.out = &g->out;
    g->ranker.budget = budget;
    size_t hits_most = (g->n_listed < g->total ? g->n_listed : g->total) * 8;
    size_t entries_most = (size_t)PyDict_GET_SIZE(g->results) * 8;
    if (batch_reset(&g->batches[0]) < 0 || batch_reset(&g->batches[1]) < 0 ||
        ranking_reserve(&g->ranker, (size_t)g->largest, (size_t)g->most_judged, hits_most,
                        entries_most) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    size_t limit = g->total / 16;
    limit = limit < BATCH_DOCS_LEAST ? BATCH_DOCS_LEAST : limit > BATCH_DOCS ? BATCH_DOCS : limit;
    g->batches[0].limit = g->batches[1].limit = limit;
    int many = g->total >= (size_t)THREAD_DOCS;
    if (threads > 1 && many && reading_split(g, hits_most, entries_most) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    pipe_start(&g->pipe, &g->ranker, many && !g->splitting ? threads : 1);
    g->piped = 1;
    return 0;
}

/* The query of an entry: its code in the judgments (-1: none) in *q, its text interned
   among the run's queries (a text seen already, 1 and "1": FUSED_DECLINE). */
static inline int
entry_query(Reading *g, PyObject *query_key, int64_t *q)
{
    IdText query;
    int got = id_of_key(query_key, g->id_types, &query);
    if (got != 1) {
        id_release(&query);
        PyErr_Clear();
        return FUSED_DECLINE;
    }
    int added;
    const unsigned char *text = (const unsigned char *)query.s;
    int64_t code = interner_code(&g->seen, text, (size_t)query.n, query.text, &added);
    *q = code < 0 ? -1
                  : interner_find(&g->known, text, (size_t)query.n,
                                  hash_bytes(text, (size_t)query.n));
    id_release(&query);
    if (code < 0) {
        PyErr_NoMemory();
        return FUSED_ERROR;
    }
    return added ? FUSED_DONE : FUSED_DECLINE; /* the same text again: the general path */
}

/*
 * Document i of the entry read and checked (its key's kind added to *kinds), and kept in
 * the batch (NULL: not kept). Keys and values are borrowed from the dict, which is kept
 * alive, until something that may run Python code: then they are owned.
 */
static inline int
read_document(Reading *g, Batch *batch, size_t i, size_t n_items, int *kinds)
{
    PyObject *doc_key = g->entry.keys[i], *value = g->entry.items[i];
    if (g->splitting && (!plain_text(doc_key) || !PyFloat_CheckExact(value))) {
        half_join(&g->half); /* reading them may run Python code, or make objects */
        g->ran_python = 1;
    }
    if (!PyUnicode_CheckExact(doc_key) && !PyLong_CheckExact(doc_key)) {
        entry_own(&g->entry, n_items); /* reading it may run Python code */
    }
    IdText doc;
    int got = id_of_key(doc_key, g->id_types, &doc);
    *kinds |= got == 1 ? doc.kind : 0;
    if (got != 1 || (*kinds & (*kinds - 1)) || (*kinds & KIND_OTHER)) {
        id_release(&doc); /* keys of mixed kinds may collide: the general path */
        PyErr_Clear();
        return FUSED_DECLINE;
    }
    double score;
    if (LIKELY(PyFloat_Check(value))) {
        score = PyFloat_AS_DOUBLE(value);
    }
    else {
        if (!PyLong_CheckExact(value)) {
            entry_own(&g->entry, n_items); /* reading it may run Python code */
        }
        if (number_of(value, g->number_types, &score) != 1) {
            id_release(&doc);
            PyErr_Clear();
            return FUSED_DECLINE;
        }
    }
    int outcome = FUSED_DONE;
    if (UNLIKELY(!isfinite(score))) {
        outcome = FUSED_DECLINE;
    }
    else if (batch != NULL && batch_add(batch, doc.s, (size_t)doc.n, score) < 0) {
        PyErr_NoMemory();
        outcome = FUSED_ERROR;
    }
    id_release(&doc);
    return outcome;
}

/*
 * One entry of the run read into the current batch: its query, and the documents of a
 * judged query kept for the ranking (ids and scores). The entry's items are gathered
 * first, then every document read and checked with its objects prefetched a few ahead.
 */
static int
read_entry(Reading *g, PyObject *query_key, PyObject *ranking)
{
    Py_ssize_t size = PyDict_GET_SIZE(ranking); /* 0: in the run, nothing retrieved */
    if (g->splitting && !plain_text(query_key)) {
        half_join(&g->half); /* reading the key may run Python code, or make objects */
        g->ran_python = 1;
    }
    int64_t q;
    int outcome = entry_query(g, query_key, &q);
    if (outcome != FUSED_DONE) {
        return outcome;
    }
    Batch *batch = &g->batches[g->cur];
    int keep = q >= 0 && g->judged.query_offsets[q + 1] > g->judged.query_offsets[q];
    BatchEntry record = {q, (int64_t)size, keep ? (int64_t)batch->docs : -1};
    if (entry_reserve(&g->entry, (size_t)size) < 0 ||
        (keep && batch_reserve(batch, (size_t)size) < 0)) {
        PyErr_NoMemory();
        return FUSED_ERROR;
    }
    Py_INCREF(ranking);
    size_t n = 0, n_items = gather_items(ranking, g->entry.keys, g->entry.items, (size_t)size);
    int kinds = 0;
    outcome = n_items == (size_t)size ? FUSED_DONE : FUSED_DECLINE;
    for (; outcome == FUSED_DONE && n < n_items; n++) {
        prefetch_ahead(g->entry.keys, g->entry.items, n, n_items);
        outcome = read_document(g, keep ? batch : NULL, n, n_items, &kinds);
        if (outcome != FUSED_DONE) {
            break;
        }
    }
    if (outcome == FUSED_DONE && (n != (size_t)size || PyDict_GET_SIZE(ranking) != size)) {
        outcome = FUSED_DECLINE; /* the dict changed while we read it */
    }
    entry_release_keys(&g->entry, n_items);
    Py_DECREF(ranking);
    if (outcome != FUSED_DONE) {
        return outcome;
    }
    batch->docs += keep ? n : 0;
    if (vec_append(&batch->entries, &record, sizeof record) < 0) {
        PyErr_NoMemory();
        return FUSED_ERROR;
    }
    return FUSED_DONE;
}

/* The full batch handed to the ranking; the other one (ranked by then) refilled. */
static int
hand_batch(Reading *g)
{
    int outcome = pipe_hand(&g->pipe, &g->batches[g->cur]);
    if (outcome != FUSED_DONE) {
        return outcome;
    }
    g->cur ^= 1;
    if (batch_reset(&g->batches[g->cur]) < 0) {
        PyErr_NoMemory();
        return FUSED_ERROR;
    }
    return FUSED_DONE;
}

/* At the half's first entry, the half done and its reading valid: this half's entries
   ranked first, then the half's appended to them. */
static int
reading_merge(Reading *g)
{
    int outcome = FUSED_DONE;
    Batch *batch = &g->batches[g->cur];
    if (batch->entries.size) {
        outcome = pipe_hand(&g->pipe, batch);
        if (batch_reset(batch) < 0 && outcome == FUSED_DONE) {
            PyErr_NoMemory();
            outcome = FUSED_ERROR;
        }
    }
    return outcome == FUSED_DONE ? half_merge(&g->half, &g->seen, &g->out, g->ranker.block)
                                 : outcome;
}

/* Read the run and rank it; the outcome (FUSED_ERROR: an exception is set). */
static int
reading_run(Reading *g)
{
    int outcome = FUSED_DONE;
    Py_ssize_t pos = 0;
    PyObject *query_key, *ranking;
    while (outcome == FUSED_DONE && PyDict_Next(g->results, &pos, &query_key, &ranking)) {
        if (g->splitting && pos > g->split_pos) { /* the half's first entry */
            g->splitting = 0;
            if (half_join(&g->half) == FUSED_DONE && !g->ran_python) {
                outcome = reading_merge(g);
                break;
            }
            /* the half stopped, or may have read what Python code changed: read here */
        }
        prefetch_next_values(g->results, pos);
        outcome = read_entry(g, query_key, ranking);
        if (outcome == FUSED_DONE && batch_full(&g->batches[g->cur])) {
            outcome = hand_batch(g);
        }
    }
    if (g->splitting) { /* the half's entries were not reached: the dict changed */
        half_join(&g->half);
        outcome = outcome == FUSED_DONE ? FUSED_DECLINE : outcome;
    }
    if (outcome == FUSED_DONE && g->batches[g->cur].entries.size) {
        outcome = pipe_hand(&g->pipe, &g->batches[g->cur]);
    }
    int ranked = pipe_finish(&g->pipe);
    g->piped = 0;
    if (outcome == FUSED_DONE) {
        outcome = ranked;
    }
    if (outcome == FUSED_ERROR && !PyErr_Occurred()) {
        PyErr_NoMemory(); /* the ranking ran out of memory */
    }
    return outcome;
}

/* (names, block_query, block_size, judgment, rank, above, size, block, score), or NULL. */
static PyObject *
reading_result(Reading *g)
{
    PyObject *result = NULL, *items[9] = {NULL};
    items[0] = interner_take_names(&g->seen);
    RankedOut *o = &g->out;
    Vec *vecs[8] = {&o->block_query, &o->block_size, &o->judgment, &o->rank, &o->above,
                    &o->size, &o->block, &o->score};
    int ok = items[0] != NULL;
    for (int i = 0; i < 8 && ok; i++) {
        items[i + 1] = vec_to_block(vecs[i]);
        ok = items[i + 1] != NULL;
    }
    if (ok) {
        result = PyTuple_New(9);
        for (int i = 0; result != NULL && i < 9; i++) {
            PyTuple_SET_ITEM(result, i, items[i]);
            items[i] = NULL;
        }
    }
    for (int i = 0; i < 9; i++) {
        Py_XDECREF(items[i]);
    }
    return result;
}

static void
reading_free(Reading *g)
{
    half_free(&g->half); /* the threads are done before what they read is freed */
    if (g->piped) {
        pipe_finish(&g->pipe);
    }
    if (g->known.slots != NULL || g->known.offsets.data != NULL) {
        interner_free(&g->known);
    }
    if (g->seen.slots != NULL || g->seen.offsets.data != NULL) {
        interner_free(&g->seen);
    }
    batch_free(&g->batches[0]);
    batch_free(&g->batches[1]);
    ranker_free(&g->ranker);
    entry_free(&g->entry);
    ranked_free(&g->out);
}

static PyObject *
cdict_run_dict_ranks(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *results, *id_types, *number_types, *qrels_names, *inputs[5];
    long long per_row, base;
    int threads = 1;
    if (!PyArg_ParseTuple(args, "OOOO!OOOOOLL|i:run_dict_ranks", &results, &id_types,
                          &number_types, &PyList_Type, &qrels_names, &inputs[0], &inputs[1],
                          &inputs[2], &inputs[3], &inputs[4], &per_row, &base, &threads)) {
        return NULL;
    }
    if (!PyDict_Check(results)) {
        Py_RETURN_NONE;
    }
    Reading g;
    memset(&g, 0, sizeof g);
    g.results = results;
    g.id_types = id_types == Py_None ? NULL : id_types;
    g.number_types = number_types == Py_None ? NULL : number_types;
    PyObject *key, *value;
    if (!inner_sizes(results, &g.total, &g.largest, &key, &value)) {
        Py_RETURN_NONE; /* an entry the general path refuses */
    }
    static const Py_ssize_t widths[5] = {8, 8, 4, 4, 1};
    static const char *names_of[5] = {"query_offsets", "judgments", "judged_doc", "id_offsets",
                                      "id_data"};
    Py_buffer in[5];
    int held = 0;
    PyObject *result = NULL;
    for (int i = 0; i < 5; i++) {
        if (buffer_of(inputs[i], &in[i], widths[i], names_of[i]) < 0) {
            goto done;
        }
        held++;
    }
    Py_ssize_t n_queries = PyList_GET_SIZE(qrels_names);
    if (judged_from_buffers(&g, in, n_queries) < 0) {
        goto done;
    }
    if (interner_init(&g.known, (size_t)n_queries) < 0 ||
        interner_init(&g.seen, (size_t)PyDict_GET_SIZE(results)) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    if (intern_judged_queries(&g.known, qrels_names) < 0 ||
        reading_start(&g, per_row * (int64_t)g.total + base, threads) < 0) {
        goto done;
    }
    int outcome = reading_run(&g);
    if (outcome == FUSED_DECLINE) {
        result = Py_NewRef(Py_None);
    }
    else if (outcome == FUSED_DONE) {
        result = reading_result(&g);
    }
done:
    reading_free(&g);
    for (int i = 0; i < held; i++) {
        PyBuffer_Release(&in[i]);
    }
    return result;
}

static PyMethodDef cdict_methods[] = {
    {"run_dict_ranks", cdict_run_dict_ranks, METH_VARARGS, run_dict_ranks_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef cdict_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "rankwise.ranking._cdict",
    .m_doc = "A run dict read and its judged documents ranked in one pass "
             "(see rankwise.ranking.from_dict).",
    .m_size = -1,
    .m_methods = cdict_methods,
};

PyMODINIT_FUNC
PyInit__cdict(void)
{
    if (PyType_Ready(&BlockType) < 0) {
        return NULL;
    }
    return PyModule_Create(&cdict_module);
}
