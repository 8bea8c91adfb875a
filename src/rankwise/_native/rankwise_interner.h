/*
 * Interning ids: bytes -> code (in order of first appearance), with a Python
 * name each (a str to reuse, or NULL: the bytes are decoded when the names are
 * taken). Shared by rankwise.io._ctrec, rankwise.data._ccolumns and
 * rankwise.ranking._cdict. Finding and adding codes use malloc'd memory only
 * (no GIL needed when the names are NULL); taking the names needs the GIL.
 *
 * Include after rankwise_blocks.h.
 */
#ifndef RANKWISE_INTERNER_H
#define RANKWISE_INTERNER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rankwise_blocks.h"
#include "rankwise_strings.h"


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

static MAYBE_UNUSED int64_t
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

/*
 * The code of the id s[0:n] (hash h) when the interner holds it; else -1, and
 * *empty is the slot where it goes.
 */
static inline int64_t
interner_probe(const Interner *in, const unsigned char *s, size_t n, uint64_t h, size_t *empty)
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
    *empty = at;
    return -1;
}

/* The code of the id s[0:n] (hash h) when the interner holds it, else -1. */
static inline int64_t
interner_find(const Interner *in, const unsigned char *s, size_t n, uint64_t h)
{
    size_t empty;
    return interner_probe(in, s, n, h, &empty);
}

/* As interner_code, for an id whose hash is h (hash_bytes, or any hash used throughout). */
static int64_t
interner_code_hashed(Interner *in, const unsigned char *s, size_t n, uint64_t h, PyObject *name,
                     int *added)
{
    size_t at = 0;
    *added = 0;
    int64_t known = interner_probe(in, s, n, h, &at);
    if (known >= 0) {
        return known;
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
    in->slots[at] = (h & 0xFFFFFFFF00000000ULL) | (uint64_t)(code + 1);
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
static MAYBE_UNUSED PyObject *
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

/* The distinct ids in Arrow's string layout: (offsets int32 block, data block), None when
   they pass 2 GiB, or NULL with an exception set. */
static MAYBE_UNUSED PyObject *
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

#endif /* RANKWISE_INTERNER_H */
