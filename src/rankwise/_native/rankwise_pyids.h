/*
 * Python ids and numbers read with the C API, as rankwise reads dict keys and
 * values: an id is a str, an int (not a bool; written as digits without making
 * a str) or an instance of the caller's id types, compared as its UTF-8 text;
 * a number is a float, an int (not a bool) or an instance of the number types.
 * And prefetches for reading a dict of dicts. Shared by rankwise.data._ccolumns
 * (dicts to columns) and rankwise.ranking._cdict (a run dict ranked in one
 * pass). Everything here needs the GIL.
 */
#ifndef RANKWISE_PYIDS_H
#define RANKWISE_PYIDS_H

#include <stdint.h>

#include "rankwise_strings.h"


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

static inline void
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

/*
 * The UTF-8 bytes of a str (compact ASCII: in place; otherwise encoded into a
 * bytes object kept in id->owned). 1, 0 when it cannot be encoded (an error is set).
 */
static MAYBE_UNUSED int
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
static MAYBE_UNUSED int
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
static MAYBE_UNUSED int
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

/*
 * The items of the inner dicts of a dict of dicts: their total and the most one holds.
 * 1; or 0 when a value is not a dict (*key and *value: the first such entry, borrowed).
 */
static MAYBE_UNUSED int
inner_sizes(PyObject *outer, size_t *total, Py_ssize_t *largest, PyObject **key, PyObject **value)
{
    Py_ssize_t pos = 0;
    *total = 0;
    *largest = 0;
    while (PyDict_Next(outer, &pos, key, value)) {
        if (!PyDict_Check(*value)) {
            return 0;
        }
        Py_ssize_t size = PyDict_GET_SIZE(*value);
        *total += (size_t)size;
        *largest = size > *largest ? size : *largest;
    }
    return 1;
}

#endif /* RANKWISE_PYIDS_H */
