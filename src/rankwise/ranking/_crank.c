/*
 * rankwise.ranking._crank: the judged documents of a run whose rows are
 * grouped by query, and their ranks, without sorting the run.
 *
 * Per block of one query: the judged documents of the query are hashed into
 * a small table (it stays in the L1 cache), each row of the block probes it,
 * and the rank of each judged row found is counted: 1 + the rows of its block
 * that sort before it (trec_eval's order: score descending, ties by docno
 * descending in byte order). The scores of the block's judged rows are
 * sorted (a few of them) and every row is placed among them by a branch-free
 * search; docnos are compared only for rows whose score equals a judged
 * row's score. Blocks of queries without judgments are skipped. The GIL is
 * released; Python threads work on disjoint ranges of blocks.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rankwise_chunks.h"
#include "rankwise_ranks.h"
#include "rankwise_strings.h"

typedef struct {
    StringChunk *chunks;
    Py_ssize_t n_chunks;
    Py_ssize_t last; /* the chunk of the last lookup */
} Docs;

/* The document id of `row`; *limit: the end of its data buffer. */
static inline const unsigned char *
doc_at(Docs *docs, Py_ssize_t row, size_t *length, const unsigned char **limit)
{
    Py_ssize_t c = docs->last;
    if (row < docs->chunks[c].first_row || row >= docs->chunks[c].first_row + docs->chunks[c].length) {
        Py_ssize_t low = 0, high = docs->n_chunks - 1;
        while (low < high) {
            Py_ssize_t middle = (low + high + 1) / 2;
            if (docs->chunks[middle].first_row <= row) {
                low = middle;
            }
            else {
                high = middle - 1;
            }
        }
        c = docs->last = low;
    }
    const StringChunk *chunk = &docs->chunks[c];
    const int32_t *o = (const int32_t *)chunk->offsets.buf + chunk->offset;
    Py_ssize_t i = row - chunk->first_row;
    int32_t a = o[i], b = o[i + 1];
    if (a < 0 || b < a || b > chunk->data.len) { /* malformed offsets: never read past them */
        a = b = 0;
    }
    *length = (size_t)(b - a);
    *limit = (const unsigned char *)chunk->data.buf + chunk->data.len;
    return (const unsigned char *)chunk->data.buf + a;
}

enum { RANK_DONE = 0, RANK_OVER_BUDGET = 1, RANK_NO_MEMORY = 2, RANK_FULL = 3 };

typedef struct {
    /* the run */
    const int64_t *bounds; /* first row of each block, then the number of rows */
    const int64_t *block_query; /* per block, its query in the judgments (-1: none) */
    int64_t first_block, last_block;
    const double *scores;
    Docs docs;
    /* the judgments, grouped by query */
    JudgedIds judged;
    int64_t budget; /* docno comparisons allowed */
    int64_t spent;
    /* scratch */
    JudgedTable table; /* the judged ids of the block's query */
    RankScratch counts;
    /* out: per judged row of the run */
    int64_t capacity, found;
    int64_t *row, *judgment, *rank, *above, *size, *block;
} Work;

/* The rows [start, end) of a block whose document is judged, written from w->found on. */
static inline int
find_block_rows(Work *w, int64_t start, int64_t end)
{
    int64_t t = w->found;
    for (int64_t r = start; r < end;) {
        /* the rows of this chunk of document ids: read in place */
        size_t n;
        const unsigned char *limit;
        doc_at(&w->docs, r, &n, &limit);
        const StringChunk *chunk = &w->docs.chunks[w->docs.last];
        const int32_t *o = (const int32_t *)chunk->offsets.buf + chunk->offset - chunk->first_row;
        const unsigned char *data = (const unsigned char *)chunk->data.buf;
        int64_t stop = chunk->first_row + chunk->length;
        if (stop > end) {
            stop = end;
        }
        for (; r < stop; r++) {
            int32_t a = o[r], z = o[r + 1];
            if (UNLIKELY(a < 0 || z < a || z > chunk->data.len)) {
                a = z = 0; /* malformed offsets: never read past them */
            }
            const unsigned char *s = data + a;
            n = (size_t)(z - a);
            int64_t judgment =
                judged_table_find(&w->table, &w->judged, hash_token(s, n, limit), s, n);
            if (judgment >= 0) {
                if (UNLIKELY(t == w->capacity)) { /* a document twice in a block */
                    w->found = t;
                    return RANK_FULL;
                }
                w->row[t] = r;
                w->judgment[t] = judgment;
                t++;
            }
        }
    }
    w->found = t;
    return RANK_DONE;
}

/* Docnos break the ties of the k judged rows: a greater docno comes first. */
static inline void
break_ties(Work *w, int64_t start, int64_t k)
{
    RankScratch *c = &w->counts;
    const double *values = c->values;
    for (int64_t e = 0; e < c->n_tied; e += 2) {
        int64_t r = start + c->tied[e], p = c->tied[e + 1];
        if (c->equal[p] < 2) {
            continue;
        }
        size_t n;
        const unsigned char *limit;
        const unsigned char *doc = doc_at(&w->docs, r, &n, &limit);
        for (int64_t j = p; j < k && values[j] == values[p]; j++) {
            size_t m;
            const unsigned char *other = doc_at(&w->docs, w->row[c->sorted[j].target], &m, &limit);
            c->after[j] += doc_greater(doc, n, other, m);
        }
    }
}

/* Rank the k judged rows found in block b (rows [start, end)), written from w->row[t0] on. */
static inline int
rank_block(Work *w, int64_t b, int64_t start, int64_t end, int64_t t0, int64_t k)
{
    RankScratch *c = &w->counts;
    if (rank_scratch_reserve(c, k) < 0 || rank_scratch_rows(c, end - start) < 0) {
        return RANK_NO_MEMORY;
    }
    for (int64_t i = 0; i < k; i++) {
        c->sorted[i].value = w->scores[w->row[t0 + i]];
        c->sorted[i].target = t0 + i;
    }
    int64_t tie_work = rank_counts(c, w->scores + start, end - start, k);
    if (tie_work) {
        w->spent += tie_work;
        if (w->spent > w->budget) {
            return RANK_OVER_BUDGET;
        }
        break_ties(w, start, k);
    }
    int64_t higher = 0; /* rows scoring above values[i] */
    for (int64_t i = k - 1; i >= 0; i--) {
        higher += c->below[i + 1];
        int64_t target = c->sorted[i].target;
        w->above[target] = higher;
        w->size[target] = c->equal[i];
        w->rank[target] = higher + c->after[i] + 1;
        w->block[target] = b;
    }
    return RANK_DONE;
}

/* Find and rank the judged rows of blocks [first_block, last_block); blocks of unjudged
   queries are skipped. The outcome; w->found: the judged rows written. */
static int
find_and_rank(Work *w)
{
    int outcome = RANK_DONE;
    w->found = 0;
    for (int64_t b = w->first_block; b < w->last_block && outcome == RANK_DONE; b++) {
        int64_t query = w->block_query[b];
        if (query < 0) {
            continue;
        }
        int64_t judged = w->judged.query_offsets[query + 1] - w->judged.query_offsets[query];
        if (judged == 0) {
            continue;
        }
        if (judged_table_reserve(&w->table, (size_t)judged) < 0) {
            outcome = RANK_NO_MEMORY;
            break;
        }
        judged_table_fill(&w->table, &w->judged, query, hash_token);
        int64_t start = w->bounds[b], end = w->bounds[b + 1], t0 = w->found;
        outcome = find_block_rows(w, start, end);
        if (outcome == RANK_DONE && w->found > t0) {
            outcome = rank_block(w, b, start, end, t0, w->found - t0);
        }
    }
    free(w->table.slots);
    rank_scratch_free(&w->counts);
    return outcome;
}

PyDoc_STRVAR(judged_ranks_doc,
"judged_ranks(bounds, block_query, scores, docs, query_offsets, judgments,\n"
"             judged_doc, judged_ids, first_block, last_block, budget,\n"
"             row_out, judgment_out, rank_out, above_out, size_out, block_out, /)\n"
"--\n\n"
"Find the judged rows of blocks [first_block, last_block) of a run and rank them.\n\n"
"bounds (int64): the first row of each block of one query, then the number of\n"
"rows; block_query (int64): per block, its query in the judgments or -1;\n"
"scores (float64) per row; docs: the run's document ids, a list of Arrow string\n"
"chunks (length, offsets, data, offset). The judgments, grouped by query: the\n"
"judgments of query q are rows judgments[query_offsets[q]:query_offsets[q+1]]\n"
"(int64), judged_doc (int32) gives the document of each row as an index into\n"
"judged_ids, one Arrow string chunk. Writes, per judged row found (in row\n"
"order), its row, its judgment, its rank, the rows of its block scoring\n"
"strictly higher, the rows scoring the same (itself included) and its block.\n"
"Returns their count; -1 when breaking ties would compare more than `budget`\n"
"docnos, -2 when the outputs are full (a document twice in a block): the\n"
"caller then takes the general path.");

#define N_OUTPUTS 6

/* The blocks of the run: bounds ascending from 0, scores for their rows. 0, or -1 with an
   exception set. */
static int
check_blocks(const Py_buffer *in, Py_ssize_t first_block, Py_ssize_t last_block)
{
    Py_ssize_t n_blocks = in[0].len / 8 - 1;
    const int64_t *bounds = (const int64_t *)in[0].buf;
    if (n_blocks < 0 || in[1].len < n_blocks * 8 || first_block < 0 ||
        last_block < first_block || last_block > n_blocks) {
        PyErr_SetString(PyExc_ValueError, "judged_ranks: bad blocks");
        return -1;
    }
    if (bounds[0] != 0 || in[2].len < bounds[n_blocks] * 8) {
        PyErr_SetString(PyExc_ValueError, "judged_ranks: blocks and scores do not match");
        return -1;
    }
    for (Py_ssize_t b = 0; b < n_blocks; b++) {
        if (bounds[b] > bounds[b + 1]) {
            PyErr_SetString(PyExc_ValueError, "judged_ranks: block bounds not ascending");
            return -1;
        }
    }
    return 0;
}

/* Each block's query (in[1]) below n_queries. 0, or -1 with an exception set. */
static int
check_block_queries(const Py_buffer *in, Py_ssize_t n_queries)
{
    Py_ssize_t n_blocks = in[0].len / 8 - 1;
    const int64_t *block_query = (const int64_t *)in[1].buf;
    for (Py_ssize_t b = 0; b < n_blocks; b++) {
        if (block_query[b] >= n_queries) {
            PyErr_SetString(PyExc_ValueError, "judged_ranks: a block's query out of range");
            return -1;
        }
    }
    return 0;
}

/* The query offsets (in[3]): from 0, ascending, within the judgments listed (in[4]). The
   number of queries, or -1 with an exception set. */
static Py_ssize_t
check_query_offsets(const Py_buffer *in)
{
    Py_ssize_t n_queries = in[3].len / 8 - 1;
    const int64_t *query_offsets = (const int64_t *)in[3].buf;
    if (n_queries < 0 || query_offsets[0] != 0 || query_offsets[n_queries] > in[4].len / 8) {
        PyErr_SetString(PyExc_ValueError, "judged_ranks: bad query offsets");
        return -1;
    }
    for (Py_ssize_t q = 0; q < n_queries; q++) {
        if (query_offsets[q] > query_offsets[q + 1]) {
            PyErr_SetString(PyExc_ValueError, "judged_ranks: query offsets not ascending");
            return -1;
        }
    }
    return n_queries;
}

/* Each judgment listed (in[4]) a row of judged_doc (in[5]), each of a judged id. 0, or -1. */
static int
check_judgments(const Py_buffer *in, const StringChunk *ids)
{
    const int64_t *judgments = (const int64_t *)in[4].buf;
    const int32_t *judged_doc = (const int32_t *)in[5].buf;
    Py_ssize_t n_listed = in[4].len / 8, n_judgments = in[5].len / 4;
    for (Py_ssize_t j = 0; j < n_listed; j++) {
        if (judgments[j] < 0 || judgments[j] >= n_judgments || judged_doc[judgments[j]] < 0 ||
            judged_doc[judgments[j]] >= ids->length) {
            PyErr_SetString(PyExc_ValueError, "judged_ranks: a judgment out of range");
            return -1;
        }
    }
    return 0;
}

/* The run's document id chunks, numbered from row 0; as many rows as scores. 0, or -1. */
static int
read_doc_chunks(PyObject *chunk_list, StringChunk *chunks, int64_t n_rows)
{
    Py_ssize_t row;
    if (chunks_from_list(chunk_list, chunks, "judged_ranks", &row) < 0) {
        return -1;
    }
    if (row != n_rows) {
        PyErr_SetString(PyExc_ValueError, "judged_ranks: document ids and scores differ in length");
        return -1;
    }
    return 0;
}

static PyObject *
crank_judged_ranks(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *inputs[7], *chunk_list, *ids_tuple, *outputs[N_OUTPUTS];
    Py_ssize_t first_block, last_block;
    long long budget;
    if (!PyArg_ParseTuple(args, "OOOO!OOOO!nnLOOOOOO:judged_ranks", &inputs[0], &inputs[1],
                          &inputs[2], &PyList_Type, &chunk_list, &inputs[3], &inputs[4],
                          &inputs[5], &PyTuple_Type, &ids_tuple, &first_block, &last_block,
                          &budget, &outputs[0], &outputs[1], &outputs[2], &outputs[3],
                          &outputs[4], &outputs[5])) {
        return NULL;
    }
    /* inputs: 0 bounds, 1 block_query, 2 scores, 3 query_offsets, 4 judgments, 5 judged_doc */
    Py_buffer in[6], out[N_OUTPUTS];
    int held_in = 0, held_out = 0;
    StringChunk ids;
    memset(&ids, 0, sizeof ids);
    Py_ssize_t n_chunks = PyList_GET_SIZE(chunk_list);
    StringChunk *chunks = PyMem_Calloc((size_t)(n_chunks > 0 ? n_chunks : 1), sizeof(StringChunk));
    PyObject *result = NULL;
    if (chunks == NULL) {
        return PyErr_NoMemory();
    }
    for (int i = 0; i < 6; i++) {
        if (PyObject_GetBuffer(inputs[i], &in[i], PyBUF_SIMPLE) < 0) {
            goto done;
        }
        held_in++;
    }
    if (check_blocks(in, first_block, last_block) < 0) {
        goto done;
    }
    Py_ssize_t n_queries = check_query_offsets(in);
    if (n_queries < 0 || check_block_queries(in, n_queries) < 0 ||
        chunk_from_tuple(ids_tuple, &ids, "judged_ranks") < 0 || check_judgments(in, &ids) < 0) {
        goto done;
    }
    const int64_t *bounds = (const int64_t *)in[0].buf;
    int64_t n_rows = bounds[in[0].len / 8 - 1];
    if (read_doc_chunks(chunk_list, chunks, n_rows) < 0) {
        goto done;
    }
    Py_ssize_t capacity = PY_SSIZE_T_MAX;
    for (int i = 0; i < N_OUTPUTS; i++) {
        if (PyObject_GetBuffer(outputs[i], &out[i], PyBUF_WRITABLE) < 0) {
            goto done;
        }
        held_out++;
        if (out[i].len / 8 < capacity) {
            capacity = out[i].len / 8;
        }
    }
    if (n_rows == 0) {
        result = PyLong_FromLong(0);
        goto done;
    }
    const int32_t *id_offsets = (const int32_t *)ids.offsets.buf + ids.offset;
    Work work = {
        .bounds = bounds,
        .block_query = (const int64_t *)in[1].buf,
        .first_block = first_block,
        .last_block = last_block,
        .scores = (const double *)in[2].buf,
        .docs = {chunks, n_chunks, 0},
        .judged = {
            .query_offsets = (const int64_t *)in[3].buf,
            .judgments = (const int64_t *)in[4].buf,
            .judged_doc = (const int32_t *)in[5].buf,
            .id_offsets = id_offsets,
            .id_data = (const unsigned char *)ids.data.buf,
            .id_limit = (const unsigned char *)ids.data.buf + ids.data.len,
        },
        .budget = budget,
        .capacity = capacity,
        .row = (int64_t *)out[0].buf,
        .judgment = (int64_t *)out[1].buf,
        .rank = (int64_t *)out[2].buf,
        .above = (int64_t *)out[3].buf,
        .size = (int64_t *)out[4].buf,
        .block = (int64_t *)out[5].buf,
    };
    int outcome;
    Py_BEGIN_ALLOW_THREADS
    outcome = find_and_rank(&work);
    Py_END_ALLOW_THREADS
    if (outcome == RANK_NO_MEMORY) {
        PyErr_NoMemory();
        goto done;
    }
    result = PyLong_FromSsize_t(outcome == RANK_DONE       ? (Py_ssize_t)work.found
                                : outcome == RANK_OVER_BUDGET ? -1
                                                              : -2);
done:
    for (Py_ssize_t c = 0; c < n_chunks; c++) {
        chunk_release(&chunks[c]);
    }
    PyMem_Free(chunks);
    chunk_release(&ids);
    for (int i = 0; i < held_in; i++) {
        PyBuffer_Release(&in[i]);
    }
    for (int i = 0; i < held_out; i++) {
        PyBuffer_Release(&out[i]);
    }
    return result;
}

/* ------------------------------------------------------------------------------------
 * quicksort_order: the order numba's np.argsort (kind "quicksort", numba/misc/quicksort.py)
 * gives each segment of a float64 array, which is how ranx orders a query's documents
 * (the keys are the negated scores). The same algorithm, so the same order: insertion sort
 * (stable) for a part of at most 15 elements; else the median of the first, middle and
 * last elements (swapped into order) as pivot, stashed at the end, scans from both ends
 * swapping the elements not below / not above it until they meet, the pivot put where
 * the left scan stopped, the larger part set aside and the smaller one sorted first.
 * ranking/_quicksort.py computes the same order with numpy where this module is absent.
 * ------------------------------------------------------------------------------------ */

#define QS_SMALL 15
#define QS_STACK 128

static void
qs_insertion(const double *v, int64_t *r, Py_ssize_t low, Py_ssize_t high)
{
    for (Py_ssize_t i = low + 1; i <= high; i++) {
        int64_t k = r[i];
        double x = v[k];
        Py_ssize_t j = i;
        while (j > low && x < v[r[j - 1]]) {
            r[j] = r[j - 1];
            j--;
        }
        r[j] = k;
    }
}

static inline void
qs_swap(int64_t *r, Py_ssize_t a, Py_ssize_t b)
{
    int64_t t = r[a];
    r[a] = r[b];
    r[b] = t;
}

static Py_ssize_t
qs_partition(const double *v, int64_t *r, Py_ssize_t low, Py_ssize_t high)
{
    Py_ssize_t mid = (low + high) >> 1;
    if (v[r[mid]] < v[r[low]]) {
        qs_swap(r, low, mid);
    }
    if (v[r[high]] < v[r[mid]]) {
        qs_swap(r, high, mid);
    }
    if (v[r[mid]] < v[r[low]]) {
        qs_swap(r, low, mid);
    }
    double pivot = v[r[mid]];
    qs_swap(r, high, mid);
    Py_ssize_t i = low, j = high - 1;
    for (;;) {
        while (i < high && v[r[i]] < pivot) {
            i++;
        }
        while (j >= low && pivot < v[r[j]]) {
            j--;
        }
        if (i >= j) {
            break;
        }
        qs_swap(r, i, j);
        i++;
        j--;
    }
    qs_swap(r, i, high);
    return i;
}

static void
qs_segment(const double *v, int64_t *r, Py_ssize_t first, Py_ssize_t last)
{
    Py_ssize_t lows[QS_STACK], highs[QS_STACK];
    int n = 1;
    lows[0] = first;
    highs[0] = last;
    while (n > 0) {
        n--;
        Py_ssize_t low = lows[n], high = highs[n];
        while (high - low >= QS_SMALL) {
            Py_ssize_t i = qs_partition(v, r, low, high);
            /* the larger part waits: at most log2(length) parts wait at once */
            if (high - i > i - low) {
                if (high > i) {
                    lows[n] = i + 1;
                    highs[n] = high;
                    n++;
                }
                high = i - 1;
            } else {
                if (i > low) {
                    lows[n] = low;
                    highs[n] = i - 1;
                    n++;
                }
                low = i + 1;
            }
        }
        qs_insertion(v, r, low, high);
    }
}

PyDoc_STRVAR(quicksort_order_doc,
"quicksort_order(values, starts, order, /)\n"
"--\n\n"
"Sort order (int64, position -> index into values) in place, segment by segment\n"
"(starts: int64, the first position of each; the segments cover order), by values\n"
"(float64, no NaN) as numba's np.argsort(kind='quicksort') sorts: the same order, ties\n"
"included. Each segment's indices must lie in the segment.");

static PyObject *
crank_quicksort_order(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *objs[3];
    if (!PyArg_ParseTuple(args, "OOO:quicksort_order", &objs[0], &objs[1], &objs[2])) {
        return NULL;
    }
    Py_buffer b[3];
    int held = 0;
    PyObject *result = NULL;
    for (int i = 0; i < 3; i++) {
        if (PyObject_GetBuffer(objs[i], &b[i], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT |
                                                   (i == 2 ? PyBUF_WRITABLE : 0)) < 0) {
            goto done;
        }
        held++;
        const char *f = b[i].format ? b[i].format : "B";
        if (b[i].itemsize != 8 || (i == 0 ? f[0] != 'd' : (f[0] != 'l' && f[0] != 'q'))) {
            PyErr_SetString(PyExc_TypeError,
                            "quicksort_order: values must be float64, starts and order int64");
            goto done;
        }
    }
    Py_ssize_t n = b[2].len / 8, n_values = b[0].len / 8, n_segments = b[1].len / 8;
    const double *values = b[0].buf;
    const int64_t *starts = b[1].buf;
    int64_t *order = b[2].buf;
    int bad = 0;
    for (Py_ssize_t s = 0; s < n_segments && !bad; s++) {
        int64_t end = s + 1 < n_segments ? starts[s + 1] : (int64_t)n;
        bad = starts[s] < 0 || starts[s] > end || end > n;
    }
    for (Py_ssize_t p = 0; p < n && !bad; p++) {
        bad = order[p] < 0 || order[p] >= n_values;
    }
    if (bad) {
        PyErr_SetString(PyExc_ValueError,
                        "quicksort_order: starts must rise within order, indices lie in values");
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t s = 0; s < n_segments; s++) {
        Py_ssize_t end = s + 1 < n_segments ? (Py_ssize_t)starts[s + 1] : n;
        if (end - (Py_ssize_t)starts[s] > 1) {
            qs_segment(values, order, (Py_ssize_t)starts[s], end - 1);
        }
    }
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    for (int i = 0; i < held; i++) {
        PyBuffer_Release(&b[i]);
    }
    return result;
}

static PyMethodDef crank_methods[] = {
    {"judged_ranks", crank_judged_ranks, METH_VARARGS, judged_ranks_doc},
    {"quicksort_order", crank_quicksort_order, METH_VARARGS, quicksort_order_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef crank_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "rankwise.ranking._crank",
    .m_doc = "The judged rows of a run grouped by query and their ranks, without a sort "
             "(see rankwise.ranking._counted); numba's quicksort order (ranx's order of ties).",
    .m_size = -1,
    .m_methods = crank_methods,
};

PyMODINIT_FUNC
PyInit__crank(void)
{
    return PyModule_Create(&crank_module);
}
