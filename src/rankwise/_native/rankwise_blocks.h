/*
 * Growable byte vectors (Vec), and the Block type that hands their memory to
 * Python through the buffer protocol without a copy: shared by the column
 * readers (rankwise.io._ctrec, rankwise.data._ccolumns) and the dict ranking
 * (rankwise.ranking._cdict). A Vec is plain malloc/realloc memory, usable
 * without the GIL; vec_to_block needs the GIL.
 *
 * Include after Python.h, with RANKWISE_BLOCK_NAME defined as the Block
 * type's qualified name ("rankwise.io._ctrec.Block"); the module's init
 * function readies BlockType (PyType_Ready) before any Block is made.
 */
#ifndef RANKWISE_BLOCKS_H
#define RANKWISE_BLOCKS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#endif

#include "rankwise_strings.h"

#ifndef RANKWISE_BLOCK_NAME
#error "define RANKWISE_BLOCK_NAME (the Block type's qualified name) before this header"
#endif

/* ------------------------------------------------------------------------ */
/* Block: malloc'd memory handed to Python through the buffer protocol       */

typedef struct {
    PyObject_HEAD
    char *data;
    Py_ssize_t size;
    Py_ssize_t exports; /* buffers of it held: while any is, its memory never moves */
    Py_ssize_t capacity; /* bytes allocated (extend grows it by half, not byte by byte) */
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
    if (PyBuffer_FillInfo(view, (PyObject *)self, data, self->size, 0, flags) < 0) {
        return -1;
    }
    self->exports++;
    return 0;
}

static void
block_releasebuffer(BlockObject *self, Py_buffer *view)
{
    (void)view;
    self->exports--;
}

static Py_ssize_t
block_length(BlockObject *self)
{
    return self->size;
}

static PyBufferProcs block_as_buffer = {.bf_getbuffer = (getbufferproc)block_getbuffer,
                                        .bf_releasebuffer = (releasebufferproc)block_releasebuffer};
static PySequenceMethods block_as_sequence = {.sq_length = (lenfunc)block_length};

static PyTypeObject BlockType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = RANKWISE_BLOCK_NAME,
    .tp_basicsize = sizeof(BlockObject),
    .tp_dealloc = (destructor)block_dealloc,
    .tp_as_buffer = &block_as_buffer,
    .tp_as_sequence = &block_as_sequence,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Memory owned by rankwise's C modules, exposed as a writable buffer.",
};

/* ------------------------------------------------------------------------ */
/* Growable byte vectors (plain malloc/realloc: usable without the GIL)      */

typedef struct {
    char *data;
    size_t size;
    size_t cap;
} Vec;

/*
 * Ask for transparent huge pages on a large block read at random (a hash table's slots):
 * fewer TLB misses. Not for a vector filled in order: there huge pages save page faults
 * on bare metal, but on a VM that hands freed memory back to its host (virtio-balloon
 * free page reporting, as on the machines rankwise is measured on) a fresh huge page is
 * faulted in from the host, and filling 140 MB took 0.25-0.36 s of system time after a
 * pause against 0.06-0.08 s in 4 KiB pages (issue 40's closing note).
 */
static MAYBE_UNUSED void
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

/* The 8 bytes at `value` (an int64 or a float64) appended. */
static inline int
vec_push_8(Vec *v, const void *value)
{
    return vec_append(v, value, 8);
}

static MAYBE_UNUSED void
vec_free(Vec *v)
{
    free(v->data);
    v->data = NULL;
    v->size = v->cap = 0;
}

/* Hand the vector's memory to a new Block (the vector is left empty); NULL on failure. */
static MAYBE_UNUSED PyObject *
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
    block->exports = 0;
    block->capacity = block->size;
    v->data = NULL;
    v->size = v->cap = 0;
    return (PyObject *)block;
}

/*
 * extend(block, data, /): the bytes of data appended to block (None: a new Block), which
 * grows in place by half its size or more (realloc: a large block's pages are moved, never
 * copied or touched again); returns the block. The GIL is released while the bytes are copied: one thread
 * at a time extends a block, and no buffer of it may be held (BufferError).
 */
static MAYBE_UNUSED PyObject *
block_extend(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *target;
    Py_buffer part;
    if (!PyArg_ParseTuple(args, "Oy*:extend", &target, &part)) {
        return NULL;
    }
    BlockObject *block;
    if (target == Py_None) {
        block = PyObject_New(BlockObject, &BlockType);
        if (block == NULL) {
            PyBuffer_Release(&part);
            return NULL;
        }
        block->data = NULL;
        block->size = 0;
        block->exports = 0;
        block->capacity = 0;
    }
    else if (Py_IS_TYPE(target, &BlockType)) {
        block = (BlockObject *)Py_NewRef(target);
    }
    else {
        PyBuffer_Release(&part);
        PyErr_SetString(PyExc_TypeError, "extend: the target must be a Block or None");
        return NULL;
    }
    if (block->exports > 0) {
        PyBuffer_Release(&part);
        Py_DECREF(block);
        PyErr_SetString(PyExc_BufferError, "extend: a buffer of the block is held");
        return NULL;
    }
    size_t size = (size_t)block->size, n = (size_t)part.len, capacity = (size_t)block->capacity;
    /* grown by half at least: a realloc that has to move copies the block, so a block
       grown piece by piece would be copied about as often as it grows */
    size_t wanted = size + n > capacity ? size + n + (size + n) / 2 : capacity;
    char *grown = block->data;
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    if (wanted != capacity) {
        grown = realloc(block->data, wanted);
        failed = grown == NULL;
    }
    if (!failed && n) {
        memcpy(grown + size, part.buf, n);
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&part);
    if (failed) {
        Py_DECREF(block);
        return PyErr_NoMemory();
    }
    block->data = grown;
    block->capacity = (Py_ssize_t)wanted;
    block->size = (Py_ssize_t)(size + n);
    return (PyObject *)block;
}

#endif /* RANKWISE_BLOCKS_H */
