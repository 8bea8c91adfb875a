/*
 * Arrow string chunks handed to C as (length, offsets, data, offset): the
 * buffers held for the call, bounds checked once. Shared by
 * rankwise.ranking._cjoin (the join of the run with the judgments) and
 * rankwise.ranking._crank (the ranks of judged documents). Include after
 * Python.h.
 */
#ifndef RANKWISE_CHUNKS_H
#define RANKWISE_CHUNKS_H

#include <stdint.h>
#include <string.h>

typedef struct {
    Py_buffer offsets; /* int32 */
    Py_buffer data;
    Py_ssize_t length;
    Py_ssize_t offset;    /* the array's offset into its offsets buffer */
    Py_ssize_t first_row; /* the row of its first string in the whole column */
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

/*
 * Read (length, offsets, data, offset) into a chunk; 0, or -1 with an exception
 * set (a ValueError whose message starts with `caller`).
 */
static int
chunk_from_tuple(PyObject *item, StringChunk *chunk, const char *caller)
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
        PyErr_Format(PyExc_ValueError, "%s: offsets buffer too short", caller);
        return -1;
    }
    const int32_t *o = (const int32_t *)chunk->offsets.buf + chunk->offset;
    if (chunk->length > 0 &&
        (o[0] < 0 || o[chunk->length] < o[0] || o[chunk->length] > chunk->data.len)) {
        chunk_release(chunk);
        PyErr_Format(PyExc_ValueError, "%s: offsets past the data buffer", caller);
        return -1;
    }
    return 0;
}

/*
 * Every chunk of a list of (length, offsets, data, offset) tuples, each numbered from the
 * row after the last one's; *rows the rows of all. 0, or -1 with an exception set (the
 * chunks read so far are held: the caller releases them).
 */
static int
chunks_from_list(PyObject *chunk_list, StringChunk *chunks, const char *caller,
                 Py_ssize_t *rows)
{
    *rows = 0;
    for (Py_ssize_t c = 0; c < PyList_GET_SIZE(chunk_list); c++) {
        if (chunk_from_tuple(PyList_GET_ITEM(chunk_list, c), &chunks[c], caller) < 0) {
            return -1;
        }
        chunks[c].first_row = *rows;
        *rows += chunks[c].length;
    }
    return 0;
}

/* String i of the chunk (its offsets checked by chunk_from_tuple's caller). */
static inline const unsigned char *
chunk_string(const StringChunk *chunk, Py_ssize_t i, size_t *length)
{
    const int32_t *o = (const int32_t *)chunk->offsets.buf + chunk->offset;
    *length = (size_t)(o[i + 1] - o[i]);
    return (const unsigned char *)chunk->data.buf + o[i];
}

#endif /* RANKWISE_CHUNKS_H */
