/*
 * rankwise.stats._cflip: the sums of the randomization (sign-flip) test, by table lookup.
 *
 * rankwise.stats.resampling.sign_flip_sums writes each column's sum over a
 * sign pattern as sum_i v_i - 2 sum_g L_g[byte_g]: the bits of the pattern,
 * 8 differences at a time, index a table L_g of the 256 partial sums of the
 * group g of 8 values. The groups are summed in numpy's pairwise order; at
 * each leaf of that order (at most 128 groups) this module builds the leaf's
 * tables (at most 256 KiB, so they stay in cache) and does the lookups of
 * every pattern of the chunk. No table of all the groups is ever held:
 * memory is the pattern bytes and one leaf's tables, whatever the number of
 * differences.
 *
 * The tables and sums are the bits of resampling.py's numpy path, which
 * does the same steps (tested): an entry of a table adds the values of its
 * set bits in bit order (built by doubling: L[2^k + b] = L[b] + v_k), and a
 * leaf's entries are added as numpy's add.reduce adds a contiguous row. The
 * GIL is released while it runs.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdlib.h>

/* The 256-entry tables of *n* groups of 8 values each, one after another. */
static void
build_tables(const double *values, Py_ssize_t n, double *tables)
{
    for (Py_ssize_t g = 0; g < n; g++) {
        const double *v = values + 8 * g;
        double *table = tables + (g << 8);
        table[0] = 0.0;
        for (int k = 0; k < 8; k++) {
            const int width = 1 << k;
            const double add = v[k];
            for (int b = 0; b < width; b++) {
                table[width + b] = table[b] + add;
            }
        }
    }
}

/*
 * The sums over the groups first .. first + n - 1 of every row, in numpy's
 * pairwise order (numpy/_core/src/umath/loops_utils.h, the algorithm written
 * anew): fewer than 8 terms added in order from 0.0; up to 128 in 8 lanes,
 * lanes combined ((0+1)+(2+3))+((4+5)+(6+7)), the rest added after; more
 * halved at a multiple of 8 and the halves' sums added. *values* is the
 * column (8 values a group), *scratch* room for 128 tables.
 * Returns -1 when out of memory.
 */
static int
pairwise_rows(const double *values, const uint8_t *bytes, Py_ssize_t groups, Py_ssize_t rows,
              Py_ssize_t first, Py_ssize_t n, double *scratch, double *out)
{
    if (n > 128) {
        Py_ssize_t half = n / 2;
        half -= half % 8;
        double *right = (double *)malloc((size_t)(rows > 0 ? rows : 1) * sizeof(double));
        if (right == NULL) {
            return -1;
        }
        if (pairwise_rows(values, bytes, groups, rows, first, half, scratch, out) < 0
            || pairwise_rows(values, bytes, groups, rows, first + half, n - half, scratch,
                             right) < 0) {
            free(right);
            return -1;
        }
        for (Py_ssize_t r = 0; r < rows; r++) {
            out[r] = out[r] + right[r];
        }
        free(right);
        return 0;
    }
    build_tables(values + 8 * first, n, scratch);
    const double *block = scratch;
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
 * lut_sums(values, flips, out, groups)
 *   values float64[C * G * 8]: column j's values (zero-padded to G groups of 8) at j * G * 8
 *   flips  uint8[R * G]:       row r's pattern bytes, G per row (C-contiguous)
 *   out    float64[R * C]:     written: out[r * C + j] = sum_g L_g[flips[r, g]] of column j
 * C and R are read from the sizes.
 */
static PyObject *
lut_sums(PyObject *self, PyObject *args)
{
    PyObject *values_obj, *flips_obj, *out_obj;
    Py_ssize_t groups;
    if (!PyArg_ParseTuple(args, "OOOn", &values_obj, &flips_obj, &out_obj, &groups)) {
        return NULL;
    }
    Py_buffer values, flips, out;
    int held_values = 0, held_flips = 0, held_out = 0;
    PyObject *result = NULL;
    if (PyObject_GetBuffer(values_obj, &values, PyBUF_C_CONTIGUOUS) < 0) {
        goto done;
    }
    held_values = 1;
    if (PyObject_GetBuffer(flips_obj, &flips, PyBUF_C_CONTIGUOUS) < 0) {
        goto done;
    }
    held_flips = 1;
    if (PyObject_GetBuffer(out_obj, &out, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        goto done;
    }
    held_out = 1;
    if (groups <= 0 || flips.len % groups != 0 || values.len % (Py_ssize_t)sizeof(double) != 0
        || out.len % (Py_ssize_t)sizeof(double) != 0) {
        PyErr_SetString(PyExc_ValueError, "lut_sums: sizes do not match");
        goto done;
    }
    Py_ssize_t rows = flips.len / groups;
    Py_ssize_t entries = values.len / (Py_ssize_t)sizeof(double);
    if (entries % (groups * 8) != 0) {
        PyErr_SetString(PyExc_ValueError, "lut_sums: values are not columns x groups x 8");
        goto done;
    }
    Py_ssize_t columns = entries / (groups * 8);
    if (out.len / (Py_ssize_t)sizeof(double) != rows * columns) {
        PyErr_SetString(PyExc_ValueError, "lut_sums: out is not rows x columns");
        goto done;
    }
    double *column_sums = (double *)malloc((size_t)(rows > 0 ? rows : 1) * sizeof(double));
    double *scratch = (double *)malloc((size_t)128 * 256 * sizeof(double));
    if (column_sums == NULL || scratch == NULL) {
        free(column_sums);
        free(scratch);
        PyErr_NoMemory();
        goto done;
    }
    const double *column = (const double *)values.buf;
    const uint8_t *bytes = (const uint8_t *)flips.buf;
    double *sums = (double *)out.buf;
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t j = 0; j < columns && !failed; j++) {
        failed = pairwise_rows(column + j * groups * 8, bytes, groups, rows, 0, groups,
                               scratch, column_sums) < 0;
        for (Py_ssize_t r = 0; r < rows && !failed; r++) {
            sums[r * columns + j] = column_sums[r];
        }
    }
    Py_END_ALLOW_THREADS
    free(column_sums);
    free(scratch);
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
    if (held_values) {
        PyBuffer_Release(&values);
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
