/*
 * rankwise.fusion._cfuse: the candidates of fusion, (query, document) pairs, and the sums over
 * runs of fusion's row values, in one pass over each run's rows.
 *
 * Python gives, per run, where each query's rows are (begin[q] .. end[q] in the run's row
 * order, or in an order array when the run is not grouped by query) and the run's document
 * ids as Arrow string chunks. scan() takes the queries one by one: each query's rows, run
 * after run, go through a small hash table of its own (it stays in cache) keyed by the
 * document id's bytes, so each distinct document becomes a candidate, numbered query by
 * query in order of first appearance. In the same pass it can add each row's value (the
 * score, min-max or max normalised per query and run, or a function of the rank, times an
 * optional weight) to its candidate's total, in the order of the runs, and count the runs
 * that hold it: the sums numpy.bincount makes, bit for bit. gather() copies the candidates'
 * document ids into one Arrow string buffer. ranks() gives each row of a run its rank within
 * its query in trec_eval's order, for the methods that read ranks (rrf, rbc, borda, ...).
 * The GIL is released while they work.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rankwise_strings.h"

/* ----------------------------------------------------------------------------------------- */
/* buffers                                                                                     */

static int
get_buffer(PyObject *object, Py_buffer *view, Py_ssize_t item, Py_ssize_t length, int writable,
           const char *what)
{
    if (PyObject_GetBuffer(object, view, writable ? PyBUF_WRITABLE : PyBUF_SIMPLE) < 0) {
        return -1;
    }
    if (length >= 0 ? view->len != length * item : view->len % item != 0) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_ValueError, "%s has the wrong length", what);
        return -1;
    }
    return 0;
}

/* An optional buffer: None gives buf NULL (and nothing to release). */
static int
get_optional(PyObject *object, Py_buffer *view, Py_ssize_t item, Py_ssize_t length, int writable,
             const char *what)
{
    if (object == Py_None) {
        memset(view, 0, sizeof(*view));
        view->buf = NULL;
        view->obj = NULL;
        return 0;
    }
    return get_buffer(object, view, item, length, writable, what);
}

static void
release(Py_buffer *view)
{
    if (view->obj != NULL) {
        PyBuffer_Release(view);
    }
    view->obj = NULL;
    view->buf = NULL;
}

/* ----------------------------------------------------------------------------------------- */
/* strings: Arrow string chunks [(length, offsets int32, data uint8, offset), ...]            */

typedef struct {
    Py_ssize_t n_chunks;
    int64_t *start;              /* n_chunks + 1: the first row of each chunk */
    const int32_t **offsets;     /* per chunk, its offsets (shifted by the chunk's offset) */
    const unsigned char **data;  /* per chunk */
    const unsigned char **limit; /* per chunk: end of its data buffer */
    Py_buffer *views;            /* 2 per chunk */
    Py_ssize_t held;             /* views held */
} Strings;

static void
strings_free(Strings *s)
{
    for (Py_ssize_t v = 0; v < s->held; v++) {
        PyBuffer_Release(&s->views[v]);
    }
    PyMem_Free(s->start);
    PyMem_Free(s->offsets);
    PyMem_Free(s->data);
    PyMem_Free(s->limit);
    PyMem_Free(s->views);
    memset(s, 0, sizeof(*s));
}

static int
strings_init(Strings *s, PyObject *chunk_list)
{
    memset(s, 0, sizeof(*s));
    if (!PyList_Check(chunk_list)) {
        PyErr_SetString(PyExc_TypeError, "string chunks must be a list");
        return -1;
    }
    Py_ssize_t n = PyList_GET_SIZE(chunk_list);
    s->n_chunks = n;
    s->start = PyMem_Calloc((size_t)n + 1, sizeof(int64_t));
    s->offsets = PyMem_Calloc((size_t)n + 1, sizeof(int32_t *));
    s->data = PyMem_Calloc((size_t)n + 1, sizeof(unsigned char *));
    s->limit = PyMem_Calloc((size_t)n + 1, sizeof(unsigned char *));
    s->views = PyMem_Calloc((size_t)n * 2 + 1, sizeof(Py_buffer));
    if (!s->start || !s->offsets || !s->data || !s->limit || !s->views) {
        strings_free(s);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t c = 0; c < n; c++) {
        Py_ssize_t length, offset;
        PyObject *offsets_obj, *data_obj;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(chunk_list, c), "nOOn", &length, &offsets_obj,
                              &data_obj, &offset)) {
            strings_free(s);
            return -1;
        }
        Py_buffer *ov = &s->views[s->held];
        if (PyObject_GetBuffer(offsets_obj, ov, PyBUF_SIMPLE) < 0) {
            strings_free(s);
            return -1;
        }
        s->held++;
        Py_buffer *dv = &s->views[s->held];
        if (PyObject_GetBuffer(data_obj, dv, PyBUF_SIMPLE) < 0) {
            strings_free(s);
            return -1;
        }
        s->held++;
        const int32_t *o = (const int32_t *)ov->buf + (offset > 0 ? offset : 0);
        int ok = length >= 0 && offset >= 0 &&
                 ov->len >= (offset + length + 1) * (Py_ssize_t)sizeof(int32_t) &&
                 (length == 0 || (o[0] >= 0 && o[length] >= o[0] && o[length] <= dv->len));
        if (!ok) {
            strings_free(s);
            PyErr_SetString(PyExc_ValueError, "a string chunk's buffers are too short");
            return -1;
        }
        s->offsets[c] = o;
        s->data[c] = (const unsigned char *)dv->buf;
        s->limit[c] = (const unsigned char *)dv->buf + dv->len;
        s->start[c + 1] = s->start[c] + length;
    }
    return 0;
}

/* The chunk holding row (0 <= row < rows): *hint* when it does, else a binary search. */
static inline Py_ssize_t
find_chunk(const Strings *s, int64_t row, Py_ssize_t hint)
{
    if (LIKELY(row >= s->start[hint] && row < s->start[hint + 1])) {
        return hint;
    }
    Py_ssize_t lo = 0, hi = s->n_chunks - 1; /* the last chunk starting at or before row */
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi + 1) / 2;
        if (s->start[mid] <= row) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}

/* ----------------------------------------------------------------------------------------- */
/* ranks (below): each row's 1-based rank within its query, for the rank-based methods     */

/* A row being ranked: its score (-0.0 made 0.0: they tie) and the row. */
typedef struct {
    double score;
    int64_t row;
} Ranked;

/* A member of a tie group: its document id's first 8 bytes as a big-endian word (zero-padded,
   so word order is byte order unless the words are equal), its bytes, and its row. */
typedef struct {
    uint64_t word;
    const unsigned char *bytes;
    size_t length;
    int64_t row;
} Tied;

typedef struct {
    Ranked *rows, *spare;
    Tied *tied, *tied_spare;
    uint32_t *which, *bucket;
    uint64_t *keys;
    uint32_t (*counts)[256];
    int64_t *local_rank; /* per position of the query being ranked, its rank */
} RankScratch;

static int rank_query(const int64_t *order, int64_t b, int64_t e, const double *scores,
                      int64_t n_rows, const Strings *strings, RankScratch *s,
                      int64_t *local_rank);
static int scratch_init(RankScratch *s, int64_t largest);
static void scratch_free(RankScratch *s);

enum { RANK_OK = 0, RANK_BAD_ROW = 1, RANK_BAD_STRING = 2, RANK_NAN = 3 };

/* ----------------------------------------------------------------------------------------- */
/* scan                                                                                        */

enum {
    VALUE_NONE = 0,   /* no value: candidates (and counts) only */
    VALUE_RAW = 1,    /* values[row] */
    VALUE_MIN_MAX = 2, /* (v - min) / max(max - min, 1e-9), per query of this run */
    VALUE_MAX = 3,    /* v / max(max, 1e-9) */
    VALUE_RRF = 4,    /* 1 / (param + v), v a rank */
    VALUE_ISR = 5,    /* 1 / (v * v) */
    VALUE_OVER = 6,   /* param / v */
};

#define FLOOR 1e-9

typedef struct {
    Py_buffer begin_view, end_view, order_view, values_view, candidate_view;
    const int64_t *begin, *end, *order;
    const double *values;        /* float64 values, or */
    const int64_t *int_values;   /* int64 values (ranks), or neither: ranks are positions */
    int64_t *candidate;
    Py_ssize_t n_rows, n_positions;
    int kind, weighted;
    int rank_scores; /* values are scores: each row's rank comes from ranking them here */
    double param, weight;
    Strings strings;
    int strings_held;
} RunSpec;

/* float64 or int64 values, one per row, or None. */
static int
get_values(PyObject *object, Py_buffer *view, Py_ssize_t n_rows, int *integer)
{
    *integer = 0;
    if (object == Py_None) {
        memset(view, 0, sizeof(*view));
        return 0;
    }
    if (PyObject_GetBuffer(object, view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        return -1;
    }
    const char *f = view->format ? view->format : "B";
    if (*f == '<' || *f == '=' || *f == '@') {
        f++;
    }
    if (view->itemsize != 8 || strchr("dlq", f[0]) == NULL || f[1] != '\0' ||
        view->len != n_rows * 8) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_ValueError, "scan: values must be float64 or int64, one per row");
        return -1;
    }
    *integer = f[0] != 'd';
    return 0;
}

static void
run_free(RunSpec *r)
{
    release(&r->begin_view);
    release(&r->end_view);
    release(&r->order_view);
    release(&r->values_view);
    release(&r->candidate_view);
    if (r->strings_held) {
        strings_free(&r->strings);
    }
    r->strings_held = 0;
}

/* (begin, end, order or None, chunks, values or None, kind, param, weight or None,
 *  candidate_out or None[, rank_scores]) */
static int
run_init(RunSpec *r, PyObject *spec, Py_ssize_t n_queries)
{
    memset(r, 0, sizeof(*r));
    PyObject *begin_obj, *end_obj, *order_obj, *chunks, *values_obj, *weight_obj, *candidate_obj;
    if (!PyArg_ParseTuple(spec, "OOOOOidOO|p", &begin_obj, &end_obj, &order_obj, &chunks,
                          &values_obj, &r->kind, &r->param, &weight_obj, &candidate_obj,
                          &r->rank_scores)) {
        return -1;
    }
    if (r->kind < VALUE_NONE || r->kind > VALUE_OVER) {
        PyErr_SetString(PyExc_ValueError, "scan: unknown value kind");
        return -1;
    }
    if (weight_obj != Py_None) {
        r->weighted = 1;
        r->weight = PyFloat_AsDouble(weight_obj);
        if (r->weight == -1.0 && PyErr_Occurred()) {
            return -1;
        }
    }
    if (strings_init(&r->strings, chunks) < 0) {
        return -1;
    }
    r->strings_held = 1;
    int integer = 0;
    r->n_rows = (Py_ssize_t)r->strings.start[r->strings.n_chunks];
    if (get_buffer(begin_obj, &r->begin_view, 8, -1, 0, "scan: begin") < 0 ||
        get_buffer(end_obj, &r->end_view, 8, r->begin_view.len / 8, 0, "scan: end") < 0 ||
        get_optional(order_obj, &r->order_view, 8, -1, 0, "scan: order") < 0 ||
        get_values(values_obj, &r->values_view, r->n_rows, &integer) < 0 ||
        get_optional(candidate_obj, &r->candidate_view, 8, r->n_rows, 1, "scan: candidate_out") <
            0) {
        run_free(r);
        return -1;
    }
    if (r->begin_view.len / 8 < n_queries) {
        run_free(r);
        PyErr_SetString(PyExc_ValueError, "scan: begin and end must have one entry per query");
        return -1;
    }
    int by_rank = r->kind == VALUE_RRF || r->kind == VALUE_ISR || r->kind == VALUE_OVER;
    if (r->kind != VALUE_NONE && r->values_view.buf == NULL &&
        !(by_rank && order_obj == Py_None)) {
        run_free(r);
        PyErr_SetString(PyExc_ValueError,
                        "scan: this value kind needs values (ranks may be positions only in "
                        "runs grouped by query)");
        return -1;
    }
    if (integer && !by_rank) {
        run_free(r);
        PyErr_SetString(PyExc_ValueError, "scan: scores must be float64");
        return -1;
    }
    if (r->rank_scores && (!by_rank || integer || r->values_view.buf == NULL)) {
        run_free(r);
        PyErr_SetString(PyExc_ValueError,
                        "scan: rank_scores needs a rank value kind and float64 scores");
        return -1;
    }
    r->begin = (const int64_t *)r->begin_view.buf;
    r->end = (const int64_t *)r->end_view.buf;
    r->order = (const int64_t *)r->order_view.buf;
    r->values = integer ? NULL : (const double *)r->values_view.buf;
    r->int_values = integer ? (const int64_t *)r->values_view.buf : NULL;
    r->candidate = (int64_t *)r->candidate_view.buf;
    r->n_positions = r->order ? r->order_view.len / 8 : r->n_rows;
    return 0;
}

/*
 * The hash table of one query: slots of 8 bytes, each the stamp it was taken under (high 32
 * bits) and the candidate's number within the query (low 32 bits). A slot is taken when its
 * stamp is the current one: each query (and each growth of the table) takes a new stamp, so
 * the table is never cleared. The rest (the id's key, bytes and length, the last run that
 * held it) is kept per candidate, in arrays that stay small.
 */
typedef uint64_t Slot;

typedef struct {
    Slot *slots;
    size_t cap;  /* slots allocated */
    size_t size; /* slots in use: a power of two */
    uint32_t stamp;
    /* per candidate of the query */
    uint64_t *key;
    const unsigned char **bytes;
    uint32_t *length;
    int32_t *last_run;
    size_t room;
} Table;

static inline uint64_t
mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

#define SLOT_TAKEN(t, slot) ((uint32_t)((slot) >> 32) == (t)->stamp)
#define SLOT_LOCAL(slot) ((int32_t)(uint32_t)(slot))

/* The slot holding the id (key, bytes, n), or the free slot where it goes. */
static inline size_t
table_find(const Table *t, uint64_t key, const unsigned char *bytes, size_t n)
{
    size_t mask = t->size - 1;
    size_t at = (size_t)mix(key ^ ((uint64_t)n << 56)) & mask;
    for (;;) {
        Slot slot = t->slots[at];
        if (!SLOT_TAKEN(t, slot)) {
            return at;
        }
        int32_t c = SLOT_LOCAL(slot);
        if (t->key[c] == key && t->length[c] == n &&
            (n <= 8 || memcmp(t->bytes[c], bytes, n) == 0)) {
            return at;
        }
        at = (at + 1) & mask;
    }
}

static inline void
table_take(Table *t, size_t at, int32_t local)
{
    t->slots[at] = ((uint64_t)t->stamp << 32) | (uint32_t)local;
}

/* A fresh table of *size* slots (a new stamp: every slot free). */
static inline void
table_reset(Table *t, size_t size)
{
    t->size = size;
    t->stamp++;
}

/* Twice the slots, the query's *n* candidates inserted again. */
static void
table_grow(Table *t, int32_t n)
{
    table_reset(t, t->size * 2);
    for (int32_t c = 0; c < n; c++) {
        size_t at = (size_t)mix(t->key[c] ^ ((uint64_t)t->length[c] << 56)) & (t->size - 1);
        while (SLOT_TAKEN(t, t->slots[at])) {
            at = (at + 1) & (t->size - 1);
        }
        table_take(t, at, c);
    }
}

enum { SCAN_OK = 0, SCAN_DUPLICATE = 1, SCAN_BAD_ROW = 2, SCAN_BAD_STRING = 3, SCAN_NAN = 4 };

#define FIRST_SHIFT 40 /* a candidate's first appearance: run << FIRST_SHIFT | row */

PyDoc_STRVAR(scan_doc,
"scan(q_begin, q_end, runs, per_query_out, first_out, total_out, count_out) -> int\n\n"
"The candidates of queries q_begin .. q_end - 1, numbered from 0 query by query in order of\n"
"first appearance (runs in order, each run's rows in order). Each run is a tuple (begin,\n"
"end, order, chunks, values, kind, param, weight, candidate_out[, rank_scores]): query q's\n"
"rows are begin[q] .. end[q] - 1 (int64, one per query) in the run's row order, or\n"
"positions in order (int64 rows; None: the rows themselves); chunks are the Arrow string\n"
"chunks of its document ids [(length, offsets, data, offset), ...]. Each row's value, by\n"
"kind: 0 none, 1 values[row], 2 min-max and 3 max normalised over the query's rows of this\n"
"run, and with v the row's rank (int64 or float64 values[row]; values None, its position in\n"
"the query's rows from 1; rank_scores true, its rank among the query's rows by the scores\n"
"in values, as ranks() gives it), 4 1 / (param + v), 5 1 / (v * v), 6 param / v; then\n"
"times weight\n"
"unless it is None. candidate_out (int64 per row, or None) receives each row's candidate.\n"
"Writes per_query_out[q] (int64): the number of candidates of query q; and per candidate\n"
"first_out: where it first appears (run << 40 | row), total_out: the sum of its values\n"
"(added run after run, from 0.0), count_out: the runs holding it (float64); each with\n"
"room for one per row of these queries (total_out and count_out may be None). Returns the\n"
"number of candidates, or -1 when a run holds a document twice for a query. Parts of the\n"
"queries may run on several threads (the GIL is released).");

/* The rows of queries [q_begin, q_end) over the runs (*room), and the most one query has
   (*largest); 0, or -1 with an exception set (a query's rows out of range). */
static int
scan_rows(const RunSpec *runs, Py_ssize_t n_runs, Py_ssize_t q_begin, Py_ssize_t q_end,
          Py_ssize_t *room, Py_ssize_t *largest)
{
    *room = *largest = 0;
    for (Py_ssize_t q = q_begin; q < q_end; q++) {
        Py_ssize_t rows = 0;
        for (Py_ssize_t r = 0; r < n_runs; r++) {
            int64_t b = runs[r].begin[q], e = runs[r].end[q];
            if (b < 0 || e < b || e > runs[r].n_positions) {
                PyErr_SetString(PyExc_ValueError, "scan: a query's rows are out of range");
                return -1;
            }
            rows += (Py_ssize_t)(e - b);
        }
        *room += rows;
        if (rows > *largest) {
            *largest = rows;
        }
    }
    return 0;
}

/* The table's memory for queries of up to `largest` rows; 0, or -1 with an exception set. */
static int
table_init(Table *table, Py_ssize_t largest)
{
    size_t cap = 16;
    while (cap < (size_t)largest * 2) {
        cap <<= 1;
    }
    if (largest > INT32_MAX / 2) {
        PyErr_SetString(PyExc_ValueError, "scan: too many rows for one query");
        return -1;
    }
    table->cap = cap;
    table->room = (size_t)largest + 1;
    table->slots = PyMem_Calloc(cap, sizeof(Slot));
    table->key = PyMem_Malloc(table->room * sizeof(uint64_t));
    table->bytes = PyMem_Malloc(table->room * sizeof(unsigned char *));
    table->length = PyMem_Malloc(table->room * sizeof(uint32_t));
    table->last_run = PyMem_Malloc(table->room * sizeof(int32_t));
    if (!table->slots || !table->key || !table->bytes || !table->length || !table->last_run) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void
table_free(Table *table)
{
    PyMem_Free(table->slots);
    PyMem_Free(table->key);
    PyMem_Free(table->bytes);
    PyMem_Free(table->length);
    PyMem_Free(table->last_run);
}

/* What scan writes: per query its candidates, per candidate its first appearance, and
   (NULL: not asked for) the sum of its values and the runs holding it. */
typedef struct {
    int64_t *per_query, *first;
    double *total, *count;
    int64_t next;         /* the next candidate's number */
    RankScratch *ranking; /* for the runs whose rows are ranked here (rank_scores) */
} ScanOut;

/* The normalisation of a run's rows of one query, [b, e): min-max (*low, *scale) or max
   (*scale), read over those rows; SCAN_OK, or SCAN_BAD_ROW. */
static inline int
run_range(const RunSpec *run, int64_t b, int64_t e, double *low, double *scale)
{
    *low = 0.0;
    *scale = 1.0;
    if (run->kind != VALUE_MIN_MAX && run->kind != VALUE_MAX) {
        return SCAN_OK;
    }
    double lo = INFINITY, hi = -INFINITY;
    for (int64_t p = b; p < e; p++) {
        int64_t row = run->order ? run->order[p] : p;
        if (row < 0 || row >= run->n_rows) {
            return SCAN_BAD_ROW;
        }
        double v = run->values[row];
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    if (run->kind == VALUE_MIN_MAX) {
        *low = lo;
        *scale = hi - lo;
    } else {
        *scale = hi;
    }
    *scale = *scale < FLOOR ? FLOOR : *scale;
    return SCAN_OK;
}

/* The value row `row` (at position p of its query's rows, the first at b) adds to its
   candidate's total, weight included (local_rank: the ranks of the query's rows, by position,
   for a run ranked here). */
static inline double
row_value(const RunSpec *run, int64_t row, int64_t p, int64_t b, double low, double scale,
          const int64_t *local_rank)
{
    double v, rank;
    if (run->kind >= VALUE_RRF) {
        rank = local_rank        ? (double)local_rank[p - b]
               : run->int_values ? (double)run->int_values[row]
               : run->values     ? run->values[row]
                                 : (double)(p - b + 1);
    } else {
        rank = 0.0;
    }
    switch (run->kind) {
    case VALUE_RAW:
        v = run->values[row];
        break;
    case VALUE_MIN_MAX:
        v = (run->values[row] - low) / scale;
        break;
    case VALUE_MAX:
        v = run->values[row] / scale;
        break;
    case VALUE_RRF:
        v = 1.0 / (run->param + rank);
        break;
    case VALUE_ISR:
        v = 1.0 / (rank * rank);
        break;
    case VALUE_OVER:
        v = run->param / rank;
        break;
    default:
        v = 0.0;
    }
    if (run->weighted) {
        v = run->weight * v;
    }
    return v;
}

/* The candidate (local number) of the document bytes[0:n] (key: its short word or hash),
   a new one numbered `local` when the query has none yet (*is_new). */
static inline int32_t
table_candidate(Table *table, uint64_t key, const unsigned char *bytes, size_t n, int32_t local,
                int *is_new)
{
    size_t at = table_find(table, key, bytes, n);
    *is_new = !SLOT_TAKEN(table, table->slots[at]);
    if (!*is_new) {
        return SLOT_LOCAL(table->slots[at]);
    }
    if ((size_t)(local + 1) * 2 > table->size) {
        table_grow(table, local);
        at = table_find(table, key, bytes, n);
    }
    table_take(table, at, local);
    table->key[local] = key;
    table->bytes[local] = bytes;
    table->length[local] = (uint32_t)n;
    table->last_run[local] = -1;
    return local;
}

/* Run r's rows of query q, [b, e), into the candidates (query_first: the query's first);
   SCAN_OK, or the problem met. */
static inline int
scan_run(const RunSpec *run, int32_t r, int64_t b, int64_t e, int64_t query_first, Table *table,
         ScanOut *out)
{
    double low, scale;
    int status = run_range(run, b, e, &low, &scale);
    const int64_t *local_rank = NULL;
    if (run->rank_scores && status == SCAN_OK) {
        local_rank = out->ranking->local_rank;
        int ranked = rank_query(run->order, b, e, run->values, run->n_rows, &run->strings,
                                out->ranking, out->ranking->local_rank);
        if (ranked != RANK_OK) {
            return ranked == RANK_BAD_ROW ? SCAN_BAD_ROW
                   : ranked == RANK_NAN  ? SCAN_NAN
                                         : SCAN_BAD_STRING;
        }
    }
    Py_ssize_t chunk = 0;
    for (int64_t p = b; p < e && status == SCAN_OK; p++) {
        int64_t row = run->order ? run->order[p] : p;
        if (UNLIKELY(row < 0 || row >= run->n_rows)) {
            return SCAN_BAD_ROW;
        }
        chunk = find_chunk(&run->strings, row, chunk);
        const int32_t *o = run->strings.offsets[chunk];
        int64_t i = row - run->strings.start[chunk];
        int32_t from = o[i], to = o[i + 1];
        if (UNLIKELY(to < from || from < 0)) {
            return SCAN_BAD_STRING;
        }
        const unsigned char *bytes = run->strings.data[chunk] + from;
        size_t n = (size_t)(to - from);
        uint64_t key = n <= 8 ? short_word(bytes, n, run->strings.limit[chunk])
                              : hash_bytes(bytes, n);
        int is_new;
        int32_t local =
            table_candidate(table, key, bytes, n, (int32_t)(out->next - query_first), &is_new);
        if (is_new) {
            out->first[out->next] = ((int64_t)r << FIRST_SHIFT) | row;
            if (out->total) {
                out->total[out->next] = 0.0;
            }
            if (out->count) {
                out->count[out->next] = 0.0;
            }
            out->next++;
        } else if (table->last_run[local] == r) {
            return SCAN_DUPLICATE;
        }
        table->last_run[local] = r;
        int64_t c = query_first + local;
        if (run->candidate) {
            run->candidate[row] = c;
        }
        if (out->count) {
            out->count[c] += 1.0;
        }
        if (out->total) {
            out->total[c] += row_value(run, row, p, b, low, scale, local_rank);
        }
    }
    return status;
}

/* Query q's rows of every run into the candidates; SCAN_OK, or the problem met. */
static int
scan_query(const RunSpec *runs, Py_ssize_t n_runs, Py_ssize_t q, Table *table, ScanOut *out)
{
    int64_t widest = 0, query_first = out->next;
    for (Py_ssize_t r = 0; r < n_runs; r++) {
        if (runs[r].end[q] - runs[r].begin[q] > widest) {
            widest = runs[r].end[q] - runs[r].begin[q];
        }
    }
    out->per_query[q] = 0;
    if (widest == 0) {
        return SCAN_OK;
    }
    size_t size = 16;
    while (size < (size_t)widest * 3 && size < table->cap) {
        size <<= 1;
    }
    table_reset(table, size);
    int status = SCAN_OK;
    for (Py_ssize_t r = 0; r < n_runs && status == SCAN_OK; r++) {
        int64_t b = runs[r].begin[q], e = runs[r].end[q];
        if (b != e) {
            status = scan_run(&runs[r], (int32_t)r, b, e, query_first, table, out);
        }
    }
    out->per_query[q] = out->next - query_first;
    return status;
}

/* The output buffers, with room for `room` candidates; 0, or -1 with an exception set. */
static int
scan_outputs(PyObject *const objs[4], Py_buffer outs[4], Py_ssize_t q_end, Py_ssize_t room)
{
    if (get_buffer(objs[0], &outs[0], 8, -1, 1, "scan: per_query_out") < 0 ||
        get_buffer(objs[1], &outs[1], 8, -1, 1, "scan: first_out") < 0 ||
        get_optional(objs[2], &outs[2], 8, outs[1].len / 8, 1, "scan: total_out") < 0 ||
        get_optional(objs[3], &outs[3], 8, outs[1].len / 8, 1, "scan: count_out") < 0) {
        return -1;
    }
    if (outs[0].len / 8 < q_end || outs[1].len / 8 < room) {
        PyErr_SetString(PyExc_ValueError, "scan: the outputs have too little room");
        return -1;
    }
    return 0;
}

static PyObject *
cfuse_scan(PyObject *self, PyObject *args)
{
    Py_ssize_t q_begin, q_end;
    PyObject *runs_obj, *objs[4];
    if (!PyArg_ParseTuple(args, "nnO!OOOO:scan", &q_begin, &q_end, &PyList_Type, &runs_obj,
                          &objs[0], &objs[1], &objs[2], &objs[3])) {
        return NULL;
    }
    Py_ssize_t n_runs = PyList_GET_SIZE(runs_obj);
    if (q_begin < 0 || q_end < q_begin || n_runs > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "scan: inconsistent arguments");
        return NULL;
    }
    RunSpec *runs = PyMem_Calloc((size_t)n_runs + 1, sizeof(RunSpec));
    if (runs == NULL) {
        return PyErr_NoMemory();
    }
    Py_ssize_t ready = 0, room_needed, largest;
    Py_buffer outs[4];
    memset(outs, 0, sizeof(outs));
    PyObject *result = NULL;
    Table table;
    memset(&table, 0, sizeof(table));
    RankScratch ranking;
    memset(&ranking, 0, sizeof(ranking));
    int ranked_here = 0;
    for (; ready < n_runs; ready++) {
        if (run_init(&runs[ready], PyList_GET_ITEM(runs_obj, ready), q_end) < 0) {
            goto done;
        }
    }
    /* the rows of these queries, and the most any query has */
    if (scan_rows(runs, n_runs, q_begin, q_end, &room_needed, &largest) < 0 ||
        scan_outputs(objs, outs, q_end, room_needed) < 0) {
        goto done;
    }
    for (Py_ssize_t r = 0; r < n_runs; r++) {
        if (runs[r].n_rows >= ((int64_t)1 << FIRST_SHIFT)) {
            PyErr_SetString(PyExc_ValueError, "scan: a run has too many rows");
            goto done;
        }
    }
    for (Py_ssize_t r = 0; r < n_runs; r++) {
        ranked_here |= runs[r].rank_scores;
    }
    if (table_init(&table, largest) < 0 || (ranked_here && scratch_init(&ranking, largest) < 0)) {
        goto done;
    }
    ScanOut out = {(int64_t *)outs[0].buf, (int64_t *)outs[1].buf, (double *)outs[2].buf,
                   (double *)outs[3].buf, 0, &ranking};
    int status = SCAN_OK;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t q = q_begin; q < q_end && status == SCAN_OK; q++) {
        status = scan_query(runs, n_runs, q, &table, &out);
    }
    Py_END_ALLOW_THREADS
    if (status == SCAN_BAD_ROW) {
        PyErr_SetString(PyExc_ValueError, "scan: a row in order is out of range");
    } else if (status == SCAN_BAD_STRING) {
        PyErr_SetString(PyExc_ValueError, "scan: a string's offsets are not increasing");
    } else if (status == SCAN_NAN) {
        PyErr_SetString(PyExc_ValueError, "scan: a score to rank is NaN");
    } else {
        result = PyLong_FromLongLong(status == SCAN_DUPLICATE ? -1 : out.next);
    }
done:
    table_free(&table);
    scratch_free(&ranking);
    for (int v = 0; v < 4; v++) {
        release(&outs[v]);
    }
    for (Py_ssize_t r = 0; r < ready; r++) {
        run_free(&runs[r]);
    }
    PyMem_Free(runs);
    return result;
}

PyDoc_STRVAR(shift_doc,
"shift(q_begin, q_end, runs, base)\n\n"
"Adds base to the candidate_out of every row of queries q_begin .. q_end - 1 (runs as for\n"
"scan): the candidates one part of the queries numbered from 0 follow the earlier parts'.");

static PyObject *
cfuse_shift(PyObject *self, PyObject *args)
{
    Py_ssize_t q_begin, q_end;
    PyObject *runs_obj;
    long long base;
    if (!PyArg_ParseTuple(args, "nnO!L:shift", &q_begin, &q_end, &PyList_Type, &runs_obj,
                          &base)) {
        return NULL;
    }
    Py_ssize_t n_runs = PyList_GET_SIZE(runs_obj);
    if (q_begin < 0 || q_end < q_begin) {
        PyErr_SetString(PyExc_ValueError, "shift: inconsistent arguments");
        return NULL;
    }
    for (Py_ssize_t r = 0; r < n_runs; r++) {
        RunSpec run;
        if (run_init(&run, PyList_GET_ITEM(runs_obj, r), q_end) < 0) {
            return NULL;
        }
        int bad = run.candidate == NULL;
        if (!bad) {
            Py_BEGIN_ALLOW_THREADS
            for (Py_ssize_t q = q_begin; q < q_end && !bad; q++) {
                int64_t b = run.begin[q], e = run.end[q];
                if (b < 0 || e < b || e > run.n_positions) {
                    bad = 1;
                    break;
                }
                for (int64_t p = b; p < e; p++) {
                    int64_t row = run.order ? run.order[p] : p;
                    if (row < 0 || row >= run.n_rows) {
                        bad = 1;
                        break;
                    }
                    run.candidate[row] += base;
                }
            }
            Py_END_ALLOW_THREADS
        }
        run_free(&run);
        if (bad) {
            PyErr_SetString(PyExc_ValueError, "shift: no candidate_out, or rows out of range");
            return NULL;
        }
    }
    Py_RETURN_NONE;
}

PyDoc_STRVAR(gather_doc,
"gather(first, runs_chunks, offsets_out) -> bytes\n\n"
"The document id of each candidate (first[i]: run << 40 | row, as scan writes it;\n"
"runs_chunks: per run its Arrow string chunks), as one Arrow string buffer: returns the\n"
"bytes and writes the int32 offsets (one per candidate, plus one) to offsets_out.\n"
"OverflowError past 2 GiB.");

static PyObject *
cfuse_gather(PyObject *self, PyObject *args)
{
    PyObject *first_obj, *chunks_obj, *offsets_obj;
    if (!PyArg_ParseTuple(args, "OO!O:gather", &first_obj, &PyList_Type, &chunks_obj,
                          &offsets_obj)) {
        return NULL;
    }
    Py_ssize_t n_runs = PyList_GET_SIZE(chunks_obj);
    Strings *strings = PyMem_Calloc((size_t)n_runs + 1, sizeof(Strings));
    if (strings == NULL) {
        return PyErr_NoMemory();
    }
    Py_buffer views[2];
    memset(views, 0, sizeof(views));
    PyObject *result = NULL;
    Py_ssize_t ready = 0;
    Py_ssize_t *hint = PyMem_Calloc((size_t)n_runs + 1, sizeof(Py_ssize_t));
    if (hint == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (; ready < n_runs; ready++) {
        if (strings_init(&strings[ready], PyList_GET_ITEM(chunks_obj, ready)) < 0) {
            goto done;
        }
    }
    if (get_buffer(first_obj, &views[0], 8, -1, 0, "gather: first") < 0) {
        goto done;
    }
    Py_ssize_t n = views[0].len / 8;
    if (get_buffer(offsets_obj, &views[1], 4, n + 1, 1, "gather: offsets_out") < 0) {
        goto done;
    }
    const int64_t *first = (const int64_t *)views[0].buf;
    const int64_t row_mask = ((int64_t)1 << FIRST_SHIFT) - 1;
    int32_t *offsets = (int32_t *)views[1].buf;
    int status = 0; /* 1: out of range, 2: too long */
    int64_t size = 0;
    Py_BEGIN_ALLOW_THREADS
    offsets[0] = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t r = first[i] >> FIRST_SHIFT, row = first[i] & row_mask;
        if (first[i] < 0 || r < 0 || r >= n_runs || row < 0 || row >= strings[r].start[strings[r].n_chunks]) {
            status = 1;
            break;
        }
        Py_ssize_t c = hint[r] = find_chunk(&strings[r], row, hint[r]);
        const int32_t *o = strings[r].offsets[c];
        int64_t k = row - strings[r].start[c];
        if (o[k + 1] < o[k]) {
            status = 1;
            break;
        }
        size += o[k + 1] - o[k];
        if (size > INT32_MAX) {
            status = 2;
            break;
        }
        offsets[i + 1] = (int32_t)size;
    }
    Py_END_ALLOW_THREADS
    if (status == 1) {
        PyErr_SetString(PyExc_ValueError, "gather: a run or row is out of range");
        goto done;
    }
    if (status == 2) {
        PyErr_SetString(PyExc_OverflowError, "gather: more than 2 GiB of document ids");
        goto done;
    }
    result = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
    if (result == NULL) {
        goto done;
    }
    char *out = PyBytes_AS_STRING(result);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t r = first[i] >> FIRST_SHIFT, row = first[i] & row_mask;
        Py_ssize_t c = hint[r] = find_chunk(&strings[r], row, hint[r]);
        const int32_t *o = strings[r].offsets[c];
        int64_t k = row - strings[r].start[c];
        memcpy(out + offsets[i], strings[r].data[c] + o[k], (size_t)(offsets[i + 1] - offsets[i]));
    }
    Py_END_ALLOW_THREADS
done:
    for (int v = 0; v < 2; v++) {
        release(&views[v]);
    }
    for (Py_ssize_t r = 0; r < ready; r++) {
        strings_free(&strings[r]);
    }
    PyMem_Free(strings);
    PyMem_Free(hint);
    return result;
}

/* ----------------------------------------------------------------------------------------- */
/* ranks: the helpers of rank_query (declared above scan) and ranks()                       */

/* Whether a comes before b in a tie group: document id descending in byte order (an id after
   its own prefix), rows ascending among equal ids. */
static inline int
tied_before(const Tied *a, const Tied *b)
{
    if (a->word != b->word) {
        return a->word > b->word;
    }
    size_t n = a->length < b->length ? a->length : b->length;
    int c = n ? memcmp(a->bytes, b->bytes, n) : 0;
    if (c != 0) {
        return c > 0;
    }
    if (a->length != b->length) {
        return a->length > b->length;
    }
    return a->row < b->row;
}

/* Sorts items[0 .. n) with tied_before (merge sort, stable; *spare* holds n / 2 items). */
static void
sort_tied(Tied *items, Tied *spare, int64_t n)
{
    if (n <= 16) {
        for (int64_t i = 1; i < n; i++) {
            Tied item = items[i];
            int64_t j = i;
            while (j > 0 && tied_before(&item, &items[j - 1])) {
                items[j] = items[j - 1];
                j--;
            }
            items[j] = item;
        }
        return;
    }
    int64_t half = n / 2;
    sort_tied(items, spare, half);
    sort_tied(items + half, spare, n - half);
    if (!tied_before(&items[half], &items[half - 1])) {
        return; /* already in order */
    }
    memcpy(spare, items, (size_t)half * sizeof(Tied));
    int64_t i = 0, j = half, k = 0;
    while (i < half && j < n) {
        items[k++] = tied_before(&items[j], &spare[i]) ? items[j++] : spare[i++];
    }
    while (i < half) {
        items[k++] = spare[i++];
    }
}

#define SHORT_SORT 32
#define BUCKETS_PER_ROW 2 /* buckets of sort_scores per row to sort: few rows share one */

/* Sorts rows[0 .. n) by score descending (insertion sort). */
static void
insertion_sort_scores(Ranked *rows, int64_t n)
{
    for (int64_t i = 1; i < n; i++) {
        Ranked item = rows[i];
        int64_t j = i;
        while (j > 0 && rows[j - 1].score < item.score) {
            rows[j] = rows[j - 1];
            j--;
        }
        rows[j] = item;
    }
}

/* A key of a score whose ascending order is the score's descending order. */
static inline uint64_t
descending_key(double score)
{
    uint64_t bits;
    memcpy(&bits, &score, 8);
    bits = (bits >> 63) ? ~bits : bits | 0x8000000000000000ULL; /* ascending with the score */
    return ~bits;
}

/* Sorts rows[0 .. n) by score descending: a radix sort of descending_key by byte (least
   significant first; bytes every key shares are skipped). Scratch: *spare* n rows, *keys* 2n. */
static void
radix_sort_scores(Ranked *rows, Ranked *spare, uint64_t *keys, int64_t n,
                  uint32_t (*counts)[256])
{
    memset(counts, 0, 8 * 256 * sizeof(uint32_t));
    uint64_t *key_from = keys, *key_to = keys + n;
    for (int64_t i = 0; i < n; i++) {
        uint64_t key = key_from[i] = descending_key(rows[i].score);
        for (int d = 0; d < 8; d++) {
            counts[d][(key >> (8 * d)) & 0xFF]++;
        }
    }
    Ranked *from = rows, *to = spare;
    for (int d = 0; d < 8; d++) {
        uint32_t *count = counts[d];
        if (count[(key_from[0] >> (8 * d)) & 0xFF] == (uint32_t)n) {
            continue; /* every key has this byte */
        }
        uint32_t sum = 0;
        for (int b = 0; b < 256; b++) {
            uint32_t c = count[b];
            count[b] = sum;
            sum += c;
        }
        for (int64_t i = 0; i < n; i++) {
            uint32_t at = count[(key_from[i] >> (8 * d)) & 0xFF]++;
            to[at] = from[i];
            key_to[at] = key_from[i];
        }
        Ranked *swap = from;
        from = to;
        to = swap;
        uint64_t *key_swap = key_from;
        key_from = key_to;
        key_to = key_swap;
    }
    if (from != rows) {
        memcpy(rows, from, (size_t)n * sizeof(Ranked));
    }
}


/* Sorts rows[0 .. n) by score descending, the scores between lo and hi; returns where the
   sorted rows are (s->rows or s->spare). Short lists by insertion; longer ones by one pass
   into n buckets of equal width, bucket (hi - score) * n / (hi - lo): monotone in the score
   (each step rounds monotonically), so the buckets come in order. A bucket of more than
   SHORT_SORT rows is sorted on its own by the radix sort; then one insertion pass over all
   the rows orders the small buckets (a row moves only within its bucket: the pass costs n
   plus the few inversions inside buckets, without a branch per bucket). A range that is not
   finite: the radix sort. */
static Ranked *
sort_scores(RankScratch *s, int64_t n, double lo, double hi)
{
    Ranked *rows = s->rows, *spare = s->spare;
    if (n <= SHORT_SORT) {
        insertion_sort_scores(rows, n);
        return rows;
    }
    int64_t m = BUCKETS_PER_ROW * n;
    double width = hi - lo, scale = (double)m / width;
    if (!(width > 0.0) || !isfinite(width) || !isfinite(scale)) {
        radix_sort_scores(rows, spare, s->keys, n, s->counts);
        return rows;
    }
    uint32_t *bucket = s->bucket, *which = s->which;
    memset(bucket, 0, ((size_t)m + 1) * sizeof(uint32_t));
    int large = 0; /* a bucket of more than SHORT_SORT rows */
    for (int64_t i = 0; i < n; i++) {
        double at = (hi - rows[i].score) * scale;
        uint32_t b = at < (double)m ? (uint32_t)at : (uint32_t)(m - 1);
        which[i] = b;
        large |= ++bucket[b + 1] > SHORT_SORT;
    }
    for (int64_t b = 0; b < m; b++) {
        bucket[b + 1] += bucket[b];
    }
    for (int64_t i = 0; i < n; i++) { /* bucket[b] moves from the bucket's start to its end */
        spare[bucket[which[i]]++] = rows[i];
    }
    if (large) {
        uint32_t start = 0;
        for (int64_t b = 0; b < m; b++) { /* bucket[b] is now the end of bucket b */
            uint32_t stop = bucket[b];
            if (stop - start > SHORT_SORT) {
                radix_sort_scores(spare + start, rows + start, s->keys, stop - start, s->counts);
            }
            start = stop;
        }
    }
    insertion_sort_scores(spare, n);
    return spare;
}

/* The first 8 bytes of an id, zero-padded, as a word whose integer order is their byte order. */
static inline uint64_t
big_endian_word(const unsigned char *bytes, size_t length, const unsigned char *limit)
{
#if defined(WORDS_LITTLE_ENDIAN) && (defined(__GNUC__) || defined(__clang__))
    return __builtin_bswap64(short_word(bytes, length < 8 ? length : 8, limit));
#else
    uint64_t word = 0;
    for (size_t k = 0; k < 8; k++) {
        word = (word << 8) | (k < length ? bytes[k] : 0);
    }
    (void)limit;
    return word;
#endif
}

/* Orders the tie group rows[0 .. n) by document id descending (their .row: positions from b,
   rows of the run through order when given); a RANK_ status. */
static int
order_ties(Ranked *rows, int64_t n, const int64_t *order, int64_t b, const Strings *strings,
           Tied *tied, Tied *spare)
{
    Py_ssize_t chunk = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t row = order ? order[b + rows[i].row] : b + rows[i].row;
        chunk = find_chunk(strings, row, chunk);
        const int32_t *o = strings->offsets[chunk];
        int64_t at = row - strings->start[chunk];
        if (UNLIKELY(o[at + 1] < o[at] || o[at] < 0)) {
            return RANK_BAD_STRING;
        }
        const unsigned char *bytes = strings->data[chunk] + o[at];
        size_t length = (size_t)(o[at + 1] - o[at]);
        tied[i].word = big_endian_word(bytes, length, strings->limit[chunk]);
        tied[i].bytes = bytes;
        tied[i].length = length;
        tied[i].row = rows[i].row;
    }
    sort_tied(tied, spare, n);
    for (int64_t i = 0; i < n; i++) {
        rows[i].row = tied[i].row;
    }
    return RANK_OK;
}

/* Ranks the rows of one query, positions b .. e - 1 of the run's rows (or of order): writes
   local_rank[p - b], the rank of the row at position p; a RANK_ status. */
static int
rank_query(const int64_t *order, int64_t b, int64_t e, const double *scores, int64_t n_rows,
           const Strings *strings, RankScratch *s, int64_t *local_rank)
{
    int64_t n = e - b;
    int sorted = 1;
    double lo = INFINITY, hi = -INFINITY, last = INFINITY;
    for (int64_t i = 0; i < n; i++) {
        int64_t row = order ? order[b + i] : b + i;
        if (UNLIKELY(row < 0 || row >= n_rows)) {
            return RANK_BAD_ROW;
        }
        double score = scores[row];
        if (UNLIKELY(score != score)) {
            return RANK_NAN;
        }
        score = score == 0.0 ? 0.0 : score; /* -0.0 ties with 0.0 */
        s->rows[i].score = score;
        s->rows[i].row = i;
        sorted &= last >= score;
        last = score;
        lo = score < lo ? score : lo;
        hi = score > hi ? score : hi;
    }
    Ranked *rows = sorted ? s->rows : sort_scores(s, n, lo, hi);
    /* the ranks in score order, and whether two scores are equal: without (scores of
       floats, mostly) these are the ranks, else each tie group is ordered and written again */
    int tied = 0;
    if (n > 0) {
        local_rank[rows[0].row] = 1;
    }
    for (int64_t i = 1; i < n; i++) {
        tied |= rows[i].score == rows[i - 1].score;
        local_rank[rows[i].row] = i + 1;
    }
    for (int64_t i = 0; i < n && tied;) {
        int64_t j = i + 1;
        while (j < n && rows[j].score == rows[i].score) {
            j++;
        }
        if (j - i > 1) {
            int status = order_ties(rows + i, j - i, order, b, strings, s->tied,
                                    s->tied_spare);
            if (status != RANK_OK) {
                return status;
            }
            for (int64_t k = i; k < j; k++) {
                local_rank[rows[k].row] = k + 1;
            }
        }
        i = j;
    }
    return RANK_OK;
}

/* The scratch of rank_query for queries of up to *largest* rows; 0, or -1 (no memory). */
static int
scratch_init(RankScratch *s, int64_t largest)
{
    size_t room = (size_t)largest + 1;
    memset(s, 0, sizeof(*s));
    s->rows = PyMem_Malloc(room * sizeof(Ranked));
    s->spare = PyMem_Malloc(room * sizeof(Ranked));
    s->tied = PyMem_Malloc(room * sizeof(Tied));
    s->tied_spare = PyMem_Malloc(room * sizeof(Tied));
    s->which = PyMem_Malloc(room * sizeof(uint32_t));
    s->bucket = PyMem_Malloc((BUCKETS_PER_ROW * room + 1) * sizeof(uint32_t));
    s->keys = PyMem_Malloc(room * 2 * sizeof(uint64_t));
    s->counts = PyMem_Malloc(8 * 256 * sizeof(uint32_t));
    s->local_rank = PyMem_Malloc(room * sizeof(int64_t));
    if (!s->rows || !s->spare || !s->tied || !s->tied_spare || !s->which || !s->bucket ||
        !s->keys || !s->counts || !s->local_rank) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void
scratch_free(RankScratch *s)
{
    PyMem_Free(s->rows);
    PyMem_Free(s->spare);
    PyMem_Free(s->tied);
    PyMem_Free(s->tied_spare);
    PyMem_Free(s->which);
    PyMem_Free(s->bucket);
    PyMem_Free(s->keys);
    PyMem_Free(s->counts);
    PyMem_Free(s->local_rank);
    memset(s, 0, sizeof(*s));
}

PyDoc_STRVAR(ranks_doc,
"ranks(q_begin, q_end, begin, end, order, chunks, scores, rank_out)\n\n"
"Writes rank_out[row] (int64, one per row): the 1-based rank of each row of queries\n"
"q_begin .. q_end - 1 within its query, in trec_eval's order: score descending (float64\n"
"scores, one per row; -0.0 ties with 0.0), ties by document id descending in byte order.\n"
"Query q's rows are begin[q] .. end[q] - 1 (int64) in the run's row order, or positions\n"
"in order (int64 rows; None: the rows themselves); chunks are the Arrow string chunks of\n"
"the document ids [(length, offsets, data, offset), ...]. Each query's rows are sorted\n"
"(nothing to sort when they come in rank order: one pass checks), into buckets of equal\n"
"score width or by a radix sort of the scores' bits, then each group of equal scores by\n"
"its ids. Returns 0, or -1 when a score is NaN (not ranked). The GIL is released: parts\n"
"of the queries may run on several threads.");

static PyObject *
cfuse_ranks(PyObject *self, PyObject *args)
{
    Py_ssize_t q_begin, q_end;
    PyObject *begin_obj, *end_obj, *order_obj, *chunks, *scores_obj, *out_obj;
    if (!PyArg_ParseTuple(args, "nnOOOO!OO:ranks", &q_begin, &q_end, &begin_obj, &end_obj,
                          &order_obj, &PyList_Type, &chunks, &scores_obj, &out_obj)) {
        return NULL;
    }
    Strings strings;
    if (strings_init(&strings, chunks) < 0) {
        return NULL;
    }
    Py_ssize_t n_rows = (Py_ssize_t)strings.start[strings.n_chunks];
    Py_buffer views[5];
    memset(views, 0, sizeof(views));
    RankScratch s;
    memset(&s, 0, sizeof(s));
    PyObject *result = NULL;
    if (get_buffer(begin_obj, &views[0], 8, -1, 0, "ranks: begin") < 0 ||
        get_buffer(end_obj, &views[1], 8, views[0].len / 8, 0, "ranks: end") < 0 ||
        get_optional(order_obj, &views[2], 8, -1, 0, "ranks: order") < 0 ||
        get_buffer(scores_obj, &views[3], 8, n_rows, 0, "ranks: scores") < 0 ||
        get_buffer(out_obj, &views[4], 8, n_rows, 1, "ranks: rank_out") < 0) {
        goto done;
    }
    const int64_t *begin = views[0].buf, *end = views[1].buf, *order = views[2].buf;
    Py_ssize_t n_positions = order ? views[2].len / 8 : n_rows;
    if (q_begin < 0 || q_end < q_begin || q_end > views[0].len / 8) {
        PyErr_SetString(PyExc_ValueError, "ranks: inconsistent arguments");
        goto done;
    }
    int64_t largest = 0;
    for (Py_ssize_t q = q_begin; q < q_end; q++) {
        if (begin[q] < 0 || end[q] < begin[q] || end[q] > n_positions) {
            PyErr_SetString(PyExc_ValueError, "ranks: a query's rows are out of range");
            goto done;
        }
        largest = end[q] - begin[q] > largest ? end[q] - begin[q] : largest;
    }
    if (scratch_init(&s, largest) < 0) {
        goto done;
    }
    const double *scores = views[3].buf;
    int64_t *rank_out = views[4].buf;
    int status = RANK_OK;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t q = q_begin; q < q_end && status == RANK_OK; q++) {
        status = rank_query(order, begin[q], end[q], scores, n_rows, &strings, &s, s.local_rank);
        for (int64_t p = begin[q]; p < end[q] && status == RANK_OK; p++) {
            rank_out[order ? order[p] : p] = s.local_rank[p - begin[q]];
        }
    }
    Py_END_ALLOW_THREADS
    if (status == RANK_BAD_ROW) {
        PyErr_SetString(PyExc_ValueError, "ranks: a row in order is out of range");
    } else if (status == RANK_BAD_STRING) {
        PyErr_SetString(PyExc_ValueError, "ranks: a string's offsets are not increasing");
    } else {
        result = PyLong_FromLong(status == RANK_NAN ? -1 : 0);
    }
done:
    scratch_free(&s);
    for (int v = 0; v < 5; v++) {
        release(&views[v]);
    }
    strings_free(&strings);
    return result;
}

static PyMethodDef cfuse_methods[] = {
    {"scan", cfuse_scan, METH_VARARGS, scan_doc},
    {"shift", cfuse_shift, METH_VARARGS, shift_doc},
    {"gather", cfuse_gather, METH_VARARGS, gather_doc},
    {"ranks", cfuse_ranks, METH_VARARGS, ranks_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef cfuse_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "rankwise.fusion._cfuse",
    .m_doc = "Fusion candidates and sums over runs in one pass (see align.py).",
    .m_size = -1,
    .m_methods = cfuse_methods,
};

PyMODINIT_FUNC
PyInit__cfuse(void)
{
    return PyModule_Create(&cfuse_module);
}
