/*
 * rankwise.fusion._cfuse: the candidates of fusion, (query, document) pairs, in linear time.
 *
 * Rows of all runs come as a query code and a 64-bit document key each. The
 * rows are put in order of query (a counting sort), then each query's rows go
 * through a small hash table of its own (it stays in cache): each distinct
 * (query, key) becomes a candidate, numbered query by query, so candidates
 * come out sorted by query. Python confirms the documents where keys are
 * hashes of long ids (see align.py). The GIL is released throughout.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rankwise_strings.h"

typedef struct {
    uint64_t key;
    int64_t candidate; /* -1: empty */
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

PyDoc_STRVAR(order_doc,
"order(query, n_queries, order_out, starts_out)\n\n"
"A counting sort of the rows by query: order_out (int64, one per row) lists the rows of\n"
"query 0, then of query 1, ... each in row order; starts_out (int64, n_queries + 1) where\n"
"each query's rows begin in it.");

static PyObject *
cfuse_order(PyObject *self, PyObject *args)
{
    PyObject *query_obj, *order_obj, *starts_obj;
    Py_ssize_t n_queries;
    if (!PyArg_ParseTuple(args, "OnOO:order", &query_obj, &n_queries, &order_obj, &starts_obj)) {
        return NULL;
    }
    Py_buffer query_view, order_view, starts_view;
    if (get_buffer(query_obj, &query_view, sizeof(int64_t), -1, 0, "order: query") < 0) {
        return NULL;
    }
    Py_ssize_t n = query_view.len / (Py_ssize_t)sizeof(int64_t);
    if (get_buffer(order_obj, &order_view, sizeof(int64_t), n, 1, "order: order_out") < 0) {
        PyBuffer_Release(&query_view);
        return NULL;
    }
    if (get_buffer(starts_obj, &starts_view, sizeof(int64_t), n_queries + 1, 1,
                   "order: starts_out") < 0) {
        PyBuffer_Release(&query_view);
        PyBuffer_Release(&order_view);
        return NULL;
    }
    const int64_t *query = (const int64_t *)query_view.buf;
    int64_t *order = (int64_t *)order_view.buf;
    int64_t *starts = (int64_t *)starts_view.buf;
    int64_t *fill = PyMem_Malloc((size_t)(n_queries > 0 ? n_queries : 1) * sizeof(int64_t));
    int bad = 0;
    if (fill == NULL) {
        PyErr_NoMemory();
    } else {
        Py_BEGIN_ALLOW_THREADS
        memset(starts, 0, (size_t)(n_queries + 1) * sizeof(int64_t));
        for (Py_ssize_t i = 0; i < n; i++) {
            if (query[i] < 0 || query[i] >= n_queries) {
                bad = 1;
                break;
            }
            starts[query[i] + 1]++;
        }
        if (!bad) {
            for (Py_ssize_t q = 0; q < n_queries; q++) {
                starts[q + 1] += starts[q];
            }
            memcpy(fill, starts, (size_t)n_queries * sizeof(int64_t));
            for (Py_ssize_t i = 0; i < n; i++) {
                order[fill[query[i]]++] = i;
            }
        }
        Py_END_ALLOW_THREADS
        PyMem_Free(fill);
        if (bad) {
            PyErr_SetString(PyExc_ValueError, "order: a query code is out of range");
        }
    }
    PyBuffer_Release(&query_view);
    PyBuffer_Release(&order_view);
    PyBuffer_Release(&starts_view);
    if (PyErr_Occurred()) {
        return NULL;
    }
    Py_RETURN_NONE;
}

PyDoc_STRVAR(group_doc,
"group(order, starts, key, q_begin, q_end, candidate_out, candidate_query_out, first_out)"
" -> int\n\n"
"The candidates of queries q_begin .. q_end - 1: each distinct key among a query's rows\n"
"(order[starts[q]:starts[q + 1]]) is a candidate, numbered from 0 query by query. Writes\n"
"candidate_out[row] for those rows, and per candidate its query and first row into\n"
"candidate_query_out and first_out (room for one per row); returns the number of\n"
"candidates. Parts of the queries may run on several threads (the GIL is released).");

static PyObject *
cfuse_group(PyObject *self, PyObject *args)
{
    PyObject *order_obj, *starts_obj, *key_obj, *candidate_obj, *candidate_query_obj,
        *first_obj;
    Py_ssize_t q_begin, q_end;
    if (!PyArg_ParseTuple(args, "OOOnnOOO:group", &order_obj, &starts_obj, &key_obj, &q_begin,
                          &q_end, &candidate_obj, &candidate_query_obj, &first_obj)) {
        return NULL;
    }
    Py_buffer views[6];
    PyObject *objects[6] = {order_obj, starts_obj, key_obj, candidate_obj, candidate_query_obj,
                            first_obj};
    const char *names[6] = {"group: order", "group: starts", "group: key", "group: candidate_out",
                            "group: candidate_query_out", "group: first_out"};
    int writable[6] = {0, 0, 0, 1, 1, 1};
    int held = 0;
    for (; held < 6; held++) {
        if (get_buffer(objects[held], &views[held], 8, -1, writable[held], names[held]) < 0) {
            break;
        }
    }
    PyObject *result = NULL;
    if (held == 6) {
        const int64_t *order = (const int64_t *)views[0].buf;
        const int64_t *starts = (const int64_t *)views[1].buf;
        const uint64_t *key = (const uint64_t *)views[2].buf;
        int64_t *candidate = (int64_t *)views[3].buf;
        int64_t *candidate_query = (int64_t *)views[4].buf;
        int64_t *first = (int64_t *)views[5].buf;
        Py_ssize_t n_rows = views[0].len / 8, n_starts = views[1].len / 8;
        Py_ssize_t room = views[4].len / 8;
        if (q_begin < 0 || q_end < q_begin || q_end >= n_starts || starts[q_end] > n_rows ||
            views[2].len / 8 != n_rows || views[3].len / 8 != n_rows || views[5].len / 8 < room ||
            room < starts[q_end] - starts[q_begin]) {
            PyErr_SetString(PyExc_ValueError, "group: inconsistent arguments");
        } else {
            int64_t largest = 0;
            for (Py_ssize_t q = q_begin; q < q_end; q++) {
                if (starts[q + 1] - starts[q] > largest) {
                    largest = starts[q + 1] - starts[q];
                }
            }
            size_t cap = 16;
            while (cap < (size_t)largest * 2) {
                cap <<= 1;
            }
            Slot *slots = PyMem_Malloc(cap * sizeof(Slot));
            if (slots == NULL) {
                PyErr_NoMemory();
            } else {
                int64_t next = 0;
                Py_BEGIN_ALLOW_THREADS
                for (Py_ssize_t q = q_begin; q < q_end; q++) {
                    int64_t begin = starts[q], end = starts[q + 1];
                    if (begin == end) {
                        continue;
                    }
                    size_t size = 16;
                    while (size < (size_t)(end - begin) * 2) {
                        size <<= 1;
                    }
                    for (size_t s = 0; s < size; s++) {
                        slots[s].candidate = -1;
                    }
                    for (int64_t p = begin; p < end; p++) {
                        int64_t row = order[p];
                        uint64_t k = key[row];
                        size_t at = (size_t)mix(k) & (size - 1);
                        while (slots[at].candidate >= 0 && slots[at].key != k) {
                            at = (at + 1) & (size - 1);
                        }
                        if (slots[at].candidate < 0) {
                            slots[at].key = k;
                            slots[at].candidate = next;
                            candidate_query[next] = q;
                            first[next] = row;
                            next++;
                        }
                        candidate[row] = slots[at].candidate;
                    }
                }
                Py_END_ALLOW_THREADS
                PyMem_Free(slots);
                result = PyLong_FromLongLong(next);
            }
        }
    }
    for (int v = 0; v < held; v++) {
        PyBuffer_Release(&views[v]);
    }
    return result;
}

PyDoc_STRVAR(keys_doc,
"keys(chunks, out) -> bool\n\n"
"A 64-bit key per string of the Arrow string chunks [(length, offsets, data, offset), ...],\n"
"written to out (uint64, one per string, in order). Strings of at most 7 bytes get their\n"
"bytes and their length; 8 bytes, their bytes; longer ones a hash. Returns whether the keys\n"
"are exact (one key per string): no string is longer than 8 bytes, and no 8-byte string\n"
"ends with a byte below 8 (which could meet a shorter string's length tag).");

static PyObject *
cfuse_keys(PyObject *self, PyObject *args)
{
    PyObject *chunk_list, *out_obj;
    if (!PyArg_ParseTuple(args, "O!O:keys", &PyList_Type, &chunk_list, &out_obj)) {
        return NULL;
    }
    Py_buffer out_view;
    if (PyObject_GetBuffer(out_obj, &out_view, PyBUF_WRITABLE) < 0) {
        return NULL;
    }
    uint64_t *out = (uint64_t *)out_view.buf;
    Py_ssize_t capacity = out_view.len / (Py_ssize_t)sizeof(uint64_t);
    Py_ssize_t at = 0;
    int exact = 1;
    Py_ssize_t n_chunks = PyList_GET_SIZE(chunk_list);
    for (Py_ssize_t c = 0; c < n_chunks; c++) {
        Py_ssize_t length, offset;
        PyObject *offsets_obj, *data_obj;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(chunk_list, c), "nOOn", &length, &offsets_obj,
                              &data_obj, &offset)) {
            PyBuffer_Release(&out_view);
            return NULL;
        }
        Py_buffer offsets_view, data_view;
        if (PyObject_GetBuffer(offsets_obj, &offsets_view, PyBUF_SIMPLE) < 0) {
            PyBuffer_Release(&out_view);
            return NULL;
        }
        if (PyObject_GetBuffer(data_obj, &data_view, PyBUF_SIMPLE) < 0) {
            PyBuffer_Release(&offsets_view);
            PyBuffer_Release(&out_view);
            return NULL;
        }
        const int32_t *o = (const int32_t *)offsets_view.buf + offset;
        int ok = length >= 0 && offset >= 0 && at + length <= capacity &&
                 offsets_view.len >= (offset + length + 1) * (Py_ssize_t)sizeof(int32_t) &&
                 (length == 0 || (o[0] >= 0 && o[length] >= o[0] && o[length] <= data_view.len));
        if (ok) {
            const unsigned char *data = (const unsigned char *)data_view.buf;
            const unsigned char *limit = data + data_view.len;
            Py_BEGIN_ALLOW_THREADS
            for (Py_ssize_t i = 0; i < length; i++) {
                const unsigned char *s = data + o[i];
                size_t n = (size_t)(o[i + 1] - o[i]);
                uint64_t key;
                if (n <= 7) {
                    key = short_word(s, n, limit) | ((uint64_t)n << 56);
                } else if (n == 8) {
                    key = short_word(s, n, limit);
                    if (s[7] < 8) {
                        exact = 0;
                    }
                } else {
                    key = hash_bytes(s, n);
                    exact = 0;
                }
                out[at + i] = key;
            }
            Py_END_ALLOW_THREADS
            at += length;
        }
        PyBuffer_Release(&offsets_view);
        PyBuffer_Release(&data_view);
        if (!ok) {
            PyBuffer_Release(&out_view);
            PyErr_SetString(PyExc_ValueError, "keys: a chunk's buffers are too short");
            return NULL;
        }
    }
    PyBuffer_Release(&out_view);
    if (at != capacity) {
        PyErr_SetString(PyExc_ValueError, "keys: out does not hold one key per string");
        return NULL;
    }
    return PyBool_FromLong(exact);
}

static PyMethodDef cfuse_methods[] = {
    {"order", cfuse_order, METH_VARARGS, order_doc},
    {"group", cfuse_group, METH_VARARGS, group_doc},
    {"keys", cfuse_keys, METH_VARARGS, keys_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef cfuse_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "rankwise.fusion._cfuse",
    .m_doc = "Fusion candidates: (query, document) pairs grouped in linear time (see align.py).",
    .m_size = -1,
    .m_methods = cfuse_methods,
};

PyMODINIT_FUNC
PyInit__cfuse(void)
{
    return PyModule_Create(&cfuse_module);
}
