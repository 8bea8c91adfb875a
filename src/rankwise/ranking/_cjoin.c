/*
 * rankwise.ranking._cjoin: which rows of a (large) column of strings hold one
 * of a (small) set of strings, and which one.
 *
 * The run's document ids against the judged document ids: the join at the
 * start of every evaluation. Both sides are Arrow string arrays given as their
 * buffers (offsets and data), so no copy is made; the set is hashed once and
 * every row probes it, with the GIL released.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rankwise_chunks.h"
#include "rankwise_strings.h"

/* The first bytes of a value are kept in its slot: a row's one look at the table (loaded
   ahead) then confirms most matches without reading the value itself, which with many
   judged documents would be two more cache misses (its offset, then its bytes). */
#define HEAD_BYTES 16

typedef struct {
    uint64_t hash;
    int32_t code; /* -1: empty */
    uint32_t length;
    unsigned char head[HEAD_BYTES]; /* the value's first bytes, zero-padded */
} Slot;

/* Whether the slot holds the string s[0:n] (hash h); values: the strings the codes index. */
static inline int
slot_holds(const Slot *slot, uint64_t h, const unsigned char *s, size_t n,
           const StringChunk *values)
{
    if (slot->hash != h || slot->length != n) {
        return 0;
    }
    if (memcmp(slot->head, s, n < HEAD_BYTES ? n : HEAD_BYTES) != 0) {
        return 0;
    }
    if (n <= HEAD_BYTES) {
        return 1;
    }
    size_t m;
    const unsigned char *t = chunk_string(values, slot->code, &m);
    return memcmp(s + HEAD_BYTES, t + HEAD_BYTES, n - HEAD_BYTES) == 0;
}

/* How many rows ahead a row's hash is computed and its filter word and slot loaded. */
#define PROBE_AHEAD 16

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(address) __builtin_prefetch(address)
#else
#define PREFETCH(address) ((void)(address))
#endif

/* The rows of the chunks whose string the table holds: their rows and codes written out,
   their count returned. */
static size_t
probe_chunks(const StringChunk *chunks, Py_ssize_t n_chunks, const Slot *slots, size_t cap,
             const uint64_t *filter, unsigned filter_bits, const StringChunk *values,
             int64_t *rows_out, int32_t *codes_out)
{
    size_t found = 0;
    int64_t row = 0;
    for (Py_ssize_t c = 0; c < n_chunks; c++) {
        const StringChunk *chunk = &chunks[c];
        const unsigned char *end = (const unsigned char *)chunk->data.buf + chunk->data.len;
        /* the hashes of the next PROBE_AHEAD rows, their filter words and slots loaded
           meanwhile: with many judged documents neither table stays in the cache */
        uint64_t ahead[PROBE_AHEAD];
        for (Py_ssize_t i = 0; i < PROBE_AHEAD && i < chunk->length; i++) {
            size_t n;
            const unsigned char *s = chunk_string(chunk, i, &n);
            ahead[i] = hash_token(s, n, end);
        }
        for (Py_ssize_t i = 0; i < chunk->length; i++, row++) {
            uint64_t h = ahead[i % PROBE_AHEAD];
            if (i + PROBE_AHEAD < chunk->length) {
                size_t m;
                const unsigned char *next = chunk_string(chunk, i + PROBE_AHEAD, &m);
                uint64_t g = hash_token(next, m, end);
                uint64_t g_bit = g >> (64 - filter_bits);
                ahead[i % PROBE_AHEAD] = g;
                PREFETCH(&filter[g_bit >> 6]);
                PREFETCH(&slots[(size_t)g & (cap - 1)]);
                PREFETCH(&slots[((size_t)g + 2) & (cap - 1)]); /* the next line: a cluster */
            }
            uint64_t bit = h >> (64 - filter_bits);
            if (!(filter[bit >> 6] & ((uint64_t)1 << (bit & 63)))) {
                continue;
            }
            size_t n;
            const unsigned char *s = chunk_string(chunk, i, &n);
            size_t at = (size_t)h & (cap - 1);
            while (slots[at].code >= 0) {
                if (slot_holds(&slots[at], h, s, n, values)) {
                    rows_out[found] = row;
                    codes_out[found] = slots[at].code;
                    found++;
                    break;
                }
                at = (at + 1) & (cap - 1);
            }
        }
    }
    return found;
}

PyDoc_STRVAR(find_doc,
"find(chunks, values, rows_out, codes_out, /)\n"
"--\n\n"
"Rows of the string column `chunks` whose value is in `values`.\n\n"
"chunks is a list of (length, offsets, data, offset) Arrow string chunks and\n"
"values one such tuple. Writes the matching rows (int64, increasing) and the\n"
"index in values of each (int32, its first occurrence) to the two writable\n"
"buffers, which hold one entry per row of chunks, and returns their count.");

static PyObject *
cjoin_find(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *chunk_list, *values_tuple, *rows_object, *codes_object;
    if (!PyArg_ParseTuple(args, "O!O!OO:find", &PyList_Type, &chunk_list, &PyTuple_Type,
                          &values_tuple, &rows_object, &codes_object)) {
        return NULL;
    }
    Py_ssize_t n_chunks = PyList_GET_SIZE(chunk_list);
    StringChunk values;
    memset(&values, 0, sizeof values);
    StringChunk *chunks = PyMem_Calloc((size_t)(n_chunks > 0 ? n_chunks : 1), sizeof(StringChunk));
    Py_buffer rows_view, codes_view;
    int have_rows = 0, have_codes = 0;
    void *slot_memory = NULL;
    Slot *slots = NULL;
    uint64_t *filter = NULL;
    PyObject *result = NULL;
    if (chunks == NULL) {
        return PyErr_NoMemory();
    }
    if (chunk_from_tuple(values_tuple, &values, "find") < 0) {
        goto done;
    }
    Py_ssize_t total;
    if (chunks_from_list(chunk_list, chunks, "find", &total) < 0) {
        goto done;
    }
    if (PyObject_GetBuffer(rows_object, &rows_view, PyBUF_WRITABLE) < 0) {
        goto done;
    }
    have_rows = 1;
    if (PyObject_GetBuffer(codes_object, &codes_view, PyBUF_WRITABLE) < 0) {
        goto done;
    }
    have_codes = 1;
    if (rows_view.len < total * (Py_ssize_t)sizeof(int64_t) ||
        codes_view.len < total * (Py_ssize_t)sizeof(int32_t)) {
        PyErr_SetString(PyExc_ValueError, "find: output buffers hold fewer entries than rows");
        goto done;
    }
    if (values.length >= INT32_MAX / 2) {
        PyErr_SetString(PyExc_ValueError, "find: too many values");
        goto done;
    }
    size_t cap = 16; /* at most 0.7 full */
    while (cap * 7 < (size_t)values.length * 10) {
        cap *= 2;
    }
    /* a bit per hash prefix, about 8 bits per value: most rows are not judged, and one
       look at this small table (it stays in the L1 cache) tells them apart */
    unsigned filter_bits = 15;
    while (filter_bits < 26 && ((size_t)1 << filter_bits) < (size_t)values.length * 8) {
        filter_bits++;
    }
    slot_memory = PyMem_Malloc(cap * sizeof(Slot) + 64);
    slots = (Slot *)(((uintptr_t)slot_memory + 63) & ~(uintptr_t)63); /* two per cache line */
    filter = PyMem_Calloc(((size_t)1 << filter_bits) / 64, sizeof(uint64_t));
    if (slot_memory == NULL || filter == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    size_t found = 0;
    int64_t *rows_out = (int64_t *)rows_view.buf;
    int32_t *codes_out = (int32_t *)codes_view.buf;

    Py_BEGIN_ALLOW_THREADS
    for (size_t i = 0; i < cap; i++) {
        slots[i].code = -1;
    }
    const unsigned char *values_end = (const unsigned char *)values.data.buf + values.data.len;
    for (Py_ssize_t i = 0; i < values.length; i++) {
        size_t n;
        const unsigned char *s = chunk_string(&values, i, &n);
        uint64_t h = hash_token(s, n, values_end);
        size_t at = (size_t)h & (cap - 1);
        int duplicate = 0;
        while (slots[at].code >= 0) {
            if (slot_holds(&slots[at], h, s, n, &values)) {
                duplicate = 1; /* keep the first occurrence */
                break;
            }
            at = (at + 1) & (cap - 1);
        }
        if (!duplicate) {
            slots[at].hash = h;
            slots[at].code = (int32_t)i;
            slots[at].length = (uint32_t)n;
            memset(slots[at].head, 0, HEAD_BYTES);
            memcpy(slots[at].head, s, n < HEAD_BYTES ? n : HEAD_BYTES);
            uint64_t bit = h >> (64 - filter_bits);
            filter[bit >> 6] |= (uint64_t)1 << (bit & 63);
        }
    }
    found = probe_chunks(chunks, n_chunks, slots, cap, filter, filter_bits, &values, rows_out,
                         codes_out);
    Py_END_ALLOW_THREADS
    result = PyLong_FromSize_t(found);

done:
    PyMem_Free(slot_memory);
    PyMem_Free(filter);
    if (have_rows) {
        PyBuffer_Release(&rows_view);
    }
    if (have_codes) {
        PyBuffer_Release(&codes_view);
    }
    for (Py_ssize_t c = 0; c < n_chunks; c++) {
        chunk_release(&chunks[c]);
    }
    chunk_release(&values);
    PyMem_Free(chunks);
    return result;
}

/* ------------------------------------------------------------------------ */
/* The join query by query                                                    */

/* A judged document of the current query: its hash, text and judgment row. */
typedef struct {
    uint64_t hash;
    const unsigned char *s;
    size_t n;
    int64_t row;
} Judged;

/* Up to this many judged documents a query's are compared one by one; more are hashed. */
#define SCAN_AT_MOST 8

/* The index in `judged` (k of them, compared one by one; or, when `hashed`, found through
   `table`, cap entries) of the document s[0:n] of hash h, or -1. */
static inline Py_ssize_t
judged_index(const Judged *judged, Py_ssize_t k, const int32_t *table, size_t cap,
             int hashed, uint64_t h, const unsigned char *s, size_t n)
{
    if (!hashed) {
        for (Py_ssize_t j = 0; j < k; j++) {
            if (judged[j].hash == h && judged[j].n == n && memcmp(judged[j].s, s, n) == 0) {
                return j;
            }
        }
        return -1;
    }
    for (size_t at = (size_t)h & (cap - 1); table[at] >= 0; at = (at + 1) & (cap - 1)) {
        const Judged *other = &judged[table[at]];
        if (other->hash == h && other->n == n && memcmp(other->s, s, n) == 0) {
            return table[at];
        }
    }
    return -1;
}

PyDoc_STRVAR(find_by_query_doc,
"find_by_query(chunks, starts, block_query, values, value_codes, order, bounds,\n"
"              rows_out, matches_out, /)\n"
"--\n\n"
"The rows of a run whose document its query's judgments judge, and the judgment\n"
"row of each, found query by query (each query's few judged documents stay in\n"
"the cache, where one table of every judged document would not).\n\n"
"chunks: the run's document ids, (length, offsets, data, offset) Arrow string\n"
"chunks; starts (int64): the first row of each block of rows of one query, from\n"
"0, increasing; block_query (int64): per block, its query among the judgments'\n"
"(-1: none); values: the distinct judged document ids (one chunk); value_codes\n"
"(int32): per judgment, its document in values; order (int64): the judgments\n"
"grouped by query, bounds (int64, one more than the judgments' queries): query q\n"
"owns order[bounds[q]:bounds[q + 1]]. A document judged twice for one query\n"
"matches its first judgment there. Writes the rows (increasing) and judgment rows\n"
"(int64 each) to the two buffers, which hold one entry per row, and returns\n"
"their count.");

/* The inputs of find_by_query, read from its buffers. */
typedef struct {
    const StringChunk *chunks;
    Py_ssize_t n_chunks, total; /* total: rows */
    const int64_t *starts, *block_query;
    Py_ssize_t n_blocks;
    const StringChunk *values;
    const int32_t *value_codes;
    const int64_t *order;
    Py_ssize_t n_judgments;
    const int64_t *bounds;
    Py_ssize_t n_queries;
} ByQuery;

/* What is wrong with the inputs (every index the join reads through), or NULL; *most: the
   most judgments of one query. */
static const char *
by_query_problem(const ByQuery *j, Py_ssize_t *most)
{
    if (j->n_queries < 0 || (j->n_blocks > 0 && j->starts[0] != 0)) {
        return "find_by_query: buffers of inconsistent sizes";
    }
    for (Py_ssize_t b = 0; b < j->n_blocks; b++) {
        int64_t q = j->block_query[b];
        int64_t stop = b + 1 < j->n_blocks ? j->starts[b + 1] : (int64_t)j->total;
        if (j->starts[b] > stop || stop > (int64_t)j->total || q < -1 || q >= j->n_queries) {
            return "find_by_query: a block out of bounds";
        }
    }
    *most = 0;
    for (Py_ssize_t q = 0; q < j->n_queries; q++) {
        if (j->bounds[q] < 0 || j->bounds[q] > j->bounds[q + 1] ||
            j->bounds[q + 1] > j->n_judgments) {
            return "find_by_query: bounds out of order";
        }
        int64_t k = j->bounds[q + 1] - j->bounds[q];
        *most = k > *most ? (Py_ssize_t)k : *most;
    }
    for (Py_ssize_t i = 0; i < j->n_judgments; i++) {
        if (j->order[i] < 0 || j->order[i] >= j->n_judgments || j->value_codes[i] < 0 ||
            j->value_codes[i] >= j->values->length) {
            return "find_by_query: a judgment out of bounds";
        }
    }
    return NULL;
}

/* The join, block by block (no GIL needed): rows and judgment rows written, their count
   returned. judged and table hold the most judgments of one query (table: twice as many,
   rounded up to a power of two, at least 16). */
static size_t
by_query_join(const ByQuery *j, Judged *judged, int32_t *table, int64_t *rows_out,
              int64_t *matches_out)
{
    size_t found = 0;
    const unsigned char *values_end =
        (const unsigned char *)j->values->data.buf + j->values->data.len;
    Py_ssize_t c = 0, local = 0; /* the chunk of the current row, and the row within it */
    for (Py_ssize_t b = 0; b < j->n_blocks; b++) {
        int64_t q = j->block_query[b];
        int64_t row = j->starts[b];
        int64_t stop = b + 1 < j->n_blocks ? j->starts[b + 1] : (int64_t)j->total;
        Py_ssize_t k = q < 0 ? 0 : (Py_ssize_t)(j->bounds[q + 1] - j->bounds[q]);
        /* the chunk cursor follows the rows (blocks are in row order) */
        if (k == 0) {
            local += (Py_ssize_t)(stop - row);
            while (c < j->n_chunks && local >= j->chunks[c].length) {
                local -= j->chunks[c].length;
                c++;
            }
            continue;
        }
        size_t cap = 16;
        while (cap < (size_t)k * 2) {
            cap *= 2;
        }
        const int hashed = k > SCAN_AT_MOST;
        if (hashed) {
            for (size_t i = 0; i < cap; i++) {
                table[i] = -1;
            }
        }
        Py_ssize_t kept = 0;
        for (Py_ssize_t i = 0; i < k; i++) {
            int64_t judgment = j->order[j->bounds[q] + i];
            size_t n;
            const unsigned char *s = chunk_string(j->values, j->value_codes[judgment], &n);
            uint64_t h = hash_token(s, n, values_end);
            if (judged_index(judged, kept, table, cap, hashed, h, s, n) >= 0) {
                continue; /* judged twice: the first judgment matches */
            }
            judged[kept] = (Judged){h, s, n, judgment};
            if (hashed) {
                size_t at = (size_t)h & (cap - 1);
                while (table[at] >= 0) {
                    at = (at + 1) & (cap - 1);
                }
                table[at] = (int32_t)kept;
            }
            kept++;
        }
        while (row < stop) { /* the rows of the block, chunk by chunk */
            while (local >= j->chunks[c].length) {
                local -= j->chunks[c].length;
                c++;
            }
            const StringChunk *chunk = &j->chunks[c];
            /* the chunk's pointers in locals, which the stores of a match cannot change */
            const int32_t *offsets = (const int32_t *)chunk->offsets.buf + chunk->offset;
            const unsigned char *data = (const unsigned char *)chunk->data.buf;
            const unsigned char *end = data + chunk->data.len;
            Py_ssize_t take = chunk->length - local;
            take = take < stop - row ? take : (Py_ssize_t)(stop - row);
            for (Py_ssize_t i = local; i < local + take; i++) {
                const unsigned char *s = data + offsets[i];
                size_t n = (size_t)(offsets[i + 1] - offsets[i]);
                uint64_t h = hash_token(s, n, end);
                Py_ssize_t at = judged_index(judged, kept, table, cap, hashed, h, s, n);
                if (at >= 0) {
                    rows_out[found] = row + (i - local);
                    matches_out[found] = judged[at].row;
                    found++;
                }
            }
            row += take;
            local += take;
        }
    }
    return found;
}

static PyObject *
cjoin_find_by_query(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *chunk_list, *values_tuple, *objects[7];
    if (!PyArg_ParseTuple(args, "O!OOO!OOOOO:find_by_query", &PyList_Type, &chunk_list,
                          &objects[0], &objects[1], &PyTuple_Type, &values_tuple, &objects[2],
                          &objects[3], &objects[4], &objects[5], &objects[6])) {
        return NULL;
    }
    enum { STARTS, BLOCK_QUERY, VALUE_CODES, ORDER, BOUNDS, ROWS_OUT, MATCHES_OUT, N_VIEWS };
    static const Py_ssize_t item_size[N_VIEWS] = {8, 8, 4, 8, 8, 8, 8};
    Py_buffer views[N_VIEWS];
    int held = 0;
    Py_ssize_t n_chunks = PyList_GET_SIZE(chunk_list);
    StringChunk values;
    memset(&values, 0, sizeof values);
    StringChunk *chunks = PyMem_Calloc((size_t)(n_chunks > 0 ? n_chunks : 1), sizeof(StringChunk));
    Judged *judged = NULL;
    int32_t *table = NULL;
    PyObject *result = NULL;
    if (chunks == NULL) {
        return PyErr_NoMemory();
    }
    for (; held < N_VIEWS; held++) {
        int flags = held >= ROWS_OUT ? PyBUF_WRITABLE : PyBUF_SIMPLE;
        if (PyObject_GetBuffer(objects[held], &views[held], flags) < 0) {
            goto done;
        }
        if (views[held].len % item_size[held] != 0) {
            PyErr_SetString(PyExc_ValueError, "find_by_query: a buffer of whole items is expected");
            held++;
            goto done;
        }
    }
    if (chunk_from_tuple(values_tuple, &values, "find_by_query") < 0) {
        goto done;
    }
    Py_ssize_t total;
    if (chunks_from_list(chunk_list, chunks, "find_by_query", &total) < 0) {
        goto done;
    }
    ByQuery j = {
        .chunks = chunks, .n_chunks = n_chunks, .total = total,
        .starts = views[STARTS].buf, .block_query = views[BLOCK_QUERY].buf,
        .n_blocks = views[STARTS].len / 8, .values = &values,
        .value_codes = views[VALUE_CODES].buf, .order = views[ORDER].buf,
        .n_judgments = views[VALUE_CODES].len / 4, .bounds = views[BOUNDS].buf,
        .n_queries = views[BOUNDS].len / 8 - 1,
    };
    Py_ssize_t most = 0;
    const char *problem = views[BLOCK_QUERY].len / 8 != j.n_blocks ||
                                  views[ORDER].len / 8 != j.n_judgments ||
                                  views[ROWS_OUT].len / 8 < total ||
                                  views[MATCHES_OUT].len / 8 < total
                              ? "find_by_query: buffers of inconsistent sizes"
                              : by_query_problem(&j, &most);
    if (problem != NULL) {
        PyErr_SetString(PyExc_ValueError, problem);
        goto done;
    }
    size_t table_cap = 16;
    while (table_cap < (size_t)most * 2) {
        table_cap *= 2;
    }
    judged = PyMem_Malloc((size_t)(most > 0 ? most : 1) * sizeof(Judged));
    table = PyMem_Malloc(table_cap * sizeof(int32_t));
    if (judged == NULL || table == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    size_t found;
    Py_BEGIN_ALLOW_THREADS
    found = by_query_join(&j, judged, table, views[ROWS_OUT].buf, views[MATCHES_OUT].buf);
    Py_END_ALLOW_THREADS
    result = PyLong_FromSize_t(found);

done:
    PyMem_Free(judged);
    PyMem_Free(table);
    for (int v = 0; v < held; v++) {
        PyBuffer_Release(&views[v]);
    }
    for (Py_ssize_t i = 0; i < n_chunks; i++) {
        chunk_release(&chunks[i]);
    }
    chunk_release(&values);
    PyMem_Free(chunks);
    return result;
}

static PyMethodDef cjoin_methods[] = {
    {"find", cjoin_find, METH_VARARGS, find_doc},
    {"find_by_query", cjoin_find_by_query, METH_VARARGS, find_by_query_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef cjoin_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "rankwise.ranking._cjoin",
    .m_doc = "Which rows of a string column hold one of a set of strings "
             "(see rankwise.ranking._join).",
    .m_size = -1,
    .m_methods = cjoin_methods,
};

PyMODINIT_FUNC
PyInit__cjoin(void)
{
    return PyModule_Create(&cjoin_module);
}
