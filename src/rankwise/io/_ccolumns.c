/*
 * rankwise.io._ccolumns: Python dicts, object arrays and Arrow string columns
 * to the columns of a Run or Qrels, at C speed.
 *
 * run_dict / qrels_dict iterate {query: {doc: value}} with the C API: query
 * ids are interned as they come, document ids are written straight into
 * Arrow's string layout (runs) or interned (qrels), values into float64.
 * Keys must be str or int (numpy integers too), values real numbers; on
 * anything else the functions stop and return a "problem" tuple (kind,
 * query key, doc key, value) from which the caller raises the same error the
 * pure Python reader raises (rankwise.io.dicts).
 *
 * run_table reads a run's query and document columns given as Arrow string,
 * large_string or string_view buffers, or as numpy object arrays of str: it
 * cuts the rows into blocks of one query (ids interned), checks that no
 * document appears twice in a block, notes whether scores descend in every
 * block, and writes the document ids in Arrow's string layout where they are
 * not in it already. It declines (returns a str) whatever it does not read
 * with certainty; the caller then takes the general path (pyarrow).
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

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#include <sys/mman.h>
#define HAVE_PTHREADS 1
#endif

#include "rankwise_strings.h"
#include "rankwise_ranks.h"

/* ------------------------------------------------------------------------ */
/* Block: malloc'd memory handed to Python through the buffer protocol       */

typedef struct {
    PyObject_HEAD
    char *data;
    Py_ssize_t size;
} BlockObject;

static char empty_block[8];

static void
block_dealloc(BlockObject *self)
{
    free(self->data);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int
block_getbuffer(BlockObject *self, Py_buffer *view, int flags)
{
    void *data = self->data != NULL ? (void *)self->data : (void *)empty_block;
    return PyBuffer_FillInfo(view, (PyObject *)self, data, self->size, 0, flags);
}

static Py_ssize_t
block_length(BlockObject *self)
{
    return self->size;
}

static PyBufferProcs block_as_buffer = {.bf_getbuffer = (getbufferproc)block_getbuffer};
static PySequenceMethods block_as_sequence = {.sq_length = (lenfunc)block_length};

static PyTypeObject BlockType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "rankwise.io._ccolumns.Block",
    .tp_basicsize = sizeof(BlockObject),
    .tp_dealloc = (destructor)block_dealloc,
    .tp_as_buffer = &block_as_buffer,
    .tp_as_sequence = &block_as_sequence,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Memory owned by rankwise's column readers, exposed as a writable buffer.",
};

/* ------------------------------------------------------------------------ */
/* Growable byte vectors                                                     */

typedef struct {
    char *data;
    size_t size;
    size_t cap;
} Vec;

/* Ask for transparent huge pages on a large block: far fewer page faults when it is filled. */
static void
advise_huge_pages(char *data, size_t size)
{
#if defined(MADV_HUGEPAGE)
    const size_t huge = (size_t)2 << 20;
    if (size < 2 * huge) {
        return;
    }
    uintptr_t start = ((uintptr_t)data + huge - 1) & ~(uintptr_t)(huge - 1);
    uintptr_t stop = ((uintptr_t)data + size) & ~(uintptr_t)(huge - 1);
    if (stop > start) {
        madvise((void *)start, stop - start, MADV_HUGEPAGE);
    }
#else
    (void)data;
    (void)size;
#endif
}

static int
vec_grow(Vec *v, size_t need)
{
    size_t cap = v->cap ? v->cap : (need > 256 ? need : 256); /* a first reserve is exact */
    while (cap < need) {
        cap += cap / 2 + 256;
    }
    char *grown = realloc(v->data, cap);
    if (grown == NULL) {
        return -1;
    }
    v->data = grown;
    v->cap = cap;
    advise_huge_pages(grown, cap);
    return 0;
}

static inline int
vec_reserve(Vec *v, size_t extra)
{
    size_t need = v->size + extra;
    return LIKELY(need <= v->cap) ? 0 : vec_grow(v, need);
}

static inline int
vec_append(Vec *v, const void *src, size_t n)
{
    if (UNLIKELY(vec_reserve(v, n) < 0)) {
        return -1;
    }
    if (n) {
        memcpy(v->data + v->size, src, n);
    }
    v->size += n;
    return 0;
}

static inline int
vec_push_i32(Vec *v, int32_t value)
{
    return vec_append(v, &value, sizeof value);
}

static inline int
vec_push_i64(Vec *v, int64_t value)
{
    return vec_append(v, &value, sizeof value);
}

static inline int
vec_push_f64(Vec *v, double value)
{
    return vec_append(v, &value, sizeof value);
}

static void
vec_free(Vec *v)
{
    free(v->data);
    v->data = NULL;
    v->size = v->cap = 0;
}

/* Hand the vector's memory to a new Block (the vector is left empty); NULL on failure. */
static PyObject *
vec_to_block(Vec *v)
{
    BlockObject *block = PyObject_New(BlockObject, &BlockType);
    if (block == NULL) {
        return NULL;
    }
    if (v->size < v->cap) { /* give back the slack */
        char *shrunk = realloc(v->data, v->size ? v->size : 1);
        if (shrunk != NULL) {
            v->data = shrunk;
        }
    }
    block->data = v->data;
    block->size = (Py_ssize_t)v->size;
    v->data = NULL;
    v->size = v->cap = 0;
    return (PyObject *)block;
}

/* ------------------------------------------------------------------------ */
/* Interning ids: bytes -> code (first appearance), with a Python name each  */

typedef struct {
    Vec bytes;        /* the distinct ids, concatenated */
    Vec offsets;      /* uint64 start of each id in bytes, plus the end */
    Vec names;        /* PyObject* per code (a new reference), or NULL: decode the bytes */
    Vec hashes;       /* uint64 per code (to grow the table) */
    uint64_t *slots;  /* open addressing: (high half of the hash) << 32 | (code + 1); 0 = empty */
    size_t cap;
    size_t count;
} Interner;

/* An interner sized for about `expected` ids (it grows past them). 0, or -1: no memory. */
static int
interner_init(Interner *in, size_t expected)
{
    memset(in, 0, sizeof(*in));
    in->cap = 64;
    while (in->cap < expected * 2 && in->cap < ((size_t)1 << 31)) {
        in->cap *= 2;
    }
    in->slots = calloc(in->cap, sizeof(uint64_t));
    if (in->slots != NULL) {
        advise_huge_pages((char *)in->slots, in->cap * sizeof(uint64_t));
    }
    uint64_t zero = 0;
    if (in->slots == NULL || vec_append(&in->offsets, &zero, sizeof zero) < 0) {
        return -1;
    }
    return 0;
}

static void
interner_free(Interner *in)
{
    PyObject **names = (PyObject **)in->names.data;
    for (size_t i = 0; i < in->names.size / sizeof(PyObject *); i++) {
        Py_XDECREF(names[i]);
    }
    vec_free(&in->names);
    vec_free(&in->bytes);
    vec_free(&in->offsets);
    vec_free(&in->hashes);
    free(in->slots);
    in->slots = NULL;
}

static inline const unsigned char *
interner_bytes(const Interner *in, size_t code, size_t *length)
{
    const uint64_t *offsets = (const uint64_t *)in->offsets.data;
    *length = (size_t)(offsets[code + 1] - offsets[code]);
    return (const unsigned char *)in->bytes.data + offsets[code];
}

static int
interner_grow(Interner *in)
{
    size_t cap = in->cap * 2;
    uint64_t *slots = calloc(cap, sizeof(uint64_t));
    if (slots == NULL) {
        return -1;
    }
    advise_huge_pages((char *)slots, cap * sizeof(uint64_t));
    const uint64_t *hashes = (const uint64_t *)in->hashes.data;
    for (size_t code = 0; code < in->count; code++) {
        size_t at = (size_t)hashes[code] & (cap - 1);
        while (slots[at]) {
            at = (at + 1) & (cap - 1);
        }
        slots[at] = (hashes[code] & 0xFFFFFFFF00000000ULL) | (uint64_t)(code + 1);
    }
    free(in->slots);
    in->slots = slots;
    in->cap = cap;
    return 0;
}

/*
 * The code of the id s[0:n], added when new (with `name`, a str to borrow a new
 * reference to, or NULL). *added tells which. -1 on memory failure.
 */
static int64_t interner_code_hashed(Interner *in, const unsigned char *s, size_t n, uint64_t h,
                                    PyObject *name, int *added);

static int64_t
interner_code(Interner *in, const unsigned char *s, size_t n, PyObject *name, int *added)
{
    return interner_code_hashed(in, s, n, hash_bytes(s, n), name, added);
}

/* Start loading the slot where the id of hash h is looked for (the table is large). */
static inline void
interner_prefetch(const Interner *in, uint64_t h)
{
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(&in->slots[(size_t)h & (in->cap - 1)]);
#else
    (void)in;
    (void)h;
#endif
}

/* As interner_code, for an id whose hash_bytes is h. */
static int64_t
interner_code_hashed(Interner *in, const unsigned char *s, size_t n, uint64_t h, PyObject *name,
                     int *added)
{
    uint64_t tag = h & 0xFFFFFFFF00000000ULL;
    size_t at = (size_t)h & (in->cap - 1);
    *added = 0;
    uint64_t slot;
    while ((slot = in->slots[at]) != 0) {
        if ((slot & 0xFFFFFFFF00000000ULL) == tag) {
            size_t code = (size_t)(slot & 0xFFFFFFFFULL) - 1, length;
            const unsigned char *known = interner_bytes(in, code, &length);
            if (length == n && memcmp(known, s, n) == 0) {
                return (int64_t)code;
            }
        }
        at = (at + 1) & (in->cap - 1);
    }
    size_t code = in->count;
    if (code >= (size_t)INT32_MAX) {
        return -1;
    }
    uint64_t end = in->bytes.size + n;
    if (vec_append(&in->bytes, s, n) < 0 || vec_append(&in->offsets, &end, sizeof end) < 0 ||
        vec_append(&in->names, &name, sizeof name) < 0 ||
        vec_append(&in->hashes, &h, sizeof h) < 0) {
        return -1;
    }
    Py_XINCREF(name);
    in->slots[at] = tag | (uint64_t)(code + 1);
    in->count++;
    *added = 1;
    if (in->count * 2 > in->cap && interner_grow(in) < 0) {
        return -1;
    }
    return (int64_t)code;
}

/*
 * The names as a list of str: the kept objects (their references move into the
 * list: the objects are not touched again, a cache miss each when they are
 * many), or the bytes decoded. The interner keeps no names after.
 */
static PyObject *
interner_take_names(Interner *in)
{
    PyObject *list = PyList_New((Py_ssize_t)in->count);
    if (list == NULL) {
        return NULL;
    }
    PyObject **names = (PyObject **)in->names.data;
    for (size_t code = 0; code < in->count; code++) {
        PyObject *name = names[code];
        if (name == NULL) {
            size_t length;
            const unsigned char *s = interner_bytes(in, code, &length);
            name = PyUnicode_DecodeUTF8((const char *)s, (Py_ssize_t)length, "strict");
            if (name == NULL) {
                Py_DECREF(list);
                return NULL;
            }
        }
        names[code] = NULL; /* its reference is the list's now */
        PyList_SET_ITEM(list, (Py_ssize_t)code, name);
    }
    return list;
}

/* The distinct ids in Arrow's string layout: (offsets int32 block, data block), or NULL. */
static PyObject *
interner_arrow(Interner *in)
{
    if (in->bytes.size > (size_t)INT32_MAX) {
        return Py_NewRef(Py_None);
    }
    Vec offsets = {0};
    const uint64_t *wide = (const uint64_t *)in->offsets.data;
    if (vec_reserve(&offsets, (in->count + 1) * sizeof(int32_t)) < 0) {
        return PyErr_NoMemory();
    }
    for (size_t i = 0; i <= in->count; i++) {
        int32_t at = (int32_t)wide[i];
        memcpy(offsets.data + i * sizeof(int32_t), &at, sizeof at);
    }
    offsets.size = (in->count + 1) * sizeof(int32_t);
    PyObject *offsets_block = vec_to_block(&offsets);
    if (offsets_block == NULL) {
        vec_free(&offsets);
        return NULL;
    }
    PyObject *data_block = vec_to_block(&in->bytes);
    if (data_block == NULL) {
        Py_DECREF(offsets_block);
        return NULL;
    }
    PyObject *pair = PyTuple_Pack(2, offsets_block, data_block);
    Py_DECREF(offsets_block);
    Py_DECREF(data_block);
    return pair;
}

/* ------------------------------------------------------------------------ */
/* Documents seen in the current block of one query (a duplicate check)      */

typedef struct {
    uint64_t hash;
    const unsigned char *s;
    size_t n;
    uint32_t generation;
} Seen;

typedef struct {
    Seen *slots;
    size_t cap;
    size_t count;
    uint32_t generation;
} SeenSet;

static int
seen_init(SeenSet *set)
{
    set->cap = 2048;
    set->count = 0;
    set->generation = 1;
    set->slots = calloc(set->cap, sizeof(Seen));
    return set->slots == NULL ? -1 : 0;
}

static void
seen_clear(SeenSet *set)
{
    set->count = 0;
    set->generation++;
    if (set->generation == 0) { /* wrapped: really clear */
        memset(set->slots, 0, set->cap * sizeof(Seen));
        set->generation = 1;
    }
}

static int
seen_grow(SeenSet *set)
{
    size_t cap = set->cap * 2;
    Seen *slots = calloc(cap, sizeof(Seen));
    if (slots == NULL) {
        return -1;
    }
    for (size_t i = 0; i < set->cap; i++) {
        if (set->slots[i].generation == set->generation) {
            size_t at = (size_t)set->slots[i].hash & (cap - 1);
            while (slots[at].generation == set->generation) {
                at = (at + 1) & (cap - 1);
            }
            slots[at] = set->slots[i];
        }
    }
    free(set->slots);
    set->slots = slots;
    set->cap = cap;
    return 0;
}

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
/* Python ids and numbers                                                    */

enum { KIND_STR = 1, KIND_INT = 2, KIND_OTHER = 4 };

/* The text of an id: a str, an int (not a bool) or an instance of id_types. */
typedef struct {
    const char *s;
    Py_ssize_t n;
    PyObject *owned; /* a str or bytes to release, or NULL */
    PyObject *text;  /* the id as a str (borrowed or owned), NULL when written to `digits` */
    int kind;
    uint64_t hash; /* qrels_dict: hash_bytes of the text */
    char digits[24];
} IdText;

static void
id_release(IdText *id)
{
    Py_CLEAR(id->owned);
}

/* Start loading an object's header and the start of its data (a short str's text). */
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(address) __builtin_prefetch(address)
#else
#define PREFETCH(address) ((void)(address))
#endif

static inline void
prefetch_object(const PyObject *object)
{
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(object);
    __builtin_prefetch((const char *)object + 64);
#else
    (void)object;
#endif
}

/* How many documents ahead their objects are prefetched. */
#define PREFETCH_AHEAD 8

/*
 * Prefetch for the entries of an outer dict after position `pos` (PyDict_Next's):
 * the next value's entry table (its dict object was prefetched one call earlier)
 * and the value after it. A dict of dicts is read one inner dict after another,
 * and each starts with loads that miss the caches; started early, they overlap
 * with the reading of the current one. Prefetches never fault: a guess at the
 * table's layout (CPython's, private) costs nothing when wrong.
 */
static inline void
prefetch_next_values(PyObject *outer, Py_ssize_t pos)
{
    PyObject *key, *next, *after;
    if (!PyDict_Next(outer, &pos, &key, &next)) {
        return;
    }
    if (PyDict_CheckExact(next)) {
        const char *table = (const char *)((PyDictObject *)next)->ma_keys;
        Py_ssize_t lines = (64 + 26 * PyDict_GET_SIZE(next)) / 64 + 1;
        for (Py_ssize_t i = 0; i < (lines < 8 ? lines : 8); i++) {
            PREFETCH(table + 64 * i);
        }
    }
    if (PyDict_Next(outer, &pos, &key, &after)) {
        prefetch_object(after);
    }
}

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

/*
 * The UTF-8 bytes of a str (compact ASCII: in place; otherwise encoded into a
 * bytes object kept in id->owned). 1, 0 when it cannot be encoded (an error is set).
 */
static int
str_bytes(PyObject *text, IdText *id)
{
    if (LIKELY(PyUnicode_IS_COMPACT_ASCII(text))) {
        id->s = (const char *)PyUnicode_DATA(text);
        id->n = PyUnicode_GET_LENGTH(text);
        return 1;
    }
    PyObject *encoded = PyUnicode_AsUTF8String(text);
    if (encoded == NULL) {
        return 0;
    }
    Py_XSETREF(id->owned, encoded);
    id->s = PyBytes_AS_STRING(encoded);
    id->n = PyBytes_GET_SIZE(encoded);
    return 1;
}

/* After a failed encoding: -2 for a str that is not valid Unicode, else -1 (error kept). */
static int
encoding_failed(void)
{
    if (PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) {
        PyErr_Clear();
        return -2;
    }
    return -1;
}

/*
 * Read a dict key as an id. 1 on success; 0 when its type is not accepted and
 * -2 when its text is not valid Unicode (a lone surrogate; no error set); -1
 * with an exception set.
 */
static int
id_of_key(PyObject *key, PyObject *id_types, IdText *id)
{
    id->owned = NULL;
    if (LIKELY(PyUnicode_CheckExact(key))) {
        id->kind = KIND_STR;
        id->text = key;
        return str_bytes(key, id) ? 1 : encoding_failed();
    }
    if (PyLong_CheckExact(key)) {
        int overflow = 0;
        long long value = PyLong_AsLongLongAndOverflow(key, &overflow);
        id->kind = KIND_INT;
        if (!overflow && !(value == -1 && PyErr_Occurred())) {
            /* str(int) without making the str */
            char *end = id->digits + sizeof id->digits;
            char *p = end;
            unsigned long long magnitude =
                value < 0 ? 0ULL - (unsigned long long)value : (unsigned long long)value;
            do {
                *--p = (char)('0' + magnitude % 10);
                magnitude /= 10;
            } while (magnitude);
            if (value < 0) {
                *--p = '-';
            }
            id->s = p;
            id->n = end - p;
            id->text = NULL;
            return 1;
        }
        PyErr_Clear();
    }
    else if (PyBool_Check(key) ||
             !(PyUnicode_Check(key) || PyLong_Check(key) ||
               (id_types != NULL && PyObject_IsInstance(key, id_types) == 1))) {
        if (PyErr_Occurred()) {
            return -1;
        }
        return 0;
    }
    else {
        id->kind = KIND_OTHER;
    }
    PyObject *text = PyObject_Str(key);
    if (text == NULL) {
        return -1;
    }
    id->owned = text;
    id->text = text;
    return str_bytes(text, id) ? 1 : encoding_failed();
}

/*
 * A value as a double: a float (subclasses included), an int (not a bool), or
 * an instance of number_types. 1 on success; 0 when its type is not accepted;
 * -1 with an exception set (an int too large for a double).
 */
static inline int
number_of(PyObject *value, PyObject *number_types, double *out)
{
    if (LIKELY(PyFloat_CheckExact(value))) {
        *out = PyFloat_AS_DOUBLE(value);
        return 1;
    }
    if (PyFloat_Check(value)) {
        *out = PyFloat_AS_DOUBLE(value);
        return 1;
    }
    if (PyBool_Check(value)) {
        return 0;
    }
    if (PyLong_Check(value)) {
        double d = PyLong_AsDouble(value);
        if (d == -1.0 && PyErr_Occurred()) {
            return -1;
        }
        *out = d;
        return 1;
    }
    if (number_types != NULL) {
        int is_number = PyObject_IsInstance(value, number_types);
        if (is_number < 0) {
            return -1;
        }
        if (is_number) {
            double d = PyFloat_AsDouble(value);
            if (d == -1.0 && PyErr_Occurred()) {
                return -1;
            }
            *out = d;
            return 1;
        }
    }
    return 0;
}

/* The problem tuple: (kind, query key, doc key or None, value or None). */
static PyObject *
problem(const char *kind, PyObject *query, PyObject *doc, PyObject *value)
{
    return Py_BuildValue("(sOOO)", kind, query, doc != NULL ? doc : Py_None,
                         value != NULL ? value : Py_None);
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
    if (id_types == Py_None) {
        id_types = NULL;
    }
    if (number_types == Py_None) {
        number_types = NULL;
    }
    /* rows, to size the columns at once */
    size_t total = 0;
    {
        Py_ssize_t pos = 0;
        PyObject *key, *ranking;
        while (PyDict_Next(results, &pos, &key, &ranking)) {
            if (!PyDict_Check(ranking)) {
                return problem("ranking", key, NULL, ranking);
            }
            total += (size_t)PyDict_GET_SIZE(ranking);
        }
    }
    Interner queries;
    StringsOut docs;
    Vec starts = {0}, codes = {0}, scores = {0}, check = {0};
    PyObject *result = NULL;
    memset(&docs, 0, sizeof docs);
    if (interner_init(&queries, (size_t)PyDict_GET_SIZE(results)) < 0) {
        interner_free(&queries);
        return PyErr_NoMemory();
    }
    if (strings_init(&docs, total) < 0 ||
        vec_reserve(&scores, total * sizeof(double)) < 0) {
        if (!PyErr_Occurred()) {
            PyErr_NoMemory();
        }
        goto done;
    }
    int rising = 0;
    size_t row = 0;
    Py_ssize_t pos = 0;
    PyObject *query_key, *ranking;
    while (PyDict_Next(results, &pos, &query_key, &ranking)) {
        IdText query;
        int got = id_of_key(query_key, id_types, &query);
        if (got <= 0) {
            id_release(&query);
            if (got != -1) {
                result = problem(got == 0 ? "query id" : "query text", query_key, NULL, NULL);
            }
            goto done;
        }
        PyObject *name = query.text; /* borrowed, or NULL: decoded later */
        int added;
        int64_t code = interner_code(&queries, (const unsigned char *)query.s, (size_t)query.n,
                                     name, &added);
        id_release(&query);
        if (code < 0) {
            PyErr_NoMemory();
            goto done;
        }
        if (PyDict_GET_SIZE(ranking) == 0) {
            continue; /* in the run, nothing retrieved: a query id, no entry of rows */
        }
        if (!added && vec_push_i32(&check, (int32_t)code) < 0) { /* the same text again */
            PyErr_NoMemory();
            goto done;
        }
        if (vec_push_i64(&starts, (int64_t)row) < 0 || vec_push_i32(&codes, (int32_t)code) < 0) {
            PyErr_NoMemory();
            goto done;
        }
        int kinds = 0;
        double last = INFINITY;
        Py_ssize_t inner = 0;
        PyObject *doc_key, *value;
        while (PyDict_Next(ranking, &inner, &doc_key, &value)) {
            IdText doc;
            got = id_of_key(doc_key, id_types, &doc);
            if (got <= 0) {
                id_release(&doc);
                if (got != -1) {
                    result = problem(got == 0 ? "doc id" : "doc text", query_key, doc_key, NULL);
                }
                goto done;
            }
            if (UNLIKELY(row >= total)) { /* a dict grew while we read it */
                id_release(&doc);
                PyErr_SetString(PyExc_RuntimeError, "run_dict: the dict changed during reading");
                goto done;
            }
            kinds |= doc.kind;
            int appended = strings_append(&docs, doc.s, (size_t)doc.n);
            id_release(&doc);
            if (appended < 0) {
                goto done;
            }
            double score;
            got = number_of(value, number_types, &score);
            if (got <= 0) {
                if (got < 0) {
                    PyErr_Clear();
                    result = problem("score range", query_key, doc_key, value);
                }
                else {
                    result = problem("score", query_key, doc_key, value);
                }
                goto done;
            }
            if (UNLIKELY(!isfinite(score))) {
                result = problem("score finite", query_key, doc_key, value);
                goto done;
            }
            memcpy(scores.data + scores.size, &score, sizeof score);
            scores.size += sizeof score;
            rising |= score > last;
            last = score;
            row++;
        }
        if ((kinds & (kinds - 1)) || (kinds & KIND_OTHER)) { /* mixed kinds: may collide */
            if (vec_push_i32(&check, (int32_t)code) < 0) {
                PyErr_NoMemory();
                goto done;
            }
        }
    }
    if (row != total) {
        PyErr_SetString(PyExc_RuntimeError, "run_dict: the dict changed during reading");
        goto done;
    }
    if (strings_close_chunk(&docs) < 0) {
        goto done;
    }
    {
        PyObject *names = interner_take_names(&queries);
        PyObject *check_list = PyList_New(0);
        const int32_t *checked = (const int32_t *)check.data;
        for (size_t i = 0; check_list != NULL && i < check.size / sizeof(int32_t); i++) {
            PyObject *item = PyLong_FromLong(checked[i]);
            if (item == NULL || PyList_Append(check_list, item) < 0) {
                Py_XDECREF(item);
                Py_CLEAR(check_list);
                break;
            }
            Py_DECREF(item);
        }
        PyObject *starts_block = vec_to_block(&starts);
        PyObject *codes_block = vec_to_block(&codes);
        PyObject *scores_block = vec_to_block(&scores);
        if (names != NULL && check_list != NULL && starts_block != NULL && codes_block != NULL &&
            scores_block != NULL) {
            result = Py_BuildValue("(OOOOOOO)", names, starts_block, codes_block, check_list,
                                   docs.pieces, scores_block, rising ? Py_False : Py_True);
        }
        Py_XDECREF(names);
        Py_XDECREF(check_list);
        Py_XDECREF(starts_block);
        Py_XDECREF(codes_block);
        Py_XDECREF(scores_block);
    }
done:
    interner_free(&queries);
    strings_free(&docs);
    vec_free(&starts);
    vec_free(&codes);
    vec_free(&scores);
    vec_free(&check);
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
    if (id_types == Py_None) {
        id_types = NULL;
    }
    if (number_types == Py_None) {
        number_types = NULL;
    }
    size_t total = 0;
    {
        Py_ssize_t pos = 0;
        PyObject *key, *judged;
        while (PyDict_Next(judgments, &pos, &key, &judged)) {
            if (!PyDict_Check(judged)) {
                return problem("judged", key, NULL, judged);
            }
            total += (size_t)PyDict_GET_SIZE(judged);
        }
    }
    Interner queries, docs;
    Vec query_codes = {0}, doc_codes = {0}, grades = {0};
    Vec row_offsets = {0}, row_bytes = {0}; /* intern_docs false: each judgment's document */
    PyObject *result = NULL;
    IdText *pending = NULL; /* the documents of the current query */
    PyObject **items = NULL; /* its keys and values (2 per document), borrowed unless `owned` */
    Py_ssize_t pending_cap = 0;
    size_t n_pending = 0, n_items = 0;
    int owned = 0;
    int queries_ready = interner_init(&queries, (size_t)PyDict_GET_SIZE(judgments)) == 0;
    int docs_ready = interner_init(&docs, intern_docs ? total : 0) == 0;
    if (!queries_ready || !docs_ready || vec_reserve(&query_codes, total * 4) < 0 ||
        vec_reserve(&grades, total * 8) < 0 ||
        (intern_docs ? vec_reserve(&doc_codes, total * 4) < 0
                     : vec_reserve(&row_offsets, (total + 1) * 8) < 0 ||
                           vec_reserve(&row_bytes, total * 8) < 0)) {
        PyErr_NoMemory();
        goto done;
    }
    if (!intern_docs) {
        uint64_t zero = 0;
        memcpy(row_offsets.data, &zero, sizeof zero);
    }
    int may_repeat = 0, str_keys = 1;
    size_t row = 0;
    Py_ssize_t pos = 0;
    PyObject *query_key, *judged;
    while (PyDict_Next(judgments, &pos, &query_key, &judged)) {
        prefetch_next_values(judgments, pos);
        release_pending(pending, &n_pending);
        str_keys &= PyUnicode_CheckExact(query_key);
        if (PyDict_GET_SIZE(judged) == 0) {
            continue;
        }
        IdText query;
        int got = id_of_key(query_key, id_types, &query);
        if (got <= 0) {
            id_release(&query);
            if (got != -1) {
                result = problem(got == 0 ? "query id" : "query text", query_key, NULL, NULL);
            }
            goto done;
        }
        int added;
        int64_t code = interner_code(&queries, (const unsigned char *)query.s, (size_t)query.n,
                                     query.text, &added);
        id_release(&query);
        if (code < 0) {
            PyErr_NoMemory();
            goto done;
        }
        may_repeat |= !added;
        int kinds = 0;
        /* the query's documents are read first and their slots prefetched, then interned:
           the table is large, and the loads overlap instead of waiting one after another */
        Py_ssize_t size = PyDict_GET_SIZE(judged);
        if (size > pending_cap) {
            IdText *grown = PyMem_Realloc(pending, (size_t)size * sizeof(IdText));
            if (grown == NULL) {
                PyErr_NoMemory();
                goto done;
            }
            pending = grown;
            PyObject **more = PyMem_Realloc(items, (size_t)size * 2 * sizeof(PyObject *));
            if (more == NULL) {
                PyErr_NoMemory();
                goto done;
            }
            items = more;
            pending_cap = size;
        }
        size_t first_row = row;
        /* the items gathered first (PyDict_Next runs no Python code), then read with their
           objects prefetched a few ahead: the loads overlap instead of waiting in turn */
        {
            Py_ssize_t inner = 0;
            PyObject *doc_key, *value;
            while (n_items < (size_t)size && PyDict_Next(judged, &inner, &doc_key, &value)) {
                items[2 * n_items] = doc_key;
                items[2 * n_items + 1] = value;
                n_items++;
            }
        }
        if (row + n_items > total || n_items != (size_t)size) {
            PyErr_SetString(PyExc_RuntimeError, "qrels_dict: the dict changed during reading");
            goto done;
        }
        for (size_t i = 0; i < n_items && i < PREFETCH_AHEAD; i++) {
            prefetch_object(items[2 * i]);
            prefetch_object(items[2 * i + 1]);
        }
        for (size_t i = 0; i < n_items; i++) {
            if (i + PREFETCH_AHEAD < n_items) {
                prefetch_object(items[2 * (i + PREFETCH_AHEAD)]);
                prefetch_object(items[2 * (i + PREFETCH_AHEAD) + 1]);
            }
            PyObject *doc_key = items[2 * i], *value = items[2 * i + 1];
            if (!owned && ((!PyUnicode_CheckExact(doc_key) && !PyLong_CheckExact(doc_key)) ||
                           (!PyFloat_CheckExact(value) && !PyLong_CheckExact(value)))) {
                for (size_t j = 0; j < n_items * 2; j++) { /* reading it may run Python code */
                    Py_INCREF(items[j]);
                }
                owned = 1;
            }
            IdText *doc = &pending[row - first_row];
            got = id_of_key(doc_key, id_types, doc);
            if (got <= 0) {
                id_release(doc);
                if (got != -1) {
                    result = problem(got == 0 ? "doc id" : "doc text", query_key, doc_key, NULL);
                }
                goto done;
            }
            n_pending = row - first_row + 1;
            kinds |= doc->kind;
            if (intern_docs) {
                doc->hash = hash_bytes((const unsigned char *)doc->s, (size_t)doc->n);
                interner_prefetch(&docs, doc->hash);
            }
            else {
                if (vec_append(&row_bytes, doc->s, (size_t)doc->n) < 0) {
                    PyErr_NoMemory();
                    goto done;
                }
                uint64_t end = row_bytes.size;
                memcpy(row_offsets.data + (row + 1) * 8, &end, 8);
            }
            double grade;
            got = number_of(value, number_types, &grade);
            if (got <= 0) {
                if (got < 0) {
                    PyErr_Clear();
                    result = problem("grade range", query_key, doc_key, value);
                }
                else {
                    result = problem("grade", query_key, doc_key, value);
                }
                goto done;
            }
            if (UNLIKELY(!isfinite(grade))) {
                result = problem("grade finite", query_key, doc_key, value);
                goto done;
            }
            int32_t q32 = (int32_t)code;
            memcpy(query_codes.data + row * 4, &q32, 4);
            memcpy(grades.data + row * 8, &grade, 8);
            row++;
        }
        for (size_t i = 0; intern_docs && i < n_pending; i++) {
            IdText *doc = &pending[i];
            /* an int written as digits (no str): a str of it is made only when new */
            int64_t doc_code = interner_code_hashed(&docs, (const unsigned char *)doc->s,
                                                    (size_t)doc->n, doc->hash, doc->text, &added);
            if (doc_code < 0) {
                PyErr_NoMemory();
                goto done;
            }
            int32_t d32 = (int32_t)doc_code;
            memcpy(doc_codes.data + (first_row + i) * 4, &d32, 4);
        }
        release_pending(pending, &n_pending);
        release_items(items, &n_items, &owned);
        if ((kinds & (kinds - 1)) || (kinds & KIND_OTHER)) {
            may_repeat = 1;
        }
    }
    if (row != total) {
        PyErr_SetString(PyExc_RuntimeError, "qrels_dict: the dict changed during reading");
        goto done;
    }
    query_codes.size = row * 4;
    grades.size = row * 8;
    if (!intern_docs) {
        result = qrels_rows_result(&queries, &query_codes, &grades, &row_offsets, &row_bytes,
                                   row, may_repeat, str_keys);
        goto done;
    }
    doc_codes.size = row * 4;
    {
        PyObject *query_names = interner_take_names(&queries);
        PyObject *doc_names = query_names == NULL ? NULL : interner_take_names(&docs);
        PyObject *query_block = vec_to_block(&query_codes);
        PyObject *doc_block = vec_to_block(&doc_codes);
        PyObject *grade_block = vec_to_block(&grades);
        PyObject *arrow = doc_names == NULL ? NULL : interner_arrow(&docs);
        if (query_names != NULL && doc_names != NULL && query_block != NULL &&
            doc_block != NULL && grade_block != NULL && arrow != NULL) {
            result = Py_BuildValue("(OOOOOOOO)", query_names, query_block, doc_names, doc_block,
                                   grade_block, arrow, may_repeat ? Py_True : Py_False,
                                   str_keys ? Py_True : Py_False);
        }
        Py_XDECREF(query_names);
        Py_XDECREF(doc_names);
        Py_XDECREF(query_block);
        Py_XDECREF(doc_block);
        Py_XDECREF(grade_block);
        Py_XDECREF(arrow);
    }
done:
    release_pending(pending, &n_pending);
    release_items(items, &n_items, &owned);
    PyMem_Free(pending);
    PyMem_Free(items);
    interner_free(&queries);
    interner_free(&docs);
    vec_free(&query_codes);
    vec_free(&doc_codes);
    vec_free(&grades);
    vec_free(&row_offsets);
    vec_free(&row_bytes);
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
    Source queries, docs;
    int docs_held = 0, scores_held = 0;
    Py_buffer scores_view;
    Interner names;
    SeenSet seen = {0};
    StringsOut out;
    memset(&out, 0, sizeof out);
    memset(&docs, 0, sizeof docs);
    Vec starts = {0}, codes = {0}, split = {0};
    Vec last_query = {0};
    PyObject *result = NULL;
    PyObject *kept = NULL; /* encoded non-ASCII document ids of the current block */
    const char *why = NULL;
    int names_ready = interner_init(&names, 1024) == 0;

    if (source_init(&queries, query_spec) < 0) {
        goto done;
    }
    docs_held = 1;
    if (source_init(&docs, doc_spec) < 0) {
        goto done;
    }
    if (PyObject_GetBuffer(scores_object, &scores_view, PyBUF_SIMPLE) < 0) {
        goto done;
    }
    scores_held = 1;
    Py_ssize_t rows = queries.total;
    if (docs.total != rows || scores_view.len != rows * (Py_ssize_t)sizeof(double)) {
        PyErr_SetString(PyExc_ValueError, "run_table: columns of different lengths");
        goto done;
    }
    kept = PyList_New(0);
    if (kept == NULL) {
        goto done;
    }
    if (!names_ready || seen_init(&seen) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    if (copy_docs && strings_init(&out, (size_t)rows) < 0) {
        goto done;
    }
    const double *scores = (const double *)scores_view.buf;
    int rising = 0;
    PyObject *last_object = NULL;
    int64_t code = -1;
    double last_score = INFINITY;
    for (Py_ssize_t row = 0; row < rows; row++) {
        const char *qs, *ds;
        size_t qn, dn;
        PyObject *query_object, *doc_object, *owned = NULL;
        int got = source_next(&queries, &qs, &qn, &owned, &query_object, &why);
        if (got <= 0) {
            Py_XDECREF(owned);
            goto done_reading;
        }
        int same = code >= 0 &&
                   ((query_object != NULL && query_object == last_object) ||
                    (qn == last_query.size && memcmp(qs, last_query.data, qn) == 0));
        if (!same) {
            int added;
            code = interner_code(&names, (const unsigned char *)qs, qn, NULL, &added);
            last_query.size = 0;
            if (code < 0 || vec_push_i64(&starts, (int64_t)row) < 0 ||
                vec_push_i32(&codes, (int32_t)code) < 0 ||
                (!added && vec_push_i32(&split, (int32_t)code) < 0) ||
                vec_append(&last_query, qs, qn) < 0) {
                Py_XDECREF(owned);
                PyErr_NoMemory();
                goto done;
            }
            seen_clear(&seen);
            last_score = INFINITY;
            if (PyList_GET_SIZE(kept) && PyList_SetSlice(kept, 0, PyList_GET_SIZE(kept), NULL) < 0) {
                Py_XDECREF(owned);
                goto done;
            }
        }
        Py_CLEAR(owned);
        last_object = query_object;
        got = source_next(&docs, &ds, &dn, &owned, &doc_object, &why);
        if (got <= 0) {
            Py_XDECREF(owned);
            goto done_reading;
        }
        if (owned != NULL) { /* keep the encoded id while the block's check points at it */
            int appended = PyList_Append(kept, owned);
            Py_DECREF(owned);
            if (appended < 0) {
                goto done;
            }
        }
        if (copy_docs && strings_append(&out, ds, dn) < 0) {
            goto done;
        }
        int repeated = seen_add(&seen, (const unsigned char *)ds, dn);
        if (UNLIKELY(repeated)) {
            if (repeated < 0) {
                PyErr_NoMemory();
                goto done;
            }
            why = "a document twice in one query";
            goto done_reading;
        }
        double score = scores[row];
        if (UNLIKELY(!isfinite(score))) {
            why = "a score that is not finite";
            goto done_reading;
        }
        rising |= score > last_score;
        last_score = score;
    }
done_reading:
    if (PyErr_Occurred()) {
        goto done;
    }
    if (why != NULL) {
        result = PyUnicode_FromString(why);
        goto done;
    }
    if (copy_docs && strings_close_chunk(&out) < 0) {
        goto done;
    }
    {
        PyObject *name_list = interner_take_names(&names);
        PyObject *split_list = PyList_New(0);
        const int32_t *split_codes = (const int32_t *)split.data;
        for (size_t i = 0; split_list != NULL && i < split.size / sizeof(int32_t); i++) {
            PyObject *item = PyLong_FromLong(split_codes[i]);
            if (item == NULL || PyList_Append(split_list, item) < 0) {
                Py_XDECREF(item);
                Py_CLEAR(split_list);
                break;
            }
            Py_DECREF(item);
        }
        PyObject *starts_block = vec_to_block(&starts);
        PyObject *codes_block = vec_to_block(&codes);
        if (name_list != NULL && split_list != NULL && starts_block != NULL &&
            codes_block != NULL) {
            result = Py_BuildValue("(OOOOOO)", name_list, starts_block, codes_block, split_list,
                                   copy_docs ? out.pieces : Py_None,
                                   rising ? Py_False : Py_True);
        }
        Py_XDECREF(name_list);
        Py_XDECREF(split_list);
        Py_XDECREF(starts_block);
        Py_XDECREF(codes_block);
    }
done:
    Py_XDECREF(kept);
    source_free(&queries);
    if (docs_held) {
        source_free(&docs);
    }
    if (scores_held) {
        PyBuffer_Release(&scores_view);
    }
    interner_free(&names);
    free(seen.slots);
    strings_free(&out);
    vec_free(&starts);
    vec_free(&codes);
    vec_free(&split);
    vec_free(&last_query);
    return result;
}

/* ------------------------------------------------------------------------ */
/* run_dict_ranks: read a run dict and rank its judged documents, one pass   */

/* The code of the id s[0:n] (hash h) when the interner holds it, else -1. */
static int64_t
interner_find(const Interner *in, const unsigned char *s, size_t n, uint64_t h)
{
    uint64_t tag = h & 0xFFFFFFFF00000000ULL;
    size_t at = (size_t)h & (in->cap - 1);
    uint64_t slot;
    while ((slot = in->slots[at]) != 0) {
        if ((slot & 0xFFFFFFFF00000000ULL) == tag) {
            size_t code = (size_t)(slot & 0xFFFFFFFFULL) - 1, length;
            const unsigned char *known = interner_bytes(in, code, &length);
            if (length == n && memcmp(known, s, n) == 0) {
                return (int64_t)code;
            }
        }
        at = (at + 1) & (in->cap - 1);
    }
    return -1;
}

/*
 * A hash of a document id read in place (from a str's data or the judged ids):
 * short ids by at most two overlapping loads, never past their bytes and
 * never through a copy. Both sides of a lookup use it.
 */
static inline uint64_t
hash_id(const unsigned char *s, size_t n)
{
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

typedef struct {
    uint64_t hash;
    int64_t judgment; /* a row of the judgments, -1: empty */
} JudgedSlot;

/* The judgments as the caller gives them (a Qrels' columns, grouped by query). */
typedef struct {
    const int64_t *query_offsets; /* per query, where its judgments start in `judgments` */
    const int64_t *judgments;     /* rows of the judgments */
    const int32_t *judged_doc;    /* per row, its document: an index into the ids */
    const int32_t *id_offsets;    /* the distinct judged document ids, Arrow's layout */
    const unsigned char *id_data;
} JudgedIds;

static inline const unsigned char *
judged_text(const JudgedIds *j, int64_t judgment, size_t *length)
{
    int32_t code = j->judged_doc[judgment];
    *length = (size_t)(j->id_offsets[code + 1] - j->id_offsets[code]);
    return j->id_data + j->id_offsets[code];
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

/* What ranks the batches (one at a time, in order) and its scratch memory. */
typedef struct {
    const JudgedIds *judged;
    RankedOut *out;
    int64_t spent, budget, block;
    int outcome; /* FUSED_ERROR: out of memory (the GIL holder raises it) */
    JudgedSlot *table;
    size_t table_cap;
    int64_t *hit_row, *hit_judgment, *below, *equal, *after, *tied;
    Judged *sorted;
    double *values;
    size_t hits_cap, rows_cap;
} Ranker;

static void
ranker_free(Ranker *r)
{
    free(r->table);
    free(r->hit_row);
    free(r->hit_judgment);
    free(r->below);
    free(r->equal);
    free(r->after);
    free(r->tied);
    free(r->sorted);
    free(r->values);
}

/* Scratch for an entry of `rows` documents and up to `hits` judged ones; 0, or -1. */
static int
ranker_reserve(Ranker *r, size_t rows, size_t hits)
{
    void *p;
#define GROW(field, count, width)                                                             \
    p = realloc(r->field, (count) * (width));                                                \
    if (p == NULL) {                                                                          \
        return -1;                                                                            \
    }                                                                                         \
    r->field = p;
    if (rows > r->rows_cap) {
        size_t cap = r->rows_cap ? r->rows_cap : 256;
        while (cap < rows) {
            cap *= 2;
        }
        GROW(tied, 2 * cap, sizeof(int64_t));
        r->rows_cap = cap;
    }
    if (hits > r->hits_cap) {
        size_t cap = r->hits_cap ? r->hits_cap : 32;
        while (cap < hits) {
            cap *= 2;
        }
        GROW(hit_row, cap, sizeof(int64_t));
        GROW(hit_judgment, cap, sizeof(int64_t));
        GROW(sorted, cap, sizeof(Judged));
        GROW(values, cap + 2, sizeof(double));
        GROW(below, cap + 1, sizeof(int64_t));
        GROW(equal, cap, sizeof(int64_t));
        GROW(after, cap, sizeof(int64_t));
        r->hits_cap = cap;
    }
    return 0;
#undef GROW
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
    Judged *sorted = r->sorted;
    double *values = r->values;
    int64_t *below = r->below, *equal = r->equal, *after = r->after, *tied = r->tied;
    for (size_t i = 0; i < k; i++) {
        sorted[i].value = scores[r->hit_row[i]];
        sorted[i].target = (int64_t)i;
    }
    if (k > 1) {
        qsort(sorted, k, sizeof(Judged), by_value);
    }
    for (size_t i = 0; i < k; i++) {
        values[i] = sorted[i].value;
        below[i] = equal[i] = after[i] = 0;
    }
    values[k] = INFINITY; /* the padding count_below reads */
    below[k] = 0;
    int64_t n_tied = 0;
    for (size_t d = 0; d < n; d++) {
        double s = scores[d];
        int64_t p = count_below(values, (int64_t)k, s);
        below[p]++;
        int64_t same = values[p] == s; /* p: the first judged document scoring s, if one does */
        equal[p] += same;
        tied[n_tied] = (int64_t)d;
        tied[n_tied + 1] = p;
        n_tied += 2 * same;
    }
    int64_t tie_work = 0;
    for (size_t i = 0, first = 0; i < k; i++) {
        if (i > 0 && values[i] != values[i - 1]) {
            first = i;
        }
        equal[i] = equal[first];
        if (equal[i] > 1) {
            tie_work += equal[i];
        }
    }
    if (tie_work) { /* docnos break the ties: a greater docno comes first */
        r->spent += tie_work;
        if (r->spent > r->budget) {
            return FUSED_DECLINE;
        }
        for (int64_t t = 0; t < n_tied; t += 2) {
            int64_t d = tied[t], p = tied[t + 1];
            if (equal[p] < 2) {
                continue;
            }
            const unsigned char *doc = bytes + offsets[d];
            size_t length = (size_t)(offsets[d + 1] - offsets[d]);
            for (size_t j = (size_t)p; j < k && values[j] == values[p]; j++) {
                size_t m;
                const unsigned char *other =
                    judged_text(r->judged, r->hit_judgment[sorted[j].target], &m);
                after[j] += doc_greater(doc, length, other, m);
            }
        }
    }
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
        higher += below[i + 1];
        int64_t rank = higher + after[i] + 1;
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
        o_judgment[to] = r->hit_judgment[sorted[i].target];
        o_above[to] = higher;
        o_size[to] = equal[i];
        o_rank[to] = rank;
        o_block[at] = r->block;
        o_score[to] = values[i];
    }
    out->judgment.size += k * 8;
    out->rank.size += k * 8;
    out->above.size += k * 8;
    out->size.size += k * 8;
    out->block.size += k * 8;
    out->score.size += k * 8;
    return FUSED_DONE;
}

/* The hash table for `k` judged ids, of *cap slots (a quarter full at most; NULL: no memory). */
static JudgedSlot *
ranker_table(Ranker *r, size_t k, size_t *slots)
{
    size_t cap = 64;
    while (cap < k * 4) {
        cap *= 2;
    }
    *slots = cap;
    if (cap > r->table_cap) {
        JudgedSlot *grown = realloc(r->table, cap * sizeof(JudgedSlot));
        if (grown == NULL) {
            return NULL;
        }
        r->table = grown;
        r->table_cap = cap;
    }
    return r->table;
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
    size_t slots;
    if (ranker_reserve(r, rows, judged + 1) < 0 || ranker_table(r, judged, &slots) == NULL) {
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
    size_t k_max = (size_t)(j1 - j0), n = (size_t)e->n, cap;
    JudgedSlot *table = ranker_table(r, k_max, &cap); /* the query's judged ids, hashed */
    if (table == NULL || ranker_reserve(r, n, k_max + 1) < 0) {
        return FUSED_ERROR;
    }
    for (size_t i = 0; i < cap; i++) {
        table[i].judgment = -1;
    }
    for (int64_t j = j0; j < j1; j++) {
        int64_t judgment = judged->judgments[j];
        size_t m;
        const unsigned char *s = judged_text(judged, judgment, &m);
        uint64_t h = hash_id(s, m);
        size_t at = (size_t)h & (cap - 1);
        while (table[at].judgment >= 0) {
            at = (at + 1) & (cap - 1);
        }
        table[at].hash = h;
        table[at].judgment = judgment;
    }
    const uint64_t *offsets = (const uint64_t *)b->offsets.data + e->first;
    const unsigned char *bytes = (const unsigned char *)b->bytes.data;
    size_t k = 0;
    for (size_t d = 0; d < n; d++) {
        const unsigned char *s = bytes + offsets[d];
        size_t m = (size_t)(offsets[d + 1] - offsets[d]);
        uint64_t h = hash_id(s, m);
        size_t at = (size_t)h & (cap - 1);
        while (table[at].judgment >= 0) {
            if (table[at].hash == h) {
                size_t length;
                const unsigned char *other = judged_text(judged, table[at].judgment, &length);
                if (length == m && memcmp(s, other, m) == 0) {
                    if (UNLIKELY(k >= k_max)) { /* cannot happen: keys of one kind */
                        return FUSED_DECLINE;
                    }
                    r->hit_row[k] = (int64_t)d;
                    r->hit_judgment[k] = table[at].judgment;
                    k++;
                    break;
                }
            }
            at = (at + 1) & (cap - 1);
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
    if (keep && (vec_reserve(&b->scores, (size_t)size * 8) < 0 ||
                 vec_reserve(&b->offsets, (size_t)size * 8) < 0)) {
        return FUSED_ERROR;
    }
    size_t n_items = 0;
    Py_ssize_t inner = 0;
    PyObject *doc_key, *value;
    while (n_items < (size_t)size && PyDict_Next(ranking, &inner, &doc_key, &value)) {
        h->keys[n_items] = doc_key;
        h->items[n_items] = value;
        n_items++;
    }
    if (n_items != (size_t)size) {
        return FUSED_DECLINE;
    }
    for (size_t i = 0; i < n_items && i < PREFETCH_AHEAD; i++) {
        prefetch_object(h->keys[i]);
        prefetch_object(h->items[i]);
    }
    for (size_t n = 0; n < n_items; n++) {
        if (n + PREFETCH_AHEAD < n_items) {
            prefetch_object(h->keys[n + PREFETCH_AHEAD]);
            prefetch_object(h->items[n + PREFETCH_AHEAD]);
        }
        doc_key = h->keys[n];
        value = h->items[n];
        if (!plain_text(doc_key) || !PyFloat_CheckExact(value)) {
            return FUSED_DECLINE;
        }
        double score = PyFloat_AS_DOUBLE(value);
        if (UNLIKELY(!isfinite(score))) {
            return FUSED_DECLINE;
        }
        if (keep) {
            if (vec_append(&b->bytes, PyUnicode_DATA(doc_key),
                           (size_t)PyUnicode_GET_LENGTH(doc_key)) < 0) {
                return FUSED_ERROR;
            }
            uint64_t end = b->bytes.size;
            memcpy(b->offsets.data + b->offsets.size, &end, 8);
            memcpy(b->scores.data + b->scores.size, &score, 8);
            b->offsets.size += 8;
            b->scores.size += 8;
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

static PyObject *
ccolumns_run_dict_ranks(PyObject *module, PyObject *args)
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
    if (id_types == Py_None) {
        id_types = NULL;
    }
    if (number_types == Py_None) {
        number_types = NULL;
    }
    int64_t total = 0; /* documents: the budget of docno comparisons grows with them */
    Py_ssize_t largest = 0; /* documents of the largest entry */
    {
        Py_ssize_t pos = 0;
        PyObject *key, *ranking;
        while (PyDict_Next(results, &pos, &key, &ranking)) {
            if (!PyDict_Check(ranking)) {
                Py_RETURN_NONE;
            }
            total += PyDict_GET_SIZE(ranking);
            largest = PyDict_GET_SIZE(ranking) > largest ? PyDict_GET_SIZE(ranking) : largest;
        }
    }
    int64_t budget = per_row * total + base;
    static const Py_ssize_t widths[5] = {8, 8, 4, 4, 1};
    static const char *names_of[5] = {"query_offsets", "judgments", "judged_doc", "id_offsets",
                                      "id_data"};
    Py_buffer in[5];
    int held = 0;
    PyObject *result = NULL;
    Interner known, seen;
    Entry entry;
    RankedOut out;
    Ranker ranker;
    Batch batches[2];
    Pipe pipe;
    Half half;
    int piped = 0;
    int splitting = 0;  /* whether the half reads the entries from split_pos on */
    int ran_python = 0; /* whether this thread did more than plain reads while the half ran:
                           Python code may have changed what it read (its reading is void) */
    Py_ssize_t split_pos = 0;
    memset(&half, 0, sizeof half);
    memset(&known, 0, sizeof known);
    memset(&seen, 0, sizeof seen);
    memset(&entry, 0, sizeof entry);
    memset(&out, 0, sizeof out);
    memset(&ranker, 0, sizeof ranker);
    memset(batches, 0, sizeof batches);
    for (int i = 0; i < 5; i++) {
        if (buffer_of(inputs[i], &in[i], widths[i], names_of[i]) < 0) {
            goto done;
        }
        held++;
    }
    Py_ssize_t n_queries = PyList_GET_SIZE(qrels_names);
    Py_ssize_t n_listed = in[1].len / 8, n_rows = in[2].len / 4, n_ids = in[3].len / 4 - 1;
    JudgedIds judged = {
        .query_offsets = (const int64_t *)in[0].buf,
        .judgments = (const int64_t *)in[1].buf,
        .judged_doc = (const int32_t *)in[2].buf,
        .id_offsets = (const int32_t *)in[3].buf,
        .id_data = (const unsigned char *)in[4].buf,
    };
    /* the judgments are the caller's own columns: checked anyway, never read out of bounds */
    if (in[0].len / 8 != n_queries + 1 || judged.query_offsets[0] != 0 ||
        judged.query_offsets[n_queries] > n_listed || n_ids < 0 || judged.id_offsets[0] < 0 ||
        judged.id_offsets[n_ids] > in[4].len) {
        PyErr_SetString(PyExc_ValueError, "run_dict_ranks: the judgments do not fit together");
        goto done;
    }
    int64_t most_judged = 0; /* judgments of the query with the most */
    for (Py_ssize_t q = 0; q < n_queries; q++) {
        int64_t count = judged.query_offsets[q + 1] - judged.query_offsets[q];
        if (count < 0) {
            PyErr_SetString(PyExc_ValueError, "run_dict_ranks: query offsets not ascending");
            goto done;
        }
        most_judged = count > most_judged ? count : most_judged;
    }
    for (Py_ssize_t i = 0; i < n_ids; i++) {
        if (judged.id_offsets[i] > judged.id_offsets[i + 1]) {
            PyErr_SetString(PyExc_ValueError, "run_dict_ranks: id offsets not ascending");
            goto done;
        }
    }
    for (Py_ssize_t j = 0; j < n_listed; j++) {
        int64_t row = judged.judgments[j];
        if (row < 0 || row >= n_rows || judged.judged_doc[row] < 0 ||
            judged.judged_doc[row] >= n_ids) {
            PyErr_SetString(PyExc_ValueError, "run_dict_ranks: a judgment out of range");
            goto done;
        }
    }
    /* the judged queries, by their text */
    if (interner_init(&known, (size_t)n_queries) < 0 ||
        interner_init(&seen, (size_t)PyDict_GET_SIZE(results)) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t q = 0; q < n_queries; q++) {
        PyObject *name = PyList_GET_ITEM(qrels_names, q);
        Py_ssize_t length;
        const char *text = PyUnicode_Check(name) ? PyUnicode_AsUTF8AndSize(name, &length) : NULL;
        if (text == NULL) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_TypeError, "run_dict_ranks: query names must be str");
            }
            goto done;
        }
        int added;
        if (interner_code(&known, (const unsigned char *)text, (size_t)length, NULL, &added) != q) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_ValueError, "run_dict_ranks: query names repeat");
            }
            goto done;
        }
    }
    ranker.judged = &judged;
    ranker.out = &out;
    ranker.budget = budget;
    /* everything the ranking writes, reserved here: the thread allocates nothing (a
       thread's first allocations make it an arena of its own, and page faults) */
    size_t hits_most = (size_t)(n_listed < total ? n_listed : total) * 8;
    size_t entries_most = (size_t)PyDict_GET_SIZE(results) * 8;
    if (batch_reset(&batches[0]) < 0 || batch_reset(&batches[1]) < 0 ||
        ranking_reserve(&ranker, (size_t)largest, (size_t)most_judged, hits_most,
                        entries_most) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    batches[0].limit = batches[1].limit = (size_t)total / 16 < BATCH_DOCS_LEAST ? BATCH_DOCS_LEAST
                                          : (size_t)total / 16 > BATCH_DOCS  ? BATCH_DOCS
                                                                             : (size_t)total / 16;
    /* a second thread when the documents are many (a thread costs a millisecond or two
       to start and feed: ~100,000 documents' reading): the half from the entry where
       half the documents are read on, read and ranked there; else, one that ranks the
       entries read while the next are read */
    if (threads > 1 && total >= THREAD_DOCS) {
        Py_ssize_t p = 0, last = 0;
        int64_t read = 0;
        PyObject *key, *value;
        while (PyDict_Next(results, &p, &key, &value)) {
            read += PyDict_GET_SIZE(value);
            if (split_pos == 0 && read * 2 >= total) {
                split_pos = p;
            }
            last = p;
        }
        /* ids of another kind (int keys: the GIL holder would read the whole run alone,
           the half stopping at once) keep the batch pipeline */
        if (split_pos > 0 && split_pos < last && looks_plain(results, 0) &&
            looks_plain(results, split_pos)) {
            half.results = results;
            half.start = split_pos;
            half.known = &known;
            half.ranker.judged = &judged;
            half.ranker.out = &half.out;
            half.ranker.budget = budget;
            half.batch.limit = batches[0].limit;
            if (batch_reset(&half.batch) < 0 ||
                ranking_reserve(&half.ranker, (size_t)largest, (size_t)most_judged, hits_most,
                                entries_most) < 0) {
                PyErr_NoMemory();
                goto done;
            }
            splitting = half_start(&half);
        }
    }
    pipe_start(&pipe, &ranker, total >= THREAD_DOCS && !splitting ? threads : 1);
    piped = 1;
    int cur = 0;
    int outcome = FUSED_DONE;
    Py_ssize_t pos = 0;
    PyObject *query_key, *ranking;
    while (PyDict_Next(results, &pos, &query_key, &ranking)) {
        if (splitting && pos > split_pos) { /* the half's first entry */
            splitting = 0;
            if (half_join(&half) == FUSED_DONE && !ran_python) {
                if (batches[cur].entries.size) { /* this half's entries ranked first */
                    outcome = pipe_hand(&pipe, &batches[cur]);
                    if (batch_reset(&batches[cur]) < 0 && outcome == FUSED_DONE) {
                        PyErr_NoMemory();
                        outcome = FUSED_ERROR;
                    }
                }
                if (outcome == FUSED_DONE) {
                    outcome = half_merge(&half, &seen, &out, ranker.block);
                }
                break;
            }
            /* the half stopped, or may have read what Python code changed: read here */
        }
        prefetch_next_values(results, pos);
        Py_ssize_t size = PyDict_GET_SIZE(ranking); /* 0: in the run, nothing retrieved */
        if (splitting && !plain_text(query_key)) {
            half_join(&half); /* reading the key may run Python code, or make objects */
            ran_python = 1;
        }
        IdText query;
        int got = id_of_key(query_key, id_types, &query);
        if (got != 1) {
            id_release(&query);
            PyErr_Clear();
            outcome = FUSED_DECLINE;
            break;
        }
        int added;
        int64_t code = interner_code(&seen, (const unsigned char *)query.s, (size_t)query.n,
                                     query.text, &added);
        int64_t q = code < 0 ? -1
                             : interner_find(&known, (const unsigned char *)query.s,
                                             (size_t)query.n,
                                             hash_bytes((const unsigned char *)query.s,
                                                        (size_t)query.n));
        id_release(&query);
        if (code < 0) {
            PyErr_NoMemory();
            outcome = FUSED_ERROR;
            break;
        }
        if (!added) { /* the same text again (1 and "1"): the general path */
            outcome = FUSED_DECLINE;
            break;
        }
        /* the documents of a judged query are kept for the ranking (ids and scores) */
        Batch *batch = &batches[cur];
        int keep = q >= 0 && judged.query_offsets[q + 1] > judged.query_offsets[q];
        BatchEntry record = {q, (int64_t)size, keep ? (int64_t)batch->docs : -1};
        if (entry_reserve(&entry, (size_t)size) < 0 ||
            (keep && (vec_reserve(&batch->scores, (size_t)size * 8) < 0 ||
                      vec_reserve(&batch->offsets, (size_t)size * 8) < 0))) {
            PyErr_NoMemory();
            outcome = FUSED_ERROR;
            break;
        }
        /* the entry: its items gathered (PyDict_Next runs no Python code), then every
           document read and checked with its objects prefetched a few ahead. Keys and
           values are borrowed from the dict, which is kept alive, until something that
           may run Python code: then they are owned. */
        Py_INCREF(ranking);
        size_t n = 0, n_items = 0;
        int kinds = 0;
        Py_ssize_t inner = 0;
        PyObject *doc_key, *value;
        while (PyDict_Next(ranking, &inner, &doc_key, &value)) {
            if (UNLIKELY(n_items >= (size_t)size)) { /* cannot happen: nothing ran */
                outcome = FUSED_DECLINE;
                break;
            }
            entry.keys[n_items] = doc_key;
            entry.items[n_items] = value;
            n_items++;
        }
        if (outcome == FUSED_DONE && n_items != (size_t)size) {
            outcome = FUSED_DECLINE;
        }
        for (size_t i = 0; i < n_items && i < PREFETCH_AHEAD; i++) {
            prefetch_object(entry.keys[i]);
            prefetch_object(entry.items[i]);
        }
        for (; outcome == FUSED_DONE && n < n_items; n++) {
            if (n + PREFETCH_AHEAD < n_items) {
                prefetch_object(entry.keys[n + PREFETCH_AHEAD]);
                prefetch_object(entry.items[n + PREFETCH_AHEAD]);
            }
            doc_key = entry.keys[n];
            value = entry.items[n];
            if (splitting && (!plain_text(doc_key) || !PyFloat_CheckExact(value))) {
                half_join(&half); /* reading them may run Python code, or make objects */
                ran_python = 1;
            }
            if (!PyUnicode_CheckExact(doc_key) && !PyLong_CheckExact(doc_key)) {
                entry_own(&entry, n_items); /* reading it may run Python code */
            }
            IdText doc;
            got = id_of_key(doc_key, id_types, &doc);
            kinds |= got == 1 ? doc.kind : 0;
            if (got != 1 || (kinds & (kinds - 1)) || (kinds & KIND_OTHER)) {
                id_release(&doc); /* keys of mixed kinds may collide: the general path */
                PyErr_Clear();
                outcome = FUSED_DECLINE;
                break;
            }
            double score;
            if (LIKELY(PyFloat_Check(value))) {
                score = PyFloat_AS_DOUBLE(value);
            }
            else {
                if (!PyLong_CheckExact(value)) {
                    entry_own(&entry, n_items); /* reading it may run Python code */
                }
                if (number_of(value, number_types, &score) != 1) {
                    id_release(&doc);
                    PyErr_Clear();
                    outcome = FUSED_DECLINE;
                    break;
                }
            }
            if (UNLIKELY(!isfinite(score))) {
                id_release(&doc);
                outcome = FUSED_DECLINE;
                break;
            }
            if (keep) {
                if (vec_append(&batch->bytes, doc.s, (size_t)doc.n) < 0) {
                    id_release(&doc);
                    PyErr_NoMemory();
                    outcome = FUSED_ERROR;
                    break;
                }
                uint64_t end = batch->bytes.size;
                memcpy(batch->offsets.data + batch->offsets.size, &end, 8);
                memcpy(batch->scores.data + batch->scores.size, &score, 8);
                batch->offsets.size += 8;
                batch->scores.size += 8;
            }
            id_release(&doc);
        }
        if (outcome == FUSED_DONE && (n != (size_t)size || PyDict_GET_SIZE(ranking) != size)) {
            outcome = FUSED_DECLINE; /* the dict changed while we read it */
        }
        entry_release_keys(&entry, n_items);
        Py_DECREF(ranking);
        if (outcome != FUSED_DONE) {
            break;
        }
        batch->docs += keep ? n : 0;
        if (vec_append(&batch->entries, &record, sizeof record) < 0) {
            PyErr_NoMemory();
            outcome = FUSED_ERROR;
            break;
        }
        if (batch_full(batch)) {
            outcome = pipe_hand(&pipe, batch);
            if (outcome != FUSED_DONE) {
                break;
            }
            cur ^= 1; /* the other batch is ranked: refilled */
            if (batch_reset(&batches[cur]) < 0) {
                PyErr_NoMemory();
                outcome = FUSED_ERROR;
                break;
            }
        }
    }
    if (splitting) { /* the half's entries were not reached: the dict changed */
        half_join(&half);
        outcome = outcome == FUSED_DONE ? FUSED_DECLINE : outcome;
    }
    if (outcome == FUSED_DONE && batches[cur].entries.size) {
        outcome = pipe_hand(&pipe, &batches[cur]);
    }
    {
        int ranked = pipe_finish(&pipe);
        piped = 0;
        if (outcome == FUSED_DONE) {
            outcome = ranked;
        }
    }
    if (outcome == FUSED_ERROR && !PyErr_Occurred()) {
        PyErr_NoMemory(); /* the ranking ran out of memory */
    }
    if (outcome == FUSED_ERROR) {
        goto done;
    }
    if (outcome == FUSED_DECLINE) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    {
        PyObject *items[9] = {NULL};
        items[0] = interner_take_names(&seen);
        Vec *vecs[8] = {&out.block_query, &out.block_size, &out.judgment, &out.rank, &out.above,
                        &out.size, &out.block, &out.score};
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
    }
done:
    half_free(&half); /* the threads are done before what they read is freed */
    if (piped) {
        pipe_finish(&pipe);
    }
    for (int i = 0; i < held; i++) {
        PyBuffer_Release(&in[i]);
    }
    if (known.slots != NULL || known.offsets.data != NULL) {
        interner_free(&known);
    }
    if (seen.slots != NULL || seen.offsets.data != NULL) {
        interner_free(&seen);
    }
    batch_free(&batches[0]);
    batch_free(&batches[1]);
    ranker_free(&ranker);
    entry_free(&entry);
    ranked_free(&out);
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

static PyMethodDef ccolumns_methods[] = {
    {"run_dict", ccolumns_run_dict, METH_VARARGS, run_dict_doc},
    {"qrels_dict", ccolumns_qrels_dict, METH_VARARGS, qrels_dict_doc},
    {"run_dict_ranks", ccolumns_run_dict_ranks, METH_VARARGS, run_dict_ranks_doc},
    {"run_table", ccolumns_run_table, METH_VARARGS, run_table_doc},
    {"per_query_dicts", ccolumns_per_query_dicts, METH_VARARGS, per_query_dicts_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef ccolumns_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "rankwise.io._ccolumns",
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
