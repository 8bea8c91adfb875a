/*
 * rankwise.stats._cflip: the sums of the randomization (sign-flip) test, by table lookup.
 *
 * rankwise.stats.resampling.sign_flip_sums writes each column's sum over a
 * sign pattern as sum_i v_i - 2 sum_g L_g[byte_g]: the bits of the pattern,
 * 8 differences at a time, index a table L_g of the 256 partial sums of each
 * group g of 8 values. numpy gathers one (resamples x groups) array per
 * column and sums it; this module does the same lookups for every column in
 * one pass over the pattern bytes, without the gathered array, so memory
 * traffic is the bytes and the tables only.
 *
 * Each sum adds the looked-up entries in numpy's pairwise order (blocks of
 * at most 128 terms summed in 8 lanes, larger runs halved at a multiple of
 * 8, as numpy's add.reduce does along a contiguous row), so the sums are
 * the bits numpy's path gives, with or without this module (tested). The
 * GIL is released while it runs.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdlib.h>

/*
 * The sums of column table *column* over the groups first .. first + n - 1 of
 * every row, in numpy's pairwise order (numpy/_core/src/umath/loops_utils.h,
 * the algorithm written anew): fewer than 8 terms added in order from 0.0; up
 * to 128 in 8 lanes, lanes combined ((0+1)+(2+3))+((4+5)+(6+7)), the rest
 * added after; more halved at a multiple of 8 and the halves' sums added.
 * Done for all rows at once, a block of at most 128 groups at a time, so the
 * part of the table a block looks up (at most 256 KiB) stays in cache.
 * Returns -1 when out of memory.
 */
static int
pairwise_rows(const double *column, const uint8_t *bytes, Py_ssize_t groups, Py_ssize_t rows,
              Py_ssize_t first, Py_ssize_t n, double *out)
{
    if (n > 128) {
        Py_ssize_t half = n / 2;
        half -= half % 8;
        double *right = (double *)malloc((size_t)(rows > 0 ? rows : 1) * sizeof(double));
        if (right == NULL) {
            return -1;
        }
        if (pairwise_rows(column, bytes, groups, rows, first, half, out) < 0
            || pairwise_rows(column, bytes, groups, rows, first + half, n - half, right) < 0) {
            free(right);
            return -1;
        }
        for (Py_ssize_t r = 0; r < rows; r++) {
            out[r] = out[r] + right[r];
        }
        free(right);
        return 0;
    }
    const double *block = column + (first << 8);
    for (Py_ssize_t r = 0; r < rows; r++) {
        const uint8_t *row = bytes + r * groups + first;
        if (n < 8) {
            double res = 0.0;
            for (Py_ssize_t i = 0; i < n; i++) {
                res += block[(i << 8) + row[i]];
            }
            out[r] = res;
            continue;
        }
        double lane[8];
        for (int k = 0; k < 8; k++) {
            lane[k] = block[(k << 8) + row[k]];
        }
        Py_ssize_t i;
        for (i = 8; i < n - (n % 8); i += 8) {
            for (int k = 0; k < 8; k++) {
                lane[k] += block[((i + k) << 8) + row[i + k]];
            }
        }
        double res = ((lane[0] + lane[1]) + (lane[2] + lane[3]))
                     + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
        for (; i < n; i++) {
            res += block[(i << 8) + row[i]];
        }
        out[r] = res;
    }
    return 0;
}

/*
 * lut_sums(tables, flips, out)
 *   tables float64[C * G * 256]: entry (j * G + g) * 256 + b is L_g[b] of column j
 *   flips  uint8[R * G]:         row r's pattern bytes, G per row (C-contiguous)
 *   out    float64[R * C]:       written: out[r * C + j] = sum_g L_g[flips[r, g]] of column j
 * C and G are read from the sizes: C = len(out) / R with R = len(flips) / G, G given.
 */
static PyObject *
lut_sums(PyObject *self, PyObject *args)
{
    PyObject *tables_obj, *flips_obj, *out_obj;
    Py_ssize_t groups;
    if (!PyArg_ParseTuple(args, "OOOn", &tables_obj, &flips_obj, &out_obj, &groups)) {
        return NULL;
    }
    Py_buffer tables, flips, out;
    int held_tables = 0, held_flips = 0, held_out = 0;
    PyObject *result = NULL;
    if (PyObject_GetBuffer(tables_obj, &tables, PyBUF_C_CONTIGUOUS) < 0) {
        goto done;
    }
    held_tables = 1;
    if (PyObject_GetBuffer(flips_obj, &flips, PyBUF_C_CONTIGUOUS) < 0) {
        goto done;
    }
    held_flips = 1;
    if (PyObject_GetBuffer(out_obj, &out, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        goto done;
    }
    held_out = 1;
    if (groups <= 0 || flips.len % groups != 0 || tables.len % (Py_ssize_t)sizeof(double) != 0
        || out.len % (Py_ssize_t)sizeof(double) != 0) {
        PyErr_SetString(PyExc_ValueError, "lut_sums: sizes do not match");
        goto done;
    }
    Py_ssize_t rows = flips.len / groups;
    Py_ssize_t table_entries = tables.len / (Py_ssize_t)sizeof(double);
    if (table_entries % (groups * 256) != 0) {
        PyErr_SetString(PyExc_ValueError, "lut_sums: tables are not groups x 256 x columns");
        goto done;
    }
    Py_ssize_t columns = table_entries / (groups * 256);
    if (out.len / (Py_ssize_t)sizeof(double) != rows * columns) {
        PyErr_SetString(PyExc_ValueError, "lut_sums: out is not rows x columns");
        goto done;
    }
    double *column_sums = (double *)malloc((size_t)(rows > 0 ? rows : 1) * sizeof(double));
    if (column_sums == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    const double *table = (const double *)tables.buf;
    const uint8_t *bytes = (const uint8_t *)flips.buf;
    double *sums = (double *)out.buf;
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t j = 0; j < columns && !failed; j++) {
        failed = pairwise_rows(table + j * groups * 256, bytes, groups, rows, 0, groups,
                               column_sums) < 0;
        for (Py_ssize_t r = 0; r < rows && !failed; r++) {
            sums[r * columns + j] = column_sums[r];
        }
    }
    Py_END_ALLOW_THREADS
    free(column_sums);
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    result = Py_NewRef(Py_None);
done:
    if (held_out) {
        PyBuffer_Release(&out);
    }
    if (held_flips) {
        PyBuffer_Release(&flips);
    }
    if (held_tables) {
        PyBuffer_Release(&tables);
    }
    return result;
}

static PyMethodDef methods[] = {
    {"lut_sums", lut_sums, METH_VARARGS,
     "Sums of table entries picked by pattern bytes, every column in one pass."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_cflip", "The sign-flip test's table lookups in C.", -1, methods,
};

PyMODINIT_FUNC
PyInit__cflip(void)
{
    return PyModule_Create(&module);
}
