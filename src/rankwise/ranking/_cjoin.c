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

typedef struct {
    uint64_t hash;
    int32_t code; /* -1: empty */
} Slot;

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
    Slot *slots = NULL;
    uint64_t *filter = NULL;
    PyObject *result = NULL;
    if (chunks == NULL) {
        return PyErr_NoMemory();
    }
    if (chunk_from_tuple(values_tuple, &values, "find") < 0) {
        goto done;
    }
    Py_ssize_t total = 0;
    for (Py_ssize_t c = 0; c < n_chunks; c++) {
        if (chunk_from_tuple(PyList_GET_ITEM(chunk_list, c), &chunks[c], "find") < 0) {
            goto done;
        }
        total += chunks[c].length;
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
    size_t cap = 16;
    while (cap < (size_t)values.length * 2) {
        cap *= 2;
    }
    /* a bit per hash prefix, about 8 bits per value: most rows are not judged, and one
       look at this small table (it stays in the L1 cache) tells them apart */
    unsigned filter_bits = 15;
    while (filter_bits < 26 && ((size_t)1 << filter_bits) < (size_t)values.length * 8) {
        filter_bits++;
    }
    slots = PyMem_Malloc(cap * sizeof(Slot));
    filter = PyMem_Calloc(((size_t)1 << filter_bits) / 64, sizeof(uint64_t));
    if (slots == NULL || filter == NULL) {
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
            if (slots[at].hash == h) {
                size_t m;
                const unsigned char *t = chunk_string(&values, slots[at].code, &m);
                if (m == n && memcmp(s, t, n) == 0) {
                    duplicate = 1; /* keep the first occurrence */
                    break;
                }
            }
            at = (at + 1) & (cap - 1);
        }
        if (!duplicate) {
            slots[at].hash = h;
            slots[at].code = (int32_t)i;
            uint64_t bit = h >> (64 - filter_bits);
            filter[bit >> 6] |= (uint64_t)1 << (bit & 63);
        }
    }
    int64_t row = 0;
    for (Py_ssize_t c = 0; c < n_chunks; c++) {
        const StringChunk *chunk = &chunks[c];
        const unsigned char *end = (const unsigned char *)chunk->data.buf + chunk->data.len;
        for (Py_ssize_t i = 0; i < chunk->length; i++, row++) {
            size_t n;
            const unsigned char *s = chunk_string(chunk, i, &n);
            uint64_t h = hash_token(s, n, end);
            uint64_t bit = h >> (64 - filter_bits);
            if (!(filter[bit >> 6] & ((uint64_t)1 << (bit & 63)))) {
                continue;
            }
            size_t at = (size_t)h & (cap - 1);
            while (slots[at].code >= 0) {
                if (slots[at].hash == h) {
                    size_t m;
                    const unsigned char *t = chunk_string(&values, slots[at].code, &m);
                    if (m == n && memcmp(s, t, n) == 0) {
                        rows_out[found] = row;
                        codes_out[found] = slots[at].code;
                        found++;
                        break;
                    }
                }
                at = (at + 1) & (cap - 1);
            }
        }
    }
    Py_END_ALLOW_THREADS
    result = PyLong_FromSize_t(found);

done:
    PyMem_Free(slots);
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

static PyMethodDef cjoin_methods[] = {
    {"find", cjoin_find, METH_VARARGS, find_doc},
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
