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
 * document ids into one Arrow string buffer. The GIL is released while they work.
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
    const double *values;
    int64_t *candidate;
    Py_ssize_t n_rows, n_positions;
    int kind, weighted;
    double param, weight;
    Strings strings;
    int strings_held;
} RunSpec;

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
 *  candidate_out or None) */
static int
run_init(RunSpec *r, PyObject *spec, Py_ssize_t n_queries)
{
    memset(r, 0, sizeof(*r));
    PyObject *begin_obj, *end_obj, *order_obj, *chunks, *values_obj, *weight_obj, *candidate_obj;
    if (!PyArg_ParseTuple(spec, "OOOOOidOO", &begin_obj, &end_obj, &order_obj, &chunks,
                          &values_obj, &r->kind, &r->param, &weight_obj, &candidate_obj)) {
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
    r->n_rows = (Py_ssize_t)r->strings.start[r->strings.n_chunks];
    if (get_buffer(begin_obj, &r->begin_view, 8, -1, 0, "scan: begin") < 0 ||
        get_buffer(end_obj, &r->end_view, 8, r->begin_view.len / 8, 0, "scan: end") < 0 ||
        get_optional(order_obj, &r->order_view, 8, -1, 0, "scan: order") < 0 ||
        get_optional(values_obj, &r->values_view, 8, r->n_rows, 0, "scan: values") < 0 ||
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
    if (r->kind != VALUE_NONE && r->values_view.buf == NULL) {
        run_free(r);
        PyErr_SetString(PyExc_ValueError, "scan: this value kind needs values");
        return -1;
    }
    r->begin = (const int64_t *)r->begin_view.buf;
    r->end = (const int64_t *)r->end_view.buf;
    r->order = (const int64_t *)r->order_view.buf;
    r->values = (const double *)r->values_view.buf;
    r->candidate = (int64_t *)r->candidate_view.buf;
    r->n_positions = r->order ? r->order_view.len / 8 : r->n_rows;
    return 0;
}

typedef struct {
    uint64_t key;               /* the bytes of an id of at most 8 bytes, else a hash */
    const unsigned char *bytes; /* the id */
    int64_t candidate;          /* -1: empty */
    uint32_t length;            /* of the id */
    int32_t last_run;           /* the last run that held it */
} Slot;

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

static inline size_t
slot_of(const Slot *slots, size_t mask, uint64_t key, const unsigned char *bytes, size_t n)
{
    size_t at = (size_t)mix(key ^ ((uint64_t)n << 56)) & mask;
    while (slots[at].candidate >= 0) {
        const Slot *t = &slots[at];
        if (t->key == key && t->length == n && (n <= 8 || memcmp(t->bytes, bytes, n) == 0)) {
            return at;
        }
        at = (at + 1) & mask;
    }
    return at;
}

enum { SCAN_OK = 0, SCAN_DUPLICATE = 1, SCAN_BAD_ROW = 2, SCAN_BAD_STRING = 3 };

PyDoc_STRVAR(scan_doc,
"scan(q_begin, q_end, runs, candidate_query_out, first_run_out, first_row_out, total_out,\n"
"     count_out) -> int\n\n"
"The candidates of queries q_begin .. q_end - 1, numbered from 0 query by query in order of\n"
"first appearance (runs in order, each run's rows in order). Each run is a tuple (begin,\n"
"end, order, chunks, values, kind, param, weight, candidate_out): query q's rows are\n"
"begin[q] .. end[q] - 1 (int64, one per query) in the run's row order, or positions in\n"
"order (int64 rows; None: the rows themselves); chunks are the Arrow string chunks of its\n"
"document ids [(length, offsets, data, offset), ...]; values (float64 per row, or None)\n"
"give each row's value by kind (0 none, 1 the value, 2 min-max and 3 max normalised over\n"
"the query's rows of this run, 4 1 / (param + v), 5 1 / v^2, 6 param / v), times weight\n"
"unless it is None; candidate_out (int64 per row, or None) receives each row's candidate.\n"
"Per candidate: its query, the run and row where it first appears, the total of its\n"
"values (added run after run, from 0.0) and the number of runs holding it (float64),\n"
"each output with room for one per row of these queries (total_out and count_out may be\n"
"None). Returns the number of candidates, or -1 when a run holds a document twice for a\n"
"query. Parts of the queries may run on several threads (the GIL is released).");

static PyObject *
cfuse_scan(PyObject *self, PyObject *args)
{
    Py_ssize_t q_begin, q_end;
    PyObject *runs_obj, *cq_obj, *fr_obj, *frow_obj, *total_obj, *count_obj;
    if (!PyArg_ParseTuple(args, "nnO!OOOOO:scan", &q_begin, &q_end, &PyList_Type, &runs_obj,
                          &cq_obj, &fr_obj, &frow_obj, &total_obj, &count_obj)) {
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
    Py_ssize_t ready = 0;
    Py_buffer outs[5];
    memset(outs, 0, sizeof(outs));
    PyObject *result = NULL;
    Slot *slots = NULL, *spare = NULL;
    for (; ready < n_runs; ready++) {
        if (run_init(&runs[ready], PyList_GET_ITEM(runs_obj, ready), q_end) < 0) {
            goto done;
        }
    }
    /* the rows of these queries, and the most any query has */
    Py_ssize_t room_needed = 0, largest = 0;
    for (Py_ssize_t q = q_begin; q < q_end; q++) {
        Py_ssize_t rows = 0;
        for (Py_ssize_t r = 0; r < n_runs; r++) {
            int64_t b = runs[r].begin[q], e = runs[r].end[q];
            if (b < 0 || e < b || e > runs[r].n_positions) {
                PyErr_SetString(PyExc_ValueError, "scan: a query's rows are out of range");
                goto done;
            }
            rows += (Py_ssize_t)(e - b);
        }
        room_needed += rows;
        if (rows > largest) {
            largest = rows;
        }
    }
    if (get_buffer(cq_obj, &outs[0], 8, -1, 1, "scan: candidate_query_out") < 0 ||
        get_buffer(fr_obj, &outs[1], 8, outs[0].len / 8, 1, "scan: first_run_out") < 0 ||
        get_buffer(frow_obj, &outs[2], 8, outs[0].len / 8, 1, "scan: first_row_out") < 0 ||
        get_optional(total_obj, &outs[3], 8, outs[0].len / 8, 1, "scan: total_out") < 0 ||
        get_optional(count_obj, &outs[4], 8, outs[0].len / 8, 1, "scan: count_out") < 0) {
        goto done;
    }
    if (outs[0].len / 8 < room_needed) {
        PyErr_SetString(PyExc_ValueError, "scan: the outputs have too little room");
        goto done;
    }
    int64_t *candidate_query = (int64_t *)outs[0].buf, *first_run = (int64_t *)outs[1].buf;
    int64_t *first_row = (int64_t *)outs[2].buf;
    double *total = (double *)outs[3].buf, *count = (double *)outs[4].buf;
    size_t cap = 16;
    while (cap < (size_t)largest * 2) {
        cap <<= 1;
    }
    slots = PyMem_Malloc(cap * sizeof(Slot));
    spare = PyMem_Malloc(cap * sizeof(Slot));
    if (slots == NULL || spare == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int status = SCAN_OK;
    int64_t next = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t q = q_begin; q < q_end && status == SCAN_OK; q++) {
        int64_t widest = 0, query_first = next;
        for (Py_ssize_t r = 0; r < n_runs; r++) {
            if (runs[r].end[q] - runs[r].begin[q] > widest) {
                widest = runs[r].end[q] - runs[r].begin[q];
            }
        }
        if (widest == 0) {
            continue;
        }
        size_t size = 16;
        while (size < (size_t)widest * 2) {
            size <<= 1;
        }
        for (size_t t = 0; t < size; t++) {
            slots[t].candidate = -1;
        }
        for (Py_ssize_t r = 0; r < n_runs && status == SCAN_OK; r++) {
            RunSpec *run = &runs[r];
            int64_t b = run->begin[q], e = run->end[q];
            if (b == e) {
                continue;
            }
            double low = 0.0, scale = 1.0;
            if (run->kind == VALUE_MIN_MAX || run->kind == VALUE_MAX) {
                double lo = INFINITY, hi = -INFINITY;
                for (int64_t p = b; p < e; p++) {
                    int64_t row = run->order ? run->order[p] : p;
                    if (row < 0 || row >= run->n_rows) {
                        status = SCAN_BAD_ROW;
                        break;
                    }
                    double v = run->values[row];
                    lo = v < lo ? v : lo;
                    hi = v > hi ? v : hi;
                }
                if (run->kind == VALUE_MIN_MAX) {
                    low = lo;
                    scale = hi - lo;
                } else {
                    scale = hi;
                }
                scale = scale < FLOOR ? FLOOR : scale;
            }
            Py_ssize_t chunk = 0;
            for (int64_t p = b; p < e && status == SCAN_OK; p++) {
                int64_t row = run->order ? run->order[p] : p;
                if (UNLIKELY(row < 0 || row >= run->n_rows)) {
                    status = SCAN_BAD_ROW;
                    break;
                }
                chunk = find_chunk(&run->strings, row, chunk);
                const int32_t *o = run->strings.offsets[chunk];
                int64_t i = row - run->strings.start[chunk];
                int32_t from = o[i], to = o[i + 1];
                if (UNLIKELY(to < from || from < 0)) {
                    status = SCAN_BAD_STRING;
                    break;
                }
                const unsigned char *bytes = run->strings.data[chunk] + from;
                size_t n = (size_t)(to - from);
                uint64_t key = n <= 8 ? short_word(bytes, n, run->strings.limit[chunk])
                                      : hash_bytes(bytes, n);
                size_t mask = size - 1;
                size_t at = slot_of(slots, mask, key, bytes, n);
                Slot *slot = &slots[at];
                if (slot->candidate < 0) {
                    if ((size_t)(next - query_first + 1) * 2 > size) {
                        /* grow: twice the slots, everything inserted again */
                        memcpy(spare, slots, size * sizeof(Slot));
                        size_t old = size;
                        size <<= 1;
                        mask = size - 1;
                        for (size_t t = 0; t < size; t++) {
                            slots[t].candidate = -1;
                        }
                        for (size_t t = 0; t < old; t++) {
                            if (spare[t].candidate >= 0) {
                                size_t to_at = slot_of(slots, mask, spare[t].key, spare[t].bytes,
                                                       spare[t].length);
                                slots[to_at] = spare[t];
                            }
                        }
                        at = slot_of(slots, mask, key, bytes, n);
                        slot = &slots[at];
                    }
                    slot->key = key;
                    slot->bytes = bytes;
                    slot->length = (uint32_t)n;
                    slot->candidate = next;
                    slot->last_run = -1;
                    candidate_query[next] = q;
                    first_run[next] = r;
                    first_row[next] = row;
                    if (total) {
                        total[next] = 0.0;
                    }
                    if (count) {
                        count[next] = 0.0;
                    }
                    next++;
                } else if (slot->last_run == (int32_t)r) {
                    status = SCAN_DUPLICATE;
                    break;
                }
                slot->last_run = (int32_t)r;
                int64_t c = slot->candidate;
                if (run->candidate) {
                    run->candidate[row] = c;
                }
                if (count) {
                    count[c] += 1.0;
                }
                if (total) {
                    double v;
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
                        v = 1.0 / (run->param + run->values[row]);
                        break;
                    case VALUE_ISR:
                        v = 1.0 / (run->values[row] * run->values[row]);
                        break;
                    case VALUE_OVER:
                        v = run->param / run->values[row];
                        break;
                    default:
                        v = 0.0;
                    }
                    if (run->weighted) {
                        v = run->weight * v;
                    }
                    total[c] += v;
                }
            }
        }
    }
    Py_END_ALLOW_THREADS
    if (status == SCAN_BAD_ROW) {
        PyErr_SetString(PyExc_ValueError, "scan: a row in order is out of range");
    } else if (status == SCAN_BAD_STRING) {
        PyErr_SetString(PyExc_ValueError, "scan: a string's offsets are not increasing");
    } else {
        result = PyLong_FromLongLong(status == SCAN_DUPLICATE ? -1 : next);
    }
done:
    PyMem_Free(slots);
    PyMem_Free(spare);
    for (int v = 0; v < 5; v++) {
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
"gather(first_run, first_row, runs_chunks, offsets_out) -> bytes\n\n"
"The document id of each candidate (row first_row[i] of run first_run[i]; runs_chunks: per\n"
"run its Arrow string chunks), as one Arrow string buffer: returns the bytes and writes\n"
"the int32 offsets (one per candidate, plus one) to offsets_out. OverflowError past 2 GiB.");

static PyObject *
cfuse_gather(PyObject *self, PyObject *args)
{
    PyObject *run_obj, *row_obj, *chunks_obj, *offsets_obj;
    if (!PyArg_ParseTuple(args, "OOO!O:gather", &run_obj, &row_obj, &PyList_Type, &chunks_obj,
                          &offsets_obj)) {
        return NULL;
    }
    Py_ssize_t n_runs = PyList_GET_SIZE(chunks_obj);
    Strings *strings = PyMem_Calloc((size_t)n_runs + 1, sizeof(Strings));
    if (strings == NULL) {
        return PyErr_NoMemory();
    }
    Py_buffer views[3];
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
    if (get_buffer(run_obj, &views[0], 8, -1, 0, "gather: first_run") < 0) {
        goto done;
    }
    Py_ssize_t n = views[0].len / 8;
    if (get_buffer(row_obj, &views[1], 8, n, 0, "gather: first_row") < 0 ||
        get_buffer(offsets_obj, &views[2], 4, n + 1, 1, "gather: offsets_out") < 0) {
        goto done;
    }
    const int64_t *runs = (const int64_t *)views[0].buf, *rows = (const int64_t *)views[1].buf;
    int32_t *offsets = (int32_t *)views[2].buf;
    int status = 0; /* 1: out of range, 2: too long */
    int64_t size = 0;
    Py_BEGIN_ALLOW_THREADS
    offsets[0] = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t r = runs[i], row = rows[i];
        if (r < 0 || r >= n_runs || row < 0 || row >= strings[r].start[strings[r].n_chunks]) {
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
        int64_t r = runs[i], row = rows[i];
        Py_ssize_t c = hint[r] = find_chunk(&strings[r], row, hint[r]);
        const int32_t *o = strings[r].offsets[c];
        int64_t k = row - strings[r].start[c];
        memcpy(out + offsets[i], strings[r].data[c] + o[k], (size_t)(offsets[i + 1] - offsets[i]));
    }
    Py_END_ALLOW_THREADS
done:
    for (int v = 0; v < 3; v++) {
        release(&views[v]);
    }
    for (Py_ssize_t r = 0; r < ready; r++) {
        strings_free(&strings[r]);
    }
    PyMem_Free(strings);
    PyMem_Free(hint);
    return result;
}

static PyMethodDef cfuse_methods[] = {
    {"scan", cfuse_scan, METH_VARARGS, scan_doc},
    {"shift", cfuse_shift, METH_VARARGS, shift_doc},
    {"gather", cfuse_gather, METH_VARARGS, gather_doc},
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
