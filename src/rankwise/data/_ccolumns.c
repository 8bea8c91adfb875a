/*
 * rankwise.data._ccolumns: Python dicts, object arrays and Arrow string columns
 * to the columns of a Run or Qrels, at C speed.
 *
 * run_dict / qrels_dict iterate {query: {doc: value}} with the C API: query
 * ids are interned as they come, document ids are written straight into
 * Arrow's string layout (runs) or interned (qrels), values into float64.
 * Keys must be str or int (numpy integers too), values real numbers; on
 * anything else the functions stop and return a "problem" tuple (kind,
 * query key, doc key, value) from which the caller raises the same error the
 * pure Python reader raises (rankwise.data._dicts).
 *
 * run_table reads a run's query and document columns given as Arrow string,
 * large_string or string_view buffers, or as numpy object arrays of str: it
 * cuts the rows into blocks of one query (ids interned), checks that no
 * document appears twice in a block, notes whether scores descend in every
 * block, and writes the document ids in Arrow's string layout where they are
 * not in it already. It declines (returns a str) whatever it does not read
 * with certainty; the caller then takes the general path (pyarrow).
 *
 * per_query_dicts builds pytrec_eval's output, {name: {key: value}}, from a matrix.
 *
 * merge_names joins lists of names (the query ids of the pieces of a file) into
 * one list and codes; name_codes finds names (a run's query ids) in a list (the
 * judgments'): one pass each instead of a Python dict operation per name.
 *
 * Ids compare as text (their UTF-8 bytes): the keys 1 and "1" are the same id.
 * Within one dict, keys of one kind (all str, or all int) cannot collide;
 * the queries whose keys mix kinds are reported, and the caller checks them
 * for a document listed twice.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RANKWISE_BLOCK_NAME "rankwise.data._ccolumns.Block"
#include "rankwise_blocks.h"
#include "rankwise_interner.h"
#include "rankwise_pyids.h"
#include "rankwise_strings.h"

/* ------------------------------------------------------------------------ */
/* Documents seen in the current block of one query (a duplicate check)      */

typedef struct {
    uint64_t hash;
    const unsigned char *s;
    size_t n;
    uint32_t generation;
} Seen;

#include "rankwise_seen.h"

/*
 * Record the id s[0:n] (its bytes must stay where they are until the set is
 * cleared). 1 when it was already in the block, 0 when new, -1 on memory failure.
 */
static inline int
seen_add(SeenSet *set, const unsigned char *s, size_t n)
{
    uint64_t h = hash_bytes(s, n);
    size_t at = (size_t)h & (set->cap - 1);
    while (set->slots[at].generation == set->generation) {
        if (set->slots[at].hash == h && set->slots[at].n == n &&
            memcmp(set->slots[at].s, s, n) == 0) {
            return 1;
        }
        at = (at + 1) & (set->cap - 1);
    }
    set->slots[at].hash = h;
    set->slots[at].s = s;
    set->slots[at].n = n;
    set->slots[at].generation = set->generation;
    set->count++;
    if (set->count * 2 > set->cap && seen_grow(set) < 0) {
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Strings in Arrow's layout, chunk by chunk (a chunk holds < 2 GiB of bytes) */

typedef struct {
    Vec offsets; /* int32, rows + 1 */
    Vec data;
    size_t rows;
} OutChunk;

typedef struct {
    PyObject *pieces; /* list of (rows, offsets block, data block) */
    OutChunk chunk;
    size_t expected; /* rows still to come (to size the offsets at once) */
    size_t rows_done, bytes_done; /* in the chunks closed: to size the next one's data */
} StringsOut;

/* Rows per chunk: chunks are the units the join and the ranking spread over threads. */
#define CHUNK_ROWS ((size_t)1 << 20)

static int
strings_start_chunk(StringsOut *out)
{
    memset(&out->chunk, 0, sizeof out->chunk);
    size_t rows = out->expected < CHUNK_ROWS ? out->expected : CHUNK_ROWS;
    /* room for the ids at once, a quarter more than the average so far (16 bytes at
       first): pages never touched cost nothing, and the block is trimmed when closed */
    size_t per_row = out->rows_done ? out->bytes_done / out->rows_done + 1 : 16;
    size_t bytes = rows * per_row + rows * per_row / 4;
    if (bytes > (size_t)INT32_MAX) {
        bytes = (size_t)INT32_MAX;
    }
    if (vec_reserve(&out->chunk.offsets, (rows + 1) * sizeof(int32_t)) < 0 ||
        vec_reserve(&out->chunk.data, bytes) < 0) {
        return -1;
    }
    return vec_push_i32(&out->chunk.offsets, 0);
}

static int
strings_init(StringsOut *out, size_t expected)
{
    out->expected = expected;
    out->pieces = PyList_New(0);
    if (out->pieces == NULL) {
        return -1;
    }
    if (strings_start_chunk(out) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void
strings_free(StringsOut *out)
{
    vec_free(&out->chunk.offsets);
    vec_free(&out->chunk.data);
    Py_CLEAR(out->pieces);
}

/* Move the current chunk into the pieces (when it holds rows). 0, or -1 with an exception. */
static int
strings_close_chunk(StringsOut *out)
{
    if (out->chunk.rows == 0) {
        return 0;
    }
    size_t rows = out->chunk.rows;
    out->rows_done += rows;
    out->bytes_done += out->chunk.data.size;
    PyObject *offsets = vec_to_block(&out->chunk.offsets);
    PyObject *data = offsets == NULL ? NULL : vec_to_block(&out->chunk.data);
    PyObject *piece = data == NULL ? NULL : Py_BuildValue("(nOO)", (Py_ssize_t)rows, offsets, data);
    Py_XDECREF(offsets);
    Py_XDECREF(data);
    if (piece == NULL) {
        return -1;
    }
    int failed = PyList_Append(out->pieces, piece);
    Py_DECREF(piece);
    return failed;
}

/* Copy n bytes, short ids without a call (overlapping word copies, all in bounds). */
static inline void
copy_small(char *to, const char *from, size_t n)
{
    if (n >= 8 && n <= 16) {
        uint64_t a, b;
        memcpy(&a, from, 8);
        memcpy(&b, from + n - 8, 8);
        memcpy(to, &a, 8);
        memcpy(to + n - 8, &b, 8);
    }
    else if (n >= 4 && n < 8) {
        uint32_t a, b;
        memcpy(&a, from, 4);
        memcpy(&b, from + n - 4, 4);
        memcpy(to, &a, 4);
        memcpy(to + n - 4, &b, 4);
    }
    else if (n < 4) {
        for (size_t i = 0; i < n; i++) {
            to[i] = from[i];
        }
    }
    else {
        memcpy(to, from, n);
    }
}

/* Append one string. 0, or -1 with an exception set. */
static inline int
strings_append(StringsOut *out, const char *s, size_t n)
{
    if (UNLIKELY(out->chunk.data.size + n > (size_t)INT32_MAX || out->chunk.rows == CHUNK_ROWS)) {
        if (strings_close_chunk(out) < 0 || strings_start_chunk(out) < 0) {
            if (!PyErr_Occurred()) {
                PyErr_NoMemory();
            }
            return -1;
        }
    }
    Vec *data = &out->chunk.data;
    if (UNLIKELY(vec_reserve(data, n) < 0 ||
                 vec_reserve(&out->chunk.offsets, sizeof(int32_t)) < 0)) {
        PyErr_NoMemory();
        return -1;
    }
    copy_small(data->data + data->size, s, n);
    data->size += n;
    int32_t end = (int32_t)data->size;
    memcpy(out->chunk.offsets.data + out->chunk.offsets.size, &end, sizeof end);
    out->chunk.offsets.size += sizeof end;
    out->chunk.rows++;
    if (out->expected) {
        out->expected--;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Reading dicts (ids and numbers: rankwise_pyids.h)                         */

/* Forget the first *count gathered keys and values, releasing them when *owned. */
static void
release_items(PyObject **items, size_t *count, int *owned)
{
    for (size_t i = 0; *owned && i < *count * 2; i++) {
        Py_DECREF(items[i]);
    }
    *count = 0;
    *owned = 0;
}

/* Release the references the first *count ids hold, and forget them. */
static void
release_pending(IdText *pending, size_t *count)
{
    for (size_t i = 0; i < *count; i++) {
        id_release(&pending[i]);
    }
    *count = 0;
}

/* The problem tuple: (kind, query key, doc key or None, value or None). */
static PyObject *
problem(const char *kind, PyObject *query, PyObject *doc, PyObject *value)
{
    return Py_BuildValue("(sOOO)", kind, query, doc != NULL ? doc : Py_None,
                         value != NULL ? value : Py_None);
}

/*
 * A key read as an id (a query's, or with doc_key a document's): 1; or 0 with *result
 * the problem tuple ("query id", "doc text", ...), or NULL with an exception set.
 */
static inline int
key_id(PyObject *key, PyObject *id_types, IdText *id, PyObject *query_key, PyObject *doc_key,
       PyObject **result)
{
    int got = id_of_key(key, id_types, id);
    if (LIKELY(got > 0)) {
        return 1;
    }
    id_release(id);
    if (got != -1) {
        const char *kind = doc_key == NULL ? (got == 0 ? "query id" : "query text")
                                           : (got == 0 ? "doc id" : "doc text");
        *result = problem(kind, query_key, doc_key, NULL);
    }
    return 0;
}

enum { SCORES = 0, GRADES = 1 };

/*
 * A value read as a finite number (a score, or a grade: true and false are 1 and 0
 * there, as in a table's boolean column): 1; or 0 with *result the problem tuple
 * ("score", "score range", "score finite", or the same for a grade).
 */
static inline int
value_number(PyObject *value, PyObject *number_types, int what, PyObject *query_key,
             PyObject *doc_key, double *out, PyObject **result)
{
    static const char *const kinds[2][3] = {{"score", "score range", "score finite"},
                                            {"grade", "grade range", "grade finite"}};
    if (what == GRADES && UNLIKELY(PyBool_Check(value))) {
        *out = value == Py_True ? 1.0 : 0.0;
        return 1;
    }
    int got = number_of(value, number_types, out);
    if (UNLIKELY(got <= 0)) {
        if (got < 0) {
            PyErr_Clear();
        }
        *result = problem(kinds[what][got < 0], query_key, doc_key, value);
        return 0;
    }
    if (UNLIKELY(!isfinite(*out))) {
        *result = problem(kinds[what][2], query_key, doc_key, value);
        return 0;
    }
    return 1;
}

/* The int32 codes of a vector as a list of int, or NULL with an exception set. */
static PyObject *
codes_list(const Vec *codes)
{
    PyObject *list = PyList_New(0);
    const int32_t *values = (const int32_t *)codes->data;
    for (size_t i = 0; list != NULL && i < codes->size / sizeof(int32_t); i++) {
        PyObject *item = PyLong_FromLong(values[i]);
        if (item == NULL || PyList_Append(list, item) < 0) {
            Py_XDECREF(item);
            Py_CLEAR(list);
            break;
        }
        Py_DECREF(item);
    }
    return list;
}

/* The dict changed while it was read: a RuntimeError, -1. */
static int
changed_during_reading(const char *function)
{
    PyErr_Format(PyExc_RuntimeError, "%s: the dict changed during reading", function);
    return -1;
}

/* ------------------------------------------------------------------------ */
/* run_dict                                                                  */

PyDoc_STRVAR(run_dict_doc,
"run_dict(results, id_types, number_types, /)\n"
"--\n\n"
"Read {query: {doc: score}}. Returns (names, segment_starts, segment_codes,\n"
"check_codes, pieces, scores, descending): the query ids (first appearance, a\n"
"query whose entry is empty included: it retrieved nothing), per non-empty\n"
"query entry its first row (int64 block) and query code (int32\n"
"block), the codes whose rows may hold a document twice (keys of mixed kinds:\n"
"1 and \"1\"), the document ids as Arrow string pieces [(rows, offsets, data)],\n"
"the scores (float64 block) and whether scores never rise within an entry.\n"
"Or a problem tuple (kind, query, doc, value) when an entry is not accepted.");

/* A run dict's columns as they are read. */
typedef struct {
    PyObject *id_types, *number_types;
    Interner queries;
    StringsOut docs;
    Vec starts, codes, scores, check;
    size_t row, total;
    int rising;
} RunColumns;

/* The documents {doc: score} of query `code` read: 0, or -1 (*result: a problem tuple,
   or NULL with an exception set). */
static int
run_dict_documents(RunColumns *c, PyObject *query_key, PyObject *ranking, int64_t code,
                   PyObject **result)
{
    int kinds = 0;
    double last = INFINITY;
    Py_ssize_t inner = 0;
    PyObject *doc_key, *value;
    while (PyDict_Next(ranking, &inner, &doc_key, &value)) {
        IdText doc;
        if (!key_id(doc_key, c->id_types, &doc, query_key, doc_key, result)) {
            return -1;
        }
        if (UNLIKELY(c->row >= c->total)) { /* a dict grew while we read it */
            id_release(&doc);
            return changed_during_reading("run_dict");
        }
        kinds |= doc.kind;
        int appended = strings_append(&c->docs, doc.s, (size_t)doc.n);
        id_release(&doc);
        if (appended < 0) {
            return -1;
        }
        double score;
        if (!value_number(value, c->number_types, SCORES, query_key, doc_key, &score, result)) {
            return -1;
        }
        memcpy(c->scores.data + c->scores.size, &score, sizeof score);
        c->scores.size += sizeof score;
        c->rising |= score > last;
        last = score;
        c->row++;
    }
    if ((kinds & (kinds - 1)) || (kinds & KIND_OTHER)) { /* mixed kinds: may collide */
        if (vec_push_i32(&c->check, (int32_t)code) < 0) {
            PyErr_NoMemory();
            return -1;
        }
    }
    return 0;
}

/* One entry {query: {doc: score}} read: 0, or -1 as run_dict_documents. */
static int
run_dict_entry(RunColumns *c, PyObject *query_key, PyObject *ranking, PyObject **result)
{
    IdText query;
    if (!key_id(query_key, c->id_types, &query, query_key, NULL, result)) {
        return -1;
    }
    PyObject *name = query.text; /* borrowed, or NULL: decoded later */
    int added;
    int64_t code = interner_code(&c->queries, (const unsigned char *)query.s, (size_t)query.n,
                                 name, &added);
    id_release(&query);
    if (code < 0) {
        PyErr_NoMemory();
        return -1;
    }
    if (PyDict_GET_SIZE(ranking) == 0) {
        return 0; /* in the run, nothing retrieved: a query id, no entry of rows */
    }
    if ((!added && vec_push_i32(&c->check, (int32_t)code) < 0) || /* the same text again */
        vec_push_i64(&c->starts, (int64_t)c->row) < 0 ||
        vec_push_i32(&c->codes, (int32_t)code) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return run_dict_documents(c, query_key, ranking, code, result);
}

/* (names, segment_starts, segment_codes, check_codes, pieces, scores, descending). */
static PyObject *
run_dict_result(RunColumns *c)
{
    PyObject *result = NULL;
    PyObject *names = interner_take_names(&c->queries);
    PyObject *check_list = codes_list(&c->check);
    PyObject *starts_block = vec_to_block(&c->starts);
    PyObject *codes_block = vec_to_block(&c->codes);
    PyObject *scores_block = vec_to_block(&c->scores);
    if (names != NULL && check_list != NULL && starts_block != NULL && codes_block != NULL &&
        scores_block != NULL) {
        result = Py_BuildValue("(OOOOOOO)", names, starts_block, codes_block, check_list,
                               c->docs.pieces, scores_block, c->rising ? Py_False : Py_True);
    }
    Py_XDECREF(names);
    Py_XDECREF(check_list);
    Py_XDECREF(starts_block);
    Py_XDECREF(codes_block);
    Py_XDECREF(scores_block);
    return result;
}

static PyObject *
ccolumns_run_dict(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *results, *id_types, *number_types;
    if (!PyArg_ParseTuple(args, "OOO:run_dict", &results, &id_types, &number_types)) {
        return NULL;
    }
    if (!PyDict_Check(results)) {
        return problem("run", results, NULL, NULL);
    }
    RunColumns c;
    memset(&c, 0, sizeof c);
    c.id_types = id_types == Py_None ? NULL : id_types;
    c.number_types = number_types == Py_None ? NULL : number_types;
    Py_ssize_t largest;
    PyObject *query_key, *ranking;
    if (!inner_sizes(results, &c.total, &largest, &query_key, &ranking)) { /* rows: to size */
        return problem("ranking", query_key, NULL, ranking);
    }
    PyObject *result = NULL;
    if (interner_init(&c.queries, (size_t)PyDict_GET_SIZE(results)) < 0) {
        interner_free(&c.queries);
        return PyErr_NoMemory();
    }
    if (strings_init(&c.docs, c.total) < 0 || vec_reserve(&c.scores, c.total * sizeof(double)) < 0) {
        if (!PyErr_Occurred()) {
            PyErr_NoMemory();
        }
        goto done;
    }
    Py_ssize_t pos = 0;
    while (PyDict_Next(results, &pos, &query_key, &ranking)) {
        if (run_dict_entry(&c, query_key, ranking, &result) < 0) {
            goto done;
        }
    }
    if (c.row != c.total) {
        changed_during_reading("run_dict");
        goto done;
    }
    if (strings_close_chunk(&c.docs) == 0) {
        result = run_dict_result(&c);
    }
done:
    interner_free(&c.queries);
    strings_free(&c.docs);
    vec_free(&c.starts);
    vec_free(&c.codes);
    vec_free(&c.scores);
    vec_free(&c.check);
    return result;
}

/* ------------------------------------------------------------------------ */
/* qrels_dict                                                                */

PyDoc_STRVAR(qrels_dict_doc,
"qrels_dict(judgments, id_types, number_types, intern_docs=True, /)\n"
"--\n\n"
"Read {query: {doc: grade}}. Returns (query_names, query_codes, doc_names,\n"
"doc_codes, grades, doc_arrow, may_repeat, str_keys): ids interned in order of first\n"
"appearance, per judgment the query code and document code (int32 blocks)\n"
"and the grade (float64 block), the distinct document ids in Arrow's layout\n"
"(offsets, data) or None, and whether a (query, document) may be judged twice\n"
"(keys of mixed kinds), and whether every query key is a str (exactly).\n"
"Or a problem tuple (kind, query, doc, value).\n\n"
"With intern_docs false, documents are not interned: doc_names and doc_codes\n"
"are None and doc_arrow holds each judgment's document id, in row order\n"
"(all eight items None when those ids pass 2 GiB: intern them instead).");

/*
 * qrels_dict's result without interned documents: (query_names, query_codes,
 * None, None, grades, (row offsets int32, row bytes), may_repeat), or seven
 * Nones when the bytes pass what int32 offsets hold.
 */
static PyObject *
qrels_rows_result(Interner *queries, Vec *query_codes, Vec *grades, Vec *row_offsets,
                  Vec *row_bytes, size_t rows, int may_repeat, int str_keys)
{
    if (row_bytes->size > (size_t)INT32_MAX) {
        return Py_BuildValue("(OOOOOOOO)", Py_None, Py_None, Py_None, Py_None, Py_None, Py_None,
                             Py_None, Py_None);
    }
    /* the uint64 offsets narrowed in place to int32 (each write lands behind the reads) */
    const uint64_t *wide = (const uint64_t *)row_offsets->data;
    int32_t *narrow = (int32_t *)row_offsets->data;
    for (size_t i = 0; i <= rows; i++) {
        narrow[i] = (int32_t)wide[i];
    }
    row_offsets->size = (rows + 1) * sizeof(int32_t);
    PyObject *result = NULL;
    PyObject *query_names = interner_take_names(queries);
    PyObject *query_block = vec_to_block(query_codes);
    PyObject *grade_block = vec_to_block(grades);
    PyObject *offsets_block = vec_to_block(row_offsets);
    PyObject *bytes_block = vec_to_block(row_bytes);
    if (query_names != NULL && query_block != NULL && grade_block != NULL &&
        offsets_block != NULL && bytes_block != NULL) {
        result = Py_BuildValue("(OOOOO(OO)OO)", query_names, query_block, Py_None, Py_None,
                               grade_block, offsets_block, bytes_block,
                               may_repeat ? Py_True : Py_False, str_keys ? Py_True : Py_False);
    }
    Py_XDECREF(query_names);
    Py_XDECREF(query_block);
    Py_XDECREF(grade_block);
    Py_XDECREF(offsets_block);
    Py_XDECREF(bytes_block);
    return result;
}

/* A judgments dict's columns as they are read. */
typedef struct {
    PyObject *id_types, *number_types;
    int intern_docs;
    Interner queries, docs;
    Vec query_codes, doc_codes, grades;
    Vec row_offsets, row_bytes; /* intern_docs false: each judgment's document */
    IdText *pending;  /* the documents of the current query */
    PyObject **items; /* its keys and values (2 per document), borrowed unless `owned` */
    Py_ssize_t pending_cap;
    size_t n_pending, n_items;
    int owned;
    int may_repeat, str_keys;
    size_t row, total;
} QrelsColumns;

/* The columns sized for `total` judgments of `queries` queries; 0, or -1 (no memory). */
static int
qrels_start(QrelsColumns *c, size_t queries)
{
    int queries_ready = interner_init(&c->queries, queries) == 0;
    int docs_ready = interner_init(&c->docs, c->intern_docs ? c->total : 0) == 0;
    if (!queries_ready || !docs_ready || vec_reserve(&c->query_codes, c->total * 4) < 0 ||
        vec_reserve(&c->grades, c->total * 8) < 0 ||
        (c->intern_docs ? vec_reserve(&c->doc_codes, c->total * 4) < 0
                        : vec_reserve(&c->row_offsets, (c->total + 1) * 8) < 0 ||
                              vec_reserve(&c->row_bytes, c->total * 8) < 0)) {
        return -1;
    }
    if (!c->intern_docs) {
        uint64_t zero = 0;
        memcpy(c->row_offsets.data, &zero, sizeof zero);
    }
    return 0;
}

/* Room for a query's `size` documents and their items; 0, or -1 with an exception set. */
static int
qrels_reserve(QrelsColumns *c, Py_ssize_t size)
{
    if (size > c->pending_cap) {
        IdText *grown = PyMem_Realloc(c->pending, (size_t)size * sizeof(IdText));
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        c->pending = grown;
        PyObject **more = PyMem_Realloc(c->items, (size_t)size * 2 * sizeof(PyObject *));
        if (more == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        c->items = more;
        c->pending_cap = size;
    }
    return 0;
}

/* The items of `judged` gathered (PyDict_Next runs no Python code), their objects'
   first loads started; 0, or -1 when the dict changed (a RuntimeError). */
static int
qrels_gather(QrelsColumns *c, PyObject *judged, Py_ssize_t size)
{
    Py_ssize_t inner = 0;
    PyObject *doc_key, *value;
    while (c->n_items < (size_t)size && PyDict_Next(judged, &inner, &doc_key, &value)) {
        c->items[2 * c->n_items] = doc_key;
        c->items[2 * c->n_items + 1] = value;
        c->n_items++;
    }
    if (c->row + c->n_items > c->total || c->n_items != (size_t)size) {
        return changed_during_reading("qrels_dict");
    }
    for (size_t i = 0; i < c->n_items && i < PREFETCH_AHEAD; i++) {
        prefetch_object(c->items[2 * i]);
        prefetch_object(c->items[2 * i + 1]);
    }
    return 0;
}

/* Judgment i of the query (code `code`, first row first_row) read; 0, or -1 (*result: a
   problem tuple, or NULL with an exception set). */
static inline int
qrels_document(QrelsColumns *c, PyObject *query_key, int64_t code, size_t first_row, size_t i,
               int *kinds, PyObject **result)
{
    PyObject *doc_key = c->items[2 * i], *value = c->items[2 * i + 1];
    if (!c->owned && ((!PyUnicode_CheckExact(doc_key) && !PyLong_CheckExact(doc_key)) ||
                      (!PyFloat_CheckExact(value) && !PyLong_CheckExact(value)))) {
        for (size_t j = 0; j < c->n_items * 2; j++) { /* reading it may run Python code */
            Py_INCREF(c->items[j]);
        }
        c->owned = 1;
    }
    IdText *doc = &c->pending[c->row - first_row];
    if (!key_id(doc_key, c->id_types, doc, query_key, doc_key, result)) {
        return -1;
    }
    c->n_pending = c->row - first_row + 1;
    *kinds |= doc->kind;
    if (c->intern_docs) {
        doc->hash = hash_bytes((const unsigned char *)doc->s, (size_t)doc->n);
        interner_prefetch(&c->docs, doc->hash);
    }
    else {
        if (vec_append(&c->row_bytes, doc->s, (size_t)doc->n) < 0) {
            PyErr_NoMemory();
            return -1;
        }
        uint64_t end = c->row_bytes.size;
        memcpy(c->row_offsets.data + (c->row + 1) * 8, &end, 8);
    }
    double grade;
    if (!value_number(value, c->number_types, GRADES, query_key, doc_key, &grade, result)) {
        return -1;
    }
    int32_t q32 = (int32_t)code;
    memcpy(c->query_codes.data + c->row * 4, &q32, 4);
    memcpy(c->grades.data + c->row * 8, &grade, 8);
    c->row++;
    return 0;
}

/* The query's documents interned (from first_row on); 0, or -1 with an exception set. */
static int
qrels_intern_pending(QrelsColumns *c, size_t first_row)
{
    for (size_t i = 0; i < c->n_pending; i++) {
        IdText *doc = &c->pending[i];
        /* an int written as digits (no str): a str of it is made only when new */
        int added;
        int64_t doc_code = interner_code_hashed(&c->docs, (const unsigned char *)doc->s,
                                                (size_t)doc->n, doc->hash, doc->text, &added);
        if (doc_code < 0) {
            PyErr_NoMemory();
            return -1;
        }
        int32_t d32 = (int32_t)doc_code;
        memcpy(c->doc_codes.data + (first_row + i) * 4, &d32, 4);
    }
    return 0;
}

/*
 * One entry {query: {doc: grade}} read: 0, or -1 (*result: a problem tuple, or NULL with
 * an exception set). The query's documents are read first and their slots prefetched,
 * then interned: the table is large, and the loads overlap instead of waiting in turn.
 */
static int
qrels_entry(QrelsColumns *c, PyObject *query_key, PyObject *judged, PyObject **result)
{
    release_pending(c->pending, &c->n_pending);
    c->str_keys &= PyUnicode_CheckExact(query_key);
    Py_ssize_t size = PyDict_GET_SIZE(judged);
    if (size == 0) {
        return 0;
    }
    IdText query;
    if (!key_id(query_key, c->id_types, &query, query_key, NULL, result)) {
        return -1;
    }
    int added;
    int64_t code = interner_code(&c->queries, (const unsigned char *)query.s, (size_t)query.n,
                                 query.text, &added);
    id_release(&query);
    if (code < 0) {
        PyErr_NoMemory();
        return -1;
    }
    c->may_repeat |= !added;
    size_t first_row = c->row;
    int kinds = 0;
    if (qrels_reserve(c, size) < 0 || qrels_gather(c, judged, size) < 0) {
        return -1;
    }
    for (size_t i = 0; i < c->n_items; i++) {
        if (i + PREFETCH_AHEAD < c->n_items) {
            prefetch_object(c->items[2 * (i + PREFETCH_AHEAD)]);
            prefetch_object(c->items[2 * (i + PREFETCH_AHEAD) + 1]);
        }
        if (qrels_document(c, query_key, code, first_row, i, &kinds, result) < 0) {
            return -1;
        }
    }
    if (c->intern_docs && qrels_intern_pending(c, first_row) < 0) {
        return -1;
    }
    release_pending(c->pending, &c->n_pending);
    release_items(c->items, &c->n_items, &c->owned);
    if ((kinds & (kinds - 1)) || (kinds & KIND_OTHER)) {
        c->may_repeat = 1;
    }
    return 0;
}

/* (query_names, query_codes, doc_names, doc_codes, grades, doc_arrow, may_repeat,
   str_keys) with the documents interned, or NULL with an exception set. */
static PyObject *
qrels_interned_result(QrelsColumns *c)
{
    PyObject *result = NULL;
    PyObject *query_names = interner_take_names(&c->queries);
    PyObject *doc_names = query_names == NULL ? NULL : interner_take_names(&c->docs);
    PyObject *query_block = vec_to_block(&c->query_codes);
    PyObject *doc_block = vec_to_block(&c->doc_codes);
    PyObject *grade_block = vec_to_block(&c->grades);
    PyObject *arrow = doc_names == NULL ? NULL : interner_arrow(&c->docs);
    if (query_names != NULL && doc_names != NULL && query_block != NULL &&
        doc_block != NULL && grade_block != NULL && arrow != NULL) {
        result = Py_BuildValue("(OOOOOOOO)", query_names, query_block, doc_names, doc_block,
                               grade_block, arrow, c->may_repeat ? Py_True : Py_False,
                               c->str_keys ? Py_True : Py_False);
    }
    Py_XDECREF(query_names);
    Py_XDECREF(doc_names);
    Py_XDECREF(query_block);
    Py_XDECREF(doc_block);
    Py_XDECREF(grade_block);
    Py_XDECREF(arrow);
    return result;
}

static PyObject *
ccolumns_qrels_dict(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *judgments, *id_types, *number_types;
    int intern_docs = 1;
    if (!PyArg_ParseTuple(args, "OOO|p:qrels_dict", &judgments, &id_types, &number_types,
                          &intern_docs)) {
        return NULL;
    }
    if (!PyDict_Check(judgments)) {
        return problem("qrels", judgments, NULL, NULL);
    }
    QrelsColumns c;
    memset(&c, 0, sizeof c);
    c.id_types = id_types == Py_None ? NULL : id_types;
    c.number_types = number_types == Py_None ? NULL : number_types;
    c.intern_docs = intern_docs;
    c.str_keys = 1;
    Py_ssize_t largest;
    PyObject *query_key, *judged, *result = NULL;
    if (!inner_sizes(judgments, &c.total, &largest, &query_key, &judged)) {
        return problem("judged", query_key, NULL, judged);
    }
    if (qrels_start(&c, (size_t)PyDict_GET_SIZE(judgments)) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t pos = 0;
    while (PyDict_Next(judgments, &pos, &query_key, &judged)) {
        prefetch_next_values(judgments, pos);
        if (qrels_entry(&c, query_key, judged, &result) < 0) {
            goto done;
        }
    }
    if (c.row != c.total) {
        changed_during_reading("qrels_dict");
        goto done;
    }
    c.query_codes.size = c.row * 4;
    c.grades.size = c.row * 8;
    c.doc_codes.size = c.intern_docs ? c.row * 4 : 0;
    result = c.intern_docs ? qrels_interned_result(&c)
                           : qrels_rows_result(&c.queries, &c.query_codes, &c.grades,
                                               &c.row_offsets, &c.row_bytes, c.row,
                                               c.may_repeat, c.str_keys);
done:
    release_pending(c.pending, &c.n_pending);
    release_items(c.items, &c.n_items, &c.owned);
    PyMem_Free(c.pending);
    PyMem_Free(c.items);
    interner_free(&c.queries);
    interner_free(&c.docs);
    vec_free(&c.query_codes);
    vec_free(&c.doc_codes);
    vec_free(&c.grades);
    vec_free(&c.row_offsets);
    vec_free(&c.row_bytes);
    return result;
}

/* ------------------------------------------------------------------------ */
/* run_table: string columns as Arrow buffers or object arrays               */

enum { SRC_STRING = 0, SRC_LARGE = 1, SRC_VIEW = 2, SRC_OBJECTS = 3 };

typedef struct {
    Py_ssize_t length;
    Py_ssize_t offset;   /* the array's offset into its buffers */
    Py_buffer main;      /* offsets (int32/int64), views (16 bytes each) */
    Py_buffer *data;     /* data buffers (one; string_view: any number) */
    Py_ssize_t n_data;
    PyObject **objects;  /* SRC_OBJECTS: the array's items */
    int held_main;
} SourceChunk;

typedef struct {
    int kind;
    Py_ssize_t n_chunks;
    SourceChunk *chunks;
    Py_ssize_t total;
    /* iteration */
    Py_ssize_t chunk, index;
} Source;

static void
source_free(Source *src)
{
    for (Py_ssize_t c = 0; c < src->n_chunks; c++) {
        SourceChunk *chunk = &src->chunks[c];
        if (chunk->held_main) {
            PyBuffer_Release(&chunk->main);
        }
        for (Py_ssize_t b = 0; b < chunk->n_data; b++) {
            PyBuffer_Release(&chunk->data[b]);
        }
        PyMem_Free(chunk->data);
    }
    PyMem_Free(src->chunks);
    src->chunks = NULL;
    src->n_chunks = 0;
}

/*
 * A source from (kind, chunks): Arrow chunks are (length, main buffer, [data
 * buffers], offset); an object array is one chunk (length, address). 0, or -1
 * with an exception set.
 */
static int
source_init(Source *src, PyObject *spec)
{
    memset(src, 0, sizeof *src);
    PyObject *chunk_list;
    if (!PyArg_ParseTuple(spec, "iO!", &src->kind, &PyList_Type, &chunk_list)) {
        return -1;
    }
    if (src->kind < SRC_STRING || src->kind > SRC_OBJECTS) {
        PyErr_SetString(PyExc_ValueError, "run_table: unknown source kind");
        return -1;
    }
    Py_ssize_t n = PyList_GET_SIZE(chunk_list);
    src->chunks = PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof(SourceChunk));
    if (src->chunks == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    src->n_chunks = n;
    for (Py_ssize_t c = 0; c < n; c++) {
        SourceChunk *chunk = &src->chunks[c];
        PyObject *item = PyList_GET_ITEM(chunk_list, c);
        if (src->kind == SRC_OBJECTS) {
            Py_ssize_t address;
            if (!PyArg_ParseTuple(item, "nn", &chunk->length, &address)) {
                return -1;
            }
            chunk->objects = (PyObject **)address;
        }
        else {
            PyObject *main, *data_list;
            if (!PyArg_ParseTuple(item, "nOO!n", &chunk->length, &main, &PyList_Type, &data_list,
                                  &chunk->offset)) {
                return -1;
            }
            if (PyObject_GetBuffer(main, &chunk->main, PyBUF_SIMPLE) < 0) {
                return -1;
            }
            chunk->held_main = 1;
            Py_ssize_t n_data = PyList_GET_SIZE(data_list);
            chunk->data = PyMem_Calloc((size_t)(n_data > 0 ? n_data : 1), sizeof(Py_buffer));
            if (chunk->data == NULL) {
                PyErr_NoMemory();
                return -1;
            }
            for (Py_ssize_t b = 0; b < n_data; b++) {
                if (PyObject_GetBuffer(PyList_GET_ITEM(data_list, b), &chunk->data[b],
                                       PyBUF_SIMPLE) < 0) {
                    return -1;
                }
                chunk->n_data = b + 1;
            }
            /* bounds of the main buffer; each string's bounds are checked as it is read */
            Py_ssize_t width = src->kind == SRC_STRING ? 4 : src->kind == SRC_LARGE ? 8 : 16;
            Py_ssize_t entries = chunk->length + (src->kind == SRC_VIEW ? 0 : 1);
            if (chunk->length < 0 || chunk->offset < 0 ||
                chunk->main.len < (chunk->offset + entries) * width ||
                (src->kind != SRC_VIEW && chunk->length > 0 && n_data != 1)) {
                PyErr_SetString(PyExc_ValueError, "run_table: buffers do not match the lengths");
                return -1;
            }
        }
        src->total += chunk->length;
    }
    return 0;
}

/*
 * The next string: 1 with (s, n); 0 when the source declines it (*why set);
 * -1 with an exception set. *object is the str of an object source (else NULL).
 */
static inline int
source_next(Source *src, const char **s, size_t *n, PyObject **owned, PyObject **object,
            const char **why)
{
    while (src->index >= src->chunks[src->chunk].length) {
        src->chunk++;
        src->index = 0;
    }
    SourceChunk *chunk = &src->chunks[src->chunk];
    Py_ssize_t i = chunk->offset + src->index++;
    *object = NULL;
    switch (src->kind) {
    case SRC_STRING: {
        const int32_t *o = (const int32_t *)chunk->main.buf;
        int32_t a = o[i], b = o[i + 1];
        if (UNLIKELY(a < 0 || b < a || b > chunk->data[0].len)) {
            *why = "offsets past the data";
            return 0;
        }
        *s = (const char *)chunk->data[0].buf + a;
        *n = (size_t)(b - a);
        return 1;
    }
    case SRC_LARGE: {
        const int64_t *o = (const int64_t *)chunk->main.buf;
        int64_t a = o[i], b = o[i + 1];
        if (UNLIKELY(a < 0 || b < a || b > chunk->data[0].len)) {
            *why = "offsets past the data";
            return 0;
        }
        *s = (const char *)chunk->data[0].buf + a;
        *n = (size_t)(b - a);
        return 1;
    }
    case SRC_VIEW: {
        const unsigned char *view = (const unsigned char *)chunk->main.buf + 16 * i;
        int32_t length, buffer, offset;
        memcpy(&length, view, 4);
        if (UNLIKELY(length < 0)) {
            *why = "a negative view length";
            return 0;
        }
        if (length <= 12) {
            *s = (const char *)view + 4;
            *n = (size_t)length;
            return 1;
        }
        memcpy(&buffer, view + 8, 4);
        memcpy(&offset, view + 12, 4);
        if (UNLIKELY(buffer < 0 || buffer >= chunk->n_data || offset < 0 ||
                     (Py_ssize_t)offset + length > chunk->data[buffer].len)) {
            *why = "a view past its data";
            return 0;
        }
        *s = (const char *)chunk->data[buffer].buf + offset;
        *n = (size_t)length;
        return 1;
    }
    default: {
        PyObject *item = chunk->objects[i];
        if (UNLIKELY(!PyUnicode_Check(item))) {
            *why = "an id that is not a str";
            return 0;
        }
        *object = item;
        if (LIKELY(PyUnicode_IS_COMPACT_ASCII(item))) {
            *s = (const char *)PyUnicode_DATA(item);
            *n = (size_t)PyUnicode_GET_LENGTH(item);
            return 1;
        }
        PyObject *encoded = PyUnicode_AsUTF8String(item);
        if (encoded == NULL) {
            if (PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) {
                PyErr_Clear();
                *why = "a str that is not valid Unicode";
                return 0;
            }
            return -1;
        }
        Py_XSETREF(*owned, encoded);
        *s = PyBytes_AS_STRING(encoded);
        *n = (size_t)PyBytes_GET_SIZE(encoded);
        return 1;
    }
    }
}

PyDoc_STRVAR(run_table_doc,
"run_table(queries, docs, scores, copy_docs, /)\n"
"--\n\n"
"Read a run's query and document columns and its scores (a float64 buffer).\n"
"queries and docs are (kind, chunks): kind STRING, LARGE_STRING or\n"
"STRING_VIEW with Arrow chunks (length, main buffer, [data buffers], offset),\n"
"or OBJECTS with one chunk (length, address of a numpy object array's items).\n"
"Returns (names, segment_starts, segment_codes, split_codes, doc_pieces,\n"
"descending): the query ids, the first row (int64) and query code (int32) of\n"
"each block of rows of one query, the codes of queries in more than one block,\n"
"the document ids in Arrow's layout [(rows, offsets, data)] (None unless\n"
"copy_docs), and whether scores never rise within a block; or a str saying\n"
"why the columns need the general reader (a document twice in a block, a\n"
"score not finite, an id not a str, ...).");

/* A run's columns (run_table) as they are read. */
typedef struct {
    Source queries, docs;
    int copy_docs;
    Interner names;
    SeenSet seen;
    StringsOut out;
    Vec starts, codes, split;
    Vec last_query;        /* the query id of the row before */
    PyObject *last_object; /* its str (an object source), or NULL */
    PyObject *kept;        /* encoded non-ASCII document ids of the current block */
    int64_t code;          /* the current block's query code (-1: none yet) */
    double last_score;
    int rising;
} TableColumns;

/* A new block of rows from `row` on, of the query id qs[0:qn]; 0, or -1 with an exception. */
static int
table_new_block(TableColumns *c, Py_ssize_t row, const char *qs, size_t qn)
{
    int added;
    c->code = interner_code(&c->names, (const unsigned char *)qs, qn, NULL, &added);
    c->last_query.size = 0;
    if (c->code < 0 || vec_push_i64(&c->starts, (int64_t)row) < 0 ||
        vec_push_i32(&c->codes, (int32_t)c->code) < 0 ||
        (!added && vec_push_i32(&c->split, (int32_t)c->code) < 0) ||
        vec_append(&c->last_query, qs, qn) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    seen_clear(&c->seen);
    c->last_score = INFINITY;
    if (PyList_GET_SIZE(c->kept) &&
        PyList_SetSlice(c->kept, 0, PyList_GET_SIZE(c->kept), NULL) < 0) {
        return -1;
    }
    return 0;
}

/* Row `row` read: its query (a new block when it differs from the row before), its
   document and its score. 1; 0 when the row needs the general reader (*why); -1 with an
   exception set. */
static inline int
table_row(TableColumns *c, Py_ssize_t row, double score, const char **why)
{
    const char *qs, *ds;
    size_t qn, dn;
    PyObject *query_object, *doc_object, *owned = NULL;
    int got = source_next(&c->queries, &qs, &qn, &owned, &query_object, why);
    if (got > 0) {
        int same = c->code >= 0 &&
                   ((query_object != NULL && query_object == c->last_object) ||
                    (qn == c->last_query.size && memcmp(qs, c->last_query.data, qn) == 0));
        got = same || table_new_block(c, row, qs, qn) == 0 ? 1 : -1;
    }
    Py_CLEAR(owned);
    if (got <= 0) {
        return got;
    }
    c->last_object = query_object;
    got = source_next(&c->docs, &ds, &dn, &owned, &doc_object, why);
    if (got <= 0) {
        Py_XDECREF(owned);
        return got;
    }
    if (owned != NULL) { /* keep the encoded id while the block's check points at it */
        int appended = PyList_Append(c->kept, owned);
        Py_DECREF(owned);
        if (appended < 0) {
            return -1;
        }
    }
    if (c->copy_docs && strings_append(&c->out, ds, dn) < 0) {
        return -1;
    }
    int repeated = seen_add(&c->seen, (const unsigned char *)ds, dn);
    if (UNLIKELY(repeated)) {
        if (repeated < 0) {
            PyErr_NoMemory();
            return -1;
        }
        *why = "a document twice in one query";
        return 0;
    }
    if (UNLIKELY(!isfinite(score))) {
        *why = "a score that is not finite";
        return 0;
    }
    c->rising |= score > c->last_score;
    c->last_score = score;
    return 1;
}

/* (names, segment_starts, segment_codes, split_codes, doc_pieces, descending), or NULL. */
static PyObject *
table_result(TableColumns *c)
{
    PyObject *result = NULL;
    PyObject *name_list = interner_take_names(&c->names);
    PyObject *split_list = codes_list(&c->split);
    PyObject *starts_block = vec_to_block(&c->starts);
    PyObject *codes_block = vec_to_block(&c->codes);
    if (name_list != NULL && split_list != NULL && starts_block != NULL && codes_block != NULL) {
        result = Py_BuildValue("(OOOOOO)", name_list, starts_block, codes_block, split_list,
                               c->copy_docs ? c->out.pieces : Py_None,
                               c->rising ? Py_False : Py_True);
    }
    Py_XDECREF(name_list);
    Py_XDECREF(split_list);
    Py_XDECREF(starts_block);
    Py_XDECREF(codes_block);
    return result;
}

static PyObject *
ccolumns_run_table(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *query_spec, *doc_spec, *scores_object;
    int copy_docs;
    if (!PyArg_ParseTuple(args, "OOOp:run_table", &query_spec, &doc_spec, &scores_object,
                          &copy_docs)) {
        return NULL;
    }
    TableColumns c;
    memset(&c, 0, sizeof c);
    c.copy_docs = copy_docs;
    c.code = -1;
    c.last_score = INFINITY;
    int docs_held = 0, scores_held = 0;
    Py_buffer scores_view;
    PyObject *result = NULL;
    const char *why = NULL;
    int names_ready = interner_init(&c.names, 1024) == 0;
    if (source_init(&c.queries, query_spec) < 0) {
        goto done;
    }
    docs_held = 1;
    if (source_init(&c.docs, doc_spec) < 0 ||
        PyObject_GetBuffer(scores_object, &scores_view, PyBUF_SIMPLE) < 0) {
        goto done;
    }
    scores_held = 1;
    Py_ssize_t rows = c.queries.total;
    if (c.docs.total != rows || scores_view.len != rows * (Py_ssize_t)sizeof(double)) {
        PyErr_SetString(PyExc_ValueError, "run_table: columns of different lengths");
        goto done;
    }
    if ((c.kept = PyList_New(0)) == NULL) {
        goto done;
    }
    if (!names_ready || seen_init(&c.seen) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    if (copy_docs && strings_init(&c.out, (size_t)rows) < 0) {
        goto done;
    }
    const double *scores = (const double *)scores_view.buf;
    for (Py_ssize_t row = 0; row < rows; row++) {
        if (table_row(&c, row, scores[row], &why) <= 0) {
            break;
        }
    }
    if (PyErr_Occurred()) {
        goto done;
    }
    if (why != NULL) {
        result = PyUnicode_FromString(why);
        goto done;
    }
    if (!copy_docs || strings_close_chunk(&c.out) == 0) {
        result = table_result(&c);
    }
done:
    Py_XDECREF(c.kept);
    source_free(&c.queries);
    if (docs_held) {
        source_free(&c.docs);
    }
    if (scores_held) {
        PyBuffer_Release(&scores_view);
    }
    interner_free(&c.names);
    free(c.seen.slots);
    strings_free(&c.out);
    vec_free(&c.starts);
    vec_free(&c.codes);
    vec_free(&c.split);
    vec_free(&c.last_query);
    return result;
}

/* ------------------------------------------------------------------------ */
/* per_query_dicts: a matrix of values as {name: {key: value}}               */

PyDoc_STRVAR(per_query_dicts_doc,
"per_query_dicts(names, keys, values, /)\n"
"--\n\n"
"{names[i]: {keys[j]: values[i * len(keys) + j]}} for every i and j: names and\n"
"keys lists (of hashable objects), values a buffer of len(names) * len(keys)\n"
"float64 items, one row per name (pytrec_eval's output, built without a Python\n"
"loop). A name given twice keeps its last row, as dict(zip(...)) would.");

static PyObject *
ccolumns_per_query_dicts(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *names, *keys, *values;
    if (!PyArg_ParseTuple(args, "O!O!O:per_query_dicts", &PyList_Type, &names, &PyList_Type,
                          &keys, &values)) {
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(values, &view, PyBUF_C_CONTIGUOUS) < 0) {
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(names), k = PyList_GET_SIZE(keys);
    PyObject *out = NULL;
    if (view.len != n * k * (Py_ssize_t)sizeof(double)) {
        PyErr_Format(PyExc_ValueError,
                     "per_query_dicts: %zd names x %zd keys need %zd values, not %zd bytes", n,
                     k, n * k, view.len);
        goto done;
    }
    out = PyDict_New();
    const double *x = (const double *)view.buf;
    for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
        PyObject *inner = PyDict_New();
        for (Py_ssize_t j = 0; inner != NULL && j < k; j++) {
            double value;
            memcpy(&value, x + i * k + j, sizeof value);
            PyObject *number = PyFloat_FromDouble(value);
            if (number == NULL || PyDict_SetItem(inner, PyList_GET_ITEM(keys, j), number) < 0) {
                Py_CLEAR(inner);
            }
            Py_XDECREF(number);
        }
        if (inner == NULL || PyDict_SetItem(out, PyList_GET_ITEM(names, i), inner) < 0) {
            Py_CLEAR(out);
        }
        Py_XDECREF(inner);
    }
done:
    PyBuffer_Release(&view);
    return out;
}

/* ------------------------------------------------------------------------ */
/* Codes of names (query ids): lists joined, or looked up, in one pass       */

/* A name's UTF-8 text and its hash. */
typedef struct {
    const unsigned char *s;
    size_t n;
    uint64_t h;
} NameText;

/* How many names ahead the interner's slot of a name is loaded (the table is large and
   names come in no order, so every look is a cache miss otherwise). */
#define NAMES_AHEAD 16

/*
 * The texts of the k names of a list: 0, or -1 with no exception when a name is not a
 * str or has no UTF-8 text (a lone surrogate). The names' objects are loaded ahead.
 */
static int
name_texts(PyObject *list, NameText *texts)
{
    Py_ssize_t k = PyList_GET_SIZE(list);
    for (Py_ssize_t i = 0; i < k; i++) {
        if (i + PREFETCH_AHEAD < k) {
            prefetch_object(PyList_GET_ITEM(list, i + PREFETCH_AHEAD));
        }
        PyObject *item = PyList_GET_ITEM(list, i);
        if (!PyUnicode_Check(item)) {
            return -1;
        }
        Py_ssize_t n;
        const char *s = PyUnicode_AsUTF8AndSize(item, &n);
        if (s == NULL) {
            PyErr_Clear();
            return -1;
        }
        texts[i].s = (const unsigned char *)s;
        texts[i].n = (size_t)n;
        texts[i].h = hash_bytes(texts[i].s, texts[i].n);
    }
    return 0;
}

/* The largest length of the lists in `lists` (a list of lists); -1 with TypeError set when
   an item is not a list. */
static Py_ssize_t
longest_list(PyObject *lists, const char *function)
{
    Py_ssize_t longest = 0;
    for (Py_ssize_t p = 0; p < PyList_GET_SIZE(lists); p++) {
        PyObject *part = PyList_GET_ITEM(lists, p);
        if (!PyList_Check(part)) {
            PyErr_Format(PyExc_TypeError, "%s: a list of lists of str is expected", function);
            return -1;
        }
        longest = PyList_GET_SIZE(part) > longest ? PyList_GET_SIZE(part) : longest;
    }
    return longest;
}

PyDoc_STRVAR(merge_names_doc,
"merge_names(parts, /)\n"
"--\n\n"
"The distinct names of parts (a list of lists of str) in order of first\n"
"appearance, and per part the code of each of its names among them: a tuple\n"
"(names, remaps), a remap being an int32 buffer, or None where the codes are\n"
"0, 1, 2, ... (the part adds its names in its order). The names are the parts'\n"
"own str objects. Names are the same when their UTF-8 text is. Returns None\n"
"when a name is not a str or has no UTF-8 text (a lone surrogate).");

static PyObject *
ccolumns_merge_names(PyObject *module, PyObject *parts)
{
    (void)module;
    if (!PyList_Check(parts)) {
        PyErr_SetString(PyExc_TypeError, "merge_names: a list of lists of str is expected");
        return NULL;
    }
    Py_ssize_t longest = longest_list(parts, "merge_names");
    if (longest < 0) {
        return NULL;
    }
    Py_ssize_t n_parts = PyList_GET_SIZE(parts);
    Interner in;
    NameText *texts = PyMem_Malloc((size_t)(longest > 0 ? longest : 1) * sizeof(NameText));
    PyObject *remaps = PyList_New(n_parts);
    PyObject *result = NULL;
    int ready = interner_init(&in, (size_t)longest) == 0;
    if (texts == NULL || remaps == NULL || !ready) {
        if (remaps != NULL) {
            PyErr_NoMemory();
        }
        goto done;
    }
    for (Py_ssize_t p = 0; p < n_parts; p++) {
        PyObject *part = PyList_GET_ITEM(parts, p);
        Py_ssize_t k = PyList_GET_SIZE(part);
        if (name_texts(part, texts) < 0) {
            result = Py_NewRef(Py_None);
            goto done;
        }
        Vec codes = {0};
        if (vec_reserve(&codes, (size_t)(k > 0 ? k : 1) * sizeof(int32_t)) < 0) {
            PyErr_NoMemory();
            goto done;
        }
        int32_t *out = (int32_t *)codes.data;
        int identity = 1;
        for (Py_ssize_t i = 0; i < k; i++) {
            if (i + NAMES_AHEAD < k) {
                interner_prefetch(&in, texts[i + NAMES_AHEAD].h);
            }
            int added;
            int64_t code = interner_code_hashed(&in, texts[i].s, texts[i].n, texts[i].h,
                                                PyList_GET_ITEM(part, i), &added);
            if (code < 0) {
                vec_free(&codes);
                PyErr_NoMemory();
                goto done;
            }
            identity &= code == (int64_t)i;
            out[i] = (int32_t)code;
        }
        codes.size = (size_t)k * sizeof(int32_t);
        PyObject *remap = identity ? Py_NewRef(Py_None) : vec_to_block(&codes);
        vec_free(&codes);
        if (remap == NULL) {
            goto done;
        }
        PyList_SET_ITEM(remaps, p, remap);
    }
    PyObject *names = interner_take_names(&in);
    if (names != NULL) {
        result = PyTuple_Pack(2, names, remaps);
        Py_DECREF(names);
    }
done:
    interner_free(&in); /* safe after interner_init, which clears it first */
    PyMem_Free(texts);
    Py_XDECREF(remaps);
    return result;
}

PyDoc_STRVAR(name_codes_doc,
"name_codes(index, names, /)\n"
"--\n\n"
"Per name of names (a list of str), its position in index (a list of str; a\n"
"name given twice there has the position of its first), or -1: an int64\n"
"buffer. Names are the same when their UTF-8 text is. Returns None when a name\n"
"of either list is not a str or has no UTF-8 text (a lone surrogate).");

static PyObject *
ccolumns_name_codes(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *index, *names;
    if (!PyArg_ParseTuple(args, "O!O!:name_codes", &PyList_Type, &index, &PyList_Type,
                          &names)) {
        return NULL;
    }
    Py_ssize_t k = PyList_GET_SIZE(index), n_names = PyList_GET_SIZE(names);
    Py_ssize_t longest = k > n_names ? k : n_names;
    Interner in;
    Vec codes = {0};
    /* the position in index of each distinct name (a name given twice: its first) */
    int64_t *positions = PyMem_Malloc((size_t)(k > 0 ? k : 1) * sizeof(int64_t));
    NameText *texts = PyMem_Malloc((size_t)(longest > 0 ? longest : 1) * sizeof(NameText));
    PyObject *result = NULL;
    int ready = interner_init(&in, (size_t)k) == 0;
    if (texts == NULL || positions == NULL || !ready ||
        vec_reserve(&codes, (size_t)(n_names > 0 ? n_names : 1) * sizeof(int64_t)) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    if (name_texts(index, texts) < 0) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    for (Py_ssize_t i = 0; i < k; i++) {
        if (i + NAMES_AHEAD < k) {
            interner_prefetch(&in, texts[i + NAMES_AHEAD].h);
        }
        int added;
        int64_t code = interner_code_hashed(&in, texts[i].s, texts[i].n, texts[i].h, NULL, &added);
        if (code < 0) {
            PyErr_NoMemory();
            goto done;
        }
        if (added) {
            positions[code] = i;
        }
    }
    if (name_texts(names, texts) < 0) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    int64_t *out = (int64_t *)codes.data;
    for (Py_ssize_t i = 0; i < n_names; i++) {
        if (i + NAMES_AHEAD < n_names) {
            interner_prefetch(&in, texts[i + NAMES_AHEAD].h);
        }
        int64_t code = interner_find(&in, texts[i].s, texts[i].n, texts[i].h);
        out[i] = code < 0 ? -1 : positions[code];
    }
    codes.size = (size_t)n_names * sizeof(int64_t);
    result = vec_to_block(&codes);
done:
    interner_free(&in); /* safe after interner_init, which clears it first */
    vec_free(&codes);
    PyMem_Free(positions);
    PyMem_Free(texts);
    return result;
}

static PyMethodDef ccolumns_methods[] = {
    {"run_dict", ccolumns_run_dict, METH_VARARGS, run_dict_doc},
    {"qrels_dict", ccolumns_qrels_dict, METH_VARARGS, qrels_dict_doc},
    {"run_table", ccolumns_run_table, METH_VARARGS, run_table_doc},
    {"per_query_dicts", ccolumns_per_query_dicts, METH_VARARGS, per_query_dicts_doc},
    {"merge_names", ccolumns_merge_names, METH_O, merge_names_doc},
    {"name_codes", ccolumns_name_codes, METH_VARARGS, name_codes_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef ccolumns_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "rankwise.data._ccolumns",
    .m_doc = "Python dicts, object arrays and Arrow string columns to run and qrels columns "
             "(see rankwise.io.dicts and rankwise.io.frames).",
    .m_size = -1,
    .m_methods = ccolumns_methods,
};

PyMODINIT_FUNC
PyInit__ccolumns(void)
{
    if (PyType_Ready(&BlockType) < 0) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&ccolumns_module);
    if (module == NULL) {
        return NULL;
    }
    if (PyModule_AddIntConstant(module, "STRING", SRC_STRING) < 0 ||
        PyModule_AddIntConstant(module, "LARGE_STRING", SRC_LARGE) < 0 ||
        PyModule_AddIntConstant(module, "STRING_VIEW", SRC_VIEW) < 0 ||
        PyModule_AddIntConstant(module, "OBJECTS", SRC_OBJECTS) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
