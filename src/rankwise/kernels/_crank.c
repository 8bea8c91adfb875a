/*
 * rankwise.kernels._crank: the judged documents of a run whose rows are
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

#include "rankwise_strings.h"
#include "rankwise_ranks.h"

typedef struct {
    Py_buffer offsets; /* int32 */
    Py_buffer data;
    Py_ssize_t length;
    Py_ssize_t offset; /* the array's offset into its offsets buffer */
    Py_ssize_t first_row;
    int held;
} StringChunk;

static void
chunk_release(StringChunk *chunk)
{
    if (chunk->held) {
        PyBuffer_Release(&chunk->offsets);
        PyBuffer_Release(&chunk->data);
        chunk->held = 0;
    }
}

/* Read (length, offsets, data, offset) into a chunk; 0, or -1 with an exception set. */
static int
chunk_from_tuple(PyObject *item, StringChunk *chunk)
{
    PyObject *offsets, *data;
    if (!PyArg_ParseTuple(item, "nOOn", &chunk->length, &offsets, &data, &chunk->offset)) {
        return -1;
    }
    if (PyObject_GetBuffer(offsets, &chunk->offsets, PyBUF_SIMPLE) < 0) {
        return -1;
    }
    if (PyObject_GetBuffer(data, &chunk->data, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&chunk->offsets);
        return -1;
    }
    chunk->held = 1;
    Py_ssize_t needed = (chunk->offset + chunk->length + 1) * (Py_ssize_t)sizeof(int32_t);
    if (chunk->length < 0 || chunk->offset < 0 || chunk->offsets.len < needed) {
        chunk_release(chunk);
        PyErr_SetString(PyExc_ValueError, "judged_ranks: offsets buffer too short");
        return -1;
    }
    const int32_t *o = (const int32_t *)chunk->offsets.buf + chunk->offset;
    if (chunk->length > 0 &&
        (o[0] < 0 || o[chunk->length] < o[0] || o[chunk->length] > chunk->data.len)) {
        chunk_release(chunk);
        PyErr_SetString(PyExc_ValueError, "judged_ranks: offsets past the data buffer");
        return -1;
    }
    return 0;
}

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

typedef struct {
    Judged *sorted;
    double *values;  /* k: the sorted scores */
    int64_t *below;  /* k + 1 */
    int64_t *equal;  /* k */
    int64_t *after;  /* k */
    int64_t cap;
    int64_t *tied;   /* (row, place) of the rows whose score is a judged one's */
    int64_t tied_cap;
} Scratch;

static int
grow(void **array, int64_t count, size_t width)
{
    void *grown = realloc(*array, (size_t)count * width);
    if (grown == NULL) {
        return -1;
    }
    *array = grown;
    return 0;
}

static int
scratch_reserve(Scratch *s, int64_t k)
{
    if (k <= s->cap) {
        return 0;
    }
    int64_t cap = s->cap ? s->cap : 16;
    while (cap < k) {
        cap *= 2;
    }
    if (grow((void **)&s->sorted, cap, sizeof(Judged)) < 0 ||
        grow((void **)&s->values, cap + 2, sizeof(double)) < 0 ||
        grow((void **)&s->below, cap + 1, sizeof(int64_t)) < 0 ||
        grow((void **)&s->equal, cap, sizeof(int64_t)) < 0 ||
        grow((void **)&s->after, cap, sizeof(int64_t)) < 0) {
        return -1;
    }
    s->cap = cap;
    return 0;
}

/* Room for `count` entries in the list of tied rows. */
static int
scratch_tied(Scratch *s, int64_t count)
{
    if (count > s->tied_cap) {
        int64_t cap = s->tied_cap ? s->tied_cap : 256;
        while (cap < count) {
            cap *= 2;
        }
        if (grow((void **)&s->tied, cap, sizeof(int64_t)) < 0) {
            return -1;
        }
        s->tied_cap = cap;
    }
    return 0;
}

static void
scratch_free(Scratch *s)
{
    free(s->sorted);
    free(s->values);
    free(s->below);
    free(s->equal);
    free(s->after);
    free(s->tied);
}

enum { RANK_DONE = 0, RANK_OVER_BUDGET = 1, RANK_NO_MEMORY = 2, RANK_FULL = 3 };

typedef struct {
    uint64_t hash;
    int64_t judgment; /* a row of the judgments, -1: empty */
} Entry;

typedef struct {
    /* the run */
    const int64_t *bounds; /* first row of each block, then the number of rows */
    const int64_t *block_query; /* per block, its query in the judgments (-1: none) */
    int64_t first_block, last_block;
    const double *scores;
    Docs docs;
    /* the judgments, grouped by query */
    const int64_t *query_offsets; /* per query, where its judgments start in `judgments` */
    const int64_t *judgments;     /* rows of the judgments */
    const int32_t *judged_doc;    /* per row of the judgments, its document */
    StringChunk *judged_ids;      /* the distinct judged document ids */
    int64_t budget; /* docno comparisons allowed */
    /* out: per judged row of the run */
    int64_t capacity, found;
    int64_t *row, *judgment, *rank, *above, *size, *block;
} Work;

static inline const unsigned char *
judged_id(const Work *w, int64_t judgment, size_t *length)
{
    const StringChunk *ids = w->judged_ids;
    const int32_t *o = (const int32_t *)ids->offsets.buf + ids->offset;
    int32_t code = w->judged_doc[judgment];
    *length = (size_t)(o[code + 1] - o[code]);
    return (const unsigned char *)ids->data.buf + o[code];
}

static int
find_and_rank(Work *w)
{
    Scratch scratch = {0};
    Entry *table = NULL;
    size_t table_cap = 0;
    int64_t spent = 0;
    int outcome = RANK_DONE;
    const double *scores = w->scores;
    const StringChunk *ids = w->judged_ids;
    const unsigned char *ids_limit = (const unsigned char *)ids->data.buf + ids->data.len;
    int64_t t = 0;
    for (int64_t b = w->first_block; b < w->last_block; b++) {
        int64_t query = w->block_query[b];
        if (query < 0) {
            continue;
        }
        int64_t j0 = w->query_offsets[query], j1 = w->query_offsets[query + 1];
        if (j1 == j0) {
            continue;
        }
        /* the query's judged ids, hashed (a quarter full at most: most probes miss) */
        size_t cap = 64;
        while (cap < (size_t)(j1 - j0) * 4) {
            cap *= 2;
        }
        if (cap > table_cap) {
            Entry *grown = realloc(table, cap * sizeof(Entry));
            if (grown == NULL) {
                outcome = RANK_NO_MEMORY;
                break;
            }
            table = grown;
            table_cap = cap;
        }
        for (size_t i = 0; i < cap; i++) {
            table[i].judgment = -1;
        }
        for (int64_t j = j0; j < j1; j++) {
            int64_t judgment = w->judgments[j];
            size_t n;
            const unsigned char *s = judged_id(w, judgment, &n);
            uint64_t h = hash_token(s, n, ids_limit);
            size_t at = (size_t)h & (cap - 1);
            while (table[at].judgment >= 0) {
                at = (at + 1) & (cap - 1);
            }
            table[at].hash = h;
            table[at].judgment = judgment;
        }
        /* the rows of the block that are judged */
        int64_t start = w->bounds[b], end = w->bounds[b + 1];
        int64_t t0 = t;
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
                uint64_t h = hash_token(s, n, limit);
                size_t at = (size_t)h & (cap - 1);
                while (table[at].judgment >= 0) {
                    if (table[at].hash == h) {
                        size_t m;
                        const unsigned char *other = judged_id(w, table[at].judgment, &m);
                        if (m == n && memcmp(s, other, n) == 0) {
                            if (UNLIKELY(t == w->capacity)) { /* a document twice in a block */
                                outcome = RANK_FULL;
                                goto finish;
                            }
                            w->row[t] = r;
                            w->judgment[t] = table[at].judgment;
                            t++;
                            break;
                        }
                    }
                    at = (at + 1) & (cap - 1);
                }
            }
        }
        int64_t k = t - t0;
        if (k == 0) {
            continue;
        }
        /* their ranks */
        if (scratch_reserve(&scratch, k) < 0) {
            outcome = RANK_NO_MEMORY;
            break;
        }
        Judged *sorted = scratch.sorted;
        double *values = scratch.values;
        for (int64_t i = 0; i < k; i++) {
            sorted[i].value = scores[w->row[t0 + i]];
            sorted[i].target = t0 + i;
        }
        if (k > 1) {
            qsort(sorted, (size_t)k, sizeof(Judged), by_value);
        }
        int64_t *below = scratch.below, *equal = scratch.equal, *after = scratch.after;
        for (int64_t i = 0; i < k; i++) {
            values[i] = sorted[i].value;
            below[i] = equal[i] = after[i] = 0;
        }
        values[k] = INFINITY; /* the padding count_below reads */
        below[k] = 0;
        if (scratch_tied(&scratch, 2 * (end - start) + 2) < 0) {
            outcome = RANK_NO_MEMORY;
            break;
        }
        int64_t n_tied = 0, *tied = scratch.tied;
        for (int64_t r = start; r < end; r++) {
            double s = scores[r];
            int64_t p = count_below(values, k, s);
            below[p]++;
            /* p: the first judged row scoring s, if one does (values[k] is +inf, never s) */
            int64_t same = values[p] == s;
            equal[p] += same;
            tied[n_tied] = r;
            tied[n_tied + 1] = p;
            n_tied += 2 * same;
        }
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
        if (tie_work) { /* docnos break the ties: a greater docno comes first */
            spent += tie_work;
            if (spent > w->budget) {
                outcome = RANK_OVER_BUDGET;
                break;
            }
            for (int64_t e = 0; e < n_tied; e += 2) {
                int64_t r = tied[e], p = tied[e + 1];
                if (equal[p] < 2) {
                    continue;
                }
                size_t n;
                const unsigned char *limit;
                const unsigned char *doc = doc_at(&w->docs, r, &n, &limit);
                for (int64_t j = p; j < k && values[j] == values[p]; j++) {
                    size_t m;
                    const unsigned char *other =
                        doc_at(&w->docs, w->row[sorted[j].target], &m, &limit);
                    after[j] += doc_greater(doc, n, other, m);
                }
            }
        }
        int64_t higher = 0; /* rows scoring above values[i] */
        for (int64_t i = k - 1; i >= 0; i--) {
            higher += below[i + 1];
            int64_t target = sorted[i].target;
            w->above[target] = higher;
            w->size[target] = equal[i];
            w->rank[target] = higher + after[i] + 1;
            w->block[target] = b;
        }
    }
finish:
    w->found = t;
    free(table);
    scratch_free(&scratch);
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
    Py_ssize_t n_blocks = in[0].len / 8 - 1;
    const int64_t *bounds = (const int64_t *)in[0].buf;
    if (n_blocks < 0 || in[1].len < n_blocks * 8 || first_block < 0 ||
        last_block < first_block || last_block > n_blocks) {
        PyErr_SetString(PyExc_ValueError, "judged_ranks: bad blocks");
        goto done;
    }
    int64_t n_rows = bounds[n_blocks];
    if (bounds[0] != 0 || in[2].len < n_rows * 8) {
        PyErr_SetString(PyExc_ValueError, "judged_ranks: blocks and scores do not match");
        goto done;
    }
    for (Py_ssize_t b = 0; b < n_blocks; b++) {
        if (bounds[b] > bounds[b + 1]) {
            PyErr_SetString(PyExc_ValueError, "judged_ranks: block bounds not ascending");
            goto done;
        }
    }
    Py_ssize_t n_queries = in[3].len / 8 - 1;
    const int64_t *query_offsets = (const int64_t *)in[3].buf;
    const int64_t *judgments = (const int64_t *)in[4].buf;
    const int32_t *judged_doc = (const int32_t *)in[5].buf;
    Py_ssize_t n_listed = in[4].len / 8, n_judgments = in[5].len / 4;
    if (n_queries < 0 || query_offsets[0] != 0 || query_offsets[n_queries] > n_listed) {
        PyErr_SetString(PyExc_ValueError, "judged_ranks: bad query offsets");
        goto done;
    }
    for (Py_ssize_t q = 0; q < n_queries; q++) {
        if (query_offsets[q] > query_offsets[q + 1]) {
            PyErr_SetString(PyExc_ValueError, "judged_ranks: query offsets not ascending");
            goto done;
        }
    }
    const int64_t *block_query = (const int64_t *)in[1].buf;
    for (Py_ssize_t b = 0; b < n_blocks; b++) {
        if (block_query[b] >= n_queries) {
            PyErr_SetString(PyExc_ValueError, "judged_ranks: a block's query out of range");
            goto done;
        }
    }
    if (chunk_from_tuple(ids_tuple, &ids) < 0) {
        goto done;
    }
    for (Py_ssize_t j = 0; j < n_listed; j++) {
        if (judgments[j] < 0 || judgments[j] >= n_judgments || judged_doc[judgments[j]] < 0 ||
            judged_doc[judgments[j]] >= ids.length) {
            PyErr_SetString(PyExc_ValueError, "judged_ranks: a judgment out of range");
            goto done;
        }
    }
    Py_ssize_t row = 0;
    for (Py_ssize_t c = 0; c < n_chunks; c++) {
        if (chunk_from_tuple(PyList_GET_ITEM(chunk_list, c), &chunks[c]) < 0) {
            goto done;
        }
        chunks[c].first_row = row;
        row += chunks[c].length;
    }
    if (row != n_rows) {
        PyErr_SetString(PyExc_ValueError, "judged_ranks: document ids and scores differ in length");
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
    Work work = {
        .bounds = bounds,
        .block_query = block_query,
        .first_block = first_block,
        .last_block = last_block,
        .scores = (const double *)in[2].buf,
        .docs = {chunks, n_chunks, 0},
        .query_offsets = query_offsets,
        .judgments = judgments,
        .judged_doc = judged_doc,
        .judged_ids = &ids,
        .budget = budget,
        .capacity = capacity,
        .row = (int64_t *)out[0].buf,
        .judgment = (int64_t *)out[1].buf,
        .rank = (int64_t *)out[2].buf,
        .above = (int64_t *)out[3].buf,
        .size = (int64_t *)out[4].buf,
        .block = (int64_t *)out[5].buf,
    };
    if (n_rows == 0) {
        result = PyLong_FromLong(0);
        goto done;
    }
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
 * Recommender lists (rankwise.recommenders.inputs): user-item pairs joined by user.
 *
 * Rows are (user code, item code) pairs. join_pairs groups the rows of both sides by
 * user (no work when they come grouped already, else a counting sort) and, user by
 * user, writes the set side's items into a table indexed by item code (stamped with
 * the user) that each row of the query side reads: linear time, no sort, no hashing.
 * compact_lists drops flagged rows of lists and ranks them again; gather_sums sums a
 * per-item value over each user's rows. The GIL is released.
 * ------------------------------------------------------------------------------------ */

static inline int64_t
code_at(const char *p, int width, Py_ssize_t i)
{
    return width == 4 ? (int64_t)((const int32_t *)p)[i] : ((const int64_t *)p)[i];
}

typedef struct {
    int64_t *start; /* per user: its first position (a row, or an index into order) */
    int64_t *stop;
    int64_t *order; /* NULL: the rows come grouped by user, positions are rows */
} Groups;

static void
groups_free(Groups *g)
{
    free(g->start);
    free(g->stop);
    free(g->order);
}

#define PAIRS_NO_MEMORY (-1)
#define PAIRS_BAD_USER (-2)
#define PAIRS_BAD_ITEM (-3)
#define PAIRS_TOO_MANY (-4)

static int
groups_build(const char *users, int width, Py_ssize_t n, int64_t n_users, Groups *g)
{
    g->start = calloc((size_t)n_users + 1, sizeof(int64_t));
    g->stop = calloc((size_t)n_users + 1, sizeof(int64_t));
    g->order = NULL;
    unsigned char *visited = calloc((size_t)n_users + 1, 1);
    if (g->start == NULL || g->stop == NULL || visited == NULL) {
        free(visited);
        return PAIRS_NO_MEMORY;
    }
    int grouped = 1;
    Py_ssize_t r = 0;
    while (r < n) {
        int64_t u = code_at(users, width, r);
        if (u < 0 || u >= n_users) {
            free(visited);
            return PAIRS_BAD_USER;
        }
        Py_ssize_t e = r + 1;
        while (e < n && code_at(users, width, e) == u) {
            e++;
        }
        if (visited[u]) {
            grouped = 0;
            break;
        }
        visited[u] = 1;
        g->start[u] = r;
        g->stop[u] = e;
        r = e;
    }
    free(visited);
    if (grouped) {
        return 0;
    }
    /* a counting sort of the rows by user */
    memset(g->start, 0, ((size_t)n_users + 1) * sizeof(int64_t));
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t u = code_at(users, width, i);
        if (u < 0 || u >= n_users) {
            return PAIRS_BAD_USER;
        }
        g->start[u + 1]++;
    }
    for (int64_t u = 0; u < n_users; u++) {
        g->start[u + 1] += g->start[u];
        g->stop[u] = g->start[u];
    }
    g->order = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    if (g->order == NULL) {
        return PAIRS_NO_MEMORY;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        g->order[g->stop[code_at(users, width, i)]++] = i;
    }
    return 0;
}

typedef struct {
    const char *q_users, *q_items, *s_users, *s_items;
    int q_width, s_width, out_width, mode;
    Py_ssize_t n_q, n_s;
    int64_t s_limit; /* only the first s_limit set rows of each user count (< 0: all) */
    int64_t n_users, n_items;
    char *out;
} Join;

typedef struct {
    int32_t user; /* the user whose set holds the item, -1: none yet */
    int32_t at;   /* the item's first position in the user's group */
} Stamp;

/* mode 0: out[r] (uint8) = the pair of query row r is in the set; mode 1: out[r] (int32 or
 * int64) = the lowest set row holding the pair, or -1; mode 2 (query and set the same
 * rows): out[r] (uint8) = a row before r holds the same pair. */
static int
join_run(const Join *j)
{
    Groups gq = {NULL, NULL, NULL}, gs = {NULL, NULL, NULL};
    Stamp *table = malloc((size_t)(j->n_items > 0 ? j->n_items : 1) * sizeof(Stamp));
    int status = table == NULL ? PAIRS_NO_MEMORY : 0;
    if (status == 0) {
        status = groups_build(j->q_users, j->q_width, j->n_q, j->n_users, &gq);
    }
    if (status == 0 && j->mode != 2) {
        status = groups_build(j->s_users, j->s_width, j->n_s, j->n_users, &gs);
    }
    if (status != 0) {
        goto done;
    }
    for (int64_t i = 0; i < j->n_items; i++) {
        table[i].user = -1;
    }
    for (int64_t u = 0; u < j->n_users; u++) {
        int64_t a = gq.start[u], b = gq.stop[u];
        if (a == b) {
            continue;
        }
        int32_t user = (int32_t)u;
        if (j->mode == 2) { /* one walk: an item stamped already is a repeat */
            for (int64_t p = a; p < b; p++) {
                int64_t row = gq.order ? gq.order[p] : p;
                int64_t item = code_at(j->q_items, j->q_width, row);
                if (item < 0 || item >= j->n_items) {
                    status = PAIRS_BAD_ITEM;
                    goto done;
                }
                ((uint8_t *)j->out)[row] = table[item].user == user;
                table[item].user = user;
            }
            continue;
        }
        int64_t c = gs.start[u], d = gs.stop[u];
        if (j->s_limit >= 0 && d - c > j->s_limit) {
            d = c + j->s_limit;
        }
        if (d - c > INT32_MAX) {
            status = PAIRS_TOO_MANY;
            goto done;
        }
        /* the set's rows of u, the lowest written last (it wins) */
        for (int64_t p = d - 1; p >= c; p--) {
            int64_t row = gs.order ? gs.order[p] : p;
            int64_t item = code_at(j->s_items, j->s_width, row);
            if (item < 0 || item >= j->n_items) {
                status = PAIRS_BAD_ITEM;
                goto done;
            }
            table[item].user = user;
            table[item].at = (int32_t)(p - c);
        }
        for (int64_t p = a; p < b; p++) {
            int64_t row = gq.order ? gq.order[p] : p;
            int64_t item = code_at(j->q_items, j->q_width, row);
            if (item < 0 || item >= j->n_items) {
                status = PAIRS_BAD_ITEM;
                goto done;
            }
            int64_t found = -1;
            if (table[item].user == user) {
                found = c + table[item].at;
                found = gs.order ? gs.order[found] : found;
            }
            if (j->mode == 0) {
                ((uint8_t *)j->out)[row] = found >= 0;
            } else if (j->out_width == 4) {
                ((int32_t *)j->out)[row] = (int32_t)found;
            } else {
                ((int64_t *)j->out)[row] = found;
            }
        }
    }
done:
    free(table);
    groups_free(&gq);
    groups_free(&gs);
    return status;
}

static int
code_width(const Py_buffer *b, const char *what)
{
    const char *f = b->format ? b->format : "B";
    if (b->itemsize == 4 && (f[0] == 'i' || f[0] == 'l')) {
        return 4;
    }
    if (b->itemsize == 8 && (f[0] == 'l' || f[0] == 'q')) {
        return 8;
    }
    PyErr_Format(PyExc_TypeError, "join_pairs: %s must be int32 or int64 codes", what);
    return -1;
}

PyDoc_STRVAR(join_pairs_doc,
"join_pairs(q_users, q_items, s_users, s_items, n_users, n_items, mode, out,\n"
"           s_limit=-1, /)\n"
"--\n\n"
"Find each query pair (user, item codes: int32 or int64, C-contiguous) among the\n"
"set's pairs. mode 0: out (uint8) marks the pairs in the set; mode 1: out (int32 or\n"
"int64) gets the lowest set row holding the pair, or -1; mode 2 (the same rows on\n"
"both sides): out (uint8) marks the rows whose pair a lower row holds. Neither side\n"
"needs to be sorted; rows grouped by user skip the counting sort. Codes must be in\n"
"[0, n_users) and [0, n_items) (ValueError otherwise); n_users < 2**31. With\n"
"s_limit >= 0, only the first s_limit set rows of each user count (the top of lists).");

static PyObject *
crank_join_pairs(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *objs[5];
    long long n_users, n_items, s_limit = -1;
    int mode;
    if (!PyArg_ParseTuple(args, "OOOOLLiO|L:join_pairs", &objs[0], &objs[1], &objs[2],
                          &objs[3], &n_users, &n_items, &mode, &objs[4], &s_limit)) {
        return NULL;
    }
    Py_buffer b[5];
    int held = 0;
    PyObject *result = NULL;
    for (int i = 0; i < 5; i++) {
        int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (i == 4 ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(objs[i], &b[i], flags) < 0) {
            goto done;
        }
        held++;
    }
    static const char *names[4] = {"q_users", "q_items", "s_users", "s_items"};
    int widths[4];
    for (int i = 0; i < 4; i++) {
        if ((widths[i] = code_width(&b[i], names[i])) < 0) {
            goto done;
        }
    }
    if (widths[0] != widths[1] || widths[2] != widths[3]) {
        PyErr_SetString(PyExc_TypeError, "join_pairs: users and items of a side differ in type");
        goto done;
    }
    Py_ssize_t n_q = b[0].len / widths[0], n_s = b[2].len / widths[2];
    int out_width = mode == 1 ? (int)b[4].itemsize : 1;
    if (b[1].len / widths[1] != n_q || b[3].len / widths[3] != n_s || mode < 0 || mode > 2 ||
        (mode == 1 && out_width != 4 && out_width != 8) || b[4].itemsize != out_width ||
        b[4].len / out_width != n_q || n_users < 0 || n_users >= ((long long)1 << 31) ||
        n_items < 0 || (mode == 1 && out_width == 4 && n_s >= ((Py_ssize_t)1 << 31)) ||
        (mode == 2 && (b[0].buf != b[2].buf || b[1].buf != b[3].buf))) {
        PyErr_SetString(PyExc_ValueError, "join_pairs: arrays, sizes or mode do not match");
        goto done;
    }
    Join j = {
        .q_users = b[0].buf, .q_items = b[1].buf, .s_users = b[2].buf, .s_items = b[3].buf,
        .q_width = widths[0], .s_width = widths[2], .out_width = out_width, .mode = mode,
        .n_q = n_q, .n_s = n_s, .n_users = n_users, .n_items = n_items, .out = b[4].buf,
        .s_limit = mode == 2 ? -1 : s_limit,
    };
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = join_run(&j);
    Py_END_ALLOW_THREADS
    if (status == PAIRS_NO_MEMORY) {
        PyErr_NoMemory();
    } else if (status == PAIRS_BAD_USER) {
        PyErr_SetString(PyExc_ValueError, "join_pairs: a user code out of range");
    } else if (status == PAIRS_BAD_ITEM) {
        PyErr_SetString(PyExc_ValueError, "join_pairs: an item code out of range");
    } else if (status == PAIRS_TOO_MANY) {
        PyErr_SetString(PyExc_ValueError, "join_pairs: a user with 2**31 set rows or more");
    } else {
        result = Py_NewRef(Py_None);
    }
done:
    for (int i = 0; i < held; i++) {
        PyBuffer_Release(&b[i]);
    }
    return result;
}

static int
int32_buffer(PyObject *obj, Py_buffer *b, int writable, const char *what)
{
    if (PyObject_GetBuffer(obj, b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT |
                                       (writable ? PyBUF_WRITABLE : 0)) < 0) {
        return -1;
    }
    if (b->itemsize != 4 || b->format == NULL || (b->format[0] != 'i' && b->format[0] != 'l')) {
        PyBuffer_Release(b);
        PyErr_Format(PyExc_TypeError, "%s must be int32", what);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(compact_lists_doc,
"compact_lists(users, items, flags, k, out_users, out_items, out_ranks, /)\n"
"--\n\n"
"Recommendation lists (int32 user and item codes; a user's rows contiguous, in rank\n"
"order) without the rows flagged (uint8, or None), ranked again 1, 2, ... within\n"
"each user's run and cut at k (k < 0: no cut). Writes the rows kept to the int32\n"
"outputs (as long as the input; they may be the inputs themselves: row m is written\n"
"after row m is read) and returns how many.");

static PyObject *
crank_compact_lists(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *users_obj, *items_obj, *flags_obj, *outs[3];
    long long k;
    if (!PyArg_ParseTuple(args, "OOOLOOO:compact_lists", &users_obj, &items_obj, &flags_obj,
                          &k, &outs[0], &outs[1], &outs[2])) {
        return NULL;
    }
    Py_buffer b[5], flags;
    int held = 0, has_flags = flags_obj != Py_None;
    PyObject *result = NULL;
    if (int32_buffer(users_obj, &b[0], 0, "compact_lists: users") < 0) {
        goto done;
    }
    held++;
    if (int32_buffer(items_obj, &b[1], 0, "compact_lists: items") < 0) {
        goto done;
    }
    held++;
    for (int i = 0; i < 3; i++) {
        if (int32_buffer(outs[i], &b[2 + i], 1, "compact_lists: outputs") < 0) {
            goto done;
        }
        held++;
    }
    if (has_flags && PyObject_GetBuffer(flags_obj, &flags, PyBUF_C_CONTIGUOUS) < 0) {
        has_flags = 0;
        goto done;
    }
    Py_ssize_t n = b[0].len / 4;
    if (b[1].len / 4 != n || (has_flags && flags.len != n) || b[2].len / 4 < n ||
        b[3].len / 4 < n || b[4].len / 4 < n) {
        PyErr_SetString(PyExc_ValueError, "compact_lists: arrays differ in length");
        goto done;
    }
    const int32_t *users = b[0].buf, *items = b[1].buf;
    const uint8_t *flag = has_flags ? flags.buf : NULL;
    int32_t *out_users = b[2].buf, *out_items = b[3].buf, *out_ranks = b[4].buf;
    Py_ssize_t m = 0;
    Py_BEGIN_ALLOW_THREADS
    int64_t rank = 0;
    int32_t previous = 0;
    for (Py_ssize_t r = 0; r < n; r++) {
        int32_t user = users[r];
        if (r == 0 || user != previous) {
            rank = 0;
        }
        previous = user;
        if (flag != NULL && flag[r]) {
            continue;
        }
        rank++;
        if (k >= 0 && rank > k) {
            continue;
        }
        out_users[m] = user;
        out_items[m] = items[r];
        out_ranks[m] = (int32_t)rank;
        m++;
    }
    Py_END_ALLOW_THREADS
    result = PyLong_FromSsize_t(m);
done:
    if (has_flags) {
        PyBuffer_Release(&flags);
    }
    for (int i = 0; i < held; i++) {
        PyBuffer_Release(&b[i]);
    }
    return result;
}

PyDoc_STRVAR(gather_sums_doc,
"gather_sums(users, items, values, sums, counts, /)\n"
"--\n\n"
"For each row r (int32 codes): sums[users[r]] += values[items[r]] (float64) and\n"
"counts[users[r]] += 1 (int64), in row order (the sums of np.bincount with weights).");

static PyObject *
crank_gather_sums(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *objs[5];
    if (!PyArg_ParseTuple(args, "OOOOO:gather_sums", &objs[0], &objs[1], &objs[2], &objs[3],
                          &objs[4])) {
        return NULL;
    }
    Py_buffer b[5];
    int held = 0;
    PyObject *result = NULL;
    if (int32_buffer(objs[0], &b[0], 0, "gather_sums: users") < 0) {
        goto done;
    }
    held++;
    if (int32_buffer(objs[1], &b[1], 0, "gather_sums: items") < 0) {
        goto done;
    }
    held++;
    for (int i = 2; i < 5; i++) {
        if (PyObject_GetBuffer(objs[i], &b[i], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT |
                                                   (i > 2 ? PyBUF_WRITABLE : 0)) < 0) {
            goto done;
        }
        held++;
        const char *f = b[i].format ? b[i].format : "B";
        if (b[i].itemsize != 8 || (i < 4 ? f[0] != 'd' : (f[0] != 'l' && f[0] != 'q'))) {
            PyErr_SetString(PyExc_TypeError,
                            "gather_sums: values and sums must be float64, counts int64");
            goto done;
        }
    }
    Py_ssize_t n = b[0].len / 4, n_values = b[2].len / 8, n_users = b[3].len / 8;
    if (b[1].len / 4 != n || b[4].len / 8 != n_users) {
        PyErr_SetString(PyExc_ValueError, "gather_sums: arrays differ in length");
        goto done;
    }
    const int32_t *users = b[0].buf, *items = b[1].buf;
    const double *values = b[2].buf;
    double *sums = b[3].buf;
    int64_t *counts = b[4].buf;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < n; r++) {
        int32_t u = users[r], i = items[r];
        if (u < 0 || u >= n_users || i < 0 || i >= n_values) {
            bad = 1;
            break;
        }
        sums[u] += values[i];
        counts[u]++;
    }
    Py_END_ALLOW_THREADS
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "gather_sums: a code out of range");
        goto done;
    }
    result = Py_NewRef(Py_None);
done:
    for (int i = 0; i < held; i++) {
        PyBuffer_Release(&b[i]);
    }
    return result;
}

static int
int_buffer(PyObject *obj, Py_buffer *b, int writable, const char *what)
{
    if (PyObject_GetBuffer(obj, b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT |
                                       (writable ? PyBUF_WRITABLE : 0)) < 0) {
        return -1;
    }
    const char *f = b->format ? b->format : "B";
    if ((b->itemsize == 4 && (f[0] == 'i' || f[0] == 'l')) ||
        (b->itemsize == 8 && (f[0] == 'l' || f[0] == 'q'))) {
        return (int)b->itemsize;
    }
    PyBuffer_Release(b);
    PyErr_Format(PyExc_TypeError, "%s must be int32 or int64", what);
    return -1;
}

PyDoc_STRVAR(count_codes_doc,
"count_codes(codes, out, /)\n"
"--\n\n"
"np.bincount without the cast to intp: out[c] += 1 (int64 out) or out[c] = 1 (uint8 or\n"
"bool out) for every code c (int32 or int64, in [0, len(out))); ValueError otherwise.");

static PyObject *
crank_count_codes(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *codes_obj, *out_obj;
    if (!PyArg_ParseTuple(args, "OO:count_codes", &codes_obj, &out_obj)) {
        return NULL;
    }
    Py_buffer codes, out;
    int width = int_buffer(codes_obj, &codes, 0, "count_codes: codes");
    if (width < 0) {
        return NULL;
    }
    if (PyObject_GetBuffer(out_obj, &out, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&codes);
        return NULL;
    }
    PyObject *result = NULL;
    Py_ssize_t n = codes.len / width, size = out.itemsize == 8 ? out.len / 8 : out.len;
    if (out.itemsize != 1 && out.itemsize != 8) {
        PyErr_SetString(PyExc_TypeError, "count_codes: out must be int64, uint8 or bool");
        goto done;
    }
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    if (out.itemsize == 8) {
        int64_t *o = out.buf;
        for (Py_ssize_t r = 0; r < n; r++) {
            int64_t c = code_at(codes.buf, width, r);
            if (c < 0 || c >= size) {
                bad = 1;
                break;
            }
            o[c]++;
        }
    } else {
        uint8_t *o = out.buf;
        for (Py_ssize_t r = 0; r < n; r++) {
            int64_t c = code_at(codes.buf, width, r);
            if (c < 0 || c >= size) {
                bad = 1;
                break;
            }
            o[c] = 1;
        }
    }
    Py_END_ALLOW_THREADS
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "count_codes: a code out of range");
        goto done;
    }
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&codes);
    PyBuffer_Release(&out);
    return result;
}

PyDoc_STRVAR(take_codes_doc,
"take_codes(table, values, out, /)\n"
"--\n\n"
"out[r] = table[values[r]] (table and out of one type, int32 or int64; values int32 or\n"
"int64 in [0, len(table))): np.take without the cast of the indices to intp. Returns\n"
"how many codes written are negative.");

static PyObject *
crank_take_codes(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *objs[3];
    if (!PyArg_ParseTuple(args, "OOO:take_codes", &objs[0], &objs[1], &objs[2])) {
        return NULL;
    }
    Py_buffer b[3];
    int widths[3], held = 0;
    PyObject *result = NULL;
    static const char *names[3] = {"take_codes: table", "take_codes: values",
                                   "take_codes: out"};
    for (int i = 0; i < 3; i++) {
        if ((widths[i] = int_buffer(objs[i], &b[i], i == 2, names[i])) < 0) {
            goto done;
        }
        held++;
    }
    Py_ssize_t size = b[0].len / widths[0], n = b[1].len / widths[1];
    if (widths[0] != widths[2] || b[2].len / widths[2] != n) {
        PyErr_SetString(PyExc_ValueError, "take_codes: table and out differ in type or length");
        goto done;
    }
    int bad = 0;
    Py_ssize_t negative = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < n; r++) {
        int64_t v = code_at(b[1].buf, widths[1], r);
        if (v < 0 || v >= size) {
            bad = 1;
            break;
        }
        if (widths[0] == 4) {
            int32_t code = ((const int32_t *)b[0].buf)[v];
            ((int32_t *)b[2].buf)[r] = code;
            negative += code < 0;
        } else {
            int64_t code = ((const int64_t *)b[0].buf)[v];
            ((int64_t *)b[2].buf)[r] = code;
            negative += code < 0;
        }
    }
    Py_END_ALLOW_THREADS
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "take_codes: a value out of range");
        goto done;
    }
    result = PyLong_FromSsize_t(negative);
done:
    for (int i = 0; i < held; i++) {
        PyBuffer_Release(&b[i]);
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
 * kernels/_quicksort.py computes the same order with numpy where this module is absent.
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
    {"join_pairs", crank_join_pairs, METH_VARARGS, join_pairs_doc},
    {"compact_lists", crank_compact_lists, METH_VARARGS, compact_lists_doc},
    {"gather_sums", crank_gather_sums, METH_VARARGS, gather_sums_doc},
    {"count_codes", crank_count_codes, METH_VARARGS, count_codes_doc},
    {"take_codes", crank_take_codes, METH_VARARGS, take_codes_doc},
    {"quicksort_order", crank_quicksort_order, METH_VARARGS, quicksort_order_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef crank_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "rankwise.kernels._crank",
    .m_doc = "The judged rows of a run grouped by query and their ranks, without a sort "
             "(see ranking.py); user-item pairs of recommender lists joined by user "
             "(see recommenders/inputs.py).",
    .m_size = -1,
    .m_methods = crank_methods,
};

PyMODINIT_FUNC
PyInit__crank(void)
{
    return PyModule_Create(&crank_module);
}
